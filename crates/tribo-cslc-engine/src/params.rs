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
//!       acceleration: adaptive      # or condensed, red_black, chebyshev, or jacobi (damped, with `relaxation`)
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
//! | `acceleration` | `adaptive` (condensed while few spheres touch, else red-black), `condensed`, `red_black` (SOR), `chebyshev` or `jacobi` | – | `adaptive` |
//! | `tolerance` | relative force residual | – | 1e-6 |
//! | `max_iterations` | sweep cap per step | – | 500 |
//! | `impact_fraction` | fast-impact threshold (× sphere radius per step) | – | 0.5 |

use serde::Deserialize;
use tribo_cslc::{Acceleration, CslcParams};
use tribo_engine::{Diagnostic, EngineOptions};
use tribo_material::Material;

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

/// The block as written (module docs); absent keys take the defaults of [`CslcParams`].
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct CslcBlock {
    anchor_stiffness: Option<f64>,
    tangential_ratio: Option<f64>,
    lateral_length: Option<f64>,
    stiffness_ratio: Option<f64>,
    contact_stiffness: Option<f64>,
    damping: Option<f64>,
    relaxation: Option<f64>,
    acceleration: Option<AccelerationName>,
    tolerance: Option<f64>,
    max_iterations: Option<usize>,
    impact_fraction: Option<f64>,
    /// Free text for the reader of the table.
    note: Option<serde::de::IgnoredAny>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename = "acceleration", rename_all = "snake_case")]
enum AccelerationName {
    Adaptive,
    Condensed,
    RedBlack,
    Chebyshev,
    Jacobi,
}

/// The `cslc` block of `material` (defaults where absent); located errors for bad values.
pub fn pad_material(material: &Material) -> Result<PadMaterial, Diagnostic> {
    let defaults = CslcParams::default();
    let block = EngineOptions::material_block(material, "cslc");
    let b: CslcBlock = block.read_as(&format!("the `cslc` block of material `{}`", material.name))?;
    // Each rule names the key and is located at its value.
    let rule = |key: &str, value: Option<f64>, default: f64, ok: fn(f64) -> bool, rule: &str| {
        let v = value.unwrap_or(default);
        block.check(key, v, ok(v), rule).map(|()| v)
    };
    let positive = |v: f64| v > 0.0;
    let params = CslcParams {
        anchor_stiffness: rule(
            "anchor_stiffness",
            b.anchor_stiffness,
            defaults.anchor_stiffness,
            positive,
            "must be > 0",
        )?,
        tangential_ratio: rule(
            "tangential_ratio",
            b.tangential_ratio,
            defaults.tangential_ratio,
            positive,
            "must be > 0",
        )?,
        lateral_length: defaults.lateral_length,
        contact_stiffness: rule(
            "contact_stiffness",
            b.contact_stiffness,
            defaults.contact_stiffness,
            positive,
            "must be > 0",
        )?,
        relaxation: rule(
            "relaxation",
            b.relaxation,
            defaults.relaxation,
            |v| v > 0.0 && v <= 1.0,
            "must be in (0, 1]",
        )?,
        acceleration: match b.acceleration {
            None => defaults.acceleration,
            Some(AccelerationName::RedBlack) => Acceleration::RedBlackSor,
            Some(AccelerationName::Condensed) => Acceleration::Condensed,
            Some(AccelerationName::Adaptive) => Acceleration::Adaptive,
            Some(AccelerationName::Chebyshev) => Acceleration::Chebyshev,
            Some(AccelerationName::Jacobi) => Acceleration::DampedJacobi,
        },
        tolerance: rule("tolerance", b.tolerance, defaults.tolerance, positive, "must be > 0")?,
        max_iterations: {
            let n = b.max_iterations.unwrap_or(defaults.max_iterations);
            block.check("max_iterations", n, n >= 1, "must be >= 1")?;
            n
        },
        impact_fraction: rule(
            "impact_fraction",
            b.impact_fraction,
            defaults.impact_fraction,
            positive,
            "must be > 0",
        )?,
    };
    let lateral = match (b.lateral_length, b.stiffness_ratio) {
        (Some(_), Some(_)) => {
            return Err(block.error_at(
                "stiffness_ratio",
                "give either `lateral_length` (m) or `stiffness_ratio` (k_ℓ/k_a), not both",
            ))
        }
        (None, Some(r)) => Lateral::Ratio(rule("stiffness_ratio", Some(r), 1.0, |v| v >= 0.0, "must be >= 0")?),
        (length, None) => Lateral::Length(rule(
            "lateral_length",
            length,
            defaults.lateral_length,
            |v| v >= 0.0,
            "must be >= 0",
        )?),
    };
    let damping = rule("damping", b.damping, 0.0, |v| v >= 0.0, "must be >= 0")?;
    let _ = b.note;
    Ok(PadMaterial {
        params,
        lateral,
        damping,
    })
}

#[cfg(test)]
mod tests {
    use tribo_material::MaterialTable;

    use super::*;

    /// The `cslc` block `block` of a material `Skin`, read as a pad material.
    fn skin(block: &str) -> Result<PadMaterial, Diagnostic> {
        let text = format!("materials:\n  - name: Skin\n    cslc:\n{block}");
        let loaded = MaterialTable::parse_str(&text, "m.yaml")?;
        let material = loaded.table.material("Skin").expect("Skin is in the table");
        pad_material(material)
    }

    #[test]
    fn the_block_reads_with_defaults_and_every_documented_acceleration() {
        let m = skin("      anchor_stiffness: 2.0e8\n      stiffness_ratio: 4\n      note: soft\n").expect("valid");
        assert_eq!(m.params.anchor_stiffness, 2.0e8);
        assert_eq!(m.lateral, Lateral::Ratio(4.0));
        assert_eq!(m.params.tolerance, CslcParams::default().tolerance);
        for (name, expected) in [
            ("red_black", Acceleration::RedBlackSor),
            ("condensed", Acceleration::Condensed),
            ("adaptive", Acceleration::Adaptive),
            ("chebyshev", Acceleration::Chebyshev),
            ("jacobi", Acceleration::DampedJacobi),
        ] {
            let m = skin(&format!("      acceleration: {name}\n")).expect("valid");
            assert_eq!(m.params.acceleration, expected, "{name}");
        }
    }

    #[test]
    fn bad_values_are_located_and_unknown_keys_suggest_the_closest() {
        assert_eq!(
            skin("      anchor_stifness: 1\n").expect_err("unknown key").to_string(),
            "m.yaml:4:7: unknown key `anchor_stifness` in the `cslc` block of material `Skin` \
             (did you mean `anchor_stiffness`?)"
        );
        assert_eq!(
            skin("      tolerance: -1\n").expect_err("negative").to_string(),
            "m.yaml:4:18: `tolerance` must be > 0, found -1"
        );
        assert_eq!(
            skin("      lateral_length: 0.002\n      stiffness_ratio: 4\n")
                .expect_err("both")
                .to_string(),
            "m.yaml:5:24: give either `lateral_length` (m) or `stiffness_ratio` (k_ℓ/k_a), not both"
        );
        assert!(skin("      acceleration: chebychev\n")
            .expect_err("unknown variant")
            .to_string()
            .contains("did you mean `chebyshev`?"));
    }
}
