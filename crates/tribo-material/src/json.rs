//! JSON for `tribo materials --json`.

use serde::{Serialize, Serializer};
use serde_json::{json, Value};
use tribo_yaml::Location;

use crate::contact::ContactOrigin;
use crate::lookup::{ContactParams, FallbackInput, ParamOrigin, FALLBACK_FRICTION_RANGE};
use crate::material::Material;
use crate::provenance::ValueSource;
use crate::table::{MaterialTable, PairEntry};

impl MaterialTable {
    /// `{"materials": [...], "contact_materials": [...]}` with every field, extras and source.
    pub fn to_json(&self) -> Value {
        json!({
            "materials": self.materials().iter().map(material_json).collect::<Vec<_>>(),
            "contact_materials": self.pairs().iter().map(pair_entry_json).collect::<Vec<_>>(),
        })
    }
}

impl ContactParams {
    /// `{"static_friction", "dynamic_friction", "restitution", "extras", "source"}`, where `source`
    /// is `{"kind": "entry", "file", "line", "col", "materials", …}` or
    /// `{"kind": "fallback", "inputs": [...], …}`.
    pub fn to_json(&self) -> Value {
        json!({
            "static_friction": self.static_friction,
            "dynamic_friction": self.dynamic_friction,
            "restitution": self.restitution,
            "extras": self.extras.to_json(),
            "source": origin_json(&self.origin),
        })
    }
}

/// A resolved pair with its names: the `--pair A B --json` output.
pub fn pair_json(a: &str, b: &str, params: &ContactParams) -> Value {
    let mut value = params.to_json();
    if let Value::Object(map) = &mut value {
        map.insert("pair".to_string(), json!([a, b]));
    }
    value
}

impl Serialize for MaterialTable {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl Serialize for ContactParams {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

fn material_json(m: &Material) -> Value {
    json!({
        "name": m.name,
        "roughness": m.roughness,
        "viscosity": m.viscosity,
        "stiffness": m.stiffness,
        "damping": m.damping,
        "extras": m.extras.to_json(),
        "source": m.origin.as_ref().map_or(json!("builtin"), |o| location_json(&o.location)),
    })
}

fn pair_entry_json(p: &PairEntry) -> Value {
    let c = &p.contact;
    json!({
        "pair": p.names,
        "static_friction": c.static_friction,
        "dynamic_friction": c.dynamic_friction,
        "restitution": c.restitution,
        "extras": c.extras.to_json(),
        "source": entry_json(&c.origin),
    })
}

fn origin_json(origin: &ParamOrigin) -> Value {
    match origin {
        ParamOrigin::Entry(entry) => entry_json(entry),
        ParamOrigin::Fallback(f) => {
            let (min, max) = FALLBACK_FRICTION_RANGE;
            json!({
                "kind": "fallback",
                "friction_rule": format!("sqrt(r1*r2) clamped to [{min}, {max}]"),
                "restitution_rule": "sqrt(max(0,1-v1)*max(0,1-v2)) clamped to [0, 1]",
                "unclamped_friction": f.unclamped_friction,
                "unclamped_restitution": f.unclamped_restitution,
                "inputs": [input_json(&f.first), input_json(&f.second)],
            })
        }
    }
}

fn entry_json(origin: &ContactOrigin) -> Value {
    let mut value = json!({
        "kind": "entry",
        "materials": origin.materials,
        "static_friction_from": value_source_json(&origin.static_friction),
        "dynamic_friction_from": value_source_json(&origin.dynamic_friction),
        "restitution_from": value_source_json(&origin.restitution),
    });
    extend(&mut value, location_json(&origin.location));
    value
}

fn input_json(input: &FallbackInput) -> Value {
    json!({
        "material": input.name,
        "roughness": input.roughness,
        "viscosity": input.viscosity,
        "stand_in": input.stand_in.as_str(),
        "entry": input.entry.as_ref().map_or(Value::Null, location_json),
        "roughness_from": value_source_json(&input.roughness_from),
        "viscosity_from": value_source_json(&input.viscosity_from),
    })
}

fn value_source_json(source: &ValueSource) -> Value {
    match source {
        ValueSource::Key { key, location } => {
            let mut value = json!({ "key": key });
            extend(&mut value, location_json(location));
            value
        }
        ValueSource::Default => json!("default"),
    }
}

fn location_json(location: &Location) -> Value {
    json!({ "file": &*location.file, "line": location.line, "col": location.col })
}

/// Add the fields of the object `more` to the object `value`.
fn extend(value: &mut Value, more: Value) {
    if let (Value::Object(map), Value::Object(more)) = (value, more) {
        map.extend(more);
    }
}
