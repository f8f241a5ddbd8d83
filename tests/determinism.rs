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
