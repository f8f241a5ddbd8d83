//! The metrics a `.cnoid` project is judged by. A Choreonoid project names none, so they are chosen
//! by what the scene's main body is, all taken at its root link over the whole run. No expected
//! values: whether a walk should slip is what the run is for.
//!
//! **A walker** — a free multi-link body driven by a joint pattern (a `.seq` controller) with feet
//! (non-root links with a non-default material, like SR1's `Sole` ankles) and a fixed body to
//! stand on:
//! - `forward_progress`: displacement along x (signed), m; `lateral_drift`: |displacement along
//!   y|, m;
//! - `fell`: whether the root went below half its initial height;
//! - `max_tilt`: largest angle of the root's up axis from its initial direction (roll and pitch),
//!   deg; `max_yaw`: largest heading change about world z (signed), deg;
//! - `foot_slip`: horizontal sliding of the feet while they stand on the first fixed body, m.
//!
//! **Any other free body** (the pattern's body if it is free, else the first free body; a ball, a
//! box, a robot without a walking pattern):
//! - `displacement`: distance from the root's initial to its final position, m;
//! - `height_change`: final minus initial root height, m (a dropped ball that comes to rest: minus
//!   the drop);
//! - `max_tilt`: largest angle of the root's up axis from its initial direction, deg;
//! - `max_penetration`: deepest contact of that body, m — of any body when several are free
//!   (a stack of blocks).
//!
//! **No free body** (everything fixed): `max_penetration` of any contact, m.

use crate::{Axis, LinkRef, MetricKind, MetricSpec, Reduce, Scene, Window};
use tribo_material::MaterialId;

const WHOLE_RUN: Window = Window {
    start: 0.0,
    end: f64::INFINITY,
};

/// Default metrics for `scene`; `pattern_body` is the body a joint-pattern controller drives.
pub fn defaults(scene: &Scene, pattern_body: Option<usize>) -> Vec<MetricSpec> {
    let free = |i: &usize| scene.bodies.get(*i).is_some_and(|b| !b.fixed_root);
    if let Some(walker) = pattern_body.filter(|b| is_walker(scene, *b)) {
        return walker_metrics(scene, walker);
    }
    let free_bodies = (0..scene.bodies.len()).filter(free).count();
    match pattern_body.filter(free).or_else(|| (0..scene.bodies.len()).find(free)) {
        Some(subject) => free_body_metrics(subject, free_bodies > 1),
        None => vec![spec("max_penetration", MetricKind::MaxPenetration { body: None }, "m")],
    }
}

fn spec(name: &str, kind: MetricKind, unit: &str) -> MetricSpec {
    MetricSpec {
        name: name.to_string(),
        kind,
        expected: None,
        tolerance: None,
        unit: unit.to_string(),
    }
}

/// A free body with more than one link, feet and ground (see the module documentation).
fn is_walker(scene: &Scene, body: usize) -> bool {
    scene
        .bodies
        .get(body)
        .is_some_and(|b| !b.fixed_root && b.model.links.len() > 1)
        && !feet(scene, body).is_empty()
        && ground(scene, body).is_some()
}

/// Non-root links of `body` with a material of their own.
fn feet(scene: &Scene, body: usize) -> Vec<LinkRef> {
    scene.bodies.get(body).map_or_else(Vec::new, |b| {
        b.link_materials
            .iter()
            .enumerate()
            .filter(|(link, m)| *link != 0 && **m != MaterialId::DEFAULT)
            .map(|(link, _)| LinkRef { body, link })
            .collect()
    })
}

/// The first fixed body other than `body`.
fn ground(scene: &Scene, body: usize) -> Option<usize> {
    scene
        .bodies
        .iter()
        .enumerate()
        .position(|(i, b)| i != body && b.fixed_root)
}

fn walker_metrics(scene: &Scene, subject: usize) -> Vec<MetricSpec> {
    let Some(body) = scene.bodies.get(subject) else {
        return Vec::new();
    };
    let root = LinkRef { body: subject, link: 0 };
    let displacement = |axis| MetricKind::Displacement {
        link: root,
        window: WHOLE_RUN,
        axis,
    };
    let mut out = vec![
        spec("forward_progress", displacement(Axis::X), "m"),
        spec("lateral_drift", displacement(Axis::AbsY), "m"),
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
    out.push(spec("max_tilt", max_tilt(root), "deg"));
    out.push(spec(
        "max_yaw",
        MetricKind::Yaw {
            link: root,
            window: WHOLE_RUN,
            reduce: Reduce::Max,
        },
        "deg",
    ));
    if let Some(ground) = ground(scene, subject) {
        let weight = body.model.total_mass() * scene.gravity.norm();
        out.push(spec(
            "foot_slip",
            MetricKind::FootSlip {
                feet: feet(scene, subject),
                ground,
                force_threshold: 0.05 * weight,
            },
            "m",
        ));
    }
    out
}

fn free_body_metrics(subject: usize, several_free: bool) -> Vec<MetricSpec> {
    let root = LinkRef { body: subject, link: 0 };
    let displacement = |axis| MetricKind::Displacement {
        link: root,
        window: WHOLE_RUN,
        axis,
    };
    let penetration_of = if several_free { None } else { Some(subject) };
    vec![
        spec("displacement", displacement(Axis::Norm), "m"),
        spec("height_change", displacement(Axis::Z), "m"),
        spec("max_tilt", max_tilt(root), "deg"),
        spec(
            "max_penetration",
            MetricKind::MaxPenetration { body: penetration_of },
            "m",
        ),
    ]
}

fn max_tilt(link: LinkRef) -> MetricKind {
    MetricKind::Tilt {
        link,
        window: WHOLE_RUN,
        reduce: Reduce::Max,
    }
}
