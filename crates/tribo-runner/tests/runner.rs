//! The runner on a stand-in engine that moves nothing and remembers the commands it was given:
//! pattern resampling, bounded recording, the step limit.

use std::path::Path;
use std::sync::{Arc, Mutex};

use tribo_runner::{
    BuildError, Commands, ContactRecord, CsvSink, Engine, EngineFactory, EngineOptions, JointCommand,
    MaterialParameter, Registry, RunError, RunHooks, RunOptions, SceneState, StepError, StepReport, MAX_REPLAY_FRAMES,
    MAX_TRAJECTORY_ROWS,
};
use tribo_scene::{LoadOptions, Project, Scene};

/// (time at the start of the step, commands of body 0's joints).
type Log = Arc<Mutex<Vec<(f64, Vec<JointCommand>)>>>;

struct Still {
    log: Log,
}

struct StillEngine {
    log: Log,
    state: SceneState,
    time: f64,
}

impl EngineFactory for Still {
    fn name(&self) -> &'static str {
        "still"
    }

    fn description(&self) -> &'static str {
        "moves nothing, logs commands"
    }

    fn honoured_parameters(&self) -> &'static [MaterialParameter] {
        &MaterialParameter::ALL
    }

    fn build(&self, scene: &Arc<Scene>, _options: &EngineOptions) -> Result<Box<dyn Engine>, BuildError> {
        let state = SceneState {
            bodies: scene
                .bodies
                .iter()
                .map(|b| {
                    let n = b.model.links.len();
                    tribo_runner::BodyState {
                        links: vec![Default::default(); n],
                        joint_positions: vec![0.0; n],
                        joint_velocities: vec![0.0; n],
                        joint_efforts: vec![0.0; n],
                    }
                })
                .collect(),
        };
        Ok(Box::new(StillEngine {
            log: Arc::clone(&self.log),
            state,
            time: 0.0,
        }))
    }
}

impl Engine for StillEngine {
    fn name(&self) -> &'static str {
        "still"
    }

    fn step(&mut self, dt: f64, commands: &Commands) -> Result<StepReport, StepError> {
        if let Ok(mut log) = self.log.lock() {
            log.push((self.time, commands.bodies[0].joints.clone()));
        }
        self.time += dt;
        Ok(StepReport::default())
    }

    fn time(&self) -> f64 {
        self.time
    }

    fn state(&self) -> &SceneState {
        &self.state
    }

    fn contacts(&self) -> &[ContactRecord] {
        &[]
    }
}

fn load(name: &str) -> Project {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    let options = LoadOptions {
        share_dir: tribo_scene::default_share_dir(),
        ..Default::default()
    };
    Project::load(&path, &options).expect("fixture loads")
}

fn registry() -> (Registry, Log) {
    let log: Log = Arc::default();
    let mut r = Registry::new();
    r.register(Box::new(Still { log: Arc::clone(&log) }));
    (r, log)
}

/// (time, q_ref, v_ref) of every step's command to the arm's joint (link 1).
fn commanded(project: &Project, dt: f64) -> (Vec<(f64, f64, f64)>, tribo_runner::RunOutcome) {
    let mut project = project.clone();
    project.simulation.time_step = dt;
    let (registry, log) = registry();
    let outcome = tribo_runner::run(&project, &registry, "still", &RunOptions::default(), &mut |_, _| {}).expect("run");
    let log = log.lock().expect("log").clone();
    let commands = log
        .into_iter()
        .map(|(t, joints)| match joints[1] {
            JointCommand::Pd { q_ref, v_ref, .. } => (t, q_ref, v_ref),
            other => unreachable!("expected a PD command, found {other:?}"),
        })
        .collect();
    (commands, outcome)
}

/// A 500 Hz pattern played at dt = 0.002 and 0.001: the same reference (positions and
/// velocities) at the shared times, and the same duration — the pattern's length, 101 / 500 s.
#[test]
fn a_pattern_plays_in_time_whatever_the_time_step() {
    let project = load("pattern.yaml");
    let (coarse, coarse_run) = commanded(&project, 0.002);
    let (fine, fine_run) = commanded(&project, 0.001);
    let length = 101.0 / 500.0;
    assert_eq!(coarse_run.steps, 101);
    assert_eq!(fine_run.steps, 202);
    assert!(
        (coarse_run.simulated_time - length).abs() < 1e-12,
        "{}",
        coarse_run.simulated_time
    );
    assert!(
        (fine_run.simulated_time - length).abs() < 1e-12,
        "{}",
        fine_run.simulated_time
    );
    assert_eq!(coarse.len(), 101);
    assert_eq!(fine.len(), 202);
    for (k, c) in coarse.iter().enumerate() {
        let f = fine[2 * k];
        assert!((c.0 - f.0).abs() < 1e-12, "times {} vs {}", c.0, f.0);
        assert!((c.1 - f.1).abs() < 1e-12, "t = {}: q_ref {} vs {}", c.0, c.1, f.1);
        assert!((c.2 - f.2).abs() < 1e-12, "t = {}: v_ref {} vs {}", c.0, c.2, f.2);
    }
    // Between frames the fine run interpolates linearly.
    for k in 0..100 {
        let mid = fine[2 * k + 1].1;
        let (a, b) = (coarse[k].1, coarse[k + 1].1);
        assert!(
            (mid - 0.5 * (a + b)).abs() < 1e-12,
            "frame {k}: {mid} vs {}",
            0.5 * (a + b)
        );
    }
    // At dt = 0.002 the reference is the pattern's frames themselves.
    let motion = match &project.controllers[0] {
        tribo_scene::ControllerSpec::JointPattern(p) => Arc::clone(&p.motion),
        _ => unreachable!("the fixture's controller is a joint pattern"),
    };
    for (k, c) in coarse.iter().enumerate() {
        assert_eq!(c.1, motion.frame(k)[0]);
    }
}

/// A long run on a tiny scene: the in-memory trajectory and the replay stay bounded, evenly
/// spaced from 0 to the end; a row sink still sees every row; metrics come from every step.
#[test]
fn a_long_run_keeps_bounded_records() {
    let project = load("idle.yaml");
    let (registry, _) = registry();
    let steps = 2 * MAX_TRAJECTORY_ROWS as u64 + 1234;
    let dt = project.simulation.time_step;
    let options = RunOptions {
        duration: Some(steps as f64 * dt),
        replay_interval: Some(dt),
        ..Default::default()
    };
    let mut sink = CsvSink::new(Vec::new());
    let hooks = RunHooks {
        progress: &mut |_, _| {},
        rows: Some(&mut sink),
        on_step: None,
    };
    let outcome = tribo_runner::run_with(&project, &registry, "still", &options, hooks).expect("run");
    assert_eq!(outcome.steps, steps);
    let rows = &outcome.trajectory.rows;
    assert!(rows.len() <= MAX_TRAJECTORY_ROWS + 1, "{} rows", rows.len());
    assert!(rows.len() >= MAX_TRAJECTORY_ROWS / 2, "{} rows", rows.len());
    assert_eq!(rows[0][0], 0.0);
    assert_eq!(rows.last().map(|r| r[0]), Some(outcome.simulated_time));
    let replay = outcome.replay.as_ref().expect("replay");
    assert!(
        replay.frames.len() <= MAX_REPLAY_FRAMES,
        "{} frames",
        replay.frames.len()
    );
    assert!(
        replay.frames.len() >= MAX_REPLAY_FRAMES / 2,
        "{} frames",
        replay.frames.len()
    );
    let csv = String::from_utf8(sink.into_inner()).expect("utf8");
    assert_eq!(csv.lines().count() as u64, 1 + steps + 1, "header and every step's row");
    assert!(csv.starts_with("time,q\n0,0\n"));
    assert!(matches!(outcome.metrics[0].value, tribo_runner::MetricValue::Number(_)));
}

/// A nanosecond time step over one second (10⁹ steps) is refused before anything is built,
/// with the numbers and the way out; with `allow_long_run` it is accepted (not run here).
#[test]
fn a_run_of_a_billion_steps_is_refused_unless_allowed() {
    let mut project = load("idle.yaml");
    project.simulation.time_step = 1e-9;
    let (registry, _) = registry();
    let refused = tribo_runner::run(&project, &registry, "still", &RunOptions::default(), &mut |_, _| {});
    match refused {
        Err(RunError::TooManySteps(e)) => {
            let text = e.to_string();
            assert_eq!(e.steps, 1_000_000_000);
            assert!(text.contains("1000000000 steps"), "{text}");
            assert!(text.contains("limit of 10000000 steps"), "{text}");
            assert!(text.contains("--allow-long-run"), "{text}");
        }
        other => unreachable!("expected a refusal, got {:?}", other.map(|o| o.steps)),
    }
    let allowed = RunOptions {
        allow_long_run: true,
        ..Default::default()
    };
    assert_eq!(tribo_runner::planned_steps(&project, &allowed), Ok(1_000_000_000));
    // `--time 1e9` at the project's 1 ms is refused the same way.
    let project = load("idle.yaml");
    let long = RunOptions {
        duration: Some(1e9),
        ..Default::default()
    };
    assert!(tribo_runner::planned_steps(&project, &long).is_err());
}

/// An engine that warns every step and fails at step `fail_at` (0-based) with `error`.
struct Faulty {
    fail_at: u64,
    error: StepError,
}

struct FaultyEngine {
    state: SceneState,
    steps: u64,
    fail_at: u64,
    error: StepError,
}

impl EngineFactory for Faulty {
    fn name(&self) -> &'static str {
        "faulty"
    }

    fn description(&self) -> &'static str {
        "fails at a given step"
    }

    fn honoured_parameters(&self) -> &'static [MaterialParameter] {
        &MaterialParameter::ALL
    }

    fn build(&self, scene: &Arc<Scene>, options: &EngineOptions) -> Result<Box<dyn Engine>, BuildError> {
        let still = Still { log: Arc::default() }.build(scene, options)?;
        Ok(Box::new(FaultyEngine {
            state: still.state().clone(),
            steps: 0,
            fail_at: self.fail_at,
            error: self.error.clone(),
        }))
    }
}

impl Engine for FaultyEngine {
    fn name(&self) -> &'static str {
        "faulty"
    }

    fn step(&mut self, _dt: f64, _commands: &Commands) -> Result<StepReport, StepError> {
        if self.steps == self.fail_at {
            return Err(self.error.clone());
        }
        self.steps += 1;
        let mut report = StepReport::default();
        report.warnings.push("wobbly".into());
        Ok(report)
    }

    fn time(&self) -> f64 {
        self.steps as f64 * 1e-3
    }

    fn state(&self) -> &SceneState {
        &self.state
    }

    fn contacts(&self) -> &[ContactRecord] {
        &[]
    }
}

fn run_faulty(error: StepError) -> RunError {
    let project = load("idle.yaml");
    let mut registry = Registry::new();
    registry.register(Box::new(Faulty { fail_at: 5, error }));
    let result = tribo_runner::run(&project, &registry, "faulty", &RunOptions::default(), &mut |_, _| {});
    result.map(|o| o.steps).expect_err("the run fails at step 5")
}

/// A run whose engine fails is an `Err` naming the engine, the step and the step error, with the
/// run up to the failure (its trajectory rows and warnings) as its partial outcome.
#[test]
fn a_failed_run_is_an_error_with_the_partial_outcome() {
    let error = run_faulty(StepError::InvalidCommand { what: "boom".into() });
    assert_eq!(error.to_string(), "step 5 (t = 0.0050 s) failed: invalid command: boom");
    let partial = error.partial().expect("a partial outcome");
    match &error {
        RunError::Failed {
            engine,
            step,
            time,
            error: StepError::InvalidCommand { what },
            partial: boxed,
        } => {
            assert_eq!((engine.as_str(), *step, what.as_str()), ("faulty", 5, "boom"));
            assert!((time - 0.005).abs() < 1e-12, "{time}");
            assert_eq!(boxed.steps, 5);
        }
        other => unreachable!("expected a failed run, got {other}"),
    }
    assert_eq!(partial.engine, "faulty");
    assert_eq!(partial.steps, 5);
    assert!((partial.simulated_time - 0.005).abs() < 1e-12);
    assert_eq!(partial.trajectory.rows.len(), 6, "t = 0 and the five completed steps");
    assert_eq!(partial.warnings, ["wobbly"]);

    let record = tribo_runner::RunRecord::failed("faulty", error.clone());
    assert!(record.is_failed());
    assert_eq!(record.outcome.steps, 5);
    assert_eq!(record.failure_text(), Some(error.to_string()));
}

/// A divergence reads as the engine wrote it (it names its own step and body).
#[test]
fn a_diverged_run_keeps_the_divergence_message() {
    let diverged = StepError::Diverged {
        step: 6,
        time: 0.005,
        body: "arm".into(),
        what: "link `Upper` has a non-finite pose or velocity".into(),
    };
    let error = run_faulty(diverged.clone());
    assert_eq!(error.to_string(), diverged.to_string());
    assert!(matches!(&error, RunError::Failed { error: StepError::Diverged { body, .. }, .. } if body == "arm"));

    // A run that never started has no partial outcome: its record is empty and says so.
    let record = tribo_runner::RunRecord::failed(
        "faulty",
        RunError::Build(BuildError::Unsupported {
            engine: "faulty",
            reason: "no".into(),
        }),
    );
    assert_eq!(record.outcome.steps, 0);
    assert_eq!(
        record.failure_text().as_deref(),
        Some("failed before its first step: engine `faulty` cannot simulate this scene: no")
    );
}
