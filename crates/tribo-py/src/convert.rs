//! Rust values as Python ones (tuples, numpy arrays, JSON as dicts) and back.

use std::path::PathBuf;

use nalgebra::Vector3;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyDict, PyFloat, PyInt, PyList, PyString};

use crate::errors::input_error;

/// A vector as an `(x, y, z)` tuple.
pub fn vec3(v: &Vector3<f64>) -> (f64, f64, f64) {
    (v.x, v.y, v.z)
}

/// Values as a one-dimensional `numpy.ndarray` of `float64` (a copy the caller owns).
pub fn array<'py>(py: Python<'py>, values: &[f64]) -> PyResult<Bound<'py, PyAny>> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let buffer = PyByteArray::new(py, &bytes);
    py.import("numpy")?.call_method1("frombuffer", (buffer, "float64"))
}

/// A JSON value as Python (`dict`, `list`, `str`, `float`, `int`, `bool`, `None`).
pub fn json<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => PyInt::new(py, i).into_any(),
            (None, Some(f)) => PyFloat::new(py, f).into_any(),
            (None, None) => PyString::new(py, &n.to_string()).into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, json(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// One path or a sequence of paths (`str` or `os.PathLike`).
pub fn paths(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<PathBuf>> {
    if let Ok(one) = value.extract::<PathBuf>() {
        return Ok(vec![one]);
    }
    value
        .extract::<Vec<PathBuf>>()
        .map_err(|_| PyTypeError::new_err(format!("{what}: expected a path or a list of paths")))
}

/// One engine name or a sequence of them.
pub fn names(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<String>> {
    if let Ok(one) = value.extract::<String>() {
        return Ok(vec![one]);
    }
    value
        .extract::<Vec<String>>()
        .map_err(|_| PyTypeError::new_err(format!("{what}: expected a name or a list of names")))
}

/// A parameter override as the project file would read it: numbers in Rust's shortest
/// round-trip form (no exponent), booleans as `true`/`false`, text as given.
pub fn override_value(name: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    if value.is_instance_of::<PyBool>() {
        return Ok(value.extract::<bool>()?.to_string());
    }
    if value.is_instance_of::<PyInt>() {
        if let Ok(i) = value.extract::<i64>() {
            return Ok(i.to_string());
        }
    }
    if let Ok(f) = value.extract::<f64>() {
        if !f.is_finite() {
            return Err(input_error(
                value.py(),
                format!("set: `{name}` must be a finite number, got {f}"),
            ));
        }
        return Ok(f.to_string());
    }
    if let Ok(s) = value.extract::<String>() {
        return Ok(s);
    }
    let type_name = value.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    Err(input_error(
        value.py(),
        format!("set: `{name}` must be a number or a string, got {type_name}"),
    ))
}

/// A positive, finite number of seconds (or steps) given as an argument.
pub fn positive(py: Python<'_>, what: &str, value: Option<f64>) -> PyResult<Option<f64>> {
    match value {
        Some(v) if !(v.is_finite() && v > 0.0) => Err(input_error(
            py,
            format!("{what} must be a positive number of seconds, got {v}"),
        )),
        other => Ok(other),
    }
}

/// `names` as a readable list for an error message (at most 12, then how many more).
pub fn listing<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    let shown: Vec<String> = names.iter().take(12).map(|n| format!("`{n}`")).collect();
    let more = names.len().saturating_sub(12);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else if shown.is_empty() {
        "none".to_string()
    } else {
        shown.join(", ")
    }
}
