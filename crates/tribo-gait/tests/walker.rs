//! Leg kinematics, the whole pattern and the `.seq` round trip on tribo's walker model.

use std::path::PathBuf;
use std::sync::OnceLock;

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use tribo_gait::kinematics::{center_of_mass, forward, solve_leg};
use tribo_gait::{generate, seq_text, GaitParams, Walker, WalkingPattern, WALKER_FEET};

fn walker() -> Walker {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../share/model/walker.body");
    let body = tribo_model::load_body(&path).expect("walker.body loads");
    Walker::new(body, WALKER_FEET).expect("a biped")
}

fn pattern() -> &'static (Walker, WalkingPattern) {
    static PATTERN: OnceLock<(Walker, WalkingPattern)> = OnceLock::new();
    PATTERN.get_or_init(|| {
        let walker = walker();
        let pattern = generate(&walker, &GaitParams::default()).expect("the default walk is feasible");
        (walker, pattern)
    })
}

#[test]
fn walker_model_is_read_from_the_body() {
    let walker = walker();
    assert_eq!(walker.legs[0].joints.len(), 6);
    assert_eq!(walker.legs[1].joints.len(), 6);
    // The foot box is 0.03 m thick with its centre 0.045 m below the ankle: sole 0.06 m below,
    // sole centre 0.02 m ahead of the ankle.
    for side in 0..2 {
        assert!((walker.ankle_height[side] - 0.06).abs() < 1e-12);
        assert!((walker.sole_center[side] - nalgebra::Vector2::new(0.02, 0.0)).norm() < 1e-12);
    }
    assert!((walker.body.total_mass() - 35.0).abs() < 1e-9);
}

#[test]
fn leg_ik_round_trip_reaches_forward_kinematics_targets() {
    let walker = walker();
    let body = &walker.body;
    let root = Isometry3::from_parts(
        Translation3::new(0.1, -0.05, 0.65),
        UnitQuaternion::from_euler_angles(0.05, -0.1, 0.2),
    );
    // Known joint angles → foot pose by FK → IK from the bent initial pose must reach it.
    let cases = [
        [0.1, 0.05, -0.4, 0.8, -0.3, -0.05],
        [-0.2, -0.1, -0.2, 0.4, -0.25, 0.1],
        [0.3, 0.15, -0.9, 1.3, -0.2, -0.12],
    ];
    for (side, leg) in walker.legs.iter().enumerate() {
        for angles in cases {
            let mut truth: Vec<f64> = body.links.iter().map(|l| l.joint.initial_position).collect();
            for (&link, a) in leg.joints.iter().zip(angles) {
                truth[link] = a;
            }
            let target = forward(body, &root, &truth)[leg.foot];
            let mut q: Vec<f64> = body.links.iter().map(|l| l.joint.initial_position).collect();
            let residual = solve_leg(body, leg, &root, &target, &mut q);
            let reached = forward(body, &root, &q)[leg.foot];
            let dp = (reached.translation.vector - target.translation.vector).norm();
            let dr = reached.rotation.angle_to(&target.rotation);
            assert!(
                residual < 1e-9 && dp < 1e-6 && dr < 1e-6,
                "side {side} {angles:?}: {dp:e} m {dr:e} rad"
            );
            // A 6-joint leg away from singularities has one solution near the start: the angles.
            for (&link, a) in leg.joints.iter().zip(angles) {
                assert!(
                    (q[link] - a).abs() < 1e-6,
                    "side {side}: joint {link} {} vs {a}",
                    q[link]
                );
            }
        }
    }
}

#[test]
fn pattern_feet_follow_the_footstep_plan() {
    let (walker, pattern) = pattern();
    let body = &walker.body;
    let params = GaitParams::default();
    for i in (0..pattern.num_frames()).step_by(7) {
        let t = i as f64 / pattern.frame_rate();
        let mut q = vec![0.0; body.links.len()];
        for (id, v) in pattern.motion.frame(i).iter().enumerate() {
            if let Some(link) = body.joint_link(id) {
                q[link] = *v;
            }
        }
        let root = Isometry3::translation(pattern.waist[i].x, pattern.waist[i].y, pattern.waist[i].z);
        let poses = forward(body, &root, &q);
        let feet = pattern.plan.feet(t, params.lift_height);
        for (side, leg) in walker.legs.iter().enumerate() {
            let (ground, lift) = feet[side];
            let expected = Vector3::new(ground.x, ground.y, walker.ankle_height[side] + lift);
            let pose = poses[leg.foot];
            assert!(
                (pose.translation.vector - expected).norm() < 1e-6,
                "frame {i} side {side}"
            );
            assert!(pose.rotation.angle() < 1e-6, "frame {i}: the sole stays level");
        }
        // The multibody CoM is on the planned CoM.
        let com = center_of_mass(body, &poses);
        assert!((com.xy() - pattern.com[i].xy()).norm() < 1e-6, "frame {i}");
    }
}

#[test]
fn planned_com_zmp_follows_the_reference() {
    let (_, pattern) = pattern();
    // Cart-table ZMP of the planned CoM within 2 mm of the reference (Kajita 2003, §III).
    let error = pattern.max_zmp_tracking_error();
    assert!(error < 0.002, "max ZMP tracking error {error} m");
    assert!(pattern.max_com_error() < 1e-6);
    // 8 steps of 0.15 m, the last closing the feet: 7 × 0.15 m; the CoM ends over the feet.
    assert!((pattern.planned_distance() - 1.05).abs() < 1e-12);
    let end = pattern.com.last().expect("frames");
    assert!((end.x - (1.05 + 0.02)).abs() < 0.005, "final CoM x {}", end.x);
    // The frame count is the duration at 500 Hz: 1.0 + 0.6 + 8 × 0.6 + 1.2 s = 7.6 s.
    assert_eq!(pattern.num_frames(), 3801);
}

#[test]
fn seq_round_trip_through_the_model_loader() {
    let (_, pattern) = pattern();
    let text = seq_text(&pattern.motion, Some(&pattern.zmp_reference), "test pattern");
    let motion = tribo_model::parse_motion(&text, "walk.seq").expect("the .seq loads back");
    assert_eq!(motion.num_parts, 12);
    assert_eq!(motion.num_frames(), pattern.num_frames());
    assert_eq!(motion.frame_rate, 500.0);
    let worst = motion
        .values
        .iter()
        .zip(&pattern.motion.values)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    // 8 decimals written: rounding error ≤ 5e-9 rad.
    assert!(worst <= 5.0e-9 + 1e-15, "worst difference {worst}");
}

#[test]
fn the_slippy_walker_sample_plays_this_generator_s_default_walk() {
    let (_, pattern) = pattern();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../samples/slippy-walker/walk.seq");
    let sample = tribo_model::load_motion(&path).expect("the sample's walk.seq loads");
    assert_eq!(
        sample.num_frames(),
        pattern.num_frames(),
        "regenerate with `tribo gait --out`"
    );
    let worst = sample
        .values
        .iter()
        .zip(&pattern.motion.values)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(
        worst <= 5.0e-9 + 1e-15,
        "the sample differs from the generator by {worst} rad"
    );
}
