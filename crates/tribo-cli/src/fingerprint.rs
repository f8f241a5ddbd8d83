//! A project's fingerprint: which files it was loaded from and a hash of each one's bytes, so
//! that shards of a sweep run on different project files (or by different tribo versions) are not
//! merged into one report.
//!
//! The files are those the loaded project names: the project file, its material tables (and
//! `--materials`), its body models and the motions its joint patterns play, in that order, each
//! once. Only contents count, not paths, so shards may run from different directories. The hash
//! is 64-bit FNV-1a — stable across platforms, Rust versions and builds, and ample for telling
//! apart files that were meant to be the same; it is not a defence against a forger.

use std::path::Path;

use tribo_scene::{ControllerSpec, Project};

use crate::failure::Failure;

/// One file of the project and the FNV-1a hash of its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHash {
    pub path: String,
    pub hash: u64,
}

/// The files a project was loaded from, and one hash over the tribo version and their hashes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    pub digest: u64,
    pub files: Vec<FileHash>,
}

impl Fingerprint {
    /// The fingerprint of `project`, reading its files again.
    pub fn of(project: &Project) -> Result<Fingerprint, Failure> {
        let mut files: Vec<FileHash> = Vec::new();
        for path in project_files(project) {
            if files.iter().any(|f| f.path == path) {
                continue;
            }
            let bytes = std::fs::read(&path).map_err(|e| Failure::input(format!("{path}: cannot read: {e}")))?;
            files.push(FileHash {
                path,
                hash: fnv1a(&bytes),
            });
        }
        Ok(Fingerprint::from_files(files))
    }

    /// The digest of `files` (in order) for this version of tribo.
    pub fn from_files(files: Vec<FileHash>) -> Fingerprint {
        let mut bytes = format!("tribo {}\n", env!("CARGO_PKG_VERSION")).into_bytes();
        for f in &files {
            bytes.extend_from_slice(&f.hash.to_le_bytes());
        }
        Fingerprint {
            digest: fnv1a(&bytes),
            files,
        }
    }
}

/// Every file `project` names, in load order, possibly with repeats.
fn project_files(project: &Project) -> Vec<String> {
    let text = |p: &Path| p.display().to_string();
    let mut paths = vec![text(&project.path)];
    paths.extend(project.material_files.iter().map(|p| text(p)));
    paths.extend(
        project
            .scene
            .bodies
            .iter()
            .map(|b| b.model.source.to_string())
            .filter(|s| !s.is_empty()),
    );
    paths.extend(project.controllers.iter().filter_map(|c| match c {
        ControllerSpec::JointPattern(p) => Some(p.motion.source.to_string()),
        _ => None,
    }));
    paths
}

/// 64-bit FNV-1a.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(PRIME))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_its_published_test_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn the_digest_follows_contents_and_order_not_paths() {
        let file = |path: &str, hash| FileHash {
            path: path.into(),
            hash,
        };
        let here = Fingerprint::from_files(vec![file("a.yaml", 1), file("b.body", 2)]);
        let elsewhere = Fingerprint::from_files(vec![file("/x/a.yaml", 1), file("/x/b.body", 2)]);
        assert_eq!(here.digest, elsewhere.digest);
        assert_ne!(
            here.digest,
            Fingerprint::from_files(vec![file("a.yaml", 1), file("b.body", 3)]).digest
        );
        assert_ne!(
            here.digest,
            Fingerprint::from_files(vec![file("b.body", 2), file("a.yaml", 1)]).digest
        );
    }
}
