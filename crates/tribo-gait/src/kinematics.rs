//! Forward kinematics, centre of mass and leg inverse kinematics read from the body's own link
//! tree (offsets, joint axes, masses), so any 6-joint leg works, not one set of numbers.

use nalgebra::{DMatrix, DVector, Isometry3, Point3, Translation3, UnitQuaternion, Vector3, Vector6};
use tribo_model::{Body, JointKind};

/// Pose of every link in the world for joint positions `q` (per link index; the root's entry is
/// unused) and root pose `root`: T_child = T_parent · offset · motion(axis, q) — a revolute
/// joint rotates about its axis in the link frame, a prismatic one slides along it.
pub fn forward(body: &Body, root: &Isometry3<f64>, q: &[f64]) -> Vec<Isometry3<f64>> {
    let mut poses: Vec<Isometry3<f64>> = Vec::with_capacity(body.links.len());
    for (i, link) in body.links.iter().enumerate() {
        let pose = match link.parent.and_then(|p| poses.get(p)) {
            None => *root,
            Some(parent) => {
                let value = q.get(i).copied().unwrap_or(0.0);
                let motion = match link.joint.kind {
                    JointKind::Revolute => Isometry3::from_parts(
                        Translation3::identity(),
                        UnitQuaternion::from_scaled_axis(link.joint.axis * value),
                    ),
                    JointKind::Prismatic => Isometry3::translation(
                        link.joint.axis.x * value,
                        link.joint.axis.y * value,
                        link.joint.axis.z * value,
                    ),
                    JointKind::Free | JointKind::Fixed => Isometry3::identity(),
                };
                parent * link.offset * motion
            }
        };
        poses.push(pose);
    }
    poses
}

/// Centre of mass of the whole body for link poses `poses`: Σ mᵢ (Tᵢ cᵢ) / Σ mᵢ.
pub fn center_of_mass(body: &Body, poses: &[Isometry3<f64>]) -> Vector3<f64> {
    let mut weighted = Vector3::zeros();
    let mut mass = 0.0;
    for (link, pose) in body.links.iter().zip(poses) {
        weighted += link.mass * (pose * Point3::from(link.center_of_mass)).coords;
        mass += link.mass;
    }
    if mass > 0.0 {
        weighted / mass
    } else {
        weighted
    }
}

/// The joints from the root down to a foot link, root side first (link indices of the moving
/// joints only).
#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    pub foot: usize,
    pub joints: Vec<usize>,
}

impl Chain {
    /// The chain of 1-DoF joints between the root and `foot`; `None` if a free joint lies on the
    /// way.
    pub fn to_link(body: &Body, foot: usize) -> Option<Chain> {
        let mut joints = Vec::new();
        let mut link = foot;
        while let Some(parent) = body.links.get(link)?.parent {
            match body.links.get(link)?.joint.kind {
                JointKind::Revolute | JointKind::Prismatic => joints.push(link),
                JointKind::Fixed => {}
                JointKind::Free => return None,
            }
            link = parent;
        }
        joints.reverse();
        Some(Chain { foot, joints })
    }

    /// The 6 × n Jacobian of the foot's [linear; angular] velocity in world axes:
    /// column i = [aᵢ × (p_foot − pᵢ); aᵢ] for a revolute joint, [aᵢ; 0] for a prismatic one.
    pub fn jacobian(&self, body: &Body, poses: &[Isometry3<f64>]) -> DMatrix<f64> {
        let foot = poses[self.foot].translation.vector;
        let mut j = DMatrix::zeros(6, self.joints.len());
        for (col, &link) in self.joints.iter().enumerate() {
            let pose = &poses[link];
            let axis = pose.rotation * body.links[link].joint.axis;
            let column = if body.links[link].joint.kind == JointKind::Prismatic {
                Vector6::new(axis.x, axis.y, axis.z, 0.0, 0.0, 0.0)
            } else {
                let v = axis.cross(&(foot - pose.translation.vector));
                Vector6::new(v.x, v.y, v.z, axis.x, axis.y, axis.z)
            };
            j.set_column(col, &column);
        }
        j
    }
}

/// Pose error [p_t − p; ω] where ω is the rotation vector of R_t Rᵀ (world axes).
pub fn pose_error(target: &Isometry3<f64>, current: &Isometry3<f64>) -> Vector6<f64> {
    let dp = target.translation.vector - current.translation.vector;
    let dw = (target.rotation * current.rotation.inverse()).scaled_axis();
    Vector6::new(dp.x, dp.y, dp.z, dw.x, dw.y, dw.z)
}

/// Moves the chain's joints in `q` (per link index) so the foot reaches `target` with the root at
/// `root`: damped least squares (Levenberg–Marquardt), Δq = Jᵀ (J Jᵀ + λ² I)⁻¹ e, starting from
/// the current `q`. Returns the final residual norm ‖e‖ (metres and radians mixed, as in e).
pub fn solve_leg(body: &Body, chain: &Chain, root: &Isometry3<f64>, target: &Isometry3<f64>, q: &mut [f64]) -> f64 {
    const MAX_ITERATIONS: usize = 50;
    const TOLERANCE: f64 = 1e-12;
    const DAMPING_SQUARED: f64 = 1e-10;
    let residual = |q: &[f64]| pose_error(target, &forward(body, root, q)[chain.foot]).norm();
    for _ in 0..MAX_ITERATIONS {
        let poses = forward(body, root, q);
        let e = pose_error(target, &poses[chain.foot]);
        if e.norm() < TOLERANCE {
            break;
        }
        let j = chain.jacobian(body, &poses);
        let jjt = &j * j.transpose() + DMatrix::identity(6, 6) * DAMPING_SQUARED;
        let Some(y) = jjt.lu().solve(&DVector::from_column_slice(e.as_slice())) else {
            break;
        };
        let dq = j.transpose() * y;
        for (&link, d) in chain.joints.iter().zip(dq.iter()) {
            if let Some(value) = q.get_mut(link) {
                *value += d;
            }
        }
    }
    residual(q)
}
