//! Gzip traces inflated on a thread of their own (`src/inflate.rs`), read through the SWF
//! reader: the same jobs as the plain text, across blocks and members, with errors where
//! the input has them, and an early stop that does not wait for the rest (it would hang).

use std::io::Write;

use flate2::write::GzEncoder;
use flate2::Compression;
use traces::swf::{self, ReadLimits, SwfError};

/// `jobs` job lines, each a different width, so that lines straddle the blocks.
fn text(jobs: usize) -> String {
    let mut text = String::from("; MaxProcs: 16\n");
    for id in 1..=jobs {
        let pad = " ".repeat(id % 7);
        text.push_str(&format!("{id} {pad}{} 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n", 10 * id));
    }
    text
}

fn gzip(text: &str) -> Vec<u8> {
    let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    gz.finish().unwrap()
}

#[test]
fn a_trace_of_many_blocks_and_members_reads_as_its_text() {
    // About 1.2 MB of text: many more blocks than are inflated ahead.
    let (first, second) = (text(15_000), text(5_000).replace("; MaxProcs: 16\n", ""));
    let mut zipped = gzip(&first);
    zipped.extend(gzip(&second));
    let plain = swf::read_bytes(format!("{first}{second}").as_bytes(), "t.swf", false).unwrap();
    let read = swf::read_bytes(&zipped, "t.swf.gz", false).unwrap();
    assert_eq!(read.jobs.len(), 20_000);
    assert_eq!((read.jobs, read.header), (plain.jobs, plain.header));
}

#[test]
fn a_cut_or_corrupt_stream_is_an_error_naming_the_trace() {
    let zipped = gzip(&text(15_000));
    let cut = &zipped[..zipped.len() / 2];
    let err = swf::read_bytes(cut, "t.swf.gz", false).unwrap_err();
    assert!(matches!(err, SwfError::Io { ref file, .. } if file == "t.swf.gz"), "{err:?}");
    let mut corrupt = zipped.clone();
    corrupt[zipped.len() / 2..zipped.len() / 2 + 64].fill(0xa5);
    assert!(swf::read_bytes(&corrupt, "t.swf.gz", true).is_err());
}

#[test]
fn an_early_stop_or_a_bad_line_returns_without_waiting_for_the_rest() {
    let zipped = gzip(&text(15_000));
    let limits = ReadLimits { stop_after: Some(10), ..ReadLimits::new(false) };
    let read = swf::read_with(zipped.as_slice(), "t.swf.gz", limits).unwrap();
    assert_eq!(read.jobs.len(), 10);
    // A bad line stops a strict read the same way.
    let bad = gzip(&text(15_000).replacen("4 200", "4 x", 1));
    let err = swf::read_bytes(&bad, "t.swf.gz", false).unwrap_err();
    assert_eq!(err.to_string(), "t.swf.gz:2: field 9 (requested time) is not a number: \"x\"");
}
