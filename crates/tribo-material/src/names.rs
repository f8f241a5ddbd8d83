//! Material names as Choreonoid's global name → id registry sees them
//! (docs/design/choreonoid-formats.md §1.1).
//!
//! Id 0 is registered under both `Default` and `default`, and an empty name also maps to it (the
//! material of a link that names none). Every other name is case-sensitive.

/// The canonical name of the default material.
pub const DEFAULT_MATERIAL: &str = "Default";

/// The name under which `name` is stored and compared: `Default` for `Default`, `default` and the
/// empty name, the name itself otherwise.
pub fn canonical(name: &str) -> &str {
    if is_default(name) {
        DEFAULT_MATERIAL
    } else {
        name
    }
}

/// Whether `name` denotes the default material (id 0).
pub fn is_default(name: &str) -> bool {
    matches!(name, "" | "Default" | "default")
}

/// The unordered pair of two names (Choreonoid's `IdPair` stores `(min, max)`), canonical.
pub(crate) fn pair_key(a: &str, b: &str) -> (String, String) {
    let (a, b) = (canonical(a), canonical(b));
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_spellings_share_one_name() {
        assert_eq!(canonical("default"), "Default");
        assert_eq!(canonical(""), "Default");
        assert_eq!(canonical("DEFAULT"), "DEFAULT", "other spellings are ordinary names");
        assert_eq!(pair_key("default", "Ground"), pair_key("Ground", "Default"));
        assert_ne!(
            pair_key("ground", "Ball"),
            pair_key("Ground", "Ball"),
            "names are case-sensitive"
        );
    }
}
