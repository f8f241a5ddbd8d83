//! Pad lattices: rest positions, normals, radii, area elements and neighbourhoods
//! (`docs/design/lattice-model.md` §2).
//!
//! Pad frame convention: the pad's contact *surface* passes through the pad origin with outward
//! normal +Z at the origin. Sphere centres sit one radius below the surface
//! (`p_i = s_i − r_i n_i`), so the surface the spheres present is the declared one whatever the
//! resolution.

use nalgebra::{Point3, Vector3};
use thiserror::Error;

/// Errors building a lattice.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum CslcError {
    /// A geometric parameter is out of range.
    #[error("cslc pad: {0}")]
    InvalidGeometry(String),
    /// A stiffness or solver parameter is out of range.
    #[error("cslc parameters: {0}")]
    InvalidParams(String),
}

/// What a flat pad's `nx × ny` spheres at spacing `h` stand for. The sphere centres are the same
/// in both: a centred grid of pitch `h`, its outermost centres `(n − 1) h / 2` from the middle.
/// What differs is the pad they sample, and with it the area elements (`docs/design/lattice-model.md`
/// §2, "Where a flat pad ends").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FlatLayout {
    /// Each sphere the centre of its own `h × h` cell (the midpoint rule): the pad spans
    /// `nx h × ny h`, every `a_i = h²`, and the outermost centres lie `h/2` inside its edges — so
    /// a patch's centre of pressure, which the spheres' contact points bound, stops `h/2` short of
    /// the edges.
    #[default]
    Cells,
    /// The spheres on the grid's nodes, the outermost on the pad's edges (the trapezoid rule): the
    /// pad spans `(nx − 1) h × (ny − 1) h`, `a_i = h²` inside, `h²/2` on an edge and `h²/4` at a
    /// corner, so a patch's centre of pressure reaches the pad's edges at any resolution. A single
    /// row (or column) keeps its cells' width `h` across it.
    Nodes,
}

impl FlatLayout {
    /// The share of a cell's width `h` that sphere `i` of a row of `n` stands for.
    fn weight(self, i: usize, n: usize) -> f64 {
        match self {
            FlatLayout::Nodes if n > 1 && (i == 0 || i + 1 == n) => 0.5,
            _ => 1.0,
        }
    }
}

/// The shape of a pad.
#[derive(Debug, Clone, PartialEq)]
pub enum PadGeometry {
    /// Rectangular `nx × ny` grid with spacing `h` in the pad's XY plane; the area elements and
    /// the pad's extent follow `layout` ([`FlatLayout`]: `a_i = h²` for [`FlatLayout::Cells`]).
    Flat {
        /// Spheres along X.
        nx: usize,
        /// Spheres along Y.
        ny: usize,
        /// Lattice spacing `h`, m.
        spacing: f64,
        /// Sphere radius `r`, m (`h/2` from [`PadGeometry::flat`]).
        sphere_radius: f64,
        /// What the spheres sample: cells (the default) or nodes.
        layout: FlatLayout,
    },
    /// Spherical cap of radius `R_d` and half-angle `α` (base radius `R_d sin α`), apex at the
    /// origin, centre of curvature at `(0, 0, −R_d)`. Sampled by the vertical projection of an
    /// `n × n` square grid of cell size `g = 2 R_d sin α / n` covering the base disc.
    Dome {
        /// Radius of curvature `R_d`, m.
        radius: f64,
        /// Cap half-angle `α`, rad, in (0, π/2).
        cap_angle: f64,
        /// Grid cells across the base diameter.
        n: usize,
        /// Sphere radius, m (`g/2` from [`PadGeometry::dome`]).
        sphere_radius: f64,
    },
}

impl PadGeometry {
    /// A flat pad of cells ([`FlatLayout::Cells`]) with sphere radius `h/2`.
    pub fn flat(nx: usize, ny: usize, spacing: f64) -> Self {
        PadGeometry::flat_with_layout(nx, ny, spacing, FlatLayout::Cells)
    }

    /// A flat pad with sphere radius `h/2` whose spheres sample the pad as `layout` says.
    pub fn flat_with_layout(nx: usize, ny: usize, spacing: f64, layout: FlatLayout) -> Self {
        PadGeometry::Flat {
            nx,
            ny,
            spacing,
            sphere_radius: 0.5 * spacing,
            layout,
        }
    }

    /// A dome pad given its cap half-angle, with sphere radius half the grid cell.
    pub fn dome(radius: f64, cap_angle: f64, n: usize) -> Self {
        let cell = 2.0 * radius * cap_angle.sin() / n.max(1) as f64;
        PadGeometry::Dome {
            radius,
            cap_angle,
            n,
            sphere_radius: 0.5 * cell,
        }
    }

    /// A dome pad given its base radius `b = R_d sin α`.
    pub fn dome_with_base_radius(radius: f64, base_radius: f64, n: usize) -> Self {
        let ratio = if radius > 0.0 { base_radius / radius } else { f64::NAN };
        PadGeometry::dome(radius, ratio.asin(), n)
    }

    /// Builds the lattice.
    pub fn build(&self) -> Result<Lattice, CslcError> {
        match *self {
            PadGeometry::Flat {
                nx,
                ny,
                spacing,
                sphere_radius,
                layout,
            } => build_flat(nx, ny, spacing, sphere_radius, layout),
            PadGeometry::Dome {
                radius,
                cap_angle,
                n,
                sphere_radius,
            } => build_dome(radius, cap_angle, n, sphere_radius),
        }
    }
}

/// One surface sphere at rest, in the pad (link) frame.
#[derive(Debug, Clone, PartialEq)]
pub struct LatticeSphere {
    /// Rest centre `p_i`.
    pub rest_position: Point3<f64>,
    /// Outward unit normal `n_i`.
    pub normal: Vector3<f64>,
    /// Contact radius `r_i`.
    pub radius: f64,
    /// Area element `a_i`, m².
    pub area: f64,
}

/// A sphere's grid neighbours: at most four (left, right, below, above, in that order), the
/// first `count` slots used; the unused ones hold the lattice's length, the index of the rest
/// slot a sweep's field keeps after the spheres ([`Lattice::neighbour_slots`]).
#[derive(Debug, Clone, Copy, PartialEq)]
struct GridNeighbours {
    slots: [usize; 4],
    count: usize,
}

/// A pad lattice: spheres plus a 4-neighbourhood, each sphere's neighbours in four fixed slots
/// (one lookup per sphere in the sweeps, which read them for every visit).
#[derive(Debug, Clone, PartialEq)]
pub struct Lattice {
    spheres: Vec<LatticeSphere>,
    neighbours: Vec<GridNeighbours>,
    spacing: f64,
    /// `Σ a_i`, summed once (a step's residual floor reads it).
    area: f64,
}

impl Lattice {
    fn new(spheres: Vec<LatticeSphere>, neighbours: Vec<GridNeighbours>, spacing: f64) -> Lattice {
        let area = spheres.iter().map(|s| s.area).sum();
        Lattice {
            spheres,
            neighbours,
            spacing,
            area,
        }
    }

    /// The spheres, in grid (row-major) order.
    pub fn spheres(&self) -> &[LatticeSphere] {
        &self.spheres
    }

    /// Number of spheres.
    pub fn len(&self) -> usize {
        self.spheres.len()
    }

    /// True when the lattice has no sphere.
    pub fn is_empty(&self) -> bool {
        self.spheres.is_empty()
    }

    /// Neighbours `N(i)` of sphere `i` (empty for an out-of-range index).
    pub fn neighbours(&self, i: usize) -> &[usize] {
        self.neighbours
            .get(i)
            .and_then(|n| n.slots.get(..n.count))
            .unwrap_or(&[])
    }

    /// The four neighbour slots of sphere `i`: its neighbours in the order of
    /// [`Self::neighbours`], then [`Self::len`] in the slots it does not use — the index of a
    /// field's *rest slot*, a zero displacement one past the spheres, so that a sum over the
    /// four slots of a field with that slot is the sum over the neighbours with zeros added
    /// after it: bit-identical, the sum being taken from `+0` (a zero added to a sum leaves it
    /// as it is; the sum cannot be `−0`). `None` for an out-of-range index.
    pub(crate) fn neighbour_slots(&self, i: usize) -> Option<&[usize; 4]> {
        self.neighbours.get(i).map(|n| &n.slots)
    }

    /// Nominal lattice spacing `h`, m (grid cell size for a dome).
    pub fn spacing(&self) -> f64 {
        self.spacing
    }

    /// Total pad area `Σ a_i`, m².
    pub fn area(&self) -> f64 {
        self.area
    }
}

fn positive(name: &str, value: f64) -> Result<(), CslcError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(CslcError::InvalidGeometry(format!(
            "`{name}` must be a finite number > 0, got {value}"
        )))
    }
}

/// Builds the neighbour lists of a grid whose cell `(ix, iy)` maps to `index[iy * nx + ix]`.
fn grid_neighbours(nx: usize, ny: usize, index: &[Option<usize>], count: usize) -> Vec<GridNeighbours> {
    let mut lists = vec![
        GridNeighbours {
            slots: [count; 4],
            count: 0,
        };
        count
    ];
    for iy in 0..ny {
        for ix in 0..nx {
            let Some(Some(i)) = index.get(iy * nx + ix).copied() else {
                continue;
            };
            let mut add = |jx: usize, jy: usize| {
                if jx < nx && jy < ny {
                    if let Some(Some(j)) = index.get(jy * nx + jx).copied() {
                        if let Some(list) = lists.get_mut(i) {
                            if let Some(slot) = list.slots.get_mut(list.count) {
                                *slot = j;
                                list.count += 1;
                            }
                        }
                    }
                }
            };
            if ix > 0 {
                add(ix - 1, iy);
            }
            add(ix + 1, iy);
            if iy > 0 {
                add(ix, iy - 1);
            }
            add(ix, iy + 1);
        }
    }
    lists
}

fn build_flat(nx: usize, ny: usize, h: f64, r: f64, layout: FlatLayout) -> Result<Lattice, CslcError> {
    if nx == 0 || ny == 0 {
        return Err(CslcError::InvalidGeometry(format!(
            "a flat pad needs nx, ny >= 1, got {nx} × {ny}"
        )));
    }
    positive("spacing", h)?;
    positive("sphere_radius", r)?;
    let mut spheres = Vec::with_capacity(nx * ny);
    let mut index = Vec::with_capacity(nx * ny);
    for iy in 0..ny {
        for ix in 0..nx {
            let x = (ix as f64 - 0.5 * (nx as f64 - 1.0)) * h;
            let y = (iy as f64 - 0.5 * (ny as f64 - 1.0)) * h;
            index.push(Some(spheres.len()));
            spheres.push(LatticeSphere {
                rest_position: Point3::new(x, y, -r),
                normal: Vector3::z(),
                radius: r,
                area: h * h * layout.weight(ix, nx) * layout.weight(iy, ny),
            });
        }
    }
    let neighbours = grid_neighbours(nx, ny, &index, spheres.len());
    Ok(Lattice::new(spheres, neighbours, h))
}

/// Dome lattice. The area element of the cap over its base disc is `dA = dx dy / n_z`
/// (vertical projection Jacobian, `n_z = cos θ`); midpoint sampling of it is then rescaled so the
/// elements sum exactly to the cap area `2π R_d² (1 − cos α)` (the staircase of boundary cells is
/// the only thing the rescale corrects).
fn build_dome(radius: f64, alpha: f64, n: usize, r: f64) -> Result<Lattice, CslcError> {
    positive("radius", radius)?;
    positive("sphere_radius", r)?;
    if !(alpha.is_finite() && alpha > 0.0 && alpha < std::f64::consts::FRAC_PI_2) {
        return Err(CslcError::InvalidGeometry(format!(
            "the dome cap angle must be in (0, π/2) rad, got {alpha}"
        )));
    }
    if n == 0 {
        return Err(CslcError::InvalidGeometry("a dome pad needs a grid n >= 1".to_string()));
    }
    let base = radius * alpha.sin();
    let cell = 2.0 * base / n as f64;
    let mut spheres = Vec::new();
    let mut index = Vec::with_capacity(n * n);
    for iy in 0..n {
        for ix in 0..n {
            let x = (ix as f64 + 0.5) * cell - base;
            let y = (iy as f64 + 0.5) * cell - base;
            let rho2 = x * x + y * y;
            if rho2 > base * base {
                index.push(None);
                continue;
            }
            let zc = (radius * radius - rho2).sqrt();
            let normal = Vector3::new(x, y, zc) / radius;
            let surface = Point3::new(x, y, zc - radius);
            index.push(Some(spheres.len()));
            spheres.push(LatticeSphere {
                rest_position: surface - normal * r,
                normal,
                radius: r,
                area: cell * cell / normal.z,
            });
        }
    }
    if spheres.is_empty() {
        return Err(CslcError::InvalidGeometry("the dome grid holds no sphere".to_string()));
    }
    let cap_area = 2.0 * std::f64::consts::PI * radius * radius * (1.0 - alpha.cos());
    let sampled: f64 = spheres.iter().map(|s| s.area).sum();
    for s in &mut spheres {
        s.area *= cap_area / sampled;
    }
    let neighbours = grid_neighbours(n, n, &index, spheres.len());
    Ok(Lattice::new(spheres, neighbours, cell))
}

#[cfg(test)]
mod tests {
    use nalgebra::Vector3;

    use super::{FlatLayout, PadGeometry};

    /// Cells and nodes put the spheres at the same centres; nodes weigh them by the trapezoid
    /// rule — `h²` inside, `h²/2` on an edge, `h²/4` at a corner — so the areas sum to the
    /// `(nx − 1) h × (ny − 1) h` the outermost centres span, where cells sum to `nx h × ny h`. A
    /// single row keeps its cells' width.
    #[test]
    fn nodes_weigh_the_cells_centres_by_the_trapezoid_rule() {
        let h = 0.01;
        let cells = PadGeometry::flat(5, 3, h).build().expect("cells");
        let nodes = PadGeometry::flat_with_layout(5, 3, h, FlatLayout::Nodes)
            .build()
            .expect("nodes");
        assert_eq!(cells.len(), nodes.len());
        for (c, n) in cells.spheres().iter().zip(nodes.spheres()) {
            assert_eq!(c.rest_position, n.rest_position);
            assert_eq!(c.radius, n.radius);
        }
        let extent = |l: &super::Lattice| {
            let xs = l.spheres().iter().map(|s| s.rest_position.x);
            let ys = l.spheres().iter().map(|s| s.rest_position.y);
            let span = |v: Vec<f64>| {
                v.iter().copied().fold(f64::NEG_INFINITY, f64::max) - v.iter().copied().fold(f64::INFINITY, f64::min)
            };
            (span(xs.collect()), span(ys.collect()))
        };
        let (x, y) = extent(&nodes);
        assert!((x - 4.0 * h).abs() < 1e-15 && (y - 2.0 * h).abs() < 1e-15, "{x} × {y}");
        assert!(
            (nodes.area() - x * y).abs() < 1e-18,
            "{} against {}",
            nodes.area(),
            x * y
        );
        assert!((cells.area() - 15.0 * h * h).abs() < 1e-18);
        let area = |ix: usize, iy: usize| nodes.spheres()[iy * 5 + ix].area;
        assert_eq!(area(0, 0), 0.25 * h * h);
        assert_eq!(area(2, 0), 0.5 * h * h);
        assert_eq!(area(0, 1), 0.5 * h * h);
        assert_eq!(area(2, 1), h * h);
        let row = PadGeometry::flat_with_layout(4, 1, h, FlatLayout::Nodes)
            .build()
            .expect("one row");
        assert!((row.area() - 3.0 * h * h).abs() < 1e-18, "{}", row.area());
    }

    /// Every sphere's four slots are its neighbours, in order, then the rest slot; and a sum over
    /// the slots of a field with a zero rest slot is bit for bit the sum over the neighbours,
    /// negative zeros and cancelling values included.
    #[test]
    fn neighbour_slots_are_the_neighbours_then_the_rest_slot() {
        for spec in [PadGeometry::flat(5, 3, 0.01), PadGeometry::dome(0.02, 0.8, 7)] {
            let lattice = spec.build().expect("a valid lattice");
            let n = lattice.len();
            let mut field: Vec<Vector3<f64>> = (0..n)
                .map(|i| {
                    let x = (i as f64 * 0.37).sin() * 1e-4;
                    match i % 4 {
                        0 => Vector3::new(-0.0, x, -x),
                        1 => Vector3::new(x, -0.0, 1e-300),
                        2 => Vector3::new(-x, x * 1e-9, -0.0),
                        _ => Vector3::new(x, -x, x),
                    }
                })
                .collect();
            field.push(Vector3::zeros());
            for i in 0..n {
                let slots = lattice.neighbour_slots(i).expect("a sphere in range");
                let neighbours = lattice.neighbours(i);
                assert_eq!(&slots[..neighbours.len()], neighbours);
                assert!(slots[neighbours.len()..].iter().all(|&j| j == n));
                let mut over_neighbours = Vector3::zeros();
                for &j in neighbours {
                    over_neighbours += field[j];
                }
                let mut over_slots = Vector3::zeros();
                for &j in slots {
                    over_slots += field[j];
                }
                for (a, b) in over_neighbours.iter().zip(over_slots.iter()) {
                    assert_eq!(a.to_bits(), b.to_bits(), "sphere {i}");
                }
            }
            assert!(lattice.neighbour_slots(n).is_none());
        }
    }
}
