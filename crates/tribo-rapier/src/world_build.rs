//! Building rapier's world from a scene.
//!
//! - Single-link bodies (and bodies whose joints are all Fixed) become one rigid body: dynamic, or
//!   fixed when the scene fixes the root or its root joint is Fixed.
//! - Bodies with revolute or prismatic joints become one rapier multibody (reduced coordinates,
//!   `MultibodyJointSet`): a dynamic root is a floating base, a fixed root is welded to the world.
//! - Mass properties come from the links (mass, centre of mass, full inertia tensor, diagonalised
//!   by `MassProperties::with_inertia_matrix`); colliders have density 0 and add nothing.
//! - Each collider carries its link in `user_data`. Its contact coefficients come from the material
//!   hook, or, for a material whose pairs rapier's `Min` rule combines exactly, from the collider
//!   itself (`combined_coefficients.rs`).
//! - Extra joints (closed loops) become impulse joints between their links' bodies (loops.rs).

use nalgebra::{Isometry3, Matrix3, UnitQuaternion, Vector3};
use rapier3d_f64::math::Matrix;
use rapier3d_f64::prelude::{
    ActiveHooks, CoefficientCombineRule, ColliderBuilder, GenericJointBuilder, JointAxesMask, JointAxis,
    MassProperties, MultibodyJointHandle, PhysicsWorld, RigidBodyBuilder, RigidBodyHandle, RigidBodyType,
};
use tribo_engine::{BuildError, LinkRef, Scene, SceneBody};
use tribo_model::JointKind;

use crate::combined_coefficients::CombinedCoefficients;
use crate::convert;
use crate::error::BodyError;
use crate::layout::Layout;
use crate::materials_hook::encode_link;
use crate::options::RapierOptions;
use tribo_geometry::shared_shape;

/// The rapier world and where every link of the scene lives in it.
pub(crate) struct BuiltWorld {
    pub physics: PhysicsWorld,
    /// Indexed like `Scene::bodies`.
    pub bodies: Vec<BodySlots>,
    /// Viscous damping of every 1-dof joint (the `joint_damping` option).
    pub joint_damping: f64,
}

pub(crate) struct BodySlots {
    pub root: RigidBodyHandle,
    pub root_type: RootType,
    /// Indexed like `Body::links`.
    pub links: Vec<LinkSlot>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RootType {
    Dynamic,
    Fixed,
    /// A fixed root moved by `root_target` commands (switched on the first command): a kinematic
    /// rapier body for a single rigid body, a dynamic rapier body whose multibody root degrees of
    /// freedom are kinematic for an articulated body.
    Kinematic,
}

pub(crate) struct LinkSlot {
    /// The rigid body carrying the link.
    pub body: RigidBodyHandle,
    /// Pose of the link frame in that body's frame.
    pub link_in_body: Isometry3<f64>,
    /// The 1-dof multibody joint moving the link, if the link's own joint moves.
    pub joint: Option<JointSlot>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DofKind {
    Revolute,
    Prismatic,
}

impl DofKind {
    /// The joint-frame axis left free (rapier builds revolute joints about local X, prismatic
    /// joints along local X).
    pub fn axis(self) -> JointAxis {
        match self {
            DofKind::Revolute => JointAxis::AngX,
            DofKind::Prismatic => JointAxis::LinX,
        }
    }

    /// Index of the free coordinate in `MultibodyJoint::coords` (`[lin xyz, ang xyz]`).
    pub fn coordinate(self) -> usize {
        match self {
            DofKind::Revolute => 3,
            DofKind::Prismatic => 0,
        }
    }

    fn locked_axes(self) -> JointAxesMask {
        match self {
            DofKind::Revolute => JointAxesMask::LOCKED_REVOLUTE_AXES,
            DofKind::Prismatic => JointAxesMask::LOCKED_PRISMATIC_AXES,
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct JointSlot {
    pub handle: MultibodyJointHandle,
    pub kind: DofKind,
    pub parent_body: RigidBodyHandle,
    /// Unit joint axis in the child body's frame.
    pub axis_in_body: Vector3<f64>,
}

/// Every body of `scene` in a new rapier world, or why one of them cannot be built.
pub(crate) fn build_world(scene: &Scene, options: &RapierOptions) -> Result<BuiltWorld, BuildError> {
    let mut physics = PhysicsWorld::new();
    physics.gravity = convert::vector(&scene.gravity);
    let mut bodies = Vec::with_capacity(scene.bodies.len());
    let coefficients = CombinedCoefficients::of_scene(scene);
    for (index, scene_body) in scene.bodies.iter().enumerate() {
        let slots = check_materials(scene, scene_body)
            .and_then(|()| build_body(&mut physics, index, scene_body, &coefficients, options))
            .map_err(|e| BuildError::Body {
                engine: "rapier",
                body: scene_body.name.clone(),
                reason: e.to_string(),
            })?;
        bodies.push(slots);
    }
    Ok(BuiltWorld {
        physics,
        bodies,
        joint_damping: options.joint_damping,
    })
}

fn build_body(
    physics: &mut PhysicsWorld,
    body_index: usize,
    scene_body: &SceneBody,
    coefficients: &CombinedCoefficients,
    options: &RapierOptions,
) -> Result<BodySlots, BodyError> {
    // The scene's checks (also run by scene assembly), located at the `.body` line of the link;
    // the layout's and the mass checks below are defensive, for scenes built in code.
    tribo_model::validate(&scene_body.model, scene_body.fixed_root).map_err(BodyError::Model)?;
    let links = &scene_body.model.links;
    let layout = Layout::of(&scene_body.model)?;
    let root_type = match (scene_body.fixed_root, links[0].joint.kind) {
        (true, _) | (_, JointKind::Fixed) => RootType::Fixed,
        _ => RootType::Dynamic,
    };

    // World pose of every carrier link at the zero joint configuration; the initial joint
    // positions are applied afterwards through the multibody coordinates.
    let mut link_world = vec![scene_body.root_pose; links.len()];
    let mut handles: Vec<Option<RigidBodyHandle>> = vec![None; links.len()];
    for c in layout.carriers() {
        if let Some(p) = links[c].parent {
            let parent_body_world = link_world[layout.carrier[p]] * layout.link_in_body[layout.carrier[p]].inverse();
            link_world[c] = parent_body_world * layout.link_in_body[p] * links[c].offset;
        }
        let body_type = if c == 0 { root_type } else { RootType::Dynamic };
        if body_type == RootType::Dynamic && layout.subtree_mass[c] <= 0.0 {
            return Err(BodyError::Massless {
                link: links[c].name.clone(),
            });
        }
        let body_world = link_world[c] * layout.link_in_body[c].inverse();
        let mass = &layout.mass[c];
        let mut builder = RigidBodyBuilder::new(match body_type {
            RootType::Dynamic => RigidBodyType::Dynamic,
            RootType::Fixed | RootType::Kinematic => RigidBodyType::Fixed,
        })
        .pose(convert::pose(&body_world))
        .additional_mass_properties(MassProperties::with_inertia_matrix(
            rapier3d_f64::math::Vector::ZERO,
            mass.mass,
            matrix(&mass.inertia),
        ))
        .can_sleep(false)
        .ccd_enabled(options.ccd && body_type == RootType::Dynamic)
        .user_data(encode_link(LinkRef {
            body: body_index,
            link: c,
        }));
        if c == 0 && body_type == RootType::Dynamic && !layout.is_articulated() {
            let (linvel, angvel) = root_com_velocity(scene_body, &body_world);
            builder = builder
                .linvel(convert::vector(&linvel))
                .angvel(convert::vector(&angvel));
        }
        let handle = physics.bodies.insert(builder);
        handles[c] = Some(handle);

        for (i, link) in links.iter().enumerate().filter(|(i, _)| layout.carrier[*i] == c) {
            for shape in &link.shapes {
                let pose_is_finite = shape
                    .pose
                    .translation
                    .vector
                    .iter()
                    .chain(shape.pose.rotation.coords.iter())
                    .all(|x| x.is_finite());
                if !pose_is_finite {
                    return Err(BodyError::NonFiniteShapePose {
                        link: link.name.clone(),
                        shape: shape.geometry.type_name(),
                    });
                }
                let geometry = shared_shape(&shape.geometry).map_err(|reason| BodyError::Shape {
                    link: link.name.clone(),
                    reason,
                })?;
                let collider = ColliderBuilder::new(geometry)
                    .position(convert::pose(&(layout.link_in_body[i] * shape.pose)))
                    .density(0.0)
                    .user_data(encode_link(LinkRef {
                        body: body_index,
                        link: i,
                    }));
                let material = scene_body.link_materials.get(i).copied();
                let collider = match material.and_then(|m| coefficients.of(m)) {
                    Some((friction, restitution)) => collider
                        .friction(friction)
                        .restitution(restitution)
                        .friction_combine_rule(CoefficientCombineRule::Min)
                        .restitution_combine_rule(CoefficientCombineRule::Min),
                    None => collider
                        .friction(0.0)
                        .restitution(0.0)
                        .active_hooks(ActiveHooks::MODIFY_SOLVER_CONTACTS),
                };
                physics
                    .colliders
                    .insert_with_parent(collider, handle, &mut physics.bodies);
            }
        }
    }

    let body_of =
        |i: usize| handles[layout.carrier[i]].ok_or_else(|| BodyError::Internal(format!("link {i} has no rigid body")));
    let mut slots = Vec::with_capacity(links.len());
    for i in 0..links.len() {
        slots.push(LinkSlot {
            body: body_of(i)?,
            link_in_body: layout.link_in_body[i],
            joint: None,
        });
    }
    let root = body_of(0)?;

    if layout.is_articulated() {
        for c in layout.carriers().filter(|&c| c != 0) {
            let link = &links[c];
            let (Some(p), Some(kind)) = (link.parent, dof_kind(link.joint.kind)) else {
                continue;
            };
            let axis = unit_axis(&link.joint.axis).ok_or_else(|| BodyError::NoAxis {
                joint: link.joint.name.clone(),
                axis: link.joint.axis.into(),
            })?;
            // Joint frames: X along the joint axis, origin at the child link's origin. At zero
            // joint position the child link frame is the parent link frame times `offset`.
            let x_to_axis = x_to(&axis);
            let frame1 = layout.link_in_body[p] * link.offset * x_to_axis;
            let frame2 = layout.link_in_body[c] * x_to_axis;
            let joint = GenericJointBuilder::new(kind.locked_axes())
                .local_frame1(convert::pose(&frame1))
                .local_frame2(convert::pose(&frame2))
                .contacts_enabled(false)
                .build();
            let (parent_body, child_body) = (body_of(p)?, body_of(c)?);
            let handle = physics
                .multibody_joints
                .insert(parent_body, child_body, joint, true)
                .ok_or_else(|| BodyError::KinematicLoop {
                    joint: link.joint.name.clone(),
                })?;
            let axis_in_body = layout.link_in_body[c].rotation * axis;
            slots[c].joint = Some(JointSlot {
                handle,
                kind,
                parent_body,
                axis_in_body,
            });
        }
        initialise_multibody(physics, scene_body, &slots, root_type, options)?;
    }
    crate::loops::close_loops(physics, &scene_body.model, &slots)?;

    Ok(BodySlots {
        root,
        root_type,
        links: slots,
    })
}

/// Every link has a material of the scene's contact table (the material hook relies on it).
fn check_materials(scene: &Scene, scene_body: &SceneBody) -> Result<(), BodyError> {
    let links = scene_body.model.links.len();
    if scene_body.link_materials.len() != links {
        return Err(BodyError::MaterialCount {
            count: scene_body.link_materials.len(),
            links,
        });
    }
    match scene_body
        .link_materials
        .iter()
        .position(|id| id.index() >= scene.contacts.len())
    {
        Some(link) => Err(BodyError::UnknownMaterial { link }),
        None => Ok(()),
    }
}

/// Self-contacts, damping, armature, initial joint positions and root velocity of a body's
/// multibody; then the link poses that follow from them.
fn initialise_multibody(
    physics: &mut PhysicsWorld,
    scene_body: &SceneBody,
    slots: &[LinkSlot],
    root_type: RootType,
    options: &RapierOptions,
) -> Result<(), BodyError> {
    // (link index, multibody link id) of every 1-dof joint.
    let mut joints = Vec::new();
    for (i, slot) in slots.iter().enumerate() {
        if let Some(joint) = slot.joint {
            let (_, id) = physics.multibody_joints.get(joint.handle).ok_or_else(|| {
                BodyError::Internal(format!(
                    "joint `{}` vanished from its multibody",
                    scene_body.model.links[i].joint.name
                ))
            })?;
            joints.push((i, id, joint.handle));
        }
    }
    let Some(&(_, _, first)) = joints.first() else {
        return Ok(());
    };
    let links = &scene_body.model.links;
    let root_body_world = physics
        .bodies
        .get(slots[0].body)
        .map(|rb| convert::isometry(rb.position()));
    let (multibody, _) = physics
        .multibody_joints
        .get_mut(first)
        .ok_or_else(|| BodyError::Internal("the multibody vanished".to_owned()))?;
    multibody.set_self_contacts_enabled(scene_body.self_collision);
    // Settle the root's degrees of freedom (6 for a floating base, 0 when fixed).
    multibody.forward_kinematics(&physics.bodies, true);

    let ndofs = multibody.ndofs();
    let mut displacement = vec![0.0; ndofs];
    // rapier puts a 0.1 damping on every angular degree of freedom by default, the floating
    // root's included; tribo's joints are undamped unless the options say otherwise.
    multibody.damping_mut().fill(0.0);
    for &(i, id, _) in &joints {
        let Some(dof) = multibody.link(id).map(|l| l.assembly_id()).filter(|d| *d < ndofs) else {
            return Err(BodyError::NoDof {
                joint: links[i].joint.name.clone(),
            });
        };
        multibody.damping_mut()[dof] = options.joint_damping;
        multibody.armature_mut()[dof] = links[i].joint.armature.max(0.0);
        displacement[dof] = scene_body.initial_positions.get(i).copied().unwrap_or(0.0);
    }
    multibody.apply_displacements(&displacement);

    if root_type == RootType::Dynamic && ndofs >= 6 {
        if let Some(root_body_world) = root_body_world {
            let (linvel, angvel) = root_com_velocity(scene_body, &root_body_world);
            let mut velocity = multibody.generalized_velocity_mut();
            for k in 0..3 {
                velocity[k] = linvel[k];
                velocity[3 + k] = angvel[k];
            }
        }
    }
    multibody.forward_kinematics(&physics.bodies, true);
    multibody.update_rigid_bodies(&mut physics.bodies, true);
    Ok(())
}

/// Velocity of the root body's frame origin (its centre of mass) and angular velocity, from the
/// scene's root-origin velocity: v_c = v_o + ω × (c − o).
fn root_com_velocity(scene_body: &SceneBody, body_world: &Isometry3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    let omega = scene_body.root_angular_velocity;
    let lever = body_world.translation.vector - scene_body.root_pose.translation.vector;
    (scene_body.root_linear_velocity + omega.cross(&lever), omega)
}

fn dof_kind(kind: JointKind) -> Option<DofKind> {
    match kind {
        JointKind::Revolute => Some(DofKind::Revolute),
        JointKind::Prismatic => Some(DofKind::Prismatic),
        JointKind::Free | JointKind::Fixed => None,
    }
}

fn unit_axis(axis: &Vector3<f64>) -> Option<Vector3<f64>> {
    let norm = axis.norm();
    (norm.is_finite() && norm > 1e-12).then(|| axis / norm)
}

/// The smallest rotation taking +X to the unit vector `axis`.
pub(crate) fn x_to(axis: &Vector3<f64>) -> UnitQuaternion<f64> {
    UnitQuaternion::rotation_between(&Vector3::x(), axis)
        .unwrap_or_else(|| UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::PI))
}

fn matrix(m: &Matrix3<f64>) -> Matrix {
    Matrix::from_cols(
        rapier3d_f64::math::Vector::new(m[(0, 0)], m[(1, 0)], m[(2, 0)]),
        rapier3d_f64::math::Vector::new(m[(0, 1)], m[(1, 1)], m[(2, 1)]),
        rapier3d_f64::math::Vector::new(m[(0, 2)], m[(1, 2)], m[(2, 2)]),
    )
}
