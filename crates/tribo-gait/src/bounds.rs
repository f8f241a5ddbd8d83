//! The walks `tribo gait` plans: bounds on the parameters, so a typo (`--steps 1000000`) is a
//! clear error instead of an allocation of tens of gigabytes.

use crate::error::GaitError;
use crate::footsteps::GaitParams;

/// Steps in one walk at most.
pub const MAX_STEPS: usize = 1000;
/// Forward advance per step at most, m (beyond any biped's reach; the leg IK reports the real
/// limit of a model).
pub const MAX_STEP_LENGTH: f64 = 1.0;
/// Duration of one step, s.
pub const MIN_STEP_TIME: f64 = 0.1;
pub const MAX_STEP_TIME: f64 = 10.0;
/// Frames per second at most.
pub const MAX_FRAME_RATE: f64 = 10_000.0;
/// Frames of a whole pattern (rest, shift, steps, settle and the preview horizon) at most.
pub const MAX_FRAMES: f64 = 1_000_000.0;

fn invalid(name: &'static str, value: f64, reason: String) -> GaitError {
    GaitError::InvalidParameter { name, value, reason }
}

/// The bounds above; `GaitParams::validate` checks them after the domain checks.
pub(crate) fn check_bounds(p: &GaitParams) -> Result<(), GaitError> {
    if p.steps > MAX_STEPS {
        return Err(invalid(
            "steps",
            p.steps as f64,
            format!("at most {MAX_STEPS} steps in one walk"),
        ));
    }
    if p.step_length > MAX_STEP_LENGTH {
        return Err(invalid(
            "step_length",
            p.step_length,
            format!("must be at most {MAX_STEP_LENGTH} m"),
        ));
    }
    if !(MIN_STEP_TIME..=MAX_STEP_TIME).contains(&p.step_time) {
        return Err(invalid(
            "step_time",
            p.step_time,
            format!("must lie between {MIN_STEP_TIME} s and {MAX_STEP_TIME} s"),
        ));
    }
    if p.frame_rate > MAX_FRAME_RATE {
        return Err(invalid(
            "frame_rate",
            p.frame_rate,
            format!("must be at most {MAX_FRAME_RATE} Hz"),
        ));
    }
    let double = p.double_support_time() * p.frame_rate;
    let single = p.single_support_time() * p.frame_rate;
    if double < 1.0 || single < 1.0 {
        return Err(invalid(
            "double_support_ratio",
            p.double_support_ratio,
            format!(
                "single and double support must each last at least one frame ({:.3} and {:.3} frames at \
                 step_time {} s, frame_rate {} Hz)",
                single, double, p.step_time, p.frame_rate
            ),
        ));
    }
    let duration = p.rest + p.shift + p.steps as f64 * p.step_time + p.settle + p.preview_time;
    let frames = duration * p.frame_rate;
    if frames > MAX_FRAMES {
        return Err(invalid(
            "frame_rate",
            p.frame_rate,
            format!(
                "the walk and its preview ({duration} s) would take {frames:.0} frames, more than \
                 {MAX_FRAMES:.0}; use fewer steps, shorter steps in time or a lower frame rate"
            ),
        ));
    }
    Ok(())
}
