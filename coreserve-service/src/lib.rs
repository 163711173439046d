//! The protocol as real services on loopback (issue 18, part 4): every server node (a
//! manager with its coordinator) is a process with an HTTP/JSON inbox and a redb store,
//! and clients run the client machine in the CLI process. The HTTP layer only decodes a
//! message, hands it to the sans-IO machine, persists the step's records and posts the
//! step's messages: no protocol logic lives here.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod auth;
pub mod child;
pub mod client;
pub mod error;
pub mod host;
mod http;
pub mod load;
pub mod members;
pub mod runtime;
pub mod server;
pub mod store;
pub mod wire;

use std::time::{SystemTime, UNIX_EPOCH};

use structures::{Config, Kind, Time};

use coreserve::access::Access;
use coreserve::client::ClientConfig;
use coreserve::coordinator::CoordinatorConfig;
use coreserve::manager::ManagerConfig;

pub use coreserve::services::{HORIZON, SLOT};
pub use error::{Error, Result};

/// The wall clock in milliseconds since the Unix epoch (0 if the clock is before it).
pub fn now_ms() -> Time {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The client settings the services use: the simulator's, scaled to 100 ms slots.
pub const CLIENT: ClientConfig = ClientConfig {
    max_holds: 4,
    span: 20 * SLOT,
    rto: 150,
    max_tries: 6,
    wait_for: 1000,
    give_up: 8000,
    max_attempts: 4,
    lead: 300,
    plant: None,
};

/// The coordinator settings the services use.
pub const COORDINATOR: CoordinatorConfig = CoordinatorConfig { vote_timeout: 600, resend: 200, plant: None };

/// A manager of `capacity` resources kept in `kind`, open to every client.
pub fn manager_config(kind: Kind, capacity: u32) -> ManagerConfig {
    ManagerConfig {
        kind,
        capacity,
        config: Config { slot: SLOT, horizon: Some(HORIZON) },
        access: Access::default(),
        hold_ttl: 2000,
        recall_grace: 500,
        inquiry: 400,
        plant: None,
    }
}
