//! Stepping an engine by hand: your controller, the engine's state and contacts every step.

use std::sync::Arc;

use tribo_runner::{
    controllers, Commands, ContactRecord, Control, ControlInput, Controller, Engine, EngineOptions, LazyContacts,
    Scene, SceneState, StepReport,
};

use crate::{Error, Project};

/// One engine built for a project's scene, stepped by the caller.
///
/// Each step: the commands start idle, the project's own controllers (a motion player, a PD
/// hold, a wrench, …; see [`Simulator::without_project_controllers`]) write theirs, then yours
/// ([`Simulator::step_with`]) may read the state and contacts and change any command.
///
/// ```
/// # fn main() -> Result<(), tribo::Error> {
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/ball/ball.yaml");
/// let project = tribo::Project::load(path)?;
/// let mut sim = project.simulator("pgs")?;
/// let ball = sim.scene().body_index("ball").unwrap();
/// let mut peak = 0.0_f64;
/// while sim.time() < 1.0 {
///     sim.step()?;
///     for contact in sim.contacts() {
///         peak = peak.max(contact.normal_force);
///     }
/// }
/// // The 0.5 kg ball lands at √(2 g h) = 4.4 m/s: the impact force is far above its weight
/// // (4.9 N), and after a second it is back in the air above the floor.
/// let height = sim.state().bodies[ball].links[0].pose.translation.z;
/// assert!(peak > 10.0 * 4.9 && height > 0.1, "{peak} N, {height} m");
/// # Ok(()) }
/// ```
pub struct Simulator {
    engine: Box<dyn Engine>,
    scene: Arc<Scene>,
    time_step: f64,
    steps: u64,
    commands: Commands,
    controllers: Vec<Box<dyn Controller>>,
    initialized: bool,
}

impl Project {
    /// Build `engine` for this project's scene (with the project's engine options), ready to
    /// step, with the project's controllers.
    pub fn simulator(&self, engine: &str) -> Result<Simulator, Error> {
        let registry = crate::engines();
        let factory = registry.get(engine).map_err(Error::UnknownEngine)?;
        let options = EngineOptions {
            node: self.inner.engine_options(engine).cloned(),
        };
        let scene = Arc::clone(&self.inner.scene);
        let built = factory.build(&scene, &options).map_err(|error| Error::Build {
            engine: engine.to_string(),
            error,
        })?;
        let commands = Commands::idle(scene.bodies.iter().map(|b| b.model.links.len()));
        Ok(Simulator {
            engine: built,
            scene,
            time_step: self.time_step(),
            steps: 0,
            commands,
            controllers: self.inner.controllers.iter().map(controllers::build).collect(),
            initialized: false,
        })
    }
}

impl Simulator {
    /// Drop the project's controllers: only your commands drive the bodies.
    pub fn without_project_controllers(mut self) -> Simulator {
        self.controllers.clear();
        self
    }

    /// Add a controller after the project's (it runs every step, before [`Simulator::step_with`]'s
    /// closure).
    pub fn add_controller(&mut self, controller: Box<dyn Controller>) {
        self.controllers.push(controller);
        self.initialized = false;
    }

    /// Step with the controllers' commands.
    pub fn step(&mut self) -> Result<StepReport, Error> {
        self.step_with(|_, _| {})
    }

    /// Step; `control` sees the state and contacts at the start of the step and the commands the
    /// controllers wrote, and may change them.
    pub fn step_with(&mut self, mut control: impl FnMut(&ControlInput, &mut Commands)) -> Result<StepReport, Error> {
        self.initialize()?;
        self.commands.clear();
        let input = control_input(self.engine.as_ref(), &self.scene, self.time_step, self.steps);
        for c in &mut self.controllers {
            // A finished motion ends a run; stepping by hand goes on until the caller stops.
            let _: Control = c.control(&input, &mut self.commands);
        }
        control(&input, &mut self.commands);
        let commands = std::mem::take(&mut self.commands);
        let result = self.step_commands(&commands);
        self.commands = commands;
        result
    }

    /// Step with exactly these commands (the controllers do not run).
    pub fn step_commands(&mut self, commands: &Commands) -> Result<StepReport, Error> {
        let time = self.time();
        match self.engine.step(self.time_step, commands) {
            Ok(report) => {
                self.steps += 1;
                Ok(report)
            }
            Err(error) => Err(Error::from_step(self.engine.name(), self.steps, time, error, None)),
        }
    }

    /// Idle commands for this scene, to fill in for [`Simulator::step_commands`].
    pub fn idle_commands(&self) -> Commands {
        Commands::idle(self.scene.bodies.iter().map(|b| b.model.links.len()))
    }

    fn initialize(&mut self) -> Result<(), Error> {
        if self.initialized {
            return Ok(());
        }
        let input = control_input(self.engine.as_ref(), &self.scene, self.time_step, self.steps);
        for c in &mut self.controllers {
            c.initialize(&input).map_err(|reason| Error::Controller {
                engine: self.engine.name().to_string(),
                name: c.name(),
                reason,
            })?;
        }
        self.initialized = true;
        Ok(())
    }

    /// Every body's link poses, velocities and joint values after the last step.
    pub fn state(&self) -> &SceneState {
        self.engine.state()
    }

    /// The contacts of the last step.
    pub fn contacts(&self) -> &[ContactRecord] {
        self.engine.contacts()
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.time_step
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The step length, s.
    pub fn time_step(&self) -> f64 {
        self.time_step
    }

    pub fn scene(&self) -> &Arc<Scene> {
        &self.scene
    }

    /// The engine's name.
    pub fn engine(&self) -> &str {
        self.engine.name()
    }

    /// Whether the following steps' reports time the engine's stages ([`StepReport::stages`];
    /// off unless asked for: the clock reads cost a few per cent of a small step).
    pub fn set_stage_timing(&mut self, on: bool) {
        self.engine.set_stage_timing(on);
    }
}

/// What controllers see at the start of step `steps`.
fn control_input<'a>(engine: &'a dyn Engine, scene: &'a Scene, time_step: f64, steps: u64) -> ControlInput<'a> {
    ControlInput {
        time: steps as f64 * time_step,
        dt: time_step,
        step: steps,
        scene,
        state: engine.state(),
        contacts: LazyContacts::of(engine),
    }
}
