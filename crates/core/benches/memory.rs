//! Memory held per raw JSON byte for 50,000 realistic pods (`kubelive_sim::pod_json`,
//! ~5 KB each): the engine's real Store filled through the engine (one LIST
//! response), with and without managedFields, from a pretty-printed answer, and as
//! server-side table rows (the same pods printed by `kubelive_sim::printers`), against a
//! serde_json::Value map. A counting global allocator is the ground truth;
//! `Store::heap_bytes()` is checked against it. Also the bytes on the wire per pod of
//! each answer.
//!
//! `cargo bench -p kubelive-core --bench memory`

#[path = "common/tables.rs"]
mod tables;

use kubelive_core::{Collection, Config, Engine, IncludeObject, Instant, KeptMetadata, Object};
use kubelive_sim::printers::IncludeObject as Rows;
use serde_json::Value;
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);

// SAFETY-free: the workspace denies unsafe code, but GlobalAlloc is an unsafe trait.
// This binary is a bench, outside the library, and only forwards to System.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        HELD.fetch_add(l.size(), Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        HELD.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        HELD.fetch_add(new, Ordering::Relaxed);
        HELD.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn held() -> usize {
    HELD.load(Ordering::Relaxed)
}

const PODS: u64 = 50_000;

/// Fills an engine's store with one LIST response `body`; returns the bytes the engine
/// holds afterwards (allocator), its `Store::heap_bytes()` and its size.
fn engine_with(body: &[u8], configure: impl FnOnce(Config) -> Config) -> (usize, usize, usize) {
    let mut config = Config::new(Collection::parse("/api/v1/pods").expect("collection"));
    config.page_size = 0;
    config.limits.max_document_bytes = 1 << 20;
    let config = configure(config);
    let now = Instant::ZERO;
    let before = held();
    let mut engine = Engine::new(config, now);
    let list = engine.poll_request().expect("a LIST request");
    engine.handle_response(list.id, 200, &[("content-type", "application/json")], now);
    for chunk in body.chunks(64 << 10) {
        engine.handle_body(list.id, chunk, now);
        while engine.poll_event().is_some() {}
    }
    engine.handle_end(list.id, now);
    while engine.poll_event().is_some() {}
    while engine.poll_request().is_some() {}
    let total = held() - before;
    let store = engine.store();
    let r = (total, store.heap_bytes(), store.len());
    drop(engine);
    r
}

fn main() {
    let docs: Vec<String> = (0..PODS).map(|i| kubelive_sim::pod_json(42, i)).collect();
    // Raw bytes of the objects a store keeps (the last of any duplicate name).
    let mut last: HashMap<(String, String), usize> = HashMap::new();
    for d in &docs {
        let v: Value = serde_json::from_str(d).expect("json");
        let key = (
            v["metadata"]["namespace"]
                .as_str()
                .unwrap_or("")
                .to_string(),
            v["metadata"]["name"].as_str().unwrap_or("").to_string(),
        );
        last.insert(key, d.len());
    }
    let raw: usize = last.values().sum();
    println!(
        "{PODS} pods ({} distinct), {raw} raw JSON bytes ({} bytes/pod), size_of::<Object>() = {}",
        last.len(),
        raw / last.len(),
        std::mem::size_of::<Object>()
    );
    let report = |what: &str, bytes: usize| {
        println!(
            "{what:<58} {:>12} bytes  {:.3} x raw",
            bytes,
            bytes as f64 / raw as f64
        );
    };

    let n_pods = last.len();
    let per_pod = |bytes: usize| bytes / n_pods;
    let plain = tables::plain_list(&docs);
    let pretty = kubelive_sim::indent::indent(&plain);
    let table = tables::table_list(&docs, Rows::Metadata);
    let wire = [
        ("plain list (objects)", plain.len()),
        (
            "plain list, pretty-printed (browser/curl User-Agent)",
            pretty.len(),
        ),
        ("Table, includeObject=Metadata (kubectl get)", table.len()),
        (
            "Table, includeObject=None",
            tables::table_list(&docs, Rows::None).len(),
        ),
        (
            "Table, includeObject=Object",
            tables::table_list(&docs, Rows::Object).len(),
        ),
    ];
    for (what, bytes) in wire {
        println!("wire: {what:<55} {:>7} bytes/pod", bytes / PODS as usize);
    }

    type Case<'a> = (&'a str, &'a [u8], fn(Config) -> Config);
    let cases: [Case; 7] = [
        ("objects, with managedFields", &plain, |c| c),
        ("objects, managedFields stripped", &plain, |c| Config {
            strip_managed_fields: true,
            ..c
        }),
        (
            "objects from a pretty-printed list, with managedFields",
            &pretty,
            |c| c,
        ),
        (
            "table rows, includeObject=Metadata (default: no managedFields)",
            &table,
            |c| c.tables(IncludeObject::Metadata),
        ),
        (
            "table rows, includeObject=Metadata, managedFields kept",
            &table,
            |c| Config {
                strip_managed_fields: false,
                ..c.tables(IncludeObject::Metadata)
            },
        ),
        (
            "table rows, Metadata, identity metadata only (the app's table)",
            &table,
            |c| Config {
                metadata: KeptMetadata::Identity,
                ..c.tables(IncludeObject::Metadata)
            },
        ),
        (
            "table rows, includeObject=Object (no managedFields)",
            &[],
            |c| c.tables(IncludeObject::Object),
        ),
    ];
    let object_rows = tables::table_list(&docs, Rows::Object);
    let mut baseline = 0;
    for (what, body, configure) in cases {
        let body = if body.is_empty() {
            &object_rows[..]
        } else {
            body
        };
        let (total, heap, n) = engine_with(body, configure);
        assert_eq!(n, n_pods);
        if baseline == 0 {
            baseline = total;
        }
        report(&format!("kubelive Engine (store), {what}"), total);
        println!(
            "  {:>6} bytes/object, {:.1}x fewer than objects with managedFields; Store::heap_bytes() {}",
            per_pod(total),
            baseline as f64 / total as f64,
            heap
        );
    }

    let before = held();
    let mut map: HashMap<String, Value> = HashMap::new();
    for d in &docs {
        let v: Value = serde_json::from_str(d).unwrap();
        let key = format!(
            "{}/{}",
            v["metadata"]["namespace"].as_str().unwrap_or(""),
            v["metadata"]["name"].as_str().unwrap_or("")
        );
        map.insert(key, v);
    }
    report("serde_json HashMap<String, Value>", held() - before);
}
