//! Lookup semantics on Choreonoid's own tables (docs/design/choreonoid-formats.md §1.3-1.4).

mod common;

use common::{assert_close, default_and_slippy, default_table, load, table, COLLISION_HANDLER};
use tribo_material::{ParamOrigin, StandIn, ValueSource};
use tribo_yaml::Location;

const TOL: f64 = 1e-12;

#[test]
fn ground_ball_is_the_explicit_entry() {
    let p = default_table().contact("Ground", "Ball");
    assert_close(p.static_friction, 0.5, TOL, "static");
    assert_close(p.dynamic_friction, 0.5, TOL, "dynamic");
    assert_close(p.restitution, 0.8, TOL, "restitution");
    let ParamOrigin::Entry(origin) = &p.origin else {
        unreachable!("[Ground, Ball] is an entry: {p:?}")
    };
    assert_eq!(origin.materials, ["Ground", "Ball"]);
    // Line 88 of Choreonoid's file, plus the one-line licence comment.
    assert_eq!(origin.location.to_string(), "${SHARE}/default/materials.yaml:89:5");
    assert_eq!(p.extra_f64("youngsModulus").expect("number"), Some(1.0e8));
}

#[test]
fn ball_ball_uses_the_fallback() {
    let p = default_table().contact("Ball", "Ball");
    // μ = √(0.5 · 0.5) = 0.5; e = √((1 − 0.36)·(1 − 0.36)) = 0.64.
    assert_close(p.static_friction, 0.5, TOL, "static");
    assert_close(p.dynamic_friction, 0.5, TOL, "dynamic");
    assert_close(p.restitution, 0.64, TOL, "restitution");
    assert!(!p.is_explicit());
    assert!(p.extras.is_empty());
}

#[test]
fn fallback_friction_is_the_geometric_mean() {
    // Ground r = 1.0, Tracks r = 0.5 → √0.5; OilWetGround r = 0.1 with Ball r = 0.5 → √0.05.
    let t = default_table();
    assert_close(
        t.contact("Ground", "Tracks").static_friction,
        0.5f64.sqrt(),
        TOL,
        "Ground/Tracks",
    );
    assert_close(
        t.contact("OilWetGround", "Ball").static_friction,
        0.05f64.sqrt(),
        TOL,
        "OilWetGround/Ball",
    );
    assert_close(t.contact("Slider", "Ball").static_friction, 0.0, TOL, "Slider r = 0");
    // Wire has no roughness: the default 0.5 applies. √(0.5 · 1.0).
    assert_close(
        t.contact("Wire", "Steel").static_friction,
        0.5f64.sqrt(),
        TOL,
        "Wire/Steel",
    );
}

#[test]
fn lookup_is_symmetric_for_every_pair_of_the_default_table() {
    let t = default_table();
    let names = t.known_names();
    let mut checked = 0;
    for a in &names {
        for b in &names {
            let (ab, ba) = (t.contact(a, b), t.contact(b, a));
            assert_eq!(ab.static_friction.to_bits(), ba.static_friction.to_bits(), "{a}/{b}");
            assert_eq!(ab.dynamic_friction.to_bits(), ba.dynamic_friction.to_bits(), "{a}/{b}");
            assert_eq!(ab.restitution.to_bits(), ba.restitution.to_bits(), "{a}/{b}");
            assert_eq!(ab.is_explicit(), ba.is_explicit(), "{a}/{b}");
            checked += 1;
        }
    }
    assert_eq!(checked, 17 * 17);
}

#[test]
fn every_entry_of_the_default_table_is_found_in_both_orders() {
    let t = default_table();
    for entry in t.pairs() {
        let [a, b] = &entry.names;
        for (x, y) in [(a, b), (b, a)] {
            let p = t.contact(x, y);
            assert!(p.is_explicit(), "{x}/{y}");
            assert_eq!(p.static_friction, entry.contact.static_friction, "{x}/{y}");
            assert_eq!(p.restitution, entry.contact.restitution, "{x}/{y}");
        }
    }
}

#[test]
fn default_and_lowercase_default_are_one_material() {
    let t = default_table();
    let upper = t.contact("Ground", "Default");
    let lower = t.contact("default", "Ground");
    let empty = t.contact("", "Ground");
    assert!(upper.is_explicit() && lower.is_explicit() && empty.is_explicit());
    assert_eq!(lower, upper);
    assert_eq!(empty, upper);
}

#[test]
fn slippy_replaces_ground_and_sole_and_their_pair_only() {
    let t = default_and_slippy();
    let p = t.contact("Ground", "Sole");
    assert_close(p.static_friction, 0.01, TOL, "Ground/Sole static");
    assert_close(p.dynamic_friction, 0.01, TOL, "Ground/Sole dynamic");
    let ParamOrigin::Entry(origin) = &p.origin else {
        unreachable!("an entry")
    };
    assert_eq!(origin.location.to_string(), "SlippyMaterialSet.yaml:13:5");
    assert_eq!(
        p.extras.names("friction_model").expect("names"),
        Some(vec!["cone", "direct"])
    );

    let ground_default = t.contact("Ground", "Default");
    assert_close(ground_default.static_friction, 0.5, TOL, "Ground/Default untouched");
    assert!(ground_default.is_explicit());

    let ground = t.material("Ground").expect("Ground");
    assert_close(ground.roughness, 0.01, TOL, "Ground roughness replaced");
    // The whole entry is replaced, including where it came from.
    assert_eq!(
        ground.origin.as_ref().map(|o| o.location.to_string()).as_deref(),
        Some("SlippyMaterialSet.yaml:3:5")
    );
    // A fallback pair now sees the new roughness: Ground/Tracks = √(0.01 · 0.5).
    assert_close(
        t.contact("Ground", "Tracks").static_friction,
        0.005f64.sqrt(),
        TOL,
        "Ground/Tracks",
    );
    // The default table itself is unchanged (a copy is merged, not the cached default).
    assert_close(
        default_table().contact("Ground", "Sole").static_friction,
        1.0,
        TOL,
        "default untouched",
    );
}

#[test]
fn collision_handler_table_uses_camel_case_contact_materials() {
    let loaded = load(COLLISION_HANDLER, "CollisionHandler-materials.yaml");
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    let t = &loaded.table;
    assert_eq!(t.materials().len(), 2);
    assert_eq!(t.pairs().len(), 3);
    let p = t.contact("Floor", "Foot");
    assert!(p.is_explicit());
    assert_eq!(
        p.extra_str("collisionHandler").expect("text"),
        Some("SpringDamperContact")
    );
    // Foot and Floor have no numbers: r = 0.5, v = 1.0 from Material's defaults. No Default entry,
    // so an unknown name stands in with the built-in values.
    let foot = t.material("Foot").expect("Foot");
    assert_eq!((foot.roughness, foot.viscosity), (0.5, 1.0));
    let q = t.contact("Foot", "Foot");
    assert_close(q.static_friction, 0.5, TOL, "√(0.5 · 0.5)");
    assert_close(q.restitution, 0.0, TOL, "v = 1");
}

#[test]
fn the_real_tables_load_without_warnings() {
    let slippy = load(common::SLIPPY, "SlippyMaterialSet.yaml");
    assert!(slippy.warnings.is_empty(), "{:?}", slippy.warnings);
    let default = load(
        tribo_material::BUILTIN_DEFAULT_TEXT,
        tribo_material::BUILTIN_DEFAULT_FILE,
    );
    assert!(default.warnings.is_empty(), "{:?}", default.warnings);
}

#[test]
fn an_entry_with_three_names_gives_three_pairs() {
    let t = table(
        "contact_materials:\n  - materials: [A, B, C]\n    friction: 0.3\n    restitution: 0.1\n",
        "abc.yaml",
    );
    assert_eq!(t.pairs().len(), 3);
    for (a, b) in [("A", "B"), ("A", "C"), ("B", "C"), ("C", "B")] {
        let p = t.contact(a, b);
        assert!(p.is_explicit(), "{a}/{b}");
        assert_eq!((p.static_friction, p.restitution), (0.3, 0.1), "{a}/{b}");
    }
    assert!(!t.contact("A", "A").is_explicit(), "[A, B, C] gives no self pair");
}

#[test]
fn static_friction_alone_leaves_dynamic_at_its_default() {
    let t = table(
        "contact_materials:\n  - materials: [A, B]\n    static_friction: 0.8\n",
        "s.yaml",
    );
    let p = t.contact("A", "B");
    assert_eq!((p.static_friction, p.dynamic_friction), (0.8, 0.5));
    assert_eq!(p.friction(), 0.8, "friction() is the static coefficient");
}

#[test]
fn snake_case_wins_over_camel_case_which_stays_an_extra() {
    let loaded = load(
        "contact_materials:\n  - materials: [A, B]\n    staticFriction: 0.9\n    static_friction: 0.7\n    \
         dynamicFriction: 0.4\n",
        "s.yaml",
    );
    let p = loaded.table.contact("A", "B");
    assert_eq!((p.static_friction, p.dynamic_friction), (0.7, 0.4));
    assert_eq!(p.extra_f64("staticFriction").expect("number"), Some(0.9));
    assert!(
        p.extras.get("dynamicFriction").is_none(),
        "the camelCase spelling was used, not kept"
    );
    let ParamOrigin::Entry(origin) = &p.origin else {
        unreachable!("an entry")
    };
    let ValueSource::Key { key, .. } = &origin.dynamic_friction else {
        unreachable!("written")
    };
    assert_eq!(key, "dynamicFriction");
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
}

#[test]
fn unknown_name_uses_default_values_and_never_matches_default_entries() {
    let t = default_table();
    // [Ground, Default] has μ 0.5; an unknown name stands in with Default's r = 1.0, v = 1.0 and
    // gets the fallback √(1.0 · 1.0) = 1.0 against Ground (docs/design/choreonoid-formats.md §1.3).
    let p = t.contact("Sol", "Ground");
    assert_close(p.static_friction, 1.0, TOL, "unknown/Ground");
    assert_close(
        t.contact("Default", "Ground").static_friction,
        0.5,
        TOL,
        "Default/Ground",
    );
    let ParamOrigin::Fallback(f) = &p.origin else {
        unreachable!("no entry names Sol")
    };
    assert_eq!(f.first.stand_in, StandIn::DefaultEntry);
    assert_eq!(f.second.stand_in, StandIn::Own);
    assert_eq!(
        f.first.entry.as_ref().map(ToString::to_string).as_deref(),
        Some("${SHARE}/default/materials.yaml:4:5")
    );

    let at = Location::new(&"robot.body".into(), 12, 15);
    let warning = t.check_name("Sol", &at).expect("Sol is unknown");
    assert_eq!(
        warning.to_string(),
        "robot.body:12:15: warning: unknown material `Sol`: no table defines it; Choreonoid uses the Default \
         material's roughness and viscosity for it (did you mean `Sole`?)"
    );
    assert!(t.check_name("Ground", &at).is_none());
    assert!(t.check_name("default", &at).is_none());
    let far = t.check_name("Qwertyuiop", &at).expect("unknown");
    assert!(!far.message.contains("did you mean"), "{far}");
}

#[test]
fn a_name_only_in_a_pair_is_known_and_stands_in_with_default() {
    let t = table(
        "materials:\n  - {name: Default, roughness: 0.36, viscosity: 0.75}\n\
         contact_materials:\n  - {materials: [Pad, Default], friction: 0.9}\n",
        "pad.yaml",
    );
    let at = Location::new(&"robot.body".into(), 1, 1);
    assert!(t.check_name("Pad", &at).is_none(), "a pair entry makes the name known");
    assert_close(t.contact("Pad", "Default").static_friction, 0.9, TOL, "explicit entry");
    // Pad/Pad has no entry: Default's r and v for both. μ = √(0.36·0.36), e = √(0.25·0.25).
    let p = t.contact("Pad", "Pad");
    assert_close(p.static_friction, 0.36, TOL, "Pad/Pad friction");
    assert_close(p.restitution, 0.25, TOL, "Pad/Pad restitution");
}
