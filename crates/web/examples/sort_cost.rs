//! What a sort change (a header click) costs the table's index (native, release), on
//! pods as the apiserver prints them (metadata rows, kubectl's pod columns, names as
//! ReplicaSets make them): `cargo run --release -p kubelive-web --example sort_cost
//! [-- ROWS]` (1,000,000 by default). The rows go into a `TableModel` as LIST pages do,
//! then synced and the columns' sort keys prepared (timed; `PREPARE=0`: not), then
//! header clicks are timed (a new column, the other direction, a column sorted by
//! earlier; a new column's index built after the click is timed apart), each followed by 4,000 changes (rows deleted and added again, 30 a
//! batch; synced, so a deleted row fades: swept at once) timed per change: what keeping
//! earlier sorts' indexes and the prepared keys costs churn.

mod common;

use common::Rng;

use kubelive_core::{ColumnKind, Event, Object, Store};
use kubelive_table::{view_columns, Filter, Sort, TableModel};
use std::sync::Arc;
use std::time::Instant;

const COLUMNS: &str = r#"[{"name":"Name","type":"string","format":"name","description":"","priority":0},{"name":"Ready","type":"string","format":"","description":"","priority":0},{"name":"Status","type":"string","format":"","description":"","priority":0},{"name":"Restarts","type":"string","format":"","description":"","priority":0},{"name":"Age","type":"string","format":"","description":"","priority":0},{"name":"IP","type":"string","format":"","description":"","priority":1},{"name":"Node","type":"string","format":"","description":"","priority":1}]"#;

/// Rows as ReplicaSets name pods, with random statuses, restarts and ages.
fn rows(n: usize) -> (Vec<kubelive_core::TableColumn>, Vec<Arc<Object>>) {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    common::table_rows(COLUMNS, n, |i| {
        let app = i % 17;
        let name = format!(
            "app-{app}-{:x}-{}",
            0x5d8f_7c9b00u64 + app as u64,
            r.alnum(5)
        );
        let restarts = match r.next() % 10 {
            0 => format!("\"{} (5m ago)\"", 1 + r.next() % 9),
            _ => "\"0\"".to_string(),
        };
        let status = [
            "Running",
            "Running",
            "Running",
            "Pending",
            "CrashLoopBackOff",
        ][(r.next() % 5) as usize];
        let secs = r.next() % (30 * 86_400);
        format!(
            r#"{{"cells":["{name}","1/1","{status}",{restarts},"5m","10.{b}.{c}.{d}","node-{e}"],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"name":"{name}","namespace":"ns-{ns}","uid":"u{i}","resourceVersion":"1","creationTimestamp":"2026-11-{day:02}T{h:02}:{m:02}:{s:02}Z"}}}}}}"#,
            b = i % 250,
            c = (i / 250) % 250,
            d = i % 200,
            e = r.next() % 400,
            ns = i % 20,
            day = 1 + secs / 86_400,
            h = secs / 3600 % 24,
            m = secs / 60 % 60,
            s = secs % 60,
        )
    })
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let (defs, rows) = rows(n);
    let cols = view_columns(Some(&defs), ColumnKind::Generic, true, false);
    let mut m = TableModel::new(Sort::by_name(&cols), Filter::default());
    m.maybe_rebuild(&Store::new(), 0.0, true);
    for page in rows.chunks(500) {
        let events: Vec<Event> = page.iter().cloned().map(Event::Added).collect();
        m.apply(&events, 0.0);
    }
    println!("{} rows", m.len());
    // Synced, then the columns' sort keys prepared as idle slices would (here at once;
    // PREPARE=0 leaves them unprepared: every new column sorts the old way).
    m.apply(
        &[Event::Synced {
            objects: m.len(),
            resource_version: kubelive_core::ResourceVersion::new("1"),
        }],
        0.0,
    );
    if std::env::var("PREPARE").as_deref() != Ok("0") {
        let t = Instant::now();
        m.prepare(&cols, f64::INFINITY, &|| 0.0);
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        println!("prepared in {ms:.0} ms (idle slices in the app)");
    }
    for param in [
        "-name",
        "restarts",
        "age",
        "name",
        "status",
        "-age",
        "-status",
        "name",
        "ready",
        "namespace",
    ] {
        let sort = Sort::parse(param, &cols).expect("a column");
        // As the app clicks: the first screen (40 rows) at once, a new column's index
        // built after it (here at once, in the app in idle slices; AT_ONCE=1: all in
        // the click, as before).
        let t = Instant::now();
        match std::env::var("AT_ONCE").as_deref() {
            Ok("1") => m.set_sort(sort),
            _ => m.set_sort_showing(sort, 40),
        }
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let first: Vec<String> = m
            .window(0, 2)
            .iter()
            .map(|o| o.name().to_string())
            .collect();
        println!("sort by {param:<10} {ms:>8.1} ms  first {first:?}");
        if m.resorting() {
            let t = Instant::now();
            m.prepare(&cols, f64::INFINITY, &|| 0.0);
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            println!("    the rest of the index built in {ms:.1} ms");
        }
        // Churn: rows deleted and added again, a batch of 30 (a frame's worth).
        let t = Instant::now();
        for batch in rows
            .iter()
            .step_by(997)
            .take(2000)
            .collect::<Vec<_>>()
            .chunks(30)
        {
            let del: Vec<Event> = batch.iter().map(|o| Event::Deleted((*o).clone())).collect();
            m.apply(&del, 0.0);
            m.sweep(kubelive_table::FADE_MS);
            let add: Vec<Event> = batch.iter().map(|o| Event::Added((*o).clone())).collect();
            m.apply(&add, 0.0);
        }
        let per = t.elapsed().as_secs_f64() * 1e6 / 4000.0;
        println!("    a change: {per:.1} us");
    }
}
