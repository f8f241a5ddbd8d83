//! Human-readable explanations: where each resolved number came from.

use crate::contact::ContactOrigin;
use crate::lookup::{ContactParams, Fallback, FallbackInput, ParamOrigin, StandIn, FALLBACK_FRICTION_RANGE};
use crate::names::{is_default, DEFAULT_MATERIAL};
use crate::provenance::ValueSource;

impl ContactParams {
    /// One line per number (static friction, dynamic friction, restitution) saying where it came
    /// from, e.g. `static friction 0.707107 = √(1.0 · 0.5) (fallback: Ground roughness 1.0 from
    /// FILE:8:5, Ball roughness 0.5 from FILE:13:5)`.
    pub fn explain(&self) -> Vec<String> {
        match &self.origin {
            ParamOrigin::Entry(origin) => explain_entry(self, origin),
            ParamOrigin::Fallback(fallback) => explain_fallback(self, fallback),
        }
    }
}

fn explain_entry(p: &ContactParams, origin: &ContactOrigin) -> Vec<String> {
    let entry = format!(
        "contact material [{}] at {}",
        origin.materials.join(", "),
        origin.location
    );
    let line = |what: &str, value: f64, source: &ValueSource, default_note: &str| match source {
        ValueSource::Key { key, location } => format!("{what} {} = `{key}` at {location} ({entry})", fmt_num(value)),
        ValueSource::Default => format!("{what} {}: {default_note} ({entry})", fmt_num(value)),
    };
    vec![
        line(
            "static friction",
            p.static_friction,
            &origin.static_friction,
            "not given (no `friction` or `static_friction`), default",
        ),
        line(
            "dynamic friction",
            p.dynamic_friction,
            &origin.dynamic_friction,
            "not given (no `friction` or `dynamic_friction`), default",
        ),
        line("restitution", p.restitution, &origin.restitution, "not given, default"),
    ]
}

fn explain_fallback(p: &ContactParams, f: &Fallback) -> Vec<String> {
    let (min, max) = FALLBACK_FRICTION_RANGE;
    let friction_clamp = clamp_note(f.unclamped_friction, p.static_friction, min, max);
    let restitution_clamp = clamp_note(f.unclamped_restitution, p.restitution, 0.0, 1.0);
    vec![
        format!(
            "static friction {} = √({} · {}){friction_clamp} (fallback: {}, {})",
            fmt_num(p.static_friction),
            fmt_num(f.first.roughness),
            fmt_num(f.second.roughness),
            describe_input(&f.first, "roughness", f.first.roughness, &f.first.roughness_from),
            describe_input(&f.second, "roughness", f.second.roughness, &f.second.roughness_from),
        ),
        format!(
            "dynamic friction {} = static friction (the fallback sets both)",
            fmt_num(p.dynamic_friction)
        ),
        format!(
            "restitution {} = √(max(0, 1 − {}) · max(0, 1 − {})){restitution_clamp} (fallback: {}, {})",
            fmt_num(p.restitution),
            fmt_num(f.first.viscosity),
            fmt_num(f.second.viscosity),
            describe_input(&f.first, "viscosity", f.first.viscosity, &f.first.viscosity_from),
            describe_input(&f.second, "viscosity", f.second.viscosity, &f.second.viscosity_from),
        ),
    ]
}

fn clamp_note(unclamped: f64, value: f64, min: f64, max: f64) -> String {
    if unclamped == value {
        String::new()
    } else {
        format!(
            " = {} clamped to [{}, {}]",
            fmt_num(unclamped),
            fmt_num(min),
            fmt_num(max)
        )
    }
}

/// E.g. `Ball roughness 0.5 from FILE:13:5`, or for a name without an entry
/// `Sol roughness 1.0 from Default at FILE:4:5 (Sol has no material entry)`.
fn describe_input(input: &FallbackInput, field: &str, value: f64, source: &ValueSource) -> String {
    let name = &input.name;
    let value = fmt_num(value);
    let entry = input
        .entry
        .as_ref()
        .map_or_else(|| "?".to_string(), ToString::to_string);
    match (input.stand_in, source) {
        (StandIn::Own, ValueSource::Key { location, .. }) => format!("{name} {field} {value} from {location}"),
        (StandIn::Own, ValueSource::Default) => {
            format!("{name} {field} {value} (default; not given in {name}'s entry at {entry})")
        }
        (StandIn::DefaultEntry, ValueSource::Key { location, .. }) => {
            format!("{name} {field} {value} from {DEFAULT_MATERIAL} at {location} ({name} has no material entry)")
        }
        (StandIn::DefaultEntry, ValueSource::Default) => format!(
            "{name} {field} {value} (default; {name} has no material entry and {DEFAULT_MATERIAL}'s entry at \
             {entry} gives none)"
        ),
        (StandIn::Builtin, _) if is_default(name) => {
            format!("{name} {field} {value} (built-in default; no table defines {DEFAULT_MATERIAL})")
        }
        (StandIn::Builtin, _) => format!(
            "{name} {field} {value} (built-in default; neither {name} nor {DEFAULT_MATERIAL} has a material entry)"
        ),
    }
}

/// A number for people: integers with one decimal (`1.0`), others to 6 significant digits.
pub fn fmt_num(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x == x.trunc() && x.abs() < 1e15 {
        return format!("{x:.1}");
    }
    let magnitude = x.abs().log10().floor();
    if !(-4.0..15.0).contains(&magnitude) {
        return format!("{x:e}");
    }
    // Six significant digits, trailing zeros removed.
    let decimals = (5.0 - magnitude).max(0.0) as usize;
    let text = format!("{x:.decimals$}");
    let trimmed = text.trim_end_matches('0');
    trimmed
        .strip_suffix('.')
        .map_or_else(|| trimmed.to_string(), |t| format!("{t}.0"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_for_people() {
        assert_eq!(fmt_num(1.0), "1.0");
        assert_eq!(fmt_num(0.0), "0.0");
        assert_eq!(fmt_num(0.5), "0.5");
        assert_eq!(fmt_num(0.5f64.sqrt()), "0.707107");
        assert_eq!(fmt_num(0.64), "0.64");
        assert_eq!(fmt_num(244.94897427831782), "244.949");
        assert_eq!(fmt_num(1e-8), "1e-8");
        assert_eq!(fmt_num(0.01), "0.01");
    }
}
