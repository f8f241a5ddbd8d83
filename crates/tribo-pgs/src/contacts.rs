//! Contact rows: for every culled contact point, its frame, friction coefficient, the Jacobian
//! rows of the two links and the normal velocity target (stabilisation, restitution, compliance).
//!
//! **Frame and Jacobian.** Contact c has the unit normal n (from link a to link b) and tangents
//! t₁, t₂ (t₁ ⊥ n chosen from the world axis least aligned with n, t₂ = n × t₁). Its velocity is
//! the velocity of b's material point relative to a's, in that frame:
//! `v_c = R (J_b v_b − J_a v_a)`, R = [nᵀ; t₁ᵀ; t₂ᵀ], J_x the 3 × nv point Jacobian of the link at
//! the contact point (tribo-multibody `point_jacobian`). A link of a kinematic (moving fixed-root)
//! body adds its prescribed point velocity `v + ω × (p − o)` as a moving boundary.
//!
//! **Normal target** (the normal row asks `v_n⁺ ≥ target`, i.e. `w = v_n⁺ − target ≥ 0`, h = dt):
//! - rigid contact, penetrating (depth d ≥ 0): Baumgarte stabilisation
//!   `target = β · max(d − slop, 0) / h` (β = `erp`, default 0.2; slop default 0.1 mm). It acts on
//!   the normal only, so it cannot make a sticking contact creep. A gap below 1 nm counts as
//!   touching (target 0): faces resting exactly on each other show gaps and depths of rounding size
//!   (1e-12 m), and `−g / h` from those would ask a face's corners for normal velocities no rigid
//!   motion gives, which the solver then chases for its whole sweep cap (`tests/resting_column.rs`);
//! - rigid contact, separated by a gap g = −d ≤ margin (speculative contact): `target = −g / h`,
//!   the surfaces may close the gap during the step but not cross;
//! - restitution (Newton's law): when e > 0 and the approach speed before the step `v_a = −v_n⁻`
//!   exceeds `max(2 |g| h, restitution_threshold)` (|g| the gravity's magnitude; Choreonoid's AIST
//!   threshold) and the contact closes within the step at that speed (`v_a h > gap`, or touching),
//!   `target = max(target, e · v_a)`;
//! - a speculative rigid contact with e > 0 that gets no restitution target this way and that its
//!   free motion does not shut (free normal velocity `≥ −g / h`) may still be struck within the
//!   step by another contact's impulse (a ball struck towards a neighbour less than `v h` away).
//!   It carries a [`Strike`] so the solve can resolve that impact after the one that causes it,
//!   with Newton's law on the approach speed it is struck with (impacts.rs).
//! - compliant contact (either material has `stiffness` k > 0 or `damping` c > 0): the pair's
//!   spring-damper is shared by its n points (k/n, c/n each, so a box resting on a face sinks
//!   m g / k whatever the point count) and solved implicitly: with the force
//!   `f = k (d − h v_n⁺) − c v_n⁺ ≥ 0` and λ = h f,
//!   `v_n⁺ + λ / (h (k h + c)) − k d / (k h + c) = 0` while λ > 0. That is a soft constraint with
//!   `cfm = 1 / (h (k h + c))` added to the Delassus diagonal and `target = k d / (k h + c)`
//!   (ERP `h k / (h k + c)` on the depth). Materials in series: `k = k_a k_b / (k_a + k_b)`
//!   when both are positive, else the positive one (likewise c). No Baumgarte term, no Newton
//!   restitution (damping dissipates).
//!
//! **Friction**: μ = dynamic friction when the tangential slip speed before the step exceeds the
//! slip threshold (1e-4 m/s, AIST), else static friction.
//!
//! **Load sharing**: when a link pair has two or more resting rigid points (rigid rows without a
//! restitution target), they are marked `shares_load` for the solver's load-sharing sweeps
//! (solve.rs); a lone point has no load to share within its pair.

use nalgebra::{DMatrix, Isometry3, Matrix3, Matrix3xX, Vector3};
use tribo_engine::{LinkRef, Scene};
use tribo_lcp::ContactFriction;
use tribo_multibody::{point_jacobian_into, Kinematics, VelocityStep};

use crate::build::BodyModel;
use crate::collision::{PairPoints, RawPoint};
use crate::culling::{cull_into, CullScratch, Culling};
use crate::error::PointError;
use crate::impacts::Strike;
use crate::options::PgsOptions;
use tribo_engine::CompliantPoint;

/// One side of a contact: a dynamic body's Jacobian rows (3 × nv, contact frame).
#[derive(Debug, Clone)]
pub(crate) struct Side {
    pub body: usize,
    pub rows: Matrix3xX<f64>,
}

/// One contact point ready for the solver.
///
/// Laid out in this order (`repr(C)`) for the passes over all rows after the build, some ten: the
/// side Jacobians first (the assembly's per-body lists and factored sides, the islands, the
/// degenerate screen read nothing else), then the link pair and warm-start point, then what the
/// assembly's one pass takes into the problem; the point and the contact frame last (the warm
/// start's two passes read the frame too, and the contact records; moved forward beside the
/// warm-start point it measured no change, BENCHMARKS.md). At a thousand bodies the rows (4000 of
/// some 400 bytes) do not stay in the cache from one pass to the next, so each pass reads the
/// lines its fields lie on, fewer when they lie together.
#[derive(Debug, Clone)]
#[repr(C)]
pub(crate) struct ContactRow {
    /// Jacobian rows of a (entering with a minus sign) and b; `None` for a body without dofs.
    pub side_a: Option<Side>,
    pub side_b: Option<Side>,
    pub a: LinkRef,
    pub b: LinkRef,
    /// The point in link a's carrier frame (to match warm starts).
    pub local_a: Vector3<f64>,
    /// Index into the step's compliant points, for rows built from them.
    pub compliant: Option<usize>,
    /// Compliance on the normal and tangent rows (1/kg), 0 for rigid contact.
    pub cfm: Vector3<f64>,
    /// b of the LCP: free contact velocity minus the normal target, m/s.
    pub bias: Vector3<f64>,
    pub friction: ContactFriction,
    /// The target velocity in `bias` (normal, t₁, t₂; the tangents' are zero but for compliant
    /// points), m/s.
    pub target: Vector3<f64>,
    /// The target once this contact's impact is resolved: `target` without restitution
    /// (impacts.rs), m/s.
    pub settled_target: Vector3<f64>,
    /// A speculative rigid contact that another impulse of the step may strike (module docs).
    pub strike: Option<Strike>,
    /// One of two or more resting rigid points (no restitution target) of its link pair: its
    /// normal takes part in the load-sharing sweeps (solve.rs).
    pub shares_load: bool,
    pub point: Vector3<f64>,
    pub normal: Vector3<f64>,
    pub t1: Vector3<f64>,
    pub t2: Vector3<f64>,
    pub depth: f64,
}

/// The normal target of a rigid contact (module docs).
struct RigidTarget {
    target: f64,
    /// `target` without restitution.
    settled: f64,
    /// Newton's restitution set `target`.
    impact: bool,
    strike: Option<Strike>,
}

/// What the contact build reads about one body this step.
pub(crate) struct BodyView<'a, 't> {
    pub model: &'a BodyModel,
    pub kinematics: &'a Kinematics<'t>,
    /// The unconstrained velocity update (dynamic bodies only).
    pub velocity_step: Option<&'a VelocityStep>,
    /// Prescribed root twist (linear velocity of the root origin, angular velocity), world.
    pub root_twist: Option<(Vector3<f64>, Vector3<f64>)>,
}

impl BodyView<'_, '_> {
    fn carrier_pose(&self, link: usize) -> Isometry3<f64> {
        let carrier = self.model.carrier.get(link).copied().unwrap_or(0);
        self.kinematics
            .poses()
            .get(carrier)
            .copied()
            .unwrap_or_else(Isometry3::identity)
    }

    /// World velocity of the material point at `p` of `link`: (before the step, free), the free
    /// one `J_p v_free` from the point's world Jacobian `jacobian` (dynamic bodies; zero for others).
    fn point_velocities(
        &self,
        link: usize,
        p: &Vector3<f64>,
        jacobian: Option<&DMatrix<f64>>,
    ) -> (Vector3<f64>, Vector3<f64>) {
        let boundary = match self.root_twist {
            Some((v, w)) => {
                let origin = self
                    .kinematics
                    .poses()
                    .first()
                    .map(|x| x.translation.vector)
                    .unwrap_or_default();
                v + w.cross(&(p - origin))
            }
            None => Vector3::zeros(),
        };
        let carrier = self.model.carrier.get(link).copied().unwrap_or(0);
        let before = self.kinematics.point_velocity(carrier, p).unwrap_or_default();
        let free = match (self.velocity_step, jacobian) {
            // A free body's six columns as a fixed-size product: the same column-by-column sum
            // as the general one's, laid out by the compiler.
            (Some(step), Some(j)) if j.ncols() == 6 && step.v_free.len() == 6 => {
                j.fixed_view::<3, 6>(0, 0) * step.v_free.fixed_rows::<6>(0)
            }
            (Some(step), Some(j)) if j.ncols() == step.v_free.len() => {
                let mut v = Vector3::zeros();
                j.mul_to(&step.v_free, &mut v);
                v
            }
            _ => Vector3::zeros(),
        };
        (before + boundary, free + boundary)
    }

    /// The world point Jacobian (3 × nv) of `link` at `p`, for a dynamic body (tribo-multibody
    /// `point_jacobian`); the contact's rows and its free velocity both come from it.
    /// Written into `out` (its storage reused); `None` for a body without a velocity step.
    fn jacobian<'o>(&self, link: usize, p: &Vector3<f64>, out: &'o mut DMatrix<f64>) -> Option<&'o DMatrix<f64>> {
        self.velocity_step?;
        let carrier = self.model.carrier.get(link).copied()?;
        point_jacobian_into(self.kinematics, carrier, p, out).ok()?;
        Some(out)
    }
}

/// Step-wide numbers of the contact build.
pub(crate) struct BuildContext<'a> {
    pub scene: &'a Scene,
    pub options: &'a PgsOptions,
    pub dt: f64,
}

/// Culls each link pair's points and appends the solver rows to `rows`, pair by pair in link-pair
/// order.
pub(crate) fn build_rows(
    ctx: &BuildContext,
    bodies: &[BodyView],
    pairs: &PairPoints,
    rows: &mut Vec<ContactRow>,
    buffers: &mut RowBuffers,
) {
    for (&(a, b), points) in pairs {
        let params = ctx.scene.contact_params(a, b);
        let o = ctx.options;
        let culling = Culling {
            distance: params
                .extra_f64("cullingDistance")
                .ok()
                .flatten()
                .unwrap_or(o.culling_distance),
            depth: params
                .extra_f64("cullingDepth")
                .ok()
                .flatten()
                .unwrap_or(o.culling_depth),
            max_points: params
                .extra_usize("max_num_contact_points")
                .ok()
                .flatten()
                .unwrap_or(o.max_num_contact_points),
        };
        // The kept points' list is taken out of `buffers` while the rows borrow them, and put back.
        let mut kept = std::mem::take(&mut buffers.kept);
        cull_into(points, &culling, &mut buffers.cull, &mut kept);
        let (stiffness, damping) = pair_compliance(ctx.scene, a, b);
        let share = 1.0 / kept.len().max(1) as f64;
        let first = rows.len();
        for raw in kept.drain(..) {
            let (Some(view_a), Some(view_b)) = (bodies.get(a.body), bodies.get(b.body)) else {
                continue;
            };
            let PointRows {
                t1,
                t2,
                before,
                free,
                side_a,
                side_b,
            } = point_rows((a, view_a), (b, view_b), &raw.point, &raw.normal, buffers);
            // √(y² + z²), not `hypot`: a velocity in m/s, far from where the squares could
            // overflow or underflow (as in tribo-lcp `project_onto_disc`); `hypot` was 1.6 % of a
            // 500-box pile's step.
            let slip = (before.y * before.y + before.z * before.z).sqrt();
            let mu = if slip > o.slip_threshold {
                params.dynamic_friction
            } else {
                params.static_friction
            };
            let (target, cfm, resting) = if stiffness > 0.0 || damping > 0.0 {
                let (target, cfm) = compliant_target(&raw, stiffness * share, damping * share, ctx.dt);
                let rigid = RigidTarget {
                    target,
                    settled: target,
                    impact: false,
                    strike: None,
                };
                (rigid, cfm, false)
            } else {
                let rigid = rigid_target(ctx, &raw, params.restitution, -before.x, free.x);
                let resting = !rigid.impact;
                (rigid, 0.0, resting)
            };
            rows.push(ContactRow {
                a,
                b,
                point: raw.point,
                normal: raw.normal,
                t1,
                t2,
                depth: raw.depth,
                friction: ContactFriction::new(mu, o.friction_cone),
                side_a,
                side_b,
                bias: free - Vector3::new(target.target, 0.0, 0.0),
                target: Vector3::new(target.target, 0.0, 0.0),
                settled_target: Vector3::new(target.settled, 0.0, 0.0),
                strike: target.strike,
                cfm: Vector3::new(cfm, 0.0, 0.0),
                compliant: None,
                shares_load: resting,
                local_a: view_a
                    .carrier_pose(a.link)
                    .inverse_transform_point(&raw.point.into())
                    .coords,
            });
        }
        buffers.kept = kept;
        // A pair's load is shared only among two or more resting points.
        let pair_rows = &mut rows[first..];
        if pair_rows.iter().filter(|r| r.shares_load).count() < 2 {
            pair_rows.iter_mut().for_each(|r| r.shares_load = false);
        }
    }
}

/// Appends the rows of the extension's compliant points (`compliant.rs`) to `rows`, after the
/// collision rows.
pub(crate) fn compliant_rows(
    ctx: &BuildContext,
    bodies: &[BodyView],
    points: &[CompliantPoint],
    rows: &mut Vec<ContactRow>,
    buffers: &mut RowBuffers,
) -> Result<(), PointError> {
    rows.reserve(points.len());
    for (index, point) in points.iter().enumerate() {
        let (a, b) = (point.a, point.b);
        let (Some(view_a), Some(view_b)) = (bodies.get(a.body), bodies.get(b.body)) else {
            return Err(PointError::MissingBody { a, b });
        };
        let normal = point.normal.try_normalize(1e-12).ok_or(PointError::NoNormal { a, b })?;
        let PointRows {
            t1,
            t2,
            free,
            side_a,
            side_b,
            ..
        } = point_rows((a, view_a), (b, view_b), &point.point, &normal, buffers);
        let (target, cfm) = crate::compliant::targets(point, [&normal, &t1, &t2], ctx.dt)?;
        rows.push(ContactRow {
            a,
            b,
            point: point.point,
            normal,
            t1,
            t2,
            depth: 0.0,
            friction: ContactFriction::new(point.friction, ctx.options.friction_cone),
            side_a,
            side_b,
            bias: free - target,
            target,
            settled_target: target,
            strike: None,
            cfm,
            compliant: Some(index),
            shares_load: false,
            local_a: view_a
                .carrier_pose(a.link)
                .inverse_transform_point(&point.point.into())
                .coords,
        });
    }
    Ok(())
}

/// Gaps below this (m) are contact: targets from rounding-level gaps would ask the corners of a
/// resting face for normal velocities no rigid motion gives.
const TOUCHING_GAP: f64 = 1e-9;

/// Normal target of a rigid contact (module docs): with restitution when the approach before the
/// step earns it, else a [`Strike`] for a speculative contact with e > 0 that its free normal
/// velocity `free` (m/s) does not shut.
fn rigid_target(ctx: &BuildContext, raw: &RawPoint, restitution: f64, approach: f64, free: f64) -> RigidTarget {
    let (o, h) = (ctx.options, ctx.dt);
    let settled = if raw.depth >= -TOUCHING_GAP {
        o.erp * (raw.depth - o.contact_slop).max(0.0) / h
    } else {
        raw.depth / h
    };
    let threshold = (2.0 * ctx.scene.gravity.norm() * h).max(o.restitution_threshold);
    let closes = raw.depth >= 0.0 || approach * h > -raw.depth;
    let impact = restitution > 0.0 && approach > threshold && closes;
    // Shut by its own free motion (gravity, actuation), the contact is not struck by another: it
    // stays the speculative contact above, whose next step restitution reads (impacts.rs).
    let struck_only = raw.depth < 0.0 && free >= settled;
    let strike = (restitution > 0.0 && struck_only && !impact).then_some(Strike { restitution, threshold });
    RigidTarget {
        target: if impact {
            settled.max(restitution * approach)
        } else {
            settled
        },
        settled,
        impact,
        strike,
    }
}

/// Normal target and compliance of a spring-damper contact (module docs).
fn compliant_target(raw: &RawPoint, k: f64, c: f64, h: f64) -> (f64, f64) {
    let denominator = k * h + c;
    (k * raw.depth / denominator, 1.0 / (h * denominator))
}

/// Series combination of the two materials' stiffness and damping (module docs).
fn pair_compliance(scene: &Scene, a: LinkRef, b: LinkRef) -> (f64, f64) {
    let (ma, mb) = (
        scene.contacts.material(scene.material_of(a)),
        scene.contacts.material(scene.material_of(b)),
    );
    let series = |x: f64, y: f64| match (x > 0.0, y > 0.0) {
        (true, true) => x * y / (x + y),
        (true, false) => x,
        (false, true) => y,
        (false, false) => 0.0,
    };
    (series(ma.stiffness, mb.stiffness), series(ma.damping, mb.damping))
}

/// t₁ ⊥ n from the world axis least aligned with n, t₂ = n × t₁.
pub(crate) fn tangents(n: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    let axis = if n.x.abs() <= n.y.abs() && n.x.abs() <= n.z.abs() {
        Vector3::x()
    } else if n.y.abs() <= n.z.abs() {
        Vector3::y()
    } else {
        Vector3::z()
    };
    let t1 = n.cross(&axis).normalize();
    (t1, n.cross(&t1))
}

/// A contact point's frame and rows: tangents t₁, t₂ of the normal n, the relative velocity of
/// link b's material point against link a's in the frame (n, t₁, t₂) at the start of the step
/// (`before`) and under the step's free motion (`free`), and each side's rows `frame · J`.
struct PointRows {
    t1: Vector3<f64>,
    t2: Vector3<f64>,
    before: Vector3<f64>,
    free: Vector3<f64>,
    side_a: Option<Side>,
    side_b: Option<Side>,
}

fn point_rows(
    (a, view_a): (LinkRef, &BodyView),
    (b, view_b): (LinkRef, &BodyView),
    point: &Vector3<f64>,
    normal: &Vector3<f64>,
    buffers: &mut RowBuffers,
) -> PointRows {
    let (t1, t2) = tangents(normal);
    let frame = Matrix3::from_rows(&[normal.transpose(), t1.transpose(), t2.transpose()]);
    let RowBuffers {
        jacobian_a,
        jacobian_b,
        spare,
        ..
    } = buffers;
    let jacobian_a = view_a.jacobian(a.link, point, jacobian_a);
    let jacobian_b = view_b.jacobian(b.link, point, jacobian_b);
    let (before_a, free_a) = view_a.point_velocities(a.link, point, jacobian_a);
    let (before_b, free_b) = view_b.point_velocities(b.link, point, jacobian_b);
    PointRows {
        t1,
        t2,
        before: frame * (before_b - before_a),
        free: frame * (free_b - free_a),
        side_a: side(a, &frame, jacobian_a, spare),
        side_b: side(b, &frame, jacobian_b, spare),
    }
}

/// The contact-frame Jacobian rows of a link of a dynamic body, from its world point Jacobian,
/// in a spare matrix of last step's rows when one of the right size is at hand.
fn side(link: LinkRef, frame: &Matrix3<f64>, jacobian: Option<&DMatrix<f64>>, spare: &mut SpareRows) -> Option<Side> {
    let jacobian = jacobian?;
    let mut rows = spare
        .take(jacobian.ncols())
        .unwrap_or_else(|| Matrix3xX::zeros(jacobian.ncols()));
    // The product `frame * jacobian` column by column (the fixed-size product of each column is the
    // dynamic gemm's: the same sum, in the same order), written in place. Both are column-major
    // with three rows.
    for (out, column) in rows
        .as_mut_slice()
        .chunks_exact_mut(3)
        .zip(jacobian.as_slice().chunks_exact(3))
    {
        let product = frame * Vector3::new(column[0], column[1], column[2]);
        out.copy_from_slice(product.as_slice());
    }
    Some(Side { body: link.body, rows })
}

/// Jacobian rows of contacts no longer needed, by column count (a scene's bodies have different
/// velocity counts): a contact's side takes a spare of its body's size, so spares of other sizes
/// are kept for their own bodies rather than dropped and allocated anew.
#[derive(Default)]
pub(crate) struct SpareRows {
    /// `(columns, spares)`, one entry per column count seen (a scene has a few).
    by_columns: Vec<(usize, Vec<Matrix3xX<f64>>)>,
}

impl SpareRows {
    fn put(&mut self, rows: Matrix3xX<f64>) {
        let ncols = rows.ncols();
        match self.by_columns.iter_mut().find(|(n, _)| *n == ncols) {
            Some((_, spares)) => spares.push(rows),
            None => self.by_columns.push((ncols, vec![rows])),
        }
    }

    fn take(&mut self, ncols: usize) -> Option<Matrix3xX<f64>> {
        self.by_columns
            .iter_mut()
            .find(|(n, _)| *n == ncols)
            .and_then(|(_, spares)| spares.pop())
    }
}

/// Storage the contact build reuses from step to step: the two point Jacobians of the contact
/// being built and the Jacobian rows of last step's contacts.
#[derive(Default)]
pub(crate) struct RowBuffers {
    jacobian_a: DMatrix<f64>,
    jacobian_b: DMatrix<f64>,
    /// Rows of contacts no longer needed, for [`side`] to fill again.
    spare: SpareRows,
    /// The points culling keeps of the pair being built, and culling's working storage.
    kept: Vec<RawPoint>,
    cull: CullScratch,
}

impl RowBuffers {
    /// Empties `rows`, keeping their Jacobian rows' storage for the next build.
    pub fn recycle(&mut self, rows: &mut Vec<ContactRow>) {
        for row in rows.drain(..) {
            for side in [row.side_a, row.side_b].into_iter().flatten() {
                self.spare.put(side.rows);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_rows_are_the_frame_times_the_jacobian() {
        // Against nalgebra's dynamic product, bit-equal (tolerance 0: the same sums in the same
        // order), with a spare of the wrong size, then one of the right size.
        let normal = Vector3::new(0.2, -0.3, 0.9).normalize();
        let (t1, t2) = tangents(&normal);
        let frame = Matrix3::from_rows(&[normal.transpose(), t1.transpose(), t2.transpose()]);
        let mut spare = SpareRows::default();
        spare.put(Matrix3xX::zeros(4));
        for nv in [6, 13, 13] {
            let jacobian = DMatrix::from_fn(3, nv, |r, c| ((3 * c + r) as f64 * 0.77).sin() * 1.3);
            let link = LinkRef { body: 2, link: 1 };
            let side = side(link, &frame, Some(&jacobian), &mut spare).expect("a dynamic side");
            assert_eq!(side.body, 2);
            assert_eq!(side.rows, frame * &jacobian, "{nv} columns");
            spare.put(side.rows);
        }
        // The spare of the wrong size is kept for a side of its size.
        assert_eq!(spare.take(4).map(|m| m.ncols()), Some(4));
        assert!(side(LinkRef { body: 0, link: 0 }, &frame, None, &mut spare).is_none());
    }
}
