//! `src/counting.rs`: the per-slot counting model on every structure. Marks and
//! cancellations keep the busy ids at the bottom, so what is free over a window is the
//! capacity less its heaviest load, and a reservation's ids may differ between stretches.

use scheduling::counting::{CountTable, Stretch};
use structures::Kind;

#[test]
fn counts_add_up_per_stretch_and_cancel_exactly() {
    for &kind in Kind::ALL {
        let mut t = CountTable::new(kind, 4, 20, true).unwrap();
        t.mark(1, 0, 10, 2).unwrap();
        t.mark(2, 5, 15, 1).unwrap();
        // Loads 2, 3, 1 over [0, 5), [5, 10), [10, 15).
        let want = vec![
            Stretch { start: 0, end: 5, load: 2 },
            Stretch { start: 5, end: 10, load: 3 },
            Stretch { start: 10, end: 15, load: 1 },
            Stretch { start: 15, end: 20, load: 0 },
        ];
        assert_eq!(t.stretches(0, 0, 20).unwrap(), want, "{kind}");
        assert_eq!(t.smallest(0, 0, 20).unwrap(), 1, "{kind}");
        assert_eq!(t.smallest(0, 10, 20).unwrap(), 3, "{kind}");
        assert_eq!(t.load_sum(0, 0, 20).unwrap(), 2 * 5 + 3 * 5 + 5, "{kind}");
        t.validate(0, 20).unwrap();
        // Taking the first back leaves the second's one id at the bottom everywhere.
        t.cancel(1, 0, 10, 2).unwrap();
        t.validate(0, 20).unwrap();
        assert_eq!(t.smallest(0, 0, 5).unwrap(), 4, "{kind}");
        assert_eq!(t.smallest(0, 5, 15).unwrap(), 3, "{kind}");
        // More than is free is refused by the structure, and nothing changes.
        assert!(t.mark(3, 5, 15, 4).is_err(), "{kind}");
        t.validate(0, 20).unwrap();
        assert_eq!(t.smallest(0, 5, 15).unwrap(), 3, "{kind}");
    }
}
