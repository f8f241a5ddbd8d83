//! The located YAML tree and its typed reads.

use crate::{Error, Location};

/// A YAML value and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    pub location: Location,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An empty value, `~` or `null`.
    Null,
    /// Any scalar. Like Choreonoid, the text is kept and converted only when a reader asks for a
    /// type, so the same scalar can be read as text, a number or a boolean.
    Scalar {
        text: String,
        quoted: bool,
    },
    Seq(Vec<Node>),
    Map(Map),
}

/// A mapping with text keys, in file order, merge keys already applied.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Map {
    pub entries: Vec<MapEntry>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MapEntry {
    pub key: String,
    pub key_location: Location,
    pub value: Node,
}

impl Map {
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entries.iter().find(|e| e.key == key).map(|e| &e.value)
    }

    pub fn entry(&self, key: &str) -> Option<&MapEntry> {
        self.entries.iter().find(|e| e.key == key)
    }

    pub fn contains(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.key.as_str())
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl Node {
    /// An error located at this node.
    pub fn error(&self, message: impl Into<String>) -> Error {
        Error::error(self.location.clone(), message)
    }

    /// A warning located at this node.
    pub fn warning(&self, message: impl Into<String>) -> Error {
        Error::warning(self.location.clone(), message)
    }

    /// What this node is, for "expected X, found Y" messages.
    pub fn kind_name(&self) -> String {
        match &self.value {
            Value::Null => "an empty value".to_string(),
            Value::Scalar { text, .. } => format!("`{}`", abbreviate(text)),
            Value::Seq(_) => "a list".to_string(),
            Value::Map(_) => "a mapping".to_string(),
        }
    }

    fn expected(&self, what: &str) -> Error {
        self.error(format!("expected {what}, found {}", self.kind_name()))
    }

    pub fn is_null(&self) -> bool {
        matches!(self.value, Value::Null)
    }

    /// The text of a scalar.
    pub fn as_str(&self) -> Result<&str, Error> {
        match &self.value {
            Value::Scalar { text, .. } => Ok(text),
            _ => Err(self.expected("text")),
        }
    }

    /// A non-empty name.
    pub fn as_name(&self) -> Result<&str, Error> {
        let s = self.as_str()?;
        if s.trim().is_empty() {
            return Err(self.error("expected a name, found empty text"));
        }
        Ok(s)
    }

    /// A finite or infinite number (`1`, `-2.5`, `1e10`, `.inf`). Unlike Choreonoid's lenient
    /// prefix parse, trailing garbage (`0.5x`) is an error: a typo should not become a number.
    pub fn as_f64(&self) -> Result<f64, Error> {
        let text = match &self.value {
            Value::Scalar { text, .. } => text.trim(),
            _ => return Err(self.expected("a number")),
        };
        parse_number(text).ok_or_else(|| self.expected("a number"))
    }

    /// A finite number. `.inf`, `-.inf` and `.nan` are numbers but not finite: "expected a
    /// finite number, found `.inf`", the scalar as written.
    pub fn as_finite(&self) -> Result<f64, Error> {
        let v = self.as_f64()?;
        if v.is_finite() {
            Ok(v)
        } else {
            Err(self.expected("a finite number"))
        }
    }

    /// Whether this is a number that is not finite (`.inf`, `-.inf`, `.nan`): a reader that falls
    /// back to other readings when [`as_finite`](Self::as_finite) fails (formulas, words) should
    /// report the `as_finite` error for these instead.
    pub fn is_non_finite_number(&self) -> bool {
        self.as_f64().is_ok_and(|v| !v.is_finite())
    }

    /// An integer (`3`, `-1`, `0x10`).
    pub fn as_i64(&self) -> Result<i64, Error> {
        let text = match &self.value {
            Value::Scalar { text, .. } => text.trim(),
            _ => return Err(self.expected("an integer")),
        };
        let parsed = if let Some(hex) = text.strip_prefix("0x") {
            i64::from_str_radix(hex, 16).ok()
        } else {
            text.strip_prefix('+').unwrap_or(text).parse::<i64>().ok()
        };
        parsed.ok_or_else(|| self.expected("an integer"))
    }

    /// A non-negative integer that fits an index.
    pub fn as_index(&self) -> Result<usize, Error> {
        let v = self.as_i64()?;
        usize::try_from(v).map_err(|_| self.error(format!("expected a non-negative integer, found {v}")))
    }

    /// A boolean, with YAML 1.1's spellings as Choreonoid accepts them (`yes`, `on`, `true`, …).
    pub fn as_bool(&self) -> Result<bool, Error> {
        let text = match &self.value {
            Value::Scalar { text, .. } => text.trim(),
            _ => return Err(self.expected("true or false")),
        };
        match text {
            "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => Ok(true),
            "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => Ok(false),
            _ => Err(self.expected("true or false")),
        }
    }

    pub fn as_seq(&self) -> Result<&[Node], Error> {
        match &self.value {
            Value::Seq(items) => Ok(items),
            _ => Err(self.expected("a list")),
        }
    }

    pub fn as_map(&self) -> Result<&Map, Error> {
        match &self.value {
            Value::Map(map) => Ok(map),
            _ => Err(self.expected("a mapping")),
        }
    }

    /// A list of numbers of any length.
    pub fn as_f64_list(&self) -> Result<Vec<f64>, Error> {
        self.as_seq()?.iter().map(Node::as_f64).collect()
    }

    /// A list of exactly `N` numbers.
    pub fn as_array<const N: usize>(&self) -> Result<[f64; N], Error> {
        let items = self
            .as_seq()
            .map_err(|_| self.expected(&format!("a list of {N} numbers")))?;
        if items.len() != N {
            return Err(self.error(format!("expected a list of {N} numbers, found {} values", items.len())));
        }
        let mut out = [0.0; N];
        for (slot, item) in out.iter_mut().zip(items) {
            *slot = item.as_finite()?;
        }
        Ok(out)
    }

    /// A list of exactly 3 finite numbers.
    pub fn as_vec3(&self) -> Result<[f64; 3], Error> {
        self.as_array::<3>()
    }

    /// A list of names.
    pub fn as_name_list(&self) -> Result<Vec<&str>, Error> {
        self.as_seq()?.iter().map(Node::as_name).collect()
    }
}

/// YAML numbers: decimal integers and floats, exponents, `.inf`/`-.inf`/`.nan`, a leading `+`.
fn parse_number(text: &str) -> Option<f64> {
    let body = text.strip_prefix('+').unwrap_or(text);
    match body {
        ".inf" | ".Inf" | ".INF" => return Some(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Some(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Some(f64::NAN),
        _ => {}
    }
    // Rust's parser accepts "inf", "nan" and "infinity"; YAML does not.
    if body.is_empty() || body.chars().any(|c| c.is_ascii_alphabetic() && c != 'e' && c != 'E') {
        return None;
    }
    body.parse::<f64>().ok()
}

/// Text as quoted in messages: cut after 40 characters, with `…`.
pub fn abbreviate(text: &str) -> String {
    const MAX: usize = 40;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let head: String = text.chars().take(MAX).collect();
        format!("{head}…")
    }
}
