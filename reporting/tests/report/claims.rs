//! `src/report/claims.rs`: a claim's difference and verdict follow its numbers, and its
//! row shows them.

use reporting::report::claims::{header, tolerance, Claim, Quoted, Verdict};

fn claim(paper: f64, ours: f64, tolerance: f64) -> Claim {
    Claim { quoted: Quoted { what: "attempts", source: "Table 2", value: paper }, ours, tolerance }
}

#[test]
fn the_verdict_flips_at_the_tolerance() {
    assert_eq!(claim(10.0, 12.5, 0.25).verdict(), Verdict::Agrees);
    assert_eq!(claim(10.0, 7.5, 0.25).verdict(), Verdict::Agrees);
    assert_eq!(claim(10.0, 12.6, 0.25).verdict(), Verdict::Differs);
    assert_eq!(claim(10.0, 7.4, 0.25).verdict(), Verdict::Differs);
    // Exact: any difference differs.
    assert_eq!(claim(128.0, 128.0, 0.0).verdict(), Verdict::Agrees);
    assert_eq!(claim(128.0, 100.0, 0.0).verdict(), Verdict::Differs);
    // A paper's zero agrees only with zero.
    assert_eq!(claim(0.0, 0.0, 0.25).verdict(), Verdict::Agrees);
    assert_eq!(claim(0.0, 1.0, 0.25).verdict(), Verdict::Differs);
}

#[test]
fn a_row_shows_the_numbers_the_difference_and_the_verdict() {
    assert_eq!(claim(10.27, 9.5, 0.25).row(2), ["attempts", "Table 2", "10.27", "9.50", "-7 %", "agrees"]);
    assert_eq!(claim(0.0, 1.0, 0.25).row(1), ["attempts", "Table 2", "0", "1", "—", "differs"]);
    assert_eq!(claim(0.0, 0.5, 0.25).row(1), ["attempts", "Table 2", "0.0", "0.5", "—", "differs"]);
    assert_eq!(header().len(), claim(1.0, 1.0, 0.0).row(0).len());
    assert_eq!((tolerance(0.25), tolerance(0.0)), ("±25 %".to_owned(), "exact".to_owned()));
}
