//! The controller interface (Choreonoid SimpleController style) and the built-in controllers.

use tribo_scene::Scene;

use crate::{Commands, LazyContacts, SceneState};

/// What a controller can read: time, the scene, the state after the last step, its contacts.
pub struct ControlInput<'a> {
    /// Time at the start of the coming step, s.
    pub time: f64,
    /// Step length, s.
    pub dt: f64,
    /// Index of the coming step (0 for the first).
    pub step: u64,
    pub scene: &'a Scene,
    pub state: &'a SceneState,
    /// The last step's contacts (`contacts.get()`), read from the engine only if asked.
    pub contacts: LazyContacts<'a>,
}

/// Whether the run goes on after this control step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    Continue,
    /// The controller is done (Choreonoid's `control()` returning false); the run ends when every
    /// controller that can end it has.
    Finished,
}

/// A controller: initialised once with the initial state, then asked for commands before every
/// step. It writes only the parts of `Commands` it owns.
pub trait Controller: Send {
    fn name(&self) -> String;

    fn initialize(&mut self, input: &ControlInput) -> Result<(), String> {
        let _ = input;
        Ok(())
    }

    fn control(&mut self, input: &ControlInput, commands: &mut Commands) -> Control;

    /// Whether this controller finishing ends the run (a motion player does; a constant force
    /// does not).
    fn can_end_run(&self) -> bool {
        false
    }
}
