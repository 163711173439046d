//! `RangeSet` algebra against a `BTreeSet<u32>` model (quickcheck).

use std::collections::BTreeSet;

use quickcheck::{quickcheck, TestResult};
use structures::range_set::INLINE_IDS;
use structures::RangeSet;

/// Small ids so that ranges overlap and touch often: below 64 (an inline bitset), or 48
/// on either side of `INLINE_IDS` when `across`, so that both forms and their mixes meet.
fn model_at(ranges: &[(u8, u8)], across: bool) -> (RangeSet, BTreeSet<u32>) {
    let base = if across { INLINE_IDS - 48 } else { 0 };
    let ranges: Vec<(u32, u32)> =
        ranges.iter().map(|&(a, b)| (base + u32::from(a % 96), base + u32::from(b % 96))).collect();
    let set = RangeSet::from_ranges(ranges.iter().copied());
    let ids = ranges.iter().flat_map(|&(lo, hi)| lo..hi).collect();
    (set, ids)
}

fn is_canonical(set: &RangeSet) -> bool {
    let r: Vec<_> = set.ranges().collect();
    r.iter().all(|&(lo, hi)| lo < hi) && r.windows(2).all(|w| w[0].1 < w[1].0)
}

quickcheck! {
    /// `clone_from` copies only the words either set uses; a word of the old set left
    /// behind would show in a union reaching past the new set's words.
    fn clone_from_leaves_the_source_and_nothing_of_the_old(a: Vec<(u8, u8)>, x: bool, b: Vec<(u8, u8)>, y: bool) -> bool {
        let ((mut to, _), (from, ids)) = (model_at(&a, x), model_at(&b, y));
        to.clone_from(&from);
        let reach = RangeSet::from_range(95, 96);
        to == from && to.iter().collect::<BTreeSet<_>>() == ids && to.union(&reach) == from.union(&reach)
    }

    fn normalises_to_the_same_ids(a: Vec<(u8, u8)>, x: bool) -> bool {
        let (set, ids) = model_at(&a, x);
        is_canonical(&set) && set.iter().collect::<BTreeSet<_>>() == ids && set.count() == ids.len() as u64
    }

    fn equality_is_set_equality(a: Vec<(u8, u8)>, b: Vec<(u8, u8)>, xa: bool, xb: bool) -> bool {
        let ((sa, ma), (sb, mb)) = (model_at(&a, xa), model_at(&b, xb));
        (sa == sb) == (ma == mb)
    }

    fn intersect_subtract_union_match_the_model(a: Vec<(u8, u8)>, b: Vec<(u8, u8)>, xa: bool, xb: bool) -> bool {
        let ((sa, ma), (sb, mb)) = (model_at(&a, xa), model_at(&b, xb));
        let checks = [
            (sa.intersect(&sb), ma.intersection(&mb).copied().collect::<BTreeSet<_>>()),
            (sa.subtract(&sb), ma.difference(&mb).copied().collect()),
            (sa.union(&sb), ma.union(&mb).copied().collect()),
        ];
        // `==` against a set built from the ids checks that both take the one canonical form.
        checks.iter().all(|(s, m)| is_canonical(s) && s.iter().collect::<BTreeSet<_>>() == *m && *s == RangeSet::from_ids(m.iter().copied()))
            && sa.is_subset(&sb) == ma.is_subset(&mb)
    }

    /// One pass intersects and counts: the set left is the intersection, and the count
    /// is its size.
    fn intersect_count_leaves_the_intersection_and_counts_it(a: Vec<(u8, u8)>, b: Vec<(u8, u8)>, xa: bool, xb: bool) -> bool {
        let ((mut sa, ma), (sb, mb)) = (model_at(&a, xa), model_at(&b, xb));
        let both: BTreeSet<u32> = ma.intersection(&mb).copied().collect();
        let count = sa.intersect_count(&sb);
        count == both.len() as u64 && is_canonical(&sa) && sa == RangeSet::from_ids(both.iter().copied())
    }

    fn contains_matches_the_model(a: Vec<(u8, u8)>, id: u8, x: bool) -> bool {
        let (set, ids) = model_at(&a, x);
        let id = if x { INLINE_IDS - 50 } else { 0 } + u32::from(id % 100);
        set.contains(id) == ids.contains(&id)
    }

    fn first_takes_the_lowest_ids(a: Vec<(u8, u8)>, n: u8, x: bool) -> TestResult {
        let (set, ids) = model_at(&a, x);
        let n = u64::from(n % 100);
        match set.first(n) {
            None => TestResult::from_bool(n > ids.len() as u64),
            Some(low) => TestResult::from_bool(
                is_canonical(&low) && low.iter().collect::<Vec<_>>() == ids.iter().copied().take(n as usize).collect::<Vec<_>>(),
            ),
        }
    }

    fn from_ids_takes_ids_in_any_order_with_repeats(ids: Vec<u8>, x: bool) -> bool {
        let base = if x { INLINE_IDS - 48 } else { 0 };
        let ids: Vec<u32> = ids.iter().map(|&id| base + u32::from(id % 96)).collect();
        let set = RangeSet::from_ids(ids.iter().copied());
        let model: BTreeSet<u32> = ids.iter().copied().collect();
        is_canonical(&set) && set.iter().collect::<BTreeSet<_>>() == model
            && set == RangeSet::from_ranges(ids.iter().map(|&id| (id, id + 1)))
    }

    fn serde_round_trips(a: Vec<(u8, u8)>, x: bool) -> bool {
        let (set, _) = model_at(&a, x);
        let json = serde_json::to_string(&set).unwrap();
        serde_json::from_str::<RangeSet>(&json).unwrap() == set
    }
}

#[test]
fn displays_half_open_ranges_and_single_ids() {
    let set = RangeSet::from_ranges([(0, 4), (7, 8)]);
    assert_eq!(set.to_string(), "{0..4, 7}");
    assert_eq!(RangeSet::new().to_string(), "{}");
}

#[test]
fn ids_at_the_top_of_u32_do_not_overflow() {
    let set = RangeSet::from_ids([u32::MAX - 1, u32::MAX]);
    assert_eq!(set.ranges().collect::<Vec<_>>(), [(u32::MAX - 1, u32::MAX)]);
    assert_eq!(RangeSet::full(u32::MAX).count(), u64::from(u32::MAX));
}

/// `first` cuts a word at every count: a full word, and every other id over two words.
#[test]
fn first_cuts_a_word_at_every_count() {
    for ids in [(0..64).collect::<Vec<u32>>(), (0..128).step_by(2).collect()] {
        let set = RangeSet::from_ids(ids.iter().copied());
        for n in 1..=ids.len() {
            assert_eq!(set.first(n as u64), Some(RangeSet::from_ids(ids[..n].iter().copied())), "n = {n}");
        }
        assert_eq!(set.first(ids.len() as u64 + 1), None);
    }
}
