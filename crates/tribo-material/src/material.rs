//! One `materials:` entry (Choreonoid `Material`, docs/design/choreonoid-formats.md §1.1).

use tribo_yaml::{closest, Diagnostic, Error, Fields, Location, Node};

use crate::extras::Extras;
use crate::names::DEFAULT_MATERIAL;
use crate::provenance::{entry_location, number_or, required, Range, ValueSource};

/// Choreonoid's defaults for a material's fields (choreonoid@25994f3eda src/Body/Material.cpp:60-67).
pub const DEFAULT_ROUGHNESS: f64 = 0.5;
pub const DEFAULT_VISCOSITY: f64 = 1.0;
pub const DEFAULT_STIFFNESS: f64 = 0.0;
pub const DEFAULT_DAMPING: f64 = 0.0;

/// The keys a material entry reads; every other key is an extra.
pub const MATERIAL_KEYS: [&str; 5] = ["name", "roughness", "viscosity", "stiffness", "damping"];

/// A surface material.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// The name as written (`default` and `Default` are the same material).
    pub name: String,
    /// r: dimensionless, ≥ 0, default 0.5. Enters the fallback friction √(r₁·r₂).
    pub roughness: f64,
    /// v: dimensionless, finite, default 1.0. Enters the fallback restitution √(max(0,1−v₁)·max(0,1−v₂)).
    pub viscosity: f64,
    /// Compliant-contact stiffness, N/m, ≥ 0, default 0 (rigid). Read by compliant engines.
    pub stiffness: f64,
    /// Compliant-contact damping, N·s/m, ≥ 0, default 0.
    pub damping: f64,
    /// Every other key (`youngs_modulus`, `density`, …), kept for the engines that read it.
    pub extras: Extras,
    /// Where the entry was written; `None` for Choreonoid's built-in `Material()` values.
    pub origin: Option<MaterialOrigin>,
}

/// Where a material entry and each of its numbers came from.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialOrigin {
    /// The entry (its mapping) in the file.
    pub location: Location,
    pub roughness: ValueSource,
    pub viscosity: ValueSource,
    pub stiffness: ValueSource,
    pub damping: ValueSource,
}

impl Material {
    /// Choreonoid's `Material()`: what the default material is when no table defines `Default`.
    pub fn builtin_default() -> Self {
        Material {
            name: DEFAULT_MATERIAL.to_string(),
            roughness: DEFAULT_ROUGHNESS,
            viscosity: DEFAULT_VISCOSITY,
            stiffness: DEFAULT_STIFFNESS,
            damping: DEFAULT_DAMPING,
            extras: Extras::default(),
            origin: None,
        }
    }

    /// A finite number in the extras (e.g. `youngs_modulus`), with a located error for a wrong type.
    pub fn extra_f64(&self, key: &str) -> Result<Option<f64>, Error> {
        self.extras.f64(key)
    }

    /// Where the roughness came from (`None` for the built-in values).
    pub fn roughness_source(&self) -> Option<&ValueSource> {
        self.origin.as_ref().map(|o| &o.roughness)
    }

    /// Where the viscosity came from (`None` for the built-in values).
    pub fn viscosity_source(&self) -> Option<&ValueSource> {
        self.origin.as_ref().map(|o| &o.viscosity)
    }
}

/// Parse one `materials:` entry. Warnings: extra keys that look like a misspelt material field.
pub(crate) fn parse_material(node: &Node) -> Result<(Material, Vec<Diagnostic>), Error> {
    let fields = Fields::new(node, "a material")?;
    let name = required(&fields, "name")?.as_name()?.to_string();
    let (roughness, roughness_src) = number_or(&fields, &["roughness"], Range::NonNegative, DEFAULT_ROUGHNESS)?;
    let (viscosity, viscosity_src) = number_or(&fields, &["viscosity"], Range::Any, DEFAULT_VISCOSITY)?;
    let (stiffness, stiffness_src) = number_or(&fields, &["stiffness"], Range::NonNegative, DEFAULT_STIFFNESS)?;
    let (damping, damping_src) = number_or(&fields, &["damping"], Range::NonNegative, DEFAULT_DAMPING)?;
    let extras: Vec<_> = fields.unread().into_iter().cloned().collect();
    let warnings = extras
        .iter()
        .filter_map(|e| {
            closest(&e.key, MATERIAL_KEYS).map(|known| {
                Diagnostic::warning(
                    e.key_location.clone(),
                    format!(
                        "`{}` in material `{name}` is not a material field and is kept as an \
                         engine-specific extra (did you mean `{known}`?)",
                        e.key
                    ),
                )
            })
        })
        .collect();
    let material = Material {
        name,
        roughness,
        viscosity,
        stiffness,
        damping,
        extras: Extras::new(extras),
        origin: Some(MaterialOrigin {
            location: entry_location(node),
            roughness: roughness_src,
            viscosity: viscosity_src,
            stiffness: stiffness_src,
            damping: damping_src,
        }),
    };
    Ok((material, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tribo_yaml::parse_str;

    fn parse(text: &str) -> Result<(Material, Vec<Diagnostic>), Error> {
        parse_material(&parse_str(text, "m.yaml").expect("yaml"))
    }

    #[test]
    fn defaults_and_extras() {
        let (m, warnings) = parse("name: Wire\nwire_youngs_modulus_bend: 1e7\nviscosity: 1.0\n").expect("material");
        assert!(warnings.is_empty());
        assert_eq!((m.roughness, m.viscosity, m.stiffness, m.damping), (0.5, 1.0, 0.0, 0.0));
        assert_eq!(m.extra_f64("wire_youngs_modulus_bend").expect("number"), Some(1e7));
        assert_eq!(m.roughness_source(), Some(&ValueSource::Default));
        let written = ValueSource::Key {
            key: "viscosity".into(),
            location: Location::new(&"m.yaml".into(), 3, 1),
        };
        assert_eq!(m.viscosity_source(), Some(&written));
    }

    #[test]
    fn errors_are_located() {
        let err = parse("roughness: 1\n").expect_err("no name");
        assert_eq!(err.to_string(), "m.yaml:1:1: missing required key `name`");
        let err = parse("name: A\nroughness: abc\n").expect_err("not a number");
        assert_eq!(
            err.to_string(),
            "m.yaml:2:12: `roughness`: expected a number, found `abc`"
        );
        let err = parse("name: A\nstiffness: -3\n").expect_err("negative");
        assert_eq!(err.to_string(), "m.yaml:2:12: `stiffness` must be ≥ 0, found -3");
        assert!(
            parse("name: A\nviscosity: -3\n").is_ok(),
            "viscosity has no sign constraint"
        );
    }

    #[test]
    fn misspelt_field_warns_and_stays_extra() {
        let (m, warnings) = parse("name: A\nroughnes: 0.1\n").expect("material");
        assert_eq!(m.roughness, 0.5);
        assert!(m.extras.get("roughnes").is_some());
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].message.contains("did you mean `roughness`?"),
            "{}",
            warnings[0]
        );
    }
}
