//! Contacts that can carry no impulse, screened out before the solve.
//!
//! A contact row's Delassus diagonal `A_kk = j_k M̃⁻¹ j_kᵀ` (j_k the row of the relative Jacobian
//! `R (J_b − J_a)`) is the velocity change along direction k per unit impulse there. It vanishes
//! when no joint can move b against a along k: two sibling links on coaxial hinges touching along
//! the hinge axis (a ragdoll's thighs), a slider touching a wall across its rail, two links of one
//! body whose relative motion is otherwise locked. Projected Gauss–Seidel divides by `A_kk`, and a
//! tiny one (rounding left over from the cancellation in `J_b − J_a`) would make a huge impulse.
//!
//! **Test.** The scale of a contact is what its rows would be without that cancellation: per
//! direction k, `s_k = Σ_sides j_side,k M̃⁻¹ j_side,kᵀ` (each side's own rows, summed over the
//! sides on dynamic bodies), and `s = max_k s_k`. For contacts between two bodies `A_kk = s_k`
//! exactly; only contacts within one body can cancel. `A_kk / s` is the squared sine of the angle
//! between direction k and the motions the contact can make.
//!
//! - The **normal** is degenerate when `A_nn ≤ τₙ s`, τₙ = 1e-3: it is within asin(√τₙ) ≈ 1.8° of
//!   directions no joint can move. The normal impulse is bounded only by its target: Baumgarte
//!   stabilisation of a built-in overlap (links that interpenetrate by design, as a ragdoll's
//!   thighs do by 1 cm) asks for `β d / h` ≈ 2 m/s along it, and an impulse `target / A_nn` changes
//!   the velocities it couples to by up to `target / √(A_nn / s)` (Cauchy–Schwarz on the positive
//!   semi-definite A: `|A_tn| ≤ √(A_tt A_nn)`), 30 × the target at τₙ and without bound below.
//!   With τₙ at √ε (rounding only) the ragdoll fixture diverges once its hips bend the thighs'
//!   normal a few 1e-4 rad off the hinge axis; at 1e-3 it settles as rapier's does.
//! - A **tangent** is degenerate when `A_tt ≤ τₜ s`, τₜ = √ε ≈ 1.5e-8 (ε: f64 machine epsilon):
//!   rounding only. Friction impulses are bounded by μλₙ whatever `A_tt`, so only a tangent that
//!   cannot move at all needs care (PGS divides by `A_tt`). Cancellation in `J_b − J_a` leaves a
//!   row error of about `c ε ‖J‖` (c grows with the distance from the world origin over the lever,
//!   as positions carry an absolute error ε |p|), so a row that is truly zero computes as
//!   `(c ε)² s`, below τₜ s for any c below ε^{-3/4} ≈ 6e11.
//!
//! **Action.** A degenerate normal drops the contact (it can neither push nor, without a normal
//! impulse, rub); the step reports each dropped link pair as a warning. A degenerate tangent keeps
//! the contact with that tangent's rows and target set to zero: friction cannot act along it, and
//! tribo-lcp gives a zero row a zero impulse. Contacts that an extension adds (compliant points)
//! are left alone: their compliance keeps the diagonal positive.

use std::collections::BTreeMap;

use nalgebra::{DMatrix, Matrix3x6, Matrix6, Vector3};
use tribo_engine::LinkRef;
use tribo_multibody::VelocityStep;

use crate::contacts::ContactRow;
use crate::error::SolveError;

/// τₙ of the module docs.
pub(crate) const NORMAL_TOLERANCE: f64 = 1e-3;

/// τₜ of the module docs.
pub(crate) fn tangent_tolerance() -> f64 {
    f64::EPSILON.sqrt()
}

/// Drops the contacts of `rows` whose normal is degenerate and zeroes their degenerate tangent
/// rows (module docs); returns the link pairs whose contacts were dropped, in row order, each once.
pub(crate) fn screen(
    rows: &mut Vec<ContactRow>,
    steps: &[Option<VelocityStep>],
    inverses: &[Option<Matrix6<f64>>],
) -> Result<Vec<(LinkRef, LinkRef)>, SolveError> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let mut scale = vec![Vector3::<f64>::zeros(); rows.len()];
    let mut relative = vec![Vector3::<f64>::zeros(); rows.len()];
    // Contacts with both sides on the body being visited (reset per body below).
    let mut is_within = vec![false; rows.len()];
    let mut per_body: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (c, row) in rows.iter().enumerate() {
        for side in [&row.side_a, &row.side_b].into_iter().flatten() {
            let list = per_body.entry(side.body).or_default();
            if list.last() != Some(&c) {
                list.push(c);
            }
        }
    }
    for (body, contacts) in per_body {
        let Some(Some(step)) = steps.get(body) else { continue };
        let nv = step.v_free.len();
        if let Some(Some(inverse)) = inverses.get(body) {
            if six_coordinate_body(rows, body, &contacts, inverse, &mut scale, &mut relative) {
                continue;
            }
        }
        // Every side on this body, 3 rows each; then the relative rows of contacts within it.
        let sides: Vec<(usize, &nalgebra::Matrix3xX<f64>)> = contacts
            .iter()
            .flat_map(|&c| {
                let row = &rows[c];
                [&row.side_a, &row.side_b]
                    .into_iter()
                    .flatten()
                    .filter(|s| s.body == body)
                    .map(move |s| (c, &s.rows))
            })
            .collect();
        let within: Vec<usize> = contacts
            .iter()
            .copied()
            .filter(|&c| {
                let row = &rows[c];
                row.side_a.as_ref().is_some_and(|s| s.body == body)
                    && row.side_b.as_ref().is_some_and(|s| s.body == body)
            })
            .collect();
        let mut jacobian = DMatrix::zeros(3 * (sides.len() + within.len()), nv);
        for (r, (_, side)) in sides.iter().enumerate() {
            jacobian.view_mut((3 * r, 0), (3, nv)).copy_from(*side);
        }
        for (r, &c) in within.iter().enumerate() {
            let row = &rows[c];
            if let (Some(a), Some(b)) = (&row.side_a, &row.side_b) {
                jacobian
                    .view_mut((3 * (sides.len() + r), 0), (3, nv))
                    .copy_from(&(&b.rows - &a.rows));
            }
        }
        let diagonal = step
            .system
            .delassus_diagonal(&jacobian)
            .map_err(|source| SolveError::Delassus { body, source })?;
        let block = |r: usize| Vector3::new(diagonal[3 * r], diagonal[3 * r + 1], diagonal[3 * r + 2]);
        for &c in &within {
            is_within[c] = true;
        }
        for (r, &(c, _)) in sides.iter().enumerate() {
            scale[c] += block(r);
            if !is_within[c] {
                relative[c] += block(r);
            }
        }
        for (r, &c) in within.iter().enumerate() {
            relative[c] += block(sides.len() + r);
            is_within[c] = false;
        }
    }

    Ok(apply(rows, &scale, &relative).dropped)
}

/// What the screen did to the rows.
pub(crate) struct Screened {
    /// The link pairs whose contacts were dropped, in row order, each once.
    pub dropped: Vec<(LinkRef, LinkRef)>,
    /// A contact was dropped or a tangent zeroed: an operator built before the screen is stale.
    pub changed: bool,
}

/// Whether [`screen_on_operator`] may screen `rows`: every contact the screen looks at joins two
/// bodies (so its relative diagonal is its scale, module docs) and carries no compliance on the
/// diagonal (`cfm`, which the assembled operator includes).
pub(crate) fn operator_can_screen(rows: &[ContactRow]) -> bool {
    rows.iter().all(|row| {
        row.compliant.is_some()
            || (row.cfm == Vector3::zeros()
                && !matches!((&row.side_a, &row.side_b), (Some(a), Some(b)) if a.body == b.body))
    })
}

/// [`screen`] with the diagonals read from the assembled Delassus operator: when
/// [`operator_can_screen`] holds, contact c's scale and relative diagonals are both `A_cc`'s
/// diagonal (the sum over its bodies of `j M̃⁻¹ jᵀ`, which the operator sums the same way), so the
/// screen needs no Delassus diagonals of its own. The caller rebuilds the operator when the rows
/// changed.
///
/// Most steps screen nothing: the diagonals alone tell, and the rows are then left untouched
/// (at 1000 cubes a pass over 4000 rows of some 400 bytes each).
pub(crate) fn screen_on_operator(rows: &mut Vec<ContactRow>, diagonal: impl Fn(usize) -> Vector3<f64>) -> Screened {
    let tau_t = tangent_tolerance();
    let screens = |d: &Vector3<f64>| {
        let s = d.max();
        drops_normal(d, s) || (1..3).any(|k| zeroes_tangent(d, k, s, tau_t))
    };
    if !(0..rows.len()).any(|c| screens(&diagonal(c))) {
        return Screened {
            dropped: Vec::new(),
            changed: false,
        };
    }
    let diagonals: Vec<Vector3<f64>> = (0..rows.len()).map(diagonal).collect();
    apply(rows, &diagonals, &diagonals)
}

/// The normal of a contact with relative diagonals `relative` and scale `s` can carry no useful
/// impulse (module docs); false for a NaN diagonal.
fn drops_normal(relative: &Vector3<f64>, s: f64) -> bool {
    relative[0] <= NORMAL_TOLERANCE * s
}

/// Tangent `k` (1 or 2) of such a contact loses its friction row (module docs).
fn zeroes_tangent(relative: &Vector3<f64>, k: usize, s: f64, tau_t: f64) -> bool {
    relative[k] <= tau_t * s
}

/// The screen's decisions (module docs) from each contact's scale and relative diagonals.
fn apply(rows: &mut Vec<ContactRow>, scale: &[Vector3<f64>], relative: &[Vector3<f64>]) -> Screened {
    let tau_t = tangent_tolerance();
    let mut dropped: Vec<(LinkRef, LinkRef)> = Vec::new();
    let mut changed = false;
    // In place: the kept rows move up over the dropped ones, in order.
    let mut c = 0;
    rows.retain_mut(|row| {
        let index = c;
        c += 1;
        let (Some(scale), Some(relative)) = (scale.get(index), relative.get(index)) else {
            return true;
        };
        if row.compliant.is_some() {
            return true;
        }
        let s = scale.max();
        if drops_normal(relative, s) {
            if !dropped.contains(&(row.a, row.b)) {
                dropped.push((row.a, row.b));
            }
            changed = true;
            return false;
        }
        for k in 1..3 {
            if zeroes_tangent(relative, k, s, tau_t) {
                for side in [&mut row.side_a, &mut row.side_b].into_iter().flatten() {
                    side.rows.row_mut(k).fill(0.0);
                }
                row.bias[k] = 0.0;
                changed = true;
            }
        }
        true
    });
    Screened { dropped, changed }
}

/// The sides on a body with six coordinates and M̃⁻¹ known (a free rigid body): each side's
/// diagonal `j_k M̃⁻¹ j_kᵀ` added to its contact's scale and relative diagonals directly (the same
/// sums as the general path, without stacking). Returns false, adding nothing, when a contact has
/// both sides on the body (then the general path handles the cancellation).
fn six_coordinate_body(
    rows: &[ContactRow],
    body: usize,
    contacts: &[usize],
    inverse: &Matrix6<f64>,
    scale: &mut [Vector3<f64>],
    relative: &mut [Vector3<f64>],
) -> bool {
    fn on(side: &Option<crate::contacts::Side>, body: usize) -> Option<&crate::contacts::Side> {
        side.as_ref().filter(|s| s.body == body && s.rows.ncols() == 6)
    }
    let on_body = |side| on(side, body);
    if contacts.iter().any(|&c| {
        rows.get(c)
            .is_none_or(|row| on_body(&row.side_a).is_some() == on_body(&row.side_b).is_some())
    }) {
        return false;
    }
    for &c in contacts {
        let Some(side) = rows
            .get(c)
            .and_then(|row| on_body(&row.side_a).or(on_body(&row.side_b)))
        else {
            continue;
        };
        let j: Matrix3x6<f64> = side.rows.fixed_columns::<6>(0).into_owned();
        let weighted = j * inverse;
        let diagonal = Vector3::from_fn(|k, _| weighted.row(k).dot(&j.row(k)));
        if let (Some(s), Some(r)) = (scale.get_mut(c), relative.get_mut(c)) {
            *s += diagonal;
            *r += diagonal;
        }
    }
    true
}
