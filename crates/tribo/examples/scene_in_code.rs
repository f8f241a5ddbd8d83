//! Compare engines on a scene built in code, not from a file.
//!
//! A 0.2 m, 2 kg box launched at 2 m/s across the ground with friction 0.4 stops after
//! d = v² / (2 μ g) = 0.510 m (Coulomb friction, constant deceleration μ g). Each engine's
//! stopping distance is compared with it.
//!
//! `cargo run --release -p tribo --example scene_in_code`

use std::process::ExitCode;

use nalgebra::{Isometry3, Vector3};
use tribo::{Geometry, SceneBuilder};

const SPEED: f64 = 2.0;
const MU: f64 = 0.4;
const G: f64 = 9.81;

const MATERIALS: &str = "
materials:
  - { name: Crate, roughness: 0.4 }
contact_materials:
  - { materials: [Ground, Crate], friction: 0.4, restitution: 0 }
";

fn main() -> ExitCode {
    match compare() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn compare() -> Result<(), tribo::Error> {
    let cube = Geometry::Box {
        size: Vector3::repeat(0.2),
    };
    let project = SceneBuilder::new("sliding crate")?
        .materials_yaml(MATERIALS)?
        .ground("Ground")
        .solid("crate", cube, 2.0, "Crate", Isometry3::translation(0.0, 0.0, 0.1))
        .moving(Vector3::new(SPEED, 0.0, 0.0))
        .project(0.001, 1.0)?;
    let expected = SPEED * SPEED / (2.0 * MU * G);
    println!("stopping distance v²/(2 μ g) = {expected:.4} m");
    let comparison = project.compare(&["rapier", "pgs"])?;
    for engine_run in &comparison.runs {
        match &engine_run.result {
            Ok(run) => {
                let x = run.column("crate.pos.x").unwrap_or_default();
                let stop = x.last().copied().unwrap_or(f64::NAN) - x.first().copied().unwrap_or(f64::NAN);
                println!(
                    "{:<8} {stop:.4} m ({:+.2} %)",
                    engine_run.engine,
                    (stop / expected - 1.0) * 100.0
                );
            }
            Err(error) => println!("{:<8} failed: {error}", engine_run.engine),
        }
    }
    Ok(())
}
