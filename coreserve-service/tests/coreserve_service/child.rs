//! A manager process under a guard (`src/child.rs`), with shell scripts standing in for
//! `resbench`: it is started with its settings and its deployment's members, its address read from its first line,
//! restarted on the same port and store, and killed and reaped by `kill` and on drop. A
//! child that cannot start, prints something else or nothing gets an error naming it.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use coreserve_service::child::ManagerProcess;
use coreserve_service::members::Members;
use coreserve_service::Error;

/// A deployment of managers 7 and 8.
fn two() -> Members {
    Members::new([(7, "127.0.0.1:4321".to_owned()), (8, "127.0.0.1:4400".to_owned())]).unwrap()
}

/// Scripts are written and started one test at a time: a child forked by another test
/// while a script is open for writing would make its exec fail ("text file busy").
static SPAWNING: Mutex<()> = Mutex::new(());

/// An executable shell script `name` in `dir` running `body`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Whether process `pid` exists (a reaped child does not).
fn exists(pid: &str) -> bool {
    Path::new("/proc").join(pid.trim()).exists()
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap_or_default().lines().map(str::to_owned).collect()
}

#[test]
fn a_manager_starts_with_its_settings_restarts_on_its_port_and_dies_with_its_guard() {
    let _one = SPAWNING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display();
    // It notes its arguments and pid, prints its address, and runs until killed or
    // until its standard input closes.
    let exe = script(
        dir.path(),
        "fake-resbench",
        &format!("echo \"$@\" >> {d}/args\necho $$ >> {d}/pids\necho 'listening on 127.0.0.1:4321'\nexec cat > /dev/null"),
    );
    let db = dir.path().join("m7.redb");
    let mut m =
        ManagerProcess::spawn(&exe, (7, 0), &db, ("list", 3), (&two(), Path::new("/k"))).expect("it starts");
    assert!(m.alive());
    assert_eq!(m.addr, "127.0.0.1:4321");
    let first = format!(
        "coreserve serve --exit-on-stdin-eof --id 7 --port 0 --structure list --capacity 3 --peer 7=127.0.0.1:4321 --peer 8=127.0.0.1:4400 --key /k --db {}",
        db.display()
    );
    assert_eq!(lines(&dir.path().join("args")), vec![first.clone()]);
    let pids = || lines(&dir.path().join("pids"));
    assert!(exists(&pids()[0]));
    m.kill();
    assert!(!m.alive());
    assert!(!exists(&pids()[0]), "killed and reaped");
    // A restart asks for the port it had, with the same store.
    m.restart().expect("it starts again");
    let again = first.replace("--port 0", "--port 4321");
    assert_eq!(lines(&dir.path().join("args")), vec![first, again]);
    let second = pids()[1].clone();
    assert!(exists(&second));
    drop(m);
    assert!(!exists(&second), "the guard kills and reaps it");
}

#[test]
fn a_manager_that_cannot_start_or_prints_no_address_is_an_error_naming_it() {
    let _one = SPAWNING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.redb");
    let missing = dir.path().join("no-such-resbench");
    match ManagerProcess::spawn(&missing, (7, 0), &db, ("list", 3), (&Members::default(), Path::new("/k"))) {
        Err(e @ Error::Spawn { .. }) => {
            assert_eq!(
                e.to_string(),
                format!("cannot start {}: No such file or directory (os error 2)", missing.display())
            )
        }
        other => panic!("{other:?}"),
    }
    // Something else on its first line: the child is killed, the line named.
    let d = dir.path().display();
    let chatty =
        script(dir.path(), "chatty", &format!("echo $$ > {d}/pid\necho 'hello there'\nexec cat > /dev/null"));
    match ManagerProcess::spawn(&chatty, (7, 0), &db, ("list", 3), (&Members::default(), Path::new("/k"))) {
        Err(e @ Error::NotAddress { .. }) => {
            assert_eq!(e.to_string(), "manager 7 printed \"hello there\", not its address")
        }
        other => panic!("{other:?}"),
    }
    assert!(!exists(&lines(&dir.path().join("pid"))[0]), "the chatty child was killed and reaped");
    // Nothing at all, exiting at once: an error now, not after the 10 s it would have.
    let mute = script(dir.path(), "mute", "exit 0");
    let began = Instant::now();
    match ManagerProcess::spawn(&mute, (7, 0), &db, ("list", 3), (&Members::default(), Path::new("/k"))) {
        Err(e @ Error::StartTimeout { .. }) => {
            assert_eq!(e.to_string(), "manager 7 did not print its address within 10s")
        }
        other => panic!("{other:?}"),
    }
    assert!(began.elapsed() < Duration::from_secs(5), "took {:?}", began.elapsed());
    // A restart that prints something else fails, and its child does not live on.
    let fickle = script(
        dir.path(),
        "fickle",
        &format!(
            "echo $$ >> {d}/fickle.pids\nif [ -e {d}/once ]; then echo 'oops'; else touch {d}/once; echo 'listening on 127.0.0.1:4322'; fi\nexec cat > /dev/null"
        ),
    );
    let mut m =
        ManagerProcess::spawn(&fickle, (8, 0), &db, ("list", 3), (&Members::default(), Path::new("/k")))
            .expect("it starts the first time");
    assert!(matches!(m.restart(), Err(Error::NotAddress { id: 8, .. })));
    let pids = lines(&dir.path().join("fickle.pids"));
    assert_eq!(pids.len(), 2);
    assert!(!m.alive() && !exists(&pids[0]) && !exists(&pids[1]), "both children killed and reaped");
}
