//! Generalised coordinates: positions `q` (nq) and velocities `v` (nv), with the position update
//! `q ⊕ dt·v` and its inverse `q_to ⊖ q_from` (joint conventions in [`crate::joint`]).

use crate::error::Error;
use crate::tree::Tree;
use nalgebra::DVector;

/// Positions and velocities of a whole tree.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// q: joint positions (rad, m; free joints: position and unit quaternion `w, x, y, z`).
    pub q: DVector<f64>,
    /// v: joint velocities (rad/s, m/s; free joints: `ṗ` and `ω` in the joint frame).
    pub v: DVector<f64>,
}

impl State {
    /// Zero joint coordinates, identity free-joint orientations, zero velocities.
    pub fn neutral(tree: &Tree) -> State {
        let mut q = DVector::zeros(tree.nq());
        for (index, body) in tree.bodies().iter().enumerate() {
            if let Some(slice) = q.as_mut_slice().get_mut(tree.q_range(index)) {
                body.joint.neutral(slice);
            }
        }
        State {
            q,
            v: DVector::zeros(tree.nv()),
        }
    }

    /// Checks the lengths of `q` and `v` against the tree.
    pub fn check(&self, tree: &Tree) -> Result<(), Error> {
        check_len("q", tree.nq(), self.q.len())?;
        check_len("v", tree.nv(), self.v.len())
    }
}

pub(crate) fn check_len(what: &'static str, expected: usize, found: usize) -> Result<(), Error> {
    if expected == found {
        Ok(())
    } else {
        Err(Error::DimensionMismatch { what, expected, found })
    }
}

/// `q ⊕ dt·v`: revolute and prismatic coordinates move by `dt·v`; free joints move their position by
/// `dt·ṗ` and rotate by the exponential map `exp(dt·ω)` (then renormalise the quaternion).
pub fn integrate_positions(tree: &Tree, q: &DVector<f64>, v: &DVector<f64>, dt: f64) -> Result<DVector<f64>, Error> {
    let mut next = DVector::zeros(0);
    integrate_positions_into(tree, q, v, dt, &mut next)?;
    Ok(next)
}

/// [`integrate_positions`] into `next` (its storage reused when the length matches).
pub(crate) fn integrate_positions_into(
    tree: &Tree,
    q: &DVector<f64>,
    v: &DVector<f64>,
    dt: f64,
    next: &mut DVector<f64>,
) -> Result<(), Error> {
    check_len("q", tree.nq(), q.len())?;
    check_len("v", tree.nv(), v.len())?;
    assign_vector(next, q);
    for (index, body) in tree.bodies().iter().enumerate() {
        if let (Some(qi), Some(vi)) = (
            next.as_mut_slice().get_mut(tree.q_range(index)),
            v.as_slice().get(tree.v_range(index)),
        ) {
            body.joint.integrate(qi, vi, dt);
        }
    }
    Ok(())
}

/// `to = from`, in `to`'s storage when the lengths match.
pub(crate) fn assign_vector(to: &mut DVector<f64>, from: &DVector<f64>) {
    if to.len() == from.len() {
        to.as_mut_slice().copy_from_slice(from.as_slice());
    } else {
        *to = from.clone();
    }
}

/// `q_to ⊖ q_from` (length nv): the velocity that carries `q_from` to `q_to` in one second. For a
/// free joint: position difference and the rotation vector `log(R_to R_fromᵀ)`.
pub fn difference(tree: &Tree, q_to: &DVector<f64>, q_from: &DVector<f64>) -> Result<DVector<f64>, Error> {
    check_len("q_to", tree.nq(), q_to.len())?;
    check_len("q_from", tree.nq(), q_from.len())?;
    let mut out = DVector::zeros(tree.nv());
    for (index, body) in tree.bodies().iter().enumerate() {
        let range = tree.q_range(index);
        if let (Some(to), Some(from), Some(d)) = (
            q_to.as_slice().get(range.clone()),
            q_from.as_slice().get(range),
            out.as_mut_slice().get_mut(tree.v_range(index)),
        ) {
            body.joint.difference(to, from, d);
        }
    }
    Ok(out)
}
