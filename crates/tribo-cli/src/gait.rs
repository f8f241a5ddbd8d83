//! `tribo gait [MODEL] --out walk.seq`: generate a ZMP walking pattern (tribo-gait) for a biped
//! and write it as a Choreonoid `.seq`.

use std::path::PathBuf;

use clap::Args;
use serde_json::json;
use tribo_gait::{GaitParams, Walker, WalkingPattern, WALKER_FEET};

use crate::failure::{CliResult, Failure};

#[derive(Args)]
pub struct GaitArgs {
    /// The biped's .body file (default: tribo's walker, share/model/walker.body); its feet are
    /// the links RLEG_ANKLE_R and LLEG_ANKLE_R
    pub model: Option<PathBuf>,
    /// Number of steps, 2 to 1000 (the last one brings the feet together)
    #[arg(long, default_value_t = 8)]
    pub steps: usize,
    /// Forward advance per step, m (0 to 1)
    #[arg(long, default_value_t = 0.15)]
    pub step_length: f64,
    /// Duration of one step (single + double support), s (0.1 to 10)
    #[arg(long, default_value_t = 0.6)]
    pub step_time: f64,
    /// Lateral distance between the feet, m
    #[arg(long, default_value_t = 0.16)]
    pub step_width: f64,
    /// Fraction of each step in double support
    #[arg(long, default_value_t = 0.2)]
    pub double_support: f64,
    /// Peak height of the swing foot, m
    #[arg(long, default_value_t = 0.04)]
    pub lift_height: f64,
    /// Height of the centre of mass (the cart-table height), m
    #[arg(long, default_value_t = 0.62)]
    pub com_height: f64,
    /// Frames per second of the pattern, at most 10 000; a whole pattern has at most 1 000 000
    /// frames (tribo resamples a pattern to any simulation time step)
    #[arg(long, default_value_t = 500.0)]
    pub frame_rate: f64,
    /// Write the pattern to FILE.seq (joint angles and the planned ZMP)
    #[arg(long, value_name = "FILE.seq")]
    pub out: Option<PathBuf>,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

pub fn execute(args: &GaitArgs) -> CliResult {
    let model = args
        .model
        .clone()
        .unwrap_or_else(|| tribo_scene::default_share_dir().join("model").join("walker.body"));
    let body = tribo_model::load_body(&model)?;
    let walker = Walker::new(body, WALKER_FEET).map_err(|e| Failure::input(format!("{}: {e}", model.display())))?;
    let params = GaitParams {
        steps: args.steps,
        step_length: args.step_length,
        step_width: args.step_width,
        step_time: args.step_time,
        double_support_ratio: args.double_support,
        lift_height: args.lift_height,
        com_height: args.com_height,
        frame_rate: args.frame_rate,
        ..GaitParams::default()
    };
    let pattern = tribo_gait::generate(&walker, &params).map_err(|e| Failure::input(e.to_string()))?;
    if let Some(out) = &args.out {
        let comment = format!(
            "Walking pattern for {} by `tribo gait`: {} steps of {} m every {} s, width {} m, CoM height {} m.\n\
             Planned forward distance {} m. Joint angles in radians by joint id; ZMP in the world frame.",
            walker.body.name,
            params.steps,
            params.step_length,
            params.step_time,
            params.step_width,
            params.com_height,
            pattern.planned_distance()
        );
        tribo_gait::write_seq(out, &pattern.motion, Some(&pattern.zmp_reference), &comment)
            .map_err(|e| Failure::run(format!("cannot write {}: {e}", out.display())))?;
    }
    let summary = summary(&walker, &pattern, args);
    if args.json {
        crate::output::outln!(
            "{}",
            serde_json::to_string_pretty(&summary).unwrap_or_else(|_| summary.to_string())
        );
    } else {
        print_text(&summary);
    }
    Ok(())
}

fn summary(walker: &Walker, pattern: &WalkingPattern, args: &GaitArgs) -> serde_json::Value {
    let waist = pattern.waist.first().copied().unwrap_or_default();
    json!({
        "model": walker.body.name,
        "steps": args.steps,
        "planned_distance_m": pattern.planned_distance(),
        "duration_s": pattern.duration(),
        "frames": pattern.num_frames(),
        "frame_rate": pattern.frame_rate(),
        "max_zmp_tracking_error_m": pattern.max_zmp_tracking_error(),
        "max_com_error_m": pattern.max_com_error(),
        "initial_waist_translation": [waist.x, waist.y, waist.z],
        "initial_joint_positions": pattern.motion.frame(0),
        "out": args.out.as_ref().map(|p| p.display().to_string()),
    })
}

fn print_text(summary: &serde_json::Value) {
    let keys = [
        ("model", ""),
        ("planned_distance_m", "planned distance, m"),
        ("duration_s", "duration, s"),
        ("frames", "frames"),
        ("frame_rate", "frame rate, Hz"),
        ("max_zmp_tracking_error_m", "max ZMP tracking error, m"),
        ("max_com_error_m", "max CoM error (multibody vs plan), m"),
        ("initial_waist_translation", "initial WAIST translation, m"),
        ("initial_joint_positions", "initial joint positions, rad"),
        ("out", "written to"),
    ];
    for (key, label) in keys {
        let label = if label.is_empty() { key } else { label };
        match summary.get(key) {
            Some(serde_json::Value::Null) | None => {}
            Some(serde_json::Value::String(s)) => crate::output::outln!("{label}: {s}"),
            Some(v) => crate::output::outln!("{label}: {v}"),
        }
    }
}
