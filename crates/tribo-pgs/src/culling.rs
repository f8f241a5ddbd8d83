//! Contact culling per link pair, after Choreonoid's AIST simulator
//! (choreonoid@25994f3eda src/Body/ConstraintForceSolver.cpp:1059-1213, contact-point candidates and their
//! reduction; `docs/design/choreonoid-formats.md` §1.6):
//!
//! 1. points deeper than `cullingDepth` are dropped;
//! 2. with `max_num_contact_points == 0`, a point closer than `cullingDistance` to an already
//!    accepted point is dropped (the old behaviour);
//! 3. with `max_num_contact_points = N > 0` (the default, 4) proximity culling is skipped: the
//!    points are clustered by normal (cos ≥ 0.966, about 15°); in each cluster the deepest point
//!    is kept, then repeatedly the point farthest from those already kept, until N are kept.
//!
//! Ties are broken by the points' order (fixed by the collision stage), so culling is
//! deterministic.

use crate::collision::RawPoint;

/// Normals closer than this cosine (≈ 15°) belong to one cluster.
pub(crate) const CLUSTER_COSINE: f64 = 0.966;

/// The culling parameters of one link pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Culling {
    /// m.
    pub distance: f64,
    /// m.
    pub depth: f64,
    pub max_points: usize,
}

/// Working storage of [`cull_into`], kept between calls so that culling allocates nothing once
/// it has seen a pair with as many points.
#[derive(Debug, Default)]
pub(crate) struct CullScratch {
    /// The points not deeper than `cullingDepth`, grouped cluster by cluster (each cluster's in
    /// their order).
    grouped: Vec<RawPoint>,
    /// The cluster of each point that passes the depth rule, in point order.
    cluster_of: Vec<usize>,
    /// Each cluster's first normal, in order of creation.
    leaders: Vec<nalgebra::Vector3<f64>>,
    /// Per point of the cluster being reduced: already kept.
    taken: Vec<bool>,
}

/// The points of one link pair kept by the rules of the module docs (a fresh list; the engine
/// uses [`cull_into`]).
#[cfg(test)]
pub(crate) fn cull(points: &[RawPoint], culling: &Culling) -> Vec<RawPoint> {
    let mut kept = Vec::new();
    cull_into(points, culling, &mut CullScratch::default(), &mut kept);
    kept
}

/// The points of one link pair kept by the rules of the module docs, into `kept` (emptied
/// first), with `scratch` as working storage.
pub(crate) fn cull_into(points: &[RawPoint], culling: &Culling, scratch: &mut CullScratch, kept: &mut Vec<RawPoint>) {
    kept.clear();
    let deep_enough = || points.iter().filter(|p| p.depth <= culling.depth);
    if culling.max_points == 0 {
        for p in deep_enough() {
            if kept.iter().all(|k| (k.point - p.point).norm() >= culling.distance) {
                kept.push(*p);
            }
        }
        return;
    }
    // Clusters by normal: each point joins the first cluster whose first normal is within 15°.
    let CullScratch {
        grouped,
        cluster_of,
        leaders,
        taken,
    } = scratch;
    leaders.clear();
    cluster_of.clear();
    for p in deep_enough() {
        let cluster = match leaders.iter().position(|f| f.dot(&p.normal) >= CLUSTER_COSINE) {
            Some(cluster) => cluster,
            None => {
                leaders.push(p.normal);
                leaders.len() - 1
            }
        };
        cluster_of.push(cluster);
    }
    grouped.clear();
    for cluster in 0..leaders.len() {
        grouped.extend(
            deep_enough()
                .zip(cluster_of.iter())
                .filter(|(_, &c)| c == cluster)
                .map(|(p, _)| *p),
        );
    }
    // `cluster_of` counted per cluster gives each cluster's run in `grouped`.
    let mut start = 0;
    for cluster in 0..leaders.len() {
        let len = cluster_of.iter().filter(|&&c| c == cluster).count();
        if let Some(members) = grouped.get(start..start + len) {
            farthest_point_selection(members, culling.max_points, taken, kept);
        }
        start += len;
    }
}

/// Appends to `kept` the deepest point of `cluster`, then repeatedly the point whose distance to
/// the nearest point kept from this cluster is the largest, until `n` points are kept (or the
/// cluster is exhausted). `taken` is working storage.
fn farthest_point_selection(cluster: &[RawPoint], n: usize, taken: &mut Vec<bool>, kept: &mut Vec<RawPoint>) {
    if cluster.len() <= n {
        kept.extend_from_slice(cluster);
        return;
    }
    taken.clear();
    taken.resize(cluster.len(), false);
    let first = kept.len();
    let deepest = (0..cluster.len()).fold(0, |best, i| {
        if cluster[i].depth > cluster[best].depth {
            i
        } else {
            best
        }
    });
    taken[deepest] = true;
    kept.push(cluster[deepest]);
    while kept.len() - first < n {
        let mut best: Option<(usize, f64)> = None;
        for (i, p) in cluster.iter().enumerate() {
            if taken[i] {
                continue;
            }
            let nearest = kept[first..]
                .iter()
                .map(|k: &RawPoint| (k.point - p.point).norm())
                .fold(f64::INFINITY, f64::min);
            if best.is_none_or(|(_, d)| nearest > d) {
                best = Some((i, nearest));
            }
        }
        let Some((i, _)) = best else { break };
        taken[i] = true;
        kept.push(cluster[i]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector3;

    fn point(x: f64, y: f64, depth: f64) -> RawPoint {
        RawPoint {
            point: Vector3::new(x, y, 0.0),
            normal: Vector3::z(),
            depth,
        }
    }

    const DEFAULTS: Culling = Culling {
        distance: 0.005,
        depth: 0.05,
        max_points: 4,
    };

    #[test]
    fn deepest_then_farthest() {
        // A unit square's corners, (0, 0) the deepest, plus a point next to the (1, 1) corner.
        let points = [
            point(0.0, 0.0, 0.002),
            point(1.0, 0.0, 0.001),
            point(1.0, 1.0, 0.001),
            point(0.0, 1.0, 0.001),
            point(0.99, 0.99, 0.001),
        ];
        let kept = cull(
            &points,
            &Culling {
                max_points: 3,
                ..DEFAULTS
            },
        );
        // Deepest (0, 0); then the farthest from it, (1, 1); then the farthest from both: (1, 0)
        // and (0, 1) tie at 1 m, the first in order wins; the point near (1, 1) never does.
        assert_eq!(kept, vec![points[0], points[2], points[1]]);
        assert_eq!(
            cull(
                &points,
                &Culling {
                    max_points: 1,
                    ..DEFAULTS
                }
            ),
            vec![points[0]]
        );
        assert_eq!(
            cull(
                &points,
                &Culling {
                    max_points: 4,
                    ..DEFAULTS
                }
            )
            .len(),
            4
        );
    }

    #[test]
    fn depth_and_distance_culling() {
        let points = [point(0.0, 0.0, 0.01), point(0.001, 0.0, 0.01), point(1.0, 0.0, 0.2)];
        assert_eq!(cull(&points, &DEFAULTS).len(), 2, "the 0.2 m deep point is dropped");
        let old = Culling {
            max_points: 0,
            ..DEFAULTS
        };
        assert_eq!(cull(&points, &old), vec![points[0]], "the point 1 mm away is dropped");
    }

    #[test]
    fn clusters_by_normal_keep_their_own_points() {
        let mut side = point(2.0, 0.0, 0.001);
        side.normal = Vector3::x();
        let points = [point(0.0, 0.0, 0.001), point(1.0, 0.0, 0.001), side];
        let kept = cull(
            &points,
            &Culling {
                max_points: 1,
                ..DEFAULTS
            },
        );
        assert_eq!(kept, vec![points[0], side]);
    }

    /// The allocation-per-call form culling had before [`cull_into`], kept as the reference.
    fn reference_cull(points: &[RawPoint], culling: &Culling) -> Vec<RawPoint> {
        let deep_enough: Vec<RawPoint> = points.iter().copied().filter(|p| p.depth <= culling.depth).collect();
        if culling.max_points == 0 {
            let mut kept: Vec<RawPoint> = Vec::new();
            for p in deep_enough {
                if kept.iter().all(|k| (k.point - p.point).norm() >= culling.distance) {
                    kept.push(p);
                }
            }
            return kept;
        }
        let mut clusters: Vec<Vec<RawPoint>> = Vec::new();
        for p in deep_enough {
            match clusters
                .iter_mut()
                .find(|c| c.first().is_some_and(|f| f.normal.dot(&p.normal) >= CLUSTER_COSINE))
            {
                Some(cluster) => cluster.push(p),
                None => clusters.push(vec![p]),
            }
        }
        let mut kept = Vec::new();
        for cluster in clusters {
            kept.extend(reference_selection(&cluster, culling.max_points));
        }
        kept
    }

    fn reference_selection(cluster: &[RawPoint], n: usize) -> Vec<RawPoint> {
        if cluster.len() <= n {
            return cluster.to_vec();
        }
        let mut taken = vec![false; cluster.len()];
        let deepest = (0..cluster.len()).fold(0, |best, i| {
            if cluster[i].depth > cluster[best].depth {
                i
            } else {
                best
            }
        });
        taken[deepest] = true;
        let mut kept = vec![cluster[deepest]];
        while kept.len() < n {
            let mut best: Option<(usize, f64)> = None;
            for (i, p) in cluster.iter().enumerate() {
                if taken[i] {
                    continue;
                }
                let nearest = kept
                    .iter()
                    .map(|k: &RawPoint| (k.point - p.point).norm())
                    .fold(f64::INFINITY, f64::min);
                if best.is_none_or(|(_, d)| nearest > d) {
                    best = Some((i, nearest));
                }
            }
            let Some((i, _)) = best else { break };
            taken[i] = true;
            kept.push(cluster[i]);
        }
        kept
    }

    #[test]
    fn reused_storage_keeps_the_points_of_fresh_lists() {
        // Pseudo-random pairs of 1 to 12 points with normals in three directions (clusters
        // interleaved) and depths on both sides of the depth limit, culled one after the other in
        // one scratch: each result equals the reference's exactly.
        let normals = [Vector3::z(), Vector3::x(), Vector3::new(0.0, 0.1, 1.0).normalize()];
        let mut scratch = CullScratch::default();
        let mut kept = Vec::new();
        for case in 0..60_usize {
            let n = 1 + case % 12;
            let points: Vec<RawPoint> = (0..n)
                .map(|i| {
                    let t = (case * 31 + i * 7) as f64;
                    RawPoint {
                        point: Vector3::new((t * 0.37).sin(), (t * 0.91).cos(), 0.1 * (t * 0.13).sin()),
                        normal: normals[(i * (case + 1)) % 3],
                        depth: 0.06 * (t * 0.71).sin(),
                    }
                })
                .collect();
            for max_points in [0, 1, 3, 4] {
                let culling = Culling { max_points, ..DEFAULTS };
                cull_into(&points, &culling, &mut scratch, &mut kept);
                assert_eq!(
                    kept,
                    reference_cull(&points, &culling),
                    "case {case}, {max_points} points"
                );
            }
        }
    }
}
