//! Shared inputs for the integration tests.
#![allow(dead_code)]

use tribo_material::{Loaded, MaterialTable};

/// Choreonoid's `sample/SimpleController/SlippyMaterialSet.yaml`.
pub const SLIPPY: &str = include_str!("../choreonoid/SlippyMaterialSet.yaml");
/// Choreonoid's `sample/CollisionHandler/materials.yaml` (camelCase `contactMaterials`).
pub const COLLISION_HANDLER: &str = include_str!("../choreonoid/CollisionHandler-materials.yaml");

pub fn default_table() -> MaterialTable {
    MaterialTable::builtin_default().expect("the built-in default table parses")
}

pub fn load(text: &str, file: &str) -> Loaded {
    MaterialTable::parse_str(text, file).expect("table parses")
}

pub fn table(text: &str, file: &str) -> MaterialTable {
    load(text, file).table
}

/// Default + SlippyMaterialSet, merged as WorldItem does.
pub fn default_and_slippy() -> MaterialTable {
    MaterialTable::merged(&default_table(), [&table(SLIPPY, "SlippyMaterialSet.yaml")])
}

pub fn assert_close(actual: f64, expected: f64, tolerance: f64, what: &str) {
    assert!(
        (actual - expected).abs() <= tolerance,
        "{what}: {actual} vs {expected} (tolerance {tolerance})"
    );
}
