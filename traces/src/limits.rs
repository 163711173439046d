//! Every bound on an input-driven quantity, in one place, so that no input can make a
//! command allocate or run without bound. Each error names its limit and, where a user
//! may reasonably need more, the flag that raises it.

use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

/// The most jobs a trace may hold (`--max-jobs`): the archive's largest logs hold a few
/// hundred thousand, and a million jobs fit in well under 100 MB.
pub const MAX_JOBS: usize = 1_000_000;

/// The most malformed lines `--lenient` keeps with their text (`--max-errors`); the
/// rest are only counted.
pub const MAX_ERRORS: usize = 100;

/// The most header (`;`) lines a trace may have: the archive's have a few dozen, and
/// each is kept for the run file.
pub const MAX_HEADER_LINES: usize = 1_000;

/// The longest trace or op-stream line, bytes; a longer one is an error.
pub const MAX_LINE: usize = 64 * 1024;

/// The most parts `--shard K/N` splits a sweep into: far more machines than a sweep has
/// runs to give them, and few enough that checking the parts are all there is cheap.
pub const MAX_SHARDS: u32 = 10_000;

/// The largest run or benchmark file read, bytes: a benchmark file of 200,000 results
/// is about 60 MB.
pub const MAX_FILE: u64 = 256 << 20;

/// Why [`read_file`] could not read a file; every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be read, or is not UTF-8. The message includes the cause, so
    /// it is not also the error's `source`.
    #[error("cannot read {}: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        cause: io::Error,
    },
    /// The file is larger than [`MAX_FILE`].
    #[error("{}: {size} bytes, more than {MAX_FILE} (the file-size limit)", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size, bytes.
        size: u64,
    },
}

/// Reads a whole (JSON) file of at most [`MAX_FILE`] bytes.
///
/// # Errors
/// [`ReadError::Io`] when it cannot be read or is not UTF-8, [`ReadError::TooLarge`] when
/// it is larger; the message names the file.
pub fn read_file(path: &Path) -> Result<String, ReadError> {
    let cannot = |cause: io::Error| ReadError::Io { path: path.to_owned(), cause };
    let size = std::fs::metadata(path).map_err(cannot)?.len();
    if size > MAX_FILE {
        return Err(ReadError::TooLarge { path: path.to_owned(), size });
    }
    std::fs::read_to_string(path).map_err(cannot)
}

/// The most characters of bad input an error message quotes.
pub const QUOTE: usize = 60;

/// What [`read_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// The end of the input.
    End,
    /// A line (without its terminator) is in the buffer.
    Text,
    /// The line was longer than the limit: the buffer holds its first bytes, and the
    /// rest has been skipped.
    TooLong,
}

/// Reads one line into `buf` (cleared first), ended by `\n`, `\r\n` or a lone `\r` (old
/// Mac files), holding at most `max` bytes of it in memory.
///
/// # Errors
/// An I/O error from `input`.
pub fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<Line> {
    line(input, buf, max, true)
}

/// As [`read_line`], but returns [`Line::TooLong`] as soon as the line passes `max`
/// bytes, leaving the rest unread: for readers that stop at such a line, so that an
/// endless line (`/dev/zero`) ends the read at once.
///
/// # Errors
/// An I/O error from `input`.
pub fn read_line_or_stop(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<Line> {
    line(input, buf, max, false)
}

fn line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize, skip: bool) -> io::Result<Line> {
    buf.clear();
    let mut any = false;
    let mut long = false;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(if !any {
                Line::End
            } else if long {
                Line::TooLong
            } else {
                Line::Text
            });
        }
        any = true;
        let end = memchr::memchr2(b'\n', b'\r', chunk);
        let part = &chunk[..end.unwrap_or(chunk.len())];
        let room = max.saturating_sub(buf.len());
        long |= part.len() > room;
        buf.extend_from_slice(&part[..part.len().min(room)]);
        if long && !skip {
            return Ok(Line::TooLong);
        }
        match end {
            None => {
                let used = chunk.len();
                input.consume(used);
            }
            Some(i) => {
                let cr = chunk[i] == b'\r';
                input.consume(i + 1);
                // A `\r\n` pair is one line end, not two.
                if cr && input.fill_buf()?.first() == Some(&b'\n') {
                    input.consume(1);
                }
                return Ok(if long { Line::TooLong } else { Line::Text });
            }
        }
    }
}

/// At most [`QUOTE`] characters of `text`, marked when cut, for error messages.
pub fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTE) {
        Some((cut, _)) => format!("{:?}...", &text[..cut]),
        None => format!("{text:?}"),
    }
}
