//! Faults a test can plant in the shell's own window logic (feature `planted`, for tests
//! only), to show that the differential driver catches a bug in code every structure
//! shares: the oracle has window logic of its own. And the shell's own invariants broken
//! on purpose, to show that `validate` refuses each.

use crate::{Error, RangeSet, Time};

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

/// The invariants the shell's `validate` checks before the engine's.
pub const SHELL_INVARIANTS: &[&str] =
    &["now on a slot boundary and the limit current", "the full set 0..capacity"];

/// Breaks the shell's invariant `invariant` (an index into [`SHELL_INVARIANTS`]): the
/// limit one past what the present allows, or the full set one id short (or one over,
/// for a single id). Every state has one place for each.
pub(super) fn corrupt(at: &mut Basis, invariant: usize) -> bool {
    match invariant {
        0 => at.limit = at.limit.wrapping_add(1),
        _ => at.full = if at.capacity > 1 { RangeSet::full(at.capacity - 1) } else { RangeSet::full(2) },
    }
    true
}

/// The `pick`-th of `places` (modulo their number), if there is any: where an engine
/// breaks an invariant, from the places its state offers.
pub(crate) fn nth<T: Copy>(places: &[T], pick: u64) -> Option<T> {
    places.get((pick % places.len().max(1) as u64) as usize).copied()
}
