//! "Did you mean …?" for unknown names.

/// The candidate closest to `name`, if it is close enough to be a plausible typo.
///
/// Closeness is the Damerau–Levenshtein distance on lower-cased names, accepted when it is at most
/// a third of the longer name (at least 1), when they differ only in case and `_`/`-`
/// (`jointtype` vs `joint_type`), or when one is the other cut short by at most two letters
/// (`fix` for `fixed`). Ties go to the candidate listed first, so results are stable.
pub fn closest<'a, I>(name: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let lower = name.to_lowercase();
    let squashed = squash(&lower);
    let mut best: Option<(usize, &'a str)> = None;
    for cand in candidates {
        let c_lower = cand.to_lowercase();
        let c_squashed = squash(&c_lower);
        let shorter = squashed.len().min(c_squashed.len());
        let longer = squashed.len().max(c_squashed.len());
        let (chars, c_chars) = (lower.chars().count(), c_lower.chars().count());
        let limit = (chars.max(c_chars) / 3).max(1);
        let dist = if c_squashed == squashed {
            0
        } else if shorter >= 3
            && longer - shorter <= 2
            && (c_squashed.starts_with(&squashed) || squashed.starts_with(&c_squashed))
        {
            1
        } else if chars.abs_diff(c_chars) > limit {
            // The edit distance is at least the difference in length: too far, without computing it.
            continue;
        } else {
            strsim::damerau_levenshtein(&lower, &c_lower)
        };
        if dist <= limit && best.is_none_or(|(d, _)| dist < d) {
            best = Some((dist, cand));
        }
    }
    best.map(|(_, c)| c)
}

/// ` (did you mean `X`?)` or an empty string, ready to append to a message.
pub fn did_you_mean<'a, I>(name: &str, candidates: I) -> String
where
    I: IntoIterator<Item = &'a str>,
{
    match closest(name, candidates) {
        Some(c) => format!(" (did you mean `{c}`?)"),
        None => String::new(),
    }
}

/// Lower-case without `_`, `-` and spaces, so `jointType` and `joint_type` compare equal.
fn squash(s: &str) -> String {
    s.chars().filter(|c| !matches!(c, '_' | '-' | ' ')).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_typos_and_spelling_variants() {
        let keys = ["friction", "restitution", "static_friction"];
        assert_eq!(closest("frction", keys), Some("friction"));
        assert_eq!(closest("staticFriction", keys), Some("static_friction"));
        assert_eq!(closest("Restitution", keys), Some("restitution"));
        assert_eq!(closest("zzzz", keys), None);
        assert_eq!(
            closest("fix", ["fixed", "file"]),
            Some("fixed"),
            "a prefix counts as close"
        );
    }

    #[test]
    fn suggestion_text() {
        assert_eq!(did_you_mean("Grund", ["Ground", "Ball"]), " (did you mean `Ground`?)");
        assert_eq!(did_you_mean("Qwerty", ["Ground", "Ball"]), "");
    }
}
