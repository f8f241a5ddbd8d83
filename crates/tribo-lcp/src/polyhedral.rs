//! Polyhedral friction as an LCP (`docs/design/contact-mechanics.md` §4.1.3 linearised cone; Stewart &
//! Trinkle, "An implicit time-stepping scheme for rigid body dynamics with inelastic collisions and
//! Coulomb friction", IJNME 39, 1996, eq. 12), solved by Lemke's method.
//!
//! Each contact's tangential impulse is written over edge directions uₖ (unit vectors in the tangent
//! plane) as λₜ = Σₖ uₖ βₖ with βₖ ≥ 0, and each group of directions gets a slack γ (≈ the sliding
//! speed). With v = Aλ + b:
//!
//! | unknown | complementary to | meaning |
//! |---|---|---|
//! | λₙ ≥ 0 | vₙ ≥ 0 | Signorini |
//! | βₖ ≥ 0 | γ + uₖᵀvₜ ≥ 0 | an edge carries force only if the slip is most opposed to it |
//! | γ ≥ 0 | μλₙ − Σₖ βₖ ≥ 0 | slip only at the edge of the friction set |
//!
//! which are the KKT conditions of "λₜ maximises dissipation over the polygon conv{μλₙ uₖ}".
//! Groups: a pyramid is one group of m directions at angles 2πk/m (the inscribed m-gon); the box is
//! two groups {±t₁} and {±t₂}, one slack each. Unknown vector z = per contact [λₙ, β…, γ…].
//! The matrix is not symmetric, but it is copositive when A is positive semidefinite, and Lemke's method
//! processes it (Stewart & Trinkle 1996, §4).

use nalgebra::{DMatrix, DVector};

use crate::contact::ContactProblem;
use crate::delassus::DelassusRows;
use crate::error::{check_len, Error, Result};
use crate::friction::{edge_direction, FrictionModel};
use crate::lcp::Lcp;
use crate::lemke::{solve_lemke, LemkeOptions};
use crate::report::{contact_report, SolveReport};

/// Where one contact's unknowns sit in z.
#[derive(Debug, Clone, PartialEq)]
struct ContactLayout {
    normal: usize,
    /// (index of βₖ in z, direction uₖ in (t₁, t₂) coordinates, index of its group's γ in z).
    edges: Vec<(usize, [f64; 2], usize)>,
}

/// The LCP of a polyhedral-friction contact problem, and the map back to contact impulses.
#[derive(Debug, Clone, PartialEq)]
pub struct PolyhedralLcp {
    /// 0 ≤ z ⊥ Mz + q ≥ 0.
    pub lcp: Lcp,
    layout: Vec<ContactLayout>,
}

fn direction_groups(model: FrictionModel, contact: usize) -> Result<Vec<Vec<[f64; 2]>>> {
    match model {
        FrictionModel::Box => Ok(vec![vec![[1.0, 0.0], [-1.0, 0.0]], vec![[0.0, 1.0], [0.0, -1.0]]]),
        FrictionModel::Pyramid { edges } => Ok(vec![(0..edges).map(|k| edge_direction(k, edges)).collect()]),
        FrictionModel::Cone => Err(Error::NonPolyhedralFriction { contact }),
    }
}

impl PolyhedralLcp {
    /// Build the LCP (module docs). Circular-cone contacts are an error: replace them first with
    /// [`ContactProblem::with_cones_as_pyramids`].
    pub fn build<D: DelassusRows>(problem: &ContactProblem<D>) -> Result<Self> {
        problem.validate()?;
        // Layout and the friction rows (γ coupling) first.
        let mut layout = Vec::with_capacity(problem.contacts.len());
        let mut slack_rows: Vec<(usize, usize, f64, Vec<usize>)> = Vec::new(); // (γ, λₙ, μ, β's)
        let mut next = 0;
        for (contact, friction) in problem.contacts.iter().enumerate() {
            let normal = next;
            next += 1;
            let mut edges = Vec::new();
            for group in direction_groups(friction.model, contact)? {
                let first = next;
                next += group.len();
                let gamma = next;
                next += 1;
                edges.extend(group.iter().enumerate().map(|(k, u)| (first + k, *u, gamma)));
                slack_rows.push((gamma, normal, friction.mu, (first..first + group.len()).collect()));
            }
            layout.push(ContactLayout { normal, edges });
        }
        let size = next;

        // E maps z to λ (3 per contact); M = EᵀAE plus the slack coupling, q = Eᵀb.
        let rows = problem.free_velocity.len();
        let mut e = DMatrix::zeros(rows, size);
        for (contact, l) in layout.iter().enumerate() {
            e[(3 * contact, l.normal)] = 1.0;
            for &(beta, u, _) in &l.edges {
                e[(3 * contact + 1, beta)] = u[0];
                e[(3 * contact + 2, beta)] = u[1];
            }
        }
        let a = DMatrix::from_fn(rows, rows, |r, c| problem.delassus.entry(r, c));
        let mut m = e.transpose() * a * &e;
        let mut q = e.transpose() * &problem.free_velocity;
        for l in &layout {
            for &(beta, _, gamma) in &l.edges {
                m[(beta, gamma)] += 1.0;
            }
        }
        for (gamma, normal, mu, betas) in slack_rows {
            m[(gamma, normal)] = mu;
            for beta in betas {
                m[(gamma, beta)] = -1.0;
            }
            q[gamma] = 0.0;
        }
        Ok(Self {
            lcp: Lcp::new(m, q)?,
            layout,
        })
    }

    /// Contact impulses λ (normal, t₁, t₂ per contact) of an LCP solution z.
    pub fn impulses(&self, z: &DVector<f64>) -> Result<DVector<f64>> {
        check_len("z", self.lcp.dim(), z.len())?;
        let mut lambda = DVector::zeros(3 * self.layout.len());
        for (contact, l) in self.layout.iter().enumerate() {
            lambda[3 * contact] = z[l.normal];
            for &(beta, u, _) in &l.edges {
                lambda[3 * contact + 1] += u[0] * z[beta];
                lambda[3 * contact + 2] += u[1] * z[beta];
            }
        }
        Ok(lambda)
    }
}

/// Solve a box- or pyramid-friction contact problem exactly by Lemke's method on its LCP. Returns λ
/// (3 per contact) and a report whose residual and complementarity are those of the contact problem
/// ([`crate::report`]) and whose `iterations` are Lemke pivots.
pub fn solve_contacts_lemke<D: DelassusRows>(
    problem: &ContactProblem<D>,
    options: &LemkeOptions,
) -> Result<(DVector<f64>, SolveReport)> {
    let polyhedral = PolyhedralLcp::build(problem)?;
    let solution = solve_lemke(&polyhedral.lcp, options)?;
    let lambda = polyhedral.impulses(&solution.z)?;
    let report = contact_report(problem, &lambda, solution.report.iterations, f64::INFINITY);
    Ok((lambda, report))
}
