//! The one implementation of [`AvailabilityIndex`]: [`Shell`] over a structure's
//! [`Engine`]. The shell checks and quantises every argument, refuses before anything
//! changes, keeps the cost of the last query, rebuilds for `load_frames` and moves the
//! present; the engine holds only what differs between structures.

mod engine;
#[cfg(feature = "planted")]
pub mod planted;

use std::cell::{Cell, RefCell};

pub(crate) use engine::changes;
pub use engine::{Engine, Step};

use crate::{
    check_count, check_set, sweep, AvailabilityIndex, Config, Cost, Error, Invalid, RangeSet, Time,
    TimeFrame, COUNTING,
};

/// What every engine call is relative to: the capacity, the configuration, the present
/// and the last window end it allows.
#[derive(Debug, Clone)]
pub struct Basis {
    /// The number of resources; ids are `0..capacity`.
    pub capacity: u32,
    /// Slot width and horizon.
    pub config: Config,
    /// The present, a slot boundary.
    pub now: Time,
    /// The last window end representable from `now` ([`Config::limit`]).
    pub limit: Time,
    /// Every id: `0..capacity`.
    pub full: RangeSet,
}

impl Basis {
    fn new(capacity: u32, config: Config, now: Time) -> Self {
        Self { capacity, config, now, limit: config.limit(now), full: RangeSet::full(capacity) }
    }

    /// For an earliest-start candidate `start` of a window of `duration`: its end, and
    /// that end rounded up to a slot, if the window ends within the horizon.
    pub fn candidate(&self, start: Time, duration: Time) -> Option<(Time, Time)> {
        let end = start.checked_add(duration)?;
        let e = self.config.ceil(end).filter(|&e| e <= self.limit)?;
        Some((end, e))
    }

    /// The slot holding `t`, counted from the present.
    pub fn slot_index(&self, t: Time) -> usize {
        // Callers keep `t` within the horizon, which holds at most `MAX_SLOTS` slots.
        ((t - self.now) / self.config.slot) as usize
    }

    /// The start of slot `i`, counted from the present; `Time::MAX` for the slots a
    /// horizon reaching past the end of `u64` time holds beyond it (no window reaches
    /// them).
    pub fn slot_start(&self, i: usize) -> Time {
        // `i * slot` is within the horizon, so only the sum can overflow.
        self.now.saturating_add(i as Time * self.config.slot)
    }
}

/// The last `check` or `earliest` answer: its window as asked (the present, which
/// quantises it, cannot move without a change) and the ids free throughout it, true
/// while `current`: until the next change. Kept when it lapses, so that the next answer
/// is copied into it in place.
#[derive(Debug, Clone, Default)]
struct Answer {
    current: bool,
    start: Time,
    end: Time,
    free: RangeSet,
}

/// A structure: its engine `E` behind the trait's argument checks and bookkeeping.
#[derive(Debug, Clone)]
pub struct Shell<E> {
    basis: Basis,
    engine: E,
    cost: Cell<Option<Cost>>,
    /// A scheduler allocates the window it was just offered, from the set it was
    /// offered; such an allocate is admitted from this answer instead of walking the
    /// window again. Cleared by every change.
    answered: RefCell<Answer>,
    #[cfg(feature = "planted")]
    fault: Option<planted::Fault>,
}

impl<E: Engine> Shell<E> {
    /// An index of `capacity` resources, all free from time 0 on.
    ///
    /// # Errors
    /// [`Error::BadConfig`] for a zero capacity, an invalid configuration, or one this
    /// structure cannot take (see its registry entry).
    pub fn new(capacity: u32, config: Config) -> Result<Self, Error> {
        config.validate(capacity)?;
        let basis = Basis::new(capacity, config, 0);
        let engine = E::new(&basis)?;
        Ok(Self {
            basis,
            engine,
            cost: Cell::new(None),
            answered: RefCell::default(),
            #[cfg(feature = "planted")]
            fault: None,
        })
    }

    /// The engine and what its calls are relative to, for a structure's own queries.
    pub(crate) fn parts(&self) -> (&E, &Basis) {
        (&self.engine, &self.basis)
    }

    /// Checks and quantises a window against the present and the horizon.
    fn window(&self, start: Time, end: Time) -> Result<(Time, Time), Error> {
        let window = self.basis.config.window(self.basis.now, start, end);
        #[cfg(feature = "planted")]
        let window = planted::distort(self.fault, &self.basis, end, window);
        window
    }

    /// A `check`-like query: the window and count checked, the engine's answer, its cost
    /// kept.
    pub(crate) fn query<R>(
        &self,
        start: Time,
        end: Time,
        n: u32,
        f: impl FnOnce(&E, &Basis, Time, Time, u64) -> (R, Cost),
    ) -> Result<R, Error> {
        self.cost.set(None);
        let (s, e) = self.window(start, end)?;
        check_count(n, self.basis.capacity)?;
        let (answer, cost) = f(&self.engine, &self.basis, s, e, u64::from(n));
        self.cost.set(COUNTING.then_some(cost));
        Ok(answer)
    }

    /// The checks of an update, in the order every structure reports them; the
    /// quantised window if `set` may change.
    fn admit(&self, start: Time, end: Time, set: &RangeSet, allocate: bool) -> Result<(Time, Time), Error> {
        self.cost.set(None);
        let (s, e) = self.window(start, end)?;
        check_set(set, self.basis.capacity)?;
        if allocate {
            if self.offered(start, end, set) {
                return Ok((s, e));
            }
            let busy = set.subtract(&self.engine.free_throughout(&self.basis, s, e, set));
            if !busy.is_empty() {
                return Err(Error::NotFree { start, end, busy });
            }
        } else {
            let free = set.intersect(&self.engine.free_somewhere(&self.basis, s, e, set));
            if !free.is_empty() {
                return Err(Error::NotAllocated { start, end, free });
            }
        }
        Ok((s, e))
    }

    /// Remembers that `free` is free throughout the window `[start, end)` just answered
    /// for, in place: a few words copied per answer.
    fn answer(&self, start: Time, end: Time, free: &RangeSet) {
        let mut a = self.answered.borrow_mut();
        (a.current, a.start, a.end) = (true, start, end);
        a.free.clone_from(free);
    }

    /// Whether the last answer, still true, offered `set` free throughout `[start, end)`.
    fn offered(&self, start: Time, end: Time, set: &RangeSet) -> bool {
        let a = self.answered.borrow();
        a.current && a.start == start && a.end == end && set.is_subset(&a.free)
    }

    /// Every id busy from the present to the horizon, then each frame released: the
    /// state `load_frames` asks for, built on a fresh shell so that a refusal leaves
    /// this one untouched.
    fn rebuild(&self, frames: &[TimeFrame]) -> Result<Self, Error> {
        let mut fresh = Self::new(self.basis.capacity, self.basis.config)?;
        #[cfg(feature = "planted")]
        {
            fresh.fault = self.fault;
        }
        let now = self.basis.now;
        fresh.advance(now)?;
        if now < fresh.basis.limit {
            fresh.allocate(now, fresh.basis.limit, &fresh.basis.full.clone())?;
        }
        for frame in frames {
            fresh.release(frame.start, frame.end, &frame.free)?;
        }
        Ok(fresh)
    }
}

impl<E: Engine> AvailabilityIndex for Shell<E> {
    fn name(&self) -> &'static str {
        E::KIND.name()
    }

    fn capacity(&self) -> u32 {
        self.basis.capacity
    }

    fn config(&self) -> Config {
        self.basis.config
    }

    fn now(&self) -> Time {
        self.basis.now
    }

    fn check(&self, start: Time, end: Time, n: u32) -> Result<Option<RangeSet>, Error> {
        let answer = self.query(start, end, n, |engine, at, s, e, n| engine.check(at, s, e, n));
        if let Ok(Some(free)) = &answer {
            self.answer(start, end, free);
        }
        answer
    }

    fn earliest(&self, ready: Time, duration: Time, n: u32) -> Result<Option<TimeFrame>, Error> {
        self.cost.set(None);
        let end = ready.checked_add(duration).ok_or(Error::Overflow { start: ready, duration })?;
        self.window(ready, end)?;
        check_count(n, self.basis.capacity)?;
        let (answer, cost) = self.engine.earliest(&self.basis, ready, duration, u64::from(n));
        self.cost.set(COUNTING.then_some(cost));
        if let Some(frame) = &answer {
            self.answer(frame.start, frame.end, &frame.free);
        }
        Ok(answer)
    }

    fn allocate(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        let (s, e) = self.admit(start, end, set, true)?;
        self.engine.allocate(&self.basis, s, e, set);
        self.answered.get_mut().current = false;
        Ok(())
    }

    fn release(&mut self, start: Time, end: Time, set: &RangeSet) -> Result<(), Error> {
        let (s, e) = self.admit(start, end, set, false)?;
        self.engine.release(&self.basis, s, e, set);
        self.answered.get_mut().current = false;
        Ok(())
    }

    fn free_frames(&self, from: Time, to: Time) -> Result<Vec<TimeFrame>, Error> {
        self.cost.set(None);
        let (s, e) = self.window(from, to)?;
        Ok(sweep::free_frames(self.engine.steps(&self.basis, s, e), s, e))
    }

    fn options(&self, from: Time, to: Time, min_duration: Time, min_n: u32) -> Result<Vec<TimeFrame>, Error> {
        self.cost.set(None);
        let (s, e) = self.window(from, to)?;
        Ok(sweep::options(self.engine.steps(&self.basis, s, e), s, e, min_duration, u64::from(min_n)))
    }

    fn load_frames(&mut self, frames: &[TimeFrame]) -> Result<(), Error> {
        self.cost.set(None);
        *self = self.rebuild(frames)?;
        Ok(())
    }

    fn advance(&mut self, now: Time) -> Result<(), Error> {
        self.cost.set(None);
        let now = self.basis.config.advance(self.basis.now, now)?;
        self.engine.advance(&self.basis, now);
        self.answered.get_mut().current = false;
        self.basis.now = now;
        self.basis.limit = self.basis.config.limit(now);
        Ok(())
    }

    fn size(&self) -> usize {
        self.engine.size()
    }

    fn last_cost(&self) -> Option<Cost> {
        self.cost.get()
    }

    fn validate(&self) -> Result<(), Invalid> {
        let at = &self.basis;
        if !at.now.is_multiple_of(at.config.slot) || at.limit != at.config.limit(at.now) {
            return Err(E::KIND.invalid(format!(
                "now {} is off a slot boundary, or the limit {} is stale",
                at.now, at.limit
            )));
        }
        if at.full != RangeSet::full(at.capacity) {
            return Err(E::KIND.invalid(format!("the full set {} is not 0..{}", at.full, at.capacity)));
        }
        self.engine.validate(at)
    }

    /// The fault stays through `load_frames`.
    #[cfg(feature = "planted")]
    fn plant(&mut self, fault: planted::Fault) {
        self.fault = Some(fault);
        self.answered.get_mut().current = false;
    }

    /// The shell's own two, then the engine's.
    #[cfg(feature = "planted")]
    fn invariants(&self) -> Vec<&'static str> {
        [planted::SHELL_INVARIANTS, &E::invariants()].concat()
    }

    #[cfg(feature = "planted")]
    fn corrupt(&mut self, invariant: usize, pick: u64) -> bool {
        self.answered.get_mut().current = false;
        match invariant.checked_sub(planted::SHELL_INVARIANTS.len()) {
            None => planted::corrupt(&mut self.basis, invariant),
            Some(i) => self.engine.corrupt(&self.basis, i, pick),
        }
    }
}
