//! Arbitrary bytes into the SWF reader: a value or a clear error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| traces::swf::fuzz(data));
