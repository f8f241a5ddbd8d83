//! `patches`: how many of a project's pad spheres touch, step by step. `bench/cslc_floor.py`
//! needs it for the floor under the `cslc` goals (BENCHMARKS.md, "cslc: the floor under each
//! goal"): the share of the pads' sphere-steps in contact bounds from below the touching spheres'
//! share of the pads' per-sphere work.
//!
//! Counted from the engine's contact records after every step (untimed): a pad's patch gives one
//! record per touched link ([`PatchDetail`]), with the normal force of each of the pad's spheres
//! touching that link (zero elsewhere), so a pad's touching spheres in a step are the positive
//! forces of all its records, and its lattice size the length of those lists.

use serde_json::{json, Value};
use tribo::runner::PatchDetail;
use tribo::ContactRecord;

/// One pad's counts over a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PadCounts {
    /// Spheres of the lattice, known once the pad has touched something.
    pub spheres: Option<usize>,
    /// Steps in which the pad touched something.
    pub loaded_steps: u64,
    /// Spheres in contact, summed over the steps.
    pub touching_sphere_steps: u64,
}

/// Per-pad counts of touching spheres over the steps given to [`PatchCounter::add_step`].
#[derive(Debug, Clone)]
pub struct PatchCounter {
    pads: Vec<PadCounts>,
    steps: u64,
}

impl PatchCounter {
    /// A counter for a scene of `pads` pads.
    pub fn new(pads: usize) -> PatchCounter {
        PatchCounter {
            pads: vec![PadCounts::default(); pads],
            steps: 0,
        }
    }

    /// Counts one step's contact records.
    pub fn add_step(&mut self, records: &[ContactRecord]) {
        self.steps += 1;
        let mut loaded = vec![false; self.pads.len()];
        for detail in records.iter().filter_map(|r| r.patch.as_ref()) {
            let PatchDetail {
                pad,
                sphere_normal_forces,
                ..
            } = detail;
            let (Some(counts), Some(flag)) = (self.pads.get_mut(*pad), loaded.get_mut(*pad)) else {
                continue;
            };
            counts.spheres = Some(counts.spheres.unwrap_or(0).max(sphere_normal_forces.len()));
            counts.touching_sphere_steps += sphere_normal_forces.iter().filter(|f| **f > 0.0).count() as u64;
            *flag = true;
        }
        for (counts, loaded) in self.pads.iter_mut().zip(loaded) {
            counts.loaded_steps += u64::from(loaded);
        }
    }

    /// Of all the pads' sphere-steps (every pad's spheres at every step), the share in contact;
    /// `None` while a pad's size is unknown (it never touched) or nothing was stepped.
    pub fn touching_share(&self) -> Option<f64> {
        let mut sphere_steps = 0u64;
        let mut touching = 0u64;
        for pad in &self.pads {
            sphere_steps += pad.spheres? as u64 * self.steps;
            touching += pad.touching_sphere_steps;
        }
        (sphere_steps > 0).then(|| touching as f64 / sphere_steps as f64)
    }

    /// The counts as JSON.
    pub fn to_json(&self) -> Value {
        let pads: Vec<Value> = self
            .pads
            .iter()
            .enumerate()
            .map(|(index, p)| {
                json!({
                    "pad": index,
                    "spheres": p.spheres,
                    "loaded_steps": p.loaded_steps,
                    "touching_sphere_steps": p.touching_sphere_steps,
                })
            })
            .collect();
        json!({
            "steps": self.steps,
            "pads": pads,
            "touching_share": self.touching_share(),
        })
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::Vector3;
    use tribo::runner::{LinkRef, PatchDetail};
    use tribo::ContactRecord;
    use tribo_material::MaterialId;

    use super::PatchCounter;

    fn record(pad: usize, forces: &[f64]) -> ContactRecord {
        let link = LinkRef { body: 0, link: 0 };
        ContactRecord {
            a: link,
            b: link,
            materials: (MaterialId::DEFAULT, MaterialId::DEFAULT),
            point: Vector3::zeros(),
            normal: Vector3::z(),
            depth: 0.0,
            normal_force: forces.iter().sum(),
            friction_force: Vector3::zeros(),
            patch: Some(PatchDetail {
                pad,
                cell: 0.01,
                sphere_positions: vec![[0.0, 0.0]; forces.len()],
                sphere_deflections: vec![0.0; forces.len()],
                center_of_pressure: Vector3::zeros(),
                friction_moment: 0.0,
                area: 0.0,
                sphere_normal_forces: forces.to_vec(),
                sphere_pressures: vec![0.0; forces.len()],
            }),
        }
    }

    /// Two pads of four spheres over three steps: pad 0 touches two links in step 1 (its
    /// records' spheres add up) and one in step 2; pad 1 touches in step 3 only. Touching:
    /// 2 + 1 + 3 = 6 of 2 × 4 × 3 = 24 sphere-steps.
    #[test]
    fn touching_spheres_are_summed_over_a_pads_records_and_the_steps() {
        let mut counter = PatchCounter::new(2);
        counter.add_step(&[record(0, &[1.0, 0.0, 0.0, 0.0]), record(0, &[0.0, 0.0, 2.0, 0.0])]);
        counter.add_step(&[record(0, &[0.0, 0.5, 0.0, 0.0])]);
        counter.add_step(&[record(1, &[1.0, 1.0, 1.0, 0.0])]);
        let pads = &counter.pads;
        assert_eq!(pads[0].loaded_steps, 2);
        assert_eq!(pads[0].touching_sphere_steps, 3);
        assert_eq!(pads[1].loaded_steps, 1);
        assert_eq!(pads[1].touching_sphere_steps, 3);
        assert_eq!(counter.touching_share(), Some(6.0 / 24.0));
    }

    #[test]
    fn a_pad_that_never_touched_leaves_the_share_unknown() {
        let mut counter = PatchCounter::new(2);
        counter.add_step(&[record(0, &[1.0, 0.0])]);
        assert_eq!(counter.touching_share(), None);
        assert_eq!(PatchCounter::new(0).touching_share(), None);
    }
}
