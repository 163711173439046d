//! Tests of the co-reservation services through the `resbench` binary: manager processes
//! on loopback killed with SIGKILL and restarted mid-run, and the published load report.

mod load;
mod server;

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

/// A fresh directory of this test run's own, named by `what`, the process and the time.
fn scratch(what: &str) -> PathBuf {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("resbench-{what}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}
