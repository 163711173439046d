//! `RangeSet` algebra against a `BTreeSet<u32>` model (quickcheck).

use std::collections::BTreeSet;

use quickcheck::{quickcheck, TestResult};
use structures::RangeSet;

/// Small ids so that ranges overlap and touch often.
fn model(ranges: &[(u8, u8)]) -> (RangeSet, BTreeSet<u32>) {
    let ranges: Vec<(u32, u32)> =
        ranges.iter().map(|&(a, b)| (u32::from(a % 64), u32::from(b % 64))).collect();
    let set = RangeSet::from_ranges(ranges.iter().copied());
    let ids = ranges.iter().flat_map(|&(lo, hi)| lo..hi).collect();
    (set, ids)
}

fn is_canonical(set: &RangeSet) -> bool {
    let r = set.ranges();
    r.iter().all(|&(lo, hi)| lo < hi) && r.windows(2).all(|w| w[0].1 < w[1].0)
}

quickcheck! {
    fn normalises_to_the_same_ids(a: Vec<(u8, u8)>) -> bool {
        let (set, ids) = model(&a);
        is_canonical(&set) && set.iter().collect::<BTreeSet<_>>() == ids && set.count() == ids.len() as u64
    }

    fn equality_is_set_equality(a: Vec<(u8, u8)>, b: Vec<(u8, u8)>) -> bool {
        let ((sa, ma), (sb, mb)) = (model(&a), model(&b));
        (sa == sb) == (ma == mb)
    }

    fn intersect_subtract_union_match_the_model(a: Vec<(u8, u8)>, b: Vec<(u8, u8)>) -> bool {
        let ((sa, ma), (sb, mb)) = (model(&a), model(&b));
        let checks = [
            (sa.intersect(&sb), ma.intersection(&mb).copied().collect::<BTreeSet<_>>()),
            (sa.subtract(&sb), ma.difference(&mb).copied().collect()),
            (sa.union(&sb), ma.union(&mb).copied().collect()),
        ];
        checks.iter().all(|(s, m)| is_canonical(s) && s.iter().collect::<BTreeSet<_>>() == *m)
            && sa.is_subset(&sb) == ma.is_subset(&mb)
    }

    fn contains_matches_the_model(a: Vec<(u8, u8)>, id: u8) -> bool {
        let (set, ids) = model(&a);
        let id = u32::from(id % 70);
        set.contains(id) == ids.contains(&id)
    }

    fn first_takes_the_lowest_ids(a: Vec<(u8, u8)>, n: u8) -> TestResult {
        let (set, ids) = model(&a);
        let n = u64::from(n % 70);
        match set.first(n) {
            None => TestResult::from_bool(n > ids.len() as u64),
            Some(low) => TestResult::from_bool(
                is_canonical(&low) && low.iter().collect::<Vec<_>>() == ids.iter().copied().take(n as usize).collect::<Vec<_>>(),
            ),
        }
    }

    fn serde_round_trips(a: Vec<(u8, u8)>) -> bool {
        let (set, _) = model(&a);
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
    assert_eq!(set.ranges(), &[(u32::MAX - 1, u32::MAX)]);
    assert_eq!(RangeSet::full(u32::MAX).count(), u64::from(u32::MAX));
}
