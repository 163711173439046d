//! The SWF reader: headers, both encodings, and errors that name file, line and field.

use std::io::Write;

use flate2::write::GzEncoder;
use flate2::Compression;
use traces::swf::{self, LineError, SwfError};
use traces::{BUNDLED_NAME, BUNDLED_TRACE};

const GOOD: &str = "; MaxProcs: 16\n; MaxNodes: 8\n1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n2 10 0 50 2 1.5 -1 -1 60 -1 1 1 1 -1 1 -1 -1 -1\n";

#[test]
fn reads_header_fields_and_jobs() {
    let trace = swf::read_bytes(GOOD.as_bytes(), "t.swf", false).unwrap();
    assert_eq!((trace.header.max_procs, trace.header.max_nodes), (Some(16), Some(8)));
    assert_eq!(trace.header.lines, ["MaxProcs: 16", "MaxNodes: 8"]);
    assert_eq!(trace.jobs.len(), 2);
    let job = trace.jobs[1];
    assert_eq!(
        (job.id, job.submit, job.run_time, job.requested_procs, job.requested_time, job.line),
        (2, 10, 50, -1, 60, 4)
    );
}

#[test]
fn gzip_and_plain_read_alike() {
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    gz.write_all(GOOD.as_bytes()).unwrap();
    let zipped = swf::read_bytes(&gz.finish().unwrap(), "t.swf.gz", false).unwrap();
    let plain = swf::read_bytes(GOOD.as_bytes(), "t.swf", false).unwrap();
    assert_eq!(zipped.jobs, plain.jobs);
}

#[test]
fn fields_split_at_every_unicode_white_space_ascii_or_not() {
    // The reader's ASCII fast path must split as `split_whitespace` does, which
    // includes the vertical tab that `split_ascii_whitespace` leaves in a field.
    let plain = swf::read_bytes(GOOD.as_bytes(), "t.swf", false).unwrap();
    for space in ["\t", "\u{b}", "\u{c}", " \t\u{b} ", "\u{a0}", "\u{2003}"] {
        let text = GOOD.replace("-1 1 1 1", &format!("-1{space}1{space}1{space}1"));
        let trace = swf::read_bytes(text.as_bytes(), "t.swf", false).unwrap();
        assert_eq!(trace.jobs, plain.jobs, "separator {space:?}");
    }
    // A character that is no white space stays in its field.
    let text = GOOD.replace("-1 1 1 1", "-1\u{1}1 1 1");
    let err = swf::read_bytes(text.as_bytes(), "t.swf", false).unwrap_err();
    assert_eq!(err.to_string(), "t.swf:3: expected 18 fields, found 17");
}

#[test]
fn a_run_time_reads_as_parse_reads_it_however_it_is_written() {
    // An integer as `str::parse` reads it, else a decimal truncated, at every edge:
    // signs, zeros, 18 and 19 digits, the i64 limits, decimals and junk.
    let run_time = |raw: &str| {
        let text = GOOD.replace("2 10 0 50", &format!("2 10 0 {raw}"));
        swf::read_bytes(text.as_bytes(), "t.swf", false).map(|t| t.jobs[1].run_time).ok()
    };
    for (raw, want) in [
        ("0", Some(0)),
        ("-0", Some(0)),
        ("007", Some(7)),
        ("+5", Some(5)),
        ("-1", Some(-1)),
        ("999999999999999999", Some(999_999_999_999_999_999)),
        ("-999999999999999999", Some(-999_999_999_999_999_999)),
        ("9223372036854775807", Some(i64::MAX)),
        ("-9223372036854775808", Some(i64::MIN)),
        ("3.7", Some(3)),
        ("-3.7", Some(-3)),
        ("-0.5", Some(0)),
        ("999999999.999999", Some(999_999_999)),
        ("-999999999.999999", Some(-999_999_999)),
        ("9999999999.9999999", Some(10_000_000_000)),
        ("0.9999999", Some(0)),
        ("999999999.99999999999", Some(1_000_000_000)),
        ("9007199254740991.9", Some(9_007_199_254_740_992)),
        ("1.", Some(1)),
        (".5", Some(0)),
        ("4503599627370495.9999999", Some(4_503_599_627_370_496)),
        ("1e3", Some(1000)),
        ("9223372036854775808", None),
        ("-", None),
        ("1.2.3", None),
        ("1..2", None),
        ("-.", None),
        ("--1", None),
        ("1-", None),
        ("12a", None),
        ("1/2", None),
        (":", None),
    ] {
        assert_eq!(run_time(raw), want, "{raw:?}");
    }
}

/// A job line's fields as the format defines them, independently of the reader: split at
/// Unicode white space, each an integer as `str::parse` reads it or else a finite decimal
/// truncated; `None` where the line is no job.
fn job_fields(line: &str) -> Option<Vec<i64>> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    (fields.len() == swf::FIELDS.len()).then_some(())?;
    fields
        .iter()
        .map(|f| {
            f.parse::<i64>().ok().or_else(|| {
                f.parse::<f64>().ok().filter(|x| x.is_finite() && x.abs() < 9.0e18).map(|x| x.trunc() as i64)
            })
        })
        .collect()
}

proptest::proptest! {
    /// Every line reads as the format defines it, however its fields are written and
    /// spaced: plain integers of any length and sign, decimals, junk, and separators the
    /// one-pass reading of plain lines does not take.
    #[test]
    fn a_job_line_reads_as_its_fields_parse(
        fields in proptest::collection::vec(
            proptest::prop_oneof![
                40 => "-?[0-9]{1,18}",
                2 => "-?[0-9]{19,20}",
                2 => "-",
                10 => "-?[0-9]{1,10}[.][0-9]{1,7}",
                1 => "[+-]?[0-9]{0,3}[.][0-9]{0,3}",
                1 => "[0-9]{1,3}e[0-9]",
                1 => "[0-9a:/-]{1,3}",
            ],
            17..=19,
        ),
        separators in proptest::collection::vec(
            proptest::prop_oneof![20 => "[ ]{1,3}|\t", 1 => "[ ]\u{b}|\u{a0}"],
            19,
        ),
    ) {
        let line: String = fields.iter().zip(&separators).flat_map(|(f, s)| [f.as_str(), s.as_str()]).collect();
        let read = swf::read_bytes(line.as_bytes(), "t.swf", false);
        match job_fields(&line) {
            Some(v) => {
                let job = read.unwrap().jobs[0];
                let got = [job.id, job.submit, job.wait, job.run_time, job.allocated, job.requested_procs, job.requested_time, job.status];
                proptest::prop_assert_eq!(got, [v[0], v[1], v[2], v[3], v[4], v[7], v[8], v[10]], "{:?}", line);
            }
            None => proptest::prop_assert!(read.is_err(), "{:?} read as {:?}", line, read),
        }
    }
}

#[test]
fn a_malformed_field_names_file_line_and_field() {
    let text = GOOD.replace("2 10 0 50", "2 10 0 fifty");
    let err = swf::read_bytes(text.as_bytes(), "t.swf", false).unwrap_err();
    assert_eq!(err.to_string(), "t.swf:4: field 4 (run time) is not a number: \"fifty\"");
    let SwfError::Malformed { line: 4, reason, .. } = err else { panic!("{err:?}") };
    assert_eq!(reason, LineError::NotANumber { field: 4, name: "run time", quoted: "\"fifty\"".into() });
}

#[test]
fn a_short_line_names_the_field_count() {
    let text = format!("{GOOD}3 20 0\n");
    let err = swf::read_bytes(text.as_bytes(), "t.swf", false).unwrap_err();
    assert_eq!(err.to_string(), "t.swf:5: expected 18 fields, found 3");
    assert!(matches!(err, SwfError::Malformed { reason: LineError::FieldCount { found: 3 }, .. }));
}

#[test]
fn lenient_reading_skips_and_counts_bad_lines() {
    let text = format!("{GOOD}3 20 0\n\u{0}\u{0}\n4 30 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n");
    let trace = swf::read_bytes(text.as_bytes(), "t.swf", true).unwrap();
    assert_eq!(trace.jobs.len(), 3);
    assert_eq!(trace.skipped.len(), 2);
    assert!(matches!(trace.skipped[0], SwfError::Malformed { line: 5, .. }));
}

#[test]
fn overlong_and_binary_lines_are_errors_not_allocations() {
    let long = "9".repeat(swf::MAX_LINE + 10);
    let err = swf::read_bytes(long.as_bytes(), "t.swf", false).unwrap_err();
    assert!(err.to_string().contains("longer than"), "{err}");
    let err = swf::read_bytes(&[0xff, 0xfe, b'\n'], "t.swf", false).unwrap_err();
    assert_eq!(err.to_string(), "t.swf:1: not UTF-8 text");
}

#[test]
fn a_missing_file_names_the_path() {
    let err = swf::read_path("no/such/trace.swf".as_ref(), false).unwrap_err();
    // The cause is the error's source, not part of its text, so that `{:#}` prints it once.
    assert_eq!(err.to_string(), "no/such/trace.swf");
    let cause = std::error::Error::source(&err).map(ToString::to_string).unwrap_or_default();
    assert!(cause.contains("No such file"), "{cause}");
}

#[test]
fn the_bundled_trace_is_kth_with_its_header() {
    let trace = swf::read_bytes(BUNDLED_TRACE, BUNDLED_NAME, false).unwrap();
    assert_eq!(trace.jobs.len(), 28_476);
    assert_eq!(trace.header.max_procs, Some(100));
    assert!(trace.header.lines.iter().any(|l| l.contains("Lars Malinowsky")));
}

/// A trace of jobs numbered `ids`, one a line from line 1.
fn numbered(ids: &[i64]) -> swf::Trace {
    let text: String =
        ids.iter().map(|id| format!("{id} 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n")).collect();
    swf::read_bytes(text.as_bytes(), "t.swf", false).unwrap()
}

#[test]
fn job_numbers_in_any_order_pass_and_a_repeat_next_to_its_first_is_named() {
    for ids in [&[1, 2, 5][..], &[5, 2, 1], &[]] {
        assert_eq!(swf::check_ids(&mut numbered(ids), false).unwrap(), 0, "{ids:?}");
    }
    // Increasing up to the repeat: the check that reads the order must not pass it.
    let err = swf::check_ids(&mut numbered(&[1, 2, 2, 3]), false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.swf:3: job number 2 was already used on line 2 (pass --renumber to renumber repeated job numbers)"
    );
    let mut trace = numbered(&[1, 2, 2, 3]);
    assert_eq!(swf::check_ids(&mut trace, true).unwrap(), 1);
    assert_eq!(trace.jobs.iter().map(|j| j.id).collect::<Vec<_>>(), [1, 2, 4, 3]);
}
