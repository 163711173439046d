//! Differential fuzzing: generated op sequences on the `idletrees` structure beside the oracle.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oracle::campaign::{fuzz, Case};

fuzz_target!(|case: Case| fuzz("diff_idletrees", &case));
