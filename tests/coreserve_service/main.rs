//! Tests of the co-reservation services through the `resbench` binary: manager processes
//! on loopback killed with SIGKILL and restarted mid-run, and the published load report.

mod load;
mod server;
