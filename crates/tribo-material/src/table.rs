//! The material table: materials and pair entries by name, merging (Choreonoid `MaterialTable`
//! and `merge`, docs/design/choreonoid-formats.md §1.2 and §1.4). Reading one from YAML is in `read`.

use std::collections::{BTreeMap, BTreeSet};

use tribo_yaml::{Diagnostic, Error};

use crate::contact::ContactMaterial;
use crate::material::Material;
use crate::names::{canonical, pair_key};

/// The file name the built-in default table reports in locations.
pub const BUILTIN_DEFAULT_FILE: &str = "${SHARE}/default/materials.yaml";

/// Choreonoid's `share/default/materials.yaml` (MIT, see `share/default/LICENSE-choreonoid.txt`),
/// embedded so the tool never needs the file at run time.
pub const BUILTIN_DEFAULT_TEXT: &str = include_str!("../../../share/default/materials.yaml");

/// A material table: materials by name and contact materials by unordered pair of names.
///
/// Entries keep file order (a redefinition keeps the first one's place), so listings are stable.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MaterialTable {
    materials: Vec<Material>,
    material_index: BTreeMap<String, usize>,
    pairs: Vec<PairEntry>,
    pair_index: BTreeMap<(String, String), usize>,
    /// Every (canonical) name that appears in a pair entry, so [`knows`](Self::knows) is a lookup
    /// rather than a scan of the pairs.
    paired_names: BTreeSet<String>,
}

/// One unordered pair of material names and its contact material.
#[derive(Debug, Clone, PartialEq)]
pub struct PairEntry {
    /// The two names as written in the entry (in entry order).
    pub names: [String; 2],
    pub contact: ContactMaterial,
}

/// A table read from a file, with the warnings reading it produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub table: MaterialTable,
    pub warnings: Vec<Diagnostic>,
}

impl MaterialTable {
    /// Choreonoid's default table, from the embedded copy of `share/default/materials.yaml`.
    pub fn builtin_default() -> Result<MaterialTable, Error> {
        Self::parse_str(BUILTIN_DEFAULT_TEXT, BUILTIN_DEFAULT_FILE).map(|loaded| loaded.table)
    }

    /// Merge `later` into this table (Choreonoid `MaterialTable::merge`,
    /// choreonoid@25994f3eda src/Body/MaterialTable.cpp:242-252):
    /// each material and each pair `later` defines replaces this table's whole entry; there is no
    /// field-wise merge. Entries `later` does not mention are kept.
    pub fn merge(&mut self, later: &MaterialTable) {
        for material in &later.materials {
            self.insert_material(material.clone());
        }
        for entry in &later.pairs {
            self.insert_pair(&entry.names[0], &entry.names[1], entry.contact.clone());
        }
    }

    /// A copy of `base` with each of `later` merged in order: the table a simulation uses
    /// (choreonoid@25994f3eda src/BodyPlugin/WorldItem.cpp:562-584, with the copy Choreonoid intends
    /// rather than its aliasing).
    pub fn merged<'a>(base: &MaterialTable, later: impl IntoIterator<Item = &'a MaterialTable>) -> MaterialTable {
        let mut table = base.clone();
        for t in later {
            table.merge(t);
        }
        table
    }

    /// Add or replace a material (replacement keeps the first definition's place in the listing).
    pub fn insert_material(&mut self, material: Material) {
        let key = canonical(&material.name).to_string();
        match self.material_index.get(&key).and_then(|&i| self.materials.get_mut(i)) {
            Some(slot) => *slot = material,
            None => {
                self.material_index.insert(key, self.materials.len());
                self.materials.push(material);
            }
        }
    }

    /// Add or replace the contact material of the unordered pair (a, b).
    pub fn insert_pair(&mut self, a: &str, b: &str, contact: ContactMaterial) {
        let entry = PairEntry {
            names: [a.to_string(), b.to_string()],
            contact,
        };
        let key = pair_key(a, b);
        match self.pair_index.get(&key).and_then(|&i| self.pairs.get_mut(i)) {
            Some(slot) => *slot = entry,
            None => {
                for name in [&key.0, &key.1] {
                    if !self.paired_names.contains(name) {
                        self.paired_names.insert(name.clone());
                    }
                }
                self.pair_index.insert(key, self.pairs.len());
                self.pairs.push(entry);
            }
        }
    }

    /// The material's own entry (`default` and `Default` are one name), if the table has one.
    pub fn material(&self, name: &str) -> Option<&Material> {
        self.material_index
            .get(canonical(name))
            .and_then(|&i| self.materials.get(i))
    }

    /// The explicit contact-material entry of the unordered pair (a, b), if the table has one.
    pub fn pair_entry(&self, a: &str, b: &str) -> Option<&PairEntry> {
        self.pair_index.get(&pair_key(a, b)).and_then(|&i| self.pairs.get(i))
    }

    /// The materials, in the order they were first defined.
    pub fn materials(&self) -> &[Material] {
        &self.materials
    }

    /// The pair entries, in the order they were first defined.
    pub fn pairs(&self) -> &[PairEntry] {
        &self.pairs
    }

    /// Every name the table knows: the materials, then names that appear only in pair entries,
    /// each once (canonical spelling for the default material), in first-definition order.
    pub fn known_names(&self) -> Vec<&str> {
        let mut seen = std::collections::BTreeSet::new();
        let materials = self.materials.iter().map(|m| m.name.as_str());
        let paired = self.pairs.iter().flat_map(|p| p.names.iter().map(String::as_str));
        materials
            .chain(paired)
            .map(canonical)
            .filter(|n| seen.insert(*n))
            .collect()
    }

    /// Whether the table mentions `name`, as a material or in a pair entry.
    pub fn knows(&self, name: &str) -> bool {
        let name = canonical(name);
        self.material_index.contains_key(name) || self.paired_names.contains(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Loaded {
        MaterialTable::parse_str(text, "t.yaml").expect("table")
    }

    #[test]
    fn builtin_default_parses_without_warnings() {
        let loaded = MaterialTable::parse_str(BUILTIN_DEFAULT_TEXT, BUILTIN_DEFAULT_FILE).expect("default");
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        assert_eq!(loaded.table.materials().len(), 17);
        assert_eq!(loaded.table.pairs().len(), 18);
    }

    #[test]
    fn n_names_give_every_pair() {
        let t = load("contact_materials:\n  - {materials: [A, B, C], friction: 0.2}\n").table;
        assert_eq!(t.pairs().len(), 3);
        for (a, b) in [("A", "B"), ("C", "A"), ("B", "C")] {
            assert_eq!(
                t.pair_entry(a, b).map(|p| p.contact.static_friction),
                Some(0.2),
                "{a}/{b}"
            );
        }
        assert!(t.pair_entry("A", "A").is_none(), "no self pair unless a name repeats");
        assert!(t.knows("C") && !t.knows("D"));
    }

    #[test]
    fn duplicates_warn_and_last_wins() {
        let loaded = load(
            "materials:\n  - {name: A, roughness: 0.1}\n  - {name: B}\n  - {name: A, roughness: 0.2}\n\
             contact_materials:\n  - {materials: [A, B], friction: 0.1}\n  - {materials: [B, A], friction: 0.2}\n",
        );
        let t = &loaded.table;
        assert_eq!(t.material("A").map(|m| m.roughness), Some(0.2));
        assert_eq!(t.materials()[0].name, "A", "a redefinition keeps its place");
        assert_eq!(t.pair_entry("A", "B").map(|p| p.contact.static_friction), Some(0.2));
        let messages: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [
                "t.yaml:4:5: warning: material `A` is defined again; this definition replaces the one at t.yaml:2:5 \
                 (the last one wins)",
                "t.yaml:7:5: warning: contact material [B, A] is defined again; this entry replaces the one at \
                 t.yaml:6:5 (the last one wins)",
            ]
        );
    }

    #[test]
    fn default_spellings_are_one_material() {
        let t = load("materials:\n  - {name: default, roughness: 0.3}\n").table;
        assert_eq!(t.material("Default").map(|m| m.roughness), Some(0.3));
        assert_eq!(t.material("").map(|m| m.roughness), Some(0.3));
    }

    #[test]
    fn contact_list_spellings() {
        let both = load("contact_materials: [{materials: [A, B]}]\ncontactMaterials: [{materials: [C, D]}]\n");
        assert!(both.table.pair_entry("A", "B").is_some() && both.table.pair_entry("C", "D").is_none());
        assert_eq!(both.warnings.len(), 1);
        let camel = load("contact_materials: 3\ncontactMaterials: [{materials: [C, D]}]\n");
        assert!(camel.table.pair_entry("C", "D").is_some());
        assert_eq!(camel.warnings.len(), 1);
        let err = MaterialTable::parse_str("contact_materials: 3\n", "t.yaml").expect_err("not a list");
        assert_eq!(
            err.to_string(),
            "t.yaml:1:20: `contact_materials` must be a list of contact materials, found `3`"
        );
    }

    #[test]
    fn other_top_level_keys_are_ignored_unless_they_look_like_typos() {
        let loaded = load(
            "DEFAULT_CONTACT_MATERIAL: &X {friction: 0.3}\nmaterial:\n  - {name: A}\n\
             contact_materials:\n  - {<<: *X, materials: [A, B]}\n",
        );
        assert_eq!(
            loaded.table.pair_entry("A", "B").map(|p| p.contact.static_friction),
            Some(0.3)
        );
        assert!(loaded.table.materials().is_empty());
        let messages: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            ["t.yaml:2:1: warning: top-level key `material` is ignored (did you mean `materials`?)"]
        );
    }

    #[test]
    fn merge_replaces_whole_entries() {
        let mut base = load("materials:\n  - {name: A, roughness: 0.1, density: 3}\n  - {name: B}\n").table;
        let later = load("materials:\n  - {name: A, viscosity: 0.2}\n  - {name: C}\n").table;
        base.merge(&later);
        let a = base.material("A").expect("A");
        assert_eq!((a.roughness, a.viscosity), (0.5, 0.2), "no field-wise merge");
        assert!(a.extras.is_empty(), "extras of the replaced entry are gone");
        let names: Vec<_> = base.materials().iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["A", "B", "C"]);
    }

    #[test]
    fn duplicate_keys_of_the_file_come_before_the_table_warnings() {
        let loaded = load("materials:\n  - {name: A, roughness: 0.1, roughness: 0.2}\n  - {name: A}\n");
        assert_eq!(loaded.table.material("A").map(|m| m.roughness), Some(0.5));
        let messages: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(
            messages[0]
                .starts_with("t.yaml:2:31: warning: duplicate key `roughness` overrides the one at line 2, column 15"),
            "{}",
            messages[0]
        );
        assert!(messages[1].contains("material `A` is defined again"), "{}", messages[1]);
    }

    #[test]
    fn knows_names_from_materials_and_pair_entries() {
        let mut t = load("materials:\n  - {name: A}\ncontact_materials:\n  - {materials: [B, default]}\n").table;
        assert!(t.knows("A") && t.knows("B") && t.knows("Default"));
        assert!(!t.knows("C"));
        let later = load("contact_materials:\n  - {materials: [C, D]}\n").table;
        t.merge(&later);
        assert!(t.knows("C") && t.knows("D"), "merged pair entries are known");
        assert!(!t.knows("c"), "names are case-sensitive");
    }
}
