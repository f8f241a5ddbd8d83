//! Footstep plan: positions and timing against the definition in `footsteps.rs`.

use nalgebra::Vector2;
use tribo_gait::{plan_footsteps, GaitParams, Side};

#[test]
fn footsteps_alternate_and_advance_by_the_step_length() {
    let params = GaitParams {
        steps: 4,
        step_length: 0.2,
        step_width: 0.16,
        step_time: 0.5,
        double_support_ratio: 0.2,
        rest: 0.3,
        shift: 0.6,
        settle: 1.0,
        ..GaitParams::default()
    };
    let offset = [Vector2::new(0.02, 0.0); 2];
    let plan = plan_footsteps(&params, offset).expect("plan");
    let expected = [
        (Side::Left, 0.2, 0.08),
        (Side::Right, 0.4, -0.08),
        (Side::Left, 0.6, 0.08),
        (Side::Right, 0.6, -0.08),
    ];
    assert_eq!(plan.steps.len(), 4);
    for (k, (step, (side, x, y))) in plan.steps.iter().zip(expected).enumerate() {
        assert_eq!(step.swing, side, "step {k}");
        assert!((step.to - Vector2::new(x, y)).norm() < 1e-12, "step {k}: {:?}", step.to);
        // Lift-off at rest + shift + k T; single support lasts (1 − r) T = 0.4 s.
        assert!((step.lift_off - (0.9 + k as f64 * 0.5)).abs() < 1e-12);
        assert!((step.touch_down - step.lift_off - 0.4).abs() < 1e-12);
    }
    // (n − 1) L and rest + shift + n T + settle.
    assert!((plan.planned_distance - 0.6).abs() < 1e-12);
    assert!((plan.duration - (0.3 + 0.6 + 4.0 * 0.5 + 1.0)).abs() < 1e-12);
}

#[test]
fn zmp_reference_sits_on_the_support_sole_and_ends_between_the_feet() {
    let params = GaitParams::default();
    let offset = [Vector2::new(0.02, 0.0); 2];
    let plan = plan_footsteps(&params, offset).expect("plan");
    // Standing: between the feet.
    assert!((plan.zmp_reference(0.0) - Vector2::new(0.02, 0.0)).norm() < 1e-12);
    // Mid single support of every step: on the stance foot's sole centre.
    let mut feet = plan.initial;
    for step in &plan.steps {
        let stance = step.swing.other().index();
        let mid = (step.lift_off + step.touch_down) / 2.0;
        let p = plan.zmp_reference(mid);
        assert!((p - (feet[stance] + offset[stance])).norm() < 1e-12, "t = {mid}: {p:?}");
        feet[step.swing.index()] = step.to;
    }
    let end = plan.zmp_reference(plan.duration + 1.0);
    let middle = (feet[0] + feet[1]) / 2.0 + offset[0];
    assert!((end - middle).norm() < 1e-12);
    // The swing foot follows a cycloid: at half time it is half way and at the lift height.
    let step = &plan.steps[1];
    let half = (step.lift_off + step.touch_down) / 2.0;
    let (ground, height) = plan.feet(half, 0.04)[step.swing.index()];
    assert!((ground - (step.from + step.to) / 2.0).norm() < 1e-12);
    assert!((height - 0.04).abs() < 1e-12);
}

#[test]
fn invalid_parameters_are_rejected() {
    let offset = [Vector2::zeros(); 2];
    for params in [
        GaitParams {
            steps: 1,
            ..GaitParams::default()
        },
        GaitParams {
            step_time: 0.0,
            ..GaitParams::default()
        },
        GaitParams {
            double_support_ratio: 1.0,
            ..GaitParams::default()
        },
        GaitParams {
            step_length: f64::NAN,
            ..GaitParams::default()
        },
    ] {
        assert!(plan_footsteps(&params, offset).is_err(), "{params:?}");
    }
}

/// Parameters beyond the bounds (a million steps would allocate tens of gigabytes) are refused
/// up front, with the parameter, its value and the bound in the message.
#[test]
fn parameters_beyond_the_bounds_are_refused_with_the_bound() {
    use tribo_gait::bounds;
    let offset = [Vector2::zeros(); 2];
    let cases = [
        (
            GaitParams {
                steps: 1_000_000,
                ..GaitParams::default()
            },
            "`steps` = 1000000: at most 1000 steps",
        ),
        (
            GaitParams {
                step_length: 5.0,
                ..GaitParams::default()
            },
            "`step_length` = 5: must be at most 1 m",
        ),
        (
            GaitParams {
                step_time: 0.01,
                ..GaitParams::default()
            },
            "`step_time` = 0.01: must lie between 0.1 s and 10 s",
        ),
        (
            GaitParams {
                step_time: 1e6,
                ..GaitParams::default()
            },
            "`step_time` = 1000000",
        ),
        (
            GaitParams {
                steps: bounds::MAX_STEPS,
                step_time: bounds::MAX_STEP_TIME,
                ..GaitParams::default()
            },
            "frames, more than 1000000",
        ),
        (
            GaitParams {
                frame_rate: 5.0,
                ..GaitParams::default()
            },
            "at least one frame",
        ),
    ];
    for (params, expected) in cases {
        let err = plan_footsteps(&params, offset).expect_err("out of bounds");
        let text = err.to_string();
        assert!(text.contains(expected), "{text}");
    }
    // The defaults and the bounds themselves are fine.
    assert!(GaitParams::default().validate().is_ok());
    let edge = GaitParams {
        steps: bounds::MAX_STEPS,
        step_length: bounds::MAX_STEP_LENGTH,
        ..GaitParams::default()
    };
    assert!(edge.validate().is_ok());
}
