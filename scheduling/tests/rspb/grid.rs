//! `src/rspb/grid.rs`: the machines of a run, each a table of its own dedication, held
//! reservations marked before the first request, and the work counted on all of them.

use scheduling::rspb::model::Workload;
use scheduling::rspb::{run, Algorithm};
use structures::Kind;

use super::{decide, no, req, sub, world, yes};

/// The ops `algorithm` makes on `w`'s tables, the same on every structure, and the same
/// whether or not the oracle and the invariant checks run beside them.
fn ops(algorithm: Algorithm, w: &Workload) -> u64 {
    let counted: Vec<u64> = Kind::ALL
        .iter()
        .flat_map(|&kind| [false, true].map(|verify| run(algorithm, w, kind, verify).unwrap().ops))
        .collect();
    assert!(counted.iter().all(|&n| n == counted[0]), "{counted:?}");
    counted[0]
}

#[test]
fn the_work_counts_every_op_on_every_machine() {
    let one = || vec![req(1, 5, vec![sub(30, false)])];
    // One machine: the event's advance, the request's check, the window's load (Fig 4.2
    // line 38: its free frames), and the mark (free frames again, one allocation).
    assert_eq!(ops(Algorithm::Rb, &world(&[70], &[], one())), 5);
    // Two machines: each advances, is checked and has all the request, so each has its
    // load read; one is marked.
    assert_eq!(ops(Algorithm::Rb, &world(&[70, 70], &[], one())), 8);
    // A machine too small: advanced and checked, nothing more.
    assert_eq!(ops(Algorithm::Rb, &world(&[20], &[], one())), 2);
    // A held reservation is marked before the first event (free frames, one
    // allocation) and leaves machine 1 too little, so only machine 0's load is read.
    assert_eq!(ops(Algorithm::Rb, &world(&[70, 70], &[(1, 50)], one())), 2 + 2 + 2 + 1 + 2);
    let w = run(Algorithm::Rb, &world(&[70, 70], &[(1, 50)], one()), Kind::RbTree, true).unwrap();
    assert_eq!((w.decisions, w.events), (vec![yes(&[(0, 30)])], 1));
}

#[test]
fn each_machine_has_its_own_dedication_and_marks_stay_on_their_machine() {
    // In arrival order: 60 fits only machine 1 (100); 50 is all of machine 0; 40 is what
    // machine 1 has left; then nothing is left anywhere.
    let w = world(
        &[50, 100],
        &[],
        vec![
            req(1, 5, vec![sub(60, false)]),
            req(2, 5, vec![sub(50, false)]),
            req(3, 5, vec![sub(40, false)]),
            req(4, 5, vec![sub(1, false)]),
        ],
    );
    assert_eq!(decide(Algorithm::Rb, &w), [yes(&[(1, 60)]), yes(&[(0, 50)]), yes(&[(1, 40)]), no(0)]);
}
