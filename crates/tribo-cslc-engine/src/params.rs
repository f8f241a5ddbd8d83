//! The `cslc` block of a pad material (material table, engine-specific keys; other engines ignore
//! it). Stiffnesses are per unit area of pad surface, so results do not depend on the lattice
//! resolution (`tribo-cslc` `CslcParams`):
//!
//! ```yaml
//! materials:
//!   - name: Skin
//!     roughness: 0.5
//!     cslc:
//!       anchor_stiffness: 2.0e8     # k_a, N/m³ (normal anchor per area)
//!       tangential_ratio: 0.5       # ρ: tangential anchor = ρ k_a
//!       lateral_length: 0.002       # ℓ, m (or stiffness_ratio: k_ℓ/k_a, then ℓ = h √ratio)
//!       contact_stiffness: 1.0e12   # k_c, N/m^3.5 (Hertz-type p = k_c φ^{3/2})
//!       damping: 0.0                # c_a, N·s/m³ (viscous, per area, on the patch)
//!       acceleration: red_black     # or chebyshev, or jacobi (damped, with `relaxation`)
//!       tolerance: 1.0e-6
//!       max_iterations: 500
//! ```
//! | key | meaning | unit | default |
//! |---|---|---|---|
//! | `anchor_stiffness` | `k_a` | N/m³ | 1e9 |
//! | `tangential_ratio` | `ρ` | – | 0.5 |
//! | `lateral_length` | `ℓ` | m | 2e-3 |
//! | `stiffness_ratio` | `k_ℓ/k_a` (paper), excludes `lateral_length` | – | – |
//! | `contact_stiffness` | `k_c` | N/m^3.5 | 1e12 |
//! | `damping` | `c_a` | N·s/m³ | 0 |
//! | `relaxation` | ω of damped Jacobi | – | 0.8 |
//! | `acceleration` | `red_black` (SOR), `chebyshev` or `jacobi` | – | `red_black` |
//! | `tolerance` | relative force residual | – | 1e-6 |
//! | `max_iterations` | sweep cap per step | – | 500 |
//! | `impact_fraction` | fast-impact threshold (× sphere radius per step) | – | 0.5 |

use tribo_cslc::{Acceleration, CslcParams};
use tribo_material::Material;
use tribo_yaml::{Diagnostic, Fields};

/// The lateral coupling as written: a physical length, or the paper's ratio (needs the spacing).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lateral {
    Length(f64),
    Ratio(f64),
}

/// A pad material's CSLC parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct PadMaterial {
    pub params: CslcParams,
    pub lateral: Lateral,
    /// Viscous damping per area, N·s/m³.
    pub damping: f64,
}

impl PadMaterial {
    /// The lattice parameters at spacing `h`.
    pub fn params_at(&self, spacing: f64) -> CslcParams {
        match self.lateral {
            Lateral::Length(l) => CslcParams {
                lateral_length: l,
                ..self.params.clone()
            },
            Lateral::Ratio(r) => self.params.clone().with_lateral_ratio(r, spacing),
        }
    }
}

const KEYS: [&str; 12] = [
    "anchor_stiffness",
    "tangential_ratio",
    "lateral_length",
    "stiffness_ratio",
    "contact_stiffness",
    "damping",
    "relaxation",
    "acceleration",
    "tolerance",
    "max_iterations",
    "impact_fraction",
    "note",
];

/// The `cslc` block of `material` (defaults where absent); located errors for bad values.
pub fn pad_material(material: &Material) -> Result<PadMaterial, Diagnostic> {
    let defaults = CslcParams::default();
    let Some(node) = material.extras.get("cslc") else {
        return Ok(PadMaterial {
            lateral: Lateral::Length(defaults.lateral_length),
            params: defaults,
            damping: 0.0,
        });
    };
    let f = Fields::new(node, "a `cslc` block")?;
    f.skip(&["note"]);
    let positive = |v: f64| v > 0.0;
    let params = CslcParams {
        anchor_stiffness: f.real_or("anchor_stiffness", defaults.anchor_stiffness, positive, "must be > 0")?,
        tangential_ratio: f.real_or("tangential_ratio", defaults.tangential_ratio, positive, "must be > 0")?,
        lateral_length: defaults.lateral_length,
        contact_stiffness: f.real_or("contact_stiffness", defaults.contact_stiffness, positive, "must be > 0")?,
        relaxation: f.real_or(
            "relaxation",
            defaults.relaxation,
            |v| v > 0.0 && v <= 1.0,
            "must be in (0, 1]",
        )?,
        acceleration: f.choice_or(
            "acceleration",
            defaults.acceleration,
            &[
                ("chebyshev", Acceleration::Chebyshev),
                ("jacobi", Acceleration::DampedJacobi),
            ],
            "an acceleration",
        )?,
        tolerance: f.real_or("tolerance", defaults.tolerance, positive, "must be > 0")?,
        max_iterations: f.count_or("max_iterations", defaults.max_iterations, 1)?,
        impact_fraction: f.real_or("impact_fraction", defaults.impact_fraction, positive, "must be > 0")?,
    };
    let length = f.get_value(&["lateral_length"]);
    let ratio = f.get_value(&["stiffness_ratio"]);
    let lateral = match (length, ratio) {
        (Some(_), Some(r)) => {
            return Err(r.error("give either `lateral_length` (m) or `stiffness_ratio` (k_ℓ/k_a), not both"))
        }
        (None, Some(_)) => Lateral::Ratio(f.real_or("stiffness_ratio", 1.0, |v| v >= 0.0, "must be >= 0")?),
        _ => Lateral::Length(f.real_or("lateral_length", defaults.lateral_length, |v| v >= 0.0, "must be >= 0")?),
    };
    let damping = f.real_or("damping", 0.0, |v| v >= 0.0, "must be >= 0")?;
    f.reject_unknown(&format!("the `cslc` block of material `{}`", material.name), &KEYS)?;
    Ok(PadMaterial {
        params,
        lateral,
        damping,
    })
}
