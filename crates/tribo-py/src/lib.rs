//! tribo for Python: the native module `tribo._tribo` behind the `tribo` package
//! (`python/tribo/`), which re-exports it and adds the pure-Python sweep helpers.
//!
//! Each class wraps one item of the Rust facade (`tribo`): `Project` a `tribo::Project`, `Run`
//! a `tribo::Run`, `Simulator` a `tribo::Simulator`; errors become the exception classes of
//! `tribo._errors`. Runs and steps release the GIL, so Python threads run them in parallel.
//! Built with maturin (`pyproject.toml`), which turns on the `extension-module` feature.

mod commands;
mod contact;
mod convert;
mod errors;
mod materials;
mod project;
mod run;
mod simulator;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use tribo::runner::MaterialParameter;

/// The engines tribo ships, in order: `[{"name", "description", "honours", "ignores"}]`
/// (`honours`/`ignores`: the material parameters the engine uses or leaves out).
#[pyfunction]
fn engines(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let registry = tribo::engines();
    registry
        .factories()
        .map(|f| {
            let honoured = f.honoured_parameters();
            let d = PyDict::new(py);
            d.set_item("name", f.name())?;
            d.set_item("description", f.description())?;
            d.set_item("honours", honoured.iter().map(|p| p.name()).collect::<Vec<_>>())?;
            let ignored = MaterialParameter::ALL.iter().filter(|p| !honoured.contains(p));
            d.set_item("ignores", ignored.map(|p| p.name()).collect::<Vec<_>>())?;
            Ok(d)
        })
        .collect()
}

/// The share directory `${SHARE}` names by default (`$TRIBO_SHARE`, else the copy built into
/// the module, written once to a cache directory).
#[pyfunction]
fn share_dir() -> std::path::PathBuf {
    tribo::share_dir()
}

#[pymodule]
fn _tribo(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(project::load, m)?)?;
    m.add_function(wrap_pyfunction!(materials::materials, m)?)?;
    m.add_function(wrap_pyfunction!(engines, m)?)?;
    m.add_function(wrap_pyfunction!(share_dir, m)?)?;
    m.add_class::<project::PyProject>()?;
    m.add_class::<run::PyRun>()?;
    m.add_class::<contact::PyContact>()?;
    m.add_class::<simulator::PySimulator>()?;
    m.add_class::<materials::PyMaterialTable>()?;
    m.add_class::<materials::PyMaterialPair>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
