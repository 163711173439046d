//! Every structure's facts in one place: [`Kind::spec`]. The command line, the replays,
//! the reports, the benchmarks and the fuzz targets read a structure's name, units,
//! theory, caps and source from here and nowhere else. Adding a structure means one
//! module, one [`Kind`] variant and one arm of [`Kind::spec`] (see `docs/adding-a-structure.md`,
//! its checklist).

use std::fmt;
use std::str::FromStr;

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use crate::shell::Engine;
use crate::{
    AugTreeProfile, AvailabilityIndex, BTreeProfile, CalendarQueue, Config, Error, FlatProfile,
    IdlePeriodTrees, IntervalSkipList, Invalid, RbTreeProfile, SegmentTree, Shell, SlottedArray,
    SortedListProfile,
};

/// One kind of structure. Its name (the command line's, run files' and reports') is the
/// `strum` attribute at its variant; the list of all kinds, `Display`, the name and serde
/// are derived from the enum, so no kind can be left out of [`Kind::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[derive(strum::Display, strum::IntoStaticStr, strum::VariantArray)]
pub enum Kind {
    /// [`RbTreeProfile`].
    #[strum(serialize = "rbtree")]
    RbTree,
    /// [`SortedListProfile`].
    #[strum(serialize = "list")]
    SortedList,
    /// [`BTreeProfile`].
    #[strum(serialize = "btree")]
    BTree,
    /// [`SlottedArray`].
    #[strum(serialize = "slotted")]
    SlottedArray,
    /// [`SegmentTree`].
    #[strum(serialize = "segtree")]
    SegmentTree,
    /// [`CalendarQueue`].
    #[strum(serialize = "calendar")]
    CalendarQueue,
    /// [`IdlePeriodTrees`].
    #[strum(serialize = "idletrees")]
    IdleTrees,
    /// [`IntervalSkipList`].
    #[strum(serialize = "skiplist")]
    SkipList,
    /// [`AugTreeProfile`].
    #[strum(serialize = "augtree")]
    AugTree,
    /// [`FlatProfile`].
    #[strum(serialize = "flat")]
    Flat,
}

/// A cost bound and the growth exponent it predicts against profile entries, on states
/// of constant density (what the benchmark report holds measured growth against).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// The bound as the report prints it.
    pub text: &'static str,
    /// The exponent of n it predicts (`NaN` where it predicts none).
    pub exponent: f64,
}

/// A structure's theoretical cost per operation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Theory {
    /// `check`.
    pub check: Bound,
    /// `earliest`.
    pub earliest: Bound,
    /// `allocate`.
    pub allocate: Bound,
    /// `release`.
    pub release: Bound,
    /// `free_frames`.
    pub free_frames: Bound,
    /// `options`.
    pub options: Bound,
    /// A whole replay, per job.
    pub replay: Bound,
    /// `check` and `earliest` when the cost accounting is compiled in, where it changes
    /// their bound.
    pub counted_queries: Option<Bound>,
}

impl Theory {
    /// One bound for every operation.
    const fn uniform(text: &'static str, exponent: f64) -> Self {
        let b = Bound { text, exponent };
        Self {
            check: b,
            earliest: b,
            allocate: b,
            release: b,
            free_frames: b,
            options: b,
            replay: b,
            counted_queries: None,
        }
    }
}

/// Where a structure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    /// The paper: a short name from `../shared/papers/`, or a citation.
    pub paper: &'static str,
    /// The section that describes the structure, where the source is one of the papers.
    pub section: Option<&'static str>,
}

impl fmt::Display for Source {
    /// `paper, section S`, or the citation alone.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.section {
            Some(section) => write!(f, "{}, section {section}", self.paper),
            None => f.write_str(self.paper),
        }
    }
}

/// A benchmark cap: states larger than this are not loaded into the structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cap {
    /// The most profile entries a benchmark state may have.
    pub entries: usize,
    /// Why, as the benchmark and report print it.
    pub why: &'static str,
}

/// Everything resbench knows about one structure.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// One line: what it is.
    pub description: &'static str,
    /// A new index of this structure, all resources free from time 0.
    pub build: fn(u32, Config) -> Result<Box<dyn AvailabilityIndex>, Error>,
    /// The horizon in slots it gets when it needs one and none is given; `None` when it
    /// needs none.
    pub default_horizon_slots: Option<u64>,
    /// What [`AvailabilityIndex::size`] counts.
    pub size_unit: SizeUnit,
    /// What a [`Cost`](crate::Cost)'s `visited` and `worst` count.
    pub cost_unit: &'static str,
    /// How its `visited / worst` ratios read, for the replay report.
    pub cost_reading: &'static str,
    /// Its cost per operation.
    pub theory: Theory,
    /// The benchmarks' cap, if any.
    pub cap: Option<Cap>,
    /// Whether every call visits each slot of its window (and `earliest` each window of
    /// its candidates), so that a replay's work grows with the slots per window rather
    /// than with the profile; the replay estimates that work up front.
    pub scans_window_slots: bool,
    /// The paper it comes from.
    pub source: Source,
}

/// What a structure's [`AvailabilityIndex::size`] counts, named in its own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeUnit {
    /// The instants from the present on where the free set changes, the present first:
    /// a canonical profile's entries. The oracle counts them too, so the differential
    /// driver checks the size.
    ChangePoints(&'static str),
    /// Records of the structure's own, which nothing else counts.
    Own(&'static str),
}

impl SizeUnit {
    /// The unit's name, for reports.
    pub fn name(self) -> &'static str {
        match self {
            SizeUnit::ChangePoints(name) | SizeUnit::Own(name) => name,
        }
    }
}

/// The horizon, in slots, a structure that needs one gets when none is given.
pub const DEFAULT_HORIZON_SLOTS: u64 = 256;

fn build<E: Engine + 'static>(capacity: u32, config: Config) -> Result<Box<dyn AvailabilityIndex>, Error> {
    Ok(Box::new(Shell::<E>::new(capacity, config)?))
}

/// The spec of an availability profile on engine `E`: every profile counts profile
/// entries, reads its ratios against rbtree-availability-profile's worst case, comes
/// from that paper, needs no horizon and scans no window slot by slot.
const fn profile_spec<E: Engine + 'static>(
    description: &'static str,
    theory: Theory,
    cap: Option<Cap>,
) -> Spec {
    Spec {
        description,
        build: build::<E>,
        default_horizon_slots: None,
        size_unit: SizeUnit::ChangePoints("profile entries"),
        cost_unit: "profile entries",
        cost_reading: "Its unit is profile entries and its worst case rbtree-availability-profile's (section IV: m for check, m² for earliest), so it is the paper's own measure.",
        theory,
        cap,
        scans_window_slots: false,
        source: Source { paper: "rbtree-availability-profile", section: Some("III") },
    }
}

impl Kind {
    /// Every structure, in the order tables list them (the enum's).
    pub const ALL: &'static [Kind] = <Kind as strum::VariantArray>::VARIANTS;

    /// The structure used where one is needed (snapshots, horizons, expected answers,
    /// the replay report's Figure 6): rbtree-availability-profile's own.
    pub const REFERENCE: Kind = Kind::RbTree;

    /// This structure's facts.
    pub const fn spec(self) -> Spec {
        match self {
            Kind::RbTree => profile_spec::<<RbTreeProfile as Built>::Engine>(
                "the availability profile in a red-black tree threaded by a linked list",
                Theory::uniform("O(log n)", 0.0),
                None,
            ),
            Kind::SortedList => profile_spec::<<SortedListProfile as Built>::Engine>(
                "the availability profile in a sorted list walked from its head (the O(n) baseline)",
                Theory::uniform("O(n): walks from the head; updates shift a vector", 1.0),
                Some(Cap { entries: 100_000, why: "O(n²) to load" }),
            ),
            Kind::BTree => profile_spec::<<BTreeProfile as Built>::Engine>(
                "the availability profile on std::collections::BTreeMap",
                Theory {
                    counted_queries: Some(Bound { text: "O(n): the accounting counts the rank", exponent: 1.0 }),
                    ..Theory::uniform("O(log n)", 0.0)
                },
                None,
            ),
            Kind::SlottedArray => Spec {
                description: "an array of time slots over a rolling horizon, each with its free set and the reservations starting in it",
                build: build::<<SlottedArray as Built>::Engine>,
                default_horizon_slots: Some(DEFAULT_HORIZON_SLOTS),
                size_unit: SizeUnit::Own("slots plus reservations"),
                cost_unit: "slots",
                cost_reading: "Its unit is slots and its worst case every slot of the window (check) or of every candidate window (earliest): a check that admits visits every slot of its window, so admitted checks sit at 100 %.",
                theory: Theory::uniform("O(window slots): direct indexing", 0.0),
                cap: Some(Cap { entries: 20_000, why: "too slow to load" }),
                scans_window_slots: true,
                source: Source { paper: "fcfs-eds-slotted-array", section: Some("3") },
            },
            Kind::SegmentTree => Spec {
                description: "a segment tree over the slots of a rolling horizon, with lazy range updates",
                build: build::<<SegmentTree as Built>::Engine>,
                default_horizon_slots: Some(DEFAULT_HORIZON_SLOTS),
                size_unit: SizeUnit::Own("tree nodes"),
                cost_unit: "tree nodes",
                cost_reading: "Its unit is tree nodes and its worst case 4 nodes a level per range query (6 + 4 per candidate for earliest): a range query touches a fixed share of that bound, so its ratios sit in a narrow band.",
                theory: Theory::uniform("O(log n)", 0.0),
                cap: None,
                scans_window_slots: false,
                source: Source { paper: "Burchard (2005) and Brodnik & Nilsson, on slot trees", section: None },
            },
            Kind::CalendarQueue => Spec {
                description: "the availability profile's change points in Brown's calendar queue with GarQ's per-bucket summaries",
                build: build::<<CalendarQueue as Built>::Engine>,
                default_horizon_slots: None,
                size_unit: SizeUnit::ChangePoints("change points"),
                cost_unit: "buckets plus change points",
                cost_reading: "Its unit is buckets plus change points and its worst case every point held plus two bucket visits per day walked: a loose bound, so low ratios say less than the profiles'.",
                theory: Theory::uniform("O(1) expected", 0.0),
                cap: None,
                scans_window_slots: false,
                source: Source { paper: "Brown (1988), calendar queues; Sulistio et al. (2009), GarQ", section: None },
            },
            Kind::IdleTrees => Spec {
                description: "per-slot 2-D trees of each server's idle periods, searched in two phases",
                build: build::<<IdlePeriodTrees as Built>::Engine>,
                default_horizon_slots: None,
                size_unit: SizeUnit::Own("idle periods, once per tree"),
                cost_unit: "tree nodes",
                cost_reading: "Its unit is tree nodes (Phase 1's primary plus Phase 2's secondary) and its worst case coallocation-2d-trees' L + L² per attempt for a tree of L levels, summed over the candidates earliest tries: aligned time makes Phase 1 mark the whole tree, so ratios sit high.",
                theory: Theory {
                    check: Bound { text: "O((log N)²) per attempt, N servers", exponent: 0.0 },
                    earliest: Bound { text: "O((log N)²) per attempt, N servers", exponent: 0.0 },
                    allocate: Bound { text: "O(n N): merges into every run an open-ended period spans; a run's tree is filled, O(N log N), on its next search", exponent: 1.0 },
                    release: Bound { text: "O(n N): merges into every run an open-ended period spans; a run's tree is filled, O(N log N), on its next search", exponent: 1.0 },
                    ..Theory::uniform("O(window runs)", 0.0)
                },
                cap: Some(Cap { entries: 20_000, why: "too slow to load" }),
                scans_window_slots: false,
                source: Source { paper: "coallocation-2d-trees", section: Some("4.1") },
            },
            Kind::SkipList => Spec {
                description: "the reservations in Hanson & Johnson's interval skip list",
                build: build::<<IntervalSkipList as Built>::Engine>,
                default_horizon_slots: None,
                size_unit: SizeUnit::Own("skip-list nodes"),
                cost_unit: "skip-list nodes and markers",
                cost_reading: "Its unit is skip-list nodes and markers examined and its worst case every node twice plus every marker and every reservation, per candidate tried: a loose bound, so low ratios say less than the profiles'.",
                theory: Theory::uniform("O(log n) expected, plus the reservations met", 0.0),
                cap: None,
                scans_window_slots: false,
                source: Source { paper: "rspb-priorities-benefit-functions", section: Some("3.4") },
            },
            Kind::AugTree => Spec {
                // The profile's units and reading, but its own source: the augmentation is not the paper's.
                source: Source { paper: "rbtree-availability-profile, section III, with CLRS 14.2's augmentation", section: None },
                ..profile_spec::<<AugTreeProfile as Built>::Engine>(
                    "the availability profile in a red-black tree whose subtrees keep their runs between entries with too few free ids, at power-of-two thresholds, so earliest skips the runs too short to host n for the duration",
                    Theory {
                        earliest: Bound {
                            text: "O((c + 1) log n + w): c candidates the runs at the largest power of two <= n cannot rule out, w entries intersected in their windows",
                            exponent: 0.0,
                        },
                        ..Theory::uniform("O(log n)", 0.0)
                    },
                    None,
                )
            },
            Kind::Flat => profile_spec::<<FlatProfile as Built>::Engine>(
                "the availability profile in flat arrays (keys, free counts, free sets as words of the capacity's width): binary-searched, walked in place, shifted by an update; at most 65,536 ids",
                Theory {
                    allocate: Bound { text: "O(n): an entry added or removed shifts those after it, in one memmove", exponent: 1.0 },
                    release: Bound { text: "O(n): an entry added or removed shifts those after it, in one memmove", exponent: 1.0 },
                    replay: Bound { text: "O(n): each placement shifts the entries after its window", exponent: 1.0 },
                    ..Theory::uniform("O(log n): a binary search, then the window's entries", 0.0)
                },
                Some(Cap { entries: 100_000, why: "O(n²) to load" }),
            ),
        }
    }

    /// The name the command line uses.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// Whether the structure covers a bounded horizon of slots.
    pub const fn needs_horizon(self) -> bool {
        self.spec().default_horizon_slots.is_some()
    }

    /// `config` as this structure runs it: one that needs a horizon and has none gets its
    /// default number of slots.
    pub fn config_for(self, config: Config) -> Config {
        match (config.horizon, self.spec().default_horizon_slots) {
            (None, Some(slots)) => Config { horizon: Some(config.slot.saturating_mul(slots)), ..config },
            _ => config,
        }
    }

    /// The invariant `why` broken in this structure, for its `validate`.
    pub(crate) fn invalid(self, why: impl Into<String>) -> Invalid {
        Invalid::new(self.name(), why)
    }

    /// A new index of this kind with all resources free from time 0.
    ///
    /// # Errors
    /// [`Error::BadConfig`] for a zero capacity or an invalid configuration.
    pub fn build(self, capacity: u32, config: Config) -> Result<Box<dyn AvailabilityIndex>, Error> {
        (self.spec().build)(capacity, config)
    }
}

/// The engine behind a structure's public type, so that the registry names each
/// structure by the type users know.
trait Built {
    type Engine: Engine + 'static;
}

impl<E: Engine + 'static> Built for Shell<E> {
    type Engine = E;
}

/// A kind is written as its name.
impl Serialize for Kind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer)?.parse().map_err(de::Error::custom)
    }
}

impl FromStr for Kind {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        by_name(Kind::ALL, Kind::name, "structure", s)
    }
}

/// A name that no value of a closed set of named values has (a structure, an operation,
/// a policy): what [`by_name`] refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {name:?}; known: {known}")]
pub struct UnknownName {
    /// What the set's values are: `structure`, `operation`, `policy`, ...
    pub what: &'static str,
    /// The name given.
    pub name: String,
    /// The known names, in the set's order, separated by `, `.
    pub known: String,
}

/// The value of `all` whose `name` is `s`, for the `FromStr` of a closed set of named
/// values (structures here, operations in the oracle).
///
/// # Errors
/// [`UnknownName`] for an unknown name, saying which `what` it is not and listing the
/// known ones.
pub fn by_name<T: Copy>(
    all: &[T],
    name: fn(T) -> &'static str,
    what: &'static str,
    s: &str,
) -> Result<T, UnknownName> {
    all.iter().copied().find(|&v| name(v) == s).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|&v| name(v)).collect();
        UnknownName { what, name: s.to_owned(), known: names.join(", ") }
    })
}
