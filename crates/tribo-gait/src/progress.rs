//! How far a joint pattern carries the body when its stance foot does not slip: the root link
//! trajectory replayed from the joint angles alone, by forward kinematics with the stance foot
//! fixed to the ground.
//!
//! A `.seq` joint pattern (Choreonoid's SR1WalkPattern1.seq, or one from [`crate::generate`])
//! says nothing about where the root goes; a walking robot's root goes wherever the foot on the
//! ground carries it. Frame by frame (X_f(i) is foot f's pose in the root frame at frame i, by
//! [`forward`] with the root at the identity; W is the stance foot's world pose):
//!
//! ```text
//! W       = T_root(i) · X_s(i)          the stance foot s stays where it is,
//! T_root(i+1) = W · X_s(i+1)⁻¹          so the root moves to keep it there;
//! ```
//!
//! The stance foot hands over to the other foot once its origin is higher than the other's by
//! more than a hysteresis (1 mm by default), so double support, where both feet stay put, does
//! not flip between them on the rounding noise of a pattern written with 3 significant digits.
//! The hand-over is back-dated to the last frame at which the old stance foot was not above the
//! other (its lift-off): from there on the other foot, which stood all along, carries the root,
//! so the hysteresis adds no error on a clean pattern. The implied forward progress is the
//! root's travel along its initial x axis from the first frame to the last.

use nalgebra::Isometry3;
use tribo_model::{Body, JointMotion};

use crate::error::GaitError;
use crate::kinematics::forward;

/// A stance foot hands over only when the other foot is lower by more than this, m.
pub const STANCE_HYSTERESIS: f64 = 1e-3;

/// The root trajectory of a pattern replayed with the stance foot fixed.
#[derive(Debug, Clone, PartialEq)]
pub struct StanceReplay {
    /// Root link pose per frame (frame 0 at the given initial pose).
    pub root: Vec<Isometry3<f64>>,
    /// Per frame: which of the feet (index into the `feet` argument) stood.
    pub stance: Vec<usize>,
}

impl StanceReplay {
    /// Root travel from the first to the last frame along the initial root's x axis, m.
    pub fn forward_progress(&self) -> f64 {
        match (self.root.first(), self.root.last()) {
            (Some(first), Some(last)) => {
                let axis = first.rotation * nalgebra::Vector3::x();
                (last.translation.vector - first.translation.vector).dot(&axis)
            }
            _ => 0.0,
        }
    }

    /// Number of stance hand-overs (n − 1 for a walk of n steps starting on the stance foot).
    pub fn stance_changes(&self) -> usize {
        self.stance.windows(2).filter(|w| w[0] != w[1]).count()
    }
}

/// Replays `motion` (joint values by joint id, as in a `.seq`) on `body` with the root starting at
/// `root` and, at every frame, the stance foot among `feet` (link names) fixed in the world.
pub fn stance_replay(
    body: &Body,
    motion: &JointMotion,
    feet: &[&str],
    root: &Isometry3<f64>,
    hysteresis: f64,
) -> Result<StanceReplay, GaitError> {
    let feet: Vec<usize> = feet
        .iter()
        .map(|name| {
            body.link_index(name).ok_or_else(|| GaitError::MissingLink {
                model: body.name.clone(),
                link: name.to_string(),
                hint: tribo_yaml::did_you_mean(name, body.links.iter().map(|l| l.name.as_str())),
            })
        })
        .collect::<Result<_, _>>()?;
    if feet.is_empty() {
        return Err(GaitError::BadModel {
            model: body.name.clone(),
            reason: "no foot given to stand on".into(),
        });
    }
    if motion.num_parts != body.joints_by_id.len() {
        return Err(GaitError::BadModel {
            model: body.name.clone(),
            reason: format!(
                "the motion has {} parts but the model has {} joint ids",
                motion.num_parts,
                body.joints_by_id.len()
            ),
        });
    }
    let mut q: Vec<f64> = body.links.iter().map(|l| l.joint.initial_position).collect();
    // Pose of each foot in the root frame, per frame.
    let relative: Vec<Vec<Isometry3<f64>>> = (0..motion.num_frames())
        .map(|i| {
            set_frame(body, motion, i, &mut q);
            let poses = forward(body, &Isometry3::identity(), &q);
            feet.iter().map(|&f| poses[f]).collect()
        })
        .collect();
    let height = |root: &Isometry3<f64>, frame: usize, foot: usize| (root * relative[frame][foot]).translation.z;
    // The lowest foot other than `stance` (any foot if `stance` is None).
    let lowest = |root: &Isometry3<f64>, frame: usize, stance: Option<usize>| {
        (0..feet.len())
            .filter(|&f| Some(f) != stance)
            .min_by(|&a, &b| height(root, frame, a).total_cmp(&height(root, frame, b)))
    };

    let frames = relative.len();
    let mut roots = Vec::with_capacity(frames);
    let mut stances = Vec::with_capacity(frames);
    let Some(mut stance) = lowest(root, 0, None) else {
        return Ok(StanceReplay {
            root: roots,
            stance: stances,
        });
    };
    roots.push(*root);
    stances.push(stance);
    // The last frame at which the stance foot was not above the others: where it began to lift.
    let mut down_at = 0;
    for i in 1..frames {
        let world_foot = roots[i - 1] * relative[i - 1][stance];
        let pose = world_foot * relative[i][stance].inverse();
        roots.push(pose);
        stances.push(stance);
        let Some(other) = lowest(&pose, i, Some(stance)) else {
            continue;
        };
        let (own, theirs) = (height(&pose, i, stance), height(&pose, i, other));
        if own <= theirs {
            down_at = i;
        } else if own > theirs + hysteresis {
            // Hand over, back-dated to the lift-off: from frame `down_at` on the other foot,
            // which was on the ground all along, carries the root.
            stance = other;
            let world_foot = roots[down_at] * relative[down_at][stance];
            for k in down_at + 1..=i {
                roots[k] = world_foot * relative[k][stance].inverse();
                stances[k] = stance;
            }
            down_at = i;
        }
    }
    Ok(StanceReplay {
        root: roots,
        stance: stances,
    })
}

/// Joint positions per link index `q` set from frame `i` of `motion` (values by joint id).
pub(crate) fn set_frame(body: &Body, motion: &JointMotion, i: usize, q: &mut [f64]) {
    for (id, value) in motion.frame(i).iter().enumerate() {
        if let Some(&Some(link)) = body.joints_by_id.get(id) {
            if let Some(slot) = q.get_mut(link) {
                *slot = *value;
            }
        }
    }
}

/// Forward distance, m, the pattern `motion` implies for `body` walking on the feet `feet`
/// (link names): the root's travel along its initial x axis when every frame keeps the stance
/// foot where it is ([`stance_replay`] from a level root, hysteresis [`STANCE_HYSTERESIS`]).
pub fn implied_progress(body: &Body, motion: &JointMotion, feet: &[&str]) -> Result<f64, GaitError> {
    Ok(stance_replay(body, motion, feet, &Isometry3::identity(), STANCE_HYSTERESIS)?.forward_progress())
}

#[cfg(test)]
mod tests {
    use nalgebra::{Translation3, UnitQuaternion};

    use super::*;
    use crate::{generate, shipped_walker, GaitParams, WALKER_FEET};

    /// A pattern from `generate` places the waist itself: replaying its joint angles with the
    /// stance foot fixed must put the root where the generator did, frame by frame.
    #[test]
    fn replay_recovers_the_generated_waist() {
        let walker = shipped_walker();
        let params = GaitParams {
            steps: 3,
            rest: 0.2,
            settle: 0.4,
            ..GaitParams::default()
        };
        let pattern = generate(&walker, &params).expect("a feasible walk");
        let start = Isometry3::from_parts(Translation3::from(pattern.waist[0]), UnitQuaternion::identity());
        let replay =
            stance_replay(&walker.body, &pattern.motion, &WALKER_FEET, &start, STANCE_HYSTERESIS).expect("a replay");
        let worst = replay
            .root
            .iter()
            .zip(&pattern.waist)
            .map(|(r, w)| (r.translation.vector - w).norm() + r.rotation.angle())
            .fold(0.0, f64::max);
        assert!(worst < 1e-6, "replayed root is {worst} off the generated waist");
        // 3 steps (left, right, left closing), starting on the right foot: 2 hand-overs.
        assert_eq!(replay.stance_changes(), 2);
        let implied = implied_progress(&walker.body, &pattern.motion, &WALKER_FEET).expect("a replay");
        let planned = pattern.waist[pattern.waist.len() - 1].x - pattern.waist[0].x;
        assert!(
            (implied - planned).abs() < 1e-6,
            "implied {implied} m, generated {planned} m"
        );
        assert!(
            (planned - 2.0 * params.step_length).abs() < 0.01,
            "waist travel {planned} m"
        );
    }

    #[test]
    fn unknown_feet_and_mismatched_motions_are_errors() {
        let walker = shipped_walker();
        let motion = JointMotion {
            frame_rate: 500.0,
            num_parts: walker.body.joints_by_id.len(),
            values: vec![0.0; walker.body.joints_by_id.len()],
            labels: Vec::new(),
            source: "test".into(),
            zmp: None,
        };
        let err = implied_progress(&walker.body, &motion, &["RLEG_ANKEL_R"]).expect_err("no such link");
        assert!(err.to_string().contains("RLEG_ANKLE_R"), "{err}");
        let still = implied_progress(&walker.body, &motion, &WALKER_FEET).expect("a replay");
        assert_eq!(still, 0.0);
        let short = JointMotion {
            num_parts: 3,
            values: vec![0.0; 3],
            ..motion
        };
        assert!(implied_progress(&walker.body, &short, &WALKER_FEET).is_err());
    }
}
