//! Scenario and op generators, independent of the engine that drives them: proptest
//! feeds them a vector of numbers, a fuzz target feeds them its input bytes. Ops are
//! mostly valid (allocations taken from the oracle's own answers, releases of what is
//! allocated or of its tail) with a share of deliberately invalid ones.

use serde::{Deserialize, Serialize};
use structures::{AvailabilityIndex, Config, RangeSet, Time, TimeFrame};

use crate::{Op, OpKind, Oracle, Outcome, Scenario};

/// A source of choices.
pub trait Choices {
    /// A number in `0..n`; `n` is at least 1.
    fn below(&mut self, n: u64) -> u64;

    /// A number in `lo..hi`, or `lo` when that range is empty.
    fn within(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi.saturating_sub(lo).max(1))
    }

    /// True with probability about `percent` / 100.
    fn percent(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Choices read from a list of numbers; zeros once it runs out, so that a shrunk list
/// still decodes to a (simpler) value.
pub struct Drawn<'a> {
    numbers: &'a [u64],
}

impl<'a> Drawn<'a> {
    /// Choices drawn from `numbers` in order.
    pub fn new(numbers: &'a [u64]) -> Self {
        Self { numbers }
    }
}

impl Choices for Drawn<'_> {
    fn below(&mut self, n: u64) -> u64 {
        let (first, rest) = self.numbers.split_first().unwrap_or((&0, &[]));
        self.numbers = rest;
        first % n
    }
}

/// How far past `now` generated times reach: small, so that ops collide often.
const SPAN: Time = 40;

/// A small scenario: few resources, and slotted configurations with short horizons in
/// a third of the cases, so that slot edges and the horizon are hit often. One scenario
/// in two hundred has just over 2^11 resources instead (where augtree's thresholds
/// stop), so that requests for more ids than the largest threshold are made; rare, as
/// thousands of ids slow every structure down.
pub fn scenario(c: &mut impl Choices) -> Scenario {
    // Drawn as "not many", so that the zeros a shrunk input decodes to stay small.
    let many = c.below(200) == 199;
    let capacity = if many { c.within(2_048, 2_200) } else { c.within(1, 13) } as u32;
    let config = if c.percent(66) {
        Config { slot: 1, horizon: None } // continuous time
    } else {
        let slot = [1, 2, 3, 5][c.below(4) as usize];
        let horizon = c.percent(70).then(|| slot * c.within(3, 16));
        Config { slot, horizon }
    };
    Scenario { capacity, config }
}

fn time(now: Time, c: &mut impl Choices) -> Time {
    now.saturating_add(c.below(SPAN))
}

fn window(now: Time, c: &mut impl Choices) -> (Time, Time) {
    let start = time(now, c);
    (start, start.saturating_add(c.within(1, 16)))
}

/// A count of ids; among thousands, half of them at least 2^11.
fn count(capacity: u32, c: &mut impl Choices) -> u32 {
    let least = if capacity > 1 << 11 && c.percent(50) { 1 << 11 } else { 1 };
    c.within(least, u64::from(capacity) + 1) as u32
}

/// A random set of ids, one in ten reaching past the capacity.
fn any_set(capacity: u32, c: &mut impl Choices) -> RangeSet {
    let reach = u64::from(capacity) + u64::from(c.percent(10));
    // Runs of up to 3 ids, or up to an eighth of the ids among thousands.
    let widest = (u64::from(capacity) / 8).max(4);
    RangeSet::from_ranges((0..c.within(1, 4)).map(|_| {
        let lo = c.below(reach) as u32;
        (lo, lo + c.within(1, widest) as u32)
    }))
}

/// Some of `set`: all of it, or its lowest ids.
fn some_of(set: &RangeSet, c: &mut impl Choices) -> RangeSet {
    let n = c.within(1, set.count() + 1);
    set.first(n).unwrap_or_else(|| set.clone())
}

/// What the generator draws: an op of a kind, with arguments near the present, or one of
/// the aimed draws that use the oracle's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Draw {
    /// An op of this kind; an allocation or release takes any set (one in ten reaching
    /// past the capacity), `load_frames` the present free frames, some changed.
    Op(OpKind),
    /// An allocation of the lowest ids of a `check` or `earliest` answer.
    AllocateAnswer,
    /// A release of an allocated rectangle, its tail, or a part of it.
    ReleaseBusy,
    /// An op every structure must refuse.
    Invalid,
    /// A check, an earliest start or an allocation of a check's answer anywhere in the
    /// time left, for up to all of it, or a move of the present there: points far apart
    /// and near the end of time, where sums of times overflow.
    Far,
}

/// The draws and their weights (out of 100); swarm bit `i` switches `DRAWS[i]` on, so
/// the order is part of every recorded [`Swarm`].
const DRAWS: [(Draw, u64); 12] = [
    (Draw::Op(OpKind::Check), 12),
    (Draw::Op(OpKind::Earliest), 12),
    (Draw::AllocateAnswer, 18),
    (Draw::Op(OpKind::Allocate), 6),
    (Draw::ReleaseBusy, 14),
    (Draw::Op(OpKind::Release), 4),
    (Draw::Op(OpKind::FreeFrames), 6),
    (Draw::Op(OpKind::Options), 6),
    (Draw::Op(OpKind::Advance), 10),
    (Draw::Op(OpKind::LoadFrames), 4),
    (Draw::Invalid, 4),
    (Draw::Far, 4),
];

/// Swarm testing: each bit switches one kind of op on, so that some runs see rare
/// mixes (say, only allocations and releases) that uniform weights seldom reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Swarm(pub u16);

impl Swarm {
    /// Every kind of op on.
    pub const ALL: Swarm = Swarm(u16::MAX);

    /// Half the time every kind, otherwise a random subset (never empty).
    pub fn draw(c: &mut impl Choices) -> Swarm {
        if c.percent(50) {
            Swarm::ALL
        } else {
            Swarm(c.below(1 << DRAWS.len()) as u16).or_all()
        }
    }

    fn allows(self, draw: Draw) -> bool {
        let bits = self.or_all().0;
        DRAWS.iter().enumerate().any(|(i, &(d, _))| d == draw && bits & (1 << i) != 0)
    }

    fn or_all(self) -> Swarm {
        if (0..DRAWS.len()).any(|i| self.0 & (1 << i) != 0) {
            self
        } else {
            Swarm::ALL
        }
    }

    /// Draws an enabled kind by weight.
    fn pick(self, c: &mut impl Choices) -> Draw {
        let bits = self.or_all().0;
        let enabled = || DRAWS.into_iter().enumerate().filter(|&(i, _)| bits & (1 << i) != 0).map(|(_, d)| d);
        let mut x = c.below(enabled().map(|(_, weight)| weight).sum());
        for (draw, weight) in enabled() {
            if x < weight {
                return draw;
            }
            x -= weight;
        }
        unreachable!("x is below the total weight")
    }
}

/// The next op for the state `oracle` is in, of a kind `swarm` allows.
pub fn op(oracle: &Oracle, swarm: Swarm, c: &mut impl Choices) -> Op {
    let now = oracle.now();
    let capacity = oracle.capacity();
    match swarm.pick(c) {
        Draw::Op(OpKind::Check) => {
            let (start, end) = window(now, c);
            Op::Check { start, end, n: count(capacity, c) }
        }
        Draw::Op(OpKind::Earliest) => {
            let (ready, duration) = (time(now, c), c.within(1, 16));
            Op::Earliest { ready, duration, n: count(capacity, c) }
        }
        Draw::AllocateAnswer => allocate_answer(oracle, c),
        Draw::Op(OpKind::Allocate) => {
            let (start, end) = window(now, c);
            Op::Allocate { start, end, set: any_set(capacity, c) }
        }
        Draw::ReleaseBusy => release_busy(oracle, c),
        Draw::Op(OpKind::Release) => {
            let (start, end) = window(now, c);
            Op::Release { start, end, set: any_set(capacity, c) }
        }
        Draw::Op(OpKind::FreeFrames) => {
            let (from, to) = window(now, c);
            Op::FreeFrames { from, to }
        }
        Draw::Op(OpKind::Options) => {
            let (from, to) = window(now, c);
            Op::Options { from, to, min_duration: c.below(4), min_n: c.below(u64::from(capacity) + 1) as u32 }
        }
        Draw::Op(OpKind::Advance) if now > 0 && c.percent(10) => Op::Advance { now: now - 1 },
        Draw::Op(OpKind::Advance) => Op::Advance { now: now.saturating_add(c.below(5)) },
        Draw::Op(OpKind::LoadFrames) => load_frames(oracle, c),
        Draw::Invalid => invalid(oracle, c),
        Draw::Far => far(oracle, c),
    }
}

/// A check, an earliest start or an allocation of the lowest ids a check finds free, at
/// a start anywhere in the time left (up to the limit) and for up to all of it, or a move
/// of the present to that start or to the limit itself; a window past the limit is
/// refused alike by every structure.
fn far(oracle: &Oracle, c: &mut impl Choices) -> Op {
    let now = oracle.now();
    let left = oracle.limit().saturating_sub(now).max(1);
    let start = now + c.below(left);
    let end = start.saturating_add(c.within(1, left.saturating_add(1)));
    let n = count(oracle.capacity(), c);
    match c.below(4) {
        0 => Op::Check { start, end, n },
        1 => Op::Earliest { ready: start, duration: end - start, n },
        2 => Op::Advance { now: if c.percent(25) { oracle.limit() } else { start } },
        _ => match oracle.check(start, end, n) {
            Ok(Some(free)) => Op::Allocate { start, end, set: free.first(u64::from(n)).unwrap_or(free) },
            _ => Op::Allocate { start, end, set: RangeSet::full(oracle.capacity()) },
        },
    }
}

/// After `op` was answered `outcome`, sometimes (swarm permitting) the allocation a
/// scheduler makes next: the lowest ids of the window just offered, with no other op
/// between, which structures may admit from the answer they gave.
pub fn take_offer(op: &Op, outcome: &Outcome, swarm: Swarm, c: &mut impl Choices) -> Option<Op> {
    let (start, end, free, n) = match (op, outcome) {
        (Op::Check { start, end, n }, Outcome::Free(Some(free))) => (*start, *end, free, *n),
        (Op::Earliest { n, .. }, Outcome::Start(Some(frame))) => (frame.start, frame.end, &frame.free, *n),
        _ => return None,
    };
    let taken = swarm.allows(Draw::AllocateAnswer) && c.percent(50);
    taken.then(|| Op::Allocate { start, end, set: free.first(u64::from(n)).unwrap_or_else(|| free.clone()) })
}

/// Allocates the lowest ids of a `check` answer, else of an `earliest` answer.
fn allocate_answer(oracle: &Oracle, c: &mut impl Choices) -> Op {
    let (start, end) = window(oracle.now(), c);
    let n = count(oracle.capacity(), c);
    let answer = match oracle.check(start, end, n) {
        Ok(Some(free)) => Some(TimeFrame { start, end, free }),
        _ => oracle.earliest(start, end - start, n).ok().flatten(),
    };
    match answer {
        Some(frame) => Op::Allocate {
            start: frame.start,
            end: frame.end,
            set: frame.free.first(u64::from(n)).unwrap_or(frame.free),
        },
        None => Op::Allocate { start, end, set: RangeSet::full(oracle.capacity()) },
    }
}

/// Releases an allocated rectangle, its tail, or a part of it.
fn release_busy(oracle: &Oracle, c: &mut impl Choices) -> Op {
    let busy = oracle.busy();
    if busy.is_empty() {
        let (start, end) = window(oracle.now(), c);
        return Op::Release { start, end, set: any_set(oracle.capacity(), c) };
    }
    let b = &busy[c.below(busy.len() as u64) as usize];
    let start = c.within(b.start, b.end);
    let end = if c.percent(60) { b.end } else { c.within(start + 1, b.end.saturating_add(1)) };
    Op::Release { start, end, set: some_of(&b.free, c) }
}

/// Rebuilds from the current free frames, one dropped at times, or from random ones.
fn load_frames(oracle: &Oracle, c: &mut impl Choices) -> Op {
    let now = oracle.now();
    let to = oracle.limit().min(now.saturating_add(SPAN));
    let mut frames = if now < to { oracle.free_frames(now, to).unwrap_or_default() } else { Vec::new() };
    if !frames.is_empty() && c.percent(30) {
        frames.remove(c.below(frames.len() as u64) as usize);
    }
    if c.percent(20) {
        let (start, end) = window(now, c);
        frames.push(TimeFrame { start, end, free: any_set(oracle.capacity(), c) });
    }
    Op::LoadFrames { frames }
}

/// Ops that must be refused, alike by every structure.
fn invalid(oracle: &Oracle, c: &mut impl Choices) -> Op {
    let now = oracle.now();
    let capacity = oracle.capacity();
    let limit = oracle.limit();
    let t = time(now, c);
    match c.below(7) {
        0 => Op::Check { start: t, end: t, n: 1 },
        1 => Op::Check { start: t, end: t.saturating_add(1), n: [0, capacity + 1][c.below(2) as usize] },
        2 => Op::Earliest { ready: Time::MAX - c.below(3), duration: c.within(1, 9), n: 1 },
        3 => Op::Allocate { start: t, end: t.saturating_add(1), set: RangeSet::new() },
        4 => Op::Release {
            start: limit.saturating_sub(1),
            end: limit.saturating_add(c.within(1, 4)),
            set: RangeSet::full(capacity),
        },
        5 if now > 0 => Op::Check { start: now - 1, end: now.saturating_add(1), n: 1 },
        _ => Op::Earliest { ready: t, duration: 0, n: 1 },
    }
}
