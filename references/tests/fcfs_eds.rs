//! `src/fcfs_eds.rs` against `scheduling::fcfs_eds`: on random small workloads, the
//! reference's decisions, moves, starts and every slot's free count equal the planner's
//! on every structure; and the deviation planted in the planner is caught.

mod support;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use references::fcfs_eds::{Answer, Tslot};
use scheduling::fcfs_eds::{Decision, Planner, Planted, Request};
use structures::Kind;
use support::agrees_and_catches;

/// Slots in a case's plan: every run of a request fits.
const SLOTS: u64 = 48;

/// A small workload: up to 4 nodes, tens of requests, a third of them rigid.
fn workload() -> impl Strategy<Value = (u32, Vec<Request>)> {
    (1u32..=4).prop_flat_map(|capacity| {
        let request = (0u64..24, prop_oneof![Just(0u64), 1u64..8], 1u64..10, 1..=capacity);
        let requests = proptest::collection::vec(request, 5..30).prop_map(|rs| {
            rs.into_iter()
                .enumerate()
                .map(|(i, (tes, tr, te, n))| Request {
                    user: i as u32 % 5,
                    job: i as u32,
                    tes,
                    tls: tes + tr,
                    te,
                    n,
                })
                .collect::<Vec<_>>()
        });
        (Just(capacity), requests)
    })
}

/// The reference's answer in the planner's terms.
fn expected(answer: Answer) -> Decision {
    match answer {
        Answer::Accepted { start, shifts } => Decision::Accepted {
            start,
            shifted: shifts
                .into_iter()
                .map(|(user, job, from, to)| scheduling::fcfs_eds::Shift { user, job, from, to })
                .collect(),
        },
        Answer::Rejected => Decision::Rejected,
    }
}

/// Runs `requests` through the reference and through a planner on `kind` (with
/// `planted`, if any) and fails on the first difference. Returns how many requests were
/// accepted after moving others, and how many were rejected.
fn compare(
    kind: Kind,
    capacity: u32,
    requests: &[Request],
    planted: Option<Planted>,
) -> Result<(usize, usize), TestCaseError> {
    let mut reference = Tslot::new(capacity, SLOTS as usize);
    let mut planner = Planner::new(kind, capacity, SLOTS, false).expect("a plan");
    if let Some(p) = planted {
        planner.plant(p);
    }
    let (mut shifted, mut rejected) = (0, 0);
    for r in requests {
        let want = expected(reference.search_and_alloc(r.user, r.job, r.tes, r.tls, r.te, r.n));
        let got = planner.request(*r).expect("a valid request");
        prop_assert_eq!(&got, &want, "{} on request {:?}", kind, r);
        match got {
            Decision::Accepted { shifted: s, .. } => shifted += usize::from(!s.is_empty()),
            Decision::Rejected => rejected += 1,
        }
    }
    for slot in 0..SLOTS {
        let free = i64::from(planner.free(slot).expect("a slot in the plan"));
        prop_assert_eq!(free, reference.free(slot), "{} slot {}", kind, slot);
    }
    let starts: Vec<(u32, u32, u64)> = planner.starts().into_iter().map(|((u, j), s)| (u, j, s)).collect();
    prop_assert_eq!(starts, reference.starts(), "{}", kind);
    Ok((shifted, rejected))
}

#[test]
fn the_planner_decides_as_the_reference_on_every_structure_and_the_planted_whole_window_rule_is_caught() {
    agrees_and_catches(
        workload,
        ["shifting", "rejecting"],
        Planted::ClearsWholeWindow,
        |kind, (capacity, requests), p| compare(kind, *capacity, requests, p),
    );
}
