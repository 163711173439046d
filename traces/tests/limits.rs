//! The bounded line reader (`src/limits.rs`) every line-based input goes through.

use traces::limits::{quote, read_file, read_line, read_line_or_stop, Line, ReadError, MAX_FILE};

fn lines(input: &[u8], max: usize) -> Vec<(Line, String)> {
    let mut input = input;
    let mut buf = Vec::new();
    let mut out = Vec::new();
    loop {
        let line = read_line(&mut input, &mut buf, max).unwrap();
        if line == Line::End {
            return out;
        }
        out.push((line, String::from_utf8(buf.clone()).unwrap()));
    }
}

#[test]
fn lf_crlf_and_lone_cr_each_end_one_line() {
    let text = |l: &[(Line, String)]| l.iter().map(|(_, s)| s.clone()).collect::<Vec<_>>();
    assert_eq!(text(&lines(b"a\nb\r\nc\rd", 10)), ["a", "b", "c", "d"]);
    // Blank lines are kept, so line numbers stay right.
    assert_eq!(text(&lines(b"a\r\rb\n\nc\r\n\r\n", 10)), ["a", "", "b", "", "c", ""]);
}

#[test]
fn a_long_line_is_cut_reported_and_skipped() {
    let got = lines(b"abcdefgh\nok\n", 3);
    assert_eq!(got, [(Line::TooLong, "abc".to_owned()), (Line::Text, "ok".to_owned())]);
}

#[test]
fn quotes_are_cut() {
    assert_eq!(quote("ab"), "\"ab\"");
    assert_eq!(quote(&"x".repeat(100)), format!("{:?}...", "x".repeat(60)));
}

#[test]
fn stopping_at_a_long_line_leaves_the_rest_unread() {
    let mut input: &[u8] = b"abcdefgh\nok\n";
    let mut buf = Vec::new();
    assert_eq!(read_line_or_stop(&mut input, &mut buf, 3).unwrap(), Line::TooLong);
    assert_eq!(buf, b"abc");
    assert!(input.ends_with(b"\nok\n"));
}

#[test]
fn a_file_that_cannot_be_read_is_named_with_its_cause() {
    let err = read_file("no/such/file.json".as_ref()).unwrap_err();
    assert!(matches!(err, ReadError::Io { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.starts_with("cannot read no/such/file.json: ") && text.contains("No such file"), "{text}");
    // The cause is in the text, so it is not the error's source too.
    assert!(std::error::Error::source(&err).is_none());
}

#[test]
fn a_file_past_the_size_limit_is_refused_by_name() {
    let path = std::env::temp_dir().join(format!("traces-limits-{}.json", std::process::id()));
    // Sparse: no disk is written.
    std::fs::File::create(&path).unwrap().set_len(MAX_FILE + 1).unwrap();
    let err = read_file(&path).unwrap_err();
    std::fs::remove_file(&path).unwrap();
    assert!(matches!(err, ReadError::TooLarge { size, .. } if size == MAX_FILE + 1), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("{}: {} bytes, more than {MAX_FILE} (the file-size limit)", path.display(), MAX_FILE + 1)
    );
}
