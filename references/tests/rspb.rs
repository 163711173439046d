//! `src/rspb/` against `scheduling::rspb`: on random small workloads (a few machines,
//! tens of requests collected into meta-requests), each of the five algorithms admits or
//! rejects every request as the reference does, at the same sub-request, with the same
//! machine and CPU for every sub-request and the same meta-requests, on every structure;
//! and the deviation planted in each is caught.

mod support;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use references::rspb::{self as reference, Shape as RefShape};
use scheduling::rspb::model::{Held, Request, Shape, Sub, Workload};
use scheduling::rspb::{run, run_planted, Algorithm, Decision, Placed, Planted};
use structures::Kind;
use support::agrees_and_catches;

/// The furthest a window ends past its request's arrival.
const HORIZON: u64 = 64;

/// Machines giving 40 to 100 % in steps of 10, so that they often tie.
fn machines() -> impl Strategy<Value = Vec<u32>> {
    proptest::collection::vec((4u32..=10).prop_map(|d| 10 * d), 1..=4)
}

/// Up to two reservations each machine holds from the start, each of at most half its
/// dedication, for up to 24 time units from up to 40.
fn held(dedication: &[u32]) -> impl Strategy<Value = Vec<Held>> {
    let per_machine: Vec<_> = dedication
        .iter()
        .enumerate()
        .map(|(machine, &d)| {
            let one = (0u64..40, 1u64..24, 1..=d / 2).prop_map(move |(start, length, cpu)| Held {
                machine,
                start,
                end: start + length,
                cpu,
            });
            proptest::collection::vec(one, 0..=2)
        })
        .collect();
    per_machine.prop_map(|held| held.concat())
}

/// A workload of `machines` holding [`held`] reservations, tens of requests arriving 0
/// to 5 apart, each for up to 20 time units from up to 20 after its arrival (so some
/// close their meta-request at once), of priority 1 to 5, with `subs` as its
/// sub-requests, collected for 1 to 20.
fn workload<S: Strategy<Value = Vec<Sub>>>(subs: impl Fn(usize) -> S) -> impl Strategy<Value = Workload> {
    machines()
        .prop_flat_map(move |dedication| {
            let request = (0u64..6, 0u64..20, 1u64..20, 1u32..=5, subs(dedication.len()));
            (held(&dedication), Just(dedication), proptest::collection::vec(request, 5..30), 1u64..20)
        })
        .prop_map(|(held, dedication, requests, interval)| {
            let mut arrival = 0;
            let requests = requests
                .into_iter()
                .enumerate()
                .map(|(i, (gap, lead, duration, priority, subs))| {
                    arrival += gap;
                    Request { id: i as u64 + 1, arrival, start: arrival + lead, duration, priority, subs }
                })
                .collect();
            Workload { dedication, requests, interval, priority_max: 5, horizon: HORIZON, held }
        })
}

/// A sub-request of 10 to `most` % (in steps of 5) of any shape, on `machine` if any.
fn sub(most: u32, machine: Option<usize>) -> impl Strategy<Value = Sub> {
    let shape =
        prop_oneof![Just(Shape::Step), Just(Shape::Linear), Just(Shape::Concave), Just(Shape::Convex)];
    (2..=most / 5, shape).prop_map(move |(cpu, shape)| {
        let cpu_max = 5 * cpu;
        Sub { cpu_max, cpu_min: shape.cpu_min(cpu_max, Shape::SOFT_FLOOR), shape, machine }
    })
}

/// Chapter 4's requests: one sub-request of 10 to 70 % on any machine.
fn chapter4() -> impl Strategy<Value = Workload> {
    workload(|_| proptest::collection::vec(sub(70, None), 1))
}

/// Chapter 5's requests: 1 to 4 sub-requests of 10 to 90 %, on any machines (two in
/// three requests) or each on a machine of its own choice.
fn chapter5() -> impl Strategy<Value = Workload> {
    workload(|machines| {
        let floating = proptest::collection::vec(sub(90, None), 1..=4);
        let fixed = proptest::collection::vec((0..machines).prop_flat_map(|j| sub(90, Some(j))), 1..=4);
        prop_oneof![2 => floating, 1 => fixed]
    })
}

/// `w`'s requests as the reference takes them.
fn requests(w: &Workload) -> Vec<reference::Request> {
    let shape = |s: Shape| match s {
        Shape::Step => RefShape::Step,
        Shape::Linear => RefShape::Linear,
        Shape::Concave => RefShape::Concave,
        Shape::Convex => RefShape::Convex,
    };
    w.requests
        .iter()
        .map(|r| reference::Request {
            arrival: r.arrival,
            start: r.start,
            end: r.start + r.duration,
            priority: r.priority,
            floating: r.floating(),
            subs: r
                .subs
                .iter()
                .map(|s| reference::Sub {
                    cpu_max: s.cpu_max,
                    shape: shape(s.shape),
                    machine: s.machine.unwrap_or(0),
                })
                .collect(),
        })
        .collect()
}

/// The reference's decision in the policy's terms.
fn expected(d: &reference::Decision) -> Decision {
    match d {
        reference::Decision::Accepted(placed) => {
            Decision::Accepted(placed.iter().map(|&(machine, cpu)| Placed { machine, cpu }).collect())
        }
        &reference::Decision::Rejected { sub } => Decision::Rejected { sub },
    }
}

/// The reference's description of `algorithm`.
fn named(algorithm: Algorithm) -> reference::Algorithm {
    match algorithm {
        Algorithm::Rb => reference::Algorithm::RB,
        Algorithm::Rspb => reference::Algorithm::RSPB,
        Algorithm::CoRspb => reference::Algorithm::CO_RSPB,
        Algorithm::CoRsbf => reference::Algorithm::CO_RSBF,
        Algorithm::CoRsbfr => reference::Algorithm::CO_RSBFR,
    }
}

/// Runs `w` through `algorithm` on `kind` (with `planted`, if any) and through the
/// reference, failing on the first difference; the policy's decisions.
fn compare(
    algorithm: Algorithm,
    kind: Kind,
    w: &Workload,
    planted: Option<Planted>,
) -> Result<Vec<Decision>, TestCaseError> {
    let got = match planted {
        Some(p) => run_planted(algorithm, w, kind, false, p),
        None => run(algorithm, w, kind, false),
    }
    .expect("a run");
    let held: Vec<_> = w
        .held
        .iter()
        .map(|h| reference::Held { machine: h.machine, start: h.start, end: h.end, cpu: h.cpu })
        .collect();
    let want = reference::schedule(named(algorithm), &w.dedication, &held, &requests(w), w.interval);
    for (r, (got, want)) in w.requests.iter().zip(got.decisions.iter().zip(&want.decisions)) {
        prop_assert_eq!(got, &expected(want), "{} on {}: request {}", algorithm, kind, r.id);
    }
    prop_assert_eq!(got.events, want.events, "{} on {}: meta-requests", algorithm, kind);
    Ok(got.decisions)
}

/// How many requests were admitted with less than they asked for.
fn degraded(w: &Workload, decisions: &[Decision]) -> usize {
    let short = |r: &Request, placed: &[Placed]| r.subs.iter().zip(placed).any(|(s, p)| p.cpu < s.cpu_max);
    w.requests
        .iter()
        .zip(decisions)
        .filter(|(r, d)| matches!(d, Decision::Accepted(p) if short(r, p)))
        .count()
}

/// How many requests were rejected.
fn rejected(decisions: &[Decision]) -> usize {
    decisions.iter().filter(|d| matches!(d, Decision::Rejected { .. })).count()
}

/// How many requests were rejected after another of their sub-requests was placed, and
/// so cancelled: a later one of a fixed request, or one after a sub-request of a larger
/// (or equal and earlier) `CPU_min` of a floating one.
fn rolled_back(w: &Workload, decisions: &[Decision]) -> usize {
    let after_another = |r: &Request, i: usize| match r.floating() {
        false => i > 0,
        true => r.subs.iter().enumerate().any(|(k, s)| (s.cpu_min, i) > (r.subs[i].cpu_min, k)),
    };
    w.requests
        .iter()
        .zip(decisions)
        .filter(|(r, d)| matches!(d, &&Decision::Rejected { sub } if after_another(r, sub)))
        .count()
}

/// Checks `algorithm` with the workloads of `strategy`, counting the cases that take
/// each of `paths` by `count`, and that `planted` is caught.
fn check<S: Strategy<Value = Workload>>(
    algorithm: Algorithm,
    strategy: impl Fn() -> S + Sync,
    paths: [&str; 2],
    count: impl Fn(&Workload, &[Decision]) -> (usize, usize) + Sync,
    planted: Planted,
) {
    agrees_and_catches(strategy, paths, planted, |kind, w, planted| {
        compare(algorithm, kind, w, planted).map(|decisions| count(w, &decisions))
    });
}

#[test]
fn rb_decides_as_the_reference_and_the_first_roomy_machine_is_caught() {
    let count = |_: &Workload, d: &[Decision]| {
        let elsewhere = d.iter().filter(|d| matches!(d, Decision::Accepted(p) if p[0].machine > 0)).count();
        (elsewhere, rejected(d))
    };
    check(Algorithm::Rb, chapter4, ["past machine 0", "rejected"], count, Planted::FirstRoomy);
}

#[test]
fn rspb_decides_as_the_reference_and_arrival_order_is_caught() {
    let count = |w: &Workload, d: &[Decision]| (degraded(w, d), rejected(d));
    check(Algorithm::Rspb, chapter4, ["degraded", "rejected"], count, Planted::ArrivalOrder);
}

#[test]
fn co_rspb_decides_as_the_reference_and_cpu_min_on_a_roomy_machine_is_caught() {
    let count = |w: &Workload, d: &[Decision]| (degraded(w, d), rolled_back(w, d));
    check(Algorithm::CoRspb, chapter5, ["degraded", "rolled back"], count, Planted::MinOnRoomy);
}

#[test]
fn co_rsbf_decides_as_the_reference_and_ties_to_the_last_machine_are_caught() {
    let count = |w: &Workload, d: &[Decision]| {
        let shared =
            |p: &[Placed]| p.iter().enumerate().any(|(i, a)| p[..i].iter().any(|b| a.machine == b.machine));
        let sharing = d.iter().filter(|d| matches!(d, Decision::Accepted(p) if shared(p))).count();
        (sharing, rolled_back(w, d))
    };
    check(Algorithm::CoRsbf, chapter5, ["sharing a machine", "rolled back"], count, Planted::LastOfTies);
}

#[test]
fn co_rsbfr_decides_as_the_reference_and_a_single_round_of_refinement_is_caught() {
    let count = |w: &Workload, d: &[Decision]| {
        let above_min = |r: &Request, p: &[Placed]| r.subs.iter().zip(p).any(|(s, p)| p.cpu > s.cpu_min);
        let refined = w
            .requests
            .iter()
            .zip(d)
            .filter(|(r, d)| matches!(d, Decision::Accepted(p) if above_min(r, p) && r.subs.iter().any(|s| s.cpu_min < s.cpu_max)))
            .count();
        (refined, rolled_back(w, d))
    };
    check(Algorithm::CoRsbfr, chapter5, ["refined", "rolled back"], count, Planted::OneRound);
}
