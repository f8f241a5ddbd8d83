//! The unit of every recorded column, from the project's signal specs (the trajectory itself
//! carries only column names).

use std::collections::BTreeMap;

use tribo_model::JointKind;
use tribo_scene::{Project, SignalKind, SignalSpec};

/// Column name → unit (`m`, `m/s`, `rad`, `N`, `N·m`, `m²`, `Pa`; `s` for `time`). Columns of
/// signals the project does not declare are absent (their plots carry no unit).
pub fn column_units(project: &Project) -> BTreeMap<String, String> {
    let mut units = BTreeMap::from([("time".to_string(), "s".to_string())]);
    for signal in &project.signals {
        let names = signal.columns();
        for (name, unit) in names.into_iter().zip(signal_units(signal, project)) {
            units.insert(name, unit.to_string());
        }
    }
    units
}

/// The units of a signal's columns, in [`SignalSpec::columns`] order.
fn signal_units(signal: &SignalSpec, project: &Project) -> Vec<&'static str> {
    match &signal.kind {
        SignalKind::LinkPosition(_) => vec!["m"; 3],
        SignalKind::LinkVelocity(_) => vec!["m/s"; 3],
        SignalKind::LinkOrientation(_) => vec!["rad"; 3],
        SignalKind::ContactForce { .. } => vec!["N"; 3],
        SignalKind::JointPosition(r) => {
            let kind = project
                .scene
                .bodies
                .get(r.body)
                .and_then(|b| b.model.links.get(r.link))
                .map(|l| l.joint.kind);
            match kind {
                Some(JointKind::Prismatic) => vec!["m"],
                Some(JointKind::Revolute) => vec!["rad"],
                _ => vec![""],
            }
        }
        SignalKind::PadPatch(_) => vec!["N", "m", "m", "m", "N·m", "m²", "Pa"],
    }
}
