//! `src/external/shrink.rs`: ddmin on lists whose failure is known.

use external::shrink::ddmin;

/// Fails at the later of 3 and 7 when both are in the list.
fn needs_3_and_7(items: &[u32]) -> Option<usize> {
    let at = |x| items.iter().position(|&i| i == x);
    Some(at(3)?.max(at(7)?))
}

#[test]
fn it_finds_the_two_items_that_matter() {
    let shrunk = ddmin((0..100).collect(), 1_000, needs_3_and_7);
    assert_eq!(shrunk.items, [3, 7]);
    assert!(shrunk.reproduced && !shrunk.exhausted);
    assert!(shrunk.attempts < 100, "{}", shrunk.attempts);
}

#[test]
fn it_drops_what_follows_the_failure_and_keeps_order() {
    let shrunk = ddmin(vec![7, 1, 2, 3, 4, 5], 1_000, needs_3_and_7);
    assert_eq!(shrunk.items, [7, 3]);
}

#[test]
fn it_stops_at_the_bound_on_attempts() {
    let mut calls = 0;
    let shrunk = ddmin((0..100).collect(), 5, |items: &[u32]| {
        calls += 1;
        needs_3_and_7(items)
    });
    assert_eq!((calls, shrunk.attempts), (5, 5));
    assert!(shrunk.exhausted && shrunk.reproduced);
    assert!(shrunk.items.contains(&3) && shrunk.items.contains(&7));
}

#[test]
fn a_list_that_passes_is_returned_whole() {
    let shrunk = ddmin(vec![1, 2], 10, needs_3_and_7);
    assert_eq!((shrunk.items, shrunk.reproduced, shrunk.attempts), (vec![1, 2], false, 1));
    let empty = ddmin(Vec::<u32>::new(), 10, |_| Some(0));
    assert!(empty.items.is_empty() && empty.reproduced);
}
