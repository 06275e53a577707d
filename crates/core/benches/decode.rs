//! Decoding throughput: kubelive's WatchDecoder against serde_json, on ~20 MiB of
//! realistic pod events from `kubelive_sim::watch_event_stream`; the same events as a
//! Table watch (one-row Tables, as kube-apiserver sends them to `kubectl get -w`); and a
//! LIST of 2,000 realistic pods through a real Engine as objects and as Table rows.
//!
//! `cargo bench -p kubelive-core --bench decode`

#[path = "common/tables.rs"]
mod tables;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kubelive_core::decode::{WatchDecoder, WatchFrame};
use kubelive_core::{
    Collection, ColumnKind, Config, Engine, IncludeObject, Instant, Limits, Object, ParseOptions,
};
use kubelive_sim::printers::IncludeObject as Rows;
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

/// A fresh engine fed one LIST response (64 KiB chunks, events drained): decode and
/// apply into the real store. Returns the objects held.
fn engine_list(body: &[u8], config: &Config) -> usize {
    let now = Instant::ZERO;
    let mut engine = Engine::new(config.clone(), now);
    let list = engine.poll_request().expect("a LIST request");
    engine.handle_response(list.id, 200, &[], now);
    for chunk in body.chunks(CHUNK) {
        engine.handle_body(list.id, chunk, now);
        while engine.poll_event().is_some() {}
    }
    engine.handle_end(list.id, now);
    while engine.poll_event().is_some() {}
    engine.store().len()
}

fn bench_lists(c: &mut Criterion) {
    const N: u64 = 2_000;
    let pods = tables::pods(42, N);
    let base = {
        let mut c = Config::new(Collection::parse("/api/v1/pods").expect("collection"));
        c.page_size = 0;
        c.limits.max_document_bytes = 1 << 20;
        c
    };
    let stripped = Config {
        strip_managed_fields: true,
        ..base.clone()
    };
    let cases = [
        ("objects", tables::plain_list(&pods), base.clone()),
        (
            "objects_strip_managed_fields",
            tables::plain_list(&pods),
            stripped,
        ),
        (
            "table_metadata",
            tables::table_list(&pods, Rows::Metadata),
            base.clone().tables(IncludeObject::Metadata),
        ),
        (
            "table_object",
            tables::table_list(&pods, Rows::Object),
            base.clone().tables(IncludeObject::Object),
        ),
    ];
    let mut g = c.benchmark_group("list_decode_apply_2000_pods");
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(6));
    for (name, body, config) in &cases {
        eprintln!(
            "{name}: {} bytes, {} bytes/pod",
            body.len(),
            body.len() as u64 / N
        );
        assert_eq!(engine_list(body, config), N as usize);
        g.throughput(Throughput::Bytes(body.len() as u64));
        g.bench_function(*name, |b| b.iter(|| black_box(engine_list(body, config))));
    }
    g.finish();
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
        metadata: kubelive_core::KeptMetadata::All,
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

    // The same events as a Table watch (includeObject=Metadata): fewer bytes, each
    // event a one-row Table; rows keep metadata (managedFields dropped) and cells.
    let table = tables::table_stream(&stream, Rows::Metadata);
    eprintln!(
        "table stream: {} bytes, {} bytes/event",
        table.len(),
        table.len() / events
    );
    let mut g = c.benchmark_group("watch_decode_table");
    g.throughput(Throughput::Bytes(table.len() as u64));
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(8));
    g.bench_function("kubelive_watch_decoder_apply_table_metadata", |b| {
        b.iter(|| black_box(kubelive(&table, stripped)))
    });
    g.bench_function("serde_json_ignored_any", |b| {
        b.iter(|| black_box(serde_skip(&table)))
    });
    g.finish();
}

criterion_group!(benches, bench, bench_lists);
criterion_main!(benches);
