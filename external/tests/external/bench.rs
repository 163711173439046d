//! `src/external/bench.rs`: the child timed beside every built-in structure.

use external::bench::{bench, time_builtin};
use external::boundary::boundary;
use external::streams::random;
use structures::Kind;

use super::{example, external, faulty};

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

#[test]
fn cases_the_child_declines_or_fails_on_are_left_out_and_counted() {
    let noop = external(&example("noop.py"));
    let streams = [random(600, 100, 1)];
    let table = bench(&external(&faulty("unslotted", 0)), &noop, &streams, 1).unwrap();
    let row = &table.rows[0];
    let declined = row.skipped.iter().filter(|s| s.declined).count();
    assert!(declined > 0 && row.skipped.len() == declined, "{row:?}");
    let kept: usize =
        streams[0].cases.iter().filter(|c| c.scenario.config.slot == 1).map(|c| c.ops.len()).sum();
    assert_eq!(row.ops, kept, "every case with 1-second slots, and no other, is timed");
    assert!(table
        .to_string()
        .contains(&format!("random: {declined} case(s) the child declined at the handshake")));
    let table = bench(&external(&faulty("error", 4)), &noop, &streams, 1).unwrap();
    let failed = &table.rows[0].skipped;
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(!failed[0].declined && failed[0].why.contains("a planted exception"), "{failed:?}");
    assert!(table.to_string().contains("random: 1 case(s) the child failed on in a first run"), "{table}");
}

#[test]
fn a_count_planner_is_timed_on_the_count_forms() {
    let table =
        bench(&external(&example("counts.py")), &external(&example("noop.py")), &[boundary()], 1).unwrap();
    let row = &table.rows[0];
    assert!(row.skipped.is_empty() && row.external > 0.0, "{row:?}");
    assert_eq!(table.child, "counts.py");
}
