//! The metrics a `.cnoid` project is judged by (a Choreonoid project names none): for the body the
//! controller drives (else the first free body), taken at its root link —
//!
//! - `forward_progress`, `lateral_drift`: displacement along x and y over the run, m;
//! - `fell`: whether the root went below half its initial height;
//! - `max_tilt`: largest rotation from the initial orientation, deg;
//! - `foot_slip`: horizontal sliding of the non-root links with a non-default material (SR1's
//!   `Sole` ankles) while they stand on the first fixed body (the floor), m.
//!
//! No expected values: whether a walk should slip is what the run is for.

use crate::{Axis, LinkRef, MetricKind, MetricSpec, Reduce, Scene, Window};
use tribo_material::MaterialId;

/// Default metrics for the body `subject`.
pub fn defaults(scene: &Scene, subject: usize) -> Vec<MetricSpec> {
    let Some(body) = scene.bodies.get(subject) else {
        return Vec::new();
    };
    let root = LinkRef { body: subject, link: 0 };
    let whole = Window {
        start: 0.0,
        end: f64::INFINITY,
    };
    let spec = |name: &str, kind: MetricKind, unit: &str| MetricSpec {
        name: name.to_string(),
        kind,
        expected: None,
        tolerance: None,
        unit: unit.to_string(),
    };
    let mut out = vec![
        spec(
            "forward_progress",
            MetricKind::Displacement {
                link: root,
                window: whole,
                axis: Axis::X,
            },
            "m",
        ),
        spec(
            "lateral_drift",
            MetricKind::Displacement {
                link: root,
                window: whole,
                axis: Axis::Y,
            },
            "m",
        ),
    ];
    let height = body.root_pose.translation.vector.z;
    if height > 0.0 {
        out.push(spec(
            "fell",
            MetricKind::Fell {
                link: root,
                height: 0.5 * height,
            },
            "",
        ));
    }
    out.push(spec(
        "max_tilt",
        MetricKind::Tilt {
            link: root,
            window: whole,
            reduce: Reduce::Max,
        },
        "deg",
    ));
    let feet: Vec<LinkRef> = body
        .link_materials
        .iter()
        .enumerate()
        .filter(|(link, m)| *link != 0 && **m != MaterialId::DEFAULT)
        .map(|(link, _)| LinkRef { body: subject, link })
        .collect();
    let ground = scene
        .bodies
        .iter()
        .enumerate()
        .position(|(i, b)| i != subject && b.fixed_root);
    if let (false, Some(ground)) = (feet.is_empty(), ground) {
        let weight = body.model.total_mass() * scene.gravity.norm();
        out.push(spec(
            "foot_slip",
            MetricKind::FootSlip {
                feet,
                ground,
                force_threshold: 0.05 * weight,
            },
            "m",
        ));
    }
    out
}
