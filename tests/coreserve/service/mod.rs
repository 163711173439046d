//! Tests of `src/coreserve/service/`: the redb store, and manager processes on loopback
//! killed with SIGKILL and restarted mid-run.

mod load;
mod server;
mod store;

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

/// A fresh directory of this test run's own, named by `what`, the process and the time.
fn scratch(what: &str) -> PathBuf {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("resbench-{what}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}
