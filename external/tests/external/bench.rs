//! `src/external/bench.rs`: the child timed beside every built-in structure.

use external::bench::{bench, time_builtin};
use external::boundary::boundary;
use external::streams::random;
use structures::Kind;

use super::{example, external};

#[test]
fn the_child_is_timed_beside_every_built_in_structure_and_the_no_op_adapter() {
    let streams = [random(300, 100, 2), boundary()];
    let table = bench(&external(&example("naive.py")), &external(&example("noop.py")), &streams, 1).unwrap();
    assert_eq!((table.child.as_str(), table.noop.as_str()), ("naive.py", "noop.py"));
    for row in &table.rows {
        assert_eq!(row.builtin.iter().map(|(kind, _)| *kind).collect::<Vec<_>>(), Kind::ALL);
        assert!(row.builtin.iter().all(|(_, us)| us.as_ref().is_ok_and(|us| *us > 0.0)), "{row:?}");
        assert!(row.external > 0.0 && row.overhead > 0.0, "{row:?}");
    }
    assert_eq!(table.rows[0].ops, 300);
    let text = table.to_string();
    assert!(text.contains("one machine's wall time"), "{text}");
    for word in Kind::ALL.iter().map(|k| k.name()).chain(["external", "overhead", "net"]) {
        assert!(text.lines().nth(2).unwrap().contains(word), "{word} missing from the header:\n{text}");
    }
}

#[test]
fn a_structure_that_cannot_take_a_configuration_says_why() {
    let mut stream = random(10, 10, 1);
    stream.cases[0].scenario.config = structures::Config { slot: 1, horizon: Some(1 << 30) };
    let err = time_builtin(Kind::SlottedArray, &stream.cases).unwrap_err().to_string();
    assert!(err.contains("slots are more than"), "{err}");
}
