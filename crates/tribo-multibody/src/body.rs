//! One body of a tree as the caller describes it: joint, placement, link inertia and joint data
//! (damping, armature, limits). [`crate::Tree::new`] validates it (validate.rs).

use crate::joint::Joint;
use nalgebra::{Isometry3, Matrix3, Vector3};

/// Mass properties of one link, in the link (body) frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkInertia {
    /// m (kg), ≥ 0.
    pub mass: f64,
    /// c: centre of mass in the link frame (m).
    pub com: Vector3<f64>,
    /// I_c: rotational inertia about the centre of mass, link axes (kg·m²), symmetric positive
    /// semi-definite.
    pub inertia: Matrix3<f64>,
}

impl LinkInertia {
    pub fn new(mass: f64, com: Vector3<f64>, inertia: Matrix3<f64>) -> Self {
        Self { mass, com, inertia }
    }

    /// A point mass at `com` (no rotational inertia about its centre).
    pub fn point_mass(mass: f64, com: Vector3<f64>) -> Self {
        Self::new(mass, com, Matrix3::zeros())
    }

    /// A solid box with edge lengths `size` (m) along the link axes, centred at `com`:
    /// `I_xx = m (y² + z²) / 12`, and cyclically.
    pub fn solid_box(mass: f64, com: Vector3<f64>, size: Vector3<f64>) -> Self {
        let (x2, y2, z2) = (size.x * size.x, size.y * size.y, size.z * size.z);
        let d = Vector3::new(y2 + z2, x2 + z2, x2 + y2) * (mass / 12.0);
        Self::new(mass, com, Matrix3::from_diagonal(&d))
    }

    /// A solid cylinder of `radius` and `length` along the link z axis, centred at `com`:
    /// `I_zz = m r² / 2`, `I_xx = I_yy = m (3 r² + l²) / 12`.
    pub fn solid_cylinder(mass: f64, com: Vector3<f64>, radius: f64, length: f64) -> Self {
        let side = mass * (3.0 * radius * radius + length * length) / 12.0;
        let axial = mass * radius * radius / 2.0;
        Self::new(mass, com, Matrix3::from_diagonal(&Vector3::new(side, side, axial)))
    }
}

/// Joint position limits (rad or m); either bound may be infinite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PositionLimits {
    pub lower: f64,
    pub upper: f64,
}

/// One body of the tree, as given by the caller. [`crate::Tree::new`] validates it.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    /// Unique name, used in error messages and [`crate::Tree::body_index`].
    pub name: String,
    /// Index of the parent body (an earlier entry of the list), `None` when attached to the world.
    pub parent: Option<usize>,
    pub joint: Joint,
    /// Parent body frame (the world frame for a root) → joint frame. The body frame coincides with
    /// the joint frame at zero joint coordinates.
    pub placement: Isometry3<f64>,
    pub inertia: LinkInertia,
    /// Viscous joint damping d ≥ 0 (N·m·s/rad or N·s/m): the joint feels `−d·q̇`, applied implicitly
    /// by the step. Only for revolute and prismatic joints.
    pub damping: f64,
    /// Armature (rotor inertia reflected through the gear, kg·m² or kg) ≥ 0, added to the mass-matrix
    /// diagonal. Only for revolute and prismatic joints.
    pub armature: f64,
    /// Position limits, `None` when unlimited. Only for revolute and prismatic joints.
    pub position_limits: Option<PositionLimits>,
    /// Symmetric effort limit (N·m or N) ≥ 0 on the actuator torque, `None` when unlimited. Only for
    /// revolute and prismatic joints.
    pub effort_limit: Option<f64>,
}

impl Body {
    /// A body without damping, armature or limits.
    pub fn new(
        name: impl Into<String>,
        parent: Option<usize>,
        joint: Joint,
        placement: Isometry3<f64>,
        inertia: LinkInertia,
    ) -> Self {
        Self {
            name: name.into(),
            parent,
            joint,
            placement,
            inertia,
            damping: 0.0,
            armature: 0.0,
            position_limits: None,
            effort_limit: None,
        }
    }

    pub fn with_damping(mut self, damping: f64) -> Self {
        self.damping = damping;
        self
    }

    pub fn with_armature(mut self, armature: f64) -> Self {
        self.armature = armature;
        self
    }

    pub fn with_position_limits(mut self, lower: f64, upper: f64) -> Self {
        self.position_limits = Some(PositionLimits { lower, upper });
        self
    }

    pub fn with_effort_limit(mut self, limit: f64) -> Self {
        self.effort_limit = Some(limit);
        self
    }
}
