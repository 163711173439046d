//! Criterion: the resource-set representations `RangeSet` was chosen among, on the free
//! sets of real trace states and of a fragmented one, for the four operations the
//! structures run most: intersect, subtract, count and first-n.
//!
//! - `vec`: sorted ranges in a `Vec` (the representation before);
//! - `smallvec`: the same ranges in a `SmallVec` of 4 inline;
//! - `fixedbitset`: a heap bitset of `capacity` bits;
//! - `roaring`: a compressed bitmap;
//! - `rangeset`: `RangeSet` as it is (an inline bitset below `INLINE_IDS`).
//!
//! Every representation's answers are checked against `RangeSet`'s before anything is
//! timed, so `cargo test --benches` runs this as a test.

use std::hint::black_box;

use benches::states::{self, State};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fixedbitset::FixedBitSet;
use roaring::RoaringBitmap;
use smallvec::SmallVec;
use structures::range_set::runs::{self, Run};
use structures::RangeSet;

type Small = SmallVec<[Run; 4]>;

/// The pairs of free sets an input holds: consecutive free frames' sets.
struct Input {
    name: String,
    capacity: u32,
    sets: Vec<RangeSet>,
}

fn from_state(state: &State) -> Input {
    let sets = state.frames.iter().map(|f| f.free.clone()).take(2_000).collect();
    Input { name: state.name.clone(), capacity: state.capacity, sets }
}

/// A machine of SDSC Blue Horizon's size whose sets alternate free and busy ids in runs
/// of 1 to 3: hundreds of ranges each.
fn fragmented() -> Input {
    let capacity = 1_152;
    let sets = (0..200u32)
        .map(|k| RangeSet::from_ranges((0..capacity).step_by(4).map(|lo| (lo + k % 3, lo + 2 + k % 2))))
        .collect();
    Input { name: "fragmented-1152".into(), capacity, sets }
}

fn inputs() -> Vec<Input> {
    let mut inputs = vec![from_state(&states::kth(5_000))];
    match states::shared("SDSC-BLUE-2000-4.2-cln.swf.gz", "sdsc-blue", 2_000) {
        Ok(state) => inputs.push(from_state(&state)),
        Err(why) => eprintln!("sets: sdsc-blue skipped: {why}"),
    }
    inputs.push(fragmented());
    inputs
}

fn runs_of(set: &RangeSet) -> Vec<Run> {
    set.ranges().collect()
}

fn bits(set: &RangeSet, capacity: u32) -> FixedBitSet {
    let mut out = FixedBitSet::with_capacity(capacity as usize);
    set.ranges().for_each(|(lo, hi)| out.insert_range(lo as usize..hi as usize));
    out
}

fn roaring(set: &RangeSet) -> RoaringBitmap {
    let mut out = RoaringBitmap::new();
    set.ranges().for_each(|(lo, hi)| {
        out.insert_range(lo..hi);
    });
    out
}

/// Each representation's (intersect count, subtract count, first-n's last id) for a
/// pair, the answers `RangeSet` must match.
fn answers(input: &Input) {
    for pair in input.sets.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let n = a.count() / 2;
        if n == 0 {
            continue;
        }
        let want = (a.intersect(b).count(), a.subtract(b).count(), a.first(n).and_then(|s| s.max()));
        let mut v = Vec::new();
        runs::intersect(&runs_of(a), &runs_of(b), &mut v);
        let mut s = Small::new();
        runs::subtract(&runs_of(a), &runs_of(b), &mut s);
        let (fa, fb) = (bits(a, input.capacity), bits(b, input.capacity));
        let (ra, rb) = (roaring(a), roaring(b));
        let got = [
            (runs::count(&v), want.1, want.2),
            (want.0, runs::count(&s), want.2),
            (
                fa.intersection(&fb).count() as u64,
                fa.difference(&fb).count() as u64,
                fa.ones().nth(n as usize - 1).map(|i| i as u32),
            ),
            ((&ra & &rb).len(), (&ra - &rb).len(), ra.iter().nth(n as usize - 1)),
        ];
        for g in &got {
            assert_eq!(*g, want, "{}: a representation disagrees with RangeSet", input.name);
        }
    }
}

/// `op` on every consecutive pair of range lists, into a new `O` each.
fn ranges<O: Default + Extend<Run>>(op: &str, lists: &[impl AsRef<[Run]>]) {
    for w in lists.windows(2) {
        let (a, b) = (w[0].as_ref(), w[1].as_ref());
        let mut out = O::default();
        match op {
            "intersect" => runs::intersect(a, b, &mut out),
            "subtract" => runs::subtract(a, b, &mut out),
            "count" => drop(black_box(runs::count(a))),
            _ => drop(runs::first(a, runs::count(a) / 2, &mut out)),
        }
        black_box(out);
    }
}

fn bench(c: &mut Criterion) {
    for input in inputs() {
        answers(&input);
        let vecs: Vec<Vec<Run>> = input.sets.iter().map(runs_of).collect();
        let smalls: Vec<Small> = input.sets.iter().map(|s| s.ranges().collect()).collect();
        let fixed: Vec<FixedBitSet> = input.sets.iter().map(|s| bits(s, input.capacity)).collect();
        let roar: Vec<RoaringBitmap> = input.sets.iter().map(roaring).collect();
        let pairs = input.sets.len().saturating_sub(1) as u64;
        for op in ["intersect", "subtract", "count", "first"] {
            let mut group = c.benchmark_group(format!("sets/{op}"));
            group.throughput(Throughput::Elements(pairs));
            let id = |repr: &str| BenchmarkId::new(repr, &input.name);
            group.bench_function(id("vec"), |b| b.iter(|| ranges::<Vec<Run>>(op, &vecs)));
            group.bench_function(id("smallvec"), |b| b.iter(|| ranges::<Small>(op, &smalls)));
            group.bench_function(id("fixedbitset"), |b| {
                b.iter(|| {
                    for w in fixed.windows(2) {
                        match op {
                            "intersect" => {
                                let mut out = w[0].clone();
                                out.intersect_with(&w[1]);
                                black_box(out);
                            }
                            "subtract" => {
                                let mut out = w[0].clone();
                                out.difference_with(&w[1]);
                                black_box(out);
                            }
                            "count" => drop(black_box(w[0].count_ones(..))),
                            _ => {
                                let n = w[0].count_ones(..) / 2;
                                let mut out = FixedBitSet::with_capacity(w[0].len());
                                w[0].ones().take(n).for_each(|i| out.insert(i));
                                black_box(out);
                            }
                        }
                    }
                })
            });
            group.bench_function(id("roaring"), |b| {
                b.iter(|| {
                    for w in roar.windows(2) {
                        match op {
                            "intersect" => drop(black_box(&w[0] & &w[1])),
                            "subtract" => drop(black_box(&w[0] - &w[1])),
                            "count" => drop(black_box(w[0].len())),
                            _ => {
                                let n = (w[0].len() / 2) as usize;
                                black_box(w[0].iter().take(n).collect::<RoaringBitmap>());
                            }
                        }
                    }
                })
            });
            group.bench_function(id("rangeset"), |b| {
                b.iter(|| {
                    for w in input.sets.windows(2) {
                        match op {
                            "intersect" => drop(black_box(w[0].intersect(&w[1]))),
                            "subtract" => drop(black_box(w[0].subtract(&w[1]))),
                            "count" => drop(black_box(w[0].count())),
                            _ => drop(black_box(w[0].first(w[0].count() / 2))),
                        }
                    }
                })
            });
            group.finish();
        }
    }
}

criterion_group! {
    name = sets;
    // Sixty short benchmarks; their medians and ratios are what the choice rests on.
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1));
    targets = bench
}
criterion_main!(sets);
