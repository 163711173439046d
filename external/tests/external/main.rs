//! Tests of `src/external/`, one module per source file, in one test binary (each
//! binary costs a link on a 2-core machine). They run the Python adapters of
//! `examples/external/` and the misbehaving one in `tests/support/faulty_adapter.py`.

mod bench;
mod boundary;
mod child;
mod class;
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
    External { command: command.to_owned(), limits }
}

/// Whether no process `pid` exists any more (not even a zombie): it was reaped.
pub fn gone(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}

/// A fresh, empty directory under the system's temporary one.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("resbench-external-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
