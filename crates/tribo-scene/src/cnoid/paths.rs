//! Finding the files a `.cnoid` project names.
//!
//! Choreonoid writes paths such as `"${SHARE}/model/SR1/SR1.body"` (its share directory) or
//! `"SlippyMaterialSet.yaml"` (relative to the project). The share directory is the one given
//! (`LoadOptions::share_dir`, `--share DIR`), then tribo's own `share/`, then the project's
//! directory. Copies of Choreonoid's files are often laid out flatter than Choreonoid installs them
//! (`model/SR1.body` rather than `model/SR1/SR1.body`, `materials/X.yaml` beside a project), so when
//! the exact path is missing the same file name is looked for under the path's first directory, the
//! usual directory for its kind (`model/`, `motion/`, `materials/`) and the root itself. A file
//! found that way is reported, never taken silently.

use std::path::{Component, Path, PathBuf};

use tribo_yaml::{closest, Diagnostic, Location, Node};

const VARIABLES: [&str; 4] = ["SHARE", "PROJECT_DIR", "HOME", "PROGRAM_TOP"];

/// Where a `.cnoid` project's files are looked for.
pub struct Resolver {
    project_dir: PathBuf,
    /// `${SHARE}` candidates, in order.
    share_roots: Vec<PathBuf>,
}

/// A path as written, with its variables expanded.
enum Written {
    /// `${SHARE}/REL`.
    Share(PathBuf),
    /// Relative to the project directory.
    Relative(PathBuf),
    Absolute(PathBuf),
}

impl Resolver {
    pub fn new(project_dir: &Path, share_dir: &Path, builtin_share: &Path) -> Resolver {
        let mut share_roots = vec![tidy(share_dir)];
        if !same_dir(share_dir, builtin_share) {
            share_roots.push(tidy(builtin_share));
        }
        Resolver {
            project_dir: tidy(project_dir),
            share_roots,
        }
    }

    /// The file a path node names (`what` says what it is, for messages). A file found only under
    /// a flatter layout adds a warning saying where it was found.
    pub fn file(&self, node: &Node, what: &str, warnings: &mut Vec<Diagnostic>) -> Result<PathBuf, Diagnostic> {
        let raw = node.as_str()?.trim();
        if raw.is_empty() {
            return Err(node.error(format!("expected the path of {what}, found empty text")));
        }
        let written = self.expand(raw, &node.location)?;
        let (exact, roots, rel): (Vec<PathBuf>, Vec<&Path>, PathBuf) = match &written {
            Written::Share(rel) => (
                self.search_roots().iter().map(|r| r.join(rel)).collect(),
                self.search_roots(),
                rel.clone(),
            ),
            Written::Relative(rel) => (
                vec![self.project_dir.join(rel)],
                self.search_roots_project_first(),
                rel.clone(),
            ),
            Written::Absolute(path) => (
                vec![path.clone()],
                self.search_roots_project_first(),
                PathBuf::from(path.file_name().unwrap_or_default()),
            ),
        };
        if let Some(found) = exact.iter().find(|p| p.is_file()) {
            return Ok(tidy(found));
        }
        let relaxed: Vec<PathBuf> = roots
            .iter()
            .flat_map(|root| relaxed_candidates(root, &rel))
            .filter(|p| !exact.contains(p))
            .collect();
        if let Some(found) = relaxed.iter().find(|p| p.is_file()) {
            let found = tidy(found);
            warnings.push(node.warning(format!(
                "{what} `{raw}` is not at Choreonoid's location; using `{}`",
                found.display()
            )));
            return Ok(found);
        }
        let looked: Vec<String> = exact.iter().map(|p| format!("`{}`", p.display())).collect();
        Err(node.error(format!(
            "cannot find {what} `{raw}` (looked at {}, and for `{}` under model/, motion/ and materials/ there); \
             give Choreonoid's share directory with --share DIR",
            looked.join(", "),
            rel.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        )))
    }

    /// A file called `name` next to the project or under a share directory, in any of `subdirs`
    /// (e.g. `motion/SR1`), with the places looked at when it is nowhere.
    pub fn find_named(&self, name: &str, subdirs: &[&str]) -> Result<PathBuf, Vec<PathBuf>> {
        let mut tried = Vec::new();
        for root in self.search_roots_project_first() {
            for sub in std::iter::once("").chain(subdirs.iter().copied()) {
                let candidate = if sub.is_empty() {
                    root.join(name)
                } else {
                    root.join(sub).join(name)
                };
                if candidate.is_file() {
                    return Ok(tidy(&candidate));
                }
                tried.push(candidate);
            }
        }
        Err(tried)
    }

    /// Share directories, then the project's.
    fn search_roots(&self) -> Vec<&Path> {
        let mut roots: Vec<&Path> = self.share_roots.iter().map(PathBuf::as_path).collect();
        if !roots.iter().any(|r| same_dir(r, &self.project_dir)) {
            roots.push(&self.project_dir);
        }
        roots
    }

    /// The project's directory, then the share directories.
    fn search_roots_project_first(&self) -> Vec<&Path> {
        let mut roots = vec![self.project_dir.as_path()];
        roots.extend(
            self.share_roots
                .iter()
                .map(PathBuf::as_path)
                .filter(|r| !same_dir(r, &self.project_dir)),
        );
        roots
    }

    /// `${SHARE}`, `${PROJECT_DIR}` and `${HOME}` replaced (Choreonoid's FilePathVariableProcessor).
    fn expand(&self, raw: &str, at: &Location) -> Result<Written, Diagnostic> {
        if let Some(rest) = raw.strip_prefix("${SHARE}") {
            let rel = PathBuf::from(rest.trim_start_matches(['/', '\\']));
            return Ok(Written::Share(self.expand_rest(&rel, raw, at)?));
        }
        let path = self.expand_rest(Path::new(raw), raw, at)?;
        Ok(if path.is_absolute() {
            Written::Absolute(path)
        } else {
            Written::Relative(path)
        })
    }

    fn expand_rest(&self, path: &Path, raw: &str, at: &Location) -> Result<PathBuf, Diagnostic> {
        let text = path.to_string_lossy();
        let mut out = String::new();
        let mut rest: &str = &text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = after
                .find('}')
                .ok_or_else(|| Diagnostic::error(at.clone(), format!("unclosed `${{` in `{raw}`")))?;
            let name = &after[..end];
            let value = match name {
                "SHARE" => self.share_roots.first().map(|p| p.display().to_string()),
                "PROJECT_DIR" => Some(self.project_dir.display().to_string()),
                "HOME" => std::env::var_os("HOME").map(|h| PathBuf::from(h).display().to_string()),
                _ => None,
            };
            let value = value.ok_or_else(|| {
                let why = match name {
                    "PROGRAM_TOP" => " (Choreonoid's install prefix; tribo does not know it: copy the file \
                                      next to the project or under the --share directory)"
                        .to_string(),
                    "HOME" => " ($HOME is not set)".to_string(),
                    _ => closest(name, VARIABLES)
                        .map(|c| format!(" (did you mean `{c}`?)"))
                        .unwrap_or_default(),
                };
                Diagnostic::error(at.clone(), format!("cannot expand `${{{name}}}` in `{raw}`{why}"))
            })?;
            out.push_str(&value);
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(PathBuf::from(out))
    }
}

/// Flatter places for `rel` under `root`: `FIRST_DIR/NAME`, `KIND_DIR/NAME`, `NAME`.
fn relaxed_candidates(root: &Path, rel: &Path) -> Vec<PathBuf> {
    let Some(name) = rel.file_name() else { return Vec::new() };
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    let parts: Vec<Component> = rel.components().collect();
    if parts.len() >= 3 {
        if let Component::Normal(first) = parts[0] {
            dirs.push(PathBuf::from(first));
        }
    }
    let kind_dir = match rel.extension().and_then(|e| e.to_str()) {
        Some("body") | Some("wrl") | Some("urdf") => Some("model"),
        Some("seq") => Some("motion"),
        Some("yaml") | Some("yml") => Some("materials"),
        _ => None,
    };
    dirs.extend(kind_dir.map(PathBuf::from));
    dirs.push(PathBuf::new());
    for dir in dirs {
        let candidate = root.join(dir).join(name);
        if !out.contains(&candidate) {
            out.push(candidate);
        }
    }
    out
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// An existing path without `..` detours (for messages and the loaders); others made absolute.
fn tidy(path: &Path) -> PathBuf {
    path.canonicalize()
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flatter_layouts_are_tried_after_the_exact_path() {
        let c = relaxed_candidates(Path::new("/s"), Path::new("model/SR1/SR1.body"));
        assert_eq!(c, [PathBuf::from("/s/model/SR1.body"), PathBuf::from("/s/SR1.body")]);
        let c = relaxed_candidates(Path::new("/p"), Path::new("SlippyMaterialSet.yaml"));
        assert_eq!(
            c,
            [
                PathBuf::from("/p/materials/SlippyMaterialSet.yaml"),
                PathBuf::from("/p/SlippyMaterialSet.yaml")
            ]
        );
    }

    #[test]
    fn unknown_variables_are_located_errors() {
        let r = Resolver::new(Path::new("/p"), Path::new("/s"), Path::new("/s"));
        let at = Location::file("x.cnoid");
        let err = r.expand("${SHAER}/model/a.body", &at).err().map(|e| e.message);
        assert_eq!(
            err.as_deref(),
            Some("cannot expand `${SHAER}` in `${SHAER}/model/a.body` (did you mean `SHARE`?)")
        );
    }
}
