//! A table written back as Choreonoid's YAML (`tribo materials --yaml`), with serde_yaml.

use serde_json::{json, Map, Value};

use crate::extras::Extras;
use crate::material::Material;
use crate::table::{MaterialTable, PairEntry};

impl MaterialTable {
    /// The table as a material-table file (`materials`, `contact_materials`) that loads back to
    /// the same table: every material's roughness and viscosity (stiffness and damping when not
    /// 0), every entry's frictions (`friction` when static and dynamic are equal) and
    /// restitution, and every extra key as written. Entries are one pair each, in table order.
    pub fn to_yaml(&self) -> Result<String, serde_yaml::Error> {
        let table = json!({
            "materials": self.materials().iter().map(material).collect::<Vec<_>>(),
            "contact_materials": self.pairs().iter().map(pair).collect::<Vec<_>>(),
        });
        serde_yaml::to_string(&table)
    }
}

fn material(m: &Material) -> Value {
    let mut out = Map::new();
    out.insert("name".into(), json!(m.name));
    out.insert("roughness".into(), json!(m.roughness));
    out.insert("viscosity".into(), json!(m.viscosity));
    if m.stiffness != 0.0 {
        out.insert("stiffness".into(), json!(m.stiffness));
    }
    if m.damping != 0.0 {
        out.insert("damping".into(), json!(m.damping));
    }
    add_extras(&mut out, &m.extras);
    Value::Object(out)
}

fn pair(entry: &PairEntry) -> Value {
    let c = &entry.contact;
    let mut out = Map::new();
    out.insert("materials".into(), json!(entry.names));
    if c.static_friction == c.dynamic_friction {
        out.insert("friction".into(), json!(c.static_friction));
    } else {
        out.insert("static_friction".into(), json!(c.static_friction));
        out.insert("dynamic_friction".into(), json!(c.dynamic_friction));
    }
    out.insert("restitution".into(), json!(c.restitution));
    add_extras(&mut out, &c.extras);
    Value::Object(out)
}

fn add_extras(out: &mut Map<String, Value>, extras: &Extras) {
    for entry in extras.iter() {
        out.insert(entry.key.clone(), crate::extras::node_to_json(&entry.value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "materials:
  - { name: Rubber, roughness: 0.9, viscosity: 0.2, stiffness: 1.0e5, youngs_modulus: 2.0e6 }
  - { name: Steel, roughness: 0.3 }
contact_materials:
  - { materials: [Rubber, Steel], static_friction: 0.8, dynamic_friction: 0.6, restitution: 0.3, cullingDistance: 0.01 }
  - { materials: [Steel, Steel], friction: 0.15, restitution: 0.1, cslc: { anchor_stiffness: 1.0e9 } }
";

    #[test]
    fn a_written_table_loads_back_to_the_same_pairs_and_materials() {
        let mut table = MaterialTable::builtin_default().expect("default table");
        table.merge(&MaterialTable::parse_str(TABLE, "t.yaml").expect("valid").table);
        let text = table.to_yaml().expect("writes");
        let back = MaterialTable::parse_str(&text, "written.yaml")
            .expect("loads back")
            .table;
        assert_eq!(back.known_names(), table.known_names());
        for a in table.known_names() {
            let (ma, mb) = (table.material(a).expect("known"), back.material(a).expect("known"));
            assert_eq!(
                (
                    ma.roughness,
                    ma.viscosity,
                    ma.stiffness,
                    ma.damping,
                    ma.extras.to_json()
                ),
                (
                    mb.roughness,
                    mb.viscosity,
                    mb.stiffness,
                    mb.damping,
                    mb.extras.to_json()
                ),
                "{a}"
            );
            for b in table.known_names() {
                let (x, y) = (table.contact(a, b), back.contact(a, b));
                assert_eq!(
                    (x.static_friction, x.dynamic_friction, x.restitution, x.extras.to_json()),
                    (y.static_friction, y.dynamic_friction, y.restitution, y.extras.to_json()),
                    "{a}/{b}"
                );
            }
        }
        assert!(text.contains("cullingDistance: 0.01"), "{text}");
    }
}
