//! What differs between structures: the raw queries and updates on arguments the shell
//! has already checked and quantised, the size, the invariants and the work counters.
//! Nothing here validates an argument or keeps a [`Cost`] between calls.

use std::borrow::Cow;

use crate::{Cost, Error, Invalid, Kind, RangeSet, Time, TimeFrame};

use super::Basis;

/// One step of an engine's free space: `free` holds from the time until the next step's.
pub type Step<'a> = (Time, Cow<'a, RangeSet>);

/// `steps` with each step absorbing the equal ones after it: only the change points are
/// left. The shell's sweeps work per step, and a slotted engine's steps are its slots, up
/// to a million of them. `steps` must stop at the window's end: the last step runs on over
/// every equal step after it.
pub(crate) fn changes<'a>(steps: impl Iterator<Item = Step<'a>>) -> impl Iterator<Item = Step<'a>> {
    let mut steps = steps.peekable();
    std::iter::from_fn(move || {
        let (t, free) = steps.next()?;
        while steps.next_if(|(_, next)| *next == free).is_some() {}
        Some((t, free))
    })
}

/// A structure's own logic behind [`Shell`](super::Shell).
///
/// Every window an engine receives is quantised (`s` and `e` on slot boundaries,
/// `now <= s < e <= limit`), every count is in `1..=capacity`, and every set is non-empty
/// and below the capacity. An update is only called after the shell has checked, through
/// [`free_throughout`](Engine::free_throughout) or
/// [`free_somewhere`](Engine::free_somewhere), that it applies in full.
pub trait Engine: Sized {
    /// The registry entry of the structure this engine is.
    const KIND: Kind;

    /// A fresh engine for `at`: every resource free from `at.now` on.
    ///
    /// # Errors
    /// [`Error::BadConfig`] for a configuration this structure cannot take.
    fn new(at: &Basis) -> Result<Self, Error>;

    /// The ids free throughout `[s, e)` if there are at least `n`, and the work done.
    fn check(&self, at: &Basis, s: Time, e: Time, n: u64) -> (Option<RangeSet>, Cost);

    /// The earliest start `t >= ready` of a window of `duration` with `n` ids free, and
    /// the work done. `[ready, ready + duration)` is known to fit the horizon; later
    /// candidates are bounded with [`Basis::candidate`].
    fn earliest(&self, at: &Basis, ready: Time, duration: Time, n: u64) -> (Option<TimeFrame>, Cost);

    /// A set whose ids in `among` are exactly those of `among` free at every instant of
    /// `[s, e)`.
    fn free_throughout(&self, at: &Basis, s: Time, e: Time, among: &RangeSet) -> RangeSet;

    /// A set whose ids in `among` are exactly those of `among` free at some instant of
    /// `[s, e)`.
    fn free_somewhere(&self, at: &Basis, s: Time, e: Time, among: &RangeSet) -> RangeSet;

    /// Marks `set`, free throughout, busy over `[s, e)`.
    fn allocate(&mut self, at: &Basis, s: Time, e: Time, set: &RangeSet);

    /// Marks `set`, busy throughout, free over `[s, e)`.
    fn release(&mut self, at: &Basis, s: Time, e: Time, set: &RangeSet);

    /// The free space from the step holding `s` to the last one starting before `e`:
    /// `(t, free)` meaning `free` holds from `t` until the next step.
    fn steps<'a>(&'a self, at: &'a Basis, s: Time, e: Time) -> impl Iterator<Item = Step<'a>>;

    /// Forgets everything before `now`, a slot boundary not before `at.now`.
    fn advance(&mut self, at: &Basis, now: Time);

    /// The number of records held, in the unit the registry names.
    fn size(&self) -> usize;

    /// Checks every internal invariant.
    ///
    /// # Errors
    /// [`Invalid`] naming [`KIND`](Engine::KIND) and the first broken invariant and where.
    fn validate(&self, at: &Basis) -> Result<(), Invalid>;

    /// The invariants [`validate`](Engine::validate) checks that
    /// [`corrupt`](Engine::corrupt) can break, by name (feature `planted`).
    #[cfg(feature = "planted")]
    const INVARIANTS: &'static [&'static str] = &[];

    /// [`INVARIANTS`](Engine::INVARIANTS), for an engine whose list is put together from
    /// parts (feature `planted`).
    #[cfg(feature = "planted")]
    fn invariants() -> Vec<&'static str> {
        Self::INVARIANTS.to_vec()
    }

    /// Breaks invariant `invariant` (an index into [`INVARIANTS`](Engine::INVARIANTS)),
    /// keeping those `validate` checks before it, at the `pick`-th place this state has
    /// for it (modulo their number), so that a test sees `validate` refuse it (feature
    /// `planted`). Returns whether the state had such a place.
    #[cfg(feature = "planted")]
    fn corrupt(&mut self, at: &Basis, invariant: usize, pick: u64) -> bool {
        let _ = (at, invariant, pick);
        false
    }
}
