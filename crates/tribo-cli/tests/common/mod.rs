//! What the `tribo` binary's tests share: running it as a user does and reading what it printed.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Run `tribo` from the workspace root, so sample, `share/` and `tests/` paths read as in the
/// README.
pub fn tribo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tribo"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("run tribo")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh, empty directory for one test (`tribo-PREFIX-NAME-PID` under the temporary directory).
pub fn temp_dir(prefix: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tribo-{prefix}-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}
