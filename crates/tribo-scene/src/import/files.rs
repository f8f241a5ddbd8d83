//! Where the files an imported project uses go in its directory, and the licences that go with
//! them.
//!
//! A file keeps its place relative to the deepest *root* it lies under — the project's
//! directory or a share directory — so Choreonoid's `share/model/SR1.body` becomes `model/SR1.body`
//! and a table beside the `.cnoid` stays beside `project.yaml`. A file under no root goes into the
//! directory for its kind (`model/`, `motion/`, `materials/`). Mesh files a `.body` names
//! (`Resource` `uri`) keep their place relative to the body file. When a copied file has a licence
//! file (`LICENSE*`, `LICENCE*`, `COPYING*`) in its directory or a directory above it up to its
//! root — Choreonoid's MIT licence beside its models and tables — the nearest one is copied to
//! the same relative place.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use tribo_yaml::{Diagnostic, Node, Value};

/// The files of an imported project: sources and their places in the output directory.
pub struct Files {
    roots: Vec<PathBuf>,
    /// Relative destination → source.
    pub copies: BTreeMap<PathBuf, PathBuf>,
    /// Source → relative destination.
    placed: BTreeMap<PathBuf, PathBuf>,
    /// Licence files copied, relative destinations.
    pub licences: Vec<PathBuf>,
}

impl Files {
    /// `roots`: the directories whose layout is kept (the project's, the share directories).
    pub fn new(roots: &[&Path]) -> Files {
        let mut roots: Vec<PathBuf> = roots.iter().map(|r| canonical(r)).collect();
        // Deepest first, so a file takes its place under the nearest root.
        roots.sort_by_key(|r| std::cmp::Reverse(r.components().count()));
        roots.dedup();
        Files {
            roots,
            copies: BTreeMap::new(),
            placed: BTreeMap::new(),
            licences: Vec::new(),
        }
    }

    /// Place `source` (a file of kind `kind_dir` — `model`, `motion`, `materials` — when under no
    /// root) and its licence; the relative destination. A second file that would take the same
    /// place gets a numbered name (`floor-2.body`).
    pub fn place(&mut self, source: &Path, kind_dir: &str) -> Result<PathBuf, String> {
        let source = canonical(source);
        if let Some(rel) = self.placed.get(&source) {
            return Ok(rel.clone());
        }
        let under = self.roots.iter().find(|r| source.starts_with(r)).cloned();
        let file_name = source.file_name().map(PathBuf::from).unwrap_or_default();
        let wanted = match &under {
            Some(root) => source.strip_prefix(root).map(Path::to_path_buf).unwrap_or(file_name),
            None => Path::new(kind_dir).join(file_name),
        };
        let rel = self.free_place(&wanted);
        self.add(&source, &rel)?;
        let dir = source.parent().unwrap_or(Path::new(""));
        self.licence(dir, under.as_deref(), rel.parent().unwrap_or(Path::new("")));
        Ok(rel)
    }

    /// Place a file that a file already placed at `beside` names by the relative path `uri` (a
    /// mesh of a `.body`): at the same relative path from `beside`'s directory.
    pub fn place_relative(&mut self, source: &Path, beside: &Path, uri: &str) -> Result<PathBuf, String> {
        let source = canonical(source);
        let rel = normalise(&beside.parent().unwrap_or(Path::new("")).join(uri)).ok_or_else(|| {
            format!(
                "`{uri}`, named by `{}`, would lie outside the output directory; copy the model and its \
                 meshes into one directory first",
                beside.display()
            )
        })?;
        self.add(&source, &rel)?;
        Ok(rel)
    }

    fn add(&mut self, source: &Path, rel: &Path) -> Result<(), String> {
        if let Some(other) = self.copies.get(rel) {
            if other != source {
                return Err(format!(
                    "`{}` and `{}` would both be copied to `{}`",
                    other.display(),
                    source.display(),
                    rel.display()
                ));
            }
        }
        self.copies.insert(rel.to_path_buf(), source.to_path_buf());
        self.placed.insert(source.to_path_buf(), rel.to_path_buf());
        Ok(())
    }

    /// `wanted`, or `STEM-2.EXT`, `STEM-3.EXT`, … if another file has it.
    fn free_place(&self, wanted: &Path) -> PathBuf {
        if !self.copies.contains_key(wanted) {
            return wanted.to_path_buf();
        }
        let stem = wanted
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let ext = wanted
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy()))
            .unwrap_or_default();
        (2..)
            .map(|n| wanted.with_file_name(format!("{stem}-{n}{ext}")))
            .find(|p| !self.copies.contains_key(p))
            .unwrap_or_else(|| wanted.to_path_buf())
    }

    /// The nearest licence file of a file derived from `source` (a URDF robot's written model),
    /// copied into `dest_dir`.
    pub fn licence_for(&mut self, source: &Path, dest_dir: &Path) {
        let source = canonical(source);
        let under = self.roots.iter().find(|r| source.starts_with(r)).cloned();
        let dir = source.parent().unwrap_or(Path::new(""));
        self.licence(dir, under.as_deref(), dest_dir);
    }

    /// The nearest licence file from `dir` up to `root` (only `dir` without a root), copied to
    /// the place that keeps its position relative to `dest_dir` (or into the output directory
    /// itself when it is found above the places the output mirrors).
    fn licence(&mut self, dir: &Path, root: Option<&Path>, dest_dir: &Path) {
        let mut here = dir.to_path_buf();
        let mut dest = dest_dir.to_path_buf();
        loop {
            if let Some(found) = licence_in(&here) {
                let rel = dest.join(found.file_name().unwrap_or_default());
                if !self.copies.contains_key(&rel) {
                    self.copies.insert(rel.clone(), found);
                    self.licences.push(rel);
                }
                return;
            }
            let Some(root) = root else { return };
            if here == root {
                return;
            }
            match here.parent() {
                Some(up) if up.starts_with(root) => {
                    here = up.to_path_buf();
                    dest = dest.parent().map(Path::to_path_buf).unwrap_or_default();
                }
                _ => return,
            }
        }
    }
}

/// A licence file in `dir`: the first, by name, of `LICENSE*`, `LICENCE*`, `COPYING*` (any case).
fn licence_in(dir: &Path) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().to_ascii_uppercase())
                .unwrap_or_default();
            ["LICENSE", "LICENCE", "COPYING"].iter().any(|l| name.starts_with(l))
        })
        .collect();
    found.sort();
    found.into_iter().next()
}

/// `path` without `.` and `..` (None if `..` climbs above its start).
fn normalise(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(part) => out.push(part),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize()
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// The mesh files a `.body` file names by a relative `uri` (or `url`) that exists next to it, as
/// `(uri, file)` pairs in file order. Path variables, addresses and absolute paths are left to the
/// body loader (which notes or refuses them as it does for the original).
pub fn body_resources(body_file: &Path) -> Result<Vec<(String, PathBuf)>, Diagnostic> {
    let root = tribo_yaml::parse_file(body_file)?;
    let dir = body_file.parent().unwrap_or(Path::new(""));
    let mut out = Vec::new();
    collect_uris(&root, dir, &mut out);
    Ok(out)
}

fn collect_uris(node: &Node, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    match &node.value {
        Value::Map(map) => {
            for entry in &map.entries {
                if matches!(entry.key.as_str(), "uri" | "url") {
                    if let Ok(uri) = entry.value.as_str() {
                        let path = Path::new(uri);
                        let plain = !uri.contains("://") && !uri.contains("${") && path.is_relative();
                        if plain && dir.join(path).is_file() && !out.iter().any(|(u, _)| u == uri) {
                            out.push((uri.to_string(), dir.join(path)));
                        }
                    }
                }
                collect_uris(&entry.value, dir, out);
            }
        }
        Value::Seq(items) => items.iter().for_each(|i| collect_uris(i, dir, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalised_inside_the_output_only() {
        assert_eq!(
            normalise(Path::new("model/./meshes/../a.stl")),
            Some(PathBuf::from("model/a.stl"))
        );
        assert_eq!(normalise(Path::new("model/../../a.stl")), None);
    }

    #[test]
    fn choreonoid_files_keep_their_layout_and_bring_their_licence() {
        let share = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../share");
        let choreonoid = share.join("choreonoid");
        let mut files = Files::new(&[&share, &choreonoid]);
        let rel = files
            .place(&choreonoid.join("model/SR1.body"), "model")
            .expect("placed");
        assert_eq!(rel, PathBuf::from("model/SR1.body"));
        let rel = files
            .place(&share.join("default/materials.yaml"), "materials")
            .expect("placed");
        assert_eq!(rel, PathBuf::from("default/materials.yaml"));
        assert_eq!(
            files.licences,
            [
                PathBuf::from("LICENSE"),
                PathBuf::from("default/LICENSE-choreonoid.txt")
            ]
        );
        // Another file of the same name under no root gets a free name.
        let rel = files.place(&share.join("model/floor.body"), "model").expect("placed");
        assert_eq!(rel, PathBuf::from("model/floor.body"));
        let mut other = Files::new(&[&choreonoid]);
        other
            .place(&choreonoid.join("model/floor.body"), "model")
            .expect("placed");
        let rel = other.place(&share.join("model/floor.body"), "model").expect("placed");
        assert_eq!(rel, PathBuf::from("model/floor-2.body"));
    }
}
