//! Unique body names. Choreonoid lets several `BodyItem`s share a name (its `general/Blocks.cnoid`
//! stacks 21 BodyItems all named `box2`), and shows each item under the name it has; a tribo project
//! names every body once, because controllers, signals and metrics refer to bodies by name.
//!
//! The first item keeps its name; the n-th item with the same name becomes `NAME-n` (`box2`,
//! `box2-2`, `box2-3`, …), skipping any name another item already has. One warning at the first
//! item of each shared name lists the renamed items with their lines.

use std::collections::BTreeSet;

use tribo_yaml::Diagnostic;

use super::tree::Item;

/// A unique name for each item, in order, and a warning per name that had to be shared out.
pub fn unique(items: &[Item]) -> (Vec<String>, Vec<Diagnostic>) {
    let mut taken: BTreeSet<String> = items.iter().map(|i| i.name.clone()).collect();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut names = Vec::with_capacity(items.len());
    // Per shared name, in order of first appearance: (first item, renamed items with new names).
    let mut groups: Vec<(usize, Vec<(usize, String)>)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let name = item.name.as_str();
        if seen.insert(name) {
            names.push(name.to_string());
            continue;
        }
        let occurrence = 1 + items[..i].iter().filter(|other| other.name == name).count();
        let mut n = occurrence;
        let mut renamed = format!("{name}-{n}");
        while taken.contains(&renamed) {
            n += 1;
            renamed = format!("{name}-{n}");
        }
        taken.insert(renamed.clone());
        let first = items.iter().position(|other| other.name == name).unwrap_or(i);
        match groups.iter_mut().find(|(f, _)| *f == first) {
            Some((_, list)) => list.push((i, renamed.clone())),
            None => groups.push((first, vec![(i, renamed.clone())])),
        }
        names.push(renamed);
    }
    let warnings = groups
        .into_iter()
        .map(|(first, renamed)| {
            let item = &items[first];
            let list: Vec<String> = renamed
                .iter()
                .map(|(i, new)| format!("`{new}` (line {})", items[*i].location().line))
                .collect();
            Diagnostic::warning(
                item.location().clone(),
                format!(
                    "{} {}s are named `{}`; tribo names each body once, so the later ones are renamed: {}",
                    renamed.len() + 1,
                    item.class,
                    item.name,
                    list.join(", ")
                ),
            )
        })
        .collect();
    (names, warnings)
}
