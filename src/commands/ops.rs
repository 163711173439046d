//! `resbench ops`: a JSON-lines op stream from stdin applied to one structure.

use std::io;

use anyhow::{bail, Result};
use external::ops_stream;
use oracle::Counts;
use structures::Config;

/// The op stream's command-line arguments.
#[derive(clap::Args)]
pub struct Args {
    /// The structure to drive.
    #[arg(long, value_parser = crate::commands::replay::structure_values(("oracle", "the brute-force reference")))]
    structure: String,
    /// Number of resources.
    #[arg(long)]
    capacity: u32,
    /// Slot width.
    #[arg(long, default_value_t = 1)]
    slot: u64,
    /// Horizon past the present, a multiple of the slot.
    #[arg(long)]
    horizon: Option<u64>,
    /// Count ops (`count` where an id op has `set`) on the count view's reference, which
    /// answers how many resources are free, not which; only with `--structure oracle`.
    #[arg(long)]
    counts: bool,
}

/// Runs the command.
pub fn run(args: &Args) -> Result<()> {
    let config = Config { slot: args.slot, horizon: args.horizon };
    let (input, output) = (io::stdin().lock(), io::stdout().lock());
    let result = if args.counts {
        if args.structure != "oracle" {
            bail!("--counts runs on the count view's reference only: pass --structure oracle");
        }
        ops_stream::run_counts(&mut Counts::new(args.capacity, config)?, input, output)
    } else {
        let mut index = ops_stream::build(&args.structure, args.capacity, config)?;
        ops_stream::run(index.as_mut(), input, output)
    };
    match result {
        // The writer's own error, so that `closed_pipe` sees a reader that went away.
        Err(ops_stream::StreamError::Write(e)) => Err(e.into()),
        other => other.map(drop).map_err(Into::into),
    }
}
