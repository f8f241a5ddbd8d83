//! A loaded project and how to load one.

use std::collections::BTreeMap;
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tribo_material::MaterialTable;
use tribo_runner::{ContactRecord, Diagnostic, RunHooks, RunOptions, Scene, StepView};
use tribo_scene::LoadOptions;

use crate::{Error, Run, RunSettings};

/// A tribo project (or a Choreonoid `.cnoid` project): its scene, materials, controllers,
/// metrics and simulation settings, ready to run on any engine.
///
/// ```
/// # fn main() -> Result<(), tribo::Error> {
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/ball/ball.yaml");
/// let project = tribo::Project::builder(path).set("drop_height", 0.5).time(1.0).load()?;
/// assert_eq!(project.name(), "ball");
/// assert_eq!(project.parameter("drop_height"), Some(0.5));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Project {
    pub(crate) inner: tribo_scene::Project,
    /// How it was loaded (`None` for a project built in code): what a sweep reloads with.
    pub(crate) source: Option<(PathBuf, LoadOptions)>,
    pub(crate) settings: RunSettings,
}

impl Project {
    /// Load the project file at `path` with tribo's share directory (found as the `tribo`
    /// command finds it: `$TRIBO_SHARE`, beside the executable, the source tree, else the copy
    /// built into the library).
    pub fn load(path: impl AsRef<Path>) -> Result<Project, Error> {
        Project::builder(path).load()
    }

    /// Load with overrides: [`ProjectBuilder::set`], [`ProjectBuilder::materials`], …
    pub fn builder(path: impl AsRef<Path>) -> ProjectBuilder {
        ProjectBuilder {
            path: path.as_ref().to_path_buf(),
            overrides: BTreeMap::new(),
            extra_materials: Vec::new(),
            strict: false,
            share_dir: None,
            settings: RunSettings::default(),
        }
    }

    /// A project around a scene built in code ([`crate::SceneBuilder::project`] builds one).
    pub fn from_scene(project: tribo_scene::Project) -> Project {
        Project {
            inner: project,
            source: None,
            settings: RunSettings::default(),
        }
    }

    pub fn name(&self) -> &str {
        &self.inner.name
    }

    pub fn description(&self) -> &str {
        &self.inner.description
    }

    /// The project file (`<code>/NAME` for a project built in code).
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The step length, s.
    pub fn time_step(&self) -> f64 {
        self.inner.simulation.time_step
    }

    /// The simulated time of a run, s: the builder's [`ProjectBuilder::time`] or
    /// [`Project::with_duration`] if given, else the project's own.
    pub fn duration(&self) -> f64 {
        self.settings.duration.unwrap_or(self.inner.simulation.duration)
    }

    /// The same project with another simulated time, s.
    pub fn with_duration(mut self, seconds: f64) -> Project {
        self.settings.duration = Some(seconds);
        self
    }

    /// The engines the project names for comparisons (`simulation.engines`).
    pub fn engines(&self) -> &[String] {
        &self.inner.simulation.engines
    }

    /// A numeric parameter's value after overrides.
    pub fn parameter(&self, name: &str) -> Option<f64> {
        self.inner.parameters.get(name).and_then(|v| v.as_number())
    }

    /// The merged material table (the default table, then the project's, then extra ones).
    pub fn materials(&self) -> &MaterialTable {
        &self.inner.materials
    }

    /// The scene every engine builds from.
    pub fn scene(&self) -> &Arc<Scene> {
        &self.inner.scene
    }

    /// What loading noticed but did not refuse (unknown keys, fallback materials, …).
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.inner.warnings
    }

    /// The project as the runner sees it (every field public).
    pub fn inner(&self) -> &tribo_scene::Project {
        &self.inner
    }

    /// The default run settings of this project (duration from the builder, …).
    pub fn settings(&self) -> &RunSettings {
        &self.settings
    }

    /// Run the project on `engine` with its own settings.
    ///
    /// ```
    /// # fn main() -> Result<(), tribo::Error> {
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/ball/ball.yaml");
    /// let run = tribo::Project::load(path)?.run("pgs")?;
    /// let ratio = run.value("bounce_ratio").unwrap();
    /// assert!((ratio - 0.64).abs() < 0.01, "e² = 0.64 for restitution 0.8, got {ratio}");
    /// # Ok(()) }
    /// ```
    pub fn run(&self, engine: &str) -> Result<Run, Error> {
        self.run_with(engine, &self.settings)
    }

    /// Run the project on `engine` with `settings` (unset fields fall back to the project's).
    pub fn run_with(&self, engine: &str, settings: &RunSettings) -> Result<Run, Error> {
        let registry = crate::engines();
        let options = RunOptions {
            duration: settings.duration.or(self.settings.duration),
            record_interval: settings.record_interval,
            replay_interval: None,
            allow_long_run: settings.allow_long_run,
        };
        let time_step = self.time_step();
        let mut contacts: BTreeMap<u64, Vec<ContactRecord>> = BTreeMap::new();
        let every = settings.contacts_every.filter(|&n| n > 0);
        let mut keep = |view: &StepView| {
            if let Some(n) = every {
                if view.step.is_multiple_of(n) {
                    contacts.insert(view.step, view.contacts.get().to_vec());
                }
            }
        };
        let hooks = RunHooks {
            progress: &mut |_, _| {},
            rows: None,
            on_step: Some(&mut keep),
        };
        let result = tribo_runner::run_with(&self.inner, &registry, engine, &options, hooks);
        match result {
            Ok(outcome) => Ok(Run::new(outcome, time_step, contacts)),
            Err(error) => Err(Error::from_run(engine, error, |outcome| {
                Run::new(outcome, time_step, contacts)
            })),
        }
    }

    /// Whether `engine` is one tribo knows ([`crate::engines`]), else the error naming the
    /// closest.
    pub(crate) fn check_engine(engine: &str) -> Result<(), Error> {
        crate::engines().get(engine).map(|_| ()).map_err(Error::UnknownEngine)
    }

    /// Reload with more overrides (a sweep's point).
    pub(crate) fn reload_with(&self, overrides: &BTreeMap<String, String>) -> Result<Project, Error> {
        let Some((path, options)) = &self.source else {
            return Err(Error::Input(format!(
                "project `{}` was built in code: it has no parameters to sweep",
                self.name()
            )));
        };
        let mut options = options.clone();
        options
            .overrides
            .extend(overrides.iter().map(|(k, v)| (k.clone(), v.clone())));
        let inner = tribo_scene::Project::load(path, &options)?;
        Ok(Project {
            inner,
            source: Some((path.clone(), options)),
            settings: self.settings.clone(),
        })
    }

    /// The project's parameters in declaration order (their values after overrides).
    pub fn parameters(&self) -> &[tribo_scene::Parameter] {
        &self.inner.parameters.list
    }
}

/// The share directory `${SHARE}` names when no other is given, found as the `tribo` command
/// finds it: `$TRIBO_SHARE`, a `share/` beside the executable, the source tree, else the copy
/// built into the library (written once to a cache directory).
///
/// ```
/// assert!(tribo::share_dir().join("default/materials.yaml").is_file());
/// ```
pub fn share_dir() -> PathBuf {
    tribo_scene::default_share_dir()
}

/// Loads a project with overrides, as the command line's `--set`, `--materials`, `--strict`,
/// `--share` and `--time` do.
#[derive(Debug, Clone)]
pub struct ProjectBuilder {
    path: PathBuf,
    overrides: BTreeMap<String, String>,
    extra_materials: Vec<PathBuf>,
    strict: bool,
    share_dir: Option<PathBuf>,
    settings: RunSettings,
}

impl ProjectBuilder {
    /// Override the project parameter `name` (`--set NAME=VALUE`); the value is read as the
    /// project file would read it (a number, a formula, a word).
    pub fn set(mut self, name: &str, value: impl Display) -> ProjectBuilder {
        self.overrides.insert(name.to_string(), value.to_string());
        self
    }

    /// Merge this material table after the project's own (`--materials FILE`); call again for
    /// more, merged in call order.
    pub fn materials(mut self, path: impl AsRef<Path>) -> ProjectBuilder {
        self.extra_materials.push(path.as_ref().to_path_buf());
        self
    }

    /// Unknown material names are errors, not fallbacks (`--strict`).
    pub fn strict(mut self, strict: bool) -> ProjectBuilder {
        self.strict = strict;
        self
    }

    /// Use this share directory for `${SHARE}` (default: tribo's own).
    pub fn share(mut self, dir: impl AsRef<Path>) -> ProjectBuilder {
        self.share_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Simulated time of runs, s (`--time`).
    pub fn time(mut self, seconds: f64) -> ProjectBuilder {
        self.settings.duration = Some(seconds);
        self
    }

    /// Load the project.
    pub fn load(self) -> Result<Project, Error> {
        if let Some(t) = self.settings.duration {
            if !(t.is_finite() && t > 0.0) {
                return Err(Error::Input(format!(
                    "the simulated time must be a positive number of seconds, found {t}"
                )));
            }
        }
        let share_dir = match self.share_dir {
            Some(dir) if dir.is_dir() => std::path::absolute(&dir).unwrap_or(dir),
            Some(dir) => {
                return Err(Error::Input(format!(
                    "share directory {}: not a directory",
                    dir.display()
                )))
            }
            None => share_dir(),
        };
        let options = LoadOptions {
            overrides: self.overrides,
            extra_materials: self.extra_materials,
            strict: self.strict,
            share_dir,
        };
        let inner = tribo_scene::Project::load(&self.path, &options)?;
        Ok(Project {
            inner,
            source: Some((self.path, options)),
            settings: self.settings,
        })
    }
}
