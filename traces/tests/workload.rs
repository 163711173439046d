//! From trace jobs to requests: sizes, requested and actual times, and jobs that cannot
//! be replayed counted by reason, never dropped silently.

use traces::swf;
use traces::workload::{declared_capacity, workload, Request, Skip};

#[test]
fn sizes_and_times_fall_back_and_every_skip_is_counted() {
    let text = "; MaxProcs: 8\n\
        1 0 0 100 4 -1 -1 -1 200 -1 1 1 1 -1 1 -1 -1 -1\n\
        2 5 0 -1 -1 -1 -1 2 100 -1 5 1 1 -1 1 -1 -1 -1\n\
        3 6 0 50 -1 -1 -1 -1 100 -1 1 1 1 -1 1 -1 -1 -1\n\
        4 7 0 -1 2 -1 -1 2 -1 -1 0 1 1 -1 1 -1 -1 -1\n\
        5 8 0 10 9 -1 -1 9 100 -1 1 1 1 -1 1 -1 -1 -1\n\
        6 9 -1 30 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n\
        7 10 42 500 1 -1 -1 1 300 -1 1 1 1 -1 1 -1 -1 -1\n\
        8 11 0 -1 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n";
    let trace = swf::read_bytes(text.as_bytes(), "t.swf", false).unwrap();
    assert_eq!(declared_capacity(&trace), Some(8));
    let load = workload(&trace, 8, None);
    assert_eq!(
        load.requests,
        [
            Request { id: 1, submit: 0, n: 4, duration: 200, runtime: 100, recorded_wait: Some(0) },
            // The log does not say how long it waited.
            Request { id: 6, submit: 9, n: 1, duration: 30, runtime: 30, recorded_wait: None },
            // Ran past its request: the scheduler ends it at its limit.
            Request { id: 7, submit: 10, n: 1, duration: 300, runtime: 300, recorded_wait: Some(42) },
            // No run time recorded: it runs its whole request.
            Request { id: 8, submit: 11, n: 2, duration: 100, runtime: 100, recorded_wait: Some(0) },
        ]
    );
    let skipped: Vec<_> = load.skipped.into_iter().collect();
    assert_eq!(skipped, [(Skip::NeverRan, 1), (Skip::NoSize, 1), (Skip::NoTime, 1), (Skip::TooWide, 1)]);
}
