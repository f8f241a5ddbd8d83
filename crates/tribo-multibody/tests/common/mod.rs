//! Shared helpers of the integration tests: small trees and seeded random states.
#![allow(dead_code)]

use nalgebra::{DVector, Isometry3, Matrix3, UnitQuaternion, Vector3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tribo_multibody::{Body, Joint, LinkInertia, State, Tree};

pub const G: f64 = 9.81;

pub fn gravity() -> Vector3<f64> {
    Vector3::new(0.0, 0.0, -G)
}

pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A rotation about the y axis, through the world origin.
pub fn hinge_y() -> Joint {
    Joint::Revolute { axis: Vector3::y() }
}

/// A point mass `mass` on a massless rod of length `length`, hanging from a y-axis hinge at the
/// origin.
pub fn simple_pendulum(length: f64, mass: f64) -> Tree {
    Tree::new(vec![Body::new(
        "bob",
        None,
        hinge_y(),
        Isometry3::identity(),
        LinkInertia::point_mass(mass, Vector3::new(0.0, 0.0, -length)),
    )])
    .expect("valid pendulum")
}

/// Planar double pendulum about y: link 1 (mass m1, CoM at c1 below the hinge, inertia i1 about
/// its CoM), link 2 hinged at l1 below hinge 1 (m2, c2, i2).
pub struct DoublePendulum {
    pub m1: f64,
    pub c1: f64,
    pub i1: f64,
    pub l1: f64,
    pub m2: f64,
    pub c2: f64,
    pub i2: f64,
}

impl DoublePendulum {
    pub fn standard() -> Self {
        Self {
            m1: 1.2,
            c1: 0.3,
            i1: 0.02,
            l1: 0.6,
            m2: 0.8,
            c2: 0.25,
            i2: 0.01,
        }
    }

    pub fn tree(&self) -> Tree {
        let inertia = |m: f64, c: f64, i: f64| {
            LinkInertia::new(
                m,
                Vector3::new(0.0, 0.0, -c),
                Matrix3::from_diagonal(&Vector3::new(i, i, 0.5 * i)),
            )
        };
        Tree::new(vec![
            Body::new(
                "upper",
                None,
                hinge_y(),
                Isometry3::identity(),
                inertia(self.m1, self.c1, self.i1),
            ),
            Body::new(
                "lower",
                Some(0),
                hinge_y(),
                Isometry3::translation(0.0, 0.0, -self.l1),
                inertia(self.m2, self.c2, self.i2),
            ),
        ])
        .expect("valid double pendulum")
    }

    /// Lagrangian closed form `τ = M(θ) θ̈ + c(θ, θ̇) + g(θ)` with θ₂ relative to link 1
    /// (the two-link planar arm, e.g. Spong, Hutchinson & Vidyasagar, *Robot Modeling and Control*,
    /// §7.4 (planar elbow manipulator), with angles from the downward vertical).
    pub fn inverse_dynamics(&self, theta: [f64; 2], rate: [f64; 2], accel: [f64; 2], g: f64) -> [f64; 2] {
        let Self {
            m1,
            c1,
            i1,
            l1,
            m2,
            c2,
            i2,
        } = *self;
        let (s2, cos2) = theta[1].sin_cos();
        let m11 = i1 + i2 + m1 * c1 * c1 + m2 * (l1 * l1 + c2 * c2 + 2.0 * l1 * c2 * cos2);
        let m12 = i2 + m2 * (c2 * c2 + l1 * c2 * cos2);
        let m22 = i2 + m2 * c2 * c2;
        let h = m2 * l1 * c2 * s2;
        let coriolis = [
            -h * (2.0 * rate[0] * rate[1] + rate[1] * rate[1]),
            h * rate[0] * rate[0],
        ];
        let s1 = theta[0].sin();
        let s12 = (theta[0] + theta[1]).sin();
        let gravity = [m1 * g * c1 * s1 + m2 * g * (l1 * s1 + c2 * s12), m2 * g * c2 * s12];
        [
            m11 * accel[0] + m12 * accel[1] + coriolis[0] + gravity[0],
            m12 * accel[0] + m22 * accel[1] + coriolis[1] + gravity[1],
        ]
    }
}

/// Random positions (revolute/prismatic in [−1, 1], free joints: position in [−1, 1]³ and a
/// uniformly random orientation) and velocities in [−1, 1].
pub fn random_state(tree: &Tree, rng: &mut ChaCha8Rng) -> State {
    let mut state = State::neutral(tree);
    for (index, body) in tree.bodies().iter().enumerate() {
        let range = tree.q_range(index);
        match body.joint {
            Joint::Free => {
                let q = random_rotation(rng);
                let values = [
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                    q.w,
                    q.i,
                    q.j,
                    q.k,
                ];
                for (slot, value) in state.q.as_mut_slice()[range].iter_mut().zip(values) {
                    *slot = value;
                }
            }
            _ => {
                for slot in &mut state.q.as_mut_slice()[range] {
                    *slot = rng.random_range(-1.0..1.0);
                }
            }
        }
    }
    state.v = DVector::from_fn(tree.nv(), |_, _| rng.random_range(-1.0..1.0));
    state
}

pub fn random_rotation(rng: &mut ChaCha8Rng) -> UnitQuaternion<f64> {
    let axis = Vector3::new(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    );
    UnitQuaternion::from_scaled_axis(axis * 1.5)
}

pub fn random_vector(n: usize, rng: &mut ChaCha8Rng) -> DVector<f64> {
    DVector::from_fn(n, |_, _| rng.random_range(-1.0..1.0))
}

/// A chain mixing prismatic and revolute joints with tilted placements and offset centres of mass.
pub fn mixed_chain() -> Tree {
    let tilt = |x: f64, y: f64, z: f64, r: Vector3<f64>| Isometry3::new(Vector3::new(x, y, z), r);
    let link = |m: f64, c: Vector3<f64>| LinkInertia::solid_box(m, c, Vector3::new(0.1, 0.2, 0.3));
    Tree::new(vec![
        Body::new(
            "slide",
            None,
            Joint::Prismatic {
                axis: Vector3::new(1.0, 0.5, 0.2),
            },
            tilt(0.1, 0.0, 0.5, Vector3::new(0.2, 0.0, 0.1)),
            link(2.0, Vector3::new(0.05, 0.0, 0.0)),
        ),
        Body::new(
            "hinge",
            Some(0),
            Joint::Revolute {
                axis: Vector3::new(0.0, 1.0, 0.3),
            },
            tilt(0.0, 0.2, 0.1, Vector3::new(0.0, 0.3, 0.0)),
            link(1.5, Vector3::new(0.0, 0.1, -0.2)),
        ),
        Body::new(
            "slide2",
            Some(1),
            Joint::Prismatic { axis: Vector3::z() },
            tilt(0.3, 0.0, -0.2, Vector3::new(0.1, -0.2, 0.4)),
            link(1.0, Vector3::new(0.1, 0.1, 0.1)),
        ),
        Body::new(
            "tip",
            Some(2),
            Joint::Fixed,
            tilt(0.0, 0.0, 0.2, Vector3::new(0.5, 0.0, 0.0)),
            link(0.5, Vector3::new(0.0, 0.0, 0.05)),
        ),
        Body::new(
            "twist",
            Some(3),
            Joint::Revolute { axis: Vector3::x() },
            tilt(0.1, 0.1, 0.0, Vector3::zeros()),
            link(0.7, Vector3::new(0.2, 0.0, 0.0)),
        ),
        Body::new(
            "branch",
            Some(1),
            Joint::Revolute { axis: Vector3::z() },
            tilt(-0.2, 0.0, 0.0, Vector3::new(0.0, 0.0, 0.7)),
            link(0.9, Vector3::new(-0.1, 0.0, 0.0)),
        ),
    ])
    .expect("valid mixed chain")
}
