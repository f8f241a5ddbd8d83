//! `metrics:` — numbers a run is judged by, each with an optional analytic expectation.

use std::sync::Arc;

use serde::Deserialize;
use tribo_model::ZmpSeq;
use tribo_yaml::{Diagnostic, Located, Node, Value};

use crate::bodies::{body_index, find_link, link_ref, BodyEntry};
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
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    // `X`, `Y`, `Z` as Choreonoid writes axes.
    #[serde(alias = "X")]
    X,
    #[serde(alias = "Y")]
    Y,
    #[serde(alias = "Z")]
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

/// A metric as written: the keys of every kind (each kind reads its own; a key nothing knows is
/// a warning). Names stay nodes, resolved against the bodies with their locations.
#[derive(Deserialize)]
struct MetricFile {
    name: Located<String>,
    kind: Located<String>,
    body: Option<Node>,
    link: Option<Node>,
    reference_body: Option<Node>,
    reference_link: Option<Node>,
    links: Option<Vec<Node>>,
    motion: Option<Node>,
    force_threshold: Option<f64>,
    rest_height: Option<f64>,
    min_height: Option<f64>,
    bounces: Option<f64>,
    index: Option<f64>,
    start: Option<f64>,
    end: Option<f64>,
    duration: Option<f64>,
    axis: Option<Axis>,
    reduce: Option<Node>,
    height: Option<f64>,
    distance: Option<f64>,
    expected: Option<Node>,
    tolerance: Option<f64>,
    unit: Option<String>,
}

/// The value of a key a kind needs.
fn required<'a>(value: &'a Option<Node>, key: &str, metric: &Node) -> Result<&'a Node, Diagnostic> {
    value
        .as_ref()
        .ok_or_else(|| metric.error(format!("missing required key `{key}` in a metric")))
}

pub fn read_metric(node: &Node, bodies: &[BodyEntry], reader: &Reader) -> Result<MetricSpec, Diagnostic> {
    let m: MetricFile = reader.read(node, "a metric")?;
    if m.name.trim().is_empty() {
        return Err(m.name.error("expected a name, found empty text"));
    }
    let link = || link_ref(bodies, required(&m.body, "body", node)?, m.link.as_ref(), reader);
    let reference = || {
        let body = required(&m.reference_body, "reference_body", node)?;
        link_ref(bodies, body, m.reference_link.as_ref(), reader)
    };
    let start = m.start.unwrap_or(0.0);
    let window = Window {
        start,
        end: m.duration.map_or(m.end.unwrap_or(f64::INFINITY), |d| start + d),
    };
    let axis = m.axis.unwrap_or(Axis::Norm);
    let max_or_final = [("max", Reduce::Max), ("final", Reduce::Final)];
    let feet_of = |body: usize, list: &[Node]| -> Result<Vec<LinkRef>, Diagnostic> {
        let model = &bodies[body].model;
        list.iter()
            .map(|n| {
                Ok(LinkRef {
                    body,
                    link: find_link(model, &reader.text(n)?, &n.location)?,
                })
            })
            .collect()
    };
    let (kind, unit) = match m.kind.as_str() {
        "bounce_ratio" => (
            MetricKind::BounceRatio {
                link: link()?,
                rest_height: m.rest_height.unwrap_or(0.0),
                min_height: m.min_height.unwrap_or(0.005),
                bounces: m.bounces.unwrap_or(3.0).max(1.0) as usize,
            },
            "",
        ),
        "apex_height" => (
            MetricKind::ApexHeight {
                link: link()?,
                rest_height: m.rest_height.unwrap_or(0.0),
                index: m.index.unwrap_or(1.0).max(1.0) as usize,
            },
            "m",
        ),
        "displacement" => (
            MetricKind::Displacement {
                link: link()?,
                window,
                axis,
            },
            "m",
        ),
        "slip" => (
            MetricKind::Slip {
                link: link()?,
                reference: reference()?,
                window,
                axis,
            },
            "m",
        ),
        "tilt" => (
            MetricKind::Tilt {
                link: link()?,
                window,
                reduce: read_reduce(m.reduce.as_ref(), &max_or_final)?,
            },
            "deg",
        ),
        "yaw" => (
            MetricKind::Yaw {
                link: link()?,
                window,
                reduce: read_reduce(m.reduce.as_ref(), &max_or_final)?,
            },
            "deg",
        ),
        "fell" => (
            MetricKind::Fell {
                link: link()?,
                height: m.height.unwrap_or(0.0),
            },
            "",
        ),
        "held" => (
            MetricKind::Held {
                link: link()?,
                reference: reference()?,
                window,
                distance: m.distance.unwrap_or(0.01),
            },
            "",
        ),
        "max_penetration" => {
            let body = m.body.as_ref().map(|n| body_index(bodies, n, reader)).transpose()?;
            (MetricKind::MaxPenetration { body }, "m")
        }
        "energy_drift" => (MetricKind::EnergyDrift, "J"),
        "foot_slip" => {
            let body = body_index(bodies, required(&m.body, "body", node)?, reader)?;
            let links = m
                .links
                .as_deref()
                .ok_or_else(|| node.error("missing required key `links` in a metric"))?;
            let feet = feet_of(body, links)?;
            let ground = body_index(bodies, required(&m.reference_body, "reference_body", node)?, reader)?;
            // Default: 5 % of the body's weight, so a lightly touching swing foot is not a stance.
            let weight = bodies[body].model.total_mass() * reader.g;
            let force_threshold = m.force_threshold.unwrap_or(0.05 * weight);
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
            let body = body_index(bodies, required(&m.body, "body", node)?, reader)?;
            let model = &bodies[body].model;
            // Default: every link of the body may stand on the ground.
            let feet = match m.links.as_deref() {
                Some(list) => feet_of(body, list)?,
                None => (0..model.links.len()).map(|link| LinkRef { body, link }).collect(),
            };
            let ground = body_index(bodies, required(&m.reference_body, "reference_body", node)?, reader)?;
            let motion_node = required(&m.motion, "motion", node)?;
            let (motion_path, motion) = reader.motion(motion_node)?;
            let planned = motion.zmp.ok_or_else(|| {
                motion_node.error(format!(
                    "motion `{}` has no planned ZMP (a `Vector3Seq` component with `content: ZMP`)",
                    motion_path.display()
                ))
            })?;
            // Default: 10 % of the body's weight, so touch-down transients and flight are skipped.
            let force_threshold = m.force_threshold.unwrap_or(0.1 * model.total_mass() * reader.g);
            let reduce = read_reduce(m.reduce.as_ref(), &[("rms", Reduce::Rms), ("max", Reduce::Max)])?;
            (
                MetricKind::ZmpError {
                    feet,
                    ground,
                    planned: Arc::new(planned),
                    force_threshold,
                    window,
                    reduce,
                },
                "m",
            )
        }
        "decay_length" => (MetricKind::DecayLength { link: link()? }, "m"),
        other => {
            let hint = tribo_yaml::did_you_mean(other, KINDS);
            return Err(m.kind.error(format!(
                "unknown metric kind `{other}`{hint}; known kinds: {}",
                KINDS.join(", ")
            )));
        }
    };
    Ok(MetricSpec {
        name: m.name.value,
        kind,
        expected: m.expected.as_ref().map(|n| read_expected(n, reader)).transpose()?,
        tolerance: m.tolerance,
        unit: m.unit.unwrap_or_else(|| unit.to_string()),
    })
}

/// `reduce:` of a metric, one of `choices` (the first is the default).
fn read_reduce(node: Option<&Node>, choices: &[(&str, Reduce)]) -> Result<Reduce, Diagnostic> {
    let Some(node) = node else {
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
