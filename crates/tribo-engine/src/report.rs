//! Per-step diagnostics, and the run-level verdict on solves stopped at an iteration cap.

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
    /// Set when an iterative contact solve stopped at its iteration cap before its own
    /// tolerance, or stalled before the cap (see [`CappedSolve::stalled`]). Not a warning by itself: the run warns once, and only when the residual left
    /// matters ([`CapTally`]).
    pub capped: Option<CappedSolve>,
    /// Wall time per named stage (kinematics, collision, contact build, solve, integrate, …),
    /// recorded when the engine was asked to time its stages ([`Engine::set_stage_timing`]),
    /// else empty. Timings are diagnostics only: they never enter recorded results.
    ///
    /// [`Engine::set_stage_timing`]: crate::Engine::set_stage_timing
    pub stages: Vec<(&'static str, Duration)>,
    /// Whether [`StepReport::time`] reads the clock (the engine's stage-timing switch).
    pub time_stages: bool,
}

impl StepReport {
    /// A report whose [`StepReport::time`] records the stages when `time_stages` is set.
    pub fn timing(time_stages: bool) -> Self {
        Self {
            time_stages,
            ..Self::default()
        }
    }

    /// Run a stage, and record its wall time when the report times stages (two clock reads,
    /// some 60 ns a stage on the benchmark machine: a few per cent of a small step, so off
    /// unless asked for).
    pub fn time<T>(&mut self, stage: &'static str, f: impl FnOnce() -> T) -> T {
        if !self.time_stages {
            return f();
        }
        let start = std::time::Instant::now();
        let out = f();
        self.stages.push((stage, start.elapsed()));
        out
    }
}

/// A contact solve that stopped at its iteration cap, or before it on a stall, unconverged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CappedSolve {
    /// Which solver (`PGS`), for the warning.
    pub solver: &'static str,
    /// The cap, in the solver's iterations (PGS: sweeps).
    pub cap: usize,
    /// The solver's relative residual after its last iteration (engine-defined and documented,
    /// dimensionless).
    pub relative_residual: f64,
    /// Relative residual above which the engine considers the solve unconverged in a way that
    /// matters for the results.
    pub tolerance: f64,
    /// The solve stopped before its cap because its iterations had stalled: the residual no
    /// longer changed from one to the next, so the cap would have left the same residual.
    pub stalled: bool,
}

impl CappedSolve {
    /// Does the residual left matter? (A NaN residual does.)
    pub fn matters(&self) -> bool {
        self.relative_residual.is_nan() || self.relative_residual > self.tolerance
    }
}

/// Counts a run's capped solves and says, once, whether they matter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CapTally {
    steps: u64,
    capped: u64,
    /// Capped steps whose relative residual was above the tolerance, how many of them stalled
    /// before the cap, and the worst of them.
    mattering: u64,
    stalled: u64,
    worst: Option<CappedSolve>,
}

impl CapTally {
    /// Count one step.
    pub fn absorb(&mut self, report: &StepReport) {
        self.steps += 1;
        let Some(c) = report.capped else { return };
        self.capped += 1;
        if c.matters() {
            self.mattering += 1;
            self.stalled += u64::from(c.stalled);
            let worse = self.worst.is_none_or(|w| {
                !w.relative_residual.is_nan()
                    && (c.relative_residual.is_nan() || c.relative_residual > w.relative_residual)
            });
            if worse {
                self.worst = Some(c);
            }
        }
    }

    /// One warning when at least one step's capped solve left a residual above its tolerance:
    /// `PGS stopped at its cap of 100 sweeps with relative residual up to R > TOL on N of M steps`,
    /// and when S of those N stalled before the cap, `PGS stopped at its cap of 100 sweeps, or
    /// stalled before it (the residual no longer changing) on S of these steps, with …`.
    pub fn warning(&self) -> Option<String> {
        let w = self.worst?;
        let iterations = if w.solver == "PGS" { "sweeps" } else { "iterations" };
        let stalled = match self.stalled {
            0 => String::new(),
            s => format!(", or stalled before it (the residual no longer changing) on {s} of these steps,"),
        };
        Some(format!(
            "{} stopped at its cap of {} {iterations}{stalled} with relative residual up to {:.3e} > {:.0e} on {} \
             of {} steps; raise the cap (engine option `iterations`) until this goes away, or the results carry \
             the solver's error",
            w.solver, w.cap, w.relative_residual, w.tolerance, self.mattering, self.steps
        ))
    }

    /// Steps that stopped at the cap, mattering or not.
    pub fn capped_steps(&self) -> u64 {
        self.capped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(relative_residual: Option<f64>) -> StepReport {
        stopped(relative_residual, false)
    }

    fn stopped(relative_residual: Option<f64>, stalled: bool) -> StepReport {
        StepReport {
            capped: relative_residual.map(|r| CappedSolve {
                solver: "PGS",
                cap: 100,
                relative_residual: r,
                tolerance: 1e-3,
                stalled,
            }),
            ..Default::default()
        }
    }

    #[test]
    fn stages_are_timed_only_when_asked() {
        let mut quiet = StepReport::default();
        assert_eq!(quiet.time("solve", || 7), 7);
        assert!(quiet.stages.is_empty());
        let mut timed = StepReport::timing(true);
        assert_eq!(timed.time("solve", || 8), 8);
        assert_eq!(timed.stages.iter().map(|(s, _)| *s).collect::<Vec<_>>(), ["solve"]);
    }

    #[test]
    fn caps_below_the_tolerance_are_not_news() {
        let mut tally = CapTally::default();
        for r in [Some(1e-5), None, Some(9e-4)] {
            tally.absorb(&step(r));
        }
        assert_eq!(tally.capped_steps(), 2);
        assert_eq!(tally.warning(), None);
    }

    #[test]
    fn caps_above_it_are_counted_once() {
        let mut tally = CapTally::default();
        for r in [Some(1e-5), Some(0.02), None, Some(f64::NAN), Some(0.5)] {
            tally.absorb(&step(r));
        }
        let w = tally.warning().expect("a warning");
        assert!(
            w.starts_with(
                "PGS stopped at its cap of 100 sweeps with relative residual up to NaN > 1e-3 on 3 of 5 steps"
            ),
            "{w}"
        );
        let mut tally = CapTally::default();
        tally.absorb(&step(Some(0.02)));
        tally.absorb(&step(Some(0.5)));
        let w = tally.warning().expect("a warning");
        assert!(w.contains("up to 5.000e-1 > 1e-3 on 2 of 2 steps"), "{w}");
    }

    #[test]
    fn stalled_solves_that_matter_are_named_in_the_warning() {
        // Two mattering steps, one of them stalled before the cap, and a stalled one that does not
        // matter (not counted).
        let mut tally = CapTally::default();
        for (r, stalled) in [
            (Some(0.02), true),
            (Some(1e-5), true),
            (Some(0.5), false),
            (None, false),
        ] {
            tally.absorb(&stopped(r, stalled));
        }
        assert_eq!(tally.capped_steps(), 3);
        let w = tally.warning().expect("a warning");
        assert!(
            w.starts_with(
                "PGS stopped at its cap of 100 sweeps, or stalled before it (the residual no longer changing) \
                 on 1 of these steps, with relative residual up to 5.000e-1 > 1e-3 on 2 of 4 steps"
            ),
            "{w}"
        );
        // Without a mattering stall the wording is the cap's alone.
        let mut tally = CapTally::default();
        tally.absorb(&stopped(Some(1e-5), true));
        tally.absorb(&stopped(Some(0.02), false));
        let w = tally.warning().expect("a warning");
        assert!(!w.contains("stalled"), "{w}");
    }
}
