//! The JSON-lines op stream.

use external::ops_stream::{build, run, run_counts};
use oracle::Counts;
use structures::Config;

#[test]
fn count_ops_are_answered_by_the_count_reference() {
    let input = r#"{"op":"allocate","start":0,"end":5,"count":1}
{"op":"allocate","start":5,"end":10,"count":1}
{"op":"check","start":0,"end":10,"n":1}
{"op":"earliest","ready":0,"duration":2,"n":2}
{"op":"release","start":0,"end":10,"count":1}
"#;
    let mut out = Vec::new();
    assert_eq!(
        run_counts(&mut Counts::new(2, Config::default()).unwrap(), input.as_bytes(), &mut out).unwrap(),
        5
    );
    let lines: Vec<_> = String::from_utf8(out).unwrap().lines().map(String::from).collect();
    assert_eq!(lines[2], r#"{"result":{"outcome":"fits","value":{"fits":true,"fewest":1}}}"#);
    assert_eq!(lines[3], r#"{"result":{"outcome":"time","value":10}}"#);
    assert_eq!(lines[4], r#"{"result":{"outcome":"done"}}"#, "one busy throughout, whichever it is");
    let err = run_counts(
        &mut Counts::new(2, Config::default()).unwrap(),
        r#"{"op":"free_frames","from":0,"to":1}"#.as_bytes(),
        Vec::new(),
    );
    assert!(err.unwrap_err().to_string().starts_with("stdin line 1: not an op"));
}

#[test]
fn outcomes_come_back_one_line_per_op_with_costs() {
    let input = r#"{"op":"allocate","start":0,"end":10,"set":[[0,2]]}
{"op":"check","start":5,"end":8,"n":2}

{"op":"release","start":20,"end":30,"set":[[0,1]]}
"#;
    let mut out = Vec::new();
    let mut index = build("rbtree", 4, Config::default()).unwrap();
    assert_eq!(run(index.as_mut(), input.as_bytes(), &mut out).unwrap(), 3);
    let lines: Vec<_> = String::from_utf8(out).unwrap().lines().map(String::from).collect();
    assert_eq!(lines[0], r#"{"result":{"outcome":"done"}}"#);
    assert_eq!(
        lines[1],
        r#"{"result":{"outcome":"free","value":[[2,4]]},"cost":{"search":2,"visited":1,"worst":2}}"#
    );
    assert!(lines[2].contains(r#""not_allocated""#), "{}", lines[2]);
}

#[test]
fn the_oracle_answers_the_same_stream() {
    let input = r#"{"op":"earliest","ready":3,"duration":4,"n":1}"#;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    run(build("oracle", 2, Config::default()).unwrap().as_mut(), input.as_bytes(), &mut a).unwrap();
    run(build("list", 2, Config::default()).unwrap().as_mut(), input.as_bytes(), &mut b).unwrap();
    let result = |v: &[u8]| serde_json::from_slice::<serde_json::Value>(v).unwrap()["result"].clone();
    assert_eq!(result(&a), result(&b));
}

#[test]
fn a_bad_line_is_named_and_an_unknown_structure_listed() {
    let mut index = build("btree", 2, Config::default()).unwrap();
    let err = run(index.as_mut(), "{\"op\":\"check\"}\n".as_bytes(), Vec::new()).unwrap_err();
    assert!(format!("{err:#}").starts_with("stdin line 1: not an op"), "{err:#}");
    let err = build("splay", 2, Config::default()).err().unwrap();
    assert!(err.to_string().contains("known: rbtree, list, btree"), "{err}");
}

#[test]
fn slotted_structures_take_the_default_horizon_when_none_is_given() {
    // The default is 256 slots (`Kind::config_for`): at slot 10 a window may end at 2560
    // and not after.
    let input = r#"{"op":"allocate","start":0,"end":100,"set":[[0,2]]}
{"op":"check","start":50,"end":80,"n":2}
{"op":"earliest","ready":0,"duration":200,"n":4}
{"op":"check","start":0,"end":2560,"n":1}
{"op":"check","start":0,"end":2561,"n":1}
"#;
    let outcomes = |name: &str| {
        let config = Config { slot: 10, horizon: None };
        let mut index = build(name, 4, config).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        let mut out = Vec::new();
        assert_eq!(run(index.as_mut(), input.as_bytes(), &mut out).unwrap(), 5, "{name}");
        let lines = String::from_utf8(out).unwrap();
        lines
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["result"].clone())
            .collect::<Vec<_>>()
    };
    let expected = outcomes("rbtree");
    assert_eq!(expected[2]["value"]["start"], 100, "{expected:?}");
    for name in ["slotted", "segtree"] {
        let got = outcomes(name);
        assert_eq!(got[..4], expected[..4], "{name}");
        assert!(got[4].to_string().contains("beyond_horizon"), "{name}: {}", got[4]);
    }
}
