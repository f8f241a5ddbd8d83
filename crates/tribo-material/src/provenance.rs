//! Where a number in a table came from, and reading numbers so that this is remembered.

use tribo_yaml::{Error, Fields, Location, Node, Value};

/// Where a field's value came from.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueSource {
    /// Written under `key` (the spelling actually used, e.g. `staticFriction`) at `location`.
    Key { key: String, location: Location },
    /// Not written: Choreonoid's documented default applies.
    Default,
}

impl ValueSource {
    /// The location the value was written at, if it was.
    pub fn location(&self) -> Option<&Location> {
        match self {
            ValueSource::Key { location, .. } => Some(location),
            ValueSource::Default => None,
        }
    }
}

/// The valid range of a field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Range {
    /// Any finite number.
    Any,
    /// A finite number ≥ 0.
    NonNegative,
}

/// Read the first present spelling of `keys` as a finite number in `range`, marking only that key
/// as read (so another spelling stays an extra, as in Choreonoid). `None` when no spelling is present.
/// An explicit empty value (`friction:`) is an error, not a silent default.
pub(crate) fn read_number(
    fields: &Fields<'_>,
    keys: &[&str],
    range: Range,
) -> Result<Option<(f64, ValueSource)>, Error> {
    let Some(entry) = keys.iter().find_map(|k| fields.map().entry(k)) else {
        return Ok(None);
    };
    // Mark the key as read; `get` finds the same entry because it was the first present spelling.
    let node = fields.get(&[entry.key.as_str()]).unwrap_or(&entry.value);
    if node.is_null() {
        // An empty value is marked where the next token starts; the key is where the reader looks.
        return Err(Error::error(
            entry.key_location.clone(),
            format!("`{}` has no value; expected a number", entry.key),
        ));
    }
    let value = node
        .as_finite()
        .map_err(|e| Error::error(e.location, format!("`{}`: {}", entry.key, e.message)))?;
    if range == Range::NonNegative && value < 0.0 {
        return Err(node.error(format!("`{}` must be ≥ 0, found {value}", entry.key)));
    }
    Ok(Some((
        value,
        ValueSource::Key {
            key: entry.key.clone(),
            location: entry.key_location.clone(),
        },
    )))
}

/// [`read_number`] with a default for an absent key.
pub(crate) fn number_or(
    fields: &Fields<'_>,
    keys: &[&str],
    range: Range,
    default: f64,
) -> Result<(f64, ValueSource), Error> {
    Ok(read_number(fields, keys, range)?.unwrap_or((default, ValueSource::Default)))
}

/// Where a mapping entry starts. For a block mapping the YAML reader marks the `:` after the first
/// key; the first key itself (on that line, further left) is where a reader looks for the entry.
pub(crate) fn entry_location(node: &Node) -> Location {
    if let Value::Map(map) = &node.value {
        if let Some(first) = map.entries.first() {
            let key = &first.key_location;
            if key.file == node.location.file && key.line == node.location.line && key.col < node.location.col {
                return key.clone();
            }
        }
    }
    node.location.clone()
}

/// A required key, with the "missing" error located at the start of the entry.
pub(crate) fn required<'a>(fields: &Fields<'a>, key: &str) -> Result<&'a Node, Error> {
    fields
        .required(&[key])
        .map_err(|e| Error::error(entry_location(fields.node()), e.message))
}
