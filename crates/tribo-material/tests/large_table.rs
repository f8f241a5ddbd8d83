//! A generated table of 20 000 contact materials (about 2 MB), loaded and listed in the normal test
//! run. Reading is linear in the entries (pairs are found through an index, mappings are built
//! with a hash index beyond a few keys, the tree is consumed as the table fills), so this takes a
//! fraction of a second; the `big_table` example measures 50 MB tables.

use tribo_material::{render, MaterialTable};

/// `names` materials, then `entries` contact materials over distinct pairs (self pairs included),
/// then `redefined` of those pairs again with another friction.
fn generated(names: usize, entries: usize, redefined: usize) -> String {
    let mut text = String::from("materials:\n");
    for i in 0..names {
        text += &format!("  - {{ name: Mat{i:04}, roughness: 0.{:03} }}\n", i % 1000);
    }
    text += "contact_materials:\n";
    for (i, j) in pairs(names).take(entries) {
        text += &format!(
            "  - materials: [Mat{i:04}, Mat{j:04}]\n    friction: 0.{:03}\n",
            (i + j) % 1000
        );
        text += "    restitution: 0.25\n    cullingDistance: 0.01\n";
    }
    for (i, j) in pairs(names).take(redefined) {
        text += &format!("  - {{ materials: [Mat{j:04}, Mat{i:04}], friction: 1.5 }}\n");
    }
    text
}

/// Every (i, j) with i ≤ j < names, in the order the generator writes them.
fn pairs(names: usize) -> impl Iterator<Item = (usize, usize)> + Clone {
    (0..names).flat_map(move |i| (i..names).map(move |j| (i, j)))
}

#[test]
fn a_large_generated_table_loads_and_lists_every_pair() {
    let (names, entries, redefined) = (200, 20_000, 500);
    let text = generated(names, entries, redefined);
    assert!(text.len() > 1_500_000, "{} bytes", text.len());

    let loaded = MaterialTable::parse_str(&text, "big.yaml").expect("table");
    let table = &loaded.table;
    assert_eq!(table.materials().len(), names);
    assert_eq!(table.pairs().len(), entries, "redefinitions replace, they do not add");
    assert_eq!(loaded.warnings.len(), redefined, "one warning per redefined pair");
    assert!(loaded.warnings[0]
        .message
        .contains("[Mat0000, Mat0000] is defined again"));

    let first = table.pair_entry("Mat0000", "Mat0001").expect("an early pair");
    assert_eq!(first.contact.static_friction, 1.5, "the redefinition wins");
    let last = table.pairs().last().expect("pairs");
    let (i, j) = pairs(names).nth(entries - 1).expect("the last generated pair");
    assert_eq!(last.names, [format!("Mat{i:04}"), format!("Mat{j:04}")]);
    let expected = ((i + j) % 1000) as f64 / 1000.0;
    assert!((last.contact.static_friction - expected).abs() <= 1e-12, "{expected}");
    assert_eq!(last.contact.extras.f64("cullingDistance").expect("number"), Some(0.01));

    let listing = render::table_text(table);
    assert_eq!(listing.lines().count(), 2 + names + 2 + entries + 1);
}
