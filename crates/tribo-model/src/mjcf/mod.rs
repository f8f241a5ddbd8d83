//! MuJoCo MJCF models (`.xml` files whose root is `<mujoco>`) as [`Body`] models: the common
//! subset — bodies, joints, geoms including meshes, inertials, default classes, includes — read
//! as MuJoCo's XML reference describes it, and geom friction offered as a material table.
//!
//! **Parser.** The XML is read with `roxmltree`, and MJCF's semantics are implemented here. The
//! crate `mjcf-rs` (0.34, published beside `rapier3d-mjcf`) was evaluated first: it keeps numbers
//! in f64 (glam's `DVec3`/`DQuat` through `glamx`), resolves includes, default classes and angle
//! units, and reads Euler sequences, `xyaxes` and `zaxis`; but its errors carry no line or column
//! (every tribo format reports `FILE:LINE:COL`, and some of its errors name no element at all),
//! it needs Rust 1.86 and edition 2024 where tribo builds with 1.85, and it brings glam types beside
//! tribo's nalgebra. `roxmltree` is small, has one dependency (`memchr`) and gives every element's
//! and attribute's text position, so errors here point at the attribute at fault.
//!
//! **Mapping** (module docs of each part):
//! - [`compiler`]: `<compiler angle eulerseq meshdir assetdir inertiafromgeom autolimits>`;
//!   angles are degrees unless `angle="radian"`;
//! - [`defaults`]: `<default>` classes, nested, chosen by `class` and the bodies' `childclass`;
//! - [`frame`]: `pos` with `quat`, `axisangle`, `euler`, `xyaxes` or `zaxis`;
//! - [`tree`]: `<worldbody>` and `<body>` as links, `<inertial>` or the geoms' mass;
//! - [`joint`]: `hinge` and `slide` joints (range, limits, `pos`, `ref`), `<freejoint>` on the
//!   root as tribo's floating base; `ball` joints and several joints per body refused;
//! - [`geom`]: plane, sphere, capsule, cylinder, box, ellipsoid and mesh geoms (`size`, `fromto`,
//!   `density`, `mass`), MuJoCo's z axis of capsules and cylinders turned onto tribo's y;
//! - [`assets`]: `<asset><mesh file scale>` read with tribo's STL and OBJ readers;
//! - [`friction`]: per-geom `friction` as link materials and a material table;
//! - [`schema`]: the attributes each element may have (a misspelt one is an error);
//! - [`xml`]: the located element tree, `<include file>` expanded.
//!
//! What MuJoCo has and tribo does not use is noted on the body ([`Body::notes`]), never dropped
//! silently: `<option>` (a project sets the time step and gravity), actuators, sensors, tendons,
//! equality constraints, contact pairs and exclusions, keyframes, flexes (`<deformable>`), and the
//! geom contact parameters `solref`, `solimp`, `condim`, `priority`, `solmix`, `margin` and `gap`
//! (tribo's contacts follow the project's materials and engine). What would change the model in a
//! way tribo cannot follow is refused at its line: ball joints, several joints in one body, height
//! fields, mesh-less or shell inertia, mass-changing compiler settings, misspelt elements and
//! attributes.
//!
//! **MuJoCo's friction in a tribo run**, step by step:
//! 1. each link's material is `mjcf_mu_<μ>`, μ the sliding friction of its first colliding geom
//!    with its decimal point written `_` (`mjcf_mu_0_5`; a link whose geoms differ is noted);
//! 2. `tribo check robot.xml` lists every geom's friction and prints a material table, and
//!    `tribo check project.yaml` one for all the project's MJCF bodies (in code:
//!    [`MjcfModel::friction_table`], [`friction_table`]): one material per friction value, and
//!    every pair's `friction` the larger of the two, MuJoCo's rule;
//! 3. the project lists that table under `materials:`; a pair with a material outside it (a tribo
//!    floor's `Ground`) needs its own `contact_materials` entry, or falls back to tribo's rule.

mod assets;
mod compiler;
mod defaults;
mod frame;
mod friction;
mod geom;
mod joint;
mod schema;
mod tree;
mod xml;

use std::path::Path;
use std::sync::Arc;

use tribo_yaml::{Diagnostic, Error, Location};

pub use friction::friction_table;

use crate::Body;
use xml::Element;

/// The friction MuJoCo gives one colliding geom, and the tribo material its link takes for it.
#[derive(Debug, Clone, PartialEq)]
pub struct GeomFriction {
    /// The link (MuJoCo body, or `world`) the geom belongs to.
    pub link: String,
    /// The geom's `name`, else `geom N` (N counts the body's geoms from 1).
    pub geom: String,
    /// Where the geom is written.
    pub location: Location,
    /// Sliding, torsional and rolling friction (MuJoCo's defaults `1 0.005 0.0001` where the file
    /// gives fewer numbers).
    pub friction: [f64; 3],
    /// The material of the link, `mjcf_mu_<slide>` of its first colliding geom (tribo's materials
    /// are per link; the link notes a geom whose friction differs).
    pub material: String,
}

/// An MJCF model read: the body and the friction of its colliding geoms.
#[derive(Debug, Clone)]
pub struct MjcfModel {
    pub body: Body,
    pub frictions: Vec<GeomFriction>,
}

impl MjcfModel {
    /// A material table giving this model's contacts MuJoCo's friction ([`friction_table`]).
    pub fn friction_table(&self) -> String {
        friction_table(&self.frictions)
    }

    /// What `tribo check` prints about friction: each colliding geom's MuJoCo friction and the
    /// material its link takes, then the material table that gives the contacts MuJoCo's friction.
    pub fn friction_report(&self) -> String {
        if self.frictions.is_empty() {
            return "no geom collides, so no friction applies".to_string();
        }
        let mut out = String::from(
            "geom friction (sliding, torsional, rolling; tribo uses the sliding value, through the link's material):\n",
        );
        for f in &self.frictions {
            out.push_str(&format!(
                "  {}: link `{}` (material {}), geom `{}`: {} {} {}\n",
                f.location, f.link, f.material, f.geom, f.friction[0], f.friction[1], f.friction[2]
            ));
        }
        out.push_str(
            "material table with MuJoCo's friction (save it as a file and list it under `materials:` in a project):\n",
        );
        out.push_str(&self.friction_table());
        out.trim_end().to_string()
    }
}

/// Load an MJCF file as a body ([`load_mjcf_model`] for its geoms' friction too).
pub fn load_mjcf(path: &Path) -> Result<Body, Error> {
    load_mjcf_model(path).map(|m| m.body)
}

/// Parse MJCF text as a body; `file_name` names it in locations, and its directory is where
/// includes and mesh files are found.
pub fn parse_mjcf(text: &str, file_name: &str) -> Result<Body, Error> {
    parse_mjcf_model(text, file_name).map(|m| m.body)
}

/// Load an MJCF file with its geoms' friction.
pub fn load_mjcf_model(path: &Path) -> Result<MjcfModel, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Diagnostic::error(
            Location::file(path.display().to_string()),
            format!("cannot read MJCF file: {e}"),
        )
    })?;
    parse_mjcf_model(&text, &path.display().to_string())
}

/// Parse MJCF text with its geoms' friction.
pub fn parse_mjcf_model(text: &str, file_name: &str) -> Result<MjcfModel, Error> {
    let mujoco = xml::read_document(text, file_name)?;
    check_sections(&mujoco)?;
    let compiler = compiler::Compiler::read(&mujoco)?;
    let defaults = defaults::Defaults::read(&mujoco)?;
    let dir = Path::new(file_name).parent().unwrap_or(Path::new(""));
    let tree = tree::read_tree(&mujoco, &defaults, &compiler, dir)?;
    let name = match mujoco.attr("model") {
        Some(m) if !m.value.is_empty() => m.value.clone(),
        _ => Path::new(file_name)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    let mut body = Body::from_links(name, tree.links)?;
    body.source = Arc::from(file_name);
    body.notes = tree.notes;
    body.notes.extend(unused_notes(&mujoco));
    Ok(MjcfModel {
        body,
        frictions: tree.frictions,
    })
}

/// Sections of `<mujoco>` that no engine uses, and what a project does instead.
const UNUSED_SECTIONS: [(&str, &str); 8] = [
    ("option", "a tribo project sets the time step, gravity and solver"),
    ("actuator", "a tribo project's controllers drive the joints"),
    ("sensor", "a tribo project records signals"),
    ("tendon", "tribo has no tendons"),
    ("equality", "tribo has no equality constraints"),
    (
        "contact",
        "tribo's contacts follow the materials; every pair of bodies collides",
    ),
    ("keyframe", "a tribo project gives initial joint positions"),
    ("deformable", "tribo has no flexible bodies"),
];

/// The sections `<mujoco>` may hold (MuJoCo's XML reference, *XML schema*).
const SECTIONS: [&str; 17] = [
    "compiler",
    "option",
    "size",
    "visual",
    "statistic",
    "default",
    "extension",
    "custom",
    "asset",
    "worldbody",
    "deformable",
    "contact",
    "equality",
    "tendon",
    "actuator",
    "sensor",
    "keyframe",
];

/// An error for a child of `<mujoco>` that is no MJCF section (a misspelt `<worldbdy>` would
/// otherwise leave the model empty without saying why).
fn check_sections(mujoco: &Element) -> Result<(), Error> {
    for child in &mujoco.children {
        if !SECTIONS.contains(&child.tag.as_str()) {
            let hint = tribo_yaml::did_you_mean(&child.tag, SECTIONS.iter().copied());
            return Err(Diagnostic::error(
                child.at.clone(),
                format!("<{}> is not an MJCF section{hint}", child.tag),
            ));
        }
    }
    Ok(())
}

/// Geom attributes of MuJoCo's contact model that tribo does not use.
const UNUSED_GEOM_ATTRIBUTES: [&str; 7] = ["solref", "solimp", "condim", "priority", "solmix", "margin", "gap"];

/// One note per unused section and one for the unused geom contact attributes.
fn unused_notes(mujoco: &Element) -> Vec<Diagnostic> {
    let mut notes = Vec::new();
    for (tag, instead) in UNUSED_SECTIONS {
        if let Some(section) = mujoco.children_named(tag).next() {
            notes.push(Diagnostic::warning(
                section.at.clone(),
                format!("<{tag}> is not used: {instead}"),
            ));
        }
    }
    let mut found: Vec<(&str, Location)> = Vec::new();
    collect_geom_attributes(mujoco, &mut found);
    if let Some((_, at)) = found.first() {
        let mut names: Vec<&str> = found.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        notes.push(Diagnostic::warning(
            at.clone(),
            format!(
                "geom {} {} not used: tribo's contacts follow the project's materials and engine",
                names.join(", "),
                if names.len() == 1 { "is" } else { "are" }
            ),
        ));
    }
    notes
}

fn collect_geom_attributes<'a>(element: &'a Element, found: &mut Vec<(&'a str, Location)>) {
    if element.tag == "geom" {
        for attr in &element.attrs {
            if let Some(name) = UNUSED_GEOM_ATTRIBUTES.iter().find(|n| **n == attr.name) {
                found.push((name, attr.at.clone()));
            }
        }
    }
    for child in &element.children {
        collect_geom_attributes(child, found);
    }
}
