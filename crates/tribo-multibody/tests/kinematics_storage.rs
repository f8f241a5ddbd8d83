//! Kinematics computed into kept storage, or taken back from it, are those computed afresh.

mod common;

use common::{mixed_chain, random_state, rng};
use tribo_multibody::{sample_trees, Kinematics, KinematicsData, Tree};

fn same(a: &Kinematics, b: &Kinematics) -> bool {
    let bits = |x: &[f64], y: &[f64]| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits());
    a.poses() == b.poses()
        && a.velocities() == b.velocities()
        && a.velocity_products() == b.velocity_products()
        && a.dof_motions() == b.dof_motions()
        && a.inertias() == b.inertias()
        && a.origin() == b.origin()
        && bits(a.q().as_slice(), b.q().as_slice())
        && bits(a.v().as_slice(), b.v().as_slice())
}

fn check(tree: &Tree, seed: u64) {
    let mut rng = rng(seed);
    let mut data = KinematicsData::default();
    for _ in 0..4 {
        let state = random_state(tree, &mut rng);
        let fresh = Kinematics::new(tree, &state).expect("valid");
        assert!(!data.is_at(&state));
        let reused = Kinematics::new_in(tree, &state, data).expect("valid");
        assert!(same(&fresh, &reused));
        data = reused.into_data();
        assert!(data.is_at(&state));
        let again = Kinematics::from_data(tree, data).expect("lengths fit");
        assert!(same(&fresh, &again));
        data = again.into_data();
    }
}

#[test]
fn kept_storage_gives_the_same_kinematics() {
    check(&mixed_chain(), 3);
    check(&sample_trees::humanoid().expect("valid"), 4);
}

#[test]
fn data_of_another_tree_is_refused() {
    let chain = mixed_chain();
    let humanoid = sample_trees::humanoid().expect("valid");
    let state = random_state(&chain, &mut rng(5));
    let data = Kinematics::new(&chain, &state).expect("valid").into_data();
    assert!(Kinematics::from_data(&humanoid, data).is_err());
}
