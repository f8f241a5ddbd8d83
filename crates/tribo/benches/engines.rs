//! Steps per second of `pgs` and `rapier` on two scenes at dt = 2 ms: Choreonoid's SR1 standing
//! under PD control, and a 10 × 10 × 5 pile of 0.1 m boxes settling (columns 2 mm apart).
//!
//! `cargo bench -p tribo --bench engines`; each iteration is one engine step, so steps/s is
//! the reciprocal of criterion's time per iteration.

use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use tribo_engine::{Commands, EngineFactory};
use tribo_pgs::PgsFactory;
use tribo_rapier::RapierFactory;
use tribo_testkit::{box_pile, engine, engine_with, idle, sr1_standing};

const DT: f64 = 2e-3;

fn bench_scene(c: &mut Criterion, group: &str, scene: &std::sync::Arc<tribo_engine::Scene>, commands: &Commands) {
    let mut g = c.benchmark_group(group);
    let factories: [&dyn EngineFactory; 2] = [&PgsFactory, &RapierFactory];
    for factory in factories {
        let mut sim = engine(factory, scene);
        g.bench_function(factory.name(), |b| {
            b.iter(|| sim.step(DT, commands).expect("the step succeeds"));
        });
    }
    // The same engine at a real-time budget: 20 PGS sweeps, tolerance 1e-6.
    let mut sim = engine_with(&PgsFactory, scene, "iterations: 20\ntolerance: 1.0e-6\n");
    g.bench_function("pgs_20_sweeps", |b| {
        b.iter(|| sim.step(DT, commands).expect("the step succeeds"));
    });
    g.finish();
}

fn engines(c: &mut Criterion) {
    let (sr1, sr1_commands) = sr1_standing(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../share/choreonoid"));
    bench_scene(c, "sr1_standing", &sr1, &sr1_commands);
    let pile = box_pile(10, 10, 5, 0.1, 0.002);
    let pile_commands = idle(&pile);
    bench_scene(c, "box_pile_500", &pile, &pile_commands);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = engines
}
criterion_main!(benches);
