//! A pad touches the links of its own body only where its host collides that body with itself,
//! and then by the rule every engine applies to its rigid shapes
//! (`tribo_model::RigidGroups::may_self_touch`: not across a weld, nor across one joint), so
//! that a pad and the rigid shape it stands for on the other engines touch the same links.

use nalgebra::{Isometry3, Matrix3, Translation3, UnitQuaternion, Vector3};
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

/// How the finger hangs over the anvil.
#[derive(Clone, Copy, Debug)]
enum Mount {
    /// On a vertical slider straight on the base, which the anvil is welded to: one joint apart.
    OnTheBase,
    /// On a vertical slider on a carriage that a horizontal slider joins to the base: two joints
    /// apart.
    OnACarriage,
}

/// One body, fixed in the world: a massless base, a finger (mounted as `mount` says) whose bottom
/// face is a 10 × 10 pad, and an anvil welded to the base right below it, with the pad's surface
/// `OVERLAP` inside the anvil.
fn finger_over_its_own_anvil(self_collision: bool, mount: Mount) -> std::sync::Arc<tribo_engine::Scene> {
    let table = materials();
    let finger_offset = Isometry3::translation(0.0, 0.0, 0.02);
    let mut links = vec![fixed_base()];
    if let Mount::OnACarriage = mount {
        let mut carriage = link(
            "carriage",
            Some(0),
            joint(JointKind::Prismatic, "travel", Vector3::x()),
            Isometry3::identity(),
            0.1,
            "Thing",
        );
        carriage.inertia = Matrix3::identity() * 1e-5;
        links.push(carriage);
    }
    let mut finger = with_shape(
        link(
            "finger",
            Some(links.len() - 1),
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
    links.push(finger);
    // The anvil's top face `OVERLAP` above the finger's bottom face, where the pad's spheres end
    // (finger at z = 0.02, its bottom 5 mm lower).
    let anvil_top = 0.02 - 0.005 + OVERLAP;
    links.push(with_shape(
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
    ));
    let model = body("press", links);
    let mut press = place("press", model, Isometry3::identity(), true, &table);
    press.self_collision = self_collision;
    scene_with_declared_pads(vec![press], table)
}

/// The contacts after one step of `engine` built with `options` (YAML, empty for none), as (links,
/// normal force).
fn contacts_after_one_step(
    engine: &str,
    scene: &std::sync::Arc<tribo_engine::Scene>,
    options: &str,
) -> Vec<(LinkRef, LinkRef, f64)> {
    let options = match options {
        "" => EngineOptions::none(),
        yaml => EngineOptions {
            node: Some(tribo_yaml::parse_str(yaml, "project.yaml").expect("yaml")),
        },
    };
    let mut engine = tribo::engines()
        .get(engine)
        .expect("the engine is registered")
        .build(scene, &options)
        .expect("the engine builds");
    engine.step(DT, &idle(scene)).expect("step");
    engine.contacts().iter().map(|c| (c.a, c.b, c.normal_force)).collect()
}

const ENGINES: [&str; 4] = ["pgs", "rapier", "cslc", "cslc-rapier"];

/// The finger's and the anvil's links on `mount`.
fn finger_and_anvil(mount: Mount) -> (LinkRef, LinkRef) {
    match mount {
        Mount::OnTheBase => (LinkRef { body: 0, link: 1 }, LinkRef { body: 0, link: 2 }),
        Mount::OnACarriage => (LinkRef { body: 0, link: 2 }, LinkRef { body: 0, link: 3 }),
    }
}

/// Asserts that `contacts` on `engine` are the one contact of the finger and the anvil, pressed:
/// a pad by some newtons at least (k_a alone, 2e8 N/m³ · 4e-4 m² · 1e-4 m = 8 N, less the Hertz
/// give), a rigid shape by any force.
fn assert_finger_on_anvil(engine: &str, mount: Mount, contacts: &[(LinkRef, LinkRef, f64)]) {
    let (finger, anvil) = finger_and_anvil(mount);
    let between: Vec<_> = contacts
        .iter()
        .filter(|(a, b, _)| [*a, *b] == [finger, anvil] || [*a, *b] == [anvil, finger])
        .collect();
    assert!(
        !between.is_empty() && between.len() == contacts.len(),
        "{engine}: {contacts:?}"
    );
    let force: f64 = between.iter().map(|c| c.2).sum();
    let least = if engine.starts_with("cslc") { 1.0 } else { 0.0 };
    assert!(force > least, "{engine}: normal force {force} N");
}

#[test]
fn a_pad_touches_its_own_body_where_its_host_collides_it() {
    let mount = Mount::OnACarriage;
    for engine in ENGINES {
        let off = contacts_after_one_step(engine, &finger_over_its_own_anvil(false, mount), "");
        assert!(off.is_empty(), "{engine}: self-collision off, yet {off:?}");
        let on = contacts_after_one_step(engine, &finger_over_its_own_anvil(true, mount), "");
        assert_finger_on_anvil(engine, mount, &on);
    }
}

#[test]
fn links_one_joint_apart_never_touch_on_any_engine() {
    // The anvil is welded to the base the finger's slider stands on: the rigid engines and the
    // pads alike leave the pair alone, self-collision or not (the pads touched it before they
    // followed the rigid groups).
    for engine in ENGINES {
        let on = contacts_after_one_step(engine, &finger_over_its_own_anvil(true, Mount::OnTheBase), "");
        assert!(on.is_empty(), "{engine}: one joint apart, yet {on:?}");
    }
}

#[test]
fn a_pad_follows_its_hosts_self_collision_option() {
    // `pgs`'s option `self_collision` overrides the scene's flag; `cslc` passes its options to
    // its `pgs` host, and its pads follow what the host makes of them.
    let mount = Mount::OnACarriage;
    let scene = finger_over_its_own_anvil(false, mount);
    for engine in ["pgs", "cslc"] {
        let on = contacts_after_one_step(engine, &scene, "self_collision: true\n");
        assert_finger_on_anvil(engine, mount, &on);
    }
    let scene = finger_over_its_own_anvil(true, mount);
    for engine in ["pgs", "cslc"] {
        let off = contacts_after_one_step(engine, &scene, "self_collision: false\n");
        assert!(off.is_empty(), "{engine}: self-collision off by option, yet {off:?}");
    }
}
