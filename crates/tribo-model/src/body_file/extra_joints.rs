//! `extra_joints`: joints that close kinematic loops (docs/design/choreonoid-formats.md §2.8;
//! StdBodyLoader `readExtraJoints`, `readExtraJoint`).

use nalgebra::{Isometry3, Rotation3, Translation3, UnitQuaternion, Vector3};
use tribo_yaml::{did_you_mean, Error, Fields, Node};

use super::pose::read_rotation;
use super::units::AngleUnit;
use crate::{ExtraJoint, ExtraJointKind, Link};

const KINDS: [(&str, ExtraJointKind); 4] = [
    ("fixed", ExtraJointKind::Fixed),
    ("hinge", ExtraJointKind::Hinge),
    ("ball", ExtraJointKind::Ball),
    ("piston", ExtraJointKind::Piston),
];

/// The extra joints of `node` (a list of mappings) between links of `links`.
pub fn read_extra_joints(node: &Node, unit: AngleUnit, links: &[Link]) -> Result<Vec<ExtraJoint>, Error> {
    let items = node.as_seq().map_err(|_| {
        node.error(format!(
            "expected `extra_joints` to be a list of joints, found {}",
            node.kind_name()
        ))
    })?;
    items.iter().map(|item| read_extra_joint(item, unit, links)).collect()
}

fn read_extra_joint(node: &Node, unit: AngleUnit, links: &[Link]) -> Result<ExtraJoint, Error> {
    let f = Fields::new(node, "an extra joint")?;
    let link_name = |keys: &[&str]| -> Result<String, Error> {
        let name_node = f.required(keys)?;
        let name = name_node.as_name()?;
        if !links.iter().any(|l| l.name == name) {
            return Err(name_node.error(format!(
                "the extra joint names link `{name}`, which the body does not have{}",
                did_you_mean(name, links.iter().map(|l| l.name.as_str()))
            )));
        }
        Ok(name.to_string())
    };
    let link1 = link_name(&["link1_name", "link1Name"])?;
    let link2 = link_name(&["link2_name", "link2Name"])?;
    let type_node = f.required(&["joint_type", "jointType"])?;
    let type_name = type_node.as_name()?;
    let kind = KINDS
        .iter()
        .find(|(name, _)| *name == type_name)
        .map(|&(_, kind)| kind)
        .ok_or_else(|| {
            type_node.error(format!(
                "unknown extra joint type `{type_name}`{}; expected fixed, hinge, ball or piston",
                did_you_mean(type_name, KINDS.iter().map(|(n, _)| *n))
            ))
        })?;
    // Choreonoid's ExtraJoint axis defaults to +X (ExtraJoint.h).
    let axis = match f.get_value(&["axis", "jointAxis"]) {
        None => Vector3::x(),
        Some(axis_node) => {
            let axis = Vector3::from(axis_node.as_vec3()?);
            let norm = axis.norm();
            if !(norm > 1e-12 && norm.is_finite()) {
                return Err(axis_node.error("the extra joint's axis is the zero vector (or not finite)"));
            }
            axis / norm
        }
    };
    let frame = |translation_keys: &[&str], rotation_key: &str| -> Result<Isometry3<f64>, Error> {
        let translation = f
            .get_value(translation_keys)
            .map(|n| n.as_vec3().map(Vector3::from))
            .transpose()?
            .unwrap_or_else(Vector3::zeros);
        let rotation = f
            .get_value(&[rotation_key])
            .map(|n| read_rotation(n, unit))
            .transpose()?
            .unwrap_or_else(Rotation3::identity);
        Ok(Isometry3::from_parts(
            Translation3::from(translation),
            UnitQuaternion::from_rotation_matrix(&rotation),
        ))
    };
    let frames = [
        frame(&["translation_in_link1", "link1LocalPos"], "rotation_in_link1")?,
        frame(&["translation_in_link2", "link2LocalPos"], "rotation_in_link2")?,
    ];
    Ok(ExtraJoint {
        kind,
        links: [link1, link2],
        frames,
        axis,
        location: node.location.clone(),
    })
}
