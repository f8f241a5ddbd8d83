//! What a run keeps of its recorded signals, bounded however long the run.
//!
//! Every recorded row goes to an optional [`RowSink`] (e.g. [`CsvSink`] streaming
//! `trajectory.csv` to disk as the run goes). The in-memory [`Trajectory`] (plots, reports,
//! tests) keeps at most [`MAX_TRAJECTORY_ROWS`] rows: when full it drops every other row and
//! records half as often, so it stays evenly spaced in time, always starts at t = 0 and ends with
//! the last recorded state. Runs shorter than the limit keep every row.

use std::io::{self, Write};

use tribo_scene::SignalSpec;

use crate::recorder::{csv_line, sample_row};
use crate::{LazyContacts, SceneState, Trajectory};

/// Rows the in-memory trajectory of a run keeps at most (even, so halving keeps it aligned).
pub const MAX_TRAJECTORY_ROWS: usize = 50_000;

/// Receives every recorded row of a run, in order.
pub trait RowSink {
    /// Called once before the first row with the column names (`time` first).
    fn begin(&mut self, columns: &[String]) -> io::Result<()>;
    fn row(&mut self, row: &[f64]) -> io::Result<()>;
    /// Called once after the last row.
    fn end(&mut self) -> io::Result<()>;
}

/// Writes rows as CSV, byte for byte what [`Trajectory::to_csv`] gives for the same rows.
pub struct CsvSink<W: Write> {
    out: W,
    line: String,
}

impl<W: Write> CsvSink<W> {
    pub fn new(out: W) -> Self {
        CsvSink {
            out,
            line: String::new(),
        }
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> RowSink for CsvSink<W> {
    fn begin(&mut self, columns: &[String]) -> io::Result<()> {
        self.out.write_all(columns.join(",").as_bytes())?;
        self.out.write_all(b"\n")
    }

    fn row(&mut self, row: &[f64]) -> io::Result<()> {
        self.line.clear();
        csv_line(row, &mut self.line);
        self.out.write_all(self.line.as_bytes())
    }

    fn end(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The runner's recorder: samples rows, hands each to the sink, keeps a bounded trajectory.
pub(crate) struct Recording<'a> {
    trajectory: Trajectory,
    sink: Option<&'a mut dyn RowSink>,
    max_rows: usize,
    /// Steps between kept rows (a multiple of the recording interval).
    stride: u64,
    /// The latest sampled row and its step, and whether the trajectory kept it.
    row: Vec<f64>,
    last: Option<(u64, bool)>,
}

impl<'a> Recording<'a> {
    /// `every`: steps between recorded rows (≥ 1).
    pub fn new(
        signals: &[SignalSpec],
        every: u64,
        max_rows: usize,
        mut sink: Option<&'a mut dyn RowSink>,
    ) -> io::Result<Self> {
        let trajectory = Trajectory::new(signals);
        if let Some(s) = sink.as_deref_mut() {
            s.begin(&trajectory.columns)?;
        }
        Ok(Recording {
            row: Vec::with_capacity(trajectory.columns.len()),
            trajectory,
            sink,
            max_rows: max_rows.max(2),
            stride: every.max(1),
            last: None,
        })
    }

    /// Record the state after `step` steps (time `t`). `last` marks the run's final planned
    /// step, which the trajectory keeps whatever its stride.
    pub fn sample(
        &mut self,
        step: u64,
        t: f64,
        signals: &[SignalSpec],
        state: &SceneState,
        contacts: LazyContacts<'_>,
        last: bool,
    ) -> io::Result<()> {
        sample_row(t, signals, state, contacts, &mut self.row);
        if let Some(s) = self.sink.as_deref_mut() {
            s.row(&self.row)?;
        }
        let mut keep = step.is_multiple_of(self.stride);
        if keep && self.trajectory.rows.len() >= self.max_rows {
            self.halve();
            keep = step.is_multiple_of(self.stride);
        }
        if keep || last {
            self.trajectory.rows.push(self.row.clone());
        }
        self.last = Some((step, keep || last));
        Ok(())
    }

    /// Rows are at steps 0, stride, 2 stride, …: keep the even ones, double the stride.
    fn halve(&mut self) {
        let mut i = 0;
        self.trajectory.rows.retain(|_| {
            i += 1;
            i % 2 == 1
        });
        self.stride *= 2;
    }

    /// The trajectory (ending with the last sampled row) and the sink's closing result.
    pub fn finish(mut self) -> (Trajectory, io::Result<()>) {
        if let Some((_, false)) = self.last {
            self.trajectory.rows.push(std::mem::take(&mut self.row));
        }
        let closed = match self.sink {
            Some(s) => s.end(),
            None => Ok(()),
        };
        (self.trajectory, closed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(steps: u64, every: u64, max_rows: usize, sink: Option<&mut dyn RowSink>) -> Trajectory {
        let mut rec = Recording::new(&[], every, max_rows, sink).expect("begin");
        let state = SceneState::default();
        for step in 0..=steps {
            if step.is_multiple_of(every) || step == steps {
                rec.sample(step, step as f64, &[], &state, LazyContacts::NONE, step == steps)
                    .expect("row");
            }
        }
        let (trajectory, closed) = rec.finish();
        closed.expect("end");
        trajectory
    }

    fn times(t: &Trajectory) -> Vec<f64> {
        t.rows.iter().map(|r| r[0]).collect()
    }

    #[test]
    fn short_runs_keep_every_row() {
        let t = run(10, 1, 100, None);
        assert_eq!(times(&t), (0..=10).map(|i| i as f64).collect::<Vec<_>>());
        let t = run(10, 3, 100, None);
        assert_eq!(times(&t), vec![0.0, 3.0, 6.0, 9.0, 10.0]);
    }

    #[test]
    fn long_runs_stay_bounded_evenly_spaced_and_end_with_the_last_state() {
        let mut sink = CsvSink::new(Vec::new());
        let t = run(100_003, 1, 64, Some(&mut sink));
        assert!(t.rows.len() <= 65, "{} rows", t.rows.len());
        assert!(t.rows.len() >= 32, "{} rows", t.rows.len());
        let ts = times(&t);
        assert_eq!(ts[0], 0.0);
        assert_eq!(ts.last().copied(), Some(100_003.0));
        let gap = ts[1] - ts[0];
        assert!(ts[..ts.len() - 1].windows(2).all(|w| w[1] - w[0] == gap), "{ts:?}");
        // The sink saw every row.
        let csv = String::from_utf8(sink.into_inner()).expect("utf8");
        assert_eq!(csv.lines().count(), 1 + 100_004);
        assert!(csv.starts_with("time\n0\n1\n2\n"));
    }

    #[test]
    fn an_early_end_keeps_the_last_sampled_row() {
        let mut rec = Recording::new(&[], 1, 4, None).expect("begin");
        let state = SceneState::default();
        for step in 0..8 {
            rec.sample(step, step as f64, &[], &state, LazyContacts::NONE, false)
                .expect("row");
        }
        let (t, _) = rec.finish();
        assert_eq!(times(&t), vec![0.0, 2.0, 4.0, 6.0, 7.0]);
    }

    #[test]
    fn the_csv_sink_writes_what_to_csv_writes() {
        let mut sink = CsvSink::new(Vec::new());
        let columns = vec!["time".to_string(), "x".to_string()];
        sink.begin(&columns).expect("begin");
        let rows = vec![vec![0.0, 0.1], vec![0.001, -2.5e-7]];
        for r in &rows {
            sink.row(r).expect("row");
        }
        sink.end().expect("end");
        let t = Trajectory { columns, rows };
        assert_eq!(String::from_utf8(sink.into_inner()).expect("utf8"), t.to_csv());
    }
}
