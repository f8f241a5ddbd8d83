//! A finished run: metrics, trajectory (numpy arrays) and kept contacts.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tribo::runner::Scene;
use tribo::{ExpectedValue, MetricResult, MetricValue};

use crate::contact::PyContact;
use crate::convert::{array, listing};
use crate::errors::input_error;

/// One engine's finished run of a project.
#[pyclass(name = "Run", module = "tribo", frozen)]
pub struct PyRun {
    run: tribo::Run,
    /// The scene the run simulated, for names in contacts (`None` for a partial run whose
    /// scene is not at hand: contacts then name bodies by index).
    scene: Option<Arc<Scene>>,
}

impl PyRun {
    pub fn new(run: tribo::Run, scene: Option<Arc<Scene>>) -> PyRun {
        PyRun { run, scene }
    }
}

fn value<'py>(py: Python<'py>, value: &MetricValue) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        MetricValue::Number(v) => v.into_pyobject(py)?.into_any(),
        MetricValue::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        MetricValue::Missing(_) => py.None().into_bound(py),
    })
}

fn details<'py>(py: Python<'py>, metric: &MetricResult) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("value", value(py, &metric.value)?)?;
    d.set_item("unit", &metric.unit)?;
    let expected = match metric.expected {
        Some(ExpectedValue::Number(v)) => v.into_pyobject(py)?.into_any(),
        Some(ExpectedValue::Bool(b)) => b.into_pyobject(py)?.to_owned().into_any(),
        None => py.None().into_bound(py),
    };
    d.set_item("expected", expected)?;
    d.set_item("formula", &metric.formula)?;
    d.set_item("tolerance", metric.tolerance)?;
    d.set_item("relative_error", metric.relative_error())?;
    d.set_item("passed", metric.passed())?;
    let missing = match &metric.value {
        MetricValue::Missing(why) => Some(why.as_str()),
        _ => None,
    };
    d.set_item("missing", missing)?;
    Ok(d)
}

#[pymethods]
impl PyRun {
    /// The engine's name.
    #[getter]
    fn engine(&self) -> &str {
        self.run.engine()
    }

    /// Steps taken.
    #[getter]
    fn steps(&self) -> u64 {
        self.run.steps()
    }

    /// The step length, s.
    #[getter]
    fn time_step(&self) -> f64 {
        self.run.time_step()
    }

    /// Simulated time, s.
    #[getter]
    fn simulated_time(&self) -> f64 {
        self.run.simulated_time()
    }

    /// Wall-clock time of the run, s.
    #[getter]
    fn wall_time(&self) -> f64 {
        self.run.outcome().wall_time.as_secs_f64()
    }

    /// Steps per wall-clock second.
    #[getter]
    fn steps_per_second(&self) -> f64 {
        self.run.outcome().steps_per_second()
    }

    /// Metric name → measured value (`float`, `bool`, or `None` when it could not be measured).
    #[getter]
    fn metrics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for m in self.run.metrics() {
            d.set_item(&m.name, value(py, &m.value)?)?;
        }
        Ok(d)
    }

    /// Metric name → `{"value", "unit", "expected", "formula", "tolerance", "relative_error",
    /// "passed", "missing"}` (`passed` is `None` without an expectation; `missing` says why a
    /// value could not be measured).
    #[getter]
    fn metric_details<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for m in self.run.metrics() {
            d.set_item(&m.name, details(py, m)?)?;
        }
        Ok(d)
    }

    /// The trajectory's column names, `time` first.
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.run.trajectory().columns.clone()
    }

    /// Column name → `numpy.ndarray` (`float64`), one value per recorded row; `time` first.
    #[getter]
    fn trajectory<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let trajectory = self.run.trajectory();
        let d = PyDict::new(py);
        for (i, name) in trajectory.columns.iter().enumerate() {
            let column: Vec<f64> = trajectory
                .rows
                .iter()
                .map(|row| row.get(i).copied().unwrap_or(f64::NAN))
                .collect();
            d.set_item(name, array(py, &column)?)?;
        }
        Ok(d)
    }

    /// One trajectory column as a `numpy.ndarray`.
    fn column<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        match self.run.column(name) {
            Some(values) => array(py, &values),
            None => Err(input_error(
                py,
                format!(
                    "no trajectory column `{name}`; the columns are {}",
                    listing(self.run.trajectory().columns.iter().map(String::as_str))
                ),
            )),
        }
    }

    /// The contacts after step `step` (1 for the first step); the run keeps them only when run
    /// with `contacts_every=N` (every N-th step).
    fn contacts_at(&self, py: Python<'_>, step: u64) -> PyResult<Vec<PyContact>> {
        let Some(records) = self.run.contacts_at(step) else {
            let kept: Vec<u64> = self.run.contact_steps().take(3).collect();
            let hint = if kept.is_empty() {
                "the run kept no contacts: run with contacts_every=1 (every step) or N (every N-th)".to_string()
            } else {
                format!("the run kept the contacts of steps {kept:?}, …")
            };
            return Err(input_error(py, format!("no contacts kept for step {step}: {hint}")));
        };
        Ok(match &self.scene {
            Some(scene) => PyContact::list(scene, records),
            None => records.iter().map(PyContact::unnamed).collect(),
        })
    }

    /// The steps whose contacts the run kept, in order.
    #[getter]
    fn contact_steps(&self) -> Vec<u64> {
        self.run.contact_steps().collect()
    }

    /// Engine warnings and the material parameters the engine ignored.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.run.warnings().to_vec()
    }

    fn __repr__(&self) -> String {
        let metrics: Vec<String> = self
            .run
            .metrics()
            .iter()
            .take(3)
            .map(|m| format!("{}={}", m.name, m.value.display()))
            .collect();
        format!(
            "<Run {}: {} steps, {} s; {}>",
            self.run.engine(),
            self.run.steps(),
            self.run.simulated_time(),
            metrics.join(", ")
        )
    }
}
