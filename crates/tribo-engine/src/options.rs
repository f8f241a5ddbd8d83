//! Per-engine options from the project file (`engine_options: {NAME: {...}}`).

use std::fmt::Display;

use serde::de::DeserializeOwned;
use tribo_yaml::{Diagnostic, Location, Node};

use crate::BuildError;

/// The options block for one engine, if the project gave one. Engines read it into a
/// `#[derive(Deserialize)]` struct with [`EngineOptions::parse`] (or [`EngineOptions::read`]) and
/// check ranges with [`EngineOptions::check`]; every error names the file, line and column.
#[derive(Debug, Clone, Default)]
pub struct EngineOptions {
    pub node: Option<Node>,
}

impl EngineOptions {
    pub fn none() -> Self {
        EngineOptions { node: None }
    }

    /// The options block as a `T`: `T::default()` when the project gave none (or an empty one),
    /// else the block read with `tribo_yaml::from_node` — a located error for an unknown key
    /// (with the closest known key), an unknown variant or a value of the wrong type.
    pub fn parse<T: DeserializeOwned + Default>(&self, engine: &str) -> Result<T, BuildError> {
        self.read(engine).map_err(BuildError::Option)
    }

    /// [`parse`](Self::parse) with the bare diagnostic.
    pub fn read<T: DeserializeOwned + Default>(&self, engine: &str) -> Result<T, Diagnostic> {
        self.read_as(&format!("the {engine} engine options"))
    }

    /// The block as a `T`, errors naming it `what` ("the `cslc` block of material `Skin`").
    pub fn read_as<T: DeserializeOwned + Default>(&self, what: &str) -> Result<T, Diagnostic> {
        match self.block() {
            None => Ok(T::default()),
            Some(node) => tribo_yaml::from_node(node, what),
        }
    }

    /// An engine-specific block of a material (`cslc: {...}`), read like engine options.
    pub fn material_block(material: &tribo_material::Material, key: &str) -> Self {
        EngineOptions {
            node: material.extras.get(key).cloned(),
        }
    }

    /// A rule on the value read from `key`: when `ok` is false, "`KEY` RULE, found VALUE" located
    /// at the value as written (`"must be positive"`, `"must lie in (0, 2)"`).
    pub fn check(&self, key: &str, value: impl Display, ok: bool, rule: &str) -> Result<(), Diagnostic> {
        if ok {
            Ok(())
        } else {
            Err(self.error_at(key, format!("`{key}` {rule}, found {value}")))
        }
    }

    /// An error located at the value of `key` (at the block when the key is absent, a default).
    pub fn error_at(&self, key: &str, message: impl Into<String>) -> Diagnostic {
        let location = match self.block() {
            Some(node) => node
                .as_map()
                .ok()
                .and_then(|m| m.get(key))
                .map_or_else(|| node.location.clone(), |n| n.location.clone()),
            None => Location::file("engine options"),
        };
        Diagnostic::error(location, message)
    }

    fn block(&self) -> Option<&Node> {
        self.node.as_ref().filter(|n| !n.is_null())
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Default, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    struct Options {
        iterations: usize,
        erp: f64,
    }

    fn options(text: &str) -> EngineOptions {
        EngineOptions {
            node: Some(tribo_yaml::parse_str(text, "p.yaml").expect("yaml")),
        }
    }

    #[test]
    fn parses_checks_and_locates() {
        assert_eq!(
            EngineOptions::none().parse::<Options>("x").ok(),
            Some(Options::default())
        );
        assert_eq!(options("~").parse::<Options>("x").ok(), Some(Options::default()));
        let o = options("iterations: 3\nerp: 1.5\n");
        let parsed: Options = o.read("x").expect("valid");
        assert_eq!(parsed.iterations, 3);
        let err = o.check("erp", parsed.erp, parsed.erp <= 1.0, "must lie in [0, 1]");
        assert_eq!(
            err.expect_err("out of range").to_string(),
            "p.yaml:2:6: `erp` must lie in [0, 1], found 1.5"
        );
        let err = options("iteration: 3\n")
            .parse::<Options>("x")
            .expect_err("unknown key");
        assert_eq!(
            err.to_string(),
            "p.yaml:1:1: unknown key `iteration` in the x engine options (did you mean `iterations`?)"
        );
    }
}
