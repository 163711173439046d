//! The profile structures: rbtree-availability-profile's worked example, the specific errors (with the
//! state unchanged), and deep trees under many updates with `validate()` after each.

use structures::{AvailabilityIndex, Config, Cost, Error, Kind, RangeSet, RbTreeProfile, TimeFrame};

/// The structures this file tests: the profile on its four containers, and in flat arrays.
const PROFILES: [Kind; 5] = [Kind::RbTree, Kind::SortedList, Kind::BTree, Kind::AugTree, Kind::Flat];

fn ids(lo: u32, hi: u32) -> RangeSet {
    RangeSet::from_range(lo, hi)
}

/// rbtree-availability-profile's example machine (section III): 13 resources. The paper's Figure 2 is not in its text,
/// so the queue is reconstructed to match what the text says of it: the anchor of a
/// reservation 220–700 is an earlier entry, and the request for 2 resources is accepted
/// by intersecting the ranges of the entries before 700.
fn worked_example(kind: Kind) -> Box<dyn AvailabilityIndex> {
    let mut index = kind.build(13, Config::default()).unwrap();
    index.allocate(0, 300, &ids(0, 5)).unwrap();
    index.allocate(150, 500, &ids(5, 9)).unwrap();
    index.allocate(400, 800, &ids(11, 13)).unwrap();
    index.validate().unwrap();
    index
}

/// Everything observable about the state: the present and the free space.
fn snapshot(index: &dyn AvailabilityIndex) -> (u64, Vec<TimeFrame>) {
    (index.now(), index.free_frames(index.now(), 10_000).unwrap())
}

#[test]
fn worked_example_accepts_the_reservation_by_intersecting_along_the_list() {
    for kind in PROFILES {
        let index = worked_example(kind);
        // Entries at 0, 150, 300, 400, 500, 800; the anchor for 220 is the one at 150.
        assert_eq!(index.check(220, 700, 2), Ok(Some(ids(9, 11))), "{kind}");
        let cost = index.last_cost().unwrap();
        assert_eq!((cost.visited, cost.worst), (4, 5), "{kind}");
        assert_eq!(index.check(220, 700, 3), Ok(None), "{kind}");
        // The walk stops at the entry where fewer than 3 remain (400).
        assert_eq!(index.last_cost().unwrap().visited, 3, "{kind}");
    }
}

#[test]
fn earliest_never_starts_before_ready_and_stays_within_its_worst_case() {
    for kind in PROFILES {
        let index = worked_example(kind);
        let frame = index.earliest(220, 480, 2).unwrap().unwrap();
        assert_eq!(frame, TimeFrame { start: 220, end: 700, free: ids(9, 11) }, "{kind}");
        // 10 resources for 100: not before A ends at 300, where B still holds 5..9.
        let frame = index.earliest(120, 100, 10).unwrap().unwrap();
        assert_eq!((frame.start, frame.free.count()), (500, 11), "{kind}");
        let Cost { visited, worst, .. } = index.last_cost().unwrap();
        assert!(visited <= worst, "{kind}: {visited} > {worst}");
    }
}

#[test]
fn refused_updates_name_the_ids_and_change_nothing() {
    for kind in PROFILES {
        let mut index = worked_example(kind);
        let before = snapshot(index.as_ref());
        // 3 and 4 are A's from 0; 5 and 6 are B's from 150.
        let busy = index.allocate(100, 200, &ids(3, 7)).unwrap_err();
        assert_eq!(busy, Error::NotFree { start: 100, end: 200, busy: ids(3, 7) }, "{kind}");
        assert_eq!(busy.to_string(), "resources {3..7} are not free throughout [100, 200)");
        // A holds 0..5 until 300 only.
        let free = index.release(200, 400, &ids(0, 2)).unwrap_err();
        assert_eq!(free, Error::NotAllocated { start: 200, end: 400, free: ids(0, 2) }, "{kind}");
        assert_eq!(snapshot(index.as_ref()), before, "{kind}");
        index.validate().unwrap();
        // Its tail is allocated: a job that ends early releases it.
        index.release(250, 300, &ids(0, 5)).unwrap();
        assert_eq!(index.check(250, 300, 9), Ok(Some(ids(0, 5).union(&ids(9, 13)))));
        index.validate().unwrap();
    }
}

#[test]
fn released_entries_are_removed_and_shared_entries_kept() {
    let mut index = RbTreeProfile::new(4, Config::default()).unwrap();
    index.allocate(10, 20, &ids(0, 1)).unwrap();
    index.allocate(10, 30, &ids(1, 2)).unwrap();
    // Both reservations start at 10 and share its entry.
    assert_eq!(index.entries().map(|(t, _)| t).collect::<Vec<_>>(), [0, 10, 20, 30]);
    index.release(10, 30, &ids(1, 2)).unwrap();
    index.release(10, 20, &ids(0, 1)).unwrap();
    assert_eq!(index.size(), 1);
    index.validate().unwrap();
}

#[test]
fn advance_forgets_the_past_and_refuses_it_afterwards() {
    for kind in PROFILES {
        let mut index = worked_example(kind);
        index.advance(350).unwrap();
        index.validate().unwrap();
        assert_eq!(index.check(340, 360, 1), Err(Error::BeforePast { time: 340, now: 350 }));
        assert_eq!(index.advance(349), Err(Error::BeforePast { time: 349, now: 350 }));
        assert_eq!(index.check(350, 360, 1), Ok(Some(ids(0, 5).union(&ids(9, 13)))));
    }
}

#[test]
fn frames_round_trip_through_load_frames() {
    for kind in PROFILES {
        let index = worked_example(kind);
        let frames = index.free_frames(0, 1000).unwrap();
        let mut rebuilt = kind.build(13, Config::default()).unwrap();
        rebuilt.load_frames(&frames).unwrap();
        rebuilt.validate().unwrap();
        assert_eq!(rebuilt.free_frames(0, 1000).unwrap(), frames, "{kind}");
        // Beyond the frames nothing is free.
        assert_eq!(rebuilt.check(1000, 1001, 1), Ok(None), "{kind}");
    }
}

/// Deep trees: thousands of entries inserted and removed in scrambled order.
#[test]
fn deep_trees_stay_valid_under_many_updates() {
    for kind in PROFILES {
        let mut index = kind.build(8, Config::default()).unwrap();
        let starts: Vec<u64> = (0..1500u64).map(|i| (i * 7919) % 1500 * 10).collect();
        for (i, &s) in starts.iter().enumerate() {
            index.allocate(s, s + 5, &ids(i as u32 % 8, i as u32 % 8 + 1)).unwrap();
            if i % 97 == 0 {
                index.validate().unwrap();
            }
        }
        index.validate().unwrap();
        for (i, &s) in starts.iter().enumerate().rev() {
            index.release(s + 2, s + 5, &ids(i as u32 % 8, i as u32 % 8 + 1)).unwrap();
            index.release(s, s + 2, &ids(i as u32 % 8, i as u32 % 8 + 1)).unwrap();
            if i % 89 == 0 {
                index.validate().unwrap();
            }
        }
        index.validate().unwrap();
        assert_eq!(
            index.free_frames(0, 20_000).unwrap(),
            vec![TimeFrame { start: 0, end: 20_000, free: ids(0, 8) }]
        );
    }
}

/// A deep backlog of short gaps: `augtree` descends past the runs too short for the
/// duration instead of walking them, and answers as the paper's tree does.
#[test]
fn augtree_descends_past_runs_too_short_for_the_duration() {
    let build = |kind: Kind| {
        let mut index = kind.build(64, Config::default()).unwrap();
        // 2,000 gaps of 10 with all 64 ids free, each followed by 10 with 4 free.
        for i in 0..2000u64 {
            index.allocate(20 * i + 10, 20 * i + 20, &ids(0, 60)).unwrap();
        }
        index
    };
    let (paper, skipping) = (build(Kind::RbTree), build(Kind::AugTree));
    skipping.validate().unwrap();
    for (ready, duration, n) in [(0, 15, 32), (0, 10, 32), (5, 10, 48), (0, 15, 4), (15, 25, 3), (0, 15, 5)] {
        let want = paper.earliest(ready, duration, n).unwrap();
        assert_eq!(skipping.earliest(ready, duration, n).unwrap(), want, "{ready} {duration} {n}");
    }
    // 32 ids for 15 fit only after the backlog: the paper's tree walks every gap.
    assert_eq!(paper.earliest(0, 15, 32).unwrap().unwrap().start, 40_000);
    let walked = paper.last_cost().unwrap();
    skipping.earliest(0, 15, 32).unwrap();
    let skipped = skipping.last_cost().unwrap();
    assert!(walked.visited >= 2000, "{walked:?}");
    assert!(skipped.visited + skipped.search <= 100, "{skipped:?}");
}

/// After a change, `augtree` starts a search where an earlier answer for a request no
/// larger, no longer and no later started, and forgets every answer on a release; on
/// an unchanged state it searches anew. The backlog has 32 ids free throughout, but
/// never the same 32 for more than 10, which no count can rule out.
#[test]
fn augtree_starts_a_search_at_an_earlier_answer_until_a_release() {
    let build = |kind: Kind| {
        let mut index = kind.build(64, Config::default()).unwrap();
        for i in 0..2000u64 {
            index.allocate(20 * i, 20 * i + 10, &ids(0, 32)).unwrap();
            index.allocate(20 * i + 10, 20 * i + 20, &ids(32, 64)).unwrap();
        }
        index
    };
    let (mut paper, mut skipping) = (build(Kind::RbTree), build(Kind::AugTree));
    let answers = |paper: &dyn AvailabilityIndex, skipping: &dyn AvailabilityIndex, (ready, duration, n)| {
        let want = paper.earliest(ready, duration, n).unwrap();
        assert_eq!(skipping.earliest(ready, duration, n).unwrap(), want, "{ready} {duration} {n}");
        skipping.validate().unwrap();
        (want.map(|frame| frame.start), skipping.last_cost().unwrap())
    };
    let (start, cold) = answers(&*paper, &*skipping, (0, 15, 32));
    assert_eq!(start, Some(39_990));
    // Unchanged: the same search again.
    assert_eq!(answers(&*paper, &*skipping, (0, 15, 32)).1, cold);
    // After an allocation elsewhere: from the answer, for it and for larger, longer and
    // later requests; not for a smaller one.
    for index in [&mut paper, &mut skipping] {
        index.allocate(50_000, 50_010, &ids(0, 1)).unwrap();
    }
    for request in [(0, 15, 32), (5, 15, 40), (0, 30, 32)] {
        let (start, warm) = answers(&*paper, &*skipping, request);
        assert!(start >= Some(39_990), "{request:?}");
        assert!(
            warm.visited + warm.search <= 50 && cold.visited > 1000,
            "{request:?}: {warm:?} against {cold:?}"
        );
    }
    assert_eq!(answers(&*paper, &*skipping, (0, 10, 32)).0, Some(0));
    // A release frees a window before the answer: every answer is forgotten.
    for index in [&mut paper, &mut skipping] {
        index.release(10, 20, &ids(32, 64)).unwrap();
        index.allocate(60_000, 60_010, &ids(0, 1)).unwrap();
    }
    assert_eq!(answers(&*paper, &*skipping, (0, 15, 32)).0, Some(0));
}

quickcheck::quickcheck! {
    /// `augtree` rebuilds a small subtree's summary entry by entry with `push`; it must
    /// equal `join` with an empty right, which builds the kept ones (gaps near `u32::MAX`
    /// make the stretch too wide for offsets).
    fn augtree_push_is_a_join_with_an_empty_right(entries: Vec<(u32, bool, u16)>) -> bool {
        use structures::profile::{Runs, Summary};
        let (mut pushed, mut joined) = (Runs::default(), Runs::default());
        for (key, own) in stretch(entries) {
            pushed.push(key, own);
            joined = Runs::join(key, own, &joined, &Runs::default());
            if pushed != joined {
                return false;
            }
        }
        true
    }
}

quickcheck::quickcheck! {
    /// A summary depends on the entries alone: `join` of the stretches before and
    /// after an entry equals the whole stretch built entry by entry, at every level
    /// (the levels past `top` and the unused fields 0 in both).
    fn augtree_join_is_the_stretch_built_entry_by_entry(entries: Vec<(u32, bool, u16)>, at: usize) -> bool {
        use structures::profile::{Runs, Summary};
        // Mostly narrow stretches: one huge gap makes the whole stretch wide.
        let keyed = stretch(entries.into_iter().map(|(gap, huge, own)| (gap, huge && gap % 16 == 0, own)).collect());
        if keyed.is_empty() {
            return true;
        }
        let at = at % keyed.len();
        let (key, own) = keyed[at];
        Runs::join(key, own, &runs_of(&keyed[..at]), &runs_of(&keyed[at + 1..])) == runs_of(&keyed)
    }
}

/// The keys and free counts of a stretch from quickcheck's gaps (a gap near `u32::MAX`
/// makes the stretch too wide for offsets).
fn stretch(entries: Vec<(u32, bool, u16)>) -> Vec<(u64, u32)> {
    let mut key = 0u64;
    let mut keyed = Vec::new();
    for (gap, huge, own) in entries {
        key += if huge { u64::from(u32::MAX - gap % 4) } else { u64::from(gap % 1000) + 1 };
        keyed.push((key, u32::from(own) % 3000));
    }
    keyed
}

/// A stretch's runs, built entry by entry.
fn runs_of(entries: &[(u64, u32)]) -> structures::profile::Runs {
    use structures::profile::{Runs, Summary};
    let mut runs = Runs::default();
    for &(key, own) in entries {
        runs.push(key, own);
    }
    runs
}

#[test]
fn augtree_an_entry_differs_only_across_a_threshold() {
    use structures::profile::{Runs, Summary};
    // The thresholds are 1, 2, 4, ..., 1024; a count of 1024 or more is at the last.
    for (old, new, differs) in [(0, 1, true), (2, 3, false), (3, 4, true), (5, 7, false), (1024, 1152, false)]
    {
        assert_eq!(Runs::differs(old, new), differs, "{old} -> {new}");
    }
}

quickcheck::quickcheck! {
    /// `advance` moves the first key under every summary on the left spine in place; the
    /// result must be the stretch built again with the moved key, and the move is refused
    /// only where a wide stretch becomes narrow (its levels must be computed).
    fn augtree_rekey_first_is_the_stretch_with_its_first_key_moved(entries: Vec<(u32, bool, u16)>, by: u64) -> bool {
        use structures::profile::Summary;
        let mut keyed = stretch(entries);
        let (Some(&(first, own)), Some(&(last, _))) = (keyed.first(), keyed.last()) else { return true };
        // Anywhere from the first key to just below the second (or well past a lone one).
        let room = keyed.get(1).map_or(1 << 40, |&(second, _)| second - first);
        let moved = first + by % room;
        let mut runs = runs_of(&keyed);
        keyed[0] = (moved, own);
        let want = runs_of(&keyed);
        let limit = u64::from(u32::MAX);
        let (was_wide, is_wide) = (last - first > limit, keyed.len() > 1 && last - moved > limit);
        if runs.rekey_first(moved) {
            runs == want
        } else {
            was_wide && !is_wide
        }
    }

    /// An update marks an entry stale only where its free count crosses a threshold;
    /// where it does not, the stretch's runs must be as they were.
    fn augtree_an_entry_that_does_not_differ_leaves_the_runs(entries: Vec<(u32, bool, u16)>, at: usize, new: u16) -> bool {
        use structures::profile::{Runs, Summary};
        let mut keyed = stretch(entries);
        if keyed.is_empty() {
            return true;
        }
        let i = at % keyed.len();
        let (old, new) = (keyed[i].1, u32::from(new) % 3000);
        let before = runs_of(&keyed);
        keyed[i].1 = new;
        Runs::differs(old, new) || runs_of(&keyed) == before
    }
}
