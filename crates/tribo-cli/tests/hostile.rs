//! Hostile and unusual input as a user meets it through `tribo`: every row of
//! `docs/hostile-input.md` is one case here, with the exit status and the words the user sees.

mod common;
use common::*;

use std::process::{Command, Stdio};

/// Exit status and everything printed (stdout then stderr).
fn outcome(args: &[&str]) -> (Option<i32>, String) {
    let o = tribo(args);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code(), text)
}

fn expect(args: &[&str], status: i32, words: &[&str]) {
    let (code, text) = outcome(args);
    assert_eq!(code, Some(status), "tribo {}:\n{text}", args.join(" "));
    for w in words {
        assert!(text.contains(w), "tribo {}: no `{w}` in:\n{text}", args.join(" "));
    }
}

#[test]
fn an_alias_bomb_is_refused_at_the_alias() {
    expect(
        &["check", "crates/tribo-material/tests/malformed/alias-bomb.yaml"],
        2,
        &["alias-bomb.yaml:", "past the limit of 100000"],
    );
}

#[test]
fn a_billion_step_run_is_refused_before_it_starts() {
    expect(
        &["check", "tests/fixtures/hostile/tiny-step.yaml"],
        2,
        &["1000000000 steps", "--allow-long-run"],
    );
    expect(
        &["run", "samples/ball/ball.yaml", "--time", "1e9"],
        2,
        &["more than the limit of 10000000 steps"],
    );
}

#[test]
fn an_ideographic_space_in_a_formula_is_a_space() {
    expect(
        &[
            "run",
            "tests/fixtures/hostile/ideographic-space.yaml",
            "--engine",
            "pgs",
            "--quiet",
        ],
        0,
        &["height_change"],
    );
}

#[test]
fn a_formula_nested_too_deeply_is_a_located_error() {
    expect(
        &["check", "tests/fixtures/hostile/deep-formula.yaml"],
        2,
        &["deep-formula.yaml:9:", "nested too deeply"],
    );
}

#[test]
fn a_self_colliding_ragdoll_runs_on_pgs() {
    expect(
        &[
            "run",
            "tests/fixtures/hostile/ragdoll.yaml",
            "--engine",
            "pgs",
            "--quiet",
            "--json",
        ],
        0,
        &["\"engine\": \"pgs\""],
    );
}

#[test]
fn a_contact_across_a_rail_is_dropped_with_a_warning_naming_the_pair() {
    expect(
        &["run", "tests/fixtures/hostile/rail-wall.yaml", "--engine", "pgs"],
        0,
        &["contacts between link `CARRIAGE` of `rail` and link `Box` of `wall` dropped"],
    );
}

#[test]
fn bodies_no_engine_can_move_are_refused_at_their_line() {
    expect(
        &["check", "tests/fixtures/hostile/massless-hand.yaml"],
        2,
        &["massless-hand.body:", "mass 0"],
    );
    expect(
        &["check", "tests/fixtures/hostile/flat-inertia.yaml"],
        2,
        &["flat-inertia.body:", "inertia"],
    );
    expect(
        &["check", "tests/fixtures/hostile/loose-child.yaml"],
        2,
        &["loose-child.body:", "free"],
    );
    expect(
        &["check", "tests/fixtures/hostile/massless-floor.yaml"],
        0,
        &["massless-floor"],
    );
}

#[test]
fn byte_order_marks_and_non_finite_numbers() {
    expect(
        &["check", "tests/fixtures/hostile/byte-order-mark.yaml"],
        0,
        &["name: bom"],
    );
    expect(
        &["check", "tests/fixtures/hostile/nan-parameter.yaml"],
        2,
        &["nan-parameter.yaml:4:", "expected a finite number, found `.nan`"],
    );
    expect(
        &["run", "samples/ball/ball.yaml", "--set", "drop_height=inf"],
        2,
        &["drop_height", "expected a finite number, found `inf`"],
    );
}

#[test]
fn a_bad_out_and_a_huge_gait_are_refused_before_any_work() {
    expect(
        &["run", "samples/ball/ball.yaml", "--out", "/dev/null"],
        2,
        &["/dev/null", "not a directory"],
    );
    let seq = std::env::temp_dir().join(format!("tribo-hostile-gait-{}.seq", std::process::id()));
    let seq = seq.to_string_lossy().into_owned();
    expect(&["gait", "--steps", "1000000", "--out", &seq], 2, &["steps"]);
}

#[test]
fn choreonoid_items_sharing_a_name_are_renamed_with_a_warning() {
    expect(
        &[
            "check",
            "crates/tribo-scene/tests/fixtures/cnoid/same-names.cnoid",
            "--json",
        ],
        0,
        &["box-3", "warning"],
    );
}

#[test]
fn a_reader_that_stops_early_ends_the_command_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tribo"))
        .args(["check", "tests/fixtures/hostile/ideographic-space.yaml"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tribo");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait for tribo");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}
