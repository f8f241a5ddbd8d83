//! Engine-specific keys kept verbatim (Choreonoid's `info()` mapping).
//!
//! A material or contact-material entry may carry keys that only some engines read
//! (`cullingDistance`, `max_num_contact_points`, `friction_model`, `youngs_modulus`, …). They are
//! kept as located YAML nodes, in file order, and converted on demand, so a wrong type is reported
//! at its line only by the engine that reads it.

use tribo_yaml::{Error, MapEntry, Node, Value};

/// The extra keys of one entry, in file order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Extras {
    entries: Vec<MapEntry>,
}

impl Extras {
    pub fn new(entries: Vec<MapEntry>) -> Self {
        Extras { entries }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &MapEntry> {
        self.entries.iter()
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|e| &e.value)
    }

    pub fn entry(&self, key: &str) -> Option<&MapEntry> {
        self.entries.iter().find(|e| e.key == key)
    }

    /// A finite number under `key`, if present.
    pub fn f64(&self, key: &str) -> Result<Option<f64>, Error> {
        self.read(key, Node::as_finite)
    }

    /// A non-negative integer under `key`, if present.
    pub fn usize(&self, key: &str) -> Result<Option<usize>, Error> {
        self.read(key, Node::as_index)
    }

    /// Text under `key`, if present.
    pub fn str(&self, key: &str) -> Result<Option<&str>, Error> {
        self.read(key, Node::as_str)
    }

    /// A list of names under `key` (e.g. `friction_model: [cone, direct]`), if present.
    pub fn names(&self, key: &str) -> Result<Option<Vec<&str>>, Error> {
        self.read(key, Node::as_name_list)
    }

    fn read<'a, T>(&'a self, key: &str, read: impl Fn(&'a Node) -> Result<T, Error>) -> Result<Option<T>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(node) => read(node)
                .map(Some)
                .map_err(|e| Error::error(e.location, format!("`{key}`: {}", e.message))),
        }
    }

    /// The extras as a JSON object (keys sorted).
    pub fn to_json(&self) -> serde_json::Value {
        let map = self
            .entries
            .iter()
            .map(|e| (e.key.clone(), node_to_json(&e.value)))
            .collect();
        serde_json::Value::Object(map)
    }

    /// The extras as one line of YAML flow text, `key: value, key: value`, in file order.
    pub fn to_text(&self) -> String {
        self.entries
            .iter()
            .map(|e| format!("{}: {}", e.key, node_to_text(&e.value)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A YAML node as JSON: quoted scalars are strings; plain scalars become integers, finite numbers,
/// `true`/`false` or strings, in that order of preference.
pub fn node_to_json(node: &Node) -> serde_json::Value {
    use serde_json::Value as J;
    match &node.value {
        Value::Null => J::Null,
        Value::Scalar { text, quoted: true } => J::String(text.clone()),
        Value::Scalar { text, quoted: false } => {
            if let Ok(i) = node.as_i64() {
                J::from(i)
            } else if let Some(n) = node.as_finite().ok().and_then(serde_json::Number::from_f64) {
                J::Number(n)
            } else if text == "true" || text == "false" {
                J::Bool(text == "true")
            } else {
                J::String(text.clone())
            }
        }
        Value::Seq(items) => J::Array(items.iter().map(node_to_json).collect()),
        Value::Map(map) => J::Object(
            map.entries
                .iter()
                .map(|e| (e.key.clone(), node_to_json(&e.value)))
                .collect(),
        ),
    }
}

/// A YAML node as compact flow text (`[cone, direct]`, `{a: 1}`), scalars as written.
pub fn node_to_text(node: &Node) -> String {
    match &node.value {
        Value::Null => "~".to_string(),
        Value::Scalar { text, quoted: false } => text.clone(),
        Value::Scalar { text, quoted: true } => format!("{text:?}"),
        Value::Seq(items) => format!("[{}]", items.iter().map(node_to_text).collect::<Vec<_>>().join(", ")),
        Value::Map(map) => format!(
            "{{{}}}",
            map.entries
                .iter()
                .map(|e| format!("{}: {}", e.key, node_to_text(&e.value)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tribo_yaml::parse_str;

    fn extras(text: &str) -> Extras {
        let doc = parse_str(text, "x.yaml").expect("parse");
        Extras::new(doc.as_map().expect("map").entries.clone())
    }

    #[test]
    fn typed_reads_are_located() {
        let x = extras("cullingDistance: 0.01\nmax_num_contact_points: abc\nfriction_model: [cone, direct]\n");
        assert_eq!(x.f64("cullingDistance").expect("number"), Some(0.01));
        assert_eq!(x.f64("cullingDepth").expect("absent"), None);
        let err = x.usize("max_num_contact_points").expect_err("not an integer");
        assert_eq!(
            err.to_string(),
            "x.yaml:2:25: `max_num_contact_points`: expected an integer, found `abc`"
        );
        assert_eq!(x.names("friction_model").expect("names"), Some(vec!["cone", "direct"]));
    }

    #[test]
    fn json_and_text() {
        let x = extras("a: 1e10\nb: [1, 0, 0]\nc: '3'\nd: SpringDamperContact\ne: {f: true}\n");
        assert_eq!(
            x.to_json().to_string(),
            r#"{"a":10000000000.0,"b":[1,0,0],"c":"3","d":"SpringDamperContact","e":{"f":true}}"#
        );
        assert_eq!(
            x.to_text(),
            r#"a: 1e10, b: [1, 0, 0], c: "3", d: SpringDamperContact, e: {f: true}"#
        );
    }
}
