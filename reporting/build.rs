//! Records the git revision the binary was built from, for the run files it writes.

use std::process::Command;

fn main() {
    let revision = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .map_or_else(|| "unknown".to_owned(), |rev| rev.trim().to_owned());
    println!("cargo:rustc-env=RESBENCH_GIT_REVISION={revision}");
    // A commit moves HEAD's branch and rewrites the index. Ask git where they are: in a
    // worktree `.git` is a file, and a path that does not exist would rerun this script
    // (and relink every binary) on every build.
    for name in ["HEAD", "index"] {
        let path = Command::new("git")
            .args(["rev-parse", "--git-path", name])
            .output()
            .ok()
            .filter(|out| out.status.success())
            .and_then(|out| String::from_utf8(out.stdout).ok());
        if let Some(path) = path {
            println!("cargo:rerun-if-changed={}", path.trim());
        }
    }
}
