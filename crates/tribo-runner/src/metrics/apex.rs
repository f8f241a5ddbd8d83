//! Bounce apexes: the peaks of a link's height between impacts.

use tribo_scene::{LinkRef, Scene};

use super::{MetricProbe, MetricValue};
use crate::{LazyContacts, SceneState};

/// Finds apexes: a peak is the highest point of a rising phase, closed when the vertical
/// velocity turns from positive to non-positive. Heights are above `rest_height`. Only the first
/// `limit` apexes are kept (a ball jittering at rest closes an "apex" every few steps), the rest
/// are counted.
#[derive(Debug, Clone)]
struct ApexFinder {
    link: LinkRef,
    rest_height: f64,
    /// Height at the first observation (the drop height: apex 0).
    initial: Option<f64>,
    rising: bool,
    peak: f64,
    apexes: Vec<f64>,
    limit: usize,
    count: usize,
}

impl ApexFinder {
    fn new(link: LinkRef, rest_height: f64, limit: usize) -> Self {
        ApexFinder {
            link,
            rest_height,
            initial: None,
            rising: false,
            peak: f64::NEG_INFINITY,
            apexes: Vec::new(),
            limit,
            count: 0,
        }
    }

    fn observe(&mut self, state: &SceneState) {
        let s = &state.bodies[self.link.body].links[self.link.link];
        let h = s.pose.translation.vector.z - self.rest_height;
        let vz = s.linear_velocity.z;
        if self.initial.is_none() {
            self.initial = Some(h);
        }
        if vz > 0.0 {
            self.rising = true;
            self.peak = self.peak.max(h);
        } else if self.rising {
            self.rising = false;
            self.count += 1;
            if self.apexes.len() < self.limit {
                self.apexes.push(self.peak.max(h));
            }
            self.peak = f64::NEG_INFINITY;
        }
    }
}

/// Mean ratio of successive apex heights, h₁/h₀, h₂/h₁, … (h₀ = drop height). For a ball
/// bouncing with restitution e, every ratio is e² (the rebound speed is e times the impact speed
/// and the height goes with the speed squared).
pub struct BounceRatio {
    finder: ApexFinder,
    min_height: f64,
    bounces: usize,
}

impl BounceRatio {
    pub fn new(link: LinkRef, rest_height: f64, min_height: f64, bounces: usize) -> Self {
        BounceRatio {
            // h0 and `bounces` apexes give the `bounces` ratios averaged at most.
            finder: ApexFinder::new(link, rest_height, bounces),
            min_height,
            bounces,
        }
    }
}

impl MetricProbe for BounceRatio {
    fn observe(&mut self, _t: f64, _scene: &Scene, state: &SceneState, _contacts: LazyContacts<'_>) {
        self.finder.observe(state);
    }

    fn finish(&self) -> MetricValue {
        let Some(h0) = self.finder.initial else {
            return MetricValue::Missing("no samples".into());
        };
        let heights: Vec<f64> = std::iter::once(h0)
            .chain(self.finder.apexes.iter().copied())
            .take_while(|&h| h >= self.min_height)
            .take(self.bounces + 1)
            .collect();
        if heights.len() < 2 {
            return MetricValue::Missing("no bounce above the minimum height".into());
        }
        let ratios: Vec<f64> = heights.windows(2).map(|w| w[1] / w[0]).collect();
        MetricValue::Number(ratios.iter().sum::<f64>() / ratios.len() as f64)
    }
}

/// Height of apex number `index` (1 = the first after the first impact).
pub struct ApexHeight {
    finder: ApexFinder,
    index: usize,
}

impl ApexHeight {
    pub fn new(link: LinkRef, rest_height: f64, index: usize) -> Self {
        ApexHeight {
            finder: ApexFinder::new(link, rest_height, index),
            index,
        }
    }
}

impl MetricProbe for ApexHeight {
    fn observe(&mut self, _t: f64, _scene: &Scene, state: &SceneState, _contacts: LazyContacts<'_>) {
        self.finder.observe(state);
    }

    fn finish(&self) -> MetricValue {
        match self.finder.apexes.get(self.index - 1) {
            Some(&h) => MetricValue::Number(h),
            None => MetricValue::Missing(format!("only {} apexes", self.finder.count)),
        }
    }
}
