//! Watch-stream decoding throughput: kubelive's WatchDecoder against serde_json, on
//! ~20 MiB of realistic pod events from `kubelive_sim::watch_event_stream`.
//!
//! `cargo bench -p kubelive-core --bench decode`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kubelive_core::decode::{WatchDecoder, WatchFrame};
use kubelive_core::{ColumnKind, Limits, Object, ParseOptions};
use serde_json::Value;
use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

const CHUNK: usize = 64 << 10;

/// (a) kubelive: decode in 64 KiB chunks and apply to a map keyed by namespace/name
/// (a stand-in for the store: the key buffer is reused, replaced entries updated in
/// place, as a store would).
fn kubelive(stream: &[u8], opts: ParseOptions) -> usize {
    let mut dec = WatchDecoder::new(Limits::default(), opts);
    let mut map: HashMap<String, Object> = HashMap::new();
    let mut frames = Vec::new();
    let mut key = String::new();
    let mut rv = String::new();
    let mut apply = |f: WatchFrame, map: &mut HashMap<String, Object>| match f {
        WatchFrame::Added(o) | WatchFrame::Modified(o) => {
            rv.clear();
            rv.push_str(o.resource_version());
            key.clear();
            key.push_str(o.namespace());
            key.push('/');
            key.push_str(o.name());
            match map.get_mut(key.as_str()) {
                Some(slot) => *slot = o,
                None => {
                    map.insert(key.clone(), o);
                }
            }
        }
        WatchFrame::Deleted(o) => {
            rv.clear();
            rv.push_str(o.resource_version());
            key.clear();
            key.push_str(o.namespace());
            key.push('/');
            key.push_str(o.name());
            map.remove(key.as_str());
        }
        WatchFrame::Bookmark {
            resource_version, ..
        } => rv = resource_version,
        WatchFrame::Columns(_) => {}
        WatchFrame::Error { .. } => unreachable!(),
    };
    for chunk in stream.chunks(CHUNK) {
        dec.feed(chunk, &mut frames).expect("valid stream");
        for f in frames.drain(..) {
            apply(f, &mut map);
        }
    }
    dec.finish(&mut frames).expect("clean end");
    for f in frames.drain(..) {
        apply(f, &mut map);
    }
    map.len()
}

/// (b) serde_json::Value per line, applied to a map.
fn serde_value(stream: &[u8]) -> usize {
    let mut map: HashMap<String, Value> = HashMap::new();
    for line in stream.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let mut v: Value = serde_json::from_slice(line).expect("valid json");
        let ty = v["type"].as_str().unwrap_or("").to_string();
        let obj = v["object"].take();
        let key = format!(
            "{}/{}",
            obj["metadata"]["namespace"].as_str().unwrap_or(""),
            obj["metadata"]["name"].as_str().unwrap_or("")
        );
        match ty.as_str() {
            "ADDED" | "MODIFIED" => {
                map.insert(key, obj);
            }
            "DELETED" => {
                map.remove(&key);
            }
            _ => {}
        }
    }
    map.len()
}

/// (c) serde_json validating skip per line.
fn serde_skip(stream: &[u8]) -> usize {
    let mut n = 0;
    for line in stream.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        serde_json::from_slice::<serde::de::IgnoredAny>(line).expect("valid json");
        n += 1;
    }
    n
}

fn bench(c: &mut Criterion) {
    let events = 3900;
    let stream = kubelive_sim::watch_event_stream(7, events);
    eprintln!(
        "stream: {} bytes, {} events, {} bytes/event",
        stream.len(),
        events,
        stream.len() / events
    );
    let pods = ParseOptions {
        strip_managed_fields: false,
        columns: ColumnKind::Pod,
    };
    let stripped = ParseOptions {
        strip_managed_fields: true,
        ..pods
    };
    let mut g = c.benchmark_group("watch_decode");
    g.throughput(Throughput::Bytes(stream.len() as u64));
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(8));
    g.bench_function("kubelive_watch_decoder_apply", |b| {
        b.iter(|| black_box(kubelive(&stream, pods)))
    });
    g.bench_function("kubelive_watch_decoder_apply_strip_managed_fields", |b| {
        b.iter(|| black_box(kubelive(&stream, stripped)))
    });
    g.bench_function("serde_json_value_apply", |b| {
        b.iter(|| black_box(serde_value(&stream)))
    });
    g.bench_function("serde_json_ignored_any", |b| {
        b.iter(|| black_box(serde_skip(&stream)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
