//! `src/rspb/co.rs`: Co-RSPB (Figs 5.1-5.3) and Co-RSBF (Figs 5.4-5.6) on hand-built
//! cases, each decision worked out from the pseudo-code.

use scheduling::rspb::metrics::Metrics;
use scheduling::rspb::Algorithm::{CoRsbf, CoRspb};

use super::{decide, no, on, req, sub, world, yes};

#[test]
fn floating_sub_requests_go_largest_first_each_to_the_tightest_machine_that_has_it() {
    // Sorted 55, 30: 55 fits best on machine 1 (60); then 30 on machine 2 (80 < 100).
    let w = world(&[100, 60, 80], &[], vec![req(1, 5, vec![sub(30, false), sub(55, false)])]);
    assert_eq!(decide(CoRspb, &w), [yes(&[(2, 30), (1, 55)])]);
}

#[test]
fn a_soft_sub_request_takes_the_first_machine_of_greatest_benefit() {
    let w = world(&[50, 50], &[], vec![req(1, 5, vec![sub(40, false), sub(40, false), sub(40, true)])]);
    let d = decide(CoRspb, &w);
    assert_eq!(d, [yes(&[(0, 40), (1, 40), (0, 10)])]);
    assert!((Metrics::new(&w, &d).system_benefit - 0.75).abs() < 1e-12);
}

#[test]
fn a_sub_request_nowhere_rejects_the_request_and_cancels_the_others() {
    // 8 left on each machine, CPU_min 10: both 40s are given back.
    let w = world(&[48, 48], &[], vec![req(1, 5, vec![sub(40, false), sub(40, false), sub(40, true)])]);
    assert_eq!(decide(CoRspb, &w), [no(2)]);
    // The machines are empty again: the same request again fits without its soft part.
    let mut again = w.clone();
    again.requests.push(req(2, 5, vec![sub(40, false), sub(40, false)]));
    assert_eq!(decide(CoRspb, &again), [no(2), yes(&[(0, 40), (1, 40)])]);
}

#[test]
fn fixed_sub_requests_take_their_own_machine_in_their_own_order() {
    let fixed = |machine_b| vec![req(1, 5, vec![on(0, sub(40, true)), on(machine_b, sub(20, false))])];
    // 30 free on machine 0: the soft 40 gets 30, then the hard 20 finds nothing: all undone.
    assert_eq!(decide(CoRspb, &world(&[60, 60], &[(0, 30)], fixed(0))), [no(1)]);
    let w = world(&[60, 60], &[(0, 30)], fixed(1));
    let d = decide(CoRspb, &w);
    assert_eq!(d, [yes(&[(0, 30), (1, 20)])]);
    assert!((Metrics::new(&w, &d).system_benefit - 0.875).abs() < 1e-12);
    // Co-RSBF gives the soft one only its minimum, so both fit on machine 0.
    assert_eq!(decide(CoRsbf, &world(&[60, 60], &[(0, 30)], fixed(0))), [yes(&[(0, 10), (0, 20)])]);
}

#[test]
fn requests_go_by_priority_and_the_benefit_weighs_by_it() {
    let w = world(&[100], &[], vec![req(1, 10, vec![sub(80, false)]), req(2, 90, vec![sub(80, true)])]);
    let d = decide(CoRspb, &w);
    assert_eq!(d, [no(0), yes(&[(0, 80)])]);
    let m = Metrics::new(&w, &d);
    assert_eq!((m.rejected, m.rejected_priority), (1, 10));
    assert!((m.system_benefit - 0.9).abs() < 1e-12);
}

#[test]
fn a_soft_choice_reserves_what_the_chosen_machine_has() {
    let w = world(&[50, 50], &[(0, 20), (1, 40)], vec![req(1, 5, vec![sub(60, true)])]);
    assert_eq!(decide(CoRspb, &w), [yes(&[(0, 30)])]);
}

#[test]
fn co_rsbf_orders_by_the_sum_of_minimums_and_packs_minimums_best_fit() {
    // R1: 60 soft (min 15) + 20 hard, sum 35; R2: 40 hard, sum 40, so R2 goes first.
    let w = world(
        &[50, 70],
        &[],
        vec![req(1, 99, vec![sub(60, true), sub(20, false)]), req(2, 1, vec![sub(40, false)])],
    );
    let d = decide(CoRsbf, &w);
    assert_eq!(d, [yes(&[(1, 15), (1, 20)]), yes(&[(0, 40)])]);
    assert!((Metrics::new(&w, &d).system_benefit - 0.628_75).abs() < 1e-12);
    // Co-RSPB on the same batch: more benefit, one more rejection (section 5.6's pattern).
    let d = decide(CoRspb, &w);
    assert_eq!(d, [yes(&[(1, 60), (0, 20)]), no(0)]);
    assert!((Metrics::new(&w, &d).system_benefit - 0.99).abs() < 1e-12);
}

#[test]
fn co_rsbf_rolls_back_and_breaks_ties_toward_the_first_machine() {
    let w = world(&[30], &[], vec![req(1, 5, vec![sub(25, false), sub(25, true)])]);
    assert_eq!(decide(CoRsbf, &w), [no(1)]);
    let w = world(&[50, 50], &[], vec![req(1, 5, vec![sub(20, true)])]);
    assert_eq!(decide(CoRsbf, &w), [yes(&[(0, 5)])]);
}
