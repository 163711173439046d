//! The `resbench` binary as a user runs it.

use std::process::Command;
use strum::VariantArray;

use structures::Kind;

/// How a replay says its schedules agreed on `n` structures.
fn identical(n: usize) -> String {
    format!("schedules: identical across {n} structures")
}

fn resbench(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_resbench")).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn help_lists_every_registered_structure_with_its_description() {
    for command in ["replay", "ops"] {
        let (ok, out, err) = resbench(&[command, "--help"]);
        assert!(ok, "{err}");
        for &kind in structures::Kind::ALL {
            let (name, description) = (format!("- {}:", kind.name()), kind.spec().description);
            let listed = out.lines().any(|l| l.trim_start().starts_with(&name) && l.ends_with(description));
            assert!(listed, "`resbench {command} --help` does not list {name} {description:?}:\n{out}");
        }
    }
    let (ok, _, err) = resbench(&["replay", "--structure", "nosuch"]);
    assert!(!ok && err.contains("possible values") && err.contains("rbtree"), "{err}");
}

#[test]
fn help_lists_every_policy_and_a_policy_parameter_is_refused_elsewhere() {
    let (ok, out, err) = resbench(&["replay", "--help"]);
    assert!(ok, "{err}");
    for &policy in scheduling::policy::PolicyKind::VARIANTS {
        let (name, description) = (format!("- {}:", policy.name()), policy.spec().description);
        let listed = out.lines().any(|l| l.trim_start().starts_with(&name) && l.ends_with(description));
        assert!(listed, "`resbench replay --help` does not list {name} {description:?}:\n{out}");
    }
    let (ok, _, err) = resbench(&["replay", "--policy", "easy", "--no-compress", "--limit", "10"]);
    assert!(
        !ok && err.contains("--no-compress is a parameter of --policy conservative, not of --policy easy"),
        "{err}"
    );
    let refusals: [(&[&str], &str); 7] = [
        (
            &["--lead", "4"],
            "--lead is a parameter of --policy fcfs-eds and flexible, not of --policy conservative",
        ),
        (
            &["--policy", "fcfs-eds", "--relax-min", "0"],
            "--relax-min 0 and --relax-max 24 are not a range of at least one slot",
        ),
        (&["--policy", "flexible", "--flexible-share", "1.5"], "--flexible-share 1.5 is not between 0 and 1"),
        (
            &["--policy", "fcfs-eds", "--ar-fraction", "0.5"],
            "--ar-fraction: every request of --policy fcfs-eds is an advance reservation already",
        ),
        (
            &["--policy", "flexible", "--mode", "simulate"],
            "--model counted plans only, as in fcfs-eds-slotted-array, where a job ends when its reservation does: add --mode plan-only, or use --model ids",
        ),
        (&["--model", "ids"], "--model is a parameter of --policy fcfs-eds and flexible, not of --policy conservative"),
        (
            &["--policy", "fcfs-eds", "--slot", "9223372036854775807"],
            "--model counted: slot 4 of 9223372036854775807 s is past the last time there is; use a narrower --slot",
        ),
    ];
    for (args, expected) in refusals {
        let (ok, _, err) = resbench(&[&["replay", "--limit", "10"], args].concat());
        assert!(!ok && err.contains(expected), "{args:?}: {err}");
    }
    let (ok, out, err) =
        resbench(&["replay", "--policy", "easy", "--limit", "300", "--verify", "--slot", "60"]);
    assert!(ok, "{err}");
    for needle in ["scheduler: easy (", &identical(Kind::ALL.len()), "divergences: 0"] {
        assert!(out.contains(needle), "missing {needle:?} in:\n{out}");
    }
}

#[test]
fn replay_of_the_bundled_trace_prints_the_table() {
    let (ok, out, err) = resbench(&["replay", "--limit", "400", "--verify", "--slot", "60"]);
    assert!(ok, "{err}");
    for needle in [
        "KTH-SP2-1996-2.1-cln.swf.gz (bundled)",
        "slot 60, horizon",
        "rbtree",
        "list",
        "btree",
        "slotted",
        "segtree",
        "calendar",
        "idletrees",
        "skiplist",
        &identical(Kind::ALL.len()),
        "divergences: 0",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in:\n{out}");
    }
}

#[test]
fn a_structure_that_scans_window_slots_says_up_front_what_it_is_in_for() {
    let (ok, out, err) = resbench(&["replay", "--structure", "slotted", "--limit", "20", "--slot", "60"]);
    assert!(ok, "{err}");
    let said = out.find("slotted: scans every slot of each window; the 20 windows hold ");
    let table = out.find("struct ");
    assert!(said.is_some_and(|s| table.is_some_and(|t| s < t)), "{out}");
    let (_, out, _) = resbench(&["replay", "--structure", "rbtree", "--limit", "20", "--slot", "60"]);
    assert!(!out.contains("scans every slot"), "{out}");
}

#[test]
fn a_structure_that_cannot_take_the_configuration_is_skipped_saying_why() {
    let (ok, out, err) = resbench(&["replay", "--limit", "50", "--horizon", "2000000"]);
    assert!(ok, "{err}");
    for name in ["slotted", "segtree"] {
        let skipped = format!("skipped {name}: invalid configuration: 2000000 slots are more than");
        assert!(out.contains(&skipped), "{out}");
    }
    assert!(out.contains(&identical(Kind::ALL.len() - 2)), "{out}");
    let (ok, _, err) =
        resbench(&["replay", "--limit", "50", "--horizon", "2000000", "--structure", "slotted"]);
    assert!(!ok && err.contains("2000000 slots are more than"), "{err}");
}

#[test]
fn a_malformed_trace_fails_naming_the_line() {
    let dir = std::env::temp_dir().join(format!("resbench-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.swf");
    // A bad line, then a good one: lenient reading keeps one job (a trace without any is
    // refused).
    let good = "2 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1";
    std::fs::write(&path, format!("; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1\n{good}\n"))
        .unwrap();
    let (ok, _, err) = resbench(&["replay", "--trace", path.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("bad.swf:2: expected 18 fields, found 17"), "{err}");
    let (ok, out, err) =
        resbench(&["replay", "--trace", path.to_str().unwrap(), "--lenient", "--structure", "rbtree"]);
    assert!(ok && out.contains("malformed lines skipped: 1"), "{out}{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_synthetic_workload_with_reservations_writes_one_run_file_per_structure() {
    let dir = std::env::temp_dir().join(format!("resbench-cli-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args =
        ["replay", "--synthetic", "300", "--capacity", "32", "--max-time", "3600", "--ar-fraction", "0.3"];
    let (ok, out, err) = resbench(
        &[&args[..], &["--slot", "60", "--verify", "--trim", "10", "--out", dir.to_str().unwrap()]].concat(),
    );
    assert!(ok, "{err}");
    assert!(out.contains("advance reservations: "), "{out}");
    assert!(out.contains("divergences: 0"), "{out}");
    for &kind in structures::Kind::ALL {
        let path = dir.join(format!("synthetic.ar0.3.{kind}.json"));
        let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(json["schema"], 1, "{}", path.display());
        assert_eq!(json["structure"], kind.name());
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// `--structure` takes a list; a replay without compression is named as such, so it can
/// share a folder and a report with the default one, in a section of its own.
#[test]
fn a_list_of_structures_and_an_uncompressed_replay_share_a_folder_with_the_default() {
    let dir = std::env::temp_dir().join(format!("resbench-cli-compress-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out_dir = dir.to_str().unwrap();
    let args = ["replay", "--limit", "600", "--slot", "300", "--trim", "10", "--out", out_dir];
    let (ok, out, err) = resbench(&[&args[..], &["--structure", "list,rbtree", "--no-compress"]].concat());
    assert!(ok, "{err}");
    assert!(out.contains("without compression") && out.contains(&identical(2)), "{out}");
    let (ok, out, err) = resbench(&[&args[..], &["--structure", "rbtree"]].concat());
    assert!(ok, "{err}");
    assert!(out.contains("with compression"), "{out}");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".json"))
        .collect();
    files.sort();
    let stem = "KTH-SP2-1996-2.1-cln";
    let expected = [
        format!("{stem}.no-compress.list.json"),
        format!("{stem}.no-compress.rbtree.json"),
        format!("{stem}.rbtree.json"),
    ];
    assert_eq!(files, expected);
    let paths: Vec<String> = files.iter().map(|f| dir.join(f).to_str().unwrap().to_owned()).collect();
    let (ok, _, err) = resbench(
        &[&["report"][..], &paths.iter().map(String::as_str).collect::<Vec<_>>(), &["--out", out_dir]]
            .concat(),
    );
    assert!(ok, "{err}");
    let page = std::fs::read_to_string(dir.join("index.md")).unwrap();
    // Sections come in the order of the files given.
    let mut headings: Vec<&str> = page.lines().filter(|l| l.starts_with("## KTH")).collect();
    headings.sort_unstable();
    assert_eq!(
        headings,
        [
            format!("## {stem}, the first 600 jobs"),
            format!("## {stem}, the first 600 jobs, without compression")
        ]
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Structures replayed in parallel give the same run files as one after another, wall
/// times aside, in the same order.
#[test]
fn parallel_replays_write_what_serial_ones_do() {
    let base = std::env::temp_dir().join(format!("resbench-cli-jobs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let mut outputs = Vec::new();
    for jobs in ["1", "3"] {
        let dir = base.join(jobs);
        let args = ["replay", "--limit", "1500", "--slot", "300", "--trim", "10", "-j", jobs];
        let (ok, out, err) = resbench(&[&args[..], &["--out", dir.to_str().unwrap()]].concat());
        assert!(ok, "{err}");
        let rows: Vec<String> =
            out.lines().filter_map(|l| l.split_whitespace().next().map(str::to_owned)).collect();
        let mut files = std::collections::BTreeMap::new();
        for &kind in Kind::ALL {
            let path = dir.join(format!("KTH-SP2-1996-2.1-cln.{kind}.json"));
            let mut json: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            json["wall_seconds"] = serde_json::Value::Null;
            json["command"] = serde_json::Value::Null;
            files.insert(kind.name(), json);
        }
        outputs.push((rows, files));
    }
    assert_eq!(outputs[0], outputs[1]);
    let (ok, _, err) = resbench(&["replay", "-j", "0"]);
    assert!(!ok && err.contains("-j"), "{err}");
    std::fs::remove_dir_all(base).unwrap();
}

#[test]
fn a_fraction_outside_zero_to_one_is_refused() {
    let (ok, _, err) = resbench(&["replay", "--synthetic", "10", "--ar-fraction", "1.5"]);
    assert!(!ok && err.contains("--ar-fraction 1.5 is not between 0 and 1"), "{err}");
}

#[test]
fn ops_on_a_slotted_structure_need_no_horizon() {
    use std::io::Write;
    for name in ["slotted", "segtree"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_resbench"))
            .args(["ops", "--structure", name, "--capacity", "4"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let ops = "{\"op\":\"allocate\",\"start\":0,\"end\":10,\"set\":[[0,2]]}\n\
                   {\"op\":\"check\",\"start\":5,\"end\":8,\"n\":2}\n";
        child.stdin.take().unwrap().write_all(ops.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{name}: {stderr}");
        let lines: Vec<_> = stdout.lines().collect();
        assert_eq!(lines.len(), 2, "{name}: {stdout}");
        assert!(lines[0].starts_with(r#"{"result":{"outcome":"done"}"#), "{name}: {}", lines[0]);
        assert!(
            lines[1].starts_with(r#"{"result":{"outcome":"free","value":[[2,4]]}"#),
            "{name}: {}",
            lines[1]
        );
    }
}

#[test]
fn ops_counts_runs_count_ops_on_the_count_reference_only() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_resbench"))
        .args(["ops", "--structure", "oracle", "--counts", "--capacity", "2"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let ops = "{\"op\":\"allocate\",\"start\":0,\"end\":5,\"count\":1}\n\
               {\"op\":\"check\",\"start\":0,\"end\":9,\"n\":2}\n";
    child.stdin.take().unwrap().write_all(ops.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        stdout.lines().nth(1),
        Some(r#"{"result":{"outcome":"fits","value":{"fits":false,"fewest":1}}}"#)
    );
    let (ok, _, err) = resbench(&["ops", "--structure", "rbtree", "--counts", "--capacity", "2"]);
    assert!(!ok && err.contains("--counts runs on the count view's reference only"), "{err}");
}

/// The command that runs `examples/external/<name>`.
fn adapter(name: &str) -> String {
    format!("python3 {}/examples/external/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn verify_external_catches_the_planted_bug_and_prints_how_to_replay_it() {
    let dir = std::env::temp_dir().join(format!("resbench-cli-external-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let buggy = adapter("buggy.py");
    let args = [
        "verify",
        "--external",
        &buggy,
        "--source",
        "random",
        "--ops",
        "1000",
        "--out",
        dir.to_str().unwrap(),
    ];
    let (ok, out, err) = resbench(&args);
    // How many random cases the one planted bug shows in depends on the generator.
    assert!(
        !ok && err.contains("verify found ") && err.contains(" diverging case(s), 1 symptom(s) shown"),
        "{err}"
    );
    assert!(
        out.contains("symptom 1 of 1: different answers on earliest (start), first in different answers: random stream"),
        "{out}"
    );
    assert!(
        dir.join("divergences.json").exists()
            && dir.join("random-different-answers-earliest-start.original.ops").exists()
    );
    let file = dir.join("random-different-answers-earliest-start.ops");
    let ops = std::fs::read_to_string(&file).unwrap();
    assert!((1..=10).contains(&ops.lines().count()), "{ops}");
    // The printed oracle command's scenario, reused for the protocol replay.
    let printed =
        out.lines().find(|l| l.trim_start().starts_with("resbench ops --structure oracle")).unwrap();
    let scenario: Vec<&str> =
        printed.split_whitespace().skip_while(|w| *w != "--capacity").take_while(|w| *w != "<").collect();
    let file = file.to_str().unwrap();
    let replay = [&["verify", "--external", &buggy, "--replay", file][..], &scenario].concat();
    let (ok, out, err) = resbench(&replay);
    assert!(!ok && out.contains("first in different answers: replay stream"), "{out}{err}");
    let naive = adapter("naive.py");
    let replay = [&["verify", "--external", &naive, "--replay", file][..], &scenario].concat();
    let (ok, out, err) = resbench(&replay);
    assert!(ok && out.contains("divergences: 0"), "{out}{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Two planted bugs of different symptoms: both listed, each shrunk to a reproducer that
/// ends in its own symptom; `--op` keeps one.
#[test]
fn verify_external_shows_and_shrinks_each_symptom_of_two_bugs() {
    let dir = std::env::temp_dir().join(format!("resbench-cli-symptoms-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let two = adapter("two_bugs.py");
    // Enough cases, and a bound high enough, that both symptoms show whatever order the
    // generator meets them in.
    let args = [
        "verify",
        "--external",
        &two,
        "--source",
        "random",
        "--ops",
        "6000",
        "--max-divergences",
        "100",
        "--out",
        dir.to_str().unwrap(),
    ];
    let (ok, out, err) = resbench(&args);
    assert!(!ok && err.contains("2 symptom(s) shown"), "{out}{err}");
    for (symptom, file, last) in [
        ("different answers on check (free ids)", "random-different-answers-check-free-ids.ops", "\"check\""),
        (
            "different answers on earliest (start)",
            "random-different-answers-earliest-start.ops",
            "\"earliest\"",
        ),
    ] {
        assert!(out.contains(&format!(": {symptom}, first in ")), "{symptom}: {out}");
        let ops = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(ops.lines().last().unwrap().contains(last), "{file}: {ops}");
        assert!(ops.lines().count() <= 10, "{file}: {ops}");
    }
    let listed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("divergences.json")).unwrap()).unwrap();
    let symptoms: std::collections::BTreeSet<&str> =
        listed.as_array().unwrap().iter().map(|c| c["symptom"].as_str().unwrap()).collect();
    assert_eq!(symptoms.len(), 2, "{listed}");
    let (ok, out, err) = resbench(&[&args[..], &["--op", "earliest"]].concat());
    assert!(
        !ok && err.contains("1 symptom(s) shown") && !out.contains("on check (free ids), first in"),
        "{out}{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// The child command runs in a shell: an assignment before a nested `sh -c` works.
#[test]
fn verify_external_runs_a_command_with_an_assignment_and_a_nested_shell() {
    let command = format!("PEER=x sh -c \"{}\"", adapter("naive.py"));
    let (ok, out, err) = resbench(&["verify", "--external", &command, "--source", "random", "--ops", "300"]);
    assert!(ok && out.contains("divergences: 0"), "{out}{err}");
}

/// A stream the child refuses whole fails a default run, naming it and how to fix it,
/// and passes with --allow-skip.
#[test]
fn verify_external_fails_on_a_stream_it_could_not_check_unless_allowed() {
    let faulty =
        format!("python3 {}/external/tests/support/faulty_adapter.py unslotted", env!("CARGO_MANIFEST_DIR"));
    let args = ["verify", "--external", &faulty, "--ops", "300", "--limit", "200"];
    let (ok, out, err) = resbench(&args);
    assert!(!ok, "{out}");
    assert!(out.contains("trace: not checked: the child refused"), "{out}");
    assert!(err.contains("not checked: trace: ") && err.contains("(try --slot 1)"), "{err}");
    assert!(err.contains("pass --allow-skip"), "{err}");
    let (ok, out, err) = resbench(&[&args[..], &["--allow-skip"]].concat());
    assert!(ok && out.contains("divergences: 0"), "{out}{err}");
}

#[test]
fn verify_external_refuses_a_version_mismatch_clearly() {
    let script = "import json, sys; sys.stdin.readline(); \
                  print(json.dumps({'protocol': 'resbench-external', 'version': 7}), flush=True)";
    let (ok, _, err) =
        resbench(&["verify", "--external", &format!("python3 -c \"{script}\""), "--source", "boundary"]);
    assert!(!ok, "{err}");
    assert!(
        err.contains(
            "version mismatch: resbench speaks resbench-external version 1, the child answered version 7"
        ),
        "{err}"
    );
    let (ok, _, err) = resbench(&["verify", "--external", "true", "--source", "random", "--ops", "2000000"]);
    assert!(!ok && err.contains("raise it with --max-ops"), "{err}");
}

#[test]
fn bench_external_prints_the_adapter_beside_every_built_in_structure() {
    let naive = adapter("naive.py");
    let args = [
        "bench",
        "--external",
        &naive,
        "--source",
        "random,trace",
        "--ops",
        "200",
        "--limit",
        "100",
        "--runs",
        "1",
    ];
    let (ok, out, err) = resbench(&args);
    assert!(ok, "{err}");
    assert!(out.contains("one machine's wall time"), "{out}");
    let header = out.lines().find(|l| l.starts_with("stream")).unwrap();
    for word in structures::Kind::ALL.iter().map(|k| k.name()).chain(["external", "overhead", "net"]) {
        assert!(header.contains(word), "{word} missing:\n{out}");
    }
    assert!(
        out.lines().any(|l| l.starts_with("random ")) && out.lines().any(|l| l.starts_with("trace ")),
        "{out}"
    );
}

#[test]
fn renumbered_jobs_are_counted_in_the_run_file_and_the_report() {
    let dir = std::env::temp_dir().join(format!("resbench-renumber-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let trace = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/bad_inputs/dup_ids.swf");
    let out_dir = dir.to_str().unwrap();
    let args = ["replay", "--trace", trace, "--structure", "rbtree", "--renumber", "--out", out_dir];
    let (ok, out, err) = resbench(&args);
    assert!(ok && out.contains("warning: 1 jobs renumbered"), "{out}{err}");
    let run = std::fs::read_to_string(dir.join("dup_ids.rbtree.json")).unwrap();
    assert!(run.contains("\"renumbered\":1"), "{run}");
    let md = std::fs::read_to_string(dir.join("index.md")).unwrap();
    assert!(md.contains("Warning: 1 jobs were given new job numbers"), "{md}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn rspb_prints_one_row_per_algorithm_and_checks_every_structure_decides_alike() {
    let (ok, out, err) = resbench(&["rspb", "--experiment", "chapter5", "--requests", "60", "--seeds", "2"]);
    assert!(ok, "{err}");
    for algorithm in ["co-rspb |", "co-rsbf |", "co-rsbfr |"] {
        assert!(out.lines().any(|l| l.starts_with(algorithm)), "no {algorithm} row:\n{out}");
    }
    let decisions =
        format!("decisions: identical across {} structures for every algorithm and seed", Kind::ALL.len());
    assert!(out.contains(&decisions), "{out}");
    assert!(out.contains("60 ± 0"), "{out}");
    // Each algorithm's registry entry, with its section of the thesis.
    assert!(out.contains("co-rsbf: Co-RSBF: requests by the sum of their minimum CPU"), "{out}");
    assert!(out.contains("(rspb-priorities-benefit-functions, section 5.4, Figs 5.4-5.6)"), "{out}");
}

#[test]
fn rspb_refuses_bad_parameters_by_name() {
    let dir = std::env::temp_dir().join(format!("resbench-cli-rspb-{}", std::process::id()));
    let dir = dir.to_str().unwrap();
    for (args, expected) in [
        (
            vec!["rspb", "--interval", "0"],
            "interval: 0: requests must be collected for at least one time unit",
        ),
        (vec!["rspb", "--experiment", "chapter5", "--fixed", "2"], "fixed: 2: a share in 0-1"),
        (vec!["rspb", "--priority-max", "0"], "priority: a highest priority of 0"),
        (vec!["rspb", "--seed", "18446744073709551615", "--seeds", "2"], "past the last RNG seed"),
        (
            vec!["rspb", "--figure", "9.9", "--structure", "rbtree", "--out", dir],
            "no figure 9.9: the thesis's are 4.3, 4.4",
        ),
        (vec!["rspb", "--figure", "4.3", "--out", dir], "--figure runs on one structure"),
    ] {
        let (ok, _, err) = resbench(&args);
        assert!(!ok && err.contains(expected), "{args:?}: {err}");
    }
}

#[test]
fn coreserve_simulate_prints_its_counts_and_succeeds_without_violations() {
    let (ok, out, err) =
        resbench(&["coreserve", "simulate", "--seeds", "3", "--steps", "300", "--faults", "all"]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("coreserve: 3 seeds, ") && out.contains(" steps, 0 violations"), "{out}");
    assert!(out.contains("messages per committed reservation: "), "{out}");
    assert!(out.contains("abort rate "), "{out}");
}

#[test]
fn coreserve_a_planted_bug_fails_with_its_seed_a_reproduction_and_a_shrunk_trace() {
    let args = ["coreserve", "simulate", "--seeds", "2", "--steps", "1000", "--plant", "volatile-lock"];
    let (ok, out, err) = resbench(&args);
    assert!(!ok, "{out}");
    assert!(out.contains("seed 0: ") && out.contains(" violated at step "), "{out}");
    assert!(out.contains("reproduce: resbench coreserve simulate --seed "), "{out}");
    assert!(out.contains("trace ("), "{out}");
    assert!(err.contains("invariant violations in 2 seeds"), "{err}");
}

#[test]
fn coreserve_out_of_range_arguments_are_refused_with_clear_errors() {
    let cases: [(&[&str], &str); 5] = [
        (&["--seeds", "0"], "--seeds"),
        (&["--steps", "0"], "--steps"),
        (&["--managers", "0..5"], "1 <= LO <= HI <= 64"),
        (&["--clients", "9..3"], "1 <= LO <= HI <= 10000"),
        (&["--faults", "loss,fire"], "unknown fault \"fire\""),
    ];
    for (args, expected) in cases {
        let (ok, _, err) = resbench(&[&["coreserve", "simulate"], args].concat());
        assert!(!ok && err.contains(expected), "{args:?}: {err}");
    }
}

#[test]
fn coreserve_service_commands_refuse_out_of_range_arguments() {
    let many = vec!["127.0.0.1:1"; 65].join(",");
    let cases: [(&[&str], &str); 16] = [
        (&["serve", "--db", "x.redb", "--capacity", "0"], "--capacity"),
        (&["serve", "--db", "x.redb", "--structure", "nope"], "nope"),
        (&["serve", "--db", "x.redb"], "--key <KEY>"),
        (&["serve", "--db", "x.redb", "--key", "/no/key", "--peer", "3:127.0.0.1:1"], "expected ID=IP:PORT"),
        (&["serve", "--db", "x.redb", "--key", "/no/key", "--peer", "3=here:1"], "manager 3: \"here:1\""),
        (&["serve", "--db", "x.redb", "--key", "/no/key"], "cannot read /no/key"),
        (
            &["serve", "--db", "x.redb", "--key", "/no/key", "--members", "/no/members"],
            "cannot read /no/members",
        ),
        (&["keygen", "--out", "/no/key", "--node", "5"], "--from <FROM>"),
        (&["reserve", "--key", "k", "--managers", "127.0.0.1:1", "--window", "500..100"], "START < END"),
        (&["reserve", "--key", "k", "--managers", "127.0.0.1:1", "--window", "0..99999"], "the horizon"),
        (&["reserve", "--key", "k", "--window", "0..100", "--managers", &many], "at most 64 managers"),
        (&["load", "--managers", "1"], "managers must be in 2..=64"),
        (&["load", "--clients", "0"], "--clients in 1..=256"),
        (&["load", "--hot", "33"], "--hot must be in 1..=32"),
        (&["load", "--seconds", "601"], "--seconds must be in 1..=600"),
        (&["load", "--capacity", "1"], "capacity must be in 2..=1024"),
    ];
    for (args, expected) in cases {
        let (ok, _, err) = resbench(&[&["coreserve"], args].concat());
        assert!(!ok && err.contains(expected), "{args:?}: {err}");
    }
}

#[test]
fn coreserve_keygen_writes_a_deployment_key_and_derives_a_clients_never_overwriting() {
    let dir = tempfile::tempdir().unwrap();
    let (d, c) = (dir.path().join("deployment.key"), dir.path().join("client.key"));
    let (ok, out, err) = resbench(&["coreserve", "keygen", "--out", d.to_str().unwrap()]);
    assert!(ok && out.contains("Keys::Deployment(..)"), "{err}");
    let args = [
        "coreserve",
        "keygen",
        "--from",
        d.to_str().unwrap(),
        "--node",
        "1048577",
        "--out",
        c.to_str().unwrap(),
    ];
    let (ok, out, err) = resbench(&args);
    assert!(ok && out.contains("Keys::Node { id: 1048577, .. }"), "{err}");
    assert!(std::fs::read_to_string(&c).unwrap().starts_with("resbench-key node 1048577 "));
    let (ok, _, err) = resbench(&["coreserve", "keygen", "--out", d.to_str().unwrap()]);
    assert!(!ok && err.contains("exists"), "{err}");
    let args =
        ["coreserve", "keygen", "--from", c.to_str().unwrap(), "--node", "5", "--out", "/no/such/dir/k"];
    let (ok, _, err) = resbench(&args);
    assert!(!ok && err.contains("derive node keys from the deployment key"), "{err}");
}

#[test]
fn coreserve_polling_prints_the_cost_table_and_refuses_bad_parameters() {
    let dir = std::env::temp_dir().join(format!("resbench-cli-polling-{}", std::process::id()));
    let args = ["coreserve", "polling", "--trials", "50", "--horizon", "128", "--out", dir.to_str().unwrap()];
    let (ok, out, err) = resbench(&args);
    assert!(ok, "{err}");
    let page = std::fs::read_to_string(dir.join("index.md")).unwrap();
    assert!(page.contains("By the formula the best p is 5, inside [n, 2n] = [3, 6]."), "{page}");
    assert!(std::fs::read_to_string(dir.join("fig5-cost.svg")).unwrap().starts_with("<svg"));
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(out.contains("best p: formula 5 (in [n, 2n] = [3, 6]: yes)"), "{out}");
    assert!(out.contains("best p in [n, 2n] in 300 of 540 cells"), "{out}");
    let (ok, _, err) = resbench(&["coreserve", "polling", "--q", "1"]);
    assert!(!ok && err.contains("q 1 must be in [0, 1)"), "{err}");
    let (ok, _, err) = resbench(&["coreserve", "polling", "--k", "2000"]);
    assert!(!ok && err.contains("need 1 <= n <= k <= 1024"), "{err}");
}

/// Runs `args` with its stdout's reader gone before anything is written (as behind
/// `| head -1` once `head` has its line), feeding `input` on stdin; returns whether it
/// exited 0 and what it wrote to stderr.
fn with_stdout_closed(args: &[&str], input: &str) -> (bool, String) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_resbench"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    // The child may end before it has read everything; a refused write here is fine.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    let ops = "{\"op\":\"check\",\"start\":0,\"end\":10,\"n\":1}\n".repeat(1000);
    let (ok, stderr) = with_stdout_closed(&["ops", "--structure", "rbtree", "--capacity", "4"], &ops);
    assert!(ok && stderr.is_empty(), "ops: {stderr}");
    let (ok, stderr) =
        with_stdout_closed(&["replay", "--limit", "200", "--slot", "300", "--structure", "rbtree"], "");
    assert!(ok && stderr.is_empty(), "replay: {stderr}");
}

#[test]
fn fcfs_eds_runs_in_the_papers_counted_model_by_default_and_in_ours_on_request() {
    let args = ["replay", "--policy", "fcfs-eds", "--limit", "300", "--slot", "300", "--verify"];
    let (ok, out, err) = resbench(&args);
    assert!(ok, "{err}");
    let counted = "scheduler: fcfs-eds (counted, the paper's model) (fcfs-eds-slotted-array, section 3, Algorithm 1), PlanOnly,";
    for needle in [counted, &identical(Kind::ALL.len()), "divergences: 0"] {
        assert!(out.contains(needle), "missing {needle:?} in:\n{out}");
    }
    let (ok, out, err) = resbench(&[&args[..], &["--model", "ids"]].concat());
    assert!(ok, "{err}");
    assert!(
        out.contains(
            "scheduler: fcfs-eds (ids, ours) (fcfs-eds-slotted-array, section 3, Algorithm 1), Simulate,"
        ),
        "{out}"
    );
}

/// Sets every run file's wall time in `dir` to 0, the one field no two runs share, and
/// returns the files' texts by name.
fn without_wall_times(dir: &std::path::Path) -> std::collections::BTreeMap<String, String> {
    let mut files = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let mut json: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            json["wall_seconds"] = 0.0.into();
            let text = serde_json::to_string_pretty(&json).unwrap();
            std::fs::write(&path, &text).unwrap();
            files.insert(path.file_name().unwrap().to_string_lossy().into_owned(), text);
        }
    }
    files
}

/// `resbench report` on every run file in `dir`, into `dir`: the pages and plots it
/// wrote, by name, or its error.
fn report_of(dir: &std::path::Path) -> Result<std::collections::BTreeMap<String, String>, String> {
    let mut runs: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    runs.sort();
    let args: Vec<&str> = ["report"]
        .into_iter()
        .chain(runs.iter().map(String::as_str))
        .chain(["--out", dir.to_str().unwrap()])
        .collect();
    let (ok, _, err) = resbench(&args);
    if !ok {
        return Err(err);
    }
    Ok(std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md" || e == "html" || e == "svg"))
        .map(|p| {
            (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap())
        })
        .collect())
}

#[test]
fn a_sweep_run_in_four_shards_merges_into_the_single_runs_report() {
    let base = std::env::temp_dir().join(format!("resbench-cli-shards-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let out = base.join("out");
    let sweep = [
        "replay",
        "--policy",
        "coalloc",
        "--synthetic",
        "150",
        "--capacity",
        "16",
        "--slot",
        "300",
        "--structure",
        "rbtree,list",
        "--ar-fraction",
        "0,0.5,1",
        "--trim",
        "10",
        "--out",
        out.to_str().unwrap(),
    ];
    let (ok, single, err) = resbench(&sweep);
    assert!(ok, "{err}");
    assert_eq!(single.matches(&identical(2)).count(), 3, "{single}");
    let files = without_wall_times(&out);
    assert_eq!(files.len(), 6);
    let report = report_of(&out).unwrap();
    std::fs::rename(&out, base.join("single")).unwrap();

    for k in 1..=4 {
        let (ok, text, err) = resbench(&[&sweep[..], &["--shard", &format!("{k}/4"), "-j", "1"]].concat());
        assert!(ok, "{err}");
        assert!(
            text.contains(&format!("shard {k}/4: {} of the sweep's 6 runs", if k <= 2 { 2 } else { 1 })),
            "{text}"
        );
        if k == 3 {
            // A shard not run yet: the report refuses, naming the sweep.
            let err = report_of(&out).unwrap_err();
            assert!(
                err.contains("5 run files of the 6 runs of `resbench replay --policy coalloc")
                    && err.contains("run every --shard K/N"),
                "{err}"
            );
        }
    }
    // Byte for byte the single run's files (whose command names neither --shard nor -j)
    // and report.
    assert_eq!(without_wall_times(&out), files);
    assert_eq!(report_of(&out).unwrap(), report);
    let (ok, _, err) = resbench(&["replay", "--shard", "5/4", "--out", out.to_str().unwrap()]);
    assert!(!ok && err.contains("expected K/N with 1 <= K <= N"), "{err}");
    let (ok, _, err) = resbench(&["replay", "--ar-fraction", "0.5,0.5"]);
    assert!(!ok && err.contains("--ar-fraction 0.5 is given twice"), "{err}");
    std::fs::remove_dir_all(base).unwrap();
}

/// The files `dir` holds, by name, with their texts.
fn texts(dir: &std::path::Path) -> std::collections::BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

#[test]
fn rspb_figures_run_in_three_shards_merge_into_the_single_runs_results_and_report() {
    let base = std::env::temp_dir().join(format!("resbench-cli-rspb-shards-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let out = base.join("out");
    let sweep = [
        "rspb",
        "--figure",
        "floor,5.9",
        "--structure",
        "rbtree",
        "--seeds",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    let (ok, _, err) = resbench(&sweep);
    assert!(ok, "{err}");
    let single = texts(&out);
    assert!(
        single.contains_key("rspb-figures.json") && single.contains_key("index.md"),
        "{:?}",
        single.keys()
    );
    std::fs::rename(&out, base.join("single")).unwrap();

    let parts = |n: usize| -> Vec<String> {
        (1..=n).map(|k| out.join(format!("rspb-part-{k}-of-3.json")).to_string_lossy().into_owned()).collect()
    };
    let report = |files: &[String]| {
        let args: Vec<&str> = ["report"]
            .into_iter()
            .chain(files.iter().map(String::as_str))
            .chain(["--out", out.to_str().unwrap()])
            .collect();
        resbench(&args)
    };
    for k in 1..=3 {
        let (ok, text, err) = resbench(&[&sweep[..], &["--shard", &format!("{k}/3"), "-j", "1"]].concat());
        assert!(ok, "{err}");
        assert!(
            text.contains(&format!("shard {k}/3: ")) && text.contains("no report from one shard"),
            "{text}"
        );
    }
    let (ok, _, err) = report(&parts(2));
    assert!(
        !ok && err.contains("part 3 of 3 of `resbench rspb --figure floor,5.9") && err.contains("is missing"),
        "{err}"
    );
    let (ok, _, err) = report(&[parts(3), parts(1)].concat());
    assert!(!ok && err.contains("part 1 of 3 given twice"), "{err}");
    let (ok, _, err) = report(&parts(3));
    assert!(ok, "{err}");
    // The results and the report, byte for byte the single run's.
    let mut merged = texts(&out);
    merged.retain(|name, _| !name.starts_with("rspb-part-"));
    assert_eq!(merged, single);
    std::fs::remove_dir_all(base).unwrap();
}
