//! tribo's `cslc` engine: Compliant Sphere Lattice Contact pads (`tribo-cslc`) hosted on a contact
//! engine (design `docs/design/lattice-model.md`). The only public item is [`CslcFactory`],
//! registered as `cslc` (on `pgs`) and `cslc-rapier` (on `rapier`); see *Hosts* below.
//!
//! # The step
//! 1. For every pad (`Scene::pads`: declared on a link in a body file, or laid over a link by a
//!    project), the pad frame and twist come from its link's state at the start of the step;
//!    the primitive shapes of other links within reach become signed-distance targets
//!    (`targets.rs`): every link of another body, held or moving, and a link of the pad's own
//!    body only where the host collides that body with itself, across neither a weld nor one
//!    joint (`pads.rs`, `tribo_model::RigidGroups::may_self_touch`, the rigid engines' rule).
//! 2. The lattice is solved to quasi-static equilibrium (`tribo-cslc` `CslcPad::step`:
//!    by default the condensed solve over the touching spheres where it is expected to be faster,
//!    red-black SOR sweeps elsewhere (or Chebyshev-accelerated Jacobi), warm-started,
//!    thread-count independent); its parameters come from the pad material's `cslc` block (`params.rs`), the
//!    friction coefficients from the contact material of pad and target: a sticking sphere
//!    breaks loose at static friction, a sliding one slides at dynamic friction until it sticks
//!    again (`tribo-cslc` `local.rs`).
//! 3. The patch goes to the host as compliant points solved implicitly by the host plus
//!    an exact residual torque (`coupling.rs`), so the pad link receives the lattice wrench and
//!    the touched link exactly its opposite, and stiff skins stay stable at the host's time step.
//!    The pair's restitution sets the damping ratio of the patch's normal mode (`restitution.rs`,
//!    with the reduced mass of the two links from `inertia.rs`).
//! 4. The host's step runs everything else (joints, gravity, rigid contacts of all other links).
//!
//! The pad link's rigid contacts with those links are replaced by the lattice: its own
//! collision shapes no longer touch them; only the pad's spheres do.
//!
//! # Reported
//! One contact record per pad and touched link, at the centre of pressure, with the force the
//! host applied, and a [`tribo_engine::PatchDetail`]: friction moment about the patch normal,
//! contact area, per-sphere normal force, pressure and skin deflection, and the spheres' rest
//! positions for pressure maps. The records (the host's first) are built when first read, from
//! the step's patches: a run that never reads contacts does not pay for them. Step-report
//! warnings name the pad whenever a lattice did not reach
//! its tolerance within its iteration cap or saw a fast impact; the stage `cslc_lattice` times the
//! lattice solves.
//!
//! # Hosts
//! Both hosts integrate each compliant point with the law of `tribo_engine::CompliantPoint`,
//! `f⁺ = f − (k h + c) v⁺` per axis of the contact frame, in the same constraint solve as their
//! joints and rigid contacts, and apply the residual torques as link wrenches for the step.
//! - **`cslc` on `pgs`** (`tribo-pgs` `compliant.rs`): each axis is an LCP row with compliance
//!   `1/(h (k h + c))`, the normal impulse ≥ 0 and the friction in the circular cone `μ f_n⁺` of
//!   the step's own normal force.
//! - **`cslc-rapier` on `rapier`** (`tribo-rapier` `host.rs`): each point is an impulse joint whose
//!   three linear motors are dashpots `k h + c` with target velocity `f / (k h + c)`; an explicit
//!   push along the normal, cancelled by the motor when the point would pull, makes the normal
//!   force unilateral (clamped to `[0, 2M]`, `M` at least twice the force that stops the lighter
//!   body within the step). What differs from `pgs`: the friction is a box `|f_t,i| ≤ μ f_n` on
//!   two axes, and motor bounds are fixed for a solve, so a hosted step is solved twice from the
//!   same start, the second time with `f_n` the normal force the first solve gave the point (the
//!   step's own normal force to one fixed-point iteration; the box reaches √2 μ f_n when both
//!   axes saturate); and a hosted step runs one rapier substep with at least 16 Gauss–Seidel
//!   sweeps (rapier's default 4 substeps feed energy into stiff patches — a pad dropped with
//!   restitution 0.8 rebounded to 1.06 of its height — and one sweep leaves the stiff rows far
//!   from their solution), so rigid contacts in those steps get one substep too.
//!
//! Measured (2026-12, release build), `cslc` against `cslc-rapier`:
//!
//! | case | `cslc` (pgs) | `cslc-rapier` |
//! |---|---|---|
//! | gentle grasp, default (squeeze 1.5): slip, held | −7.28e-5 m, held | −7.17e-5 m, held |
//! | gentle grasp, holding threshold of the squeeze (flat sphere / flat box / dome sphere / dome box; analytic 1.0204) | 1.015 / 1.020 / 1.025 / 1.020 | 1.015 / 1.020 / 1.025 / 1.020 |
//! | gentle grasp, largest step with the right held/dropped verdict at squeeze 1.05 / 0.95 | ≥ 16 ms | 10 ms (at 12 ms the held object drops; 8 ms with the start-of-step friction box) |
//! | book rotation: max tilt, final tilt, held | 0.0935°, 0.0090°, held | 0.0941°, 0.0123°, held |
//! | lattice point load (ratio 4): decay length (ℓ = 4 mm) | 4.008 mm | 4.008 mm |
//! | walker with sole pads: progress (1.05 m planned), foot slip, RMS ZMP error | 1.055 m, 13.8 mm, 72.9 mm | 1.055 m, 14.9 mm, 72.3 mm |
//! | walker at steps from 0.5 to 2 ms: progress | 1.053 – 1.055 m | 1.051 – 1.055 m |
//! | cube resting on a pad / restitution 0.8, 0.5, 0 / dynamic friction (`tribo` tests `cslc_*`) | pass | pass |
//!
//! On the walker the rapier host is the more fragile one: with rapier's 4 substeps it walked or
//! fell depending on the sweep count; with the one substep it walks for 8 to 32 sweeps. With the
//! friction box of each point's start-of-step load (before the second solve) it also fell at
//! every step from 1.5 ms down — a landing sole's points carry a fraction of their end-of-step
//! load at the start of a step, and the sole slid and rolled onto one toe corner; now it walks
//! 1.051 – 1.055 m at every step from 0.5 to 2 ms, as `cslc` does (1.053 – 1.055 m; `tribo`
//! tests `walker.rs`).
//!
//! # Options
//! Those of the host: `engine_options: {cslc: {...}}` takes the `pgs` keys,
//! `engine_options: {cslc-rapier: {...}}` the `rapier` keys.

mod coupling;
mod engine;
mod explicit_rotation;
mod inertia;
mod pads;
mod params;
mod per_sphere;
mod records;
mod restitution;
mod targets;

use std::sync::Arc;

use tribo_engine::{BuildError, Engine, EngineFactory, EngineOptions, HostFactory, MaterialParameter, Scene};

pub use params::{pad_material, Lateral, PadMaterial};

/// Builds `cslc` engines on one contact host. Whoever lists the engines pairs the lattice with a
/// host (`CslcFactory::new("cslc", "…", Box::new(PgsFactory))`), so this crate depends on no
/// engine.
pub struct CslcFactory {
    name: &'static str,
    description: &'static str,
    host: Box<dyn HostFactory>,
    /// The host's parameters and the `cslc` block.
    honoured: Vec<MaterialParameter>,
}

impl CslcFactory {
    /// The `cslc` engine called `name` on the host `host` builds; `description` is its line in
    /// `tribo engines`.
    pub fn new(name: &'static str, description: &'static str, host: Box<dyn HostFactory>) -> Self {
        let mut honoured = host.honoured_parameters().to_vec();
        honoured.push(MaterialParameter::Cslc);
        honoured.sort();
        honoured.dedup();
        CslcFactory {
            name,
            description,
            host,
            honoured,
        }
    }

    /// The host's registry name (`pgs`, `rapier`).
    pub fn host_name(&self) -> &'static str {
        self.host.host_name()
    }
}

impl EngineFactory for CslcFactory {
    fn name(&self) -> &'static str {
        self.name
    }

    fn description(&self) -> &'static str {
        self.description
    }

    fn honoured_parameters(&self) -> &[MaterialParameter] {
        &self.honoured
    }

    fn build(&self, scene: &Arc<Scene>, options: &EngineOptions) -> Result<Box<dyn Engine>, BuildError> {
        Ok(Box::new(engine::CslcEngine::build(
            self.name,
            self.host.as_ref(),
            scene,
            options,
        )?))
    }
}
