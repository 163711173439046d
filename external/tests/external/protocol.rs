//! `src/external/protocol.rs`: the messages, and the document's schema and worked
//! exchange, which must stay true.

use std::collections::BTreeSet;
use std::time::Duration;

use external::child::Child;
use external::protocol::{
    error_kind, read_count_reply, read_reply, read_reset_reply, HandshakeError, Hello, ReplyError, Reset,
    Semantics, Welcome, ERROR_KINDS, PROTOCOL, VERSION,
};
use oracle::{CountOp, CountOutcome, Fits, Op, OpKind, Outcome, Scenario};
use structures::{Config, Cost, Error, RangeSet};

const DOC: &str = include_str!("../../../docs/external-protocol.md");

/// One error of every kind.
fn every_error() -> Vec<Error> {
    let set = RangeSet::from_range(1, 2);
    vec![
        Error::EmptyWindow { start: 1, end: 1 },
        Error::BadCount { n: 0, capacity: 4 },
        Error::EmptySet,
        Error::IdOutOfRange { id: 4, capacity: 4 },
        Error::NotFree { start: 0, end: 3, busy: set.clone() },
        Error::NotAllocated { start: 0, end: 3, free: set },
        Error::BeforePast { time: 1, now: 2 },
        Error::BeyondHorizon { end: 9, limit: 8 },
        Error::Overflow { start: u64::MAX, duration: 1 },
        Error::BadConfig { reason: "no".into() },
    ]
}

#[test]
fn every_error_kind_is_its_json_tag() {
    let mut kinds = BTreeSet::new();
    for error in every_error() {
        let json = serde_json::to_value(&error).unwrap();
        let tag = json
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| json.as_object().unwrap().keys().next().unwrap().clone());
        assert_eq!(tag, error_kind(&error));
        kinds.insert(error_kind(&error));
    }
    assert_eq!(kinds, ERROR_KINDS.into_iter().collect());
}

#[test]
fn refusals_come_in_full_or_as_a_kind() {
    let op = Op::Allocate { start: 0, end: 3, set: RangeSet::from_range(0, 2) };
    let full = read_reply(
        &op,
        r#"{"result":{"outcome":"failed","value":{"not_free":{"start":0,"end":3,"busy":[[1,2]]}}}}"#,
    )
    .unwrap();
    assert_eq!(full.outcome, Outcome::Failed(every_error()[4].clone()));
    assert!(!full.kind_only);
    let kind = read_reply(&op, r#"{"result":{"outcome":"failed","value":"not_free"}}"#).unwrap();
    assert!(kind.kind_only);
    assert!(matches!(kind.outcome, Outcome::Failed(Error::NotFree { .. })));
    let unit = read_reply(&op, r#"{"result":{"outcome":"failed","value":"empty_set"}}"#).unwrap();
    assert_eq!(unit.outcome, Outcome::Failed(Error::EmptySet));
    let unknown =
        read_reply(&op, r#"{"result":{"outcome":"failed","value":"busy"}}"#).unwrap_err().to_string();
    assert!(unknown.contains("unknown error kind \"busy\"; known: empty_window"), "{unknown}");
}

#[test]
fn an_answer_of_the_wrong_type_or_shape_is_a_protocol_error() {
    let check = Op::Check { start: 0, end: 1, n: 1 };
    let wrong = read_reply(&check, r#"{"result":{"outcome":"done"}}"#).unwrap_err();
    assert_eq!(wrong.to_string(), "check answered with outcome \"done\"; it needs \"free\" or \"failed\"");
    assert!(read_reply(&check, "not json")
        .unwrap_err()
        .to_string()
        .starts_with("the answer is not a record"));
    assert!(read_reply(&check, r#"{"outcome":"free","value":null}"#).is_err(), "the record wraps the result");
    let cost = r#"{"result":{"outcome":"free","value":null},"cost":{"search":1,"visited":3,"worst":2}}"#;
    assert!(read_reply(&check, cost).unwrap_err().to_string().contains("more than its worst case 2"));
    let good = r#"{"result":{"outcome":"free","value":[[0,1]]},"cost":{"search":1,"visited":2,"worst":2},"extra":1}"#;
    let reply = read_reply(&check, good).unwrap();
    assert_eq!(reply.outcome, Outcome::Free(Some(RangeSet::from_range(0, 1))));
    assert_eq!(reply.cost, Some(Cost { search: 1, visited: 2, worst: 2 }));
}

#[test]
fn welcomes_are_checked_version_first() {
    let welcome = |v: u32, rest: &str| format!(r#"{{"protocol":"{PROTOCOL}","version":{v}{rest}}}"#);
    let agreed = Welcome::read(&welcome(1, r#","name":"x","supports":["check","advance"]"#)).unwrap();
    assert_eq!((agreed.name.as_str(), agreed.supports), ("x", [OpKind::Check, OpKind::Advance].into()));
    let mismatch = Welcome::read(&welcome(2, r#","error":"no""#)).unwrap_err();
    assert_eq!(mismatch, HandshakeError::Version(2));
    assert_eq!(
        mismatch.to_string(),
        format!("version mismatch: resbench speaks resbench-external version {VERSION}, the child answered version 2")
    );
    let refused = Welcome::read(&welcome(1, r#","error":"too big""#)).unwrap_err();
    assert_eq!(refused.to_string(), "the child refused the index: too big");
    let unknown = Welcome::read(&welcome(1, r#","name":"x","supports":["reserve"]"#)).unwrap_err();
    assert!(unknown.to_string().contains("unknown operation \"reserve\""), "{unknown}");
    assert!(Welcome::read(&welcome(1, r#","name":"x","supports":[]"#)).is_err());
    assert!(Welcome::read(&welcome(1, r#","name":"x","supports":["reset"]"#)).is_err(), "reset is not an op");
    let resets = Welcome::read(&welcome(1, r#","name":"x","supports":["check","reset"]"#)).unwrap();
    assert_eq!((resets.reset, resets.supports), (true, [OpKind::Check].into()));
    assert!(!agreed.reset);
    assert!(Welcome::read(&welcome(1, r#","supports":["check"]"#)).is_err());
    let other = Welcome::read(r#"{"protocol":"other","version":1}"#).unwrap_err();
    assert_eq!(other, HandshakeError::WrongProtocol("other".into()));
    assert!(matches!(Welcome::read("hello?"), Err(HandshakeError::NotAWelcome { .. })));
}

#[test]
fn a_child_with_count_semantics_answers_fits_and_times() {
    let welcome = |rest: &str| format!(r#"{{"protocol":"{PROTOCOL}","version":1,"name":"c"{rest}}}"#);
    let counts = Welcome::read(&welcome(r#","supports":["check","reset"],"semantics":"counts""#)).unwrap();
    assert_eq!(counts.semantics, Semantics::Counts);
    assert_eq!(Welcome::read(&welcome(r#","supports":["check"]"#)).unwrap().semantics, Semantics::Ids);
    let frames = Welcome::read(&welcome(r#","supports":["free_frames"],"semantics":"counts""#)).unwrap_err();
    assert!(
        frames.to_string().contains("names free_frames, which the count semantics does not have"),
        "{frames}"
    );
    assert!(Welcome::read(&welcome(r#","supports":["check"],"semantics":"sizes""#)).is_err());
    let largest = |time: &str| Welcome::read(&welcome(&format!(r#","supports":["check"],"time":{time}"#)));
    assert_eq!(largest(r#"{"max":9223372036854775807}"#).unwrap().largest_time, (1 << 63) - 1);
    assert_eq!(largest(r#"{"kind":"float"}"#).unwrap().largest_time, 1 << 53);
    assert_eq!(largest(r#"{"kind":"float","max":1000}"#).unwrap().largest_time, 1000);
    assert_eq!(Welcome::read(&welcome(r#","supports":["check"]"#)).unwrap().largest_time, u64::MAX);
    assert!(largest(r#"{"kind":"decimal"}"#).is_err());
    let check = CountOp::Check { start: 0, end: 1, n: 1 };
    let fits = read_count_reply(&check, r#"{"result":{"outcome":"fits","value":{"fits":false,"fewest":0}}}"#);
    assert_eq!(fits.unwrap().outcome, CountOutcome::Fits(Fits { fits: false, fewest: 0 }));
    let wrong = read_count_reply(&check, r#"{"result":{"outcome":"free","value":null}}"#).unwrap_err();
    assert_eq!(wrong.to_string(), "check answered with outcome \"free\"; it needs \"fits\" or \"failed\"");
    let earliest = CountOp::Earliest { ready: 0, duration: 1, n: 1 };
    let time = read_count_reply(&earliest, r#"{"result":{"outcome":"time","value":null}}"#).unwrap();
    assert_eq!(time.outcome, CountOutcome::Time(None));
    let kind = read_count_reply(&earliest, r#"{"result":{"outcome":"failed","value":"bad_count"}}"#).unwrap();
    assert!(kind.kind_only);
    let id_check = Op::Check { start: 0, end: 1, n: 1 };
    assert!(
        read_reply(&id_check, r#"{"result":{"outcome":"time","value":3}}"#).is_err(),
        "not for an id child"
    );
}

#[test]
fn resets_are_done_or_refused_and_errors_are_reported() {
    assert_eq!(read_reset_reply(r#"{"result":{"outcome":"done"}}"#), Ok(None));
    let full = r#"{"result":{"outcome":"failed","value":{"bad_config":{"reason":"too big"}}}}"#;
    assert_eq!(read_reset_reply(full), Ok(Some("too big".into())));
    let kind = r#"{"result":{"outcome":"failed","value":"bad_config"}}"#;
    assert_eq!(read_reset_reply(kind), Ok(Some("bad_config".into())));
    let other = read_reset_reply(r#"{"result":{"outcome":"free","value":null}}"#).unwrap_err();
    assert!(other.to_string().contains("a reset is answered with \"done\""), "{other}");
    let error = r#"{"result":{"outcome":"error","value":"KeyError: 'n'"}}"#;
    let check = Op::Check { start: 0, end: 1, n: 1 };
    assert_eq!(read_reply(&check, error), Err(ReplyError::Reported { message: "KeyError: 'n'".into() }));
    let scenario = Scenario { capacity: 2, config: Config { slot: 5, horizon: Some(10) } };
    assert_eq!(
        serde_json::to_string(&Reset::new(scenario)).unwrap(),
        r#"{"op":"reset","capacity":2,"slot":5,"horizon":10}"#
    );
}

/// The worked exchange: `>` lines resbench writes, `<` lines the child answers.
fn exchange() -> Vec<(char, &'static str)> {
    let start = DOC.find("## A worked exchange").unwrap();
    let block = &DOC[start..];
    let block = &block[block.find("```text\n").unwrap() + 8..];
    let block = &block[..block.find("```").unwrap()];
    block.lines().map(|line| (line.chars().next().unwrap(), &line[2..])).collect()
}

#[test]
fn the_documented_exchange_is_what_resbench_writes_and_naive_answers() {
    let lines = exchange();
    let scenario = Scenario { capacity: 4, config: Config { slot: 1, horizon: None } };
    assert_eq!(lines[0], ('>', serde_json::to_string(&Hello::new(scenario)).unwrap().as_str()));
    Welcome::read(lines[1].1).unwrap();
    let mut child = Child::spawn(&super::example("naive.py"), 1 << 20).unwrap();
    let mut last_op = None;
    for (direction, line) in lines {
        let value = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap();
        if direction == '>' {
            last_op = serde_json::from_str::<Op>(line).ok();
            match &last_op {
                Some(op) => {
                    assert_eq!(serde_json::to_string(op).unwrap(), line, "resbench writes ops exactly so")
                }
                None => {
                    // The hello, or a reset to the index it names.
                    let v = value(line);
                    let config = Config { slot: v["slot"].as_u64().unwrap(), horizon: v["horizon"].as_u64() };
                    let scenario = Scenario { capacity: v["capacity"].as_u64().unwrap() as u32, config };
                    let written = match v.get("op") {
                        Some(_) => serde_json::to_string(&Reset::new(scenario)).unwrap(),
                        None => serde_json::to_string(&Hello::new(scenario)).unwrap(),
                    };
                    assert_eq!(written, line, "resbench writes hellos and resets exactly so");
                }
            }
            child.send(line.to_owned());
            continue;
        }
        let answer = child.receive(Duration::from_secs(5), "--timeout-ms").unwrap();
        assert_eq!(value(&answer), value(line), "the documented answer to the line before {line}");
        match &last_op {
            Some(op) => drop(read_reply(op, line).unwrap()),
            None if line.contains("\"result\"") => assert_eq!(read_reset_reply(line), Ok(None)),
            None => drop(Welcome::read(line).unwrap()),
        }
    }
    assert!(child.close().is_some_and(|status| status.success()), "naive.py exits when stdin closes");
}

#[test]
fn the_documented_schema_parses_and_names_every_op_and_error_kind() {
    let start = DOC.find("## JSON Schema").unwrap();
    let block = &DOC[start..];
    let block = &block[block.find("```json\n").unwrap() + 8..];
    let schema: serde_json::Value = serde_json::from_str(&block[..block.find("```").unwrap()]).unwrap();
    let names = |pointer: &str| -> BTreeSet<String> {
        let list = schema.pointer(pointer).unwrap().as_array().unwrap();
        list.iter().map(|v| v.as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(names("/$defs/opName/enum"), OpKind::ALL.iter().map(|k| k.name().to_owned()).collect());
    assert_eq!(names("/$defs/errorKind/enum"), ERROR_KINDS.iter().map(|k| (*k).to_owned()).collect());
    let full = schema.pointer("/$defs/fullError/properties").unwrap().as_object().unwrap();
    let mut described: BTreeSet<&str> = full.keys().map(String::as_str).collect();
    described.insert("empty_set"); // a unit variant: its full form is the kind alone
    assert_eq!(described, ERROR_KINDS.into_iter().collect());
}
