//! Every file in `tests/malformed/` is rejected with a located error; the messages are snapshotted.

use std::path::Path;

use tribo_material::MaterialTable;

#[test]
fn every_malformed_file_gives_a_located_error() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/malformed");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/malformed exists")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "the corpus has {} files", files.len());

    let mut report = String::new();
    for path in &files {
        let file_name = path.file_name().and_then(|n| n.to_str()).expect("utf-8 name");
        let shown = format!("malformed/{file_name}");
        let text = std::fs::read_to_string(path).expect("readable");
        let err = MaterialTable::parse_str(&text, &shown).expect_err(&shown);
        assert!(err.is_error(), "{err}");
        assert_eq!(&*err.location.file, shown.as_str());
        let lines = text.lines().count().max(1);
        assert!(
            (1..=lines + 1).contains(&err.location.line),
            "{shown}: line {} of {lines}",
            err.location.line
        );
        assert!(err.location.col >= 1, "{err}");
        report += &format!("{file_name}\n  → {err}\n");
    }
    insta::assert_snapshot!("malformed", report);
}
