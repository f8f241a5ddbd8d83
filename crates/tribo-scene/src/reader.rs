//! Reading project values: numbers that may be formulas, text with `${…}` variables, paths.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use nalgebra::{Unit, UnitQuaternion, Vector3};
use serde::de::DeserializeOwned;
use tribo_material::MaterialTable;
use tribo_yaml::{closest, Diagnostic, Fields, Location, Node, ScalarContext, UnknownKeys, Value};

use crate::expr::{evaluate, ExprContext};
use crate::params::Parameters;

/// Everything a value in a project file may refer to.
pub struct Reader<'a> {
    pub parameters: &'a Parameters,
    pub share_dir: &'a Path,
    pub project_dir: &'a Path,
    /// Standard gravity magnitude for the `g` constant, m/s².
    pub g: f64,
    /// The merged table, once loaded (material functions in formulas need it).
    pub materials: Option<&'a MaterialTable>,
    /// Warnings collected while reading (keys nothing reads).
    pub warnings: RefCell<Vec<Diagnostic>>,
}

impl Reader<'_> {
    /// A warning for every key of `fields` that nothing read, with the closest known key.
    pub fn warn_unknown(&self, fields: &Fields, context: &str, known: &[&str]) {
        self.warnings
            .borrow_mut()
            .extend(fields.unknown_key_warnings(context, known));
    }

    /// `node` read into a `#[derive(Deserialize)]` type (`tribo_yaml::from_node_with`): numbers
    /// may be formulas, text may use variables, and keys the type does not have are warnings
    /// ("unknown key `x` in WHAT is not read; did you mean `y`?").
    pub fn read<T: DeserializeOwned>(&self, node: &Node, what: &str) -> Result<T, Diagnostic> {
        tribo_yaml::from_node_with(node, what, self, UnknownKeys::Warn(&self.warnings))
    }

    /// A number: a literal, or a formula of the parameters (see [`crate::expr`]). A literal that
    /// is a number but not finite (`.inf`, `1e400`) is an error, not a formula; a formula's error
    /// is located at its character (columns count characters, as tribo-yaml's do).
    pub fn number(&self, node: &Node) -> Result<f64, Diagnostic> {
        match node.as_f64() {
            Ok(v) if v.is_finite() => return Ok(v),
            Ok(_) => return node.as_finite(),
            Err(_) => {}
        }
        let Value::Scalar { text, quoted } = &node.value else {
            return Err(node.error(format!("expected a number or a formula, found {}", node.kind_name())));
        };
        evaluate(text, self).map_err(|e| {
            let shift = e.offset + usize::from(*quoted);
            let location = Location {
                col: node.location.col + shift,
                ..node.location.clone()
            };
            Diagnostic::error(location, e.message)
        })
    }

    /// A number that must be positive.
    pub fn positive(&self, node: &Node, what: &str) -> Result<f64, Diagnostic> {
        let v = self.number(node)?;
        if v > 0.0 {
            Ok(v)
        } else {
            Err(node.error(format!("{what} must be positive, found {v}")))
        }
    }

    /// A list of exactly three numbers (each may be a formula).
    pub fn vec3(&self, node: &Node) -> Result<Vector3<f64>, Diagnostic> {
        let items = node
            .as_seq()
            .map_err(|_| node.error(format!("expected a list of 3 numbers, found {}", node.kind_name())))?;
        if items.len() != 3 {
            return Err(node.error(format!("expected a list of 3 numbers, found {} values", items.len())));
        }
        Ok(Vector3::new(
            self.number(&items[0])?,
            self.number(&items[1])?,
            self.number(&items[2])?,
        ))
    }

    /// A translation: `[x, y, z]`, or a list of such vectors composed in order (summed), as a
    /// `.body` `translation` may be written (tribo-model's `read_translation`). Each number may be
    /// a formula.
    pub fn translation(&self, node: &Node) -> Result<Vector3<f64>, Diagnostic> {
        let items = node.as_seq().map_err(|_| {
            node.error(format!(
                "expected a translation [x, y, z] or a list of them, found {}",
                node.kind_name()
            ))
        })?;
        if !items.first().is_some_and(|n| matches!(n.value, Value::Seq(_))) {
            return self.vec3(node);
        }
        let mut sum = Vector3::zeros();
        for item in items {
            sum += self.vec3(item)?;
        }
        if sum.iter().all(|v| v.is_finite()) {
            Ok(sum)
        } else {
            Err(node.error("the translation is too large to represent"))
        }
    }

    /// A rotation written as an axis-angle `[ax, ay, az, angle_deg]` (degrees, like a `.cnoid`
    /// `root_rotation`) or a list of such, composed left to right.
    pub fn rotation_deg(&self, node: &Node) -> Result<UnitQuaternion<f64>, Diagnostic> {
        let items = node.as_seq()?;
        if items.first().is_some_and(|n| matches!(n.value, Value::Seq(_))) {
            let mut r = UnitQuaternion::identity();
            for item in items {
                r *= self.rotation_deg(item)?;
            }
            return Ok(r);
        }
        if items.len() != 4 {
            return Err(node.error(format!(
                "expected an axis-angle [ax, ay, az, degrees] (4 numbers), found {} values",
                items.len()
            )));
        }
        let axis = Vector3::new(
            self.number(&items[0])?,
            self.number(&items[1])?,
            self.number(&items[2])?,
        );
        let angle = self.number(&items[3])?.to_radians();
        if angle == 0.0 {
            return Ok(UnitQuaternion::identity());
        }
        let axis = Unit::try_new(axis, 1e-12).ok_or_else(|| node.error("the rotation axis must not be zero"))?;
        Ok(UnitQuaternion::from_axis_angle(&axis, angle))
    }

    /// Text with `${SHARE}`, `${PROJECT_DIR}` and `${parameter}` replaced.
    pub fn text(&self, node: &Node) -> Result<String, Diagnostic> {
        let raw = node.as_str()?;
        let mut out = String::new();
        let mut rest = raw;
        let mut offset = 0;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = after
                .find('}')
                .ok_or_else(|| node.error(format!("unclosed `${{` in `{raw}`")))?;
            let name = &after[..end];
            out.push_str(&self.variable_text(name).ok_or_else(|| {
                let mut known = vec!["SHARE".to_string(), "PROJECT_DIR".to_string()];
                known.extend(self.parameters.list.iter().map(|p| p.name.clone()));
                let hint = closest(name, known.iter().map(String::as_str))
                    .map(|c| format!(" (did you mean `{c}`?)"))
                    .unwrap_or_default();
                let col = node.location.col + raw[..offset + start + 2].chars().count();
                Diagnostic::error(
                    Location {
                        col,
                        ..node.location.clone()
                    },
                    format!("unknown variable `${{{name}}}`{hint}"),
                )
            })?);
            offset += start + 2 + end + 1;
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// A file path: variables replaced, relative paths taken from the project's directory.
    pub fn path(&self, node: &Node) -> Result<PathBuf, Diagnostic> {
        let text = self.text(node)?;
        let path = PathBuf::from(&text);
        Ok(if path.is_absolute() {
            path
        } else {
            self.project_dir.join(path)
        })
    }

    /// The `.seq` motion a node names (a path as [`Reader::path`] reads it); a file that cannot be
    /// opened is an error located at the node, an error inside the file keeps its own location.
    pub fn motion(&self, node: &Node) -> Result<(PathBuf, tribo_model::JointMotion), Diagnostic> {
        let path = self.path(node)?;
        let motion = tribo_model::load_motion(&path).map_err(|e| {
            if e.location.line == 0 {
                node.error(format!("cannot load motion `{}`: {}", path.display(), e.message))
            } else {
                e
            }
        })?;
        Ok((path, motion))
    }

    /// `${PROJECT_DIR}`: the project's directory as an absolute path, so that it means the same
    /// wherever the expanded text is used.
    fn project_dir_text(&self) -> String {
        std::path::absolute(self.project_dir)
            .unwrap_or_else(|_| self.project_dir.to_path_buf())
            .display()
            .to_string()
    }

    fn variable_text(&self, name: &str) -> Option<String> {
        match name {
            "SHARE" => Some(self.share_dir.display().to_string()),
            "PROJECT_DIR" => Some(self.project_dir_text()),
            // A parameter's text may itself use `${SHARE}` and `${PROJECT_DIR}` (one level deep).
            _ => self.parameters.get(name).map(|v| {
                v.display()
                    .replace("${SHARE}", &self.share_dir.display().to_string())
                    .replace("${PROJECT_DIR}", &self.project_dir_text())
            }),
        }
    }
}

/// Numbers and text in types read with [`Reader::read`]: [`Reader::number`] and [`Reader::text`].
impl ScalarContext for Reader<'_> {
    fn number(&self, node: &Node) -> Result<f64, Diagnostic> {
        Reader::number(self, node)
    }

    fn text(&self, node: &Node) -> Result<String, Diagnostic> {
        Reader::text(self, node)
    }
}

impl ExprContext for Reader<'_> {
    fn variable(&self, name: &str) -> Option<f64> {
        if let Some(value) = self.parameters.get(name) {
            return value.as_number();
        }
        match name {
            "g" => Some(self.g),
            "pi" => Some(std::f64::consts::PI),
            _ => None,
        }
    }

    fn not_a_number(&self, name: &str) -> Option<String> {
        match self.parameters.get(name)? {
            crate::ParamValue::Text(t) => Some(format!("parameter `{name}` is a word (`{t}`), not a number")),
            crate::ParamValue::Number(_) => None,
        }
    }

    fn variable_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.parameters.list.iter().map(|p| p.name.clone()).collect();
        names.extend(["g".to_string(), "pi".to_string()]);
        names
    }

    fn material_property(&self, property: &str, a: &str, b: &str) -> Result<f64, String> {
        let table = self
            .materials
            .ok_or("material functions cannot be used before the materials are loaded")?;
        let params = table.contact(a, b);
        Ok(match property {
            "restitution" => params.restitution,
            "dynamic_friction" => params.dynamic_friction,
            _ => params.static_friction,
        })
    }
}
