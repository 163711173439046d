//! Criterion: `check` and `earliest` per structure on every benchmark state, one group
//! per operation so structures are compared side by side in one run. Every input's
//! answers are checked against the oracle before it is timed, so `cargo test --benches`
//! runs this as a test.

use std::hint::black_box;

use benches::queries::{cases, check_answers};
use benches::states;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use structures::Kind;

fn operations(c: &mut Criterion) {
    let states = states::all();
    for op in ["check", "earliest"] {
        let mut group = c.benchmark_group(op);
        for state in &states {
            let all = cases(state, 200, 11);
            let calls: Vec<_> = all.iter().filter(|case| case.op.name() == op).cloned().collect();
            group.throughput(Throughput::Elements(calls.len() as u64));
            for kind in Kind::ALL {
                let Ok(mut index) = state.build(kind) else { continue };
                check_answers(index.as_mut(), &calls).unwrap_or_else(|e| panic!("{} {e}", state.name));
                group.bench_with_input(BenchmarkId::new(kind.name(), &state.name), &calls, |b, calls| {
                    b.iter(|| {
                        for case in calls {
                            black_box(oracle::apply(index.as_mut(), &case.op));
                        }
                    });
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, operations);
criterion_main!(benches);
