//! `tribo engines` and the registry of engines this binary was built with.

use tribo_runner::{EngineFactory, MaterialParameter, Registry, ENGINE_SPECIFIC};

use crate::cli::EnginesArgs;
use crate::failure::CliResult;

/// Every engine tribo ships (`tribo::engines`).
pub fn registry() -> Registry {
    tribo::engines()
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
                    "engine_specific_blocks": engine_specific_read_by(f).iter().map(|p| p.name()).collect::<Vec<_>>(),
                })
            })
            .collect();
        crate::output::outln!("{}", serde_json::to_string_pretty(&list).unwrap_or_default());
        return Ok(());
    }
    for f in registry.factories() {
        crate::output::outln!("{}: {}", f.name(), f.description());
        let honours: Vec<&str> = f.honoured_parameters().iter().map(|p| p.name()).collect();
        let ignores: Vec<&str> = MaterialParameter::ALL
            .iter()
            .filter(|p| !f.honoured_parameters().contains(p))
            .map(|p| p.name())
            .collect();
        crate::output::outln!("  honours: {}", honours.join(", "));
        crate::output::outln!(
            "  ignores: {}",
            if ignores.is_empty() {
                "nothing".to_string()
            } else {
                ignores.join(", ")
            }
        );
    }
    crate::output::outln!(
        "engine-specific material blocks (other engines run without them, and no run warns about that):"
    );
    for line in engine_specific_lines(&registry) {
        crate::output::outln!("  {line}");
    }
    Ok(())
}

/// The engine-specific blocks (`ENGINE_SPECIFIC`) the engine of `factory` reads.
fn engine_specific_read_by(factory: &dyn EngineFactory) -> Vec<MaterialParameter> {
    ENGINE_SPECIFIC
        .iter()
        .map(|(p, _)| *p)
        .filter(|p| factory.honoured_parameters().contains(p))
        .collect()
}

/// `cslc: read by cslc; ignored by rapier, pgs`, one line per engine-specific block.
pub fn engine_specific_lines(registry: &Registry) -> Vec<String> {
    ENGINE_SPECIFIC
        .iter()
        .map(|(p, _)| {
            let (readers, others): (Vec<&dyn EngineFactory>, Vec<&dyn EngineFactory>) =
                registry.factories().partition(|f| f.honoured_parameters().contains(p));
            let names = |fs: &[&dyn EngineFactory]| fs.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ");
            format!(
                "`{}` block of a material: read by {}; ignored by {}",
                p.name(),
                if readers.is_empty() {
                    "no engine".to_string()
                } else {
                    names(&readers)
                },
                if others.is_empty() {
                    "no engine".to_string()
                } else {
                    names(&others)
                }
            )
        })
        .collect()
}
