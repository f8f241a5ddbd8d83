//! An island's impulses kept aside, to be put back — with the operator's velocity state — when a
//! step taken from them (`crate::drift`, the guarded subspace steps of `crate::pgs`) is not kept.

use crate::contact::ContactProblem;
use crate::delassus::DelassusRows;

/// λ of an island's contacts, three per contact in island order.
#[derive(Debug, Clone, Default)]
pub(crate) struct IslandSnapshot {
    values: Vec<f64>,
}

impl IslandSnapshot {
    /// Keeps the island's λ.
    pub fn take(&mut self, lambda: &[f64], island: &[usize]) {
        self.values.clear();
        for &c in island {
            self.values
                .extend_from_slice(lambda.get(3 * c..3 * c + 3).unwrap_or(&[0.0; 3]));
        }
    }

    /// Row `row` of the island's `k`-th contact as kept (0 if none was).
    pub fn value(&self, k: usize, row: usize) -> f64 {
        self.values.get(3 * k + row).copied().unwrap_or(0.0)
    }

    /// Whether this holds an island of `contacts` contacts.
    pub fn holds(&self, contacts: usize) -> bool {
        self.values.len() == 3 * contacts
    }

    /// Puts the kept λ back, and the operator's velocity state `velocity` with it.
    pub fn restore<D: DelassusRows>(
        &self,
        problem: &ContactProblem<D>,
        lambda: &mut [f64],
        velocity: &mut [f64],
        island: &[usize],
    ) {
        for (k, &c) in island.iter().enumerate() {
            let back = [self.value(k, 0), self.value(k, 1), self.value(k, 2)];
            set_contact(problem, lambda, velocity, c, back);
        }
    }
}

/// Contact `c`'s λ set to `next`, the operator's velocity state `velocity` following the change.
pub(crate) fn set_contact<D: DelassusRows>(
    problem: &ContactProblem<D>,
    lambda: &mut [f64],
    velocity: &mut [f64],
    c: usize,
    next: [f64; 3],
) {
    if let Some(l) = lambda.get_mut(3 * c..3 * c + 3) {
        let change = [next[0] - l[0], next[1] - l[1], next[2] - l[2]];
        l.copy_from_slice(&next);
        if !velocity.is_empty() && change != [0.0; 3] {
            problem.delassus.add_impulse(c, change, velocity);
        }
    }
}
