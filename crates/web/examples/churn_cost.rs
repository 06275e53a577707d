//! What live changes cost the table's index at a million rows (native, release): `cargo
//! run --release -p kubelive-web --example churn_cost [-- ROWS [BATCHES]]` (1,000,000
//! rows and 200 batches by default). Pods as the apiserver prints them (metadata rows,
//! kubectl's pod columns, names as ReplicaSets make them) go into a `TableModel` as
//! LIST pages do, synced; then batches of 160 changes (a 100 ms batch of a watch at
//! ~1,600 changes/s: mostly a pod's restarts or status with a new resourceVersion,
//! ~4% added, ~4% deleted) are applied as the app applies them, each followed by a
//! sweep (deleted rows fade, then leave), and the median µs per change is printed, in
//! two tables built from the same rows and given the same changes:
//!
//! - `bare`: sorted by name, no index kept and no sort keys prepared;
//! - `kept`: every column's sort keys prepared (idle slices run to completion), then
//!   sorted by Restarts and by Age as the app's header clicks do: sorted by Age with
//!   the indexes by Restarts and by name kept.
//!
//! `MODE=bare` or `MODE=kept` runs one of them (e.g. under callgrind).

mod common;

use common::Rng;

use kubelive_core::{ColumnKind, Event, Object, ResourceVersion, Store, TableColumn};
use kubelive_table::{view_columns, Column, Filter, Sort, TableModel};
use std::sync::Arc;
use std::time::Instant;

const COLUMNS: &str = r#"[{"name":"Name","type":"string","format":"name","description":"","priority":0},{"name":"Ready","type":"string","format":"","description":"","priority":0},{"name":"Status","type":"string","format":"","description":"","priority":0},{"name":"Restarts","type":"string","format":"","description":"","priority":0},{"name":"Age","type":"string","format":"","description":"","priority":0},{"name":"IP","type":"string","format":"","description":"","priority":1},{"name":"Node","type":"string","format":"","description":"","priority":1}]"#;

/// Changes a batch: 100 ms of a watch at ~1,600 changes/s.
const BATCH: usize = 160;
const STATUSES: [&str; 5] = [
    "Running",
    "Running",
    "Running",
    "Pending",
    "CrashLoopBackOff",
];

/// Each pod's `namespace/name` (drawn again when taken: a store holds one object a key).
#[derive(Default)]
struct Names(std::collections::HashSet<(usize, String)>);

/// One pod as the generator knows it (what its row's JSON is written from).
#[derive(Clone)]
struct Pod {
    name: String,
    ns: usize,
    restarts: u64,
    status: &'static str,
    secs: u64,
    node: u64,
    version: u64,
}

impl Pod {
    fn new(r: &mut Rng, i: usize, names: &mut Names) -> Pod {
        let app = i % 17;
        let ns = i % 20;
        let name = loop {
            let name = format!(
                "app-{app}-{:x}-{}",
                0x5d8f_7c9b00u64 + app as u64,
                r.alnum(5)
            );
            if names.0.insert((ns, name.clone())) {
                break name;
            }
        };
        Pod {
            name,
            ns,
            restarts: if r.next() % 10 == 0 {
                1 + r.next() % 9
            } else {
                0
            },
            status: STATUSES[(r.next() % 5) as usize],
            secs: r.next() % (30 * 86_400),
            node: r.next() % 400,
            version: 1,
        }
    }

    /// The Table row's JSON, as the apiserver prints a pod's metadata row.
    fn json(&self, i: usize) -> String {
        let restarts = match self.restarts {
            0 => "\"0\"".to_string(),
            k => format!("\"{k} (5m ago)\""),
        };
        format!(
            r#"{{"cells":["{name}","1/1","{status}",{restarts},"5m","10.{b}.{c}.{d}","node-{e}"],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"name":"{name}","namespace":"ns-{ns}","uid":"u{i}","resourceVersion":"{v}","creationTimestamp":"2026-11-{day:02}T{h:02}:{m:02}:{s:02}Z"}}}}}}"#,
            name = self.name,
            status = self.status,
            b = i % 250,
            c = (i / 250) % 250,
            d = i % 200,
            e = self.node,
            ns = self.ns,
            v = self.version,
            day = 1 + self.secs / 86_400,
            h = self.secs / 3600 % 24,
            m = self.secs / 60 % 60,
            s = self.secs % 60,
        )
    }
}

/// What a change does to pod `i` (its index among every pod ever made).
enum Change {
    Added(usize),
    Modified(usize),
    Deleted(usize),
}

/// The first `n` pods' rows, and `batches` batches of changes to them as engine events.
fn workload(n: usize, batches: usize) -> (Vec<TableColumn>, Vec<Arc<Object>>, Vec<Vec<Event>>) {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut names = Names::default();
    let mut pods: Vec<Pod> = (0..n).map(|i| Pod::new(&mut r, i, &mut names)).collect();
    // Every pod's first version (written before the changes move them on).
    let mut texts: Vec<String> = pods.iter().enumerate().map(|(i, p)| p.json(i)).collect();
    let mut alive: Vec<usize> = (0..n).collect();
    // The changes and the rows' versions they bring (decoded together below).
    let mut changes = Vec::with_capacity(batches * BATCH);
    let mut versions: Vec<String> = Vec::with_capacity(batches * BATCH);
    let mut version = 1;
    for _ in 0..batches * BATCH {
        version += 1;
        let change = match r.next() % 100 {
            0..4 => {
                let i = pods.len();
                let mut p = Pod::new(&mut r, i, &mut names);
                p.version = version;
                pods.push(p);
                alive.push(i);
                Change::Added(i)
            }
            4..8 if alive.len() > 1 => {
                let i = alive.swap_remove((r.next() % alive.len() as u64) as usize);
                Change::Deleted(i)
            }
            _ => {
                let i = alive[(r.next() % alive.len() as u64) as usize];
                let p = &mut pods[i];
                match r.next() % 2 {
                    0 => p.restarts += 1,
                    _ => p.status = STATUSES[(r.next() % 5) as usize],
                }
                p.version = version;
                Change::Modified(i)
            }
        };
        match &change {
            Change::Added(i) | Change::Modified(i) => versions.push(pods[*i].json(*i)),
            Change::Deleted(_) => {}
        }
        changes.push(change);
    }
    // Every pod's first version, then each change's version, through the decoder.
    texts.append(&mut versions);
    let (defs, mut decoded) =
        common::table_rows(COLUMNS, texts.len(), |i| std::mem::take(&mut texts[i]));
    let later = decoded.split_off(n);
    let rows = decoded;
    // Each pod's current object as the changes go.
    let mut current: Vec<Option<Arc<Object>>> = rows.iter().cloned().map(Some).collect();
    current.resize(pods.len(), None);
    let mut later = later.into_iter();
    let mut events = Vec::with_capacity(batches);
    for batch in changes.chunks(BATCH) {
        let mut evs = Vec::with_capacity(BATCH);
        for c in batch {
            match *c {
                Change::Added(i) => {
                    let o = later.next().expect("a version");
                    current[i] = Some(o.clone());
                    evs.push(Event::Added(o));
                }
                Change::Modified(i) => {
                    let new = later.next().expect("a version");
                    let old = current[i].replace(new.clone()).expect("alive");
                    evs.push(Event::Modified { old, new });
                }
                Change::Deleted(i) => {
                    evs.push(Event::Deleted(current[i].take().expect("alive")));
                }
            }
        }
        events.push(evs);
    }
    (defs, rows, events)
}

/// A synced table of `rows`, sorted by name; `kept`: every column's keys prepared, then
/// sorted by Restarts and by Age as header clicks do (two earlier sorts kept).
fn table(rows: &[Arc<Object>], cols: &[Column], kept: bool) -> TableModel {
    let mut m = TableModel::new(Sort::by_name(cols), Filter::default());
    m.maybe_rebuild(&Store::new(), 0.0, true);
    for page in rows.chunks(500) {
        let events: Vec<Event> = page.iter().cloned().map(Event::Added).collect();
        m.apply(&events, 0.0);
    }
    m.apply(
        &[Event::Synced {
            objects: m.len(),
            resource_version: ResourceVersion::new("1"),
        }],
        0.0,
    );
    if kept {
        // Idle slices run to completion, as the app's would before the clicks.
        while m.prepare(cols, f64::INFINITY, &|| 0.0) {}
        for param in ["restarts", "age"] {
            let sort = Sort::parse(param, cols).expect("a column");
            // As the app clicks: the first screen at once, the index in idle slices.
            m.set_sort_showing(sort, 40);
            while m.prepare(cols, f64::INFINITY, &|| 0.0) {}
        }
    }
    m
}

/// Applies the batches as the app does (a batch, then a sweep, 100 ms apart). Returns
/// each batch's µs per change (the apply alone, and with the sweep).
#[inline(never)]
fn churn(m: &mut TableModel, batches: &[Vec<Event>]) -> (Vec<f64>, Vec<f64>) {
    let (mut apply, mut total) = (Vec::new(), Vec::new());
    for (k, events) in batches.iter().enumerate() {
        // Changes are highlighted and deleted rows fade: a real time, past the sync.
        let now = 10_000.0 + 100.0 * k as f64;
        let t = Instant::now();
        m.apply(events, now);
        let a = t.elapsed().as_secs_f64();
        m.sweep(now);
        let s = t.elapsed().as_secs_f64();
        apply.push(a * 1e6 / events.len() as f64);
        total.push(s * 1e6 / events.len() as f64);
    }
    (apply, total)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let batches: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    let (defs, rows, events) = workload(n, batches);
    let cols = view_columns(Some(&defs), ColumnKind::Generic, true, false);
    let mode = std::env::var("MODE").unwrap_or_default();
    println!(
        "{} rows, {} batches of {BATCH} changes",
        rows.len(),
        events.len()
    );
    for (name, kept) in [("bare", false), ("kept", true)] {
        if !mode.is_empty() && mode != name {
            continue;
        }
        let t = Instant::now();
        let mut m = table(&rows, &cols, kept);
        let built = t.elapsed().as_secs_f64();
        // (A profiler attached now sees the changes alone.)
        eprintln!("{name}: built, applying changes");
        let (apply, total) = churn(&mut m, &events);
        println!(
            "{name}: sorted by {:<9} a change: {:>6.2} us applied, {:>6.2} us with the sweep (median of {} batches; table built in {built:.1} s, {} rows after)",
            m.sort().to_param(),
            median(apply),
            median(total),
            events.len(),
            m.len(),
        );
    }
}
