//! rbtree-availability-profile's partitioned profile (section III.B): one index per named partition, each a
//! contiguous range of ids, over any structure. A caller can query or allocate in one
//! partition, or borrow by querying several at once.

use crate::{check_count, check_set, AvailabilityIndex, Config, Error, Invalid, Kind, RangeSet, Time};

struct Partition {
    name: String,
    base: u32,
    size: u32,
    index: Box<dyn AvailabilityIndex>,
}

impl Partition {
    /// The part of global `set` inside this partition, as local ids.
    fn local(&self, set: &RangeSet) -> RangeSet {
        let mine = set.intersect(&RangeSet::from_range(self.base, self.base + self.size));
        RangeSet::from_ranges(mine.ranges().map(|(lo, hi)| (lo - self.base, hi - self.base)))
    }

    /// Local `set` as global ids.
    fn global(&self, set: &RangeSet) -> RangeSet {
        RangeSet::from_ranges(set.ranges().map(|(lo, hi)| (lo + self.base, hi + self.base)))
    }
}

/// Indexes of one kind, one per named partition; partition `i` holds the global ids
/// after those of partitions `0..i`.
pub struct Partitioned {
    parts: Vec<Partition>,
}

impl Partitioned {
    /// One index of `kind` per `(name, size)`, ids assigned in order.
    ///
    /// # Errors
    /// [`Error::BadConfig`] for no partition, a repeated name, a total above `u32`, or an
    /// invalid size or configuration.
    pub fn new(kind: Kind, config: Config, partitions: &[(&str, u32)]) -> Result<Self, Error> {
        let bad = |reason: String| Error::BadConfig { reason };
        if partitions.is_empty() {
            return Err(bad("a partitioned profile needs at least one partition".into()));
        }
        let mut parts: Vec<Partition> = Vec::new();
        let mut base = 0u32;
        for &(name, size) in partitions {
            if parts.iter().any(|p| p.name == name) {
                return Err(bad(format!("partition {name:?} is named twice")));
            }
            let index = kind.build(size, config)?;
            parts.push(Partition { name: name.to_owned(), base, size, index });
            base =
                base.checked_add(size).ok_or_else(|| bad("the partitions hold more than u32 ids".into()))?;
        }
        Ok(Self { parts })
    }

    /// The total number of resources.
    pub fn capacity(&self) -> u32 {
        self.parts.iter().map(|p| p.size).sum()
    }

    /// The global ids of the named partition.
    ///
    /// # Errors
    /// [`Error::BadConfig`] naming an unknown partition.
    pub fn ids(&self, name: &str) -> Result<RangeSet, Error> {
        let p = self.part(name)?;
        Ok(RangeSet::from_range(p.base, p.base + p.size))
    }

    fn part(&self, name: &str) -> Result<&Partition, Error> {
        self.parts
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| Error::BadConfig { reason: format!("no partition named {name:?}") })
    }

    /// `check` over the named partitions together: the global ids free throughout the
    /// window in any of them, if at least `n`. One name queries a partition; several
    /// borrow from the others.
    ///
    /// # Errors
    /// An unknown partition, a window error, or [`Error::BadCount`] against the named
    /// partitions' total size.
    pub fn check(&self, names: &[&str], start: Time, end: Time, n: u32) -> Result<Option<RangeSet>, Error> {
        let mut free = RangeSet::new();
        let mut size = 0;
        for name in names {
            let p = self.part(name)?;
            if let Some(local) = p.index.check(start, end, 1)? {
                free.union_with(&p.global(&local));
            }
            size += p.size;
        }
        check_count(n, size)?;
        Ok((free.count() >= u64::from(n)).then_some(free))
    }

    /// Allocates global `set`, which may span partitions: all or nothing.
    ///
    /// # Errors
    /// As [`AvailabilityIndex::allocate`] on one index of all ids: the busy ids of every
    /// partition are reported together, and nothing changes.
    pub fn allocate(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.update(start, end, set, true)
    }

    /// Releases global `set`, which may span partitions: all or nothing.
    ///
    /// # Errors
    /// As [`AvailabilityIndex::release`] on one index of all ids.
    pub fn release(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        self.update(start, end, set, false)
    }

    fn update(&mut self, start: Time, end: Time, set: &RangeSet, allocate: bool) -> Result<(), Error> {
        // Window errors come first on a single index; any partition reports them alike.
        self.parts[0].index.config().window(self.parts[0].index.now(), start, end)?;
        check_set(set, self.capacity())?;
        let mut done = Vec::new();
        let mut refused = RangeSet::new();
        let mut other = None;
        for (i, p) in self.parts.iter_mut().enumerate() {
            let local = p.local(set);
            if local.is_empty() {
                continue;
            }
            let result = if allocate {
                p.index.allocate(start, end, &local)
            } else {
                p.index.release(start, end, &local)
            };
            match result {
                Ok(()) => done.push((i, local)),
                Err(Error::NotFree { busy: ids, .. } | Error::NotAllocated { free: ids, .. }) => {
                    refused.union_with(&p.global(&ids));
                }
                Err(e) => other = other.or(Some(e)),
            }
        }
        let error = other.or_else(|| {
            (!refused.is_empty()).then_some(if allocate {
                Error::NotFree { start, end, busy: refused }
            } else {
                Error::NotAllocated { start, end, free: refused }
            })
        });
        let Some(error) = error else { return Ok(()) };
        for (i, local) in done {
            let index = &mut self.parts[i].index;
            let undone =
                if allocate { index.release(start, end, &local) } else { index.allocate(start, end, &local) };
            undone.expect("undoing an update that just succeeded cannot fail");
        }
        Err(error)
    }

    /// Forgets everything before `now` in every partition.
    ///
    /// # Errors
    /// [`Error::BeforePast`] if `now` is before the present.
    pub fn advance(&mut self, now: Time) -> Result<(), Error> {
        let first = &self.parts[0].index;
        first.config().advance(first.now(), now)?;
        self.parts.iter_mut().try_for_each(|p| p.index.advance(now))
    }

    /// Validates every partition's index.
    ///
    /// # Errors
    /// The first broken partition's [`Invalid`], its message prefixed with the
    /// partition's name.
    pub fn validate(&self) -> Result<(), Invalid> {
        self.parts
            .iter()
            .try_for_each(|p| p.index.validate().map_err(|e| e.within(format_args!("partition {}", p.name))))
    }
}
