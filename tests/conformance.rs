#![allow(clippy::panic)]
//! The conformance suite: analytic contact cases (`tests/conformance/*.yaml`) run on every engine,
//! each measured against its closed-form answer with the tolerance written here, and the table
//! `docs/conformance.md` (engine × case: measured, expected, verdict) generated from the runs.
//! The test fails when a case fails on an engine without a stated reason, or when the committed
//! table differs from what the engines measure now (`TRIBO_UPDATE_CONFORMANCE=1` rewrites it).

use std::fmt::Write as _;

use tribo_runner::{MetricValue, RunOutcome};
use tribo_tests::{load, root, run};

const ENGINES: [&str; 4] = ["rapier", "pgs", "cslc", "cslc-rapier"];
const G: f64 = 9.81;

/// What a case's measured quantity must satisfy.
#[derive(Clone, Copy)]
enum Expect {
    /// |measured − value| ≤ tolerance.
    Near { value: f64, tolerance: f64 },
    /// measured ≥ bound.
    AtLeast(f64),
}

impl Expect {
    fn holds(&self, measured: f64) -> bool {
        match *self {
            Expect::Near { value, tolerance } => (measured - value).abs() <= tolerance,
            Expect::AtLeast(bound) => measured >= bound,
        }
    }

    fn text(&self, unit: &str) -> String {
        match *self {
            Expect::Near { value, tolerance } => format!("{} ± {} {unit}", number(value), number(tolerance)),
            Expect::AtLeast(bound) => format!("≥ {} {unit}", number(bound)),
        }
    }
}

struct Case {
    /// Short name in the table.
    name: String,
    /// The closed form the expected value comes from.
    source: &'static str,
    project: &'static str,
    overrides: Vec<(&'static str, String)>,
    quantity: &'static str,
    unit: &'static str,
    measure: fn(&RunOutcome) -> f64,
    expect: Expect,
    /// Engines whose model legitimately gives another answer, with the reason (shown in the table;
    /// the tolerance is not loosened for them).
    differs: &'static [(&'static str, &'static str)],
}

fn number(x: f64) -> String {
    if x == 0.0 {
        "0".to_string()
    } else if x.abs() >= 1e-3 && x.abs() < 1e4 {
        let digits = (3 - x.abs().log10().floor() as i32).max(0) as usize;
        format!("{x:.digits$}")
    } else {
        format!("{x:.3e}")
    }
}

fn value(outcome: &RunOutcome, name: &str) -> Option<f64> {
    outcome
        .metrics
        .iter()
        .find(|m| m.name == name)
        .and_then(|m| match m.value {
            MetricValue::Number(v) => Some(v),
            _ => None,
        })
}

fn travel(o: &RunOutcome) -> f64 {
    value(o, "travel").unwrap_or(f64::NAN)
}

/// A pellet that never rose again has no first apex: its rebound is 0.
fn rebound(o: &RunOutcome) -> f64 {
    value(o, "rebound").unwrap_or(0.0)
}

/// Kinetic energy after the impacts over the initial ½ m v² (0.5 kg at 1 m/s), from each ball's
/// free-flight travel over the last 0.1 s.
fn three_ball_energy_ratio(o: &RunOutcome) -> f64 {
    let speeds: Vec<f64> = ["a_travel", "b_travel", "c_travel"]
        .iter()
        .map(|n| value(o, n).unwrap_or(f64::NAN) / 0.1)
        .collect();
    speeds.iter().map(|v| v * v).sum::<f64>()
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    // Static and dynamic friction on an incline (μs 0.6, μd 0.4): held below atan μs, sliding above.
    for angle in [20.0_f64, 25.0, 28.0, 30.0, 30.9] {
        cases.push(Case {
            name: format!("incline {angle}°, μs 0.6 / μd 0.4: held"),
            source: "tan θ < μs: static friction holds (docs/design/contact-mechanics.md §4.1)",
            project: "tests/conformance/incline.yaml",
            overrides: vec![("angle_deg", angle.to_string())],
            quantity: "travel in 2 s",
            unit: "m",
            measure: travel,
            expect: Expect::Near {
                value: 0.0,
                tolerance: 5e-4,
            },
            differs: &[],
        });
    }
    let slope = 32.0_f64.to_radians();
    let slide = 0.5 * G * (slope.sin() - 0.4 * slope.cos()) * 4.0;
    cases.push(Case {
        name: "incline 32°, μs 0.6 / μd 0.4: slides".into(),
        source: "½ g (sin θ − μd cos θ) t²",
        project: "tests/conformance/incline.yaml",
        overrides: vec![("angle_deg", "32".into())],
        quantity: "travel in 2 s",
        unit: "m",
        measure: travel,
        expect: Expect::Near {
            value: slide,
            tolerance: 0.01 * slide,
        },
        differs: &[],
    });
    cases.push(Case {
        name: "ten-box stack at rest".into(),
        source: "rigid bodies at rest stay at rest",
        project: "tests/conformance/stack.yaml",
        overrides: vec![],
        quantity: "top box moved in 10 s",
        unit: "m",
        measure: |o| value(o, "top_drift").unwrap_or(f64::NAN),
        expect: Expect::Near {
            value: 0.0,
            tolerance: 1e-3,
        },
        differs: &[],
    });
    let drop = 0.005;
    for (material, e) in [("Dead", 0.0), ("HalfBounce", 0.5)] {
        cases.push(Case {
            name: format!("pellet on a pad, e = {e}"),
            source: "rebound apex = e² × drop height (±5 % of the drop)",
            project: "tests/conformance/pad-drop.yaml",
            overrides: vec![("pellet_material", material.into())],
            quantity: "first rebound apex",
            unit: "m",
            measure: rebound,
            expect: Expect::Near {
                value: e * e * drop,
                tolerance: 0.05 * drop,
            },
            differs: &[],
        });
    }
    for gap in ["0.0003", "0.0005", "0.0007"] {
        cases.push(Case {
            name: format!("three balls, e = 1, gap {} mm", gap.parse::<f64>().unwrap_or(0.0) * 1e3),
            source: "elastic impacts conserve kinetic energy (ratio 1 ± 1 %)",
            project: "tests/conformance/three-balls.yaml",
            overrides: vec![("gap", gap.into())],
            quantity: "kinetic energy after / before",
            unit: "",
            measure: three_ball_energy_ratio,
            expect: Expect::Near {
                value: 1.0,
                tolerance: 0.01,
            },
            differs: &[],
        });
    }
    let theta = 30.0_f64.to_radians();
    let rolls = 0.5 * (5.0 / 7.0) * G * theta.sin();
    let slides = 0.5 * G * (theta.sin() - 0.1 * theta.cos());
    cases.push(Case {
        name: "sphere on 30°, μ 0.5: rolls".into(),
        source: "μ ≥ 2/7 tan θ: a = 5/7 g sin θ, travel ½ a t²",
        project: "tests/conformance/rolling.yaml",
        overrides: vec![("surface", "Rough".into())],
        quantity: "travel in 1 s",
        unit: "m",
        measure: travel,
        expect: Expect::Near {
            value: rolls,
            tolerance: 0.01 * rolls,
        },
        differs: &[],
    });
    cases.push(Case {
        name: "sphere on 30°, μ 0.1: slides".into(),
        source: "μ < 2/7 tan θ: a = g (sin θ − μ cos θ)",
        project: "tests/conformance/rolling.yaml",
        overrides: vec![("surface", "Slick".into())],
        quantity: "travel in 1 s",
        unit: "m",
        measure: travel,
        expect: Expect::Near {
            value: slides,
            tolerance: 0.01 * slides,
        },
        differs: &[],
    });
    let omega_c = (0.5 * G / 0.5_f64).sqrt();
    cases.push(Case {
        name: format!("turntable at 0.9 ω_c = {:.3} rad/s: sticks", 0.9 * omega_c),
        source: "m ω² r ≤ μ m g: ω ≤ √(μ g / r) = 3.132 rad/s",
        project: "tests/conformance/turntable.yaml",
        overrides: vec![("omega", format!("{}", 0.9 * omega_c))],
        quantity: "slip on the table in 2 s",
        unit: "m",
        measure: |o| value(o, "slip").unwrap_or(f64::NAN),
        expect: Expect::Near {
            value: 0.0,
            tolerance: 5e-3,
        },
        differs: &[],
    });
    cases.push(Case {
        name: format!("turntable at 1.1 ω_c = {:.3} rad/s: leaves", 1.1 * omega_c),
        source: "m ω² r > μ m g: friction cannot hold it",
        project: "tests/conformance/turntable.yaml",
        overrides: vec![("omega", format!("{}", 1.1 * omega_c))],
        quantity: "slip on the table in 2 s",
        unit: "m",
        measure: |o| value(o, "slip").unwrap_or(f64::NAN),
        expect: Expect::AtLeast(0.1),
        differs: &[],
    });
    // Exercise 4.1: 10 kg, μs = μd = 0.5, g = 9.8 (μ m g = 49 N); travel ½ a t² in 1 s.
    for (force, a) in [(40.0, 0.0), (48.0, 0.0), (50.0, 0.1), (60.0, 1.1)] {
        let expected: f64 = 0.5 * a;
        cases.push(Case {
            name: format!("exercise 4.1: push {force} N"),
            source: "a = (F − μ m g)/m if F > μs m g, else 0 (10 kg, μ 0.5, g 9.8)",
            project: "tests/conformance/push.yaml",
            overrides: vec![("pushed", "crate".into()), ("force", force.to_string())],
            quantity: "travel in 1 s",
            unit: "m",
            measure: |o| value(o, "crate_travel").unwrap_or(f64::NAN),
            expect: Expect::Near {
                value: expected,
                tolerance: (0.02 * expected).max(5e-4),
            },
            differs: &[],
        });
    }
    // Static → dynamic: 1 kg on μs 0.6 / μd 0.4, g 9.8.
    for (ratio, expected) in [(0.55, 0.0), (0.65, 0.5 * 0.25 * 9.8)] {
        cases.push(Case {
            name: format!("push {ratio} m g, μs 0.6 / μd 0.4"),
            source: "held while F ≤ μs m g, then a = (F − μd m g)/m",
            project: "tests/conformance/push.yaml",
            overrides: vec![("pushed", "box".into()), ("force", format!("{}", ratio * 9.8))],
            quantity: "travel in 1 s",
            unit: "m",
            measure: |o| value(o, "box_travel").unwrap_or(f64::NAN),
            expect: Expect::Near {
                value: expected,
                tolerance: (0.01 * expected).max(5e-4),
            },
            differs: &[],
        });
    }
    cases
}

struct Row {
    measured: f64,
    ok: bool,
    note: Option<&'static str>,
}

fn run_case(case: &Case, engine: &str) -> Row {
    let overrides: Vec<(&str, &str)> = case.overrides.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let project = load(case.project, &overrides, &[]);
    let outcome = run(&project, engine);
    let measured = (case.measure)(&outcome);
    let ok = case.expect.holds(measured);
    let note = case.differs.iter().find(|(e, _)| *e == engine).map(|(_, why)| *why);
    Row { measured, ok, note }
}

fn table(cases: &[Case], rows: &[Vec<Row>]) -> String {
    let mut md = String::from(
        "# Conformance: analytic contact cases on every engine\n\n\
         Generated by `tests/conformance.rs` from the scenes in `tests/conformance/` (do not edit by \
         hand: `TRIBO_UPDATE_CONFORMANCE=1 cargo test -p tribo-tests --test conformance` rewrites it; \
         the test fails when this file and the engines disagree). Each cell is the measured value \
         and its verdict against the closed form with the tolerance written in the test; an engine \
         whose model legitimately differs says why instead of a looser tolerance.\n\n\
         Engine-independent contact mathematics is pinned beside this in `tribo-lcp`'s \
         `tests/chapter_exercises.rs`: exercise 4.4, planar force closure with frictionless point \
         contacts, needs **four** contacts (wrench space is ℝ³ and a positively spanning set has at \
         least four vectors); the textbook chapter's answer of three is wrong \
         (`docs/design/contact-mechanics.md`, exercise 4.4), and every triple of twelve \
         candidate contacts on a square fails while four well-placed ones close.\n\n",
    );
    let _ = write!(md, "| case | quantity | expected |");
    for engine in ENGINES {
        let _ = write!(md, " {engine} |");
    }
    md.push_str(" closed form |\n|---|---|---|");
    for _ in ENGINES {
        md.push_str("---|");
    }
    md.push_str("---|\n");
    for (case, row) in cases.iter().zip(rows) {
        let _ = write!(
            md,
            "| {} | {} | {} |",
            case.name,
            case.quantity,
            case.expect.text(case.unit)
        );
        for r in row {
            let verdict = match (r.ok, r.note) {
                (true, _) => "ok".to_string(),
                (false, Some(why)) => format!("differs: {why}"),
                (false, None) => "FAIL".to_string(),
            };
            let _ = write!(md, " {} ({verdict}) |", number(r.measured));
        }
        let _ = writeln!(md, " {} |", case.source);
    }
    md
}

#[test]
fn every_engine_reproduces_the_analytic_cases() {
    let cases = cases();
    // Runs are independent and deterministic: spread them over two threads.
    let jobs: Vec<(usize, usize)> = (0..cases.len())
        .flat_map(|c| (0..ENGINES.len()).map(move |e| (c, e)))
        .collect();
    let mut results: Vec<Option<Row>> = (0..jobs.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let chunks: Vec<_> = results.chunks_mut(jobs.len().div_ceil(2)).collect();
        let mut start = 0;
        for chunk in chunks {
            let jobs = &jobs[start..start + chunk.len()];
            start += chunk.len();
            let cases = &cases;
            scope.spawn(move || {
                for (slot, &(c, e)) in chunk.iter_mut().zip(jobs) {
                    *slot = Some(run_case(&cases[c], ENGINES[e]));
                }
            });
        }
    });
    let mut rows: Vec<Vec<Row>> = (0..cases.len()).map(|_| Vec::new()).collect();
    for ((c, _), row) in jobs.iter().zip(results) {
        rows[*c].push(row.unwrap_or_else(|| panic!("a run did not report")));
    }
    let generated = table(&cases, &rows);
    let path = root().join("docs/conformance.md");
    if std::env::var_os("TRIBO_UPDATE_CONFORMANCE").is_some() {
        std::fs::write(&path, &generated).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let failures: Vec<String> = cases
        .iter()
        .zip(&rows)
        .flat_map(|(case, row)| {
            row.iter()
                .zip(ENGINES)
                .filter(|(r, _)| !r.ok && r.note.is_none())
                .map(move |(r, engine)| {
                    format!(
                        "{engine}: {}: measured {} {}, expected {}",
                        case.name,
                        number(r.measured),
                        case.unit,
                        case.expect.text(case.unit)
                    )
                })
        })
        .collect();
    println!("{generated}");
    assert!(failures.is_empty(), "cases that fail:\n{}", failures.join("\n"));
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is not what the engines measure now; rerun with TRIBO_UPDATE_CONFORMANCE=1 and commit it",
        path.display()
    );
}
