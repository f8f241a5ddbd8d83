//! `metrics:` — numbers a run is judged by, each with an optional analytic expectation.

use std::sync::Arc;

use tribo_model::ZmpSeq;
use tribo_yaml::{Diagnostic, Fields, Node, Value};

use crate::bodies::{body_index, read_link_ref, BodyEntry};
use crate::reader::Reader;
use crate::LinkRef;

#[derive(Debug, Clone, PartialEq)]
pub struct MetricSpec {
    pub name: String,
    pub kind: MetricKind,
    pub expected: Option<Expected>,
    /// Pass/fail band: |measured − expected| ≤ tolerance (absolute, in the metric's unit).
    pub tolerance: Option<f64>,
    /// Unit shown in reports.
    pub unit: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Expected {
    pub value: ExpectedValue,
    /// The formula as written (for reports).
    pub formula: String,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ExpectedValue {
    Number(f64),
    Bool(bool),
}

/// A time window, s. `end` may be ∞ (the end of the run).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub start: f64,
    pub end: f64,
}

/// How a displacement vector is measured. `x`, `y`, `z` are signed components (a box that sank
/// has a negative `z`); `abs_x`, `abs_y`, `abs_z` their magnitudes, for quantities reported as a
/// size whatever the direction (a walker's lateral drift); `norm` and `horizontal` are lengths.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Axis {
    X,
    Y,
    Z,
    /// |x|.
    AbsX,
    /// |y|.
    AbsY,
    /// |z|.
    AbsZ,
    /// Euclidean norm of the 3-D vector.
    Norm,
    /// Norm of the horizontal (x, y) part.
    Horizontal,
}

#[derive(Debug, Clone, PartialEq)]
pub enum MetricKind {
    /// Mean ratio of successive apex heights of a bouncing link, heights measured above
    /// `rest_height` (the link origin's height when resting); the drop height counts as apex 0.
    /// Apexes lower than `min_height` are ignored; at most `bounces` ratios are averaged.
    BounceRatio {
        link: LinkRef,
        rest_height: f64,
        min_height: f64,
        bounces: usize,
    },
    /// Height above `rest_height` of apex number `index` (1 = first apex after the first impact).
    ApexHeight {
        link: LinkRef,
        rest_height: f64,
        index: usize,
    },
    /// Change of the link origin's position over the window (from the window start to its end),
    /// measured along `axis`: signed for `x`, `y`, `z`.
    Displacement { link: LinkRef, window: Window, axis: Axis },
    /// Change over the window of the position of `link` relative to `reference`, along `axis`
    /// (a grasped object's drop relative to the fingers).
    Slip {
        link: LinkRef,
        reference: LinkRef,
        window: Window,
        axis: Axis,
    },
    /// Tilt of the link: the angle between its up axis (local +z) and that axis at the window
    /// start, degrees — roll and pitch only, a turn about the vertical is not a tilt; maximum over
    /// the window, or at its end.
    Tilt {
        link: LinkRef,
        window: Window,
        reduce: Reduce,
    },
    /// Heading change of the link about world z since the window start, degrees in (−180, 180]
    /// (positive counter-clockwise seen from above): the twist about z of the world-frame rotation
    /// since the start. `max` gives the value of largest magnitude over the window, with its sign;
    /// `final` the value at the window end.
    Yaw {
        link: LinkRef,
        window: Window,
        reduce: Reduce,
    },
    /// Whether the link origin went below `height` (m) at any time.
    Fell { link: LinkRef, height: f64 },
    /// Whether the object stayed within `distance` (m) of `reference` (relative position change)
    /// for the whole window.
    Held {
        link: LinkRef,
        reference: LinkRef,
        window: Window,
        distance: f64,
    },
    /// Deepest contact penetration over the run, m (optionally only contacts involving `body`).
    MaxPenetration { body: Option<usize> },
    /// Largest |E(t) − E(0)| of the total mechanical energy (kinetic + gravitational), J.
    EnergyDrift,
    /// Accumulated horizontal sliding of feet while they stand: between two consecutive samples in
    /// which the normal force from `ground` on a foot exceeds `force_threshold` (N), the foot link
    /// origin's horizontal travel is added, m.
    FootSlip {
        feet: Vec<LinkRef>,
        ground: usize,
        force_threshold: f64,
    },
    /// Horizontal distance between the measured ZMP — the centre of pressure of the vertical
    /// contact forces `ground` exerts on `feet` — and the `planned` ZMP of a motion (its `.seq`
    /// ZMP component, played from t = 0; root-relative points are taken relative to the recorded
    /// root pose of the feet's body), m. Samples in the window where the feet carry less than
    /// `force_threshold` (N) in total are skipped; the result is the RMS or the maximum.
    ZmpError {
        feet: Vec<LinkRef>,
        ground: usize,
        planned: Arc<ZmpSeq>,
        force_threshold: f64,
        window: Window,
        /// [`Reduce::Rms`] or [`Reduce::Max`].
        reduce: Reduce,
    },
    /// Decay length ℓ of the skin deflection of the CSLC pad on `link` at the last step, m: the
    /// per-sphere deflections outside the contact fitted to the 2-D screened-Poisson far field
    /// A·K0(r/ℓ) of a point load (engines without pad lattices report it as not available).
    DecayLength { link: LinkRef },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduce {
    Max,
    Final,
    /// Root mean square over the window (`zmp_error`).
    Rms,
}

const KINDS: [&str; 13] = [
    "bounce_ratio",
    "apex_height",
    "displacement",
    "slip",
    "tilt",
    "yaw",
    "fell",
    "held",
    "max_penetration",
    "energy_drift",
    "foot_slip",
    "zmp_error",
    "decay_length",
];

const KEYS: [&str; 23] = [
    "links",
    "motion",
    "force_threshold",
    "name",
    "kind",
    "body",
    "link",
    "reference_body",
    "reference_link",
    "rest_height",
    "min_height",
    "bounces",
    "index",
    "start",
    "end",
    "axis",
    "reduce",
    "height",
    "distance",
    "expected",
    "tolerance",
    "unit",
    "duration",
];

pub fn read_metric(node: &Node, bodies: &[BodyEntry], reader: &Reader) -> Result<MetricSpec, Diagnostic> {
    let f = Fields::new(node, "a metric")?;
    let name = f.required(&["name"])?.as_name()?.to_string();
    let kind_node = f.required(&["kind"])?;
    let num = |keys: &[&str], default: f64| -> Result<f64, Diagnostic> {
        f.get_value(keys)
            .map(|n| reader.number(n))
            .transpose()
            .map(|v| v.unwrap_or(default))
    };
    let window = || -> Result<Window, Diagnostic> {
        let start = num(&["start"], 0.0)?;
        let end = match f.get_value(&["duration"]) {
            Some(n) => start + reader.number(n)?,
            None => num(&["end"], f64::INFINITY)?,
        };
        Ok(Window { start, end })
    };
    let axis = |default: Axis| -> Result<Axis, Diagnostic> { f.get_value(&["axis"]).map_or(Ok(default), read_axis) };
    let reference = || -> Result<LinkRef, Diagnostic> {
        let body = body_index(bodies, f.required(&["reference_body"])?, reader)?;
        let link = match f.get_value(&["reference_link"]) {
            Some(n) => crate::bodies::find_link(&bodies[body].model, &reader.text(n)?, &n.location)?,
            None => 0,
        };
        Ok(LinkRef { body, link })
    };
    let (kind, unit) = match kind_node.as_name()? {
        "bounce_ratio" => (
            MetricKind::BounceRatio {
                link: read_link_ref(&f, bodies, reader)?,
                rest_height: num(&["rest_height"], 0.0)?,
                min_height: num(&["min_height"], 0.005)?,
                bounces: num(&["bounces"], 3.0)?.max(1.0) as usize,
            },
            "",
        ),
        "apex_height" => (
            MetricKind::ApexHeight {
                link: read_link_ref(&f, bodies, reader)?,
                rest_height: num(&["rest_height"], 0.0)?,
                index: num(&["index"], 1.0)?.max(1.0) as usize,
            },
            "m",
        ),
        "displacement" => (
            MetricKind::Displacement {
                link: read_link_ref(&f, bodies, reader)?,
                window: window()?,
                axis: axis(Axis::Norm)?,
            },
            "m",
        ),
        "slip" => (
            MetricKind::Slip {
                link: read_link_ref(&f, bodies, reader)?,
                reference: reference()?,
                window: window()?,
                axis: axis(Axis::Norm)?,
            },
            "m",
        ),
        "tilt" => (
            MetricKind::Tilt {
                link: read_link_ref(&f, bodies, reader)?,
                window: window()?,
                reduce: read_reduce(&f, &[("max", Reduce::Max), ("final", Reduce::Final)])?,
            },
            "deg",
        ),
        "yaw" => (
            MetricKind::Yaw {
                link: read_link_ref(&f, bodies, reader)?,
                window: window()?,
                reduce: read_reduce(&f, &[("max", Reduce::Max), ("final", Reduce::Final)])?,
            },
            "deg",
        ),
        "fell" => (
            MetricKind::Fell {
                link: read_link_ref(&f, bodies, reader)?,
                height: num(&["height"], 0.0)?,
            },
            "",
        ),
        "held" => (
            MetricKind::Held {
                link: read_link_ref(&f, bodies, reader)?,
                reference: reference()?,
                window: window()?,
                distance: num(&["distance"], 0.01)?,
            },
            "",
        ),
        "max_penetration" => {
            let body = f
                .get_value(&["body"])
                .map(|n| body_index(bodies, n, reader))
                .transpose()?;
            (MetricKind::MaxPenetration { body }, "m")
        }
        "energy_drift" => (MetricKind::EnergyDrift, "J"),
        "foot_slip" => {
            let body = body_index(bodies, f.required(&["body"])?, reader)?;
            let model = &bodies[body].model;
            let mut feet = Vec::new();
            for n in f.required(&["links"])?.as_seq()? {
                let link = crate::bodies::find_link(model, &reader.text(n)?, &n.location)?;
                feet.push(LinkRef { body, link });
            }
            let ground = body_index(bodies, f.required(&["reference_body"])?, reader)?;
            // Default: 5 % of the body's weight, so a lightly touching swing foot is not a stance.
            let weight = model.total_mass() * reader.g;
            let force_threshold = num(&["force_threshold"], 0.05 * weight)?;
            (
                MetricKind::FootSlip {
                    feet,
                    ground,
                    force_threshold,
                },
                "m",
            )
        }
        "zmp_error" => {
            let body = body_index(bodies, f.required(&["body"])?, reader)?;
            let model = &bodies[body].model;
            // Default: every link of the body may stand on the ground.
            let feet = match f.get_value(&["links"]) {
                Some(list) => list
                    .as_seq()?
                    .iter()
                    .map(|n| {
                        let link = crate::bodies::find_link(model, &reader.text(n)?, &n.location)?;
                        Ok(LinkRef { body, link })
                    })
                    .collect::<Result<_, Diagnostic>>()?,
                None => (0..model.links.len()).map(|link| LinkRef { body, link }).collect(),
            };
            let ground = body_index(bodies, f.required(&["reference_body"])?, reader)?;
            let motion_node = f.required(&["motion"])?;
            let motion_path = reader.path(motion_node)?;
            let motion = tribo_model::load_motion(&motion_path).map_err(|e| {
                if e.location.line == 0 {
                    motion_node.error(format!("cannot load motion `{}`: {}", motion_path.display(), e.message))
                } else {
                    e
                }
            })?;
            let planned = motion.zmp.ok_or_else(|| {
                motion_node.error(format!(
                    "motion `{}` has no planned ZMP (a `Vector3Seq` component with `content: ZMP`)",
                    motion_path.display()
                ))
            })?;
            // Default: 10 % of the body's weight, so touch-down transients and flight are skipped.
            let force_threshold = num(&["force_threshold"], 0.1 * model.total_mass() * reader.g)?;
            let reduce = read_reduce(&f, &[("rms", Reduce::Rms), ("max", Reduce::Max)])?;
            (
                MetricKind::ZmpError {
                    feet,
                    ground,
                    planned: Arc::new(planned),
                    force_threshold,
                    window: window()?,
                    reduce,
                },
                "m",
            )
        }
        "decay_length" => (
            MetricKind::DecayLength {
                link: read_link_ref(&f, bodies, reader)?,
            },
            "m",
        ),
        other => {
            let hint = tribo_yaml::did_you_mean(other, KINDS);
            return Err(kind_node.error(format!(
                "unknown metric kind `{other}`{hint}; known kinds: {}",
                KINDS.join(", ")
            )));
        }
    };
    let expected = f
        .get_value(&["expected"])
        .map(|n| read_expected(n, reader))
        .transpose()?;
    let tolerance = f.get_value(&["tolerance"]).map(|n| reader.number(n)).transpose()?;
    let unit = match f.get_value(&["unit"]) {
        Some(n) => n.as_str()?.to_string(),
        None => unit.to_string(),
    };
    reader.warn_unknown(&f, "a metric", &KEYS);
    Ok(MetricSpec {
        name,
        kind,
        expected,
        tolerance,
        unit,
    })
}

const AXES: [(&str, Axis); 8] = [
    ("x", Axis::X),
    ("y", Axis::Y),
    ("z", Axis::Z),
    ("abs_x", Axis::AbsX),
    ("abs_y", Axis::AbsY),
    ("abs_z", Axis::AbsZ),
    ("norm", Axis::Norm),
    ("horizontal", Axis::Horizontal),
];

fn read_axis(node: &Node) -> Result<Axis, Diagnostic> {
    let name = node.as_name()?;
    // `X`, `Y`, `Z` as Choreonoid writes axes.
    let lower = if name.len() == 1 {
        name.to_lowercase()
    } else {
        name.to_string()
    };
    if let Some((_, axis)) = AXES.iter().find(|(n, _)| *n == lower) {
        return Ok(*axis);
    }
    let names: Vec<&str> = AXES.iter().map(|(n, _)| *n).collect();
    let hint = tribo_yaml::did_you_mean(name, names.iter().copied());
    Err(node.error(format!("unknown axis `{name}`{hint}; expected {}", names.join(", "))))
}

/// `reduce:` of a metric, one of `choices` (the first is the default).
fn read_reduce(f: &Fields, choices: &[(&str, Reduce)]) -> Result<Reduce, Diagnostic> {
    let Some(node) = f.get_value(&["reduce"]) else {
        return Ok(choices.first().map_or(Reduce::Max, |c| c.1));
    };
    let name = node.as_name()?;
    if let Some((_, reduce)) = choices.iter().find(|(n, _)| *n == name) {
        return Ok(*reduce);
    }
    let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
    let hint = tribo_yaml::did_you_mean(name, names.iter().copied());
    Err(node.error(format!(
        "unknown reduce `{name}`{hint}; expected {}",
        names.join(" or ")
    )))
}

fn read_expected(node: &Node, reader: &Reader) -> Result<Expected, Diagnostic> {
    let formula = match &node.value {
        Value::Scalar { text, .. } => text.clone(),
        _ => {
            return Err(node.error(format!(
                "expected a number, a formula or true/false, found {}",
                node.kind_name()
            )))
        }
    };
    let value = match node.as_bool() {
        Ok(b) => ExpectedValue::Bool(b),
        Err(_) => ExpectedValue::Number(reader.number(node)?),
    };
    Ok(Expected { value, formula })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::{LoadOptions, Project};

    /// A box on a floor with one metric written as `metric` (a flow mapping).
    fn load(metric: &str) -> Result<Project, Diagnostic> {
        let text = format!(
            "name: m\nbodies:\n  - {{ name: floor, model: \"${{SHARE}}/model/floor.body\", fixed: true }}\n  \
             - {{ name: box, model: \"${{SHARE}}/model/box10.body\" }}\nmetrics:\n  - {metric}\n"
        );
        let node = tribo_yaml::parse_str(&text, "m.yaml")?;
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let options = LoadOptions {
            share_dir: root.join("share"),
            ..Default::default()
        };
        Project::from_node(&node, &root.join("m.yaml"), &options)
    }

    fn kind(metric: &str) -> MetricKind {
        match load(metric) {
            Ok(p) => p.metrics[0].kind.clone(),
            Err(e) => MetricKind::DecayLength {
                link: LinkRef {
                    body: usize::MAX,
                    link: e.location.line,
                },
            },
        }
    }

    fn error(metric: &str) -> String {
        load(metric).map(|_| ()).expect_err("an error").to_string()
    }

    #[test]
    fn axes_are_signed_components_magnitudes_or_lengths() {
        for (name, axis) in AXES.iter().chain(&[("X", Axis::X), ("Z", Axis::Z)]) {
            let k = kind(&format!("{{ name: d, kind: displacement, body: box, axis: {name} }}"));
            assert!(
                matches!(k, MetricKind::Displacement { axis: a, .. } if a == *axis),
                "{name}: {k:?}"
            );
        }
        let e = error("{ name: d, kind: displacement, body: box, axis: absy }");
        assert!(
            e.starts_with("m.yaml:6:53: unknown axis `absy` (did you mean `abs_y`?)"),
            "{e}"
        );
    }

    #[test]
    fn yaw_and_tilt_read_max_or_final() {
        let k = kind("{ name: h, kind: yaw, body: box, reduce: final, start: 1 }");
        assert!(
            matches!(k, MetricKind::Yaw { reduce: Reduce::Final, window, .. } if window.start == 1.0),
            "{k:?}"
        );
        let k = kind("{ name: h, kind: yaw, body: box }");
        assert!(
            matches!(
                k,
                MetricKind::Yaw {
                    reduce: Reduce::Max,
                    ..
                }
            ),
            "{k:?}"
        );
        let k = kind("{ name: t, kind: tilt, body: box, reduce: final }");
        assert!(
            matches!(
                k,
                MetricKind::Tilt {
                    reduce: Reduce::Final,
                    ..
                }
            ),
            "{k:?}"
        );
        let e = error("{ name: h, kind: yaw, body: box, reduce: fianl }");
        assert!(
            e.starts_with("m.yaml:6:46: unknown reduce `fianl` (did you mean `final`?); expected max or final"),
            "{e}"
        );
        let e = error("{ name: h, kind: yaww, body: box }");
        assert!(e.contains("unknown metric kind `yaww` (did you mean `yaw`?)"), "{e}");
        let e = error("{ name: z, kind: zmp_error, body: box, reference_body: floor, motion: samples/slippy-walker/walk.seq, reduce: mx }");
        assert!(e.contains("unknown reduce `mx`"), "{e}");
    }
}
