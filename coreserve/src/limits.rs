//! The limits of every input-driven quantity of co-reservation (D11): the protocol's,
//! the simulator's and the services', in one place so that none is missed or stated
//! twice. Past a limit, input is refused with an error naming it.

/// The most holds one query grants.
pub const MAX_HOLDS: u32 = 16;
/// The most candidate starts one query scans.
pub const MAX_SCAN: u64 = 256;
/// The most claims one message names.
pub const MAX_CLAIMS: usize = 64;
/// The most managers one co-reservation spans.
pub const MAX_PARTS: usize = 64;
/// The most waiters a manager queues.
pub const MAX_WAITERS: usize = 4096;
/// The most undecided transactions a coordinator keeps.
pub const MAX_OPEN_TXNS: usize = 65_536;
/// The most replies a manager caches for retried requests.
pub const MAX_REPLIES: usize = 65_536;
/// The most aborted transactions a manager remembers (for late prepares).
pub const MAX_ABORTED: usize = 65_536;
/// The most managers a simulation, a services' `load` run or a `reserve` starts or names.
pub const MAX_MANAGERS: u32 = 64;
/// The most clients of a simulation.
pub const MAX_CLIENTS: u32 = 10_000;
/// The most steps a simulation takes per RNG seed.
pub const MAX_STEPS: u64 = 10_000_000;
/// The largest message body a service node reads, in bytes.
pub const MAX_BODY: usize = 64 * 1024;
/// The most resources a service's manager has.
pub const MAX_CAPACITY: u32 = 1024;
/// The most clients of one services' `load` run.
pub const MAX_LOAD_CLIENTS: u32 = 256;
/// The longest services' `load` run, in seconds.
pub const MAX_LOAD_SECONDS: u64 = 600;
/// The longest address a service's message may carry.
pub const MAX_ADDR: usize = 64;
/// The most clients' addresses a service node remembers (past it, it forgets them;
/// managers' addresses are configured, never learned).
pub const MAX_BOOK: usize = 65_536;
