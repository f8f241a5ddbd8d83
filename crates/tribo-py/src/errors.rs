//! tribo's errors as Python exceptions (the classes live in `tribo/_errors.py`, so they pickle
//! and carry their fields as attributes).

use std::sync::Arc;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use tribo::runner::Scene;

use crate::run::PyRun;

/// An exception of class `kind` from `tribo._errors`, built with `message` and `fields`.
fn exception(py: Python<'_>, kind: &str, message: String, fields: Bound<'_, PyDict>) -> PyErr {
    let made = py
        .import("tribo._errors")
        .and_then(|m| m.getattr(kind))
        .and_then(|class| class.call((message.clone(),), Some(&fields)));
    match made {
        Ok(instance) => PyErr::from_value(instance),
        Err(_) => PyRuntimeError::new_err(message),
    }
}

/// `tribo.InputError` (an argument given in code is not valid).
pub fn input_error(py: Python<'_>, message: impl Into<String>) -> PyErr {
    exception(py, "InputError", message.into(), PyDict::new(py))
}

/// The Python exception for a tribo error.
pub fn to_py(py: Python<'_>, error: tribo::Error) -> PyErr {
    to_py_in(py, error, None)
}

/// The Python exception for a tribo error of a run of `scene`: a failed run's partial run is its
/// `partial` (contacts named after the scene's bodies).
pub fn to_py_in(py: Python<'_>, error: tribo::Error, scene: Option<&Arc<Scene>>) -> PyErr {
    let message = error.to_string();
    let fields = PyDict::new(py);
    let kind = match fill(&fields, error, scene) {
        Ok(kind) => kind,
        Err(e) => return e,
    };
    exception(py, kind, message, fields)
}

/// Sets the exception's fields; returns its class name.
fn fill(fields: &Bound<'_, PyDict>, error: tribo::Error, scene: Option<&Arc<Scene>>) -> PyResult<&'static str> {
    let py = fields.py();
    use tribo::Error;
    Ok(match error {
        Error::Load(diagnostic) => {
            let location = &diagnostic.location;
            let known = |n: usize| (n > 0).then_some(n);
            fields.set_item("file", &*location.file)?;
            fields.set_item("line", known(location.line))?;
            fields.set_item("column", known(location.col))?;
            fields.set_item("reason", &diagnostic.message)?;
            "LoadError"
        }
        Error::Input(_) => "InputError",
        Error::UnknownEngine(_) => "UnknownEngineError",
        Error::Build { engine, .. } => {
            fields.set_item("engine", engine)?;
            "BuildError"
        }
        Error::Controller { engine, name, reason } => {
            fields.set_item("engine", engine)?;
            fields.set_item("controller", name)?;
            fields.set_item("reason", reason)?;
            "ControllerError"
        }
        Error::TooManySteps(_) => "TooManyStepsError",
        Error::Output(_) => "OutputError",
        Error::Diverged {
            engine,
            body,
            step,
            time,
            what,
            partial,
        } => {
            fields.set_item("engine", engine)?;
            fields.set_item("body", body)?;
            fields.set_item("step", step)?;
            fields.set_item("time", time)?;
            fields.set_item("what", what)?;
            fields.set_item("partial", partial_run(py, partial, scene)?)?;
            "DivergedError"
        }
        Error::StepFailed {
            engine,
            step,
            time,
            error,
            partial,
        } => {
            fields.set_item("engine", engine)?;
            fields.set_item("step", step)?;
            fields.set_item("time", time)?;
            fields.set_item("reason", error.to_string())?;
            fields.set_item("partial", partial_run(py, partial, scene)?)?;
            "StepFailedError"
        }
        _ => "TriboError",
    })
}

fn partial_run(
    py: Python<'_>,
    partial: Option<Box<tribo::Run>>,
    scene: Option<&Arc<Scene>>,
) -> PyResult<Option<Py<PyRun>>> {
    partial
        .map(|run| Py::new(py, PyRun::new(*run, scene.cloned())))
        .transpose()
}

/// `Result<T, tribo::Error>` into `PyResult<T>`.
pub trait IntoPyResult<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for Result<T, tribo::Error> {
    fn py_err(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, e))
    }
}
