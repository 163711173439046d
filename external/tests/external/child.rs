//! `src/external/child.rs`: lines in and out, and every way a child fails, each ending
//! with the child reaped.

use std::time::{Duration, Instant};

use external::child::{Child, ChildError, STDERR_TAIL};

use super::{gone, group_left};

const WAIT: Duration = Duration::from_secs(5);

#[test]
fn lines_go_in_and_come_back_and_a_closed_child_exits() {
    let mut child = Child::spawn("cat", 1024).unwrap();
    child.send("{\"a\":1}".into());
    child.send(String::new());
    child.send("second".into());
    assert_eq!(child.receive(WAIT, "--timeout-ms").unwrap(), "{\"a\":1}");
    assert_eq!(child.receive(WAIT, "--timeout-ms").unwrap(), "second", "blank lines are skipped");
    let pid = child.id();
    assert!(child.close().is_some_and(|s| s.success()));
    assert!(gone(pid));
}

#[test]
fn a_silent_child_times_out_within_the_bound_and_is_reaped() {
    let mut child = Child::spawn("sleep 60", 1024).unwrap();
    let pid = child.id();
    let started = Instant::now();
    let err = child.receive(Duration::from_millis(300), "--timeout-ms").unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    assert!(matches!(err, ChildError::Timeout { ms: 300, flag: "--timeout-ms", .. }), "{err}");
    assert!(err.to_string().contains("raise it with --timeout-ms"), "{err}");
    assert!(gone(pid), "the timed-out child was killed and reaped");
}

#[test]
fn a_child_that_exits_early_is_a_crash_with_its_status_and_stderr() {
    let mut child = Child::spawn("sh -c 'echo first >&2; echo cannot go on >&2; exit 3'", 1024).unwrap();
    let pid = child.id();
    match child.receive(WAIT, "--timeout-ms").unwrap_err() {
        ChildError::Crash { status, stderr } => {
            assert!(status.contains('3'), "{status}");
            assert_eq!(stderr, "first\ncannot go on");
        }
        other => panic!("{other}"),
    }
    drop(child);
    assert!(gone(pid));
}

#[test]
fn a_line_over_the_limit_is_refused_naming_the_option() {
    let mut child = Child::spawn("python3 -c \"print('x' * 3000)\"", 1000).unwrap();
    let err = child.receive(WAIT, "--timeout-ms").unwrap_err();
    assert_eq!(
        err,
        ChildError::Protocol(
            "the child wrote a line longer than 1000 bytes (raise the limit with --max-line-bytes)".into()
        )
    );
}

#[test]
fn only_the_end_of_stderr_is_kept() {
    let script = "import sys; sys.stderr.write('a' * 100000 + 'THE END'); sys.exit(1)";
    let mut child = Child::spawn(&format!("python3 -c \"{script}\""), 1024).unwrap();
    match child.receive(WAIT, "--timeout-ms").unwrap_err() {
        ChildError::Crash { stderr, .. } => {
            assert_eq!(stderr.len(), STDERR_TAIL);
            assert!(stderr.ends_with("aaaTHE END"), "{}", &stderr[stderr.len() - 20..]);
        }
        other => panic!("{other}"),
    }
}

#[test]
fn a_missing_command_shows_as_a_crash_saying_so() {
    let mut child = Child::spawn("no-such-command-here --flag", 1024).unwrap();
    let err = child.receive(WAIT, "--timeout-ms").unwrap_err();
    assert!(matches!(&err, ChildError::Crash { stderr, .. } if stderr.contains("not found")), "{err}");
}

#[test]
fn dropping_a_child_kills_and_reaps_it() {
    let child = Child::spawn("sleep 60", 1024).unwrap();
    let pid = child.id();
    assert!(!gone(pid));
    drop(child);
    assert!(gone(pid));
}

#[test]
fn a_child_that_never_reads_does_not_block_the_sender() {
    let mut child = Child::spawn("sleep 60", 1024).unwrap();
    let started = Instant::now();
    for _ in 0..100 {
        child.send("x".repeat(10_000)); // 1 MB: far more than a pipe holds
    }
    assert!(started.elapsed() < Duration::from_secs(1));
    assert!(matches!(
        child.receive(Duration::from_millis(100), "--timeout-ms"),
        Err(ChildError::Timeout { .. })
    ));
}

#[test]
fn a_command_runs_in_a_shell_so_assignments_and_cd_work() {
    for command in ["PEER=x cat", "cd / && cat", "PEER=x sh -c 'cat'"] {
        let mut child = Child::spawn(command, 1024).unwrap();
        child.send("hello".into());
        assert_eq!(child.receive(WAIT, "--timeout-ms").unwrap(), "hello", "{command}");
        assert!(child.close().is_some_and(|s| s.success()), "{command}");
    }
}

/// What the shell started, however deep, dies with it: on a timeout, on drop, and on a
/// close that finds something still running after the shell exited.
#[test]
fn no_process_of_the_child_s_group_survives() {
    let mut child = Child::spawn("sleep 60 & sh -c 'sleep 60 & sleep 60'", 1024).unwrap();
    let group = child.id();
    assert!(child.receive(Duration::from_millis(300), "--timeout-ms").is_err());
    assert_eq!(group_left(group), Vec::<u32>::new(), "after a timeout");
    let child = Child::spawn("sh -c 'sleep 60' & cat", 1024).unwrap();
    let group = child.id();
    drop(child);
    assert_eq!(group_left(group), Vec::<u32>::new(), "after a drop");
    let child = Child::spawn("sleep 60 & exit 0", 1024).unwrap();
    let group = child.id();
    assert!(child.close().is_some_and(|s| s.success()));
    assert_eq!(group_left(group), Vec::<u32>::new(), "after a close");
}
