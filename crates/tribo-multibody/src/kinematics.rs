//! Forward kinematics (RBDA ch. 4 and the first pass of the RNEA, §5.3): world pose of every body, the
//! world-coordinate motion axes of every degree of freedom, spatial velocities, the velocity-product
//! accelerations, and world spatial inertias. Everything later (Jacobians, RNEA, CRBA) reads these.
//!
//! **Reference point.** Spatial quantities are in world axes about the point r =
//! [`Kinematics::origin`], the root body's frame origin at this state, not about the world origin:
//! a spatial inertia about a point at distance |p| holds `m |p|²` terms that cancel back to the
//! inertia about the centre of mass when the mass matrix is formed, losing `ε m |p|²` — at
//! |p| = 1e7 m (ε |p|² ≈ 0.02 m²) all of a 10 cm ball's rotational inertia (0.004 m kg·m²). About r
//! the levers are the body's own size and the result does not depend on where the body is
//! (Featherstone, *RBDA*, §2.8: any point may serve as the origin of Plücker coordinates). Every
//! function that takes or returns a *point* uses world positions; the spatial vectors it reads
//! ([`Kinematics::velocities`], [`Kinematics::dof_motions`], [`Kinematics::inertias`]) are about r.
//!
//! Recurrences, all in world axes about r:
//!
//! ```text
//! X_i   = X_λ(i) · placement_i · motion_i(q_i)         (pose)
//! v̂_i   = v̂_λ(i) + S_i q̇_i                             (RBDA §5.3, in base coordinates)
//! â_i   = â_λ(i) + S_i q̈_i + ĉ_i                       (RBDA §5.3)
//! ĉ_i   = v̂_i × S_i q̇_i                                (revolute, prismatic: S_i is fixed in body i)
//! ĉ_i   = [0; ṗ × ω]                                   (free joint, from differentiating S below)
//! ```
//!
//! Motion axes S (columns of the world-coordinate Jacobian, about r): a revolute joint with world
//! axis u through world point o has `[u; (o − r) × u]`; a prismatic joint `[0; u]`; a free joint
//! whose body origin is at world point p has, for `ṗ`, the columns `[0; e_k]` and, for `ω`,
//! `[e_k; (p − r) × e_k]` (e_k: the joint frame's axes in world coordinates).

use crate::error::Error;
use crate::joint::Joint;
use crate::spatial::{SpatialForce, SpatialInertia, SpatialMotion};
use crate::state::{assign_vector, check_len, State};
use crate::tree::Tree;
use nalgebra::{DVector, Isometry3, Vector3};

/// Kinematic quantities of a tree at one state. Borrowing the tree keeps the two consistent.
#[derive(Clone, Debug)]
pub struct Kinematics<'t> {
    tree: &'t Tree,
    data: KinematicsData,
}

/// The quantities [`Kinematics`] computes, without the tree: what a caller keeps between uses so
/// that the next kinematics are computed into the same storage ([`Kinematics::new_in`]) or, when the
/// state has not changed, used again ([`Kinematics::from_data`]).
#[derive(Clone, Debug, Default)]
pub struct KinematicsData {
    q: DVector<f64>,
    v: DVector<f64>,
    /// The reference point r of the spatial quantities (module docs), world, m.
    origin: Vector3<f64>,
    poses: Vec<Isometry3<f64>>,
    velocities: Vec<SpatialMotion>,
    velocity_products: Vec<SpatialMotion>,
    dof_motions: Vec<SpatialMotion>,
    inertias: Vec<SpatialInertia>,
}

impl KinematicsData {
    /// Whether these were computed at exactly `state` (bit for bit: q and v compare as stored).
    pub fn is_at(&self, state: &State) -> bool {
        same_bits(&self.q, &state.q) && same_bits(&self.v, &state.v)
    }
}

fn same_bits(a: &DVector<f64>, b: &DVector<f64>) -> bool {
    a.len() == b.len()
        && a.as_slice()
            .iter()
            .zip(b.as_slice())
            .all(|(x, y)| x.to_bits() == y.to_bits())
}

impl<'t> Kinematics<'t> {
    /// Computes the kinematics of `tree` at `state`. Free-joint quaternions are normalised; a zero
    /// or non-finite quaternion, a non-finite coordinate or wrong lengths are errors.
    pub fn new(tree: &'t Tree, state: &State) -> Result<Self, Error> {
        Self::new_in(tree, state, KinematicsData::default())
    }

    /// [`Kinematics::new`] computed into `data`'s storage (whatever it held is overwritten; the
    /// results are the same).
    pub fn new_in(tree: &'t Tree, state: &State, data: KinematicsData) -> Result<Self, Error> {
        state.check(tree)?;
        check_finite(tree, "q", &state.q, |i| tree_body_of_q(tree, i))?;
        check_finite(tree, "v", &state.v, |dof| tree.dof_body().get(dof).copied())?;
        let mut kin = Kinematics { tree, data };
        let data = &mut kin.data;
        // Copied into the kept storage (a DVector's `clone_from` allocates anew).
        assign_vector(&mut data.q, &state.q);
        assign_vector(&mut data.v, &state.v);
        data.origin = Vector3::zeros();
        data.poses.clear();
        data.velocities.clear();
        data.velocity_products.clear();
        data.dof_motions.clear();
        data.dof_motions.resize(tree.nv(), SpatialMotion::zero());
        data.inertias.clear();
        for (index, body) in tree.bodies().iter().enumerate() {
            let parent_pose = body
                .parent
                .and_then(|p| data.poses.get(p))
                .copied()
                .unwrap_or_else(Isometry3::identity);
            let parent_velocity = body
                .parent
                .and_then(|p| data.velocities.get(p))
                .copied()
                .unwrap_or_default();
            let joint_frame = parent_pose * body.placement;
            let qi = data.q.as_slice().get(tree.q_range(index)).unwrap_or(&[]);
            if body.joint == Joint::Free {
                check_quaternion(tree, index, qi)?;
            }
            let pose = joint_frame * body.joint.motion(qi);
            if index == 0 {
                data.origin = pose.translation.vector;
            }
            let origin = data.origin;
            let vi = data.v.as_slice().get(tree.v_range(index)).unwrap_or(&[]);
            let axes = data.dof_motions.get_mut(tree.v_range(index)).unwrap_or(&mut []);
            let (joint_velocity, velocity_product) = joint_motion(&body.joint, &joint_frame, &pose, &origin, vi, axes);
            let velocity = parent_velocity + joint_velocity;
            // For a revolute or prismatic joint ĉ = v̂_i × S q̇ (S is fixed in the moving body).
            let velocity_product = velocity_product.unwrap_or_else(|| velocity.cross_motion(&joint_velocity));
            let rotation = pose.rotation.to_rotation_matrix();
            // The centre of mass relative to r: the body's offset from the root plus its own lever.
            let com = (pose.translation.vector - origin) + pose.rotation * body.inertia.com;
            let inertia_about_com = rotation * body.inertia.inertia * rotation.transpose();
            data.inertias
                .push(SpatialInertia::from_com(body.inertia.mass, &com, &inertia_about_com));
            data.poses.push(pose);
            data.velocities.push(velocity);
            data.velocity_products.push(velocity_product);
        }
        Ok(kin)
    }

    /// Kinematics at positions `q` with zero velocity (enough for poses, Jacobians and the mass
    /// matrix).
    pub fn from_positions(tree: &'t Tree, q: &DVector<f64>) -> Result<Self, Error> {
        Self::new(
            tree,
            &State {
                q: q.clone(),
                v: DVector::zeros(tree.nv()),
            },
        )
    }

    /// Kinematics of `tree` from `data` computed earlier for this same tree (by
    /// [`Kinematics::new`] or [`Kinematics::new_in`], returned by [`Kinematics::into_data`]): the
    /// kinematics at `data`'s state, without computing them again. The caller vouches that the tree
    /// has not changed since; data whose lengths do not fit the tree are an error.
    pub fn from_data(tree: &'t Tree, data: KinematicsData) -> Result<Self, Error> {
        check_len("q", tree.nq(), data.q.len())?;
        check_len("v", tree.nv(), data.v.len())?;
        check_len("bodies", tree.len(), data.poses.len())?;
        Ok(Kinematics { tree, data })
    }

    /// The computed quantities without the tree, to keep for [`Kinematics::new_in`] or
    /// [`Kinematics::from_data`].
    pub fn into_data(self) -> KinematicsData {
        self.data
    }

    pub fn tree(&self) -> &'t Tree {
        self.tree
    }

    pub fn q(&self) -> &DVector<f64> {
        &self.data.q
    }

    pub fn v(&self) -> &DVector<f64> {
        &self.data.v
    }

    /// The reference point r of [`Self::velocities`], [`Self::dof_motions`], [`Self::inertias`]
    /// (world, m): the root body's frame origin (module docs).
    pub fn origin(&self) -> &Vector3<f64> {
        &self.data.origin
    }

    /// World pose of every body frame.
    pub fn poses(&self) -> &[Isometry3<f64>] {
        &self.data.poses
    }

    /// Spatial velocity v̂_i of every body (world axes, about [`Self::origin`]).
    pub fn velocities(&self) -> &[SpatialMotion] {
        &self.data.velocities
    }

    /// Velocity-product accelerations ĉ_i (the acceleration each joint adds at q̈ = 0).
    pub fn velocity_products(&self) -> &[SpatialMotion] {
        &self.data.velocity_products
    }

    /// Motion axis S_k of every degree of freedom (world axes, about [`Self::origin`]): the columns
    /// of the spatial Jacobian.
    pub fn dof_motions(&self) -> &[SpatialMotion] {
        &self.data.dof_motions
    }

    /// Spatial inertia of every body (world axes, about [`Self::origin`]).
    pub fn inertias(&self) -> &[SpatialInertia] {
        &self.data.inertias
    }

    pub fn pose(&self, body: usize) -> Result<&Isometry3<f64>, Error> {
        self.data.poses.get(body).ok_or(self.out_of_range(body))
    }

    /// Spatial velocity of `body` (world axes, about [`Self::origin`]).
    pub fn velocity(&self, body: usize) -> Result<SpatialMotion, Error> {
        self.data.velocities.get(body).copied().ok_or(self.out_of_range(body))
    }

    /// Linear velocity (m/s, world) of the point of `body` currently at world position `point`.
    pub fn point_velocity(&self, body: usize, point: &Vector3<f64>) -> Result<Vector3<f64>, Error> {
        Ok(self.velocity(body)?.velocity_at(&(point - self.data.origin)))
    }

    /// Spatial accelerations â_i of all bodies for joint accelerations `vdot` (no gravity term):
    /// `â_i = â_λ(i) + S_i q̈_i + ĉ_i`.
    pub fn body_accelerations(&self, vdot: &DVector<f64>) -> Result<Vec<SpatialMotion>, Error> {
        check_len("vdot", self.tree.nv(), vdot.len())?;
        Ok(self.accelerations_from(SpatialMotion::zero(), Some(vdot)))
    }

    /// Linear acceleration (m/s², world) of the point of `body` at world position `point`, from
    /// accelerations returned by [`Kinematics::body_accelerations`]:
    /// `p̈ = a_O + ω̇ × P + ω × ṗ` (RBDA ch. 2: classical from spatial acceleration).
    pub fn point_acceleration(
        &self,
        accelerations: &[SpatialMotion],
        body: usize,
        point: &Vector3<f64>,
    ) -> Result<Vector3<f64>, Error> {
        let a = accelerations.get(body).ok_or(self.out_of_range(body))?;
        let v = self.velocity(body)?;
        let relative = point - self.data.origin;
        Ok(a.velocity_at(&relative) + v.angular.cross(&v.velocity_at(&relative)))
    }

    /// `â_i` with `â_0 = root` and joint accelerations `vdot` (zero when `None`). Lengths are
    /// checked by the callers.
    pub(crate) fn accelerations_from(&self, root: SpatialMotion, vdot: Option<&DVector<f64>>) -> Vec<SpatialMotion> {
        let mut accelerations: Vec<SpatialMotion> = Vec::with_capacity(self.tree.len());
        self.accelerations_into(root, vdot, &mut accelerations);
        accelerations
    }

    /// [`Self::accelerations_from`] into `accelerations` (its storage reused).
    pub(crate) fn accelerations_into(
        &self,
        root: SpatialMotion,
        vdot: Option<&DVector<f64>>,
        accelerations: &mut Vec<SpatialMotion>,
    ) {
        accelerations.clear();
        for (index, body) in self.tree.bodies().iter().enumerate() {
            let mut a = body.parent.and_then(|p| accelerations.get(p)).copied().unwrap_or(root);
            a += self.data.velocity_products.get(index).copied().unwrap_or_default();
            if let Some(vdot) = vdot {
                for dof in self.tree.v_range(index) {
                    if let (Some(s), Some(qdd)) = (self.data.dof_motions.get(dof), vdot.get(dof)) {
                        a += *s * *qdd;
                    }
                }
            }
            accelerations.push(a);
        }
    }

    /// Total kinetic energy `½ Σ v̂_iᵀ Î_i v̂_i = ½ vᵀ M v` (J), armature excluded.
    pub fn kinetic_energy(&self) -> f64 {
        self.data
            .velocities
            .iter()
            .zip(&self.data.inertias)
            .map(|(v, inertia)| 0.5 * v.dot(&inertia.apply(v)))
            .sum()
    }

    /// Gravitational potential energy `−Σ m_i g·c_i` (J), zero at the world origin.
    pub fn potential_energy(&self, gravity: &Vector3<f64>) -> f64 {
        // c_i = r + (c_i − r); the inertias hold m_i (c_i − r).
        let (mass, first_moment) = self
            .data
            .inertias
            .iter()
            .fold((0.0, Vector3::zeros()), |(m, h), i| (m + i.mass, h + i.first_moment));
        -gravity.dot(&first_moment) - mass * gravity.dot(&self.data.origin)
    }

    /// Total spatial momentum `Σ Î_i v̂_i`: angular momentum about the world origin (`moment`,
    /// kg·m²/s) and linear momentum (`force`, kg·m/s).
    pub fn momentum(&self) -> SpatialForce {
        let about_r = self
            .data
            .velocities
            .iter()
            .zip(&self.data.inertias)
            .fold(SpatialForce::zero(), |acc, (v, inertia)| acc + inertia.apply(v));
        // Moment about the world origin: n_O = n_r + r × p.
        SpatialForce::new(about_r.moment + self.data.origin.cross(&about_r.force), about_r.force)
    }

    /// Total mass (kg) and centre of mass (world), `None` for a massless tree.
    pub fn center_of_mass(&self) -> Option<(f64, Vector3<f64>)> {
        let total = self
            .data
            .inertias
            .iter()
            .fold(SpatialInertia::zero(), |acc, i| acc + *i);
        total.center_of_mass().map(|c| (total.mass, c + self.data.origin))
    }

    fn out_of_range(&self, index: usize) -> Error {
        Error::BodyOutOfRange {
            index,
            count: self.tree.len(),
        }
    }
}

/// Writes the world motion axes of one joint into `axes` and returns the joint's spatial velocity
/// `S q̇` and, for a free joint, its velocity-product term (others use `v̂_i × S q̇`).
fn joint_motion(
    joint: &Joint,
    joint_frame: &Isometry3<f64>,
    pose: &Isometry3<f64>,
    reference: &Vector3<f64>,
    v: &[f64],
    axes: &mut [SpatialMotion],
) -> (SpatialMotion, Option<SpatialMotion>) {
    let origin = joint_frame.translation.vector - reference;
    match (joint, axes) {
        (Joint::Revolute { axis }, [s]) => {
            let u = joint_frame.rotation * axis;
            *s = SpatialMotion::new(u, origin.cross(&u));
            (*s * v.first().copied().unwrap_or(0.0), None)
        }
        (Joint::Prismatic { axis }, [s]) => {
            *s = SpatialMotion::new(Vector3::zeros(), joint_frame.rotation * axis);
            (*s * v.first().copied().unwrap_or(0.0), None)
        }
        (Joint::Free, [sx, sy, sz, rx, ry, rz]) => {
            let p = pose.translation.vector - reference;
            let frame = joint_frame.rotation.to_rotation_matrix();
            let [e0, e1, e2] = [frame * Vector3::x(), frame * Vector3::y(), frame * Vector3::z()];
            (*sx, *sy, *sz) = (
                SpatialMotion::new(Vector3::zeros(), e0),
                SpatialMotion::new(Vector3::zeros(), e1),
                SpatialMotion::new(Vector3::zeros(), e2),
            );
            (*rx, *ry, *rz) = (
                SpatialMotion::new(e0, p.cross(&e0)),
                SpatialMotion::new(e1, p.cross(&e1)),
                SpatialMotion::new(e2, p.cross(&e2)),
            );
            let local = |k: usize| v.get(k).copied().unwrap_or(0.0);
            let p_dot = frame * Vector3::new(local(0), local(1), local(2));
            let omega = frame * Vector3::new(local(3), local(4), local(5));
            // v̂ = [ω; ṗ + p × ω]; d/dt at fixed S-coefficients leaves [0; ṗ × ω].
            (
                SpatialMotion::new(omega, p_dot + p.cross(&omega)),
                Some(SpatialMotion::new(Vector3::zeros(), p_dot.cross(&omega))),
            )
        }
        _ => (SpatialMotion::zero(), Some(SpatialMotion::zero())),
    }
}

fn tree_body_of_q(tree: &Tree, q_index: usize) -> Option<usize> {
    (0..tree.len()).find(|&b| tree.q_range(b).contains(&q_index))
}

fn check_finite(
    tree: &Tree,
    what: &'static str,
    values: &DVector<f64>,
    body_of: impl Fn(usize) -> Option<usize>,
) -> Result<(), Error> {
    match values.as_slice().iter().position(|x| !x.is_finite()) {
        None => Ok(()),
        Some(index) => Err(Error::NonFinite {
            what,
            index,
            body: body_of(index).map(|b| tree.body_name(b)).unwrap_or_default(),
            value: values.get(index).copied().unwrap_or(f64::NAN),
        }),
    }
}

fn check_quaternion(tree: &Tree, body: usize, q: &[f64]) -> Result<(), Error> {
    let norm = q
        .get(3..7)
        .map(|c| c.iter().map(|x| x * x).sum::<f64>().sqrt())
        .unwrap_or(0.0);
    if norm.is_finite() && norm > 1e-9 {
        Ok(())
    } else {
        Err(Error::InvalidQuaternion {
            body: tree.body_name(body),
            index: tree.q_range(body).start + 3,
            norm,
        })
    }
}
