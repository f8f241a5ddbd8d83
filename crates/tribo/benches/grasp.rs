#![allow(clippy::panic)]
//! Wall time per step of the gentle grasp (`samples/gentle-grasp`, flat pads, sphere object,
//! squeeze 1.5 × the Coulomb limit) on `cslc` against `pgs` (point contact on the pads' rigid
//! boxes): the scene is loaded from the sample, the two finger efforts are applied as the
//! sample's controllers would, the palm holds still, 300 steps settle the grasp, then criterion
//! times single steps of the held grasp.
//!
//! `cargo bench -p tribo --bench grasp -- --warm-up-time 1 --measurement-time 3`

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use tribo_engine::{Commands, Engine, EngineFactory, EngineOptions, JointCommand};
use tribo_scene::{LoadOptions, Project};

const DT: f64 = 1e-3;

fn project() -> Project {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let options = LoadOptions {
        overrides: BTreeMap::new(),
        extra_materials: Vec::new(),
        strict: false,
        share_dir: root.join("share"),
    };
    match Project::load(&root.join("samples/gentle-grasp/gentle-grasp.yaml"), &options) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    }
}

/// Idle commands plus the squeeze on both fingers (the sample's formula).
fn commands(project: &Project) -> Commands {
    let scene = &project.scene;
    let mut commands = Commands::idle(scene.bodies.iter().map(|b| b.model.links.len()));
    let gripper = scene.body_index("gripper").unwrap_or(2);
    let mu = scene
        .contacts
        .pair(
            scene.contacts.id("Skin").unwrap_or(tribo_material::MaterialId::DEFAULT),
            scene
                .contacts
                .id("Object")
                .unwrap_or(tribo_material::MaterialId::DEFAULT),
        )
        .static_friction;
    let squeeze = 1.5 * 0.1 * 9.81 / (2.0 * mu);
    for (link, l) in scene.bodies[gripper].model.links.iter().enumerate() {
        if l.name.ends_with("finger") {
            commands.bodies[gripper].joints[link] = JointCommand::Effort(squeeze);
        }
    }
    commands
}

fn settled(factory: &dyn EngineFactory, project: &Project, commands: &Commands) -> Box<dyn Engine> {
    let mut engine = match factory.build(&project.scene, &EngineOptions::none()) {
        Ok(e) => e,
        Err(e) => panic!("{e}"),
    };
    for _ in 0..300 {
        if let Err(e) = engine.step(DT, commands) {
            panic!("{e}");
        }
    }
    engine
}

fn grasp(c: &mut Criterion) {
    let project = project();
    let commands = commands(&project);
    let mut group = c.benchmark_group("gentle_grasp_step");
    let engines = tribo::engines();
    for name in ["pgs", "cslc"] {
        let factory = engines.get(name).unwrap_or_else(|e| panic!("{e}"));
        let mut engine = settled(factory, &project, &commands);
        group.bench_function(name, |b| {
            b.iter(|| black_box(engine.step(DT, &commands).map(|r| r.contacts).unwrap_or(0)))
        });
    }
    group.finish();
}

criterion_group!(benches, grasp);
criterion_main!(benches);
