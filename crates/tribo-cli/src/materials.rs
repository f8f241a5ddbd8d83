//! `tribo materials FILE... [--pair A B] [--json | --yaml]`.

use tribo_material::{pair_json, render, MaterialTable};

use crate::cli::MaterialsArgs;
use crate::failure::{CliResult, Failure};

pub fn execute(args: &MaterialsArgs) -> CliResult {
    let mut merged: Option<MaterialTable> = None;
    for path in &args.files {
        let loaded = MaterialTable::load_file(path)?;
        for w in &loaded.warnings {
            eprintln!("{w}");
        }
        match merged.as_mut() {
            None => merged = Some(loaded.table),
            Some(table) => table.merge(&loaded.table),
        }
    }
    let table = merged.ok_or_else(|| Failure::input("no material table given"))?;
    if args.yaml {
        let text = table
            .to_yaml()
            .map_err(|e| Failure::input(format!("cannot write the table as YAML: {e}")))?;
        crate::output::out!("{text}");
        return Ok(());
    }
    match &args.pair {
        Some(pair) if pair.len() == 2 => {
            let (a, b) = (&pair[0], &pair[1]);
            for name in [a, b] {
                if let Some(w) = table.check_name(name, &tribo_yaml::Location::file("--pair")) {
                    eprintln!("{w}");
                }
            }
            let params = table.contact(a, b);
            if args.json {
                crate::output::outln!("{}", pretty(&pair_json(a, b, &params)));
            } else {
                crate::output::out!("{}", render::pair_text(a, b, &params));
            }
        }
        _ => {
            if args.json {
                crate::output::outln!("{}", pretty(&table.to_json()));
            } else {
                crate::output::out!("{}", render::table_text(&table));
            }
        }
    }
    Ok(())
}

pub fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}
