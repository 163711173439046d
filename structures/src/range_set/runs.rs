//! The algebra of sorted, disjoint, non-adjacent half-open ranges, writing into any
//! `Extend` so that a `Vec` and a small inline vector share it (the resource-set
//! benchmark compares both).

use crate::ResourceId;

/// A half-open range of ids `[lo, hi)`.
pub type Run = (ResourceId, ResourceId);

/// Appends `(lo, hi)` to canonical `out`, merging it with the last range when they touch;
/// the ranges must come in increasing order of `lo`.
pub fn push(out: &mut Vec<Run>, (lo, hi): Run) {
    match out.last_mut() {
        Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
        _ if lo < hi => out.push((lo, hi)),
        _ => {}
    }
}

/// The ids in both `a` and `b`, canonical when both are.
pub fn intersect(a: &[Run], b: &[Run], out: &mut impl Extend<Run>) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if lo < hi {
            out.extend([(lo, hi)]);
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
}

/// The ids in `a` but not in `b`, canonical when both are.
pub fn subtract(a: &[Run], b: &[Run], out: &mut impl Extend<Run>) {
    let mut j = 0;
    for &(lo, hi) in a {
        let mut cur = lo;
        while j < b.len() && b[j].1 <= cur {
            j += 1;
        }
        let mut k = j;
        while cur < hi && k < b.len() && b[k].0 < hi {
            let (blo, bhi) = b[k];
            if blo > cur {
                out.extend([(cur, blo)]);
            }
            cur = cur.max(bhi);
            k += 1;
        }
        if cur < hi {
            out.extend([(cur, hi)]);
        }
    }
}

/// The ids in either `a` or `b`, canonical when both are.
pub fn union(a: &[Run], b: &[Run]) -> Vec<Run> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let take_a = j == b.len() || (i < a.len() && a[i].0 <= b[j].0);
        let run = if take_a { a[i] } else { b[j] };
        if take_a {
            i += 1;
        } else {
            j += 1;
        }
        push(&mut out, run);
    }
    out
}

/// The `n` lowest ids of `a`, or `None` when it has fewer.
pub fn first(a: &[Run], n: u64, out: &mut impl Extend<Run>) -> Option<()> {
    let mut left = n;
    for &(lo, hi) in a {
        if left == 0 {
            break;
        }
        let take = left.min(u64::from(hi - lo));
        // `take` fits: it is at most `hi - lo`, a u32.
        out.extend([(lo, lo + take as ResourceId)]);
        left -= take;
    }
    (left == 0).then_some(())
}

/// The number of ids in `a`.
pub fn count(a: &[Run]) -> u64 {
    a.iter().map(|(lo, hi)| u64::from(hi - lo)).sum()
}
