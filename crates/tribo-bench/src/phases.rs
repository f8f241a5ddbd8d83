//! Step ranges to time (`1-200,201-1000`) and the CPU time each took.

use std::fmt;
use std::time::Duration;

use crate::cpu::process_time;
use crate::error::BenchError;

/// Steps `first..=last`, counted from 1 (step 1 is the first step from the initial state).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Phase {
    pub first: u64,
    pub last: u64,
}

impl Phase {
    pub fn steps(&self) -> u64 {
        self.last - self.first + 1
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.first, self.last)
    }
}

/// Parse `A-B,C-D,…`: ranges of step numbers from 1, increasing and not overlapping (gaps are
/// stepped but not timed).
pub fn parse_phases(text: &str) -> Result<Vec<Phase>, BenchError> {
    let bad = |why: String| BenchError::Phases {
        text: text.to_string(),
        why,
    };
    let mut phases: Vec<Phase> = Vec::new();
    for part in text.split(',').map(str::trim) {
        let (a, b) = part
            .split_once('-')
            .ok_or_else(|| bad(format!("`{part}` is not a range FIRST-LAST")))?;
        let number = |s: &str| {
            s.trim()
                .parse::<u64>()
                .map_err(|_| bad(format!("`{s}` in `{part}` is not a step number")))
        };
        let phase = Phase {
            first: number(a)?,
            last: number(b)?,
        };
        if phase.first == 0 || phase.last < phase.first {
            return Err(bad(format!(
                "`{part}`: steps count from 1 and a range must not be empty"
            )));
        }
        if let Some(prev) = phases.last() {
            if phase.first <= prev.last {
                return Err(bad(format!("`{part}` overlaps or precedes `{prev}`")));
            }
        }
        phases.push(phase);
    }
    Ok(phases)
}

/// Something that advances a simulation by one step.
pub trait Stepper {
    /// Step `step` (counted from 1).
    fn step(&mut self, step: u64) -> Result<(), BenchError>;
}

/// Independent copies of one simulation (each its own engine, built from the same project),
/// stepped one after the other at every step: `tribo-bench time --copies`. A step of the copies
/// runs each copy's whole step in turn, so each copy's data is read by all of its stages while it
/// is in the cache, as an island-by-island pipeline would read one island's (BENCHMARKS.md,
/// "pgs: twenty piles of 50 stepped in turn").
pub struct InTurn<S>(pub Vec<S>);

impl<S: Stepper> Stepper for InTurn<S> {
    fn step(&mut self, step: u64) -> Result<(), BenchError> {
        for copy in &mut self.0 {
            copy.step(step)?;
        }
        Ok(())
    }
}

/// Step `sim` from step 1 to the last phase's last step, reading the process CPU time at each
/// phase's start and end only; returns each phase's CPU time.
pub fn time_phases(sim: &mut dyn Stepper, phases: &[Phase]) -> Result<Vec<Duration>, BenchError> {
    let mut times = Vec::with_capacity(phases.len());
    let mut next = 1;
    for &phase in phases {
        while next < phase.first {
            sim.step(next)?;
            next += 1;
        }
        let start = process_time();
        while next <= phase.last {
            sim.step(next)?;
            next += 1;
        }
        times.push(process_time().saturating_sub(start));
    }
    Ok(times)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts its steps and remembers the last step number.
    struct Counter {
        steps: u64,
        last: u64,
    }

    impl Stepper for Counter {
        fn step(&mut self, step: u64) -> Result<(), BenchError> {
            self.steps += 1;
            self.last = step;
            Ok(())
        }
    }

    #[test]
    fn copies_in_turn_each_take_every_step() {
        let mut copies = InTurn((0..3).map(|_| Counter { steps: 0, last: 0 }).collect());
        let phases = parse_phases("1-4,7-9").expect("valid");
        let times = time_phases(&mut copies, &phases).expect("steps");
        assert_eq!(times.len(), 2);
        for copy in &copies.0 {
            assert_eq!((copy.steps, copy.last), (9, 9));
        }
    }

    #[test]
    fn ranges_parse_in_order() {
        let p = parse_phases("1-200, 201-1000").expect("valid");
        assert_eq!(p, vec![Phase { first: 1, last: 200 }, Phase { first: 201, last: 1000 }]);
        assert_eq!(p[1].steps(), 800);
    }

    #[test]
    fn bad_ranges_say_why() {
        for (text, why) in [
            ("1-200,100-300", "overlaps"),
            ("0-10", "count from 1"),
            ("5", "not a range"),
            ("1-x", "not a step number"),
        ] {
            let e = parse_phases(text).expect_err(text).to_string();
            assert!(e.contains(why), "{text}: {e}");
        }
    }

    struct Count(Vec<u64>);
    impl Stepper for Count {
        fn step(&mut self, step: u64) -> Result<(), BenchError> {
            self.0.push(step);
            Ok(())
        }
    }

    #[test]
    fn gaps_are_stepped_but_not_timed() {
        let mut c = Count(Vec::new());
        let t = time_phases(&mut c, &parse_phases("3-4,7-7").expect("valid")).expect("runs");
        assert_eq!(c.0, vec![1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(t.len(), 2);
    }
}
