//! Bench inputs in both representations, from the same realistic pods
//! (`kubelive_sim::workload`): plain lists and watch streams, and their Tables as
//! kube-apiserver prints them (`kubelive_sim::printers`, pinned to kube-apiserver's bytes).

#![allow(dead_code)]

use kubelive_sim::printers::{
    IncludeObject, ListMeta, TableConvertor, TableFormat, TableListWriter, TableVersion,
    WatchTableEncoder,
};
use serde_json::Value;

/// The instant Age cells are printed for.
pub fn now_ms() -> i64 {
    kubelive_sim::printers::parse_rfc3339_ms("2026-11-29T10:05:00Z").unwrap_or(0)
}

/// `n` realistic pods (`kubelive_sim::pod_json(seed, i)`), ~5.7 KB of compact JSON each.
pub fn pods(seed: u64, n: u64) -> Vec<String> {
    (0..n).map(|i| kubelive_sim::pod_json(seed, i)).collect()
}

/// A plain PodList holding `pods`.
pub fn plain_list(pods: &[String]) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(
        b"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"99999\"},\"items\":[",
    );
    for (i, d) in pods.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(d.as_bytes());
    }
    body.extend_from_slice(b"]}");
    body
}

fn format(include: IncludeObject) -> TableFormat {
    TableFormat {
        version: TableVersion::V1,
        include,
    }
}

/// The Table answer of `kubectl get pods` for the same pods.
pub fn table_list(pods: &[String], include: IncludeObject) -> Vec<u8> {
    let conv = TableConvertor::for_kind("", "Pod");
    let mut out = String::new();
    let meta = ListMeta {
        resource_version: "99999",
        ..ListMeta::default()
    };
    let mut w = TableListWriter::begin(&mut out, &conv, format(include), &meta);
    for p in pods {
        let row = conv.row_from_json(p).expect("a pod");
        w.push_row(&mut out, &row, p, now_ms()).expect("a row");
    }
    w.finish(&mut out);
    out.into_bytes()
}

/// A watch stream (`kubelive_sim::watch_event_stream`) as the same watch in table mode
/// sends it: one-row Tables, definitions with the first event, converted bookmarks.
pub fn table_stream(plain: &[u8], include: IncludeObject) -> Vec<u8> {
    let conv = TableConvertor::for_kind("", "Pod");
    let mut enc = WatchTableEncoder::new(format(include));
    let mut out = String::with_capacity(plain.len() / 2);
    for line in plain.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_slice(line).expect("an event");
        let object = v["object"].to_string();
        match v["type"].as_str() {
            Some("BOOKMARK") => enc
                .write_bookmark(&mut out, &conv, &object, now_ms())
                .expect("a bookmark"),
            Some(ty) => {
                let row = conv.row_from_json(&object).expect("a pod");
                enc.write_event(&mut out, &conv, ty, &row, &object, now_ms())
                    .expect("an event")
            }
            None => {}
        }
    }
    out.into_bytes()
}
