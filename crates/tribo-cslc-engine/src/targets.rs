//! What a pad can touch: the primitive shapes of the links a host would collide its link with
//! (`pads.rs`, `may_touch`), posed from the host's state at the start of the step, as `tribo-cslc`
//! signed-distance targets. A mesh is not a pad target (the lattice needs a signed distance); a pad
//! that could touch one refuses to build (`pads.rs`).

use nalgebra::{Isometry3, Point3, Vector3};
use tribo_cslc::{Capsule, Cone, Cuboid, Cylinder, Posed, Sphere, Target, Twist};
use tribo_engine::LinkRef;
use tribo_engine::LinkState;
use tribo_model::{Geometry, Shape};

/// A shape of a link, posed, with the link it belongs to.
pub struct LinkTarget {
    pub link: LinkRef,
    pub target: PosedShape,
}

/// A posed primitive as a target, by value: a step's targets are made anew each step and live
/// in a list the pad keeps, so that a step allocates none of them.
pub enum PosedShape {
    Cuboid(Posed<Cuboid>),
    Sphere(Posed<Sphere>),
    Cylinder(Posed<Cylinder>),
    Capsule(Posed<Capsule>),
    Cone(Posed<Cone>),
}

impl PosedShape {
    /// The shape as a `tribo-cslc` target.
    pub fn as_target(&self) -> &dyn Target {
        match self {
            PosedShape::Cuboid(t) => t,
            PosedShape::Sphere(t) => t,
            PosedShape::Cylinder(t) => t,
            PosedShape::Capsule(t) => t,
            PosedShape::Cone(t) => t,
        }
    }
}

/// Radius of a ball about the shape origin that contains the shape, m.
pub fn bounding_radius(geometry: &Geometry) -> f64 {
    match *geometry {
        Geometry::Box { size } => 0.5 * size.norm(),
        Geometry::Sphere { radius } => radius,
        Geometry::Cylinder { radius, height } | Geometry::Cone { radius, height } => radius.hypot(0.5 * height),
        Geometry::Capsule { radius, height } => radius + 0.5 * height,
        Geometry::Mesh(ref mesh) => mesh.bounding_radius(),
    }
}

/// The shape as a target at the link's state (its twist taken at the shape origin); `None` for a
/// mesh, which is not a pad target.
pub fn posed(shape: &Shape, link: &LinkState) -> Option<PosedShape> {
    let pose: Isometry3<f64> = link.pose * shape.pose;
    let origin = Point3::from(pose.translation.vector);
    let link_origin = Point3::from(link.pose.translation.vector);
    let twist = Twist {
        linear: link.linear_velocity + link.angular_velocity.cross(&(origin - link_origin)),
        angular: link.angular_velocity,
    };
    Some(match shape.geometry {
        Geometry::Box { size } => PosedShape::Cuboid(
            Posed::new(
                Cuboid {
                    half_extents: size * 0.5,
                },
                pose,
            )
            .moving(twist),
        ),
        Geometry::Sphere { radius } => PosedShape::Sphere(Posed::new(Sphere { radius }, pose).moving(twist)),
        Geometry::Cylinder { radius, height } => {
            PosedShape::Cylinder(Posed::new(Cylinder { radius, height }, pose).moving(twist))
        }
        Geometry::Capsule { radius, height } => {
            PosedShape::Capsule(Posed::new(Capsule { radius, length: height }, pose).moving(twist))
        }
        Geometry::Cone { radius, height } => PosedShape::Cone(Posed::new(Cone { radius, height }, pose).moving(twist)),
        Geometry::Mesh(_) => return None,
    })
}

/// The shapes within reach of a pad whose lattice fits in the ball (`center`, `radius`), into
/// `out` (cleared first, its storage reused).
pub fn within_reach(
    candidates: &[(LinkRef, Shape)],
    states: &dyn Fn(LinkRef) -> Option<LinkState>,
    center: &Point3<f64>,
    radius: f64,
    margin: f64,
    out: &mut Vec<LinkTarget>,
) {
    out.clear();
    for (link, shape) in candidates {
        let link = *link;
        let Some(state) = states(link) else { continue };
        let origin = (state.pose * shape.pose).translation.vector;
        let gap = (Vector3::from(center.coords) - origin).norm() - radius - bounding_radius(&shape.geometry);
        if gap > margin {
            continue;
        }
        // The signed distance is 1-Lipschitz: no point of the pad's ball comes closer than
        // `distance(center) − radius` (this prunes large shapes, e.g. a floor slab, that the
        // bounding-ball test keeps).
        let Some(target) = posed(shape, &state) else { continue };
        if target.as_target().distance(center) - radius <= margin {
            out.push(LinkTarget { link, target });
        }
    }
}
