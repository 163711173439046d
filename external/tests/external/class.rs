//! `src/external/class.rs`: each op through the driver, classed.

use external::class::step;
use external::Class;
use oracle::{Differential, Op, Scenario};
use structures::{Config, RangeSet};

use super::{example, external, faulty};

const SCENARIO: Scenario = Scenario { capacity: 3, config: Config { slot: 1, horizon: None } };

fn steps(command: &str, ops: Vec<Op>) -> Vec<Class> {
    let (index, link) = external(command).start(SCENARIO).unwrap();
    let mut run = Differential::with_structure(Box::new(index), true).unwrap();
    ops.into_iter().map(|op| step(&mut run, &link, op).class).collect()
}

#[test]
fn agreements_and_refusals_with_the_same_kind_are_not_divergences() {
    let ops = vec![
        Op::Allocate { start: 0, end: 4, set: RangeSet::from_range(0, 1) },
        Op::Allocate { start: 2, end: 5, set: RangeSet::from_range(0, 2) },
        Op::Check { start: 0, end: 1, n: 0 },
    ];
    let classes = steps(&example("naive.py"), ops.clone());
    assert_eq!(classes, [Class::Agree, Class::SameRefusal, Class::SameRefusal]);
    // Refusals that give only their kind agree by kind.
    assert_eq!(steps(&faulty("kind", 0), ops), [Class::Agree, Class::SameRefusal, Class::SameRefusal]);
    assert!(Class::ALL.iter().filter(|c| !c.is_divergence()).eq(&[Class::Agree, Class::SameRefusal]));
}

#[test]
fn a_wrong_earliest_is_a_different_answer() {
    let ops = vec![
        Op::Allocate { start: 8, end: 11, set: RangeSet::from_range(0, 1) },
        Op::Earliest { ready: 12, duration: 7, n: 3 },
    ];
    assert_eq!(steps(&example("buggy.py"), ops), [Class::Agree, Class::DifferentAnswers]);
}
