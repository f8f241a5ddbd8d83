//! A pad that a target no longer presses (the target still within reach, as a floor under a foot
//! just lifted) comes to rest at exactly zero displacement, without sweeps: with no sphere
//! penetrating its linearised surface at δ = 0, every force vanishes there
//! (`docs/design/lattice-model.md` §4, "Unloaded pad").

mod common;

use common::{flat_pad, params, plane_above, step};
use nalgebra::Vector3;
use tribo_cslc::Target;

#[test]
fn a_pad_lifted_off_its_target_rests_at_exactly_zero_without_sweeps() {
    let mut pad = flat_pad(15, 0.03, params());
    let pressed = plane_above(5e-5);
    let loaded = step(&mut pad, &[&pressed as &dyn Target], 0.5);
    assert!(loaded.converged && loaded.iterations > 0, "{:?}", loaded.warning);
    assert!(loaded.total_force.norm() > 0.0);
    assert!(pad.displacements().iter().any(|d| *d != Vector3::zeros()));

    // The plane 0.15 mm below the spheres' surface: within their reach (a quarter of their 1 mm
    // radius, from a target at rest) from the start of the first step on, where the pressed skin
    // still stands up to 50 µm deeper, touching none.
    let below = plane_above(-1.5e-4);
    for _ in 0..3 {
        let lifted = step(&mut pad, &[&below as &dyn Target], 0.5);
        assert!(
            !lifted.approaching.is_empty(),
            "the plane must stay within the spheres' reach"
        );
        assert!(lifted.converged);
        assert_eq!(lifted.iterations, 0);
        assert_eq!(lifted.residual, 0.0);
        assert_eq!(lifted.total_force, Vector3::zeros());
        assert!(lifted.touching.is_empty());
        assert!(pad.displacements().iter().all(|d| *d == Vector3::zeros()));
    }
}
