//! Tests of `src/external/`, one module per source file, in one test binary (each
//! binary costs a link on a 2-core machine). They run the Python adapters of
//! `examples/external/` and the misbehaving one in `tests/support/faulty_adapter.py`.

mod bench;
mod boundary;
mod child;
mod class;
mod cpp;
mod index;
mod ops_stream;
mod protocol;
mod record;
mod shrink;
mod streams;
mod verify;

use std::path::Path;
use std::time::Duration;

use external::verify::quote;
use external::{External, Limits};

/// The command that runs `examples/external/<name>`.
pub fn example(name: &str) -> String {
    format!("python3 {}", quote(&format!("{}/../examples/external/{name}", env!("CARGO_MANIFEST_DIR"))))
}

/// The command that runs the faulty adapter in `mode`, correct for the first `after`
/// exchanges.
pub fn faulty(mode: &str, after: u32) -> String {
    let path = format!("{}/tests/support/faulty_adapter.py", env!("CARGO_MANIFEST_DIR"));
    format!("python3 {} {mode} {after}", quote(&path))
}

/// `command` with the default limits but short timeouts, so failing tests fail fast.
pub fn external(command: &str) -> External {
    let limits = Limits {
        op_timeout: Duration::from_secs(3),
        handshake_timeout: Duration::from_secs(5),
        ..Limits::default()
    };
    External::new(command, limits)
}

/// Whether no process `pid` exists any more (not even a zombie): it was reaped.
pub fn gone(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}

/// Whether process `pid`, started by the child's shell, has ended: it no longer exists,
/// or is a zombie that init has yet to reap (after up to 2 s for a kill to land).
pub fn ended(pid: u32) -> bool {
    // A process of the child's group other than the shell is reaped by init once killed,
    // so it may stay a zombie for a moment; a zombie runs nothing.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    loop {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| Some(stat.rsplit_once(')')?.1.split_whitespace().next()?.to_owned()));
        if state.as_deref().is_none_or(|s| s == "Z") {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The processes of group `group` still running (zombies, killed and waiting for their
/// parent or init to reap them, are not), after giving SIGKILL up to 2 s to land.
pub fn group_left(group: u32) -> Vec<u32> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    loop {
        let left: Vec<u32> = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                // `pid (comm) state ppid pgrp ...`: comm may hold spaces and parentheses.
                let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
                let Some((_, rest)) = stat.rsplit_once(')') else { return false };
                let fields: Vec<&str> = rest.split_whitespace().collect();
                fields.first() != Some(&"Z")
                    && fields.get(2).and_then(|g| g.parse::<u32>().ok()) == Some(group)
            })
            .collect();
        if left.is_empty() || std::time::Instant::now() >= deadline {
            return left;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A fresh, empty directory under the system's temporary one.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("resbench-external-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
