//! What can go wrong while planning a walk.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum GaitError {
    /// A walking parameter is out of its domain.
    #[error("invalid gait parameter `{name}` = {value}: {reason}")]
    InvalidParameter {
        name: &'static str,
        value: f64,
        reason: String,
    },
    /// The model lacks a link the walker needs.
    #[error("model `{model}` has no link `{link}`{hint}")]
    MissingLink { model: String, link: String, hint: String },
    /// The model's structure does not fit a biped walker.
    #[error("model `{model}`: {reason}")]
    BadModel { model: String, reason: String },
    /// The Riccati iteration did not converge.
    #[error("the discrete algebraic Riccati equation did not converge in {iterations} iterations")]
    RiccatiDiverged { iterations: usize },
    /// A foot target cannot be reached by its leg.
    #[error("leg inverse kinematics failed at t = {time:.3} s for `{foot}`: residual {residual:.3e}")]
    Unreachable { time: f64, foot: String, residual: f64 },
    /// A planned joint angle leaves the joint's range.
    #[error(
        "joint `{joint}` reaches {angle_deg:.1}° at t = {time:.3} s, outside its range [{lo_deg:.1}°, {hi_deg:.1}°]"
    )]
    OutOfRange {
        joint: String,
        time: f64,
        angle_deg: f64,
        lo_deg: f64,
        hi_deg: f64,
    },
}

pub(crate) fn check_positive(name: &'static str, value: f64) -> Result<f64, GaitError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(GaitError::InvalidParameter {
            name,
            value,
            reason: "must be a positive finite number".into(),
        })
    }
}
