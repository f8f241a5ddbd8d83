//! Per-engine options from the project file (`engine_options: {NAME: {...}}`).

use tribo_yaml::{Diagnostic, Fields, Node};

/// The options block for one engine, if the project gave one. Engines read it with
/// [`EngineOptions::fields`] and reject unknown keys with a located error.
#[derive(Debug, Clone, Default)]
pub struct EngineOptions {
    pub node: Option<Node>,
}

impl EngineOptions {
    pub fn none() -> Self {
        EngineOptions { node: None }
    }

    /// The options mapping, or `None` when the project gave none.
    pub fn fields(&self) -> Result<Option<Fields<'_>>, Diagnostic> {
        self.node
            .as_ref()
            .filter(|n| !n.is_null())
            .map(|n| Fields::new(n, "engine options"))
            .transpose()
    }
}
