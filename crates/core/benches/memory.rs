//! Heap held per raw JSON byte for 50,000 realistic pods: kubelive Objects (with and
//! without managedFields) against a serde_json::Value map. A counting global
//! allocator measures what each representation keeps alive.
//!
//! `cargo bench -p kubelive-core --bench memory`

use kubelive_core::{ColumnKind, Object, ParseOptions};
use serde_json::Value;
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

#[path = "common/podgen.rs"]
mod podgen;

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

const PODS: usize = 50_000;

fn main() {
    let mut rng = podgen::Rng::new(42);
    let docs: Vec<String> = (0..PODS)
        .map(|i| serde_json::to_string(&podgen::pod(&mut rng, i, 1000 + i as u64)).unwrap())
        .collect();
    let raw: usize = docs.iter().map(|d| d.len()).sum();
    println!(
        "{PODS} pods, {raw} raw JSON bytes ({} bytes/pod), size_of::<Object>() = {}",
        raw / PODS,
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
        let opts = ParseOptions {
            strip_managed_fields: strip,
            columns: ColumnKind::Pod,
        };
        let label = if strip {
            "stripped"
        } else {
            "with managedFields"
        };

        let before = held();
        let mut objects = Vec::with_capacity(PODS);
        for d in &docs {
            objects.push(Object::parse(d.as_bytes(), &opts).unwrap());
        }
        let vec_total = held() - before;
        let heap: usize = objects.iter().map(Object::heap_bytes).sum();
        report(&format!("kubelive Vec<Object>, {label}"), vec_total);
        report(&format!("  of which Object::heap_bytes(), {label}"), heap);
        drop(objects);

        let before = held();
        let mut map: HashMap<String, Object> = HashMap::new();
        for d in &docs {
            let o = Object::parse(d.as_bytes(), &opts).unwrap();
            map.insert(format!("{}/{}", o.namespace(), o.name()), o);
        }
        report(
            &format!("kubelive HashMap<String, Object>, {label}"),
            held() - before,
        );
        drop(map);
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
