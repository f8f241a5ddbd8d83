//! The state of a rapier world at the start of a step, kept so that the step can be solved again
//! from the same start (`host.rs`, *Friction*).
//!
//! A rapier step reads and writes the rigid bodies (poses, velocities, user forces, sleep), the
//! colliders and both joint sets (motor impulses), the islands, the broad phase and the narrow
//! phase (contact manifolds and their warm-start impulses). Copying those sets before a step and
//! putting them back afterwards returns the world to where the step began, bit for bit; the
//! pipeline, the CCD solver and the integration parameters are workspaces or set anew by every
//! step (rapier clears the pipeline's quarantine at each step's start).

use rapier3d_f64::prelude::{
    BroadPhaseBvh, ColliderSet, ImpulseJointSet, IslandManager, MultibodyJointSet, NarrowPhase, PhysicsWorld,
    RigidBodySet, SoftBodySet,
};

/// The parts of a [`PhysicsWorld`] that a step changes.
pub(crate) struct WorldSnapshot {
    bodies: RigidBodySet,
    colliders: ColliderSet,
    impulse_joints: ImpulseJointSet,
    multibody_joints: MultibodyJointSet,
    soft_bodies: SoftBodySet,
    islands: IslandManager,
    broad_phase: BroadPhaseBvh,
    narrow_phase: NarrowPhase,
}

impl WorldSnapshot {
    /// A copy of `world`'s state.
    pub(crate) fn of(world: &PhysicsWorld) -> WorldSnapshot {
        WorldSnapshot {
            bodies: world.bodies.clone(),
            colliders: world.colliders.clone(),
            impulse_joints: world.impulse_joints.clone(),
            multibody_joints: world.multibody_joints.clone(),
            soft_bodies: world.soft_bodies.clone(),
            islands: world.islands.clone(),
            broad_phase: world.broad_phase.clone(),
            narrow_phase: world.narrow_phase.clone(),
        }
    }

    /// Puts the copied state back into `world`.
    pub(crate) fn restore(self, world: &mut PhysicsWorld) {
        world.bodies = self.bodies;
        world.colliders = self.colliders;
        world.impulse_joints = self.impulse_joints;
        world.multibody_joints = self.multibody_joints;
        world.soft_bodies = self.soft_bodies;
        world.islands = self.islands;
        world.broad_phase = self.broad_phase;
        world.narrow_phase = self.narrow_phase;
    }
}
