//! Decay length of a compliant pad's deflection under a point load (`docs/design/lattice-model.md`
//! §6.1): the last step's patch of the pad, fitted by [`tribo_cslc::fit_decay_length`] (the math
//! and the fit are documented there). The load's centre is the normal-force-weighted centre of the
//! loaded spheres (rest positions in the pad frame).

use tribo_cslc::fit_decay_length;
use tribo_scene::{LinkRef, Scene};

use super::{MetricProbe, MetricValue};
use crate::{LazyContacts, PatchDetail, SceneState};

/// The last step's profile of the pad.
struct Profile {
    cell: f64,
    positions: Vec<[f64; 2]>,
    deflections: Vec<f64>,
    forces: Vec<f64>,
}

impl Profile {
    /// The pad's patches against every touched link, merged (deflections are the pad's own, the
    /// same in each record; normal forces add).
    fn merge<'a>(patches: impl Iterator<Item = &'a PatchDetail>) -> Option<Profile> {
        let mut profile: Option<Profile> = None;
        for p in patches {
            match &mut profile {
                None => {
                    profile = Some(Profile {
                        cell: p.cell,
                        positions: p.sphere_positions.clone(),
                        deflections: p.sphere_deflections.clone(),
                        forces: p.sphere_normal_forces.clone(),
                    })
                }
                Some(profile) => {
                    for (f, g) in profile.forces.iter_mut().zip(&p.sphere_normal_forces) {
                        *f += g;
                    }
                }
            }
        }
        profile
    }
}

/// The decay length of the deflection of the pad on `link` at the last step, m.
pub struct DecayLength {
    link: LinkRef,
    /// `Some(index in Scene::pads)` once looked up (`Some(None)`: the link has no pad), and the
    /// link's name.
    pad: Option<(Option<usize>, String)>,
    last: Option<Profile>,
    patches_seen: usize,
}

impl DecayLength {
    pub fn new(link: LinkRef) -> Self {
        DecayLength {
            link,
            pad: None,
            last: None,
            patches_seen: 0,
        }
    }
}

impl MetricProbe for DecayLength {
    fn observe(&mut self, _t: f64, scene: &Scene, _state: &SceneState, contacts: LazyContacts<'_>) {
        let link = self.link;
        let (pad, _) = self.pad.get_or_insert_with(|| {
            let name = scene.bodies.get(link.body).map_or_else(
                || "?".to_string(),
                |b| match b.model.links.get(link.link) {
                    Some(l) if link.link > 0 => format!("{}.{}", b.name, l.name),
                    _ => b.name.clone(),
                },
            );
            (scene.pads.iter().position(|p| p.link == link), name)
        });
        let Some(pad) = *pad else { return };
        self.last = Profile::merge(
            contacts
                .get()
                .iter()
                .filter_map(|c| c.patch.as_ref())
                .filter(|p| p.pad == pad),
        );
        if self.last.is_some() {
            self.patches_seen += 1;
        }
    }

    fn finish(&self) -> MetricValue {
        let Some((pad, name)) = &self.pad else {
            return MetricValue::Missing("no step observed".to_string());
        };
        if pad.is_none() {
            return MetricValue::Missing(format!("`{name}` carries no pad"));
        }
        let Some(p) = &self.last else {
            return MetricValue::Missing(if self.patches_seen == 0 {
                format!("not available: no lattice patch on `{name}` (this engine has no pad lattice)")
            } else {
                format!("the pad on `{name}` touched nothing at the last step")
            });
        };
        match fit_decay_length(p.cell, &p.positions, &p.deflections, &p.forces) {
            Ok(ell) => MetricValue::Number(ell),
            Err(why) => MetricValue::Missing(why),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_without_a_pad_patch_reports_not_fits() {
        let mut probe = DecayLength::new(LinkRef { body: 0, link: 0 });
        assert!(matches!(probe.finish(), MetricValue::Missing(_)));
        probe.pad = Some((Some(0), "bed".to_string()));
        let value = probe.finish();
        assert!(
            matches!(&value, MetricValue::Missing(why) if why.contains("not available")),
            "{value:?}"
        );
    }
}
