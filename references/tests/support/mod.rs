//! What the comparisons with the references share: how many cases they run, running a
//! comparison on every structure while counting the cases that exercise each of two
//! paths, and checking that a planted deviation is caught: one call per policy.

use std::cell::Cell;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};
use structures::Kind;

/// How many cases each comparison runs: 10,000 unless `PROPTEST_CASES` says otherwise.
pub fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(10_000)
}

/// The runner's RNG seed: `PROPTEST_RNG_SEED`'s, else a random one.
fn seed() -> u64 {
    match Config::default().rng_seed {
        RngSeed::Fixed(seed) => seed,
        RngSeed::Random => RandomState::new().build_hasher().finish(),
    }
}

fn runner(seed: u64) -> TestRunner {
    TestRunner::new(Config { cases: cases(), rng_seed: RngSeed::Fixed(seed), ..Config::default() })
}

/// Runs `compare` on every structure for [`cases`] values of `strategy`, failing on the
/// first difference; `compare` counts how often the case took each of two paths (named
/// by `paths`), and at least a fifth of the cases must take each. The structures are
/// split in two halves, each run over the same cases (one seed) on a thread of its own,
/// so a test binary of one comparison uses two cores.
fn on_every_structure<S: Strategy>(
    strategy: impl Fn() -> S + Sync,
    paths: [&str; 2],
    compare: impl Fn(Kind, &S::Value) -> Result<(usize, usize), TestCaseError> + Sync,
) {
    let seen = Cell::new((0, 0));
    let seed = seed();
    let (first, second) = Kind::ALL.split_at(Kind::ALL.len() / 2);
    let run = |kinds: &[Kind], count: &dyn Fn((usize, usize))| {
        runner(seed).run(&strategy(), |case| {
            let mut counts = (0, 0);
            for &kind in kinds {
                counts = compare(kind, &case)?;
            }
            count(counts);
            Ok(())
        })
    };
    std::thread::scope(|scope| {
        let other = scope.spawn(|| run(second, &|_| {}).map_err(|e| e.to_string()));
        let here = run(first, &|counts| {
            let (a, b) = seen.get();
            seen.set((a + usize::from(counts.0 > 0), b + usize::from(counts.1 > 0)));
        });
        let reproduce = format!("PROPTEST_RNG_SEED={seed} runs these cases again");
        here.unwrap_or_else(|e| panic!("{e} ({reproduce})"));
        let other = other.join().expect("the other half's thread ran to its end");
        other.unwrap_or_else(|e| panic!("{e} ({reproduce})"));
    });
    let ((a, b), cases) = (seen.get(), cases() as usize);
    assert!(a * 5 > cases && b * 5 > cases, "{a} {} and {b} {} cases of {cases}", paths[0], paths[1]);
}

/// Whether `compare`, run with a deviation planted, finds a difference within [`cases`]
/// values of `strategy`.
fn caught<S: Strategy>(strategy: S, compare: impl Fn(&S::Value) -> Result<(), TestCaseError>) -> bool {
    runner(seed()).run(&strategy, |case| compare(&case)).is_err()
}

/// The whole check of a policy against its reference: [`on_every_structure`] as it is,
/// then, with `planted` planted, the comparison on the reference structure must find a
/// difference.
pub fn agrees_and_catches<S: Strategy, P: Copy + Sync>(
    strategy: impl Fn() -> S + Sync,
    paths: [&str; 2],
    planted: P,
    compare: impl Fn(Kind, &S::Value, Option<P>) -> Result<(usize, usize), TestCaseError> + Sync,
) {
    on_every_structure(&strategy, paths, |kind, case| compare(kind, case, None));
    let found = caught(strategy(), |case| compare(Kind::REFERENCE, case, Some(planted)).map(drop));
    assert!(found, "the planted deviation went unnoticed");
}
