//! Files that are valid YAML but easy to get wrong: duplicate keys, a byte order mark, an alias
//! bomb, non-finite numbers. Read with `load_file`, as `tribo materials` and projects do.

use std::path::{Path, PathBuf};

use tribo_material::MaterialTable;

fn fixture(dir: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join(dir).join(name)
}

#[test]
fn duplicate_keys_warn_and_the_last_one_wins() {
    let path = fixture("hostile", "duplicate-keys.yaml");
    let loaded = MaterialTable::load_file(&path).expect("a duplicate key is not an error");
    let pair = loaded.table.pair_entry("Ground", "Ball").expect("the pair");
    assert_eq!(pair.contact.static_friction, 0.8, "the last `friction` wins");
    let messages: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [format!(
            "{}:4:5: warning: duplicate key `friction` overrides the one at line 3; the last one wins",
            path.display()
        )]
    );
}

#[test]
fn a_byte_order_mark_does_not_hide_the_first_key() {
    let loaded = MaterialTable::load_file(&fixture("hostile", "bom.yaml")).expect("table");
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    let ground = loaded.table.material("Ground").expect("`materials` was read");
    assert_eq!(ground.roughness, 0.4);
}

#[test]
fn an_alias_bomb_is_refused_at_the_alias() {
    let path = fixture("malformed", "alias-bomb.yaml");
    let err = MaterialTable::load_file(&path).expect_err("refused");
    assert_eq!((err.location.line, err.location.col), (6, 32), "{err}");
    assert!(err.message.contains("the alias `*d`"), "{err}");
    assert!(err.message.contains("billion laughs"), "{err}");
}

#[test]
fn non_finite_numbers_name_the_text_as_written() {
    let err = MaterialTable::load_file(&fixture("malformed", "restitution-nan.yaml")).expect_err("NaN");
    assert_eq!(err.message, "`restitution`: expected a finite number, found `.nan`");
    let err = MaterialTable::load_file(&fixture("malformed", "friction-infinite.yaml")).expect_err("inf");
    assert_eq!(err.message, "`friction`: expected a finite number, found `.inf`");
}
