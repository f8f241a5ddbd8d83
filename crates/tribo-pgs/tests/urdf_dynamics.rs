//! Choreonoid's SR1 humanoid from its URDF (`share/choreonoid/model/SR1.urdf`) against the same
//! robot from its `.body` file: the mass matrix and the bias forces (Coriolis, centrifugal and
//! gravity) of the trees pgs builds agree to 1e-12 (relative to the matrix's largest entry) at
//! random configurations and velocities — the URDF import maps links, joint frames, axes and
//! inertias as the body loader does.

mod two_models;

use two_models::{largest_differences, model};

#[test]
fn sr1_from_urdf_has_the_dynamics_of_sr1_from_its_body_file() {
    let (body_file, urdf) = (model("SR1.body"), model("SR1.urdf"));
    assert_eq!(urdf.num_actuated_joints(), body_file.num_actuated_joints());
    let (m, h) = largest_differences(&body_file, &urdf);
    assert!(
        m <= 1e-12 && h <= 1e-12,
        "mass matrix {m:.2e}, bias forces {h:.2e} (relative)"
    );

    // The comparison sees a 1 % mass change on one forearm.
    let mut heavier = urdf.clone();
    let arm = heavier.link_index("RARM_ELBOW").expect("the right elbow link");
    heavier.links[arm].mass *= 1.01;
    let (m, h) = largest_differences(&body_file, &heavier);
    assert!(m > 1e-5 && h > 1e-5, "mass matrix {m:.2e}, bias forces {h:.2e}");
}
