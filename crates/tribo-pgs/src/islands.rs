//! Contact islands: the step's contacts in groups that the contact problem does not couple.
//!
//! Two contacts are coupled (a non-zero Delassus block `Aᵢⱼ = Σ_B J_iB M̃_B⁻¹ J_jBᵀ`) only through a
//! dynamic body they share (`docs/design/contact-mechanics.md` §4.2.2); the load-sharing term couples
//! only points of one link pair, which share their bodies too. So the connected components of
//! the graph whose nodes are the dynamic bodies and whose edges are the contacts (union–find,
//! Tarjan's "Efficiency of a good but not linear set union algorithm", J. ACM 22(2), 1975: union
//! by size, path halving) split the LCP into independent problems. Fixed bodies and kinematic
//! roots (no velocity step: nothing the impulses move) join no island, so boxes standing side by
//! side on one floor are separate islands. A 500-box pile of 100 columns is 100 islands; the
//! solver sweeps each until its own residual meets the tolerance (tribo-lcp
//! `Pgs::solve_valid_contacts_in_islands`), so a column at rest stops after one sweep while one
//! still landing goes on.
//!
//! **Order** (deterministic): islands by their smallest body index; within an island, contacts in
//! the step's order. Islands do not interact, so their order changes nothing in the result.

use tribo_multibody::VelocityStep;

use crate::contacts::ContactRow;

/// The contacts of one step grouped by island (module docs), every contact in exactly one. Kept
/// by the engine between steps and regrouped in place ([`Islands::group`]): the lists keep their
/// storage.
#[derive(Default)]
pub(crate) struct Islands {
    /// The first `count` lists are this step's islands.
    lists: Vec<Vec<usize>>,
    count: usize,
    sets: DisjointSets,
    touched: Vec<bool>,
    number: Vec<Option<usize>>,
}

impl Islands {
    /// This step's islands.
    pub fn groups(&self) -> &[Vec<usize>] {
        self.lists.get(..self.count).unwrap_or(&[])
    }

    /// Groups the contacts of `rows` (module docs).
    pub fn group(&mut self, rows: &[ContactRow], steps: &[Option<VelocityStep>]) {
        let dynamic = |body: usize| matches!(steps.get(body), Some(Some(_)));
        let sets = &mut self.sets;
        sets.reset(steps.len());
        for row in rows {
            let mut sides = [&row.side_a, &row.side_b]
                .into_iter()
                .flatten()
                .map(|s| s.body)
                .filter(|&b| dynamic(b));
            if let (Some(a), Some(b)) = (sides.next(), sides.next()) {
                sets.union(a, b);
            }
        }
        // Island of each root with contacts, numbered in order of the smallest body index.
        let touched = &mut self.touched;
        touched.clear();
        touched.resize(steps.len(), false);
        for row in rows {
            for body in [&row.side_a, &row.side_b].into_iter().flatten().map(|s| s.body) {
                if dynamic(body) {
                    let root = sets.find(body);
                    touched[root] = true;
                }
            }
        }
        let number = &mut self.number;
        number.clear();
        number.resize(steps.len(), None);
        let mut count = 0;
        for body in 0..steps.len() {
            let root = sets.find(body);
            if touched[root] && number[root].is_none() {
                number[root] = Some(count);
                count += 1;
            }
        }
        self.count = 0;
        let open = |lists: &mut Vec<Vec<usize>>, count: &mut usize| {
            if lists.len() == *count {
                lists.push(Vec::new());
            }
            lists[*count].clear();
            *count += 1;
        };
        for _ in 0..count {
            open(&mut self.lists, &mut self.count);
        }
        // A contact with no dynamic side (cannot happen after screening) forms an island of its own,
        // after the others.
        for (c, row) in rows.iter().enumerate() {
            let body = [&row.side_a, &row.side_b]
                .into_iter()
                .flatten()
                .map(|s| s.body)
                .find(|&b| dynamic(b));
            match body.and_then(|b| number.get(sets.find(b)).copied().flatten()) {
                Some(i) => self.lists[i].push(c),
                None => {
                    open(&mut self.lists, &mut self.count);
                    self.lists[self.count - 1].push(c);
                }
            }
        }
    }
}

/// Union–find over 0..n (union by size, path halving).
#[derive(Default)]
struct DisjointSets {
    parent: Vec<usize>,
    size: Vec<usize>,
}

impl DisjointSets {
    /// Every element of 0..n in a set of its own.
    fn reset(&mut self, n: usize) {
        self.parent.clear();
        self.parent.extend(0..n);
        self.size.clear();
        self.size.resize(n, 1);
    }

    fn find(&mut self, mut x: usize) -> usize {
        while let Some(&p) = self.parent.get(x) {
            if p == x {
                break;
            }
            let grand = self.parent.get(p).copied().unwrap_or(p);
            self.parent[x] = grand;
            x = grand;
        }
        x
    }

    fn union(&mut self, a: usize, b: usize) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        if self.size.get(a) < self.size.get(b) {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b] = a;
        let added = self.size.get(b).copied().unwrap_or(0);
        if let Some(s) = self.size.get_mut(a) {
            *s += added;
        }
    }
}
