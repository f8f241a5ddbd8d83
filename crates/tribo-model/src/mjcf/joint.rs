//! A body's `<joint>` and `<freejoint>` elements (MuJoCo's XML reference, *body/joint*) as the
//! joint of its tribo link.
//!
//! - No joint: the body is welded to its parent (tribo `fixed`).
//! - One `hinge` (the default type) or `slide`: tribo `revolute` or `prismatic` about or along
//!   `axis` (default +z, normalised) through `pos`, both in the body frame. tribo rotates a link
//!   about its own origin, so the link's frame is the body frame moved to `pos` (the caller moves
//!   the body's inertia, geoms and children with it). A `range` (degrees for a hinge unless
//!   `angle="radian"`) limits the joint when `limited="true"`, or when `limited` is `auto` (the
//!   default) and `<compiler autolimits>` is true (the default). `ref` is the joint position at
//!   which the body has the pose the file gives it: the link's offset is that pose moved back by
//!   `ref`, and the joint starts at `ref`. `armature` is the rotor inertia; a symmetric
//!   `actuatorfrcrange` is the effort limit (when `actuatorfrclimited` is true, or `auto` under
//!   `autolimits`).
//! - `<freejoint>` or `type="free"` on a body of the world: a floating base (tribo `free`).
//! - `ball` joints, free joints deeper in the tree and several joints in one body have no tribo
//!   joint (tribo's joints have one degree of freedom, or six at the root) and are refused.
//! - `damping`, `stiffness` and `frictionloss` are noted as not simulated.

use nalgebra::{Isometry3, Translation3, Unit, UnitQuaternion, Vector3};
use tribo_yaml::{Diagnostic, Error, Location};

use super::compiler::Compiler;
use super::defaults::{Attrs, Defaults};
use super::xml::Element;
use crate::{Joint, JointKind};

/// What joins a body to its parent.
#[derive(Debug)]
pub(crate) enum BodyJoint {
    /// Welded.
    Welded,
    /// Six degrees of freedom (allowed on bodies of the world only; the caller checks).
    Free { name: String, at: Location },
    /// One degree of freedom. `pos`: the joint's point in the body frame; `reference`: the pose
    /// change that takes the joint from 0 to its `ref` position (in the link frame).
    Moving {
        joint: Joint,
        pos: Vector3<f64>,
        reference: Isometry3<f64>,
    },
}

const TYPES: [&str; 4] = ["hinge", "slide", "ball", "free"];

/// The joint of `body` (named `link_name`), its elements read with class `class`.
pub(crate) fn read_joint(
    body: &Element,
    link_name: &str,
    defaults: &Defaults,
    class: &str,
    compiler: &Compiler,
    notes: &mut Vec<Diagnostic>,
) -> Result<BodyJoint, Error> {
    let elements: Vec<&Element> = body
        .children
        .iter()
        .filter(|c| c.tag == "joint" || c.tag == "freejoint")
        .collect();
    let element = match elements[..] {
        [] => return Ok(BodyJoint::Welded),
        [one] => one,
        [_, second, ..] => {
            return Err(Diagnostic::error(
                second.at.clone(),
                format!(
                    "body `{link_name}` has {} joints: tribo's links have one joint each (several joints in one body are not supported)",
                    elements.len()
                ),
            ))
        }
    };
    super::schema::check_attributes(element)?;
    let attrs = if element.tag == "freejoint" {
        Attrs::own(element)
    } else {
        defaults.resolve(element, class)?
    };
    let name = attrs.text("name").unwrap_or(link_name).to_string();
    let kind = if element.tag == "freejoint" {
        "free"
    } else {
        attrs.keyword("type", &TYPES)?.unwrap_or("hinge")
    };
    let kind = match kind {
        "free" => {
            return Ok(BodyJoint::Free {
                name,
                at: attrs.at(),
            })
        }
        "ball" => {
            return Err(Diagnostic::error(
                attrs.at(),
                format!(
                    "ball joint `{name}` is not supported: tribo's joints are hinges and slides (one degree of freedom), or free at the root"
                ),
            ))
        }
        "slide" => JointKind::Prismatic,
        _ => JointKind::Revolute,
    };
    let mut joint = Joint::new(kind, name.clone());
    let axis = attrs.vector3("axis")?.unwrap_or_else(Vector3::z);
    let Some(axis) = Unit::try_new(axis, 0.0) else {
        return Err(Diagnostic::error(
            attrs.get("axis").map_or_else(|| attrs.at(), |a| a.at.clone()),
            format!("joint `{name}` has a zero axis"),
        ));
    };
    joint.axis = axis.into_inner();
    let angle = |x: f64| {
        if kind == JointKind::Revolute {
            compiler.angle(x)
        } else {
            x
        }
    };
    let range = attrs.numbers("range", 2, 2)?;
    let limited = attrs
        .flag("limited")?
        .unwrap_or(compiler.auto_limits && range.is_some());
    if limited {
        let Some((range, attr)) = range else {
            return Err(Diagnostic::error(
                attrs.at(),
                format!("joint `{name}` is limited but gives no `range`"),
            ));
        };
        let (lower, upper) = (angle(range[0]), angle(range[1]));
        if lower > upper {
            return Err(Diagnostic::error(
                attr.at.clone(),
                format!("joint `{name}` has its lower limit above its upper limit"),
            ));
        }
        joint.range = [lower, upper];
    }
    if let Some(armature) = attrs.number("armature")? {
        joint.armature = armature;
    }
    let force_limited = attrs.flag("actuatorfrclimited")?.unwrap_or(compiler.auto_limits);
    if let Some((forces, attr)) = attrs.numbers("actuatorfrcrange", 2, 2)?.filter(|_| force_limited) {
        if forces[0] == -forces[1] && forces[1] > 0.0 {
            joint.max_effort = forces[1];
        } else {
            notes.push(Diagnostic::warning(
                attr.at.clone(),
                format!(
                    "joint `{name}`: an asymmetric actuatorfrcrange is not used (tribo's effort limit is symmetric)"
                ),
            ));
        }
    }
    for unused in ["damping", "stiffness", "frictionloss"] {
        if let Some(value) = attrs.number(unused)?.filter(|v| *v != 0.0) {
            notes.push(Diagnostic::warning(
                attrs.at(),
                format!("joint `{name}`: {unused}=\"{value}\" is not simulated (tribo's joints have no springs, viscous or Coulomb joint friction)"),
            ));
        }
    }
    let reference = angle(attrs.number("ref")?.unwrap_or(0.0));
    joint.initial_position = reference;
    let reference = match kind {
        JointKind::Revolute => Isometry3::from_parts(
            Translation3::identity(),
            UnitQuaternion::from_axis_angle(&axis, reference),
        ),
        _ => Isometry3::from(Translation3::from(axis.into_inner() * reference)),
    };
    Ok(BodyJoint::Moving {
        joint,
        pos: attrs.vector3("pos")?.unwrap_or_else(Vector3::zeros),
        reference,
    })
}
