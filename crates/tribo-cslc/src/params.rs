//! Stiffness and solver parameters of a CSLC pad (design: `docs/design/lattice-model.md` §3–4).
//!
//! Units are chosen so that results do not depend on the lattice resolution:
//! stiffnesses are given *per unit area* of pad surface and every sphere receives
//! its share through its area element `a_i`.

/// How the lattice's equilibrium is solved: the paper's Jacobi sweeps and their accelerations
/// (`docs/design/lattice-model.md` §4, "improve the conditioning").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acceleration {
    /// Damped Jacobi: `δ ← δ + ω (δ̂ − δ)` with `ω = relaxation`.
    DampedJacobi,
    /// Chebyshev semi-iteration on top of the undamped Jacobi sweep
    /// (Golub & Van Loan, *Matrix Computations*, 4th ed., §11.2.8; Varga, *Matrix Iterative
    /// Analysis*, §5.1). It has the same fixed point as plain Jacobi.
    Chebyshev,
    /// Red-black (multi-colour) nonlinear Gauss–Seidel with successive over-relaxation on the
    /// spheres out of contact (Young's optimal `ω = 2 / (1 + √(1 − ρ_J²))` from the Jacobi radius
    /// bound; Saad, *Iterative Methods for Sparse Linear Systems*, §4.2.3): spheres of one colour
    /// have no neighbour of the same colour, so each colour's updates are order-free and
    /// thread-count independent. Same fixed point as Jacobi.
    RedBlackSor,
    /// The equilibrium condensed onto the touching spheres: nonlinear block Gauss–Seidel over
    /// their forces with the pad's compliance `G = K⁻¹` (static condensation;
    /// `docs/design/lattice-model.md` §4, "Condensed solve"), the field of the spheres out of
    /// contact formed from the touching ones' forces once they balance. Formed for flat pads
    /// (every sphere's stiffness diagonal in the pad frame) of up to 4096 spheres; other pads
    /// sweep red-black. Same fixed point as Jacobi.
    Condensed,
    /// [`Acceleration::Condensed`] in the steps where it is expected to cost less than red-black
    /// sweeps (few spheres touching, costed with the sweeps the pad's last solve of each kind
    /// made: `docs/design/lattice-model.md` §4, "Condensed solve"), red-black SOR in the others.
    /// The default.
    Adaptive,
}

/// Parameters of the CSLC model (SI units).
#[derive(Debug, Clone, PartialEq)]
pub struct CslcParams {
    /// Anchor stiffness per unit area `k_a`, N/m³. Sphere `i` is held to its rest position by a
    /// spring `K_a,i = k_a · a_i`, N/m (normal direction; tangential `ρ K_a,i`).
    pub anchor_stiffness: f64,
    /// Tangential-to-normal anchor ratio `ρ`, dimensionless (`docs/design/lattice-model.md` §3.1).
    pub tangential_ratio: f64,
    /// Characteristic decay length `ℓ`, m, of the lateral coupling (`docs/design/lattice-model.md` §3.2).
    ///
    /// The paper writes `ℓ = h √(k_ℓ/k_a)`. Holding the *physical* `ℓ` fixed when the lattice is
    /// refined makes the patch width resolution-consistent. The discrete equation of sphere `i`,
    /// `K_a,i δ_i + Σ_j K_ℓ (δ_i − δ_j) = F_i`, with `Σ_j (δ_i − δ_j) ≈ −h² ∇²δ` and divided by
    /// `a_i = h²`, is the screened Poisson equation `k_a δ − K_ℓ ∇²δ = p`, i.e.
    /// `k_a (δ − ℓ² ∇²δ) = p` when `K_ℓ = k_a ℓ²`, N/m per neighbour link — a membrane tension,
    /// independent of `h`.
    /// Equivalently the per-area ratio is `k_ℓ/k_a = (ℓ/h)²` and `K_ℓ = k_ℓ · a_i`.
    pub lateral_length: f64,
    /// Contact stiffness `k_c`, N/m^3.5, of the Hertz-type law `f = k_c A s φ^{3/2}`
    /// (pressure per penetration^{3/2}: Pa / m^{1.5}).
    pub contact_stiffness: f64,
    /// Relaxation factor `ω ∈ (0, 1]` of the damped Jacobi sweep.
    pub relaxation: f64,
    /// Acceleration of the sweep.
    pub acceleration: Acceleration,
    /// Relative force-residual tolerance: stop when `Σ_i |r_i| ≤ tolerance · load`.
    pub tolerance: f64,
    /// Iteration cap per step.
    pub max_iterations: usize,
    /// Fast-impact threshold: a sphere whose penetration grows by more than
    /// `impact_fraction · r_i` within one step (before the solve) cannot be brought to a
    /// physically meaningful quasi-static equilibrium; the step is flagged.
    pub impact_fraction: f64,
}

impl Default for CslcParams {
    fn default() -> Self {
        CslcParams {
            anchor_stiffness: 1.0e9,
            tangential_ratio: 0.5,
            lateral_length: 2.0e-3,
            contact_stiffness: 1.0e12,
            relaxation: 0.8,
            acceleration: Acceleration::Adaptive,
            tolerance: 1.0e-6,
            max_iterations: 500,
            impact_fraction: 0.5,
        }
    }
}

impl CslcParams {
    /// Parameters with the lateral length set from the paper's ratio `k_ℓ/k_a` at spacing `h`:
    /// `ℓ = h √(k_ℓ/k_a)`.
    pub fn with_lateral_ratio(mut self, ratio: f64, spacing: f64) -> Self {
        self.lateral_length = spacing * ratio.max(0.0).sqrt();
        self
    }

    /// The paper's ratio `k_ℓ/k_a = (ℓ/h)²` at lattice spacing `h`.
    pub fn lateral_ratio(&self, spacing: f64) -> f64 {
        (self.lateral_length / spacing).powi(2)
    }

    /// Lateral spring per neighbour link `K_ℓ = k_a ℓ²`, N/m.
    pub fn lateral_spring(&self) -> f64 {
        self.anchor_stiffness * self.lateral_length * self.lateral_length
    }

    /// Checks every parameter is finite and in range; the message names the parameter.
    pub fn validate(&self) -> Result<(), String> {
        let positive = [
            ("anchor_stiffness", self.anchor_stiffness),
            ("contact_stiffness", self.contact_stiffness),
            ("tangential_ratio", self.tangential_ratio),
            ("tolerance", self.tolerance),
            ("impact_fraction", self.impact_fraction),
        ];
        for (name, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(format!(
                    "cslc parameter `{name}` must be a finite number > 0, got {value}"
                ));
            }
        }
        if !(self.lateral_length.is_finite() && self.lateral_length >= 0.0) {
            return Err(format!(
                "cslc parameter `lateral_length` must be a finite number >= 0, got {}",
                self.lateral_length
            ));
        }
        if !(self.relaxation.is_finite() && self.relaxation > 0.0 && self.relaxation <= 1.0) {
            return Err(format!(
                "cslc parameter `relaxation` must be in (0, 1], got {}",
                self.relaxation
            ));
        }
        if self.max_iterations == 0 {
            return Err("cslc parameter `max_iterations` must be at least 1".to_string());
        }
        Ok(())
    }
}
