//! A reader for the Standard Workload Format of the Parallel Workloads Archive: `;`
//! header lines, then one job per line with 18 whitespace-separated numeric fields,
//! `-1` for unknown. Plain and gzip input are both accepted (told apart by content).

use std::fs::File;
use std::io::{BufRead, BufReader, Read};

use std::path::Path;

use flate2::read::MultiGzDecoder;

/// The 18 SWF fields, in order, as the archive names them.
pub const FIELDS: [&str; 18] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average cpu time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable",
    "queue",
    "partition",
    "preceding job",
    "think time",
];

/// The longest line read; a longer one is an error, so no input can make the reader
/// allocate without bound.
pub const MAX_LINE: usize = 64 * 1024;

/// Why a trace could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SwfError {
    /// The file could not be opened or read.
    #[error("{file}: {source}")]
    Io {
        /// The trace's name.
        file: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A line that is not a valid SWF line.
    #[error("{file}:{line}: {reason}")]
    Malformed {
        /// The trace's name.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong, naming the field where there is one.
        reason: String,
    },
}

/// The header fields a replay needs, and every header line as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// `MaxProcs`, if given.
    pub max_procs: Option<u64>,
    /// `MaxNodes`, if given.
    pub max_nodes: Option<u64>,
    /// `UnixStartTime`: the epoch second that submit time 0 stands for, if given.
    pub unix_start: Option<u64>,
    /// `TimeZone`: seconds to add to UTC for the log's local time, if given.
    pub time_zone: Option<i64>,
    /// The header lines, without the leading `;`.
    pub lines: Vec<String>,
}

/// One job line; `-1` (or any negative value) means unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Job {
    /// Field 1.
    pub id: i64,
    /// Field 2, seconds from the log's start.
    pub submit: i64,
    /// Field 4, seconds.
    pub run_time: i64,
    /// Field 5.
    pub allocated: i64,
    /// Field 8.
    pub requested_procs: i64,
    /// Field 9, seconds.
    pub requested_time: i64,
    /// Field 11: 1 completed, 0 failed, 5 cancelled, ...
    pub status: i64,
    /// The line it came from, 1-based.
    pub line: usize,
}

/// A whole trace.
#[derive(Debug, Default)]
pub struct Trace {
    /// The name errors and reports use (the file name).
    pub name: String,
    /// The header.
    pub header: Header,
    /// The jobs, in file order.
    pub jobs: Vec<Job>,
    /// Malformed lines passed over when reading leniently (empty otherwise).
    pub skipped: Vec<SwfError>,
}

/// Reads a trace file, plain or gzip.
///
/// # Errors
/// [`SwfError::Io`] if it cannot be read; [`SwfError::Malformed`] for the first bad
/// line unless `lenient`, which skips and keeps bad lines in [`Trace::skipped`].
pub fn read_path(path: &Path, lenient: bool) -> Result<Trace, SwfError> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|source| SwfError::Io { file: name.clone(), source })?;
    read(BufReader::new(file), &name, lenient)
}

/// Reads a trace from a stream, plain or gzip.
///
/// # Errors
/// As [`read_path`].
pub fn read(mut input: impl BufRead, name: &str, lenient: bool) -> Result<Trace, SwfError> {
    let io = |source| SwfError::Io { file: name.to_owned(), source };
    let gzip = input.fill_buf().map_err(io)?.starts_with(&[0x1f, 0x8b]);
    if gzip {
        parse(BufReader::new(MultiGzDecoder::new(input)), name, lenient)
    } else {
        parse(input, name, lenient)
    }
}

fn parse(mut input: impl BufRead, name: &str, lenient: bool) -> Result<Trace, SwfError> {
    let mut trace = Trace { name: name.to_owned(), ..Trace::default() };
    let mut buf = Vec::new();
    for number in 1.. {
        buf.clear();
        let read = input
            .by_ref()
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|source| SwfError::Io { file: name.to_owned(), source })?;
        if read == 0 {
            break;
        }
        let malformed = |reason: String| SwfError::Malformed { file: name.to_owned(), line: number, reason };
        let result = if buf.len() > MAX_LINE {
            Err(malformed(format!("line longer than {MAX_LINE} bytes")))
        } else {
            match std::str::from_utf8(&buf) {
                Err(_) => Err(malformed("not UTF-8 text".into())),
                Ok(text) => {
                    parse_line(text.trim(), number, &mut trace.header, &mut trace.jobs).map_err(malformed)
                }
            }
        };
        match result {
            Ok(()) => {}
            Err(e) if lenient => trace.skipped.push(e),
            Err(e) => return Err(e),
        }
        if buf.len() > MAX_LINE {
            // Skip the rest of the overlong line.
            input
                .by_ref()
                .skip_until(b'\n')
                .map_err(|source| SwfError::Io { file: name.to_owned(), source })?;
        }
    }
    Ok(trace)
}

fn parse_line(text: &str, line: usize, header: &mut Header, jobs: &mut Vec<Job>) -> Result<(), String> {
    if text.is_empty() {
        return Ok(());
    }
    if let Some(comment) = text.strip_prefix(';') {
        let comment = comment.trim();
        if let Some((key, value)) = comment.split_once(':') {
            let value = value.trim();
            match key.trim() {
                "MaxProcs" => header.max_procs = value.parse().ok(),
                "MaxNodes" => header.max_nodes = value.parse().ok(),
                "UnixStartTime" => header.unix_start = value.parse().ok(),
                "TimeZone" => header.time_zone = value.parse().ok(),
                _ => {}
            }
        }
        header.lines.push(comment.to_owned());
        return Ok(());
    }
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() != FIELDS.len() {
        return Err(format!("expected {} fields, found {}", FIELDS.len(), fields.len()));
    }
    let mut values = [0i64; 18];
    for (i, raw) in fields.iter().enumerate() {
        values[i] =
            number(raw).ok_or_else(|| format!("field {} ({}) is not a number: {raw:?}", i + 1, FIELDS[i]))?;
    }
    jobs.push(Job {
        id: values[0],
        submit: values[1],
        run_time: values[3],
        allocated: values[4],
        requested_procs: values[7],
        requested_time: values[8],
        status: values[10],
        line,
    });
    Ok(())
}

/// An integer, or a decimal (some logs write averages with a fraction) truncated.
fn number(raw: &str) -> Option<i64> {
    raw.parse::<i64>().ok().or_else(|| {
        let x = raw.parse::<f64>().ok().filter(|x| x.is_finite() && x.abs() < 9.0e18)?;
        Some(x.trunc() as i64)
    })
}

/// Reads a trace held in memory (the bundled trace, a fuzz input).
///
/// # Errors
/// As [`read_path`].
pub fn read_bytes(bytes: &[u8], name: &str, lenient: bool) -> Result<Trace, SwfError> {
    read(bytes, name, lenient)
}

/// The body of the `swf_reader` fuzz target: strict and lenient reading of any bytes
/// must return (a value or an error) and agree with each other.
///
/// # Panics
/// If they disagree: strict reading succeeded but lenient reading skipped a line or
/// read other jobs, or strict reading failed on a line that lenient reading kept.
pub fn fuzz(data: &[u8]) {
    let strict = read_bytes(data, "fuzz", false);
    let lenient = read_bytes(data, "fuzz", true);
    match (&strict, &lenient) {
        (Ok(s), Ok(l)) => assert!(l.skipped.is_empty() && s.jobs == l.jobs, "lenient read differs"),
        (Err(SwfError::Malformed { line, .. }), Ok(l)) => {
            assert!(
                matches!(l.skipped.first(), Some(SwfError::Malformed { line: first, .. }) if first == line)
            );
        }
        _ => {}
    }
}
