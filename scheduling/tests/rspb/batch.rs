//! `src/rspb/batch.rs`: the meta-requests of Fig 4.1.

use scheduling::rspb::batches;
use scheduling::rspb::model::Request;

fn at(id: u64, arrival: u64, start: u64) -> Request {
    Request { id, arrival, start, duration: 10, priority: 1, subs: Vec::new() }
}

fn events(requests: &[Request], interval: u64) -> Vec<(u64, Vec<usize>)> {
    batches(requests, interval).into_iter().map(|b| (b.at, b.requests)).collect()
}

#[test]
fn a_request_starting_before_the_event_closes_the_batch_at_its_arrival() {
    // B asks for 40 < 50: the batch {A, B} is scheduled at 20; the next event is 70.
    let r = [at(1, 10, 500), at(2, 20, 40), at(3, 30, 600), at(4, 75, 1000)];
    assert_eq!(events(&r, 50), [(20, vec![0, 1]), (70, vec![2]), (120, vec![3])]);
}

#[test]
fn an_arrival_at_the_event_waits_for_the_next_and_empty_intervals_are_skipped() {
    assert_eq!(events(&[at(1, 50, 900)], 50), [(100, vec![0])]);
    // A million empty intervals cost nothing.
    assert_eq!(events(&[at(1, 50_000_000, 60_000_000)], 50), [(50_000_050, vec![0])]);
}

#[test]
fn an_immediate_reservation_is_scheduled_at_once() {
    let r = [at(1, 10, 900), at(2, 33, 33), at(3, 40, 900)];
    assert_eq!(events(&r, 50), [(33, vec![0, 1]), (83, vec![2])]);
}

#[test]
fn with_starts_a_lead_ahead_every_event_is_on_the_grid() {
    let r: Vec<Request> = (0..40).map(|k| at(k, 7 * k, 7 * k + 300)).collect();
    let got = events(&r, 50);
    assert!(got.iter().all(|(t, _)| t % 50 == 0), "{got:?}");
    assert_eq!(got.iter().map(|(_, b)| b.len()).sum::<usize>(), 40);
}
