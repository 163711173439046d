//! Differential fuzzing: generated op sequences on every structure (or those named in
//! `RESBENCH_FUZZ_STRUCTURES`, or in a JSON case) beside the oracle, through the one
//! driver. Prints `diff: N ops, M cases, 0 divergences` as it goes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oracle::campaign::{fuzz, Case};

fuzz_target!(|case: Case| fuzz(&case));
