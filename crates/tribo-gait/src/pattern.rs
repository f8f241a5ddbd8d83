//! The walking pattern: footsteps → ZMP reference → CoM by preview control → waist and feet →
//! joint angles by leg IK, sampled at the frame rate.

use std::sync::Arc;

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector2, Vector3};
use tribo_model::JointMotion;

use crate::error::GaitError;
use crate::footsteps::{plan_footsteps, FootstepPlan, GaitParams};
use crate::kinematics::{center_of_mass, forward, solve_leg};
use crate::preview::{CartTable, PreviewController};
use crate::walker::Walker;

/// A foot that misses its target by more than this fails the plan (m and rad).
const IK_TOLERANCE: f64 = 1e-9;
/// The waist is moved until the multibody CoM is this close to the planned CoM, m.
const COM_TOLERANCE: f64 = 1e-7;

/// A generated walk, one entry per frame (frame i at t = i / frame_rate).
#[derive(Debug, Clone)]
pub struct WalkingPattern {
    /// Joint angles by joint id, ready for a `.seq` file or the joint-pattern controller.
    pub motion: JointMotion,
    pub plan: FootstepPlan,
    /// The planned (reference) ZMP, m.
    pub zmp_reference: Vec<Vector2<f64>>,
    /// The ZMP of the cart-table model along the CoM trajectory, p = x − (z_c/g) ẍ, m.
    pub zmp_cart_table: Vec<Vector2<f64>>,
    /// The CoM the preview controller planned (z = z_c), m.
    pub com: Vec<Vector3<f64>>,
    /// The CoM of the multibody posture of each frame, m.
    pub com_multibody: Vec<Vector3<f64>>,
    /// Waist (root link) position; the waist is kept level, m.
    pub waist: Vec<Vector3<f64>>,
}

impl WalkingPattern {
    pub fn frame_rate(&self) -> f64 {
        self.motion.frame_rate
    }

    pub fn num_frames(&self) -> usize {
        self.waist.len()
    }

    pub fn duration(&self) -> f64 {
        self.motion.duration()
    }

    /// Forward (x) distance the feet midpoint travels, m.
    pub fn planned_distance(&self) -> f64 {
        self.plan.planned_distance
    }

    /// Largest horizontal distance between the cart-table ZMP and the reference, m.
    pub fn max_zmp_tracking_error(&self) -> f64 {
        self.zmp_reference
            .iter()
            .zip(&self.zmp_cart_table)
            .map(|(r, p)| (r - p).norm())
            .fold(0.0, f64::max)
    }

    /// Largest horizontal distance between the multibody CoM and the planned CoM, m.
    pub fn max_com_error(&self) -> f64 {
        self.com
            .iter()
            .zip(&self.com_multibody)
            .map(|(c, m)| (c.xy() - m.xy()).norm())
            .fold(0.0, f64::max)
    }
}

/// Generates the walk `params` for `walker`.
pub fn generate(walker: &Walker, params: &GaitParams) -> Result<WalkingPattern, GaitError> {
    let plan = plan_footsteps(params, walker.sole_center)?;
    let period = 1.0 / params.frame_rate;
    let frames = (plan.duration * params.frame_rate).round() as usize + 1;
    let zmp_reference: Vec<Vector2<f64>> = (0..frames).map(|i| plan.zmp_reference(i as f64 * period)).collect();

    let model = CartTable::new(period, params.com_height, params.gravity)?;
    let controller = PreviewController::new(model.clone(), params.weights, params.preview_time)?;
    let axis = |k: usize| {
        let reference: Vec<f64> = zmp_reference.iter().map(|p| p[k]).collect();
        let start = reference.first().copied().unwrap_or(0.0);
        controller.track(Vector3::new(start, 0.0, 0.0), &reference)
    };
    let (states_x, states_y) = (axis(0), axis(1));
    let zmp_cart_table = states_x
        .iter()
        .zip(&states_y)
        .map(|(sx, sy)| Vector2::new(model.zmp(sx), model.zmp(sy)))
        .collect();
    let com: Vec<Vector3<f64>> = states_x
        .iter()
        .zip(&states_y)
        .map(|(sx, sy)| Vector3::new(sx[0], sy[0], params.com_height))
        .collect();

    let body = &walker.body;
    let mut q: Vec<f64> = body.links.iter().map(|l| l.joint.initial_position).collect();
    let mut waist = Vector3::new(0.0, 0.0, params.com_height);
    let mut values = Vec::with_capacity(frames * body.joints_by_id.len());
    let mut waists = Vec::with_capacity(frames);
    let mut com_multibody = Vec::with_capacity(frames);
    for (i, planned) in com.iter().enumerate() {
        let t = i as f64 * period;
        let feet = plan.feet(t, params.lift_height);
        let targets = [0, 1].map(|s| {
            let (ground, lift) = feet[s];
            Isometry3::from_parts(
                Translation3::new(ground.x, ground.y, walker.ankle_height[s] + lift),
                walker.foot_rotation[s],
            )
        });
        // Move the level waist until the multibody CoM sits on the plan (the height too on the
        // first frame, which fixes the waist height for the whole walk).
        let mut achieved = Vector3::zeros();
        for _ in 0..20 {
            let root = Isometry3::from_parts(Translation3::from(waist), UnitQuaternion::identity());
            for (s, leg) in walker.legs.iter().enumerate() {
                let residual = solve_leg(body, leg, &root, &targets[s], &mut q);
                if residual > IK_TOLERANCE {
                    return Err(GaitError::Unreachable {
                        time: t,
                        foot: body.links.get(leg.foot).map_or(String::new(), |l| l.name.clone()),
                        residual,
                    });
                }
            }
            achieved = center_of_mass(body, &forward(body, &root, &q));
            let mut correction = planned - achieved;
            if i > 0 {
                correction.z = 0.0;
            }
            if correction.norm() < COM_TOLERANCE {
                break;
            }
            waist += correction;
        }
        check_ranges(walker, &q, t)?;
        values.extend(
            body.joints_by_id
                .iter()
                .map(|link| link.and_then(|l| q.get(l).copied()).unwrap_or(0.0)),
        );
        waists.push(waist);
        com_multibody.push(achieved);
    }
    let motion = JointMotion {
        zmp: None,
        frame_rate: params.frame_rate,
        num_parts: body.joints_by_id.len(),
        values,
        labels: Vec::new(),
        source: Arc::from(""),
    };
    Ok(WalkingPattern {
        motion,
        plan,
        zmp_reference,
        zmp_cart_table,
        com,
        com_multibody,
        waist: waists,
    })
}

fn check_ranges(walker: &Walker, q: &[f64], time: f64) -> Result<(), GaitError> {
    for leg in &walker.legs {
        for &link in &leg.joints {
            let Some(joint) = walker.body.links.get(link).map(|l| &l.joint) else {
                continue;
            };
            let angle = q.get(link).copied().unwrap_or(0.0);
            if angle < joint.range[0] || angle > joint.range[1] {
                return Err(GaitError::OutOfRange {
                    joint: joint.name.clone(),
                    time,
                    angle_deg: angle.to_degrees(),
                    lo_deg: joint.range[0].to_degrees(),
                    hi_deg: joint.range[1].to_degrees(),
                });
            }
        }
    }
    Ok(())
}
