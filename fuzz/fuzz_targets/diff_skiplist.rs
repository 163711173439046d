//! Differential fuzzing: generated op sequences on the `skiplist` structure beside the oracle.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oracle::campaign::{fuzz, Case};

fuzz_target!(|case: Case| fuzz("diff_skiplist", &case));
