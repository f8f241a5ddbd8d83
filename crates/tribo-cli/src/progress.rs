//! A progress bar on a terminal for runs that take more than a second.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar that stays hidden for the first second, and always when `quiet` or when stderr is not a
/// terminal.
pub struct Progress {
    bar: ProgressBar,
    started: Instant,
    enabled: bool,
    shown: bool,
}

impl Progress {
    pub fn new(label: &str, quiet: bool) -> Self {
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template("{prefix:>8} [{bar:30}] {percent:>3}% {msg} (eta {eta})") {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(label.to_string());
        Progress {
            bar,
            started: Instant::now(),
            enabled: !quiet && std::io::stderr().is_terminal(),
            shown: false,
        }
    }

    pub fn update(&mut self, step: u64, total: u64) {
        if !self.enabled {
            return;
        }
        if !self.shown && self.started.elapsed() > Duration::from_secs(1) {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        self.bar.set_length(total);
        self.bar.set_position(step);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
