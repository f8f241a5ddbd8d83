//! tribo's `cslc` engine: Compliant Sphere Lattice Contact pads (`tribo-cslc`) hosted on the
//! `pgs` engine (design `docs/design/lattice-model.md`). The only public item is [`CslcFactory`],
//! registered as `cslc`.
//!
//! # The step
//! 1. For every pad (`Scene::pads`: declared on a link in a body file, or laid over a link by a
//!    project), the pad frame and twist come from its link's state at the start of the step;
//!    the primitive shapes of other links within reach become signed-distance targets
//!    (`targets.rs`).
//! 2. The lattice is solved to quasi-static equilibrium (`tribo-cslc` `CslcPad::step`:
//!    red-black SOR sweeps by default (or Chebyshev-accelerated Jacobi), warm-started, thread-count
//!    independent); its parameters come from the pad material's `cslc` block (`params.rs`), the
//!    friction coefficients from the contact material of pad and target: a sticking sphere
//!    breaks loose at static friction, a sliding one slides at dynamic friction until it sticks
//!    again (`tribo-cslc` `local.rs`).
//! 3. The patch goes to the host as compliant points solved implicitly in the host's LCP plus
//!    an exact residual torque (`coupling.rs`), so the pad link receives the lattice wrench and
//!    the touched link exactly its opposite, and stiff skins stay stable at the host's time step.
//!    The pair's restitution sets the damping ratio of the patch's normal mode (`restitution.rs`,
//!    with the reduced mass of the two links from `inertia.rs`).
//! 4. The `pgs` step runs everything else (joints, gravity, rigid contacts of all other links).
//!
//! The pad link's rigid contacts with every non-adjacent link are replaced by the lattice:
//! its own collision shapes no longer touch anything; only the pad's spheres do.
//!
//! # Reported
//! One contact record per pad and touched link, at the centre of pressure, with the force the
//! host applied, and a [`tribo_engine::PatchDetail`]: friction moment about the patch normal,
//! contact area, per-sphere normal force, pressure and skin deflection, and the spheres' rest
//! positions for pressure maps. Step-report warnings name the pad whenever a lattice did not reach
//! its tolerance within its iteration cap or saw a fast impact; the stage `cslc_lattice` times the
//! lattice solves.
//!
//! # Options
//! Those of `pgs` (`engine_options: {cslc: {...}}` takes the `pgs` keys).

mod coupling;
mod engine;
mod inertia;
mod pads;
mod params;
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
