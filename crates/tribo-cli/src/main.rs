//! `tribo`: material-aware contact simulation, several engines side by side.

mod batch;
mod batch_progress;
mod check;
mod cli;
mod compare;
mod engines;
mod failure;
mod fingerprint;
mod gait;
mod import;
mod materials;
mod merge;
mod output;
mod outputs;
mod plan;
mod progress;
mod run;
mod shard;
mod shard_file;
mod shard_run;
mod sweep;
mod table;
mod warnings;

use clap::Parser;

use crate::cli::{Cli, Command};

/// mimalloc: its size-segregated pages keep a large scene's per-body blocks close together, which
/// the per-body stages read every step (BENCHMARKS.md, "mimalloc"). `tribo` and `tribo-bench`
/// use the same allocator, so that what the bench times is what a run costs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Materials(args) => materials::execute(&args),
        Command::Check(args) => check::execute(&args),
        Command::Engines(args) => engines::execute(&args),
        Command::Run(args) => run::execute(&args),
        Command::Compare(args) => compare::execute(&args),
        Command::Sweep(args) => sweep::execute(&args),
        Command::Gait(args) => gait::execute(&args),
        Command::Import(args) => import::execute(&args),
    };
    if let Err(failure) = result {
        eprintln!("{}", failure.message);
        std::process::exit(failure.exit_code);
    }
}
