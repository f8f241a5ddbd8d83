//! The scene's pads as lattices with their material parameters and persistent state.

use nalgebra::{Isometry3, Point3};
use tribo_cslc::{CslcPad, FlatLayout, PadGeometry};
use tribo_engine::{LinkRef, Scene};
use tribo_model::{Geometry, PadLayout, PadShape, RigidGroups, Shape};

use crate::coupling::{sphere_cells, sphere_springs, SphereSprings};
use crate::params::pad_material;

/// One pad of the scene.
pub struct Pad {
    /// Index in `Scene::pads`.
    pub index: usize,
    /// The pad as messages name it: ``pad on `body.link` (file:line:column)``.
    pub label: String,
    pub link: LinkRef,
    /// Pad frame in the link frame.
    pub pose_in_link: Isometry3<f64>,
    pub solver: CslcPad,
    /// Viscous damping per area, N·s/m³.
    pub damping: f64,
    /// Centre and radius of a ball (pad frame) containing every sphere.
    pub bounds: (Point3<f64>, f64),
    /// The coupling region cell of each sphere (`coupling.rs`).
    pub cells: Vec<usize>,
    /// The springs of each sphere the coupling sums (`coupling.rs`).
    pub springs: Vec<SphereSprings>,
    /// Rest position (x, y) of each sphere in the pad frame, as contact records report it.
    pub sphere_positions: Vec<[f64; 2]>,
    /// The links this pad may touch, with their shapes ([`may_touch`]).
    pub candidates: Vec<(LinkRef, Shape)>,
}

fn geometry(shape: &PadShape) -> PadGeometry {
    match *shape {
        PadShape::Flat {
            resolution,
            spacing,
            layout,
        } => {
            let layout = match layout {
                PadLayout::Cells => FlatLayout::Cells,
                PadLayout::Nodes => FlatLayout::Nodes,
            };
            PadGeometry::flat_with_layout(resolution[0], resolution[1], spacing, layout)
        }
        PadShape::Dome {
            radius,
            base_radius,
            resolution,
        } => PadGeometry::dome_with_base_radius(radius, base_radius, resolution),
    }
}

/// Whether a pad on `pad` may touch `other`: every link of another body, held or moving (a pad's
/// patch on a held body is measured all the same), and a link of the pad's own body only where
/// the host collides that body with itself (`own_groups` is then the body's rigid groups), by the
/// rule every engine applies to its own rigid shapes ([`RigidGroups::may_self_touch`]: not the
/// pad's own rigid group, nor one a joint connects to it) — so that a pad and the rigid shape it
/// stands for on the other engines touch the same links of its body.
fn may_touch(pad: LinkRef, other: LinkRef, own_groups: Option<&RigidGroups>) -> bool {
    if other.body != pad.body {
        return true;
    }
    own_groups.is_some_and(|groups| groups.may_self_touch(pad.link, other.link))
}

/// Why a pad cannot be built.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PadError {
    #[error("pad {index} names a missing body")]
    MissingBody { index: usize },
    /// The pad's material or lattice is invalid; `pad` is the pad's label.
    #[error("{pad}: {reason}")]
    Invalid { pad: String, reason: String },
}

/// Builds every pad of the scene; errors name the pad's link and declaration. `self_collides`
/// says whether the host collides a scene body with itself
/// ([`ContactHost::self_collides`](tribo_engine::ContactHost::self_collides)).
pub fn build_pads(scene: &Scene, self_collides: impl Fn(usize) -> bool) -> Result<Vec<Pad>, PadError> {
    let mut pads = Vec::with_capacity(scene.pads.len());
    for (index, pad) in scene.pads.iter().enumerate() {
        let link = pad.link;
        let body = scene.bodies.get(link.body).ok_or(PadError::MissingBody { index })?;
        let link_name = body.model.links.get(link.link).map_or("?", |l| l.name.as_str());
        let what = format!("pad on `{}.{link_name}` ({})", body.name, pad.spec.location);
        let material = scene.contacts.material(scene.material_of(link));
        let invalid = |reason: String| PadError::Invalid {
            pad: what.clone(),
            reason,
        };
        let pad_material = pad_material(material).map_err(|e| invalid(e.to_string()))?;
        let lattice = geometry(&pad.spec.shape).build().map_err(|e| invalid(e.to_string()))?;
        let params = pad_material.params_at(lattice.spacing());
        let count = lattice.len() as f64;
        let centroid = lattice
            .spheres()
            .iter()
            .fold(Point3::origin(), |c, s| c + s.rest_position.coords / count);
        let radius = lattice
            .spheres()
            .iter()
            .map(|s| (s.rest_position - centroid).norm() + s.radius)
            .fold(0.0, f64::max);
        let cells = sphere_cells(&lattice);
        let sphere_positions = lattice
            .spheres()
            .iter()
            .map(|s| [s.rest_position.x, s.rest_position.y])
            .collect();
        let solver = CslcPad::new(lattice, params).map_err(|e| invalid(e.to_string()))?;
        let springs = sphere_springs(
            solver.lattice(),
            solver.params().anchor_stiffness,
            solver.params().lateral_spring(),
        );
        let own_groups = if self_collides(link.body) {
            Some(tribo_model::rigid_groups(&body.model).map_err(|e| invalid(e.to_string()))?)
        } else {
            None
        };
        let candidates: Vec<(LinkRef, Shape)> = scene
            .links()
            .filter(|&other| may_touch(link, other, own_groups.as_ref()))
            .flat_map(|other| {
                scene.bodies[other.body].model.links[other.link]
                    .shapes
                    .iter()
                    .map(move |s| (other, s.clone()))
            })
            .collect();
        if let Some((other, mesh)) = candidates.iter().find_map(|(l, s)| match &s.geometry {
            Geometry::Mesh(mesh) => Some((*l, mesh)),
            _ => None,
        }) {
            let body = &scene.bodies[other.body];
            return Err(invalid(format!(
                "the mesh {} of link `{}.{}` is not a pad target: a pad touches primitives (Box, Sphere, \
                 Cylinder, Capsule, Cone) by their signed distance; give that link a primitive collision \
                 shape, or run the scene on rapier or pgs",
                mesh.origin, body.name, body.model.links[other.link].name
            )));
        }
        pads.push(Pad {
            index,
            label: what,
            link,
            pose_in_link: pad.spec.pose,
            solver,
            damping: pad_material.damping,
            bounds: (centroid, radius),
            cells,
            springs,
            sphere_positions,
            candidates,
        });
    }
    Ok(pads)
}
