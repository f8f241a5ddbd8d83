//! Every file of `tests/malformed/` is refused with a located error (snapshot: file → message).

use std::fs;
use std::path::PathBuf;

#[test]
fn malformed_corpus_gives_located_errors() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("malformed");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("corpus dir")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert!(files.len() >= 14, "the corpus has {} files", files.len());
    let mut report = String::new();
    for path in &files {
        let name = path.file_name().and_then(|n| n.to_str()).expect("utf-8 file name");
        let text = fs::read_to_string(path).expect("readable");
        let lines = text.split('\n').count();
        let err = match path.extension().and_then(|e| e.to_str()) {
            Some("body") => tribo_model::parse_body(&text, name).err(),
            Some("seq") => tribo_model::parse_motion(&text, name).err(),
            _ => continue,
        };
        let err = err.unwrap_or_else(|| unreachable!("{name} should be refused"));
        assert!(err.is_error(), "{err}");
        assert_eq!(err.location.file.as_ref(), name);
        assert!(err.location.line >= 1 && err.location.line <= lines, "{name}: {err}");
        assert!(err.location.col >= 1, "{name}: {err}");
        report.push_str(&format!("{err}\n"));
    }
    insta::assert_snapshot!("malformed", report);
}
