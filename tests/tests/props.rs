//! The fuzz targets (`fuzz/`) as deterministic seeded property tests, so CI runs them
//! without nightly: the decoders fed arbitrary chunks, the engine fed arbitrary
//! response sequences. Every input a fuzzer found crashing is kept under
//! `tests/corpus/<target>/` and replayed here.
//!
//! `KUBELIVE_PROPS_CASES=N` runs N cases per target (default 3 000 in release, 300 in
//! debug builds).

use kubelive_core::saved::checksum;
use kubelive_core::{Collection, Config, Engine, IncludeObject, Instant, KeptMetadata, SavedView};
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

fn table_config() -> Config {
    let mut c =
        Config::new(Collection::parse("/api/v1/pods").unwrap()).tables(IncludeObject::Metadata);
    c.metadata = KeptMetadata::Identity;
    c
}

/// A saved view of a few rows of every shape, made by a real engine.
fn saved_view() -> Vec<u8> {
    let rows: Vec<String> = (0..6)
        .map(|i| {
            let ns = if i % 3 == 0 { String::new() } else { format!(r#""namespace":"ns-{i}","#) };
            let deleted = if i % 2 == 0 { r#","deletionTimestamp":"2026-01-02T00:00:00Z""# } else { "" };
            format!(
                r#"{{"cells":["p{i}",{i},null,true,"\u00e9{}",1.5,[1]],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"name":"p{i}",{ns}"uid":"u{i}","resourceVersion":"{i}","creationTimestamp":"2026-01-01T00:00:00Z"{deleted}}}}}}}"#,
                "x".repeat(i * 30)
            )
        })
        .collect();
    let body = format!(
        r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"9"}},"columnDefinitions":[{{"name":"Name","type":"string","format":"name","description":"","priority":0}},{{"name":"N","type":"integer","format":"","description":"","priority":1}}],"rows":[{}]}}"#,
        rows.join(",")
    );
    let mut engine = Engine::new(table_config(), Instant::ZERO);
    let list = engine.poll_request().unwrap();
    engine.handle_response(list.id, 200, &[], Instant::ZERO);
    engine.handle_body(list.id, body.as_bytes(), Instant::ZERO);
    engine.handle_end(list.id, Instant::ZERO);
    let watch = engine.poll_request().unwrap();
    engine.handle_response(watch.id, 200, &[], Instant::ZERO);
    engine.save_view().unwrap()
}

/// A saved view with seeded damage (bytes changed, cut, repeated or inserted), its
/// checksum made valid again so that the reader's own checks are what stand.
fn damaged_view(seed: u64, good: &[u8]) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut body = good[..good.len() - 8].to_vec();
    for _ in 0..1 + next() % 4 {
        let at = 5 + (next() as usize) % (body.len() - 5);
        match next() % 4 {
            0 => body[at] = next() as u8,
            1 => body.truncate(at),
            2 => {
                let n = (next() as usize % 16).min(body.len() - at);
                let copy = body[at..at + n].to_vec();
                body.splice(at..at, copy);
            }
            _ => body.insert(at, [0x00, 0x7F, 0x80, 0xFF, b'"'][next() as usize % 5]),
        }
        if body.len() <= 5 {
            break;
        }
    }
    let sum = checksum(&body);
    body.extend_from_slice(&sum.to_le_bytes());
    body
}

/// A saved view read back: decoding never panics, and whatever decodes restores into
/// an engine whose rows read without a panic.
fn restore_damaged(data: &[u8]) {
    if let Ok(view) = SavedView::decode(data) {
        if let Ok(mut engine) = Engine::restore(table_config(), view, Instant::ZERO) {
            while engine.poll_event().is_some() {}
            for row in engine.store().iter() {
                let _ = (
                    row.json(),
                    row.cells_json(),
                    row.cells().map(Iterator::count),
                );
            }
            let _ = engine.save_view();
        }
    }
}

#[test]
fn saved_views_damaged_under_a_valid_checksum() {
    let good = saved_view();
    let view = SavedView::decode(&good).expect("the undamaged view");
    assert_eq!(view.rows().len(), 6);
    assert!(Engine::restore(table_config(), view, Instant::ZERO).is_ok());
    run_cases("saved views", |s| damaged_view(s, &good), restore_damaged);
}

#[test]
fn saved_views_on_arbitrary_bytes() {
    run_cases(
        "saved views",
        |s| seeded_input(s ^ 0x5A7E, 2_000),
        restore_damaged,
    );
}
