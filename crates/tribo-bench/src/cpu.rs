//! CPU time of this process: user + system time of all its threads.

use std::time::Duration;

use rustix::time::{clock_gettime, ClockId};

/// User + system CPU time consumed by this process so far (`CLOCK_PROCESS_CPUTIME_ID`: the
/// kernel's exact run-time sum over every thread, which `getrusage` splits into its user and
/// system parts and `/proc/self/stat` reports in clock ticks).
pub fn process_time() -> Duration {
    let t = clock_gettime(ClockId::ProcessCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_costs_cpu_time() {
        let before = process_time();
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
        }
        std::hint::black_box(x);
        assert!(process_time() > before);
    }
}
