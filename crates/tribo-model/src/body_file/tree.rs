//! Assembling the link tree (docs/design/choreonoid-formats.md §2.3): parents by name, cycle and
//! reachability checks, Choreonoid's depth-first pre-order (children in file order;
//! `Link.cpp` `appendChild`, `LinkTraverse.cpp`), and the joint-id table (`Body.cpp`).

use std::collections::BTreeMap;
use std::sync::Arc;

use tribo_yaml::{did_you_mean, Diagnostic, Error, Location, Node};

use super::link::ParsedLink;
use crate::{Body, Link};

/// A broken parent structure, in input indices.
enum Fault {
    /// These links form a parent cycle (in parent order).
    Cycle(Vec<usize>),
    /// This link has no parent but is not the root.
    SecondRoot(usize),
}

/// The depth-first pre-order of the tree given by `parents` (input indices), from `root`,
/// children in input order.
fn depth_first(parents: &[Option<usize>], root: usize) -> Result<Vec<usize>, Fault> {
    let n = parents.len();
    // 0: not seen; i + 1: on the path walked from link i; usize::MAX: reaches the root.
    let mut state = vec![0usize; n];
    for start in 0..n {
        let mut path = Vec::new();
        let mut current = start;
        loop {
            match state.get(current).copied() {
                Some(usize::MAX) | None => break,
                Some(s) if s == start + 1 => {
                    let first = path.iter().position(|&l| l == current).unwrap_or(0);
                    return Err(Fault::Cycle(path.split_off(first)));
                }
                Some(_) => {}
            }
            state[current] = start + 1;
            path.push(current);
            match parents.get(current).copied().flatten() {
                Some(parent) => current = parent,
                None if current == root => break,
                None => return Err(Fault::SecondRoot(current)),
            }
        }
        for l in path {
            state[l] = usize::MAX;
        }
    }
    let mut children = vec![Vec::new(); n];
    for (i, parent) in parents.iter().enumerate() {
        if let Some(p) = parent {
            if let Some(list) = children.get_mut(*p) {
                list.push(i);
            }
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut stack = vec![root];
    while let Some(l) = stack.pop() {
        order.push(l);
        if let Some(list) = children.get(l) {
            stack.extend(list.iter().rev());
        }
    }
    Ok(order)
}

/// Put `links` (input order, parents as input indices) into `order`, renumbering parents and
/// filling children.
fn reorder(mut links: Vec<Option<Link>>, parents: &[Option<usize>], order: &[usize]) -> Vec<Link> {
    let mut new_index = vec![None; links.len()];
    for (new, &old) in order.iter().enumerate() {
        if let Some(slot) = new_index.get_mut(old) {
            *slot = Some(new);
        }
    }
    let mut out: Vec<Link> = Vec::with_capacity(order.len());
    for &old in order {
        if let Some(mut link) = links.get_mut(old).and_then(Option::take) {
            link.parent = parents
                .get(old)
                .copied()
                .flatten()
                .and_then(|p| new_index.get(p).copied().flatten());
            link.children.clear();
            out.push(link);
        }
    }
    for i in 0..out.len() {
        if let Some(p) = out[i].parent {
            if let Some(parent) = out.get_mut(p) {
                parent.children.push(i);
            }
        }
    }
    out
}

/// `joint_id` → link index, with duplicate ids (the first link in link order keeps the id) and
/// the ids missing below the largest one.
struct JointTable {
    by_id: Vec<Option<usize>>,
    duplicates: Vec<(usize, usize, usize)>,
    gaps: Vec<usize>,
}

fn joint_table(links: &[Link]) -> JointTable {
    let mut by_id: Vec<Option<usize>> = Vec::new();
    let mut duplicates = Vec::new();
    for (i, link) in links.iter().enumerate() {
        let Some(id) = link.joint.id else { continue };
        if by_id.len() <= id {
            by_id.resize(id + 1, None);
        }
        match by_id[id] {
            None => by_id[id] = Some(i),
            Some(first) => duplicates.push((id, first, i)),
        }
    }
    let gaps = by_id
        .iter()
        .enumerate()
        .filter(|(_, l)| l.is_none())
        .map(|(id, _)| id)
        .collect();
    JointTable {
        by_id,
        duplicates,
        gaps,
    }
}

/// The body of a `.body` file from its parsed links.
pub fn assemble_file_body(
    parsed: Vec<ParsedLink>,
    root_link: Option<&Node>,
    links_node: &Node,
    name: String,
    source: Arc<str>,
    mut notes: Vec<Diagnostic>,
) -> Result<Body, Error> {
    let mut by_name: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, p) in parsed.iter().enumerate() {
        if let Some(&first) = by_name.get(p.link.name.as_str()) {
            let first_at = &parsed[first].name_at;
            return Err(Diagnostic::error(
                p.name_at.clone(),
                format!("duplicate link name `{}` (first defined at {first_at})", p.link.name),
            ));
        }
        by_name.insert(&p.link.name, i);
    }
    let mut joint_names: BTreeMap<&str, &Location> = BTreeMap::new();
    for p in &parsed {
        if let Some(at) = &p.joint_name_at {
            if let Some(first) = joint_names.insert(&p.link.joint.name, at) {
                return Err(Diagnostic::error(
                    at.clone(),
                    format!(
                        "duplicate joint name `{}` (first defined at {first})",
                        p.link.joint.name
                    ),
                ));
            }
        }
    }
    let names = || parsed.iter().map(|p| p.link.name.as_str());
    let root = match root_link {
        None => 0,
        Some(node) => {
            let wanted = node.as_name()?;
            *by_name.get(wanted).ok_or_else(|| {
                node.error(format!(
                    "root link `{wanted}` is not defined{}",
                    did_you_mean(wanted, names())
                ))
            })?
        }
    };
    let mut parents = Vec::with_capacity(parsed.len());
    for (i, p) in parsed.iter().enumerate() {
        let parent = match &p.parent {
            None if i == root => None,
            None => {
                return Err(Diagnostic::error(
                    p.link.location.clone(),
                    format!(
                        "link `{}` has no `parent` (only the root link `{}` may omit it)",
                        p.link.name, parsed[root].link.name
                    ),
                ))
            }
            Some(parent) if i == root => {
                return Err(parent.error(format!("the root link `{}` cannot have a parent", p.link.name)));
            }
            Some(parent) => {
                let wanted = parent.name.as_str();
                let index = by_name.get(wanted).copied().ok_or_else(|| {
                    let others = names().filter(|n| *n != p.link.name);
                    parent.error(format!(
                        "unknown parent link `{wanted}` of link `{}`{}",
                        p.link.name,
                        did_you_mean(wanted, others)
                    ))
                })?;
                Some(index)
            }
        };
        parents.push(parent);
    }
    let order = depth_first(&parents, root).map_err(|fault| match fault {
        Fault::Cycle(cycle) => {
            let first = cycle.iter().copied().min().unwrap_or(0);
            let chain: Vec<&str> = cycle
                .iter()
                .chain(cycle.first())
                .map(|&l| parsed[l].link.name.as_str())
                .collect();
            let at = parsed[first]
                .parent
                .as_ref()
                .map_or_else(|| parsed[first].link.location.clone(), |p| p.at.clone());
            Diagnostic::error(
                at,
                format!(
                    "the parents of link `{}` form a cycle ({}); the links are not connected to the root `{}`",
                    parsed[first].link.name,
                    chain.join(" → "),
                    parsed[root].link.name
                ),
            )
        }
        Fault::SecondRoot(l) => Diagnostic::error(
            parsed[l].link.location.clone(),
            format!("link `{}` is not connected to the root", parsed[l].link.name),
        ),
    })?;
    if order.len() != parsed.len() {
        let missing = (0..parsed.len()).find(|i| !order.contains(i)).unwrap_or(0);
        return Err(Diagnostic::error(
            parsed[missing].link.location.clone(),
            format!("link `{}` is not connected to the root", parsed[missing].link.name),
        ));
    }
    let links = reorder(parsed.into_iter().map(|p| Some(p.link)).collect(), &parents, &order);
    for link in &links {
        check_finite(link)?;
    }

    let table = joint_table(&links);
    for &(id, first, dup) in &table.duplicates {
        notes.push(Diagnostic::warning(
            links[dup].location.clone(),
            format!(
                "joint_id {id} of link `{}` duplicates that of link `{}`, which keeps it",
                links[dup].name, links[first].name
            ),
        ));
    }
    if !table.gaps.is_empty() {
        let ids: Vec<String> = table.gaps.iter().map(|id| id.to_string()).collect();
        notes.push(links_node.warning(format!(
            "joint ids {} are not given to any link (gaps in the ids)",
            ids.join(", ")
        )));
    }
    for (i, link) in links.iter().enumerate() {
        if i != 0 && link.joint.kind.dofs() == 1 && link.joint.id.is_none() {
            notes.push(Diagnostic::warning(
                link.location.clone(),
                format!(
                    "link `{}` has a {} joint without joint_id: motions and joint-id lists cannot drive it",
                    link.name,
                    link.joint.kind.name()
                ),
            ));
        }
    }
    Ok(Body {
        name,
        source,
        links,
        joints_by_id: table.by_id,
        notes,
        extra_joints: Vec::new(),
    })
}

/// Every number the engines will use must be finite (huge values can overflow in unit
/// conversions and frame compositions).
fn check_finite(link: &Link) -> Result<(), Error> {
    let offset = link.offset.to_homogeneous();
    let shapes_finite = link.shapes.iter().all(|s| {
        let dims: &[f64] = match &s.geometry {
            crate::Geometry::Box { size } => size.as_slice(),
            crate::Geometry::Sphere { radius } => std::slice::from_ref(radius),
            crate::Geometry::Cylinder { radius, height }
            | crate::Geometry::Capsule { radius, height }
            | crate::Geometry::Cone { radius, height } => &[*radius, *height],
            // Mesh vertices are checked finite when the mesh is made.
            crate::Geometry::Mesh(_) => &[],
        };
        dims.iter().all(|v| v.is_finite()) && s.pose.to_homogeneous().iter().all(|v| v.is_finite())
    });
    let finite = offset.iter().all(|v| v.is_finite())
        && link.mass.is_finite()
        && link.center_of_mass.iter().all(|v| v.is_finite())
        && link.inertia.iter().all(|v| v.is_finite())
        && link.joint.initial_position.is_finite()
        && !link
            .joint
            .range
            .iter()
            .chain(&link.joint.velocity_range)
            .any(|v| v.is_nan())
        && link.joint.armature.is_finite()
        && shapes_finite;
    if finite {
        Ok(())
    } else {
        Err(Diagnostic::error(
            link.location.clone(),
            format!(
                "link `{}` has values too large to represent once converted and composed",
                link.name
            ),
        ))
    }
}

/// [`Body::from_links`].
pub fn assemble_code_body(name: String, links: Vec<Link>) -> Result<Body, Error> {
    let n = links.len();
    let roots: Vec<usize> = (0..n).filter(|&i| links[i].parent.is_none()).collect();
    let root = match roots.as_slice() {
        [root] => *root,
        [] => {
            let at = links
                .first()
                .map_or_else(|| Location::file(name.as_str()), |l| l.location.clone());
            return Err(Diagnostic::error(
                at,
                format!("body `{name}` has no root link (a link without parent)"),
            ));
        }
        [first, second, ..] => {
            return Err(Diagnostic::error(
                links[*second].location.clone(),
                format!(
                    "body `{name}` has two root links, `{}` and `{}`",
                    links[*first].name, links[*second].name
                ),
            ))
        }
    };
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, link) in links.iter().enumerate() {
        if seen.insert(&link.name, i).is_some() {
            return Err(Diagnostic::error(
                link.location.clone(),
                format!("duplicate link name `{}`", link.name),
            ));
        }
        if link.parent.is_some_and(|p| p >= n) {
            return Err(Diagnostic::error(
                link.location.clone(),
                format!(
                    "link `{}` has parent index {:?} but there are {n} links",
                    link.name, link.parent
                ),
            ));
        }
        if link.joint.id.is_some_and(|id| id > super::joint::MAX_JOINT_ID as usize) {
            return Err(Diagnostic::error(
                link.location.clone(),
                format!("link `{}` has a joint id too large", link.name),
            ));
        }
    }
    let parents: Vec<Option<usize>> = links.iter().map(|l| l.parent).collect();
    let order = depth_first(&parents, root).map_err(|fault| {
        let l = match fault {
            Fault::Cycle(cycle) => cycle.iter().copied().min().unwrap_or(0),
            Fault::SecondRoot(l) => l,
        };
        Diagnostic::error(
            links[l].location.clone(),
            format!("link `{}` is not connected to the root", links[l].name),
        )
    })?;
    let source: Arc<str> = Arc::from("");
    let links = reorder(links.into_iter().map(Some).collect(), &parents, &order);
    let table = joint_table(&links);
    if let Some(&(id, first, dup)) = table.duplicates.first() {
        return Err(Diagnostic::error(
            links[dup].location.clone(),
            format!(
                "joint id {id} is given to both `{}` and `{}`",
                links[first].name, links[dup].name
            ),
        ));
    }
    Ok(Body {
        name,
        source,
        links,
        joints_by_id: table.by_id,
        notes: Vec::new(),
        extra_joints: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{JointKind, Link};

    fn at() -> Location {
        Location::file("code")
    }

    #[test]
    fn depth_first_children_in_input_order() {
        // 0 ← 2 ← 1, 0 ← 3: order 0, 2, 1, 3.
        let parents = [None, Some(2), Some(0), Some(0)];
        assert!(matches!(depth_first(&parents, 0), Ok(order) if order == [0, 2, 1, 3]));
        let cyclic = [None, Some(2), Some(1)];
        assert!(matches!(depth_first(&cyclic, 0), Err(Fault::Cycle(c)) if c == [1, 2]));
    }

    #[test]
    fn code_body_is_reordered_and_indexed() {
        let mut hand = Link::new("hand", Some(2), at());
        hand.joint = crate::Joint::new(JointKind::Revolute, "wrist");
        hand.joint.id = Some(1);
        let mut arm = Link::new("arm", Some(0), at());
        arm.joint = crate::Joint::new(JointKind::Revolute, "shoulder");
        arm.joint.id = Some(0);
        let links = vec![Link::new("base", None, at()), hand, arm];
        let body = Body::from_links("robot", links).expect("valid");
        let names: Vec<_> = body.links.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["base", "arm", "hand"]);
        assert_eq!(body.links[2].parent, Some(1));
        assert_eq!(body.links[0].children, [1]);
        assert_eq!(body.joints_by_id, [Some(1), Some(2)]);
        let two_roots = vec![Link::new("a", None, at()), Link::new("b", None, at())];
        assert!(Body::from_links("x", two_roots).is_err());
    }
}
