//! Projects around scenes built in code (no project file).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use tribo_material::MaterialTable;

use crate::params::Parameters;
use crate::signals::default_signals;
use crate::{Project, Scene, Simulation};

impl Project {
    /// A project around `scene`, built in code: no controllers, no metrics, no parameters, no
    /// engine options; the trajectory records the root position of every free body
    /// (`NAME.pos`, as a project file records by default). `materials` is the table the scene's
    /// contact table was resolved from (what `tribo materials` would show); its path is
    /// `<code>/NAME`.
    pub fn from_scene(scene: Arc<Scene>, materials: MaterialTable, simulation: Simulation) -> Project {
        let signals = default_signals(scene.bodies.iter().map(|b| (b.name.as_str(), b.fixed_root)));
        Project {
            name: scene.name.clone(),
            description: String::new(),
            path: PathBuf::from("<code>").join(&scene.name),
            scene,
            simulation,
            engine_options: BTreeMap::new(),
            controllers: Vec::new(),
            signals,
            metrics: Vec::new(),
            parameters: Parameters::default(),
            materials,
            material_files: Vec::new(),
            warnings: Vec::new(),
        }
    }
}
