//! Footstep planning: where each foot lands and when, for a straight walk along +x.
//!
//! The walk starts and ends in double support with the feet side by side at x = 0, y = ±w/2.
//! After `rest` seconds the ZMP shifts onto the right foot (over `shift` seconds); then every step
//! is a single-support phase (`(1 − r) T`, the swing foot in the air) followed by a
//! double-support phase (`r T`, the ZMP moving onto the foot that just landed). Steps alternate,
//! the left foot first: step k (1 ≤ k < n) lands the swing foot at x = k·L; the last step brings
//! the trailing foot beside the leading one, at x = (n − 1)·L, and the ZMP returns to the middle
//! of the feet for the final `settle` seconds. The planned forward distance is (n − 1)·L.

use nalgebra::Vector2;

use crate::error::{check_positive, GaitError};
use crate::preview::PreviewWeights;

/// A foot: index 0 is the right foot, 1 the left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Right = 0,
    Left = 1,
}

impl Side {
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn other(self) -> Side {
        match self {
            Side::Right => Side::Left,
            Side::Left => Side::Right,
        }
    }
}

/// The walk's shape and timing (SI units).
#[derive(Debug, Clone, PartialEq)]
pub struct GaitParams {
    /// Number of steps n (≥ 2); the last one closes the feet.
    pub steps: usize,
    /// Forward advance per step L, m.
    pub step_length: f64,
    /// Lateral distance between the feet centres w, m.
    pub step_width: f64,
    /// Duration of one step T (single plus double support), s.
    pub step_time: f64,
    /// Fraction r of each step spent in double support, 0 < r < 1.
    pub double_support_ratio: f64,
    /// Peak height of the swing foot above the ground, m.
    pub lift_height: f64,
    /// Height of the centre of mass z_c (the cart-table height), m.
    pub com_height: f64,
    /// Standing still before the ZMP starts to move, s.
    pub rest: f64,
    /// Moving the ZMP from the middle onto the first support foot, s.
    pub shift: f64,
    /// Standing still after the last step, s.
    pub settle: f64,
    /// Frames per second of the output (and control period 1/rate of the preview controller).
    pub frame_rate: f64,
    /// Preview horizon of the ZMP controller, s (Kajita 2003 uses 1.6 s).
    pub preview_time: f64,
    /// Gravitational acceleration g of the cart-table model, m/s².
    pub gravity: f64,
    /// Weights of the preview controller's cost.
    pub weights: PreviewWeights,
}

impl Default for GaitParams {
    fn default() -> Self {
        GaitParams {
            steps: 8,
            step_length: 0.15,
            step_width: 0.16,
            step_time: 0.6,
            double_support_ratio: 0.2,
            lift_height: 0.04,
            com_height: 0.62,
            // A second at rest lets the non-minimum-phase cart-table CoM start moving before the
            // ZMP does (with 0.3 s the start-up ZMP error is 16 mm, with 1 s about 1 mm).
            rest: 1.0,
            shift: 0.6,
            settle: 1.2,
            frame_rate: 500.0,
            preview_time: 1.6,
            gravity: 9.81,
            weights: PreviewWeights::default(),
        }
    }
}

impl GaitParams {
    /// Every parameter in its domain and within the bounds of [`crate::bounds`] (at most
    /// `MAX_STEPS` steps, step length ≤ `MAX_STEP_LENGTH`, step time within
    /// [`MIN_STEP_TIME`, `MAX_STEP_TIME`], at most `MAX_FRAMES` frames).
    pub fn validate(&self) -> Result<(), GaitError> {
        if self.steps < 2 {
            return Err(GaitError::InvalidParameter {
                name: "steps",
                value: self.steps as f64,
                reason: "a walk needs at least 2 steps (the last one closes the feet)".into(),
            });
        }
        if !self.step_length.is_finite() || self.step_length < 0.0 {
            return Err(GaitError::InvalidParameter {
                name: "step_length",
                value: self.step_length,
                reason: "must be a non-negative finite number".into(),
            });
        }
        check_positive("step_width", self.step_width)?;
        check_positive("step_time", self.step_time)?;
        check_positive("lift_height", self.lift_height)?;
        check_positive("com_height", self.com_height)?;
        check_positive("shift", self.shift)?;
        check_positive("frame_rate", self.frame_rate)?;
        check_positive("preview_time", self.preview_time)?;
        check_positive("gravity", self.gravity)?;
        for (name, value) in [("rest", self.rest), ("settle", self.settle)] {
            if !value.is_finite() || value < 0.0 {
                return Err(GaitError::InvalidParameter {
                    name,
                    value,
                    reason: "must be a non-negative finite number".into(),
                });
            }
        }
        let r = self.double_support_ratio;
        if !(r > 0.0 && r < 1.0) {
            return Err(GaitError::InvalidParameter {
                name: "double_support_ratio",
                value: r,
                reason: "must lie strictly between 0 and 1".into(),
            });
        }
        crate::bounds::check_bounds(self)
    }

    pub fn single_support_time(&self) -> f64 {
        (1.0 - self.double_support_ratio) * self.step_time
    }

    pub fn double_support_time(&self) -> f64 {
        self.double_support_ratio * self.step_time
    }
}

/// One step: the swing foot leaves `from` at `lift_off` and lands on `to` at `touch_down`.
#[derive(Debug, Clone, PartialEq)]
pub struct Footstep {
    pub swing: Side,
    pub from: Vector2<f64>,
    pub to: Vector2<f64>,
    pub lift_off: f64,
    pub touch_down: f64,
}

/// A stretch of the ZMP reference: held at `from` if `from == to`, else blended smoothly from
/// `from` to `to` over [start, end].
#[derive(Debug, Clone, PartialEq)]
pub struct ZmpSegment {
    pub start: f64,
    pub end: f64,
    pub from: Vector2<f64>,
    pub to: Vector2<f64>,
}

/// The footsteps and the ZMP reference of a walk. Foot positions are the ground points under the
/// ankle (the foot link origins).
#[derive(Debug, Clone, PartialEq)]
pub struct FootstepPlan {
    /// Initial ground points under the right and left ankles.
    pub initial: [Vector2<f64>; 2],
    pub steps: Vec<Footstep>,
    pub zmp: Vec<ZmpSegment>,
    /// Time of the end of the walk, s.
    pub duration: f64,
    /// Forward distance of the feet midpoint from start to end, m.
    pub planned_distance: f64,
}

/// Plans the footsteps for `params`; `sole_centers` (right, left) are the sole centres relative
/// to the ankle's ground point: where the ZMP is held in single support.
pub fn plan_footsteps(params: &GaitParams, sole_centers: [Vector2<f64>; 2]) -> Result<FootstepPlan, GaitError> {
    params.validate()?;
    let half = params.step_width / 2.0;
    let initial = [Vector2::new(0.0, -half), Vector2::new(0.0, half)];
    let mut feet = initial;
    let middle = |feet: &[Vector2<f64>; 2]| (feet[0] + sole_centers[0] + feet[1] + sole_centers[1]) / 2.0;
    let mut zmp = Vec::new();
    let mut t = 0.0;
    let hold = |zmp: &mut Vec<ZmpSegment>, t: &mut f64, duration: f64, from: Vector2<f64>, to: Vector2<f64>| {
        zmp.push(ZmpSegment {
            start: *t,
            end: *t + duration,
            from,
            to,
        });
        *t += duration;
    };
    let start = middle(&feet);
    hold(&mut zmp, &mut t, params.rest, start, start);
    let first_support = feet[0] + sole_centers[0];
    hold(&mut zmp, &mut t, params.shift, start, first_support);

    let mut steps = Vec::with_capacity(params.steps);
    let mut swing = Side::Left;
    for k in 1..=params.steps {
        let support = swing.other();
        let last = k == params.steps;
        let advance = if last { k - 1 } else { k } as f64 * params.step_length;
        let to = Vector2::new(advance, feet[swing.index()].y);
        let support_zmp = feet[support.index()] + sole_centers[support.index()];
        steps.push(Footstep {
            swing,
            from: feet[swing.index()],
            to,
            lift_off: t,
            touch_down: t + params.single_support_time(),
        });
        hold(&mut zmp, &mut t, params.single_support_time(), support_zmp, support_zmp);
        feet[swing.index()] = to;
        let next = if last {
            middle(&feet)
        } else {
            to + sole_centers[swing.index()]
        };
        hold(&mut zmp, &mut t, params.double_support_time(), support_zmp, next);
        swing = support;
    }
    let end = middle(&feet);
    hold(&mut zmp, &mut t, params.settle, end, end);
    let planned_distance = (feet[0].x + feet[1].x) / 2.0 - (initial[0].x + initial[1].x) / 2.0;
    Ok(FootstepPlan {
        initial,
        steps,
        zmp,
        duration: t,
        planned_distance,
    })
}

/// 0 → 1 with zero slope at both ends: s(τ) = 3τ² − 2τ³ (a cubic "smoothstep").
pub fn smoothstep(tau: f64) -> f64 {
    let tau = tau.clamp(0.0, 1.0);
    tau * tau * (3.0 - 2.0 * tau)
}

impl FootstepPlan {
    /// The reference ZMP at time t (held at the ends).
    pub fn zmp_reference(&self, t: f64) -> Vector2<f64> {
        let segment = self.zmp.iter().find(|s| t < s.end).or(self.zmp.last());
        match segment {
            Some(s) if s.end > s.start => s.from + (s.to - s.from) * smoothstep((t - s.start) / (s.end - s.start)),
            Some(s) => s.to,
            None => Vector2::zeros(),
        }
    }

    /// Ground point under each ankle and its height above the ground at time t. The swing foot
    /// follows a cycloid: with τ = (t − t_lift)/(t_land − t_lift),
    /// x = x₀ + (x₁ − x₀)(τ − sin 2πτ / 2π), z = h (1 − cos 2πτ)/2 — zero velocity at lift-off and
    /// touch-down (Kajita, *Introduction to Humanoid Robotics*, §4.5).
    pub fn feet(&self, t: f64, lift_height: f64) -> [(Vector2<f64>, f64); 2] {
        let mut feet = [(self.initial[0], 0.0), (self.initial[1], 0.0)];
        for step in &self.steps {
            let i = step.swing.index();
            if t >= step.touch_down {
                feet[i] = (step.to, 0.0);
            } else if t > step.lift_off {
                let tau = (t - step.lift_off) / (step.touch_down - step.lift_off);
                let phase = 2.0 * std::f64::consts::PI * tau;
                let s = tau - phase.sin() / (2.0 * std::f64::consts::PI);
                feet[i] = (
                    step.from + (step.to - step.from) * s,
                    lift_height * (1.0 - phase.cos()) / 2.0,
                );
            }
        }
        feet
    }
}
