//! `resbench verify --external` and `resbench bench --external`: their options, the
//! streams they build, and what they print.

use std::fs;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use clap::builder::PossibleValuesParser;
use external::boundary::boundary;
use external::streams::{random, read_ops, read_trace, trace, Case, Stream};
use external::verify::{
    divergences_json, first_of_each_symptom, ops_text, replay_commands, run_case, shrink, verify_watched,
    Found, Tally, Watch,
};
use external::{bench, Class, External, Limits};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use oracle::OpKind;
use scheduling::replay::{horizon_for, Mode, Options};
use structures::{Config, Kind};

/// Which streams to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Source {
    /// Ops from the shared generators with fuzzing's swarm flags.
    Random,
    /// Every index call of a plan-only replay of a trace.
    Trace,
    /// Hand-written ops at the edges: horizon, capacity, empty windows, zero counts.
    Boundary,
}

/// The options `verify` and `bench` share.
#[derive(clap::Args)]
pub struct Common {
    /// The command that starts the child (run as `sh -c CMD`, in a process group of its own).
    #[arg(long, value_name = "CMD")]
    external: String,
    /// The streams to run.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [Source::Random, Source::Trace, Source::Boundary])]
    source: Vec<Source>,
    /// Random stream: ops in all.
    #[arg(long, default_value_t = 10_000)]
    ops: usize,
    /// Random stream: ops per case (each case is a fresh scenario on a fresh child).
    #[arg(long, default_value_t = 100)]
    case_ops: usize,
    /// Random stream: the RNG seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Trace stream: an SWF trace (.swf or .swf.gz); the bundled KTH trace if omitted.
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Trace stream: replay only the first N jobs.
    #[arg(long, default_value_t = 5_000)]
    limit: usize,
    /// Trace stream: machine size (the header's MaxProcs, else MaxNodes, if omitted);
    /// with --replay: the capacity of the index.
    #[arg(long)]
    capacity: Option<u32>,
    /// Slot width: of the trace stream (default 300, the main job's five-minute slots),
    /// or with --replay of the index (default 1, as `resbench ops`).
    #[arg(long)]
    slot: Option<u64>,
    /// Horizon past the present, a multiple of the slot (trace stream or --replay).
    #[arg(long)]
    horizon: Option<u64>,
    /// The longest the child may take to answer one op, milliseconds.
    #[arg(long, default_value_t = 5_000)]
    timeout_ms: u64,
    /// The longest the child may take to answer the hello, milliseconds.
    #[arg(long, default_value_t = 10_000)]
    handshake_timeout_ms: u64,
    /// The longest line read from the child, bytes.
    #[arg(long, default_value_t = 1 << 20)]
    max_line_bytes: usize,
    /// The most ops a stream may hold.
    #[arg(long, default_value_t = 1_000_000)]
    max_ops: usize,
    /// Start a fresh child for every case and every shrinking attempt, even when the
    /// child takes `reset` messages.
    #[arg(long)]
    no_reset: bool,
}

/// `resbench verify --external`.
#[derive(clap::Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    common: Common,
    /// Stop a stream once this many of its cases have diverged.
    #[arg(long, default_value_t = 10)]
    max_divergences: usize,
    /// Pass even when a stream checked no op (the child refused all its cases, say);
    /// without it such a stream fails the run.
    #[arg(long)]
    allow_skip: bool,
    /// List and shrink only the divergences of this class.
    #[arg(long, value_parser = PossibleValuesParser::new(class_names()))]
    class: Option<String>,
    /// List and shrink only the divergences at this op.
    #[arg(long, value_parser = PossibleValuesParser::new(OpKind::ALL.iter().map(|k| k.name())))]
    op: Option<String>,
    /// The most attempts (each a fresh child) shrinking may make.
    #[arg(long, default_value_t = 1_000)]
    shrink_attempts: usize,
    /// Where the shrunk reproducer is written.
    #[arg(long, default_value = "out/external")]
    out: PathBuf,
    /// Run only this ops file (one op per line) on an index of --capacity, --slot and
    /// --horizon, instead of the streams.
    #[arg(long, value_name = "FILE", requires = "capacity")]
    replay: Option<PathBuf>,
}

/// The no-op adapter of the repository, run from its root.
const DEFAULT_NOOP: &str = "python3 examples/external/noop.py";

/// `resbench bench --external`.
#[derive(clap::Args)]
pub struct BenchArgs {
    #[command(flatten)]
    common: Common,
    /// The no-op adapter whose time is the protocol's own cost.
    #[arg(long, value_name = "CMD", default_value = DEFAULT_NOOP)]
    noop: String,
    /// Runs each median is taken over.
    #[arg(long, default_value_t = 5)]
    runs: usize,
}

impl Common {
    fn external(&self, command: &str) -> External {
        let limits = Limits {
            op_timeout: Duration::from_millis(self.timeout_ms),
            handshake_timeout: Duration::from_millis(self.handshake_timeout_ms),
            max_line: self.max_line_bytes,
        };
        let mut external = External::new(command, limits);
        external.reuse = !self.no_reset;
        external
    }

    /// The streams asked for; the trace stream gets a horizon computed from the
    /// workload when `needs_horizon` and none is given, as `resbench replay` does.
    fn streams(&self, needs_horizon: bool) -> Result<Vec<Stream>> {
        let mut streams = Vec::new();
        for source in &self.source {
            let stream = match source {
                // Refused before generating, so a huge --ops costs nothing.
                Source::Random if self.ops > self.max_ops => bail!(
                    "--ops {} is more than the cap of {} ops per stream (raise it with --max-ops)",
                    self.ops,
                    self.max_ops
                ),
                Source::Random => random(self.ops, self.case_ops, self.seed),
                Source::Boundary => boundary(),
                Source::Trace => {
                    let (name, load) = read_trace(self.trace.as_deref(), self.capacity, Some(self.limit))?;
                    let mut config = Config { slot: self.slot.unwrap_or(300), horizon: self.horizon };
                    config.validate(load.capacity).map_err(|e| anyhow!("--slot/--horizon: {e}"))?;
                    if needs_horizon && config.horizon.is_none() {
                        let options = Options { mode: Mode::PlanOnly, ..Options::default() };
                        config.horizon = Some(horizon_for(&load, config.slot, &options)?);
                    }
                    trace(&name, &load, config)?
                }
            };
            streams.push(stream.within(self.max_ops)?);
        }
        Ok(streams)
    }

    /// The --replay file as a one-case stream.
    fn replay_stream(&self, file: &std::path::Path) -> Result<Stream> {
        let capacity = self.capacity.context("--replay needs --capacity")?;
        let config = Config { slot: self.slot.unwrap_or(1), horizon: self.horizon };
        config.validate(capacity).map_err(|e| anyhow!("--capacity/--slot/--horizon: {e}"))?;
        let ops = read_ops(file)?;
        let about = format!("{} ops from {}", ops.len(), file.display());
        let case = Case { scenario: oracle::Scenario { capacity, config }, ops };
        Ok(Stream { name: "replay", about, thorough: true, goes_on: false, cases: vec![case] }
            .within(self.max_ops)?)
    }
}

/// The divergence classes as `--class` spells them.
fn class_names() -> impl Iterator<Item = &'static str> {
    Class::ALL.into_iter().filter(|c| c.is_divergence()).map(Class::slug)
}

/// Runs `verify`; an error (and a non-zero exit) on any divergence, after writing every
/// diverging case to `divergences.json` and one shrunk reproducer per symptom.
pub fn run_verify(args: &VerifyArgs) -> Result<()> {
    let common = &args.common;
    let external = common.external(&common.external);
    let streams = match &args.replay {
        Some(file) => vec![common.replay_stream(file)?],
        None => common.streams(false)?,
    };
    let mut bars = Bars::new(&streams)?;
    let summary = verify_watched(&external, &streams, args.max_divergences.max(1), &mut bars)
        .with_context(|| format!("the child `{}`", external.command))?;
    drop(bars);
    out!("{summary}")?;
    let unchecked: Vec<String> =
        summary.columns.iter().filter_map(|c| Some(format!("{}: {}", c.name, c.unchecked()?))).collect();
    if summary.ops() == 0 {
        let why = if unchecked.is_empty() { "there are no streams".to_owned() } else { unchecked.join("; ") };
        bail!("no op was checked: {why}");
    }
    if !unchecked.is_empty() && !args.allow_skip {
        bail!("not checked: {} (pass --allow-skip to accept that)", unchecked.join("; "));
    }
    if summary.found.is_empty() {
        return Ok(());
    }
    fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let list = args.out.join("divergences.json");
    let json = serde_json::to_string_pretty(&divergences_json(&summary.found))? + "\n";
    fs::write(&list, json).with_context(|| format!("cannot write {}", list.display()))?;
    outln!("every diverging case: {}", list.display())?;
    let chosen = summary.found.iter().filter(|f| {
        let symptom = f.symptom();
        args.class.as_ref().is_none_or(|c| symptom.class.slug() == c)
            && args.op.as_ref().is_none_or(|op| symptom.op.map(OpKind::name) == Some(op.as_str()))
    });
    let firsts = first_of_each_symptom(chosen);
    for (k, found) in firsts.iter().enumerate() {
        out!("symptom {} of {}: {}, first in {found}", k + 1, firsts.len(), found.symptom())?;
        report_shrunk(args, &external, found)?;
    }
    bail!("verify found {} diverging case(s), {} symptom(s) shown", summary.divergences(), firsts.len())
}

/// One progress bar per stream, on stderr (hidden when it is not a terminal).
struct Bars(Vec<ProgressBar>);

impl Bars {
    fn new(streams: &[Stream]) -> Result<Self> {
        let style =
            ProgressStyle::with_template("{prefix:>9} [{bar:30}] {pos}/{len} ops in {elapsed}: {msg}")?
                .progress_chars("=> ");
        let multi = MultiProgress::new();
        let bars = streams
            .iter()
            .map(|stream| {
                let total = stream.cases.iter().map(|c| c.ops.len() as u64).sum();
                let bar = multi.add(ProgressBar::new(total).with_style(style.clone()));
                bar.set_prefix(stream.name);
                bar
            })
            .collect();
        Ok(Bars(bars))
    }
}

impl Watch for Bars {
    fn progress(&mut self, stream: &'static str, tally: &Tally) {
        if let Some(bar) = self.0.iter().find(|bar| bar.prefix() == stream) {
            bar.set_position(tally.taken);
            bar.set_message(format!(
                "checked {}, not sent {}, unchecked {}, diverging cases {}",
                tally.checked,
                tally.not_sent,
                tally.unchecked(),
                tally.diverged
            ));
        }
    }
}

impl Drop for Bars {
    fn drop(&mut self) {
        for bar in &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// Shrinks a divergence, keeping its symptom, writes the shrunk case and the original one
/// as ops files, and prints how to replay the shrunk one.
fn report_shrunk(args: &VerifyArgs, external: &External, first: &Found) -> Result<()> {
    let shrunk = shrink(external, first, args.shrink_attempts);
    let how = match (shrunk.reproduced, shrunk.exhausted) {
        (false, _) => "it did not diverge again on a fresh child, so it is not shrunk".to_owned(),
        (true, true) => format!(
            "stopped at the bound of {} attempts (raise it with --shrink-attempts)",
            args.shrink_attempts
        ),
        (true, false) => format!("{} attempts", shrunk.attempts),
    };
    let name = format!("{}-{}", first.stream, first.symptom().slug());
    let original = args.out.join(format!("{name}.original.ops"));
    let text = ops_text(&first.ops, first.query.as_ref(), first.semantics);
    fs::write(&original, &text).with_context(|| format!("cannot write {}", original.display()))?;
    // The reproducer's own divergence, as the child and the oracle answer it now.
    let again = run_case(external, first.scenario, &shrunk.items, first.thorough)?;
    let file = args.out.join(format!("{name}.ops"));
    let text = ops_text(&shrunk.items, again.query.as_ref(), first.semantics);
    fs::write(&file, &text).with_context(|| format!("cannot write {}", file.display()))?;
    outln!(
        "shrunk from {} to {} ops ({how}), written to {} (the original case: {}):",
        first.ops.len(),
        shrunk.items.len(),
        file.display(),
        original.display()
    )?;
    out!("{}", text.lines().map(|l| format!("  {l}\n")).collect::<String>())?;
    if again.query.is_some() {
        outln!("  (the last line is the whole-state query the comparison ran after the op before it)")?;
    }
    if let Some(step) = again.divergence {
        outln!("  -> {}", step.class)?;
        if let Some(child) = &step.child {
            outln!("  child:  {child}")?;
        }
        if let Some(oracle) = &step.oracle {
            outln!("  oracle: {oracle}")?;
        }
    }
    outln!("replay it with:")?;
    for command in replay_commands(&external.command, first.scenario, first.semantics, &file) {
        outln!("  {command}")?;
    }
    Ok(())
}

/// Runs `bench`.
pub fn run_bench(args: &BenchArgs) -> Result<()> {
    let common = &args.common;
    let external = common.external(&common.external);
    let noop = common.external(&args.noop);
    // Only the default names a file relative to the checkout; any other command is the
    // user's to get right, and a missing file shows as the child's crash.
    if args.noop == DEFAULT_NOOP && !std::path::Path::new("examples/external/noop.py").exists() {
        bail!("the no-op adapter examples/external/noop.py is not here: run from the repository root, or pass --noop CMD");
    }
    let streams = common.streams(Kind::ALL.iter().any(|kind| kind.needs_horizon()))?;
    for stream in &streams {
        outln!("{}: {}", stream.name, stream.about)?;
    }
    let table = bench::bench(&external, &noop, &streams, args.runs).map_err(anyhow::Error::msg)?;
    out!("{table}")?;
    Ok(())
}
