//! Each sphere's contact in the last step — the target it touched, its penetration, whether it
//! slid — which the next step's set-up reads (the stick anchor carried with the surface and the
//! stick limit, §3.4; the penetration jump of fast-impact detection).

/// Per sphere, its contact in the last step, and which spheres have one: the rest stay at the
/// defaults (no target, no penetration, not sliding), so that a step resets only the spheres
/// that touched in the step before it instead of every sphere.
#[derive(Debug, Clone, Default)]
pub(crate) struct ContactState {
    target: Vec<Option<usize>>,
    penetration: Vec<f64>,
    sliding: Vec<bool>,
    /// The spheres whose entries are set, ascending.
    set: Vec<usize>,
}

impl ContactState {
    /// No sphere in contact, for a pad of `spheres` spheres.
    pub(crate) fn at_rest(spheres: usize) -> Self {
        ContactState {
            target: vec![None; spheres],
            penetration: vec![0.0; spheres],
            sliding: vec![false; spheres],
            set: Vec::new(),
        }
    }

    /// Sphere `i`'s contact: `(touched target, penetration, slid)`.
    #[inline(always)]
    pub(crate) fn of(&self, i: usize) -> (Option<usize>, f64, bool) {
        (
            self.target.get(i).copied().flatten(),
            self.penetration.get(i).copied().unwrap_or(0.0),
            self.sliding.get(i).copied().unwrap_or(false),
        )
    }

    /// Every sphere's contact, in sphere order ([`Self::of`]).
    pub(crate) fn iter(&self) -> impl Iterator<Item = (Option<usize>, f64, bool)> + '_ {
        self.target
            .iter()
            .zip(&self.penetration)
            .zip(&self.sliding)
            .map(|((t, p), s)| (*t, *p, *s))
    }

    /// Every sphere of a pad of `spheres` spheres out of contact again.
    pub(crate) fn clear(&mut self, spheres: usize) {
        if self.target.len() != spheres || self.penetration.len() != spheres || self.sliding.len() != spheres {
            *self = ContactState::at_rest(spheres);
            return;
        }
        for &i in &self.set {
            if let (Some(t), Some(p), Some(s)) = (
                self.target.get_mut(i),
                self.penetration.get_mut(i),
                self.sliding.get_mut(i),
            ) {
                *t = None;
                *p = 0.0;
                *s = false;
            }
        }
        self.set.clear();
    }

    /// Records sphere `i` touching `target` at `penetration`, sliding or not; spheres are
    /// recorded in ascending order, each once, after a [`Self::clear`].
    pub(crate) fn record(&mut self, i: usize, target: usize, penetration: f64, sliding: bool) {
        if let (Some(t), Some(p), Some(s)) = (
            self.target.get_mut(i),
            self.penetration.get_mut(i),
            self.sliding.get_mut(i),
        ) {
            *t = Some(target);
            *p = penetration;
            *s = sliding;
            self.set.push(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ContactState;

    /// A cleared state reads as at rest everywhere, whichever spheres were recorded before.
    #[test]
    fn clearing_resets_exactly_the_recorded_spheres() {
        let mut state = ContactState::at_rest(5);
        state.record(1, 0, 1e-4, true);
        state.record(3, 2, 2e-4, false);
        assert_eq!(state.of(1), (Some(0), 1e-4, true));
        assert_eq!(state.of(3), (Some(2), 2e-4, false));
        assert_eq!(state.of(2), (None, 0.0, false));
        let listed: Vec<_> = state.iter().collect();
        assert_eq!(listed.len(), 5);
        assert_eq!(listed[3], (Some(2), 2e-4, false));
        state.clear(5);
        for i in 0..5 {
            assert_eq!(state.of(i), (None, 0.0, false), "sphere {i}");
        }
        state.record(4, 1, 3e-4, false);
        state.clear(6);
        for i in 0..6 {
            assert_eq!(state.of(i), (None, 0.0, false), "sphere {i} of the grown pad");
        }
    }
}
