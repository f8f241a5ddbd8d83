//! CSLC lattice sweep speed: a 30 × 30 flat pad (h = 1 mm) pressed by a sphere (R = 50 mm, about
//! 0.2 mm deep, μ = 0.5 and frictionless), one `CslcPad::step` per iteration, default solver settings
//! (`CslcParams::default()`: tolerance, iteration cap) with each [`Acceleration`], the default
//! one first.
//!
//! The sphere follows a periodic path of `CYCLE` poses (depth 0.2 mm ± 0.05 mm, sliding ±2 mm in X)
//! with a twist consistent with the pose change, so a warm-started step has real work to do
//! (a static target would converge in zero iterations). Modes:
//! - `warm`: the displacement field persists between steps (the normal use);
//! - `cold`: `CslcPad::reset` before every step (solve from δ = 0). `reset` also forgets the
//!   contact history, so with friction a cold step has no stick anchors to carry: every touching
//!   sphere sticks at zero shear, an easier problem than the warm step's sliding patch. The
//!   frictionless runs compare the two starts on the same problem.
//!
//! Each mode runs inside a rayon `ThreadPool` of 1 and of 2 threads (`pool.install`).
//! Throughput is sphere updates per second = spheres × `PatchResult::iterations` / time; criterion
//! reports it as `elem/s` using the mean iteration count over one cycle, and the bench also prints
//! a direct measurement (wall time of whole cycles, iterations summed).
//!
//! `cargo bench -p tribo-cslc --bench lattice -- --warm-up-time 1 --measurement-time 3`

use std::f64::consts::TAU;
use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nalgebra::{Isometry3, Translation3, Vector3};
use tribo_cslc::{Acceleration, CslcPad, CslcParams, PadGeometry, Posed, Sphere, StepInput, Target, Twist};

const N: usize = 30;
const SPACING: f64 = 1e-3;
const BALL: f64 = 0.05;
const CYCLE: usize = 64;
const DT: f64 = 1e-3;

/// Centre of the indenter at phase `k` of the cycle.
fn ball_centre(k: usize) -> Vector3<f64> {
    let phase = TAU * (k % CYCLE) as f64 / CYCLE as f64;
    let depth = 2e-4 + 5e-5 * phase.sin();
    Vector3::new(2e-3 * phase.sin(), 0.0, BALL - depth)
}

/// The indenter at phase `k`, moving with the velocity that brought it there from phase `k − 1`.
fn ball(k: usize) -> Posed<Sphere> {
    let centre = ball_centre(k);
    let velocity = (centre - ball_centre(k + CYCLE - 1)) / DT;
    Posed::new(Sphere { radius: BALL }, Isometry3::from(Translation3::from(centre))).moving(Twist {
        linear: velocity,
        angular: Vector3::zeros(),
    })
}

fn pad(acceleration: Acceleration) -> CslcPad {
    let lattice = PadGeometry::flat(N, N, SPACING).build().expect("lattice");
    let params = CslcParams {
        acceleration,
        ..CslcParams::default()
    };
    CslcPad::new(lattice, params).expect("pad")
}

/// One step at phase `k` with friction coefficient `friction`; returns the iterations and whether
/// the solve converged.
fn step(pad: &mut CslcPad, k: usize, cold: bool, friction: f64) -> (usize, bool) {
    if cold {
        pad.reset();
    }
    let target = ball(k);
    let targets: [&dyn Target; 1] = [&target];
    let input = StepInput {
        pad_pose: Isometry3::identity(),
        pad_twist: Twist::default(),
        targets: &targets,
        friction,
        dynamic_friction: friction,
        dt: DT,
    };
    let result = pad.step(&input).expect("step");
    black_box(&result.total_force);
    (result.iterations, result.converged)
}

/// Direct measurement over `cycles` whole cycles (after one cycle of warm-up): (mean iterations
/// per step, seconds per step, steps that did not converge).
fn measure(pad: &mut CslcPad, cold: bool, friction: f64, cycles: usize) -> (f64, f64, usize) {
    for k in 0..CYCLE {
        step(pad, k, cold, friction);
    }
    let start = Instant::now();
    let (mut iterations, mut failed) = (0, 0);
    for k in 0..cycles * CYCLE {
        let (count, converged) = step(pad, k, cold, friction);
        iterations += count;
        failed += usize::from(!converged);
    }
    let steps = (cycles * CYCLE) as f64;
    (iterations as f64 / steps, start.elapsed().as_secs_f64() / steps, failed)
}

fn lattice_sweep(c: &mut Criterion) {
    let spheres = N * N;
    let default = CslcParams::default().acceleration;
    let mut accelerations = vec![default];
    accelerations.extend(
        [
            Acceleration::Condensed,
            Acceleration::RedBlackSor,
            Acceleration::Chebyshev,
            Acceleration::DampedJacobi,
        ]
        .into_iter()
        .filter(|a| *a != default),
    );
    for acceleration in accelerations {
        for friction in [0.5, 0.0] {
            let mut group = c.benchmark_group(format!("cslc_step_30x30_sphere/{acceleration:?}/mu={friction}"));
            for threads in [1, 2] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("thread pool");
                for (mode, cold) in [("warm", false), ("cold", true)] {
                    let mut pad = pad(acceleration);
                    let cycles = 4;
                    let (mean_iterations, seconds, failed) = pool.install(|| measure(&mut pad, cold, friction, cycles));
                    println!(
                        "cslc 30x30 {acceleration:?} μ = {friction} {mode} start, {threads} thread(s): \
                         {mean_iterations:.1} iterations/step, {:.3} ms/step, {:.2e} sphere updates/s, \
                         {failed} of {} steps not converged",
                        seconds * 1e3,
                        spheres as f64 * mean_iterations / seconds,
                        cycles * CYCLE
                    );
                    group.throughput(Throughput::Elements((spheres as f64 * mean_iterations).round() as u64));
                    let mut k = 0;
                    group.bench_function(BenchmarkId::new(mode, format!("{threads} thread(s)")), |b| {
                        pool.install(|| {
                            b.iter(|| {
                                k += 1;
                                step(&mut pad, k, cold, friction)
                            })
                        })
                    });
                }
            }
            group.finish();
        }
    }
}

criterion_group!(benches, lattice_sweep);
criterion_main!(benches);
