//! Choreonoid's SR1 humanoid as MuJoCo writes it (`share/choreonoid/model/SR1.xml`, made from
//! SR1.urdf by `bench/sr1_mjcf.py`) against the same robot from its `.body` file: the mass matrix
//! and the bias forces (Coriolis, centrifugal and gravity) of the trees pgs builds agree to 1e-12
//! (relative to the matrix's largest entry) at ten random configurations and velocities — the
//! MJCF import maps bodies, joint frames, axes and inertias as the body loader does.
//!
//! Why 1e-12 holds although MuJoCo writes numbers with six significant digits: every number the
//! dynamics read — body positions, masses, centres of mass, the unit inertias, the joint axes — has
//! at most six significant digits in SR1.urdf and is written unchanged; the numbers MuJoCo rounds
//! (the collision cylinders' orientations from `rpy="1.57 0 0"`, the joint ranges) enter neither
//! the mass matrix nor the bias forces. What remains is floating-point rounding, as for the URDF.

mod two_models;

use two_models::{largest_differences, model};

#[test]
fn sr1_from_mjcf_has_the_dynamics_of_sr1_from_its_body_file() {
    let (body_file, mjcf) = (model("SR1.body"), model("SR1.xml"));
    assert_eq!(mjcf.num_actuated_joints(), body_file.num_actuated_joints());
    assert_eq!(mjcf.root().name, "WAIST");
    assert_eq!(mjcf.root().joint.kind, tribo_model::JointKind::Free);
    let (m, h) = largest_differences(&body_file, &mjcf);
    eprintln!("SR1.xml against SR1.body: mass matrix {m:.2e}, bias forces {h:.2e} (relative)");
    assert!(
        m <= 1e-12 && h <= 1e-12,
        "mass matrix {m:.2e}, bias forces {h:.2e} (relative)"
    );

    // The comparison sees a 1 % mass change on one forearm.
    let mut heavier = mjcf.clone();
    let arm = heavier.link_index("RARM_ELBOW").expect("the right elbow link");
    heavier.links[arm].mass *= 1.01;
    let (m, h) = largest_differences(&body_file, &heavier);
    assert!(m > 1e-5 && h > 1e-5, "mass matrix {m:.2e}, bias forces {h:.2e}");
}
