//! Locating tribo's `share/` directory (default models and tables).

use std::path::PathBuf;

/// `$TRIBO_SHARE` if set; else a `share/` directory next to the executable or two or three levels
/// up (an installed layout, or `target/{debug,release}/` inside the source tree); else the source
/// tree's `share/` as compiled in.
pub fn default_share_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TRIBO_SHARE") {
        return PathBuf::from(dir);
    }
    if let Ok(exe) = std::env::current_exe() {
        for ancestor in exe.ancestors().skip(1).take(4) {
            let candidate = ancestor.join("share");
            if candidate.join("default").join("materials.yaml").is_file() {
                return candidate;
            }
        }
    }
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../share"))
}
