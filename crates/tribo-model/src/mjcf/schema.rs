//! The attributes MuJoCo's XML schema allows on the elements the import reads, so a misspelt
//! attribute (`frictoin="0.5"`) is an error naming the closest one, as MuJoCo's own parser
//! refuses it, instead of a value silently lost. Attributes that would change the model in ways
//! tribo cannot follow are refused by name ([`refuse_unsupported`]).

use tribo_yaml::{Diagnostic, Error};

use super::xml::Element;

const BODY: &[&str] = &[
    "name",
    "childclass",
    "pos",
    "quat",
    "mocap",
    "axisangle",
    "xyaxes",
    "zaxis",
    "euler",
    "gravcomp",
    "user",
    "sleep",
];

const GEOM: &[&str] = &[
    "name",
    "class",
    "type",
    "contype",
    "conaffinity",
    "condim",
    "group",
    "priority",
    "size",
    "material",
    "friction",
    "mass",
    "density",
    "shellinertia",
    "solmix",
    "solref",
    "solimp",
    "margin",
    "gap",
    "fromto",
    "pos",
    "quat",
    "axisangle",
    "xyaxes",
    "zaxis",
    "euler",
    "hfield",
    "mesh",
    "fitscale",
    "rgba",
    "fluidshape",
    "fluidcoef",
    "user",
];

const JOINT: &[&str] = &[
    "name",
    "class",
    "type",
    "group",
    "pos",
    "axis",
    "springdamper",
    "limited",
    "actuatorfrclimited",
    "solreflimit",
    "solimplimit",
    "solreffriction",
    "solimpfriction",
    "stiffness",
    "range",
    "actuatorfrcrange",
    "actuatorgravcomp",
    "margin",
    "ref",
    "springref",
    "armature",
    "damping",
    "frictionloss",
    "user",
];

const FREEJOINT: &[&str] = &["name", "group", "align"];

const INERTIAL: &[&str] = &[
    "pos",
    "quat",
    "mass",
    "diaginertia",
    "axisangle",
    "xyaxes",
    "zaxis",
    "euler",
    "fullinertia",
];

const MESH: &[&str] = &[
    "name",
    "class",
    "content_type",
    "file",
    "vertex",
    "normal",
    "texcoord",
    "face",
    "refpos",
    "refquat",
    "scale",
    "smoothnormal",
    "maxhullvert",
    "inertia",
    "builtin",
    "params",
    "material",
];

/// The attributes `tag` allows, for the tags the import reads; `None` for others.
fn allowed(tag: &str) -> Option<&'static [&'static str]> {
    Some(match tag {
        "body" => BODY,
        "geom" => GEOM,
        "joint" => JOINT,
        "freejoint" => FREEJOINT,
        "inertial" => INERTIAL,
        "mesh" => MESH,
        _ => return None,
    })
}

/// An error for an attribute the element's tag does not have, or one the import cannot follow.
pub(crate) fn check_attributes(element: &Element) -> Result<(), Error> {
    let Some(names) = allowed(&element.tag) else {
        return Ok(());
    };
    for attr in &element.attrs {
        if !names.contains(&attr.name.as_str()) {
            let hint = tribo_yaml::did_you_mean(&attr.name, names.iter().copied());
            return Err(Diagnostic::error(
                attr.name_at.clone(),
                format!("<{}> has no attribute `{}`{hint}", element.tag, attr.name),
            ));
        }
    }
    refuse_unsupported(element)
}

/// Attributes the import cannot follow: a shell geom's or mesh's inertia, a mesh's convex-hull
/// inertia, mesh reference frames, vertices given inline, and gravity compensation.
fn refuse_unsupported(element: &Element) -> Result<(), Error> {
    for attr in &element.attrs {
        let why = match (element.tag.as_str(), attr.name.as_str(), attr.value.trim()) {
            ("geom", "shellinertia", "true") => "shell inertia is not supported (geoms are solids)",
            ("mesh", "inertia", "shell" | "convex") => {
                "only a mesh's solid inertia (`exact`, or `legacy`, which is the same for a closed mesh) is supported"
            }
            ("mesh", "refpos" | "refquat" | "vertex" | "face" | "builtin", _) => {
                "meshes are read from STL or OBJ files as they are (no inline vertices, generated meshes or reference frames)"
            }
            ("body", "gravcomp", value) if value.parse::<f64>() != Ok(0.0) => {
                "gravity compensation is not supported"
            }
            ("body", "mocap", "true") => "mocap bodies are not supported",
            _ => continue,
        };
        return Err(Diagnostic::error(
            attr.at.clone(),
            format!("<{} {}=\"{}\">: {why}", element.tag, attr.name, attr.value),
        ));
    }
    Ok(())
}
