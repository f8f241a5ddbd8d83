//! Reading YAML text into a located tree: the entry points.

use std::path::Path;
use std::sync::Arc;

use yaml_rust2::parser::Parser;

use crate::builder::TreeBuilder;
use crate::flow_indent;
use crate::{Diagnostic, Error, Location, Node, Value};

/// A parsed file: its tree and the warnings reading it gave (duplicate keys: the last one wins,
/// as in Choreonoid, but a silently dropped value is usually a mistake).
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub root: Node,
    pub warnings: Vec<Diagnostic>,
}

/// Read and parse a YAML file. The file name in locations is the path as given. Warnings are
/// dropped; [`parse_file_with_warnings`] keeps them.
pub fn parse_file(path: &Path) -> Result<Node, Error> {
    parse_file_with_warnings(path).map(|doc| doc.root)
}

/// Parse YAML text; `file` names it in locations. An empty document is a `Null` node. Warnings
/// are dropped; [`parse_str_with_warnings`] keeps them.
pub fn parse_str(text: &str, file: &str) -> Result<Node, Error> {
    parse_str_with_warnings(text, file).map(|doc| doc.root)
}

/// [`parse_file`], with the warnings.
pub fn parse_file_with_warnings(path: &Path) -> Result<Document, Error> {
    let name: Arc<str> = path.display().to_string().into();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::error(Location::file(Arc::clone(&name)), format!("cannot read file: {e}")))?;
    parse_named(&text, name)
}

/// [`parse_str`], with the warnings.
pub fn parse_str_with_warnings(text: &str, file: &str) -> Result<Document, Error> {
    parse_named(text, file.into())
}

/// The parse itself. A UTF-8 byte order mark, which some editors write at the start of a file,
/// is not part of the document (YAML 1.2 §5.2); columns on the first line do not count it.
///
/// Flow collections whose continuation lines are indented less than YAML 1.2 allows, which
/// libyaml (Choreonoid's reader) accepts, are read too, with a warning (flow_indent.rs).
fn parse_named(text: &str, file: Arc<str>) -> Result<Document, Error> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let strict = parse_text(TreeBuilder::new(text, Arc::clone(&file)), text, &file);
    let Err(error) = strict else { return strict };
    if !error.message.starts_with(&syntax_message("invalid indentation")) {
        return Err(error);
    }
    let Some(relaxed) = flow_indent::relax(text) else {
        return Err(error);
    };
    let builder = TreeBuilder::with_columns_added(text, Arc::clone(&file), relaxed.added);
    let mut document = parse_text(builder, &relaxed.text, &file).map_err(|_| error)?;
    for line in relaxed.first_lines {
        document.warnings.push(Diagnostic::warning(
            Location::new(&file, line, 1),
            "the lines of this flow collection are indented no more than the block it belongs to; YAML 1.2 \
             wants at least one column more, and it is read as libyaml (Choreonoid's reader) reads it",
        ));
    }
    Ok(document)
}

/// `text` through `builder`, whose locations name `file`.
fn parse_text(mut builder: TreeBuilder, text: &str, file: &Arc<str>) -> Result<Document, Error> {
    let mut parser = Parser::new_from_str(text);
    if let Err(e) = parser.load(&mut builder, false) {
        let m = e.marker();
        return Err(Error::error(builder.location_of(*m), syntax_message(e.info())));
    }
    if let Some(err) = builder.error {
        return Err(err);
    }
    let root = builder.root.unwrap_or(Node {
        value: Value::Null,
        location: Location::new(file, 1, 1),
    });
    Ok(Document {
        root,
        warnings: builder.warnings,
    })
}

fn syntax_message(info: &str) -> String {
    format!("invalid YAML: {info}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Map, Severity, ALIAS_NODES_FLOOR};

    fn map(node: &Node) -> &Map {
        node.as_map().expect("mapping")
    }

    #[test]
    fn locations_are_one_based() {
        let doc = parse_str("a: 1\nb:\n  c: [1, x]\n", "t.yaml").expect("parse");
        let b = map(&doc).get("b").expect("b");
        let c = map(b).get("c").expect("c");
        let x = &c.as_seq().expect("seq")[1];
        assert_eq!((x.location.line, x.location.col), (3, 10));
        let err = x.as_f64().expect_err("not a number");
        assert_eq!(err.to_string(), "t.yaml:3:10: expected a number, found `x`");
    }

    #[test]
    fn block_mappings_start_at_their_first_key() {
        let doc = parse_str("items:\n  - name: a\n    x: 1\n", "b.yaml").expect("parse");
        assert_eq!((doc.location.line, doc.location.col), (1, 1));
        let item = &map(&doc).get("items").expect("items").as_seq().expect("seq")[0];
        assert_eq!((item.location.line, item.location.col), (2, 5));
    }

    #[test]
    fn syntax_errors_are_located() {
        let err = parse_str("a: [1, 2\nb: 3\n", "bad.yaml").expect_err("unclosed list");
        assert!(err.to_string().starts_with("bad.yaml:"), "{err}");
        assert!(err.location.line >= 1);
    }

    #[test]
    fn anchors_aliases_and_merge_keys() {
        let text = "base: &B {x: 1, y: 2}\nother: &O {y: 20, z: 30}\nd:\n  <<: [*B, *O]\n  x: 10\ne: *B\n";
        let doc = parse_str(text, "m.yaml").expect("parse");
        let d = map(map(&doc).get("d").expect("d"));
        assert_eq!(d.get("x").and_then(|n| n.as_f64().ok()), Some(10.0), "explicit wins");
        assert_eq!(
            d.get("y").and_then(|n| n.as_f64().ok()),
            Some(2.0),
            "earlier source wins"
        );
        assert_eq!(d.get("z").and_then(|n| n.as_f64().ok()), Some(30.0));
        assert!(!d.contains("<<"));
        let e = map(map(&doc).get("e").expect("e"));
        assert_eq!(e.len(), 2);
    }

    #[test]
    fn explicit_key_before_merge_still_wins() {
        let doc = parse_str("b: &B {x: 1}\nd: {x: 5, <<: *B}\n", "m.yaml").expect("parse");
        let d = map(map(&doc).get("d").expect("d"));
        assert_eq!(d.get("x").and_then(|n| n.as_f64().ok()), Some(5.0));
    }

    #[test]
    fn unknown_alias_is_an_error() {
        let err = parse_str("a: *nothing\n", "a.yaml").expect_err("unknown alias");
        assert!(err.to_string().starts_with("a.yaml:1:"), "{err}");
    }

    #[test]
    fn duplicate_keys_last_wins() {
        let doc = parse_str("a: 1\na: 2\n", "d.yaml").expect("parse");
        assert_eq!(map(&doc).get("a").and_then(|n| n.as_f64().ok()), Some(2.0));
        assert_eq!(map(&doc).len(), 1);
    }

    #[test]
    fn bad_merge_value() {
        let err = parse_str("a: {<<: 3}\n", "m.yaml").expect_err("bad merge");
        assert!(err.message.contains("merge"), "{err}");
    }

    #[test]
    fn null_and_empty_documents() {
        assert!(parse_str("", "e.yaml").expect("parse").is_null());
        let doc = parse_str("a:\nb: ~\n", "n.yaml").expect("parse");
        assert!(map(&doc).get("a").expect("a").is_null());
        assert!(map(&doc).get("b").expect("b").is_null());
    }

    #[test]
    fn numbers_and_booleans() {
        let doc = parse_str("[1e10, 200e9, .inf, -3, 0.5x, on, 'No']", "n.yaml").expect("parse");
        let items = doc.as_seq().expect("seq");
        assert_eq!(items[0].as_f64().ok(), Some(1e10));
        assert_eq!(items[1].as_f64().ok(), Some(200e9));
        assert_eq!(items[2].as_f64().ok(), Some(f64::INFINITY));
        assert_eq!(items[3].as_i64().ok(), Some(-3));
        assert!(items[4].as_f64().is_err());
        assert_eq!(items[5].as_bool().ok(), Some(true));
        assert_eq!(items[6].as_bool().ok(), Some(false));
        assert!(items[0].as_bool().is_err());
    }

    #[test]
    fn non_finite_numbers_have_one_message() {
        let doc = parse_str("[.inf, -.inf, .nan, 1e400, 2]", "n.yaml").expect("parse");
        let items = doc.as_seq().expect("seq");
        let messages: Vec<String> = items[..4]
            .iter()
            .map(|n| n.as_finite().expect_err("not finite").to_string())
            .collect();
        assert_eq!(
            messages,
            [
                "n.yaml:1:2: expected a finite number, found `.inf`",
                "n.yaml:1:8: expected a finite number, found `-.inf`",
                "n.yaml:1:15: expected a finite number, found `.nan`",
                "n.yaml:1:21: expected a finite number, found `1e400`",
            ]
        );
        assert!(items[..4].iter().all(Node::is_non_finite_number));
        assert_eq!(items[4].as_finite().ok(), Some(2.0));
        assert!(!items[4].is_non_finite_number());
        let err = doc.as_vec3().expect_err("not three numbers");
        assert!(err.message.contains("a list of 3 numbers"), "{err}");
    }

    /// The classic "billion laughs": nine levels of ten aliases each, under half a kilobyte of
    /// text that would expand to 10⁹ nodes.
    fn billion_laughs() -> String {
        let mut text = format!("a: &a [{}]\n", ["lol"; 10].join(", "));
        for (prev, name) in "abcdefgh".chars().zip("bcdefghi".chars()) {
            text += &format!("{name}: &{name} [{}]\n", vec![format!("*{prev}"); 10].join(", "));
        }
        text
    }

    #[test]
    fn alias_bombs_are_refused_at_the_alias_that_crosses_the_limit() {
        let text = billion_laughs();
        assert!(text.len() < 1_500, "{} bytes", text.len());
        let err = parse_str(&text, "bomb.yaml").expect_err("an alias bomb is refused");
        // Before line 5, anchors keep 11 + 111 + 1111 + 11111 nodes and aliases copy 110 + 1110 +
        // 11110; each `*d` copies 11111 more, and the seventh on line 5 (`e: &e [*d, *d, …`,
        // column 8 + 4·6) crosses 100000.
        assert_eq!(err.to_string().split(": ").next(), Some("bomb.yaml:5:32"), "{err}");
        assert!(err.message.starts_with("the alias `*d` copies 11111 nodes"), "{err}");
        assert!(
            err.message.contains(&format!("past the limit of {ALIAS_NODES_FLOOR}")),
            "{err}"
        );
        assert!(err.message.contains("billion laughs"), "{err}");
    }

    #[test]
    fn anchors_nested_in_anchors_count_their_copies() {
        // No alias at all: 100 anchored lists, each holding the next and, innermost, 5000
        // scalars. Each anchor keeps a copy of its whole subtree: 100 × 5000 nodes.
        let inner = vec!["x"; 5_000].join(", ");
        let open: String = (0..100).map(|i| format!("&a{i} [")).collect();
        let text = format!("{open}{inner}{}\n", "]".repeat(100));
        let err = parse_str(&text, "nest.yaml").expect_err("refused");
        assert!(err.message.starts_with("this anchored node"), "{err}");
        assert!(
            err.message
                .contains("past the limit of 326400 (64 × the 5100 nodes written so far"),
            "{err}"
        );
    }

    /// The shape of Choreonoid's WRS2018 terrain bodies: one anchored shape merged into every
    /// item of 24 anchored lists of 40 items, each list aliased once more under `links`. Its
    /// anchors and aliases copy about 16 nodes per node written (a 10× bound refuses it).
    fn terrain_like() -> String {
        let coordinates = vec!["0.2"; 24].join(", ");
        let indices = vec!["1"; 30].join(", ");
        let mut text = format!(
            "BLOCK: &BLOCK\n  type: Shape\n  geometry:\n    type: IndexedFaceSet\n    \
             coordinate: [{coordinates}]\n    coordIndex: [{indices}]\n"
        );
        for line in 0..24 {
            text += &format!("LINE{line}: &LINE{line}\n");
            for item in 0..40 {
                text += &format!("  - <<: *BLOCK\n    rotation: [0, 0, 1, 90]\n    translation: [{item}, {line}, 0]\n");
            }
        }
        text += "links:\n";
        for line in 0..24 {
            text += &format!("  - name: L{line}\n    elements: *LINE{line}\n");
        }
        text
    }

    fn count_nodes(node: &Node) -> usize {
        1 + match &node.value {
            Value::Seq(items) => items.iter().map(count_nodes).sum(),
            Value::Map(map) => map.entries.iter().map(|e| count_nodes(&e.value)).sum(),
            _ => 0,
        }
    }

    #[test]
    fn files_that_merge_and_alias_in_two_levels_are_read() {
        let text = terrain_like();
        let doc = parse_str(&text, "terrain.body").expect("a terrain-like file is read");
        let links = map(&doc).get("links").expect("links").as_seq().expect("list");
        assert_eq!(links.len(), 24);
        let last = map(&links[23])
            .get("elements")
            .expect("elements")
            .as_seq()
            .expect("list");
        assert_eq!(last.len(), 40);
        let item = map(&last[39]);
        assert!(
            item.contains("geometry") && !item.contains("<<"),
            "the merged shape is copied"
        );
        // More nodes than the floor: the limit that lets this file through is the one that grows
        // with the document.
        let total = count_nodes(&doc);
        assert!(total > ALIAS_NODES_FLOOR, "{total} nodes");
    }

    #[test]
    fn flow_lines_indented_as_libyaml_allows_are_read_with_a_warning() {
        // Choreonoid's RIC30.body: a top-level flow list whose lines start at column 1.
        let text = "name: RIC30\nstandardPose: [\n0, 0,  20,\n 20, -10,\n-20,  10 ]\nafter: 1\n";
        let doc = parse_str_with_warnings(text, "ric.body").expect("read as libyaml reads it");
        let pose = map(&doc.root)
            .get("standardPose")
            .expect("pose")
            .as_seq()
            .expect("list");
        let values: Vec<f64> = pose.iter().map(|n| n.as_f64().expect("number")).collect();
        assert_eq!(values, [0.0, 0.0, 20.0, 20.0, -10.0, -20.0, 10.0]);
        // Locations are those of the text as written.
        assert_eq!((pose[2].location.line, pose[2].location.col), (3, 8));
        assert_eq!((pose[3].location.line, pose[3].location.col), (4, 2));
        assert_eq!((pose[5].location.line, pose[5].location.col), (5, 1));
        let after = map(&doc.root).entry("after").expect("after");
        assert_eq!((after.key_location.line, after.key_location.col), (6, 1));
        assert_eq!(doc.warnings.len(), 1, "{:?}", doc.warnings);
        assert!(
            doc.warnings[0]
                .to_string()
                .starts_with("ric.body:3:1: warning: the lines of this flow collection"),
            "{}",
            doc.warnings[0]
        );
        // Other indentation errors keep the strict reader's message.
        let err = parse_str("a:\n  b: 1\n c: 2\n", "bad.yaml").expect_err("a block mapping out of line");
        assert_eq!(err.to_string().split(": invalid").next(), Some("bad.yaml:3:3"), "{err}");
    }

    #[test]
    fn aliases_within_the_budget_are_copied() {
        // Four levels of ten (anchors keep 12344 nodes, aliases copy 12330) stay within the floor.
        let text: String = billion_laughs().lines().take(4).map(|l| format!("{l}\n")).collect();
        let doc = parse_str(&text, "ok.yaml").expect("within the budget");
        let d = map(&doc).get("d").expect("d").as_seq().expect("seq");
        assert_eq!(d.len(), 10);
        assert_eq!(d[9].as_seq().map(<[Node]>::len).ok(), Some(10));
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_key() {
        let doc = parse_str("\u{feff}friction: 0.5\n", "bom.yaml").expect("parse");
        let entry = map(&doc).entry("friction").expect("the key without the mark");
        assert_eq!((entry.key_location.line, entry.key_location.col), (1, 1));

        let path = std::env::temp_dir().join(format!("tribo-yaml-bom-{}.yaml", std::process::id()));
        std::fs::write(&path, "\u{feff}materials: [A]\n").expect("write a temporary file");
        let doc = parse_file(&path);
        std::fs::remove_file(&path).expect("remove the temporary file");
        assert!(map(&doc.expect("parse")).contains("materials"));
    }

    #[test]
    fn duplicate_keys_warn_and_the_last_one_wins() {
        let text = "a:\n    friction: 0.3\n    friction: 0.4\nb: &B {x: 1, x: 2}\nc: *B\nd: *B\n";
        let doc = parse_str_with_warnings(text, "f.yaml").expect("parse");
        let a = map(map(&doc.root).get("a").expect("a"));
        assert_eq!(a.get("friction").and_then(|n| n.as_f64().ok()), Some(0.4));
        let messages: Vec<String> = doc.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [
                "f.yaml:3:5: warning: duplicate key `friction` overrides the one at line 2; the last one wins",
                "f.yaml:4:14: warning: duplicate key `x` overrides the one at line 4, column 8; the last one wins",
            ],
            "one warning per mapping as written, however often it is aliased"
        );
        assert!(doc.warnings.iter().all(|w| w.severity == Severity::Warning));
        assert!(
            parse_str_with_warnings("a: 1\nb: {<<: {a: 2}, a: 3}\n", "m.yaml")
                .expect("parse")
                .warnings
                .is_empty(),
            "a key that replaces a merged one is not a duplicate"
        );
    }

    #[test]
    fn large_mappings_build_in_linear_time() {
        // 100000 keys and a duplicate of each: a linear search per key would make ~10¹⁰ key
        // comparisons; the hash index makes 2·10⁵ lookups.
        let n = 100_000;
        let mut text = String::new();
        for pass in 0..2 {
            for i in 0..n {
                text += &format!("k{i}: {pass}\n");
            }
        }
        let doc = parse_str_with_warnings(&text, "big.yaml").expect("parse");
        let m = map(&doc.root);
        assert_eq!(m.len(), n);
        assert_eq!(doc.warnings.len(), n);
        assert_eq!(m.entries[0].key, "k0", "keys keep their first place");
        assert_eq!(
            m.get("k99999").and_then(|v| v.as_i64().ok()),
            Some(1),
            "the last value wins"
        );
    }
}
