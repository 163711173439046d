//! Bring your own structure: a child process that speaks the external protocol
//! (docs/external-protocol.md) over its stdin and stdout is driven as an
//! [`AvailabilityIndex`](structures::AvailabilityIndex) ([`ExternalIndex`]), checked
//! against the oracle through the one differential driver (`resbench verify --external`)
//! and timed beside the built-in structures (`resbench bench --external`).
//!
//! `protocol` holds the messages, `child` the process, `index` the trait over them,
//! `class` what each op comes to, `streams`, `boundary` and `record` the op sources,
//! `shrink` delta debugging, `verify` and `bench` the two commands.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod bench;
pub mod boundary;
pub mod child;
pub mod class;
pub mod index;
pub mod ops_stream;
pub mod protocol;
pub mod record;
pub mod shrink;
pub mod streams;
pub mod verify;

pub use class::{Class, Step};
pub use index::{External, ExternalIndex, Limits, Link, StartError};
pub use streams::{Case, Stream};
