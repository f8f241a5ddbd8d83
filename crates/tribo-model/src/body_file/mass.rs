//! Mass properties (docs/design/choreonoid-formats.md §2.5; StdBodyLoader `readLinkContents`,
//! `readRigidBody`, `setMassParameters`).

use nalgebra::{Matrix3, Vector3};
use tribo_yaml::{Diagnostic, Error, Fields, Node};

/// One rigid body contributing to a link: mass (kg), centre of mass and inertia about the
/// centre of mass, both in the link frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RigidBody {
    pub mass: f64,
    pub com: Vector3<f64>,
    pub inertia: Matrix3<f64>,
}

impl RigidBody {
    /// Choreonoid's `Link` defaults (Link.cpp): 1 kg, identity inertia, centre of mass at 0.
    pub fn link_default() -> Self {
        RigidBody {
            mass: 1.0,
            com: Vector3::zeros(),
            inertia: Matrix3::identity(),
        }
    }

    pub fn zero() -> Self {
        RigidBody {
            mass: 0.0,
            com: Vector3::zeros(),
            inertia: Matrix3::zeros(),
        }
    }
}

pub const COM_KEYS: [&str; 2] = ["center_of_mass", "centerOfMass"];

/// Sum rigid bodies about their combined centre of mass.
///
/// m = Σ mᵢ, c = Σ mᵢ·cᵢ / m, and by the parallel-axis theorem (Steiner; e.g. Goldstein,
/// *Classical Mechanics*, 3rd ed., §5.3) I = Σ [Iᵢ + mᵢ·((dᵢ·dᵢ)·E − dᵢ·dᵢᵀ)] with dᵢ = c − cᵢ.
/// A total mass of 0 gives c = 0 and I = 0, as Choreonoid does.
pub fn combine(bodies: &[RigidBody]) -> RigidBody {
    let mass: f64 = bodies.iter().map(|b| b.mass).sum();
    if mass <= 0.0 {
        return RigidBody::zero();
    }
    let com = bodies.iter().fold(Vector3::zeros(), |acc, b| acc + b.com * b.mass) / mass;
    let inertia = bodies.iter().fold(Matrix3::zeros(), |acc, b| {
        let d = com - b.com;
        acc + b.inertia + b.mass * (Matrix3::identity() * d.dot(&d) - d * d.transpose())
    });
    RigidBody { mass, com, inertia }
}

/// `mass`: a finite number ≥ 0.
pub fn read_mass(node: &Node) -> Result<f64, Error> {
    let m = node.as_finite()?;
    if m < 0.0 {
        return Err(node.error(format!("mass must be ≥ 0 kg, found {m}")));
    }
    Ok(m)
}

/// `inertia`: 9 values (row-major 3×3, which must be symmetric) or 6 values
/// `[Ixx, Ixy, Ixz, Iyy, Iyz, Izz]`. Diagonal entries must be ≥ 0. A tensor that breaks the
/// triangle inequality (Ixx + Iyy ≥ Izz and its permutations, which every real body satisfies)
/// loads with a warning.
pub fn read_inertia(node: &Node, notes: &mut Vec<Diagnostic>) -> Result<Matrix3<f64>, Error> {
    let items = node.as_seq().map_err(|_| {
        node.error(format!(
            "expected an inertia of 9 or 6 numbers, found {}",
            node.kind_name()
        ))
    })?;
    let values = items.iter().map(Node::as_finite).collect::<Result<Vec<f64>, Error>>()?;
    let m = match values.as_slice() {
        &[a, b, c, d, e, f, g, h, i] => {
            let m = Matrix3::new(a, b, c, d, e, f, g, h, i);
            let scale = m.amax().max(1.0);
            let asymmetry = (m - m.transpose()).amax();
            if asymmetry > 1e-9 * scale {
                // Choreonoid copies the nine values unchecked, but an inertia tensor is symmetric
                // by definition: the engines would integrate a body that cannot exist.
                let pairs = [("Ixy", b, d), ("Ixz", c, g), ("Iyz", f, h)];
                let (worst, above, below) =
                    pairs.into_iter().fold(
                        pairs[0],
                        |w, p| if (p.1 - p.2).abs() > (w.1 - w.2).abs() { p } else { w },
                    );
                return Err(node.error(format!(
                    "the inertia matrix must be symmetric: [{b}, {c}, {f}] above the diagonal vs [{d}, {g}, {h}] \
                     below ({worst} is {above} above and {below} below); write the value meant in both places, or \
                     give the 6 values [Ixx, Ixy, Ixz, Iyy, Iyz, Izz]"
                )));
            }
            m
        }
        &[xx, xy, xz, yy, yz, zz] => Matrix3::new(xx, xy, xz, xy, yy, yz, xz, yz, zz),
        other => {
            return Err(node.error(format!(
            "expected an inertia of 9 values (row-major) or 6 values [Ixx, Ixy, Ixz, Iyy, Iyz, Izz], found {} values",
            other.len()
        )))
        }
    };
    let (xx, yy, zz) = (m[(0, 0)], m[(1, 1)], m[(2, 2)]);
    if xx < 0.0 || yy < 0.0 || zz < 0.0 {
        return Err(node.error(format!(
            "inertia diagonal entries must be ≥ 0 kg·m², found [{xx}, {yy}, {zz}]"
        )));
    }
    let slack = 1e-9 * (xx + yy + zz);
    if xx + yy < zz - slack || yy + zz < xx - slack || zz + xx < yy - slack {
        notes.push(node.warning(format!(
            "inertia diagonal [{xx}, {yy}, {zz}] breaks the triangle inequality (Ixx + Iyy ≥ Izz, …): no rigid body has it"
        )));
    }
    Ok(m)
}

/// The link's mass properties from its own `center_of_mass`/`mass`/`inertia` keys and the
/// RigidBody elements already read (in the link frame).
///
/// - No link-level keys and no RigidBody: the Link defaults.
/// - Link-level keys only: missing ones take the Link defaults (so `mass: 2` alone keeps I = E).
/// - With RigidBody elements: the link-level keys form one more body, missing ones 0.
///
/// Whenever there is at least one body, the result goes through [`combine`] (so a lone
/// `mass: 0` gives zero inertia, as in Choreonoid).
pub fn link_mass_properties(
    f: &Fields,
    mut bodies: Vec<RigidBody>,
    notes: &mut Vec<Diagnostic>,
) -> Result<RigidBody, Error> {
    let com = f
        .get_value(&COM_KEYS)
        .map(|n| n.as_vec3().map(Vector3::from))
        .transpose()?;
    let mass = f.get_value(&["mass"]).map(read_mass).transpose()?;
    let inertia = f.get_value(&["inertia"]).map(|n| read_inertia(n, notes)).transpose()?;
    if com.is_some() || mass.is_some() || inertia.is_some() {
        let fallback = if bodies.is_empty() {
            RigidBody::link_default()
        } else {
            RigidBody::zero()
        };
        bodies.push(RigidBody {
            mass: mass.unwrap_or(fallback.mass),
            com: com.unwrap_or(fallback.com),
            inertia: inertia.unwrap_or(fallback.inertia),
        });
    }
    Ok(if bodies.is_empty() {
        RigidBody::link_default()
    } else {
        combine(&bodies)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tribo_yaml::parse_str;

    #[test]
    fn six_value_inertia_is_symmetric() {
        let node = parse_str("[1, 0.1, 0.2, 2, 0.3, 3]", "i.body").expect("yaml");
        let m = read_inertia(&node, &mut Vec::new()).expect("inertia");
        assert_eq!(m, Matrix3::new(1.0, 0.1, 0.2, 0.1, 2.0, 0.3, 0.2, 0.3, 3.0));
    }

    #[test]
    fn nine_value_inertia_must_be_symmetric() {
        let node = parse_str("[1, 0.1, 0, 0, 1, 0, 0, 0, 1]", "i.body").expect("yaml");
        let err = read_inertia(&node, &mut Vec::new()).expect_err("asymmetric");
        assert!(err.message.contains("symmetric"), "{err}");
        // Choreonoid's WAREC1 hip: one product of inertia with its sign flipped below the diagonal.
        let node = parse_str(
            "[0.08705723, -5.01e-06, 6.22e-06, -5.01e-06, 0.08623435, -0.00027574, -6.22e-06, -0.00027574, 0.02298262]",
            "t.body",
        )
        .expect("yaml");
        let err = read_inertia(&node, &mut Vec::new()).expect_err("asymmetric");
        assert!(
            err.message.contains("(Ixz is 0.00000622 above and -0.00000622 below)"),
            "{err}"
        );
        let node = parse_str("[1, 0, 0, 0, -1, 0, 0, 0, 1]", "i.body").expect("yaml");
        assert!(read_inertia(&node, &mut Vec::new()).is_err());
        let node = parse_str("[1, 0, 0, 0, 1]", "i.body").expect("yaml");
        let err = read_inertia(&node, &mut Vec::new()).expect_err("5 values");
        assert!(err.message.contains("found 5 values"), "{err}");
    }

    #[test]
    fn triangle_inequality_warns() {
        let node = parse_str("[1, 0, 0, 1, 0, 3]", "i.body").expect("yaml");
        let mut notes = Vec::new();
        read_inertia(&node, &mut notes).expect("loads");
        assert_eq!(notes.len(), 1);
    }

    /// Two point-like bodies: 1 kg at x = 0 and 3 kg at x = 2, each with I = diag(0.1, 0.2, 0.3).
    /// c = (0·1 + 2·3)/4 = 1.5; d₁ = 1.5, d₂ = −0.5 along x;
    /// Iyy = Izz gain Σ m·d² = 1·2.25 + 3·0.25 = 3.0; Ixx gains nothing.
    #[test]
    fn parallel_axis_combination() {
        let i = Matrix3::from_diagonal(&Vector3::new(0.1, 0.2, 0.3));
        let a = RigidBody {
            mass: 1.0,
            com: Vector3::zeros(),
            inertia: i,
        };
        let b = RigidBody {
            mass: 3.0,
            com: Vector3::new(2.0, 0.0, 0.0),
            inertia: i,
        };
        let c = combine(&[a, b]);
        assert_eq!(c.mass, 4.0);
        assert!((c.com - Vector3::new(1.5, 0.0, 0.0)).norm() < 1e-15);
        let expected = Matrix3::from_diagonal(&Vector3::new(0.2, 0.4 + 3.0, 0.6 + 3.0));
        assert!((c.inertia - expected).norm() < 1e-12, "{}", c.inertia);
    }

    #[test]
    fn zero_total_mass_gives_zero() {
        let a = RigidBody {
            mass: 0.0,
            com: Vector3::new(1.0, 2.0, 3.0),
            inertia: Matrix3::identity(),
        };
        assert_eq!(combine(&[a, a]), RigidBody::zero());
    }
}
