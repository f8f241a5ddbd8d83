//! Recorded signals: the columns of `trajectory.csv`.

use std::fmt::Write as _;

use tribo_scene::{SignalKind, SignalSpec};

use crate::{ContactRecord, LazyContacts, SceneState};

/// Time series of the recorded signals: one row per recorded step, `time` first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trajectory {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<f64>>,
}

impl Trajectory {
    pub fn new(signals: &[SignalSpec]) -> Self {
        let mut columns = vec!["time".to_string()];
        columns.extend(signals.iter().flat_map(SignalSpec::columns));
        Trajectory {
            columns,
            rows: Vec::new(),
        }
    }

    /// Append the values of `signals` at time `t`.
    pub fn record(&mut self, t: f64, signals: &[SignalSpec], state: &SceneState, contacts: LazyContacts<'_>) {
        let mut row = Vec::with_capacity(self.columns.len());
        sample_row(t, signals, state, contacts, &mut row);
        self.rows.push(row);
    }

    /// CSV text. Numbers use Rust's shortest round-trip formatting, so identical runs give
    /// byte-identical files.
    pub fn to_csv(&self) -> String {
        let mut out = self.columns.join(",");
        out.push('\n');
        for row in &self.rows {
            csv_line(row, &mut out);
        }
        out
    }

    /// The values of one column.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let i = self.columns.iter().position(|c| c == name)?;
        Some(self.rows.iter().map(|r| r[i]).collect())
    }
}

/// Replace `row` with `t` and the values of `signals` (the columns of [`Trajectory::new`]).
pub fn sample_row(t: f64, signals: &[SignalSpec], state: &SceneState, contacts: LazyContacts<'_>, row: &mut Vec<f64>) {
    row.clear();
    row.push(t);
    for signal in signals {
        sample(signal, state, contacts, row);
    }
}

/// Append `row` to `out` as one CSV line (shortest round-trip numbers, `\n`-terminated), as
/// [`Trajectory::to_csv`] writes it.
pub fn csv_line(row: &[f64], out: &mut String) {
    for (i, v) in row.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{v}");
    }
    out.push('\n');
}

fn sample(signal: &SignalSpec, state: &SceneState, contacts: LazyContacts<'_>, row: &mut Vec<f64>) {
    let link_state = |r: &tribo_scene::LinkRef| &state.bodies[r.body].links[r.link];
    match &signal.kind {
        SignalKind::LinkPosition(r) => row.extend(link_state(r).pose.translation.vector.iter()),
        SignalKind::LinkVelocity(r) => row.extend(link_state(r).linear_velocity.iter()),
        SignalKind::LinkOrientation(r) => {
            let (roll, pitch, yaw) = link_state(r).pose.rotation.euler_angles();
            row.extend([roll, pitch, yaw]);
        }
        SignalKind::JointPosition(r) => row.push(state.bodies[r.body].joint_positions[r.link]),
        SignalKind::ContactForce { on, from } => {
            let mut total = nalgebra::Vector3::zeros();
            for c in contacts.get() {
                if c.b.body == *on && c.a.body == *from {
                    total += c.force_on_b();
                } else if c.a.body == *on && c.b.body == *from {
                    total -= c.force_on_b();
                }
            }
            row.extend(total.iter());
        }
        SignalKind::PadPatch(link) => row.extend(pad_patch(link, contacts.get())),
    }
}

/// `[normal force, CoP x, y, z, friction moment, area, peak pressure]` of the patches whose pad
/// is on `link` (the CoP normal-force-weighted over the touched links; NaN without contact).
fn pad_patch(link: &tribo_scene::LinkRef, contacts: &[ContactRecord]) -> [f64; 7] {
    let mut force = 0.0;
    let mut weighted = nalgebra::Vector3::zeros();
    let (mut moment, mut area, mut peak) = (0.0, 0.0, 0.0_f64);
    for c in contacts.iter().filter(|c| c.b == *link) {
        let Some(p) = &c.patch else { continue };
        force += c.normal_force;
        weighted += p.center_of_pressure * c.normal_force;
        moment += p.friction_moment;
        area += p.area;
        peak = p.sphere_pressures.iter().copied().fold(peak, f64::max);
    }
    let cop = if force > 0.0 {
        weighted / force
    } else {
        nalgebra::Vector3::repeat(f64::NAN)
    };
    [force, cop.x, cop.y, cop.z, moment, area, peak]
}
