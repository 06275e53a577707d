//! WatchDecoder and ListDecoder fed arbitrary bytes in arbitrary chunks: no panic, bounded
//! buffers, and the same result whole, split and byte by byte.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kubelive_tests::arbitrary::decoders(data);
});
