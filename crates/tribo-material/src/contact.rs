//! One `contact_materials:` entry (Choreonoid `ContactMaterial`, docs/design/choreonoid-formats.md
//! §1.1-1.2).

use tribo_yaml::{closest, Diagnostic, Error, Fields, Location, Node};

use crate::extras::Extras;
use crate::provenance::{entry_location, number_or, read_number, required, Range, ValueSource};

/// Choreonoid's defaults for a contact material (choreonoid@25994f3eda src/Body/ContactMaterial.cpp:52-57).
pub const DEFAULT_FRICTION: f64 = 0.5;
pub const DEFAULT_RESTITUTION: f64 = 0.0;

/// The keys a contact-material entry reads, in their accepted spellings.
pub const CONTACT_KEYS: [&str; 7] = [
    "materials",
    "friction",
    "static_friction",
    "staticFriction",
    "dynamic_friction",
    "dynamicFriction",
    "restitution",
];

/// Extra keys some engine reads from a pair entry, in the one spelling that engine accepts
/// (AIST: `cullingDistance`, `cullingDepth`, `max_num_contact_points`, `collisionHandler`). A key
/// close to one of these but spelt differently is reported, because the engine would not see it.
pub const WELL_KNOWN_CONTACT_EXTRAS: [&str; 4] = [
    "cullingDistance",
    "cullingDepth",
    "max_num_contact_points",
    "collisionHandler",
];

/// The parameters of one contact-material entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactMaterial {
    /// μₛ: dimensionless, ≥ 0, default 0.5 (`friction`, then `static_friction`/`staticFriction`).
    pub static_friction: f64,
    /// μ_d: dimensionless, ≥ 0, default 0.5 (`friction`, then `dynamic_friction`/`dynamicFriction`).
    pub dynamic_friction: f64,
    /// e: dimensionless, ≥ 0, default 0.
    pub restitution: f64,
    /// Every other key (`cullingDistance`, `friction_model`, a shadowed camelCase spelling, …).
    pub extras: Extras,
    pub origin: ContactOrigin,
}

/// Where a contact-material entry and each of its numbers came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactOrigin {
    /// The entry (its mapping) in the file.
    pub location: Location,
    /// The entry's `materials:` list as written (all pairs j<k among them share this entry).
    pub materials: Vec<String>,
    pub static_friction: ValueSource,
    pub dynamic_friction: ValueSource,
    pub restitution: ValueSource,
}

/// A parsed entry: its material names and parameters.
pub(crate) struct ParsedContact {
    pub names: Vec<String>,
    pub contact: ContactMaterial,
    pub warnings: Vec<Diagnostic>,
}

/// Parse one `contact_materials:` entry, in Choreonoid's order
/// (choreonoid@25994f3eda src/Body/ContactMaterial.cpp:28-44):
/// `friction` sets both coefficients, then `static_friction` (or `staticFriction` if the former is
/// absent) and `dynamic_friction`/`dynamicFriction` override one side each, then `restitution`.
pub(crate) fn parse_contact(node: &Node) -> Result<ParsedContact, Error> {
    let fields = Fields::new(node, "a contact material")?;
    let names_node = required(&fields, "materials")?;
    let names: Vec<String> = names_node
        .as_seq()
        .map_err(|_| {
            names_node.error(format!(
                "`materials` must be a list of material names, found {}",
                names_node.kind_name()
            ))
        })?
        .iter()
        .map(|n| match n.as_str() {
            Ok(_) => n.as_name().map(str::to_string),
            Err(_) => Err(Error::error(
                entry_location(n),
                format!("expected a material name, found {}", n.kind_name()),
            )),
        })
        .collect::<Result<_, _>>()?;
    if names.len() < 2 {
        let found = match names.first() {
            None => "none".to_string(),
            Some(n) => format!("only `{n}`; write `[{n}, {n}]` for contact of a material with itself"),
        };
        return Err(names_node.error(format!(
            "a contact material needs at least 2 material names, found {found}"
        )));
    }

    let (friction, friction_src) = number_or(&fields, &["friction"], Range::NonNegative, DEFAULT_FRICTION)?;
    let (static_friction, static_src) =
        read_number(&fields, &["static_friction", "staticFriction"], Range::NonNegative)?
            .unwrap_or((friction, friction_src.clone()));
    let (dynamic_friction, dynamic_src) =
        read_number(&fields, &["dynamic_friction", "dynamicFriction"], Range::NonNegative)?
            .unwrap_or((friction, friction_src));
    let (restitution, restitution_src) = number_or(&fields, &["restitution"], Range::NonNegative, DEFAULT_RESTITUTION)?;

    let extras: Vec<_> = fields.unread().into_iter().cloned().collect();
    let listed = names.join(", ");
    let mut warnings = Vec::new();
    if restitution > 1.0 {
        if let Some(loc) = restitution_src.location() {
            warnings.push(Diagnostic::warning(
                loc.clone(),
                format!("restitution {restitution} > 1 for [{listed}] adds energy at every bounce"),
            ));
        }
    }
    for e in &extras {
        let shadowed = match e.key.as_str() {
            "staticFriction" => Some("static_friction"),
            "dynamicFriction" => Some("dynamic_friction"),
            _ => None,
        };
        let message = match shadowed {
            Some(snake) => format!(
                "`{}` in [{listed}] is ignored because `{snake}` is given (the snake_case spelling wins); \
                 it is kept as an engine-specific extra",
                e.key
            ),
            // A well-known extra spelt right needs no suggestion (and no string distances).
            None if WELL_KNOWN_CONTACT_EXTRAS.contains(&e.key.as_str()) => continue,
            None => match closest(&e.key, CONTACT_KEYS.iter().chain(&WELL_KNOWN_CONTACT_EXTRAS).copied()) {
                Some(known) if known != e.key => format!(
                    "`{}` in [{listed}] is kept as an engine-specific extra that no engine reads under this \
                     spelling (did you mean `{known}`?)",
                    e.key
                ),
                _ => continue,
            },
        };
        warnings.push(Diagnostic::warning(e.key_location.clone(), message));
    }

    let contact = ContactMaterial {
        static_friction,
        dynamic_friction,
        restitution,
        extras: Extras::new(extras),
        origin: ContactOrigin {
            location: entry_location(node),
            materials: names.clone(),
            static_friction: static_src,
            dynamic_friction: dynamic_src,
            restitution: restitution_src,
        },
    };
    Ok(ParsedContact {
        names,
        contact,
        warnings,
    })
}

/// Every pair j<k of an entry's names (docs/design/choreonoid-formats.md §1.2): `[A, B, C]` gives
/// (A,B), (A,C), (B,C); `[A, A]` gives (A,A).
pub(crate) fn pairs_of(names: &[String]) -> Vec<(&str, &str)> {
    let mut pairs = Vec::new();
    for (j, a) in names.iter().enumerate() {
        for b in names.iter().skip(j + 1) {
            pairs.push((a.as_str(), b.as_str()));
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use tribo_yaml::parse_str;

    fn parse(text: &str) -> Result<ParsedContact, Error> {
        parse_contact(&parse_str(text, "c.yaml").expect("yaml"))
    }

    #[test]
    fn friction_sets_both_and_one_side_overrides() {
        let c = parse("materials: [A, B]\nfriction: 0.3\ndynamic_friction: 0.2\n")
            .expect("entry")
            .contact;
        assert_eq!((c.static_friction, c.dynamic_friction, c.restitution), (0.3, 0.2, 0.0));
        let c = parse("materials: [A, B]\nstatic_friction: 0.8\n")
            .expect("entry")
            .contact;
        assert_eq!(
            (c.static_friction, c.dynamic_friction),
            (0.8, 0.5),
            "dynamic is not copied from static"
        );
        assert_eq!(c.origin.dynamic_friction, ValueSource::Default);
    }

    #[test]
    fn snake_case_wins_and_camel_case_stays_extra() {
        let p = parse("materials: [A, B]\nstaticFriction: 0.9\nstatic_friction: 0.7\n").expect("entry");
        assert_eq!(p.contact.static_friction, 0.7);
        assert!(p.contact.extras.get("staticFriction").is_some());
        assert_eq!(p.warnings.len(), 1);
        assert!(
            p.warnings[0].message.contains("snake_case spelling wins"),
            "{}",
            p.warnings[0]
        );
        let c = parse("materials: [A, B]\nstaticFriction: 0.9\n")
            .expect("entry")
            .contact;
        assert_eq!(c.static_friction, 0.9);
        assert!(c.extras.is_empty());
    }

    #[test]
    fn misspelt_engine_key_warns() {
        let p = parse("materials: [A, B]\nculling_distance: 0.01\nfriction_model: [cone, direct]\n").expect("entry");
        assert_eq!(p.warnings.len(), 1);
        assert!(
            p.warnings[0].message.contains("did you mean `cullingDistance`?"),
            "{}",
            p.warnings[0]
        );
    }

    #[test]
    fn pairs_of_every_j_less_than_k() {
        let names: Vec<String> = ["A", "B", "C"].map(String::from).to_vec();
        assert_eq!(pairs_of(&names), [("A", "B"), ("A", "C"), ("B", "C")]);
        let same: Vec<String> = ["A", "A"].map(String::from).to_vec();
        assert_eq!(pairs_of(&same), [("A", "A")]);
    }

    #[test]
    fn errors_are_located() {
        let err = parse("materials: [Ground]\n").err().expect("one name");
        assert_eq!(
            err.to_string(),
            "c.yaml:1:12: a contact material needs at least 2 material names, found only `Ground`; \
             write `[Ground, Ground]` for contact of a material with itself"
        );
        let err = parse("materials: [A, B]\nfriction: -0.1\n").err().expect("negative");
        assert_eq!(err.to_string(), "c.yaml:2:11: `friction` must be ≥ 0, found -0.1");
        let err = parse("friction: 0.1\n").err().expect("no materials");
        assert_eq!(err.to_string(), "c.yaml:1:1: missing required key `materials`");
        let err = parse("materials: [A, B]\nrestitution: high\n")
            .err()
            .expect("not a number");
        assert_eq!(
            err.to_string(),
            "c.yaml:2:14: `restitution`: expected a number, found `high`"
        );
    }
}
