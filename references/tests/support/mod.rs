//! What the comparisons with the references share: how many cases they run, running a
//! comparison on every structure while counting the cases that exercise each of two
//! paths, and checking that a planted deviation is caught: one call per policy.

use std::cell::Cell;

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use structures::Kind;

/// How many cases each comparison runs: 10,000 unless `PROPTEST_CASES` says otherwise.
pub fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(10_000)
}

fn runner() -> TestRunner {
    TestRunner::new(Config { cases: cases(), ..Config::default() })
}

/// Runs `compare` on every structure for [`cases`] values of `strategy`, failing on the
/// first difference; `compare` counts how often the case took each of two paths (named
/// by `paths`), and at least a fifth of the cases must take each.
fn on_every_structure<S: Strategy>(
    strategy: S,
    paths: [&str; 2],
    compare: impl Fn(Kind, &S::Value) -> Result<(usize, usize), TestCaseError>,
) {
    let seen = Cell::new((0, 0));
    runner()
        .run(&strategy, |case| {
            let mut counts = (0, 0);
            for &kind in Kind::ALL {
                counts = compare(kind, &case)?;
            }
            let (a, b) = seen.get();
            seen.set((a + usize::from(counts.0 > 0), b + usize::from(counts.1 > 0)));
            Ok(())
        })
        .unwrap();
    let ((a, b), cases) = (seen.get(), cases() as usize);
    assert!(a * 5 > cases && b * 5 > cases, "{a} {} and {b} {} cases of {cases}", paths[0], paths[1]);
}

/// Whether `compare`, run with a deviation planted, finds a difference within [`cases`]
/// values of `strategy`.
fn caught<S: Strategy>(strategy: S, compare: impl Fn(&S::Value) -> Result<(), TestCaseError>) -> bool {
    runner().run(&strategy, |case| compare(&case)).is_err()
}

/// The whole check of a policy against its reference: [`on_every_structure`] as it is,
/// then, with `planted` planted, the comparison on the reference structure must find a
/// difference.
pub fn agrees_and_catches<S: Strategy, P: Copy>(
    strategy: impl Fn() -> S,
    paths: [&str; 2],
    planted: P,
    compare: impl Fn(Kind, &S::Value, Option<P>) -> Result<(usize, usize), TestCaseError>,
) {
    on_every_structure(strategy(), paths, |kind, case| compare(kind, case, None));
    let found = caught(strategy(), |case| compare(Kind::REFERENCE, case, Some(planted)).map(drop));
    assert!(found, "the planted deviation went unnoticed");
}
