//! A pad touches the links of its own body only when that body has self-collision on — the rule
//! the hosts apply to rigid shapes (`tribo-pgs`, `tribo-rapier`), so that a pad and the rigid
//! shape it stands for on the other engines touch the same links.

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use tribo_engine::{EngineOptions, LinkRef};
use tribo_model::{Geometry, JointKind, PadLayout, PadShape, PadSpec};
use tribo_testkit::*;

const DT: f64 = 1e-3;
/// Side of the finger's pad and of the anvil's top face, m.
const SIDE: f64 = 0.02;
/// How far the pad's surface starts inside the anvil, m.
const OVERLAP: f64 = 1e-4;

fn materials() -> tribo_material::ContactTable {
    table(
        "materials:\n  - name: Thing\n  - name: Skin\n    cslc: {anchor_stiffness: 2.0e8, contact_stiffness: 1.0e11, \
         tangential_ratio: 0.5, lateral_length: 0.002}\ncontact_materials:\n  - materials: [Thing, Skin]\n    friction: 0.5\n",
        &["Thing", "Skin"],
    )
}

/// One body, fixed in the world: a massless base, a finger on a vertical slider whose bottom face
/// is a 10 × 10 pad, and an anvil fixed to the base right below it — the finger and the anvil are
/// siblings, not jointed to each other — with the pad's surface `OVERLAP` inside the anvil.
fn finger_over_its_own_anvil(self_collision: bool) -> std::sync::Arc<tribo_engine::Scene> {
    let table = materials();
    let finger_offset = Isometry3::translation(0.0, 0.0, 0.02);
    let mut finger = with_shape(
        link(
            "finger",
            Some(0),
            joint(JointKind::Prismatic, "lift", Vector3::z()),
            finger_offset,
            0.1,
            "Skin",
        ),
        Geometry::Box {
            size: Vector3::new(SIDE, SIDE, 0.01),
        },
    );
    finger.pads.push(PadSpec {
        shape: PadShape::Flat {
            resolution: [10, 10],
            spacing: SIDE / 10.0,
            layout: PadLayout::Cells,
        },
        pose: Isometry3::from_parts(
            Translation3::new(0.0, 0.0, -0.005),
            UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI),
        ),
        location: tribo_yaml::Location::file("test"),
    });
    // The anvil's top face `OVERLAP` above the finger's bottom face, where the pad's spheres end
    // (finger at z = 0.02, its bottom 5 mm lower).
    let anvil_top = 0.02 - 0.005 + OVERLAP;
    let anvil = with_shape(
        link(
            "anvil",
            Some(0),
            joint(JointKind::Fixed, "anvil", Vector3::z()),
            Isometry3::translation(0.0, 0.0, anvil_top - 0.005),
            1.0,
            "Thing",
        ),
        Geometry::Box {
            size: Vector3::new(SIDE, SIDE, 0.01),
        },
    );
    let model = body("press", vec![fixed_base(), finger, anvil]);
    let mut press = place("press", model, Isometry3::identity(), true, &table);
    press.self_collision = self_collision;
    scene_with_declared_pads(vec![press], table)
}

/// The contacts after one step on `engine`, as (links, normal force).
fn contacts_after_one_step(engine: &str, self_collision: bool) -> Vec<(LinkRef, LinkRef, f64)> {
    let scene = finger_over_its_own_anvil(self_collision);
    let mut engine = tribo::engines()
        .get(engine)
        .expect("the engine is registered")
        .build(&scene, &EngineOptions::none())
        .expect("the engine builds");
    engine.step(DT, &idle(&scene)).expect("step");
    engine.contacts().iter().map(|c| (c.a, c.b, c.normal_force)).collect()
}

#[test]
fn a_pad_touches_its_own_body_only_with_self_collision() {
    let (finger, anvil) = (LinkRef { body: 0, link: 1 }, LinkRef { body: 0, link: 2 });
    for engine in ["cslc", "cslc-rapier"] {
        let off = contacts_after_one_step(engine, false);
        assert!(off.is_empty(), "{engine}: self-collision off, yet {off:?}");
        let on = contacts_after_one_step(engine, true);
        assert_eq!(on.len(), 1, "{engine}: self-collision on: {on:?}");
        let (a, b, force) = on[0];
        assert!(
            [a, b] == [finger, anvil] || [a, b] == [anvil, finger],
            "{engine}: the patch joins {a:?} and {b:?}"
        );
        // A 2 × 2 cm patch pressed 0.1 mm: some newtons at least (k_a alone, 2e8 N/m³ · 4e-4 m² ·
        // 1e-4 m = 8 N, less the Hertz give).
        assert!(force > 1.0, "{engine}: normal force {force} N");
    }
}
