//! A body at a glance: what `tribo check` prints (text via `Display`, JSON via serde).

use std::collections::BTreeMap;
use std::fmt;

use nalgebra::Isometry3;
use serde::Serialize;

use crate::{Body, Geometry, Shape};

/// Counts and per-link facts of a [`Body`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BodySummary {
    pub name: String,
    pub source: String,
    pub num_links: usize,
    /// Joint kind name (`free`, `fixed`, `revolute`, `prismatic`) → number of links with it.
    pub joints_by_kind: BTreeMap<String, usize>,
    /// Length of the joint-id table (largest id + 1).
    pub num_joint_ids: usize,
    /// kg.
    pub total_mass: f64,
    /// Material name → links using it, in link order.
    pub materials: BTreeMap<String, Vec<String>>,
    /// Geometry type → number of collision shapes.
    pub shapes_by_type: BTreeMap<String, usize>,
    pub num_notes: usize,
    pub links: Vec<LinkSummary>,
}

/// One link of a [`BodySummary`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkSummary {
    pub name: String,
    pub parent: Option<String>,
    pub joint: String,
    pub joint_id: Option<usize>,
    pub axis: [f64; 3],
    /// kg.
    pub mass: f64,
    pub material: String,
    /// One line per collision shape: type, dimensions, position and rotation in the link frame.
    pub shapes: Vec<String>,
}

impl Body {
    pub fn summary(&self) -> BodySummary {
        let mut joints_by_kind = BTreeMap::new();
        let mut materials: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut shapes_by_type = BTreeMap::new();
        for link in &self.links {
            *joints_by_kind.entry(link.joint.kind.name().to_string()).or_insert(0) += 1;
            materials
                .entry(link.material.clone())
                .or_default()
                .push(link.name.clone());
            for shape in &link.shapes {
                *shapes_by_type
                    .entry(shape.geometry.type_name().to_string())
                    .or_insert(0) += 1;
            }
        }
        let links = self
            .links
            .iter()
            .map(|link| LinkSummary {
                name: link.name.clone(),
                parent: link.parent.and_then(|p| self.links.get(p)).map(|p| p.name.clone()),
                joint: link.joint.kind.name().to_string(),
                joint_id: link.joint.id,
                axis: [link.joint.axis.x, link.joint.axis.y, link.joint.axis.z],
                mass: link.mass,
                material: link.material.clone(),
                shapes: link.shapes.iter().map(describe_shape).collect(),
            })
            .collect();
        BodySummary {
            name: self.name.clone(),
            source: self.source.to_string(),
            num_links: self.links.len(),
            joints_by_kind,
            num_joint_ids: self.joints_by_id.len(),
            total_mass: self.total_mass(),
            materials,
            shapes_by_type,
            num_notes: self.notes.len(),
            links,
        }
    }
}

/// `Box [0.25, 0.14, 0.01] at [0.055, 0, -0.05]`, with `rotated 90° about [0, 0, 1]` when
/// rotated. Cylinder, Capsule and Cone give radius and height (axis local +Y).
pub fn describe_shape(shape: &Shape) -> String {
    let dims = match &shape.geometry {
        Geometry::Box { size } => format!("[{}, {}, {}]", num(size.x), num(size.y), num(size.z)),
        Geometry::Sphere { radius } => format!("r {}", num(*radius)),
        Geometry::Cylinder { radius, height }
        | Geometry::Capsule { radius, height }
        | Geometry::Cone { radius, height } => format!("r {} h {}", num(*radius), num(*height)),
        Geometry::Mesh(mesh) => format!(
            "{} ({} triangles, {})",
            mesh.origin,
            mesh.triangles.len(),
            mesh.collision.name()
        ),
    };
    format!("{} {dims}{}", shape.geometry.type_name(), describe_pose(&shape.pose))
}

fn describe_pose(pose: &Isometry3<f64>) -> String {
    let t = pose.translation.vector;
    let mut text = format!(" at [{}, {}, {}]", num(t.x), num(t.y), num(t.z));
    if let Some((axis, angle)) = pose.rotation.axis_angle() {
        if angle.to_degrees().abs() > 1e-9 {
            text += &format!(
                " rotated {}° about [{}, {}, {}]",
                num(angle.to_degrees()),
                num(axis.x),
                num(axis.y),
                num(axis.z)
            );
        }
    }
    text
}

/// A number rounded to 9 decimals (no `0.30000000000000004`, no `-0`).
fn num(x: f64) -> String {
    let r = (x * 1e9).round() / 1e9;
    if r == 0.0 {
        "0".to_string()
    } else {
        format!("{r}")
    }
}

impl fmt::Display for BodySummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "body `{}` ({})", self.name, self.source)?;
        writeln!(f, "  links: {}, total mass {} kg", self.num_links, num(self.total_mass))?;
        let joints: Vec<String> = self.joints_by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
        writeln!(f, "  joints: {}; joint ids: {}", joints.join(", "), self.num_joint_ids)?;
        let materials: Vec<String> = self
            .materials
            .iter()
            .map(|(m, links)| {
                if links.len() <= 4 {
                    format!("{m} ({})", links.join(", "))
                } else {
                    format!("{m} ({} links)", links.len())
                }
            })
            .collect();
        writeln!(f, "  materials: {}", materials.join("; "))?;
        let shapes: Vec<String> = self.shapes_by_type.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let shapes = if shapes.is_empty() {
            "none".to_string()
        } else {
            shapes.join(", ")
        };
        writeln!(f, "  collision shapes: {shapes}")?;
        writeln!(f, "  notes: {}", self.num_notes)?;
        for link in &self.links {
            let parent = link.parent.as_deref().unwrap_or("(root)");
            let id = link.joint_id.map(|id| format!(" #{id}")).unwrap_or_default();
            let axis = if matches!(link.joint.as_str(), "revolute" | "prismatic") {
                format!(
                    " axis [{}, {}, {}]",
                    num(link.axis[0]),
                    num(link.axis[1]),
                    num(link.axis[2])
                )
            } else {
                String::new()
            };
            writeln!(
                f,
                "  {} <- {parent}: {}{id}{axis}, {} kg, {}",
                link.name,
                link.joint,
                num(link.mass),
                link.material
            )?;
            for shape in &link.shapes {
                writeln!(f, "      {shape}")?;
            }
        }
        Ok(())
    }
}
