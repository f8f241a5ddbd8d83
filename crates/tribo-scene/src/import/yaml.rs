//! Project trees and specs as serde_yaml values, for writing a project file.

use serde_yaml::{Mapping, Value};
use tribo_yaml::Node;

use crate::{Axis, ExpectedValue, LinkRef, MetricKind, MetricSpec, Reduce, Scene, Window};

/// A located tree as a YAML value that reads back to the same tree: quoted text stays text
/// (serde_yaml quotes it where it would read as something else), plain scalars that are numbers
/// or booleans are written as such, so they read back as the same text's value.
pub fn node_value(node: &Node) -> Value {
    match &node.value {
        tribo_yaml::Value::Null => Value::Null,
        tribo_yaml::Value::Scalar { text, quoted: true } => Value::String(text.clone()),
        tribo_yaml::Value::Scalar { text, quoted: false } => plain(text),
        tribo_yaml::Value::Seq(items) => Value::Sequence(items.iter().map(node_value).collect()),
        tribo_yaml::Value::Map(map) => Value::Mapping(
            map.entries
                .iter()
                .map(|e| (Value::String(e.key.clone()), node_value(&e.value)))
                .collect(),
        ),
    }
}

/// A plain scalar: a boolean, a whole number, a finite number whose shortest form reads back the
/// same, else its text.
fn plain(text: &str) -> Value {
    match text {
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        _ => {}
    }
    if let Ok(n) = text.parse::<u64>() {
        return Value::Number(n.into());
    }
    if let Ok(n) = text.parse::<i64>() {
        return Value::Number(n.into());
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && text.chars().all(|c| c.is_ascii_digit() || ".-+eE".contains(c)) => {
            Value::Number(v.into())
        }
        _ => Value::String(text.to_string()),
    }
}

pub fn number(v: f64) -> Value {
    Value::Number(v.into())
}

pub fn text(s: impl Into<String>) -> Value {
    Value::String(s.into())
}

/// A mapping from `(key, value)` pairs in order.
pub fn map<const N: usize>(entries: [(&str, Value); N]) -> Mapping {
    entries.into_iter().map(|(k, v)| (text(k), v)).collect()
}

/// A metric as a `metrics:` entry of a project naming `scene`'s bodies and links; `Err` for a
/// metric the project format cannot name (a ZMP error against a plan computed in code).
pub fn metric_value(spec: &MetricSpec, scene: &Scene) -> Result<Value, String> {
    let body = |b: usize| text(scene.bodies.get(b).map_or("", |b| b.name.as_str()));
    let link_name = |l: &LinkRef| {
        scene
            .bodies
            .get(l.body)
            .and_then(|b| b.model.links.get(l.link))
            .map_or(String::new(), |link| link.name.clone())
    };
    let mut m = map([("name", text(spec.name.clone()))]);
    let mut put = |key: &str, value: Value| {
        m.insert(text(key), value);
    };
    let link = |put: &mut dyn FnMut(&str, Value), l: &LinkRef| {
        put("body", body(l.body));
        put("link", text(link_name(l)));
    };
    let window = |put: &mut dyn FnMut(&str, Value), w: &Window| {
        if w.start != 0.0 {
            put("start", number(w.start));
        }
        if w.end.is_finite() {
            put("end", number(w.end));
        }
    };
    let unit = match &spec.kind {
        MetricKind::BounceRatio {
            link: l,
            rest_height,
            min_height,
            bounces,
        } => {
            put("kind", text("bounce_ratio"));
            link(&mut put, l);
            put("rest_height", number(*rest_height));
            put("min_height", number(*min_height));
            put("bounces", Value::Number((*bounces as u64).into()));
            ""
        }
        MetricKind::ApexHeight {
            link: l,
            rest_height,
            index,
        } => {
            put("kind", text("apex_height"));
            link(&mut put, l);
            put("rest_height", number(*rest_height));
            put("index", Value::Number((*index as u64).into()));
            "m"
        }
        MetricKind::Displacement {
            link: l,
            window: w,
            axis,
        } => {
            put("kind", text("displacement"));
            link(&mut put, l);
            put("axis", text(axis_name(*axis)));
            window(&mut put, w);
            "m"
        }
        MetricKind::Slip {
            link: l,
            reference,
            window: w,
            axis,
        } => {
            put("kind", text("slip"));
            link(&mut put, l);
            put("reference_body", body(reference.body));
            put("reference_link", text(link_name(reference)));
            put("axis", text(axis_name(*axis)));
            window(&mut put, w);
            "m"
        }
        MetricKind::Tilt {
            link: l,
            window: w,
            reduce,
        } => {
            put("kind", text("tilt"));
            link(&mut put, l);
            put("reduce", text(reduce_name(*reduce)));
            window(&mut put, w);
            "deg"
        }
        MetricKind::Yaw {
            link: l,
            window: w,
            reduce,
        } => {
            put("kind", text("yaw"));
            link(&mut put, l);
            put("reduce", text(reduce_name(*reduce)));
            window(&mut put, w);
            "deg"
        }
        MetricKind::Fell { link: l, height } => {
            put("kind", text("fell"));
            link(&mut put, l);
            put("height", number(*height));
            ""
        }
        MetricKind::Held {
            link: l,
            reference,
            window: w,
            distance,
        } => {
            put("kind", text("held"));
            link(&mut put, l);
            put("reference_body", body(reference.body));
            put("reference_link", text(link_name(reference)));
            put("distance", number(*distance));
            window(&mut put, w);
            ""
        }
        MetricKind::MaxPenetration { body: b } => {
            put("kind", text("max_penetration"));
            if let Some(b) = b {
                put("body", body(*b));
            }
            "m"
        }
        MetricKind::EnergyDrift => {
            put("kind", text("energy_drift"));
            "J"
        }
        MetricKind::FootSlip {
            feet,
            ground,
            force_threshold,
        } => {
            put("kind", text("foot_slip"));
            put("body", body(feet.first().map_or(0, |f| f.body)));
            put(
                "links",
                Value::Sequence(feet.iter().map(|f| text(link_name(f))).collect()),
            );
            put("reference_body", body(*ground));
            put("force_threshold", number(*force_threshold));
            "m"
        }
        MetricKind::DecayLength { link: l } => {
            put("kind", text("decay_length"));
            link(&mut put, l);
            "m"
        }
        MetricKind::ZmpError { .. } => {
            return Err(format!(
                "metric `{}` compares with a ZMP plan that is no file: a project cannot name it",
                spec.name
            ))
        }
    };
    if let Some(expected) = &spec.expected {
        let value = match expected.value {
            ExpectedValue::Bool(b) => Value::Bool(b),
            ExpectedValue::Number(_) => plain(&expected.formula),
        };
        put("expected", value);
    }
    if let Some(tolerance) = spec.tolerance {
        put("tolerance", number(tolerance));
    }
    if spec.unit != unit {
        put("unit", text(spec.unit.clone()));
    }
    Ok(Value::Mapping(m))
}

fn axis_name(axis: Axis) -> &'static str {
    match axis {
        Axis::X => "x",
        Axis::Y => "y",
        Axis::Z => "z",
        Axis::AbsX => "abs_x",
        Axis::AbsY => "abs_y",
        Axis::AbsZ => "abs_z",
        Axis::Norm => "norm",
        Axis::Horizontal => "horizontal",
    }
}

fn reduce_name(reduce: Reduce) -> &'static str {
    match reduce {
        Reduce::Max => "max",
        Reduce::Final => "final",
        Reduce::Rms => "rms",
    }
}

/// The project file's text: `comment` lines, then the YAML of `top` with lists of numbers on one
/// line.
pub fn project_text(comment: &[String], top: Mapping) -> Result<String, String> {
    let yaml = serde_yaml::to_string(&Value::Mapping(top)).map_err(|e| format!("cannot write YAML: {e}"))?;
    let mut out: String = comment
        .iter()
        .map(|line| {
            if line.is_empty() {
                "#\n".to_string()
            } else {
                format!("# {line}\n")
            }
        })
        .collect();
    out.push_str(&tribo_yaml::flow_scalar_lists(&yaml));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_scalars_keep_their_type() {
        assert_eq!(plain("0.002"), number(0.002));
        assert_eq!(plain("6"), Value::Number(6u64.into()));
        assert_eq!(plain("-3"), Value::Number((-3i64).into()));
        assert_eq!(plain("true"), Value::Bool(true));
        assert_eq!(plain("rad(10)"), text("rad(10)"));
        assert_eq!(plain("inf"), text("inf"));
        assert_eq!(plain("1e400"), text("1e400"));
    }
}
