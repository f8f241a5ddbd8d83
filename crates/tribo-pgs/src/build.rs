//! Scene → multibody trees: one [`tribo_multibody::Tree`] per scene body, its initial state and its
//! collision shapes.
//!
//! Links welded by a Fixed joint are merged into their *carrier*, the nearest ancestor (or the link
//! itself) whose joint moves: the root, a revolute or a prismatic joint. A carrier is one tree body
//! whose inertia is the composite of its welded links (masses added, centre of mass averaged,
//! inertias moved by the parallel-axis theorem `I = Σ Rᵢ Iᵢ Rᵢᵀ + mᵢ (|dᵢ|² 1 − dᵢ dᵢᵀ)`), and
//! whose shapes are the welded links' shapes moved into the carrier frame. A free root (not fixed
//! by the scene) is a floating base (`Joint::Free`, placement = identity, `q` = world pose); a
//! fixed root is a `Joint::Fixed` body whose placement is the root pose (a kinematic root changes
//! that placement every step it receives a target).

use std::sync::Arc;

use nalgebra::{Isometry3, Matrix3, Vector3};
use parry3d_f64::shape::SharedShape;
use tribo_engine::SceneBody;
use tribo_geometry::shared_shape;
use tribo_model::JointKind;
use tribo_multibody::{Body as TreeBody, Joint, LinkInertia, RootPlacement, State, Tree};

use crate::error::BodyError;

/// One collision shape on a tree body.
#[derive(Clone)]
pub(crate) struct Collider {
    /// The scene link that owns the shape (for materials and reports).
    pub link: usize,
    /// The tree body (carrier) that moves it.
    pub carrier: usize,
    pub shape: SharedShape,
    /// Pose of the shape in the carrier frame.
    pub pose_in_carrier: Isometry3<f64>,
    /// Radius about the shape's origin that contains it, m (`recycle.rs`, [`crate::recycle::reach`]).
    pub reach: f64,
}

/// A scene body as the engine simulates it.
#[derive(Clone)]
pub(crate) struct BodyModel {
    pub name: String,
    /// The multibody tree. It and the link tables below are shared between the free bodies of a
    /// scene built from the same model (`step.rs`, *Shared models*); a kinematic root's move
    /// takes its own copy of the tree.
    pub tree: Arc<Tree>,
    /// Tree body index of every link.
    pub carrier: Arc<Vec<usize>>,
    /// Pose of every link frame in its carrier's frame.
    pub link_in_carrier: Arc<Vec<Isometry3<f64>>>,
    /// Velocity index of every link's 1-dof joint.
    pub link_dof: Arc<Vec<Option<usize>>>,
    /// Position index of every link's 1-dof joint.
    pub link_q: Arc<Vec<Option<usize>>>,
    /// Parent tree body of every tree body (for the adjacency rule).
    pub tree_parent: Arc<Vec<Option<usize>>>,
    /// The root is attached to the world (fixed or kinematic).
    pub fixed_root: bool,
    pub self_collision: bool,
    pub colliders: Arc<Vec<Collider>>,
}

impl BodyModel {
    /// Whether the body has degrees of freedom to integrate.
    pub fn is_dynamic(&self) -> bool {
        self.tree.nv() > 0
    }

    /// Makes this model, built from the same scene model as `first` with a free root, share
    /// `first`'s tree and link tables (equal to its own: a free root's depend on the model only).
    pub fn share_with(&mut self, first: &BodyModel) {
        self.tree = Arc::clone(&first.tree);
        self.carrier = Arc::clone(&first.carrier);
        self.link_in_carrier = Arc::clone(&first.link_in_carrier);
        self.link_dof = Arc::clone(&first.link_dof);
        self.link_q = Arc::clone(&first.link_q);
        self.tree_parent = Arc::clone(&first.tree_parent);
        self.colliders = Arc::clone(&first.colliders);
    }

    /// Moves a fixed root to `pose` (a kinematic target) in place and returns its previous
    /// placement, to put back with [`Tree::restore_root_placement`] if the step fails.
    pub fn set_root_placement(&mut self, pose: &Isometry3<f64>) -> Result<RootPlacement, tribo_multibody::Error> {
        Arc::make_mut(&mut self.tree).set_root_placement(pose)
    }

    /// Puts a root moved by [`Self::set_root_placement`] back where it was.
    pub fn restore_root_placement(&mut self, previous: RootPlacement) {
        Arc::make_mut(&mut self.tree).restore_root_placement(previous);
    }
}

/// The model and initial state of `body`, or why this engine cannot simulate it.
///
/// The scene's own checks come first ([`tribo_model::validate`], which scene assembly runs too,
/// located at the `.body` line of the link); the errors below are defensive, for scenes built in
/// code, and cannot be reached by a validated body except `check_mass_matrix` on a body whose
/// masses span more than f64 can resolve.
pub(crate) fn build_body(body: &SceneBody, self_collision: Option<bool>) -> Result<(BodyModel, State), BodyError> {
    tribo_model::validate(&body.model, body.fixed_root).map_err(BodyError::Model)?;
    tribo_model::refuse_closed_loops(&body.model, "pgs").map_err(BodyError::Model)?;
    let links = &body.model.links;
    let n = links.len();
    // The rigid groups every engine and the scene's validation use; tree bodies are numbered by
    // their carrier links in link order (the root first).
    let groups = tribo_model::rigid_groups(&body.model).map_err(BodyError::Model)?;
    let carrier_link: Vec<usize> = (0..n).filter(|&i| groups.carrier[i] == i).collect();
    let mut tree_index = vec![0usize; n];
    for (index, &li) in carrier_link.iter().enumerate() {
        tree_index[li] = index;
    }
    let carrier: Vec<usize> = groups.carrier.iter().map(|&c| tree_index[c]).collect();
    let link_in_carrier = groups.link_in_carrier;
    let root_kind = links[0].joint.kind;
    let fixed_root = body.fixed_root || root_kind == JointKind::Fixed;

    // Composite inertia of every carrier, in its frame.
    let mut parts: Vec<Vec<MassPart>> = vec![Vec::new(); carrier_link.len()];
    for (i, link) in links.iter().enumerate() {
        let pose = link_in_carrier[i];
        let rotation = pose.rotation.to_rotation_matrix();
        let com = pose.transform_point(&link.center_of_mass.into()).coords;
        parts[carrier[i]].push((link.mass, com, rotation * link.inertia * rotation.transpose()));
    }
    let mut tree_bodies = Vec::with_capacity(carrier_link.len());
    let mut tree_parent = Vec::with_capacity(carrier_link.len());
    for (index, &li) in carrier_link.iter().enumerate() {
        let link = &links[li];
        let inertia = composite(&parts[index]);
        let (parent, joint, placement) = if index == 0 {
            if fixed_root {
                (None, Joint::Fixed, body.root_pose)
            } else {
                (None, Joint::Free, Isometry3::identity())
            }
        } else {
            let p = link.parent.unwrap_or(0);
            let joint = match link.joint.kind {
                JointKind::Prismatic => Joint::Prismatic { axis: link.joint.axis },
                _ => Joint::Revolute { axis: link.joint.axis },
            };
            (Some(carrier[p]), joint, link_in_carrier[p] * link.offset)
        };
        let mut tree_body = TreeBody::new(link.name.clone(), parent, joint, placement, inertia);
        if index > 0 {
            tree_body = tree_body.with_armature(link.joint.armature);
            if link.joint.max_effort.is_finite() {
                tree_body = tree_body.with_effort_limit(link.joint.max_effort);
            }
        }
        tree_parent.push(parent);
        tree_bodies.push(tree_body);
    }
    let tree = Tree::new(tree_bodies)?;

    let mut link_dof = vec![None; n];
    let mut link_q = vec![None; n];
    for (index, &li) in carrier_link.iter().enumerate().skip(1) {
        link_dof[li] = tree.v_range(index).next();
        link_q[li] = tree.q_range(index).next();
    }

    let mut colliders = Vec::new();
    for (i, link) in links.iter().enumerate() {
        for shape in &link.shapes {
            let shape_of_link = shared_shape(&shape.geometry).map_err(|reason| BodyError::Shape {
                link: link.name.clone(),
                reason,
            })?;
            colliders.push(Collider {
                link: i,
                carrier: carrier[i],
                reach: crate::recycle::reach(shape_of_link.as_ref()),
                shape: shape_of_link,
                pose_in_carrier: link_in_carrier[i] * shape.pose,
            });
        }
    }

    let mut state = State::neutral(&tree);
    if !fixed_root {
        let p = body.root_pose.translation.vector;
        let r = body.root_pose.rotation;
        state.q.as_mut_slice()[..7].copy_from_slice(&[p.x, p.y, p.z, r.w, r.i, r.j, r.k]);
        let (v, w) = (body.root_linear_velocity, body.root_angular_velocity);
        state.v.as_mut_slice()[..6].copy_from_slice(&[v.x, v.y, v.z, w.x, w.y, w.z]);
    }
    for (i, q) in link_q.iter().enumerate() {
        if let (Some(q), Some(value)) = (q, body.initial_positions.get(i)) {
            state.q[*q] = *value;
        }
    }
    let model = BodyModel {
        name: body.name.clone(),
        tree: Arc::new(tree),
        carrier: Arc::new(carrier),
        link_in_carrier: Arc::new(link_in_carrier),
        link_dof: Arc::new(link_dof),
        link_q: Arc::new(link_q),
        tree_parent: Arc::new(tree_parent),
        fixed_root,
        self_collision: self_collision.unwrap_or(body.self_collision),
        colliders: Arc::new(colliders),
    };
    check_mass_matrix(&model, &state)?;
    Ok((model, state))
}

/// One welded link's mass (kg), centre of mass and inertia about it, in the carrier frame.
type MassPart = (f64, Vector3<f64>, Matrix3<f64>);

/// Masses added, centre of mass averaged, inertias about the common centre (parallel axes).
fn composite(parts: &[MassPart]) -> LinkInertia {
    let mass: f64 = parts.iter().map(|p| p.0).sum();
    if mass <= 0.0 {
        let inertia = parts.iter().map(|p| p.2).sum();
        return LinkInertia::new(0.0, Vector3::zeros(), inertia);
    }
    let com = parts.iter().map(|p| p.1 * p.0).sum::<Vector3<f64>>() / mass;
    let inertia = parts
        .iter()
        .map(|(m, c, i)| {
            let d = c - com;
            i + (Matrix3::identity() * d.norm_squared() - d * d.transpose()) * *m
        })
        .sum();
    LinkInertia::new(mass, com, inertia)
}

/// A body with degrees of freedom must have a positive definite mass matrix.
fn check_mass_matrix(model: &BodyModel, state: &State) -> Result<(), BodyError> {
    if !model.is_dynamic() {
        return Ok(());
    }
    let kin = tribo_multibody::Kinematics::new(&model.tree, state)?;
    let mass = tribo_multibody::mass_matrix(&kin);
    tribo_multibody::TreeFactorisation::new(mass, &model.tree)
        .map(|_| ())
        .map_err(BodyError::SingularMass)
}
