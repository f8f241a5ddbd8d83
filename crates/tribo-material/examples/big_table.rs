//! A large material table, for measuring load time and peak memory the way `tribo materials`
//! reads one (load, print the warnings, render the table).
//!
//! ```text
//! cargo run --release -p tribo-material --example big_table -- generate big.yaml 500000   # ~50 MB
//! /usr/bin/time -v target/release/examples/big_table load big.yaml > /dev/null
//! ```
//!
//! `generate PATH ENTRIES` writes `ENTRIES` contact materials over distinct pairs of `MatNNNN`
//! names (and one `materials:` entry per name); `load PATH` loads and renders it, printing the
//! time of each phase to stderr.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use tribo_material::{render, MaterialTable};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["generate", path, entries] => match entries.parse::<usize>() {
            Ok(n) => generate(Path::new(path), n),
            Err(e) => Err(format!("bad entry count `{entries}`: {e}")),
        },
        ["load", path] => load(Path::new(path)),
        _ => Err("usage: big_table generate PATH ENTRIES | big_table load PATH".to_string()),
    };
    if let Err(e) = result {
        eprintln!("{e}");
        std::process::exit(2);
    }
}

/// The number of material names whose distinct unordered pairs (self pairs included) cover
/// `entries`.
fn names_for(entries: usize) -> usize {
    let mut n = 1;
    while n * (n + 1) / 2 < entries {
        n += 1;
    }
    n
}

fn generate(path: &Path, entries: usize) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let n = names_for(entries);
    let write = |out: &mut std::io::BufWriter<std::fs::File>| -> std::io::Result<()> {
        writeln!(out, "materials:")?;
        for i in 0..n {
            writeln!(
                out,
                "  - {{ name: Mat{i:04}, roughness: 0.{:03}, viscosity: 0.5 }}",
                i % 1000
            )?;
        }
        writeln!(out, "contact_materials:")?;
        let mut written = 0;
        'outer: for i in 0..n {
            for j in i..n {
                if written == entries {
                    break 'outer;
                }
                writeln!(out, "  - materials: [Mat{i:04}, Mat{j:04}]")?;
                writeln!(out, "    friction: 0.{:03}", (i * 7 + j) % 1000)?;
                writeln!(out, "    restitution: 0.{:02}", (i + j) % 100)?;
                writeln!(out, "    cullingDistance: 0.01")?;
                written += 1;
            }
        }
        out.flush()
    };
    write(&mut out).map_err(|e| format!("{}: {e}", path.display()))
}

fn load(path: &Path) -> Result<(), String> {
    let start = Instant::now();
    let loaded = MaterialTable::load_file(path).map_err(|e| e.to_string())?;
    let loaded_at = start.elapsed();
    for w in &loaded.warnings {
        eprintln!("{w}");
    }
    let text = render::table_text(&loaded.table);
    let rendered_at = start.elapsed();
    std::io::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| format!("stdout: {e}"))?;
    eprintln!(
        "{} materials, {} pairs; load {:.2} s, render {:.2} s",
        loaded.table.materials().len(),
        loaded.table.pairs().len(),
        loaded_at.as_secs_f64(),
        (rendered_at - loaded_at).as_secs_f64()
    );
    Ok(())
}
