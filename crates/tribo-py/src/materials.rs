//! Material tables and one pair's contact parameters with where each number came from.

use std::path::PathBuf;

use pyo3::prelude::*;
use tribo::MaterialTable;
use tribo_material::{pair_json, render, ContactParams};
use tribo_yaml::Location;

use crate::convert::{json, paths};
use crate::errors::{input_error, to_py};

/// A warning through Python's `warnings` module (so filters and pytest see it).
fn warn(py: Python<'_>, message: String) -> PyResult<()> {
    py.import("warnings")?.call_method1("warn", (message,))?;
    Ok(())
}

/// Load and merge material tables (`materials.yaml` in Choreonoid's format), in order: later
/// entries override earlier ones. Raises `tribo.LoadError` for an invalid file; what a file
/// only warns about comes as a Python warning.
#[pyfunction]
pub fn materials(py: Python<'_>, files: &Bound<'_, PyAny>) -> PyResult<PyMaterialTable> {
    let files: Vec<PathBuf> = paths(files, "materials")?;
    let mut merged: Option<MaterialTable> = None;
    for path in &files {
        let loaded = MaterialTable::load_file(path).map_err(|d| to_py(py, tribo::Error::Load(d)))?;
        for w in &loaded.warnings {
            warn(py, w.to_string())?;
        }
        match merged.as_mut() {
            None => merged = Some(loaded.table),
            Some(table) => table.merge(&loaded.table),
        }
    }
    merged
        .map(PyMaterialTable::new)
        .ok_or_else(|| input_error(py, "materials: no material table given"))
}

/// A merged material table (`tribo.materials(files)` or `Project.materials`).
#[pyclass(name = "MaterialTable", module = "tribo", frozen)]
pub struct PyMaterialTable {
    table: MaterialTable,
}

impl PyMaterialTable {
    pub fn new(table: MaterialTable) -> PyMaterialTable {
        PyMaterialTable { table }
    }
}

#[pymethods]
impl PyMaterialTable {
    /// The contact parameters of materials `a` and `b` (symmetric) with their provenance: the
    /// explicit `contact_materials` entry (file, line, column) or the fallback rule and its
    /// inputs. A name the table does not know stands in as Choreonoid does, with a warning.
    fn pair(&self, py: Python<'_>, a: &str, b: &str) -> PyResult<PyMaterialPair> {
        for name in [a, b] {
            if let Some(w) = self.table.check_name(name, &Location::file("pair()")) {
                warn(py, w.to_string())?;
            }
        }
        Ok(PyMaterialPair {
            a: a.to_string(),
            b: b.to_string(),
            params: self.table.contact(a, b),
        })
    }

    /// The material names the table defines.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.table.known_names().into_iter().map(str::to_string).collect()
    }

    /// `{"materials": [...], "contact_materials": [...]}` with every field and its source.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json(py, &self.table.to_json())
    }

    /// The table as `tribo materials` prints it.
    fn __str__(&self) -> String {
        render::table_text(&self.table)
    }

    fn __repr__(&self) -> String {
        format!(
            "<MaterialTable: {} materials, {} contact pairs>",
            self.table.materials().len(),
            self.table.pairs().len()
        )
    }
}

/// One pair's contact parameters and where each number came from.
#[pyclass(name = "MaterialPair", module = "tribo", frozen)]
pub struct PyMaterialPair {
    a: String,
    b: String,
    params: ContactParams,
}

#[pymethods]
impl PyMaterialPair {
    /// The two material names, as asked.
    #[getter]
    fn materials(&self) -> (String, String) {
        (self.a.clone(), self.b.clone())
    }

    /// μₛ (used while the contact sticks).
    #[getter]
    fn static_friction(&self) -> f64 {
        self.params.static_friction
    }

    /// μ_d (used while it slides; engines without it use μₛ).
    #[getter]
    fn dynamic_friction(&self) -> f64 {
        self.params.dynamic_friction
    }

    /// Restitution e.
    #[getter]
    fn restitution(&self) -> f64 {
        self.params.restitution
    }

    /// Whether an explicit `contact_materials` entry gave the numbers (else the fallback rule).
    #[getter]
    fn explicit(&self) -> bool {
        self.params.is_explicit()
    }

    /// Where the numbers came from: `{"kind": "entry", "file", "line", "col", "materials",
    /// "static_friction_from", …}` or `{"kind": "fallback", "inputs": [...], …}`.
    #[getter]
    fn source<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let value = self.params.to_json();
        json(py, value.get("source").unwrap_or(&serde_json::Value::Null))
    }

    /// The entry's engine-specific keys (e.g. `cslc`).
    #[getter]
    fn extras<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json(py, &self.params.extras.to_json())
    }

    /// Each number with its origin, as `tribo materials --pair A B` prints it.
    fn explain(&self) -> String {
        render::pair_text(&self.a, &self.b, &self.params)
    }

    /// The pair as `tribo materials --pair A B --json` writes it.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json(py, &pair_json(&self.a, &self.b, &self.params))
    }

    fn __str__(&self) -> String {
        self.explain()
    }

    fn __repr__(&self) -> String {
        format!(
            "<MaterialPair {} · {}: static friction {}, dynamic friction {}, restitution {}>",
            self.a, self.b, self.params.static_friction, self.params.dynamic_friction, self.params.restitution
        )
    }
}
