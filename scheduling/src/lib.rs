//! resbench's scheduling layer, above the trait: the replay loop, the policies that
//! reproduce the papers' schedulers, and the RSPB schedulers. A policy sees a structure
//! only through the loop's services, so every policy runs on every structure.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod counting;
pub mod fcfs_eds;
pub mod policy;
pub mod replay;
pub mod rspb;
pub mod runner;
