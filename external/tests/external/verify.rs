//! `src/external/verify.rs`: the correct adapter passes, the planted bug is caught and
//! shrunk, and every way a child can fail is classed or refused clearly, leaving no
//! process behind.

use std::time::{Duration, Instant};

use external::boundary::boundary;
use external::protocol::Semantics;
use external::streams::{random, read_trace, trace, Case, Stream};
use external::verify::{
    op_line, ops_text, replay_commands, run_case, shrink, verify, verify_watched, Tally, Watch,
};
use external::{Class, External, Limits, StartError};
use oracle::{Op, OpKind, Scenario};
use structures::Config;

use super::{ended, example, external, faulty, temp_dir};

#[test]
fn the_correct_adapter_passes_10000_random_ops_the_kth_trace_and_the_boundaries() {
    let (name, load) = read_trace(None, None, Some(5_000)).unwrap();
    let streams = [
        random(10_000, 100, 1),
        trace(&name, &load, Config { slot: 300, horizon: None }).unwrap(),
        boundary(),
    ];
    let started = Instant::now();
    let summary = verify(&external(&example("naive.py")), &streams, 1).unwrap();
    eprintln!("{summary}naive.py: {} ops in {:.1} s", summary.ops(), started.elapsed().as_secs_f64());
    assert_eq!(summary.divergences(), 0, "{}", summary.found[0]);
    assert_eq!(summary.columns[0].counts.values().sum::<u64>(), 10_000);
    assert!(summary.columns[1].counts[&Class::Agree] > 19_000, "{summary}");
    assert!(summary.columns.iter().all(|c| c.thorough == (c.name != "trace")));
    assert!(summary.skipped.is_empty());
}

#[test]
fn the_planted_bug_is_caught_as_different_answers_and_shrunk_to_at_most_10_ops() {
    let buggy = external(&example("buggy.py"));
    let summary = verify(&buggy, &[random(2_000, 100, 1)], 1).unwrap();
    let found = summary.found.first().expect("the planted bug is caught");
    assert_eq!(found.step.class, Class::DifferentAnswers, "{found}");
    let shrunk = shrink(&buggy, found, 1_000);
    assert!(shrunk.reproduced && !shrunk.exhausted);
    assert!(shrunk.items.len() <= 10, "{} ops", shrunk.items.len());
    let last = shrunk.items.last().unwrap();
    assert_eq!(last.kind(), OpKind::Earliest, "the reproducer ends at the wrong earliest");
    let again = run_case(&buggy, found.scenario, &shrunk.items, found.thorough).unwrap();
    assert_eq!(again.divergence.map(|s| s.class), Some(Class::DifferentAnswers));
    let file = temp_dir("commands").join("r.ops");
    let [ops, replay] = replay_commands(&buggy.command, found.scenario, found.semantics, &file);
    assert!(ops.starts_with("resbench ops --structure oracle --capacity "), "{ops}");
    assert!(replay.contains("--external 'python3 ") && replay.contains("buggy.py' --replay "), "{replay}");
}

#[test]
fn the_count_planner_passes_every_stream_and_its_planted_bug_is_caught_and_shrunk() {
    let (name, load) = read_trace(None, None, Some(5_000)).unwrap();
    let streams = [
        random(10_000, 100, 1),
        trace(&name, &load, Config { slot: 300, horizon: None }).unwrap(),
        boundary(),
    ];
    let summary = verify(&external(&example("counts.py")), &streams, 1).unwrap();
    assert_eq!(summary.divergences(), 0, "{}", summary.found[0]);
    assert!(summary.columns.iter().all(|c| c.ops() > 0 && !c.thorough), "{summary}");
    assert!(summary.columns[1].counts[&Class::Agree] > 19_000, "{summary}");
    assert_eq!(
        summary.skipped.keys().copied().collect::<Vec<_>>(),
        [OpKind::FreeFrames, OpKind::Options, OpKind::LoadFrames],
        "the ops without a count form"
    );
    let buggy = external(&(example("counts.py") + " --bug"));
    let summary = verify(&buggy, &[random(2_000, 100, 1)], 10).unwrap();
    let check =
        summary.found.iter().find(|f| f.symptom().op == Some(OpKind::Check)).expect("the bug is caught");
    assert_eq!(check.semantics, Semantics::Counts);
    let shrunk = shrink(&buggy, check, 1_000);
    assert!(shrunk.reproduced && !shrunk.exhausted && shrunk.items.len() <= 3, "{:?}", shrunk.items);
    let again = run_case(&buggy, check.scenario, &shrunk.items, false).unwrap();
    let step = again.divergence.unwrap();
    assert_eq!((step.class, step.field), (check.step.class, check.step.field), "the symptom is kept");
    assert!(op_line(shrunk.items.last().unwrap(), Semantics::Counts).starts_with(r#"{"op":"check""#));
    assert!(
        shrunk.items.iter().any(|op| op_line(op, Semantics::Counts).contains(r#""count":"#)),
        "an update in count form: {:?}",
        shrunk.items
    );
    // The trace goes on past each divergence, on a fresh index given the ops before it.
    let summary = verify(&buggy, &streams[1..2], 3).unwrap();
    assert_eq!((summary.divergences(), summary.columns[0].resynced), (3, 2), "{summary}");
    assert!(summary.found.windows(2).all(|w| w[0].op_index < w[1].op_index), "{summary}");
}

/// The first divergence of the boundary stream on the faulty adapter in `mode`.
fn first(mode: &str, limits: Limits) -> external::verify::Found {
    let external = External::new(faulty(mode, 4), limits);
    let summary = verify(&external, &[boundary()], 1).unwrap();
    summary.found.into_iter().next().unwrap_or_else(|| panic!("{mode} was not caught"))
}

#[test]
fn a_child_failing_mid_stream_is_classed_and_its_case_ended() {
    let limits = external("").limits;
    for (mode, class, says) in [
        ("garbage", Class::ProtocolError, "the answer is not a record"),
        ("long", Class::ProtocolError, "longer than 1048576 bytes (raise the limit with --max-line-bytes)"),
        ("wrong", Class::ProtocolError, "answered with outcome \"done\""),
        (
            "exit",
            Class::Crash,
            "exit status: 4) before answering; the end of its stderr:\nfaulty: giving up at op 5",
        ),
    ] {
        let found = first(mode, limits);
        assert_eq!(found.step.class, class, "{mode}: {found}");
        assert!(found.step.what.contains(says), "{mode}: {}", found.step.what);
    }
    let quick = Limits { op_timeout: Duration::from_millis(300), ..limits };
    let started = Instant::now();
    let found = first("hang", quick);
    assert_eq!(found.step.class, Class::Timeout);
    assert!(
        found.step.what.contains("no answer within 300 ms (raise it with --timeout-ms)"),
        "{}",
        found.step.what
    );
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

#[test]
fn a_reported_internal_error_is_its_own_class_and_the_next_case_goes_on() {
    let summary = verify(&external(&faulty("error", 4)), &[boundary()], 10).unwrap();
    assert_eq!(summary.divergences(), 1, "{summary}");
    let found = &summary.found[0];
    assert_eq!(found.step.class, Class::ChildError, "{found}");
    assert!(found.step.what.contains("reported an internal error: faulty: a planted exception"), "{found}");
    assert_eq!(summary.columns[0].cases, boundary().cases.len(), "every later case ran on the same child");
}

#[test]
fn a_divergence_in_the_free_space_shows_the_query_that_found_it() {
    let summary = verify(&external(&faulty("forget", 0)), &[random(2_000, 100, 1)], 10).unwrap();
    let found = summary.found.iter().find(|f| f.step.field == "free space").expect("a free space divergence");
    assert_eq!(found.ops.last().map(Op::kind), Some(OpKind::Allocate));
    let Some(Op::FreeFrames { from, to }) = found.query else { panic!("no query: {found}") };
    assert!(from < to, "from the present to the limit");
    let text = found.to_string();
    assert!(
        text.contains(r#"then:   {"op":"free_frames","#) && text.contains("(the whole-state comparison)"),
        "{text}"
    );
    let file = ops_text(&found.ops, found.query.as_ref(), Semantics::Ids);
    assert!(file.lines().last().unwrap().starts_with(r#"{"op":"free_frames""#), "{file}");
}

#[test]
fn a_child_with_a_narrower_time_domain_is_checked_within_it() {
    let streams = [random(2_000, 100, 1), boundary()];
    let summary = verify(&external(&faulty("signed", 0)), &streams, 10).unwrap();
    assert_eq!(summary.divergences(), 0, "{}", summary.found[0]);
    assert_eq!(summary.left_out.1, Some((1 << 63) - 1));
    assert!(summary.left_out.0.values().sum::<u64>() > 0, "{summary}");
    assert!(summary.columns.iter().all(|c| c.thorough && c.ops() > 0), "{summary}");
    assert!(summary.to_string().contains("pass the child's largest time 9223372036854775807"), "{summary}");
    // An earliest that names no late time, but whose answer ends past the domain.
    let late = (1u64 << 63) - 10;
    let ops = vec![
        Op::Allocate { start: 0, end: late, set: structures::RangeSet::full(1) },
        Op::Earliest { ready: 0, duration: 20, n: 1 },
        Op::Check { start: 0, end: 5, n: 1 },
    ];
    let scenario = Scenario { capacity: 1, config: Config { slot: 1, horizon: None } };
    let stream = Stream {
        name: "replay",
        about: String::new(),
        thorough: true,
        goes_on: false,
        cases: vec![Case { scenario, ops }],
    };
    let summary = verify(&external(&faulty("signed", 0)), &[stream], 1).unwrap();
    assert_eq!(summary.divergences(), 0, "{}", summary.found[0]);
    assert_eq!(summary.left_out.0.get(&OpKind::Earliest), Some(&1), "{summary}");
    // Undeclared, the same limits show as divergences.
    let quiet = verify(&external(&faulty("signed-quiet", 0)), &streams, 10).unwrap();
    assert!(quiet.found.iter().any(|f| f.step.class == Class::ChildError), "{quiet}");
}

#[test]
fn a_child_without_some_ops_is_checked_on_the_rest_and_they_are_counted() {
    let summary = verify(&external(&faulty("only", 0)), &[boundary()], 1).unwrap();
    assert_eq!(summary.divergences(), 0);
    assert!(!summary.columns[0].thorough, "no free_frames, so answers only");
    assert_eq!(
        summary.skipped.keys().copied().collect::<Vec<_>>(),
        [OpKind::Earliest, OpKind::Release, OpKind::FreeFrames, OpKind::Options, OpKind::LoadFrames]
    );
    assert!(summary.to_string().contains("ops not sent (the child does not support them): earliest "));
}

/// A command that writes its pid to a file, then runs `script` in Python.
fn with_pid(name: &str, script: &str) -> (String, std::path::PathBuf) {
    let pidfile = temp_dir(name).join("pid");
    let body =
        format!("import os, sys, json, time; open({:?}, 'w').write(str(os.getpid())); {script}", pidfile);
    (format!("python3 -c \"{}\"", body.replace('"', "\\\"")), pidfile)
}

#[test]
fn handshake_failures_are_clear_errors_and_leave_no_process() {
    let welcome_v2 = "sys.stdin.readline(); print(json.dumps({'protocol': 'resbench-external', 'version': 2}), flush=True); time.sleep(60)";
    let cases = [
        (
            "silent",
            "time.sleep(60)",
            "timeout: the child gave no answer within 2000 ms (raise it with --handshake-timeout-ms)",
        ),
        (
            "garbage",
            "print('garbage', flush=True); time.sleep(60)",
            "protocol error: the child's first line is not a welcome",
        ),
        (
            "early",
            "sys.stderr.write('no structure here'); sys.exit(2)",
            "exit status: 2) before answering; the end of its stderr:\nno structure here",
        ),
        (
            "version",
            welcome_v2,
            "version mismatch: resbench speaks resbench-external version 1, the child answered version 2",
        ),
    ];
    for (name, script, says) in cases {
        let (command, pidfile) = with_pid(name, script);
        // Long enough for Python to start on a loaded machine and write its pid.
        let limits = Limits { handshake_timeout: Duration::from_millis(2000), ..Limits::default() };
        let started = Instant::now();
        let err = verify(&External::new(command, limits), &[boundary()], 1).unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(8), "{name}: {:?}", started.elapsed());
        assert!(err.to_string().contains(says), "{name}: {err}");
        let pid: u32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
        assert!(ended(pid), "{name}: the child was not killed");
    }
}

#[test]
fn a_child_that_refuses_a_scenario_has_that_case_skipped_and_counted() {
    let script = "import json, sys; h = json.loads(sys.stdin.readline()); \
                  print(json.dumps({'protocol': 'resbench-external', 'version': 1, 'error': 'only one resource, please'}))";
    let command = format!("python3 -c \"{script}\"");
    let summary = verify(&external(&command), &[boundary()], 1).unwrap();
    assert_eq!((summary.refused.len(), summary.ops()), (5, 0));
    assert!(summary.to_string().contains("refused at the handshake: 5 (first: only one resource, please)"));
    let bad = External::new("exit 0", Limits::default());
    let scenario = Scenario { capacity: 1, config: Config::default() };
    assert!(matches!(run_case(&bad, scenario, &[], true), Err(StartError::Child(_))));
}

/// Each stream has its own budget of divergences: the first stream's divergences do not
/// keep the second from running, and each stops at its own bound.
#[test]
fn each_stream_stops_at_its_own_bound_of_divergences() {
    let buggy = external(&example("buggy.py"));
    let summary = verify(&buggy, &[random(2_000, 100, 1), random(2_000, 100, 2)], 2).unwrap();
    // Before, the first stream used the whole budget and the second never ran.
    assert_eq!(summary.columns.len(), 2, "{summary}");
    assert_eq!(summary.found.len(), 4, "{summary}");
    assert!(summary.columns.iter().all(|c| c.stopped), "{summary}");
    assert!(summary.to_string().contains("stopped at its bound of divergences"), "{summary}");
    for c in &summary.columns {
        assert_eq!(c.ops() + c.not_sent + c.ops_unchecked(), 2_000, "{summary}");
        assert!(c.ops_unchecked() > 500, "past the bound: {summary}");
    }
    let text = summary.to_string();
    assert!(
        text.contains(&format!("random: {} of 2000 ops checked, 0 not sent", summary.columns[0].ops())),
        "{text}"
    );
}

/// Every progress report.
struct Recorded(Vec<(&'static str, Tally)>);

impl Watch for Recorded {
    fn progress(&mut self, stream: &'static str, tally: &Tally) {
        self.0.push((stream, *tally));
    }
}

#[test]
fn progress_is_reported_within_long_cases_and_ends_at_the_total() {
    let (name, load) = read_trace(None, None, Some(300)).unwrap();
    let streams = [boundary(), trace(&name, &load, Config { slot: 300, horizon: None }).unwrap()];
    let mut seen = Recorded(Vec::new());
    let summary = verify_watched(&external(&example("buggy.py")), &streams, 1, &mut seen).unwrap();
    for column in &summary.columns {
        let reports: Vec<&Tally> = seen.0.iter().filter(|r| r.0 == column.name).map(|r| &r.1).collect();
        assert!(
            reports.windows(2).all(|w| w[0].taken <= w[1].taken && w[0].checked <= w[1].checked),
            "{reports:?}"
        );
        let last = reports.last().unwrap();
        assert_eq!((last.taken, last.total, last.checked), (column.total, column.total, column.ops()));
        assert_eq!(last.unchecked(), column.ops_unchecked());
    }
    let trace_reports = seen.0.iter().filter(|r| r.0 == "trace").count();
    assert!(trace_reports as u64 >= summary.columns[1].total / 256, "{trace_reports} reports");
}

/// A stream whose every case the child refuses checked nothing: it says so, with a hint
/// when the child wants 1-second slots, and the other streams still count.
#[test]
fn a_stream_the_child_refuses_whole_is_reported_as_not_checked() {
    let (name, load) = read_trace(None, None, Some(200)).unwrap();
    let streams = [random(500, 100, 1), trace(&name, &load, Config { slot: 300, horizon: None }).unwrap()];
    let summary = verify(&external(&faulty("unslotted", 0)), &streams, 1).unwrap();
    assert!(summary.columns[0].ops() > 0 && summary.columns[0].unchecked().is_none(), "{summary}");
    let why = summary.columns[1].unchecked().expect("the trace stream checked nothing");
    assert!(
        why.contains("refused its 1 case(s)") && why.contains("300-second slots (try --slot 1)"),
        "{why}"
    );
    assert!(summary.to_string().contains("trace: not checked: the child refused"), "{summary}");
}

/// The trace stream goes on past a divergence: a fresh child is brought to the oracle's
/// state and every later op is still checked.
#[test]
fn the_trace_stream_goes_on_past_a_divergence_and_checks_every_later_op() {
    let (name, load) = read_trace(None, None, Some(5_000)).unwrap();
    let stream = trace(&name, &load, Config { slot: 300, horizon: None }).unwrap();
    let flag = temp_dir("once").join("diverged");
    let command = format!("{} {}", faulty("once", 100), flag.display());
    let summary = verify(&external(&command), std::slice::from_ref(&stream), 10).unwrap();
    assert_eq!(summary.found.len(), 1, "{summary}");
    assert_eq!(summary.found[0].op_index, 100, "{}", summary.found[0]);
    let column = &summary.columns[0];
    assert_eq!(column.resynced, 1);
    assert_eq!(column.ops(), stream.ops() as u64, "every op of the stream is classed: {summary}");
    let diverged: u64 = column.counts.iter().filter(|(c, _)| c.is_divergence()).map(|(_, n)| n).sum();
    assert_eq!(diverged, 1, "{summary}");
    assert!(summary.to_string().contains("went on past 1 divergence(s)"), "{summary}");
}
