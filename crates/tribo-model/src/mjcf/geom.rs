//! `<geom>` (MuJoCo's XML reference, *body/geom*) as a tribo collision shape and a solid of
//! uniform density.
//!
//! - Sizes: sphere `radius`; capsule and cylinder `radius half-length` along the geom's +z; box
//!   half extents; ellipsoid radii; a plane's half extents in x and y (0: unbounded). With
//!   `fromto="x1 y1 z1 x2 y2 z2"` a capsule, cylinder, box or ellipsoid lies along the segment:
//!   its centre at the midpoint, its +z turned onto the segment by the smallest rotation, its half
//!   length half the segment's, `pos` and the orientation ignored.
//! - tribo's cylinders and capsules lie along their local +y (Choreonoid's convention), so the
//!   shape frame is the geom frame turned by +90° about x; a capsule's tribo `height` is its
//!   cylindrical part, twice MuJoCo's half-length.
//! - A plane is a half-space in MuJoCo; tribo has none, so it is collided as a box 1 m thick whose
//!   top face is the plane, as wide as the plane's size (100 m where the size is 0), and the body
//!   notes it. Planes have no mass.
//! - An ellipsoid has its exact mass and inertia (m/5 (b² + c²), …) but no tribo shape: the link
//!   notes that it does not collide. Height fields and SDFs are refused.
//! - A mesh geom places the mesh file's vertices (scaled) by the geom's `pos` and orientation and
//!   is collided as their convex hull (MuJoCo's mesh collisions are convex hulls too); its solid is
//!   the one the closed surface encloses (MuJoCo's `exact` mesh inertia; its default, `legacy`,
//!   is the same for a closed convex mesh and may count parts of a non-convex one twice).
//! - Mass: `mass` if given, else `density` (1000 kg/m³) × volume; a geom with `contype="0"
//!   conaffinity="0"` (MuJoCo's visual-only geoms) has mass but no collision shape; other
//!   collision filters are noted (tribo collides every pair of bodies).

use nalgebra::{Isometry3, Matrix3, Translation3, Vector3};
use tribo_yaml::{Diagnostic, Error, Location};

use super::assets::Assets;
use super::compiler::Compiler;
use super::defaults::Attrs;
use super::frame::{pose, z_onto};
use crate::{Geometry, Shape};

/// MuJoCo's `friction` when a geom gives none: sliding, torsional, rolling.
pub(crate) const DEFAULT_FRICTION: [f64; 3] = [1.0, 0.005, 0.0001];

/// How wide a plane of size 0 (unbounded in MuJoCo) is collided, m.
pub(crate) const UNBOUNDED_PLANE_WIDTH: f64 = 100.0;

/// How thick the box that stands for a plane is, m.
pub(crate) const PLANE_THICKNESS: f64 = 1.0;

/// The geom types MuJoCo knows.
const TYPES: [&str; 9] = [
    "plane",
    "hfield",
    "sphere",
    "capsule",
    "ellipsoid",
    "cylinder",
    "box",
    "mesh",
    "sdf",
];

/// A uniform solid placed in the body frame.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Solid {
    pub mass: f64,
    /// Centre of mass in the body frame.
    pub centre: Vector3<f64>,
    /// About the centre of mass, body axes.
    pub inertia: Matrix3<f64>,
}

/// One geom, read.
#[derive(Debug)]
pub(crate) struct Geom {
    /// `name`, else `geom N` (N counts the body's geoms from 1).
    pub name: String,
    pub type_name: String,
    pub at: Location,
    /// Sliding, torsional and rolling friction.
    pub friction: [f64; 3],
    /// The collision shape in the body frame; `None` when it does not collide.
    pub shape: Option<Shape>,
    /// Why a colliding geom has no tribo shape (an ellipsoid).
    pub uncollided: Option<Diagnostic>,
    /// What tribo does differently with this geom (a plane collided as a box, a collision filter
    /// not honoured).
    pub notes: Vec<Diagnostic>,
    pub solid: Solid,
}

/// Read a geom; `needs_mass` says whether its solid is used (inertia from geoms), so a mesh file
/// is read only for a geom that collides or has mass that counts.
pub(crate) fn read_geom(
    attrs: &Attrs,
    index: usize,
    compiler: &Compiler,
    assets: &mut Assets,
    needs_mass: bool,
) -> Result<Geom, Error> {
    let at = attrs.at();
    let type_name = attrs.keyword("type", &TYPES)?.unwrap_or("sphere").to_string();
    let name = attrs
        .text("name")
        .map_or_else(|| format!("geom {index}"), str::to_string);
    let mut friction = DEFAULT_FRICTION;
    if let Some((values, attr)) = attrs.numbers("friction", 1, 3)? {
        if values.iter().any(|v| *v < 0.0) {
            return Err(Diagnostic::error(
                attr.at.clone(),
                format!("geom `{name}` has a negative friction"),
            ));
        }
        friction[..values.len()].copy_from_slice(&values);
    }
    let (contype, conaffinity) = filters(attrs)?;
    let collides = contype != 0 || conaffinity != 0;
    let size = attrs.numbers("size", 1, 3)?.map(|(v, _)| v).unwrap_or_default();
    let fromto = match attrs.numbers("fromto", 6, 6)? {
        Some((v, attr)) => {
            if !matches!(type_name.as_str(), "capsule" | "cylinder" | "box" | "ellipsoid") {
                return Err(Diagnostic::error(
                    attr.at.clone(),
                    format!("`fromto` is for capsules, cylinders, boxes and ellipsoids, not a {type_name}"),
                ));
            }
            let (from, to) = (Vector3::new(v[0], v[1], v[2]), Vector3::new(v[3], v[4], v[5]));
            let rotation = z_onto(to - from)
                .ok_or_else(|| Diagnostic::error(attr.at.clone(), "`fromto` has its two ends at the same point"))?;
            Some((
                Isometry3::from_parts(Translation3::from((from + to) / 2.0), rotation),
                (to - from).norm() / 2.0,
            ))
        }
        None => None,
    };
    let geom_pose = match fromto {
        Some((p, _)) => p,
        None => pose(attrs, compiler)?,
    };
    let size_at = |n: usize| -> Result<f64, Error> {
        match size.get(n) {
            Some(&s) if s > 0.0 => Ok(s),
            _ => Err(Diagnostic::error(
                attrs.get("size").map_or_else(|| at.clone(), |a| a.at.clone()),
                format!(
                    "{type_name} geom `{name}` needs a positive size number {} (`size` gives {:?})",
                    n + 1,
                    size
                ),
            )),
        }
    };
    // The half length along z: from `fromto`, else the size number `n`.
    let half_length = |n: usize| -> Result<f64, Error> {
        match fromto {
            Some((_, h)) => Ok(h),
            None => size_at(n),
        }
    };
    let axial = Isometry3::rotation(Vector3::x() * std::f64::consts::FRAC_PI_2);
    let (geometry, turn) = match type_name.as_str() {
        "sphere" => (Geometry::Sphere { radius: size_at(0)? }, Isometry3::identity()),
        "capsule" => (
            Geometry::Capsule {
                radius: size_at(0)?,
                height: 2.0 * half_length(1)?,
            },
            axial,
        ),
        "cylinder" => (
            Geometry::Cylinder {
                radius: size_at(0)?,
                height: 2.0 * half_length(1)?,
            },
            axial,
        ),
        "box" => (
            Geometry::Box {
                size: 2.0 * Vector3::new(size_at(0)?, size_at(1)?, half_length(2)?),
            },
            Isometry3::identity(),
        ),
        "ellipsoid" => {
            let radii = Vector3::new(size_at(0)?, size_at(1)?, half_length(2)?);
            return ellipsoid(name, type_name, at, friction, collides, radii, geom_pose, attrs);
        }
        "plane" => return plane(name, type_name, at, friction, collides, &size, geom_pose),
        "mesh" => {
            let Some(reference) = attrs.get("mesh") else {
                return Err(Diagnostic::error(at, format!("mesh geom `{name}` names no `mesh`")));
            };
            if !(collides || needs_mass) {
                // Never collided and its mass is not used: the file need not be read.
                return Ok(Geom {
                    name,
                    type_name,
                    at,
                    friction,
                    shape: None,
                    uncollided: None,
                    notes: Vec::new(),
                    solid: Solid {
                        mass: 0.0,
                        centre: geom_pose.translation.vector,
                        inertia: Matrix3::zeros(),
                    },
                });
            }
            (Geometry::Mesh(assets.mesh(reference)?), Isometry3::identity())
        }
        other => {
            return Err(Diagnostic::error(
                attrs.get("type").map_or(at, |a| a.at.clone()),
                format!("{other} geoms are not supported (tribo has no height fields or signed-distance shapes)"),
            ))
        }
    };
    let shape_pose = geom_pose * turn;
    let volume = geometry.volume();
    let mass = geom_mass(attrs, volume)?;
    let rotation = shape_pose.rotation.to_rotation_matrix();
    let solid = Solid {
        mass,
        centre: (shape_pose * nalgebra::Point3::from(geometry.centre_of_mass())).coords,
        inertia: rotation.matrix() * geometry.solid_inertia(mass) * rotation.matrix().transpose(),
    };
    Ok(Geom {
        name,
        type_name,
        at,
        friction,
        shape: collides.then_some(Shape {
            geometry,
            pose: shape_pose,
            color: None,
        }),
        uncollided: None,
        notes: Vec::new(),
        solid,
    })
}

/// `contype` and `conaffinity` (MuJoCo's defaults 1 and 1).
fn filters(attrs: &Attrs) -> Result<(i64, i64), Error> {
    Ok((
        integer(attrs, "contype")?.unwrap_or(1),
        integer(attrs, "conaffinity")?.unwrap_or(1),
    ))
}

/// A note for a geom whose collision filter is not MuJoCo's default: tribo collides every pair of
/// bodies (self-collision aside), so only `contype="0" conaffinity="0"` (never collides) is
/// honoured.
pub(crate) fn filter_note(attrs: &Attrs, name: &str) -> Result<Option<Diagnostic>, Error> {
    let (contype, conaffinity) = filters(attrs)?;
    let honoured = (contype, conaffinity) == (1, 1) || (contype, conaffinity) == (0, 0);
    Ok((!honoured).then(|| {
        Diagnostic::warning(
            attrs.at(),
            format!(
                "geom `{name}`: contype=\"{contype}\" conaffinity=\"{conaffinity}\" is not honoured; it collides with every other body (only 0 and 0, no collision, is)"
            ),
        )
    }))
}

/// `mass`, else `density` × `volume` (MuJoCo's default density is 1000 kg/m³).
fn geom_mass(attrs: &Attrs, volume: f64) -> Result<f64, Error> {
    if let Some(mass) = attrs.number("mass")? {
        if mass < 0.0 {
            return Err(negative(attrs, "mass"));
        }
        return Ok(mass);
    }
    let density = attrs.number("density")?.unwrap_or(1000.0);
    if density < 0.0 {
        return Err(negative(attrs, "density"));
    }
    Ok(density * volume)
}

fn negative(attrs: &Attrs, name: &str) -> Diagnostic {
    let at = attrs.get(name).map_or_else(|| attrs.at(), |a| a.at.clone());
    Diagnostic::error(at, format!("geom `{name}` is negative"))
}

fn integer(attrs: &Attrs, name: &str) -> Result<Option<i64>, Error> {
    let Some(attr) = attrs.get(name) else {
        return Ok(None);
    };
    attr.value.trim().parse::<i64>().map(Some).map_err(|_| {
        Diagnostic::error(
            attr.at.clone(),
            format!("`{name}` is `{}`: expected an integer", attr.value),
        )
    })
}

#[allow(clippy::too_many_arguments)]
fn ellipsoid(
    name: String,
    type_name: String,
    at: Location,
    friction: [f64; 3],
    collides: bool,
    radii: Vector3<f64>,
    geom_pose: Isometry3<f64>,
    attrs: &Attrs,
) -> Result<Geom, Error> {
    let volume = 4.0 / 3.0 * std::f64::consts::PI * radii.x * radii.y * radii.z;
    let mass = geom_mass(attrs, volume)?;
    let r2 = radii.component_mul(&radii);
    let own = Matrix3::from_diagonal(&Vector3::new(r2.y + r2.z, r2.x + r2.z, r2.x + r2.y)) * (mass / 5.0);
    let rotation = geom_pose.rotation.to_rotation_matrix();
    let uncollided = collides.then(|| {
        Diagnostic::warning(
            at.clone(),
            format!("ellipsoid geom `{name}` does not collide: tribo has no ellipsoid shape (its mass and inertia are kept)"),
        )
    });
    Ok(Geom {
        name,
        type_name,
        at,
        friction,
        shape: None,
        uncollided,
        notes: Vec::new(),
        solid: Solid {
            mass,
            centre: geom_pose.translation.vector,
            inertia: rotation.matrix() * own * rotation.matrix().transpose(),
        },
    })
}

fn plane(
    name: String,
    type_name: String,
    at: Location,
    friction: [f64; 3],
    collides: bool,
    size: &[f64],
    geom_pose: Isometry3<f64>,
) -> Result<Geom, Error> {
    let width = |n: usize| match size.get(n) {
        Some(&half) if half > 0.0 => 2.0 * half,
        _ => UNBOUNDED_PLANE_WIDTH,
    };
    let (x, y) = (width(0), width(1));
    let shape = Shape {
        geometry: Geometry::Box {
            size: Vector3::new(x, y, PLANE_THICKNESS),
        },
        pose: geom_pose * Isometry3::translation(0.0, 0.0, -PLANE_THICKNESS / 2.0),
        color: None,
    };
    let note = Diagnostic::warning(
        at.clone(),
        format!(
            "plane `{name}` is collided as a {x} m × {y} m × {PLANE_THICKNESS} m box whose top face is the plane (tribo has no half-space)"
        ),
    );
    Ok(Geom {
        name,
        type_name,
        at,
        friction,
        shape: collides.then_some(shape),
        uncollided: None,
        notes: collides.then_some(note).into_iter().collect(),
        solid: Solid {
            mass: 0.0,
            centre: geom_pose.translation.vector,
            inertia: Matrix3::zeros(),
        },
    })
}
