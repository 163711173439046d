//! `resbench ops`: a JSON-lines op stream from stdin applied to one structure.

use std::io;

use anyhow::Result;
use external::ops_stream;
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
}

/// Runs the command.
pub fn run(args: &Args) -> Result<()> {
    let config = Config { slot: args.slot, horizon: args.horizon };
    let mut index = ops_stream::build(&args.structure, args.capacity, config)?;
    match ops_stream::run(index.as_mut(), io::stdin().lock(), io::stdout().lock()) {
        // The writer's own error, so that `closed_pipe` sees a reader that went away.
        Err(ops_stream::StreamError::Write(e)) => Err(e.into()),
        other => other.map(drop).map_err(Into::into),
    }
}
