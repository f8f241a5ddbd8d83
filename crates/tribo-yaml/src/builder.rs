//! Building the located tree from yaml-rust2's marked event stream.

use std::collections::HashMap;
use std::sync::Arc;

use yaml_rust2::parser::{Event, MarkedEventReceiver};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use crate::alias_budget::{alias_name_at, AliasBudget};
use crate::map_builder::MapBuilder;
use crate::{Diagnostic, Error, Location, MapEntry, Node, Value};

/// A list or mapping whose end has not been read yet. `size` counts the nodes of its subtree so
/// far (itself included), so an anchor knows how many nodes each of its aliases copies.
enum Frame {
    Seq {
        items: Vec<Node>,
        location: Location,
        anchor: usize,
        size: usize,
    },
    Map {
        pairs: Vec<(Node, Node)>,
        key: Option<Node>,
        location: Location,
        anchor: usize,
        size: usize,
    },
}

/// An anchored node and the number of nodes in it.
struct Anchored {
    node: Node,
    size: usize,
}

/// Receives the parser's events and builds the tree: anchors, aliases (within an [`AliasBudget`]),
/// `<<` merges, duplicate keys (last wins, with a warning).
pub(crate) struct TreeBuilder<'t> {
    text: &'t str,
    file: Arc<str>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Anchored>,
    budget: AliasBudget,
    pub root: Option<Node>,
    pub error: Option<Error>,
    pub warnings: Vec<Diagnostic>,
    /// Spaces added at the start of each line (0-based) before parsing (flow_indent.rs): the
    /// columns of locations are given back as written.
    columns_added: Vec<usize>,
}

impl<'t> TreeBuilder<'t> {
    pub fn new(text: &'t str, file: Arc<str>) -> Self {
        TreeBuilder {
            text,
            file,
            stack: Vec::new(),
            anchors: HashMap::new(),
            budget: AliasBudget::default(),
            root: None,
            error: None,
            warnings: Vec::new(),
            columns_added: Vec::new(),
        }
    }

    /// A builder for a text that was parsed with `columns_added[i]` spaces put before line i;
    /// `text` is the text as written.
    pub fn with_columns_added(text: &'t str, file: Arc<str>, columns_added: Vec<usize>) -> Self {
        TreeBuilder {
            columns_added,
            ..TreeBuilder::new(text, file)
        }
    }

    /// Where `mark` is in the text as written.
    pub fn location_of(&self, mark: Marker) -> Location {
        self.location(mark)
    }

    fn location(&self, mark: Marker) -> Location {
        let added = mark
            .line()
            .checked_sub(1)
            .and_then(|i| self.columns_added.get(i))
            .copied()
            .unwrap_or(0);
        Location::new(&self.file, mark.line(), mark.col().saturating_sub(added) + 1)
    }

    fn fail(&mut self, err: Error) {
        if self.error.is_none() {
            self.error = Some(err);
        }
    }

    /// A finished node of `size` nodes goes to its parent (or becomes the document root) and, if
    /// anchored, is remembered for later aliases.
    fn finish(&mut self, node: Node, anchor: usize, size: usize) {
        if anchor != 0 {
            let copied = self.budget.expand(size, &node.location, || {
                "this anchored node (an anchor keeps a copy for its aliases)".to_string()
            });
            if let Err(err) = copied {
                self.fail(err);
                return;
            }
            self.anchors.insert(
                anchor,
                Anchored {
                    node: node.clone(),
                    size,
                },
            );
        }
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Frame::Seq { items, size: total, .. }) => {
                *total += size;
                items.push(node);
            }
            Some(Frame::Map {
                pairs,
                key,
                size: total,
                ..
            }) => {
                *total += size;
                match key.take() {
                    None => *key = Some(node),
                    Some(k) => pairs.push((k, node)),
                }
            }
        }
    }

    fn alias(&mut self, id: usize, location: Location) {
        // yaml-rust2 rejects aliases of unknown anchors itself; an anchor that is still open (a
        // mapping aliasing its own anchor) is not yet in the table.
        let Some(size) = self.anchors.get(&id).map(|a| a.size) else {
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
                1,
            );
            return;
        };
        let text = self.text;
        let what = || match alias_name_at(text, location.line, location.col) {
            Some(name) => format!("the alias `{name}`"),
            None => "this alias".to_string(),
        };
        if let Err(err) = self.budget.expand(size, &location, what) {
            self.fail(err);
            // Stand in with one node: the document is refused anyway, and copying would cost what
            // the budget is there to prevent.
            self.finish(
                Node {
                    value: Value::Null,
                    location,
                },
                0,
                1,
            );
            return;
        }
        if let Some(node) = self.anchors.get(&id).map(|a| a.node.clone()) {
            self.finish(node, 0, size);
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
        let mut map = MapBuilder::with_capacity(pairs.len());
        let mut merges = Vec::new();
        for (key, value) in pairs {
            let text = match key.value {
                Value::Scalar { text, quoted } => {
                    if text == "<<" && !quoted {
                        merges.push(value);
                        continue;
                    }
                    text
                }
                Value::Null => String::new(),
                _ => {
                    self.fail(key.error(format!("mapping keys must be text, found {}", key.kind_name())));
                    continue;
                }
            };
            let duplicate = map.set(MapEntry {
                key: text,
                key_location: key.location,
                value,
            });
            self.warnings.extend(duplicate);
        }
        // `<<` merge (docs/design/choreonoid-formats.md §0): explicit keys win; earlier sources win
        // over later.
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
            value: Value::Map(map.finish()),
            location,
        }
    }
}

impl MarkedEventReceiver for TreeBuilder<'_> {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        if self.error.is_some() {
            // The document is refused; building more of it only costs time and memory.
            return;
        }
        let location = self.location(mark);
        match ev {
            Event::Scalar(text, style, anchor, _tag) => {
                self.budget.written();
                let quoted = !matches!(style, TScalarStyle::Plain);
                let is_null = !quoted && matches!(text.as_str(), "" | "~" | "null" | "Null" | "NULL");
                let value = if is_null {
                    Value::Null
                } else {
                    Value::Scalar { text, quoted }
                };
                self.finish(Node { value, location }, anchor, 1);
            }
            Event::Alias(id) => {
                self.budget.written();
                self.alias(id, location);
            }
            Event::SequenceStart(anchor, _) => {
                self.budget.written();
                self.stack.push(Frame::Seq {
                    items: Vec::new(),
                    location,
                    anchor,
                    size: 1,
                });
            }
            Event::MappingStart(anchor, _) => {
                self.budget.written();
                self.stack.push(Frame::Map {
                    pairs: Vec::new(),
                    key: None,
                    location,
                    anchor,
                    size: 1,
                });
            }
            Event::SequenceEnd => {
                if let Some(Frame::Seq {
                    mut items,
                    location,
                    anchor,
                    size,
                }) = self.stack.pop()
                {
                    items.shrink_to_fit();
                    self.finish(
                        Node {
                            value: Value::Seq(items),
                            location,
                        },
                        anchor,
                        size,
                    );
                }
            }
            Event::MappingEnd => {
                if let Some(Frame::Map {
                    pairs,
                    location,
                    anchor,
                    size,
                    ..
                }) = self.stack.pop()
                {
                    let node = self.close_map(pairs, location);
                    self.finish(node, anchor, size);
                }
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentStart | Event::DocumentEnd | Event::Nothing => {}
        }
    }
}
