//! The counted fuzz campaign: reading a `diff` run's log, the record log's checks, and
//! the committed table being the one its log gives.

use std::fs;
use std::path::Path;

use reporting::fuzz_campaign::{read, table, Outcome, Record, TARGET_OPS};
use structures::Kind;

/// The tail of a real `ci/fuzz-campaign` run's log (calendar, 10 s).
const LOG: &str = "\
INFO: Seed: 1234
#2\tINITED cov: 1700 ft: 9000 corp: 40/12Kb exec/s: 0 rss: 40Mb
diff: 1200000 ops, 21000 cases, 0 divergences
#23500\tNEW    cov: 2059 ft: 11730 corp: 955/380Kb lim: 942 exec/s: 2350 rss: 47Mb L: 300/942 MS: 2 ChangeBit-CopyPart-
diff: 1277385 ops, 23157 cases, 0 divergences
#24102\tDONE   cov: 2060 ft: 11739 corp: 956/381Kb lim: 942 exec/s: 2410 rss: 47Mb
Done 24102 runs in 11 second(s)
stat::number_of_executed_units: 24102
";

#[test]
fn a_log_gives_the_last_progress_and_status_lines() {
    let outcome = Outcome::parse(LOG).unwrap();
    assert_eq!(
        outcome,
        Outcome {
            ops: 1_277_385,
            cases: 23_157,
            divergences: 0,
            corpus: 956,
            coverage: 2060,
            features: 11_739
        }
    );
}

#[test]
fn a_divergence_in_the_log_is_counted() {
    let log = format!("{LOG}thread '<unnamed>' panicked at oracle/src/campaign.rs:\nslotted diverged from the oracle: StateDiffers\n");
    assert_eq!(Outcome::parse(&log).unwrap().divergences, 1);
}

#[test]
fn a_log_of_another_target_is_refused() {
    let log = LOG.replace("diff: ", "other: ");
    let e = Outcome::parse(&log).unwrap_err().to_string();
    assert!(e.contains("no `diff: N ops, M cases` line"), "{e}");
    let e = Outcome::parse("diff: 5 ops, 1 cases, 0 divergences\n").unwrap_err().to_string();
    assert!(e.contains("no libFuzzer status line"), "{e}");
}

fn record(structure: Kind, ops: u64) -> Record {
    Record {
        structure,
        date: "2026-11-23T12:00:00Z".into(),
        seconds: 600,
        revision: "abc".into(),
        machine: "test".into(),
        build: "cargo fuzz build -s none".into(),
        outcome: Outcome {
            ops,
            cases: ops / 50,
            divergences: 0,
            corpus: 900,
            coverage: 2000,
            features: 11_000,
        },
    }
}

#[test]
fn the_table_adds_runs_up_per_structure_and_marks_the_target() {
    let half = TARGET_OPS / 2;
    let [a, b] = [Kind::ALL[1], Kind::ALL[2]];
    let page = table(&[record(a, half), record(a, half), record(b, half)]);
    let row = |kind: Kind| {
        let name = kind.name();
        page.lines().find(|l| l.starts_with(&format!("| {name} |"))).unwrap().replace(name, "NAME")
    };
    assert_eq!(row(a), "| NAME | 2 | 0 h 20 min | 100,000,000 | 2,000,000 | 0 | 900 | 2,000 | abc | yes |");
    assert!(row(b).ends_with("| no |"), "{}", row(b));
    assert_eq!(
        Kind::ALL.iter().filter(|k| page.contains(&format!("| {} |", k.name()))).count(),
        Kind::ALL.len()
    );
}

#[test]
fn bad_records_are_refused_with_their_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let path = dir.join("campaigns.jsonl");
    let good = serde_json::to_string(&record(Kind::RbTree, 100)).unwrap();
    fs::write(&path, format!("{good}\n{}\n", good.replace("\"ops\"", "\"opz\""))).unwrap();
    let e = format!("{:#}", read(&path).unwrap_err());
    assert!(e.contains("campaigns.jsonl:2: not a record") && e.contains("unknown field `opz`"), "{e}");
    fs::write(&path, good.replace("\"cases\":2", "\"cases\":200")).unwrap();
    let e = read(&path).unwrap_err().to_string();
    assert!(e.contains(":1: 200 cases for 100 ops"), "{e}");
}

#[test]
fn the_committed_table_is_the_one_its_log_gives() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/fuzz");
    let page = table(&read(&dir.join("campaigns.jsonl")).unwrap());
    let committed = fs::read_to_string(dir.join("index.md")).unwrap();
    assert!(committed == page, "reports/fuzz/index.md is stale: run `resbench campaign table`");
}
