#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| shardlens_fuzz::targets::app_state(data));
