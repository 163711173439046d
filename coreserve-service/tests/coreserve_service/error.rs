//! The service's errors (`src/error.rs`): each names what failed and where; one that
//! wraps a lower error ends with that error's text and gives no `source`, so a chain
//! printer shows the cause once.

use std::error::Error as _;
use std::path::PathBuf;
use std::time::Duration;

use coreserve::durable::StoreError;
use coreserve_service::{client, Error};

use super::dead_addr;

#[test]
fn each_error_names_what_failed_and_where() {
    let cases = [
        (Error::NoStdout { id: 3 }, "manager 3: no standard output"),
        (
            Error::StartTimeout { id: 3, timeout: Duration::from_secs(10) },
            "manager 3 did not print its address within 10s",
        ),
        (Error::NotAddress { id: 3, line: "hi".to_owned() }, "manager 3 printed \"hi\", not its address"),
        (Error::ManagerCount(0), "name 1 to 64 managers, not 0"),
        (Error::DuplicateId(2), "two managers have id 2"),
        (Error::OutOfRange { name: "clients", low: 1, high: 256 }, "clients must be in 1..=256"),
        (Error::Store(StoreError("disk full".to_owned())), "store: disk full"),
        (Error::Stopped { id: 3, why: "store: disk full".to_owned() }, "node 3 stopped: store: disk full"),
    ];
    for (e, message) in cases {
        assert_eq!(e.to_string(), message, "{e:?}");
    }
}

#[test]
fn a_wrapped_error_ends_with_its_cause_and_gives_no_source() {
    let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
    let json = || serde_json::from_str::<u32>("x").unwrap_err();
    let dead = dead_addr();
    let get = client::status(&dead).unwrap_err();
    let cases = [
        (
            Error::Spawn { exe: PathBuf::from("/x/resbench"), cause: io() },
            "cannot start /x/resbench: gone".to_owned(),
        ),
        (
            Error::Read { path: PathBuf::from("/x/load.json"), cause: io() },
            "cannot read /x/load.json: gone".to_owned(),
        ),
        (
            Error::NotLoadFile { path: PathBuf::from("/x/load.json"), cause: json() },
            format!("/x/load.json: not a load file: {}", json()),
        ),
        (Error::Encode(json()), json().to_string()),
        (Error::Io(io()), "gone".to_owned()),
    ];
    for (e, message) in cases {
        assert_eq!(e.to_string(), message, "{e:?}");
        assert!(e.source().is_none(), "{e:?} gives its cause twice");
    }
    let Error::Get { cause, .. } = &get else { panic!("{get:?}") };
    assert_eq!(get.to_string(), format!("GET {dead}/v1/status: {cause}"));
    assert!(get.source().is_none());
}
