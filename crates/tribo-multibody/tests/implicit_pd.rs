//! Implicit PD servo and implicit damping: stability at Choreonoid's SR1 gains where the explicit
//! law fails, effort saturation, and the closed-form one-step updates.

mod common;

use nalgebra::{DVector, Isometry3, Matrix3, Vector3};
use tribo_multibody::{
    sample_trees, step_semi_implicit, Body, Error, Joint, LinkInertia, PdControl, State, StepInputs, Tree,
};

const KP: f64 = 8000.0; // N·m/rad, SR1 sample
const KD: f64 = 100.0; // N·m·s/rad
const DT: f64 = 0.002; // s

/// One revolute joint about z whose link has rotational inertia `inertia` (kg·m²) about the axis
/// (centre of mass on the axis, so gravity plays no role).
fn single_joint(inertia: f64) -> Tree {
    let link = LinkInertia::new(
        1.0,
        Vector3::zeros(),
        Matrix3::from_diagonal(&Vector3::new(inertia, inertia, inertia)),
    );
    Tree::new(vec![Body::new(
        "link",
        None,
        Joint::Revolute { axis: Vector3::z() },
        Isometry3::identity(),
        link,
    )])
    .expect("valid")
}

/// Runs up to `steps` steps towards q_ref = 1 rad from rest at 0 and returns the trajectory of q
/// (cut short once |q| > 1e6 rad), or the step error. `implicit` chooses the implicit servo or the explicit law passed as a torque.
fn servo(inertia: f64, implicit: bool, steps: usize) -> Result<Vec<f64>, Error> {
    let tree = single_joint(inertia);
    let pd = PdControl::uniform(&tree, DVector::from_element(1, 1.0), KP, KD).expect("valid gains");
    let mut state = State::neutral(&tree);
    let mut trajectory = Vec::with_capacity(steps);
    for _ in 0..steps {
        state = if implicit {
            step_semi_implicit(&tree, &state, DT, &StepInputs::new(Vector3::zeros()).with_pd(&pd))?
        } else {
            let tau = pd.explicit_torque(&tree, &state)?;
            step_semi_implicit(&tree, &state, DT, &StepInputs::new(Vector3::zeros()).with_torque(&tau))?
        };
        trajectory.push(state.q[0]);
        if state.q[0].abs() > 1e6 {
            break; // blown up; stop before overflowing
        }
    }
    Ok(trajectory)
}

#[test]
fn implicit_pd_converges_at_sr1_gains_on_a_1_kg_m2_link() {
    // Continuous closed loop: ω_n = √8000 = 89.4 rad/s, ζ = 100 / (2·89.4) = 0.56, overshoot
    // exp(−ζπ/√(1−ζ²)) = 12 %. After 1 s the error must be below 1e-6 rad and the peak within the
    // continuous overshoot (the implicit form only adds damping).
    let trajectory = servo(1.0, true, 500).expect("stable");
    let peak = trajectory.iter().copied().fold(f64::MIN, f64::max);
    let zeta = KD / (2.0 * KP.sqrt());
    let overshoot = (-zeta * std::f64::consts::PI / (1.0 - zeta * zeta).sqrt()).exp();
    assert!(
        peak > 1.0 && peak < 1.0 + overshoot,
        "peak {peak}, continuous overshoot {overshoot}"
    );
    let last = trajectory.last().copied().unwrap_or(f64::NAN);
    assert!((last - 1.0).abs() < 1e-6, "final error {}", last - 1.0);
}

#[test]
fn explicit_pd_stability_follows_the_jury_bound_and_implicit_pd_has_none() {
    // Explicit PD under semi-implicit Euler is stable iff a = dt K_d / I < 2 and
    // b = dt² K_p / I < 4 − 2a (pd.rs): at SR1 gains and dt = 2 ms that is I > 0.108 kg·m².
    // So a 1 kg·m² link is (just) fine explicitly, but lighter links — SR1's wrists and the
    // humanoid's distal links are around 0.01 kg·m² — need the implicit form.
    let critical = (DT * DT * KP + 2.0 * DT * KD) / 4.0;
    assert!((critical - 0.108).abs() < 1e-12);
    for inertia in [1.0, 0.12] {
        let explicit = servo(inertia, false, 1000).expect("stable above the bound");
        let last = explicit.last().copied().unwrap_or(f64::NAN);
        assert!(
            (last - 1.0).abs() < 1e-3,
            "I = {inertia}: explicit final error {}",
            last - 1.0
        );
    }
    for inertia in [0.1, 0.01] {
        let explicit = servo(inertia, false, 1000).expect("finite until it passes 1e6 rad");
        assert!(
            explicit.iter().any(|q| q.abs() > 1e6),
            "I = {inertia}: the explicit law should diverge"
        );
        let implicit = servo(inertia, true, 1000).expect("implicit is stable");
        let last = implicit.last().copied().unwrap_or(f64::NAN);
        assert!(
            (last - 1.0).abs() < 1e-6,
            "I = {inertia}: implicit final error {}",
            last - 1.0
        );
        assert!(
            implicit.iter().all(|q| q.abs() < 2.0),
            "I = {inertia}: implicit stays bounded"
        );
    }
}

#[test]
fn implicit_pd_one_step_matches_the_closed_form() {
    // (I + dt K_d + dt² K_p) v⁺ = I v + dt K_p (q_ref − q) for one joint from rest.
    let inertia = 0.05;
    let trajectory = servo(inertia, true, 1).expect("stable");
    let v_next = DT * KP * 1.0 / (inertia + DT * KD + DT * DT * KP);
    assert!(
        (trajectory[0] - DT * v_next).abs() < 1e-15,
        "{} vs {}",
        trajectory[0],
        DT * v_next
    );
}

#[test]
fn humanoid_servoes_to_a_pose_at_sr1_gains() {
    // All 29 revolute joints of the floating 35-dof humanoid (links down to 3e-4 kg·m², armature
    // 0.01 kg·m²) servo to a pose at P = 8000, D = 100, dt = 2 ms, zero gravity: after 2 s every
    // joint is within 1e-4 rad of its target.
    let tree = sample_trees::humanoid().expect("valid");
    let mut target = State::neutral(&tree).q;
    for k in 7..tree.nq() {
        target[k] = 0.4 * ((k as f64) * 0.9).sin();
    }
    let pd = PdControl::uniform(&tree, target.clone(), KP, KD).expect("valid gains");
    let mut state = State::neutral(&tree);
    let inputs = StepInputs::new(Vector3::zeros()).with_pd(&pd);
    for _ in 0..1000 {
        state = step_semi_implicit(&tree, &state, DT, &inputs).expect("stable");
    }
    let worst = (7..tree.nq())
        .map(|k| (state.q[k] - target[k]).abs())
        .fold(0.0, f64::max);
    assert!(worst < 1e-4, "worst joint error {worst} rad");
}

#[test]
fn effort_limit_saturates_the_implicit_servo() {
    // With a 10 N·m limit and a far target, the servo torque saturates: from rest the first step
    // is exactly the constant-torque update v⁺ = dt · 10 / I.
    let inertia = 0.5;
    let link = LinkInertia::new(1.0, Vector3::zeros(), Matrix3::identity() * inertia);
    let tree = Tree::new(vec![Body::new(
        "link",
        None,
        Joint::Revolute { axis: Vector3::z() },
        Isometry3::identity(),
        link,
    )
    .with_effort_limit(10.0)])
    .expect("valid");
    let pd = PdControl::uniform(&tree, DVector::from_element(1, 2.0), KP, KD).expect("valid gains");
    let kin = tribo_multibody::Kinematics::new(&tree, &State::neutral(&tree)).expect("valid");
    let step = tribo_multibody::prepare_velocity_step(&kin, DT, &StepInputs::new(Vector3::zeros()).with_pd(&pd))
        .expect("solvable");
    assert_eq!(step.saturated, vec![0]);
    assert_eq!(step.actuation[0], 10.0);
    assert!((step.v_free[0] - DT * 10.0 / inertia).abs() < 1e-15);
    // Near the target the torque is below the limit and the servo is implicit again.
    let state = State {
        q: DVector::from_element(1, 1.9999),
        v: DVector::zeros(1),
    };
    let kin = tribo_multibody::Kinematics::new(&tree, &state).expect("valid");
    let step = tribo_multibody::prepare_velocity_step(&kin, DT, &StepInputs::new(Vector3::zeros()).with_pd(&pd))
        .expect("solvable");
    assert!(step.saturated.is_empty());
    assert!(step.actuation[0].abs() < 10.0);
    // Plain torques are clamped too.
    let tau = DVector::from_element(1, -50.0);
    let step = tribo_multibody::prepare_velocity_step(&kin, DT, &StepInputs::new(Vector3::zeros()).with_torque(&tau))
        .expect("solvable");
    assert_eq!(step.actuation[0], -10.0);
}

#[test]
fn large_damping_is_implicit_and_stable() {
    // v⁺ = I v / (I + dt d) (integrate.rs) — for d dt / I = 1e4 the explicit update would flip the
    // sign and grow by 1e4 per step; the implicit one decays monotonically.
    let inertia = 0.01;
    let damping = 1e4;
    let dt = 1e-2;
    let link = LinkInertia::new(1.0, Vector3::zeros(), Matrix3::identity() * inertia);
    let tree = Tree::new(vec![Body::new(
        "link",
        None,
        Joint::Revolute { axis: Vector3::z() },
        Isometry3::identity(),
        link,
    )
    .with_damping(damping)])
    .expect("valid");
    let mut state = State {
        q: DVector::zeros(1),
        v: DVector::from_element(1, 1.0),
    };
    let factor = inertia / (inertia + dt * damping);
    for n in 1..=5 {
        state = step_semi_implicit(&tree, &state, dt, &StepInputs::new(Vector3::zeros())).expect("stable");
        let expected = factor.powi(n);
        assert!(
            (state.v[0] - expected).abs() < 1e-15 + 1e-12 * expected,
            "step {n}: {} vs {expected}",
            state.v[0]
        );
    }
}

/// A free base with one hinge on it: q = (x, y, z, w, qx, qy, qz, θ), v = (6 free dofs, θ̇).
fn floating_hinge() -> Tree {
    let link = LinkInertia::new(1.0, Vector3::zeros(), Matrix3::identity());
    Tree::new(vec![
        Body::new("base", None, Joint::Free, Isometry3::identity(), link),
        Body::new(
            "arm",
            Some(0),
            Joint::Revolute { axis: Vector3::z() },
            Isometry3::identity(),
            link,
        ),
    ])
    .expect("valid")
}

/// `PdControl::new` accepts valid targets and gains and names the first bad value otherwise:
/// which vector, which coordinate or dof, which body.
#[test]
fn pd_targets_and_gains_are_checked_value_by_value() {
    let tree = floating_hinge();
    let q_ref = State::neutral(&tree).q;
    let (nq, nv) = (tree.nq(), tree.nv());
    assert_eq!((nq, nv), (8, 7));
    let zeros = DVector::zeros(nv);
    let gains = DVector::from_element(nv, 10.0);
    let make =
        |q: DVector<f64>, v: DVector<f64>, kp: DVector<f64>, kd: DVector<f64>| PdControl::new(&tree, q, v, kp, kd);
    assert!(make(q_ref.clone(), zeros.clone(), gains.clone(), gains.clone()).is_ok());

    let mut bad_angle = q_ref.clone();
    bad_angle[7] = f64::NAN;
    let result = make(bad_angle, zeros.clone(), gains.clone(), gains.clone());
    assert!(
        matches!(&result, Err(Error::NonFinite { what: "q_ref", index: 7, body, .. }) if body == "arm"),
        "{result:?}"
    );
    let mut no_rotation = q_ref.clone();
    no_rotation.as_mut_slice()[3..7].fill(0.0);
    let result = make(no_rotation, zeros.clone(), gains.clone(), gains.clone());
    assert!(
        matches!(&result, Err(Error::InvalidQuaternion { body, index: 3, norm }) if body == "base" && *norm == 0.0),
        "{result:?}"
    );
    let mut fast = zeros.clone();
    fast[6] = f64::INFINITY;
    let result = make(q_ref.clone(), fast, gains.clone(), gains.clone());
    assert!(
        matches!(&result, Err(Error::InvalidDofValue { what: "v_ref", dof: 6, body, .. }) if body == "arm"),
        "{result:?}"
    );
    let mut negative = gains.clone();
    negative[2] = -1.0;
    let result = make(q_ref.clone(), zeros.clone(), negative.clone(), gains.clone());
    assert!(
        matches!(&result, Err(Error::InvalidDofValue { what: "kp", dof: 2, body, value, .. }) if body == "base" && *value == -1.0),
        "{result:?}"
    );
    let result = make(q_ref, zeros, gains, negative);
    assert!(
        matches!(&result, Err(Error::InvalidDofValue { what: "kd", dof: 2, .. })),
        "{result:?}"
    );
}
