//! The mass a patch pushes against: the reduced mass of the two touching bodies at a point along
//! a direction, each body taken as one rigid body with its joints locked (its composite rigid
//! body at the current state).
//!
//! A rigid body of mass `M`, centre of mass `c` and inertia `I_c` (world axes) pushed at `p`
//! along the unit `n` responds with `1/m_eff = 1/M + (r × n)ᵀ I_c⁻¹ (r × n)`, `r = p − c`
//! (Featherstone, *Rigid Body Dynamics Algorithms*, 2008, §11.3, the operational-space inertia
//! `Λ⁻¹ = J H⁻¹ Jᵀ` of a single body). Locking joints can only add inertia, so for an articulated
//! body this is an upper bound of the true effective mass. A fixed-root (welded or kinematically
//! driven) body is immovable: `1/m_eff = 0`. The reduced mass of two bodies is
//! `m* = 1 / (1/m_a + 1/m_b)`, infinite when neither can move.
//!
//! `M`, `c` and `I_c⁻¹` depend on the body's state only, not on the point: [`Inertias`] forms
//! them once per body and state (the first time a body is asked for) and every point of the step
//! reuses them.

use std::cell::OnceCell;

use nalgebra::{Matrix3, Point3, Vector3};
use tribo_engine::Scene;
use tribo_engine::SceneState;

/// A body taken as one rigid body at a state (module docs).
#[derive(Debug, Clone, Copy)]
enum Composite {
    /// Fixed root, missing or without positive finite mass: `1/m_eff = 0`.
    Immovable,
    Movable {
        mass: f64,
        center: Vector3<f64>,
        /// `I_c⁻¹` (world axes); `None` when `I_c` is singular.
        inverse_inertia: Option<Matrix3<f64>>,
    },
}

impl Composite {
    fn of(scene: &Scene, state: &SceneState, body: usize) -> Composite {
        let (Some(scene_body), Some(body_state)) = (scene.bodies.get(body), state.bodies.get(body)) else {
            return Composite::Immovable;
        };
        if scene_body.fixed_root {
            return Composite::Immovable;
        }
        let links = &scene_body.model.links;
        let mut mass = 0.0;
        let mut moment = Vector3::zeros();
        for (link, link_state) in links.iter().zip(&body_state.links) {
            mass += link.mass;
            moment += (link_state.pose * Point3::from(link.center_of_mass)).coords * link.mass;
        }
        if !(mass > 0.0 && mass.is_finite()) {
            return Composite::Immovable;
        }
        let center = moment / mass;
        let mut inertia = Matrix3::zeros();
        for (link, link_state) in links.iter().zip(&body_state.links) {
            let rotation = link_state.pose.rotation.to_rotation_matrix();
            let d = (link_state.pose * Point3::from(link.center_of_mass)).coords - center;
            inertia += rotation.matrix() * link.inertia * rotation.matrix().transpose()
                + (Matrix3::identity() * d.norm_squared() - d * d.transpose()) * link.mass;
        }
        Composite::Movable {
            mass,
            center,
            inverse_inertia: inertia.try_inverse(),
        }
    }

    /// `1/m_eff` at world point `p` along unit `n` (module docs); 0 when immovable.
    fn inverse_effective_mass(&self, p: &Vector3<f64>, n: &Vector3<f64>) -> f64 {
        let Composite::Movable {
            mass,
            center,
            inverse_inertia,
        } = self
        else {
            return 0.0;
        };
        let arm = (p - center).cross(n);
        // A body without rotational inertia about the arm turns freely: the rotational term is left
        // out rather than made infinite (a point mass).
        let rotational = inverse_inertia.map_or(0.0, |inv| arm.dot(&(inv * arm)).max(0.0));
        1.0 / mass + if rotational.is_finite() { rotational } else { 0.0 }
    }
}

/// The bodies of a scene at one state as rigid bodies, each formed when first asked for.
pub struct Inertias<'a> {
    scene: &'a Scene,
    state: &'a SceneState,
    bodies: Vec<OnceCell<Composite>>,
}

/// The storage of an [`Inertias`]' per-body cells, kept from one state to the next.
#[derive(Default)]
pub struct InertiaStorage(Vec<OnceCell<Composite>>);

impl<'a> Inertias<'a> {
    /// The bodies of `scene` at `state`, their cells in `storage` (every cell emptied first).
    pub fn new_in(scene: &'a Scene, state: &'a SceneState, storage: InertiaStorage) -> Inertias<'a> {
        let mut bodies = storage.0;
        bodies.clear();
        bodies.resize_with(scene.bodies.len(), OnceCell::new);
        Inertias { scene, state, bodies }
    }

    /// The storage, for the next state's [`Inertias::new_in`].
    pub fn into_storage(self) -> InertiaStorage {
        InertiaStorage(self.bodies)
    }

    fn composite(&self, body: usize) -> Composite {
        match self.bodies.get(body) {
            Some(cell) => *cell.get_or_init(|| Composite::of(self.scene, self.state, body)),
            None => Composite::Immovable,
        }
    }

    /// `1/m_eff` of body `body` at world point `p` along unit `n` (module docs); 0 when immovable.
    pub fn inverse_effective_mass(&self, body: usize, p: &Vector3<f64>, n: &Vector3<f64>) -> f64 {
        self.composite(body).inverse_effective_mass(p, n)
    }

    /// Reduced mass `m*` of bodies `a` and `b` at `p` along `n` (module docs), kg; infinite when
    /// neither can move.
    pub fn reduced_mass(&self, a: usize, b: usize, p: &Vector3<f64>, n: &Vector3<f64>) -> f64 {
        let inverse = self.inverse_effective_mass(a, p, n) + self.inverse_effective_mass(b, p, n);
        if inverse > 0.0 {
            1.0 / inverse
        } else {
            f64::INFINITY
        }
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::{Isometry3, Vector3};
    use tribo_engine::{BodyState, LinkState, SceneState};

    use super::{InertiaStorage, Inertias};

    /// A 1 kg cube of side 0.2 m (I = m s² / 6 = 1/150 kg m² about any axis through its centre)
    /// pushed along z at a bottom edge, r = (0.1, 0, −0.1): `r × n = (0, −0.1, 0)`, so
    /// `1/m_eff = 1/1 + 0.01 · 150 = 2.5` and `m_eff = 0.4 kg`; through its centre 1 kg. The
    /// ground is fixed: the reduced mass is the cube's, and infinite between two fixed bodies.
    #[test]
    fn a_cube_pushed_at_an_edge_has_the_rigid_body_effective_mass() {
        let scene = tribo_testkit::box_above_ground(0.0, 0.5);
        let mut state = SceneState {
            bodies: scene
                .bodies
                .iter()
                .map(|b| BodyState {
                    links: vec![LinkState::default(); b.model.links.len()],
                    ..BodyState::default()
                })
                .collect(),
        };
        let (ground, cube) = (0, 1);
        let center = Vector3::new(0.3, -0.2, 0.5);
        state.bodies[cube].links[0].pose = Isometry3::new(center, Vector3::new(0.0, 0.0, std::f64::consts::FRAC_PI_6));
        let inertias = Inertias::new_in(&scene, &state, InertiaStorage::default());
        let n = Vector3::z();
        let edge = center + Vector3::new(0.1, 0.0, -0.1);
        let tolerance = 1e-12;
        assert!((inertias.inverse_effective_mass(cube, &edge, &n) - 2.5).abs() < tolerance);
        assert!((inertias.reduced_mass(ground, cube, &edge, &n) - 0.4).abs() < tolerance);
        assert!((inertias.reduced_mass(cube, ground, &center, &n) - 1.0).abs() < tolerance);
        assert_eq!(inertias.inverse_effective_mass(ground, &edge, &n), 0.0);
        assert_eq!(inertias.reduced_mass(ground, ground, &edge, &n), f64::INFINITY);
        // A body the scene does not have is immovable, not an error.
        assert_eq!(inertias.inverse_effective_mass(7, &edge, &n), 0.0);
    }
}
