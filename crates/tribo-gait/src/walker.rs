//! A biped read from its body model: the two leg chains and the soles' geometry.

use nalgebra::{Isometry3, Point3, UnitQuaternion, Vector2};
use tribo_model::{Body, Geometry};

use crate::error::GaitError;
use crate::kinematics::{forward, Chain};

/// The foot links of tribo's walker (`share/model/walker.body`).
pub const WALKER_FEET: [&str; 2] = ["RLEG_ANKLE_R", "LLEG_ANKLE_R"];

/// A biped: its body and, per foot (right, left), the leg chain and the sole's geometry.
#[derive(Debug, Clone)]
pub struct Walker {
    pub body: Body,
    pub legs: [Chain; 2],
    /// Orientation of each foot link when the sole lies flat (all joints at 0, root level).
    pub foot_rotation: [UnitQuaternion<f64>; 2],
    /// Height of each foot link's origin above its sole, m.
    pub ankle_height: [f64; 2],
    /// Sole centre (the middle of the lowest face of the foot's boxes) relative to the ground
    /// point under the foot link origin, m.
    pub sole_center: [Vector2<f64>; 2],
}

impl Walker {
    /// Reads the legs ending at the links `feet` = [right, left]. Each foot must carry at least one
    /// Box shape (its sole) and hang from the root through 1-DoF joints only.
    pub fn new(body: Body, feet: [&str; 2]) -> Result<Walker, GaitError> {
        let zero_pose = forward(&body, &Isometry3::identity(), &vec![0.0; body.links.len()]);
        let mut legs = Vec::with_capacity(2);
        let mut foot_rotation = [UnitQuaternion::identity(); 2];
        let mut ankle_height = [0.0; 2];
        let mut sole_center = [Vector2::zeros(); 2];
        for (side, name) in feet.iter().enumerate() {
            let foot = body.link_index(name).ok_or_else(|| GaitError::MissingLink {
                model: body.name.clone(),
                link: name.to_string(),
                hint: closest_link(&body, name),
            })?;
            let chain = Chain::to_link(&body, foot).ok_or_else(|| GaitError::BadModel {
                model: body.name.clone(),
                reason: format!("`{name}` is not attached to the root through 1-DoF joints"),
            })?;
            if chain.joints.len() < 6 {
                return Err(GaitError::BadModel {
                    model: body.name.clone(),
                    reason: format!("the leg of `{name}` has {} joints; 6 are needed", chain.joints.len()),
                });
            }
            let rotation = zero_pose[foot].rotation;
            let (height, center) = sole(&body, foot, &rotation).ok_or_else(|| GaitError::BadModel {
                model: body.name.clone(),
                reason: format!("foot `{name}` has no Box shape to serve as its sole"),
            })?;
            foot_rotation[side] = rotation;
            ankle_height[side] = height;
            sole_center[side] = center;
            legs.push(chain);
        }
        let [right, left]: [Chain; 2] = legs.try_into().map_err(|_| GaitError::BadModel {
            model: body.name.clone(),
            reason: "two legs expected".into(),
        })?;
        Ok(Walker {
            body,
            legs: [right, left],
            foot_rotation,
            ankle_height,
            sole_center,
        })
    }

    /// Name of joint-moving link `link`.
    pub fn joint_name(&self, link: usize) -> &str {
        self.body.links.get(link).map_or("", |l| l.joint.name.as_str())
    }
}

/// The lowest face of the foot's boxes, in the level frame of the foot (rotated by `rotation`):
/// (depth of that face below the link origin, centre of its x–y extent).
fn sole(body: &Body, foot: usize, rotation: &UnitQuaternion<f64>) -> Option<(f64, Vector2<f64>)> {
    let mut corners = Vec::new();
    for shape in &body.links.get(foot)?.shapes {
        if let Geometry::Box { size } = &shape.geometry {
            let h = size / 2.0;
            for sx in [-1.0, 1.0] {
                for sy in [-1.0, 1.0] {
                    for sz in [-1.0, 1.0] {
                        let local = shape.pose * Point3::new(sx * h.x, sy * h.y, sz * h.z);
                        corners.push(rotation * local);
                    }
                }
            }
        }
    }
    let bottom = corners.iter().map(|c| c.z).fold(f64::INFINITY, f64::min);
    if !bottom.is_finite() {
        return None;
    }
    let low: Vec<_> = corners.iter().filter(|c| c.z < bottom + 1e-9).collect();
    let (min_x, max_x) = low.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), c| {
        (lo.min(c.x), hi.max(c.x))
    });
    let (min_y, max_y) = low.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), c| {
        (lo.min(c.y), hi.max(c.y))
    });
    Some((-bottom, Vector2::new((min_x + max_x) / 2.0, (min_y + max_y) / 2.0)))
}

fn closest_link(body: &Body, name: &str) -> String {
    tribo_yaml::did_you_mean(name, body.links.iter().map(|l| l.name.as_str()))
}
