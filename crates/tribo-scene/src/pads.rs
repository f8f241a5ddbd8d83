//! `pads:` — CSLC pads a project lays over links, so Choreonoid models get pads without editing
//! their body files:
//!
//! ```yaml
//! pads:
//!   - {body: gripper, link: left_finger, shape: flat, resolution: [15, 15], spacing: 0.002,
//!      translation: [0, 0.01, 0], rotation: [1, 0, 0, -90]}
//! ```
//! The pad keys are those of a body file's `pad:` (tribo-model `read_project_pad`; angles in
//! degrees); values may use `${parameter}` and formulas.

use tribo_yaml::{Diagnostic, Fields, Node, Value};

use crate::bodies::{read_link_ref, BodyEntry};
use crate::reader::Reader;
use crate::ScenePad;

/// One `pads:` entry.
pub fn read_pad(node: &Node, bodies: &[BodyEntry], reader: &Reader) -> Result<ScenePad, Diagnostic> {
    let resolved = resolve(node, reader)?;
    let f = Fields::new(&resolved, "a pad")?;
    let link = read_link_ref(&f, bodies, reader)?;
    let spec = tribo_model::read_project_pad(&resolved, &["body", "link"])?;
    Ok(ScenePad { link, spec })
}

/// A copy of `node` whose scalars have their `${…}` variables replaced and their formulas
/// evaluated (a scalar that is neither stays text, e.g. a shape name).
fn resolve(node: &Node, reader: &Reader) -> Result<Node, Diagnostic> {
    let value = match &node.value {
        Value::Scalar { text, quoted } => {
            if node.as_finite().is_ok() || *quoted && !text.contains("${") {
                node.value.clone()
            } else {
                let expanded = reader.text(node)?;
                let as_text = Node {
                    value: Value::Scalar {
                        text: expanded.clone(),
                        quoted: false,
                    },
                    location: node.location.clone(),
                };
                let is_name = expanded.chars().all(|c| c.is_alphanumeric() || c == '_');
                let text = match reader.number(&as_text) {
                    Ok(v) if !is_name || expanded.parse::<f64>().is_ok() => format!("{v:?}"),
                    _ => expanded,
                };
                Value::Scalar { text, quoted: false }
            }
        }
        Value::Seq(items) => Value::Seq(items.iter().map(|n| resolve(n, reader)).collect::<Result<_, _>>()?),
        Value::Map(map) => {
            let mut map = map.clone();
            for entry in &mut map.entries {
                entry.value = resolve(&entry.value, reader)?;
            }
            Value::Map(map)
        }
        other => other.clone(),
    };
    Ok(Node {
        value,
        location: node.location.clone(),
    })
}
