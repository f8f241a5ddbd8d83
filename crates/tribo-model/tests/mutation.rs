//! Randomised mutations of real files never panic: each gives a body or motion, or an error
//! located inside the text. The seed is fixed, so a failure reproduces.

mod common;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tribo_model::{parse_body, parse_motion, Body};
use tribo_yaml::Diagnostic;

const SEQ: &str = "type: CompositeSeq\ncontent: BodyMotion\nformatVersion: 2\nframeRate: 500\nnumFrames: 3\n\
components:\n  - type: MultiValueSeq\n    content: JointDisplacement\n    numParts: 3\n    partLabels: [a, b, c]\n\
    frames:\n      - [0, -0.036, 0]\n      - [0.1, 0.2, 0.3]\n      - [1e-3, 2, -3]\n  - type: Vector3Seq\n    content: ZMP\n    frames: [[0, 0, 0]]\n";

const TOKENS: [&str; 24] = [
    "[",
    "]",
    "{",
    "}",
    ":",
    "- ",
    "&A ",
    "*A",
    "<<: ",
    "-1",
    "0",
    "1e400",
    "nan",
    ".inf",
    "unlimited",
    "type: ",
    "Shape",
    "Transform",
    "parent: WAIST",
    "joint_id: 99999999",
    "rotation: [0,0,0,1]",
    "scale: [0,1,2]",
    "'",
    "\t",
];

fn mutate(text: &str, rng: &mut ChaCha8Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let rounds = rng.random_range(1..=3);
    for _ in 0..rounds {
        if lines.is_empty() {
            break;
        }
        let i = rng.random_range(0..lines.len());
        match rng.random_range(0..7) {
            0 => {
                lines.remove(i);
            }
            1 => {
                let line = lines[i].clone();
                lines.insert(i, line);
            }
            2 => {
                let j = rng.random_range(0..lines.len());
                lines.swap(i, j);
            }
            3 => {
                // Replace one character with a random printable ASCII character.
                let mut chars: Vec<char> = lines[i].chars().collect();
                if !chars.is_empty() {
                    let k = rng.random_range(0..chars.len());
                    chars[k] = char::from(rng.random_range(0x20u8..0x7f));
                    lines[i] = chars.into_iter().collect();
                }
            }
            4 => {
                // Truncate the file at a random line.
                lines.truncate(i);
            }
            5 => {
                let token = TOKENS[rng.random_range(0..TOKENS.len())];
                let at = rng.random_range(0..=lines[i].len());
                if lines[i].is_char_boundary(at) {
                    lines[i].insert_str(at, token);
                }
            }
            _ => {
                // Truncate inside a line.
                let at = rng.random_range(0..=lines[i].len());
                if lines[i].is_char_boundary(at) {
                    lines[i].truncate(at);
                }
            }
        }
    }
    // Files end with a newline; the line after it is where "unexpected end of input" points.
    lines.join("\n") + "\n"
}

fn check_located(d: &Diagnostic, file: &str, text: &str, what: &str) {
    let lines = text.split('\n').count();
    assert_eq!(d.location.file.as_ref(), file, "{what}: {d}");
    assert!(
        d.location.line >= 1 && d.location.line <= lines,
        "{what}: {d} (the text has {lines} lines)\n{text}"
    );
    assert!(d.location.col >= 1, "{what}: {d}");
}

fn check_body(body: &Body, file: &str, text: &str) {
    assert!(!body.links.is_empty());
    assert_eq!(body.root().parent, None);
    for (i, link) in body.links.iter().enumerate().skip(1) {
        let parent = link.parent.expect("only the root has no parent");
        assert!(parent < i, "pre-order");
        assert!(body.links[parent].children.contains(&i));
        assert!(link.mass.is_finite() && link.mass >= 0.0);
        assert!((link.joint.axis.norm() - 1.0).abs() < 1e-9);
    }
    for (id, link) in body.joints_by_id.iter().enumerate() {
        if let Some(l) = link {
            assert_eq!(body.links[*l].joint.id, Some(id));
        }
    }
    for note in &body.notes {
        check_located(note, file, text, "note");
    }
}

#[test]
fn mutated_files_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x7269_626f);
    let sources = [
        ("SR1.body", common::SR1_TEXT, 600),
        ("floor.body", common::FLOOR_TEXT, 1500),
        ("ball.body", common::BALL_TEXT, 1500),
        ("small.seq", SEQ, 1500),
    ];
    let mut outcomes = [0usize; 2];
    for (file, source, rounds) in sources {
        for _ in 0..rounds {
            let text = mutate(source, &mut rng);
            let result = if file.ends_with(".seq") {
                parse_motion(&text, file).map(|m| {
                    assert_eq!(m.values.len(), m.num_frames() * m.num_parts);
                })
            } else {
                parse_body(&text, file).map(|b| check_body(&b, file, &text))
            };
            match result {
                Ok(()) => outcomes[0] += 1,
                Err(e) => {
                    assert!(e.is_error());
                    check_located(&e, file, &text, "error");
                    outcomes[1] += 1;
                }
            }
        }
    }
    // Both outcomes occur: the mutations are neither all harmless nor all fatal.
    assert!(outcomes[0] > 100 && outcomes[1] > 100, "ok/err = {outcomes:?}");
}
