//! Unread keys: Choreonoid keeps unknown keys as extra information without a word, so only
//! likely typos of a known key are reported (a misspelt `joint_type` silently makes a fixed
//! joint otherwise).

use tribo_yaml::{closest, Diagnostic, Fields};

/// A warning for every unread key that is a known key's second spelling (both spellings were
/// given; the first listed wins) or that is close to a known key.
pub fn typo_warnings(f: &Fields, context: &str, known: &[&str], notes: &mut Vec<Diagnostic>) {
    for entry in f.unread() {
        let key = entry.key.as_str();
        if known.contains(&key) {
            notes.push(Diagnostic::warning(
                entry.key_location.clone(),
                format!("`{key}` in {context} is ignored: the same key is also given in another spelling"),
            ));
        } else if let Some(near) = closest(key, known.iter().copied()) {
            notes.push(Diagnostic::warning(
                entry.key_location.clone(),
                format!("unknown key `{key}` in {context} is not read (did you mean `{near}`?)"),
            ));
        }
    }
}
