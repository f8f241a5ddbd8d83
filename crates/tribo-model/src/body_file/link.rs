//! `links` and the keys of one link (docs/design/choreonoid-formats.md §2.3–2.4; StdBodyLoader
//! `readNodeInLinks`, `readLinkContents`).

use tribo_yaml::{did_you_mean, Diagnostic, Error, Fields, Location, Node, Value};

use super::elements::{read_link_elements, LinkElements};
use super::geometry::ShapeContext;
use super::joint::{read_joint, JOINT_KEYS};
use super::keys::typo_warnings;
use super::mass::{link_mass_properties, COM_KEYS};
use super::pad::read_pad;
use super::pose::{isometry, read_placement};
use super::sub_body::{read_sub_body, Includes};
use crate::Link;

/// A link as written, before the tree is assembled (`link.parent` is still `None`; errors about
/// the link as a whole point at `link.location`).
pub struct ParsedLink {
    pub link: Link,
    /// Where the link's name is given (a sub-body's links: the `SubBody` node).
    pub name_at: Location,
    /// Where the joint name is given, when it is given apart from the link name.
    pub joint_name_at: Option<Location>,
    /// The parent link's name and where it is given.
    pub parent: Option<ParentName>,
}

/// A `parent:` value: a link name.
pub struct ParentName {
    pub name: String,
    pub at: Location,
}

impl ParentName {
    pub fn read(node: &Node) -> Result<Self, Error> {
        Ok(ParentName {
            name: node.as_name()?.to_string(),
            at: node.location.clone(),
        })
    }

    pub fn error(&self, message: impl Into<String>) -> Error {
        Diagnostic::error(self.at.clone(), message)
    }
}

const LINK_KEYS: [&str; 13] = [
    "pad",
    "type",
    "name",
    "parent",
    "translation",
    "rotation",
    "material",
    "mass",
    "inertia",
    "elements",
    "import",
    "jointName",
    "childLinks",
];

const LINK_NODE_TYPES: [&str; 4] = ["Link", "Skip", "ContinuousTrack", "SubBody"];

/// Read every link of `links`: a list of link mappings, or a mapping keyed by node type.
/// `SubBody` nodes bring in every link of the body file they name.
pub fn read_links(
    links: &Node,
    cx: ShapeContext,
    includes: &mut Includes,
    notes: &mut Vec<Diagnostic>,
) -> Result<Vec<ParsedLink>, Error> {
    let mut parsed = Vec::new();
    match &links.value {
        Value::Seq(items) => {
            for item in items {
                let f = Fields::new(item, "a link")?;
                let type_node = f.get_value(&["type"]);
                let type_name = type_node.map(Node::as_name).transpose()?.unwrap_or("Link");
                let at = type_node.unwrap_or(item);
                parsed.extend(read_node_in_links(item, type_name, at, cx, includes, notes)?);
            }
        }
        Value::Map(map) => {
            for entry in &map.entries {
                let item = &entry.value;
                let f = Fields::new(item, &format!("a `{}` node", entry.key))?;
                if let Some(inner) = f.get_value(&["type"]) {
                    if inner.as_name()? != entry.key {
                        return Err(inner.error(format!(
                            "the node type `{}` differs from the type `{}` given by its key",
                            inner.as_name()?,
                            entry.key
                        )));
                    }
                }
                let at = Node {
                    value: Value::Null,
                    location: entry.key_location.clone(),
                };
                parsed.extend(read_node_in_links(item, &entry.key, &at, cx, includes, notes)?);
            }
        }
        _ => {
            return Err(links.error(format!(
                "expected `links` to be a list of links, found {}",
                links.kind_name()
            )))
        }
    }
    if parsed.is_empty() {
        return Err(links.error("the body has no link"));
    }
    Ok(parsed)
}

fn read_node_in_links(
    node: &Node,
    type_name: &str,
    type_at: &Node,
    cx: ShapeContext,
    includes: &mut Includes,
    notes: &mut Vec<Diagnostic>,
) -> Result<Vec<ParsedLink>, Error> {
    match type_name {
        "Link" => Ok(vec![read_link(node, cx, notes)?]),
        "Skip" => Ok(Vec::new()),
        "SubBody" => read_sub_body(node, cx, includes, notes),
        "ContinuousTrack" => Err(type_at.error(
            "unsupported: `ContinuousTrack` nodes in `links` (chains of track links) are not loaded: \
             tribo's engines have no continuous tracks",
        )),
        other => {
            let hint = did_you_mean(other, LINK_NODE_TYPES);
            Err(type_at.error(format!(
                "unknown node type `{other}` in `links`{hint}; expected Link, Skip, ContinuousTrack or SubBody"
            )))
        }
    }
}

/// One link mapping.
fn read_link(node: &Node, cx: ShapeContext, notes: &mut Vec<Diagnostic>) -> Result<ParsedLink, Error> {
    let unit = cx.unit;
    let f = Fields::new(node, "a link")?;
    f.skip(&["type", "import", "childLinks"]);
    let name_node = f.required(&["name"])?;
    let name = name_node.as_name()?.to_string();
    let joint_name_node = f.get_value(&["joint_name", "jointName"]);
    let joint_name = joint_name_node.map(|n| n.as_name().map(str::to_string)).transpose()?;
    let parent = f.get_value(&["parent"]).map(ParentName::read).transpose()?;
    let (translation, rotation) = read_placement(&f, unit)?;
    let joint = read_joint(&f, unit, joint_name.unwrap_or_else(|| name.clone()), notes)?;
    let material_node = f.get_value(&["material"]);
    let material = material_node.map(|n| n.as_name().map(str::to_string)).transpose()?;
    let LinkElements {
        shapes,
        rigid_bodies,
        uncollided,
    } = match f.get_value(&["elements"]) {
        Some(elements) => read_link_elements(elements, cx, &name, notes)?,
        None => LinkElements::default(),
    };
    let mass = link_mass_properties(&f, rigid_bodies, notes)?;
    let pad = f.get_value(&["pad"]).map(|n| read_pad(n, unit, &[])).transpose()?;

    let known: Vec<&str> = LINK_KEYS
        .iter()
        .chain(JOINT_KEYS.iter())
        .chain(COM_KEYS.iter())
        .copied()
        .collect();
    typo_warnings(&f, &format!("link `{name}`"), &known, notes);

    let mut link = Link::new(name, None, node.location.clone());
    link.joint = joint;
    link.offset = isometry(translation, rotation);
    link.mass = mass.mass;
    link.center_of_mass = mass.com;
    link.inertia = mass.inertia;
    if let (Some(material), Some(at)) = (material, material_node) {
        link.material = material;
        link.material_location = Some(at.location.clone());
    }
    link.shapes = shapes;
    link.uncollided = uncollided;
    link.pads.extend(pad);
    Ok(ParsedLink {
        link,
        name_at: name_node.location.clone(),
        joint_name_at: joint_name_node.map(|n| n.location.clone()),
        parent,
    })
}
