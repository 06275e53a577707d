//! Memory held per cached object: live heap bytes after building each cache of the
//! same pods, minus before, counted by a global allocator; and how kubelive's memory
//! grows from 1,000 to 100,000 pods.
//!
//! `peers-mem [--pods 50000] [--scale 1000,10000,100000]`

use kubelive_peers::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// GlobalAlloc is an unsafe trait; this only forwards to System and counts.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        LIVE.fetch_add(new, Ordering::Relaxed);
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// Live bytes that `build` leaves held in what it returns (allocation sizes as asked
/// for: malloc's own headers and rounding come on top, alike for everyone).
fn held_by<T>(build: impl FnOnce() -> T, count: impl FnOnce(&T) -> usize) -> (usize, usize) {
    let before = live();
    let cache = black_box(build());
    let bytes = live().saturating_sub(before);
    let n = count(&cache);
    drop(cache);
    (bytes, n)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pods: usize = arg(&args, "--pods", 50_000);
    let scale: String = arg(&args, "--scale", "1000,3000,10000,30000,100000".to_string());
    let only: String = arg(&args, "--only", "all".to_string());

    if only == "all" || only == "peers" {
        let docs = pod_docs(pods);
        let body = list_body(&docs, 5_000_000);
        let raw: usize = docs.iter().map(String::len).sum();
        eprintln!("{pods} pods, {raw} raw JSON bytes");
        let rows: Vec<(&str, (usize, usize))> = vec![
            (
                "kubelive-core Engine (store after a list)",
                held_by(|| kubelive_cache(&body), |e| e.store().len()),
            ),
            (
                "kube-rs DynamicObject reflector store",
                held_by(|| kube_dynamic_cache(&docs), |w| w.as_reader().len()),
            ),
            (
                "kube-rs Pod (k8s-openapi) reflector store",
                held_by(|| kube_typed_cache(&docs), |w| w.as_reader().len()),
            ),
            (
                "serde_json Value + HashMap",
                held_by(|| value_cache(&docs), HashMap::len),
            ),
            ("serde_json IgnoredAny (keeps nothing)", (0, 0)),
        ];
        let kubelive = rows[0].1 .0 as f64;
        for (name, (bytes, n)) in rows {
            let ratio = if bytes == 0 {
                "-".to_string()
            } else {
                format!("{:.1}x", bytes as f64 / kubelive)
            };
            result(
                "memory",
                name,
                &[
                    (
                        "bytes/object",
                        bytes.checked_div(n).map_or("-".into(), |b| b.to_string()),
                    ),
                    ("x raw JSON", format!("{:.3}", bytes as f64 / raw as f64)),
                    ("MB held", format!("{:.1}", bytes as f64 / 1e6)),
                    ("vs kubelive", ratio),
                    ("objects", n.to_string()),
                ],
            );
        }
        result(
            "memory-input",
            "pods",
            &[
                ("pods", pods.to_string()),
                ("raw bytes", raw.to_string()),
                ("bytes/pod", (raw / pods.max(1)).to_string()),
            ],
        );
    }

    if only == "all" || only == "scaling" {
        for n in scale.split(',').filter_map(|s| s.parse::<usize>().ok()) {
            let docs = pod_docs(n);
            let body = list_body(&docs, 5_000_000);
            let raw: usize = docs.iter().map(String::len).sum();
            let (bytes, held) = held_by(|| kubelive_cache(&body), |e| e.store().len());
            result(
                "scaling-memory",
                &n.to_string(),
                &[
                    ("MB held", format!("{:.1}", bytes as f64 / 1e6)),
                    (
                        "bytes/object",
                        bytes
                            .checked_div(held)
                            .map_or("-".into(), |b| b.to_string()),
                    ),
                    ("x raw JSON", format!("{:.3}", bytes as f64 / raw as f64)),
                    ("objects", held.to_string()),
                ],
            );
        }
    }
}
