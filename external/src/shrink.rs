//! Delta debugging (Zeller and Hildebrandt's ddmin) over an op list: the smallest list
//! found that still fails the same way, within a bound on attempts. Each attempt runs a
//! fresh child, so the test is whatever the caller's closure does.

/// What shrinking came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shrunk<T> {
    /// The smallest failing list found (the input itself if it did not fail again).
    pub items: Vec<T>,
    /// Attempts made, the first (the whole input) included.
    pub attempts: usize,
    /// Whether the bound on attempts stopped it before the list was 1-minimal.
    pub exhausted: bool,
    /// Whether the whole input failed again on the first attempt.
    pub reproduced: bool,
}

/// Counts attempts and refuses any past the bound.
struct Tester<F> {
    test: F,
    attempts: usize,
    max: usize,
    exhausted: bool,
}

impl<F> Tester<F> {
    fn fails<T>(&mut self, items: &[T]) -> Option<usize>
    where
        F: FnMut(&[T]) -> Option<usize>,
    {
        if self.attempts >= self.max {
            self.exhausted = true;
            return None;
        }
        self.attempts += 1;
        (self.test)(items)
    }
}

/// Shrinks `items` to a list on which `test` still fails. `test` returns the index of
/// the item it failed at (later items are then dropped), or `None` if the list passes.
/// At most `max_attempts` tests are run.
pub fn ddmin<T: Clone>(
    items: Vec<T>,
    max_attempts: usize,
    test: impl FnMut(&[T]) -> Option<usize>,
) -> Shrunk<T> {
    let mut tester = Tester { test, attempts: 0, max: max_attempts, exhausted: false };
    let Some(at) = tester.fails(&items) else {
        return Shrunk { items, attempts: tester.attempts, exhausted: tester.exhausted, reproduced: false };
    };
    let mut items = items;
    items.truncate(at.saturating_add(1));
    let mut n = 2;
    while items.len() >= 2 && !tester.exhausted {
        let len = items.len();
        let chunks: Vec<(usize, usize)> = (0..n).map(|i| (i * len / n, (i + 1) * len / n)).collect();
        let mut next = None;
        for &(lo, hi) in &chunks {
            let subset = items[lo..hi].to_vec();
            if let Some(at) = tester.fails(&subset) {
                next = Some((subset, at, 2));
                break;
            }
        }
        // With two chunks each complement is the other chunk, already tried.
        if next.is_none() && n > 2 {
            for &(lo, hi) in &chunks {
                let complement: Vec<T> = items[..lo].iter().chain(&items[hi..]).cloned().collect();
                if let Some(at) = tester.fails(&complement) {
                    next = Some((complement, at, (n - 1).max(2)));
                    break;
                }
            }
        }
        match next {
            Some((mut smaller, at, granularity)) => {
                smaller.truncate(at + 1);
                items = smaller;
                n = granularity.min(items.len()).max(2);
            }
            None if n >= len => break,
            None => n = (2 * n).min(len),
        }
    }
    Shrunk { items, attempts: tester.attempts, exhausted: tester.exhausted, reproduced: true }
}
