//! `src/rspb/table.rs`: one machine's time slot table in a structure. What is free over
//! a window is the dedication less its heaviest load; a mark or a cancellation takes one
//! op per stretch of constant load, keeping the busy ids at the bottom (which every
//! verified run checks after each event).

use scheduling::rspb::model::{Held, Request, Workload};
use scheduling::rspb::{run, Algorithm};
use structures::Kind;

use super::{decide, no, req, sub, world, yes};

/// A request for `cpu` (hard) over `[start, start + duration)`, in the event at 50.
fn at(id: u64, priority: u32, start: u64, duration: u64, cpu: u32) -> Request {
    Request { start, duration, ..req(id, priority, vec![sub(cpu, false)]) }
}

/// One machine of 100 holding `first` over [100, 150) and `second` over [150, 200).
fn stepped(first: u32, second: u32, requests: Vec<Request>) -> Workload {
    let mut w = world(&[100], &[], requests);
    w.held = vec![
        Held { machine: 0, start: 100, end: 150, cpu: first },
        Held { machine: 0, start: 150, end: 200, cpu: second },
    ];
    w
}

#[test]
fn what_is_free_over_a_window_is_the_dedication_less_its_heaviest_load() {
    // Loads 20 then 40. A (30 over both) sees 60 free; B (30) then 30; C (20 over the
    // first half only, at 80) 20; D nothing; E after both, all 100.
    let w = stepped(
        20,
        40,
        vec![
            at(1, 5, 100, 100, 30),
            at(2, 5, 100, 100, 30),
            at(3, 5, 100, 50, 20),
            at(4, 5, 100, 50, 1),
            at(5, 5, 200, 100, 100),
        ],
    );
    assert_eq!(
        decide(Algorithm::Rb, &w),
        [yes(&[(0, 30)]), yes(&[(0, 30)]), yes(&[(0, 20)]), no(0), yes(&[(0, 100)])]
    );
}

#[test]
fn a_mark_allocates_once_per_stretch_of_constant_load() {
    // Holding each half: free frames and one allocation, twice. Then the event's
    // advance, A's check and load (free frames), and A's mark: free frames and one
    // allocation per stretch under the window.
    let ops = |first, second| {
        let w = stepped(first, second, vec![at(1, 5, 100, 100, 30)]);
        let counted: Vec<u64> =
            Kind::ALL.iter().map(|&k| run(Algorithm::Rb, &w, k, true).unwrap().ops).collect();
        assert!(counted.iter().all(|&n| n == counted[0]), "{counted:?}");
        counted[0]
    };
    assert_eq!(ops(20, 40), 4 + 1 + 2 + 1 + 2);
    // Equal loads on both halves are one stretch.
    assert_eq!(ops(20, 20), 4 + 1 + 2 + 1 + 1);
}

#[test]
fn a_cancellation_across_stretches_gives_back_exactly_what_was_marked() {
    // Co-RSPB marks R1's first 50 over loads 20 and 40, finds 10 for its second, and
    // cancels the first. R2 (lower priority, so after) then finds the 60 there was.
    let w = stepped(
        20,
        40,
        vec![req(1, 9, vec![sub(50, false), sub(50, false)]), req(2, 1, vec![sub(60, false)])],
    );
    assert_eq!(decide(Algorithm::CoRspb, &w), [no(1), yes(&[(0, 60)])]);
}
