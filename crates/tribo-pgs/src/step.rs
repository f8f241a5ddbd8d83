//! The `pgs` engine: one step is kinematics → dynamics → collision → contact_build → solve →
//! integrate → readout, each stage timed into the step report.
//!
//! The stages write into buffers the engine keeps between steps (`StepScratch`: contact rows and
//! their Jacobian rows, the assembled problem, impulses, next states and read-out), so their
//! storage is reused and a step of a scene whose sizes have been seen allocates none of them,
//! nor the per-body velocity steps (M, bias, factorised M̃, v_free), which are rebuilt in place.
//!
//! The read-out computes the kinematics of the new state; the engine keeps them, and the next step's
//! `kinematics` stage uses them instead of computing the same again when they are current: taken
//! by the last committed step (or at construction) for the models and states the engine holds, and
//! at the state bit for bit. Any step that starts marks them stale until it commits, so a failed
//! step leaves them to be recomputed.

use std::collections::BTreeSet;
use std::sync::Arc;

use nalgebra::{DVector, Isometry3, Matrix6, Vector3};
use tribo_engine::{
    BodyCommands, BodyState, BuildError, Commands, CompliantPoint, ContactHost, ContactRecord, Engine, HostedContacts,
    HostedStep, SceneState, StepError, StepReport,
};
use tribo_engine::{LinkRef, Scene};
use tribo_lcp::{Pgs, PgsOptions as LcpOptions};
use tribo_multibody::{
    prepare_velocity_step, prepare_velocity_step_with, Kinematics, KinematicsData, RootPlacement, State, StepInputs,
    StepWork, VelocityStep,
};

use crate::build::{build_body, BodyModel};
use crate::collision::{detect, CollisionScratch};
use crate::commands::drive;
use crate::contacts::{build_rows, compliant_rows, BodyView, BuildContext, ContactRow, RowBuffers};
use crate::degenerate::{operator_can_screen, screen, screen_on_operator};
use crate::error::SolveError;
use crate::integrate::{advance, AdvanceScratch, Impulses};
use crate::options::{PgsOptions, SolverKind};
use crate::readout::{body_state_into, CommittedContacts};
use crate::solve::{
    free_body_inverses, least_norm_rows, newton_contacts, solve, Assembled, WarmStart, LOAD_SHARING_SWEEPS,
};
use tribo_lcp::DelassusRows;

type Twist = (Vector3<f64>, Vector3<f64>);

/// The `pgs` engine. Besides the [`Engine`] interface it is a [`ContactHost`]: link pairs whose
/// rigid collisions an extension replaces, and compliant contact points solved implicitly within
/// the step (`compliant.rs`).
pub(crate) struct PgsEngine {
    scene: Arc<Scene>,
    /// Whether steps time their stages (`Engine::set_stage_timing`).
    time_stages: bool,
    options: PgsOptions,
    models: Vec<BodyModel>,
    states: Vec<State>,
    link_names: Vec<Vec<String>>,
    state: SceneState,
    /// Each body's kinematics: of `states` under `models` when `kinematics_current` (computed by the
    /// last read-out), otherwise only storage.
    kinematics: Vec<KinematicsData>,
    kinematics_current: bool,
    /// The last committed step's contact rows and impulses, and its records read out lazily.
    contacts: CommittedContacts,
    time: f64,
    steps: u64,
    pgs: Pgs,
    /// The load-sharing sweeps before each rigid solve (solve.rs).
    sharing: Pgs,
    warm_start: WarmStart,
    /// Set once a step diverged: further steps are refused.
    diverged: Option<StepError>,
    /// Link pairs (both orders) whose rigid collisions are not detected.
    excluded: BTreeSet<(LinkRef, LinkRef)>,
    /// Compliant points of the step being taken (set and cleared by `step_with`).
    compliant_points: Vec<CompliantPoint>,
    /// Forces on `b` of the last step's compliant points, world, N.
    compliant_forces: Vec<nalgebra::Vector3<f64>>,
    /// The step's working buffers, kept for their storage.
    scratch: StepScratch,
}

/// Buffers each step fills anew, kept between steps so that their storage is reused: after the
/// first steps of a scene a step allocates none of these.
#[derive(Default)]
struct StepScratch {
    /// The broad phase's lists (collision.rs).
    collision: CollisionScratch,
    /// The contact rows (contacts.rs).
    rows: Vec<ContactRow>,
    /// Storage of the contact build (contacts.rs).
    row_buffers: RowBuffers,
    /// The impulses: the warm start on entry to the solve, the step's impulses after it.
    lambda: DVector<f64>,
    /// M̃⁻¹ of the free rigid bodies (solve.rs).
    inverses: Vec<Option<Matrix6<f64>>>,
    /// The contact problem (solve.rs).
    assembled: Assembled,
    /// The states at the end of the step, swapped with the engine's when the step is committed.
    next_states: Vec<State>,
    /// Each body's index into the assembled problem's bodies.
    rows_of: Vec<Option<usize>>,
    /// The factored free bodies' velocity changes of the step (integrate.rs), 6 per slot, when
    /// the solve did not keep them beside λ (`solve::solve`).
    factored_velocity: Vec<f64>,
    /// Working vectors of the integration (integrate.rs).
    advance: AdvanceScratch,
    /// The read-out at the end of the step, swapped with the engine's state when the step is
    /// committed.
    next_bodies: Vec<BodyState>,
    /// The kinematics of the next states (computed by the read-out), swapped with the engine's when
    /// the step is committed.
    next_kinematics: Vec<KinematicsData>,
    /// Each body's velocity step (`None` for a body without dynamics); their actuation is read out.
    velocity_steps: Vec<Option<VelocityStep>>,
    /// The working vectors of the velocity steps, one for every body in turn (tribo-multibody
    /// `prepare_velocity_step_with`): they stay in the cache from one body to the next.
    step_work: StepWork,
    /// The kinematic roots this step moved, with their placements before it: a step that fails
    /// after moving them puts these back, so that only a committed step moves a root.
    moved_roots: Vec<(usize, RootPlacement)>,
    /// A hosted step's commands with the extension's wrenches (`ContactHost::step_with`).
    merged_commands: Commands,
}

/// What the stages up to integration produce besides the contact rows and impulses (left in the
/// engine's `StepScratch`).
struct Solved {
    /// Link pairs whose contacts could carry no impulse and were dropped (degenerate.rs).
    dropped: Vec<(LinkRef, LinkRef)>,
    iterations: usize,
    residual: f64,
    complementarity: f64,
    converged: bool,
    /// The solve stopped on a stall before its cap (tribo-lcp `SolveReport::stalled`).
    stalled: bool,
}

/// **Shared models.** The free bodies of a scene built from one model (the cubes of a pile) have
/// equal trees and link tables: a free root's tree holds the model's links and an identity
/// placement, the body's pose being its state. They share one copy, so that a step's per-body
/// stages read the same tree and tables instead of one copy per body each (at 1000 cubes those
/// copies do not stay in the cache from one stage to the next; BENCHMARKS.md, "pgs: shared
/// models"). A fixed root's tree holds its pose, and is its own.
#[derive(Default)]
struct SharedModels {
    /// The first free body built from each scene model (by the model's address).
    by_model: Vec<(*const tribo_model::Body, BodyModel)>,
}

impl SharedModels {
    /// Makes `model` (just built from `body`) share an earlier free body's tree and tables when
    /// both come from the same scene model.
    fn share(&mut self, body: &tribo_engine::SceneBody, model: &mut BodyModel) {
        if model.fixed_root {
            return;
        }
        let key = Arc::as_ptr(&body.model);
        match self.by_model.iter().find(|(k, _)| *k == key) {
            Some((_, first)) => model.share_with(first),
            None => self.by_model.push((key, model.clone())),
        }
    }
}

/// A failed stage: a divergence (naming the body) or another step error.
enum Failure {
    Diverged { body: usize, what: String },
    Step(StepError),
}

impl PgsEngine {
    /// A `pgs` engine for `scene` with options given as an engine-options block.
    pub(crate) fn build(scene: &Arc<Scene>, options: &tribo_engine::EngineOptions) -> Result<PgsEngine, BuildError> {
        let options = PgsOptions::from_engine_options(options).map_err(BuildError::Option)?;
        PgsEngine::new(Arc::clone(scene), options)
    }

    pub(crate) fn new(scene: Arc<Scene>, options: PgsOptions) -> Result<PgsEngine, BuildError> {
        let body_error = |body: &str, reason: String| BuildError::Body {
            engine: "pgs",
            body: body.to_owned(),
            reason,
        };
        let mut models = Vec::with_capacity(scene.bodies.len());
        let mut states = Vec::with_capacity(scene.bodies.len());
        let mut shared = SharedModels::default();
        for body in &scene.bodies {
            let (mut model, state) =
                build_body(body, options.self_collision).map_err(|e| body_error(&body.name, e.to_string()))?;
            shared.share(body, &mut model);
            models.push(model);
            states.push(state);
        }
        check_contact_extras(&scene).map_err(|e| BuildError::ContactMaterial {
            engine: "pgs",
            reason: e.to_string(),
        })?;
        let link_names = scene
            .bodies
            .iter()
            .map(|b| b.model.links.iter().map(|l| l.name.clone()).collect())
            .collect();
        let mut bodies = vec![BodyState::default(); models.len()];
        let mut kinematics = vec![KinematicsData::default(); models.len()];
        for (((model, state), out), kin) in models.iter().zip(&states).zip(&mut bodies).zip(&mut kinematics) {
            body_state_into(model, state, None, None, out, kin).map_err(|e| body_error(&model.name, e.to_string()))?;
        }
        let pgs = Pgs::new(LcpOptions {
            relaxation: options.over_relaxation,
            tolerance: options.tolerance,
            max_iterations: options.iterations,
            subspace_rows: options.subspace_rows,
            // Settled pairs of small islands get no load-sharing sweeps (solve.rs): the
            // least-norm start keeps their spread.
            least_norm_start_rows: least_norm_rows(&options),
            newton_contacts: newton_contacts(&options),
        });
        let sharing = Pgs::new(LcpOptions {
            max_iterations: LOAD_SHARING_SWEEPS,
            subspace_rows: 0,
            least_norm_start_rows: 0,
            newton_contacts: 0,
            ..pgs.options
        });
        Ok(PgsEngine {
            scene,
            time_stages: false,
            options,
            models,
            states,
            link_names,
            state: SceneState { bodies },
            kinematics,
            kinematics_current: true,
            contacts: CommittedContacts::default(),
            time: 0.0,
            steps: 0,
            pgs,
            sharing,
            warm_start: WarmStart::default(),
            diverged: None,
            excluded: BTreeSet::new(),
            compliant_points: Vec::new(),
            compliant_forces: Vec::new(),
            scratch: StepScratch::default(),
        })
    }

    /// Moves every kinematic root with a target in `commands` to its target pose, in place (no
    /// model is cloned, no tree rebuilt). The moves are recorded in `scratch.moved_roots` for
    /// [`Self::restore_kinematic_roots`]; on an invalid target the roots already moved are put back
    /// and the engine is as before.
    fn move_kinematic_roots(&mut self, commands: &Commands) -> Result<(), StepError> {
        self.scratch.moved_roots.clear();
        for (b, model) in self.models.iter_mut().enumerate() {
            let Some(target) = commands.bodies.get(b).and_then(|c| c.root_target.as_ref()) else {
                continue;
            };
            match model.set_root_placement(&target.pose) {
                Ok(previous) => self.scratch.moved_roots.push((b, previous)),
                Err(e) => {
                    let error = StepError::InvalidCommand {
                        what: format!("body `{}`: root target: {e}", model.name),
                    };
                    self.restore_kinematic_roots();
                    return Err(error);
                }
            }
        }
        Ok(())
    }

    /// Puts the roots moved by [`Self::move_kinematic_roots`] back where they were, bit for bit.
    fn restore_kinematic_roots(&mut self) {
        for (b, previous) in self.scratch.moved_roots.drain(..) {
            if let Some(model) = self.models.get_mut(b) {
                model.restore_root_placement(previous);
            }
        }
    }

    /// The prescribed root twists of this step (kinematic roots only).
    fn root_twists(&self, commands: &Commands) -> Result<Vec<Option<Twist>>, StepError> {
        let mut twists = Vec::with_capacity(self.models.len());
        for (b, model) in self.models.iter().enumerate() {
            let target = commands.bodies.get(b).and_then(|c| c.root_target.as_ref());
            match target {
                Some(target) if model.fixed_root => {
                    twists.push(Some((target.linear_velocity, target.angular_velocity)))
                }
                Some(_) => {
                    return Err(StepError::InvalidCommand {
                        what: format!(
                            "body `{}`: a root target needs a fixed root (this root is free)",
                            model.name
                        ),
                    })
                }
                None => twists.push(None),
            }
        }
        Ok(twists)
    }

    /// Every stage up to integration, on the current state (nothing is committed here).
    fn run_stages(
        &mut self,
        dt: f64,
        commands: &Commands,
        twists: &[Option<Twist>],
        report: &mut StepReport,
    ) -> Result<Solved, Failure> {
        let models = &self.models;
        let states = &self.states;
        let stored = &mut self.kinematics;
        stored.resize_with(models.len(), KinematicsData::default);
        let current = std::mem::replace(&mut self.kinematics_current, false);
        let kinematics = report.time("kinematics", || {
            // Sized once: a `collect` into `Result` knows no length and would grow the vector
            // by doubling, copying it some ten times a step at 1000 bodies.
            let mut kinematics = Vec::with_capacity(models.len());
            for (b, ((m, s), data)) in models.iter().zip(states).zip(stored.iter_mut()).enumerate() {
                let data = std::mem::take(data);
                let kin = if current && data.is_at(s) {
                    Kinematics::from_data(&m.tree, data)
                } else {
                    Kinematics::new_in(&m.tree, s, data)
                };
                kinematics.push(kin.map_err(|e| diverged(b, e))?);
            }
            Ok(kinematics)
        })?;
        let gravity = self.scene.gravity;
        let link_names = &self.link_names;
        let velocity_steps = &mut self.scratch.velocity_steps;
        let step_work = &mut self.scratch.step_work;
        velocity_steps.resize_with(models.len(), || None);
        report.time("dynamics", || {
            for (b, ((model, kin), slot)) in models
                .iter()
                .zip(&kinematics)
                .zip(velocity_steps.iter_mut())
                .enumerate()
            {
                if !model.is_dynamic() {
                    *slot = None;
                    continue;
                }
                let body_commands: Option<&BodyCommands> = commands.bodies.get(b);
                let names = link_names.get(b).map(Vec::as_slice).unwrap_or(&[]);
                let d = drive(model, &states[b], body_commands, names, kin.poses()).map_err(|e| {
                    Failure::Step(StepError::InvalidCommand {
                        what: format!("body `{}`: {e}", model.name),
                    })
                })?;
                let mut inputs = StepInputs::new(gravity);
                if let Some(torque) = &d.torque {
                    inputs = inputs.with_torque(torque);
                }
                if let Some(pd) = &d.pd {
                    inputs = inputs.with_pd(pd);
                }
                if let Some(external) = &d.external {
                    inputs = inputs.with_external(external);
                }
                match slot {
                    Some(step) => prepare_velocity_step_with(kin, dt, &inputs, step, step_work),
                    None => prepare_velocity_step(kin, dt, &inputs).map(|step| *slot = Some(step)),
                }
                .map_err(|e| diverged(b, e))?;
            }
            Ok(())
        })?;
        let velocity_steps: &[Option<VelocityStep>] = velocity_steps;
        let margin = self.options.contact_margin;
        let recycle_distance = self.options.contact_recycling_distance;
        let excluded = &self.excluded;
        let collision_scratch = &mut self.scratch.collision;
        let pairs = report.time("collision", || {
            let poses: Vec<&[Isometry3<f64>]> = kinematics.iter().map(|k| k.poses()).collect();
            let mut pairs = detect(models, &poses, margin, recycle_distance, collision_scratch);
            if !excluded.is_empty() {
                pairs.retain(|pair, _| !excluded.contains(pair));
            }
            pairs
        });
        let compliant = &self.compliant_points;
        let solver_failure = |e: SolveError| Failure::Step(solver_failure(&self.options, e));
        let StepScratch {
            ref mut rows,
            ref mut lambda,
            ref mut inverses,
            ref mut assembled,
            ref mut next_states,
            ref mut rows_of,
            ref mut factored_velocity,
            advance: ref mut advance_scratch,
            ref mut row_buffers,
            ..
        } = self.scratch;
        let (mut dropped, on_operator) = report.time("contact_build", || {
            let views: Vec<BodyView> = models
                .iter()
                .zip(&kinematics)
                .zip(velocity_steps)
                .zip(twists)
                .map(|(((model, kin), step), twist)| BodyView {
                    model,
                    kinematics: kin,
                    velocity_step: step.as_ref(),
                    root_twist: *twist,
                })
                .collect();
            let ctx = BuildContext {
                scene: &self.scene,
                options: &self.options,
                dt,
            };
            row_buffers.recycle(rows);
            build_rows(&ctx, &views, &pairs, rows, row_buffers);
            compliant_rows(&ctx, &views, compliant, rows, row_buffers)
                .map_err(|e| Failure::Step(StepError::InvalidCommand { what: e.to_string() }))?;
            let dof_parent = |body: usize| models.get(body).map(|m| m.tree.dof_parent());
            free_body_inverses(velocity_steps, dof_parent, inverses).map_err(solver_failure)?;
            // Contacts within one body or with compliance on the diagonal are screened on their
            // own Delassus diagonals; the others on the assembled operator's (below).
            let on_operator = operator_can_screen(rows);
            let dropped = if on_operator {
                Vec::new()
            } else {
                screen(rows, velocity_steps, inverses).map_err(solver_failure)?
            };
            Ok((dropped, on_operator))
        })?;
        self.scratch.collision.recycle(pairs);
        let (pgs, sharing, warm_start, options) = (&mut self.pgs, &mut self.sharing, &self.warm_start, &self.options);
        let least_norm = least_norm_rows(options);
        let (solve_report, velocities_kept) = report.time("solve", || {
            warm_start.initial(rows, lambda);
            assembled
                .assemble(rows, velocity_steps, inverses, options.load_sharing, lambda, least_norm)
                .map_err(solver_failure)?;
            if on_operator {
                let delassus = &assembled.problem.delassus;
                let screened = screen_on_operator(rows, |c| delassus.diagonal_block(c).diagonal());
                dropped = screened.dropped;
                if screened.changed {
                    warm_start.initial(rows, lambda);
                    assembled
                        .assemble(rows, velocity_steps, inverses, options.load_sharing, lambda, least_norm)
                        .map_err(solver_failure)?;
                }
            }
            let solved = if rows.is_empty() {
                (tribo_lcp::SolveReport::NOTHING_TO_SOLVE, false)
            } else {
                solve(assembled, rows, lambda, pgs, sharing, options).map_err(solver_failure)?
            };
            Ok(solved)
        })?;
        report.time("integrate", || {
            next_states.resize_with(models.len(), || State {
                q: DVector::zeros(0),
                v: DVector::zeros(0),
            });
            // The factored free bodies' velocity changes from the final impulses (integrate.rs):
            // those the solve kept beside λ, else summed from λ.
            let delassus = &assembled.problem.delassus;
            let kept = pgs.body_velocities();
            let factored_velocity: &[f64] = if velocities_kept && kept.len() == delassus.velocity_len() {
                kept
            } else {
                factored_velocity.clear();
                factored_velocity.resize(delassus.velocity_len(), 0.0);
                if lambda.len() == delassus.dim() {
                    delassus.body_velocities(lambda.as_slice(), factored_velocity);
                }
                factored_velocity
            };
            rows_of.clear();
            rows_of.resize(models.len(), None);
            for (index, rows) in assembled.bodies().iter().enumerate() {
                if let Some(slot) = rows_of.get_mut(rows.body) {
                    *slot = Some(index);
                }
            }
            for (b, (model, next)) in models.iter().zip(next_states.iter_mut()).enumerate() {
                match &velocity_steps[b] {
                    Some(step) => {
                        let rows = rows_of[b].and_then(|i| assembled.bodies().get(i));
                        let impulses = match rows {
                            None => Impulses::None,
                            Some(r) => match r.slot {
                                Some(slot) => {
                                    Impulses::Factored(factored_velocity.get(6 * slot..6 * slot + 6).unwrap_or(&[]))
                                }
                                None => Impulses::Stacked(r, &*lambda),
                            },
                        };
                        advance(model, &states[b], step, impulses, dt, advance_scratch, next).map_err(|e| {
                            Failure::Diverged {
                                body: b,
                                what: e.to_string(),
                            }
                        })?;
                    }
                    None => next.clone_from(&states[b]),
                }
            }
            Ok(())
        })?;
        // The storage goes back to the engine; the read-out computes the next state's into the
        // scratch's.
        for (slot, kin) in self.kinematics.iter_mut().zip(kinematics) {
            *slot = kin.into_data();
        }
        Ok(Solved {
            dropped,
            iterations: solve_report.iterations,
            residual: solve_report.residual,
            complementarity: solve_report.complementarity,
            converged: solve_report.converged,
            stalled: solve_report.stalled,
        })
    }

    /// "link `L` of `body`", for messages.
    fn link_label(&self, link: LinkRef) -> String {
        let body = self.models.get(link.body).map_or("?", |m| m.name.as_str());
        let name = self
            .link_names
            .get(link.body)
            .and_then(|names| names.get(link.link))
            .map_or("?", String::as_str);
        format!("link `{name}` of `{body}`")
    }

    fn divergence(&self, body: usize, what: String) -> StepError {
        StepError::Diverged {
            step: self.steps + 1,
            time: self.time,
            body: self
                .models
                .get(body)
                .map_or_else(|| format!("#{body}"), |m| m.name.clone()),
            what,
        }
    }
}

fn diverged(body: usize, error: tribo_multibody::Error) -> Failure {
    Failure::Diverged {
        body,
        what: error.to_string(),
    }
}

/// The step error of a failed contact problem: a solver failure naming the configured solver, or
/// a Lemke step above its contact limit.
fn solver_failure(options: &PgsOptions, error: SolveError) -> StepError {
    let solver = match options.solver {
        SolverKind::Pgs => "PGS",
        SolverKind::Lemke => "Lemke",
    };
    match error {
        SolveError::TooManyContacts { limit, contacts } => StepError::TooManyContacts {
            solver: "lemke",
            option: "lemke_max_contacts",
            limit,
            contacts,
        },
        other => StepError::SolverFailure {
            solver,
            residual: f64::NAN,
            what: other.to_string(),
        },
    }
}

/// The culling extras of every contact material must be numbers of the right kind.
fn check_contact_extras(scene: &Scene) -> Result<(), tribo_engine::Diagnostic> {
    let ids: Vec<_> = scene.contacts.ids().collect();
    for &a in &ids {
        for &b in &ids {
            let params = scene.contacts.pair(a, b);
            for key in ["cullingDistance", "cullingDepth"] {
                params.extra_f64(key)?;
            }
            params.extra_usize("max_num_contact_points")?;
        }
    }
    Ok(())
}

impl Engine for PgsEngine {
    fn name(&self) -> &'static str {
        "pgs"
    }

    fn step(&mut self, dt: f64, commands: &Commands) -> Result<StepReport, StepError> {
        if let Some(error) = &self.diverged {
            return Err(error.clone());
        }
        if !(dt.is_finite() && dt > 0.0) {
            return Err(StepError::InvalidTimeStep { dt });
        }
        if commands.bodies.len() > self.models.len() {
            return Err(StepError::InvalidCommand {
                what: format!(
                    "commands name {} bodies but the scene has {}",
                    commands.bodies.len(),
                    self.models.len()
                ),
            });
        }
        let twists = self.root_twists(commands)?;
        let mut report = StepReport::timing(self.time_stages);
        let solved = match self.run_stages(dt, commands, &twists, &mut report) {
            Ok(solved) => solved,
            Err(Failure::Step(error)) => return Err(error),
            Err(Failure::Diverged { body, what }) => {
                let error = self.divergence(body, what);
                self.diverged = Some(error.clone());
                return Err(error);
            }
        };

        // Kinematic roots reach their targets, moved in place and moved back if the step fails
        // after all; then the read-out of the new state.
        self.move_kinematic_roots(commands)?;
        let next_bodies = &mut self.scratch.next_bodies;
        next_bodies.resize_with(self.models.len(), BodyState::default);
        let next_kinematics = &mut self.scratch.next_kinematics;
        next_kinematics.resize_with(self.models.len(), KinematicsData::default);
        let read = report.time("readout", || {
            for (b, (((((model, state), step), twist), out), kin)) in self
                .models
                .iter()
                .zip(&self.scratch.next_states)
                .zip(&self.scratch.velocity_steps)
                .zip(&twists)
                .zip(next_bodies.iter_mut())
                .zip(next_kinematics.iter_mut())
                .enumerate()
            {
                let actuation = step.as_ref().map(|s| &s.actuation);
                body_state_into(model, state, actuation, *twist, out, kin).map_err(|e| (b, e.to_string()))?;
            }
            Ok::<(), (usize, String)>(())
        });
        if let Err((body, what)) = read {
            self.restore_kinematic_roots();
            let error = self.divergence(body, what);
            self.diverged = Some(error.clone());
            return Err(error);
        }
        let mut compliant_forces = vec![nalgebra::Vector3::zeros(); self.compliant_points.len()];
        // Only compliant points have compliant rows: without them the rows are not read here.
        if !compliant_forces.is_empty() {
            for (c, row) in self.scratch.rows.iter().enumerate() {
                if let Some(slot) = row.compliant.and_then(|i| compliant_forces.get_mut(i)) {
                    let l = self.scratch.lambda.fixed_rows::<3>(3 * c);
                    *slot = (row.normal * l[0] + row.t1 * l[1] + row.t2 * l[2]) / dt;
                }
            }
        }
        self.compliant_forces = compliant_forces;
        self.compliant_points.clear();
        self.warm_start.store(&self.scratch.rows, &self.scratch.lambda);
        self.scratch.moved_roots.clear();
        std::mem::swap(&mut self.states, &mut self.scratch.next_states);
        std::mem::swap(&mut self.state.bodies, &mut self.scratch.next_bodies);
        std::mem::swap(&mut self.kinematics, &mut self.scratch.next_kinematics);
        self.kinematics_current = true;
        self.contacts
            .commit(&mut self.scratch.rows, &mut self.scratch.lambda, dt);
        self.time += dt;
        self.steps += 1;
        report.iterations = u32::try_from(solved.iterations).unwrap_or(u32::MAX);
        report.residual = solved.residual;
        report.complementarity = solved.complementarity;
        report.contacts = self.contacts.rows().len();
        for (a, b) in &solved.dropped {
            report.warnings.push(format!(
                "contacts between {} and {} dropped: the joints can hardly move the links against each \
                 other along the contact normal (Delassus diagonal below 1e-3 of the contact's scale), \
                 so they can carry no useful impulse",
                self.link_label(*a),
                self.link_label(*b)
            ));
        }
        if !solved.converged {
            // Stopping at the cap is news only when the residual left matters: the relative
            // residual, the natural-map residual (unit step, so in impulse terms: how far one more
            // projected step would move λ) over the step's largest impulse |λ|∞, above 1e-3. The
            // runner counts these and warns once per run (tribo_engine::CapTally).
            const RELATIVE_RESIDUAL_TOLERANCE: f64 = 1e-3;
            let largest = self.contacts.lambda().iter().fold(0.0_f64, |m, l| m.max(l.abs()));
            let relative_residual = if solved.residual == 0.0 {
                0.0
            } else {
                solved.residual / largest.max(f64::MIN_POSITIVE)
            };
            report.capped = Some(tribo_engine::CappedSolve {
                solver: "PGS",
                cap: self.options.iterations,
                relative_residual,
                tolerance: RELATIVE_RESIDUAL_TOLERANCE,
                stalled: solved.stalled,
            });
        }
        Ok(report)
    }

    fn time(&self) -> f64 {
        self.time
    }

    fn state(&self) -> &SceneState {
        &self.state
    }

    fn contacts(&self) -> &[ContactRecord] {
        self.contacts.records(&self.scene)
    }

    fn set_stage_timing(&mut self, on: bool) {
        self.time_stages = on;
    }
}

impl ContactHost for PgsEngine {
    /// The body's model flag: the scene's, or the engine option `self_collision` over it.
    fn self_collides(&self, body: usize) -> bool {
        self.models.get(body).is_some_and(|m| m.self_collision)
    }

    fn exclude_pairs(&mut self, pairs: &[(LinkRef, LinkRef)]) {
        for &(a, b) in pairs {
            self.excluded.insert((a, b));
            self.excluded.insert((b, a));
        }
    }

    /// The points are solved implicitly in the step's LCP (`compliant.rs`); the wrenches are
    /// external forces of the step like a controller's link wrenches.
    fn step_with(&mut self, dt: f64, commands: &Commands, extension: &HostedContacts) -> Result<HostedStep, StepError> {
        extension.check_links(&self.scene)?;
        let mut merged = std::mem::take(&mut self.scratch.merged_commands);
        extension.merge_commands_into(commands, &self.scene, &mut merged);
        self.compliant_points.clone_from(&extension.points);
        let stepped = self.step(dt, &merged);
        self.scratch.merged_commands = merged;
        self.compliant_points.clear();
        let report = stepped?;
        Ok(HostedStep {
            report,
            point_forces: std::mem::take(&mut self.compliant_forces),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solver_errors_become_solver_failures_naming_the_solver() {
        let mut options = PgsOptions::default();
        let error = solver_failure(
            &options,
            SolveError::Solver(tribo_lcp::Error::Diverged { iteration: 3 }),
        );
        match &error {
            StepError::SolverFailure { solver, residual, what } => {
                assert_eq!(*solver, "PGS");
                assert!(residual.is_nan());
                assert!(what.contains("diverged at iteration 3"), "{what}");
            }
            other => unreachable!("{other:?}"),
        }
        assert_eq!(
            error.to_string(),
            "the PGS contact solver failed: projected Gauss–Seidel diverged at iteration 3: an impulse became \
             non-finite"
        );

        options.solver = SolverKind::Lemke;
        let error = solver_failure(&options, SolveError::Solver(tribo_lcp::Error::PivotLimit { limit: 50 }));
        assert!(
            matches!(error, StepError::SolverFailure { solver: "Lemke", .. }),
            "{error:?}"
        );
        let error = solver_failure(&options, SolveError::TooManyContacts { limit: 2, contacts: 9 });
        assert!(
            matches!(
                error,
                StepError::TooManyContacts {
                    limit: 2,
                    contacts: 9,
                    ..
                }
            ),
            "{error:?}"
        );
    }

    /// Cubes of one model on a floor, each cube its own model (`shared: false`) or all of them
    /// one `Arc` (as a project that names one `.body` file for every cube loads them), the last
    /// cube fixed in the air.
    fn cubes(shared: bool) -> Arc<Scene> {
        use tribo_testkit::{ground, pair_table, place, scene, solid};
        let table = pair_table(0.5, 0.5, 0.0);
        let cube = || {
            let size = nalgebra::Vector3::repeat(0.1);
            solid("box", tribo_model::Geometry::Box { size }, 1.0, "Thing")
        };
        let mut bodies = vec![ground(0.0, &table)];
        for (i, fixed) in [false, false, false, true].into_iter().enumerate() {
            let pose = Isometry3::translation(0.15 * i as f64, 0.0, 0.05 + 0.01 * i as f64);
            bodies.push(place(&format!("cube{i}"), cube(), pose, fixed, &table));
        }
        if shared {
            let model = Arc::clone(&bodies[1].model);
            for body in &mut bodies[2..] {
                body.model = Arc::clone(&model);
            }
        }
        scene(bodies, table)
    }

    #[test]
    fn free_bodies_of_one_model_share_it_and_step_as_with_their_own() {
        let shared = PgsEngine::new(cubes(true), PgsOptions::default()).expect("builds");
        let [_, a, b, c, fixed] = &shared.models[..] else {
            unreachable!("five bodies")
        };
        for other in [b, c] {
            assert!(Arc::ptr_eq(&a.tree, &other.tree));
            assert!(Arc::ptr_eq(&a.colliders, &other.colliders));
            assert!(Arc::ptr_eq(&a.carrier, &other.carrier));
            assert!(Arc::ptr_eq(&a.link_in_carrier, &other.link_in_carrier));
        }
        assert!(!Arc::ptr_eq(&a.tree, &fixed.tree), "a fixed root's tree holds its pose");
        assert_eq!(b.name, "cube1");

        let own = PgsEngine::new(cubes(false), PgsOptions::default()).expect("builds");
        assert!(!Arc::ptr_eq(&own.models[1].tree, &own.models[2].tree));
        let mut engines = [shared, own];
        let commands = Commands::default();
        for _ in 0..100 {
            for engine in &mut engines {
                engine.step(0.002, &commands).expect("steps");
            }
        }
        let [shared, own] = &engines;
        assert!(shared.contacts().len() >= 12, "the free cubes rest on the floor");
        assert_eq!(shared.state().bodies, own.state().bodies);
    }
    /// Contact records are built when first read ([`CommittedContacts`]): read after every step,
    /// every 7th or twice in a row, they are the same, bit for bit, and the runs stay the same. A
    /// step that fails after building its rows (a compliant point without a normal) leaves the
    /// last committed step's records.
    #[test]
    fn contact_records_read_lazily_are_the_steps_own() {
        let commands = Commands::default();
        let mut every = PgsEngine::new(cubes(true), PgsOptions::default()).expect("builds");
        let mut sparse = PgsEngine::new(cubes(true), PgsOptions::default()).expect("builds");
        for step in 1..=60 {
            every.step(0.002, &commands).expect("steps");
            sparse.step(0.002, &commands).expect("steps");
            let read = every.contacts().to_vec();
            assert_eq!(every.contacts(), read.as_slice(), "a second read");
            if step % 7 == 0 {
                assert_eq!(sparse.contacts(), read.as_slice(), "step {step}");
            }
        }
        assert_eq!(every.state().bodies, sparse.state().bodies);
        let committed = every.contacts().to_vec();
        assert!(committed.len() >= 12, "the free cubes rest on the floor");

        let mut stale = PgsEngine::new(cubes(true), PgsOptions::default()).expect("builds");
        for _ in 0..60 {
            stale.step(0.002, &commands).expect("steps");
        }
        let cube = LinkRef { body: 1, link: 0 };
        let floor = LinkRef { body: 0, link: 0 };
        let no_normal = HostedContacts {
            points: vec![CompliantPoint {
                a: floor,
                b: cube,
                point: Vector3::new(0.0, 0.0, 0.0),
                normal: Vector3::zeros(),
                force: Vector3::zeros(),
                normal_stiffness: 1e4,
                tangential_stiffness: 1e4,
                damping: 0.0,
                friction: 0.5,
            }],
            wrenches: Vec::new(),
        };
        assert!(stale.step_with(0.002, &commands, &no_normal).is_err());
        assert_eq!(stale.contacts(), committed.as_slice());
    }
}
