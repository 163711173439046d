//! Selecting a calendar period of a trace (`--since`/`--until`), as rbtree-availability-profile replays one
//! year (2002) of SDSC Blue Horizon: dates are read in the log's local time when its
//! header gives `TimeZone`, else in UTC, against its `UnixStartTime`.

use crate::swf::Trace;

/// Why a period could not be selected; every message names the date, the flags or the
/// trace at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PeriodError {
    /// A date not of the form `YYYY-MM-DD`, or not a real day.
    #[error("{text:?} is not a date of the form YYYY-MM-DD")]
    BadDate {
        /// The date as given.
        text: String,
    },
    /// The trace's header has no `UnixStartTime`, so no date can be placed in it.
    #[error("{trace}: no UnixStartTime in the header, so dates cannot be placed")]
    NoStartTime {
        /// The trace's name.
        trace: String,
    },
    /// The header's start and time zone put a date out of the range of submit times.
    #[error("{trace}: the header's UnixStartTime {start} and TimeZone {zone} put {date} out of range")]
    OutOfRange {
        /// The trace's name.
        trace: String,
        /// The header's `UnixStartTime`.
        start: u64,
        /// The header's `TimeZone` (0 when absent).
        zone: i64,
        /// The date as given.
        date: String,
    },
    /// `--since` is not before `--until`.
    #[error("--since {since:?} is not before --until {until:?}")]
    Empty {
        /// The `--since` date.
        since: Option<String>,
        /// The `--until` date.
        until: Option<String>,
    },
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (Hinnant's inverse algorithm).
pub fn format_utc(seconds: u64) -> String {
    let (days, rest) = ((seconds / 86_400) as i64, seconds % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3_600, rest / 60 % 60, rest % 60)
}

/// Parses `YYYY-MM-DD` into days since the epoch.
///
/// # Errors
/// [`PeriodError::BadDate`] naming the date when it is not of that form or not a real
/// day.
pub fn parse_date(text: &str) -> Result<i64, PeriodError> {
    let bad = || PeriodError::BadDate { text: text.to_owned() };
    let parts: Vec<&str> = text.split('-').collect();
    let [y, m, d] = parts[..] else { return Err(bad()) };
    let (y, m, d): (i64, i64, i64) =
        (y.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?, d.parse().map_err(|_| bad())?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    // Four-digit years only: the archive's logs are all from the 1990s on.
    if (1000..=9999).contains(&y) && (1..=12).contains(&m) && d >= 1 && d <= month_days[(m - 1) as usize] {
        Ok(days_from_civil(y, m, d))
    } else {
        Err(bad())
    }
}

/// Keeps the jobs submitted in `[since, until)` (local dates, either end open), and
/// returns how the selection reads in reports.
///
/// # Errors
/// [`PeriodError::BadDate`], [`PeriodError::Empty`] for a period that ends before it
/// starts, [`PeriodError::NoStartTime`] for a trace without `UnixStartTime`, or
/// [`PeriodError::OutOfRange`] for a date the header puts out of range.
pub fn select(
    trace: &mut Trace,
    since: Option<&str>,
    until: Option<&str>,
) -> Result<Option<String>, PeriodError> {
    if since.is_none() && until.is_none() {
        return Ok(None);
    }
    let start =
        trace.header.unix_start.ok_or_else(|| PeriodError::NoStartTime { trace: trace.name.clone() })?;
    let zone = trace.header.time_zone.unwrap_or(0);
    // The submit time (seconds from the log's start) at local midnight of a date.
    // Checked: the header's values are input, and must not wrap into a wrong period.
    let offset = |date: &str| -> Result<i64, PeriodError> {
        let overflow =
            || PeriodError::OutOfRange { trace: trace.name.clone(), start, zone, date: date.to_owned() };
        let start = i64::try_from(start).map_err(|_| overflow())?;
        parse_date(date)?
            .checked_mul(86_400)
            .and_then(|t| t.checked_sub(zone))
            .and_then(|t| t.checked_sub(start))
            .ok_or_else(overflow)
    };
    let from = since.map(offset).transpose()?.unwrap_or(i64::MIN);
    let to = until.map(offset).transpose()?.unwrap_or(i64::MAX);
    if from >= to {
        return Err(PeriodError::Empty { since: since.map(str::to_owned), until: until.map(str::to_owned) });
    }
    trace.jobs.retain(|job| (from..to).contains(&job.submit));
    let zone_name = if trace.header.time_zone.is_some() { "the log's local time" } else { "UTC" };
    Ok(Some(format!(
        "jobs submitted from {} to {} ({zone_name})",
        since.unwrap_or("the start"),
        until.map_or("the end".to_owned(), |u| format!("before {u}"))
    )))
}
