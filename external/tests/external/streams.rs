//! `src/external/streams.rs`: the random and trace streams, the cap, and ops files.

use std::collections::BTreeSet;

use external::streams::{random, read_ops, read_trace, trace};
use oracle::OpKind;
use structures::Config;

use super::temp_dir;

#[test]
fn random_streams_are_fixed_by_their_seed_and_cut_into_cases() {
    let a = random(250, 100, 7);
    assert_eq!(a, random(250, 100, 7));
    assert_ne!(a, random(250, 100, 8));
    assert_eq!(a.cases.iter().map(|c| c.ops.len()).collect::<Vec<_>>(), [100, 100, 50]);
    assert_eq!((a.ops(), a.name, a.thorough), (250, "random", true));
    let kinds: BTreeSet<OpKind> =
        random(2_000, 100, 1).cases.iter().flat_map(|c| c.ops.iter().map(|op| op.kind())).collect();
    assert_eq!(kinds, OpKind::ALL.iter().copied().collect(), "every kind of op comes up");
}

#[test]
fn a_stream_over_the_cap_is_refused_naming_the_option() {
    let err = random(300, 100, 1).within(299).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the random stream has 300 ops, more than the cap of 299 ops per stream \
         (raise it with --max-ops, or ask for fewer ops)"
    );
    assert!(random(300, 100, 1).within(300).is_ok());
}

#[test]
fn the_trace_stream_is_one_case_of_the_replays_calls() {
    let (name, load) = read_trace(None, None, Some(200)).unwrap();
    assert!(name.starts_with("KTH-SP2"), "{name}");
    let config = Config { slot: 300, horizon: None };
    let stream = trace(&name, &load, config).unwrap();
    assert_eq!((stream.name, stream.thorough, stream.cases.len()), ("trace", false, 1));
    assert_eq!(stream.cases[0].scenario.capacity, 100);
    assert!(stream.about.contains("200 jobs, capacity 100, slot 300, no horizon"), "{}", stream.about);
}

#[test]
fn ops_files_are_read_as_resbench_ops_reads_them() {
    let dir = temp_dir("ops-file");
    let file = dir.join("a.ops");
    std::fs::write(
        &file,
        "{\"op\":\"advance\",\"now\":3}\n\n{\"op\":\"check\",\"start\":3,\"end\":4,\"n\":1}\n",
    )
    .unwrap();
    assert_eq!(read_ops(&file).unwrap().len(), 2);
    std::fs::write(&file, "{\"op\":\"advance\",\"now\":3}\n{\"op\":\"wait\"}\n").unwrap();
    let err = format!("{:#}", read_ops(&file).unwrap_err());
    assert!(err.contains("a.ops line 2: not an op"), "{err}");
}
