//! SR1WalkPattern1.seq (docs/design/choreonoid-formats.md §3).

mod common;

use tribo_model::load_motion;

#[test]
fn sr1_walk_pattern_1() {
    let motion = load_motion(&common::choreonoid("SR1WalkPattern1.seq")).expect("the walk pattern loads");
    assert_eq!(motion.frame_rate, 500.0, "inherited from the top level");
    assert_eq!(motion.num_parts, 29);
    assert_eq!(motion.num_frames(), 6701);
    assert_eq!(motion.values.len(), 6701 * 29);
    assert!((motion.duration() - 13.4).abs() < 1e-12);
    #[rustfmt::skip]
    let first = [
        0.0, -0.036, 0.0, 0.0785, -0.0425, 0.0, 0.175, -0.00349, 0.0, -1.57, 0.0, 0.0, 0.0, 0.0, -0.036, 0.0,
        0.0785, -0.0425, 0.0, 0.175, 0.00349, 0.0, -1.57, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    ];
    assert_eq!(motion.frame(0), first);
    #[rustfmt::skip]
    let last = [
        2.69e-06, -0.0363, 0.0, 0.0791, -0.0428, -2.69e-06, 0.175, -0.00349, 0.0, -1.57, 0.0, 0.0, 0.0, 2.69e-06,
        -0.0363, 0.0, 0.0791, -0.0428, -2.69e-06, 0.175, 0.00349, 0.0, -1.57, 0.0, 0.0, 0.0, 4.95674e-06,
        1.41372e-06, -3.31613e-06,
    ];
    assert_eq!(motion.frame(6700), last);
    assert_eq!(motion.frame(99_999), last, "frames clamp to the last one");
    assert!(motion.labels.is_empty());
}

/// Column j drives joint id j: every value of the walk lies within that SR1 joint's range.
#[test]
fn columns_are_sr1_joint_ids_within_their_ranges() {
    let sr1 = common::sr1();
    let motion = load_motion(&common::choreonoid("SR1WalkPattern1.seq")).expect("loads");
    assert_eq!(motion.num_parts, sr1.joints_by_id.len());
    for i in 0..motion.num_frames() {
        for (id, &q) in motion.frame(i).iter().enumerate() {
            let link = &sr1.links[sr1.joint_link(id).expect("id")];
            let [lo, hi] = link.joint.range;
            assert!(
                lo <= q && q <= hi,
                "frame {i}: {} = {q} outside [{lo}, {hi}]",
                link.name
            );
        }
    }
    // Frame 0 is the project's standing pose: knees 4.5° = 0.0785 rad, elbows −90° = −1.57 rad.
    let knee = sr1.links[sr1.joint_link(3).expect("id 3")].name.as_str();
    assert_eq!(knee, "RLEG_KNEE");
    assert!((motion.frame(0)[3] - 4.5f64.to_radians()).abs() < 1e-4);
    assert!((motion.frame(0)[9] - (-90f64).to_radians()).abs() < 1e-3);
}
