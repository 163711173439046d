//! `examples/external/profile.cpp`: the C++ adapter, written from the protocol document
//! alone, compiles with `g++ -O2 -std=c++17` and passes the three streams with no
//! divergence. Skipped (with a line saying so) where `g++` is not on the PATH.

use std::process::Command;
use std::time::Instant;

use external::boundary::boundary;
use external::streams::{random, read_trace, trace};
use external::verify::{quote, verify};
use external::Class;
use oracle::OpKind;
use structures::Config;

use super::{external, temp_dir};

#[test]
fn the_cpp_profile_adapter_passes_10000_random_ops_the_kth_trace_and_the_boundaries() {
    if Command::new("g++").arg("--version").output().is_err() {
        eprintln!("skipped: g++ is not on the PATH, so examples/external/profile.cpp is not checked");
        return;
    }
    let started = Instant::now();
    let source = format!("{}/../examples/external/profile.cpp", env!("CARGO_MANIFEST_DIR"));
    let binary = temp_dir("cpp").join("profile");
    let compiled =
        Command::new("g++").args(["-O2", "-std=c++17", "-o"]).arg(&binary).arg(&source).output().unwrap();
    assert!(compiled.status.success(), "g++ failed:\n{}", String::from_utf8_lossy(&compiled.stderr));
    let built = started.elapsed();

    let (name, load) = read_trace(None, None, Some(5_000)).unwrap();
    let streams = [
        random(10_000, 100, 1),
        trace(&name, &load, Config { slot: 300, horizon: None }).unwrap(),
        boundary(),
    ];
    let summary = verify(&external(&quote(binary.to_str().unwrap())), &streams, 1).unwrap();
    eprintln!(
        "{summary}profile.cpp: built in {:.1} s, {} ops in {:.1} s",
        built.as_secs_f64(),
        summary.ops(),
        (started.elapsed() - built).as_secs_f64()
    );
    assert_eq!(summary.child, "profile.cpp");
    assert_eq!(summary.divergences(), 0, "{}", summary.found[0]);
    assert_eq!(summary.columns[0].counts.values().sum::<u64>(), 10_000);
    assert!(summary.columns[1].counts[&Class::Agree] > 19_000, "{summary}");
    assert!(summary.skipped.is_empty(), "every op kind is supported: {:?}", summary.skipped);
    assert!(summary.refused.is_empty(), "{:?}", summary.refused);
    // It answers free_frames, so the random and boundary streams compare the whole free
    // space after every op; the trace stream never does.
    assert!(summary.supports.contains(&OpKind::FreeFrames));
    assert!(summary.columns.iter().all(|c| c.thorough == (c.name != "trace")), "{summary}");
}
