//! Several engines on one project, side by side.

use rayon::prelude::*;

use crate::{Error, Project, Run, RunSettings};

/// One engine's part of a comparison: its run, or why it failed.
#[derive(Debug)]
pub struct EngineRun {
    pub engine: String,
    pub result: Result<Run, Error>,
}

/// The runs of a project on several engines, in the order the engines were asked for.
#[derive(Debug)]
pub struct Comparison {
    pub runs: Vec<EngineRun>,
}

impl Comparison {
    /// The run of `engine`, if it was compared and finished.
    pub fn run(&self, engine: &str) -> Option<&Run> {
        self.runs
            .iter()
            .find(|r| r.engine == engine)
            .and_then(|r| r.result.as_ref().ok())
    }

    /// The numeric value of metric `name` on each engine, in order (`None` where the run
    /// failed or the metric has no number).
    pub fn values(&self, name: &str) -> Vec<(String, Option<f64>)> {
        self.runs
            .iter()
            .map(|r| (r.engine.clone(), r.result.as_ref().ok().and_then(|run| run.value(name))))
            .collect()
    }

    /// Whether every engine's run finished.
    pub fn all_finished(&self) -> bool {
        self.runs.iter().all(|r| r.result.is_ok())
    }
}

impl Project {
    /// Run the project on each of `engines` (none: the project's `simulation.engines`, else
    /// every engine tribo ships), in parallel; each run is deterministic, so the result does
    /// not depend on the thread count. An engine that fails keeps its error in the comparison;
    /// an unknown engine name is an error before anything runs.
    ///
    /// ```
    /// # fn main() -> Result<(), tribo::Error> {
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/ball/ball.yaml");
    /// let comparison = tribo::Project::builder(path).time(1.0).load()?.compare(&["rapier", "pgs"])?;
    /// for (engine, apex) in comparison.values("first_apex") {
    ///     assert!((apex.unwrap() - 0.64).abs() < 0.01, "{engine}: {apex:?}");
    /// }
    /// # Ok(()) }
    /// ```
    pub fn compare(&self, engines: &[&str]) -> Result<Comparison, Error> {
        self.compare_with(engines, &self.settings)
    }

    /// [`Project::compare`] with run settings.
    pub fn compare_with(&self, engines: &[&str], settings: &RunSettings) -> Result<Comparison, Error> {
        let names = self.engines_or_default(engines)?;
        let runs = names
            .par_iter()
            .map(|engine| EngineRun {
                engine: engine.clone(),
                result: self.run_with(engine, settings),
            })
            .collect();
        Ok(Comparison { runs })
    }

    /// `engines` checked against the registry; none: the project's, else all.
    pub(crate) fn engines_or_default(&self, engines: &[&str]) -> Result<Vec<String>, Error> {
        let names: Vec<String> = if !engines.is_empty() {
            engines.iter().map(|e| e.to_string()).collect()
        } else if !self.engines().is_empty() {
            self.engines().to_vec()
        } else {
            crate::engines().names().into_iter().map(str::to_string).collect()
        };
        for name in &names {
            Project::check_engine(name)?;
        }
        Ok(names)
    }
}
