//! The shared differential suite: every structure runs the same generated op sequences
//! beside the oracle through the one driver, which compares outcomes, cost bounds,
//! `validate()` and the whole free space after every op.

use std::marker::PhantomData;

use oracle::generate::{self, Drawn, Swarm};
use oracle::{apply, Differential, Op, Oracle, Scenario};
use proptest::prelude::*;
use proptest::test_runner::Config;
use proptest_state_machine::{prop_state_machine, ReferenceStateMachine, StateMachineTest};
use structures::Kind;

/// The reference: the oracle itself, generating each op from its current state.
#[derive(Clone, Debug)]
struct Model {
    scenario: Scenario,
    swarm: Swarm,
    oracle: Oracle,
}

impl ReferenceStateMachine for Model {
    type State = Model;
    type Transition = Op;

    fn init_state() -> BoxedStrategy<Model> {
        prop::collection::vec(any::<u64>(), 6)
            .prop_map(|numbers| {
                let mut choices = Drawn::new(&numbers);
                let scenario = generate::scenario(&mut choices);
                let swarm = Swarm::draw(&mut choices);
                let oracle = Oracle::new(scenario.capacity, scenario.config).expect("valid scenario");
                Model { scenario, swarm, oracle }
            })
            .boxed()
    }

    fn transitions(state: &Model) -> BoxedStrategy<Op> {
        let (oracle, swarm) = (state.oracle.clone(), state.swarm);
        prop::collection::vec(any::<u64>(), 12)
            .prop_map(move |numbers| generate::op(&oracle, swarm, &mut Drawn::new(&numbers)))
            .boxed()
    }

    fn apply(mut state: Model, op: &Op) -> Model {
        apply(&mut state.oracle, op);
        state
    }
}

/// Names a structure for the suite.
trait Structure {
    const KIND: Kind;
}

struct Suite<S>(PhantomData<S>);

impl<S: Structure> StateMachineTest for Suite<S> {
    type SystemUnderTest = Differential;
    type Reference = Model;

    fn init_test(model: &Model) -> Differential {
        Differential::new(S::KIND, model.scenario, true).expect("valid scenario")
    }

    fn apply(mut run: Differential, _: &Model, op: Op) -> Differential {
        if let Err(divergence) = run.step(op) {
            panic!("{divergence}");
        }
        run
    }
}

macro_rules! structures {
    ($($marker:ident => $kind:expr),* $(,)?) => {
        $(struct $marker; impl Structure for $marker { const KIND: Kind = $kind; })*

        /// Fails when a structure is registered but has no suite entry below.
        #[test]
        fn every_registered_structure_runs_the_suite() {
            assert_eq!(Kind::ALL.to_vec(), vec![$($kind),*]);
        }
    };
}

structures! {
    RbTreeS => Kind::RbTree,
    SortedListS => Kind::SortedList,
    BTreeS => Kind::BTree,
    SlottedArrayS => Kind::SlottedArray,
    SegmentTreeS => Kind::SegmentTree,
    CalendarQueueS => Kind::CalendarQueue,
    IdleTreesS => Kind::IdleTrees,
    SkipListS => Kind::SkipList,
}

/// Cases per structure; `PROPTEST_CASES` overrides it for longer runs.
fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok());
    Config { cases: cases.unwrap_or(10_000), max_shrink_iters: 20_000, ..Config::default() }
}

prop_state_machine! {
    #![proptest_config(config())]

    #[test]
    fn rbtree_matches_oracle(sequential 1..40 => Suite<RbTreeS>);

    #[test]
    fn sorted_list_matches_oracle(sequential 1..40 => Suite<SortedListS>);

    #[test]
    fn btree_matches_oracle(sequential 1..40 => Suite<BTreeS>);

    #[test]
    fn slotted_array_matches_oracle(sequential 1..40 => Suite<SlottedArrayS>);

    #[test]
    fn segment_tree_matches_oracle(sequential 1..40 => Suite<SegmentTreeS>);

    #[test]
    fn calendar_queue_matches_oracle(sequential 1..40 => Suite<CalendarQueueS>);

    #[test]
    fn idle_trees_matches_oracle(sequential 1..40 => Suite<IdleTreesS>);

    #[test]
    fn skip_list_matches_oracle(sequential 1..40 => Suite<SkipListS>);
}
