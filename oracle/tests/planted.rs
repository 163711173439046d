//! A bug planted in the shell that every structure shares is caught by the differential
//! driver: the oracle checks and rounds windows with logic of its own, so a fault in the
//! shared window check shows as a divergence on generated op streams, as a fuzz
//! campaign or the proptest suite would run them.

use oracle::generate::{self, Choices, Swarm};
use oracle::{apply, Differential, Divergence, Oracle};
use structures::{Fault, Kind};

/// A fixed xorshift stream of choices, so the test is reproducible.
struct Stream(u64);

impl Choices for Stream {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Runs up to `cases` generated cases of 40 ops on `kind`, with `fault` planted in its
/// shell; the first divergence, if any.
fn first_divergence(kind: Kind, fault: Option<Fault>, cases: usize) -> Option<Box<Divergence>> {
    let mut choices = Stream(0x9e37_79b9_7f4a_7c15);
    for _ in 0..cases {
        let scenario = generate::scenario(&mut choices);
        let swarm = Swarm::draw(&mut choices);
        let config = kind.config_for(scenario.config);
        let mut structure = kind.build(scenario.capacity, config).expect("a valid scenario");
        if let Some(fault) = fault {
            structure.plant(fault);
        }
        let mut run = Differential::with_structure(structure, true).expect("a valid scenario");
        let mut model = Oracle::new(scenario.capacity, config).expect("a valid scenario");
        for _ in 0..40 {
            let op = generate::op(&model, swarm, &mut choices);
            apply(&mut model, &op);
            if let Err(divergence) = run.step(op) {
                return Some(divergence);
            }
        }
    }
    None
}

/// One line per catch: which structure, after how many ops, and how it diverged.
fn report(fault: Fault, divergence: &Divergence) {
    let kind = format!("{:?}", divergence.kind);
    let class = kind.split([' ', '(']).next().unwrap_or_default();
    println!("{fault:?} on {}: caught after {} ops, {class}", divergence.structure, divergence.ops.len());
}

#[test]
fn without_a_fault_the_same_cases_run_clean() {
    for &kind in Kind::ALL {
        assert!(first_divergence(kind, None, 300).is_none(), "{kind}");
    }
}

#[test]
fn every_planted_fault_is_caught_on_every_structure() {
    for fault in [Fault::EndRoundedDown, Fault::HorizonExclusive] {
        for &kind in Kind::ALL {
            let divergence = first_divergence(kind, Some(fault), 300)
                .unwrap_or_else(|| panic!("{kind}: the planted {fault:?} went unnoticed"));
            report(fault, &divergence);
        }
    }
}
