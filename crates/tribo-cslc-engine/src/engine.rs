//! The `cslc` engine: a contact host (`pgs`, `rapier`) runs the scene, each pad's lattice
//! replaces the pad link's rigid contacts (module docs in `lib.rs`).

use std::cell::OnceCell;
use std::sync::Arc;

use nalgebra::{Point3, Vector3};
use tribo_cslc::kept::KeptList;
use tribo_cslc::{StepInput, Target, Twist};
use tribo_engine::{
    BuildError, Commands, ContactHost, ContactRecord, Engine, EngineOptions, HostFactory, HostWrench, HostedContacts,
    LinkRef, LinkState, Scene, SceneState, StepError, StepReport,
};

use crate::coupling::{couple, CouplingScratch, PadCoupling, RigidMotion};
use crate::explicit_rotation::TurnBounds;
use crate::inertia::{InertiaStorage, Inertias};
use crate::pads::{build_pads, Pad, PadError};
use crate::records::patch_record;
use crate::restitution::damping_ratio;
use crate::targets::{within_reach, LinkTarget};

/// Shapes farther than this from a pad's bounding ball are not targets this step, m.
const REACH_MARGIN: f64 = 0.01;

pub(crate) struct CslcEngine {
    name: &'static str,
    scene: Arc<Scene>,
    host: Box<dyn ContactHost>,
    pads: Vec<Pad>,
    /// Bounds of every link's rotational inertia (`explicit_rotation.rs`), fixed for the scene.
    turn_bounds: TurnBounds,
    /// The last step's pad steps, kept for its contact records (their patches go back to the
    /// pads at the next step).
    last_steps: Vec<Option<PadStep>>,
    /// The forces the host applied at the last step's points.
    applied: Vec<Vector3<f64>>,
    /// The last step's contact records, built when first read (`Engine::contacts`): a run that
    /// never reads them does not pay for them.
    contacts: OnceCell<Vec<ContactRecord>>,
    /// The points and wrenches handed to the host, kept between steps for their storage.
    hosted: HostedContacts,
    /// Whether steps time their stages (`Engine::set_stage_timing`; the host's too).
    time_stages: bool,
    /// Per pad, the storage of its step's lists; and the bodies' inertia cells. Kept from step
    /// to step so that a step allocates none of them anew.
    scratch: Vec<PadScratch>,
    inertia_storage: InertiaStorage,
}

/// The storage of one pad's per-step lists: the targets within its reach, the same as
/// `tribo-cslc` targets, their links and the coupling's lists.
#[derive(Default)]
struct PadScratch {
    reach: Vec<LinkTarget>,
    targets: KeptList<&'static dyn Target>,
    target_links: Vec<LinkRef>,
    coupling: CouplingScratch,
}

/// A pad's step: the lattice result, its coupling to the host and the touched links.
struct PadStep {
    patch: tribo_cslc::PatchResult,
    target_links: Vec<LinkRef>,
    points: std::ops::Range<usize>,
}

impl CslcEngine {
    pub fn build(
        name: &'static str,
        host: &dyn HostFactory,
        scene: &Arc<Scene>,
        options: &EngineOptions,
    ) -> Result<CslcEngine, BuildError> {
        let mut host = host.build_host(scene, options).map_err(|e| e.for_engine(name))?;
        let pads = build_pads(scene, |body| host.self_collides(body)).map_err(|e| match e {
            PadError::Invalid { pad, reason } => BuildError::Pad {
                engine: name,
                pad,
                reason,
            },
            other => BuildError::Unsupported {
                engine: name,
                reason: other.to_string(),
            },
        })?;
        let excluded: Vec<(LinkRef, LinkRef)> = pads
            .iter()
            .flat_map(|p| p.candidates.iter().map(move |(other, _)| (p.link, *other)))
            .collect();
        host.exclude_pairs(&excluded);
        Ok(CslcEngine {
            name,
            scene: Arc::clone(scene),
            host,
            pads,
            turn_bounds: TurnBounds::new(scene),
            last_steps: Vec::new(),
            applied: Vec::new(),
            contacts: OnceCell::new(),
            hosted: HostedContacts::default(),
            time_stages: false,
            scratch: Vec::new(),
            inertia_storage: InertiaStorage::default(),
        })
    }

    fn link_state(&self, link: LinkRef) -> Option<LinkState> {
        self.host
            .state()
            .bodies
            .get(link.body)
            .and_then(|b| b.links.get(link.link))
            .copied()
    }
}

impl Engine for CslcEngine {
    fn name(&self) -> &'static str {
        self.name
    }

    fn step(&mut self, dt: f64, commands: &Commands) -> Result<StepReport, StepError> {
        // Before any pad moves: a refused step changes nothing.
        if !(dt.is_finite() && dt > 0.0) {
            return Err(StepError::InvalidTimeStep { dt });
        }
        let started = self.time_stages.then(std::time::Instant::now);
        // The last step's patches, read or not, become the storage of the pads' next patches.
        let mut steps = std::mem::take(&mut self.last_steps);
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.resize_with(self.pads.len(), PadScratch::default);
        for ((pad, step), kept) in self.pads.iter_mut().zip(steps.drain(..)).zip(scratch.iter_mut()) {
            if let Some(step) = step {
                pad.solver.recycle(step.patch);
                kept.target_links = step.target_links;
            }
        }
        self.contacts = OnceCell::new();
        let mut hosted = std::mem::take(&mut self.hosted);
        hosted.points.clear();
        hosted.wrenches.clear();
        let HostedContacts {
            ref mut points,
            ref mut wrenches,
        } = hosted;
        let mut warnings = Vec::new();
        let friction_of = |scene: &Scene, a: LinkRef, b: LinkRef| scene.contact_params(a, b).static_friction;
        // The bodies as rigid bodies at the start of the step, shared by every pad's points.
        let inertias = Inertias::new_in(
            &self.scene,
            self.host.state(),
            std::mem::take(&mut self.inertia_storage),
        );
        for (p, kept) in scratch.iter_mut().enumerate().take(self.pads.len()) {
            let (link, pose_in_link) = (self.pads[p].link, self.pads[p].pose_in_link);
            let Some(link_state) = self.link_state(link) else {
                steps.push(None);
                continue;
            };
            let pad_pose = link_state.pose * pose_in_link;
            let origin = Point3::from(pad_pose.translation.vector);
            let link_origin = Point3::from(link_state.pose.translation.vector);
            let pad_twist = Twist {
                linear: link_state.linear_velocity + link_state.angular_velocity.cross(&(origin - link_origin)),
                angular: link_state.angular_velocity,
            };
            let pad = &self.pads[p];
            let states = |l: LinkRef| self.link_state(l);
            let center = pad_pose * pad.bounds.0;
            let reach = &mut kept.reach;
            within_reach(&pad.candidates, &states, &center, pad.bounds.1, REACH_MARGIN, reach);
            if reach.is_empty() {
                self.pads[p].solver.reset();
                steps.push(None);
                continue;
            }
            // One pair of friction coefficients and one restitution per pad step: the pad touches
            // one material at a time in the samples; with several, the first touched link's pair
            // decides (stated in docs).
            let friction = friction_of(&self.scene, link, reach[0].link);
            let dynamic_friction = self.scene.contact_params(link, reach[0].link).dynamic_friction;
            let mut targets: Vec<&dyn Target> = kept.targets.take();
            targets.extend(reach.iter().map(|t| t.target.as_target()));
            let mut target_links = std::mem::take(&mut kept.target_links);
            target_links.clear();
            target_links.extend(reach.iter().map(|t| t.link));
            let input = StepInput {
                pad_pose,
                pad_twist,
                targets: &targets,
                friction,
                dynamic_friction,
                dt,
            };
            let pad = &mut self.pads[p];
            let patch = pad.solver.step(&input).map_err(|e| StepError::Lattice {
                pad: pad.label.clone(),
                what: e.to_string(),
            })?;
            if let Some(w) = &patch.warning {
                warnings.push(format!("pad {} on link {:?}: {w}", pad.index, pad.link));
            }
            let params = pad.solver.params();
            let restitution = self.scene.contact_params(link, reach[0].link).restitution;
            let reduced_mass =
                |other: LinkRef, p: &Vector3<f64>, n: &Vector3<f64>| inertias.reduced_mass(other.body, link.body, p, n);
            let host_state = self.host.state();
            let state_of = |l: LinkRef| host_state.bodies.get(l.body).and_then(|b| b.links.get(l.link));
            let motion = |l: LinkRef| {
                state_of(l).map_or_else(RigidMotion::default, |s| {
                    RigidMotion::of_origin(&s.pose.translation.vector, &s.linear_velocity, &s.angular_velocity)
                })
            };
            let first = points.len();
            let residual_torques = couple(
                &PadCoupling {
                    pad_link: link,
                    lattice: pad.solver.lattice(),
                    cells: &pad.cells,
                    springs: &pad.springs,
                    tangential_ratio: params.tangential_ratio,
                    damping: pad.damping,
                    friction,
                    origin,
                    damping_ratio: damping_ratio(restitution),
                    dt,
                    reduced_mass: &reduced_mass,
                    turn_bounds: &self.turn_bounds,
                    motion: &motion,
                },
                &patch,
                &target_links,
                points,
                &mut kept.coupling,
            );
            for &(other, torque) in residual_torques {
                if torque != Vector3::zeros() {
                    wrenches.push(pure_torque(link, torque));
                    wrenches.push(pure_torque(other, -torque));
                }
            }
            kept.targets.keep(targets);
            steps.push(Some(PadStep {
                patch,
                target_links,
                points: first..points.len(),
            }));
        }
        self.inertia_storage = inertias.into_storage();
        self.scratch = scratch;
        let lattice_time = started.map(|t| t.elapsed());
        let stepped = self.host.step_with(dt, commands, &hosted);
        // The buffers go back to the engine whether or not the host stepped.
        self.hosted = hosted;
        let stepped = stepped?;
        let (mut report, applied) = (stepped.report, stepped.point_forces);
        if let Some(time) = lattice_time {
            report.stages.insert(0, ("cslc_lattice", time));
        }
        report.warnings.extend(warnings);
        self.applied = applied;
        self.last_steps = steps;
        Ok(report)
    }

    fn time(&self) -> f64 {
        self.host.time()
    }

    fn state(&self) -> &SceneState {
        self.host.state()
    }

    fn contacts(&self) -> &[ContactRecord] {
        self.contacts.get_or_init(|| self.records())
    }

    fn set_stage_timing(&mut self, on: bool) {
        self.time_stages = on;
        self.host.set_stage_timing(on);
    }
}

impl CslcEngine {
    /// The contact records of the last step: the host's, then one per pad and touched link.
    fn records(&self) -> Vec<ContactRecord> {
        let mut contacts = self.host.contacts().to_vec();
        for (pad, step) in self.pads.iter().zip(&self.last_steps) {
            let Some(step) = step else { continue };
            let pad_points = self.hosted.points.get(step.points.clone()).unwrap_or(&[]);
            let pad_forces = self.applied.get(step.points.clone()).unwrap_or(&[]);
            contacts.extend(patch_record(
                &self.scene,
                pad,
                &step.patch,
                &step.target_links,
                pad_points,
                pad_forces,
            ));
        }
        contacts
    }
}

fn pure_torque(link: LinkRef, torque: Vector3<f64>) -> HostWrench {
    HostWrench {
        link,
        force: Vector3::zeros(),
        torque,
    }
}
