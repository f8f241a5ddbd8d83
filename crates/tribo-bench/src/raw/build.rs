//! The scene's bodies as raw rapier bodies, colliders and multibody joints, built the way
//! tribo's rapier engine builds them (`crates/tribo-rapier/src/world_build.rs`) but with each
//! link its own rigid body whose frame is the link frame (the centre of mass given as local mass
//! property).

use nalgebra::{Isometry3, Vector3};
use rapier3d_f64::prelude::{
    CoefficientCombineRule, ColliderBuilder, GenericJointBuilder, JointAxesMask, MassProperties, MultibodyJointHandle,
    PhysicsWorld, RigidBodyBuilder, RigidBodyHandle, RigidBodyType,
};
use tribo_model::JointKind;
use tribo_runner::SceneBody;

use super::convert::{matrix, pose, vector, x_to};
use super::materials::Coefficients;

/// A 1-dof joint of an articulated body in the raw world.
#[derive(Debug, Clone, Copy)]
pub struct RawJoint {
    /// Link index in the body.
    pub link: usize,
    pub handle: MultibodyJointHandle,
    pub prismatic: bool,
}

/// One scene body in the raw world.
pub struct RawBody {
    /// The root link's rigid body.
    pub root: RigidBodyHandle,
    pub fixed: bool,
    pub joints: Vec<RawJoint>,
}

/// Add `body` to `world`; `Err` says what raw rapier here does not express.
pub fn add_body(world: &mut PhysicsWorld, body: &SceneBody, coefficients: &Coefficients) -> Result<RawBody, String> {
    let links = &body.model.links;
    // Link world poses at zero joint positions (the initial positions are applied through the
    // multibody's coordinates afterwards).
    let mut link_world: Vec<Isometry3<f64>> = Vec::with_capacity(links.len());
    let mut handles: Vec<RigidBodyHandle> = Vec::with_capacity(links.len());
    for (i, link) in links.iter().enumerate() {
        let world_pose = match link.parent {
            None => body.root_pose,
            Some(p) if p < i => link_world[p] * link.offset,
            Some(_) => return Err(format!("link `{}` comes before its parent", link.name)),
        };
        link_world.push(world_pose);
        let fixed = i == 0 && (body.fixed_root || link.joint.kind == JointKind::Fixed);
        if !fixed && link.mass <= 0.0 {
            return Err(format!("link `{}` has no mass", link.name));
        }
        let mut builder = RigidBodyBuilder::new(if fixed {
            RigidBodyType::Fixed
        } else {
            RigidBodyType::Dynamic
        })
        .pose(pose(&world_pose))
        .can_sleep(false)
        .ccd_enabled(!fixed);
        if !fixed {
            builder = builder.additional_mass_properties(MassProperties::with_inertia_matrix(
                vector(&link.center_of_mass),
                link.mass,
                matrix(&link.inertia),
            ));
        }
        if i == 0 && !fixed && links.len() == 1 {
            builder = builder
                .linvel(vector(&body.root_linear_velocity))
                .angvel(vector(&body.root_angular_velocity));
        }
        let handle = world.bodies.insert(builder);
        let (friction, restitution) = coefficients.of(body.link_materials[i]);
        for shape in &link.shapes {
            let geometry = tribo_geometry::shared_shape(&shape.geometry)
                .map_err(|reason| format!("link `{}`: {reason}", link.name))?;
            let collider = ColliderBuilder::new(geometry)
                .position(pose(&shape.pose))
                .density(0.0)
                .friction(friction)
                .restitution(restitution)
                .friction_combine_rule(CoefficientCombineRule::Min)
                .restitution_combine_rule(CoefficientCombineRule::Min);
            world.colliders.insert_with_parent(collider, handle, &mut world.bodies);
        }
        handles.push(handle);
    }
    let mut joints = Vec::new();
    for (i, link) in links.iter().enumerate().skip(1) {
        let Some(parent) = link.parent else {
            return Err(format!("link `{}` has no parent", link.name));
        };
        let (mask, axis) = match link.joint.kind {
            JointKind::Revolute => (JointAxesMask::LOCKED_REVOLUTE_AXES, unit(&link.joint.axis)),
            JointKind::Prismatic => (JointAxesMask::LOCKED_PRISMATIC_AXES, unit(&link.joint.axis)),
            JointKind::Fixed => (JointAxesMask::LOCKED_FIXED_AXES, Some(Vector3::x())),
            JointKind::Free => return Err(format!("link `{}` has a free joint below the root", link.name)),
        };
        let axis = axis.ok_or_else(|| format!("joint `{}` has no axis", link.joint.name))?;
        let to_axis = x_to(&axis);
        let joint = GenericJointBuilder::new(mask)
            .local_frame1(pose(&(link.offset * to_axis)))
            .local_frame2(pose(&Isometry3::from_parts(Default::default(), to_axis)))
            .contacts_enabled(false)
            .build();
        let handle = world
            .multibody_joints
            .insert(handles[parent], handles[i], joint, true)
            .ok_or_else(|| format!("joint `{}` closes a kinematic loop", link.joint.name))?;
        if link.joint.kind != JointKind::Fixed {
            joints.push(RawJoint {
                link: i,
                handle,
                prismatic: link.joint.kind == JointKind::Prismatic,
            });
        }
    }
    initialise(world, body, &joints)?;
    Ok(RawBody {
        root: handles[0],
        fixed: body.fixed_root,
        joints,
    })
}

fn unit(axis: &Vector3<f64>) -> Option<Vector3<f64>> {
    let norm = axis.norm();
    (norm.is_finite() && norm > 1e-12).then(|| axis / norm)
}

/// Self-contacts, zero joint damping (rapier's default is 0.1 on angular dofs; tribo's rapier
/// engine zeroes it), armature and the initial joint positions of an articulated body.
fn initialise(world: &mut PhysicsWorld, body: &SceneBody, joints: &[RawJoint]) -> Result<(), String> {
    let Some(first) = joints.first() else {
        return Ok(());
    };
    let links = &body.model.links;
    let (multibody, _) = world
        .multibody_joints
        .get_mut(first.handle)
        .ok_or("the multibody vanished")?;
    multibody.set_self_contacts_enabled(body.self_collision);
    multibody.forward_kinematics(&world.bodies, true);
    let ndofs = multibody.ndofs();
    let mut displacement = vec![0.0; ndofs];
    multibody.damping_mut().fill(0.0);
    for joint in joints {
        let Some((_, id)) = world.multibody_joints.get(joint.handle) else {
            return Err(format!("joint `{}` vanished", links[joint.link].joint.name));
        };
        let (multibody, _) = world
            .multibody_joints
            .get_mut(first.handle)
            .ok_or("the multibody vanished")?;
        let dof = multibody
            .link(id)
            .map(|l| l.assembly_id())
            .filter(|d| *d < ndofs)
            .ok_or_else(|| format!("joint `{}` has no degree of freedom", links[joint.link].joint.name))?;
        multibody.armature_mut()[dof] = links[joint.link].joint.armature.max(0.0);
        displacement[dof] = body.initial_positions.get(joint.link).copied().unwrap_or(0.0);
    }
    let (multibody, _) = world
        .multibody_joints
        .get_mut(first.handle)
        .ok_or("the multibody vanished")?;
    multibody.apply_displacements(&displacement);
    multibody.forward_kinematics(&world.bodies, true);
    multibody.update_rigid_bodies(&mut world.bodies, true);
    Ok(())
}
