//! The top level of a `.body` file (docs/design/choreonoid-formats.md §2.1–2.2; StdBodyLoader
//! `checkFormat`, `readBody`, StdSceneReader `readHeader`).

use tribo_yaml::{Diagnostic, Error, Fields, Node};

use super::units::AngleUnit;

/// What the top level says before the links are read.
pub struct Header<'a> {
    pub unit: AngleUnit,
    /// `name`, if given (else the caller uses the file stem).
    pub name: Option<String>,
    pub links: &'a Node,
    pub root_link: Option<&'a Node>,
    /// `extra_joints`, read once the links are known.
    pub extra_joints: Option<&'a Node>,
}

/// Format versions from this one on are rejected, as by Choreonoid.
const UNSUPPORTED_VERSION: f64 = 2.1;

pub fn read_header<'a>(doc: &'a Node, notes: &mut Vec<Diagnostic>) -> Result<Header<'a>, Error> {
    let f = Fields::new(doc, "a body file")?;
    match f.get_value(&["format"]) {
        Some(node) => {
            let format = node.as_str()?;
            if format != "ChoreonoidBody" {
                return Err(node.error(format!("unsupported body format `{format}`; expected `ChoreonoidBody`")));
            }
        }
        None => {
            if let Some(node) = f.get_value(&["model_file", "modelFile"]) {
                return Err(node.error(
                    "unsupported: model_file bodies (a body file that wraps another model file) are not loaded; \
                     write the model in the ChoreonoidBody format",
                ));
            }
            return Err(doc.error("missing `format: ChoreonoidBody`"));
        }
    }
    let version_node = f.required(&["format_version", "formatVersion"])?;
    let version = version_node.as_finite()?;
    if version >= UNSUPPORTED_VERSION {
        return Err(version_node.error(format!(
            "ChoreonoidBody format version {version} is not supported (versions below {UNSUPPORTED_VERSION})"
        )));
    }
    let unit = match f.get_value(&["angle_unit", "angleUnit"]) {
        None => AngleUnit::Degree,
        Some(node) => match node.as_str()? {
            "degree" => AngleUnit::Degree,
            "radian" if version < 2.0 => AngleUnit::Radian,
            "radian" => {
                return Err(node.error(format!(
                    "`angle_unit: radian` is not allowed in format version {version} (only below 2.0); use degree"
                )))
            }
            other => return Err(node.error(format!("unknown angle unit `{other}`; expected `degree` or `radian`"))),
        },
    };
    let name = f
        .get_value(&["name"])
        .map(|n| n.as_name().map(str::to_string))
        .transpose()?;
    let links = f.required(&["links"])?;
    let root_link = f.get_value(&["root_link", "rootLink"]);
    let extra_joints = f.get_value(&["extra_joints", "extraJoints"]);
    if let Some(node) = f.get_value(&["body_handlers"]) {
        notes.push(node.warning("body_handlers (Choreonoid plugins) are ignored"));
    }
    Ok(Header {
        unit,
        name,
        links,
        root_link,
        extra_joints,
    })
}
