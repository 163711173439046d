//! A benchmark file for the tests of `src/bench_file.rs` and `src/report/bench.rs`.

use oracle::OpKind;
use reporting::bench_file::{BenchFile, BenchResult, Machine, Memory, BENCH_KIND, BENCH_SCHEMA};

/// A small file: `per_call(structure, size)` gives each result's time per call.
pub fn file(recorded: &str, per_call: impl Fn(&str, u64) -> f64) -> BenchFile {
    let mut results = Vec::new();
    for structure in ["rbtree", "list"] {
        for size in [100, 1_000, 10_000, 100_000] {
            results.push(BenchResult {
                structure: structure.into(),
                operation: OpKind::Check.name().into(),
                counted: true,
                state: format!("synthetic-{size}"),
                size,
                calls: 100,
                median_ns: 100.0 * per_call(structure, size),
                low_ns: 90.0 * per_call(structure, size),
                high_ns: 110.0 * per_call(structure, size),
                mad_ns: 5.0,
                instructions: (size == 1_000).then_some(12_345),
                visited: Some(10),
                worst: Some(100),
            });
        }
    }
    BenchFile {
        schema: BENCH_SCHEMA,
        kind: BENCH_KIND.into(),
        revision: "abc123".into(),
        recorded: recorded.into(),
        machine: Machine {
            cpu: "a test cpu".into(),
            cores: 2,
            memory_gib: 24.0,
            os: "linux".into(),
            rustc: "rustc".into(),
        },
        results,
        memory: vec![Memory {
            structure: "rbtree".into(),
            state: "synthetic-100".into(),
            entries: 100,
            bytes: 9_600,
        }],
    }
}
