//! A bound on the nodes that anchors and aliases copy into the tree.
//!
//! Every alias is a full copy of its anchor's subtree, so a small file whose anchors alias each
//! other in levels (`a: &a [x, x, …]`, `b: &b [*a, *a, …]`, … — "billion laughs") would expand to
//! billions of nodes. Like go-yaml and other careful YAML readers, the reader refuses a document
//! whose aliases produce too many nodes compared with the document itself. The copy an anchor
//! keeps for its aliases counts too: otherwise anchors nested in anchors (`[&a [&b [&c [x, …]]]]`)
//! would copy a large list once per level without a single alias.

use crate::{Error, Location};

/// Nodes anchors and aliases may always copy, whatever the size of the document.
pub const ALIAS_NODES_FLOOR: usize = 100_000;

/// Beyond the floor, anchors and aliases may copy this many nodes per node written in the file.
///
/// Legitimate files do copy many nodes per node written: Choreonoid's WRS2018 terrain bodies
/// (`TerrainC.body`, `TerrainD.body`) merge one anchored shape (`<<: *BLOCK`, 70 nodes) into
/// hundreds of list items, anchor those lists and alias each list again, about 15 copied nodes per
/// written node. 64 leaves them a fourfold margin while the copies stay linear in the size of the
/// text; an alias bomb grows geometrically with its levels and crosses any such bound within a
/// few levels.
pub const ALIAS_NODES_PER_WRITTEN_NODE: usize = 64;

/// Counts the nodes written in the text and the nodes copied for anchors and aliases.
///
/// The rule: when an alias is met (or an anchored node is complete), the nodes copied so far plus
/// the subtree it copies may not exceed `max(ALIAS_NODES_FLOOR, ALIAS_NODES_PER_WRITTEN_NODE ×
/// written)`, where `written` counts the scalars, lists, mappings and aliases read from the text up
/// to that point.
/// Ordinary files (a few shared link shapes or material presets) stay far below the floor, and a
/// refused document has cost at most that many node copies, so it fails in milliseconds.
#[derive(Debug, Default)]
pub(crate) struct AliasBudget {
    written: usize,
    expanded: usize,
}

impl AliasBudget {
    /// One node read from the text (a scalar, the start of a list or mapping, or an alias).
    pub fn written(&mut self) {
        self.written += 1;
    }

    /// The most nodes anchors and aliases may copy with the document read so far.
    pub fn limit(&self) -> usize {
        ALIAS_NODES_FLOOR.max(ALIAS_NODES_PER_WRITTEN_NODE.saturating_mul(self.written))
    }

    /// Account for a copy of `size` nodes at `location`; an error if that crosses the limit.
    /// `what` names the copier for the message ("the alias `*b`").
    pub fn expand(&mut self, size: usize, location: &Location, what: impl FnOnce() -> String) -> Result<(), Error> {
        let total = self.expanded.saturating_add(size);
        let limit = self.limit();
        if total > limit {
            return Err(Error::error(
                location.clone(),
                format!(
                    "{} copies {size} nodes, which brings the nodes copied for anchors and aliases to {total}, past \
                     the limit \
                     of {limit} ({ALIAS_NODES_PER_WRITTEN_NODE} × the {} nodes written so far, at least \
                     {ALIAS_NODES_FLOOR}); every alias is a full copy of its anchor, and aliases nested in levels \
                     (a \"billion laughs\" file) would exhaust memory",
                    what(),
                    self.written
                ),
            ));
        }
        self.expanded = total;
        Ok(())
    }
}

/// The alias written at 1-based `line` and `col` of `text` (`*name`), if it is there.
pub(crate) fn alias_name_at(text: &str, line: usize, col: usize) -> Option<String> {
    let line_text = text.lines().nth(line.checked_sub(1)?)?;
    let rest: String = line_text.chars().skip(col.checked_sub(1)?).collect();
    let name: String = rest
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | '[' | ']' | '{' | '}'))
        .collect();
    (name.starts_with('*') && name.len() > 1).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn the_limit_grows_with_the_document_above_the_floor() {
        let mut budget = AliasBudget::default();
        assert_eq!(budget.limit(), ALIAS_NODES_FLOOR);
        for _ in 0..1_000 {
            budget.written();
        }
        assert_eq!(
            budget.limit(),
            ALIAS_NODES_FLOOR,
            "1000 written nodes stay below the floor"
        );
        for _ in 1_000..20_000 {
            budget.written();
        }
        assert_eq!(budget.limit(), 20_000 * ALIAS_NODES_PER_WRITTEN_NODE);
        assert_eq!(budget.limit(), 1_280_000);
    }

    #[test]
    fn crossing_the_limit_is_a_located_error() {
        let file: Arc<str> = "b.yaml".into();
        let at = Location::new(&file, 3, 4);
        let mut budget = AliasBudget::default();
        budget
            .expand(ALIAS_NODES_FLOOR, &at, || "this alias".to_string())
            .expect("exactly the floor is allowed");
        let err = budget
            .expand(1, &at, || "the alias `*c`".to_string())
            .expect_err("one more is not");
        assert_eq!(err.location, at);
        assert!(err.message.starts_with("the alias `*c` copies 1 nodes"), "{err}");
        assert!(err.message.contains("past the limit of 100000"), "{err}");
    }

    #[test]
    fn alias_names_are_read_from_the_text() {
        let text = "a: &a [x]\nb: [*a, *a]\n";
        assert_eq!(alias_name_at(text, 2, 5).as_deref(), Some("*a"));
        assert_eq!(alias_name_at(text, 2, 1), None);
        assert_eq!(alias_name_at(text, 9, 1), None);
    }
}
