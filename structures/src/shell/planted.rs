//! Faults a test can plant in the shell's own window logic (feature `planted`, for tests
//! only), to show that the differential driver catches a bug in code every structure
//! shares: the oracle has window logic of its own.

use crate::{Error, Time};

use super::Basis;

/// A bug in the shell's window check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Window ends off a slot boundary are rounded down instead of up, unless that would
    /// empty the window.
    EndRoundedDown,
    /// A window ending exactly at the horizon is refused as beyond it.
    HorizonExclusive,
}

/// The window check's result as the planted fault makes it.
pub(super) fn distort(
    fault: Option<Fault>,
    at: &Basis,
    end: Time,
    window: Result<(Time, Time), Error>,
) -> Result<(Time, Time), Error> {
    match (fault, window) {
        (Some(Fault::EndRoundedDown), Ok((s, _))) if at.config.floor(end) > s => {
            Ok((s, at.config.floor(end)))
        }
        (Some(Fault::HorizonExclusive), Ok((_, e))) if e == at.limit && at.config.horizon.is_some() => {
            Err(Error::BeyondHorizon { end: e, limit: at.limit })
        }
        (_, window) => window,
    }
}
