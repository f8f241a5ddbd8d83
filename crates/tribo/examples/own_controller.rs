//! Step an engine by hand with your own controller and read the contact forces every step.
//!
//! The `slide` sample's rough box (0.1 m, friction 0.5 with the floor) starts at rest; a
//! horizontal push growing at 2 N/s is applied at its centre until it slides. Coulomb's law says
//! it breaks away when the push reaches μ m g; the friction force the floor exerts, read from
//! the contacts each step, follows the push up to there.
//!
//! `cargo run --release -p tribo --example own_controller -- [ENGINE]` (default `pgs`).

use std::process::ExitCode;

use nalgebra::Vector3;
use tribo::{LinkWrench, Project};

const PUSH_RATE: f64 = 2.0; // N/s
const G: f64 = 9.81;

fn main() -> ExitCode {
    let engine = std::env::args().nth(1).unwrap_or_else(|| "pgs".to_string());
    match push_until_it_slides(&engine) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn push_until_it_slides(engine: &str) -> Result<(), tribo::Error> {
    let project = Project::builder("samples/slide/slide.yaml").set("speed", 0).load()?;
    let scene = project.scene().clone();
    let (floor, rough) = (body(&project, "floor")?, body(&project, "rough")?);
    let mass = scene.bodies[rough].model.total_mass();
    let material = scene.bodies[rough].link_materials[0];
    let ground = scene.bodies[floor].link_materials[0];
    let mu = scene.contacts.pair(ground, material).friction();
    println!(
        "box mass {mass} kg, μ {mu}: Coulomb says it slides when the push reaches μ m g = {:.3} N",
        mu * mass * G
    );

    let mut sim = project.simulator(engine)?;
    let start_x = sim.state().bodies[rough].links[0].pose.translation.x;
    println!(
        "{:>8} {:>10} {:>16} {:>14}",
        "t (s)", "push (N)", "friction (N)", "moved (mm)"
    );
    while sim.time() < 3.0 {
        let push = PUSH_RATE * sim.time();
        sim.step_with(|_, commands| {
            commands.bodies[rough].link_wrenches.push(LinkWrench {
                link: 0,
                force: Vector3::new(push, 0.0, 0.0),
                torque: Vector3::zeros(),
            });
        })?;
        // Friction the floor exerts on the box: sum the box's contacts with the floor, forces
        // taken on the box whichever side of the record it is.
        let friction: f64 = sim
            .contacts()
            .iter()
            .filter_map(|c| match (c.a.body, c.b.body) {
                (a, b) if a == floor && b == rough => Some(c.friction_force.x),
                (a, b) if a == rough && b == floor => Some(-c.friction_force.x),
                _ => None,
            })
            .sum();
        let moved = sim.state().bodies[rough].links[0].pose.translation.x - start_x;
        if sim.steps() % 250 == 0 {
            println!(
                "{:>8.3} {push:>10.3} {friction:>16.3} {:>14.4}",
                sim.time(),
                moved * 1e3
            );
        }
        if moved > 1e-3 {
            println!(
                "slid 1 mm at t = {:.3} s with the push at {push:.3} N ({:+.1} % of μ m g)",
                sim.time(),
                (push / (mu * mass * G) - 1.0) * 100.0
            );
            return Ok(());
        }
    }
    println!("the box never slid within 3 s");
    Ok(())
}

fn body(project: &Project, name: &str) -> Result<usize, tribo::Error> {
    project
        .scene()
        .body_index(name)
        .ok_or_else(|| tribo::Error::Input(format!("the slide sample has no body `{name}`")))
}
