//! kubelive against what users would pick instead, on the same bytes in one run.
//!
//! Contenders, each decoding a watch stream (or a list) and keeping the live copy:
//! * kubelive-core: a real [`Engine`] (decode + store apply + events drained), fed in
//!   64 KiB chunks;
//! * kube-rs: `kube_core::WatchEvent<K>` per line with serde_json, applied with
//!   `kube_runtime::reflector::store::Writer::apply_watcher_event`, for the dynamic
//!   `DynamicObject` and for k8s-openapi's typed `Pod`;
//! * a `serde_json::Value` map keyed by namespace/name;
//! * a serde_json validating skip (`IgnoredAny`): the parse floor, keeps nothing.
//!
//! The binaries (`peers-speed`, `peers-mem`, `peers-data`, `peers-serve`,
//! `peers-e2e`) print `RESULT` lines that `cargo xtask bench` turns into tables.

use k8s_openapi::api::core::v1::Pod;
use kube_core::{ApiResource, DynamicObject, WatchEvent};
use kube_runtime::reflector::store::Writer;
use kube_runtime::watcher;
use kubelive_core::{Collection, Config, Engine, Event, Instant, RequestId};
use serde_json::Value;
use std::collections::HashMap;

/// Chunk size the engine is fed in (what a browser or hyper typically hands over).
pub const CHUNK: usize = 64 << 10;
/// Seed of the watch stream ([`kubelive_sim::watch_event_stream`]).
pub const STREAM_SEED: u64 = 7;
/// Seed of the pods used for lists and memory ([`kubelive_sim::pod_json`]).
pub const POD_SEED: u64 = 42;

/// The realistic watch stream: `n` events of ~4 KB pods, ADDED/MODIFIED/DELETED/BOOKMARK.
pub fn watch_stream(n: usize) -> Vec<u8> {
    kubelive_sim::watch_event_stream(STREAM_SEED, n)
}

/// `n` complete pod documents (~5.7 KB each, as a list or a watch carries them), with
/// distinct namespace/name: `pod_json` draws a few random characters per name, so a
/// few indices in every ~25,000 collide; those are skipped.
pub fn pod_docs(n: usize) -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Doc<'a> {
        #[serde(borrow)]
        metadata: Meta<'a>,
    }
    #[derive(serde::Deserialize)]
    struct Meta<'a> {
        namespace: &'a str,
        name: &'a str,
    }
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(n);
    let mut i = 0u64;
    while out.len() < n {
        let d = kubelive_sim::pod_json(POD_SEED, i);
        i += 1;
        let m = serde_json::from_str::<Doc>(&d).expect("pod").metadata;
        if seen.insert(format!("{}/{}", m.namespace, m.name)) {
            out.push(d);
        }
    }
    out
}

/// A one-page PodList of `docs` at list version `rv`.
pub fn list_body<S: AsRef<str>>(docs: &[S], rv: u64) -> Vec<u8> {
    let total: usize = docs.iter().map(|d| d.as_ref().len() + 1).sum();
    let mut out = Vec::with_capacity(total + 128);
    out.extend_from_slice(
        format!(
            "{{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{{\"resourceVersion\":\"{rv}\"}},\"items\":["
        )
        .as_bytes(),
    );
    for (i, d) in docs.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(d.as_ref().as_bytes());
    }
    out.extend_from_slice(b"]}");
    out
}

/// `docs` with every 100th pod changed (new resourceVersion and phase): a relist of
/// the same collection after ~1% of it moved on.
pub fn one_percent_changed(docs: &[String]) -> (Vec<String>, usize) {
    let mut changed = 0;
    let out = docs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            if i % 100 != 7 {
                return d.clone();
            }
            let mut v: Value = serde_json::from_str(d).expect("pod json");
            v["metadata"]["resourceVersion"] = Value::String(format!("{}", 9_000_000 + i));
            v["status"]["phase"] = Value::String("Failed".into());
            changed += 1;
            v.to_string()
        })
        .collect();
    (out, changed)
}

/// Lines of a watch stream, without the newlines.
pub fn lines(stream: &[u8]) -> impl Iterator<Item = &[u8]> {
    stream.split(|&b| b == b'\n').filter(|l| !l.is_empty())
}

fn pods_config() -> Config {
    Config::new(Collection::parse("/api/v1/pods").expect("valid collection"))
}

/// What draining told us.
#[derive(Default, Debug, Clone, Copy)]
pub struct Drained {
    pub added: usize,
    pub modified: usize,
    pub deleted: usize,
    pub synced: bool,
}

impl Drained {
    pub fn changes(&self) -> usize {
        self.added + self.modified + self.deleted
    }
}

/// The draining rule: cancels, requests, events until each is empty. Returns the
/// next request, if the engine asked for one.
pub fn drain(engine: &mut Engine, d: &mut Drained) -> Option<RequestId> {
    while engine.poll_cancel().is_some() {}
    let mut next = None;
    while let Some(r) = engine.poll_request() {
        next = Some(r.id);
    }
    while let Some(e) = engine.poll_event() {
        match e {
            Event::Added(_) => d.added += 1,
            Event::Modified { .. } => d.modified += 1,
            Event::Deleted(_) => d.deleted += 1,
            Event::Synced { .. } => d.synced = true,
            Event::Failed { error } => panic!("engine failed: {error:?}"),
            _ => {}
        }
    }
    next
}

/// Feeds a whole 200 response `body` to request `id` in [`CHUNK`]s, draining after
/// every call. Returns the request the engine asks for next.
pub fn feed(engine: &mut Engine, id: RequestId, body: &[u8], d: &mut Drained) -> RequestId {
    let now = Instant::ZERO;
    engine.handle_response(id, 200, &[], now);
    let mut next = drain(engine, d);
    for chunk in body.chunks(CHUNK) {
        engine.handle_body(id, chunk, now);
        next = drain(engine, d).or(next);
    }
    engine.handle_end(id, now);
    drain(engine, d)
        .or(next)
        .expect("the engine asks for its next request")
}

/// A new engine synced with the list `body`; returns it and its watch request.
pub fn synced_engine(body: &[u8]) -> (Engine, RequestId, Drained) {
    let mut engine = Engine::new(pods_config(), Instant::ZERO);
    let mut d = Drained::default();
    let list = drain(&mut engine, &mut d).expect("first request: the list");
    let watch = feed(&mut engine, list, body, &mut d);
    assert!(d.synced, "engine synced after its list");
    (engine, watch, d)
}

/// A new engine in Watching state (an empty list first), its watch response head in.
pub fn watching_engine() -> (Engine, RequestId) {
    let empty: [&str; 0] = [];
    let (mut engine, watch, _) = synced_engine(&list_body(&empty, 999));
    engine.handle_response(watch, 200, &[], Instant::ZERO);
    let mut d = Drained::default();
    let _ = drain(&mut engine, &mut d);
    (engine, watch)
}

/// kubelive: the engine fed the watch stream in 64 KiB chunks, events drained.
/// Returns (changes announced, objects held).
pub fn kubelive_watch(stream: &[u8]) -> (usize, usize) {
    let (mut engine, watch) = watching_engine();
    let mut d = Drained::default();
    for chunk in stream.chunks(CHUNK) {
        engine.handle_body(watch, chunk, Instant::ZERO);
        let _ = drain(&mut engine, &mut d);
    }
    (d.changes(), engine.store().len())
}

fn to_watcher_event<K>(e: WatchEvent<K>) -> Option<watcher::Event<K>> {
    match e {
        WatchEvent::Added(o) | WatchEvent::Modified(o) => Some(watcher::Event::Apply(o)),
        WatchEvent::Deleted(o) => Some(watcher::Event::Delete(o)),
        WatchEvent::Bookmark(_) => None,
        WatchEvent::Error(e) => panic!("error event {e:?}"),
    }
}

/// The reflector writer kube-rs users get for DynamicObject pods.
pub fn dynamic_writer() -> Writer<DynamicObject> {
    Writer::new(ApiResource::erase::<Pod>(&()))
}

/// kube-rs, dynamic: `WatchEvent<DynamicObject>` per line, reflector store apply.
/// Returns (events applied, objects held).
pub fn kube_dynamic_watch(stream: &[u8]) -> (usize, usize) {
    let mut writer = dynamic_writer();
    let mut n = 0;
    for line in lines(stream) {
        let e: WatchEvent<DynamicObject> = serde_json::from_slice(line).expect("watch event");
        if let Some(e) = to_watcher_event(e) {
            writer.apply_watcher_event(&e);
            n += 1;
        }
    }
    (n, writer.as_reader().len())
}

/// kube-rs, typed: `WatchEvent<Pod>` (k8s-openapi) per line, reflector store apply.
pub fn kube_typed_watch(stream: &[u8]) -> (usize, usize) {
    let mut writer: Writer<Pod> = Writer::default();
    let mut n = 0;
    for line in lines(stream) {
        let e: WatchEvent<Pod> = serde_json::from_slice(line).expect("watch event");
        if let Some(e) = to_watcher_event(e) {
            writer.apply_watcher_event(&e);
            n += 1;
        }
    }
    (n, writer.as_reader().len())
}

fn value_key(obj: &Value) -> String {
    let m = &obj["metadata"];
    format!(
        "{}/{}",
        m["namespace"].as_str().unwrap_or(""),
        m["name"].as_str().unwrap_or("")
    )
}

/// serde_json: a `Value` per line, kept in a map keyed by namespace/name.
pub fn value_watch(stream: &[u8]) -> (usize, usize) {
    let mut map: HashMap<String, Value> = HashMap::new();
    let mut n = 0;
    for line in lines(stream) {
        let mut v: Value = serde_json::from_slice(line).expect("valid json");
        let obj = v["object"].take();
        match v["type"].as_str().unwrap_or("") {
            "ADDED" | "MODIFIED" => {
                map.insert(value_key(&obj), obj);
                n += 1;
            }
            "DELETED" => {
                map.remove(&value_key(&obj));
                n += 1;
            }
            _ => {}
        }
    }
    (n, map.len())
}

/// serde_json validating every line and keeping nothing: the parse floor.
pub fn skip_watch(stream: &[u8]) -> (usize, usize) {
    let mut n = 0;
    for line in lines(stream) {
        serde_json::from_slice::<serde::de::IgnoredAny>(line).expect("valid json");
        n += 1;
    }
    (n, 0)
}

/// One contender of the watch throughput race.
pub struct Contender {
    pub name: &'static str,
    pub run: fn(&[u8]) -> (usize, usize),
}

pub const CONTENDERS: &[Contender] = &[
    Contender {
        name: "kubelive-core Engine",
        run: kubelive_watch,
    },
    Contender {
        name: "kube-rs WatchEvent<DynamicObject> + reflector",
        run: kube_dynamic_watch,
    },
    Contender {
        name: "kube-rs WatchEvent<Pod> (k8s-openapi) + reflector",
        run: kube_typed_watch,
    },
    Contender {
        name: "serde_json Value + HashMap",
        run: value_watch,
    },
    Contender {
        name: "serde_json IgnoredAny (parse floor, keeps nothing)",
        run: skip_watch,
    },
];

// ----- caches for memory: each holds `docs` the way its users would -----

/// kubelive: an engine synced from one list page of `body`.
pub fn kubelive_cache(body: &[u8]) -> Engine {
    synced_engine(body).0
}

pub fn kube_dynamic_cache(docs: &[String]) -> Writer<DynamicObject> {
    let mut writer = dynamic_writer();
    for d in docs {
        let o: DynamicObject = serde_json::from_str(d).expect("pod");
        writer.apply_watcher_event(&watcher::Event::Apply(o));
    }
    writer
}

pub fn kube_typed_cache(docs: &[String]) -> Writer<Pod> {
    let mut writer: Writer<Pod> = Writer::default();
    for d in docs {
        let o: Pod = serde_json::from_str(d).expect("pod");
        writer.apply_watcher_event(&watcher::Event::Apply(o));
    }
    writer
}

pub fn value_cache(docs: &[String]) -> HashMap<String, Value> {
    let mut map = HashMap::new();
    for d in docs {
        let v: Value = serde_json::from_str(d).expect("pod");
        map.insert(value_key(&v), v);
    }
    map
}

// ----- relist -----

/// A watch ERROR event carrying 410 Expired, as the apiserver sends it.
pub const EXPIRED_FRAME: &[u8] = b"{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version: 1000 (2000)\",\"reason\":\"Expired\",\"code\":410}}\n";

/// A bookmark on the watch, before the 410.
pub const BOOKMARK_FRAME: &[u8] = b"{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"1500\"}}}\n";

/// On a synced engine watching with request `watch`: a 410 on the watch, then the
/// full relist `body`. Returns the new watch request and what the relist announced.
pub fn relist(engine: &mut Engine, watch: RequestId, body: &[u8]) -> (RequestId, Drained) {
    let mut d = Drained::default();
    engine.handle_response(watch, 200, &[], Instant::ZERO);
    let _ = drain(engine, &mut d);
    // The watch delivered something before it expired (as after minutes of watching);
    // a 410 straight after a list would be spaced out by backoff, not relisted at once.
    engine.handle_body(watch, BOOKMARK_FRAME, Instant::ZERO);
    engine.handle_body(watch, EXPIRED_FRAME, Instant::ZERO);
    let list = drain(engine, &mut d).expect("a 410 makes the engine relist");
    let next = feed(engine, list, body, &mut d);
    assert!(d.synced, "synced after the relist");
    (next, d)
}

// ----- RESULT lines -----

/// Prints one result row: `RESULT<TAB>table<TAB>row<TAB>col=value...`.
pub fn result(table: &str, row: &str, cols: &[(&str, String)]) {
    let mut line = format!("RESULT\t{table}\t{row}");
    for (k, v) in cols {
        line.push('\t');
        line.push_str(k);
        line.push('=');
        line.push_str(v);
    }
    println!("{line}");
}

/// Median of `xs` (sorted in place).
pub fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    let n = xs.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// `--name value` from `args`.
pub fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contenders_agree_on_the_live_set() {
        let stream = watch_stream(2_000);
        let (_, kubelive) = kubelive_watch(&stream);
        let (_, dynamic) = kube_dynamic_watch(&stream);
        let (_, typed) = kube_typed_watch(&stream);
        let (_, value) = value_watch(&stream);
        assert!(kubelive > 100);
        assert_eq!(kubelive, dynamic);
        assert_eq!(kubelive, typed);
        assert_eq!(kubelive, value);
        assert_eq!(skip_watch(&stream).0, 2_000);
    }

    #[test]
    fn relist_announces_exactly_the_changed_pods() {
        let docs = pod_docs(1_000);
        let (changed, n) = one_percent_changed(&docs);
        let (mut engine, watch, d) = synced_engine(&list_body(&docs, 5_000));
        assert_eq!(d.added, 1_000);
        let (_, d) = relist(&mut engine, watch, &list_body(&changed, 6_000));
        assert_eq!((d.added, d.modified, d.deleted), (0, n, 0));
        assert_eq!(n, 10);
        assert_eq!(engine.store().len(), 1_000);
    }

    #[test]
    fn caches_hold_every_pod() {
        let docs = pod_docs(300);
        let body = list_body(&docs, 5_000);
        assert_eq!(kubelive_cache(&body).store().len(), 300);
        assert_eq!(kube_dynamic_cache(&docs).as_reader().len(), 300);
        assert_eq!(kube_typed_cache(&docs).as_reader().len(), 300);
        assert_eq!(value_cache(&docs).len(), 300);
    }
}
