//! A reader for the Standard Workload Format of the Parallel Workloads Archive: `;`
//! header lines, then one job per line with 18 whitespace-separated numeric fields,
//! `-1` for unknown. Plain and gzip input are both accepted (told apart by content).

use std::fs::File;
use std::io::{BufRead, BufReader};

use std::collections::HashMap;
use std::path::Path;

use crate::inflate;
use crate::limits::{self, Line};

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
pub const MAX_LINE: usize = limits::MAX_LINE;

/// How much a read may hold: the bounds that keep any input's memory use bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    /// Skip and count malformed lines instead of stopping at the first.
    pub lenient: bool,
    /// The most jobs read; one more is an error ([`limits::MAX_JOBS`] by default).
    pub max_jobs: usize,
    /// The most malformed lines kept with their text when lenient; the rest are counted.
    pub max_errors: usize,
    /// Stop reading (without error) once this many jobs are read: `--limit`.
    pub stop_after: Option<usize>,
}

impl ReadLimits {
    /// The default limits, strict or lenient.
    pub fn new(lenient: bool) -> Self {
        Self { lenient, max_jobs: limits::MAX_JOBS, max_errors: limits::MAX_ERRORS, stop_after: None }
    }
}

/// Why a trace could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SwfError {
    /// The file could not be opened or read. The message leaves the cause to the error
    /// chain (`source`), so that it is printed once.
    #[error("{file}")]
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
        reason: LineError,
    },
    /// More jobs than [`ReadLimits::max_jobs`].
    #[error("{file}:{line}: more than {limit} jobs (the job limit; raise it with --max-jobs, or read fewer with --limit)")]
    TooManyJobs {
        /// The trace's name.
        file: String,
        /// 1-based line number of the first job over the limit.
        line: usize,
        /// The limit.
        limit: usize,
    },
    /// Two jobs with the same job number.
    #[error("{file}:{line}: job number {id} was already used on line {first} (pass --renumber to renumber repeated job numbers)")]
    DuplicateId {
        /// The trace's name.
        file: String,
        /// The repeated job number.
        id: i64,
        /// The line that used it first.
        first: usize,
        /// The line that repeats it.
        line: usize,
    },
}

/// What is wrong with a malformed line ([`SwfError::Malformed`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// Longer than [`MAX_LINE`].
    #[error("line longer than {MAX_LINE} bytes (the line limit)")]
    TooLong,
    /// Not UTF-8.
    #[error("not UTF-8 text")]
    NotUtf8,
    /// One header line more than [`limits::MAX_HEADER_LINES`].
    #[error("more than {} header lines (the header limit)", limits::MAX_HEADER_LINES)]
    TooManyHeaderLines,
    /// A job line without exactly the 18 [`FIELDS`].
    #[error("expected {} fields, found {found}", FIELDS.len())]
    FieldCount {
        /// The number of fields on the line.
        found: usize,
    },
    /// A field that is not a number.
    #[error("field {field} ({name}) is not a number: {quoted}")]
    NotANumber {
        /// The field's 1-based number.
        field: usize,
        /// Its name in [`FIELDS`].
        name: &'static str,
        /// Its text, quoted and cut ([`limits::quote`]).
        quoted: String,
    },
    /// A repeated job number to renumber, with every number past the largest taken.
    #[error("no job number is left to renumber this job with")]
    NoNumberLeft,
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
    /// Field 3, seconds: how long the job waited on the logged machine (-1 unknown).
    pub wait: i64,
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
    /// The first malformed lines passed over when reading leniently (at most
    /// [`ReadLimits::max_errors`]; empty otherwise).
    pub skipped: Vec<SwfError>,
    /// Every malformed line passed over, including those not kept in `skipped`.
    pub skipped_count: usize,
}

/// Reads a trace file, plain or gzip.
///
/// # Errors
/// [`SwfError::Io`] if it cannot be read; [`SwfError::Malformed`] for the first bad
/// line unless `lenient`, which skips and keeps bad lines in [`Trace::skipped`].
pub fn read_path(path: &Path, lenient: bool) -> Result<Trace, SwfError> {
    read_path_with(path, ReadLimits::new(lenient))
}

/// Reads a trace file, plain or gzip, within `limits`.
///
/// # Errors
/// As [`read_path`], and [`SwfError::TooManyJobs`] past the job limit.
pub fn read_path_with(path: &Path, limits: ReadLimits) -> Result<Trace, SwfError> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|source| SwfError::Io { file: name.clone(), source })?;
    read_with(BufReader::new(file), &name, limits)
}

/// Reads a trace from a stream, plain or gzip.
///
/// # Errors
/// As [`read_path`].
pub fn read(input: impl BufRead + Send, name: &str, lenient: bool) -> Result<Trace, SwfError> {
    read_with(input, name, ReadLimits::new(lenient))
}

/// Reads a trace from a stream, plain or gzip, within `limits`; gzip input is inflated on
/// a thread of its own.
///
/// # Errors
/// As [`read_path_with`].
pub fn read_with(mut input: impl BufRead + Send, name: &str, limits: ReadLimits) -> Result<Trace, SwfError> {
    let io = |source| SwfError::Io { file: name.to_owned(), source };
    let gzip = input.fill_buf().map_err(io)?.starts_with(&[0x1f, 0x8b]);
    if gzip {
        inflate::inflated(input, |blocks| parse(blocks, name, limits))
    } else {
        parse(input, name, limits)
    }
}

fn parse(mut input: impl BufRead, name: &str, limits: ReadLimits) -> Result<Trace, SwfError> {
    let mut trace = Trace { name: name.to_owned(), ..Trace::default() };
    let mut buf = Vec::new();
    for number in 1.. {
        if limits.stop_after.is_some_and(|n| trace.jobs.len() >= n) {
            break;
        }
        // Strict reading stops at an overlong line; lenient reading skips it.
        let line = if limits.lenient {
            limits::read_line(&mut input, &mut buf, MAX_LINE)
        } else {
            limits::read_line_or_stop(&mut input, &mut buf, MAX_LINE)
        }
        .map_err(|source| SwfError::Io { file: name.to_owned(), source })?;
        let malformed =
            |reason: LineError| SwfError::Malformed { file: name.to_owned(), line: number, reason };
        let result = match line {
            Line::End => break,
            Line::TooLong => Err(malformed(LineError::TooLong)),
            Line::Text => match std::str::from_utf8(&buf) {
                Err(_) => Err(malformed(LineError::NotUtf8)),
                Ok(text) => {
                    let jobs = trace.jobs.len();
                    let result = parse_line(text.trim(), number, &mut trace.header, &mut trace.jobs);
                    if trace.jobs.len() > jobs && jobs >= limits.max_jobs {
                        return Err(SwfError::TooManyJobs {
                            file: name.to_owned(),
                            line: number,
                            limit: limits.max_jobs,
                        });
                    }
                    result.map_err(malformed)
                }
            },
        };
        match result {
            Ok(()) => {}
            Err(e) if limits.lenient => {
                // Only the first errors keep their text: the rest are counted, so a file
                // of bad lines cannot fill memory.
                trace.skipped_count += 1;
                if trace.skipped.len() < limits.max_errors {
                    trace.skipped.push(e);
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(trace)
}

/// Makes job numbers unique: refuses the first repeated one, or with `renumber` gives
/// each repeat a new number past the largest, and returns how many it renumbered.
///
/// # Errors
/// [`SwfError::DuplicateId`] naming both lines, unless `renumber`.
pub fn check_ids(trace: &mut Trace, renumber: bool) -> Result<usize, SwfError> {
    // Archive logs number their jobs in increasing order, and then none repeats: no map.
    if trace.jobs.windows(2).all(|pair| pair[0].id < pair[1].id) {
        return Ok(0);
    }
    let mut seen: HashMap<i64, usize> = HashMap::with_capacity(trace.jobs.len());
    let mut next = trace.jobs.iter().map(|j| j.id).max().unwrap_or(0);
    let mut renumbered = 0;
    for job in &mut trace.jobs {
        if let Some(&first) = seen.get(&job.id) {
            if !renumber {
                return Err(SwfError::DuplicateId {
                    file: trace.name.clone(),
                    id: job.id,
                    first,
                    line: job.line,
                });
            }
            next = next.checked_add(1).ok_or_else(|| SwfError::Malformed {
                file: trace.name.clone(),
                line: job.line,
                reason: LineError::NoNumberLeft,
            })?;
            job.id = next;
            renumbered += 1;
        }
        seen.insert(job.id, job.line);
    }
    Ok(renumbered)
}

fn parse_line(text: &str, line: usize, header: &mut Header, jobs: &mut Vec<Job>) -> Result<(), LineError> {
    if text.is_empty() {
        return Ok(());
    }
    if let Some(comment) = text.strip_prefix(';') {
        // Header lines are all kept, so they are bounded too.
        if header.lines.len() >= limits::MAX_HEADER_LINES {
            return Err(LineError::TooManyHeaderLines);
        }
        let comment = comment.trim();
        if let Some((key, value)) = comment.split_once(':') {
            let value = value.trim();
            match key.trim() {
                // A value that does not parse leaves the field unset (a later valid line
                // still counts); the capacity falls back field by field.
                "MaxProcs" => header.max_procs = value.parse().ok().or(header.max_procs),
                "MaxNodes" => header.max_nodes = value.parse().ok().or(header.max_nodes),
                "UnixStartTime" => header.unix_start = value.parse().ok().or(header.unix_start),
                "TimeZone" => header.time_zone = value.parse().ok().or(header.time_zone),
                _ => {}
            }
        }
        header.lines.push(comment.to_owned());
        return Ok(());
    }
    if let Some(values) = plain_fields(text.as_bytes()) {
        jobs.push(job(&values, line));
        return Ok(());
    }
    // The fields into a fixed array, counting any beyond it: no allocation per line.
    let mut fields = [""; FIELDS.len()];
    let mut found = 0;
    let mut put = |raw| {
        if let Some(field) = fields.get_mut(found) {
            *field = raw;
        }
        found += 1;
    };
    if text.is_ascii() {
        // The same split as `split_whitespace` on ASCII (which, unlike
        // `split_ascii_whitespace`, splits at a vertical tab), without decoding chars.
        let space = |b: u8| b.is_ascii_whitespace() || b == 0x0b;
        let bytes = text.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let start = at + bytes[at..].iter().take_while(|&&b| space(b)).count();
            at = start + bytes[start..].iter().take_while(|&&b| !space(b)).count();
            if at > start {
                put(&text[start..at]);
            }
        }
    } else {
        text.split_whitespace().for_each(&mut put);
    }
    if found != FIELDS.len() {
        return Err(LineError::FieldCount { found });
    }
    let mut values = [0i64; FIELDS.len()];
    for (i, raw) in fields.iter().enumerate() {
        values[i] = number(raw).ok_or_else(|| LineError::NotANumber {
            field: i + 1,
            name: FIELDS[i],
            quoted: limits::quote(raw),
        })?;
    }
    jobs.push(job(&values, line));
    Ok(())
}

/// The most digits of a field [`plain_fields`] reads as an integer: every such number fits
/// an i64.
const PLAIN_DIGITS: usize = 18;

/// The most digits before and after the point of a decimal [`plain_fields`] reads: an
/// integer part below 2^30 leaves doubles 2^-22 apart, closer than six places of
/// fraction come to the next integer, so [`number`]'s truncation is the integer part.
const PLAIN_DECIMAL: (usize, usize) = (9, 6);

/// The fields of a job line that holds only plain numbers, read in one pass over its
/// bytes: each an optional `-` and at most [`PLAIN_DIGITS`] digits, or at most
/// [`PLAIN_DECIMAL`] digits on either side of a point (read as [`number`] reads them,
/// truncated), apart by spaces and tabs. `None` for any other line, which the general
/// split and [`number`] read, and where any error is found. Splitting first and parsing
/// each field took twice the instructions (`docs/benchmarks.md`).
fn plain_fields(bytes: &[u8]) -> Option<[i64; FIELDS.len()]> {
    let space = |at: usize| bytes.get(at).is_some_and(|&b| b == b' ' || b == b'\t');
    // The digits from `at` on, at most `most` of them: their value and where they end.
    let digits = |mut at: usize, most: usize| {
        let (start, mut value) = (at, 0i64);
        while let Some(digit) = bytes.get(at).and_then(|b| b.checked_sub(b'0')).filter(|&d| d < 10) {
            if at - start == most {
                return None;
            }
            value = value * 10 + i64::from(digit);
            at += 1;
        }
        (at > start).then_some((value, at))
    };
    let mut values = [0i64; FIELDS.len()];
    let mut found = 0;
    let mut at = 0;
    loop {
        while space(at) {
            at += 1;
        }
        let Some(&first) = bytes.get(at) else { break };
        let negative = first == b'-';
        let start = at + usize::from(negative);
        let (mut value, end) = digits(start, PLAIN_DIGITS)?;
        at = end;
        if bytes.get(at) == Some(&b'.') {
            let (whole, fraction) = PLAIN_DECIMAL;
            if end - start > whole {
                return None;
            }
            (_, at) = digits(at + 1, fraction)?;
        }
        if !(at == bytes.len() || space(at)) {
            return None;
        }
        if negative {
            value = -value;
        }
        *values.get_mut(found)? = value;
        found += 1;
    }
    (found == FIELDS.len()).then_some(values)
}

/// The job of a line whose [`FIELDS`] read as `values`.
fn job(values: &[i64; FIELDS.len()], line: usize) -> Job {
    Job {
        id: values[0],
        submit: values[1],
        wait: values[2],
        run_time: values[3],
        allocated: values[4],
        requested_procs: values[7],
        requested_time: values[8],
        status: values[10],
        line,
    }
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
