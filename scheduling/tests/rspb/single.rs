//! `src/rspb/single.rs`: RB and RSPB (Fig 4.2) on hand-built cases, each decision worked
//! out from the pseudo-code.

use scheduling::rspb::model::{Held, Request};
use scheduling::rspb::Algorithm::{Rb, Rspb};

use super::{decide, no, req, sub, world, yes};

#[test]
fn rb_keeps_arrival_order_and_rspb_schedules_by_priority() {
    // Lines 11-12: the later, higher-priority request goes first under RSPB.
    let w = world(&[70], &[], vec![req(1, 10, vec![sub(50, false)]), req(2, 90, vec![sub(50, false)])]);
    assert_eq!(decide(Rb, &w), [yes(&[(0, 50)]), no(0)]);
    assert_eq!(decide(Rspb, &w), [no(0), yes(&[(0, 50)])]);
}

#[test]
fn rspb_admits_a_soft_request_with_what_is_left_and_rb_rejects_it() {
    // Lines 24-32, 40: 30 free, CPU_min 15: all 30 reserved.
    let w = world(&[70], &[(0, 40)], vec![req(1, 5, vec![sub(60, true)])]);
    assert_eq!(decide(Rspb, &w), [yes(&[(0, 30)])]);
    assert_eq!(decide(Rb, &w), [no(0)]);
    // With room enough both reserve the whole request.
    let w = world(&[70], &[], vec![req(1, 5, vec![sub(60, true)])]);
    assert_eq!(decide(Rb, &w), [yes(&[(0, 60)])]);
}

#[test]
fn line_38_takes_the_least_average_load_not_the_tightest_or_the_emptiest() {
    let mut w = world(&[70, 70, 70], &[(0, 25), (1, 10)], vec![req(1, 5, vec![sub(40, false)])]);
    // Machine 2 holds 15 over [100, 140) only: the heaviest is 15, the average 6.
    w.held.push(Held { machine: 2, start: 100, end: 140, cpu: 15 });
    assert_eq!(decide(Rspb, &w), [yes(&[(2, 40)])]);
    assert_eq!(decide(Rb, &w), [yes(&[(2, 40)])]);
}

#[test]
fn a_machine_with_all_the_request_beats_any_soft_one_and_soft_ones_compete_on_benefit() {
    let r = || vec![req(1, 5, vec![sub(60, true)])];
    assert_eq!(decide(Rspb, &world(&[70, 70, 70], &[(0, 50), (1, 40)], r())), [yes(&[(2, 60)])]);
    // No hard machine: 30 free gives more benefit than 20.
    assert_eq!(decide(Rspb, &world(&[70, 70, 70], &[(0, 50), (1, 40), (2, 50)], r())), [yes(&[(1, 30)])]);
    // Nowhere even CPU_min: R_nonsatisfy.
    assert_eq!(decide(Rspb, &world(&[70, 70, 70], &[(0, 60), (1, 60), (2, 60)], r())), [no(0)]);
}

#[test]
fn the_heaviest_load_over_a_half_open_window_bounds_what_is_free() {
    let held = |start, end| Held { machine: 0, start, end, cpu: 60 };
    let at = |id, start, duration, cpu| Request { start, duration, ..req(id, 5, vec![sub(cpu, false)]) };
    let mut w = world(&[70], &[], vec![at(1, 140, 20, 20), at(2, 150, 10, 10), at(3, 200, 20, 70)]);
    w.held = vec![held(100, 150), held(150, 200)];
    // 60 at every instant of [140, 160), never 120; [200, 220) touches but misses both.
    assert_eq!(decide(Rspb, &w), [no(0), yes(&[(0, 10)]), yes(&[(0, 70)])]);
}

#[test]
fn chapter_5_requests_are_refused_by_chapter_4_algorithms() {
    let w = world(&[70], &[], vec![req(1, 5, vec![sub(10, false), sub(10, false)])]);
    let err = scheduling::rspb::run(Rspb, &w, structures::Kind::RbTree, false).unwrap_err().to_string();
    assert!(
        err.contains("rspb: request 1: chapter 4's algorithms take requests of one sub-request"),
        "{err}"
    );
}
