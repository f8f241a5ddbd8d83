//! A cube resting on its pad: the patch carries the weight, the host applies exactly the
//! lattice wrench, the skin deflects as the anchor and Hertz springs in series predict.

use nalgebra::{Isometry3, Translation3, Vector3};
use tribo_engine::EngineOptions;
use tribo_engine::LinkRef;
use tribo_model::{Geometry, PadLayout, PadShape, PadSpec};
use tribo_testkit::*;

const DT: f64 = 1e-3;
const MASS: f64 = 1.0;
const SIDE: f64 = 0.04;
const K_A: f64 = 2.0e8;
const K_C: f64 = 1.0e12;

fn materials() -> tribo_material::ContactTable {
    table(
        &format!(
            "materials:\n  - name: Ground\n  - name: Skin\n    cslc: {{anchor_stiffness: {K_A:e}, contact_stiffness: {K_C:e}, \
             tangential_ratio: 0.5, lateral_length: 0.002}}\ncontact_materials:\n  - materials: [Ground, Skin]\n    friction: 0.8\n"
        ),
        &["Ground", "Skin"],
    )
}

/// A 4 cm cube of 1 kg whose bottom face is a 20 × 20 flat pad (2 mm spacing), resting on the
/// ground (its pad surface 0.1 mm above it at the start).
fn cube_on_pad() -> std::sync::Arc<tribo_engine::Scene> {
    let table = materials();
    let mut model = solid(
        "cube",
        Geometry::Box {
            size: Vector3::new(SIDE, SIDE, SIDE),
        },
        MASS,
        "Skin",
    );
    let pad_pose = Isometry3::from_parts(
        Translation3::new(0.0, 0.0, -0.5 * SIDE),
        nalgebra::UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI),
    );
    model.links[0].pads.push(PadSpec {
        shape: PadShape::Flat {
            resolution: [20, 20],
            spacing: SIDE / 20.0,
            layout: PadLayout::Cells,
        },
        pose: pad_pose,
        location: tribo_yaml::Location::file("test"),
    });
    let start = Isometry3::translation(0.0, 0.0, 0.5 * SIDE + 1e-4);
    scene_with_declared_pads(
        vec![ground(0.0, &table), place("cube", model, start, false, &table)],
        table,
    )
}

/// The lattice on both hosts: `cslc` (pgs) and `cslc-rapier` (rapier).
const ENGINES: [&str; 2] = ["cslc", "cslc-rapier"];

#[test]
fn a_cube_rests_on_its_pad_and_the_patch_carries_its_weight() {
    for name in ENGINES {
        rests_on(name);
    }
}

fn rests_on(name: &str) {
    let scene = cube_on_pad();
    let mut engine = tribo::engines()
        .get(name)
        .expect("the engine is registered")
        .build(&scene, &EngineOptions::none())
        .expect("the engine builds");
    let commands = idle(&scene);
    for _ in 0..1500 {
        let report = engine.step(DT, &commands).expect("step");
        assert!(
            report.warnings.is_empty(),
            "t = {}: {:?}",
            engine.time(),
            report.warnings
        );
    }
    let contacts = engine.contacts();
    assert_eq!(contacts.len(), 1, "{contacts:?}");
    let patch = &contacts[0];
    assert_eq!(patch.b, LinkRef { body: 1, link: 0 });
    // The patch carries the weight (issue #5: to 0.5 %).
    let weight = MASS * G;
    assert!(
        (patch.normal_force - weight).abs() < 5e-3 * weight,
        "normal force {} N vs weight {weight} N",
        patch.normal_force
    );
    let detail = patch.patch.as_ref().expect("patch detail");
    // The lattice's own sum of sphere forces equals the applied force (to 1e-6 relative at rest).
    let lattice_sum: f64 = detail.sphere_normal_forces.iter().sum();
    assert!(
        (lattice_sum - patch.normal_force).abs() < 1e-6 * weight,
        "{lattice_sum} vs {}",
        patch.normal_force
    );
    // Uniform pressure m g / A over the whole face (all 400 spheres touch), to 1 %.
    let pressure = weight / (SIDE * SIDE);
    assert!((detail.area - SIDE * SIDE).abs() < 1e-12, "area {}", detail.area);
    for p in &detail.sphere_pressures {
        assert!((p - pressure).abs() < 0.01 * pressure, "pressure {p} vs {pressure}");
    }
    // CoP under the centre of mass (1 µm), wherever the landing left the cube.
    let com = root_position(engine.state(), 1);
    assert!(
        (patch.point.xy() - com.xy()).norm() < 1e-6,
        "CoP {} vs COM {com}",
        patch.point
    );
    // Skin deflection: anchor p / k_a (the Hertz part is the penetration).
    let deflection = pressure / K_A;
    for d in &detail.sphere_deflections {
        assert!(
            (d - deflection).abs() < 0.01 * deflection,
            "deflection {d} vs {deflection}"
        );
    }
    // The cube is still: the lattice holds it without the host's rigid contact.
    let v = engine.state().bodies[1].links[0].linear_velocity.norm();
    assert!(v < 1e-6, "speed {v}");
}
