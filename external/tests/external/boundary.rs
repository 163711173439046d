//! `src/external/boundary.rs`: the edge cases are valid scenarios, reach every kind of
//! op and every kind of refusal the streams can provoke, and the built-in structures
//! agree with the oracle on them.

use std::collections::BTreeSet;

use external::boundary::{boundary, SCENARIOS};
use external::protocol::{error_kind, ERROR_KINDS};
use oracle::{replay, rules, Differential, OpKind, Outcome};
use structures::Kind;

#[test]
fn every_scenario_is_valid_and_every_op_kind_is_there() {
    let stream = boundary();
    assert_eq!(stream.cases.len(), SCENARIOS.len());
    for case in &stream.cases {
        rules::validate(case.scenario.capacity, case.scenario.config).unwrap();
        let kinds: BTreeSet<OpKind> = case.ops.iter().map(|op| op.kind()).collect();
        assert_eq!(kinds, OpKind::ALL.iter().copied().collect(), "{:?}", case.scenario);
    }
}

#[test]
fn the_oracle_refuses_with_every_argument_error_kind() {
    let mut kinds = BTreeSet::new();
    for case in boundary().cases {
        let mut run = Differential::new(Kind::REFERENCE, case.scenario, true).unwrap();
        for op in case.ops {
            if let Ok(Outcome::Failed(e)) = run.step(op) {
                kinds.insert(error_kind(&e));
            }
        }
    }
    // Every kind an op can be refused with; a bad configuration refuses the index, not an op.
    let expected = ERROR_KINDS.into_iter().filter(|&kind| kind != "bad_config");
    assert_eq!(kinds, expected.collect());
}

#[test]
fn every_built_in_structure_agrees_with_the_oracle_on_them() {
    for case in boundary().cases {
        for &kind in Kind::ALL {
            // The slotted structures cannot hold a horizon of 2^64 slots: they get their
            // default where the scenario has none, and the oracle beside them the same.
            replay(kind, case.scenario, &case.ops).unwrap_or_else(|d| panic!("{d}"));
        }
    }
}
