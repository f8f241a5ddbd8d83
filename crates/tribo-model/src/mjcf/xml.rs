//! The MJCF document as a located element tree: each element and attribute keeps the file, line
//! and column it was written at, and `<include file>` elements are replaced by the elements of the
//! file they name (MuJoCo's XML reference, *include*: the included file's top-level element is
//! dropped and its children are inserted in place of the include; a file may be included only
//! once; paths are relative to the directory of the main model file).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tribo_yaml::{Diagnostic, Error, Location};

/// Includes nest at most this deep (a guard against runaway inclusion; cycles are refused too).
const MAX_INCLUDE_DEPTH: usize = 32;

/// Elements nest at most this deep in one file: the import walks the tree recursively, and a
/// deeper file (a 10 000-body chain written by a generator) would overflow the stack; a robot's
/// tree is a few tens of bodies deep.
pub(crate) const MAX_ELEMENT_DEPTH: usize = 256;

/// One XML element with located attributes and children (comments and text dropped).
#[derive(Debug, Clone)]
pub(crate) struct Element {
    pub tag: String,
    pub attrs: Vec<Attr>,
    pub children: Vec<Element>,
    pub at: Location,
}

/// One attribute, where its value starts (`at`, for errors about the value) and where its name
/// starts (`name_at`).
#[derive(Debug, Clone)]
pub(crate) struct Attr {
    pub name: String,
    pub value: String,
    pub at: Location,
    pub name_at: Location,
}

impl Element {
    pub fn attr(&self, name: &str) -> Option<&Attr> {
        self.attrs.iter().find(|a| a.name == name)
    }

    /// Children with the tag `tag`, in file order.
    pub fn children_named<'a>(&'a self, tag: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.tag == tag)
    }
}

/// The root `<mujoco>` element of `text` with its includes expanded; `file_name` names the text
/// in locations and its directory is where included files are looked for.
pub(crate) fn read_document(text: &str, file_name: &str) -> Result<Element, Error> {
    let base = Path::new(file_name).parent().unwrap_or(Path::new("")).to_path_buf();
    let mut reader = Reader {
        base,
        included: BTreeSet::new(),
        depth: 0,
    };
    let root = reader.parse(text, file_name)?;
    if root.tag != "mujoco" {
        return Err(Diagnostic::error(
            root.at,
            format!(
                "the root element is <{}>, not <mujoco>: not an MJCF model (URDF robots are read from `.urdf` files)",
                root.tag
            ),
        ));
    }
    Ok(root)
}

struct Reader {
    base: PathBuf,
    included: BTreeSet<PathBuf>,
    depth: usize,
}

impl Reader {
    fn parse(&mut self, text: &str, file_name: &str) -> Result<Element, Error> {
        let file: Arc<str> = Arc::from(file_name);
        let document = roxmltree::Document::parse(text).map_err(|e| {
            let pos = e.pos();
            Diagnostic::error(
                Location::new(&file, pos.row as usize, pos.col as usize),
                format!("not well-formed XML: {e}"),
            )
        })?;
        self.element(&document, document.root_element(), &file, 0)
    }

    fn element(
        &mut self,
        document: &roxmltree::Document,
        node: roxmltree::Node,
        file: &Arc<str>,
        depth: usize,
    ) -> Result<Element, Error> {
        let locate = |offset: usize| {
            let pos = document.text_pos_at(offset);
            Location::new(file, pos.row as usize, pos.col as usize)
        };
        let attrs = node
            .attributes()
            .map(|a| Attr {
                name: a.name().to_string(),
                value: a.value().to_string(),
                at: locate(a.range_value().start),
                name_at: locate(a.range().start),
            })
            .collect();
        let mut out = Element {
            tag: node.tag_name().name().to_string(),
            attrs,
            children: Vec::new(),
            at: locate(node.range().start),
        };
        if depth >= MAX_ELEMENT_DEPTH {
            return Err(Diagnostic::error(
                out.at,
                format!("elements nest deeper than {MAX_ELEMENT_DEPTH} levels"),
            ));
        }
        for child in node.children().filter(roxmltree::Node::is_element) {
            let child = self.element(document, child, file, depth + 1)?;
            if child.tag == "include" {
                out.children.extend(self.include(&child)?);
            } else {
                out.children.push(child);
            }
        }
        Ok(out)
    }

    /// The children of the top-level element of the file an `<include>` names.
    fn include(&mut self, include: &Element) -> Result<Vec<Element>, Error> {
        let Some(name) = include.attr("file") else {
            return Err(Diagnostic::error(
                include.at.clone(),
                "<include> needs a `file` attribute",
            ));
        };
        let path = self.base.join(&name.value);
        let key = path.canonicalize().unwrap_or_else(|_| path.clone());
        if !self.included.insert(key) {
            return Err(Diagnostic::error(
                name.at.clone(),
                format!(
                    "`{}` is included more than once (MJCF allows each file once)",
                    name.value
                ),
            ));
        }
        if self.depth >= MAX_INCLUDE_DEPTH {
            return Err(Diagnostic::error(
                name.at.clone(),
                format!("includes nest deeper than {MAX_INCLUDE_DEPTH} files"),
            ));
        }
        let text = std::fs::read_to_string(&path).map_err(|e| {
            Diagnostic::error(
                name.at.clone(),
                format!("cannot read included file {}: {e}", path.display()),
            )
        })?;
        self.depth += 1;
        let root = self.parse(&text, &path.display().to_string());
        self.depth -= 1;
        Ok(root?.children)
    }
}
