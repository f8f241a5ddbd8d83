//! Choreonoid material and contact-material tables, with Choreonoid's semantics
//! (`docs/design/choreonoid-formats.md` §1, after Choreonoid's manual page on contact materials).
//!
//! A table file has two lists. `materials:` gives each surface material a name and the numbers the
//! fallback rule reads; `contact_materials:` (or `contactMaterials:`) gives the parameters of
//! particular pairs. Every other key in an entry is kept as an engine-specific extra ([`Extras`]).
//!
//! - [`MaterialTable`]: load ([`MaterialTable::load_file`], [`MaterialTable::builtin_default`]),
//!   merge whole entries in order ([`MaterialTable::merge`], [`MaterialTable::merged`]), and look up
//!   a pair ([`MaterialTable::contact`]): the explicit entry, else the fallback rule (below).
//! - [`ContactParams`]: the three numbers, the extras, and where they came from ([`ParamOrigin`]);
//!   [`ContactParams::explain`] says so in words.
//! - [`MaterialTable::check_name`]: a warning for a material name no table defines.
//! - [`ContactTable`]: dense ids ([`MaterialId`]) and the symmetric n×n pair matrix a simulation
//!   reads in O(1).
//! - [`render`] and `to_json`: what `tribo materials` prints.
//!
//! # Notation
//!
//! | symbol | field | unit, range | default |
//! |---|---|---|---|
//! | r | [`Material::roughness`] | dimensionless, ≥ 0 | 0.5 |
//! | v | [`Material::viscosity`] | dimensionless, finite | 1.0 |
//! | k | [`Material::stiffness`] | N/m, ≥ 0 (0 = rigid) | 0 |
//! | c | [`Material::damping`] | N·s/m, ≥ 0 | 0 |
//! | μ | `friction` (sets μₛ and μ_d) | dimensionless, ≥ 0 | 0.5 |
//! | μₛ | [`ContactParams::static_friction`] (`static_friction`/`staticFriction`) | dimensionless, ≥ 0 | μ |
//! | μ_d | [`ContactParams::dynamic_friction`] (`dynamic_friction`/`dynamicFriction`) | dimensionless, ≥ 0 | μ |
//! | e | [`ContactParams::restitution`] | dimensionless, ≥ 0 | 0 |
//!
//! Fallback for a pair with no entry (materials 1 and 2):
//! μₛ = μ_d = clamp(√(r₁·r₂), 0, 100) and e = clamp(√(max(0, 1−v₁)·max(0, 1−v₂)), 0, 1).
//! These are the ODE and MuJoCo forms; Choreonoid's AIST solver does not clamp e (a viscosity above
//! 1 gives NaN, two above 2 give e > 1). A name without a `materials:` entry uses the `Default`
//! material's r and v, and never matches a `[Default, X]` entry.
//!
//! Stricter than Choreonoid: a material without `name`, a negative roughness, stiffness, damping,
//! friction or restitution, and a number with trailing text (`0.5x`) are located errors.

mod contact;
mod contact_table;
mod explain;
mod extras;
mod json;
mod lookup;
mod material;
mod names;
mod provenance;
mod read;
pub mod render;
mod table;
mod unknown;
mod write;

pub use contact::{
    ContactMaterial, ContactOrigin, CONTACT_KEYS, DEFAULT_FRICTION, DEFAULT_RESTITUTION, WELL_KNOWN_CONTACT_EXTRAS,
};
pub use contact_table::{ContactTable, MaterialId};
pub use explain::fmt_num;
pub use extras::{node_to_json, node_to_text, Extras};
pub use json::pair_json;
pub use lookup::{ContactParams, Fallback, FallbackInput, ParamOrigin, StandIn, FALLBACK_FRICTION_RANGE};
pub use material::{
    Material, MaterialOrigin, DEFAULT_DAMPING, DEFAULT_ROUGHNESS, DEFAULT_STIFFNESS, DEFAULT_VISCOSITY, MATERIAL_KEYS,
};
pub use names::{canonical, is_default, DEFAULT_MATERIAL};
pub use provenance::ValueSource;
pub use table::{Loaded, MaterialTable, PairEntry, BUILTIN_DEFAULT_FILE, BUILTIN_DEFAULT_TEXT};
