#![allow(clippy::panic)]
//! Golden digests: one 64-bit hash per engine of every step of a short fixed scene
//! (`tests/digests/pellet-on-pad.yaml`: each link's pose and each contact's point, force and
//! area), compared with `tests/digests/engines.txt`. A changed digest is bit-level drift: the
//! engine computes something different, however small. Whether behaviour changed is what the
//! metrics snapshots say (rounded to their tolerances); if the drift is meant, regenerate with
//!
//! ```text
//! TRIBO_UPDATE_DIGESTS=1 cargo test -p tribo-tests --test digests
//! ```
//!
//! and commit `tests/digests/engines.txt` with the change. Every engine of `tribo::engines()`
//! needs a digest; a new engine gets one by the same command (a line for an engine the registry
//! does not list is not checked). The digests hold for one platform
//! and toolchain (x86-64 Linux, the workspace's Rust): another libm or FMA contraction drifts.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use tribo_runner::{MetricValue, RunOptions};
use tribo_tests::{load, registry, root};

const SCENE: &str = "tests/digests/pellet-on-pad.yaml";
const GOLDEN: &str = "tests/digests/engines.txt";
const UPDATE: &str = "TRIBO_UPDATE_DIGESTS";

/// FNV-1a, 64 bits: simple, stable across Rust versions and platforms (unlike `DefaultHasher`).
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn number(&mut self, x: f64) {
        self.bytes(&x.to_bits().to_le_bytes());
    }
}

/// The digest of `engine`'s run of the scene, every step captured.
fn digest(engine: &str) -> String {
    let project = load(SCENE, &[], &[]);
    let options = RunOptions {
        replay_interval: Some(project.simulation.time_step),
        ..RunOptions::default()
    };
    let outcome = tribo_runner::run(&project, &registry(), engine, &options, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("{engine}: {e}"));
    let replay = outcome.replay.unwrap_or_else(|| panic!("{engine}: no replay"));
    assert!(replay.frames.len() > 150, "{engine}: {} frames", replay.frames.len());
    let touching = replay.frames.iter().filter(|f| !f.contacts.is_empty()).count();
    assert!(
        touching > 100,
        "{engine}: the pellet touches the pad in {touching} frames"
    );
    let mut hash = Fnv::new();
    hash.bytes(&outcome.steps.to_le_bytes());
    for frame in &replay.frames {
        hash.number(frame.time);
        for pose in frame.poses.iter().flatten() {
            pose.iter().for_each(|&x| hash.number(x));
        }
        hash.bytes(&frame.contacts.len().to_le_bytes());
        for c in &frame.contacts {
            c.point.iter().chain(&c.force).for_each(|&x| hash.number(x));
            hash.number(c.area);
        }
    }
    for m in &outcome.metrics {
        if let MetricValue::Number(x) = m.value {
            hash.number(x);
        }
    }
    format!("{:016x}", hash.0)
}

fn read_golden() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(root().join(GOLDEN)).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once(' '))
        .map(|(engine, digest)| (engine.to_string(), digest.trim().to_string()))
        .collect()
}

fn write_golden(digests: &BTreeMap<String, String>) {
    let mut text = format!(
        "# Golden digests of {SCENE}, one per engine (tests/digests.rs).\n\
         # Regenerate: {UPDATE}=1 cargo test -p tribo-tests --test digests\n"
    );
    for (engine, digest) in digests {
        let _ = writeln!(text, "{engine} {digest}");
    }
    std::fs::write(root().join(GOLDEN), text).unwrap_or_else(|e| panic!("{GOLDEN}: {e}"));
}

#[test]
fn every_engine_matches_its_golden_digest() {
    let measured: BTreeMap<String, String> = registry()
        .names()
        .into_iter()
        .map(|engine| (engine.to_string(), digest(engine)))
        .collect();
    if std::env::var_os(UPDATE).is_some() {
        write_golden(&measured);
        println!("{GOLDEN} rewritten: {measured:?}");
        return;
    }
    let golden = read_golden();
    let mut problems = Vec::new();
    for (engine, digest) in &measured {
        match golden.get(engine) {
            Some(g) if g == digest => {}
            Some(g) => problems.push(format!(
                "bit-level drift: engine `{engine}` hashes {SCENE} to {digest}, the golden digest is {g}"
            )),
            None => problems.push(format!("engine `{engine}` has no golden digest in {GOLDEN}")),
        }
    }
    // A digest for an engine the registry does not list (one being added on another branch, or
    // one removed) is left alone: it checks nothing here.
    for engine in golden.keys().filter(|e| !measured.contains_key(*e)) {
        println!("{GOLDEN}: `{engine}` is not in tribo::engines(), its digest is not checked");
    }
    assert!(
        problems.is_empty(),
        "{}\n(the metrics snapshots say whether behaviour changed; if this drift is meant, regenerate with \
         `{UPDATE}=1 cargo test -p tribo-tests --test digests` and commit {GOLDEN})",
        problems.join("\n")
    );
}
