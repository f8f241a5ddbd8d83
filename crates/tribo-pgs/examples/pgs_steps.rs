//! CPU time of a fixed number of `pgs` steps on the benchmark scenes of `tribo-testkit`
//! (BENCHMARKS.md, #14). Not a test: a driver for before/after comparisons in interleaved rounds.
//!
//! `cargo run --release -p tribo-pgs --example pgs_steps -- SCENE STEPS`, SCENE one of `sr1`
//! (SR1 standing) or `pile:NX:NY:NZ` (cubes of 0.1 m, columns 2 mm apart, from rest). Prints the
//! thread's CPU time per step over the first and the second half of the steps (pile: landing and
//! settled), the PGS sweeps and capped solves of each half, and a digest of the final root
//! positions (to check that two builds computed the same motion). With `PGS_STAGES` set the
//! engine times its stages too, and their wall times per step are printed (the clock reads then
//! add to the CPU time).

use std::path::Path;

use tribo_engine::{Commands, Engine, Scene};
use tribo_pgs::PgsFactory;
use tribo_testkit::{box_pile, engine, idle, sr1_standing};

const DT: f64 = 2e-3;

/// CPU time of this thread, ns (`/proc/thread-self/schedstat`, first field).
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|x| x.parse().ok()))
        .unwrap_or(0)
}

struct Half {
    ns: u64,
    sweeps: u64,
    capped: u64,
    worst_relative_residual: f64,
    stages: Vec<(&'static str, f64)>,
}

fn run_half(sim: &mut dyn Engine, commands: &Commands, steps: usize) -> Half {
    let mut half = Half {
        ns: 0,
        sweeps: 0,
        capped: 0,
        worst_relative_residual: 0.0,
        stages: Vec::new(),
    };
    let start = cpu_ns();
    for _ in 0..steps {
        let report = sim.step(DT, commands).expect("the step succeeds");
        half.sweeps += u64::from(report.iterations);
        for (name, time) in &report.stages {
            match half.stages.iter_mut().find(|(n, _)| n == name) {
                Some(slot) => slot.1 += time.as_secs_f64(),
                None => half.stages.push((name, time.as_secs_f64())),
            }
        }
        if let Some(capped) = report.capped {
            half.capped += 1;
            half.worst_relative_residual = half.worst_relative_residual.max(capped.relative_residual);
        }
    }
    half.ns = cpu_ns() - start;
    half
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(which), Some(steps)) = (args.get(1), args.get(2).and_then(|s| s.parse::<usize>().ok())) else {
        eprintln!("usage: pgs_steps sr1|pile:NX:NY:NZ STEPS");
        std::process::exit(2);
    };
    let (scene, commands): (std::sync::Arc<Scene>, Commands) = if which == "sr1" {
        sr1_standing(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../share/choreonoid"))
    } else {
        let dims: Vec<usize> = which.split(':').skip(1).filter_map(|x| x.parse().ok()).collect();
        let [nx, ny, nz] = dims[..] else {
            eprintln!("pile:NX:NY:NZ");
            std::process::exit(2);
        };
        let scene = box_pile(nx, ny, nz, 0.1, 0.002);
        let commands = idle(&scene);
        (scene, commands)
    };
    let mut sim = engine(&PgsFactory, &scene);
    sim.set_stage_timing(std::env::var_os("PGS_STAGES").is_some());
    let first = run_half(sim.as_mut(), &commands, steps / 2);
    let second = run_half(sim.as_mut(), &commands, steps - steps / 2);
    let mut digest = 0.0;
    for (b, body) in sim.state().bodies.iter().enumerate() {
        if let Some(link) = body.links.first() {
            let p = link.pose.translation.vector;
            digest += (b as f64 + 1.0) * (p.x + 2.0 * p.y + 3.0 * p.z);
        }
    }
    let us = |h: &Half, n: usize| h.ns as f64 / 1e3 / n.max(1) as f64;
    println!(
        "{which} steps {steps}: all {:.2} us/step | first {:.2} us/step sweeps {} capped {} worst {:.2e} | second {:.2} us/step sweeps {} capped {} worst {:.2e} | digest {digest:.15e}",
        (first.ns + second.ns) as f64 / 1e3 / steps as f64,
        us(&first, steps / 2),
        first.sweeps,
        first.capped,
        first.worst_relative_residual,
        us(&second, steps - steps / 2),
        second.sweeps,
        second.capped,
        second.worst_relative_residual,
    );
    if std::env::var_os("PGS_STAGES").is_some() {
        for (label, half, n) in [("first", &first, steps / 2), ("second", &second, steps - steps / 2)] {
            let stages: Vec<String> = half
                .stages
                .iter()
                .map(|(name, t)| format!("{name} {:.1}", t * 1e6 / n.max(1) as f64))
                .collect();
            println!("  {label} half, wall us/step: {}", stages.join(", "));
        }
    }
}
