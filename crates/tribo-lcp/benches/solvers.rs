//! Solver speed: projected Gauss–Seidel on a dense 400-contact problem and on a 2000-contact
//! block-sparse pile (fixed sweep counts, so the numbers are per-sweep costs), and Lemke on 30 × 30.
//! `cargo bench -p tribo-lcp`.

use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{DMatrix, DVector, Matrix3x6, Matrix6, Vector3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use tribo_lcp::{
    solve_lemke, BlockSparseDelassus, ContactFrame, ContactFriction, ContactProblem, DenseRows, FrictionModel, Lcp,
    LemkeOptions, Pgs, PgsOptions,
};

fn random_spd(rng: &mut ChaCha8Rng, n: usize) -> DMatrix<f64> {
    let b = DMatrix::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0));
    &b * b.transpose() / n as f64 + DMatrix::identity(n, n) * 0.5
}

fn dense_problem(contacts: usize) -> ContactProblem<DenseRows> {
    let mut rng = ChaCha8Rng::seed_from_u64(400);
    let a = random_spd(&mut rng, 3 * contacts);
    let b = DVector::from_fn(3 * contacts, |i, _| {
        if i % 3 == 0 {
            rng.random_range(-1.0..0.3)
        } else {
            rng.random_range(-0.5..0.5)
        }
    });
    let friction = vec![ContactFriction::new(0.6, FrictionModel::Cone); contacts];
    ContactProblem::new(DenseRows::from_matrix(&a), b, friction).expect("valid problem")
}

/// 500 unit boxes (1 kg, 0.2 m) in 100 stacks of 5; four corner contacts under each box: 2000 contacts.
fn pile() -> ContactProblem<BlockSparseDelassus> {
    let (mass, side, dt, g) = (1.0, 0.2, 1e-3, 9.81);
    let inertia = mass * side * side / 6.0;
    let minv = Matrix6::from_diagonal(&nalgebra::Vector6::new(
        1.0 / mass,
        1.0 / mass,
        1.0 / mass,
        1.0 / inertia,
        1.0 / inertia,
        1.0 / inertia,
    ));
    let frame = ContactFrame::with_tangent(&Vector3::z(), &Vector3::x()).expect("unit normal");
    let jacobian = |r: Vector3<f64>| {
        let mut j = Matrix3x6::zeros();
        for (row, d) in [frame.normal, frame.t1, frame.t2].iter().enumerate() {
            let m = r.cross(d);
            for k in 0..3 {
                j[(row, k)] = d[k];
                j[(row, 3 + k)] = m[k];
            }
        }
        j
    };
    let (stacks, levels) = (100, 5);
    let contacts = stacks * levels * 4;
    let mut operator = BlockSparseDelassus::new(contacts);
    let mut b = DVector::zeros(3 * contacts);
    let corners = [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)];
    for stack in 0..stacks {
        for level in 0..levels {
            // Body (stack, level) rests on contacts `below` and carries contacts `above`.
            let below = (stack * levels + level) * 4;
            let mut rows = Vec::new();
            for (k, (x, y)) in corners.iter().enumerate() {
                let r = Vector3::new(x * side / 2.0, y * side / 2.0, -side / 2.0);
                rows.push((below + k, jacobian(r)));
                if level + 1 < levels {
                    let r_up = Vector3::new(x * side / 2.0, y * side / 2.0, side / 2.0);
                    rows.push((below + 4 + k, -jacobian(r_up)));
                }
            }
            operator.add_body_coupling(&rows, &minv);
            if level == 0 {
                for k in 0..4 {
                    b[3 * (below + k)] = -g * dt;
                }
            }
        }
    }
    let friction = vec![ContactFriction::new(0.5, FrictionModel::Cone); contacts];
    ContactProblem::new(operator, b, friction).expect("valid pile")
}

fn bench(c: &mut Criterion) {
    let sweeps = PgsOptions {
        tolerance: 0.0,
        max_iterations: 20,
        ..PgsOptions::default()
    };

    let dense = dense_problem(400);
    let mut pgs = Pgs::new(sweeps);
    c.bench_function("pgs_dense_400_contacts_20_sweeps", |bencher| {
        bencher.iter(|| {
            let mut lambda = DVector::zeros(1200);
            black_box(pgs.solve_contacts(black_box(&dense), &mut lambda).expect("solves"))
        })
    });

    let pile = pile();
    c.bench_function("pgs_block_sparse_pile_2000_contacts_20_sweeps", |bencher| {
        bencher.iter(|| {
            let mut lambda = DVector::zeros(6000);
            black_box(pgs.solve_contacts(black_box(&pile), &mut lambda).expect("solves"))
        })
    });

    let mut rng = ChaCha8Rng::seed_from_u64(30);
    let lcp = Lcp::new(
        random_spd(&mut rng, 30),
        DVector::from_fn(30, |_, _| rng.random_range(-1.0..1.0)),
    )
    .expect("valid");
    c.bench_function("lemke_30x30", |bencher| {
        bencher.iter(|| black_box(solve_lemke(black_box(&lcp), &LemkeOptions::default()).expect("solves")))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
