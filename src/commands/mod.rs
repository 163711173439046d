//! The subcommands, one module each: argument parsing and printing around the library
//! crates' calls.

pub mod campaign;
pub mod coreserve;
pub mod coreserve_service;
pub mod external;
pub mod ops;
pub mod replay;
pub mod report;
pub mod rspb;

/// This process's command line as a user would retype it: `resbench` and its arguments,
/// quoted where they hold spaces.
pub fn command_line() -> String {
    retyped(std::env::args().skip(1))
}

/// The command line of the whole run this process is a part of: [`command_line`] without
/// `--shard` and `-j`, which change neither the runs nor their files, so that every
/// shard's run files name the command of the run they add up to.
pub fn whole_command_line() -> String {
    without_parts(std::env::args().skip(1))
}

fn without_parts(args: impl Iterator<Item = String>) -> String {
    let mut kept = Vec::new();
    let mut skip_value = false;
    for arg in args {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        match arg.as_str() {
            "--shard" | "--jobs" | "-j" => skip_value = true,
            a if a.starts_with("--shard=") || a.starts_with("--jobs=") => {}
            a if a.starts_with("-j") && a.len() > 2 => {}
            _ => kept.push(arg),
        }
    }
    retyped(kept.into_iter())
}

fn retyped(args: impl Iterator<Item = String>) -> String {
    let args = args.map(|a| if a.contains(' ') { format!("'{a}'") } else { a });
    std::iter::once("resbench".to_owned()).chain(args).collect::<Vec<_>>().join(" ")
}

/// `--shard K/N`: the K-th (from 1) of N deterministic parts of a sweep's runs. Run `i`
/// of the sweep (in the order a single run makes them) belongs to part `i mod N + 1`, so
/// the parts are as even as the runs allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Which part, from 1.
    pub index: u32,
    /// How many parts.
    pub count: u32,
}

impl Shard {
    /// This part of a sweep's `runs` (in the order a single run makes them).
    pub fn part<T>(self, runs: Vec<T>) -> Vec<T> {
        let (n, k) = (self.count as usize, (self.index - 1) as usize);
        runs.into_iter().enumerate().filter(|&(i, _)| i % n == k).map(|(_, run)| run).collect()
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        use traces::limits::MAX_SHARDS;
        let parse = |part: &str| part.trim().parse::<u32>().ok();
        match s.split_once('/').map(|(k, n)| (parse(k), parse(n))) {
            Some((Some(index), Some(count)))
                if (1..=MAX_SHARDS).contains(&count) && (1..=count).contains(&index) =>
            {
                Ok(Shard { index, count })
            }
            _ => Err(format!("expected K/N with 1 <= K <= N <= {MAX_SHARDS}, e.g. 2/4")),
        }
    }
}

/// The most independent runs `-j` runs at once: more threads than runs would idle.
pub const MAX_JOBS: i64 = 256;

/// A pool of `jobs` threads (every core when `None`) for a command's independent runs.
///
/// # Errors
/// The threads cannot be started.
pub fn thread_pool(jobs: Option<u16>) -> anyhow::Result<rayon::ThreadPool> {
    let threads =
        jobs.map_or_else(|| std::thread::available_parallelism().map_or(1, usize::from), usize::from);
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start {threads} threads: {e}"))
}
