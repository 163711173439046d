//! `src/policy/eds.rs`: FCFS-EDS against an exhaustive search over shifts on tiny
//! single-resource instances, and its baseline never moving what it accepted.

use std::collections::BTreeMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use scheduling::policy::{Model, PolicyKind, Windows};
use scheduling::replay::{Mode, Options};
use structures::Kind;
use traces::workload::Workload;

use super::{job, load, run_with};

/// Windows small enough to search exhaustively.
const TINY: Windows = Windows { lead: 3, flexible: 0.7, relax: (1, 3), model: Model::Ids };

fn options(policy: PolicyKind, seed: u64) -> Options {
    Options { policy, mode: Mode::PlanOnly, windows: Some(TINY), seed, ..Options::default() }
}

fn tiny_load(rng: &mut StdRng) -> Workload {
    let mut submit = 0;
    let requests = (0..7)
        .map(|id| {
            submit += rng.random_range(0..3);
            let duration = rng.random_range(1..=3);
            job(id, submit, 1, duration, duration)
        })
        .collect();
    load(1, requests)
}

/// One reservation as the reference sees it: its window of starts and length.
#[derive(Clone, Copy)]
struct Res {
    es: u64,
    ls: u64,
    len: u64,
}

/// Whether the reservations fit on one resource at `starts` (no two overlap).
fn disjoint(placed: &[(u64, u64)]) -> bool {
    let mut sorted = placed.to_vec();
    sorted.sort_unstable();
    sorted.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0)
}

/// Every assignment of starts to `movable` (each in `[max(es, now), ls]`), beside
/// `fixed`, with the new request at `(s, len)`: the fewest reservations moved from their
/// current starts in any that fits, or `None`.
fn search(fixed: &[(u64, u64)], movable: &[(Res, u64)], new: (u64, u64), now: u64) -> Option<usize> {
    let ranges: Vec<Vec<u64>> = movable.iter().map(|(r, _)| (r.es.max(now)..=r.ls).collect()).collect();
    let mut fewest: Option<usize> = None;
    let mut pick = vec![0; movable.len()];
    loop {
        let starts: Vec<u64> = pick.iter().zip(&ranges).map(|(&k, range)| range[k]).collect();
        let mut all = fixed.to_vec();
        all.push(new);
        all.extend(starts.iter().zip(movable).map(|(&s, (r, _))| (s, r.len)));
        if disjoint(&all) {
            let moves = starts.iter().zip(movable).filter(|(&s, (_, current))| s != *current).count();
            fewest = Some(fewest.map_or(moves, |f| f.min(moves)));
        }
        // The next assignment, like an odometer.
        let Some(k) = (0..pick.len()).find(|&k| pick[k] + 1 < ranges[k].len()) else { break };
        pick[k] += 1;
        pick[..k].iter_mut().for_each(|p| *p = 0);
    }
    fewest
}

#[test]
fn fcfs_eds_agrees_with_an_exhaustive_search_over_shifts() {
    let mut rng = StdRng::seed_from_u64(16);
    let (mut requests, mut shifted, mut missed) = (0, 0, 0);
    for case in 0..120u64 {
        let load = tiny_load(&mut rng);
        let opts = options(PolicyKind::FcfsEds, case);
        let window = |k: usize| {
            let (es, ls) = TINY.draw(case, k, load.requests[k].submit, 1);
            Res { es, ls, len: load.requests[k].duration }
        };
        let mut before: BTreeMap<i64, u64> = BTreeMap::new();
        for k in 0..load.requests.len() {
            let prefix = Workload { requests: load.requests[..=k].to_vec(), ..load.clone() };
            let kind = Kind::ALL[(case as usize + k) % Kind::ALL.len()];
            let after: BTreeMap<i64, u64> =
                run_with(kind, &prefix, opts).schedule.iter().map(|p| (p.id, p.start)).collect();
            let now = load.requests[k].submit;
            let res = |id: i64| window(id as usize);
            // The plan after is valid: every reservation in its window, none overlapping,
            // nothing that had started or was rigid moved, nothing accepted dropped.
            let spans: Vec<(u64, u64)> = after.iter().map(|(&id, &s)| (s, res(id).len)).collect();
            assert!(disjoint(&spans), "case {case} request {k}: {after:?}");
            for (&id, &s) in &after {
                let r = res(id);
                assert!(r.es <= s && s <= r.ls, "case {case}: {id} at {s} outside {}..={}", r.es, r.ls);
            }
            for (&id, &s) in &before {
                let r = res(id);
                if s <= now || r.es == r.ls {
                    assert_eq!(after.get(&id), Some(&s), "case {case} request {k}: {id} moved");
                } else {
                    assert!(after.contains_key(&id), "case {case} request {k}: {id} dropped");
                }
            }
            let (fixed, movable): (Vec<_>, Vec<_>) =
                before.iter().map(|(&id, &s)| (res(id), s)).partition(|&(r, s)| s <= now || r.es == r.ls);
            let fixed: Vec<(u64, u64)> = fixed.iter().map(|&(r, s)| (s, r.len)).collect();
            let r = window(k);
            let fewest: Vec<(u64, usize)> = (r.es..=r.ls)
                .filter_map(|s| search(&fixed, &movable, (s, r.len), now).map(|m| (s, m)))
                .collect();
            let first = |most: usize| fewest.iter().find(|&&(_, m)| m <= most).map(|&(s, _)| s);
            let (first_fit, first_one, first_any) = (first(0), first(1), first(usize::MAX));
            requests += 1;
            match after.get(&(k as i64)) {
                Some(&s) => {
                    assert!(first_any.is_some_and(|f| f <= s), "case {case} request {k}");
                    // First fit comes first (Algorithm 1, lines 16-25); failing that, where
                    // one move makes room, FCFS-EDS finds a start no later.
                    match first_fit {
                        Some(f) => assert_eq!(s, f, "case {case} request {k}: first fit"),
                        None => assert!(
                            first_one.is_none_or(|f| s <= f),
                            "case {case} request {k}: at {s}, not {first_one:?}"
                        ),
                    }
                    shifted +=
                        usize::from(after.iter().any(|(id, s)| before.get(id).is_some_and(|b| b != s)));
                }
                None => {
                    // A rejected request changes nothing, and no single move would have
                    // made room for it.
                    assert_eq!(after, before, "case {case} request {k}");
                    assert_eq!(first_one, None, "case {case} request {k}");
                    missed += usize::from(first_any.is_some());
                }
            }
            before = after;
        }
    }
    println!("{requests} requests: {shifted} accepted by shifting; {missed} rejected that more moves would have placed");
    assert!(shifted > 10, "too few cases shift anything to test it: {shifted}");
}

#[test]
fn flexible_never_moves_an_accepted_reservation_and_eds_accepts_at_least_as_often_here() {
    let mut rng = StdRng::seed_from_u64(17);
    let (mut eds, mut flexible) = (0, 0);
    for case in 0..60u64 {
        let load = tiny_load(&mut rng);
        let mut before: BTreeMap<i64, u64> = BTreeMap::new();
        for k in 0..load.requests.len() {
            let prefix = Workload { requests: load.requests[..=k].to_vec(), ..load.clone() };
            let run = run_with(Kind::ALL[k % Kind::ALL.len()], &prefix, options(PolicyKind::Flexible, case));
            let after: BTreeMap<i64, u64> = run.schedule.iter().map(|p| (p.id, p.start)).collect();
            assert!(before.iter().all(|(id, s)| after.get(id) == Some(s)), "case {case} request {k}");
            before = after;
        }
        flexible += before.len();
        eds += run_with(Kind::REFERENCE, &load, options(PolicyKind::FcfsEds, case)).schedule.len();
    }
    println!("accepted: fcfs-eds {eds}, flexible {flexible}");
    assert!(eds > flexible, "fcfs-eds {eds} vs flexible {flexible}");
}
