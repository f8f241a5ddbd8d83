//! Reading a material table from YAML (Choreonoid `MaterialTable::load`, docs/design/choreonoid-formats.md
//! §1.2).
//!
//! A table file's tree is consumed entry by entry: each entry's subtree is freed as soon as it is
//! in the table, and an entry with two names is moved, not copied, into its pair. A 500 000-entry
//! file so costs the tree once, not the tree and the table side by side.

use std::path::Path;

use tribo_yaml::{
    closest, parse_file_with_warnings, parse_str_with_warnings, Diagnostic, Document, Error, Map, Node, Value,
};

use crate::contact::{pairs_of, parse_contact};
use crate::material::parse_material;
use crate::provenance::entry_location;
use crate::table::{Loaded, MaterialTable};

/// The top-level keys a table file reads.
const TOP_LEVEL_KEYS: [&str; 3] = ["materials", "contact_materials", "contactMaterials"];

impl MaterialTable {
    /// Read a material table file. Locations name the path as given. The warnings start with the
    /// file's own (duplicate keys), then the table's.
    pub fn load_file(path: &Path) -> Result<Loaded, Error> {
        read_document(parse_file_with_warnings(path)?)
    }

    /// Parse a material table from text; `file` names it in locations.
    pub fn parse_str(text: &str, file: &str) -> Result<Loaded, Error> {
        read_document(parse_str_with_warnings(text, file)?)
    }

    /// Read a material table from a YAML tree (a file, or a table embedded in a project file).
    ///
    /// Unlike Choreonoid, which warns and skips a material without a name and keeps the entries
    /// read before a bad contact material, any malformed entry makes the whole table an error.
    pub fn from_node(root: &Node) -> Result<Loaded, Error> {
        read_tree(root.clone())
    }
}

fn read_document(document: Document) -> Result<Loaded, Error> {
    let mut loaded = read_tree(document.root)?;
    loaded.warnings.splice(0..0, document.warnings);
    Ok(loaded)
}

/// The table in `root`, taking the two lists out of the tree so each entry is dropped once read.
fn read_tree(root: Node) -> Result<Loaded, Error> {
    let not_a_table = |root: &Node| {
        root.error(format!(
            "expected a material table (a mapping with `materials` and `contact_materials`), found {}",
            root.kind_name()
        ))
    };
    let Node {
        value: Value::Map(mut top),
        ..
    } = root
    else {
        return Err(not_a_table(&root));
    };
    let mut reader = Reader {
        table: MaterialTable::default(),
        warnings: top_level_warnings(&top),
    };
    for item in take_list(&mut top, "materials", "materials")? {
        reader.material(&item)?;
    }
    let (contact_key, contact_warnings) = contact_list_key(&top);
    reader.warnings.extend(contact_warnings);
    if let Some(key) = contact_key {
        for item in take_list(&mut top, key, "contact materials")? {
            reader.contact(&item)?;
        }
    }
    Ok(Loaded {
        table: reader.table,
        warnings: reader.warnings,
    })
}

/// The table being filled and the warnings so far.
struct Reader {
    table: MaterialTable,
    warnings: Vec<Diagnostic>,
}

impl Reader {
    fn material(&mut self, item: &Node) -> Result<(), Error> {
        let (material, material_warnings) = parse_material(item)?;
        self.warnings.extend(material_warnings);
        if let Some(previous) = self.table.material(&material.name) {
            self.warnings.push(Diagnostic::warning(
                entry_location(item),
                format!(
                    "material `{}` is defined again; this definition replaces the one at {} (the last one wins)",
                    material.name,
                    previous
                        .origin
                        .as_ref()
                        .map_or_else(|| "?".to_string(), |o| o.location.to_string()),
                ),
            ));
        }
        self.table.insert_material(material);
        Ok(())
    }

    /// One entry: every pair j<k of its names gets the entry; the last pair takes it by move.
    fn contact(&mut self, item: &Node) -> Result<(), Error> {
        let parsed = parse_contact(item)?;
        self.warnings.extend(parsed.warnings);
        let here = parsed.contact.origin.location.clone();
        let pairs = pairs_of(&parsed.names);
        let mut contact = Some(parsed.contact);
        for (k, &(a, b)) in pairs.iter().enumerate() {
            if let Some(previous) = self.table.pair_entry(a, b) {
                let at = &previous.contact.origin.location;
                if *at != here {
                    self.warnings.push(Diagnostic::warning(
                        here.clone(),
                        format!(
                            "contact material [{a}, {b}] is defined again; this entry replaces the one at {at} \
                             (the last one wins)"
                        ),
                    ));
                }
            }
            let this = if k + 1 == pairs.len() {
                contact.take()
            } else {
                contact.clone()
            };
            if let Some(this) = this {
                self.table.insert_pair(a, b, this);
            }
        }
        Ok(())
    }
}

/// The list under `key`, taken out of `top`, or nothing if absent or empty (`materials:` with no
/// value).
fn take_list(top: &mut Map, key: &str, what: &str) -> Result<Vec<Node>, Error> {
    let Some(entry) = top.entries.iter_mut().find(|e| e.key == key) else {
        return Ok(Vec::new());
    };
    match &mut entry.value.value {
        Value::Null => Ok(Vec::new()),
        Value::Seq(items) => Ok(std::mem::take(items)),
        _ => Err(Error::error(
            entry_location(&entry.value),
            format!("`{key}` must be a list of {what}, found {}", entry.value.kind_name()),
        )),
    }
}

/// Which key holds the contact materials (choreonoid@25994f3eda src/Body/MaterialTable.cpp:255-341):
/// `contact_materials` if it is a list, else `contactMaterials`; the two are never combined. Warnings
/// for a spelling that is present but not used.
fn contact_list_key(top: &Map) -> (Option<&'static str>, Vec<Diagnostic>) {
    let is_list = |node: &Node| matches!(node.value, Value::Seq(_));
    let snake = top.entry("contact_materials");
    let camel = top.entry("contactMaterials");
    match (snake, camel) {
        (Some(s), Some(c)) if is_list(&s.value) => (
            Some("contact_materials"),
            vec![Diagnostic::warning(
                c.key_location.clone(),
                "`contactMaterials` is ignored because `contact_materials` is given",
            )],
        ),
        (Some(s), Some(_)) => (
            Some("contactMaterials"),
            vec![Diagnostic::warning(
                s.key_location.clone(),
                format!(
                    "`contact_materials` is ignored because it is {} rather than a list; `contactMaterials` is used",
                    s.value.kind_name()
                ),
            )],
        ),
        (Some(_), None) => (Some("contact_materials"), Vec::new()),
        (None, Some(_)) => (Some("contactMaterials"), Vec::new()),
        (None, None) => (None, Vec::new()),
    }
}

/// Other top-level keys are ignored (they often only hold YAML anchors), but one that looks like a
/// misspelling of a table key is reported.
fn top_level_warnings(top: &Map) -> Vec<Diagnostic> {
    top.entries
        .iter()
        .filter(|e| !TOP_LEVEL_KEYS.contains(&e.key.as_str()))
        .filter_map(|e| {
            closest(&e.key, TOP_LEVEL_KEYS).map(|known| {
                Diagnostic::warning(
                    e.key_location.clone(),
                    format!("top-level key `{}` is ignored (did you mean `{known}`?)", e.key),
                )
            })
        })
        .collect()
}
