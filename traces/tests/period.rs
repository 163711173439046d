//! Selecting a calendar period of a trace (`src/period.rs`).

use traces::period::{parse_date, select, PeriodError};
use traces::swf;

fn trace() -> swf::Trace {
    // Starts 2002-01-01 00:00 local time in a zone 8 hours behind UTC.
    let text = "; UnixStartTime: 1009872000\n; TimeZone: -28800\n; MaxProcs: 4\n\
        1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n\
        2 86399 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n\
        3 86400 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n\
        4 31536000 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n";
    swf::read_bytes(text.as_bytes(), "t.swf", false).unwrap()
}

#[test]
fn dates_are_days_since_the_epoch() {
    assert_eq!(parse_date("1970-01-01"), Ok(0));
    assert_eq!(parse_date("2002-01-01"), Ok(11_688));
    assert_eq!(parse_date("2000-02-29"), Ok(11_016));
    for bad in ["2001-02-29", "2002-13-01", "2002-1", "02-01-01", "tomorrow"] {
        assert!(parse_date(bad).unwrap_err().to_string().contains("YYYY-MM-DD"), "{bad}");
    }
    let err = parse_date("tomorrow").unwrap_err();
    assert_eq!(err, PeriodError::BadDate { text: "tomorrow".into() });
    assert_eq!(err.to_string(), "\"tomorrow\" is not a date of the form YYYY-MM-DD");
}

#[test]
fn a_period_keeps_the_jobs_submitted_in_it_in_local_time() {
    let mut t = trace();
    let said = select(&mut t, Some("2002-01-02"), Some("2003-01-01")).unwrap();
    assert_eq!(t.jobs.iter().map(|j| j.id).collect::<Vec<_>>(), [3]);
    assert_eq!(said.unwrap(), "jobs submitted from 2002-01-02 to before 2003-01-01 (the log's local time)");
    let mut t = trace();
    select(&mut t, None, Some("2002-01-02")).unwrap();
    assert_eq!(t.jobs.iter().map(|j| j.id).collect::<Vec<_>>(), [1, 2]);
    let mut t = trace();
    assert_eq!(select(&mut t, None, None), Ok(None));
    assert_eq!(t.jobs.len(), 4);
}

#[test]
fn bad_periods_are_refused_by_name() {
    let mut t = trace();
    assert!(select(&mut t, Some("2003-01-01"), Some("2002-01-01"))
        .unwrap_err()
        .to_string()
        .contains("is not before"));
    let mut bare =
        swf::read_bytes(b"1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n", "b.swf", false).unwrap();
    assert!(select(&mut bare, Some("2002-01-01"), None)
        .unwrap_err()
        .to_string()
        .contains("no UnixStartTime"));
    assert_eq!(
        select(&mut t, Some("2003-01-01"), Some("2002-01-01")).unwrap_err().to_string(),
        "--since Some(\"2003-01-01\") is not before --until Some(\"2002-01-01\")"
    );
    assert_eq!(
        select(&mut bare, None, Some("2002-01-01")).unwrap_err().to_string(),
        "b.swf: no UnixStartTime in the header, so dates cannot be placed"
    );
}
