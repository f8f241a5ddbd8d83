//! SR1 loaded from two files, and the largest differences of the dynamics pgs builds from them.

use std::path::Path;
use std::sync::Arc;

use nalgebra::{DVector, Isometry3, UnitQuaternion, Vector3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tribo_engine::SceneBody;
use tribo_material::MaterialId;
use tribo_model::Body;
use tribo_multibody::{bias_forces, mass_matrix, Kinematics, State};
use tribo_pgs::{body_dynamics, BodyDynamics};

pub fn model(file: &str) -> Body {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../share/choreonoid/model")
        .join(file);
    tribo_model::load_model(&path).expect(file)
}

fn placed(model: Body) -> SceneBody {
    let n = model.links.len();
    SceneBody {
        name: "SR1".to_owned(),
        initial_positions: vec![0.0; n],
        link_materials: vec![MaterialId::DEFAULT; n],
        model: Arc::new(model),
        root_pose: Isometry3::identity(),
        root_linear_velocity: Vector3::zeros(),
        root_angular_velocity: Vector3::zeros(),
        fixed_root: false,
        self_collision: false,
    }
}

/// Velocity index of every dof of `from` in `to`: the free root's six first, then each joint's
/// by its name.
fn dof_map(from: (&Body, &BodyDynamics), to: (&Body, &BodyDynamics)) -> Vec<usize> {
    let mut map: Vec<usize> = (0..6).collect();
    let nv = from.1.state.v.len();
    map.resize(nv, usize::MAX);
    for (link, dof) in from.1.link_dof.iter().enumerate() {
        let Some(dof) = dof else { continue };
        let name = &from.0.links[link].joint.name;
        let other =
            to.0.links
                .iter()
                .position(|l| &l.joint.name == name)
                .expect("same joint names");
        map[*dof] = to.1.link_dof[other].expect("a 1-dof joint in both");
    }
    assert!(map.iter().all(|&d| d < nv));
    map
}

/// The largest differences of the mass matrix and of the bias forces between the two models
/// over ten random states, relative to each one's largest entry (joints matched by name, the
/// free root's six velocities first).
pub fn largest_differences(body_file: &Body, urdf: &Body) -> (f64, f64) {
    let (body_file, urdf) = (body_file.clone(), urdf.clone());
    let (mut worst_m, mut worst_h) = (0.0_f64, 0.0_f64);
    let a = body_dynamics(&placed(body_file.clone())).expect("pgs builds SR1.body");
    let b = body_dynamics(&placed(urdf.clone())).expect("pgs builds the other SR1");
    assert_eq!((a.tree.nq(), a.tree.nv()), (b.tree.nq(), b.tree.nv()));
    let map = dof_map((&body_file, &a), (&urdf, &b));
    let gravity = Vector3::new(0.0, 0.0, -9.80665);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..10 {
        // The same random configuration and velocity in both trees' coordinates.
        let (mut qa, mut va) = (a.state.q.clone(), DVector::zeros(a.tree.nv()));
        let (mut qb, mut vb) = (b.state.q.clone(), DVector::zeros(b.tree.nv()));
        let root = UnitQuaternion::from_euler_angles(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-3.0..3.0),
        );
        let position = Vector3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(0.0..1.0),
        );
        for q in [&mut qa, &mut qb] {
            q.fixed_rows_mut::<3>(0).copy_from(&position);
            q.fixed_rows_mut::<4>(3)
                .copy_from(&DVector::from_column_slice(&[root.w, root.i, root.j, root.k]));
        }
        for (link, qi) in a.link_q.iter().enumerate() {
            let Some(qi) = qi else { continue };
            let angle = rng.random_range(-1.0..1.0);
            qa[*qi] = angle;
            let name = &body_file.links[link].joint.name;
            let other = urdf.links.iter().position(|l| &l.joint.name == name).expect("joint");
            qb[b.link_q[other].expect("1-dof")] = angle;
        }
        for (dof, target) in map.iter().enumerate() {
            let speed = rng.random_range(-2.0..2.0);
            va[dof] = speed;
            vb[*target] = speed;
        }
        let ka = Kinematics::new(&a.tree, &State { q: qa, v: va }).expect("valid state");
        let kb = Kinematics::new(&b.tree, &State { q: qb, v: vb }).expect("valid state");
        let (ma, mb) = (mass_matrix(&ka), mass_matrix(&kb));
        for i in 0..ma.nrows() {
            for j in 0..ma.ncols() {
                worst_m = worst_m.max((ma[(i, j)] - mb[(map[i], map[j])]).abs() / ma.amax());
            }
        }
        let ha = bias_forces(&ka, &gravity, None).expect("rnea");
        let hb = bias_forces(&kb, &gravity, None).expect("rnea");
        for i in 0..ha.len() {
            worst_h = worst_h.max((ha[i] - hb[map[i]]).abs() / ha.amax());
        }
    }
    (worst_m, worst_h)
}
