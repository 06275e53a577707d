//! The fuzz targets (`fuzz/`) as deterministic seeded property tests, so CI runs them
//! without nightly: the decoders fed arbitrary chunks, the engine fed arbitrary
//! response sequences. Every input a fuzzer found crashing is kept under
//! `tests/corpus/<target>/` and replayed here.
//!
//! `KUBELIVE_PROPS_CASES=N` runs N cases per target (default 3 000 in release, 300 in
//! debug builds).

use kubelive_tests::arbitrary::{decoders, engine, seeded_engine_input, seeded_input};
use std::path::Path;

fn cases() -> u64 {
    std::env::var("KUBELIVE_PROPS_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 300 } else { 3_000 })
}

fn run_cases(name: &str, gen: impl Fn(u64) -> Vec<u8>, f: fn(&[u8])) {
    for seed in 0..cases() {
        let data = gen(seed);
        let r = std::panic::catch_unwind(|| f(&data));
        if r.is_err() {
            panic!(
                "{name}: seed {seed} failed; input ({} bytes): {data:?}",
                data.len()
            );
        }
    }
}

/// Replays every file in `tests/corpus/<dir>` (crashes found by fuzzing, and seeds).
fn replay_corpus(dir: &str, f: fn(&[u8])) -> usize {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(dir);
    let Ok(entries) = std::fs::read_dir(&path) else {
        return 0;
    };
    let mut n = 0;
    let mut files: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    files.sort();
    for file in files {
        let data = std::fs::read(&file).expect("readable corpus file");
        let r = std::panic::catch_unwind(|| f(&data));
        assert!(r.is_ok(), "corpus input {} fails", file.display());
        n += 1;
    }
    n
}

#[test]
fn decoders_on_arbitrary_chunks() {
    run_cases("decoders", |s| seeded_input(s ^ 0xF00D, 3_000), decoders);
}

#[test]
fn engine_on_arbitrary_responses() {
    run_cases("engine", |s| seeded_input(s ^ 0xE4, 600), engine);
}

#[test]
fn engine_on_protocol_like_responses() {
    run_cases("engine", |s| seeded_engine_input(s, 60), engine);
}

#[test]
fn corpus_decoders() {
    replay_corpus("decoders", decoders);
}

#[test]
fn corpus_engine() {
    replay_corpus("engine", engine);
}
