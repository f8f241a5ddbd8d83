//! Pre-sliding friction (`docs/design/lattice-model.md` §3.4) against closed forms.
//!
//! Setup: a 20 × 20 flat pad (side `L` = 20 mm, `h` = 1 mm) pressed on a plane by a known load `W`.
//! The plane indents the pad uniformly, so every sphere carries the same normal force
//! `f_n,i = k_a a_i δ_n` (anchor = Hertz), all lateral springs are idle (`δ_i = δ_j`), and the
//! penetration that carries `W` is `δ_n + φ` with `δ_n = W/(L² k_a)`, `φ = (W/(L² k_c))^{2/3}`.
//! Then the plane is moved along its own surface with [`Posed::moving`] and a pose advanced by
//! `twist × dt` each step, so the stick anchors are carried by exactly the prescribed motion.
//!
//! Analytic friction of the discrete model, per sphere `i` at rest position `p_i` (pad frame):
//! - sticking, the tangential displacement equals the carried target motion `u_i`, and the friction
//!   force is the tangential reaction `ρ k_a a_i u_i + K_ℓ Σ_j (u_i − u_j)` (anchor plus lateral);
//! - sliding, it is returned to the cap `μ f_n,i`.
//!
//! A sphere saturates when `ρ k_a a_i |u_i| = μ f_n,i`, i.e. `|u_i| = U_sat = μ δ_n / ρ` for the
//! uniform indentation (independent of `a_i`).

mod common;

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use tribo_cslc::{CslcPad, CslcParams, PatchResult, Plane, Posed, StepInput, Target, Twist};

const N: usize = 20;
const SIZE: f64 = 0.02;
const LOAD: f64 = 20.0;
const MU: f64 = 0.5;
const DT: f64 = 1e-3;

/// Penetration of the plane that carries `LOAD` (see the module comment).
fn depth_for_load(p: &CslcParams) -> f64 {
    let area = SIZE * SIZE;
    LOAD / (area * p.anchor_stiffness) + (LOAD / (area * p.contact_stiffness)).powf(2.0 / 3.0)
}

/// Normal compression of every sphere under `LOAD`.
fn normal_compression(p: &CslcParams) -> f64 {
    LOAD / (SIZE * SIZE * p.anchor_stiffness)
}

/// The pressing plane (solid `z ≥ −depth` of the pad frame, outward normal −Z) shifted along X by
/// `shift` and turned about the pad normal by `angle`, moving with `twist`. The plane's frame
/// origin stays on the pad's Z axis, so an angular twist about Z turns it about the pad normal.
fn plane(depth: f64, shift: f64, angle: f64, twist: Twist) -> Posed<Plane> {
    let flip = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI);
    let turn = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), angle);
    Posed::new(
        Plane,
        Isometry3::from_parts(Translation3::new(shift, 0.0, -depth), turn * flip),
    )
    .moving(twist)
}

fn step(pad: &mut CslcPad, target: &Posed<Plane>, pad_pose: Isometry3<f64>, pad_twist: Twist) -> PatchResult {
    let targets: [&dyn Target; 1] = [target];
    let input = StepInput {
        pad_pose,
        pad_twist,
        targets: &targets,
        friction: MU,
        dynamic_friction: MU,
        dt: DT,
    };
    let result = pad.step(&input).expect("step");
    assert!(result.converged, "{:?}", result.warning);
    assert!(!result.fast_impact, "{:?}", result.warning);
    result
}

/// Presses the pad with the plane at rest and checks the normal load.
fn pressed(params: CslcParams) -> (CslcPad, f64) {
    let depth = depth_for_load(&params);
    let mut pad = common::flat_pad(N, SIZE, params);
    let result = step(
        &mut pad,
        &plane(depth, 0.0, 0.0, Twist::default()),
        Isometry3::identity(),
        Twist::default(),
    );
    // The load-to-depth inversion is exact for the uniform indentation; 0.1 % covers the solver
    // tolerance (1e-11) with a wide margin.
    let normal = -result.total_force.z;
    assert!(
        (normal - LOAD).abs() < 1e-3 * LOAD,
        "normal load {normal} N, expected {LOAD} N"
    );
    assert!(result.total_force.xy().norm() < 1e-9 * LOAD, "{}", result.total_force);
    (pad, depth)
}

/// Per-sphere `(|f_t,i|, f_n,i)` of the touching spheres; tangential = orthogonal to the plane
/// normal (world −Z).
fn sphere_split(result: &PatchResult) -> Vec<(f64, f64)> {
    result
        .touching
        .iter()
        .filter(|s| s.normal_force > 0.0)
        .map(|s| (s.force.xy().norm(), s.normal_force))
        .collect()
}

/// Slides the plane (or, with `move_pad`, the pad the opposite way) by `total` along X in
/// `steps` equal steps, starting from `start`; returns the last patch.
fn slide(pad: &mut CslcPad, depth: f64, start: f64, total: f64, steps: usize, move_pad: bool) -> PatchResult {
    let increment = total / steps as f64;
    let mut last = None;
    for k in 1..=steps {
        let shift = start + increment * k as f64;
        let velocity = Twist {
            linear: Vector3::new(increment / DT, 0.0, 0.0),
            angular: Vector3::zeros(),
        };
        last = Some(if move_pad {
            let back = Twist {
                linear: -velocity.linear,
                angular: Vector3::zeros(),
            };
            step(
                pad,
                &plane(depth, 0.0, 0.0, Twist::default()),
                Isometry3::translation(-shift, 0.0, 0.0),
                back,
            )
        } else {
            step(
                pad,
                &plane(depth, shift, 0.0, velocity),
                Isometry3::identity(),
                Twist::default(),
            )
        });
    }
    last.expect("at least one step")
}

#[test]
fn pre_sliding_is_the_stick_spring_and_saturates_at_coulomb() {
    let params = common::params();
    let rho = params.tangential_ratio;
    let k_a = params.anchor_stiffness;
    let area = SIZE * SIZE;
    let u_sat = MU * normal_compression(&params) / rho;

    // (a) Pre-sliding: half the saturation displacement in 5 steps. Uniform shear `U` leaves the
    // lateral springs idle, so F_t = ρ k_a L² U exactly (anchor springs in parallel, nothing in
    // series). Tolerance 0.5 % ("a few %" asked; the model is linear here, the observed error is
    // at the solver tolerance).
    let shift = 0.5 * u_sat;
    let expected = rho * k_a * area * shift;
    for move_pad in [false, true] {
        let (mut pad, depth) = pressed(params.clone());
        let result = slide(&mut pad, depth, 0.0, shift, 5, move_pad);
        let tangential = result.total_force.x;
        println!(
            "pre-sliding (moving {}): F_t = {tangential:.6} N, expected ρ k_a A U = {expected:.6} N, μ F_n = {:.4} N",
            if move_pad { "pad" } else { "plane" },
            MU * -result.total_force.z
        );
        // The pad is dragged along the plane's motion relative to it (+X).
        assert!(
            (tangential - expected).abs() < 5e-3 * expected,
            "F_t = {tangential} N, expected {expected} N"
        );
        assert!(result.total_force.y.abs() < 1e-9 * expected);
        assert!((-result.total_force.z - LOAD).abs() < 1e-3 * LOAD);
        // No sphere is saturated: each carries ρ k_a a U = μ f_n / 2.
        let split = sphere_split(&result);
        assert_eq!(split.len(), N * N);
        for (ft, fn_) in split {
            assert!(
                ft < 0.6 * MU * fn_,
                "sphere saturated: |f_t| = {ft}, μ f_n = {}",
                MU * fn_
            );
            assert!(ft > 0.4 * MU * fn_);
        }
    }

    // (b) Saturation: continue to 10 U_sat. Every sphere slides with |f_t,i| = μ f_n,i, so
    // |F_t| = μ F_n (tolerance 1 %, as asked).
    let (mut pad, depth) = pressed(params.clone());
    let pre = slide(&mut pad, depth, 0.0, shift, 5, false);
    let result = slide(&mut pad, depth, shift, 10.0 * u_sat - shift, 20, false);
    let normal = -result.total_force.z;
    let tangential = result.total_force.xy().norm();
    println!(
        "saturated: |F_t| = {tangential:.6} N, μ F_n = {:.6} N (pre-sliding {:.6} N)",
        MU * normal,
        pre.total_force.x
    );
    assert!(
        (tangential - MU * normal).abs() < 1e-2 * MU * normal,
        "|F_t| = {tangential} N, μ F_n = {} N",
        MU * normal
    );
    assert!(result.total_force.x > 0.0);
    assert!(
        (normal - LOAD).abs() < 1e-3 * LOAD,
        "sliding changed the normal load: {normal} N"
    );
    for (ft, fn_) in sphere_split(&result) {
        assert!(
            (ft - MU * fn_).abs() <= 1e-6 * MU * fn_,
            "|f_t| = {ft}, μ f_n = {}",
            MU * fn_
        );
    }
}

/// Turns the plane about the pad normal by `total` in `steps` equal steps, starting from `start`.
fn twist(pad: &mut CslcPad, depth: f64, start: f64, total: f64, steps: usize) -> PatchResult {
    let increment = total / steps as f64;
    let mut last = None;
    for k in 1..=steps {
        let angle = start + increment * k as f64;
        let spin = Twist {
            linear: Vector3::zeros(),
            angular: Vector3::new(0.0, 0.0, increment / DT),
        };
        last = Some(step(
            pad,
            &plane(depth, 0.0, angle, spin),
            Isometry3::identity(),
            Twist::default(),
        ));
    }
    last.expect("at least one step")
}

/// Discrete polar moment `J = Σ a_i r_i²` about the pad normal, and `Σ_links |p_i − p_j|²` over
/// the lateral springs (each link counted once).
fn polar_moments(pad: &CslcPad) -> (f64, f64) {
    let lattice = pad.lattice();
    let spheres = lattice.spheres();
    let polar = spheres
        .iter()
        .map(|s| s.area * s.rest_position.xy().coords.norm_squared())
        .sum();
    let mut links = 0.0;
    for (i, s) in spheres.iter().enumerate() {
        for &j in lattice.neighbours(i) {
            if j > i {
                links += (s.rest_position - spheres[j].rest_position).norm_squared();
            }
        }
    }
    (polar, links)
}

/// Small twist `θ`: every sphere sticks with `u_i = θ ẑ × r_i` (first order in θ). The friction
/// moment about the pad normal is
/// `M = θ (ρ k_a Σ a_i r_i² + K_ℓ Σ_links |p_i − p_j|²)`:
/// the anchor term is the brief's `ρ k_a J θ` (`J = L⁴/6` for the square, 0.25 % above the
/// discrete `Σ a_i r_i²` at n = 20); the second term is the lateral coupling. The lateral springs of
/// §3.2 are zero-length vector springs, `f = −K_ℓ (δ_i − δ_j)`, so a rigid rotation of the skin
/// relative to the link stretches every link by `θ |p_i − p_j|` and adds `K_ℓ h² θ` of moment per
/// link: about `12 ℓ² / (ρ L²)` of the anchor term (24 % with the default ℓ = 2 mm on L = 20 mm).
/// With ℓ = 0 the brief's formula is exact to first order.
///
/// Large twist: every sphere slides with `|f_i| = μ f_n,i` along `ẑ × r̂_i`, so the moment
/// saturates at `μ Σ f_n,i r_i`, for uniform pressure `μ F_n · mean(r)` and on a square of side `a`
/// `mean(r) = a (√2 + ln(1 + √2)) / 6 ≈ 0.3826 a`.
#[test]
fn twist_moment_is_the_polar_stick_stiffness_then_saturates() {
    let continuous = (2f64.sqrt() + (1.0 + 2f64.sqrt()).ln()) / 6.0;
    for ell in [0.0, common::params().lateral_length] {
        let params = CslcParams {
            lateral_length: ell,
            ..common::params()
        };
        let rho = params.tangential_ratio;
        let k_a = params.anchor_stiffness;
        let lateral = params.lateral_spring();
        let u_sat = MU * normal_compression(&params) / rho;

        // Small twist: the farthest sphere (r = L/√2·(1 − 1/n)) moves 0.27 U_sat, far from
        // saturation. The first-order error is O(θ) relative = 1e-3, and the solver's 1e-11; 1 %
        // tolerance ("a few %" asked).
        let (mut pad, depth) = pressed(params.clone());
        let (polar, links) = polar_moments(&pad);
        let theta = 1e-3;
        let r_max = pad
            .lattice()
            .spheres()
            .iter()
            .map(|s| s.rest_position.xy().coords.norm())
            .fold(0.0, f64::max);
        assert!(theta * r_max < 0.3 * u_sat);
        let result = twist(&mut pad, depth, 0.0, theta, 5);
        let anchor_only = rho * k_a * polar * theta;
        let expected = anchor_only + lateral * links * theta;
        // `friction_moment` is about the patch normal, which points along −Z (the plane pushes the
        // pad down); the target turning about +Z drags the pad about +Z, hence the minus sign.
        let moment = -result.friction_moment;
        println!(
            "ℓ = {ell}: small twist θ = {theta}: friction moment {moment:.6e} N·m, torque_z {:.6e}, \
             ρ k_a J θ = {anchor_only:.6e}, with lateral links {expected:.6e}",
            result.total_torque.z
        );
        assert!(result.patch_normal.z < -0.999_999);
        assert!(
            (moment - expected).abs() < 1e-2 * expected,
            "M = {moment}, expected {expected}"
        );
        assert!(
            (result.total_torque.z - moment).abs() < 1e-6 * expected,
            "total torque {} vs friction moment {moment}",
            result.total_torque.z
        );
        if ell == 0.0 {
            let continuous_j = rho * k_a * SIZE.powi(4) / 6.0 * theta;
            assert!((moment - continuous_j).abs() < 1e-2 * continuous_j);
        }
        for (ft, fn_) in sphere_split(&result) {
            assert!(ft < MU * fn_, "a sphere saturated under the small twist");
        }
        // Nearly no net tangential force under a pure twist (symmetric pad).
        assert!(result.total_force.xy().norm() < 1e-6 * MU * LOAD);

        // Large twist: 0.5 rad in 25 steps. The innermost spheres (r = h/√2) start sliding after
        // U_sat/r = 0.07 rad and their slip direction then converges to ẑ × r̂ geometrically; the
        // centres q_i sit within |δ_t| = U_sat of p_i, a 0.1 % effect on the arm at r = h/√2.
        let result = twist(&mut pad, depth, theta, 0.5, 25);
        let normal = -result.total_force.z;
        let cop = result.center_of_pressure.expect("contact");
        let spheres = pad.lattice().spheres();
        let discrete: f64 = result
            .normal_forces(spheres.len())
            .iter()
            .zip(spheres)
            .map(|(fn_, s)| MU * fn_ * (s.rest_position.xy() - cop.xy()).norm())
            .sum();
        let analytic = continuous * MU * normal * SIZE;
        let moment = -result.friction_moment;
        println!(
            "ℓ = {ell}: large twist: friction moment {moment:.6e} N·m, μ Σ f_n r = {discrete:.6e}, \
             0.3826 μ F_n a = {analytic:.6e}"
        );
        // Tolerances: 1 % against the discrete sum (slip-direction lag and the lateral springs,
        // which only redirect forces already at the cap); 1.5 % against the continuous square
        // (adds the midpoint-rule error of Σ a_i r_i, 0.1 % at n = 20).
        assert!(
            (moment - discrete).abs() < 1e-2 * discrete,
            "M = {moment}, μ Σ f_n r = {discrete}"
        );
        assert!(
            (moment - analytic).abs() < 1.5e-2 * analytic,
            "M = {moment}, analytic {analytic}"
        );
        assert!(
            moment <= discrete * (1.0 + 1e-9),
            "the moment cannot exceed the Coulomb cap"
        );
        for (ft, fn_) in sphere_split(&result) {
            assert!(
                (ft - MU * fn_).abs() <= 1e-6 * MU * fn_,
                "a sphere is not sliding: {ft} vs {}",
                MU * fn_
            );
        }
        assert!((normal - LOAD).abs() < 1e-3 * LOAD);
    }
}
