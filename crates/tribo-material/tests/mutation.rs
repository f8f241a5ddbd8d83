//! Randomised robustness: mutated copies of Choreonoid's material tables never make the loader
//! panic; each one loads, or fails with an error located inside the file.

mod common;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tribo_material::{ContactTable, MaterialTable, BUILTIN_DEFAULT_TEXT};
use tribo_yaml::Location;

const CASES_PER_FILE: usize = 1000;
const TOKENS: [&str; 16] = [
    ":", "[", "]", "{", "}", "- ", "&a ", "*a", "<<: ", "-1", "abc", "\n", "  ", "#", "'", ",",
];
const CHARS: [char; 12] = ['x', ':', '-', ' ', '\t', '[', '"', '0', '.', 'é', '&', '*'];

fn mutate(text: &str, rng: &mut ChaCha8Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for _ in 0..rng.random_range(1..=3) {
        if lines.is_empty() {
            lines.push(String::new());
        }
        let i = rng.random_range(0..lines.len());
        match rng.random_range(0..7) {
            0 => {
                lines.remove(i);
            }
            1 => {
                let copy = lines[i].clone();
                lines.insert(i, copy);
            }
            2 => {
                let j = rng.random_range(0..lines.len());
                lines.swap(i, j);
            }
            3 => {
                let mut chars: Vec<char> = lines[i].chars().collect();
                if !chars.is_empty() {
                    let k = rng.random_range(0..chars.len());
                    chars[k] = CHARS[rng.random_range(0..CHARS.len())];
                }
                lines[i] = chars.into_iter().collect();
            }
            4 => {
                let mut chars: Vec<char> = lines[i].chars().collect();
                let k = rng.random_range(0..=chars.len());
                let token = TOKENS[rng.random_range(0..TOKENS.len())];
                chars.splice(k..k, token.chars());
                lines[i] = chars.into_iter().collect();
            }
            5 => {
                let keep = rng.random_range(0..=lines[i].chars().count());
                lines[i] = lines[i].chars().take(keep).collect();
                lines.truncate(i + 1);
            }
            _ => {
                lines[i] = if rng.random_bool(0.5) {
                    format!("  {}", lines[i])
                } else {
                    lines[i].replacen("  ", "", 1)
                };
            }
        }
    }
    lines.join("\n") + "\n"
}

fn assert_within(location: &Location, lines: usize, text: &str) {
    assert!(
        (1..=lines + 1).contains(&location.line) && location.col >= 1,
        "{location} is outside the {lines}-line file:\n{text}"
    );
}

/// Use everything a loaded table offers, so a panic anywhere downstream shows up too.
fn exercise(table: &MaterialTable) {
    let names = table.known_names();
    let dense = ContactTable::build(table, &names).expect("a handful of names");
    for a in dense.ids() {
        for b in dense.ids() {
            let p = dense.pair(a, b);
            assert!(
                p.static_friction >= 0.0 && p.dynamic_friction >= 0.0 && p.restitution >= 0.0,
                "{p:?}"
            );
            let _ = p.explain();
            let _ = p.extra_f64("cullingDistance");
            let _ = p.extra_usize("max_num_contact_points");
        }
    }
    let _ = tribo_material::render::table_text(table);
    let _ = table.to_json();
    let _ = table.check_name("Sol", &Location::file("x"));
}

#[test]
fn mutated_tables_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x74_7269_626f);
    let sources = [
        ("default.yaml", BUILTIN_DEFAULT_TEXT),
        ("slippy.yaml", common::SLIPPY),
        ("handler.yaml", common::COLLISION_HANDLER),
    ];
    let (mut loaded, mut rejected) = (0, 0);
    for (name, source) in sources {
        for _ in 0..CASES_PER_FILE {
            let text = mutate(source, &mut rng);
            let lines = text.lines().count();
            match MaterialTable::parse_str(&text, name) {
                Ok(result) => {
                    loaded += 1;
                    for w in &result.warnings {
                        assert_within(&w.location, lines, &text);
                    }
                    exercise(&result.table);
                }
                Err(err) => {
                    rejected += 1;
                    assert!(err.is_error());
                    assert_within(&err.location, lines, &text);
                }
            }
        }
    }
    // Both outcomes must be exercised for the test to mean anything.
    assert!(loaded > 100 && rejected > 100, "loaded {loaded}, rejected {rejected}");
}
