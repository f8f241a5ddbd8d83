//! One engine's run of a project: its metrics, trajectory and (if asked for) contacts.

use std::collections::BTreeMap;

use tribo_runner::{ContactRecord, MetricResult, RunOutcome, SolverSummary, Trajectory};

/// How to run, beyond what the project says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSettings {
    /// Simulated time, s (default: the project's `simulation.duration`).
    pub duration: Option<f64>,
    /// Record a trajectory row every this many seconds (default: every step; long runs keep at
    /// most `tribo_runner::MAX_TRAJECTORY_ROWS` rows, evenly thinned).
    pub record_interval: Option<f64>,
    /// Keep the contacts of every `n`-th step (`Some(1)`: every step), for
    /// [`Run::contacts_at`]; `None` keeps none. Contacts take memory: a 1000-step run of a
    /// biped keeps ~10⁴ records.
    pub contacts_every: Option<u64>,
    /// Run even when the run takes more steps than `tribo_runner::MAX_STEPS`.
    pub allow_long_run: bool,
}

/// A finished run of one engine.
#[derive(Debug, Clone)]
pub struct Run {
    outcome: RunOutcome,
    time_step: f64,
    contacts: BTreeMap<u64, Vec<ContactRecord>>,
}

impl Run {
    pub(crate) fn new(outcome: RunOutcome, time_step: f64, contacts: BTreeMap<u64, Vec<ContactRecord>>) -> Run {
        Run {
            outcome,
            time_step,
            contacts,
        }
    }

    /// The engine's name.
    pub fn engine(&self) -> &str {
        &self.outcome.engine
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.outcome.steps
    }

    /// The step length, s.
    pub fn time_step(&self) -> f64 {
        self.time_step
    }

    /// Simulated time, s.
    pub fn simulated_time(&self) -> f64 {
        self.outcome.simulated_time
    }

    /// The project's metrics, measured on this run, with their expectations and verdicts.
    pub fn metrics(&self) -> &[MetricResult] {
        &self.outcome.metrics
    }

    /// The metric called `name`.
    pub fn metric(&self, name: &str) -> Option<&MetricResult> {
        self.outcome.metrics.iter().find(|m| m.name == name)
    }

    /// The numeric value of the metric called `name` (`None` for an unknown name, a boolean
    /// metric or one that could not be measured).
    pub fn value(&self, name: &str) -> Option<f64> {
        self.metric(name).and_then(|m| m.value.as_number())
    }

    /// The recorded signals: `time` and one column per signal component, one row per recorded
    /// step.
    pub fn trajectory(&self) -> &Trajectory {
        &self.outcome.trajectory
    }

    /// One trajectory column by name (`time`, `ball.pos.z`, …), or `None` if no column has it.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let trajectory = &self.outcome.trajectory;
        let index = trajectory.columns.iter().position(|c| c == name)?;
        Some(trajectory.rows.iter().map(|row| row[index]).collect())
    }

    /// The contacts after step `step` (1 for the first step), if the run kept that step's
    /// contacts ([`RunSettings::contacts_every`]).
    pub fn contacts_at(&self, step: u64) -> Option<&[ContactRecord]> {
        self.contacts.get(&step).map(Vec::as_slice)
    }

    /// The steps whose contacts the run kept, in order.
    pub fn contact_steps(&self) -> impl Iterator<Item = u64> + '_ {
        self.contacts.keys().copied()
    }

    /// Engine warnings (each distinct one once) and material parameters the engine ignored.
    pub fn warnings(&self) -> &[String] {
        &self.outcome.warnings
    }

    /// Solver effort: mean iterations, largest residual, most contacts, time per stage.
    pub fn solver(&self) -> &SolverSummary {
        &self.outcome.solver
    }

    /// Everything the runner reports (wall time, replay frames, …).
    pub fn outcome(&self) -> &RunOutcome {
        &self.outcome
    }
}
