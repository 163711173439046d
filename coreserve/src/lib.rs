//! Calendar-token co-reservation across resource managers (calendar-token-reservation):
//! each manager keeps a calendar of available, held and locked slots with access lists
//! over any availability index; clients hold slots with agents, negotiate, and commit a
//! reservation over several managers atomically with two-phase commit.
//!
//! Every machine is sans-IO: a step takes the present and one input (a message or a
//! timer) and returns outputs (durable records, messages, timers). [`sim`] runs them
//! under injected faults from one RNG seed and checks the invariants after every step.
//! The protocol decisions the paper leaves open are listed in `docs/coreserve.md`,
//! "Where the paper is silent".
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod access;
pub mod calendar;
pub mod client;
pub mod coordinator;
pub mod durable;
pub mod error;
pub mod limits;
pub mod manager;
pub mod node;
pub mod polling;
pub mod proto;
pub mod services;
pub mod sim;

use std::fmt;
use std::str::FromStr;

use structures::UnknownName;

/// A bug planted on purpose, to show that the simulator's checker catches it. Only the
/// simulator sets one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Plant {
    /// The coordinator decides commit at the first Yes (and counts missing votes as Yes
    /// at the vote timeout).
    CommitWithoutAllPrepares,
    /// The coordinator does not write its commit decision, so a crash forgets it.
    ForgetDecision,
    /// A manager acknowledges a lock without writing it, so a crash loses it.
    VolatileLock,
    /// A manager grants holds that never lapse (no lease).
    HoldWithoutLease,
    /// The coordinator answers "pending" for a transaction it never heard of, rather
    /// than recording an abort.
    PendingForUnknown,
    /// A manager that refuses to release a claim (a locked one, say) drops it anyway (a
    /// refused write that changes something).
    RefusalDropsClaim,
    /// A manager recalls holds whatever their priority, not only lower ones.
    RecallAnyPriority,
    /// A manager grants a waiter ids that a higher-priority waiter is queued for.
    GrantOutOfOrder,
    /// A manager locks a hold whose lease lapsed (a lock from a stale snapshot): lapsed
    /// holds wait for the next step, and a Lock is taken before they go.
    LockLapsedHold,
    /// A query's dead starts count ids off the client's access list as free.
    DeadCountsHidden,
    /// A client takes its one-manager lock's acknowledgement for a refusal, and fails
    /// while it holds the lock.
    FailHoldingLock,
}

impl Plant {
    /// Every planted bug.
    pub const ALL: [Plant; 11] = [
        Plant::CommitWithoutAllPrepares,
        Plant::ForgetDecision,
        Plant::VolatileLock,
        Plant::HoldWithoutLease,
        Plant::PendingForUnknown,
        Plant::RefusalDropsClaim,
        Plant::RecallAnyPriority,
        Plant::GrantOutOfOrder,
        Plant::LockLapsedHold,
        Plant::DeadCountsHidden,
        Plant::FailHoldingLock,
    ];

    /// Its name on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Plant::CommitWithoutAllPrepares => "commit-without-all-prepares",
            Plant::ForgetDecision => "forget-decision",
            Plant::VolatileLock => "volatile-lock",
            Plant::HoldWithoutLease => "hold-without-lease",
            Plant::PendingForUnknown => "pending-for-unknown",
            Plant::RefusalDropsClaim => "refusal-drops-claim",
            Plant::RecallAnyPriority => "recall-any-priority",
            Plant::GrantOutOfOrder => "grant-out-of-order",
            Plant::LockLapsedHold => "lock-lapsed-hold",
            Plant::DeadCountsHidden => "dead-counts-hidden",
            Plant::FailHoldingLock => "fail-holding-lock",
        }
    }
}

impl fmt::Display for Plant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Plant {
    type Err = UnknownName;

    /// A plant by its name.
    fn from_str(s: &str) -> Result<Self, UnknownName> {
        structures::registry::by_name(&Plant::ALL, Plant::name, "planted bug", s)
    }
}
