//! `src/rspb/refine.rs`: Co-RSBFR's refineScheduling (Fig 5.8) on hand-built cases, each
//! decision worked out from the pseudo-code.

use scheduling::rspb::model::Request;
use scheduling::rspb::Algorithm::{CoRsbf, CoRsbfr, CoRspb};

use super::{decide, no, on, req, sub, world, yes};

#[test]
fn a_soft_sub_request_moves_to_a_machine_with_all_it_asks_for() {
    // Co-RSBF: 15 on machine 1 (tighter); refined: 60 on machine 0.
    let w = world(&[100, 50], &[], vec![req(1, 5, vec![sub(60, true)])]);
    assert_eq!(decide(CoRsbf, &w), [yes(&[(1, 15)])]);
    assert_eq!(decide(CoRsbfr, &w), [yes(&[(0, 60)])]);
}

#[test]
fn the_second_round_grows_a_reservation_into_what_another_left() {
    // Co-RSBF: j (80, min 20) then i (40, min 10), both on machine 0. Round 1: j grows to
    // 22; i moves to machine 1 (15 gives more than 10). Round 2: j takes the 10 i left.
    let w = world(&[32, 15], &[], vec![req(1, 5, vec![sub(80, true), sub(40, true)])]);
    assert_eq!(decide(CoRsbf, &w), [yes(&[(0, 20), (0, 10)])]);
    assert_eq!(decide(CoRsbfr, &w), [yes(&[(0, 32), (1, 15)])]);
}

#[test]
fn refining_rejects_nothing_in_its_batch_but_can_cost_a_later_one() {
    let a = req(1, 5, vec![sub(80, true)]);
    let b = Request { arrival: 60, start: 150, ..req(2, 5, vec![sub(40, false)]) };
    // Two events: A at 50, B at 100. A's refined 80 leaves B's 40 no room.
    let w = world(&[100], &[], vec![a.clone(), b.clone()]);
    assert_eq!(decide(CoRsbf, &w), [yes(&[(0, 20)]), yes(&[(0, 40)])]);
    assert_eq!(decide(CoRsbfr, &w), [yes(&[(0, 80)]), no(0)]);
    assert_eq!(decide(CoRspb, &w), [yes(&[(0, 80)]), no(0)]);
    // In one batch B goes first (sum 40 > 20): both admitted, A refined to what is left.
    let one = world(&[100], &[], vec![a, Request { arrival: 0, ..b }]);
    assert_eq!(decide(CoRsbf, &one), [yes(&[(0, 20)]), yes(&[(0, 40)])]);
    assert_eq!(decide(CoRsbfr, &one), [yes(&[(0, 60)]), yes(&[(0, 40)])]);
}

#[test]
fn a_fixed_request_grows_in_place_and_hard_ones_are_left_alone() {
    // Machine 1 has all 60, but the request is fixed on machine 0: it grows to 40 there.
    let w = world(&[50, 100], &[(0, 10)], vec![req(1, 5, vec![on(0, sub(60, true))])]);
    assert_eq!(decide(CoRsbfr, &w), [yes(&[(0, 40)])]);
    let w = world(&[100], &[], vec![req(1, 5, vec![sub(30, false)])]);
    assert_eq!(decide(CoRsbfr, &w), [yes(&[(0, 30)])]);
}
