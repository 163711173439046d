//! A fixed-size bitset kept inline: the ids below [`BITS`], one bit each, with no heap
//! allocation, so that copying, intersecting and counting a machine's free set cost a few
//! word operations whatever its fragmentation. Operations stop at the last word in use,
//! so a small machine pays for its own words only.

use std::hash::{Hash, Hasher};

use super::runs::Run;

/// Words of 64 ids each.
pub(super) const WORDS: usize = 18;

/// The ids a [`Words`] can hold: `0..BITS`. 1,152 is the largest machine among the
/// shared traces (SDSC Blue Horizon). The `sets` benchmark compares this form with range
/// lists, compressed bitmaps and heap bitsets: far ahead on fragmented sets, behind a
/// small vector of ranges on the few-range sets of real traces (`docs/benchmarks.md`).
pub const BITS: u32 = 64 * WORDS as u32;

/// The ids `0..BITS` as bits. Words from `len` on are zero and `len` is one past the
/// last non-zero word, so comparing the words in use is set equality.
#[derive(Clone, Copy)]
pub struct Words {
    len: usize,
    bits: [u64; WORDS],
}

impl PartialEq for Words {
    fn eq(&self, other: &Self) -> bool {
        self.used() == other.used()
    }
}

impl Eq for Words {}

impl Hash for Words {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.used().hash(state);
    }
}

impl Words {
    /// No id.
    pub const EMPTY: Self = Self { len: 0, bits: [0; WORDS] };

    /// The words in use.
    pub(super) fn used(&self) -> &[u64] {
        &self.bits[..self.len]
    }

    /// Makes this set `other`, touching only the words either uses: `other`'s words from
    /// its `len` on are zero, so copying as far as this one's `len` clears the rest.
    pub(super) fn assign(&mut self, other: &Self) {
        let len = self.len.max(other.len);
        if len <= 4 {
            // A machine of a few hundred ids: a few stores cost less than a `memcpy` call.
            for i in 0..len {
                self.bits[i] = other.bits[i];
            }
        } else {
            self.bits[..len].copy_from_slice(&other.bits[..len]);
        }
        self.len = other.len;
    }

    /// Lowers `len` past the trailing zero words of the first `len`.
    fn trim(&mut self, mut len: usize) {
        while len > 0 && self.bits[len - 1] == 0 {
            len -= 1;
        }
        self.len = len;
    }

    /// The set of the ids of `runs`, which end at most at [`BITS`].
    pub fn from_runs(runs: impl IntoIterator<Item = Run>) -> Self {
        let mut words = Self::EMPTY;
        for (lo, hi) in runs {
            words.insert(lo, hi);
        }
        words
    }

    /// The ids of `runs` below [`BITS`]; ids above are left out.
    pub fn clipped(runs: &[Run]) -> Self {
        Self::from_runs(runs.iter().take_while(|r| r.0 < BITS).map(|&(lo, hi)| (lo, hi.min(BITS))))
    }

    /// Adds the id `id` (`id < BITS`): one bit, where [`insert`](Words::insert) loops.
    /// `len` is left as it was, so that a set built id by id pays for it once: the
    /// caller ends with [`settle`](Words::settle).
    pub(super) fn insert_id(&mut self, id: u32) {
        self.bits[(id / 64) as usize] |= 1 << (id % 64);
    }

    /// Sets `len` after ids were added by [`insert_id`](Words::insert_id).
    pub(super) fn settle(&mut self) {
        self.trim(WORDS);
    }

    /// Adds the ids `lo..hi` (`hi <= BITS`).
    pub(super) fn insert(&mut self, lo: u32, hi: u32) {
        if lo < hi {
            fill(&mut self.bits, lo, hi);
            self.len = self.len.max(hi.div_ceil(64) as usize);
        }
    }

    /// The set whose bits are `bits` (at most [`WORDS`] of them).
    pub(super) fn from_bits(bits: &[u64]) -> Self {
        let mut words = Self::EMPTY;
        words.bits[..bits.len()].copy_from_slice(bits);
        words.trim(bits.len());
        words
    }

    /// The number of ids.
    pub fn count(&self) -> u64 {
        self.used().iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// Whether there is no id.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: u32) -> bool {
        self.used().get((id / 64) as usize).is_some_and(|w| w & (1 << (id % 64)) != 0)
    }

    /// The largest id.
    pub fn max(&self) -> Option<u32> {
        let word = self.used().last()?;
        Some((self.len as u32 - 1) * 64 + 63 - word.leading_zeros())
    }

    /// Keeps the ids also in `other` (without counting them, for the callers that do not
    /// need [`and_count`](Self::and_count)'s count).
    pub fn and(&mut self, other: &Self) {
        let len = self.len.min(other.len);
        self.bits[..len].iter_mut().zip(other.used()).for_each(|(a, b)| *a &= b);
        self.bits[len..self.len].fill(0);
        self.trim(len);
    }

    /// Keeps the ids also in `other`; the number left, counted in the same pass.
    pub fn and_count(&mut self, other: &Self) -> u64 {
        let len = self.len.min(other.len);
        let mut count = 0;
        for (a, b) in self.bits[..len].iter_mut().zip(other.used()) {
            *a &= b;
            count += u64::from(a.count_ones());
        }
        self.bits[len..self.len].fill(0);
        self.trim(len);
        count
    }

    /// Drops the ids in `other`.
    pub fn and_not(&mut self, other: &Self) {
        let len = self.len;
        self.bits[..len].iter_mut().zip(other.used()).for_each(|(a, b)| *a &= !b);
        self.trim(len);
    }

    /// Adds the ids in `other`.
    pub fn or(&mut self, other: &Self) {
        self.bits.iter_mut().zip(other.used()).for_each(|(a, b)| *a |= b);
        self.len = self.len.max(other.len);
    }

    /// Whether every id is in `other`.
    pub fn is_subset(&self, other: &Self) -> bool {
        self.len <= other.len && self.used().iter().zip(other.used()).all(|(a, b)| a & !b == 0)
    }

    /// The `n` lowest ids, or `None` when there are fewer.
    pub fn first(&self, n: u64) -> Option<Self> {
        let mut out = Self::EMPTY;
        let mut left = n;
        for (o, &w) in out.bits.iter_mut().zip(self.used()) {
            if left == 0 {
                break;
            }
            let ones = u64::from(w.count_ones());
            if ones <= left {
                *o = w;
                out.len += 1;
                left -= ones;
            } else {
                // Keep the `left` lowest bits of `w`: drop its highest ones.
                let mut keep = w;
                for _ in left..ones {
                    keep &= !(1u64 << (63 - keep.leading_zeros()));
                }
                *o = keep;
                out.len += 1;
                left = 0;
            }
        }
        out.trim(out.len);
        (left == 0).then_some(out)
    }

    /// The maximal runs of ids, in increasing order.
    pub fn runs(&self) -> impl Iterator<Item = Run> + Clone + '_ {
        runs_of(self.used())
    }
}

/// Sets the bits of the ids `lo..hi` in `bits` (id `i` is bit `i % 64` of word `i / 64`),
/// which hold them.
pub(super) fn fill(bits: &mut [u64], lo: u32, hi: u32) {
    let mut i = lo;
    while i < hi {
        let (w, b) = ((i / 64) as usize, i % 64);
        let span = (64 - b).min(hi - i);
        let mask = if span == 64 { !0 } else { ((1u64 << span) - 1) << b };
        bits[w] |= mask;
        i += span;
    }
}

/// The first id at or after `from` whose bit in `bits` is set (`found`) or clear.
fn next(bits: &[u64], from: u32, found: bool) -> Option<u32> {
    let flip = if found { 0 } else { !0 };
    let mut w = (from / 64) as usize;
    let mut word = (*bits.get(w)? ^ flip) & (!0u64 << (from % 64));
    loop {
        if word != 0 {
            return Some(w as u32 * 64 + word.trailing_zeros());
        }
        w += 1;
        word = *bits.get(w)? ^ flip;
    }
}

/// The maximal runs of the ids whose bits are set in `bits`, in increasing order.
pub(super) fn runs_of(bits: &[u64]) -> impl Iterator<Item = Run> + Clone + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let lo = next(bits, at, true)?;
        // Past the last word every bit is clear.
        let hi = next(bits, lo, false).unwrap_or(bits.len() as u32 * 64);
        at = hi;
        Some((lo, hi))
    })
}
