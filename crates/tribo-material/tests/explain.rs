//! Every resolved number says where it came from, in words and in JSON.

mod common;

use common::{default_table, table};

#[test]
fn fallback_explanation_names_both_inputs() {
    let t = table(
        "materials:\n  - name: Ground\n    roughness: 1.0\n  - name: Ball\n    roughness: 0.5\n    viscosity: 0.36\n",
        "m.yaml",
    );
    let lines = t.contact("Ground", "Ball").explain();
    assert_eq!(
        lines,
        [
            "static friction 0.707107 = √(1.0 · 0.5) (fallback: Ground roughness 1.0 from m.yaml:3:5, \
             Ball roughness 0.5 from m.yaml:5:5)",
            "dynamic friction 0.707107 = static friction (the fallback sets both)",
            "restitution 0.0 = √(max(0, 1 − 1.0) · max(0, 1 − 0.36)) (fallback: Ground viscosity 1.0 \
             (default; not given in Ground's entry at m.yaml:2:5), Ball viscosity 0.36 from m.yaml:6:5)",
        ]
    );
}

#[test]
fn fallback_explanation_for_unknown_names_and_clamps() {
    let t = table(
        "materials:\n  - {name: Default, roughness: 300, viscosity: 0.5}\n",
        "d.yaml",
    );
    let lines = t.contact("Sol", "Default").explain();
    assert_eq!(
        lines[0],
        "static friction 100.0 = √(300.0 · 300.0) = 300.0 clamped to [0.0, 100.0] (fallback: Sol roughness 300.0 \
         from Default at d.yaml:2:21 (Sol has no material entry), Default roughness 300.0 from d.yaml:2:21)"
    );
    let builtin = table("materials: []\n", "e.yaml").contact("X", "Y").explain();
    assert!(
        builtin[0].ends_with(
            "(fallback: X roughness 0.5 (built-in default; neither X nor Default has a material entry), \
             Y roughness 0.5 (built-in default; neither Y nor Default has a material entry))"
        ),
        "{}",
        builtin[0]
    );
}

#[test]
fn entry_explanation_names_the_key_of_each_number() {
    let t = table(
        "contact_materials:\n  - materials: [A, B]\n    friction: 0.3\n    static_friction: 0.4\n",
        "c.yaml",
    );
    assert_eq!(
        t.contact("B", "A").explain(),
        [
            "static friction 0.4 = `static_friction` at c.yaml:4:5 (contact material [A, B] at c.yaml:2:5)",
            "dynamic friction 0.3 = `friction` at c.yaml:3:5 (contact material [A, B] at c.yaml:2:5)",
            "restitution 0.0: not given, default (contact material [A, B] at c.yaml:2:5)",
        ]
    );
}

#[test]
fn pair_json_has_the_source() {
    let t = default_table();
    let entry = tribo_material::pair_json("Ball", "Ground", &t.contact("Ball", "Ground"));
    assert_eq!(entry["pair"], serde_json::json!(["Ball", "Ground"]));
    assert_eq!(entry["restitution"], 0.8);
    assert_eq!(entry["source"]["kind"], "entry");
    assert_eq!(entry["source"]["file"], "${SHARE}/default/materials.yaml");
    assert_eq!(entry["source"]["line"], 89);
    assert_eq!(entry["source"]["materials"], serde_json::json!(["Ground", "Ball"]));
    assert_eq!(entry["extras"]["youngsModulus"], 1.0e8);

    let fallback = t.contact("Ball", "Ball").to_json();
    assert_eq!(fallback["source"]["kind"], "fallback");
    assert_eq!(fallback["source"]["inputs"][0]["material"], "Ball");
    assert_eq!(fallback["source"]["inputs"][0]["viscosity"], 0.36);
    assert_eq!(fallback["source"]["inputs"][0]["stand_in"], "own");
    assert_eq!(fallback["source"]["inputs"][0]["viscosity_from"]["line"], 14);
    // serde::Serialize gives the same document.
    assert_eq!(
        serde_json::to_value(t.contact("Ball", "Ball")).expect("serialize"),
        fallback
    );
}

#[test]
fn table_json_lists_fields_extras_and_sources() {
    let json = serde_json::to_value(default_table()).expect("serialize");
    let materials = json["materials"].as_array().expect("list");
    assert_eq!(materials.len(), 17);
    let tracks = materials
        .iter()
        .find(|m| m["name"] == "TankTracks")
        .expect("TankTracks");
    assert_eq!(tracks["stiffness"], 100000.0);
    assert_eq!(tracks["extras"]["youngs_modulus"], 1e10);
    let pairs = json["contact_materials"].as_array().expect("list");
    assert_eq!(pairs.len(), 18);
    let tank = pairs
        .iter()
        .find(|p| p["pair"] == serde_json::json!(["Ground", "TankTracks"]))
        .expect("pair");
    assert_eq!(tank["extras"]["primary_direction"], serde_json::json!([1, 0, 0]));
    assert_eq!(tank["extras"]["reference_link"], "CHASSIS");
    assert_eq!(tank["source"]["line"], 126);
}

#[test]
fn text_renderings() {
    let t = default_table();
    let text = tribo_material::render::table_text(&t);
    assert!(text.starts_with("materials (17)\n  name "), "{text}");
    assert!(text.contains("\ncontact materials (18 pairs)\n"), "{text}");
    let pair = tribo_material::render::pair_text("Ball", "Ball", &t.contact("Ball", "Ball"));
    assert!(
        pair.starts_with("Ball · Ball: static friction 0.5, dynamic friction 0.5, restitution 0.64"),
        "{pair}"
    );
    assert_eq!(pair.lines().count(), 4);
}
