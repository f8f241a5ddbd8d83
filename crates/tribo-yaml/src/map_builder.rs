//! Collecting a mapping's entries: duplicate keys last-wins, merged keys never replacing.

use std::collections::HashMap;

use crate::{Diagnostic, Location, Map, MapEntry};

/// Mappings up to this many keys are searched by a linear scan; larger ones get a hash index, so
/// building a mapping of n keys takes O(n) time, not O(n²).
const LINEAR_SCAN_MAX: usize = 16;

/// A mapping being built, in file order.
#[derive(Debug, Default)]
pub(crate) struct MapBuilder {
    entries: Vec<MapEntry>,
    index: Option<HashMap<String, usize>>,
}

impl MapBuilder {
    pub fn with_capacity(capacity: usize) -> Self {
        MapBuilder {
            entries: Vec::with_capacity(capacity),
            index: None,
        }
    }

    fn position(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(key).copied(),
            None => self.entries.iter().position(|e| e.key == key),
        }
    }

    fn push(&mut self, entry: MapEntry) {
        if let Some(index) = &mut self.index {
            index.insert(entry.key.clone(), self.entries.len());
        }
        self.entries.push(entry);
        if self.index.is_none() && self.entries.len() > LINEAR_SCAN_MAX {
            let index = self
                .entries
                .iter()
                .enumerate()
                .map(|(i, e)| (e.key.clone(), i))
                .collect();
            self.index = Some(index);
        }
    }

    /// Insert, or replace an entry with the same key (last wins, as Choreonoid's
    /// `Mapping::insertSub`; the key keeps its first place) and return a warning naming both keys.
    pub fn set(&mut self, entry: MapEntry) -> Option<Diagnostic> {
        match self.position(&entry.key) {
            Some(i) => {
                let replaced = std::mem::replace(&mut self.entries[i], entry);
                let kept = &self.entries[i];
                Some(duplicate_key_warning(
                    &kept.key,
                    &kept.key_location,
                    &replaced.key_location,
                ))
            }
            None => {
                self.push(entry);
                None
            }
        }
    }

    /// Insert only if the key is absent (merged keys never replace explicit ones).
    pub fn set_if_absent(&mut self, entry: MapEntry) {
        if self.position(&entry.key).is_none() {
            self.push(entry);
        }
    }

    pub fn finish(self) -> Map {
        Map { entries: self.entries }
    }
}

/// "duplicate key `friction` overrides the one at line 2; the last one wins", at the later key.
fn duplicate_key_warning(key: &str, later: &Location, earlier: &Location) -> Diagnostic {
    let at = if earlier.line == later.line {
        format!("line {}, column {}", earlier.line, earlier.col)
    } else {
        format!("line {}", earlier.line)
    };
    Diagnostic::warning(
        later.clone(),
        format!("duplicate key `{key}` overrides the one at {at}; the last one wins"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Node, Value};
    use std::sync::Arc;

    fn entry(key: &str, line: usize) -> MapEntry {
        let file: Arc<str> = "m.yaml".into();
        let location = Location::new(&file, line, 1);
        MapEntry {
            key: key.to_string(),
            key_location: location.clone(),
            value: Node {
                value: Value::Scalar {
                    text: line.to_string(),
                    quoted: false,
                },
                location,
            },
        }
    }

    #[test]
    fn last_wins_in_the_first_place_below_and_above_the_scan_limit() {
        for n in [3, LINEAR_SCAN_MAX * 3] {
            let mut map = MapBuilder::default();
            for i in 0..n {
                assert_eq!(map.set(entry(&format!("k{i}"), i + 1)), None);
            }
            let warning = map.set(entry("k1", n + 1)).expect("k1 is a duplicate");
            assert_eq!(
                warning.to_string(),
                format!(
                    "m.yaml:{}:1: warning: duplicate key `k1` overrides the one at line 2; the last one wins",
                    n + 1
                )
            );
            map.set_if_absent(entry("k2", n + 2));
            map.set_if_absent(entry("new", n + 3));
            let map = map.finish();
            assert_eq!(map.len(), n + 1);
            assert_eq!(map.entries[1].key, "k1");
            assert_eq!(
                map.entries[1].key_location.line,
                n + 1,
                "the last value, in the first place"
            );
            assert_eq!(
                map.entry("k2").map(|e| e.key_location.line),
                Some(3),
                "merges never replace"
            );
            assert_eq!(map.entries[n].key, "new");
        }
    }
}
