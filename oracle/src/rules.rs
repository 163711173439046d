//! The argument rules of the oracle: configuration checks, slot rounding, the horizon,
//! and the window, count and set checks, in the order the trait documents their errors.
//!
//! Written from the documentation of [`AvailabilityIndex`](structures::AvailabilityIndex)
//! and [`Config`], not shared with the structures: they all run one set of helpers, so a
//! bug there would give the same wrong answer on both sides of every differential test.
//! Only `Config`'s two fields are read here; the arithmetic is deliberately phrased
//! differently from theirs (division rather than remainders).

use structures::{Config, Error, RangeSet, Time};

/// Checks the capacity and configuration an index is built with.
///
/// # Errors
/// [`Error::BadConfig`] for a zero capacity, a zero slot, or a horizon that is zero or
/// not a multiple of the slot, reported in that order.
pub fn validate(capacity: u32, config: Config) -> Result<(), Error> {
    let reason = if capacity == 0 {
        "capacity must be at least 1"
    } else if config.slot == 0 {
        "slot width must be at least 1"
    } else if config.horizon.is_some_and(|h| h == 0 || h / config.slot * config.slot != h) {
        "horizon must be a positive multiple of the slot width"
    } else {
        return Ok(());
    };
    Err(Error::BadConfig { reason: reason.to_owned() })
}

/// `t` rounded down to a multiple of `slot`.
pub fn floor(slot: Time, t: Time) -> Time {
    t / slot * slot
}

/// `t` rounded up to a multiple of `slot`, `None` when that does not fit in a `u64`.
pub fn ceil(slot: Time, t: Time) -> Option<Time> {
    t.div_ceil(slot).checked_mul(slot)
}

/// The last window end accepted while the present is `now`: the slot boundary at or
/// before `now + horizon` (saturating), or the last boundary of `u64` time without a
/// horizon.
pub fn limit(config: Config, now: Time) -> Time {
    floor(config.slot, config.horizon.map_or(Time::MAX, |h| now.saturating_add(h)))
}

/// Checks a window `[start, end)` while the present is `now`, and widens it to slot
/// boundaries.
///
/// # Errors
/// [`Error::EmptyWindow`], then [`Error::BeforePast`], then [`Error::BeyondHorizon`]
/// when the widened end passes [`limit`].
pub fn window(config: Config, now: Time, start: Time, end: Time) -> Result<(Time, Time), Error> {
    if end <= start {
        return Err(Error::EmptyWindow { start, end });
    }
    if start < now {
        return Err(Error::BeforePast { time: start, now });
    }
    let limit = limit(config, now);
    match ceil(config.slot, end) {
        Some(widened) if widened <= limit => Ok((floor(config.slot, start), widened)),
        _ => Err(Error::BeyondHorizon { end, limit }),
    }
}

/// Checks the window `[ready, ready + duration)` of an earliest-start search.
///
/// # Errors
/// [`Error::EmptyWindow`] for a zero duration, then [`Error::Overflow`], then as
/// [`window`].
pub fn search(config: Config, now: Time, ready: Time, duration: Time) -> Result<(), Error> {
    if duration == 0 {
        return Err(Error::EmptyWindow { start: ready, end: ready });
    }
    let end = ready.checked_add(duration).ok_or(Error::Overflow { start: ready, duration })?;
    window(config, now, ready, end).map(drop)
}

/// Checks a resource count.
///
/// # Errors
/// [`Error::BadCount`] unless `1 <= n <= capacity`.
pub fn count(n: u32, capacity: u32) -> Result<(), Error> {
    if (1..=capacity).contains(&n) {
        Ok(())
    } else {
        Err(Error::BadCount { n, capacity })
    }
}

/// Checks the set of an allocation or release.
///
/// # Errors
/// [`Error::EmptySet`], or [`Error::IdOutOfRange`] naming the lowest id at or above
/// `capacity`.
pub fn set(set: &RangeSet, capacity: u32) -> Result<(), Error> {
    if set.is_empty() {
        return Err(Error::EmptySet);
    }
    // The first range reaching past the capacity holds the lowest offending id.
    match set.ranges().find(|&(_, hi)| hi > capacity) {
        Some((lo, _)) => Err(Error::IdOutOfRange { id: lo.max(capacity), capacity }),
        None => Ok(()),
    }
}

/// The present after a move from `now` to `to`: `to` rounded down to a slot boundary.
///
/// # Errors
/// [`Error::BeforePast`] if `to` is before `now`.
pub fn advance(config: Config, now: Time, to: Time) -> Result<Time, Error> {
    if to < now {
        return Err(Error::BeforePast { time: to, now });
    }
    Ok(floor(config.slot, to))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SLOTTED: Config = Config { slot: 5, horizon: Some(20) };
    const CONTINUOUS: Config = Config { slot: 1, horizon: None };

    #[test]
    fn rounding_and_limits() {
        assert_eq!((floor(5, 14), floor(5, 15)), (10, 15));
        assert_eq!((ceil(5, 11), ceil(5, 15), ceil(5, 0)), (Some(15), Some(15), Some(0)));
        assert_eq!((ceil(2, Time::MAX), ceil(5, Time::MAX)), (None, Some(Time::MAX)));
        assert_eq!(limit(SLOTTED, 10), 30);
        assert_eq!(limit(SLOTTED, Time::MAX - 3), floor(5, Time::MAX));
        assert_eq!(limit(CONTINUOUS, 7), Time::MAX);
    }

    #[test]
    fn window_errors_come_in_order() {
        assert_eq!(window(SLOTTED, 10, 12, 13), Ok((10, 15)));
        assert_eq!(window(SLOTTED, 10, 12, 30), Ok((10, 30)));
        assert_eq!(window(SLOTTED, 10, 12, 31), Err(Error::BeyondHorizon { end: 31, limit: 30 }));
        assert_eq!(window(SLOTTED, 10, 9, 31), Err(Error::BeforePast { time: 9, now: 10 }));
        assert_eq!(window(SLOTTED, 10, 9, 9), Err(Error::EmptyWindow { start: 9, end: 9 }));
        assert_eq!(
            window(CONTINUOUS, 0, 1, Time::MAX),
            Ok((1, Time::MAX)),
            "without a horizon all of u64 time is reachable"
        );
    }

    #[test]
    fn search_errors_come_in_order() {
        assert_eq!(
            search(SLOTTED, 10, Time::MAX, 0),
            Err(Error::EmptyWindow { start: Time::MAX, end: Time::MAX })
        );
        assert_eq!(search(SLOTTED, 10, 1, Time::MAX), Err(Error::Overflow { start: 1, duration: Time::MAX }));
        assert_eq!(search(SLOTTED, 10, 5, 1), Err(Error::BeforePast { time: 5, now: 10 }));
        assert_eq!(search(SLOTTED, 10, 11, 3), Ok(()));
    }

    #[test]
    fn counts_and_sets() {
        assert_eq!(count(0, 3), Err(Error::BadCount { n: 0, capacity: 3 }));
        assert_eq!(count(4, 3), Err(Error::BadCount { n: 4, capacity: 3 }));
        assert_eq!(count(3, 3), Ok(()));
        assert_eq!(set(&RangeSet::new(), 3), Err(Error::EmptySet));
        assert_eq!(
            set(&RangeSet::from_ranges([(0, 1), (5, 9)]), 3),
            Err(Error::IdOutOfRange { id: 5, capacity: 3 })
        );
        assert_eq!(set(&RangeSet::from_range(1, 9), 3), Err(Error::IdOutOfRange { id: 3, capacity: 3 }));
        assert_eq!(set(&RangeSet::from_range(0, 3), 3), Ok(()));
    }

    #[test]
    fn configurations() {
        assert!(validate(1, SLOTTED).is_ok() && validate(1, CONTINUOUS).is_ok());
        let reason = |capacity, slot, horizon| match validate(capacity, Config { slot, horizon }) {
            Err(Error::BadConfig { reason }) => reason,
            other => panic!("{other:?}"),
        };
        assert_eq!(reason(0, 0, Some(0)), "capacity must be at least 1");
        assert_eq!(reason(1, 0, Some(0)), "slot width must be at least 1");
        assert_eq!(reason(1, 5, Some(0)), "horizon must be a positive multiple of the slot width");
        assert_eq!(reason(1, 5, Some(12)), "horizon must be a positive multiple of the slot width");
    }

    #[test]
    fn advancing_rounds_down() {
        assert_eq!(advance(SLOTTED, 10, 14), Ok(10));
        assert_eq!(advance(SLOTTED, 10, 9), Err(Error::BeforePast { time: 9, now: 10 }));
    }
}
