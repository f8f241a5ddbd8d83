//! The `.cnoid` item tree: which items tribo reads, and a warning for everything else.
//!
//! A project is `items:`, a tree of `{id, name, plugin, class, data, children}` mappings; the rest
//! of the file (`views`, `toolbars`, …) is GUI state. Only items under a `WorldItem` take part in
//! a simulation, as in Choreonoid.

use tribo_yaml::{closest, Diagnostic, Fields, Location, Node};

/// One item of the tree.
pub struct Item<'a> {
    pub name: String,
    pub class: String,
    /// The item's mapping.
    pub node: &'a Node,
    /// Its `data:` mapping, if any.
    pub data: Option<&'a Node>,
    /// Index in [`Items::bodies`] of the nearest `BodyItem` above this item.
    pub body: Option<usize>,
}

impl Item<'_> {
    /// `Class `name`` for messages.
    pub fn label(&self) -> String {
        format!("{} `{}`", self.class, self.name)
    }

    /// Where the item is named (its mapping, if it has no `name:`).
    pub fn location(&self) -> &Location {
        self.node
            .as_map()
            .ok()
            .and_then(|m| m.get("name"))
            .map_or(&self.node.location, |n| &n.location)
    }
}

/// The items tribo reads, in file order.
#[derive(Default)]
pub struct Items<'a> {
    pub worlds: Vec<Item<'a>>,
    pub bodies: Vec<Item<'a>>,
    pub material_tables: Vec<Item<'a>>,
    pub controllers: Vec<Item<'a>>,
    pub simulators: Vec<Item<'a>>,
}

/// Item keys that only record the tree view's state.
const ITEM_GUI_KEYS: [&str; 7] = [
    "is_checked",
    "isChecked",
    "is_selected",
    "isSelected",
    "is_builtin_item",
    "is_expanded",
    "isExpanded",
];

/// A warning in the one form every ignored thing is reported in.
pub fn ignored(at: &Location, what: impl AsRef<str>) -> Diagnostic {
    Diagnostic::warning(at.clone(), format!("ignored: {}", what.as_ref()))
}

/// Walk the project's `items:` tree.
pub fn collect<'a>(root: &'a Node, warnings: &mut Vec<Diagnostic>) -> Result<Items<'a>, Diagnostic> {
    let f = Fields::new(root, "a Choreonoid project")?;
    let items_node = f.required(&["items"])?;
    for entry in f.unread() {
        let why = if entry.key == "optional_plugins" {
            "Choreonoid plugins to load"
        } else {
            "GUI state"
        };
        warnings.push(ignored(
            &entry.key_location,
            format!("top-level `{}` ({why})", entry.key),
        ));
    }
    let mut items = Items::default();
    walk(items_node, None, false, &mut items, warnings)?;
    Ok(items)
}

fn walk<'a>(
    node: &'a Node,
    body: Option<usize>,
    in_world: bool,
    items: &mut Items<'a>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(), Diagnostic> {
    let f = Fields::new(node, "a project item")?;
    let class = f.required(&["class"])?.as_name()?.to_string();
    let name = match f.get_value(&["name"]) {
        Some(n) => n.as_str()?.to_string(),
        None => class.clone(),
    };
    for key in ["id", "plugin"].iter().chain(ITEM_GUI_KEYS.iter()) {
        f.skip(&[key]);
    }
    let data = f.get_value(&["data"]);
    let children = f.get_value(&["children"]);
    for entry in f.unread() {
        warnings.push(ignored(
            &entry.key_location,
            format!("unknown key `{}` of item `{name}`", entry.key),
        ));
    }
    let item = Item {
        name,
        class,
        node,
        data,
        body,
    };
    let mut child_body = body;
    let mut child_in_world = in_world;
    match item.class.as_str() {
        "RootItem" | "FolderItem" => container_data(&item, warnings),
        "WorldItem" => {
            child_in_world = true;
            items.worlds.push(item);
        }
        _ if !in_world && is_simulation_item(&item.class) => warnings.push(ignored(
            item.location(),
            format!(
                "{} is not under a WorldItem, so Choreonoid does not simulate it",
                item.label()
            ),
        )),
        "BodyItem" => {
            child_body = Some(items.bodies.len());
            items.bodies.push(item);
        }
        "MaterialTableItem" => items.material_tables.push(item),
        "SimpleControllerItem" => items.controllers.push(item),
        class if is_simulator(class) => items.simulators.push(item),
        _ => warnings.push(ignored(
            item.location(),
            format!("{} (tribo has no counterpart for this item class)", item.label()),
        )),
    }
    if let Some(children) = children {
        for child in children.as_seq()? {
            walk(child, child_body, child_in_world, items, warnings)?;
        }
    }
    Ok(())
}

/// A physics simulator item (not a sub-simulator such as the GL vision simulator).
fn is_simulator(class: &str) -> bool {
    class.ends_with("SimulatorItem") && !class.contains("Vision")
}

fn is_simulation_item(class: &str) -> bool {
    matches!(class, "BodyItem" | "MaterialTableItem" | "SimpleControllerItem") || is_simulator(class)
}

/// Containers carry no settings tribo reads.
fn container_data(item: &Item, warnings: &mut Vec<Diagnostic>) {
    let Some(data) = item.data else { return };
    if let Ok(map) = data.as_map() {
        for entry in &map.entries {
            warnings.push(ignored(
                &entry.key_location,
                format!("`{}` of {}", entry.key, item.label()),
            ));
        }
    }
}

/// An item's `data:` mapping as fields; `None` when the item has no data.
pub fn data_fields<'a>(item: &Item<'a>) -> Result<Option<Fields<'a>>, Diagnostic> {
    item.data
        .map(|d| Fields::new(d, &format!("the data of {}", item.label())))
        .transpose()
}

/// Report what `f` left unread: the keys of each group together, with the group's reason, then
/// every other key on its own, with the closest of `known`.
pub fn report_rest(
    f: &Fields,
    item: &Item,
    groups: &[(&[&str], &str)],
    known: &[&str],
    warnings: &mut Vec<Diagnostic>,
) {
    let unread = f.unread();
    for (keys, why) in groups {
        let hits: Vec<_> = unread.iter().filter(|e| keys.contains(&e.key.as_str())).collect();
        if let Some(first) = hits.first() {
            let names: Vec<String> = hits.iter().map(|e| format!("`{}`", e.key)).collect();
            warnings.push(ignored(
                &first.key_location,
                format!("{} of {} ({why})", names.join(", "), item.label()),
            ));
        }
    }
    for e in unread {
        if groups.iter().any(|(keys, _)| keys.contains(&e.key.as_str())) {
            continue;
        }
        let hint = closest(&e.key, known.iter().copied())
            .map(|k| format!("; did you mean `{k}`?"))
            .unwrap_or_default();
        warnings.push(ignored(
            &e.key_location,
            format!("unknown setting `{}` of {}{hint}", e.key, item.label()),
        ));
    }
}
