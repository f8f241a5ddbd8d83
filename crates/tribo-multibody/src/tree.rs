//! The kinematic tree: bodies in topological order (parent before child) and the coordinate
//! layout. RBDA ch. 4 (connectivity λ(i) < i, §4.1; geometry, §4.2).

use crate::body::Body;
use crate::error::Error;
use crate::factor::DofChains;
use crate::validate::{validate_body, validate_placement};
use nalgebra::Isometry3;
use std::ops::Range;
use std::sync::Arc;

/// A validated kinematic tree with its coordinate layout.
///
/// Coordinates are laid out body by body in list order: body `i` owns `q[q_range(i)]` and
/// `v[v_range(i)]`. Degrees of freedom form their own tree ([`Tree::dof_parent`]): the parent of
/// a joint's first dof is the last dof of the nearest ancestor joint that has one, and each further
/// dof of a multi-dof joint hangs on the previous one (RBDA §6.3: this is the sparsity pattern of
/// the mass matrix).
#[derive(Clone, Debug)]
pub struct Tree {
    bodies: Vec<Body>,
    q_offsets: Vec<usize>,
    v_offsets: Vec<usize>,
    nq: usize,
    nv: usize,
    dof_parent: Vec<Option<usize>>,
    dof_chains: Arc<DofChains>,
    dof_body: Vec<usize>,
}

/// The placement a root had before [`Tree::set_root_placement`] moved it. Only a tree hands
/// these out, so [`Tree::restore_root_placement`] can put it back without validating it again (and
/// so bit for bit: renormalising an already unit rotation may change its last bits).
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use = "dropping the previous placement makes the move impossible to undo"]
pub struct RootPlacement(Isometry3<f64>);

impl Tree {
    /// Validates `bodies` and lays out the coordinates. Axes are normalised, inertias symmetrised,
    /// infinite limits on both sides are dropped (unlimited).
    pub fn new(bodies: Vec<Body>) -> Result<Tree, Error> {
        let mut validated = Vec::with_capacity(bodies.len());
        for (index, body) in bodies.into_iter().enumerate() {
            validated.push(validate_body(index, body, &validated)?);
        }
        let mut q_offsets = Vec::with_capacity(validated.len());
        let mut v_offsets = Vec::with_capacity(validated.len());
        let mut dof_parent = Vec::new();
        let mut dof_body = Vec::new();
        let mut last_dof: Vec<Option<usize>> = Vec::with_capacity(validated.len());
        let (mut nq, mut nv) = (0, 0);
        for (index, body) in validated.iter().enumerate() {
            q_offsets.push(nq);
            v_offsets.push(nv);
            let inherited = body.parent.and_then(|p| last_dof.get(p).copied().flatten());
            let mut previous = inherited;
            for dof in nv..nv + body.joint.nv() {
                dof_parent.push(previous);
                dof_body.push(index);
                previous = Some(dof);
            }
            last_dof.push(previous);
            nq += body.joint.nq();
            nv += body.joint.nv();
        }
        let dof_chains = Arc::new(DofChains::new(&dof_parent));
        Ok(Tree {
            bodies: validated,
            q_offsets,
            v_offsets,
            nq,
            nv,
            dof_parent,
            dof_chains,
            dof_body,
        })
    }

    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }

    /// Moves the root body (body 0) to `placement` in place, validated as [`Tree::new`] validates
    /// it (finite, rotation renormalised), and returns the previous placement.
    ///
    /// This is what a kinematic root needs every step: the layout, dof tree and factorisation
    /// pattern do not depend on any placement, so the tree equals one rebuilt with the new root
    /// placement, without the rebuild's validation and allocations. On an error the tree is
    /// unchanged.
    pub fn set_root_placement(&mut self, placement: &Isometry3<f64>) -> Result<RootPlacement, Error> {
        let count = self.bodies.len();
        let root = self
            .bodies
            .first_mut()
            .ok_or(Error::BodyOutOfRange { index: 0, count })?;
        let validated = validate_placement(placement).map_err(|(field, expected, found)| Error::InvalidBodyValue {
            body: 0,
            name: root.name.clone(),
            field,
            expected,
            found,
        })?;
        Ok(RootPlacement(std::mem::replace(&mut root.placement, validated)))
    }

    /// Undoes [`Tree::set_root_placement`]: the root gets back the placement it had before, bit for
    /// bit (for a caller whose step fails after it moved the root).
    pub fn restore_root_placement(&mut self, previous: RootPlacement) {
        if let Some(root) = self.bodies.first_mut() {
            root.placement = previous.0;
        }
    }

    /// Number of bodies.
    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }

    pub fn body(&self, index: usize) -> Result<&Body, Error> {
        self.bodies.get(index).ok_or(Error::BodyOutOfRange {
            index,
            count: self.bodies.len(),
        })
    }

    /// Total number of position coordinates.
    pub fn nq(&self) -> usize {
        self.nq
    }

    /// Total number of velocity coordinates (degrees of freedom).
    pub fn nv(&self) -> usize {
        self.nv
    }

    /// The slice of `q` owned by body `index`'s joint (empty when out of range).
    pub fn q_range(&self, index: usize) -> Range<usize> {
        match (self.q_offsets.get(index), self.bodies.get(index)) {
            (Some(&start), Some(body)) => start..start + body.joint.nq(),
            _ => 0..0,
        }
    }

    /// The slice of `v` owned by body `index`'s joint (empty when out of range).
    pub fn v_range(&self, index: usize) -> Range<usize> {
        match (self.v_offsets.get(index), self.bodies.get(index)) {
            (Some(&start), Some(body)) => start..start + body.joint.nv(),
            _ => 0..0,
        }
    }

    /// λ(k): the parent of each degree of freedom (`None` for a dof on a joint to the world with no
    /// earlier dof in its joint). Always `λ(k) < k`.
    pub fn dof_parent(&self) -> &[Option<usize>] {
        &self.dof_parent
    }

    /// The strict ancestors of every dof (shared with factorisations of this tree's matrices).
    pub(crate) fn dof_chains(&self) -> &Arc<DofChains> {
        &self.dof_chains
    }

    /// The body whose joint owns each degree of freedom.
    pub fn dof_body(&self) -> &[usize] {
        &self.dof_body
    }

    /// The name of the body owning dof `dof` (for messages).
    pub(crate) fn dof_body_name(&self, dof: usize) -> String {
        self.dof_body
            .get(dof)
            .and_then(|&b| self.bodies.get(b))
            .map(|b| b.name.clone())
            .unwrap_or_default()
    }

    /// The name of body `index` (for messages).
    pub(crate) fn body_name(&self, index: usize) -> String {
        self.bodies.get(index).map(|b| b.name.clone()).unwrap_or_default()
    }

    /// The degrees of freedom that move body `index`: its own and all its ancestors', ascending.
    /// These are the only non-zero columns of its Jacobians.
    pub fn supporting_dofs(&self, index: usize) -> Result<Vec<usize>, Error> {
        self.body(index)?;
        let mut dofs = Vec::new();
        let mut current = Some(index);
        while let Some(b) = current {
            dofs.extend(self.v_range(b).rev());
            current = self.bodies.get(b).and_then(|body| body.parent);
        }
        dofs.reverse();
        Ok(dofs)
    }

    /// Whether `ancestor` is `body` or one of its ancestors.
    pub fn is_ancestor_or_self(&self, ancestor: usize, body: usize) -> bool {
        let mut current = Some(body);
        while let Some(b) = current {
            if b == ancestor {
                return true;
            }
            current = self.bodies.get(b).and_then(|body| body.parent);
        }
        false
    }

    /// The index of the body called `name`; the error names the closest known body.
    pub fn body_index(&self, name: &str) -> Result<usize, Error> {
        if let Some(index) = self.bodies.iter().position(|b| b.name == name) {
            return Ok(index);
        }
        let closest = self
            .bodies
            .iter()
            .map(|b| (edit_distance(name, &b.name), &b.name))
            .filter(|(d, candidate)| *d <= (candidate.chars().count().max(name.chars().count()) / 2).max(1))
            .min_by_key(|(d, _)| *d)
            .map(|(_, n)| n.clone());
        Err(Error::UnknownBody {
            name: name.to_string(),
            closest,
        })
    }

    /// Armature per degree of freedom (kg·m² or kg; zero on free joints).
    pub fn dof_armature(&self) -> nalgebra::DVector<f64> {
        self.per_dof(|b| b.armature)
    }

    /// Damping per degree of freedom (N·m·s/rad or N·s/m; zero on free joints).
    pub fn dof_damping(&self) -> nalgebra::DVector<f64> {
        self.per_dof(|b| b.damping)
    }

    /// Effort limit per degree of freedom (`None` when unlimited).
    pub fn dof_effort_limits(&self) -> Vec<Option<f64>> {
        self.dof_body
            .iter()
            .map(|&b| self.bodies.get(b).and_then(|body| body.effort_limit))
            .collect()
    }

    /// Effort limit of degree of freedom `dof` (`None` when unlimited or out of range).
    pub(crate) fn dof_effort_limit(&self, dof: usize) -> Option<f64> {
        self.dof_body
            .get(dof)
            .and_then(|&b| self.bodies.get(b))
            .and_then(|body| body.effort_limit)
    }

    /// Armature of degree of freedom `dof` (as in [`Self::dof_armature`], without the vector; 0
    /// out of range).
    pub(crate) fn dof_armature_of(&self, dof: usize) -> f64 {
        self.dof_body
            .get(dof)
            .and_then(|&b| self.bodies.get(b))
            .map_or(0.0, |body| body.armature)
    }

    /// Damping of degree of freedom `dof` (as in [`Self::dof_damping`]; 0 out of range).
    pub(crate) fn dof_damping_of(&self, dof: usize) -> f64 {
        self.dof_body
            .get(dof)
            .and_then(|&b| self.bodies.get(b))
            .map_or(0.0, |body| body.damping)
    }

    fn per_dof(&self, value: impl Fn(&Body) -> f64) -> nalgebra::DVector<f64> {
        nalgebra::DVector::from_iterator(
            self.nv,
            self.dof_body
                .iter()
                .map(|&b| self.bodies.get(b).map(&value).unwrap_or(0.0)),
        )
    }
}

/// Levenshtein distance (for "did you mean" suggestions).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row.first().copied().unwrap_or(0);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let above = row.get(j + 1).copied().unwrap_or(usize::MAX - 1);
            let left = row.get(j).copied().unwrap_or(usize::MAX - 1);
            let cost = usize::from(ca != *cb);
            let value = (diagonal + cost).min(above + 1).min(left + 1);
            diagonal = above;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = value;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::{Body, LinkInertia};
    use crate::joint::Joint;
    use nalgebra::{Isometry3, Matrix3, Vector3};

    fn link() -> LinkInertia {
        LinkInertia::solid_box(1.0, Vector3::zeros(), Vector3::new(0.1, 0.1, 0.3))
    }

    fn revolute_z() -> Joint {
        Joint::Revolute { axis: Vector3::z() }
    }

    #[test]
    fn layout_and_dof_tree() {
        let tree = Tree::new(vec![
            Body::new("base", None, Joint::Free, Isometry3::identity(), link()),
            Body::new("a", Some(0), revolute_z(), Isometry3::identity(), link()),
            Body::new("a_tip", Some(1), Joint::Fixed, Isometry3::identity(), link()),
            Body::new(
                "b",
                Some(2),
                Joint::Prismatic {
                    axis: Vector3::new(0.0, 0.0, 2.0),
                },
                Isometry3::identity(),
                link(),
            ),
            Body::new("c", Some(0), revolute_z(), Isometry3::identity(), link()),
        ])
        .expect("valid tree");
        assert_eq!((tree.nq(), tree.nv()), (10, 9));
        assert_eq!(tree.q_range(1), 7..8);
        assert_eq!(tree.v_range(3), 7..8);
        assert_eq!(
            tree.dof_parent(),
            &[
                None,
                Some(0),
                Some(1),
                Some(2),
                Some(3),
                Some(4),
                Some(5),
                Some(6),
                Some(5)
            ]
        );
        assert_eq!(tree.supporting_dofs(3).expect("in range"), vec![0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(tree.supporting_dofs(4).expect("in range"), vec![0, 1, 2, 3, 4, 5, 8]);
        match tree.bodies()[3].joint {
            Joint::Prismatic { axis } => assert!((axis - Vector3::z()).norm() < 1e-15),
            _ => unreachable!("body 3 is prismatic"),
        }
    }

    #[test]
    fn rejects_bad_trees_with_located_errors() {
        let base = || Body::new("base", None, revolute_z(), Isometry3::identity(), link());
        let cases: Vec<(Vec<Body>, &str)> = vec![
            (
                vec![
                    base(),
                    Body::new("x", Some(1), revolute_z(), Isometry3::identity(), link()),
                ],
                "body 1 `x`: parent index 1 must refer to an earlier body",
            ),
            (
                vec![
                    base(),
                    Body::new("x", Some(0), Joint::Free, Isometry3::identity(), link()),
                ],
                "body 1 `x`: a free joint must attach its body to the world",
            ),
            (
                vec![Body::new(
                    "x",
                    None,
                    Joint::Revolute { axis: Vector3::zeros() },
                    Isometry3::identity(),
                    link(),
                )],
                "body 0 `x`: joint axis: expected a finite non-zero vector",
            ),
            (
                vec![base(), base()],
                "body 1: the name `base` is already used by body 0",
            ),
            (
                vec![Body::new(
                    "x",
                    None,
                    revolute_z(),
                    Isometry3::identity(),
                    LinkInertia::point_mass(-1.0, Vector3::zeros()),
                )],
                "body 0 `x`: mass: expected a finite mass ≥ 0 kg, found -1",
            ),
            (
                vec![Body::new(
                    "x",
                    None,
                    revolute_z(),
                    Isometry3::identity(),
                    LinkInertia::new(
                        1.0,
                        Vector3::zeros(),
                        Matrix3::from_diagonal(&Vector3::new(1.0, -1.0, 1.0)),
                    ),
                )],
                "body 0 `x`: inertia: expected a positive semi-definite matrix",
            ),
            (
                vec![base().with_position_limits(1.0, -1.0)],
                "body 0 `base`: position limits: expected lower ≤ upper",
            ),
            (
                vec![base().with_damping(-2.0)],
                "body 0 `base`: damping: expected a finite value ≥ 0, found -2",
            ),
            (
                vec![Body::new("x", None, Joint::Free, Isometry3::identity(), link()).with_armature(0.1)],
                "body 0 `x`: armature: expected 0 on a free or fixed joint",
            ),
            (
                vec![base().with_effort_limit(f64::NAN)],
                "body 0 `base`: effort limit: expected a value ≥ 0",
            ),
        ];
        for (bodies, message) in cases {
            let error = Tree::new(bodies).expect_err(message).to_string();
            assert!(error.starts_with(message), "`{error}` should start with `{message}`");
        }
    }

    #[test]
    fn unknown_names_suggest_the_closest() {
        let tree = Tree::new(vec![
            Body::new("RARM_ELBOW", None, revolute_z(), Isometry3::identity(), link()),
            Body::new("LARM_ELBOW", Some(0), revolute_z(), Isometry3::identity(), link()),
        ])
        .expect("valid tree");
        assert_eq!(tree.body_index("LARM_ELBOW"), Ok(1));
        let error = tree.body_index("RARM_ELBOWW").expect_err("unknown").to_string();
        assert_eq!(error, "unknown body `RARM_ELBOWW`; did you mean `RARM_ELBOW`?");
        let error = tree.body_index("pelvis").expect_err("unknown").to_string();
        assert_eq!(error, "unknown body `pelvis`");
    }

    /// A two-body chain on a fixed root placed at `root`.
    fn fixed_chain(root: Isometry3<f64>) -> Vec<Body> {
        vec![
            Body::new("root", None, Joint::Fixed, root, link()),
            Body::new(
                "arm",
                Some(0),
                revolute_z(),
                Isometry3::new(Vector3::new(0.0, 0.1, 0.2), Vector3::new(0.3, 0.0, 0.0)),
                link(),
            ),
        ]
    }

    #[test]
    fn moving_the_root_in_place_equals_rebuilding() {
        use crate::kinematics::Kinematics;
        use crate::state::State;
        let start = Isometry3::new(Vector3::new(0.1, 0.2, 0.3), Vector3::new(0.0, 0.4, 0.0));
        // A target whose rotation is not quite unit, as integrated commands may give.
        let mut target = Isometry3::new(Vector3::new(-0.3, 0.05, 0.7), Vector3::new(0.2, -0.1, 0.5));
        target.rotation = nalgebra::Unit::new_unchecked(target.rotation.into_inner() * (1.0 + 1e-9));
        let mut moved = Tree::new(fixed_chain(start)).expect("valid tree");
        let before = moved.bodies()[0].placement;
        let previous = moved.set_root_placement(&target).expect("finite target");
        let rebuilt = Tree::new(fixed_chain(target)).expect("valid tree");
        assert_eq!(moved.bodies(), rebuilt.bodies());
        assert_eq!((moved.nq(), moved.nv()), (rebuilt.nq(), rebuilt.nv()));
        assert_eq!(moved.dof_parent(), rebuilt.dof_parent());
        let mut state = State::neutral(&moved);
        state.q[0] = 0.7;
        state.v[0] = -1.3;
        let a = Kinematics::new(&moved, &state).expect("valid state");
        let b = Kinematics::new(&rebuilt, &state).expect("valid state");
        assert_eq!(a.poses(), b.poses());
        assert_eq!(a.velocities(), b.velocities());
        moved.restore_root_placement(previous);
        assert_eq!(moved.bodies()[0].placement, before);
    }

    #[test]
    fn a_bad_root_placement_is_refused_and_leaves_the_tree_alone() {
        let mut tree = Tree::new(fixed_chain(Isometry3::identity())).expect("valid tree");
        let mut bad = Isometry3::identity();
        bad.translation.vector.x = f64::NAN;
        let error = tree.set_root_placement(&bad).expect_err("not finite").to_string();
        assert!(
            error.starts_with("body 0 `root`: placement: expected a finite pose"),
            "{error}"
        );
        assert_eq!(tree.bodies()[0].placement, Isometry3::identity());
    }

    #[test]
    fn unlimited_bounds_are_dropped() {
        let tree = Tree::new(vec![Body::new("x", None, revolute_z(), Isometry3::identity(), link())
            .with_position_limits(f64::NEG_INFINITY, f64::INFINITY)
            .with_effort_limit(f64::INFINITY)])
        .expect("valid tree");
        assert_eq!(tree.bodies()[0].position_limits, None);
        assert_eq!(tree.dof_effort_limits(), vec![None]);
    }
}
