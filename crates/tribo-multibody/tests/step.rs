//! The step and its split form, prismatic free fall, joint limits as constraint data, and the
//! error paths (bad lengths, non-finite input, divergence).

mod common;

use common::{gravity, random_state, rng, G};
use nalgebra::{DMatrix, DVector, Isometry3, Matrix3, Vector3};
use tribo_multibody::{
    active_position_limits, clamp_effort, finish_step, point_jacobian, prepare_velocity_step, sample_trees,
    step_semi_implicit, Body, Error, Joint, Kinematics, LimitSide, LinkInertia, State, StepInputs, Tree,
};

fn slider(axis: Vector3<f64>) -> Tree {
    let link = LinkInertia::new(2.0, Vector3::new(0.1, 0.0, 0.0), Matrix3::identity() * 0.01);
    Tree::new(vec![Body::new(
        "slider",
        None,
        Joint::Prismatic { axis },
        Isometry3::translation(0.0, 0.0, 3.0),
        link,
    )])
    .expect("valid")
}

#[test]
fn prismatic_free_fall_matches_half_g_t_squared() {
    // Along an axis u the body falls with acceleration g·u. Semi-implicit Euler gives exactly
    // x_n = ½ a dt² n (n + 1) = ½ a t² + ½ a dt t: at t = 1 s, dt = 1 ms the closed form ½ g t² is
    // met within ½ |a| dt t = 4.9 mm (the method's first-order error), the discrete sum to 1e-12.
    for axis in [Vector3::z(), Vector3::new(1.0, 0.0, 1.0)] {
        let tree = slider(axis);
        let a = gravity().dot(&axis.normalize());
        let mut state = State::neutral(&tree);
        let (dt, n) = (1e-3, 1000usize);
        for _ in 0..n {
            state = step_semi_implicit(&tree, &state, dt, &StepInputs::new(gravity())).expect("step");
        }
        let t = n as f64 * dt;
        let discrete = 0.5 * a * dt * dt * (n * (n + 1)) as f64;
        assert!((state.q[0] - discrete).abs() < 1e-12, "{} vs {discrete}", state.q[0]);
        assert!((state.q[0] - 0.5 * a * t * t).abs() <= 0.5 * a.abs() * dt * t + 1e-12);
        assert!((state.v[0] - a * t).abs() < 1e-12);
    }
    assert!((gravity().dot(&Vector3::new(1.0, 0.0, 1.0).normalize()) + G / 2f64.sqrt()).abs() < 1e-15);
}

#[test]
fn split_step_impulse_changes_constraint_velocity_by_the_delassus_operator() {
    // v⁺ = v_free + M̃⁻¹ Jᵀ λ  ⇒  J v⁺ − J v_free = A λ with A = J M̃⁻¹ Jᵀ; and finish_step advances
    // q with v⁺. Without an impulse the split step equals step_semi_implicit.
    let tree = sample_trees::humanoid().expect("valid");
    let mut rng = rng(41);
    let state = random_state(&tree, &mut rng);
    let kin = Kinematics::new(&tree, &state).expect("valid");
    let inputs = StepInputs::new(gravity());
    let step = prepare_velocity_step(&kin, 0.001, &inputs).expect("solvable");
    let foot = tree.body_index("L_ANKLE_R").expect("exists");
    let point = (kin.poses()[foot] * nalgebra::Point3::new(0.05, 0.0, -0.05)).coords;
    let j = point_jacobian(&kin, foot, &point).expect("in range");
    let a = step.system.delassus(&j).expect("lengths");
    let lambda = Vector3::new(0.5, -0.2, 3.0);
    let impulse = j.transpose() * lambda;
    let v_next = step
        .velocity_after_impulse(&DVector::from_column_slice(impulse.as_slice()))
        .expect("lengths");
    let change = &j * (&v_next - &step.v_free);
    assert!((change - &a * DMatrix::from_column_slice(3, 1, lambda.as_slice())).amax() < 1e-12);

    let whole = step_semi_implicit(&tree, &state, 0.001, &inputs).expect("step");
    let split = finish_step(&tree, &state.q, &step.v_free, 0.001).expect("finite");
    assert_eq!(whole, split);
}

#[test]
fn position_limits_are_listed_with_their_jacobian_rows() {
    let link = LinkInertia::solid_box(1.0, Vector3::new(0.0, 0.0, -0.2), Vector3::new(0.05, 0.05, 0.4));
    let tree = Tree::new(vec![
        Body::new("free", None, Joint::Free, Isometry3::identity(), link),
        Body::new(
            "a",
            Some(0),
            Joint::Revolute { axis: Vector3::y() },
            Isometry3::identity(),
            link,
        )
        .with_position_limits(-0.5, 0.5),
        Body::new(
            "b",
            Some(1),
            Joint::Prismatic { axis: Vector3::z() },
            Isometry3::identity(),
            link,
        )
        .with_position_limits(0.0, 0.2)
        .with_effort_limit(30.0),
        Body::new(
            "c",
            Some(1),
            Joint::Revolute { axis: Vector3::x() },
            Isometry3::identity(),
            link,
        )
        .with_position_limits(f64::NEG_INFINITY, 1.0),
    ])
    .expect("valid");
    let mut q = State::neutral(&tree).q;
    q[7] = 0.6; // a: 0.1 rad past its upper limit
    q[8] = 0.01; // b: 1 cm above its lower limit
    q[9] = -100.0; // c: unlimited below
    let active = active_position_limits(&tree, &q, 0.02).expect("lengths");
    assert_eq!(active.len(), 2, "{active:?}");
    let (upper, lower) = (active[0], active[1]);
    assert_eq!(
        (upper.body, upper.dof, upper.side, upper.direction),
        (1, 6, LimitSide::Upper, -1.0)
    );
    assert!((upper.gap + 0.1).abs() < 1e-15 && upper.is_violated());
    assert_eq!(
        (lower.body, lower.dof, lower.side, lower.direction),
        (2, 7, LimitSide::Lower, 1.0)
    );
    assert!((lower.gap - 0.01).abs() < 1e-15 && !lower.is_violated());
    let row = upper.jacobian_row(tree.nv());
    assert_eq!(
        row.iter().copied().collect::<Vec<_>>(),
        vec![0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0]
    );
    assert!(active_position_limits(&tree, &q, 0.0)
        .expect("lengths")
        .iter()
        .all(|c| c.body == 1));

    let tau = DVector::from_row_slice(&[100.0, 0.0, 0.0, 0.0, 0.0, 0.0, 100.0, -45.0, 7.0]);
    let clamped = clamp_effort(&tree, &tau).expect("lengths");
    assert_eq!(clamped.as_slice(), &[100.0, 0.0, 0.0, 0.0, 0.0, 0.0, 100.0, -30.0, 7.0]);
}

#[test]
fn bad_inputs_are_errors_that_name_what_is_wrong() {
    let tree = sample_trees::humanoid().expect("valid");
    let state = State::neutral(&tree);
    let short = State {
        q: DVector::zeros(3),
        v: state.v.clone(),
    };
    assert_eq!(
        Kinematics::new(&tree, &short).expect_err("short q").to_string(),
        "q: expected length 36, found 3"
    );
    let mut zero_quaternion = state.clone();
    zero_quaternion.q.rows_mut(3, 4).fill(0.0);
    assert_eq!(
        Kinematics::new(&tree, &zero_quaternion).expect_err("zero quaternion").to_string(),
        "body `pelvis`: the free-joint quaternion q[3..7] has norm 0; expected a non-zero finite quaternion (w, x, y, z)"
    );
    let mut nan = state.clone();
    nan.v[20] = f64::NAN;
    assert_eq!(
        Kinematics::new(&tree, &nan).expect_err("NaN").to_string(),
        "v[20] (body `CHEST`): expected a finite number, found NaN"
    );
    let kin = Kinematics::new(&tree, &state).expect("valid");
    assert_eq!(
        prepare_velocity_step(&kin, 0.0, &StepInputs::new(gravity()))
            .expect_err("dt")
            .to_string(),
        "time step: expected a finite dt > 0 s, found 0"
    );
    let tau = DVector::zeros(5);
    assert!(matches!(
        prepare_velocity_step(&kin, 1e-3, &StepInputs::new(gravity()).with_torque(&tau)),
        Err(Error::DimensionMismatch {
            what: "tau",
            expected: 35,
            found: 5
        })
    ));
    assert!(matches!(
        tribo_multibody::point_jacobian(&kin, 99, &Vector3::zeros()),
        Err(Error::BodyOutOfRange { index: 99, count: 31 })
    ));
}

#[test]
fn a_diverging_step_is_an_error_naming_the_body_not_a_nan_state() {
    // A torque of 1e300 N·m on a 1e-20 kg·m² link overflows the velocity.
    let link = LinkInertia::new(1.0, Vector3::zeros(), Matrix3::identity() * 1e-20);
    let tree = Tree::new(vec![Body::new(
        "spinner",
        None,
        Joint::Revolute { axis: Vector3::z() },
        Isometry3::identity(),
        link,
    )])
    .expect("valid");
    let tau = DVector::from_element(1, 1e300);
    let error = step_semi_implicit(
        &tree,
        &State::neutral(&tree),
        1e-3,
        &StepInputs::new(gravity()).with_torque(&tau),
    )
    .expect_err("overflow");
    assert_eq!(
        error.to_string(),
        "the step diverged: v[0] of body `spinner` became inf"
    );
}

#[test]
fn massless_subtree_is_reported_not_divided_by() {
    // A revolute joint whose subtree has no inertia about its axis makes M singular.
    let tree = Tree::new(vec![Body::new(
        "ghost",
        None,
        Joint::Revolute { axis: Vector3::z() },
        Isometry3::identity(),
        LinkInertia::point_mass(1.0, Vector3::zeros()),
    )])
    .expect("valid");
    let error =
        step_semi_implicit(&tree, &State::neutral(&tree), 1e-3, &StepInputs::new(gravity())).expect_err("singular");
    assert!(matches!(error, Error::NotPositiveDefinite { dof: 0, .. }), "{error}");
    assert!(error.to_string().contains("body `ghost`"), "{error}");
}
