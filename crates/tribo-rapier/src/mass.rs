//! Mass properties of links welded together (Fixed joints merged into one rigid body).
//!
//! Notation: m mass (kg), c centre of mass (m), I inertia about the centre of mass (kg·m²), all
//! in one common frame F. A link whose frame has pose (R, p) in F contributes
//! c = R c_link + p and I = R I_link Rᵀ. The welded body has
//! M = Σ mᵢ, C = Σ mᵢ cᵢ / M and, by the parallel-axis (Huygens–Steiner) theorem
//! (Featherstone, *Rigid Body Dynamics Algorithms*, 2008, §2.13),
//! I_C = Σ [ Iᵢ + mᵢ (|dᵢ|² E₃ − dᵢ dᵢᵀ) ],  dᵢ = cᵢ − C.

use nalgebra::{Isometry3, Matrix3, Vector3};

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MassBlock {
    /// kg.
    pub mass: f64,
    /// Centre of mass, m.
    pub com: Vector3<f64>,
    /// Inertia about `com`, kg·m².
    pub inertia: Matrix3<f64>,
}

impl MassBlock {
    pub fn zero() -> Self {
        MassBlock {
            mass: 0.0,
            com: Vector3::zeros(),
            inertia: Matrix3::zeros(),
        }
    }

    /// A link's mass properties (given in its own frame) expressed in a frame where the link
    /// frame has pose `link_in_frame`.
    pub fn moved(mass: f64, com: &Vector3<f64>, inertia: &Matrix3<f64>, link_in_frame: &Isometry3<f64>) -> Self {
        let r = link_in_frame.rotation.to_rotation_matrix();
        MassBlock {
            mass,
            com: link_in_frame.transform_point(&(*com).into()).coords,
            inertia: r.matrix() * inertia * r.matrix().transpose(),
        }
    }

    /// The welded body of `self` and `other` (same frame).
    pub fn welded(&self, other: &MassBlock) -> MassBlock {
        let mass = self.mass + other.mass;
        if mass <= 0.0 {
            // Two massless parts: keep their (massless) inertia, centred between frames.
            return MassBlock {
                mass: 0.0,
                com: self.com,
                inertia: self.inertia + other.inertia,
            };
        }
        let com = (self.com * self.mass + other.com * other.mass) / mass;
        let steiner = |m: f64, d: Vector3<f64>| (Matrix3::identity() * d.norm_squared() - d * d.transpose()) * m;
        let inertia =
            self.inertia + steiner(self.mass, self.com - com) + other.inertia + steiner(other.mass, other.com - com);
        MassBlock { mass, com, inertia }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Translation3;

    /// Solid box about its centre (textbook: I_xx = m (b² + c²) / 12 …).
    fn box_inertia(m: f64, a: f64, b: f64, c: f64) -> Matrix3<f64> {
        Matrix3::from_diagonal(&Vector3::new(b * b + c * c, a * a + c * c, a * a + b * b)) * (m / 12.0)
    }

    #[test]
    fn two_half_boxes_weld_into_the_whole_box() {
        // A 2×1×1 box of 2 kg is two 1×1×1 boxes of 1 kg at x = ±0.5.
        let half = box_inertia(1.0, 1.0, 1.0, 1.0);
        let left = MassBlock::moved(1.0, &Vector3::zeros(), &half, &Translation3::new(-0.5, 0.0, 0.0).into());
        let right = MassBlock::moved(1.0, &Vector3::zeros(), &half, &Translation3::new(0.5, 0.0, 0.0).into());
        let whole = left.welded(&right);
        assert_eq!(whole.mass, 2.0);
        assert!(whole.com.norm() < 1e-15);
        assert!((whole.inertia - box_inertia(2.0, 2.0, 1.0, 1.0)).norm() < 1e-14);
    }

    #[test]
    fn rotation_turns_the_inertia_tensor() {
        // A rod along x (I = diag(0, 1, 1)) turned 90° about z lies along y: diag(1, 0, 1).
        let rod = Matrix3::from_diagonal(&Vector3::new(0.0, 1.0, 1.0));
        let turned = Isometry3::rotation(Vector3::z() * std::f64::consts::FRAC_PI_2);
        let block = MassBlock::moved(3.0, &Vector3::new(1.0, 0.0, 0.0), &rod, &turned);
        assert!((block.inertia - Matrix3::from_diagonal(&Vector3::new(1.0, 0.0, 1.0))).norm() < 1e-14);
        assert!((block.com - Vector3::new(0.0, 1.0, 0.0)).norm() < 1e-15);
    }

    #[test]
    fn a_massless_part_changes_nothing() {
        let body = MassBlock {
            mass: 2.0,
            com: Vector3::new(0.1, 0.2, 0.3),
            inertia: Matrix3::identity(),
        };
        assert_eq!(body.welded(&MassBlock::zero()), body);
    }
}
