//! Same project, engine and options give byte-identical trajectories.

use tribo_tests::{load, run};

#[test]
fn two_identical_runs_write_identical_trajectories() {
    for sample in ["samples/ball/ball.yaml", "samples/slide/slide.yaml"] {
        let project = load(sample, &[], &[]);
        let a = run(&project, "rapier").trajectory.to_csv();
        let b = run(&project, "rapier").trajectory.to_csv();
        assert!(a.lines().count() > 100, "{sample}: the trajectory should have rows");
        assert!(a == b, "{sample}: two runs differ");
    }
}

/// Timing the stages (`Engine::set_stage_timing`) reports them and changes nothing else: every
/// engine, two runs of the gentle grasp's first 200 steps, one timed, the other not, end in the
/// same state to the bit; only the timed one's reports name stages.
#[test]
fn timing_the_stages_changes_no_result() {
    let project = tribo::Project::from_scene(load("samples/gentle-grasp/gentle-grasp.yaml", &[], &[]));
    for engine in ["rapier", "pgs", "cslc", "cslc-rapier"] {
        let mut quiet = project.simulator(engine).expect("the engine builds");
        let mut timed = project.simulator(engine).expect("the engine builds");
        timed.set_stage_timing(true);
        for step in 0..200 {
            let q = quiet.step().expect("the step succeeds");
            let t = timed.step().expect("the step succeeds");
            assert!(q.stages.is_empty(), "{engine}, step {step}: stages timed unasked");
            assert!(!t.stages.is_empty(), "{engine}, step {step}: no stages timed");
        }
        let positions = |s: &tribo::Simulator| -> Vec<u64> {
            s.state()
                .bodies
                .iter()
                .flat_map(|b| b.links.iter())
                .flat_map(|l| l.pose.translation.vector.iter().copied().collect::<Vec<_>>())
                .map(f64::to_bits)
                .collect()
        };
        assert_eq!(positions(&quiet), positions(&timed), "{engine}: the runs differ");
        if engine.starts_with("cslc") {
            let t = timed.step().expect("the step succeeds");
            assert_eq!(t.stages.first().map(|(s, _)| *s), Some("cslc_lattice"), "{engine}");
        }
    }
}

/// The `cslc` engines build their contact records when first asked (`tribo-cslc-engine`
/// `engine.rs`): asking after every step, twice, or only every 7th step gives the same records to
/// the bit, and the run ends in the same state whether or not they were read. The gentle grasp's
/// first 600 steps: the fingers close on the ball and hold it, with patch records on most steps.
#[test]
fn cslc_contact_records_read_rarely_equal_records_read_every_step() {
    let project = tribo::Project::from_scene(load("samples/gentle-grasp/gentle-grasp.yaml", &[], &[]));
    for engine in ["cslc", "cslc-rapier"] {
        let mut every = project.simulator(engine).expect("the engine builds");
        let mut rarely = project.simulator(engine).expect("the engine builds");
        let exact = |s: &tribo::Simulator| format!("{:?}", s.contacts());
        let mut patch_steps = 0;
        for step in 1..=600 {
            every.step().expect("the step succeeds");
            rarely.step().expect("the step succeeds");
            let records = exact(&every);
            assert_eq!(exact(&every), records, "{engine}, step {step}: read twice");
            if step % 7 == 0 {
                assert_eq!(exact(&rarely), records, "{engine}, step {step}: read every 7th step");
            }
            patch_steps += usize::from(every.contacts().iter().any(|c| c.patch.is_some()));
        }
        assert!(
            patch_steps > 300,
            "{engine}: patch records on {patch_steps} of 600 steps"
        );
        assert_eq!(
            format!("{:?}", every.state()),
            format!("{:?}", rarely.state()),
            "{engine}: the state depends on reading the records"
        );
    }
}
