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

/// The points of one link pair kept by the rules of the module docs.
pub(crate) fn cull(points: &[RawPoint], culling: &Culling) -> Vec<RawPoint> {
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
    // Clusters by normal: each point joins the first cluster whose first normal is within 15°.
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
        kept.extend(farthest_point_selection(&cluster, culling.max_points));
    }
    kept
}

/// The deepest point, then repeatedly the point whose distance to the nearest kept point is the
/// largest, until `n` points are kept (or the cluster is exhausted).
fn farthest_point_selection(cluster: &[RawPoint], n: usize) -> Vec<RawPoint> {
    if cluster.len() <= n {
        return cluster.to_vec();
    }
    let mut taken = vec![false; cluster.len()];
    let mut kept = Vec::with_capacity(n);
    let deepest = (0..cluster.len()).fold(0, |best, i| {
        if cluster[i].depth > cluster[best].depth {
            i
        } else {
            best
        }
    });
    taken[deepest] = true;
    kept.push(cluster[deepest]);
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
}
