//! Locating tribo's `share/` directory (default material table, models, Choreonoid's files).
//!
//! The directory is searched in this order; the first that holds `default/materials.yaml` wins:
//! 1. `$TRIBO_SHARE`, taken as it is (a user's own share directory);
//! 2. beside the executable: `share/` or `share/tribo/` in its directory or one to three levels up
//!    (an installed layout such as `PREFIX/bin/tribo` + `PREFIX/share/tribo/`, or
//!    `target/{debug,release}/` inside the source tree);
//! 3. the source tree's `share/`, as compiled in (a binary run from its checkout);
//! 4. the copy embedded in the binary at build time, written once to a cache directory
//!    (`$XDG_CACHE_HOME/tribo/share-VERSION-HASH`, else `~/.cache/…`, else the system's temporary
//!    directory) — so `cargo install --path crates/tribo-cli` gives a binary that works anywhere.

use std::path::{Path, PathBuf};

use include_dir::{include_dir, Dir};

/// The repository's `share/` as it was when this crate was built.
static EMBEDDED: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../../share");

/// The environment variable naming a share directory.
pub const SHARE_ENV: &str = "TRIBO_SHARE";

/// The share directory (see the module documentation for the search order).
pub fn default_share_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(SHARE_ENV) {
        return PathBuf::from(dir);
    }
    let source_tree = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../share"));
    beside_executable()
        .or_else(|| is_share(&source_tree).then(|| source_tree.clone()))
        .or_else(embedded_copy)
        .unwrap_or(source_tree)
}

fn is_share(dir: &Path) -> bool {
    dir.join("default").join("materials.yaml").is_file()
}

fn beside_executable() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    exe.ancestors()
        .skip(1)
        .take(4)
        .flat_map(|dir| [dir.join("share"), dir.join("share").join("tribo")])
        .find(|dir| is_share(dir))
}

/// The embedded share written out once per content version; `None` when no directory can be
/// written (the caller then falls back to the compiled-in path and any read names what is missing).
fn embedded_copy() -> Option<PathBuf> {
    let name = format!("share-{}-{:016x}", env!("CARGO_PKG_VERSION"), content_hash(&EMBEDDED));
    cache_roots()
        .into_iter()
        .map(|root| root.join("tribo").join(&name))
        .find(|dir| is_share(dir) || write_atomically(dir).is_ok())
}

fn cache_roots() -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        roots.push(PathBuf::from(dir));
    }
    if let Some(home) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        roots.push(PathBuf::from(home).join(".cache"));
    }
    roots.push(std::env::temp_dir());
    roots
}

/// Writes the embedded files under a temporary sibling, then renames it into place, so a reader
/// never sees a half-written share (a concurrent writer that wins the rename is as good).
fn write_atomically(target: &Path) -> std::io::Result<()> {
    let parent = target.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let staging = parent.join(format!(".{}-{}", std::process::id(), unique_suffix()));
    extract(&EMBEDDED, &staging)?;
    match std::fs::rename(&staging, target) {
        Ok(()) => Ok(()),
        Err(_) if is_share(target) => std::fs::remove_dir_all(&staging),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            Err(e)
        }
    }
}

fn unique_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

fn extract(dir: &Dir<'_>, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for file in dir.files() {
        let name = file.path().file_name().unwrap_or_default();
        std::fs::write(to.join(name), file.contents())?;
    }
    for sub in dir.dirs() {
        let name = sub.path().file_name().unwrap_or_default();
        extract(sub, &to.join(name))?;
    }
    Ok(())
}

/// FNV-1a over every embedded path and content: a new build with other files gets a new cache
/// directory instead of reading a stale one.
fn content_hash(dir: &Dir<'_>) -> u64 {
    fn feed(hash: &mut u64, bytes: &[u8]) {
        for &b in bytes {
            *hash ^= u64::from(b);
            *hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn walk(dir: &Dir<'_>, hash: &mut u64) {
        for file in dir.files() {
            feed(hash, file.path().to_string_lossy().as_bytes());
            feed(hash, file.contents());
        }
        for sub in dir.dirs() {
            walk(sub, hash);
        }
    }
    let mut hash = 0xcbf2_9ce4_8422_2325;
    walk(dir, &mut hash);
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_share_holds_the_default_table_and_choreonoid_files() {
        for file in [
            "default/materials.yaml",
            "model/floor.body",
            "choreonoid/model/SR1.body",
        ] {
            assert!(EMBEDDED.get_file(file).is_some(), "{file} is not embedded");
        }
    }

    #[test]
    fn the_embedded_share_extracts_byte_for_byte() {
        let dir = std::env::temp_dir().join(format!("tribo-share-test-{}", std::process::id()));
        let target = dir.join("share");
        write_atomically(&target).expect("extract");
        assert!(is_share(&target));
        let source = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../share"));
        for file in ["default/materials.yaml", "choreonoid/motion/SR1WalkPattern1.seq"] {
            let written = std::fs::read(target.join(file)).expect("written file");
            let original = std::fs::read(source.join(file)).expect("source file");
            assert!(written == original, "{file} differs after extraction");
        }
        // A second writer finds the directory in place and leaves it as it is.
        write_atomically(&target).expect("second extract");
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
