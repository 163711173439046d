//! Access lists (`src/access.rs`, paper §3): for each id the first rule covering it
//! decides, an id no rule covers is open to everyone, and nothing past the capacity is
//! ever allowed.

use std::collections::BTreeSet;

use coreserve::access::{Access, AccessRule};
use coreserve::proto::ClientId;
use structures::RangeSet;

use super::{access, A, B, C};

fn ids(v: &[u32]) -> RangeSet {
    RangeSet::from_ids(v.iter().copied())
}

fn rule(on: &[u32], allow: &[ClientId]) -> AccessRule {
    AccessRule { ids: ids(on), allow: allow.iter().copied().collect::<BTreeSet<_>>() }
}

#[test]
fn without_rules_every_id_below_the_capacity_is_open_to_everyone() {
    let open = Access::default();
    assert_eq!(open.allowed(A, 4), ids(&[0, 1, 2, 3]));
    assert_eq!(open.allowed(C, 4), ids(&[0, 1, 2, 3]));
    assert_eq!(open.allowed(A, 0), RangeSet::new());
}

#[test]
fn an_id_on_a_list_is_allowed_only_to_the_listed_clients() {
    // The common rule: resource 3 is A's alone.
    let rules = access();
    assert_eq!(rules.allowed(A, 4), ids(&[0, 1, 2, 3]));
    assert_eq!(rules.allowed(B, 4), ids(&[0, 1, 2]));
    assert_eq!(rules.allowed(C, 4), ids(&[0, 1, 2]));
}

#[test]
fn the_first_rule_covering_an_id_decides_it() {
    // Id 3 is decided by the first rule (A's), so B's later rule cannot open it to B,
    // nor close it to A.
    let rules = Access { rules: vec![rule(&[2, 3], &[A]), rule(&[3], &[B])] };
    assert_eq!(rules.allowed(A, 4), ids(&[0, 1, 2, 3]));
    assert_eq!(rules.allowed(B, 4), ids(&[0, 1]));
    assert_eq!(rules.allowed(C, 4), ids(&[0, 1]));
    // A later rule still decides the ids no earlier rule covered: id 1 here.
    let rules = Access { rules: vec![rule(&[0], &[A]), rule(&[0, 1], &[B])] };
    assert_eq!(rules.allowed(A, 4), ids(&[0, 2, 3]));
    assert_eq!(rules.allowed(B, 4), ids(&[1, 2, 3]));
    assert_eq!(rules.allowed(C, 4), ids(&[2, 3]));
}

#[test]
fn an_empty_list_closes_its_ids_and_rules_past_the_capacity_open_nothing() {
    let rules = Access { rules: vec![rule(&[1], &[]), rule(&[2, 7], &[A])] };
    assert_eq!(rules.allowed(A, 4), ids(&[0, 2, 3]), "id 7 is past the capacity");
    assert_eq!(rules.allowed(B, 4), ids(&[0, 3]));
    assert_eq!(rules.allowed(A, 8), ids(&[0, 2, 3, 4, 5, 6, 7]));
    assert_eq!(rules.allowed(B, 8), ids(&[0, 3, 4, 5, 6]));
}
