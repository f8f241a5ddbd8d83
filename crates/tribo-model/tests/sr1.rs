//! SR1 (docs/design/choreonoid-formats.md §5) loads exactly as Choreonoid loads it.

mod common;

use std::f64::consts::FRAC_PI_2;

use nalgebra::{Matrix3, Vector3};
use tribo_model::{Geometry, JointKind};
use tribo_yaml::Severity;

#[test]
fn links_in_depth_first_order() {
    let body = common::sr1();
    assert_eq!(body.name, "SR1");
    let names: Vec<&str> = body.links.iter().map(|l| l.name.as_str()).collect();
    let expected = [
        "WAIST",
        "WAIST_P",
        "WAIST_R",
        "CHEST",
        "LARM_SHOULDER_P",
        "LARM_SHOULDER_R",
        "LARM_SHOULDER_Y",
        "LARM_ELBOW",
        "LARM_WRIST_Y",
        "LARM_WRIST_P",
        "LARM_WRIST_R",
        "RARM_SHOULDER_P",
        "RARM_SHOULDER_R",
        "RARM_SHOULDER_Y",
        "RARM_ELBOW",
        "RARM_WRIST_Y",
        "RARM_WRIST_P",
        "RARM_WRIST_R",
        "LLEG_HIP_R",
        "LLEG_HIP_P",
        "LLEG_HIP_Y",
        "LLEG_KNEE",
        "LLEG_ANKLE_P",
        "LLEG_ANKLE_R",
        "RLEG_HIP_R",
        "RLEG_HIP_P",
        "RLEG_HIP_Y",
        "RLEG_KNEE",
        "RLEG_ANKLE_P",
        "RLEG_ANKLE_R",
    ];
    assert_eq!(names, expected);
    // Pre-order: every parent comes before its children, and children lists match parents.
    for (i, link) in body.links.iter().enumerate() {
        if let Some(p) = link.parent {
            assert!(p < i, "{} before its parent", link.name);
            assert!(body.links[p].children.contains(&i));
        }
    }
    assert_eq!(
        body.links[0].children,
        [1, 18, 24],
        "WAIST: WAIST_P, LLEG_HIP_R, RLEG_HIP_R in file order"
    );
}

#[test]
fn root_is_free_at_its_initial_height() {
    let body = common::sr1();
    let root = body.root();
    assert_eq!(root.name, "WAIST");
    assert_eq!(root.parent, None);
    assert_eq!(root.joint.kind, JointKind::Free);
    assert_eq!(root.offset.translation.vector, Vector3::new(0.0, 0.0, 0.7135));
    assert_eq!(root.offset.rotation.angle(), 0.0);
}

#[test]
fn twenty_nine_revolute_joints_with_ids_0_to_28() {
    let body = common::sr1();
    assert_eq!(body.num_actuated_joints(), 29);
    assert_eq!(
        body.links
            .iter()
            .filter(|l| l.joint.kind == JointKind::Revolute)
            .count(),
        29
    );
    assert_eq!(body.joints_by_id.len(), 29);
    // docs/design/choreonoid-formats.md §5, joint-id order.
    let leg = ["HIP_R", "HIP_P", "HIP_Y", "KNEE", "ANKLE_P", "ANKLE_R"];
    let arm = [
        "SHOULDER_P",
        "SHOULDER_R",
        "SHOULDER_Y",
        "ELBOW",
        "WRIST_Y",
        "WRIST_P",
        "WRIST_R",
    ];
    let mut by_id: Vec<String> = Vec::new();
    by_id.extend(leg.iter().map(|j| format!("RLEG_{j}")));
    by_id.extend(arm.iter().map(|j| format!("RARM_{j}")));
    by_id.extend(leg.iter().map(|j| format!("LLEG_{j}")));
    by_id.extend(arm.iter().map(|j| format!("LARM_{j}")));
    by_id.extend(["WAIST_P", "WAIST_R", "CHEST"].map(String::from));
    for (id, name) in by_id.iter().enumerate() {
        let link = body.joint_link(id).expect("every id 0..28 is used");
        assert_eq!(&body.links[link].name, name, "joint id {id}");
        assert_eq!(body.links[link].joint.id, Some(id));
        assert_eq!(
            body.links[link].joint.name, *name,
            "joint name defaults to the link name"
        );
    }
}

#[test]
fn joint_axes_and_ranges() {
    let body = common::sr1();
    for link in body.links.iter().skip(1) {
        let expected = if link.name.ends_with("_R") {
            Vector3::x()
        } else if link.name.ends_with("_P") || link.name.ends_with("ELBOW") || link.name.ends_with("KNEE") {
            Vector3::y()
        } else {
            // HIP_Y, SHOULDER_Y and CHEST omit joint_axis (default +Z); WRIST_Y gives [0, 0, 1].
            Vector3::z()
        };
        assert_eq!(link.joint.axis, expected, "{}", link.name);
    }
    let waist_p = &body.links[1];
    assert!((waist_p.joint.range[0] + FRAC_PI_2).abs() < 1e-15 && (waist_p.joint.range[1] - FRAC_PI_2).abs() < 1e-15);
    let knee = &body.links[body.link_index("LLEG_KNEE").expect("knee")];
    assert_eq!(knee.joint.range[0], 0.0);
    assert!((knee.joint.range[1] - 150f64.to_radians()).abs() < 1e-15);
    assert_eq!(knee.joint.velocity_range, [f64::NEG_INFINITY, f64::INFINITY]);
    assert_eq!(knee.joint.max_effort, f64::INFINITY);
    assert_eq!(knee.joint.armature, 0.0);
}

#[test]
fn total_mass_and_identity_inertias() {
    let body = common::sr1();
    // Torso 27 + 6 + 30 + 13, arms 6.4 each, legs 21 each.
    assert!((body.total_mass() - 130.8).abs() < 1e-9, "{}", body.total_mass());
    for link in &body.links {
        assert!((link.inertia - Matrix3::identity()).norm() < 1e-12, "{}", link.name);
    }
    let waist = body.root();
    assert_eq!(waist.mass, 27.0);
    assert!((waist.center_of_mass - Vector3::new(0.0, 0.0, 0.0375)).norm() < 1e-15);
    let ankle = &body.links[body.link_index("RLEG_ANKLE_R").expect("ankle")];
    assert!((ankle.mass - 1.9).abs() < 1e-15);
    assert!((ankle.center_of_mass - Vector3::new(0.28, 0.0, -0.2)).norm() < 1e-15);
}

#[test]
fn only_the_ankles_are_sole() {
    let body = common::sr1();
    for link in &body.links {
        if link.name == "LLEG_ANKLE_R" || link.name == "RLEG_ANKLE_R" {
            assert_eq!(link.material, "Sole");
            let at = link.material_location.as_ref().expect("named in the file");
            assert_eq!(at.file.as_ref(), "SR1.body");
        } else {
            assert_eq!(link.material, "Default", "{}", link.name);
            assert_eq!(link.material_location, None);
        }
    }
}

#[test]
fn sole_box_is_shared_by_both_feet() {
    let body = common::sr1();
    let left = &body.links[body.link_index("LLEG_ANKLE_R").expect("left")];
    let right = &body.links[body.link_index("RLEG_ANKLE_R").expect("right")];
    assert_eq!(left.shapes, right.shapes, "the right foot reuses *LegShape6");
    assert_eq!(left.shapes.len(), 2);
    let sole = &left.shapes[1];
    assert_eq!(
        sole.geometry,
        Geometry::Box {
            size: Vector3::new(0.25, 0.14, 0.01)
        }
    );
    assert!((sole.pose.translation.vector - Vector3::new(0.055, 0.0, -0.05)).norm() < 1e-15);
    assert_eq!(sole.pose.rotation.angle(), 0.0);
    assert_eq!(sole.color, Some([0.0, 0.5, 0.0]));
    // Its bottom face is at z = −0.055, spanning x ∈ [−0.07, 0.18], y ∈ [−0.07, 0.07].
    let bottom = sole.pose.translation.vector.z - 0.005;
    assert!((bottom + 0.055).abs() < 1e-15);
    // The ankle cylinder is rotated 90° about Z: its axis (local +Y) runs along the link's X.
    let ankle = &left.shapes[0];
    assert_eq!(
        ankle.geometry,
        Geometry::Cylinder {
            radius: 0.05,
            height: 0.1
        }
    );
    assert!((ankle.pose.translation.vector - Vector3::new(0.1, 0.0, 0.0)).norm() < 1e-15);
    assert!((ankle.pose.rotation * Vector3::y() + Vector3::x()).norm() < 1e-15);
}

#[test]
fn devices_are_noted_not_failed() {
    let body = common::sr1();
    let devices: Vec<&str> = body
        .notes
        .iter()
        .filter(|n| n.message.starts_with("device "))
        .map(|n| n.message.split(" of link").next().unwrap_or(""))
        .collect();
    assert_eq!(
        devices,
        [
            "device `WaistAccelSensor` (AccelerationSensor)",
            "device `WaistGyro` (RateGyroSensor)",
            "device `WaistIMU` (IMU)",
            "device `LeftCamera` (Camera)",
            "device `RightCamera` (Camera)",
            "device `LeftAnkleForceSensor` (ForceSensor)",
            "device `RightAnkleForceSensor` (ForceSensor)",
        ]
    );
    assert!(body.notes.iter().all(|n| n.severity == Severity::Warning));
    assert_eq!(body.notes.len(), 7, "{:#?}", body.notes);
    // The cameras' shapes (Cylinders, their axis along the view direction) belong to CHEST.
    let chest = &body.links[body.link_index("CHEST").expect("chest")];
    let lens: Vec<_> = chest
        .shapes
        .iter()
        .filter(|s| {
            s.geometry
                == Geometry::Cylinder {
                    radius: 0.02,
                    height: 0.025,
                }
        })
        .collect();
    assert_eq!(lens.len(), 2);
    assert!((lens[0].pose.translation.vector - Vector3::new(0.15, 0.05, 0.15)).norm() < 1e-15);
    assert!(
        (lens[0].pose.rotation * Vector3::y()).x.abs() > 1.0 - 1e-15,
        "lens axis along X"
    );
}

#[test]
fn loads_from_its_path() {
    let path = common::choreonoid("SR1.body");
    let body = tribo_model::load_body(&path).expect("SR1.body loads from disk");
    assert_eq!(body.source.as_ref(), path.display().to_string());
    assert_eq!(body.links.len(), 30);
}

#[test]
fn summary_snapshot() {
    let summary = common::sr1().summary();
    assert_eq!(summary.num_links, 30);
    assert_eq!(summary.joints_by_kind.get("revolute"), Some(&29));
    assert_eq!(summary.materials.get("Sole").map(Vec::len), Some(2));
    insta::assert_snapshot!("sr1_summary", summary.to_string());
}
