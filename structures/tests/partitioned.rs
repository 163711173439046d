//! The partitioned profile answers as one index over all ids would, for every kind;
//! that single index is itself held to the oracle by the differential suite.

use structures::{Config, Kind, Partitioned, RangeSet};

/// A fixed-seed xorshift: the op mix is reproducible without a dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

#[test]
fn partitions_together_behave_as_one_index() {
    let names = ["a", "b", "c"];
    for &kind in Kind::ALL {
        // A horizon every kind accepts, longer than the 3000 steps reach.
        let config = Config { slot: 1, horizon: Some(4096) };
        let mut parts = Partitioned::new(kind, config, &[("a", 3), ("b", 4), ("c", 2)]).unwrap();
        let mut whole = kind.build(9, config).unwrap();
        let mut rng = Rng(0x5eed);
        let mut now = 0;
        for step in 0..3000 {
            let start = now + rng.below(30);
            let end = start + 1 + rng.below(10);
            let lo = rng.below(10) as u32;
            let set = RangeSet::from_range(lo, lo + 1 + rng.below(4) as u32);
            match rng.below(5) {
                0 | 1 => assert_eq!(
                    parts.allocate(start, end, &set),
                    whole.allocate(start, end, &set),
                    "{kind} step {step}"
                ),
                2 => assert_eq!(
                    parts.release(start, end, &set),
                    whole.release(start, end, &set),
                    "{kind} step {step}"
                ),
                3 => {
                    let n = 1 + rng.below(9) as u32;
                    assert_eq!(
                        parts.check(&names, start, end, n),
                        whole.check(start, end, n),
                        "{kind} step {step}"
                    );
                    let b = parts.ids("b").unwrap();
                    let in_b = whole.check(start, end, 1).unwrap().unwrap_or_default().intersect(&b);
                    let expected = (in_b.count() >= 2).then_some(in_b);
                    assert_eq!(parts.check(&["b"], start, end, 2), Ok(expected), "{kind} step {step}");
                }
                _ => {
                    now += rng.below(3);
                    assert_eq!(parts.advance(now), whole.advance(now));
                }
            }
            parts.validate().unwrap();
        }
    }
}

#[test]
fn unknown_and_repeated_partitions_are_refused() {
    assert!(Partitioned::new(Kind::RbTree, Config::default(), &[("a", 2), ("a", 3)]).is_err());
    let parts = Partitioned::new(Kind::RbTree, Config::default(), &[("a", 2)]).unwrap();
    assert!(parts.check(&["z"], 0, 1, 1).unwrap_err().to_string().contains("\"z\""));
}
