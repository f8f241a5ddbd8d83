//! Building the tribo project tree that a `.cnoid` project translates into.
//!
//! Every synthesized node carries the location of the `.cnoid` text it came from, so an error the
//! project loader finds in it (a model that will not load, a motion with the wrong number of
//! joints) points at the Choreonoid item that asked for it.

use tribo_yaml::{Location, Map, MapEntry, Node, Value};

/// A text scalar.
pub fn text(value: impl Into<String>, at: &Location) -> Node {
    Node {
        value: Value::Scalar {
            text: value.into(),
            quoted: true,
        },
        location: at.clone(),
    }
}

/// A number, written so that it reads back bit-identically.
pub fn number(value: f64, at: &Location) -> Node {
    Node {
        value: Value::Scalar {
            text: format!("{value:?}"),
            quoted: false,
        },
        location: at.clone(),
    }
}

/// A whole number (joint ids).
pub fn integer(value: usize, at: &Location) -> Node {
    Node {
        value: Value::Scalar {
            text: value.to_string(),
            quoted: false,
        },
        location: at.clone(),
    }
}

/// `true` or `false`.
pub fn boolean(value: bool, at: &Location) -> Node {
    Node {
        value: Value::Scalar {
            text: value.to_string(),
            quoted: false,
        },
        location: at.clone(),
    }
}

/// A list of numbers.
pub fn numbers(values: &[f64], at: &Location) -> Node {
    list(values.iter().map(|v| number(*v, at)).collect(), at)
}

pub fn list(items: Vec<Node>, at: &Location) -> Node {
    Node {
        value: Value::Seq(items),
        location: at.clone(),
    }
}

/// A mapping with keys in the given order.
pub fn map(entries: Vec<(&str, Node)>, at: &Location) -> Node {
    let entries = entries
        .into_iter()
        .map(|(key, value)| MapEntry {
            key: key.to_string(),
            key_location: value.location.clone(),
            value,
        })
        .collect();
    Node {
        value: Value::Map(Map { entries }),
        location: at.clone(),
    }
}
