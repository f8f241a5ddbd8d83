//! `tribo engines` and the registry of engines this binary was built with.

use tribo_engine::{MaterialParameter, Registry};

use crate::cli::EnginesArgs;
use crate::failure::CliResult;

/// Every engine tribo ships.
pub fn registry() -> Registry {
    let mut registry = Registry::new();
    registry.register(Box::new(tribo_rapier::RapierFactory));
    registry.register(Box::new(tribo_pgs::PgsFactory));
    registry.register(Box::new(tribo_cslc_engine::CslcFactory));
    registry
}

pub fn execute(args: &EnginesArgs) -> CliResult {
    let registry = registry();
    if args.json {
        let list: Vec<serde_json::Value> = registry
            .factories()
            .map(|f| {
                serde_json::json!({
                    "name": f.name(),
                    "description": f.description(),
                    "honours": f.honoured_parameters().iter().map(|p| p.name()).collect::<Vec<_>>(),
                    "ignores": MaterialParameter::ALL.iter().filter(|p| !f.honoured_parameters().contains(p)).map(|p| p.name()).collect::<Vec<_>>(),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&list).unwrap_or_default());
        return Ok(());
    }
    for f in registry.factories() {
        println!("{}: {}", f.name(), f.description());
        let honours: Vec<&str> = f.honoured_parameters().iter().map(|p| p.name()).collect();
        let ignores: Vec<&str> = MaterialParameter::ALL
            .iter()
            .filter(|p| !f.honoured_parameters().contains(p))
            .map(|p| p.name())
            .collect();
        println!("  honours: {}", honours.join(", "));
        println!(
            "  ignores: {}",
            if ignores.is_empty() {
                "nothing".to_string()
            } else {
                ignores.join(", ")
            }
        );
    }
    Ok(())
}
