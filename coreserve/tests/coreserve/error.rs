//! The calendar's and protocol's refusals (`src/error.rs`): every variant's message
//! names what was asked and where, worked out by hand.

use coreserve::error::CalError;
use coreserve::proto::{ClaimId, TxnId};
use structures::{Error, RangeSet};

use super::{A, B};

const C: ClaimId = ClaimId { epoch: 1, seq: 2 };
const T: TxnId = TxnId { client: A, seq: 1 };

#[test]
fn every_refusal_names_what_was_asked_and_where() {
    let cases = [
        (
            CalError::Outside(Error::EmptyWindow { start: 5, end: 5 }),
            "slot outside the calendar: empty window [5, 5): the start must be before the end",
        ),
        (
            CalError::AccessDenied { client: B, ids: RangeSet::from_ids([3]), start: 2, end: 7 },
            "client 12 is not on the access list of resources {3} over [2, 7)",
        ),
        (
            CalError::Busy { ids: RangeSet::from_ids([0, 1, 3]), start: 0, end: 5 },
            "resources {0..2, 3} are not available throughout [0, 5)",
        ),
        (
            CalError::Locked { n: 3, unlocked: 1, start: 0, end: 5 },
            "only 1 resources are not locked over [0, 5); 3 were asked for",
        ),
        (
            CalError::ReservedForWaiter { start: 0, end: 5 },
            "resources over [0, 5) are reserved for a waiter of higher priority",
        ),
        (CalError::UnknownHold { claim: C }, "unknown hold c1.2"),
        (CalError::HoldExpired { claim: C, deadline: 10, now: 12 }, "hold c1.2 expired at 10 (now 12)"),
        (
            // The epoch named first is the claim's own.
            CalError::StaleEpoch { claim: C, current: 3 },
            "hold c1.2 is from epoch 1, before the manager's restart (epoch 3)",
        ),
        (CalError::NotHolder { claim: C, holder: A, client: B }, "hold c1.2 belongs to client 11, not 12"),
        (
            CalError::AlreadyLocked { claim: C },
            "hold c1.2 is locked: locked slots cannot be released or locked again",
        ),
        (CalError::Prepared { claim: C, txn: T }, "hold c1.2 is prepared for t11.1 and awaits its decision"),
        (
            CalError::WindowMismatch { claim: C, start: 10, end: 15 },
            "hold c1.2 covers [10, 15), not the transaction's window",
        ),
        (CalError::UnknownTxn { txn: T }, "commit for unknown transaction t11.1"),
        (CalError::TxnAborted { txn: T }, "transaction t11.1 was aborted"),
        (CalError::ConflictingDecision { txn: T }, "abort for transaction t11.1, which was committed"),
        (CalError::BadRequest("why".to_owned()), "bad request: why"),
        (
            CalError::Index(Error::EmptySet),
            "the index disagrees with the claims: empty resource set: an allocation or release needs at least one id",
        ),
    ];
    for (error, message) in cases {
        assert_eq!(error.to_string(), message, "{error:?}");
    }
}
