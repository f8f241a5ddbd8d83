//! Contact parameters of a pair of material names: the explicit entry, else the fallback rule
//! (docs/design/choreonoid-formats.md §1.3).
//!
//! Fallback, for materials with roughness r₁, r₂ and viscosity v₁, v₂:
//!
//! - μ = clamp(√(r₁·r₂), 0, 100) for both static and dynamic friction
//!   (choreonoid@25994f3eda src/Body/ConstraintForceSolver.cpp:853-870; [0, 100] are AIST's
//!   `minFriction`/`maxFriction`);
//! - e = clamp(√(max(0, 1−v₁)·max(0, 1−v₂)), 0, 1)
//!   (ODE: choreonoid@25994f3eda src/ODEPlugin/ODESimulatorItem.cpp:1357-1390; MuJoCo:
//!   choreonoid@25994f3eda src/MuJoCoPlugin/MuJoCoSimulatorItem.cpp:767-785).
//!
//! The AIST solver does not clamp e: a viscosity above 1 on one side gives NaN there (treated as no
//! bounce) and two viscosities above 2 give e > 1. This crate uses the clamped ODE/MuJoCo form, so
//! every engine sees the same finite e in [0, 1].
//!
//! A name with no `materials:` entry (unknown, or only named in pair entries) stands in with the
//! `Default` material's roughness and viscosity (Choreonoid `MaterialTable::material(id)` returns
//! slot 0), or Choreonoid's built-in `Material()` values (0.5, 1.0) when no table defines `Default`.
//! Such a name never matches a `[Default, X]` entry: pair entries match names, not stand-ins.

use std::borrow::Cow;

use tribo_yaml::{Error, Location};

use crate::contact::ContactOrigin;
use crate::extras::Extras;
use crate::material::Material;
use crate::names::DEFAULT_MATERIAL;
use crate::provenance::ValueSource;
use crate::table::MaterialTable;

/// Lower and upper bound of the fallback friction (AIST `minFriction`/`maxFriction` defaults).
pub const FALLBACK_FRICTION_RANGE: (f64, f64) = (0.0, 100.0);

/// The contact parameters of one pair of materials, and where they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactParams {
    /// μₛ, dimensionless, ≥ 0: used while the contact sticks (tangential speed ≤ 1e-4 m/s in AIST).
    pub static_friction: f64,
    /// μ_d, dimensionless, ≥ 0: used while the contact slides (AIST only; other engines use μₛ).
    pub dynamic_friction: f64,
    /// e, dimensionless, ≥ 0 (≤ 1 for the fallback).
    pub restitution: f64,
    /// The entry's engine-specific keys (empty for the fallback).
    pub extras: Extras,
    pub origin: ParamOrigin,
}

/// Where a pair's parameters came from.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamOrigin {
    /// An explicit `contact_materials` entry.
    Entry(ContactOrigin),
    /// No entry: computed from the two materials by the fallback rule.
    Fallback(Fallback),
}

/// The inputs and unclamped results of the fallback rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Fallback {
    pub first: FallbackInput,
    pub second: FallbackInput,
    /// √(r₁·r₂) before clamping to [`FALLBACK_FRICTION_RANGE`].
    pub unclamped_friction: f64,
    /// √(max(0,1−v₁)·max(0,1−v₂)) before clamping to [0, 1].
    pub unclamped_restitution: f64,
}

/// One material's input to the fallback rule.
#[derive(Debug, Clone, PartialEq)]
pub struct FallbackInput {
    /// The name asked for.
    pub name: String,
    pub roughness: f64,
    pub viscosity: f64,
    /// Whose values these are.
    pub stand_in: StandIn,
    /// The material entry the values were read from (`None` for the built-in values).
    pub entry: Option<Location>,
    pub roughness_from: ValueSource,
    pub viscosity_from: ValueSource,
}

/// Which material's values a name uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StandIn {
    /// The name's own `materials:` entry.
    Own,
    /// The name has no entry; the `Default` material's entry stands in.
    DefaultEntry,
    /// Neither the name nor `Default` has an entry: Choreonoid's built-in `Material()` values.
    Builtin,
}

impl StandIn {
    pub fn as_str(self) -> &'static str {
        match self {
            StandIn::Own => "own",
            StandIn::DefaultEntry => "default",
            StandIn::Builtin => "builtin",
        }
    }
}

impl ContactParams {
    /// Choreonoid's `ContactMaterial::friction()`: the static coefficient, which every engine but
    /// AIST uses for both sticking and sliding.
    pub fn friction(&self) -> f64 {
        self.static_friction
    }

    /// Whether the parameters come from an explicit entry.
    pub fn is_explicit(&self) -> bool {
        matches!(self.origin, ParamOrigin::Entry(_))
    }

    /// `entry` or `fallback`.
    pub fn source_kind(&self) -> &'static str {
        match self.origin {
            ParamOrigin::Entry(_) => "entry",
            ParamOrigin::Fallback(_) => "fallback",
        }
    }

    /// A finite number among the entry's extras (e.g. `cullingDistance`, m), with a located error
    /// for a wrong type; `None` when absent (the engine's own default applies).
    pub fn extra_f64(&self, key: &str) -> Result<Option<f64>, Error> {
        self.extras.f64(key)
    }

    /// A non-negative integer among the extras (e.g. `max_num_contact_points`).
    pub fn extra_usize(&self, key: &str) -> Result<Option<usize>, Error> {
        self.extras.usize(key)
    }

    /// Text among the extras (e.g. `collisionHandler`).
    pub fn extra_str(&self, key: &str) -> Result<Option<&str>, Error> {
        self.extras.str(key)
    }
}

impl MaterialTable {
    /// The contact parameters of materials `a` and `b`: the explicit entry of the unordered pair if
    /// the table has one, else the fallback rule. Symmetric in `a` and `b`.
    pub fn contact(&self, a: &str, b: &str) -> ContactParams {
        match self.pair_entry(a, b) {
            Some(entry) => {
                let c = &entry.contact;
                ContactParams {
                    static_friction: c.static_friction,
                    dynamic_friction: c.dynamic_friction,
                    restitution: c.restitution,
                    extras: c.extras.clone(),
                    origin: ParamOrigin::Entry(c.origin.clone()),
                }
            }
            None => fallback(self.fallback_input(a), self.fallback_input(b)),
        }
    }

    /// The material whose values `name` uses in contact resolution, and whose it is.
    pub fn stand_in(&self, name: &str) -> (Cow<'_, Material>, StandIn) {
        if let Some(own) = self.material(name) {
            (Cow::Borrowed(own), StandIn::Own)
        } else if let Some(default) = self.material(DEFAULT_MATERIAL) {
            (Cow::Borrowed(default), StandIn::DefaultEntry)
        } else {
            (Cow::Owned(Material::builtin_default()), StandIn::Builtin)
        }
    }

    fn fallback_input(&self, name: &str) -> FallbackInput {
        let (material, stand_in) = self.stand_in(name);
        let origin = material.origin.as_ref();
        FallbackInput {
            name: name.to_string(),
            roughness: material.roughness,
            viscosity: material.viscosity,
            stand_in,
            entry: origin.map(|o| o.location.clone()),
            roughness_from: origin.map_or(ValueSource::Default, |o| o.roughness.clone()),
            viscosity_from: origin.map_or(ValueSource::Default, |o| o.viscosity.clone()),
        }
    }
}

/// The fallback rule (see the module docs).
fn fallback(first: FallbackInput, second: FallbackInput) -> ContactParams {
    let (min_friction, max_friction) = FALLBACK_FRICTION_RANGE;
    let unclamped_friction = (first.roughness * second.roughness).sqrt();
    let friction = unclamped_friction.clamp(min_friction, max_friction);
    let unclamped_restitution = ((1.0 - first.viscosity).max(0.0) * (1.0 - second.viscosity).max(0.0)).sqrt();
    let restitution = unclamped_restitution.clamp(0.0, 1.0);
    ContactParams {
        static_friction: friction,
        dynamic_friction: friction,
        restitution,
        extras: Extras::default(),
        origin: ParamOrigin::Fallback(Fallback {
            first,
            second,
            unclamped_friction,
            unclamped_restitution,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> MaterialTable {
        MaterialTable::parse_str(text, "t.yaml").expect("table").table
    }

    #[test]
    fn fallback_formulas_and_clamps() {
        let t = table(
            "materials:\n  - {name: Rough, roughness: 400}\n  - {name: Smooth, roughness: 0.04, viscosity: 0.19}\n  \
             - {name: Soft, viscosity: -1.5}\n  - {name: Goo, viscosity: 2.5}\n",
        );
        let p = t.contact("Smooth", "Smooth");
        assert!((p.static_friction - 0.04).abs() < 1e-15 && p.dynamic_friction == p.static_friction);
        assert!((p.restitution - 0.81).abs() < 1e-15, "√(0.81·0.81)");
        // √(400 · 400) = 400 → clamped to 100.
        assert_eq!(t.contact("Rough", "Rough").static_friction, 100.0);
        // √((1+1.5)·(1+1.5)) = 2.5 → clamped to 1 (AIST would give 2.5).
        assert_eq!(t.contact("Soft", "Soft").restitution, 1.0);
        // One viscosity above 1: the factor max(0, 1−2.5) = 0 (AIST: √(negative) = NaN).
        assert_eq!(t.contact("Goo", "Smooth").restitution, 0.0);
    }

    #[test]
    fn stand_ins() {
        let no_default = table("materials:\n  - {name: A, roughness: 0.09}\n");
        let p = no_default.contact("A", "Unknown");
        assert!(
            (p.static_friction - 0.3 * 0.5f64.sqrt()).abs() < 1e-15,
            "√(0.09 · 0.5) with the built-in 0.5"
        );
        let ParamOrigin::Fallback(f) = &p.origin else {
            unreachable!("no entry")
        };
        assert_eq!((f.first.stand_in, f.second.stand_in), (StandIn::Own, StandIn::Builtin));
        let with_default = table("materials:\n  - {name: Default, roughness: 0.25}\n");
        let p = with_default.contact("X", "Y");
        assert!((p.static_friction - 0.25).abs() < 1e-15);
    }
}
