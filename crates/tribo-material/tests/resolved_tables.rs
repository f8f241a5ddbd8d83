//! Snapshots of every resolved pair among a table's materials, and of the table listing.

mod common;

use common::{default_and_slippy, default_table};
use tribo_material::render::{resolved_pairs_text, table_text};

#[test]
fn default_table_resolved_pairs() {
    let t = default_table();
    insta::assert_snapshot!("default_resolved_pairs", resolved_pairs_text(&t, &t.known_names()));
}

#[test]
fn default_and_slippy_resolved_pairs() {
    let t = default_and_slippy();
    insta::assert_snapshot!(
        "default_and_slippy_resolved_pairs",
        resolved_pairs_text(&t, &t.known_names())
    );
}

#[test]
fn default_and_slippy_listing() {
    insta::assert_snapshot!("default_and_slippy_listing", table_text(&default_and_slippy()));
}
