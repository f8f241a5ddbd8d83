//! Per-step diagnostics.

use std::time::Duration;

/// What one step did: solver effort, accuracy, warnings and where the time went.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepReport {
    /// Contact solver iterations (0 if the engine does not iterate or reports none).
    pub iterations: u32,
    /// Final solver residual (engine-defined, documented per engine); 0 if none.
    pub residual: f64,
    /// Complementarity error of the final contact impulses (engine-defined, documented per
    /// engine); 0 if the engine reports none.
    pub complementarity: f64,
    /// Number of contact points / unknowns solved.
    pub contacts: usize,
    pub warnings: Vec<String>,
    /// Wall time per named stage (kinematics, collision, contact build, solve, integrate, …).
    /// Timings are diagnostics only: they never enter recorded results.
    pub stages: Vec<(&'static str, Duration)>,
}

impl StepReport {
    /// Time a stage and record it.
    pub fn time<T>(&mut self, stage: &'static str, f: impl FnOnce() -> T) -> T {
        let start = std::time::Instant::now();
        let out = f();
        self.stages.push((stage, start.elapsed()));
        out
    }
}
