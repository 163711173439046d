//! The bad-input corpus (`tests/bad_inputs/cases.json`): every case runs the built
//! binary in a child under a memory cap (`ulimit -v`) and a time cap, and must end with
//! its expected exit code and text, and never panic. Big inputs are generated here into
//! a temp folder rather than committed.

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use flate2::write::GzEncoder;
use flate2::Compression;
use serde_json::Value;

const JOB_TAIL: &str = "0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1";

fn gzip(path: &Path, write: impl FnOnce(&mut GzEncoder<File>)) {
    let mut gz = GzEncoder::new(File::create(path).unwrap(), Compression::fast());
    write(&mut gz);
    gz.finish().unwrap();
}

/// A small gzip file that decompresses to 5,000 malformed lines of 60 KB each (300 MB),
/// after one good job: the reader used to keep every line's text.
fn lenient_bomb(path: &Path) {
    gzip(path, |gz| {
        writeln!(gz, "; MaxProcs: 4\n1 0 {JOB_TAIL}").unwrap();
        let mut line = "x".repeat(60_000);
        line.push_str(&" 1".repeat(17));
        line.push('\n');
        for _ in 0..5_000 {
            gz.write_all(line.as_bytes()).unwrap();
        }
    });
}

/// A small gzip file of 5,000 header lines of 60 KB each (300 MB): every header line
/// used to be kept.
fn header_bomb(path: &Path) {
    gzip(path, |gz| {
        let line = format!(";{}\n", "x".repeat(60_000));
        for _ in 0..5_000 {
            gz.write_all(line.as_bytes()).unwrap();
        }
        writeln!(gz, "1 0 {JOB_TAIL}").unwrap();
    });
}

/// Three million valid jobs in 3,000 identical gzip members of ids 1 to 1,000 (read as
/// one stream): far more jobs than the limit, from a file of a few MB.
fn strict_bomb(path: &Path) {
    let mut member = GzEncoder::new(Vec::new(), Compression::best());
    for id in 1..=1_000 {
        writeln!(member, "{id} {id} {JOB_TAIL}").unwrap();
    }
    let member = member.finish().unwrap();
    let mut file = File::create(path).unwrap();
    let mut header = GzEncoder::new(Vec::new(), Compression::fast());
    writeln!(header, "; MaxProcs: 4").unwrap();
    file.write_all(&header.finish().unwrap()).unwrap();
    for _ in 0..3_000 {
        file.write_all(&member).unwrap();
    }
}

/// A benchmark file of 200,000 results (40,000 states of five operations) for one
/// structure: a report of it must take linear time, not quadratic.
fn bench_200k(path: &Path) {
    let mut results = Vec::with_capacity(200_000);
    for state in 0..40_000 {
        for op in ["check", "earliest", "allocate", "release", "free_frames"] {
            results.push(serde_json::json!({
                "structure": "rbtree", "operation": op, "counted": true,
                "state": format!("synthetic-{state}"), "size": state + 1, "calls": 100,
                "median_ns": 1000.0, "low_ns": 900.0, "high_ns": 1100.0, "mad_ns": 10.0,
                "instructions": null, "visited": null, "worst": null
            }));
        }
    }
    let file = serde_json::json!({
        "schema": 1, "kind": "benchmarks", "revision": "abc123", "recorded": "2026-11-22T10:00:00Z",
        "machine": {"cpu": "test", "cores": 1, "memory_gib": 1.0, "os": "linux", "rustc": "rustc"},
        "results": results, "memory": []
    });
    fs::write(path, serde_json::to_string(&file).unwrap()).unwrap();
}

/// Writes a 400 MB op line to `stdin`, stopping quietly when the reader stops.
fn long_ops_line(mut stdin: impl Write) {
    let chunk = vec![b'1'; 1 << 20];
    if stdin.write_all(br#"{"op":"check","start":"#).is_err() {
        return;
    }
    for _ in 0..400 {
        if stdin.write_all(&chunk).is_err() {
            return;
        }
    }
}

/// A million ordinary op lines for `ops --structure slotted --capacity 64 --horizon
/// 1048576`: id 63 is booked over the whole horizon, then, while the present moves on a
/// slot per cycle, each cycle books one id over ten slots somewhere ahead, checks and
/// searches that window, and releases it in two halves (an early end, then the rest).
/// Every release used to walk back over every slot the long booking could reach.
/// Stops quietly when the reader stops.
fn slotted_ops_stream(stdin: impl Write) {
    let mut out = std::io::BufWriter::new(stdin);
    let _ = (|| -> std::io::Result<()> {
        writeln!(out, r#"{{"op":"allocate","start":0,"end":1048576,"set":[[63,64]]}}"#)?;
        // Six lines a cycle: just over a million lines with the first.
        for now in 0..166_667u64 {
            let (t, id) = (now + 1 + now * 7_919 % 1_000_000, now % 63);
            let (mid, end, set) = (t + 5, t + 10, format!("[[{id},{}]]", id + 1));
            writeln!(out, r#"{{"op":"advance","now":{now}}}"#)?;
            writeln!(out, r#"{{"op":"allocate","start":{t},"end":{end},"set":{set}}}"#)?;
            writeln!(out, r#"{{"op":"check","start":{t},"end":{end},"n":2}}"#)?;
            writeln!(out, r#"{{"op":"earliest","ready":{t},"duration":10,"n":2}}"#)?;
            writeln!(out, r#"{{"op":"release","start":{mid},"end":{end},"set":{set}}}"#)?;
            writeln!(out, r#"{{"op":"release","start":{t},"end":{mid},"set":{set}}}"#)?;
        }
        out.flush()
    })();
}

/// The generator that writes a case's stdin, by its `stdin_generate` name.
fn stdin_generator(name: &str) -> fn(std::process::ChildStdin) {
    match name {
        "long_ops_line" => long_ops_line,
        "slotted_ops_stream" => slotted_ops_stream,
        other => panic!("no stdin generator {other}"),
    }
}

fn text(case: &Value, key: &str) -> Option<String> {
    case.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// Runs one case; returns what is wrong with its outcome, if anything.
fn run_case(case: &Value, cases: &Path, tmp: &Path) -> Option<String> {
    let fill = |arg: &str| {
        arg.replace("{cases}", &cases.display().to_string()).replace("{tmp}", &tmp.display().to_string())
    };
    let args: Vec<String> =
        case["args"].as_array().unwrap().iter().map(|a| fill(a.as_str().unwrap())).collect();
    let mem_kb = case.get("mem_mb").and_then(Value::as_u64).unwrap_or(1000) * 1000;
    let limit = Duration::from_secs(case.get("time_s").and_then(Value::as_u64).unwrap_or(30));
    // The shell caps the child's address space, then becomes the binary.
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("ulimit -v {mem_kb}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_resbench"))
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match text(case, "stdin") {
        Some(file) => command.stdin(File::open(cases.join(file)).unwrap()),
        None if case.get("stdin_generate").is_some() => command.stdin(Stdio::piped()),
        None => command.stdin(Stdio::null()),
    };
    let started = Instant::now();
    let mut child = command.spawn().unwrap();
    let generate = text(case, "stdin_generate").map(|name| stdin_generator(&name));
    let writer =
        child.stdin.take().zip(generate).map(|(stdin, generate)| thread::spawn(move || generate(stdin)));
    let drain = |mut pipe: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            break None;
        }
        thread::sleep(Duration::from_millis(20));
    };
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    if let Some(writer) = writer {
        writer.join().unwrap();
    }
    let Some(status) = status else { return Some(format!("killed after {limit:?}\nstderr: {err}")) };
    let expected = case.get("exit").and_then(Value::as_i64).unwrap_or(1);
    let mut wrong = Vec::new();
    if status.code() != Some(expected as i32) {
        wrong.push(format!("exit {status} (expected {expected}; 101 is a panic, no code a signal)"));
    }
    if err.contains("panicked") {
        wrong.push("panicked".to_owned());
    }
    if let Some(want) = text(case, "stderr").filter(|want| !err.contains(want.as_str())) {
        wrong.push(format!("stderr lacks {want:?}"));
    }
    if let Some(want) = text(case, "stdout").filter(|want| !out.contains(want.as_str())) {
        wrong.push(format!("stdout lacks {want:?}"));
    }
    if let Some(once) = text(case, "once").filter(|once| err.matches(once.as_str()).count() != 1) {
        wrong.push(format!("stderr does not say {once:?} exactly once"));
    }
    if let Some(max) = case.get("max_stderr").and_then(Value::as_u64).filter(|&max| err.len() as u64 > max) {
        wrong.push(format!("stderr is {} bytes, more than {max}", err.len()));
    }
    let head = |s: &str| s.chars().take(2_000).collect::<String>();
    (!wrong.is_empty())
        .then(|| format!("{}\nstdout: {}\nstderr: {}", wrong.join("; "), head(&out), head(&err)))
}

#[test]
fn every_bad_input_fails_cleanly_within_its_caps() {
    let cases = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/bad_inputs");
    let manifest: Value =
        serde_json::from_str(&fs::read_to_string(cases.join("cases.json")).unwrap()).unwrap();
    let tmp = std::env::temp_dir().join(format!("resbench-bad-inputs-{}", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp).unwrap();
    // RESBENCH_BAD_INPUT=name runs one case.
    let only = std::env::var("RESBENCH_BAD_INPUT").ok();
    let chosen: Vec<&Value> = manifest
        .as_array()
        .unwrap()
        .iter()
        .filter(|case| only.as_ref().is_none_or(|only| *only == text(case, "name").unwrap()))
        .collect();
    let mut generated = BTreeSet::new();
    for case in &chosen {
        if let Some(generator) = text(case, "generate").filter(|g| generated.insert(g.clone())) {
            match generator.as_str() {
                "lenient_bomb" => lenient_bomb(&tmp.join("lenient_bomb.swf.gz")),
                "strict_bomb" => strict_bomb(&tmp.join("strict_bomb.swf.gz")),
                "header_bomb" => header_bomb(&tmp.join("header_bomb.swf.gz")),
                "bench_200k" => bench_200k(&tmp.join("bench_200k.json")),
                other => panic!("{}: no generator {other}", text(case, "name").unwrap()),
            }
        }
    }
    // The cases run on every core, each child under its own caps.
    let next = AtomicUsize::new(0);
    let workers = thread::available_parallelism().map_or(1, usize::from);
    let mut outcomes: Vec<(usize, Option<String>)> = thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(case) = chosen.get(i) else { break };
                        let started = Instant::now();
                        let outcome = run_case(case, &cases, &tmp);
                        let name = text(case, "name").unwrap();
                        let verdict = if outcome.is_none() { "ok" } else { "WRONG" };
                        eprintln!("{name}: {verdict} in {:.1?}", started.elapsed());
                        done.push((i, outcome));
                    }
                    done
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    outcomes.sort_by_key(|&(i, _)| i);
    let failures: Vec<String> = chosen
        .iter()
        .zip(outcomes)
        .filter_map(|(case, (_, wrong))| {
            let (name, finding) = (text(case, "name").unwrap(), text(case, "finding").unwrap_or_default());
            wrong.map(|wrong| format!("{name} ({finding}): {wrong}"))
        })
        .collect();
    let _ = fs::remove_dir_all(&tmp);
    assert!(failures.is_empty(), "{} cases wrong:\n{}", failures.len(), failures.join("\n\n"));
}
