//! tribo's `rapier` engine against raw rapier3d-f64 with the same settings, on box piles
//! (cubes of 0.1 m, 1 kg, 0.15 m pitch, columns resting on the floor, released from rest, μ 0.5,
//! dt 2 ms): 5×5×2 = 50, 10×10×5 = 500 and 10×10×10 = 1000 boxes.
//!
//! The raw world is built here with rapier's own API and the integration parameters tribo's
//! engine uses by default (`tribo_rapier::integration_parameters`): 4 substeps of 1 PGS sweep and 1
//! stabilization sweep, `simplified` friction, contacts at 400 Hz with damping ratio 10 for both
//! moving and fixed pairs, prediction distance 0.02, no contact recycling, CCD with one substep,
//! sleeping off. Friction 0.5 and restitution 0 come from the colliders (tribo's material hook
//! writes the same numbers into every manifold; its stick/slip choice is the one thing raw rapier
//! does not do). Each body's mass properties are given explicitly, the colliders have density 0,
//! as in `world_build.rs`.
//!
//! - `cargo bench -p tribo-rapier --bench raw_vs_tribo`: criterion, one step per iteration once the
//!   pile has settled (`settled`), and the first [`LANDING`] steps from a fresh world (`landing`).
//! - `TRIBO_ROUNDS=5 cargo bench -p tribo-rapier --bench raw_vs_tribo`: interleaved rounds (raw
//!   and tribo alternate, order swapped every round) and a table of medians of per-round ratios
//!   tribo ÷ raw, for a loaded machine.
//! - `TRIBO_STAGES=1 …`: contacts, top box height and time per step of both on each settled pile
//!   (the two worlds must agree), with tribo's step split into its `StepReport::stages`.
//! - `TRIBO_PROFILE=raw` or `=tribo` on the bench binary: one engine on the 1000-box pile, for
//!   `perf record`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion};
use rapier3d_f64::math::{Pose, Vector};
use rapier3d_f64::prelude::{ColliderBuilder, MassProperties, PhysicsWorld, RigidBodyBuilder};
use tribo_engine::{Commands, Engine, EngineOptions, Scene};
use tribo_rapier::RapierFactory;
use tribo_testkit::{box_pile, engine, idle, G};

const DT: f64 = 2e-3;
const SIZE: f64 = 0.1;
const GAP: f64 = 0.05;
/// Steps timed from release (contacts forming, columns compressing).
const LANDING: usize = 100;
/// Steps run before the settled pile is timed.
const SETTLE: usize = 300;
/// Steps timed per round once settled.
const SETTLED: usize = 100;

/// (label, nx, ny, nz)
const PILES: [(&str, usize, usize, usize); 3] = [("50", 5, 5, 2), ("500", 10, 10, 5), ("1000", 10, 10, 10)];

/// The pile in raw rapier, laid out as `tribo_testkit::box_pile` lays it out.
fn raw_world(nx: usize, ny: usize, nz: usize) -> PhysicsWorld {
    let mut w = PhysicsWorld::new();
    w.gravity = Vector::new(0.0, 0.0, -G);
    w.integration_parameters =
        tribo_rapier::integration_parameters(&EngineOptions::none(), DT).expect("the default options are valid");
    let ground = w.bodies.insert(
        RigidBodyBuilder::fixed()
            .pose(Pose::from_translation(Vector::new(0.0, 0.0, -0.5)))
            .can_sleep(false),
    );
    let collider = ColliderBuilder::cuboid(20.0, 20.0, 0.5)
        .density(0.0)
        .friction(0.5)
        .restitution(0.0);
    w.colliders.insert_with_parent(collider, ground, &mut w.bodies);
    let pitch = SIZE + GAP;
    let inertia = SIZE * SIZE / 6.0;
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                let p = Vector::new(
                    (i as f64 - (nx as f64 - 1.0) / 2.0) * pitch,
                    (j as f64 - (ny as f64 - 1.0) / 2.0) * pitch,
                    SIZE / 2.0 + k as f64 * SIZE,
                );
                let body = w.bodies.insert(
                    RigidBodyBuilder::dynamic()
                        .pose(Pose::from_translation(p))
                        .additional_mass_properties(MassProperties::new(Vector::ZERO, 1.0, Vector::splat(inertia)))
                        .can_sleep(false)
                        .ccd_enabled(true),
                );
                let collider = ColliderBuilder::cuboid(SIZE / 2.0, SIZE / 2.0, SIZE / 2.0)
                    .density(0.0)
                    .friction(0.5)
                    .restitution(0.0);
                w.colliders.insert_with_parent(collider, body, &mut w.bodies);
            }
        }
    }
    w
}

/// One of the two worlds under comparison.
enum Sim {
    Raw(Box<PhysicsWorld>),
    Tribo(Box<dyn Engine>, Commands),
}

impl Sim {
    fn new(tribo: bool, nx: usize, ny: usize, nz: usize) -> Sim {
        if tribo {
            let scene: Arc<Scene> = box_pile(nx, ny, nz, SIZE, GAP);
            let commands = idle(&scene);
            Sim::Tribo(engine(&RapierFactory, &scene), commands)
        } else {
            Sim::Raw(Box::new(raw_world(nx, ny, nz)))
        }
    }

    fn step(&mut self) {
        match self {
            Sim::Raw(w) => w.step(),
            Sim::Tribo(e, commands) => {
                e.step(DT, commands).expect("the step succeeds");
            }
        }
    }

    fn run(&mut self, steps: usize) -> Duration {
        let start = Instant::now();
        for _ in 0..steps {
            self.step();
        }
        start.elapsed()
    }
}

fn name(tribo: bool) -> &'static str {
    if tribo {
        "tribo"
    } else {
        "raw"
    }
}

fn criterion_benches(c: &mut Criterion) {
    for (label, nx, ny, nz) in PILES {
        let mut g = c.benchmark_group(format!("pile_{label}"));
        for tribo in [false, true] {
            let mut sim = Sim::new(tribo, nx, ny, nz);
            sim.run(SETTLE);
            g.bench_function(format!("{}/settled", name(tribo)), |b| b.iter(|| sim.step()));
            g.bench_function(format!("{}/landing", name(tribo)), |b| {
                b.iter_custom(|iters| {
                    (0..iters)
                        .map(|_| Sim::new(tribo, nx, ny, nz).run(LANDING) / LANDING as u32)
                        .sum()
                });
            });
        }
        g.finish();
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Interleaved rounds: per pile, per round, raw and tribo each land, settle and run settled.
fn rounds(n: usize) {
    println!("| boxes | raw landing ms/step | tribo landing ms/step | landing ratio | raw settled ms/step | tribo settled ms/step | settled ratio |");
    println!("|---|---|---|---|---|---|---|");
    for (label, nx, ny, nz) in PILES {
        // [engine][phase] per round, in ms/step
        let mut times = [[Vec::new(), Vec::new()], [Vec::new(), Vec::new()]];
        for round in 0..n {
            let order = if round % 2 == 0 { [false, true] } else { [true, false] };
            for tribo in order {
                let mut sim = Sim::new(tribo, nx, ny, nz);
                let landing = sim.run(LANDING);
                sim.run(SETTLE - LANDING);
                let settled = sim.run(SETTLED);
                let e = usize::from(tribo);
                times[e][0].push(landing.as_secs_f64() * 1e3 / LANDING as f64);
                times[e][1].push(settled.as_secs_f64() * 1e3 / SETTLED as f64);
            }
        }
        let ratio = |phase: usize| {
            median(
                times[1][phase]
                    .iter()
                    .zip(&times[0][phase])
                    .map(|(t, r)| t / r)
                    .collect(),
            )
        };
        println!(
            "| {label} | {:.3} | {:.3} | {:.2} | {:.3} | {:.3} | {:.2} |",
            median(times[0][0].clone()),
            median(times[1][0].clone()),
            ratio(0),
            median(times[0][1].clone()),
            median(times[1][1].clone()),
            ratio(1),
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = criterion_benches
}

/// Where tribo's step spends its time on the settled pile (`StepReport::stages`), next to a raw
/// step of the same pile.
fn stages() {
    for (label, nx, ny, nz) in PILES {
        let mut raw = Sim::new(false, nx, ny, nz);
        raw.run(SETTLE);
        let raw_ms = raw.run(SETTLED).as_secs_f64() * 1e3 / SETTLED as f64;
        let (raw_contacts, raw_top) = match &raw {
            Sim::Raw(w) => (
                w.narrow_phase
                    .contact_pairs()
                    .flat_map(|p| p.solver_manifolds())
                    .flat_map(|m| m.points.iter())
                    .filter(|p| p.data.impulse > 0.0)
                    .count(),
                w.bodies.iter().map(|(_, b)| b.translation().z).fold(0.0, f64::max),
            ),
            Sim::Tribo(..) => (0, 0.0),
        };
        let scene = box_pile(nx, ny, nz, SIZE, GAP);
        let commands = idle(&scene);
        let mut e = engine(&RapierFactory, &scene);
        e.set_stage_timing(true);
        let mut totals: Vec<(&'static str, f64)> = Vec::new();
        let mut contacts = 0;
        let mut top = 0.0;
        for step in 0..SETTLE + SETTLED {
            let report = e.step(DT, &commands).expect("the step succeeds");
            if step >= SETTLE {
                contacts = report.contacts;
                top = e
                    .state()
                    .bodies
                    .iter()
                    .map(|b| b.links[0].pose.translation.vector.z)
                    .fold(0.0, f64::max);
                for (name, t) in report.stages {
                    match totals.iter_mut().find(|(n, _)| *n == name) {
                        Some(total) => total.1 += t.as_secs_f64(),
                        None => totals.push((name, t.as_secs_f64())),
                    }
                }
            }
        }
        let stages: Vec<String> = totals
            .iter()
            .map(|(n, t)| format!("{n} {:.3}", t * 1e3 / SETTLED as f64))
            .collect();
        println!(
            "{label} boxes: raw {raw_contacts} contacts, top box at {raw_top:.4} m, step {raw_ms:.3} ms; \
             tribo {contacts} contacts, top box at {top:.4} m, {}",
            stages.join(", ")
        );
    }
}

fn main() {
    // For `perf record`: one engine only, on the 1000-box pile.
    if let Ok(which) = std::env::var("TRIBO_PROFILE") {
        let mut sim = Sim::new(which == "tribo", 10, 10, 10);
        sim.run(SETTLE + 4 * SETTLED);
        return;
    }
    if std::env::var_os("TRIBO_STAGES").is_some() {
        stages();
        return;
    }
    match std::env::var("TRIBO_ROUNDS").ok().and_then(|n| n.parse::<usize>().ok()) {
        Some(n) => rounds(n.max(1)),
        None => {
            benches();
            Criterion::default().configure_from_args().final_summary();
        }
    }
}
