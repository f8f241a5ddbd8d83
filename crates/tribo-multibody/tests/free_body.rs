//! A free rigid body without gravity: conservation of linear and angular momentum, torque-free
//! precession of an asymmetric body, kinetic energy, and the exponential-map orientation update.

mod common;

use nalgebra::{DVector, Isometry3, Matrix3, UnitQuaternion, Vector3};
use tribo_multibody::{step_semi_implicit, Body, Joint, Kinematics, LinkInertia, State, StepInputs, Tree};

fn free_body(inertia: LinkInertia) -> Tree {
    Tree::new(vec![Body::new(
        "body",
        None,
        Joint::Free,
        Isometry3::identity(),
        inertia,
    )])
    .expect("valid")
}

fn orientation(state: &State) -> UnitQuaternion<f64> {
    UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
        state.q[3], state.q[4], state.q[5], state.q[6],
    ))
}

#[test]
fn asymmetric_body_conserves_momentum_and_precesses() {
    // Principal moments 0.12, 0.20, 0.27 kg·m² (asymmetric), rotated link axes and a centre of mass
    // 0.23 m away from the body origin, so that the free-joint coordinates couple translation and
    // rotation. Spin mostly about the minor axis (stable) with a tilt: ω precesses in the world frame
    // while the angular momentum L stays fixed.
    let rotation = UnitQuaternion::from_euler_angles(0.3, -0.2, 0.5).to_rotation_matrix();
    let principal = Matrix3::from_diagonal(&Vector3::new(0.12, 0.20, 0.27));
    let inertia = LinkInertia::new(
        2.0,
        Vector3::new(0.1, -0.05, 0.2),
        rotation * principal * rotation.transpose(),
    );
    let tree = free_body(inertia);
    let mut state = State::neutral(&tree);
    state.q[0] = 0.4;
    state.v = DVector::from_row_slice(&[0.3, -0.2, 0.5, 2.0, 0.6, 0.9]);
    let dt = 1e-4;
    let inputs = StepInputs::new(Vector3::zeros());
    let initial = Kinematics::new(&tree, &state).expect("valid");
    let (momentum0, energy0) = (initial.momentum(), initial.kinetic_energy());
    let (mass, com0) = initial.center_of_mass().expect("has mass");
    let omega0 = Vector3::new(state.v[3], state.v[4], state.v[5]);
    let steps = 20_000; // 2 s
    let (mut worst_l, mut worst_p, mut worst_e, mut worst_com): (f64, f64, f64, f64) = (0.0, 0.0, 0.0, 0.0);
    for n in 1..=steps {
        state = step_semi_implicit(&tree, &state, dt, &inputs).expect("step");
        let kin = Kinematics::new(&tree, &state).expect("valid");
        let h = kin.momentum();
        worst_l = worst_l.max((h.moment - momentum0.moment).norm() / momentum0.moment.norm());
        worst_p = worst_p.max((h.force - momentum0.force).norm() / momentum0.force.norm());
        worst_e = worst_e.max((kin.kinetic_energy() - energy0).abs() / energy0);
        let (_, com) = kin.center_of_mass().expect("has mass");
        let expected_com = com0 + momentum0.force / mass * (n as f64 * dt);
        worst_com = worst_com.max((com - expected_com).norm());
    }
    let omega = Vector3::new(state.v[3], state.v[4], state.v[5]);
    // The motion is not trivial: ω turned by more than 0.3 rad in the world frame.
    assert!(omega.angle(&omega0) > 0.3, "ω turned by {} rad", omega.angle(&omega0));
    // Stated tolerances at dt = 0.1 ms over 2 s (first-order method, gyroscopic term explicit;
    // observed: L 4.0e-4, p 1.4e-4, energy 1.1e-4, CoM 1.0e-4 m):
    assert!(worst_l < 1e-3, "angular momentum drift {worst_l:.3e}");
    assert!(worst_p < 5e-4, "linear momentum drift {worst_p:.3e}");
    assert!(worst_e < 5e-4, "kinetic energy drift {worst_e:.3e}");
    assert!(
        worst_com < 5e-4,
        "centre of mass left its straight line by {worst_com:.3e} m"
    );
}

#[test]
fn body_with_centre_of_mass_at_origin_conserves_linear_momentum_exactly() {
    // With c = 0 the translational equation decouples (m p̈ = 0), so ṗ is constant to round-off.
    let inertia = LinkInertia::new(
        1.5,
        Vector3::zeros(),
        Matrix3::from_diagonal(&Vector3::new(0.1, 0.2, 0.3)),
    );
    let tree = free_body(inertia);
    let mut state = State::neutral(&tree);
    state.v = DVector::from_row_slice(&[1.0, -2.0, 0.5, 0.3, 1.7, -0.4]);
    let inputs = StepInputs::new(Vector3::zeros());
    for _ in 0..5_000 {
        state = step_semi_implicit(&tree, &state, 1e-3, &inputs).expect("step");
    }
    let p_dot = Vector3::new(state.v[0], state.v[1], state.v[2]);
    assert!((p_dot - Vector3::new(1.0, -2.0, 0.5)).norm() < 1e-12, "{p_dot}");
    assert!((Vector3::new(state.q[0], state.q[1], state.q[2]) - Vector3::new(5.0, -10.0, 2.5)).norm() < 1e-9);
}

#[test]
fn spherical_body_spins_exactly_along_the_exponential_map() {
    // A sphere has no gyroscopic torque: ω stays constant, and with the exponential map the
    // orientation after N steps is exp(N dt ω) exactly (up to round-off), whatever dt.
    let tree = free_body(LinkInertia::new(1.0, Vector3::zeros(), Matrix3::identity() * 0.4));
    let mut state = State::neutral(&tree);
    let omega = Vector3::new(3.0, -1.0, 2.0);
    state.v = DVector::from_row_slice(&[0.0, 0.0, 0.0, omega.x, omega.y, omega.z]);
    let inputs = StepInputs::new(Vector3::zeros());
    for _ in 0..1000 {
        state = step_semi_implicit(&tree, &state, 0.01, &inputs).expect("step");
    }
    let expected = UnitQuaternion::from_scaled_axis(omega * 10.0);
    assert!(
        orientation(&state).angle_to(&expected) < 1e-10,
        "{}",
        orientation(&state).angle_to(&expected)
    );
    let norm = state.q.rows(3, 4).norm();
    assert!((norm - 1.0).abs() < 1e-14, "quaternion norm {norm}");
}

#[test]
fn free_fall_of_a_free_body() {
    // Under gravity alone the origin of a body whose CoM is at its origin falls as ½ g t² (the
    // discrete semi-implicit Euler sum ½ g dt² n (n + 1), exactly).
    let tree = free_body(LinkInertia::new(2.0, Vector3::zeros(), Matrix3::identity() * 0.1));
    let mut state = State::neutral(&tree);
    let inputs = StepInputs::new(common::gravity());
    let (dt, n) = (1e-3, 1000);
    for _ in 0..n {
        state = step_semi_implicit(&tree, &state, dt, &inputs).expect("step");
    }
    let expected = -0.5 * common::G * dt * dt * (n * (n + 1)) as f64;
    assert!((state.q[2] - expected).abs() < 1e-12, "{} vs {expected}", state.q[2]);
}
