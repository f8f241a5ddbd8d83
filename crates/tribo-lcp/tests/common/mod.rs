//! Shared test fixtures: rigid bodies resting on contacts, random well-posed problems.
#![allow(dead_code)]

use nalgebra::{DMatrix, DVector, Matrix3, Matrix3x6, Matrix6, Vector3};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use tribo_lcp::{BlockSparseDelassus, ContactFrame, ContactFriction, ContactProblem, FrictionModel};

/// Time step used by the physical fixtures, s.
pub const DT: f64 = 1e-3;

/// A free rigid body: mass (kg), inertia about the centre of mass in world axes (kg·m²), centre (m).
#[derive(Debug, Clone, Copy)]
pub struct Body {
    pub mass: f64,
    pub inertia: Matrix3<f64>,
    pub com: Vector3<f64>,
}

impl Body {
    /// A solid box of the given mass and full side lengths, centred at `com`.
    pub fn cuboid(mass: f64, sides: Vector3<f64>, com: Vector3<f64>) -> Self {
        let (x, y, z) = (sides.x * sides.x, sides.y * sides.y, sides.z * sides.z);
        let inertia = Matrix3::from_diagonal(&Vector3::new(y + z, x + z, x + y)) * (mass / 12.0);
        Self { mass, inertia, com }
    }

    /// A point mass (no rotational inertia is needed: its contacts see only translation).
    pub fn point(mass: f64, com: Vector3<f64>) -> Self {
        Self {
            mass,
            inertia: Matrix3::identity(),
            com,
        }
    }

    /// M⁻¹ for the velocity (v, ω).
    pub fn inverse_mass(&self) -> Matrix6<f64> {
        let mut m = Matrix6::zeros();
        m.fixed_view_mut::<3, 3>(0, 0)
            .copy_from(&(Matrix3::identity() / self.mass));
        m.fixed_view_mut::<3, 3>(3, 3)
            .copy_from(&self.inertia.try_inverse().expect("invertible inertia"));
        m
    }

    /// J (3 × 6) of a contact at `point`: rows (n, t₁, t₂), row for direction d = [dᵀ, (r × d)ᵀ], r = p − com
    /// (the point velocity is v + ω × r, and (ω × r)·d = ω·(r × d)).
    pub fn contact_jacobian(&self, frame: &ContactFrame, point: &Vector3<f64>) -> Matrix3x6<f64> {
        let r = point - self.com;
        let mut j = Matrix3x6::zeros();
        for (row, d) in [frame.normal, frame.t1, frame.t2].iter().enumerate() {
            let moment = r.cross(d);
            for k in 0..3 {
                j[(row, k)] = d[k];
                j[(row, 3 + k)] = moment[k];
            }
        }
        j
    }
}

/// One body resting on ground contacts: its Delassus operator (dense and block-sparse), the free
/// velocity after one step from rest under gravity g (m/s²) plus an extra force at the centre (N),
/// and the Jacobians (to recover the body velocity).
pub struct Resting {
    pub dense: DMatrix<f64>,
    pub sparse: BlockSparseDelassus,
    pub free_velocity: DVector<f64>,
    pub jacobians: Vec<Matrix3x6<f64>>,
}

pub fn resting(
    body: &Body,
    contacts: &[(Vector3<f64>, ContactFrame)],
    gravity: Vector3<f64>,
    push: Vector3<f64>,
) -> Resting {
    let jacobians: Vec<Matrix3x6<f64>> = contacts.iter().map(|(p, f)| body.contact_jacobian(f, p)).collect();
    let minv = body.inverse_mass();
    let n = 3 * contacts.len();
    let mut dense = DMatrix::zeros(n, n);
    for (a, ja) in jacobians.iter().enumerate() {
        for (b, jb) in jacobians.iter().enumerate() {
            dense
                .view_mut((3 * a, 3 * b), (3, 3))
                .copy_from(&(ja * minv * jb.transpose()));
        }
    }
    let mut sparse = BlockSparseDelassus::new(contacts.len());
    let pairs: Vec<(usize, Matrix3x6<f64>)> = jacobians.iter().copied().enumerate().collect();
    assert!(sparse.add_body_coupling(&pairs, &minv));
    // v⁻ = 0, so b = J h M⁻¹ f_ext with f_ext = (m g + push, 0).
    let mut generalised = nalgebra::Vector6::zeros();
    generalised
        .fixed_rows_mut::<3>(0)
        .copy_from(&((gravity * body.mass + push) * DT / body.mass));
    let free_velocity = DVector::from_iterator(
        n,
        jacobians
            .iter()
            .flat_map(|j| (j * generalised).iter().copied().collect::<Vec<_>>()),
    );
    Resting {
        dense,
        sparse,
        free_velocity,
        jacobians,
    }
}

/// The same friction at every contact.
pub fn frictions(count: usize, mu: f64, model: FrictionModel) -> Vec<ContactFriction> {
    vec![ContactFriction::new(mu, model); count]
}

/// Ground contacts (normal +z, t₁ = +x) at the given points.
pub fn ground_contacts(points: &[Vector3<f64>]) -> Vec<(Vector3<f64>, ContactFrame)> {
    points
        .iter()
        .map(|p| {
            (
                *p,
                ContactFrame::with_tangent(&Vector3::z(), &Vector3::x()).expect("unit normal"),
            )
        })
        .collect()
}

/// A symmetric positive definite n × n matrix B Bᵀ/n + I/2 with B uniform in [−1, 1]: eigenvalues in
/// [0.5, about 4.5], so that PGS converges in a few hundred sweeps.
pub fn random_spd(rng: &mut ChaCha8Rng, n: usize) -> DMatrix<f64> {
    let b = DMatrix::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0));
    &b * b.transpose() / n as f64 + DMatrix::identity(n, n) * 0.5
}

/// A random vector uniform in [lo, hi].
pub fn random_vector(rng: &mut ChaCha8Rng, n: usize, lo: f64, hi: f64) -> DVector<f64> {
    DVector::from_fn(n, |_, _| rng.random_range(lo..hi))
}

/// A random frictional contact problem on an SPD Delassus matrix, all contacts with `model`.
pub fn random_contact_problem(rng: &mut ChaCha8Rng, contacts: usize, model: FrictionModel) -> ContactProblem {
    let a = random_spd(rng, 3 * contacts);
    // Normal free velocities mostly approaching (negative), tangential ones of either sign.
    let b = DVector::from_fn(3 * contacts, |i, _| {
        if i % 3 == 0 {
            rng.random_range(-1.0..0.3)
        } else {
            rng.random_range(-0.8..0.8)
        }
    });
    let friction = (0..contacts)
        .map(|_| ContactFriction::new(rng.random_range(0.2..1.0), model))
        .collect();
    ContactProblem::new(a, b, friction).expect("valid problem")
}

/// A contact problem recorded from the engine (`tests/fixtures`): A row-major (`3 contacts` square,
/// 1/kg), stored as the engine stores it — its nonzero 3 × 3 blocks — with the free velocity b
/// (m/s) and cone friction μ per contact.
pub fn recorded_problem(delassus: &[f64], free_velocity: &[f64], mu: &[f64]) -> ContactProblem<BlockSparseDelassus> {
    let n = mu.len();
    let entry = |row: usize, col: usize| delassus[row * 3 * n + col];
    let mut blocks = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let block = Matrix3::from_fn(|r, c| entry(3 * i + r, 3 * j + c));
            if i == j || block.iter().any(|&x| x != 0.0) {
                blocks.push((i, j, block));
            }
        }
    }
    let operator = BlockSparseDelassus::from_blocks(n, blocks).expect("blocks within the island");
    let contacts = mu
        .iter()
        .map(|&mu| ContactFriction::new(mu, FrictionModel::Cone))
        .collect();
    ContactProblem::new(operator, DVector::from_column_slice(free_velocity), contacts).expect("valid problem")
}

/// The natural-map residual of every contact of a recorded problem (`recorded_problem`), from
/// w = Aλ + b computed densely here, not by the solver.
pub fn recorded_residual(delassus: &[f64], free_velocity: &[f64], mu: &[f64], lambda: &DVector<f64>) -> f64 {
    let rows = 3 * mu.len();
    let w: Vec<f64> = (0..rows)
        .map(|r| free_velocity[r] + (0..rows).map(|c| delassus[r * rows + c] * lambda[c]).sum::<f64>())
        .collect();
    (0..mu.len())
        .map(|c| {
            let l = [lambda[3 * c], lambda[3 * c + 1], lambda[3 * c + 2]];
            tribo_lcp::report::contact_errors(l, [w[3 * c], w[3 * c + 1], w[3 * c + 2]], mu[c], FrictionModel::Cone).0
        })
        .fold(0.0, f64::max)
}
