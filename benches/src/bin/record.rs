//! `record [--criterion DIR] [--instructions DIR] [--out DIR]`: collects the last
//! `cargo bench` (criterion's and gungraun's results under `target/`), measures the work
//! suite and each structure's memory on every benchmark state, and writes one new
//! benchmark file into `reports/benchmarks/runs/` (never overwriting one).
//!
//! `record --memory-only [STATE...]` measures the memory alone (on the states named, or
//! all) and prints it as a table of bytes per entry, writing nothing: a layout change's
//! memory in seconds, without `cargo bench`.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use benches::gate::read_gungraun;
use benches::{record, states, work};
use reporting::bench_file::{BenchFile, Memory, BENCH_KIND, BENCH_SCHEMA};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use structures::Kind;
use traces::period::format_utc;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn main() -> Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut criterion = root.join("target/criterion");
    let mut instructions = root.join("target/gungraun/benches/instructions");
    let mut out = root.join("reports/benchmarks/runs");
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some("--memory-only") {
        let names: Vec<String> = args.skip(1).collect();
        let states: Vec<states::State> = states::all(usize::MAX)
            .into_iter()
            .filter(|s| names.is_empty() || names.contains(&s.name))
            .collect();
        if states.is_empty() {
            bail!("no benchmark state is named {}", names.join(" or "));
        }
        print_memory(&memory(&states));
        return Ok(());
    }
    while let Some(flag) = args.next() {
        let value = args.next().map(PathBuf::from);
        match (flag.as_str(), value) {
            ("--criterion", Some(dir)) => criterion = dir,
            ("--instructions", Some(dir)) => instructions = dir,
            ("--out", Some(dir)) => out = dir,
            _ => bail!("usage: record [--criterion DIR] [--instructions DIR] [--out DIR] | record --memory-only [STATE...]"),
        }
    }
    let recorded = format_utc(SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs());
    let states = states::all(usize::MAX);
    let memory = memory(&states);
    // The deep-backlog states are measured by `earliest` alone, but their sizes are what
    // the report fits growth against.
    let deep = states::deep(usize::MAX);
    let size = |name: &str| states.iter().chain(&deep).find(|s| s.name == name).map(|s| s.entries as u64);
    let mut results = record::criterion(&criterion, &size).map_err(anyhow::Error::msg)?;
    if results.is_empty() {
        bail!("no criterion results under {}: run `cargo bench` first", criterion.display());
    }
    let counts = if instructions.is_dir() {
        read_gungraun(&instructions).map_err(anyhow::Error::msg)?
    } else {
        Vec::new()
    };
    let work = work::measure(&states, Kind::ALL).map_err(anyhow::Error::msg)?;
    record::annotate(&mut results, &counts, &work);
    let file = BenchFile {
        schema: BENCH_SCHEMA,
        kind: BENCH_KIND.into(),
        revision: record::revision(),
        recorded,
        machine: record::machine(),
        results,
        memory,
    };
    let path = file.write_new(&out).context("cannot record the results")?;
    println!(
        "recorded {} results, {} memory measurements: {}",
        file.results.len(),
        file.memory.len(),
        path.display()
    );
    Ok(())
}

/// Each structure's heap bytes after loading each state.
fn memory(states: &[states::State]) -> Vec<Memory> {
    let mut memory = Vec::new();
    for state in states {
        for &kind in Kind::ALL {
            let region = Region::new(GLOBAL);
            let Ok(index) = state.build(kind) else { continue };
            let change = region.change();
            // stats_alloc already books a realloc's growth in `bytes_allocated` and its
            // shrinkage in `bytes_deallocated`; `bytes_reallocated` is the same change
            // again (runs up to 2026-11-25T15:42 added it, counting growth twice).
            let live = change.bytes_allocated as i128 - change.bytes_deallocated as i128;
            let bytes = u64::try_from(live).unwrap_or(0);
            memory.push(Memory {
                structure: kind.name().into(),
                state: state.name.clone(),
                entries: state.entries as u64,
                bytes,
            });
            drop(index);
        }
    }
    memory
}

/// Bytes per entry, a row per state and a column per structure.
fn print_memory(memory: &[Memory]) {
    let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
    println!("state entries {}", names.join(" "));
    let mut states: Vec<(&str, u64)> = memory.iter().map(|m| (m.state.as_str(), m.entries)).collect();
    states.dedup();
    for (state, entries) in states {
        let cells: Vec<String> = names
            .iter()
            .map(|name| {
                memory
                    .iter()
                    .find(|m| m.state == state && m.structure == *name)
                    .map_or("-".into(), |m| (m.bytes / m.entries.max(1)).to_string())
            })
            .collect();
        println!("{state} {entries} {}", cells.join(" "));
    }
}
