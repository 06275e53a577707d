//! Memory held per raw JSON byte for 50,000 realistic pods (`kubelive_sim::pod_json`,
//! ~5 KB each): the engine's real Store filled through the engine (one LIST
//! response), with and without managedFields, against a serde_json::Value map. A
//! counting global allocator is the ground truth; `Store::heap_bytes()` is checked
//! against it.
//!
//! `cargo bench -p kubelive-core --bench memory`

use kubelive_core::{Collection, Config, Engine, Instant, Object};
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

/// Fills an engine's store with one LIST response holding `docs`; returns the bytes
/// the engine holds afterwards (allocator), its `Store::heap_bytes()` and its size.
fn engine_with(docs: &[String], strip: bool) -> (usize, usize, usize) {
    let mut body = Vec::new();
    body.extend_from_slice(b"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"99999\"},\"items\":[");
    for (i, d) in docs.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(d.as_bytes());
    }
    body.extend_from_slice(b"]}");
    let mut config = Config::new(Collection::parse("/api/v1/pods").expect("collection"));
    config.page_size = 0;
    config.strip_managed_fields = strip;
    config.limits.max_document_bytes = 1 << 20;
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

    for strip in [false, true] {
        let label = if strip {
            "managedFields stripped"
        } else {
            "with managedFields"
        };
        let (total, heap, n) = engine_with(&docs, strip);
        assert_eq!(n, last.len());
        report(&format!("kubelive Engine (store), {label}"), total);
        report(&format!("  of which Store::heap_bytes(), {label}"), heap);
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
