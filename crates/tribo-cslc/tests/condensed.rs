//! The condensed solve (`Acceleration::Condensed`, `docs/design/lattice-model.md` §4, "Condensed
//! solve") changes the path, not the equilibrium: it iterates over the touching spheres' forces
//! with the pad's compliance `G = K⁻¹` instead of sweeping every sphere, and the spheres out of
//! contact follow from those forces exactly (`δ = G f`). Both it and the red-black sweeps solve
//! the same equations, so, both solved to a relative force residual of 1e-12, the fields and the
//! patch's wrench must agree within 1e-6 relative (the bound of `tests/acceleration.rs`: at
//! residual `r` a solution lies about `r / (1 − ρ_J)` from the fixed point, `ρ_J ≤ 0.97` for these
//! pads), step after step, sticking and sliding.
//!
//! One exception, by the model's friction law: a sliding sphere's friction acts along its trial
//! force (`local.rs`, the return mapping), which the red-black sweeps form with the sphere's own
//! stiffness `K_i` (its neighbours held) and the condensed solve with the lattice's stiffness as
//! the sphere sees it, `G_ii⁻¹` (its neighbours relaxed). Where the target's normal lies along the
//! pad's axis both give the direction of the slip; tilted off it (a ball's rim) the two turn by
//! about the tilt times the stiffnesses' anisotropy, and the fields part by some 1e-5 of their
//! size while the force still agrees to 1e-7.
//!
//! `Acceleration::Adaptive` (the default) condenses where that is expected to be faster: a fine
//! pad under a small sliding patch, whose red-black sweeps need tens a step.

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use tribo_cslc::{
    Acceleration, CslcPad, CslcParams, PadGeometry, PatchResult, Plane, Posed, Sphere, StepInput, Target, Twist,
};

const AGREEMENT: f64 = 1e-6;

fn pad(acceleration: Acceleration, tolerance: f64) -> CslcPad {
    let lattice = PadGeometry::flat(10, 10, 2e-3).build().expect("lattice");
    let params = CslcParams {
        acceleration,
        tolerance,
        max_iterations: 200_000,
        ..CslcParams::default()
    };
    CslcPad::new(lattice, params).expect("pad")
}

/// The pad's x at step `s` and its speed over the step before: 0.2 µm a step at first, then
/// 2 µm a step from step 20 on, while a ball (radius 2 cm) stays pressed 0.1 mm into the pad's
/// centre: the patch sticks, creeps at its rim and slides (μ_s 0.5, μ_d 0.4).
fn pad_motion(s: u32) -> (f64, f64) {
    let x = |t: f64| -(2e-7 * t + 1.8e-6 * (t - 20.0).max(0.0));
    let t = f64::from(s);
    (x(t), (x(t) - x(t - 1.0)) / DT)
}

const DT: f64 = 1e-3;

fn input<'a>(s: u32, targets: &'a [&'a dyn Target]) -> StepInput<'a> {
    let (x, speed) = pad_motion(s);
    StepInput {
        pad_pose: Isometry3::from(Translation3::new(x, 0.0, 0.0)),
        pad_twist: Twist {
            linear: Vector3::new(speed, 0.0, 0.0),
            angular: Vector3::zeros(),
        },
        targets,
        friction: 0.5,
        dynamic_friction: 0.4,
        dt: DT,
    }
}

fn ball() -> Posed<Sphere> {
    Posed::new(
        Sphere { radius: 0.02 },
        Isometry3::from(Translation3::new(0.0, 0.0, 0.02 - 1e-4)),
    )
}

/// A floor pressed 2 µm into the whole pad (its normal along the pad's axis).
fn floor() -> Posed<Plane> {
    let flip = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI);
    Posed::new(Plane, Isometry3::from_parts(Translation3::new(0.0, 0.0, -2e-6), flip))
}

fn drag(pad: &mut CslcPad, target: &dyn Target, s: u32) -> PatchResult {
    let targets = [target];
    let result = pad.step(&input(s, &targets)).expect("step");
    assert!(result.converged, "step {s}: {:?}", result.warning);
    result
}

/// How far the two solves part over one step: `(field, force, torque)`, each relative (the field
/// to its largest displacement, the torque to the force times the pad's size), and whether the
/// patch slides (its friction at `μ_d` of its load).
fn parting(red_black: &CslcPad, a: &PatchResult, condensed: &CslcPad, b: &PatchResult) -> ([f64; 3], bool) {
    let scale = red_black.displacements().iter().map(|d| d.norm()).fold(0.0, f64::max);
    let field = red_black
        .displacements()
        .iter()
        .zip(condensed.displacements())
        .map(|(x, y)| (x - y).norm())
        .fold(0.0, f64::max);
    let force = (a.total_force - b.total_force).norm() / a.total_force.norm();
    let torque = (a.total_torque - b.total_torque).norm() / (a.total_force.norm() * 0.02);
    let listed = |r: &PatchResult| r.touching.iter().map(|t| t.index).collect::<Vec<_>>();
    assert_eq!(listed(a), listed(b), "the touching spheres differ");
    let sliding = a.touching.iter().all(|t| t.sliding);
    ([field / scale, force, torque], sliding)
}

/// Drags both pads against `target` for 40 steps; the largest parting of the steps that stick
/// and of those that slide, and how many slide.
fn drag_both(target: &dyn Target) -> ([f64; 3], [f64; 3], usize) {
    let mut red_black = pad(Acceleration::RedBlackSor, 1e-12);
    let mut condensed = pad(Acceleration::Condensed, 1e-12);
    let (mut sticking, mut sliding, mut slid) = ([0.0f64; 3], [0.0f64; 3], 0);
    for s in 0..40 {
        let a = drag(&mut red_black, target, s);
        let b = drag(&mut condensed, target, s);
        let (gaps, slides) = parting(&red_black, &a, &condensed, &b);
        let worst = if slides { &mut sliding } else { &mut sticking };
        slid += usize::from(slides);
        for (w, g) in worst.iter_mut().zip(gaps) {
            *w = w.max(g);
        }
    }
    (sticking, sliding, slid)
}

fn assert_within(what: &str, gaps: [f64; 3], bounds: [f64; 3]) {
    for ((name, gap), bound) in ["field", "force", "torque"].iter().zip(gaps).zip(bounds) {
        assert!(
            gap <= bound,
            "{what}: the {name}s differ by {gap:e} (relative; bound {bound:e})"
        );
    }
}

#[test]
fn on_a_floor_the_condensed_solve_shares_the_red_black_equilibrium_sticking_and_sliding() {
    let (sticking, sliding, slid) = drag_both(&floor());
    println!("floor: sticking {sticking:?}, sliding {sliding:?} ({slid} of 40 steps slide)");
    assert!(
        (5..=35).contains(&slid),
        "{slid} of 40 steps slide: both phases must be met"
    );
    assert_within("sticking", sticking, [AGREEMENT; 3]);
    assert_within("sliding", sliding, [AGREEMENT; 3]);
}

#[test]
fn under_a_ball_the_two_solves_part_only_by_a_sliding_sphere_s_friction_direction() {
    let (sticking, sliding, slid) = drag_both(&ball());
    println!("ball: sticking {sticking:?}, sliding {sliding:?} ({slid} of 40 steps slide)");
    assert!(
        (5..=35).contains(&slid),
        "{slid} of 40 steps slide: both phases must be met"
    );
    assert_within("sticking", sticking, [AGREEMENT; 3]);
    // The trial directions part (module docs): the field by some 1e-5, the wrench far less.
    assert_within("sliding", sliding, [1e-4, AGREEMENT, AGREEMENT]);
}

/// Steps every pad of `pads` through `targets` in turn for `steps` steps; each pad's results.
fn run(mut pads: Vec<CslcPad>, targets: &[&dyn Target], steps: u32) -> Vec<Vec<PatchResult>> {
    let mut results = vec![Vec::new(); pads.len()];
    for s in 0..steps {
        for (pad, out) in pads.iter_mut().zip(&mut results) {
            out.push(pad.step(&input(s, targets)).expect("step"));
        }
    }
    results
}

/// A fine pad (30 × 30 at 1 mm) under a ball (radius 5 cm) that slides ±2 mm along x and
/// breathes 0.2 ± 0.05 mm deep over a cycle of 64 steps (`benches/lattice.rs`; some 50 spheres
/// touching, sliding at μ 0.5), for `steps` steps.
fn fine_pad_under_a_sliding_ball(acceleration: Acceleration, steps: usize) -> Vec<PatchResult> {
    let lattice = PadGeometry::flat(30, 30, 1e-3).build().expect("lattice");
    let params = CslcParams {
        acceleration,
        ..CslcParams::default()
    };
    let mut pad = CslcPad::new(lattice, params).expect("pad");
    let centre = |k: usize| {
        let phase = std::f64::consts::TAU * (k % 64) as f64 / 64.0;
        Vector3::new(2e-3 * phase.sin(), 0.0, 0.05 - 2e-4 - 5e-5 * phase.sin())
    };
    (1..=steps)
        .map(|k| {
            let ball =
                Posed::new(Sphere { radius: 0.05 }, Isometry3::from(Translation3::from(centre(k)))).moving(Twist {
                    linear: (centre(k) - centre(k - 1)) / DT,
                    angular: Vector3::zeros(),
                });
            let targets: [&dyn Target; 1] = [&ball];
            let input = StepInput {
                pad_pose: Isometry3::identity(),
                pad_twist: Twist::default(),
                targets: &targets,
                friction: 0.5,
                dynamic_friction: 0.5,
                dt: DT,
            };
            pad.step(&input).expect("step")
        })
        .collect()
}

#[test]
fn adaptive_condenses_a_fine_pad_s_sliding_patch() {
    // Red-black sweeps need tens a step on the fine pad under a sliding patch, the condensed
    // solve about a dozen: adaptive condenses once it has seen both (`condensing_pays`).
    let sweeps = |results: &[PatchResult]| results.iter().map(|r| r.iterations).sum::<usize>();
    let red_black = fine_pad_under_a_sliding_ball(Acceleration::RedBlackSor, 64);
    let condensed = fine_pad_under_a_sliding_ball(Acceleration::Condensed, 64);
    let adaptive = fine_pad_under_a_sliding_ball(Acceleration::Adaptive, 64);
    let touching = adaptive.last().map_or(0, |r| r.touching.len());
    println!(
        "30 × 30 pad, {touching} spheres touching: iterations red-black {}, condensed {}, adaptive {}",
        sweeps(&red_black),
        sweeps(&condensed),
        sweeps(&adaptive)
    );
    assert!(adaptive.iter().chain(&condensed).all(|r| r.converged));
    assert!((20..200).contains(&touching), "{touching} spheres touch the ball");
    assert!(
        2 * sweeps(&condensed) < sweeps(&red_black),
        "the condensed solve must need fewer than half the red-black sweeps here"
    );
    assert!(
        2 * sweeps(&adaptive) < sweeps(&red_black),
        "adaptive did not condense the fine pad's patch"
    );
}

/// The fine pad under a ball while its patch creeps (the pad dragged 0.2 µm a step, then 2 µm):
/// its spheres stick, each pinned tangentially, and block Gauss–Seidel over `G` stalls — the
/// condensed sweeps hand such a step to the red-black sweeps, so every step still converges,
/// and adaptive, pausing the condensed sweeps after each stall (for twice as long after each
/// stall in a row), spends at most a fifth more sweeps than red-black alone.
#[test]
fn a_stalled_condensed_step_is_finished_red_black() {
    let fine = |acceleration| {
        let lattice = PadGeometry::flat(30, 30, 1e-3).build().expect("lattice");
        let params = CslcParams {
            acceleration,
            ..CslcParams::default()
        };
        CslcPad::new(lattice, params).expect("pad")
    };
    let ball = Posed::new(
        Sphere { radius: 0.05 },
        Isometry3::from(Translation3::new(0.0, 0.0, 0.05 - 2e-4)),
    );
    let accelerations = [
        Acceleration::RedBlackSor,
        Acceleration::Condensed,
        Acceleration::Adaptive,
    ];
    let results = run(accelerations.iter().map(|a| fine(*a)).collect(), &[&ball], 40);
    let sweeps: Vec<usize> = results.iter().map(|r| r.iter().map(|p| p.iterations).sum()).collect();
    println!(
        "creeping 30 × 30 pad: iterations red-black {}, condensed {}, adaptive {}",
        sweeps[0], sweeps[1], sweeps[2]
    );
    for (acceleration, steps) in accelerations.iter().zip(&results) {
        assert!(
            steps.iter().all(|r| r.converged),
            "{acceleration:?}: a step did not converge"
        );
    }
    assert!(
        5 * sweeps[2] <= 6 * sweeps[0],
        "adaptive {} against red-black {} iterations",
        sweeps[2],
        sweeps[0]
    );
}
