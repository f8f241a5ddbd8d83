//! One contact of a step, with bodies and links by name.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tribo::runner::{LinkRef, Scene};
use tribo::ContactRecord;

use crate::convert::vec3;

/// One contact point (or one CSLC pad patch, summarised at its centre of pressure): what touched
/// what, where, and the forces on `b` (`a` receives the opposite). World frame, SI units.
#[pyclass(name = "Contact", module = "tribo", frozen, get_all)]
pub struct PyContact {
    /// Body of side `a`.
    pub body_a: String,
    /// Link of side `a`.
    pub link_a: String,
    /// Body of side `b`.
    pub body_b: String,
    /// Link of side `b`.
    pub link_b: String,
    /// Contact point, m.
    pub point: (f64, f64, f64),
    /// Unit normal from `a` to `b`.
    pub normal: (f64, f64, f64),
    /// Penetration depth (≥ 0 when overlapping), m.
    pub depth: f64,
    /// Normal force on `b` along `normal` (≥ 0), N.
    pub normal_force: f64,
    /// Friction force on `b` (tangential), N.
    pub friction_force: (f64, f64, f64),
}

/// The body and link names of `link` (`?` for an index the scene does not have).
fn names(scene: &Scene, link: LinkRef) -> (String, String) {
    let body = scene.bodies.get(link.body);
    let link_name = body
        .and_then(|b| b.model.links.get(link.link))
        .map_or_else(|| "?".to_string(), |l| l.name.clone());
    (body.map_or_else(|| "?".to_string(), |b| b.name.clone()), link_name)
}

impl PyContact {
    pub fn new(scene: &Scene, record: &ContactRecord) -> PyContact {
        let (body_a, link_a) = names(scene, record.a);
        let (body_b, link_b) = names(scene, record.b);
        PyContact {
            body_a,
            link_a,
            body_b,
            link_b,
            point: vec3(&record.point),
            normal: vec3(&record.normal),
            depth: record.depth,
            normal_force: record.normal_force,
            friction_force: vec3(&record.friction_force),
        }
    }

    /// A record whose scene is not at hand: bodies and links by index (`#0`).
    pub fn unnamed(record: &ContactRecord) -> PyContact {
        let index = |i: usize| format!("#{i}");
        PyContact {
            body_a: index(record.a.body),
            link_a: index(record.a.link),
            body_b: index(record.b.body),
            link_b: index(record.b.link),
            point: vec3(&record.point),
            normal: vec3(&record.normal),
            depth: record.depth,
            normal_force: record.normal_force,
            friction_force: vec3(&record.friction_force),
        }
    }

    pub fn list(scene: &Scene, records: &[ContactRecord]) -> Vec<PyContact> {
        records.iter().map(|r| PyContact::new(scene, r)).collect()
    }
}

#[pymethods]
impl PyContact {
    /// Total force on `b` (normal plus friction), N.
    #[getter]
    fn force(&self) -> (f64, f64, f64) {
        let (n, f) = (self.normal, self.friction_force);
        let s = self.normal_force;
        (n.0 * s + f.0, n.1 * s + f.1, n.2 * s + f.2)
    }

    /// The contact as a plain `dict`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("body_a", &self.body_a)?;
        d.set_item("link_a", &self.link_a)?;
        d.set_item("body_b", &self.body_b)?;
        d.set_item("link_b", &self.link_b)?;
        d.set_item("point", self.point)?;
        d.set_item("normal", self.normal)?;
        d.set_item("depth", self.depth)?;
        d.set_item("normal_force", self.normal_force)?;
        d.set_item("friction_force", self.friction_force)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        let p = self.point;
        format!(
            "Contact({}/{} – {}/{} at ({:.4}, {:.4}, {:.4}), depth {:.3e} m, normal force {:.4} N)",
            self.body_a, self.link_a, self.body_b, self.link_b, p.0, p.1, p.2, self.depth, self.normal_force
        )
    }
}
