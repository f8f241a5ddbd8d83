//! `tribo.load` and the loaded project: run, compare, step by hand.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tribo::RunSettings;

use crate::convert::{names, override_value, paths, positive};
use crate::errors::{to_py_in, IntoPyResult};
use crate::materials::PyMaterialTable;
use crate::run::PyRun;
use crate::simulator::PySimulator;

/// A loaded tribo project (or Choreonoid `.cnoid` project): scene, materials, controllers,
/// metrics and settings, ready to run on any engine. Made by `tribo.load`.
#[pyclass(name = "Project", module = "tribo", frozen)]
pub struct PyProject {
    project: tribo::Project,
}

/// Load the project file at `path`.
///
/// `set` overrides project parameters (`{"drop_height": 0.5}`; numbers or strings, as
/// `tribo run --set`), `materials` merges more material tables after the project's own (a path
/// or a list, in order), `time` sets the simulated time of runs in seconds, `share` the
/// directory `${SHARE}` names (default: tribo's own, found as the `tribo` command finds it),
/// `strict` makes unknown material names errors. Raises `tribo.LoadError` (with `file`, `line`,
/// `column`) for an invalid file.
#[pyfunction]
#[pyo3(signature = (path, set = None, materials = None, time = None, share = None, strict = false))]
pub fn load(
    py: Python<'_>,
    path: PathBuf,
    set: Option<&Bound<'_, PyDict>>,
    materials: Option<&Bound<'_, PyAny>>,
    time: Option<f64>,
    share: Option<PathBuf>,
    strict: bool,
) -> PyResult<PyProject> {
    let mut builder = tribo::Project::builder(&path).strict(strict);
    if let Some(set) = set {
        for (name, value) in set.iter() {
            let name: String = name.extract()?;
            builder = builder.set(&name, override_value(&name, &value)?);
        }
    }
    if let Some(materials) = materials {
        for file in paths(materials, "materials")? {
            builder = builder.materials(file);
        }
    }
    if let Some(time) = time {
        builder = builder.time(time);
    }
    if let Some(share) = share {
        builder = builder.share(share);
    }
    let project = py.detach(|| builder.load()).py_err(py)?;
    Ok(PyProject { project })
}

impl PyProject {
    fn settings(
        py: Python<'_>,
        time: Option<f64>,
        record_interval: Option<f64>,
        contacts_every: Option<u64>,
        allow_long_run: bool,
    ) -> PyResult<RunSettings> {
        Ok(RunSettings {
            duration: positive(py, "time", time)?,
            record_interval: positive(py, "record_interval", record_interval)?,
            contacts_every,
            allow_long_run,
        })
    }

    fn scene(&self) -> Arc<tribo::runner::Scene> {
        Arc::clone(self.project.scene())
    }
}

#[pymethods]
impl PyProject {
    /// Run the project on `engine` (the GIL is released while it runs).
    ///
    /// `time`: simulated seconds (default: the project's or `load(time=...)`);
    /// `record_interval`: seconds between trajectory rows (default: every step);
    /// `contacts_every`: keep the contacts of every N-th step for `Run.contacts_at`;
    /// `allow_long_run`: lift the 10⁷-step limit. A run that diverges raises
    /// `tribo.DivergedError` (engine, body, step, time, and the run so far in `partial`).
    #[pyo3(signature = (engine, contacts_every = None, record_interval = None, time = None, allow_long_run = false))]
    fn run(
        &self,
        py: Python<'_>,
        engine: &str,
        contacts_every: Option<u64>,
        record_interval: Option<f64>,
        time: Option<f64>,
        allow_long_run: bool,
    ) -> PyResult<PyRun> {
        let settings = PyProject::settings(py, time, record_interval, contacts_every, allow_long_run)?;
        let scene = self.scene();
        match py.detach(|| self.project.run_with(engine, &settings)) {
            Ok(run) => Ok(PyRun::new(run, Some(scene))),
            Err(error) => Err(to_py_in(py, error, Some(&scene))),
        }
    }

    /// Run the project on each of `engines` in parallel (default: the project's
    /// `simulation.engines`, else every engine). Returns `{engine: Run or exception}`: an
    /// engine whose run failed maps to the `tribo.TriboError` it raised. An unknown engine name
    /// raises `tribo.UnknownEngineError` before anything runs.
    #[pyo3(signature = (engines = None, contacts_every = None, record_interval = None, time = None, allow_long_run = false))]
    fn compare<'py>(
        &self,
        py: Python<'py>,
        engines: Option<&Bound<'py, PyAny>>,
        contacts_every: Option<u64>,
        record_interval: Option<f64>,
        time: Option<f64>,
        allow_long_run: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let settings = PyProject::settings(py, time, record_interval, contacts_every, allow_long_run)?;
        let engines = engines.map(|e| names(e, "engines")).transpose()?.unwrap_or_default();
        let refs: Vec<&str> = engines.iter().map(String::as_str).collect();
        let comparison = py.detach(|| self.project.compare_with(&refs, &settings)).py_err(py)?;
        let scene = self.scene();
        let out = PyDict::new(py);
        for run in comparison.runs {
            match run.result {
                Ok(r) => out.set_item(&run.engine, PyRun::new(r, Some(Arc::clone(&scene))))?,
                Err(e) => out.set_item(&run.engine, to_py_in(py, e, Some(&scene)).into_value(py))?,
            }
        }
        Ok(out)
    }

    /// Build `engine` for this scene to step by hand (`Simulator.step`), with the project's
    /// controllers (`project_controllers=False`: only your commands drive the bodies).
    #[pyo3(signature = (engine, project_controllers = true))]
    fn simulator(&self, py: Python<'_>, engine: &str, project_controllers: bool) -> PyResult<PySimulator> {
        let sim = py.detach(|| self.project.simulator(engine)).py_err(py)?;
        let sim = if project_controllers {
            sim
        } else {
            sim.without_project_controllers()
        };
        Ok(PySimulator::new(sim))
    }

    /// The project's name.
    #[getter]
    fn name(&self) -> &str {
        self.project.name()
    }

    #[getter]
    fn description(&self) -> &str {
        self.project.description()
    }

    /// The project file.
    #[getter]
    fn path(&self) -> PathBuf {
        self.project.path().to_path_buf()
    }

    /// The step length, s.
    #[getter]
    fn time_step(&self) -> f64 {
        self.project.time_step()
    }

    /// The simulated time of a run, s.
    #[getter]
    fn duration(&self) -> f64 {
        self.project.duration()
    }

    /// The engines the project names for comparisons (may be empty).
    #[getter]
    fn engines(&self) -> Vec<String> {
        self.project.engines().to_vec()
    }

    /// Parameter name → value after overrides (`float`, or `str` for a word), in declaration
    /// order.
    #[getter]
    fn parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for p in self.project.parameters() {
            match p.value.as_number() {
                Some(v) => d.set_item(&p.name, v)?,
                None => d.set_item(&p.name, p.value.display())?,
            }
        }
        Ok(d)
    }

    /// The scene's bodies by name, in order.
    #[getter]
    fn bodies(&self) -> Vec<String> {
        self.project.scene().bodies.iter().map(|b| b.name.clone()).collect()
    }

    /// What loading noticed but did not refuse (each as `FILE:LINE:COL: message`).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.project.warnings().iter().map(|w| w.to_string()).collect()
    }

    /// The merged material table (default, then the project's, then `materials=`).
    #[getter]
    fn materials(&self) -> PyMaterialTable {
        PyMaterialTable::new(self.project.materials().clone())
    }

    fn __repr__(&self) -> String {
        format!(
            "<Project {} ({}): {} bodies, {} s>",
            self.project.name(),
            self.project.path().display(),
            self.project.scene().bodies.len(),
            self.project.duration()
        )
    }
}
