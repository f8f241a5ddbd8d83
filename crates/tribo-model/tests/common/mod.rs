//! Shared inputs for the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use tribo_model::Body;

/// A file of `tests/choreonoid/`.
pub fn choreonoid(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("choreonoid")
        .join(file)
}

pub const SR1_TEXT: &str = include_str!("../choreonoid/SR1.body");
pub const FLOOR_TEXT: &str = include_str!("../choreonoid/floor.body");
pub const BALL_TEXT: &str = include_str!("../choreonoid/ball.body");

pub fn sr1() -> Body {
    tribo_model::parse_body(SR1_TEXT, "SR1.body").expect("SR1.body loads")
}
