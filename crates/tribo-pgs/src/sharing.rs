//! The operator of the load-sharing problem (solve.rs, module docs): the step's Delassus operator
//! plus, on the normal rows of each group of load-sharing points (the resting rigid points of one
//! link pair, n ≥ 2 of them), the term `ε C` with `C = I − 1 1ᵀ / n`:
//!
//! (A_s λ)ᵢ = (A λ)ᵢ + ε (λₙ,ᵢ − mean over i's group of λₙ)      (normal row of a member i)
//!
//! The term is applied as that deviation from the group's mean, not stored: the operator keeps a
//! copy of the step's operator (its factored part shared, its assembled blocks copied into reused
//! storage) and the groups. Storing `ε C` as n² extra blocks per link pair meant re-sorting and
//! rebuilding the whole block storage every step for a pile of boxes, whose free-body couplings
//! have no stored blocks to add them to.

use nalgebra::Matrix3;
use tribo_lcp::{DelassusRows, FactoredDelassus};

/// A + Σ_groups ε_g C_g on the groups' normal rows (module docs). The default has no contacts.
#[derive(Debug, Clone, Default)]
pub(crate) struct LoadSharing {
    /// The step's operator A.
    base: FactoredDelassus,
    /// Each contact's group (`NO_GROUP`: none).
    group_of: Vec<usize>,
    /// Group g has members `members[start[g]..start[g + 1]]`, ascending.
    start: Vec<usize>,
    members: Vec<usize>,
    /// ε of each group (1/kg).
    epsilon: Vec<f64>,
}

const NO_GROUP: usize = usize::MAX;

impl LoadSharing {
    /// Starts over on a copy of `base` with no groups (storage reused).
    pub fn reset(&mut self, base: &FactoredDelassus) -> bool {
        self.group_of.clear();
        self.group_of.resize(base.contact_count(), NO_GROUP);
        self.start.clear();
        self.start.push(0);
        self.members.clear();
        self.epsilon.clear();
        self.base.assign_with_added_blocks(base, &[])
    }

    /// Adds a group of contacts (distinct, in range, in no other group) with its ε. Returns false,
    /// adding nothing, when a contact is out of range or already grouped.
    pub fn add_group(&mut self, contacts: impl Iterator<Item = usize> + Clone, epsilon: f64) -> bool {
        let group = self.epsilon.len();
        if contacts
            .clone()
            .any(|c| self.group_of.get(c).is_none_or(|&g| g != NO_GROUP))
        {
            return false;
        }
        for c in contacts {
            self.group_of[c] = group;
            self.members.push(c);
        }
        self.members[*self.start.last().unwrap_or(&0)..].sort_unstable();
        self.start.push(self.members.len());
        self.epsilon.push(epsilon);
        true
    }

    /// Lets go of the factors shared with the step's operator, so that it rebuilds them in place.
    pub fn release(&mut self) {
        self.base.release();
    }

    /// The group of contact c: its members and ε.
    fn group(&self, contact: usize) -> Option<(&[usize], f64)> {
        let g = *self.group_of.get(contact)?;
        let (&from, &to) = (self.start.get(g)?, self.start.get(g + 1)?);
        Some((self.members.get(from..to)?, *self.epsilon.get(g)?))
    }

    /// ε (λₙ,c − mean of c's group), 0 for a contact in no group.
    fn term(&self, contact: usize, x: &[f64]) -> f64 {
        let Some((members, epsilon)) = self.group(contact) else {
            return 0.0;
        };
        let normal = |c: usize| x.get(3 * c).copied().unwrap_or(0.0);
        let mean = members.iter().map(|&c| normal(c)).sum::<f64>() / members.len() as f64;
        epsilon * (normal(contact) - mean)
    }

    /// The (0, 0) entry of ε C between contacts i and j (0 outside a common group).
    fn coupling(&self, i: usize, j: usize) -> f64 {
        match (self.group(i), self.group_of.get(j)) {
            (Some((members, epsilon)), Some(&gj)) if self.group_of.get(i) == Some(&gj) => {
                let n = members.len() as f64;
                if i == j {
                    epsilon * (1.0 - 1.0 / n)
                } else {
                    -epsilon / n
                }
            }
            _ => 0.0,
        }
    }
}

/// `block` with `value` added at (0, 0).
fn plus_normal(mut block: Matrix3<f64>, value: f64) -> Matrix3<f64> {
    block[(0, 0)] += value;
    block
}

impl DelassusRows for LoadSharing {
    fn dim(&self) -> usize {
        self.base.dim()
    }

    fn entry(&self, row: usize, col: usize) -> f64 {
        let value = self.base.entry(row, col);
        if row.is_multiple_of(3) && col.is_multiple_of(3) {
            value + self.coupling(row / 3, col / 3)
        } else {
            value
        }
    }

    fn row_dot(&self, row: usize, x: &[f64]) -> f64 {
        let value = self.base.row_dot(row, x);
        if row.is_multiple_of(3) {
            value + self.term(row / 3, x)
        } else {
            value
        }
    }

    fn block_row_dot(&self, contact: usize, x: &[f64]) -> [f64; 3] {
        let mut w = self.base.block_row_dot(contact, x);
        w[0] += self.term(contact, x);
        w
    }

    fn diagonal_block(&self, contact: usize) -> Matrix3<f64> {
        plus_normal(self.base.diagonal_block(contact), self.coupling(contact, contact))
    }

    fn block(&self, i: usize, j: usize) -> Matrix3<f64> {
        plus_normal(self.base.block(i, j), self.coupling(i, j))
    }

    fn visit_block_row(&self, i: usize, visit: &mut dyn FnMut(usize, &Matrix3<f64>)) {
        self.base.visit_block_row(i, visit);
        if let Some((members, _)) = self.group(i) {
            for &j in members {
                visit(j, &plus_normal(Matrix3::zeros(), self.coupling(i, j)));
            }
        }
    }

    fn multiply(&self, x: &[f64], out: &mut [f64]) {
        self.base.multiply(x, out);
        for (contact, w) in out.chunks_exact_mut(3).enumerate() {
            w[0] += self.term(contact, x);
        }
    }

    fn velocity_len(&self) -> usize {
        self.base.velocity_len()
    }

    fn body_velocities(&self, x: &[f64], dv: &mut [f64]) {
        self.base.body_velocities(x, dv);
    }

    fn block_row_dot_with(&self, contact: usize, x: &[f64], dv: &[f64]) -> [f64; 3] {
        let mut w = self.base.block_row_dot_with(contact, x, dv);
        w[0] += self.term(contact, x);
        w
    }

    fn add_impulse(&self, contact: usize, delta: [f64; 3], dv: &mut [f64]) {
        self.base.add_impulse(contact, delta, dv);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, Matrix3x6, Matrix6, Matrix6x3};
    use tribo_lcp::{BlockSparseDelassus, FactoredSide};

    /// Five contacts: 0–2 on a free body (factored), 2–4 coupled through assembled blocks;
    /// groups {0, 1, 2} and {3, 4}.
    fn sample() -> (LoadSharing, DMatrix<f64>) {
        let value = |k: usize| ((k as f64) * 0.7391).sin();
        let mut blocks = Vec::new();
        for i in 2..5 {
            for j in 2..5 {
                let b = Matrix3::from_fn(|r, c| value(9 * (i + j) + 3 * r.min(c) + r.max(c)) * 0.1);
                blocks.push((i, j, b + if i == j { Matrix3::identity() } else { Matrix3::zeros() }));
            }
        }
        let inverse_mass = Matrix6::from_diagonal(&nalgebra::Vector6::new(1.0, 1.0, 1.0, 2.0, 3.0, 4.0));
        let sides: Vec<_> = (0..3)
            .map(|c| {
                let rows = Matrix3x6::from_fn(|r, k| value(18 * c + 6 * r + k));
                let response: Matrix6x3<f64> = inverse_mass * rows.transpose();
                (
                    c,
                    FactoredSide {
                        slot: 0,
                        rows,
                        response,
                    },
                )
            })
            .collect();
        let base = FactoredDelassus::new(BlockSparseDelassus::from_blocks(5, blocks).expect("in range"), sides)
            .expect("in range");
        let mut expected = DMatrix::from_fn(15, 15, |r, c| base.entry(r, c));
        let mut sharing = LoadSharing::default();
        assert!(sharing.reset(&base));
        for (group, epsilon) in [(vec![0, 1, 2], 0.3), (vec![3, 4], 0.7)] {
            let n = group.len() as f64;
            for &i in &group {
                for &j in &group {
                    expected[(3 * i, 3 * j)] += epsilon * (if i == j { 1.0 } else { 0.0 } - 1.0 / n);
                }
            }
            assert!(sharing.add_group(group.into_iter(), epsilon));
        }
        (sharing, expected)
    }

    #[test]
    fn every_read_equals_the_operator_with_the_term_stored() {
        let (sharing, expected) = sample();
        let x: Vec<f64> = (0..15).map(|k| ((k as f64) * 1.37).cos()).collect();
        let product = &expected * nalgebra::DVector::from_column_slice(&x);
        let mut dv = vec![0.0; sharing.velocity_len()];
        sharing.body_velocities(&x, &mut dv);
        let mut multiplied = vec![0.0; 15];
        sharing.multiply(&x, &mut multiplied);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-14 * (1.0 + b.abs());
        for c in 0..5 {
            let rows = sharing.block_row_dot(c, &x);
            let with = sharing.block_row_dot_with(c, &x, &dv);
            let mut visited = Matrix3::zeros();
            let mut visits = vec![Matrix3::zeros(); 5];
            sharing.visit_block_row(c, &mut |j, part| visits[j] += part);
            for (j, visit) in visits.iter().enumerate() {
                let block = sharing.block(c, j);
                let stored = expected.fixed_view::<3, 3>(3 * c, 3 * j).into_owned();
                assert!((block - stored).amax() <= 1e-14, "block ({c}, {j})");
                assert!((visit - stored).amax() <= 1e-14, "visited ({c}, {j})");
                if j == c {
                    visited = sharing.diagonal_block(c);
                }
            }
            let diagonal = expected.fixed_view::<3, 3>(3 * c, 3 * c).into_owned();
            assert!((visited - diagonal).amax() <= 1e-14, "diagonal {c}");
            for k in 0..3 {
                let row = 3 * c + k;
                assert!(close(rows[k], product[row]), "block row {row}");
                assert!(close(with[k], product[row]), "block row with velocities {row}");
                assert!(close(sharing.row_dot(row, &x), product[row]), "row {row}");
                assert!(close(multiplied[row], product[row]), "multiply {row}");
                for col in 0..15 {
                    assert!(
                        close(sharing.entry(row, col), expected[(row, col)]),
                        "entry ({row}, {col})"
                    );
                }
            }
        }
    }

    #[test]
    fn a_contact_in_two_groups_or_out_of_range_is_refused() {
        let (mut sharing, _) = sample();
        assert!(!sharing.add_group([4, 5].into_iter(), 1.0));
        assert!(!sharing.add_group([9].into_iter(), 1.0));
    }
}
