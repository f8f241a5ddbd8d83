//! The `rapier` engine: one step is apply commands → physics step → read state → count contacts;
//! the contact records are read out of rapier when first asked (`readout.rs`, `LazyReadout`).

use std::collections::HashSet;
use std::sync::Arc;

use nalgebra::Vector3;
use rapier3d_f64::prelude::RigidBodyHandle;
use tribo_engine::{BuildError, Scene};
use tribo_engine::{Commands, CompliantPoint, ContactRecord, Engine, LinkRef, SceneState, StepError, StepReport};

use crate::commands::{apply_commands, EffortLaw};
use crate::host::{applied_forces, bound_friction, normal_forces, Applied, HostedJoints};
use crate::materials_hook::{decode_link, LinkMaterials, MaterialHook};
use crate::options::{FrictionModel, RapierOptions};
use crate::readout::{count_contacts, read_state, read_state_into, LazyReadout};
use crate::world_build::{build_world, BuiltWorld};
use crate::world_snapshot::WorldSnapshot;

pub(crate) struct RapierEngine {
    scene: Arc<Scene>,
    /// Whether steps time their stages (`Engine::set_stage_timing`).
    time_stages: bool,
    options: RapierOptions,
    world: BuiltWorld,
    state: SceneState,
    /// The last step's contact records, read when first asked.
    contacts: LazyReadout,
    /// The scene's link materials, flat (for the hook and the contact readout).
    materials: LinkMaterials,
    /// The state before the last step, kept to be read into by the next.
    spare_state: SceneState,
    /// The effort law of every link in the step (per body, per link), kept for its storage.
    laws: Vec<Vec<EffortLaw>>,
    time: f64,
    steps: u64,
    /// Rigid bodies holding user forces from the last step (reset before the next).
    forced: Vec<RigidBodyHandle>,
    /// Set once a step diverged: the world is no longer trustworthy.
    diverged: Option<StepError>,
    /// Rigid bodies that are multibody links (their contacts use per-point friction).
    multibody_links: HashSet<RigidBodyHandle>,
    /// Link pairs a hosted extension took over (both orders; `host.rs`).
    pub(crate) excluded: HashSet<(LinkRef, LinkRef)>,
    /// The joints carrying a hosted extension's compliant points (`host.rs`).
    hosted: HostedJoints,
}

impl RapierEngine {
    pub fn new(scene: Arc<Scene>, options: RapierOptions) -> Result<RapierEngine, BuildError> {
        let world = build_world(&scene, &options)?;
        let idle: Vec<Vec<EffortLaw>> = scene
            .bodies
            .iter()
            .map(|b| vec![EffortLaw::Known(0.0); b.model.links.len()])
            .collect();
        let state = read_state(&world, &idle);
        if let Some((b, l)) = state.first_non_finite() {
            return Err(BuildError::Body {
                engine: "rapier",
                body: body_name(&scene, b),
                reason: format!("the initial state of link {l} is not finite"),
            });
        }
        let multibody_links = world
            .physics
            .bodies
            .iter()
            .map(|(handle, _)| handle)
            .filter(|h| world.physics.multibody_joints.rigid_body_link(*h).is_some())
            .collect();
        Ok(RapierEngine {
            time_stages: false,
            multibody_links,
            materials: LinkMaterials::of_scene(&scene),
            spare_state: SceneState::default(),
            laws: Vec::new(),
            scene,
            options,
            world,
            state,
            contacts: LazyReadout::default(),
            time: 0.0,
            steps: 0,
            forced: Vec::new(),
            diverged: None,
            excluded: HashSet::new(),
            hosted: HostedJoints::default(),
        })
    }

    fn physics_step(&mut self, dt: f64) {
        self.world.physics.integration_parameters = self.options.integration_parameters(dt);
        self.hosted.tune(&mut self.world.physics.integration_parameters);
        let hook = MaterialHook {
            scene: &self.scene,
            materials: &self.materials,
            slip_threshold: self.options.slip_threshold,
            per_point_friction: &self.multibody_links,
            coulomb_everywhere: self.options.friction_model == FrictionModel::Coulomb,
            excluded: &self.excluded,
        };
        self.world.physics.step_with_events(&hook, &());
    }

    /// A step that carries compliant points (`host.rs`, *Friction*): solved once with each
    /// point's friction bounded by its load at the start of the step, then, from the same start,
    /// again with the bound `μ f_n` of the normal force `f_n` that the first solve gave it.
    fn hosted_physics_step(&mut self, dt: f64, applied: &[Applied]) {
        let start = WorldSnapshot::of(&self.world.physics);
        self.physics_step(dt);
        let substeps = self.world.physics.integration_parameters.num_solver_iterations.max(1);
        let normal = normal_forces(&self.world, applied, dt / substeps as f64);
        start.restore(&mut self.world.physics);
        bound_friction(&mut self.world, applied, &normal);
        self.physics_step(dt);
    }

    /// The divergence error for this step, if rapier quarantined a body or the state is not finite.
    fn divergence(&self, state: &SceneState) -> Option<StepError> {
        let quarantined = self.world.physics.quarantine().bodies().first().and_then(|h| {
            let rb = self.world.physics.bodies.get(*h)?;
            Some(decode_link(rb.user_data))
        });
        let (body, link, what) = match (quarantined, state.first_non_finite()) {
            (Some(link), _) => (link.body, link.link, "went non-finite inside rapier"),
            (None, Some((b, l))) => (b, l, "has a non-finite pose or velocity"),
            (None, None) => return None,
        };
        let link_name = self
            .scene
            .bodies
            .get(body)
            .and_then(|b| b.model.links.get(link))
            .map_or_else(|| format!("{link}"), |l| l.name.clone());
        Some(StepError::Diverged {
            step: self.steps + 1,
            time: self.time,
            body: body_name(&self.scene, body),
            what: format!("link `{link_name}` {what}"),
        })
    }
}

fn body_name(scene: &Scene, body: usize) -> String {
    scene
        .bodies
        .get(body)
        .map_or_else(|| format!("#{body}"), |b| b.name.clone())
}

impl Engine for RapierEngine {
    fn name(&self) -> &'static str {
        "rapier"
    }

    fn step(&mut self, dt: f64, commands: &Commands) -> Result<StepReport, StepError> {
        self.advance(dt, commands, &[]).map(|(report, _)| report)
    }

    fn time(&self) -> f64 {
        self.time
    }

    fn state(&self) -> &SceneState {
        &self.state
    }

    fn contacts(&self) -> &[ContactRecord] {
        self.contacts.get(&self.world, &self.materials)
    }

    fn set_stage_timing(&mut self, on: bool) {
        self.time_stages = on;
    }
}

impl RapierEngine {
    pub(crate) fn scene(&self) -> &Arc<Scene> {
        &self.scene
    }

    pub(crate) fn world_mut(&mut self) -> &mut BuiltWorld {
        &mut self.world
    }

    /// Whether `link` moves under forces (see `commands::moves_freely`).
    pub(crate) fn moves_freely(&self, link: LinkRef) -> bool {
        self.world
            .bodies
            .get(link.body)
            .and_then(|s| s.links.get(link.link))
            .is_some_and(|slot| crate::commands::moves_freely(&self.world, link.body, slot.body))
    }

    /// One step with a hosted extension's compliant points (`host.rs`; none for a plain step);
    /// returns the report and the force applied on `b` at each point.
    pub(crate) fn advance(
        &mut self,
        dt: f64,
        commands: &Commands,
        points: &[CompliantPoint],
    ) -> Result<(StepReport, Vec<Vector3<f64>>), StepError> {
        if let Some(error) = &self.diverged {
            return Err(error.clone());
        }
        if !(dt.is_finite() && dt > 0.0) {
            return Err(StepError::InvalidTimeStep { dt });
        }
        let mut report = StepReport::timing(self.time_stages);
        let mut warnings = Vec::new();
        let scene = Arc::clone(&self.scene);

        let laws = &mut self.laws;
        report.time("apply_commands", || {
            apply_commands(
                &mut self.world,
                &scene,
                dt,
                commands,
                &mut self.forced,
                &mut warnings,
                laws,
            )
        })?;
        // A plain step (no points) only disables the joints of a previous hosted step, if any.
        let applied = if points.is_empty() {
            self.hosted
                .apply(&mut self.world, &scene, points, dt, &mut self.forced)?
        } else {
            report.time("compliant_points", || {
                self.hosted.apply(&mut self.world, &scene, points, dt, &mut self.forced)
            })?
        };
        if points.is_empty() {
            report.time("physics_step", || self.physics_step(dt));
        } else {
            report.time("physics_step", || self.hosted_physics_step(dt, &applied));
        }
        let mut state = std::mem::take(&mut self.spare_state);
        report.time("read_state", || read_state_into(&self.world, &self.laws, &mut state));
        if let Some(error) = self.divergence(&state) {
            // Keep the last finite state and contacts; refuse further steps.
            self.contacts.freeze();
            self.diverged = Some(error.clone());
            return Err(error);
        }
        // The step's own substeps and sweeps (a hosted step may run its own, `host.rs`).
        let (substeps, sweeps) = {
            let p = &self.world.physics.integration_parameters;
            (p.num_solver_iterations.max(1), p.num_internal_pgs_iterations)
        };
        self.contacts.new_step(dt, substeps, self.options.friction_model);
        report.contacts = report.time("count_contacts", || count_contacts(&self.world));
        self.spare_state = std::mem::replace(&mut self.state, state);
        self.time += dt;
        self.steps += 1;
        report.iterations = u32::try_from(substeps * sweeps).unwrap_or(u32::MAX);
        report.warnings = warnings;
        Ok((report, applied_forces(&self.world, &applied, dt / substeps as f64)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert;
    use tribo_engine::Engine;

    /// Every rigid body's pose and velocities, as bits.
    fn bits(world: &BuiltWorld) -> Vec<u64> {
        let mut out = Vec::new();
        for (_, rb) in world.physics.bodies.iter() {
            let pose = convert::isometry(rb.position());
            let (linear, angular) = (convert::vector3(rb.linvel()), convert::vector3(rb.angvel()));
            let values = pose.translation.vector.iter().chain(pose.rotation.coords.iter());
            out.extend(values.chain(linear.iter()).chain(angular.iter()).map(|v| v.to_bits()));
        }
        out
    }

    /// A step solved again from its start snapshot (`world_snapshot.rs`) repeats the first solve
    /// bit for bit: the snapshot holds all a step changes — a box resting on the ground, whose
    /// contact's warm-start impulses a step rewrites, included.
    #[test]
    fn a_step_from_a_restored_snapshot_repeats_bit_for_bit() {
        let scene = tribo_testkit::box_above_ground(0.0, 0.101);
        let mut engine = RapierEngine::new(Arc::clone(&scene), RapierOptions::default()).expect("an engine");
        let commands = tribo_testkit::idle(&scene);
        for _ in 0..100 {
            engine.step(0.001, &commands).expect("a step");
        }
        let before = bits(&engine.world);
        let start = WorldSnapshot::of(&engine.world.physics);
        engine.physics_step(0.001);
        let once = bits(&engine.world);
        assert_ne!(once, before, "the step moved nothing");
        start.restore(&mut engine.world.physics);
        assert_eq!(bits(&engine.world), before);
        engine.physics_step(0.001);
        assert_eq!(bits(&engine.world), once);
    }
}
