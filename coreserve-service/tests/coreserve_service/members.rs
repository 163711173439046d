//! Membership (`src/members.rs`): `--peer` values and members files parse to the
//! managers they name; a wrong entry, a duplicate id, a bad address, too many managers
//! or too big a file is refused naming where.

use coreserve::limits::MAX_MANAGERS;
use coreserve_service::members::{Members, MAX_MEMBERS_FILE};

#[test]
fn peer_values_and_members_files_name_the_managers() {
    assert_eq!(Members::entry("3=127.0.0.1:4001").unwrap(), (3, "127.0.0.1:4001".to_owned()));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("members");
    std::fs::write(&file, "# the deployment\n0 127.0.0.1:4000\n\n1 127.0.0.1:4001  # the second\n").unwrap();
    let list = Members::read(&file).unwrap();
    let members = Members::new(list).unwrap();
    assert_eq!(members.iter().collect::<Vec<_>>(), vec![(0, "127.0.0.1:4000"), (1, "127.0.0.1:4001")]);
    assert_eq!((members.addr(1), members.addr(2)), (Some("127.0.0.1:4001"), None));
    assert!(members.contains(0) && !members.contains(2));
}

#[test]
fn a_wrong_entry_is_refused_naming_where() {
    let err = |r: coreserve_service::Result<_>| r.map(|_: Members| ()).unwrap_err().to_string();
    let entry = |s: &str| Members::entry(s).unwrap_err().to_string();
    assert_eq!(entry("3:127.0.0.1:1"), "membership: \"3:127.0.0.1:1\": expected ID=IP:PORT");
    assert_eq!(entry("x=127.0.0.1:1"), "membership: \"x=127.0.0.1:1\": expected ID=IP:PORT");
    let one = |id, a: &str| (id, a.to_owned());
    assert_eq!(
        err(Members::new([one(1, "127.0.0.1:1"), one(1, "127.0.0.1:2")])),
        "membership: manager 1: given twice"
    );
    assert_eq!(
        err(Members::new([one(2, "localhost:80")])),
        "membership: manager 2: \"localhost:80\" is not ip:port of at most 64 bytes"
    );
    let many = (0..=MAX_MANAGERS).map(|i| one(i, "127.0.0.1:1"));
    assert_eq!(err(Members::new(many)), "membership: manager 64: more than 64 managers");
    Members::new((0..MAX_MANAGERS).map(|i| one(i, "127.0.0.1:1"))).expect("the limit itself");

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("members");
    std::fs::write(&file, "0 127.0.0.1:4000\n1\n").unwrap();
    let read = |f| Members::read(f).unwrap_err().to_string();
    assert_eq!(read(&file), format!("membership: {} line 2: expected ID IP:PORT", file.display()));
    std::fs::write(&file, "zero 127.0.0.1:4000\n").unwrap();
    assert_eq!(read(&file), format!("membership: {} line 1: \"zero\" is not an id", file.display()));
    std::fs::write(&file, vec![b'#'; MAX_MEMBERS_FILE as usize + 1]).unwrap();
    assert_eq!(read(&file), format!("cannot read {}: 65537 bytes; the limit is 65536", file.display()));
    assert!(read(&dir.path().join("none")).starts_with("cannot read"));
}
