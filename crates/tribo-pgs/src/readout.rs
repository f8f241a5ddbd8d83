//! Reading the engine's state and contacts out after a step.
//!
//! The kinematics of the new state computed here are kept by the engine for the next step
//! (step.rs).
//!
//! - Link poses: carrier pose × the link's pose in its carrier; link velocities: the carrier's
//!   spatial velocity read at the link origin (plus the prescribed root twist of a kinematic body).
//! - Joint efforts: the actuator torque of the step (clamped effort plus the implicit PD torque
//!   evaluated at the end-of-step velocity, tribo-multibody `VelocityStep::actuation`).
//! - Contacts: every contact point whose normal impulse is positive, with normal force λₙ / h and
//!   friction force (t₁ λₜ₁ + t₂ λₜ₂) / h on link b.

use std::cell::{Cell, OnceCell};

use nalgebra::{DVector, Vector3};
use tribo_engine::Scene;
use tribo_engine::{BodyState, ContactRecord, LinkState};
use tribo_multibody::{Kinematics, KinematicsData, State};

use crate::build::BodyModel;
use crate::contacts::ContactRow;

/// The read-out of one body into `out`, reusing its vectors' storage. The kinematics of `state` are computed
/// into `kinematics` (its storage reused) and left there: the next step starts from them.
pub(crate) fn body_state_into(
    model: &BodyModel,
    state: &State,
    actuation: Option<&DVector<f64>>,
    root_twist: Option<(Vector3<f64>, Vector3<f64>)>,
    out: &mut BodyState,
    kinematics: &mut KinematicsData,
) -> Result<(), tribo_multibody::Error> {
    let kin = Kinematics::new_in(&model.tree, state, std::mem::take(kinematics))?;
    fill_body_state(model, state, &kin, actuation, root_twist, out)?;
    *kinematics = kin.into_data();
    Ok(())
}

fn fill_body_state(
    model: &BodyModel,
    state: &State,
    kin: &Kinematics,
    actuation: Option<&DVector<f64>>,
    root_twist: Option<(Vector3<f64>, Vector3<f64>)>,
    out: &mut BodyState,
) -> Result<(), tribo_multibody::Error> {
    let n = model.carrier.len();
    out.links.clear();
    out.links.reserve(n);
    for values in [
        &mut out.joint_positions,
        &mut out.joint_velocities,
        &mut out.joint_efforts,
    ] {
        values.clear();
        values.resize(n, 0.0);
    }
    let root_origin = kin.poses().first().map(|p| p.translation.vector).unwrap_or_default();
    for link in 0..n {
        let carrier = model.carrier[link];
        let pose = kin.pose(carrier)? * model.link_in_carrier[link];
        let twist = kin.velocity(carrier)?;
        let origin = pose.translation.vector;
        let (mut linear, mut angular) = (twist.velocity_at(&(origin - kin.origin())), twist.angular);
        if let Some((v, w)) = root_twist {
            linear += v + w.cross(&(origin - root_origin));
            angular += w;
        }
        out.links.push(LinkState {
            pose,
            linear_velocity: linear,
            angular_velocity: angular,
        });
        if let (Some(q), Some(dof)) = (model.link_q[link], model.link_dof[link]) {
            out.joint_positions[link] = state.q[q];
            out.joint_velocities[link] = state.v[dof];
            out.joint_efforts[link] = actuation.and_then(|a| a.get(dof)).copied().unwrap_or(0.0);
        }
    }
    Ok(())
}

/// The last committed step's contact rows and impulses, and its contact records built from them
/// when first asked for ([`Self::records`]), as the `rapier` engine reads its contacts out: a run
/// that does not read them (a benchmark, a sweep recording no contact) does not write some 300
/// bytes per contact point each step (1.2 MB a step for the 1000-cube pile).
///
/// The rows and impulses are the step's own, swapped in at commit ([`Self::commit`]); the engine's
/// next step works in the buffers swapped out, so a step that fails leaves the committed ones, and
/// their records, as they were.
#[derive(Default)]
pub(crate) struct CommittedContacts {
    rows: Vec<ContactRow>,
    lambda: DVector<f64>,
    dt: f64,
    records: OnceCell<Vec<ContactRecord>>,
    /// The storage of the records last built, for the next ones.
    spare: Cell<Vec<ContactRecord>>,
}

impl CommittedContacts {
    /// Takes a committed step's rows and impulses (step `dt`), handing back the last ones' buffers.
    pub fn commit(&mut self, rows: &mut Vec<ContactRow>, lambda: &mut DVector<f64>, dt: f64) {
        std::mem::swap(&mut self.rows, rows);
        std::mem::swap(&mut self.lambda, lambda);
        self.dt = dt;
        if let Some(records) = self.records.take() {
            self.spare.set(records);
        }
    }

    /// The committed step's contact rows.
    pub fn rows(&self) -> &[ContactRow] {
        &self.rows
    }

    /// The committed step's impulses, three per row.
    pub fn lambda(&self) -> &DVector<f64> {
        &self.lambda
    }

    /// The committed step's contact records ([`contact_records`]), built on the first call.
    pub fn records(&self, scene: &Scene) -> &[ContactRecord] {
        self.records.get_or_init(|| {
            let mut records = self.spare.take();
            contact_records(scene, &self.rows, &self.lambda, self.dt, &mut records);
            records
        })
    }
}

/// The contact records of a solved step, into `records` (its storage reused).
pub(crate) fn contact_records(
    scene: &Scene,
    rows: &[ContactRow],
    lambda: &DVector<f64>,
    dt: f64,
    records: &mut Vec<ContactRecord>,
) {
    records.clear();
    // Pushed one by one: each record is built in place (an `extend` over a filter goes through an
    // `Option` of the ~300-byte record first).
    for (c, row) in rows.iter().enumerate() {
        let normal = lambda[3 * c];
        if row.compliant.is_some() || normal <= 0.0 || normal.is_nan() {
            continue;
        }
        records.push(ContactRecord {
            a: row.a,
            b: row.b,
            materials: (scene.material_of(row.a), scene.material_of(row.b)),
            point: row.point,
            normal: row.normal,
            depth: row.depth,
            normal_force: normal / dt,
            friction_force: (row.t1 * lambda[3 * c + 1] + row.t2 * lambda[3 * c + 2]) / dt,
            patch: None,
        });
    }
}
