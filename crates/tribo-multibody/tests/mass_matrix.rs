//! The mass matrix (CRBA) against the RNEA, its properties, the sparse factorisation, bias forces,
//! and forward/inverse dynamics consistency, on the 35-dof humanoid and a mixed chain at random
//! configurations (fixed seeds).

mod common;

use common::{gravity, mixed_chain, random_state, random_vector, rng};
use nalgebra::{DMatrix, DVector, Vector3};
use tribo_multibody::{
    bias_forces, forward_dynamics, integrate_positions, inverse_dynamics, mass_matrix, point_jacobian, sample_trees,
    DelassusWork, Kinematics, Tree, TreeFactorisation,
};

fn trees() -> Vec<Tree> {
    vec![sample_trees::humanoid().expect("valid"), mixed_chain()]
}

#[test]
fn crba_equals_unit_acceleration_rnea_columns() {
    // M e_i = ID(q, 0, e_i) − ID(q, 0, 0) with gravity off: two independent algorithms.
    let mut rng = rng(1);
    for tree in trees() {
        for _ in 0..5 {
            let state = random_state(&tree, &mut rng);
            let kin = Kinematics::from_positions(&tree, &state.q).expect("valid");
            let m = mass_matrix(&kin);
            let zero = DVector::zeros(tree.nv());
            let base = inverse_dynamics(&kin, &zero, &Vector3::zeros(), None).expect("lengths");
            for i in 0..tree.nv() {
                let mut e = zero.clone();
                e[i] = 1.0;
                let column = inverse_dynamics(&kin, &e, &Vector3::zeros(), None).expect("lengths") - &base;
                let error = (column - m.column(i)).amax();
                assert!(error < 1e-12 * (1.0 + m.amax()), "column {i}: error {error:.3e}");
            }
        }
    }
}

#[test]
fn mass_matrix_is_symmetric_positive_definite_and_gives_the_kinetic_energy() {
    let mut rng = rng(2);
    for tree in trees() {
        let armature = DMatrix::from_diagonal(&tree.dof_armature());
        for _ in 0..5 {
            let state = random_state(&tree, &mut rng);
            let kin = Kinematics::new(&tree, &state).expect("valid");
            let m = mass_matrix(&kin);
            assert!((&m - m.transpose()).amax() < 1e-14 * m.amax());
            let eigenvalues = m.clone().symmetric_eigenvalues();
            assert!(eigenvalues.min() > 0.0, "smallest eigenvalue {}", eigenvalues.min());
            // ½ vᵀ (M − armature) v = ½ Σ v̂ᵢᵀ Îᵢ v̂ᵢ.
            let from_matrix = 0.5 * state.v.dot(&((&m - &armature) * &state.v));
            let from_bodies = kin.kinetic_energy();
            assert!(
                (from_matrix - from_bodies).abs() < 1e-12 * from_bodies,
                "{from_matrix} vs {from_bodies}"
            );
        }
    }
}

#[test]
fn sparse_factorisation_matches_dense_cholesky() {
    let mut rng = rng(3);
    let tree = sample_trees::humanoid().expect("valid");
    for _ in 0..5 {
        let state = random_state(&tree, &mut rng);
        let kin = Kinematics::from_positions(&tree, &state.q).expect("valid");
        let m = mass_matrix(&kin);
        let factor = TreeFactorisation::new(m.clone(), &tree).expect("positive definite");
        let rebuilt = factor.l().transpose() * DMatrix::from_diagonal(&factor.d()) * factor.l();
        assert!((rebuilt - &m).amax() < 1e-12 * m.amax());
        // No fill-in: M and L are both zero outside the ancestor pattern of the dof tree.
        let l = factor.l();
        for i in 0..tree.nv() {
            let ancestors = ancestors(&tree, i);
            for j in (0..i).filter(|j| !ancestors.contains(j)) {
                assert_eq!((m[(i, j)], l[(i, j)]), (0.0, 0.0), "outside the pattern at ({i}, {j})");
            }
        }
        let y = random_vector(tree.nv(), &mut rng);
        let dense = m.clone().cholesky().expect("positive definite").solve(&y);
        let sparse = factor.solve(&y).expect("lengths");
        assert!(
            (&dense - &sparse).amax() < 1e-10 * dense.amax(),
            "{:.3e}",
            (&dense - &sparse).amax()
        );
        // Delassus operator of two point contacts on the feet.
        let mut j = DMatrix::zeros(6, tree.nv());
        for (row, name) in [(0, "R_ANKLE_R"), (3, "L_ANKLE_R")] {
            let body = tree.body_index(name).expect("exists");
            let point = kin.poses()[body] * nalgebra::Point3::new(0.1, 0.05, -0.05);
            j.rows_mut(row, 3)
                .copy_from(&point_jacobian(&kin, body, &point.coords).expect("in range"));
        }
        let a = factor.delassus(&j).expect("lengths");
        let expected = &j * m.clone().cholesky().expect("positive definite").solve(&j.transpose());
        assert!((&a - &expected).amax() < 1e-10 * expected.amax());
        assert_eq!(a, a.transpose(), "Delassus operator symmetric by construction");
    }
    // Strict lower-triangle pattern of the humanoid: pelvis 15 pairs; each leg Σ_{j=1..6} (6 + j − 1)
    // = 51; waist 6 + 7 + 8 = 21; each arm Σ_{j=1..7} (9 + j − 1) = 84: 15 + 102 + 21 + 168 = 306 of
    // the 595 a dense factorisation touches.
    let pattern: usize = (0..tree.nv()).map(|k| ancestors(&tree, k).len()).sum();
    assert_eq!(pattern, 306);
}

#[test]
fn sparse_delassus_operator_matches_the_dense_one_on_the_humanoid() {
    // Four corner contacts under each foot (common support: the pelvis's 6 dofs), one on a hand,
    // and a hand-against-knee contact within the tree (a row on two branches), at random states.
    let mut rng = rng(5);
    let tree = sample_trees::humanoid().expect("valid");
    let mut work = DelassusWork::default();
    let mut a = DMatrix::zeros(0, 0);
    for _ in 0..5 {
        let state = random_state(&tree, &mut rng);
        let kin = Kinematics::from_positions(&tree, &state.q).expect("valid");
        let m = mass_matrix(&kin);
        let factor = TreeFactorisation::new(m.clone(), &tree).expect("positive definite");
        let jacobian_at = |name: &str, local: [f64; 3]| {
            let body = tree.body_index(name).expect("exists");
            let point = kin.poses()[body] * nalgebra::Point3::from(local);
            point_jacobian(&kin, body, &point.coords).expect("in range")
        };
        let mut points = Vec::new();
        for foot in ["R_ANKLE_R", "L_ANKLE_R"] {
            for (x, y) in [(0.1, 0.05), (0.1, -0.05), (-0.05, 0.05), (-0.05, -0.05)] {
                points.push(jacobian_at(foot, [x, y, -0.05]));
            }
        }
        points.push(jacobian_at("L_WRIST_R", [0.0, 0.0, -0.1]));
        let within = jacobian_at("L_WRIST_R", [0.0, 0.0, -0.1]) - jacobian_at("R_KNEE", [0.05, 0.0, -0.2]);
        // Without, then with the contact within the tree (which takes the dense path).
        for count in [points.len(), points.len() + 1] {
            let mut j = DMatrix::zeros(3 * count, tree.nv());
            for (c, rows) in points.iter().chain([&within]).take(count).enumerate() {
                j.rows_mut(3 * c, 3).copy_from(rows);
            }
            factor.delassus_into(&j, &mut work, &mut a).expect("lengths");
            let expected = &j * m.clone().cholesky().expect("positive definite").solve(&j.transpose());
            let error = (&a - &expected).amax();
            assert!(error < 1e-12 * expected.amax(), "error {error:.3e}");
            let dense = factor.delassus(&j).expect("lengths");
            assert!(
                (&a - &dense).amax() < 1e-14 * dense.amax(),
                "the dense operator to rounding"
            );
        }
    }
}

/// The strict ancestors of dof `k` in the dof tree.
fn ancestors(tree: &Tree, k: usize) -> Vec<usize> {
    let mut list = Vec::new();
    let mut j = tree.dof_parent()[k];
    while let Some(jj) = j {
        list.push(jj);
        j = tree.dof_parent()[jj];
    }
    list
}

#[test]
fn coriolis_forces_satisfy_the_energy_identity() {
    // vᵀ C(q, v) = ½ vᵀ Ṁ v (skew-symmetry of Ṁ − 2C, e.g. Spong et al., *Robot Modeling and
    // Control*, §7.5), with Ṁ v by central differences of the CRBA along v. Checks the
    // velocity-product terms (free joint included) independently of the RNEA's structure.
    let mut rng = rng(4);
    for tree in trees() {
        for _ in 0..5 {
            let state = random_state(&tree, &mut rng);
            let kin = Kinematics::new(&tree, &state).expect("valid");
            let coriolis = bias_forces(&kin, &Vector3::zeros(), None).expect("lengths");
            let eps = 1e-6;
            let m_at = |s: f64| {
                let q = integrate_positions(&tree, &state.q, &state.v, s).expect("lengths");
                mass_matrix(&Kinematics::from_positions(&tree, &q).expect("valid"))
            };
            let m_dot = (m_at(eps) - m_at(-eps)) / (2.0 * eps);
            let lhs = state.v.dot(&coriolis);
            let rhs = 0.5 * state.v.dot(&(m_dot * &state.v));
            assert!(
                (lhs - rhs).abs() < 1e-6 * (1.0 + lhs.abs()),
                "vᵀC = {lhs}, ½ vᵀṀv = {rhs}"
            );
        }
    }
}

#[test]
fn forward_dynamics_inverts_inverse_dynamics() {
    // ID(q, v, FD(q, v, τ)) = τ − D v (FD includes the joint damping, ID does not).
    let mut rng = rng(5);
    for tree in trees() {
        for _ in 0..5 {
            let state = random_state(&tree, &mut rng);
            let kin = Kinematics::new(&tree, &state).expect("valid");
            let tau = random_vector(tree.nv(), &mut rng) * 20.0;
            let mut external = tribo_multibody::ExternalForces::new(&tree);
            external
                .add_force_at(
                    tree.len() - 1,
                    &Vector3::new(3.0, -1.0, 5.0),
                    &Vector3::new(0.2, 0.1, 0.4),
                )
                .expect("in range");
            let vdot = forward_dynamics(&kin, &tau, &gravity(), Some(&external)).expect("solvable");
            let back = inverse_dynamics(&kin, &vdot, &gravity(), Some(&external)).expect("lengths");
            let expected = &tau - tree.dof_damping().component_mul(&state.v);
            assert!((back - &expected).amax() < 1e-9 * (1.0 + expected.amax()));
        }
    }
}

#[test]
fn external_force_enters_as_jacobian_transpose() {
    // bias(f) − bias(0) = −J_pᵀ f for a force f at point P of a body.
    let mut rng = rng(6);
    let tree = sample_trees::humanoid().expect("valid");
    let state = random_state(&tree, &mut rng);
    let kin = Kinematics::new(&tree, &state).expect("valid");
    let body = tree.body_index("R_WRIST_R").expect("exists");
    let (force, point) = (Vector3::new(4.0, -2.0, 7.0), Vector3::new(0.3, -0.4, 0.9));
    let mut external = tribo_multibody::ExternalForces::new(&tree);
    external.add_force_at(body, &force, &point).expect("in range");
    let with = bias_forces(&kin, &gravity(), Some(&external)).expect("lengths");
    let without = bias_forces(&kin, &gravity(), None).expect("lengths");
    let expected = -point_jacobian(&kin, body, &point).expect("in range").transpose() * force;
    assert!((with - without - expected).amax() < 1e-12);
}

#[test]
fn gravity_compensation_holds_a_pose_with_zero_velocity() {
    // τ = g(q) (bias at v = 0) gives zero acceleration: a fixed-base check of the gravity terms.
    let tree = mixed_chain();
    let mut rng = rng(7);
    let mut state = random_state(&tree, &mut rng);
    state.v.fill(0.0);
    let kin = Kinematics::new(&tree, &state).expect("valid");
    let tau = bias_forces(&kin, &gravity(), None).expect("lengths");
    let vdot = forward_dynamics(&kin, &tau, &gravity(), None).expect("solvable");
    assert!(vdot.amax() < 1e-12, "{vdot}");
}
