//! The bounded line reader (`src/limits.rs`) every line-based input goes through.

use traces::limits::{quote, read_line, read_line_or_stop, Line};

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
