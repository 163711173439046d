//! Naive references of the papers' schedulers, each written from its paper's pseudo-code
//! alone, over plain arrays, with no code shared with the policies it checks: the same
//! independence the oracle has from the structures. They are slow on purpose; what
//! matters is that each line can be read against the paper.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod coalloc;
pub mod conservative;
pub mod fcfs_eds;
pub mod fcfs_eds_ids;
pub mod flexible;
pub mod queue;
pub mod rspb;
pub mod timeline;
