//! Command-line syntax.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "tribo",
    version,
    about = "Material-aware contact simulation: run a scene on several contact engines and compare them",
    after_help = "Examples:\n  \
        tribo compare samples/ball/ball.yaml --out out/ball\n  \
        tribo sweep samples/ball/ball.yaml --param drop_height=0.5,1,1.5 --out out/ball-sweep\n  \
        tribo run samples/incline/incline.yaml --set angle_deg=30 --out out/incline\n  \
        tribo materials share/default/materials.yaml --pair Ground Ball\n  \
        tribo check model.body\n  \
        tribo import share/choreonoid/SR1WalkSlippy.cnoid --share share/choreonoid --out sr1-walk\n  \
        tribo import share/choreonoid/model/SR1.urdf --out sr1"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Show a merged material table, or one pair's resolved parameters and their source
    #[command(after_help = "Examples:\n  \
        tribo materials share/default/materials.yaml\n  \
        tribo materials default.yaml SlippyMaterialSet.yaml --pair Ground Sole\n  \
        tribo materials default.yaml --pair Ball Ball --json")]
    Materials(MaterialsArgs),
    /// Validate a project, body (.body, URDF .urdf, MJCF .xml), motion (.seq) or material table and summarise it
    #[command(after_help = "Examples:\n  \
        tribo check samples/ball/ball.yaml\n  \
        tribo check SR1.body --json\n  \
        tribo check project.yaml --strict")]
    Check(CheckArgs),
    /// List the engines and the material parameters each honours
    Engines(EnginesArgs),
    /// Run a project on one engine and print its metrics
    #[command(after_help = "Examples:\n  \
        tribo run samples/ball/ball.yaml\n  \
        tribo run samples/incline/incline.yaml --set angle_deg=30 --out out/incline --json\n  \
        tribo run SR1WalkSlippy.cnoid --share CHOREONOID_SHARE --engine pgs")]
    Run(RunArgs),
    /// Run a project on several engines in parallel and compare their metrics
    #[command(after_help = "Examples:\n  \
        tribo compare samples/ball/ball.yaml\n  \
        tribo compare samples/ball/ball.yaml --out out/ball   (then open out/ball/report.html)\n  \
        tribo compare samples/ball/ball.yaml --engines rapier --materials bouncy.yaml --json")]
    Compare(CompareArgs),
    /// Run a grid of parameter values on several engines in parallel; table, JSON and plots of
    /// every metric against the swept parameters
    #[command(after_help = "Examples:\n  \
        tribo sweep samples/ball/ball.yaml --param drop_height=0.25,0.5,1,2\n  \
        tribo sweep samples/incline/incline.yaml --param angle_deg=10,20,25,30,35 --out out/incline-sweep\n  \
        tribo sweep samples/slide/slide.yaml --param speed=1,2,3 --time 1 --json\n  \
        tribo sweep samples/ball/ball.yaml --param drop_height=0.25,0.5,1,2 --shard 1/2 --out shards/1\n  \
        tribo sweep --merge shards/1 shards/2 --out out/ball-sweep\n\n\
        Every combination of the --param values is one grid point (one project load with those\n\
        overrides) run on every engine. --out DIR writes sweep.html, sweep.json and plots/*.svg|png.\n\
        \n\
        On several machines (a Slurm array job, a Kubernetes indexed Job): each runs the same command\n\
        with --shard K/N --out DIR (shard K of N takes grid points K, K+N, K+2N, ...; DIR gets\n\
        shard.json), then --merge DIR... joins the N shards into the sweep.json, sweep.html and plots\n\
        the sweep would have written on one machine. Examples: docs/sweeps.md.")]
    Sweep(SweepArgs),
    /// Generate a ZMP walking pattern for a biped and write it as a Choreonoid .seq
    #[command(after_help = "Examples:\n  \
        tribo gait --out samples/slippy-walker/walk.seq\n  \
        tribo gait share/model/walker.body --steps 4 --step-length 0.1 --json")]
    Gait(crate::gait::GaitArgs),
    /// Write a Choreonoid project (.cnoid) or a URDF robot (.urdf) as a tribo project directory
    /// that runs the same
    #[command(after_help = "Examples:\n  \
        tribo import share/choreonoid/SR1WalkSlippy.cnoid --share share/choreonoid --out sr1-walk\n  \
        tribo run sr1-walk/project.yaml --engine pgs\n  \
        tribo import share/choreonoid/model/SR1.urdf --out sr1\n  \
        tribo import robot.urdf --out robot --force   (write into a directory that has files)\n\n\
        From a .cnoid: DIR/project.yaml holds the bodies, poses, joint positions, material tables,\n\
        controller, time step, duration and metrics tribo reads from it; the .body, .seq, material\n\
        and mesh files it names are copied into DIR with their layout and the licence found beside\n\
        them. From a .urdf: DIR/ROBOT.body is the robot in Choreonoid's body format (meshes copied\n\
        beside it) and DIR/project.yaml stands it on tribo's floor. What the source holds that the\n\
        project cannot is printed as a note.")]
    Import(crate::import::ImportArgs),
}

#[derive(Args)]
pub struct MaterialsArgs {
    /// Material table files, merged in order (the first is the base table)
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Resolve one pair of materials
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    pub pair: Option<Vec<String>>,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
    /// Write the merged table as a material-table file (Choreonoid's YAML) that loads back to
    /// the same table
    #[arg(long, conflicts_with_all = ["json", "pair"])]
    pub yaml: bool,
}

#[derive(Args)]
pub struct CheckArgs {
    /// A tribo project (.yaml), a Choreonoid project (.cnoid), a body (.body), a motion (.seq) or a
    /// material table (.yaml)
    pub path: PathBuf,
    /// The share directory `${SHARE}` stands for in a project (default: tribo's `share/`)
    #[arg(long, value_name = "DIR")]
    pub share: Option<PathBuf>,
    /// Treat warnings about unknown materials as errors
    #[arg(long)]
    pub strict: bool,
    /// Accept a project whose run takes more than 10 000 000 steps (duration / time step)
    #[arg(long)]
    pub allow_long_run: bool,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct EnginesArgs {
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

/// Options shared by `run` and `compare`.
#[derive(Args, Clone)]
pub struct ProjectArgs {
    /// The project file
    pub project: PathBuf,
    #[command(flatten)]
    pub load: LoadArgs,
    /// Write results into this directory: trajectory.csv and metrics.json per run; `compare` adds
    /// report.html (table, plots, 3-D replay) and plots/*.svg|png, `sweep` sweep.html and sweep.json
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
    /// No progress display
    #[arg(long)]
    pub quiet: bool,
}

/// How a project is loaded and how long it runs: shared by `run`, `compare` and `sweep`.
#[derive(Args, Clone)]
pub struct LoadArgs {
    /// Override a project parameter (repeatable)
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Merge an extra material table after the project's own (repeatable)
    #[arg(long = "materials", value_name = "EXTRA.yaml")]
    pub materials: Vec<PathBuf>,
    /// Simulated time in seconds (overrides the project's duration)
    #[arg(long)]
    pub time: Option<f64>,
    /// Treat warnings about unknown materials as errors
    #[arg(long)]
    pub strict: bool,
    /// Run even if a run takes more than 10 000 000 steps (duration / time step). Without it such
    /// a run is refused before it starts (a time step of 1e-9 s or --time 1e9 is usually a typo).
    /// Memory stays bounded either way: with --out, trajectory.csv is written as the run goes;
    /// in memory, trajectories keep at most 50 000 evenly spaced rows.
    #[arg(long)]
    pub allow_long_run: bool,
    /// The share directory `${SHARE}` stands for (default: tribo's `share/`); for a Choreonoid
    /// `.cnoid` project, Choreonoid's share directory (or a copy of its model/, motion/, materials/)
    #[arg(long, value_name = "DIR")]
    pub share: Option<PathBuf>,
}

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub project: ProjectArgs,
    /// The engine (default: the project's first engine, else rapier)
    #[arg(long)]
    pub engine: Option<String>,
}

#[derive(Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub project: ProjectArgs,
    /// Comma-separated engines (default: the project's engines, else every engine)
    #[arg(long, value_delimiter = ',')]
    pub engines: Vec<String>,
}

/// `tribo sweep`: a grid (or one shard of it) from a project, or `--merge` of shards. The
/// project's options are those of [`ProjectArgs`], spelled out because with `--merge` there is no
/// project.
#[derive(Args)]
pub struct SweepArgs {
    /// The project file
    #[arg(required_unless_present = "merge")]
    pub project: Option<PathBuf>,
    /// A project parameter and its values, comma-separated (repeatable: the grid is every
    /// combination)
    #[arg(long = "param", value_name = "NAME=V1,V2,...", required_unless_present = "merge")]
    pub params: Vec<String>,
    /// Comma-separated engines (default: the project's engines, else every engine)
    #[arg(long, value_delimiter = ',')]
    pub engines: Vec<String>,
    #[command(flatten)]
    pub load: LoadArgs,
    /// Run only shard K of N (1 ≤ K ≤ N): the grid points K, K+N, K+2N, ... (counting from 1 in
    /// grid order). Needs --out DIR, where it writes DIR/shard.json for --merge.
    #[arg(long, value_name = "K/N", value_parser = crate::shard::Shard::parse)]
    pub shard: Option<crate::shard::Shard>,
    /// Join the shards written by --shard K/N --out SHARD_DIR (every K from 1 to N, each once)
    /// into the sweep's table or JSON and, with --out, its sweep.json, sweep.html and plots
    #[arg(
        long,
        value_name = "SHARD_DIR",
        num_args = 1..,
        conflicts_with_all = ["project", "params", "engines", "set", "materials", "time", "shard",
            "strict", "allow_long_run", "share"]
    )]
    pub merge: Vec<PathBuf>,
    /// Write results into this directory: sweep.html, sweep.json and plots/*.svg|png; with
    /// --shard, shard.json
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
    /// No progress display
    #[arg(long)]
    pub quiet: bool,
}

impl SweepArgs {
    /// The project and its options as `run` and `compare` take them; `None` with `--merge`.
    pub fn project_args(&self) -> Option<ProjectArgs> {
        Some(ProjectArgs {
            project: self.project.clone()?,
            load: self.load.clone(),
            out: self.out.clone(),
            json: self.json,
            quiet: self.quiet,
        })
    }
}
