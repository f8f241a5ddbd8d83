//! How long a run may be: its step count, estimated before it starts, and the limit above which a
//! run is refused unless asked for explicitly.
//!
//! A mistyped `time_step: 1e-9` or `--time 1e9` would otherwise start a run that never ends in
//! practice. Memory stays flat however long a run is (the recorder keeps a bounded, thinned
//! trajectory and replay), but the wall time does not.

/// Steps a run may take without [`RunOptions::allow_long_run`](crate::RunOptions) (the CLI's
/// `--allow-long-run`): ten million, e.g. 10 000 s at a 1 ms time step — hours of wall time on
/// the slower engines.
pub const MAX_STEPS: u64 = 10_000_000;

/// Steps a run of `duration` seconds at `time_step` takes (the runner's count: the quotient
/// rounded to the nearest integer; 0 when it is not a positive finite number, saturated at
/// `u64::MAX`).
pub fn step_count(duration: f64, time_step: f64) -> u64 {
    let steps = (duration / time_step).round();
    if steps.is_nan() || steps <= 0.0 {
        0
    } else {
        // `as` saturates: +inf and anything beyond u64::MAX become u64::MAX.
        steps as u64
    }
}

/// A run longer than [`MAX_STEPS`] without permission.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "the run would take {steps} steps (duration {duration} s / time step {time_step} s), more than the \
     limit of {limit} steps; shorten the duration (--time), lengthen the time step, or pass \
     --allow-long-run to run it anyway",
    limit = MAX_STEPS
)]
pub struct TooManySteps {
    pub steps: u64,
    /// s.
    pub duration: f64,
    /// s.
    pub time_step: f64,
}

/// The step count of a run of `duration` at `time_step`, or [`TooManySteps`] when it exceeds
/// [`MAX_STEPS`] and `allow_long_run` is false.
pub fn check_step_count(duration: f64, time_step: f64, allow_long_run: bool) -> Result<u64, TooManySteps> {
    let steps = step_count(duration, time_step);
    if steps > MAX_STEPS && !allow_long_run {
        Err(TooManySteps {
            steps,
            duration,
            time_step,
        })
    } else {
        Ok(steps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_round_and_saturate() {
        assert_eq!(step_count(3.0, 0.001), 3000);
        assert_eq!(step_count(7.6, 0.002), 3800);
        assert_eq!(step_count(0.0, 0.001), 0);
        assert_eq!(step_count(f64::NAN, 0.001), 0);
        assert_eq!(step_count(1e300, 1e-300), u64::MAX);
    }

    #[test]
    fn a_nanosecond_step_over_a_second_is_refused_unless_allowed() {
        let err = check_step_count(1.0, 1e-9, false).expect_err("1e9 steps must be refused");
        assert_eq!(err.steps, 1_000_000_000);
        let text = err.to_string();
        assert!(text.contains("1000000000 steps"), "{text}");
        assert!(text.contains("10000000 steps"), "{text}");
        assert!(text.contains("--allow-long-run"), "{text}");
        assert_eq!(check_step_count(1.0, 1e-9, true), Ok(1_000_000_000));
        assert_eq!(check_step_count(10_000.0, 0.001, false), Ok(MAX_STEPS));
        assert!(check_step_count(10_000.002, 0.001, false).is_err());
    }
}
