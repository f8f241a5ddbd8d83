//! A project on one of tribo's engines, stepped as `tribo run` steps it: the project's
//! controllers write the commands, then the engine steps (no metrics, recording or replay).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tribo_runner::{controllers, Commands, ControlInput, Controller, Engine, EngineOptions, LazyContacts, Scene};
use tribo_scene::Project;

use crate::error::BenchError;
use crate::phases::Stepper;

pub struct TriboStepper {
    project: PathBuf,
    scene: Arc<Scene>,
    engine: Box<dyn Engine>,
    controllers: Vec<Box<dyn Controller>>,
    commands: Commands,
    dt: f64,
    /// Contacts after the last step.
    pub contacts: usize,
    /// Solver iterations summed over the steps.
    pub iterations: u64,
    /// Wall time of each stage the engine's step reports name, summed over every step stepped
    /// (timed phases or not), in the order the stages first appeared.
    pub stages: Vec<(&'static str, Duration)>,
}

impl TriboStepper {
    /// The engine `engine` of `tribo::engines()` built on the project's scene with the project's
    /// options for it, and its controllers initialised on the initial state.
    pub fn new(project: &Project, engine: &str) -> Result<TriboStepper, BenchError> {
        let fail = |reason: String| BenchError::Engine {
            project: project.path.clone(),
            reason,
        };
        let registry = tribo::engines();
        let factory = registry.get(engine).map_err(&fail)?;
        let options = EngineOptions {
            node: project.engine_options(engine).cloned(),
        };
        let scene = Arc::clone(&project.scene);
        let built = factory.build(&scene, &options).map_err(|e| fail(e.to_string()))?;
        let mut controllers: Vec<Box<dyn Controller>> = project.controllers.iter().map(controllers::build).collect();
        let dt = project.simulation.time_step;
        let input = ControlInput {
            time: 0.0,
            dt,
            step: 0,
            scene: &scene,
            state: built.state(),
            contacts: LazyContacts::NONE,
        };
        for c in &mut controllers {
            c.initialize(&input)
                .map_err(|reason| fail(format!("controller `{}` failed to start: {reason}", c.name())))?;
        }
        let commands = Commands::idle(scene.bodies.iter().map(|b| b.model.links.len()));
        Ok(TriboStepper {
            project: project.path.clone(),
            scene,
            engine: built,
            controllers,
            commands,
            dt,
            contacts: 0,
            iterations: 0,
            stages: Vec::new(),
        })
    }
}

impl TriboStepper {
    /// The highest root-link origin among the free bodies, m (a check that the worlds agree).
    pub fn top_height(&self) -> f64 {
        self.scene
            .bodies
            .iter()
            .zip(&self.engine.state().bodies)
            .filter(|(b, _)| !b.fixed_root)
            .filter_map(|(_, s)| s.links.first())
            .map(|l| l.pose.translation.vector.z)
            .fold(f64::NEG_INFINITY, f64::max)
    }
}

impl Stepper for TriboStepper {
    fn step(&mut self, step: u64) -> Result<(), BenchError> {
        let index = step - 1;
        self.commands.clear();
        let input = ControlInput {
            time: index as f64 * self.dt,
            dt: self.dt,
            step: index,
            scene: &self.scene,
            state: self.engine.state(),
            contacts: LazyContacts::of(self.engine.as_ref()),
        };
        // A finished motion keeps the run going here: the bench times the steps it is asked for.
        for c in &mut self.controllers {
            c.control(&input, &mut self.commands);
        }
        let report = self
            .engine
            .step(self.dt, &self.commands)
            .map_err(|e| BenchError::Step {
                project: self.project.clone(),
                engine: self.engine.name().to_string(),
                step,
                reason: e.to_string(),
            })?;
        self.contacts = report.contacts;
        self.iterations += u64::from(report.iterations);
        for &(stage, time) in &report.stages {
            match self.stages.iter_mut().find(|(s, _)| *s == stage) {
                Some((_, total)) => *total += time,
                None => self.stages.push((stage, time)),
            }
        }
        Ok(())
    }
}
