//! One progress display for a whole `compare` or `sweep`: steps done across every run, runs
//! finished, time left. Hidden with `--quiet`, with `--json`, and when stderr is not a terminal.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub struct BatchProgress {
    bar: ProgressBar,
    runs: usize,
    done: AtomicUsize,
}

impl BatchProgress {
    /// A bar over `total_steps` simulation steps of `runs` runs.
    pub fn new(total_steps: u64, runs: usize, quiet: bool) -> Self {
        let target = if !quiet && std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(total_steps), target);
        if let Ok(style) =
            ProgressStyle::with_template("[{bar:30}] {percent:>3}% {msg}, {elapsed} elapsed, ~{eta} left")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        let progress = BatchProgress {
            bar,
            runs,
            done: AtomicUsize::new(0),
        };
        progress.show_runs(0);
        progress
    }

    fn show_runs(&self, done: usize) {
        self.bar.set_message(format!("runs {done}/{}", self.runs));
    }

    /// `steps` more steps were simulated.
    pub fn advance(&self, steps: u64) {
        self.bar.inc(steps);
    }

    /// A run finished (or stopped early); `remaining` are its steps not yet reported.
    pub fn run_done(&self, remaining: u64) {
        self.bar.inc(remaining);
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        self.show_runs(done);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
