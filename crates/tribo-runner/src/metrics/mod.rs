//! Metrics computed while a run goes: each observes every step and gives one value at the end.

mod apex;
mod decay;
mod energy;
mod feet;
mod motion;
mod orientation;
mod value;
mod zmp;

pub use orientation::{tilt_deg, yaw_deg};
pub use value::{format_number, MetricResult, MetricValue};
pub use zmp::{center_of_pressure, ZmpError};

use tribo_scene::{MetricKind, MetricSpec, Scene};

use crate::{LazyContacts, SceneState};

/// One metric being computed.
pub trait MetricProbe: Send {
    /// Look at the state at time `t` (called for the initial state and after every step).
    fn observe(&mut self, t: f64, scene: &Scene, state: &SceneState, contacts: LazyContacts<'_>);
    fn finish(&self) -> MetricValue;
}

/// The probe computing `spec`.
pub fn probe(spec: &MetricSpec) -> Box<dyn MetricProbe> {
    match &spec.kind {
        MetricKind::BounceRatio {
            link,
            rest_height,
            min_height,
            bounces,
        } => Box::new(apex::BounceRatio::new(*link, *rest_height, *min_height, *bounces)),
        MetricKind::ApexHeight {
            link,
            rest_height,
            index,
        } => Box::new(apex::ApexHeight::new(*link, *rest_height, *index)),
        MetricKind::Displacement { link, window, axis } => {
            Box::new(motion::Displacement::new(*link, None, *window, *axis))
        }
        MetricKind::Slip {
            link,
            reference,
            window,
            axis,
        } => Box::new(motion::Displacement::new(*link, Some(*reference), *window, *axis)),
        MetricKind::Tilt { link, window, reduce } => Box::new(orientation::AngleProbe::new(
            *link,
            *window,
            *reduce,
            orientation::Angle::Tilt,
        )),
        MetricKind::Yaw { link, window, reduce } => Box::new(orientation::AngleProbe::new(
            *link,
            *window,
            *reduce,
            orientation::Angle::Yaw,
        )),
        MetricKind::Fell { link, height } => Box::new(motion::Fell::new(*link, *height)),
        MetricKind::Held {
            link,
            reference,
            window,
            distance,
        } => Box::new(motion::Held::new(*link, *reference, *window, *distance)),
        MetricKind::MaxPenetration { body } => Box::new(energy::MaxPenetration::new(*body)),
        MetricKind::EnergyDrift => Box::new(energy::EnergyDrift::default()),
        MetricKind::FootSlip {
            feet,
            ground,
            force_threshold,
        } => Box::new(feet::FootSlip::new(feet.clone(), *ground, *force_threshold)),
        MetricKind::ZmpError {
            feet,
            ground,
            planned,
            force_threshold,
            window,
            reduce,
        } => Box::new(zmp::ZmpError::new(
            feet.clone(),
            *ground,
            std::sync::Arc::clone(planned),
            *force_threshold,
            *window,
            *reduce,
        )),
        MetricKind::DecayLength { link } => Box::new(decay::DecayLength::new(*link)),
    }
}
