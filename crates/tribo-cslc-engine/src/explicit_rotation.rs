//! When a patch may reach the host as one compliant point instead of four
//! (`docs/design/lattice-model.md` §5, *Host points*).
//!
//! With one point at the patch's centre of pressure `p`, the host's implicit solve carries the
//! patch's translation only. A rotation `θ` of the touched link against the pad is then resisted by
//! the lattice alone, through the residual torque `τ ≈ −k_rot θ` that `coupling.rs` evaluates at
//! the start of each step: the host integrates the mode `θ̈ = −ω² θ`, `ω² = k_rot (1/I_pad +
//! 1/I_touched)`, by symplectic Euler. Its step matrix `[[1, h], [−ω²h, 1 − ω²h²]]` has
//! eigenvalues `e^{±iω̃h}` with `2 sin(ω̃h/2) = ωh`: stable for `ωh < 2`, with the frequency
//! error `ω̃/ω − 1 ≈ (ωh)²/24`. The mode is damped through the same residual torque, by the
//! patch's dashpot spread over its spheres (`coupling.rs`, `tilt_dashpot_of`), explicitly and at
//! a rate kept within `1/h`. One point is used when `ωh ≤ EXPLICIT_ROTATION_LIMIT`
//! (0.2: an error of at most 0.17 %); otherwise the four quadrant points, whose normal and
//! tangential stiffnesses give the host the patch's rotational stiffness implicitly.
//!
//! Both factors are bounded from above, so that the test errs towards the four points:
//! - `k_rot ≤ Σ_i ((1 + ρ) K_a,i + 2 L_i) |q_i − p|²` over the touching spheres: each sphere's
//!   normal and tangential anchor springs (§3.1, §3.4) and its lateral springs to fixed neighbours
//!   (`L_i = Σ_j K_ℓ`, §3.2), without the Hertz springs in series (which only soften it), at its
//!   lever arm about `p` in any direction (tilt and torsion alike);
//! - `1/I ≤ 1/λ_min(I_link)` for a link that can turn: its own inertia about its centre of mass.
//!   Joints and other links only add to what a pure torque on the link meets: the
//!   operational-space inertia `Λ⁻¹ = J H⁻¹ Jᵀ` of a link (Featherstone, *Rigid Body Dynamics
//!   Algorithms*, 2008, §11.3) shrinks as masses are added to H and as joints constrain the
//!   link, and a free link alone has `Λ⁻¹ = I_link⁻¹`. A link that cannot turn has `1/I = 0`:
//!   its body's root is fixed (welded or kinematically driven) and only prismatic or fixed
//!   joints lie between the root and the link.

use tribo_engine::{LinkRef, Scene, SceneBody};
use tribo_model::JointKind;

/// Largest `ω h` of the patch's explicit rotational mode for which one host point is used.
pub const EXPLICIT_ROTATION_LIMIT: f64 = 0.2;

/// Upper bounds of `1/I` (1/(kg·m²)) of every link of a scene (module docs).
pub struct TurnBounds {
    per_body: Vec<Vec<f64>>,
}

impl TurnBounds {
    pub fn new(scene: &Scene) -> TurnBounds {
        TurnBounds {
            per_body: scene
                .bodies
                .iter()
                .map(|body| {
                    (0..body.model.links.len())
                        .map(|l| inverse_inertia_bound(body, l))
                        .collect()
                })
                .collect(),
        }
    }

    /// The bound of `link`; infinite for a link the scene does not have (never one point).
    pub fn of(&self, link: LinkRef) -> f64 {
        self.per_body
            .get(link.body)
            .and_then(|links| links.get(link.link))
            .copied()
            .unwrap_or(f64::INFINITY)
    }
}

/// `1/λ_min(I_link)` if the link can turn, 0 if it cannot; infinite for a link without positive
/// finite inertia that can turn.
fn inverse_inertia_bound(body: &SceneBody, link: usize) -> f64 {
    if !can_turn(body, link) {
        return 0.0;
    }
    let Some(l) = body.model.links.get(link) else {
        return f64::INFINITY;
    };
    let least = l.inertia.symmetric_eigenvalues().min();
    if least > 0.0 && least.is_finite() {
        1.0 / least
    } else {
        f64::INFINITY
    }
}

/// Whether `link` of `body` can rotate: a revolute joint between it and the root, or a root
/// that is neither welded nor driven.
fn can_turn(body: &SceneBody, link: usize) -> bool {
    let links = &body.model.links;
    let mut at = Some(link);
    // A tree has at most `links.len()` links from any link to the root.
    for _ in 0..=links.len() {
        let Some(current) = at.and_then(|i| links.get(i)) else {
            return false;
        };
        match current.joint.kind {
            JointKind::Revolute => return true,
            JointKind::Free if current.parent.is_none() => return !body.fixed_root,
            JointKind::Free => return true,
            JointKind::Prismatic | JointKind::Fixed => {}
        }
        if current.parent.is_none() {
            return !body.fixed_root && current.joint.kind != JointKind::Fixed;
        }
        at = current.parent;
    }
    // A parent cycle (not a tree): assume it turns.
    true
}

/// Whether a patch of rotational stiffness bound `stiffness` (N·m/rad) between links of inverse
/// inertia bounds summing to `inverse_inertia` may act explicitly at the step `dt` (module docs).
/// False when either is not finite.
pub fn one_point_suffices(stiffness: f64, inverse_inertia: f64, dt: f64) -> bool {
    let omega_h = (stiffness * inverse_inertia).sqrt() * dt;
    omega_h <= EXPLICIT_ROTATION_LIMIT
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bound of the module docs at its limit: a 2 cm cube of 0.1 kg (I = m s²/6 =
    /// 6.67e-6 kg m²) on an immovable pad, k_rot = 2.67 N·m/rad (a 2 × 2 cm face on a skin of
    /// 2e8 N/m³: k_a s⁴/12): ω = 632 rad/s, so ωh = 0.63 at 1 ms (four points) and 0.19 at 0.3 ms
    /// (one point).
    #[test]
    fn the_explicit_mode_decides_by_omega_h() {
        let inverse_inertia = 1.0 / (0.1 * 0.02 * 0.02 / 6.0);
        let stiffness = 2.0e8 * 0.02_f64.powi(4) / 12.0;
        assert!(!one_point_suffices(stiffness, inverse_inertia, 1e-3));
        assert!(one_point_suffices(stiffness, inverse_inertia, 0.3e-3));
        // At the limit exactly: ωh = 0.2.
        let dt = EXPLICIT_ROTATION_LIMIT / (stiffness * inverse_inertia).sqrt();
        assert!(one_point_suffices(stiffness, inverse_inertia, dt * (1.0 - 1e-12)));
        assert!(!one_point_suffices(stiffness, inverse_inertia, dt * (1.0 + 1e-9)));
        // Nothing can turn: one point whatever the stiffness; an unknown inertia never.
        assert!(one_point_suffices(1e12, 0.0, 1e-3));
        assert!(!one_point_suffices(0.0, f64::INFINITY, 1e-3));
        assert!(!one_point_suffices(f64::NAN, 1.0, 1e-3));
    }

    /// A box above the ground (free root): the box turns with 1/λ_min of its own inertia; the
    /// ground (fixed root) does not; a link the scene does not have is unbounded.
    #[test]
    fn free_links_turn_and_welded_ones_do_not() {
        let scene = tribo_testkit::box_above_ground(0.0, 0.5);
        let bounds = TurnBounds::new(&scene);
        let (ground, cube) = (0, 1);
        let inertia = scene.bodies[cube].model.links[0].inertia;
        let least = inertia.symmetric_eigenvalues().min();
        assert!(least > 0.0);
        assert_eq!(bounds.of(LinkRef { body: cube, link: 0 }), 1.0 / least);
        assert_eq!(bounds.of(LinkRef { body: ground, link: 0 }), 0.0);
        assert_eq!(bounds.of(LinkRef { body: 9, link: 0 }), f64::INFINITY);
    }
}
