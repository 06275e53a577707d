//! What changed in an object: every version an engine delivered, kept per object
//! (by namespace and name) as structured diffs between consecutive versions.
//!
//! [`History::apply`] takes each event of one collection's engine with the time the
//! caller gives (the core reads no clock). An `Added` is an entry without changes, a
//! `Modified` the changes from the version before it, a `Deleted` an entry without
//! changes, each with the version's `resourceVersion`. A name deleted and created
//! again goes on in the same history (its `Deleted`, then its `Added`).
//!
//! **A change** ([`Change`]) is a JSON path, the value before and the value after
//! (each compact JSON, `None` where the member is absent), in the order of the paths'
//! keys (sorted, as the diff reads each version into a map). Paths: members as `.key`
//! (`["key"]` when the key is not a plain word: `metadata.labels["app.kubernetes.io/name"]`),
//! array elements as `[i]`, and elements of arrays whose every element is an object
//! with a distinct `name` (containers, env, volumes) or `type` (conditions) as
//! `[name=web]` / `[type=Ready]`, so that an insertion does not show as every later
//! element changed. A table row's cells (the server's printed row) are `cells.<Column>`.
//!
//! **Left out**, as noise: `metadata.managedFields` (who wrote which field, rewritten
//! with every write), `metadata.resourceVersion` (the entry carries it) and
//! `metadata.generation` (it counts changes of the spec, which the entry shows
//! themselves; `status.observedGeneration`, which says a controller caught up, stays);
//! the object's `kind` and `apiVersion` where one version lacks them (a list's items
//! leave them out, a watch's objects do not);
//! a cell whose value before and after are both ages as kubectl prints them (`5m`,
//! `3d4h`: the server prints them when it sends the row).
//!
//! **Secrets**: in a Secret (its `kind`, or a history made with `secret: true`), every
//! string under `data` and `stringData`, and the `kubectl.kubernetes.io/last-applied-
//! configuration` annotation (which holds the applied data), is shown as `"(hidden)"`;
//! that a value changed is shown, never what it was or became.
//!
//! **Bounded**: at most [`HistoryConfig::per_object`] entries per object (the oldest
//! go first) and [`HistoryConfig::max_bytes`] in all (the oldest entry of any object
//! goes first).

use crate::engine::Event;
use crate::object::Object;
use crate::table::TableColumn;
use crate::time::Instant;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::sync::Arc;

/// What a masked value is shown as.
pub const HIDDEN: &str = "\"(hidden)\"";

const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Bounds and kind of a [`History`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryConfig {
    /// Entries kept per object.
    pub per_object: usize,
    /// Bytes of entries kept in all (paths and values, plus a fixed cost per entry).
    pub max_bytes: usize,
    /// The collection holds Secrets (mask their values even in objects that do not
    /// say their kind, such as table rows).
    pub secret: bool,
}

impl Default for HistoryConfig {
    fn default() -> Self {
        HistoryConfig {
            per_object: 64,
            max_bytes: 8 << 20,
            secret: false,
        }
    }
}

/// What happened to the object in an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    Added,
    Modified,
    Deleted,
}

/// One change between two consecutive versions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub path: String,
    /// Compact JSON of the value before; `None`: the member was absent.
    pub before: Option<String>,
    /// Compact JSON of the value after; `None`: the member is gone.
    pub after: Option<String>,
}

/// One version the engine delivered.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub kind: EntryKind,
    pub resource_version: String,
    pub uid: String,
    /// When the caller applied it.
    pub at: Instant,
    /// Empty for `Added` and `Deleted`, and for a version that changed only noise.
    pub changes: Vec<Change>,
}

/// What an entry costs besides its strings: its slot in its object's queue and in
/// the queue of every entry (which holds the object's key), and the key's two boxes.
const ENTRY_COST: usize =
    std::mem::size_of::<(u64, Entry)>() + std::mem::size_of::<(Key, u64, usize)>() + 32;

impl Entry {
    fn bytes(&self) -> usize {
        ENTRY_COST
            + self.resource_version.len()
            + self.uid.len()
            + self
                .changes
                .iter()
                .map(|c| {
                    std::mem::size_of::<Change>()
                        + c.path.len()
                        + c.before.as_ref().map_or(0, String::len)
                        + c.after.as_ref().map_or(0, String::len)
                })
                .sum::<usize>()
    }
}

/// An object's key: namespace and name.
type Key = (Box<str>, Box<str>);

struct Kept {
    entries: VecDeque<(u64, Entry)>,
}

/// The histories of one collection's objects. See the module documentation.
pub struct History {
    config: HistoryConfig,
    columns: Option<Arc<[TableColumn]>>,
    objects: HashMap<Key, Kept>,
    /// Every kept entry in the order it came: (object, entry sequence number, bytes).
    order: VecDeque<(Key, u64, usize)>,
    bytes: usize,
    next: u64,
}

impl Default for History {
    fn default() -> Self {
        History::new(HistoryConfig::default())
    }
}

impl History {
    pub fn new(config: HistoryConfig) -> Self {
        History {
            config,
            columns: None,
            objects: HashMap::new(),
            order: VecDeque::new(),
            bytes: 0,
            next: 0,
        }
    }

    /// The column definitions of the rows' cells (an engine's
    /// [`crate::Engine::columns`]; `Event::Columns` sets them too).
    pub fn set_columns(&mut self, columns: Option<Arc<[TableColumn]>>) {
        self.columns = columns;
    }

    /// Takes one event of the collection's engine, at the caller's time `at`.
    pub fn apply(&mut self, event: &Event, at: Instant) {
        let (kind, object, changes) = match event {
            Event::Added(o) => (EntryKind::Added, o, Vec::new()),
            Event::Modified { old, new } if old.uid() != new.uid() => {
                self.push(EntryKind::Deleted, old, Vec::new(), at);
                (EntryKind::Added, new, Vec::new())
            }
            Event::Modified { old, new } => (
                EntryKind::Modified,
                new,
                diff(old, new, self.config.secret, self.columns.as_deref()),
            ),
            Event::Deleted(o) => (EntryKind::Deleted, o, Vec::new()),
            Event::Columns { columns } => {
                self.columns = Some(columns.clone());
                return;
            }
            Event::TablesUnavailable { .. } => {
                self.columns = None;
                return;
            }
            _ => return,
        };
        self.push(kind, object, changes, at);
    }

    fn push(&mut self, kind: EntryKind, o: &Object, mut changes: Vec<Change>, at: Instant) {
        // Kept for long, most with one or two changes: no spare capacity.
        changes.shrink_to_fit();
        let entry = Entry {
            kind,
            resource_version: o.resource_version().to_string(),
            uid: o.uid().to_string(),
            at,
            changes,
        };
        let bytes = entry.bytes();
        let key: Key = (o.namespace().into(), o.name().into());
        let seq = self.next;
        self.next += 1;
        // Most objects that change at all change a few times: room for one to start.
        let kept = self.objects.entry(key.clone()).or_insert_with(|| Kept {
            entries: VecDeque::with_capacity(1),
        });
        kept.entries.push_back((seq, entry));
        while kept.entries.len() > self.config.per_object.max(1) {
            if let Some((_, old)) = kept.entries.pop_front() {
                self.bytes -= old.bytes();
            }
        }
        self.order.push_back((key, seq, bytes));
        self.bytes += bytes;
        while self.bytes > self.config.max_bytes {
            let Some((key, seq, _)) = self.order.pop_front() else {
                break;
            };
            let Some(kept) = self.objects.get_mut(&key) else {
                continue;
            };
            // An entry already dropped by the per-object bound left its mark here.
            if kept.entries.front().is_some_and(|(s, _)| *s == seq) {
                if let Some((_, old)) = kept.entries.pop_front() {
                    self.bytes -= old.bytes();
                }
                if kept.entries.is_empty() {
                    self.objects.remove(&key);
                }
            }
        }
        // Marks of entries the per-object bound dropped are cleared as they reach the
        // front, so the queue holds at most what was pushed since.
        while let Some((key, seq, _)) = self.order.front() {
            let live = self
                .objects
                .get(key)
                .and_then(|k| k.entries.front())
                .is_some_and(|(s, _)| s <= seq);
            if live {
                break;
            }
            self.order.pop_front();
        }
    }

    /// The entries of `namespace/name`, oldest first.
    pub fn entries(&self, namespace: &str, name: &str) -> impl Iterator<Item = &Entry> {
        self.objects
            .get(&(Box::from(namespace), Box::from(name)))
            .into_iter()
            .flat_map(|k| k.entries.iter().map(|(_, e)| e))
    }

    /// Forgets one object's history.
    pub fn forget(&mut self, namespace: &str, name: &str) {
        if let Some(k) = self
            .objects
            .remove(&(Box::from(namespace), Box::from(name)))
        {
            self.bytes -= k.entries.iter().map(|(_, e)| e.bytes()).sum::<usize>();
        }
    }

    /// Objects with a history.
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Bytes of entries kept (as [`HistoryConfig::max_bytes`] counts them).
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

/// The changes from `old` to `new` (see the module documentation); `secret`: mask
/// values as a Secret's even if `new` does not say it is one. `columns` name a table
/// row's cells.
pub fn diff(
    old: &Object,
    new: &Object,
    secret: bool,
    columns: Option<&[TableColumn]>,
) -> Vec<Change> {
    let parse = |o: &Object| serde_json::from_slice::<Value>(&o.json()).unwrap_or(Value::Null);
    let (a, b) = (parse(old), parse(new));
    let secret = secret
        || [&a, &b]
            .iter()
            .any(|v| v.get("kind").and_then(Value::as_str) == Some("Secret"));
    let mut out = Vec::new();
    let mut path = String::new();
    walk(
        &mut Walk {
            out: &mut out,
            secret,
        },
        &mut path,
        Some(&a),
        Some(&b),
        0,
    );
    if let (Some(ca), Some(cb)) = (old.cells(), new.cells()) {
        let (ca, cb): (Vec<_>, Vec<_>) = (ca.collect(), cb.collect());
        for i in 0..ca.len().max(cb.len()) {
            let (x, y) = (ca.get(i), cb.get(i));
            if x == y {
                continue;
            }
            let text = |c: Option<&crate::table::Cell<'_>>| c.map(|c| c.to_string());
            if text(x)
                .zip(text(y))
                .is_some_and(|(x, y)| is_age(&x) && is_age(&y))
            {
                continue;
            }
            let name = columns
                .and_then(|c| c.get(i))
                .map_or_else(|| i.to_string(), |c| c.name.clone());
            let mut path = String::from("cells");
            push_key(&mut path, &name);
            let json = |c: Option<&crate::table::Cell<'_>>| {
                c.map(|c| match c {
                    crate::table::Cell::Null => "null".to_string(),
                    crate::table::Cell::Bool(b) => b.to_string(),
                    crate::table::Cell::Int(i) => i.to_string(),
                    crate::table::Cell::Number(n) => Value::from(*n).to_string(),
                    crate::table::Cell::Str(s) => Value::from(s.as_ref()).to_string(),
                    crate::table::Cell::Json(j) => j.to_string(),
                })
            };
            out.push(Change {
                path,
                before: json(x),
                after: json(y),
            });
        }
    }
    out
}

/// Whether a printed cell is an age as kubectl prints one (`45s`, `5m`, `3d4h`,
/// `<invalid>`, `<unknown>`).
fn is_age(s: &str) -> bool {
    if matches!(s, "<invalid>" | "<unknown>") {
        return true;
    }
    let mut digits = false;
    let mut any = false;
    for b in s.bytes() {
        match b {
            b'0'..=b'9' => digits = true,
            b's' | b'm' | b'h' | b'd' | b'y' if digits => {
                digits = false;
                any = true;
            }
            _ => return false,
        }
    }
    any && !digits
}

struct Walk<'a> {
    out: &'a mut Vec<Change>,
    secret: bool,
}

/// Appends `.key`, or `["key"]` when the key is not a plain word.
fn push_key(path: &mut String, key: &str) {
    let plain = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !key.as_bytes()[0].is_ascii_digit();
    if plain {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
    } else {
        path.push('[');
        path.push_str(&Value::from(key).to_string());
        path.push(']');
    }
}

/// Whether the member at `path` (under the object's root) is noise.
fn noise(path: &str) -> bool {
    matches!(
        path,
        "metadata.managedFields" | "metadata.resourceVersion" | "metadata.generation"
    )
}

/// Whether a Secret's value at `path` is to be masked.
fn masked(path: &str) -> bool {
    path == "data"
        || path == "stringData"
        || path.starts_with("data.")
        || path.starts_with("data[")
        || path.starts_with("stringData.")
        || path.starts_with("stringData[")
        || path.starts_with(&format!("metadata.annotations[\"{LAST_APPLIED}\"]"))
}

/// The value with every string and number in it shown as `"(hidden)"` (keys stay).
fn mask(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut s = String::from("{");
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                let _ = write!(s, "{}:{}", Value::from(k.as_str()), mask(v));
            }
            s.push('}');
            s
        }
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(mask).collect();
            format!("[{}]", items.join(","))
        }
        Value::Null => "null".into(),
        _ => HIDDEN.into(),
    }
}

/// Arrays deeper than this are compared whole (a bound on recursion for hostile input).
const MAX_DEPTH: usize = 64;

fn walk(w: &mut Walk<'_>, path: &mut String, a: Option<&Value>, b: Option<&Value>, depth: usize) {
    if noise(path) || a == b {
        return;
    }
    // A list's items say no kind nor apiVersion, a watch's objects do: their coming
    // or going says nothing of the object.
    if matches!(path.as_str(), "kind" | "apiVersion") && (a.is_none() || b.is_none()) {
        return;
    }
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) if depth < MAX_DEPTH => {
            let len = path.len();
            for (k, va) in x {
                push_key(path, k);
                walk(w, path, Some(va), y.get(k), depth + 1);
                path.truncate(len);
            }
            for (k, vb) in y {
                if !x.contains_key(k) {
                    push_key(path, k);
                    walk(w, path, None, Some(vb), depth + 1);
                    path.truncate(len);
                }
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) if depth < MAX_DEPTH => {
            let len = path.len();
            match ["name", "type"]
                .into_iter()
                .find(|k| keyed_by(x, k) && keyed_by(y, k))
            {
                Some(k) => {
                    let id = |v: &Value| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                    for va in x {
                        let i = id(va);
                        let vb = y.iter().find(|v| id(v) == i);
                        let _ = write!(path, "[{k}={i}]");
                        walk(w, path, Some(va), vb, depth + 1);
                        path.truncate(len);
                    }
                    for vb in y {
                        let i = id(vb);
                        if !x.iter().any(|v| id(v) == i) {
                            let _ = write!(path, "[{k}={i}]");
                            walk(w, path, None, Some(vb), depth + 1);
                            path.truncate(len);
                        }
                    }
                }
                None => {
                    for i in 0..x.len().max(y.len()) {
                        let _ = write!(path, "[{i}]");
                        walk(w, path, x.get(i), y.get(i), depth + 1);
                        path.truncate(len);
                    }
                }
            }
        }
        _ => {
            let hide = w.secret && masked(path);
            let show = |v: Option<&Value>| v.map(|v| if hide { mask(v) } else { v.to_string() });
            w.out.push(Change {
                path: path.clone(),
                before: show(a),
                after: show(b),
            });
        }
    }
}

/// Every element is an object with a distinct string `key` (an empty array too).
fn keyed_by(items: &[Value], key: &str) -> bool {
    let mut seen = std::collections::HashSet::new();
    items.iter().all(|v| {
        v.get(key)
            .and_then(Value::as_str)
            .is_some_and(|s| seen.insert(s.to_string()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::ParseOptions;

    fn obj(json: &str) -> Arc<Object> {
        Arc::new(Object::parse(json.as_bytes(), &ParseOptions::default()).unwrap())
    }

    fn pod(rv: u64, image: &str, ready: &str, extra_label: &str) -> Arc<Object> {
        obj(&format!(
            r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"web","namespace":"ns","uid":"u1","resourceVersion":"{rv}","generation":{rv},"labels":{{"app":"web"{extra_label}}},"managedFields":[{{"manager":"kubelet","time":"2026-01-01T00:00:{:02}Z"}}]}},"spec":{{"containers":[{{"name":"sidecar","image":"envoy"}},{{"name":"web","image":"{image}"}}]}},"status":{{"observedGeneration":{rv},"conditions":[{{"type":"Ready","status":"{ready}"}},{{"type":"Initialized","status":"True"}}]}}}}"#,
            rv % 60
        ))
    }

    fn changes(c: &[Change]) -> Vec<String> {
        c.iter()
            .map(|c| {
                format!(
                    "{} {} -> {}",
                    c.path,
                    c.before.as_deref().unwrap_or("(absent)"),
                    c.after.as_deref().unwrap_or("(absent)")
                )
            })
            .collect()
    }

    #[test]
    fn paths_keys_and_noise() {
        let a = pod(5, "nginx:1", "False", "");
        let b = pod(6, "nginx:2", "True", r#","app.kubernetes.io/name":"web""#);
        assert_eq!(
            changes(&diff(&a, &b, false, None)),
            [
                r#"metadata.labels["app.kubernetes.io/name"] (absent) -> "web""#,
                r#"spec.containers[name=web].image "nginx:1" -> "nginx:2""#,
                r#"status.conditions[type=Ready].status "False" -> "True""#,
                r#"status.observedGeneration 5 -> 6"#,
            ]
        );
    }

    #[test]
    fn a_list_items_missing_kind_is_no_change() {
        let listed = obj(r#"{"metadata":{"name":"a","resourceVersion":"1"},"spec":{"n":1}}"#);
        let watched = obj(
            r#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"2"},"spec":{"n":2}}"#,
        );
        assert_eq!(
            changes(&diff(&listed, &watched, false, None)),
            ["spec.n 1 -> 2"]
        );
        let other = obj(
            r#"{"kind":"Pod","apiVersion":"v2","metadata":{"name":"a","resourceVersion":"3"},"spec":{"n":2}}"#,
        );
        assert_eq!(
            changes(&diff(&watched, &other, false, None)),
            [r#"apiVersion "v1" -> "v2""#]
        );
    }

    #[test]
    fn arrays_without_keys_by_index() {
        let a = obj(r#"{"metadata":{"name":"a","resourceVersion":"1"},"spec":{"args":["x","y"]}}"#);
        let b = obj(
            r#"{"metadata":{"name":"a","resourceVersion":"2"},"spec":{"args":["x","z","w"],"n":1}}"#,
        );
        assert_eq!(
            changes(&diff(&a, &b, false, None)),
            [
                r#"spec.args[1] "y" -> "z""#,
                r#"spec.args[2] (absent) -> "w""#,
                "spec.n (absent) -> 1",
            ]
        );
    }

    #[test]
    fn secret_values_never_shown() {
        let a = obj(
            r#"{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s","resourceVersion":"1","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"data\":{\"password\":\"czNjcjN0\"}}"}},"data":{"password":"czNjcjN0"},"type":"Opaque"}"#,
        );
        let b = obj(
            r#"{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s","resourceVersion":"2","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"data\":{\"password\":\"bmV3\"}}"}},"data":{"password":"bmV3","token":"dG9r"},"stringData":{"x":"plain"},"type":"Opaque"}"#,
        );
        let out = changes(&diff(&a, &b, false, None));
        assert_eq!(
            out,
            [
                r#"data.password "(hidden)" -> "(hidden)""#,
                r#"data.token (absent) -> "(hidden)""#,
                r#"metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"] "(hidden)" -> "(hidden)""#,
                r#"stringData (absent) -> {"x":"(hidden)"}"#,
            ]
        );
        for secret in ["czNjcjN0", "bmV3", "dG9r", "plain"] {
            assert!(!out.iter().any(|l| l.contains(secret)), "{secret} shown");
        }
        // A row of a Secret says no kind: the history is told.
        let a = obj(r#"{"metadata":{"name":"s","resourceVersion":"1"},"data":{"k":"YQ=="}}"#);
        let b = obj(r#"{"metadata":{"name":"s","resourceVersion":"2"},"data":{"k":"Yg=="}}"#);
        assert_eq!(
            changes(&diff(&a, &b, true, None)),
            [r#"data.k "(hidden)" -> "(hidden)""#]
        );
    }

    fn row(rv: u64, status: &str, age: &str) -> Arc<Object> {
        let mut o = None;
        let table = format!(
            r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"{rv}"}},"rows":[{{"cells":["web","1/1","{status}",0,"{age}"],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"name":"web","namespace":"ns","uid":"u1","resourceVersion":"{rv}"}}}}}}]}}"#
        );
        let doc = table.as_str();
        let mut sc = crate::json::Scanner::new(doc.as_bytes());
        sc.ws();
        let mut cols = None;
        if let Ok(r) =
            crate::object::parse_object(doc, &mut sc, &ParseOptions::default(), &mut cols)
        {
            o = Some(r);
        }
        Arc::new(o.expect("a row"))
    }

    #[test]
    fn cells_by_column_without_ages() {
        let columns: Vec<TableColumn> = ["Name", "Ready", "Status", "Restarts", "Age"]
            .iter()
            .map(|n| TableColumn {
                name: n.to_string(),
                column_type: crate::table::ColumnType::String,
                format: String::new(),
                description: String::new(),
                priority: 0,
            })
            .collect();
        let (a, b) = (row(1, "Pending", "5s"), row(2, "Running", "2m10s"));
        assert_eq!(
            changes(&diff(&a, &b, false, Some(&columns))),
            [r#"cells.Status "Pending" -> "Running""#]
        );
        assert!(diff(
            &row(1, "Running", "5m"),
            &row(2, "Running", "6m"),
            false,
            None
        )
        .is_empty());
    }

    #[test]
    fn entries_in_order_bounded() {
        let mut h = History::new(HistoryConfig {
            per_object: 3,
            ..HistoryConfig::default()
        });
        h.apply(
            &Event::Added(pod(1, "a", "True", "")),
            Instant::from_millis(10),
        );
        for rv in 2..=5 {
            let old = pod(rv - 1, &format!("i{}", rv - 1), "True", "");
            let new = pod(rv, &format!("i{rv}"), "True", "");
            h.apply(&Event::Modified { old, new }, Instant::from_millis(rv * 10));
        }
        let got: Vec<(EntryKind, &str, u64, usize)> = h
            .entries("ns", "web")
            .map(|e| {
                (
                    e.kind,
                    e.resource_version.as_str(),
                    e.at.as_millis(),
                    e.changes.len(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (EntryKind::Modified, "3", 30, 2),
                (EntryKind::Modified, "4", 40, 2),
                (EntryKind::Modified, "5", 50, 2),
            ]
        );
        h.apply(
            &Event::Deleted(pod(6, "i5", "True", "")),
            Instant::from_millis(60),
        );
        assert_eq!(
            h.entries("ns", "web").last().unwrap().kind,
            EntryKind::Deleted
        );
        assert_eq!(h.entries("ns", "web").count(), 3);
        // A byte bound drops the oldest entries of any object.
        let small = |i: usize, name: &str| {
            obj(&format!(
                r#"{{"metadata":{{"name":"{name}","namespace":"ns","uid":"u{i}","resourceVersion":"{i}"}}}}"#
            ))
        };
        let mut one = History::default();
        one.apply(&Event::Added(small(0, "a")), Instant::ZERO);
        let one = one.bytes();
        let mut h2 = History::new(HistoryConfig {
            max_bytes: one * 2 + one / 2,
            ..HistoryConfig::default()
        });
        for (i, name) in ["a", "b", "c", "d"].iter().enumerate() {
            h2.apply(
                &Event::Added(small(i, name)),
                Instant::from_millis(i as u64),
            );
        }
        assert!(h2.bytes() <= one * 2 + one / 2);
        assert_eq!(h2.entries("ns", "a").count(), 0, "the oldest went first");
        assert_eq!(h2.entries("ns", "d").count(), 1);
        assert_eq!(h.len(), 1);
    }

    #[test]
    fn a_new_uid_is_deleted_then_added() {
        let mut h = History::default();
        let a =
            obj(r#"{"metadata":{"name":"x","namespace":"ns","uid":"u1","resourceVersion":"1"}}"#);
        let b =
            obj(r#"{"metadata":{"name":"x","namespace":"ns","uid":"u2","resourceVersion":"2"}}"#);
        h.apply(&Event::Added(a.clone()), Instant::ZERO);
        h.apply(&Event::Modified { old: a, new: b }, Instant::from_millis(5));
        let got: Vec<(EntryKind, &str)> = h
            .entries("ns", "x")
            .map(|e| (e.kind, e.uid.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (EntryKind::Added, "u1"),
                (EntryKind::Deleted, "u1"),
                (EntryKind::Added, "u2")
            ]
        );
    }
}
