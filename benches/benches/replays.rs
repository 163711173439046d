//! Criterion: whole replays of the first jobs of each trace on every structure (jobs per
//! second), apart from `operations` so that `cargo bench --bench replays` measures them
//! without building that suite's states. Each structure's schedule is compared with the
//! expected one before it is timed, so `cargo test --benches` runs this as a test.
//!
//! With the `uncounted` feature the group carries an `uncounted/` prefix, as in
//! `operations`.

use std::hint::black_box;

use benches::{group_prefix, replays};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use reporting::bench_file::REPLAY;
use structures::Kind;

fn whole_replays(c: &mut Criterion) {
    let mut group = c.benchmark_group(format!("{}{REPLAY}", group_prefix()));
    group.sample_size(10);
    for input in replays::all() {
        group.throughput(Throughput::Elements(input.workload.requests.len() as u64));
        for &kind in Kind::ALL {
            if let Err(why) = input.run(kind) {
                panic!("{why}");
            }
            group.bench_function(BenchmarkId::new(kind.name(), &input.name), |b| {
                b.iter(|| black_box(input.run(kind)));
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    // Ten samples of a whole replay each: medians are what we report.
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = whole_replays
}
criterion_main!(benches);
