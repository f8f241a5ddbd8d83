//! The dense pair table: ids in first-use order and O(1) symmetric lookups.

mod common;

use common::{default_and_slippy, default_table};
use tribo_material::{ContactTable, MaterialId, StandIn};

#[test]
fn ids_follow_first_use_after_default() {
    let t = default_table();
    let ct = ContactTable::build(&t, ["Ball", "Ground", "Ball", "default", "Sol", ""]).expect("table");
    assert_eq!(ct.len(), 4);
    let names: Vec<&str> = ct.ids().map(|id| ct.name(id)).collect();
    assert_eq!(names, ["Default", "Ball", "Ground", "Sol"]);
    assert_eq!(ct.id("default"), Some(MaterialId::DEFAULT));
    assert_eq!(ct.id("Ball").map(MaterialId::index), Some(1));
    assert_eq!(ct.id("Steel"), None);
    assert_eq!(ct.stand_in(ct.id("Sol").expect("Sol")), StandIn::DefaultEntry);
}

#[test]
fn dense_pairs_equal_the_table_lookup_and_are_symmetric() {
    let t = default_and_slippy();
    let names = t.known_names();
    let ct = ContactTable::build(&t, &names).expect("table");
    for a in ct.ids() {
        for b in ct.ids() {
            let dense = ct.pair(a, b);
            let direct = t.contact(ct.name(a), ct.name(b));
            assert_eq!(dense.static_friction.to_bits(), direct.static_friction.to_bits());
            assert_eq!(dense.dynamic_friction.to_bits(), direct.dynamic_friction.to_bits());
            assert_eq!(dense.restitution.to_bits(), direct.restitution.to_bits());
            assert_eq!(dense.is_explicit(), direct.is_explicit());
            assert_eq!(dense, ct.pair(b, a));
        }
    }
    let ground = ct.id("Ground").expect("Ground");
    let sole = ct.id("Sole").expect("Sole");
    assert_eq!(ct.pair(sole, ground).static_friction, 0.01);
    assert_eq!(ct.material(ground).roughness, 0.01);
}

#[test]
fn material_level_keys_and_typed_extras() {
    let t = default_table();
    let ct = ContactTable::build(&t, ["TankTracks", "Ground", "Wire"]).expect("table");
    let tracks = ct.material(ct.id("TankTracks").expect("id"));
    assert_eq!((tracks.stiffness, tracks.damping), (100000.0, 100000.0));
    assert_eq!(tracks.extra_f64("youngs_modulus").expect("number"), Some(1e10));
    let p = ct.pair(ct.id("Ground").expect("id"), ct.id("TankTracks").expect("id"));
    assert_eq!(p.extra_f64("secondary_friction").expect("number"), Some(0.5));
    assert_eq!(p.extra_usize("max_num_contact_points").expect("absent"), None);
    let err = p.extra_f64("reference_body").expect_err("text, not a number");
    assert_eq!(
        err.to_string(),
        "${SHARE}/default/materials.yaml:136:21: `reference_body`: expected a number, found `Tank`"
    );
    let err = p.extra_usize("friction_model").expect_err("a list");
    assert!(err.message.contains("expected an integer, found a list"), "{err}");
}
