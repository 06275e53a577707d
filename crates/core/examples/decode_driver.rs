//! A small, load-independent driver for instruction counts (valgrind --tool=callgrind):
//!
//! `decode_driver gen FILE N` writes `kubelive_sim::watch_event_stream(7, N)` to FILE;
//! `decode_driver gen-table FILE N` writes the same events as a Table watch
//! (`includeObject=Metadata`, printed by `kubelive_sim::printers`);
//! `decode_driver decode|strip|skip FILE` decodes it (kubelive, applied to a map, with
//! managedFields or stripped) or skips it (serde_json IgnoredAny);
//! `decode_driver gen-list|gen-list-table FILE N` writes a LIST of N realistic pods
//! (`kubelive_sim::pod_json(42, i)`), plain or as its Table (`includeObject=Metadata`);
//! `decode_driver engine-objects|engine-table|engine-table-identity FILE` feeds that LIST
//! to a real `Engine` (objects with managedFields, table mode, or table mode with
//! identity metadata as the app's table) in 64 KiB chunks.

#[path = "../benches/common/tables.rs"]
mod tables;

use kubelive_core::decode::{WatchDecoder, WatchFrame};
use kubelive_core::{
    Collection, ColumnKind, Config, Engine, IncludeObject, Instant, Limits, Object, ParseOptions,
};
use std::collections::HashMap;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, mode, path, ..] = args.as_slice() else {
        eprintln!("usage: decode_driver MODE FILE [N] (the modes: see this example's header)");
        std::process::exit(2);
    };
    let mode = mode.as_str();
    if mode == "gen" || mode == "gen-table" {
        let n: usize = args
            .get(3)
            .and_then(|n| n.parse().ok())
            .expect("N: how many events");
        let mut stream = kubelive_sim::watch_event_stream(7, n);
        if mode == "gen-table" {
            stream = tables::table_stream(&stream, kubelive_sim::printers::IncludeObject::Metadata);
        }
        std::fs::write(path, stream).expect("write");
        return;
    }
    if mode == "gen-list" || mode == "gen-list-table" {
        let n: u64 = args
            .get(3)
            .and_then(|n| n.parse().ok())
            .expect("N: how many pods");
        let pods = tables::pods(42, n);
        let body = if mode == "gen-list" {
            tables::plain_list(&pods)
        } else {
            tables::table_list(&pods, kubelive_sim::printers::IncludeObject::Metadata)
        };
        std::fs::write(path, body).expect("write");
        return;
    }
    let stream = std::fs::read(path).expect("read");
    if mode == "engine-objects" || mode == "engine-table" || mode == "engine-table-identity" {
        let mut config = Config::new(Collection::parse("/api/v1/pods").expect("collection"));
        config.page_size = 0;
        if mode != "engine-objects" {
            config = config.tables(IncludeObject::Metadata);
        }
        if mode == "engine-table-identity" {
            config.metadata = kubelive_core::KeptMetadata::Identity;
        }
        let now = Instant::ZERO;
        let mut engine = Engine::new(config, now);
        let list = engine.poll_request().expect("a LIST request");
        engine.handle_response(list.id, 200, &[], now);
        for chunk in stream.chunks(64 << 10) {
            engine.handle_body(list.id, chunk, now);
            while engine.poll_event().is_some() {}
        }
        engine.handle_end(list.id, now);
        while engine.poll_event().is_some() {}
        println!(
            "{} objects, {} bytes held, {} bytes",
            engine.store().len(),
            engine.store().heap_bytes(),
            stream.len()
        );
        return;
    }
    if mode == "skip" {
        let mut n = 0;
        for line in stream.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            serde_json::from_slice::<serde::de::IgnoredAny>(line).expect("valid json");
            n += 1;
        }
        println!("{n} documents, {} bytes", stream.len());
        return;
    }
    let opts = ParseOptions {
        metadata: kubelive_core::KeptMetadata::All,
        strip_managed_fields: mode == "strip",
        columns: ColumnKind::Pod,
    };
    let mut dec = WatchDecoder::new(Limits::default(), opts);
    let mut map: HashMap<String, Object> = HashMap::new();
    let mut frames = Vec::new();
    for chunk in stream.chunks(64 << 10) {
        dec.feed(chunk, &mut frames).expect("valid stream");
        for f in frames.drain(..) {
            match f {
                WatchFrame::Added(o) | WatchFrame::Modified(o) => {
                    map.insert(format!("{}/{}", o.namespace(), o.name()), o);
                }
                WatchFrame::Deleted(o) => {
                    map.remove(&format!("{}/{}", o.namespace(), o.name()));
                }
                _ => {}
            }
        }
    }
    dec.finish(&mut frames).expect("clean end");
    println!("{} objects, {} bytes", map.len(), stream.len());
}
