//! Validation of a body against the bodies before it: located errors (body index and name, field,
//! what was expected), normalised axes, rotations and inertias.

use crate::body::{Body, LinkInertia, PositionLimits};
use crate::error::Error;
use crate::joint::Joint;
use nalgebra::{Isometry3, SymmetricEigen};

/// Checks one body against the bodies already accepted and returns it normalised.
pub(crate) fn validate_body(index: usize, mut body: Body, earlier: &[Body]) -> Result<Body, Error> {
    let invalid = |field: &'static str, expected: &'static str, found: String| Error::InvalidBodyValue {
        body: index,
        name: body.name.clone(),
        field,
        expected,
        found,
    };
    if body.name.is_empty() {
        return Err(invalid("name", "a non-empty name", "\"\"".into()));
    }
    if let Some(first) = earlier.iter().position(|b| b.name == body.name) {
        return Err(Error::DuplicateName {
            body: index,
            name: body.name.clone(),
            first,
        });
    }
    if let Some(parent) = body.parent {
        if parent >= index {
            return Err(Error::ParentNotBefore {
                body: index,
                name: body.name.clone(),
                parent,
            });
        }
        if body.joint == Joint::Free {
            return Err(Error::FreeJointNotAtRoot {
                body: index,
                name: body.name.clone(),
                parent,
            });
        }
    }
    match &mut body.joint {
        Joint::Revolute { axis } | Joint::Prismatic { axis } => {
            let norm = axis.norm();
            if !norm.is_finite() || norm < 1e-12 {
                return Err(invalid(
                    "joint axis",
                    "a finite non-zero vector",
                    format!("{:?}", axis.as_slice()),
                ));
            }
            *axis /= norm;
        }
        Joint::Free | Joint::Fixed => {}
    }
    body.placement =
        validate_placement(&body.placement).map_err(|(field, expected, found)| invalid(field, expected, found))?;
    validate_inertia(&mut body.inertia).map_err(|(field, expected, found)| invalid(field, expected, found))?;

    let has_dof = matches!(body.joint, Joint::Revolute { .. } | Joint::Prismatic { .. });
    for (field, value) in [("damping", body.damping), ("armature", body.armature)] {
        if !(value.is_finite() && value >= 0.0) {
            return Err(invalid(field, "a finite value ≥ 0", value.to_string()));
        }
        if value != 0.0 && !has_dof {
            return Err(invalid(field, "0 on a free or fixed joint", value.to_string()));
        }
    }
    if let Some(PositionLimits { lower, upper }) = body.position_limits {
        if lower.is_nan() || upper.is_nan() || lower > upper || lower == f64::INFINITY || upper == f64::NEG_INFINITY {
            return Err(invalid(
                "position limits",
                "lower ≤ upper",
                format!("[{lower}, {upper}]"),
            ));
        }
        if lower == f64::NEG_INFINITY && upper == f64::INFINITY {
            body.position_limits = None;
        } else if !has_dof {
            return Err(invalid(
                "position limits",
                "none on a free or fixed joint",
                format!("[{lower}, {upper}]"),
            ));
        }
    }
    if let Some(limit) = body.effort_limit {
        if limit.is_nan() || limit < 0.0 {
            return Err(invalid(
                "effort limit",
                "a value ≥ 0 (∞ for unlimited)",
                limit.to_string(),
            ));
        }
        if limit == f64::INFINITY {
            body.effort_limit = None;
        } else if !has_dof {
            return Err(invalid(
                "effort limit",
                "none on a free or fixed joint",
                limit.to_string(),
            ));
        }
    }
    Ok(body)
}

/// A placement as the tree keeps it: finite, with its rotation renormalised. Shared by
/// [`validate_body`] and [`crate::Tree::set_root_placement`] so that moving a root in place gives
/// the very bits a rebuilt tree would hold.
pub(crate) fn validate_placement(
    placement: &Isometry3<f64>,
) -> Result<Isometry3<f64>, (&'static str, &'static str, String)> {
    let p = placement;
    if !(p.translation.vector.iter().all(|x| x.is_finite()) && p.rotation.coords.iter().all(|x| x.is_finite())) {
        return Err(("placement", "a finite pose", format!("{p:?}")));
    }
    let rotation_norm = p.rotation.coords.norm();
    if rotation_norm < 1e-12 {
        return Err((
            "placement",
            "a unit rotation",
            format!("a quaternion of norm {rotation_norm}"),
        ));
    }
    let mut validated = *p;
    validated.rotation = nalgebra::UnitQuaternion::new_normalize(p.rotation.into_inner());
    Ok(validated)
}

/// Mass ≥ 0, finite centre of mass, symmetric positive semi-definite inertia (symmetrised).
fn validate_inertia(inertia: &mut LinkInertia) -> Result<(), (&'static str, &'static str, String)> {
    if !(inertia.mass.is_finite() && inertia.mass >= 0.0) {
        return Err(("mass", "a finite mass ≥ 0 kg", inertia.mass.to_string()));
    }
    if !inertia.com.iter().all(|x| x.is_finite()) {
        return Err((
            "centre of mass",
            "a finite point",
            format!("{:?}", inertia.com.as_slice()),
        ));
    }
    let i = inertia.inertia;
    if !i.iter().all(|x| x.is_finite()) {
        return Err(("inertia", "a finite matrix", format!("{:?}", i.as_slice())));
    }
    let scale = i.abs().max().max(f64::MIN_POSITIVE);
    if (i - i.transpose()).abs().max() > 1e-9 * scale {
        return Err(("inertia", "a symmetric matrix", format!("{:?}", i.as_slice())));
    }
    let symmetric = (i + i.transpose()) * 0.5;
    let smallest = SymmetricEigen::new(symmetric).eigenvalues.min();
    if smallest < -1e-9 * scale {
        return Err((
            "inertia",
            "a positive semi-definite matrix",
            format!("smallest eigenvalue {smallest}"),
        ));
    }
    inertia.inertia = symmetric;
    Ok(())
}
