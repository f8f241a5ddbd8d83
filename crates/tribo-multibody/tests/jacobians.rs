//! Jacobians and accelerations against central finite differences of forward kinematics, for
//! revolute, prismatic, fixed and free joints at random configurations (fixed seeds).

mod common;

use common::{mixed_chain, random_state, random_vector, rng};
use nalgebra::{DVector, Isometry3, Point3, Vector3};
use rand::Rng;
use tribo_multibody::{
    frame_jacobian, integrate_positions, point_jacobian, sample_trees, spatial_jacobian, Kinematics, State, Tree,
};

const EPS: f64 = 1e-6;

fn pose_at(tree: &Tree, q: &DVector<f64>, body: usize) -> Isometry3<f64> {
    Kinematics::from_positions(tree, q).expect("valid").poses()[body]
}

/// Checks every body of `tree` at several random states: J_f v against the central difference of
/// the pose of a body-fixed point along q ⊕ s v, and the kinematics' own velocities against J v.
fn check_tree(tree: &Tree, seed: u64) {
    let mut rng = rng(seed);
    for _ in 0..5 {
        let state = random_state(tree, &mut rng);
        let kin = Kinematics::new(tree, &state).expect("valid");
        for body in 0..tree.len() {
            let local = Point3::new(
                rng.random_range(-0.3..0.3),
                rng.random_range(-0.3..0.3),
                rng.random_range(-0.3..0.3),
            );
            let point = (kin.poses()[body] * local).coords;
            let plus = pose_at(
                tree,
                &integrate_positions(tree, &state.q, &state.v, EPS).expect("lengths"),
                body,
            );
            let minus = pose_at(
                tree,
                &integrate_positions(tree, &state.q, &state.v, -EPS).expect("lengths"),
                body,
            );
            let linear = ((plus * local) - (minus * local)) / (2.0 * EPS);
            let angular = (plus.rotation * minus.rotation.inverse()).scaled_axis() / (2.0 * EPS);

            let jf = frame_jacobian(&kin, body, &point).expect("in range") * &state.v;
            let name = &tree.bodies()[body].name;
            assert!(
                (jf.fixed_rows::<3>(0) - linear).norm() < 1e-7,
                "{name}: linear {} vs {linear}",
                jf.fixed_rows::<3>(0)
            );
            assert!(
                (jf.fixed_rows::<3>(3) - angular).norm() < 1e-7,
                "{name}: angular {} vs {angular}",
                jf.fixed_rows::<3>(3)
            );

            let jp = point_jacobian(&kin, body, &point).expect("in range") * &state.v;
            assert!((jp - kin.point_velocity(body, &point).expect("in range")).norm() < 1e-12);
            let js = spatial_jacobian(&kin, body).expect("in range") * &state.v;
            assert!((js - kin.velocities()[body].to_vector()).norm() < 1e-12);

            // Columns of dofs that do not support the body are zero.
            let supporting = tree.supporting_dofs(body).expect("in range");
            let jf = frame_jacobian(&kin, body, &point).expect("in range");
            for k in (0..tree.nv()).filter(|k| !supporting.contains(k)) {
                assert_eq!(jf.column(k).amax(), 0.0, "{name}: dof {k}");
            }
        }
    }
}

#[test]
fn humanoid_jacobians_match_finite_differences() {
    // Free pelvis plus revolute limbs and a fixed head.
    check_tree(&sample_trees::humanoid().expect("valid"), 21);
}

#[test]
fn prismatic_and_revolute_chain_jacobians_match_finite_differences() {
    check_tree(&mixed_chain(), 22);
}

#[test]
fn free_body_frame_jacobian_at_its_origin_is_the_identity() {
    // The free-joint velocity convention: v = [ṗ; ω] in the world frame.
    let tree = sample_trees::humanoid().expect("valid");
    let mut rng = rng(23);
    let state = random_state(&tree, &mut rng);
    let kin = Kinematics::new(&tree, &state).expect("valid");
    let origin = kin.poses()[0].translation.vector;
    let j = frame_jacobian(&kin, 0, &origin).expect("in range");
    assert!((j.columns(0, 6) - nalgebra::DMatrix::<f64>::identity(6, 6)).amax() < 1e-15);
}

#[test]
fn point_accelerations_match_finite_differences_of_velocities() {
    // p̈ from spatial accelerations (velocity-product terms ĉ included) against the central
    // difference of ṗ along (q ⊕ s v, v + s q̈).
    for (tree, seed) in [(sample_trees::humanoid().expect("valid"), 31), (mixed_chain(), 32)] {
        let mut rng = rng(seed);
        for _ in 0..3 {
            let state = random_state(&tree, &mut rng);
            let vdot = random_vector(tree.nv(), &mut rng);
            let kin = Kinematics::new(&tree, &state).expect("valid");
            let accelerations = kin.body_accelerations(&vdot).expect("lengths");
            for body in 0..tree.len() {
                let local = Point3::new(0.1, -0.2, 0.15);
                let point = (kin.poses()[body] * local).coords;
                let got = kin.point_acceleration(&accelerations, body, &point).expect("in range");
                let velocity_at = |s: f64| {
                    let shifted = State {
                        q: integrate_positions(&tree, &state.q, &state.v, s).expect("lengths"),
                        v: &state.v + &vdot * s,
                    };
                    let kin = Kinematics::new(&tree, &shifted).expect("valid");
                    let p = (kin.poses()[body] * local).coords;
                    kin.point_velocity(body, &p).expect("in range")
                };
                let expected: Vector3<f64> = (velocity_at(EPS) - velocity_at(-EPS)) / (2.0 * EPS);
                assert!(
                    (got - expected).norm() < 1e-6 * (1.0 + expected.norm()),
                    "body {body}: {got} vs {expected}"
                );
            }
        }
    }
}

#[test]
fn point_jacobians_into_reused_storage_are_the_frame_jacobians_linear_rows() {
    // One buffer filled for every body and point of two trees in turn (sizes change, entries of the
    // previous body must not survive): each equals the first three rows of the frame Jacobian,
    // which computes the same columns on its own (bit-equal, tolerance 0).
    let mut rng = rng(11);
    let mut buffer = nalgebra::DMatrix::zeros(0, 0);
    let humanoid = || sample_trees::humanoid().expect("valid");
    for tree in [humanoid(), mixed_chain(), humanoid()] {
        let state = random_state(&tree, &mut rng);
        let kin = Kinematics::new(&tree, &state).expect("valid");
        for body in (0..tree.len()).rev() {
            let point = random_vector(3, &mut rng);
            let point = Vector3::new(point[0], point[1], point[2]);
            tribo_multibody::point_jacobian_into(&kin, body, &point, &mut buffer).expect("in range");
            let frame = frame_jacobian(&kin, body, &point).expect("in range");
            assert_eq!(buffer, frame.rows(0, 3).into_owned(), "body {body}");
        }
    }
}
