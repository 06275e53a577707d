//! The engine fed arbitrary sequences of response heads, bodies, ends, errors and time:
//! no panic, one request at a time, backoff floor, bounded store.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kubelive_tests::arbitrary::engine(data);
});
