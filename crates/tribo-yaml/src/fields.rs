//! Reading a mapping key by key, remembering what was read.

use std::cell::RefCell;

use crate::{closest, Diagnostic, Error, Map, MapEntry, Node};

/// A mapping being read by a format loader. Every key a loader asks for is marked as read, so the
/// keys left over can be kept as extras (Choreonoid's `info()`) or reported as unknown, with the
/// closest known key.
pub struct Fields<'a> {
    node: &'a Node,
    map: &'a Map,
    read: RefCell<Vec<bool>>,
}

impl<'a> Fields<'a> {
    /// Start reading `node`, which must be a mapping; `what` names it in the error otherwise.
    pub fn new(node: &'a Node, what: &str) -> Result<Self, Error> {
        let map = node
            .as_map()
            .map_err(|_| node.error(format!("expected {what} (a mapping), found {}", node.kind_name())))?;
        Ok(Fields {
            node,
            map,
            read: RefCell::new(vec![false; map.len()]),
        })
    }

    pub fn node(&self) -> &'a Node {
        self.node
    }

    pub fn map(&self) -> &'a Map {
        self.map
    }

    /// The value of the first of `keys` that is present (spellings in order of precedence, e.g.
    /// `&["joint_type", "jointType"]`), marking only that key as read.
    pub fn get(&self, keys: &[&str]) -> Option<&'a Node> {
        for key in keys {
            if let Some(i) = self.map.entries.iter().position(|e| e.key == *key) {
                self.read.borrow_mut()[i] = true;
                return Some(&self.map.entries[i].value);
            }
        }
        None
    }

    /// Like [`get`](Self::get), treating an explicit null (`key:` with no value) as absent.
    pub fn get_value(&self, keys: &[&str]) -> Option<&'a Node> {
        self.get(keys).filter(|n| !n.is_null())
    }

    /// A key that must be present.
    pub fn required(&self, keys: &[&str]) -> Result<&'a Node, Error> {
        self.get_value(keys).ok_or_else(|| {
            let spelled = keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(" or ");
            self.node.error(format!("missing required key {spelled}"))
        })
    }

    /// A number with a default.
    pub fn f64_or(&self, keys: &[&str], default: f64) -> Result<f64, Error> {
        self.get_value(keys).map_or(Ok(default), Node::as_finite)
    }

    /// Optional number.
    pub fn f64_opt(&self, keys: &[&str]) -> Result<Option<f64>, Error> {
        self.get_value(keys).map(Node::as_finite).transpose()
    }

    /// Optional boolean.
    pub fn bool_or(&self, keys: &[&str], default: bool) -> Result<bool, Error> {
        self.get_value(keys).map_or(Ok(default), Node::as_bool)
    }

    /// A whole number of at least `min`, with a default when absent.
    pub fn count_or(&self, key: &str, default: usize, min: usize) -> Result<usize, Error> {
        match self.get_value(&[key]) {
            None => Ok(default),
            Some(node) => {
                let value = node.as_index()?;
                if value < min {
                    return Err(node.error(format!("`{key}` must be at least {min}, found {value}")));
                }
                Ok(value)
            }
        }
    }

    /// A finite number satisfying `valid` (described by `rule`, e.g. "must be positive"), with a
    /// default when absent.
    pub fn real_or(&self, key: &str, default: f64, valid: impl Fn(f64) -> bool, rule: &str) -> Result<f64, Error> {
        match self.get_value(&[key]) {
            None => Ok(default),
            Some(node) => {
                let value = node.as_finite()?;
                if !valid(value) {
                    return Err(node.error(format!("`{key}` {rule}, found {value}")));
                }
                Ok(value)
            }
        }
    }

    /// One of a set of words, each standing for a value; `what` names the setting in errors
    /// ("unknown friction model `x` (did you mean …?)").
    pub fn choice_or<T: Copy>(&self, key: &str, default: T, choices: &[(&str, T)], what: &str) -> Result<T, Error> {
        let Some(node) = self.get_value(&[key]) else {
            return Ok(default);
        };
        let word = node.as_name()?;
        if let Some((_, value)) = choices.iter().find(|(name, _)| *name == word) {
            return Ok(*value);
        }
        let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
        let hint = match closest(word, names.iter().copied()) {
            Some(c) => format!(" (did you mean `{c}`?)"),
            None => format!("; expected one of {}", names.join(", ")),
        };
        Err(node.error(format!("unknown {what} `{word}`{hint}")))
    }

    /// Optional text.
    pub fn str_opt(&self, keys: &[&str]) -> Result<Option<&'a str>, Error> {
        self.get_value(keys).map(Node::as_str).transpose()
    }

    /// Mark every one of `keys` that is present as read without using it (keys a format knows
    /// and deliberately ignores, or keys another reader handles).
    pub fn skip(&self, keys: &[&str]) {
        for key in keys {
            let _ = self.get(&[key]);
        }
    }

    /// The entries no one asked for, in file order.
    pub fn unread(&self) -> Vec<&'a MapEntry> {
        let read = self.read.borrow();
        self.map
            .entries
            .iter()
            .zip(read.iter())
            .filter(|(_, r)| !**r)
            .map(|(e, _)| e)
            .collect()
    }

    /// A warning for every unread key, suggesting the closest of `known`.
    pub fn unknown_key_warnings(&self, context: &str, known: &[&str]) -> Vec<Diagnostic> {
        self.unread()
            .into_iter()
            .map(|e| {
                let hint = match closest(&e.key, known.iter().copied()) {
                    Some(k) => format!("; did you mean `{k}`?"),
                    None => String::new(),
                };
                Diagnostic::warning(
                    e.key_location.clone(),
                    format!("unknown key `{}` in {context} is not read{hint}", e.key),
                )
            })
            .collect()
    }

    /// An error for the first unread key (for strict formats), suggesting the closest of `known`.
    pub fn reject_unknown(&self, context: &str, known: &[&str]) -> Result<(), Error> {
        match self.unread().first() {
            None => Ok(()),
            Some(e) => {
                let hint = match closest(&e.key, known.iter().copied()) {
                    Some(k) => format!(" (did you mean `{k}`?)"),
                    None => format!("; known keys: {}", known.join(", ")),
                };
                Err(Diagnostic::error(
                    e.key_location.clone(),
                    format!("unknown key `{}` in {context}{hint}", e.key),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_str;

    #[test]
    fn tracks_read_keys_and_suggests() {
        let doc = parse_str("name: A\nfrction: 0.3\nextra: 1\n", "f.yaml").expect("parse");
        let f = Fields::new(&doc, "a material").expect("map");
        assert_eq!(
            f.required(&["name"])
                .and_then(|n| n.as_str().map(str::to_owned))
                .ok()
                .as_deref(),
            Some("A")
        );
        assert_eq!(f.f64_or(&["friction"], 0.5).ok(), Some(0.5));
        let left: Vec<_> = f.unread().iter().map(|e| e.key.clone()).collect();
        assert_eq!(left, ["frction", "extra"]);
        let warnings = f.unknown_key_warnings("a contact material", &["friction", "restitution"]);
        assert_eq!(
            warnings[0].to_string(),
            "f.yaml:2:1: warning: unknown key `frction` in a contact material is not read; did you mean `friction`?"
        );
    }

    #[test]
    fn typed_settings_with_rules() {
        let doc = parse_str("n: 0\nx: -1\nmode: fast\n", "o.yaml").expect("parse");
        let f = Fields::new(&doc, "options").expect("map");
        assert_eq!(
            f.count_or("n", 4, 1).expect_err("min").to_string(),
            "o.yaml:1:4: `n` must be at least 1, found 0"
        );
        assert_eq!(f.count_or("absent", 4, 1).ok(), Some(4));
        let err = f.real_or("x", 1.0, |v| v > 0.0, "must be positive").expect_err("rule");
        assert_eq!(err.to_string(), "o.yaml:2:4: `x` must be positive, found -1");
        let err = f
            .choice_or("mode", 0, &[("slow", 0), ("fats", 1)], "mode")
            .expect_err("word");
        assert_eq!(
            err.to_string(),
            "o.yaml:3:7: unknown mode `fast` (did you mean `fats`?)"
        );
    }

    #[test]
    fn missing_required_key_is_located_at_the_mapping() {
        let doc = parse_str("- {roughness: 1}\n", "f.yaml").expect("parse");
        let item = &doc.as_seq().expect("seq")[0];
        let f = Fields::new(item, "a material").expect("map");
        let err = f.required(&["name"]).expect_err("missing");
        assert_eq!(err.to_string(), "f.yaml:1:3: missing required key `name`");
    }
}
