//! Access lists (calendar-token-reservation §3: "Each slot has an associated access list
//! that keeps track of which processes can obtain a lock on that slot"): ordered rules
//! over resource ids.

use std::collections::BTreeSet;

use structures::RangeSet;

use super::proto::ClientId;

/// One access rule: only `allow` may hold or lock `ids`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessRule {
    /// The resources it covers.
    pub ids: RangeSet,
    /// The clients on the list.
    pub allow: BTreeSet<ClientId>,
}

/// Ordered access rules: for each id the first rule covering it decides, and an id no
/// rule covers is open to everyone. Slots a client may not use are hidden from it (§3).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Access {
    /// The rules, first match wins.
    pub rules: Vec<AccessRule>,
}

impl Access {
    /// The ids among `0..capacity` that `client` may hold and lock.
    pub fn allowed(&self, client: ClientId, capacity: u32) -> RangeSet {
        let mut allowed = RangeSet::full(capacity);
        let mut covered = RangeSet::new();
        for rule in &self.rules {
            if !rule.allow.contains(&client) {
                allowed = allowed.subtract(&rule.ids.subtract(&covered));
            }
            covered = covered.union(&rule.ids);
        }
        allowed
    }
}
