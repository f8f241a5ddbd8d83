//! A project on one of tribo's engines, stepped as `tribo run` steps it: the project's
//! controllers write the commands, then the engine steps (no metrics, recording or replay) — a
//! [`tribo::Simulator`].

use std::path::PathBuf;
use std::time::Duration;

use tribo::Simulator;
use tribo_scene::Project;

use crate::error::BenchError;
use crate::phases::Stepper;

pub struct TriboStepper {
    project: PathBuf,
    simulator: Simulator,
    /// Contacts after the last step.
    pub contacts: usize,
    /// Solver iterations summed over the steps.
    pub iterations: u64,
    /// Steps whose solve stopped at its sweep cap, and the largest relative residual one left
    /// (`tribo_engine::CappedSolve`).
    pub capped: u64,
    pub worst_capped_residual: f64,
    /// Wall time of each stage the engine's step reports name, summed over every step stepped
    /// (timed phases or not), in the order the stages first appeared; empty unless the stages
    /// are timed.
    pub stages: Vec<(&'static str, Duration)>,
}

impl TriboStepper {
    /// The engine `engine` of `tribo::engines()` built on the project's scene with the project's
    /// options for it, with the project's controllers.
    /// With `stages`, the engine times its stages (`Simulator::set_stage_timing`) and
    /// [`TriboStepper::stages`] sums them.
    pub fn new(project: Project, engine: &str, stages: bool) -> Result<TriboStepper, BenchError> {
        let path = project.path.clone();
        let mut simulator = tribo::Project::from_scene(project)
            .simulator(engine)
            .map_err(|e| BenchError::Engine {
                project: path.clone(),
                reason: e.to_string(),
            })?;
        simulator.set_stage_timing(stages);
        Ok(TriboStepper {
            project: path,
            simulator,
            contacts: 0,
            iterations: 0,
            capped: 0,
            worst_capped_residual: 0.0,
            stages: Vec::new(),
        })
    }

    /// The scene's pads.
    pub fn pads(&self) -> usize {
        self.simulator.scene().pads.len()
    }

    /// The contacts of the last step.
    pub fn contacts(&self) -> &[tribo::ContactRecord] {
        self.simulator.contacts()
    }

    /// The highest root-link origin among the free bodies, m (a check that the worlds agree).
    pub fn top_height(&self) -> f64 {
        self.simulator
            .scene()
            .bodies
            .iter()
            .zip(&self.simulator.state().bodies)
            .filter(|(b, _)| !b.fixed_root)
            .filter_map(|(_, s)| s.links.first())
            .map(|l| l.pose.translation.vector.z)
            .fold(f64::NEG_INFINITY, f64::max)
    }
}

impl Stepper for TriboStepper {
    fn step(&mut self, step: u64) -> Result<(), BenchError> {
        // A finished motion keeps the run going here: the bench times the steps it is asked for.
        let report = self.simulator.step().map_err(|e| BenchError::Step {
            project: self.project.clone(),
            engine: self.simulator.engine().to_string(),
            step,
            reason: e.to_string(),
        })?;
        self.contacts = report.contacts;
        self.iterations += u64::from(report.iterations);
        if let Some(capped) = &report.capped {
            self.capped += 1;
            self.worst_capped_residual = self.worst_capped_residual.max(capped.relative_residual);
        }
        for &(stage, time) in &report.stages {
            match self.stages.iter_mut().find(|(s, _)| *s == stage) {
                Some((_, total)) => *total += time,
                None => self.stages.push((stage, time)),
            }
        }
        Ok(())
    }
}
