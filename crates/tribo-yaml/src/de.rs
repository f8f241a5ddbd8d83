//! Reading a located tree with serde: `#[derive(Deserialize)]` types from a [`Node`], every error
//! located at the offending key or value.
//!
//! - [`from_node`] reads plain values and rejects unknown keys; [`from_node_with`] takes a
//!   [`ScalarContext`] (how numbers and text are read, e.g. formulas of parameters and `${…}`
//!   variables) and a policy for unknown keys ([`UnknownKeys`]: errors, or warnings collected for
//!   the caller).
//! - Errors name the file, line and column of the node, what was expected and what was found;
//!   unknown keys and unknown enum variants name the closest known one ([`closest`]). A struct's
//!   unknown keys are checked against the names serde gives the deserializer, so
//!   `#[serde(deny_unknown_fields)]` is not needed here (it keeps other formats strict too).
//! - Structs and maps are mappings; enums are a name for unit variants or a one-key mapping
//!   `{variant: value}` (externally tagged); a struct's key with an empty value (`key:`, `~`) is
//!   read as absent (the default, `None`, or "missing required key"), as [`crate::Fields`] does;
//!   sequences and tuples are lists; numbers must be finite; booleans take YAML 1.1's spellings
//!   ([`Node::as_bool`]); integers are range checked.
//! - [`Located<T>`] keeps where a value was written (for checks after reading), and [`Node`]
//!   itself can be a field, kept as written for a reader that needs the tree (names resolved
//!   against a model, formulas kept as text).
//! - An enum's name in messages is its serde name with camel case split (`FrictionModel` →
//!   "friction model"); `#[serde(rename = "friction cone")]` on the enum sets it.
//!
//! Not supported: borrowed strings (`&str` fields; read `String`), internally tagged, adjacently
//! tagged and untagged enums and `#[serde(flatten)]` (serde buffers those without locations).

use std::cell::RefCell;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use serde::Deserialize;

use crate::{closest, Diagnostic, Location, Node, Value};

/// How scalars become numbers and text. The default reads them as written: numbers must be
/// finite literals, text is the scalar's text.
pub trait ScalarContext {
    /// A finite number.
    fn number(&self, node: &Node) -> Result<f64, Diagnostic> {
        node.as_finite()
    }

    /// Text (a `String` field, a map key is always read as written).
    fn text(&self, node: &Node) -> Result<String, Diagnostic> {
        node.as_str().map(str::to_owned)
    }
}

/// Scalars as written.
pub struct Plain;

impl ScalarContext for Plain {}

/// What happens to a key a struct does not have.
#[derive(Clone, Copy)]
pub enum UnknownKeys<'a> {
    /// A located error: "unknown key `x` in WHAT (did you mean `y`?)".
    Error,
    /// A located warning pushed here ("unknown key `x` in WHAT is not read; did you mean `y`?"),
    /// and the key is skipped.
    Warn(&'a RefCell<Vec<Diagnostic>>),
}

/// `T` from `node`; `what` names the value in messages ("the pgs engine options", "a metric").
/// Scalars are read as written and unknown keys are errors.
pub fn from_node<T: DeserializeOwned>(node: &Node, what: &str) -> Result<T, Diagnostic> {
    from_node_with(node, what, &Plain, UnknownKeys::Error)
}

/// `T` from `node`, numbers and text read through `scalars`, unknown keys handled by `unknown`.
pub fn from_node_with<T: DeserializeOwned>(
    node: &Node,
    what: &str,
    scalars: &dyn ScalarContext,
    unknown: UnknownKeys<'_>,
) -> Result<T, Diagnostic> {
    let ctx = Ctx { what, scalars, unknown };
    let de = NodeDe {
        node,
        ctx: &ctx,
        path: String::new(),
    };
    T::deserialize(de).map_err(|e| {
        let location = e.location.unwrap_or_else(|| node.location.clone());
        Diagnostic::error(location, e.message)
    })
}

/// A value and where it was written, for checks after reading (`options.tolerance.error(…)`).
#[derive(Debug, Clone, PartialEq)]
pub struct Located<T> {
    pub value: T,
    pub location: Location,
}

impl<T> Located<T> {
    pub fn new(value: T, location: Location) -> Self {
        Located { value, location }
    }

    /// An error located at the value.
    pub fn error(&self, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error(self.location.clone(), message)
    }

    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T> Deref for Located<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

const LOCATED: &str = "$tribo_yaml::Located";
const LOCATED_FIELDS: [&str; 4] = ["file", "line", "col", "value"];
const NODE: &str = "$tribo_yaml::Node";

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Located<T> {
    /// Only [`from_node`]'s deserializer knows locations; others fail.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Located<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a located value (tribo_yaml::from_node)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Located<T>, A::Error> {
                let missing = || de::Error::custom("a located value needs tribo_yaml::from_node");
                let (_, file) = map.next_entry::<String, String>()?.ok_or_else(missing)?;
                let (_, line) = map.next_entry::<String, usize>()?.ok_or_else(missing)?;
                let (_, col) = map.next_entry::<String, usize>()?.ok_or_else(missing)?;
                let (_, value) = map.next_entry::<String, T>()?.ok_or_else(missing)?;
                let file: Arc<str> = file.into();
                Ok(Located::new(value, Location::new(&file, line, col)))
            }
        }
        deserializer.deserialize_struct(LOCATED, &LOCATED_FIELDS, V(std::marker::PhantomData))
    }
}

thread_local! {
    /// The node handed from [`NodeDe`] to `Node`'s `Deserialize` (serde has no way to pass a
    /// value of the deserializer's own type through a visitor).
    static HANDOFF: RefCell<Option<Node>> = const { RefCell::new(None) };
}

impl<'de> Deserialize<'de> for Node {
    /// The node as written (only through [`from_node`]'s deserializer).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a YAML node (tribo_yaml::from_node)")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
                HANDOFF
                    .with(|h| h.borrow_mut().take())
                    .ok_or_else(|| E::custom("a YAML node needs tribo_yaml::from_node"))
            }
        }
        deserializer.deserialize_newtype_struct(NODE, V)
    }
}

/// The deserializer's error: a message, located once a node claims it. Unknown keys, unknown
/// variants and type errors are finished by the code that knows the context.
#[derive(Debug)]
pub struct DeError {
    location: Option<Location>,
    message: String,
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    Done,
    UnknownField(&'static [&'static str]),
    UnknownVariant,
    InvalidType,
}

impl DeError {
    fn at(location: &Location, message: impl Into<String>) -> Self {
        DeError {
            location: Some(location.clone()),
            message: message.into(),
            kind: Kind::Done,
        }
    }

    fn from_diagnostic(d: Diagnostic) -> Self {
        DeError {
            location: Some(d.location),
            message: d.message,
            kind: Kind::Done,
        }
    }

    /// Claim an unlocated error for `node`.
    fn locate(mut self, node: &Node) -> Self {
        if self.location.is_none() {
            if matches!(self.kind, Kind::InvalidType) {
                self.message = format!("expected {}, found {}", self.message, node.kind_name());
            }
            self.location = Some(node.location.clone());
            self.kind = Kind::Done;
        }
        self
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(l) => write!(f, "{l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<M: fmt::Display>(msg: M) -> Self {
        DeError {
            location: None,
            message: msg.to_string(),
            kind: Kind::Done,
        }
    }

    fn invalid_type(_unexpected: de::Unexpected, expected: &dyn de::Expected) -> Self {
        DeError {
            location: None,
            message: expected.to_string(),
            kind: Kind::InvalidType,
        }
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        DeError {
            location: None,
            message: field.to_string(),
            kind: Kind::UnknownField(expected),
        }
    }

    fn unknown_variant(variant: &str, _expected: &'static [&'static str]) -> Self {
        DeError {
            location: None,
            message: variant.to_string(),
            kind: Kind::UnknownVariant,
        }
    }

    fn missing_field(field: &'static str) -> Self {
        DeError::custom(format_args!("missing required key `{field}`"))
    }
}

struct Ctx<'a> {
    what: &'a str,
    scalars: &'a dyn ScalarContext,
    unknown: UnknownKeys<'a>,
}

impl Ctx<'_> {
    /// What the mapping at `path` is, for messages: `what` itself or "`a.b[2]` of WHAT".
    fn context(&self, path: &str) -> String {
        if path.is_empty() {
            self.what.to_string()
        } else {
            format!("`{path}` of {}", self.what)
        }
    }
}

/// "friction model" for `FrictionModel`; names with spaces or lower case kept.
fn human(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push(' ');
            }
            out.extend(c.to_lowercase());
        } else if c == '_' {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

fn unknown_key_error(key: &str, location: &Location, context: &str, known: &[&str]) -> DeError {
    let hint = match closest(key, known.iter().copied()) {
        Some(k) => format!(" (did you mean `{k}`?)"),
        None => format!("; known keys: {}", known.join(", ")),
    };
    DeError::at(location, format!("unknown key `{key}` in {context}{hint}"))
}

fn unknown_variant_error(word: &str, location: &Location, what: &str, known: &[&str]) -> DeError {
    let hint = match closest(word, known.iter().copied()) {
        Some(k) => format!(" (did you mean `{k}`?)"),
        None => format!("; expected one of {}", known.join(", ")),
    };
    DeError::at(location, format!("unknown {what} `{word}`{hint}"))
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A node being read.
struct NodeDe<'a> {
    node: &'a Node,
    ctx: &'a Ctx<'a>,
    path: String,
}

impl<'a> NodeDe<'a> {
    fn child(&self, node: &'a Node, path: String) -> NodeDe<'a> {
        NodeDe {
            node,
            ctx: self.ctx,
            path,
        }
    }

    fn expected(&self, what: &str) -> DeError {
        DeError::at(
            &self.node.location,
            format!("expected {what}, found {}", self.node.kind_name()),
        )
    }

    fn scalar_text(&self) -> Result<&'a str, DeError> {
        match &self.node.value {
            Value::Scalar { text, .. } => Ok(text.trim()),
            _ => Err(self.expected("an integer")),
        }
    }

    /// An integer literal, or a number from the scalar context (a formula) that is whole.
    fn integer(&self) -> Result<i128, DeError> {
        let text = self.scalar_text()?;
        if let Ok(v) = self.node.as_i64() {
            return Ok(i128::from(v));
        }
        if text.parse::<i128>().is_ok() {
            return Err(self.expected("an integer that fits 64 bits"));
        }
        let v = self
            .ctx
            .scalars
            .number(self.node)
            .map_err(|_| self.expected("an integer"))?;
        if v.fract() != 0.0 || v.abs() > 9.0e15 {
            if self.node.as_f64().is_ok() {
                return Err(self.expected("an integer"));
            }
            // A formula: its value too.
            return Err(DeError::at(
                &self.node.location,
                format!("expected an integer, found {v} (`{}`)", crate::abbreviate(text)),
            ));
        }
        Ok(v as i128)
    }

    fn ranged(&self, min: i128, max: i128) -> Result<i128, DeError> {
        let v = self.integer()?;
        if v < min || v > max {
            let text = self.scalar_text().unwrap_or_default();
            let want = if min == 0 && max >= i128::from(u32::MAX) {
                "a non-negative integer".to_string()
            } else {
                format!("an integer from {min} to {max}")
            };
            return Err(DeError::at(
                &self.node.location,
                format!("expected {want}, found `{}`", crate::abbreviate(text)),
            ));
        }
        Ok(v)
    }

    fn map(&self, what: &str) -> Result<&'a crate::Map, DeError> {
        match &self.node.value {
            Value::Map(m) => Ok(m),
            _ => Err(DeError::at(
                &self.node.location,
                format!("expected {what} (a mapping), found {}", self.node.kind_name()),
            )),
        }
    }

    fn seq(&self) -> Result<&'a [Node], DeError> {
        match &self.node.value {
            Value::Seq(items) => Ok(items),
            _ => Err(self.expected("a list")),
        }
    }
}

macro_rules! integer {
    ($method:ident, $visit:ident, $t:ty) => {
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
            let v = self.ranged(i128::from(<$t>::MIN), i128::from(<$t>::MAX))?;
            let node = self.node;
            // In range by the check above.
            visitor.$visit(v as $t).map_err(|e: DeError| e.locate(node))
        }
    };
}

impl<'de> Deserializer<'de> for NodeDe<'_> {
    type Error = DeError;

    /// For types that take what they find: null, text, lists and mappings (scalars are text;
    /// formulas cannot be told from words without the target type).
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let node = self.node;
        match &node.value {
            Value::Null => visitor.visit_unit(),
            Value::Scalar { .. } => {
                visitor.visit_string(self.ctx.scalars.text(node).map_err(DeError::from_diagnostic)?)
            }
            Value::Seq(_) => self.deserialize_seq(visitor),
            Value::Map(_) => self.deserialize_map(visitor),
        }
        .map_err(|e: DeError| e.locate(node))
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let b = self.node.as_bool().map_err(DeError::from_diagnostic)?;
        visitor.visit_bool(b).map_err(|e: DeError| e.locate(self.node))
    }

    integer!(deserialize_i8, visit_i8, i8);
    integer!(deserialize_i16, visit_i16, i16);
    integer!(deserialize_i32, visit_i32, i32);
    integer!(deserialize_i64, visit_i64, i64);
    integer!(deserialize_u8, visit_u8, u8);
    integer!(deserialize_u16, visit_u16, u16);
    integer!(deserialize_u32, visit_u32, u32);
    integer!(deserialize_u64, visit_u64, u64);

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let v = self.ctx.scalars.number(self.node).map_err(DeError::from_diagnostic)?;
        visitor.visit_f64(v).map_err(|e: DeError| e.locate(self.node))
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_string(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_string(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let text = self.ctx.scalars.text(self.node).map_err(DeError::from_diagnostic)?;
        visitor.visit_string(text).map_err(|e: DeError| e.locate(self.node))
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, DeError> {
        Err(DeError::at(&self.node.location, "bytes cannot be read from YAML"))
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let node = self.node;
        if node.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
        .map_err(|e: DeError| e.locate(node))
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        if !self.node.is_null() {
            return Err(self.expected("an empty value"));
        }
        visitor.visit_unit().map_err(|e: DeError| e.locate(self.node))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, DeError> {
        let node = self.node;
        if name == NODE {
            HANDOFF.with(|h| *h.borrow_mut() = Some(node.clone()));
            return visitor.visit_unit().map_err(|e: DeError| e.locate(node));
        }
        visitor.visit_newtype_struct(self).map_err(|e: DeError| e.locate(node))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let items = self.seq()?;
        let node = self.node;
        visitor
            .visit_seq(Items {
                parent: &self,
                items,
                next: 0,
            })
            .map_err(|e: DeError| e.locate(node))
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, DeError> {
        let items = self
            .seq()
            .map_err(|_| self.expected(&format!("a list of {len} values")))?;
        if items.len() != len {
            return Err(DeError::at(
                &self.node.location,
                format!("expected a list of {len} values, found {} values", items.len()),
            ));
        }
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let map = self.map("a mapping of names to values")?;
        let node = self.node;
        visitor
            .visit_map(Entries {
                parent: &self,
                entries: &map.entries,
                next: 0,
                known: None,
            })
            .map_err(|e: DeError| e.locate(node))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let node = self.node;
        if name == LOCATED {
            return visitor
                .visit_map(LocatedAccess {
                    de: Some(self),
                    step: 0,
                })
                .map_err(|e: DeError| e.locate(node));
        }
        let map = self.map(&self.ctx.context(&self.path))?;
        visitor
            .visit_map(Entries {
                parent: &self,
                entries: &map.entries,
                next: 0,
                known: Some(fields),
            })
            .map_err(|e| match e.location {
                None if e.message.starts_with("missing required key") => DeError::at(
                    &node.location,
                    format!("{} in {}", e.message, self.ctx.context(&self.path)),
                ),
                _ => e.locate(node),
            })
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let what = human(name);
        let node = self.node;
        let (word, word_location, value) = match &node.value {
            Value::Scalar { .. } => (
                self.ctx.scalars.text(node).map_err(DeError::from_diagnostic)?,
                &node.location,
                None,
            ),
            Value::Map(m) if m.len() == 1 => {
                let e = &m.entries[0];
                (e.key.clone(), &e.key_location, Some(&e.value))
            }
            _ => {
                return Err(self.expected(&format!(
                    "a {what} (one of {}, or a one-key mapping)",
                    variants.join(", ")
                )))
            }
        };
        let path = match value {
            Some(_) => join(&self.path, &word),
            None => self.path.clone(),
        };
        visitor
            .visit_enum(Variant {
                word,
                word_location,
                what,
                variants,
                value: value.map(|v| self.child(v, path)),
                node,
            })
            .map_err(|e: DeError| e.locate(node))
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let text = self.node.as_str().map_err(DeError::from_diagnostic)?.to_string();
        visitor.visit_string(text).map_err(|e: DeError| e.locate(self.node))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }
}

/// A list's items.
struct Items<'p, 'a> {
    parent: &'p NodeDe<'a>,
    items: &'a [Node],
    next: usize,
}

impl<'de> SeqAccess<'de> for Items<'_, '_> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, DeError> {
        let Some(item) = self.items.get(self.next) else {
            return Ok(None);
        };
        let path = format!("{}[{}]", self.parent.path, self.next);
        self.next += 1;
        seed.deserialize(self.parent.child(item, path)).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len() - self.next)
    }
}

/// A mapping's entries; for a struct, `known` are its keys and the others are reported.
struct Entries<'p, 'a> {
    parent: &'p NodeDe<'a>,
    entries: &'a [crate::MapEntry],
    next: usize,
    known: Option<&'static [&'static str]>,
}

impl<'de> MapAccess<'de> for Entries<'_, '_> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, DeError> {
        loop {
            let Some(entry) = self.entries.get(self.next) else {
                return Ok(None);
            };
            let ctx = self.parent.ctx;
            if let Some(known) = self.known.filter(|k| !k.contains(&entry.key.as_str())) {
                let context = ctx.context(&self.parent.path);
                match ctx.unknown {
                    UnknownKeys::Error => {
                        return Err(unknown_key_error(&entry.key, &entry.key_location, &context, known))
                    }
                    UnknownKeys::Warn(sink) => {
                        let hint = closest(&entry.key, known.iter().copied())
                            .map(|k| format!("; did you mean `{k}`?"))
                            .unwrap_or_default();
                        sink.borrow_mut().push(Diagnostic::warning(
                            entry.key_location.clone(),
                            format!("unknown key `{}` in {context} is not read{hint}", entry.key),
                        ));
                        self.next += 1;
                        continue;
                    }
                }
            }
            if self.known.is_some() && entry.value.is_null() {
                // `key:` with no value is the key left out, as `Fields::get_value` reads it.
                self.next += 1;
                continue;
            }
            return seed
                .deserialize(Key {
                    key: &entry.key,
                    location: &entry.key_location,
                })
                .map(Some)
                .map_err(|e| match e.kind {
                    Kind::UnknownField(known) => {
                        unknown_key_error(&entry.key, &entry.key_location, &ctx.context(&self.parent.path), known)
                    }
                    _ => e.locate(&Node {
                        value: Value::Scalar {
                            text: entry.key.clone(),
                            quoted: false,
                        },
                        location: entry.key_location.clone(),
                    }),
                });
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, DeError> {
        let entry = &self.entries[self.next];
        self.next += 1;
        let path = join(&self.parent.path, &entry.key);
        seed.deserialize(self.parent.child(&entry.value, path))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len() - self.next)
    }
}

/// A mapping key: always text as written.
struct Key<'a> {
    key: &'a str,
    location: &'a Location,
}

impl<'de> Deserializer<'de> for Key<'_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_str(self.key)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let key = self.key.to_string();
        let location = self.location;
        visitor
            .visit_enum(key.clone().into_deserializer())
            .map_err(|e: DeError| match e.kind {
                Kind::UnknownVariant => unknown_variant_error(&key, location, &human(name), variants),
                _ => DeError {
                    location: Some(e.location.unwrap_or_else(|| location.clone())),
                    ..e
                },
            })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// An enum value: a variant name, with its value when written as `{variant: value}`.
struct Variant<'a> {
    word: String,
    word_location: &'a Location,
    what: String,
    variants: &'static [&'static str],
    value: Option<NodeDe<'a>>,
    node: &'a Node,
}

impl<'de, 'a> EnumAccess<'de> for Variant<'a> {
    type Error = DeError;
    type Variant = VariantValue<'a>;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, VariantValue<'a>), DeError> {
        let word: de::value::StrDeserializer<'_, DeError> = self.word.as_str().into_deserializer();
        let v = seed.deserialize(word).map_err(|e| match e.kind {
            Kind::UnknownVariant => unknown_variant_error(&self.word, self.word_location, &self.what, self.variants),
            _ => DeError {
                location: Some(e.location.unwrap_or_else(|| self.word_location.clone())),
                ..e
            },
        })?;
        Ok((
            v,
            VariantValue {
                value: self.value,
                word: self.word,
                node: self.node,
            },
        ))
    }
}

struct VariantValue<'a> {
    value: Option<NodeDe<'a>>,
    word: String,
    node: &'a Node,
}

impl VariantValue<'_> {
    fn needs_value(&self) -> DeError {
        DeError::at(
            &self.node.location,
            format!("`{}` needs a value: write it as `{{{}: …}}`", self.word, self.word),
        )
    }
}

impl<'de> VariantAccess<'de> for VariantValue<'_> {
    type Error = DeError;

    fn unit_variant(self) -> Result<(), DeError> {
        match self.value {
            None => Ok(()),
            Some(v) if v.node.is_null() => Ok(()),
            Some(v) => Err(DeError::at(
                &v.node.location,
                format!("`{}` takes no value, found {}", self.word, v.node.kind_name()),
            )),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, DeError> {
        match self.value {
            Some(v) => seed.deserialize(v),
            None => Err(self.needs_value()),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, DeError> {
        match self.value {
            Some(v) => v.deserialize_tuple(len, visitor),
            None => Err(self.needs_value()),
        }
    }

    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], visitor: V) -> Result<V::Value, DeError> {
        match self.value {
            Some(v) => v.deserialize_struct("", fields, visitor),
            None => Err(self.needs_value()),
        }
    }
}

/// The four entries a [`Located`] reads: file, line, column, value.
struct LocatedAccess<'a> {
    de: Option<NodeDe<'a>>,
    step: usize,
}

impl<'de> MapAccess<'de> for LocatedAccess<'_> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, DeError> {
        match LOCATED_FIELDS.get(self.step) {
            Some(name) => seed.deserialize(name.into_deserializer()).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, DeError> {
        self.step += 1;
        let Some(de) = self.de.as_ref() else {
            return Err(de::Error::custom("a located value was read twice"));
        };
        let location = &de.node.location;
        match self.step {
            1 => seed.deserialize(location.file.to_string().into_deserializer()),
            2 => seed.deserialize((location.line as u64).into_deserializer()),
            3 => seed.deserialize((location.col as u64).into_deserializer()),
            _ => match self.de.take() {
                Some(de) => seed.deserialize(de),
                None => Err(de::Error::custom("a located value was read twice")),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;

    use super::*;
    use crate::parse_str;

    #[derive(Debug, Deserialize, PartialEq, Default)]
    #[serde(deny_unknown_fields, default)]
    struct Options {
        iterations: u32,
        tolerance: f64,
        enabled: bool,
        model: FrictionModel,
        name: Option<String>,
        gains: Vec<Gain>,
        limits: BTreeMap<String, f64>,
        offset: Option<Located<f64>>,
    }

    #[derive(Debug, Deserialize, PartialEq, Default)]
    #[serde(deny_unknown_fields)]
    struct Gain {
        joint: String,
        p: f64,
        #[serde(default)]
        d: f64,
    }

    #[derive(Debug, Deserialize, PartialEq, Default, Clone, Copy)]
    #[serde(rename_all = "snake_case")]
    enum FrictionModel {
        #[default]
        Simplified,
        Coulomb,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "snake_case")]
    enum Shape {
        Point,
        Sphere { radius: f64 },
        Offset([f64; 3]),
    }

    fn read<T: DeserializeOwned>(text: &str) -> Result<T, Diagnostic> {
        from_node(&parse_str(text, "o.yaml").expect("yaml"), "the options")
    }

    fn err<T: DeserializeOwned + fmt::Debug>(text: &str) -> String {
        read::<T>(text).expect_err("an error").to_string()
    }

    #[test]
    fn reads_structs_enums_options_lists_maps_and_yaml_11_booleans() {
        let o: Options = read(
            "iterations: 0x10\ntolerance: 1e-6\nenabled: yes\nmodel: coulomb\nname: a\n\
             gains: [{joint: k, p: 2}]\nlimits: {x: 1, y: -2.5}\noffset: 3\n",
        )
        .expect("valid");
        assert_eq!(o.iterations, 16);
        assert!(o.enabled);
        assert_eq!(o.model, FrictionModel::Coulomb);
        assert_eq!(o.name.as_deref(), Some("a"));
        assert_eq!(
            o.gains,
            [Gain {
                joint: "k".into(),
                p: 2.0,
                d: 0.0
            }]
        );
        assert_eq!(o.limits.get("y"), Some(&-2.5));
        let offset = o.offset.expect("offset");
        assert_eq!((*offset, offset.location.to_string()), (3.0, "o.yaml:8:9".to_string()));
        let empty: Options = read("name:\ntolerance: ~\ngains:\n").expect("null is absent");
        assert_eq!(empty, Options::default());
        let shapes: Vec<Shape> = read("[point, {sphere: {radius: 0.5}}, {offset: [1, 2, 3]}]").expect("enums");
        assert_eq!(
            shapes,
            [
                Shape::Point,
                Shape::Sphere { radius: 0.5 },
                Shape::Offset([1.0, 2.0, 3.0])
            ]
        );
        let node: Vec<Node> = read("[a, {b: 1}]").expect("nodes");
        assert_eq!(node[1].location.to_string(), "o.yaml:1:5");
    }

    #[test]
    fn wrong_types_are_located_at_the_value() {
        assert_eq!(
            err::<Options>("tolerance: fast\n"),
            "o.yaml:1:12: expected a number, found `fast`"
        );
        assert_eq!(
            err::<Options>("tolerance: .inf\n"),
            "o.yaml:1:12: expected a finite number, found `.inf`"
        );
        assert_eq!(
            err::<Options>("enabled: maybe\n"),
            "o.yaml:1:10: expected true or false, found `maybe`"
        );
        assert_eq!(
            err::<Options>("iterations: -1\n"),
            "o.yaml:1:13: expected a non-negative integer, found `-1`"
        );
        assert_eq!(
            err::<Options>("iterations: 2.5\n"),
            "o.yaml:1:13: expected an integer, found `2.5`"
        );
        assert_eq!(
            err::<Options>("gains: {joint: k}\n"),
            "o.yaml:1:8: expected a list, found a mapping"
        );
        assert_eq!(
            err::<[f64; 3]>("[1, 2]\n"),
            "o.yaml:1:1: expected a list of 3 values, found 2 values"
        );
        assert_eq!(
            err::<Options>("- 1\n"),
            "o.yaml:1:1: expected the options (a mapping), found a list"
        );
        let e = read::<u8>("300").expect_err("range").to_string();
        assert_eq!(e, "o.yaml:1:1: expected an integer from 0 to 255, found `300`");
    }

    #[test]
    fn unknown_keys_and_variants_suggest_the_closest_name() {
        assert_eq!(
            err::<Options>("iterations: 4\niteration: 2\n"),
            "o.yaml:2:1: unknown key `iteration` in the options (did you mean `iterations`?)"
        );
        assert_eq!(
            err::<Options>("model: colomb\n"),
            "o.yaml:1:8: unknown friction model `colomb` (did you mean `coulomb`?)"
        );
        assert_eq!(
            err::<Options>("model: zzz\n"),
            "o.yaml:1:8: unknown friction model `zzz`; expected one of simplified, coulomb"
        );
        assert_eq!(
            err::<Vec<Shape>>("[{spere: {radius: 1}}]\n"),
            "o.yaml:1:3: unknown shape `spere` (did you mean `sphere`?)"
        );
        assert_eq!(
            err::<Vec<Shape>>("[sphere]\n"),
            "o.yaml:1:2: `sphere` needs a value: write it as `{sphere: …}`"
        );
    }

    #[test]
    fn missing_fields_and_nested_errors_name_the_path() {
        assert_eq!(
            err::<Options>("gains:\n  - {joint: a, p: 1}\n  - {joint: b}\n"),
            "o.yaml:3:5: missing required key `p` in `gains[1]` of the options"
        );
        assert_eq!(
            err::<Options>("gains:\n  - {joint: a, p: 1, dd: 2}\n"),
            "o.yaml:2:22: unknown key `dd` in `gains[0]` of the options (did you mean `d`?)"
        );
        assert_eq!(
            err::<Options>("gains:\n  - {joint: a, p: [1]}\n"),
            "o.yaml:2:19: expected a number, found a list"
        );
        assert_eq!(
            err::<Vec<Shape>>("[{sphere: {radius: 1, radis: 2}}]\n"),
            "o.yaml:1:23: unknown key `radis` in `[0].sphere` of the options (did you mean `radius`?)"
        );
    }

    #[test]
    fn unknown_keys_may_be_warnings_and_scalars_go_through_the_context() {
        struct Doubled;
        impl ScalarContext for Doubled {
            fn number(&self, node: &Node) -> Result<f64, Diagnostic> {
                match node.as_str()? {
                    "two" => Ok(2.0),
                    _ => node.as_finite().map(|v| 2.0 * v),
                }
            }
            fn text(&self, node: &Node) -> Result<String, Diagnostic> {
                node.as_str().map(|s| s.replace("${X}", "x"))
            }
        }
        let warnings = RefCell::new(Vec::new());
        let node = parse_str(
            "tolerance: two\niterations: two\nname: a${X}\nenabeld: true\n",
            "o.yaml",
        )
        .expect("yaml");
        let o: Options = from_node_with(&node, "the options", &Doubled, UnknownKeys::Warn(&warnings)).expect("valid");
        assert_eq!((o.tolerance, o.iterations, o.name.as_deref()), (2.0, 2, Some("ax")));
        let warnings: Vec<String> = warnings.take().iter().map(ToString::to_string).collect();
        assert_eq!(
            warnings,
            ["o.yaml:4:1: warning: unknown key `enabeld` in the options is not read; did you mean `enabled`?"]
        );
    }
}
