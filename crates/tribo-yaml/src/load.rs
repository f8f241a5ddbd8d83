//! Building the located tree from yaml-rust2's marked event stream.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use crate::{Error, Location, Map, MapEntry, Node, Value};

/// Read and parse a YAML file. The file name in locations is the path as given.
pub fn parse_file(path: &Path) -> Result<Node, Error> {
    let name: Arc<str> = path.display().to_string().into();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::error(Location::file(Arc::clone(&name)), format!("cannot read file: {e}")))?;
    parse_named(&text, name)
}

/// Parse YAML text; `file` names it in locations. An empty document is a `Null` node.
pub fn parse_str(text: &str, file: &str) -> Result<Node, Error> {
    parse_named(text, file.into())
}

fn parse_named(text: &str, file: Arc<str>) -> Result<Node, Error> {
    let mut builder = TreeBuilder::new(Arc::clone(&file));
    let mut parser = Parser::new_from_str(text);
    if let Err(e) = parser.load(&mut builder, false) {
        let m = e.marker();
        return Err(Error::error(
            Location::new(&file, m.line(), m.col() + 1),
            syntax_message(e.info()),
        ));
    }
    if let Some(err) = builder.error {
        return Err(err);
    }
    Ok(builder.root.unwrap_or(Node {
        value: Value::Null,
        location: Location::new(&file, 1, 1),
    }))
}

fn syntax_message(info: &str) -> String {
    format!("invalid YAML: {info}")
}

enum Frame {
    Seq {
        items: Vec<Node>,
        location: Location,
        anchor: usize,
    },
    Map {
        pairs: Vec<(Node, Node)>,
        key: Option<Node>,
        location: Location,
        anchor: usize,
    },
}

struct TreeBuilder {
    file: Arc<str>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Node>,
    root: Option<Node>,
    error: Option<Error>,
}

impl TreeBuilder {
    fn new(file: Arc<str>) -> Self {
        TreeBuilder {
            file,
            stack: Vec::new(),
            anchors: HashMap::new(),
            root: None,
            error: None,
        }
    }

    fn location(&self, mark: Marker) -> Location {
        Location::new(&self.file, mark.line(), mark.col() + 1)
    }

    fn fail(&mut self, err: Error) {
        if self.error.is_none() {
            self.error = Some(err);
        }
    }

    /// A finished node goes to its parent (or becomes the document root) and, if anchored, is
    /// remembered for later aliases.
    fn finish(&mut self, node: Node, anchor: usize) {
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { pairs, key, .. }) => match key.take() {
                None => *key = Some(node),
                Some(k) => pairs.push((k, node)),
            },
        }
    }

    fn close_map(&mut self, pairs: Vec<(Node, Node)>, mut location: Location) -> Node {
        // yaml-rust2 marks a block mapping where its first `:` is; the mapping starts at its first
        // key (a flow mapping's `{` already comes first).
        if let Some((first_key, _)) = pairs.first() {
            let k = &first_key.location;
            if (k.line, k.col) < (location.line, location.col) {
                location = k.clone();
            }
        }
        let mut map = Map::default();
        let mut merges = Vec::new();
        for (key, value) in pairs {
            let text = match &key.value {
                Value::Scalar { text, quoted } => {
                    if text == "<<" && !quoted {
                        merges.push(value);
                        continue;
                    }
                    text.clone()
                }
                Value::Null => String::new(),
                _ => {
                    self.fail(key.error(format!("mapping keys must be text, found {}", key.kind_name())));
                    continue;
                }
            };
            map.set(MapEntry {
                key: text,
                key_location: key.location,
                value,
            });
        }
        // `<<` merge (choreonoid-formats.md §0): explicit keys win; earlier sources win over later.
        for source in merges {
            match source.value {
                Value::Map(m) => m.entries.into_iter().for_each(|e| map.set_if_absent(e)),
                Value::Seq(items) => {
                    for item in items {
                        match item.value {
                            Value::Map(m) => m.entries.into_iter().for_each(|e| map.set_if_absent(e)),
                            _ => self.fail(item.error(format!(
                                "a `<<` merge list must hold mappings, found {}",
                                item.kind_name()
                            ))),
                        }
                    }
                }
                _ => self.fail(source.error(format!(
                    "a `<<` merge key needs a mapping or a list of mappings, found {}",
                    source.kind_name()
                ))),
            }
        }
        Node {
            value: Value::Map(map),
            location,
        }
    }
}

impl MarkedEventReceiver for TreeBuilder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let location = self.location(mark);
        match ev {
            Event::Scalar(text, style, anchor, _tag) => {
                let quoted = !matches!(style, TScalarStyle::Plain);
                let is_null = !quoted && matches!(text.as_str(), "" | "~" | "null" | "Null" | "NULL");
                let value = if is_null {
                    Value::Null
                } else {
                    Value::Scalar { text, quoted }
                };
                self.finish(Node { value, location }, anchor);
            }
            Event::Alias(id) => {
                // yaml-rust2 rejects aliases of unknown anchors itself; an anchor that is still
                // open (a mapping aliasing its own anchor) is not yet in the table.
                match self.anchors.get(&id).cloned() {
                    Some(node) => self.finish(node, 0),
                    None => {
                        self.fail(Error::error(
                            location.clone(),
                            "an alias refers to an anchor that is not complete here (recursive alias?)",
                        ));
                        self.finish(
                            Node {
                                value: Value::Null,
                                location,
                            },
                            0,
                        );
                    }
                }
            }
            Event::SequenceStart(anchor, _) => {
                self.stack.push(Frame::Seq {
                    items: Vec::new(),
                    location,
                    anchor,
                });
            }
            Event::MappingStart(anchor, _) => {
                self.stack.push(Frame::Map {
                    pairs: Vec::new(),
                    key: None,
                    location,
                    anchor,
                });
            }
            Event::SequenceEnd => {
                if let Some(Frame::Seq {
                    items,
                    location,
                    anchor,
                }) = self.stack.pop()
                {
                    self.finish(
                        Node {
                            value: Value::Seq(items),
                            location,
                        },
                        anchor,
                    );
                }
            }
            Event::MappingEnd => {
                if let Some(Frame::Map {
                    pairs,
                    location,
                    anchor,
                    ..
                }) = self.stack.pop()
                {
                    let node = self.close_map(pairs, location);
                    self.finish(node, anchor);
                }
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentStart | Event::DocumentEnd | Event::Nothing => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
