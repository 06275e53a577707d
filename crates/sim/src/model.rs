//! The pure model of an apiserver: a versioned store with history and compaction, and the
//! list/watch semantics of protocol.md. No I/O, no clock: time is always an argument.
//!
//! Driving it (sans-io):
//! * `handle(&Get, now_ms)` answers a request with a [`Reply`]: a whole [`Response`], a
//!   response to deliver later ([`Reply::Delayed`]), or an open watch ([`Reply::Watch`]).
//! * For a watch, send the head from [`watch_response_head`], then call
//!   `poll_watch(id, now_ms)` until it returns [`WatchOutput::End`] or [`WatchOutput::Abort`].
//!   [`WatchOutput::Pending`] says when to poll next at the latest; poll again sooner after
//!   any mutation. Dropping a client connection: `close_watch(id)`.
//! * Mutations (`create`, `update`, `modify`, `delete`, `recreate`), `compact_now`, `restart`,
//!   `set_lag` change the server; `truth` reads its current state for invariant checks.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::ops::Bound;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::faults::{Action, FaultPlan};
use crate::negotiate::Output;
use crate::resources::{self, ResourceType, Target, CONFIGMAPS};
use crate::selector::{FieldSelector, FieldValues, LabelSelector};
use crate::status::{self, FieldError};
use crate::util::{b64url_decode, b64url_encode, json_str, timestamp, url_decode, Rng};

/// How the server treats `sendInitialEvents` (streaming lists).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamingLists {
    /// WatchList enabled: synthetic ADDED, then the initial-events-end bookmark.
    Supported,
    /// WatchList feature gate off: 422 "sendInitialEvents is forbidden for watch unless ...".
    Rejected,
    /// Pre-1.27 server: the parameters are ignored; never an end bookmark.
    Ignored,
}

/// Configuration of a [`Cluster`].
#[derive(Debug, Clone)]
pub struct ClusterConfig {
    pub seed: u64,
    /// Compaction period in ms (0 = never). Each compaction drops history older than the
    /// version current at the previous one, so at least this much history is kept.
    pub compact_every_ms: u64,
    /// The watch cache keeps events this long (ms); older watch versions get 410 (0 = no limit).
    pub watch_cache_window_ms: u64,
    /// Period of watch bookmarks (ms).
    pub bookmark_every_ms: u64,
    pub streaming_lists: StreamingLists,
    /// How long a too-large list waits before its 504 (ms).
    pub too_large_wait_ms: u64,
    pub faults: FaultPlan,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            seed: 1,
            compact_every_ms: 300_000,
            watch_cache_window_ms: 75_000,
            bookmark_every_ms: 60_000,
            streaming_lists: StreamingLists::Supported,
            too_large_wait_ms: 3_000,
            faults: FaultPlan::none(),
        }
    }
}

/// A GET request: the path with its query string, e.g. `/api/v1/pods?limit=5`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Get {
    pub path_and_query: String,
    /// The representation the client negotiated through `Accept` (the HTTP layer decides;
    /// default: the objects as JSON). `Output::Table` asks for server-side printing.
    pub output: Output,
}

impl Get {
    pub fn new(path_and_query: impl Into<String>) -> Self {
        Get {
            path_and_query: path_and_query.into(),
            output: Output::Json,
        }
    }
    /// The same request asking for another representation.
    pub fn with_output(mut self, output: Output) -> Self {
        self.output = output;
        self
    }
}

/// A complete HTTP response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    fn json(status: u16, body: String) -> Self {
        Response {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: body.into_bytes(),
        }
    }
    fn with_header(mut self, k: &str, v: &str) -> Self {
        self.headers.push((k.into(), v.into()));
        self
    }
    /// The value of a header (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Handle of an open watch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WatchId(pub u64);

/// The answer to a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// Send this now.
    Response(Response),
    /// Send this at `at_ms` (a too-large resourceVersion: the server waits first).
    Delayed { at_ms: u64, response: Response },
    /// A watch: send [`watch_response_head`] (200, chunked), then pump `poll_watch`.
    Watch(WatchId),
}

/// Status and headers of every watch response (the body is chunked).
pub fn watch_response_head() -> Response {
    Response {
        status: 200,
        headers: vec![
            ("Content-Type".into(), "application/json".into()),
            ("Transfer-Encoding".into(), "chunked".into()),
        ],
        body: Vec::new(),
    }
}

/// What an open watch has for its client now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchOutput {
    /// Send each element as one chunk (flush each), then poll again.
    Chunks(Vec<Vec<u8>>),
    /// Nothing now. Poll again at `wake_at_ms` at the latest, or after any mutation.
    Pending { wake_at_ms: u64 },
    /// End the body cleanly (terminating chunk). The watch is gone.
    End,
    /// Cut the connection without the terminating chunk. The watch is gone.
    Abort,
}

/// A stored object: the fields the server needs plus its compact JSON (list item form,
/// i.e. without `kind`/`apiVersion`, with `metadata.resourceVersion` set).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Obj {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub rv: u64,
    pub labels: Vec<(String, String)>,
    pub phase: Option<String>,
    /// `metadata.creationTimestamp` (kept across updates).
    pub created: String,
    pub json: String,
}

impl Obj {
    fn fields(&self) -> FieldValues<'_> {
        FieldValues {
            name: &self.name,
            namespace: &self.namespace,
            phase: self.phase.as_deref(),
        }
    }
}

/// Identity of an object after a mutation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjRef {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub resource_version: u64,
}

/// Why a mutation was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MutationError {
    AlreadyExists,
    NotFound,
    Invalid(String),
}

impl std::fmt::Display for MutationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MutationError::AlreadyExists => write!(f, "already exists"),
            MutationError::NotFound => write!(f, "not found"),
            MutationError::Invalid(m) => write!(f, "invalid: {m}"),
        }
    }
}

impl std::error::Error for MutationError {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChangeKind {
    Added,
    Modified,
    Deleted,
}

#[derive(Debug, Clone)]
struct Change {
    rv: u64,
    at_ms: u64,
    res: usize,
    key: String,
    kind: ChangeKind,
    /// New state; for Deleted, the last state with the deletion's resourceVersion.
    obj: Arc<Obj>,
    /// State before (None for Added).
    old: Option<Arc<Obj>>,
}

#[derive(Debug, Clone)]
struct Query {
    res: usize,
    namespace: Option<String>,
    labels: LabelSelector,
    fields: FieldSelector,
}

impl Query {
    fn matches(&self, o: &Obj) -> bool {
        self.namespace.as_deref().is_none_or(|ns| ns == o.namespace)
            && self.labels.matches(&o.labels)
            && self.fields.matches(o.fields())
    }
    fn selectors_empty(&self) -> bool {
        self.labels.is_empty() && self.fields.is_empty()
    }
}

#[derive(Debug)]
struct Watch {
    q: Query,
    /// Last resourceVersion delivered (history events after it come next).
    cursor: u64,
    start_rv: u64,
    /// Plain watch from a version the server has not reached: silent until it does.
    wait_until_rv: Option<u64>,
    initial: VecDeque<Arc<Obj>>,
    end_bookmark: bool,
    deadline_ms: u64,
    bookmarks: bool,
    next_bookmark_ms: u64,
    final_bookmark_done: bool,
    lagging: bool,
    /// (when, ERROR Status JSON): deliver then end.
    error_at: Option<(u64, String)>,
    // Faults.
    cut_at: Option<(u64, bool)>,
    bytes_sent: u64,
    malformed_at: Option<u64>,
    events_made: u64,
    split: bool,
    pending: VecDeque<Vec<u8>>,
    next_drip_ms: u64,
    finish: Option<WatchOutput>,
    killed: bool,
}

/// Query options as the apiserver reads them.
#[derive(Debug, Default, Clone)]
struct Opts {
    watch: bool,
    rv: String,
    rv_match: String,
    limit: u64,
    cont: String,
    labels: String,
    fields: String,
    timeout: Option<u64>,
    bookmarks: bool,
    send_initial: Option<bool>,
}

fn parse_bool(v: &str) -> Result<bool, String> {
    match v {
        "true" | "1" | "True" | "TRUE" | "t" | "T" => Ok(true),
        "false" | "0" | "False" | "FALSE" | "f" | "F" | "" => Ok(false),
        _ => Err(format!("invalid boolean value: {v:?}")),
    }
}

fn parse_opts(query: &str) -> Result<Opts, String> {
    let mut o = Opts::default();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let v = url_decode(v);
        match url_decode(k).as_str() {
            "watch" => o.watch = parse_bool(&v)?,
            "resourceVersion" => o.rv = v,
            "resourceVersionMatch" => o.rv_match = v,
            "limit" => {
                o.limit = v
                    .parse::<i64>()
                    .map_err(|_| format!("invalid limit: {v:?}"))?
                    .max(0) as u64
            }
            "continue" => o.cont = v,
            "labelSelector" => o.labels = v,
            "fieldSelector" => o.fields = v,
            "timeoutSeconds" => {
                o.timeout = Some(
                    v.parse::<i64>()
                        .map_err(|_| format!("invalid timeoutSeconds: {v:?}"))?
                        .max(0) as u64,
                )
            }
            "allowWatchBookmarks" => o.bookmarks = parse_bool(&v)?,
            "sendInitialEvents" => o.send_initial = Some(parse_bool(&v)?),
            _ => {}
        }
    }
    Ok(o)
}

/// The simulated apiserver.
#[derive(Debug)]
pub struct Cluster {
    cfg: ClusterConfig,
    rng: Rng,
    now_ms: u64,
    rv: u64,
    stores: Vec<BTreeMap<String, Arc<Obj>>>,
    history: VecDeque<Change>,
    compacted_rv: u64,
    /// The watch cache starts here after a restart.
    restart_floor: u64,
    /// Restarts so far (the apiserver's own write on each start carries the count).
    restarts: u64,
    next_compact_ms: u64,
    rv_at_last_compact_tick: u64,
    next_fault_action: usize,
    lag: Option<u64>,
    watches: HashMap<u64, Watch>,
    next_watch: u64,
}

const MAX_EVENTS_PER_POLL: usize = 256;

fn key_of(namespace: &str, name: &str) -> String {
    if namespace.is_empty() {
        name.to_string()
    } else {
        format!("{namespace}/{name}")
    }
}

/// `{"kind":..,"apiVersion":..,` + the item's fields: the object as a watch event carries it.
fn with_type(rt: &ResourceType, item_json: &str) -> String {
    let mut s = String::with_capacity(item_json.len() + 48);
    s.push_str("{\"kind\":\"");
    s.push_str(rt.kind);
    s.push_str("\",\"apiVersion\":\"");
    s.push_str(&rt.api_version());
    s.push('"');
    let rest = &item_json[1..];
    if !rest.starts_with('}') {
        s.push(',');
    }
    s.push_str(rest);
    s
}

fn event_line(ty: &str, rt: &ResourceType, item_json: &str) -> Vec<u8> {
    let mut s = String::with_capacity(item_json.len() + 80);
    s.push_str("{\"type\":\"");
    s.push_str(ty);
    s.push_str("\",\"object\":");
    s.push_str(&with_type(rt, item_json));
    s.push_str("}\n");
    s.into_bytes()
}

fn error_line(status_json: &str) -> Vec<u8> {
    format!("{{\"type\":\"ERROR\",\"object\":{status_json}}}\n").into_bytes()
}

/// A periodic bookmark (with the zero-value fields a real server adds).
fn bookmark_line(rt: &ResourceType, rv: u64) -> Vec<u8> {
    let extra = if rt.kind == "Pod" {
        ",\"spec\":{\"containers\":null},\"status\":{}"
    } else {
        ""
    };
    format!(
        "{{\"type\":\"BOOKMARK\",\"object\":{{\"kind\":\"{}\",\"apiVersion\":\"{}\",\"metadata\":{{\"resourceVersion\":\"{rv}\",\"creationTimestamp\":null}}{extra}}}}}\n",
        rt.kind,
        rt.api_version()
    )
    .into_bytes()
}

/// The initial-events-end bookmark, exactly as protocol.md shows it.
fn end_bookmark_line(rt: &ResourceType, rv: u64) -> Vec<u8> {
    format!(
        "{{\"type\":\"BOOKMARK\",\"object\":{{\"kind\":\"{}\",\"apiVersion\":\"{}\",\"metadata\":{{\"resourceVersion\":\"{rv}\",\"annotations\":{{\"k8s.io/initial-events-end\":\"true\"}}}}}}}}\n",
        rt.kind,
        rt.api_version()
    )
    .into_bytes()
}

fn with_rv(obj: &Obj, rv: u64) -> Obj {
    let mut o = obj.clone();
    o.rv = rv;
    if let Ok(mut v) = serde_json::from_str::<Value>(&obj.json) {
        if let Some(m) = v.get_mut("metadata").and_then(Value::as_object_mut) {
            m.insert("resourceVersion".into(), Value::String(rv.to_string()));
        }
        o.json = v.to_string();
    }
    o
}

fn continue_token(rv: u64, start: &str) -> String {
    let j = format!(
        "{{\"v\":\"meta.k8s.io/v1\",\"rv\":{rv},\"start\":{}}}",
        json_str(start)
    );
    b64url_encode(j.as_bytes())
}

fn parse_continue(tok: &str) -> Result<(u64, String), String> {
    let bytes = b64url_decode(tok).ok_or("illegal base64 data")?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
    if v["v"] != "meta.k8s.io/v1" {
        return Err("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)".into());
    }
    let rv = v["rv"]
        .as_u64()
        .ok_or("continue key is not valid: incorrect encoded start resourceVersion")?;
    let start = v["start"]
        .as_str()
        .ok_or("continue key is not valid: no start key")?;
    Ok((rv, start.to_string()))
}

impl Cluster {
    pub fn new(cfg: ClusterConfig) -> Self {
        let rng = Rng::new(cfg.seed);
        let lag = cfg.faults.lag;
        let next_compact_ms = if cfg.compact_every_ms == 0 {
            u64::MAX
        } else {
            cfg.compact_every_ms
        };
        Cluster {
            cfg,
            rng,
            now_ms: 0,
            rv: 1,
            stores: vec![BTreeMap::new(); resources::ALL.len()],
            history: VecDeque::new(),
            compacted_rv: 1,
            restart_floor: 1,
            restarts: 0,
            next_compact_ms,
            rv_at_last_compact_tick: 1,
            next_fault_action: 0,
            lag,
            watches: HashMap::new(),
            next_watch: 1,
        }
    }

    pub fn config(&self) -> &ClusterConfig {
        &self.cfg
    }

    /// The current (newest) resourceVersion.
    pub fn resource_version(&self) -> u64 {
        self.rv
    }

    /// History before this version is gone (lists at older versions and continue tokens give 410).
    pub fn compacted_rv(&self) -> u64 {
        self.compacted_rv
    }

    /// Watches from versions older than this get 410 (at `now_ms`).
    pub fn watch_floor(&self, now_ms: u64) -> u64 {
        let mut floor = self.compacted_rv.max(self.restart_floor);
        let w = self.cfg.watch_cache_window_ms;
        if w > 0 && now_ms > w {
            let cutoff = now_ms - w;
            let p = self.history.partition_point(|c| c.at_ms < cutoff);
            if p > 0 {
                floor = floor.max(self.history[p - 1].rv);
            }
        }
        floor
    }

    /// Number of open watches.
    pub fn open_watches(&self) -> usize {
        self.watches.len()
    }

    /// Number of objects of a resource type.
    pub fn count(&self, rt: ResourceType) -> usize {
        self.stores[resources::index_of(&rt)].len()
    }

    /// Replaces the fault plan (scheduled actions already past are not replayed).
    pub fn set_faults(&mut self, faults: FaultPlan) {
        self.lag = faults.lag;
        self.next_fault_action = faults.at.iter().filter(|(t, _)| *t <= self.now_ms).count();
        self.cfg.faults = faults;
    }

    /// Lagging replica: serve non-consistent reads and watches `Some(n)` versions behind.
    pub fn set_lag(&mut self, lag: Option<u64>) {
        self.lag = lag;
    }

    /// Runs what is due at `now_ms`: scheduled compactions and scripted fault actions.
    pub fn advance(&mut self, now_ms: u64) {
        if now_ms < self.now_ms {
            return;
        }
        self.now_ms = now_ms;
        while now_ms >= self.next_compact_ms {
            let to = self.rv_at_last_compact_tick;
            self.compact_to(to);
            self.rv_at_last_compact_tick = self.rv;
            self.next_compact_ms += self.cfg.compact_every_ms;
        }
        while let Some(&(t, a)) = self.cfg.faults.at.get(self.next_fault_action) {
            if t > now_ms {
                break;
            }
            self.next_fault_action += 1;
            match a {
                Action::Compact => self.compact_now(),
                Action::Restart => self.restart(),
            }
        }
    }

    fn compact_to(&mut self, rv: u64) {
        if rv <= self.compacted_rv {
            return;
        }
        self.compacted_rv = rv.min(self.rv);
        while self
            .history
            .front()
            .is_some_and(|c| c.rv <= self.compacted_rv)
        {
            self.history.pop_front();
        }
    }

    /// Compacts all history now: older versions and outstanding continue tokens expire.
    pub fn compact_now(&mut self) {
        let rv = self.rv;
        self.compact_to(rv);
    }

    /// Compaction at `now_ms` (runs what is due first, then compacts everything).
    pub fn compact(&mut self, now_ms: u64) {
        self.advance(now_ms);
        self.compact_now();
    }

    /// Server restart: store and history kept, every open watch is cut abruptly, and the
    /// watch cache restarts at the current version (older watch versions get 410).
    /// A starting apiserver writes (its lease, endpoints) before serving, so the version
    /// moves past every object's: as in a real cluster, even a client that was caught up
    /// resumes from an older version than the new cache holds, and relists.
    pub fn restart(&mut self) {
        for w in self.watches.values_mut() {
            w.killed = true;
        }
        let lease = serde_json::json!({
            "metadata": {"name": "kubelive-sim-apiserver", "namespace": "kube-system"},
            "data": {"restarts": self.restarts.to_string()}
        });
        self.restarts += 1;
        // update/create call advance(), which may be what called restart(): it has already
        // moved past this fault action, so the nested call runs nothing twice.
        let now = self.now_ms;
        let written = match self.update(CONFIGMAPS, lease.clone(), now) {
            Ok(r) => Ok(r),
            Err(_) => self.create(CONFIGMAPS, lease, now),
        };
        debug_assert!(
            written.is_ok(),
            "the apiserver's own write failed: {written:?}"
        );
        self.restart_floor = self.rv;
    }

    fn served_rv(&self, lagging: bool) -> u64 {
        match (lagging, self.lag) {
            (true, Some(l)) => self.rv.saturating_sub(l).max(self.compacted_rv),
            _ => self.rv,
        }
    }

    // ---------------------------------------------------------------- mutations

    fn build_obj(
        &mut self,
        rt: &ResourceType,
        mut v: Value,
        rv: u64,
        keep: Option<&Obj>,
        now_ms: u64,
    ) -> Result<Obj, MutationError> {
        let m = v
            .as_object_mut()
            .ok_or_else(|| MutationError::Invalid("object is not a JSON object".into()))?;
        m.remove("kind");
        m.remove("apiVersion");
        let meta = m
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()))
            .as_object_mut()
            .ok_or_else(|| MutationError::Invalid("metadata is not an object".into()))?;
        let mut name = meta
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if name.is_empty() {
            let gen = meta
                .get("generateName")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            if gen.is_empty() {
                return Err(MutationError::Invalid(
                    "metadata.name or generateName is required".into(),
                ));
            }
            name = format!("{gen}{}", self.rng.alnum(5));
            meta.insert("name".into(), Value::String(name.clone()));
        }
        let namespace = if rt.namespaced {
            let ns = meta
                .get("namespace")
                .and_then(Value::as_str)
                .unwrap_or("default")
                .to_string();
            meta.insert("namespace".into(), Value::String(ns.clone()));
            ns
        } else {
            meta.remove("namespace");
            String::new()
        };
        let uid = match keep {
            Some(k) => k.uid.clone(),
            None => self.rng.uuid(),
        };
        meta.insert("uid".into(), Value::String(uid.clone()));
        meta.insert("resourceVersion".into(), Value::String(rv.to_string()));
        let created = match keep {
            Some(k) => k.created.clone(),
            None => timestamp(now_ms),
        };
        meta.insert("creationTimestamp".into(), Value::String(created.clone()));
        let labels: Vec<(String, String)> = meta
            .get("labels")
            .and_then(Value::as_object)
            .map(|l| {
                l.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let phase = if rt.kind == "Pod" {
            m.get("status")
                .and_then(|s| s.get("phase"))
                .and_then(Value::as_str)
                .map(String::from)
        } else {
            None
        };
        Ok(Obj {
            namespace,
            name,
            uid,
            rv,
            labels,
            phase,
            created,
            json: v.to_string(),
        })
    }

    fn record(
        &mut self,
        res: usize,
        key: String,
        kind: ChangeKind,
        obj: Arc<Obj>,
        old: Option<Arc<Obj>>,
        now_ms: u64,
    ) {
        self.history.push_back(Change {
            rv: obj.rv,
            at_ms: now_ms.max(self.now_ms),
            res,
            key,
            kind,
            obj,
            old,
        });
    }

    fn objref(o: &Obj) -> ObjRef {
        ObjRef {
            namespace: o.namespace.clone(),
            name: o.name.clone(),
            uid: o.uid.clone(),
            resource_version: o.rv,
        }
    }

    /// Creates an object (`kind`/`apiVersion` optional; `metadata.name` or `generateName`
    /// required; namespace defaults to `default`). Sets uid, resourceVersion, creationTimestamp.
    pub fn create(
        &mut self,
        rt: ResourceType,
        obj: Value,
        now_ms: u64,
    ) -> Result<ObjRef, MutationError> {
        self.advance(now_ms);
        let res = resources::index_of(&rt);
        let o = self.build_obj(&rt, obj, self.rv + 1, None, now_ms)?;
        let key = key_of(&o.namespace, &o.name);
        if self.stores[res].contains_key(&key) {
            return Err(MutationError::AlreadyExists);
        }
        self.rv += 1;
        let o = Arc::new(o);
        self.stores[res].insert(key.clone(), o.clone());
        self.record(res, key, ChangeKind::Added, o.clone(), None, now_ms);
        Ok(Self::objref(&o))
    }

    /// Replaces an existing object (uid and creationTimestamp are kept).
    pub fn update(
        &mut self,
        rt: ResourceType,
        obj: Value,
        now_ms: u64,
    ) -> Result<ObjRef, MutationError> {
        self.advance(now_ms);
        let res = resources::index_of(&rt);
        let ns = if rt.namespaced {
            obj["metadata"]["namespace"].as_str().unwrap_or("default")
        } else {
            ""
        };
        let name = obj["metadata"]["name"].as_str().unwrap_or("");
        let key = key_of(ns, name);
        let old = self.stores[res]
            .get(&key)
            .cloned()
            .ok_or(MutationError::NotFound)?;
        let o = Arc::new(self.build_obj(&rt, obj, self.rv + 1, Some(&old), now_ms)?);
        self.rv += 1;
        self.stores[res].insert(key.clone(), o.clone());
        self.record(res, key, ChangeKind::Modified, o.clone(), Some(old), now_ms);
        Ok(Self::objref(&o))
    }

    /// Changes an existing object in place with `f` (a read-modify-write update).
    pub fn modify(
        &mut self,
        rt: ResourceType,
        namespace: &str,
        name: &str,
        now_ms: u64,
        f: impl FnOnce(&mut Value),
    ) -> Result<ObjRef, MutationError> {
        let v = self
            .get_value(rt, namespace, name)
            .ok_or(MutationError::NotFound)?;
        let mut v = v;
        f(&mut v);
        if let Some(m) = v.get_mut("metadata").and_then(Value::as_object_mut) {
            m.insert("name".into(), Value::String(name.into()));
            if rt.namespaced {
                m.insert("namespace".into(), Value::String(namespace.into()));
            }
        }
        self.update(rt, v, now_ms)
    }

    /// Deletes an object; watchers get DELETED with its last state at the deletion's version.
    pub fn delete(
        &mut self,
        rt: ResourceType,
        namespace: &str,
        name: &str,
        now_ms: u64,
    ) -> Result<ObjRef, MutationError> {
        self.advance(now_ms);
        let res = resources::index_of(&rt);
        let key = key_of(if rt.namespaced { namespace } else { "" }, name);
        let old = self.stores[res]
            .remove(&key)
            .ok_or(MutationError::NotFound)?;
        self.rv += 1;
        let gone = Arc::new(with_rv(&old, self.rv));
        self.record(
            res,
            key,
            ChangeKind::Deleted,
            gone.clone(),
            Some(old),
            now_ms,
        );
        Ok(Self::objref(&gone))
    }

    /// Deletes and creates again with the same name and content, and a new uid.
    pub fn recreate(
        &mut self,
        rt: ResourceType,
        namespace: &str,
        name: &str,
        now_ms: u64,
    ) -> Result<ObjRef, MutationError> {
        let v = self
            .get_value(rt, namespace, name)
            .ok_or(MutationError::NotFound)?;
        self.delete(rt, namespace, name, now_ms)?;
        self.create(rt, v, now_ms)
    }

    /// The current object as JSON (item form, no kind/apiVersion).
    pub fn get_value(&self, rt: ResourceType, namespace: &str, name: &str) -> Option<Value> {
        let res = resources::index_of(&rt);
        let key = key_of(if rt.namespaced { namespace } else { "" }, name);
        self.stores[res]
            .get(&key)
            .and_then(|o| serde_json::from_str(&o.json).ok())
    }

    /// Names (namespace, name) of the current objects of a type, in key order.
    pub fn names(&self, rt: ResourceType) -> Vec<(String, String)> {
        self.stores[resources::index_of(&rt)]
            .values()
            .map(|o| (o.namespace.clone(), o.name.clone()))
            .collect()
    }

    /// The server's current state for a query: (namespace, name, uid, resourceVersion),
    /// sorted by namespace/name. `collection_path` like `/api/v1/namespaces/a/pods`.
    pub fn truth(
        &self,
        collection_path: &str,
        label_selector: &str,
        field_selector: &str,
    ) -> Result<Vec<(String, String, String, String)>, String> {
        let q = Self::truth_query(collection_path, label_selector, field_selector)?;
        Ok(self.stores[q.res]
            .values()
            .filter(|o| q.matches(o))
            .map(|o| Self::truth_entry(o))
            .collect())
    }

    /// Like [`Cluster::truth`], as of version `rv` (from the retained history; an error
    /// once `rv` is compacted away or not reached yet).
    pub fn truth_at(
        &self,
        collection_path: &str,
        label_selector: &str,
        field_selector: &str,
        rv: u64,
    ) -> Result<Vec<(String, String, String, String)>, String> {
        if rv < self.compacted_rv() || rv > self.rv {
            return Err(format!(
                "version {rv} is outside the history ({}..={})",
                self.compacted_rv(),
                self.rv
            ));
        }
        let q = Self::truth_query(collection_path, label_selector, field_selector)?;
        let mut out = Vec::new();
        self.visit_at(&q, rv, None, |o| {
            if q.matches(o) {
                out.push(Self::truth_entry(o));
            }
            true
        });
        Ok(out)
    }

    fn truth_query(
        collection_path: &str,
        label_selector: &str,
        field_selector: &str,
    ) -> Result<Query, String> {
        let Some(Target::Collection { rt, namespace }) =
            resources::resolve(collection_path.split('?').next().unwrap_or(""))
        else {
            return Err(format!("not a collection path: {collection_path}"));
        };
        Ok(Query {
            res: resources::index_of(&rt),
            namespace,
            labels: LabelSelector::parse(label_selector)?,
            fields: FieldSelector::parse(field_selector, rt.kind == "Pod")?,
        })
    }

    fn truth_entry(o: &Obj) -> (String, String, String, String) {
        (
            o.namespace.clone(),
            o.name.clone(),
            o.uid.clone(),
            o.rv.to_string(),
        )
    }

    // ---------------------------------------------------------------- reads

    /// Visits objects of `q.res` as of version `rv` (must be >= compacted), in key order,
    /// starting after `after`. `f` returns false to stop.
    fn visit_at(
        &self,
        q: &Query,
        rv: u64,
        after: Option<&str>,
        mut f: impl FnMut(&Arc<Obj>) -> bool,
    ) {
        let store = &self.stores[q.res];
        // State at rv for keys changed since: the `old` of the first change after rv.
        let mut overlay: BTreeMap<&str, Option<&Arc<Obj>>> = BTreeMap::new();
        if rv < self.rv {
            let first = self.history.partition_point(|c| c.rv <= rv);
            for c in self.history.range(first..) {
                if c.res == q.res {
                    overlay.entry(c.key.as_str()).or_insert(c.old.as_ref());
                }
            }
        }
        let prefix = q.namespace.as_ref().map(|ns| format!("{ns}/"));
        let lower: Bound<&str> = match (after, prefix.as_deref()) {
            (Some(a), Some(p)) if a >= p => Bound::Excluded(a),
            (Some(a), None) => Bound::Excluded(a),
            (_, Some(p)) => Bound::Included(p),
            (None, None) => Bound::Unbounded,
        };
        let mut s = store.range::<str, _>((lower, Bound::Unbounded)).peekable();
        let mut ov = overlay
            .range::<&str, _>((lower.map(|x| x), Bound::Unbounded))
            .peekable();
        loop {
            let next_store = s.peek().map(|(k, _)| k.as_str());
            let next_ov = ov.peek().map(|(k, _)| **k);
            let (key, obj): (&str, Option<&Arc<Obj>>) = match (next_store, next_ov) {
                (None, None) => break,
                (Some(a), Some(b)) if a == b => {
                    s.next();
                    let (k, v) = ov.next().unwrap_or((&"", &None));
                    (*k, *v)
                }
                (Some(a), Some(b)) if b < a => {
                    let (k, v) = ov.next().unwrap_or((&"", &None));
                    (*k, *v)
                }
                (Some(_), _) => {
                    let (k, v) = s.next().unwrap_or_else(|| unreachable!());
                    (k.as_str(), Some(v))
                }
                (None, Some(_)) => {
                    let (k, v) = ov.next().unwrap_or((&"", &None));
                    (*k, *v)
                }
            };
            if let Some(p) = prefix.as_deref() {
                if !key.starts_with(p) {
                    break;
                }
            }
            if let Some(o) = obj {
                if q.matches(o) && !f(o) {
                    break;
                }
            }
        }
    }

    /// Handles a GET. Never panics on bad input: unknown paths give 404, bad queries 400/422.
    pub fn handle(&mut self, req: &Get, now_ms: u64) -> Reply {
        self.advance(now_ms);
        let now_ms = self.now_ms;
        let (path, query) = req
            .path_and_query
            .split_once('?')
            .unwrap_or((&req.path_and_query, ""));
        let target = match resources::resolve(path) {
            Some(t) => t,
            None => return Reply::Response(Response::json(404, status::not_found_path())),
        };
        let (rt, namespace, name) = match target {
            Target::Discovery(doc) => return Reply::Response(Response::json(200, doc.to_string())),
            Target::Collection { rt, namespace } => (rt, namespace, None),
            Target::Object {
                rt,
                namespace,
                name,
            } => (rt, namespace, Some(name)),
        };
        if let Some(r) = self.request_fault() {
            return Reply::Response(r);
        }
        let mut o = match parse_opts(query) {
            Ok(o) => o,
            Err(e) => return Reply::Response(Response::json(400, status::bad_request(&e))),
        };
        if let Some(name) = &name {
            if !o.watch {
                return Reply::Response(self.get_object(&rt, namespace.as_deref(), name));
            }
            // A watch on one object is a collection watch restricted by name.
            o.fields = if o.fields.is_empty() {
                format!("metadata.name={name}")
            } else {
                format!("{},metadata.name={name}", o.fields)
            };
        }
        let q = match (
            LabelSelector::parse(&o.labels),
            FieldSelector::parse(&o.fields, rt.kind == "Pod"),
        ) {
            (Ok(labels), Ok(fields)) => Query {
                res: resources::index_of(&rt),
                namespace,
                labels,
                fields,
            },
            (Err(e), _) | (_, Err(e)) => {
                return Reply::Response(Response::json(400, status::bad_request(&e)))
            }
        };
        if self.cfg.streaming_lists == StreamingLists::Ignored && o.watch {
            o.send_initial = None;
            o.rv_match.clear();
        }
        let errs = self.validate(&o);
        if !errs.is_empty() {
            return Reply::Response(Response::json(422, status::invalid_list_options(&errs)));
        }
        if o.watch {
            self.open_watch(q, &o, now_ms)
        } else {
            self.list(rt, q, &o, now_ms)
        }
    }

    fn request_fault(&mut self) -> Option<Response> {
        let f = &self.cfg.faults;
        let (p429, p500, p503, phtml, ra) = (f.err429, f.err500, f.err503, f.html, f.retry_after);
        let ra_s = ra.to_string();
        if self.rng.chance(p429) {
            return Some(
                Response::json(429, status::too_many_requests(ra))
                    .with_header("Retry-After", &ra_s),
            );
        }
        if self.rng.chance(p500) {
            return Some(
                Response::json(500, status::internal_error(ra)).with_header("Retry-After", &ra_s),
            );
        }
        if self.rng.chance(p503) {
            return Some(
                Response::json(503, status::service_unavailable(ra))
                    .with_header("Retry-After", &ra_s),
            );
        }
        if self.rng.chance(phtml) {
            return Some(Response {
                status: 502,
                headers: vec![("Content-Type".into(), "text/html".into())],
                body: status::HTML_ERROR_PAGE.as_bytes().to_vec(),
            });
        }
        None
    }

    fn validate(&self, o: &Opts) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let m = o.rv_match.as_str();
        if o.watch {
            if o.send_initial.is_some() {
                if m != "NotOlderThan" {
                    errs.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
                    ));
                }
                if self.cfg.streaming_lists == StreamingLists::Rejected {
                    errs.push(FieldError::forbidden(
                        "sendInitialEvents",
                        "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
                    ));
                }
            }
            if !m.is_empty() {
                if o.send_initial.is_none() {
                    errs.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                    ));
                }
                if m != "NotOlderThan" {
                    errs.push(FieldError::not_supported(
                        "resourceVersionMatch",
                        m,
                        &["NotOlderThan"],
                    ));
                }
                if !o.cont.is_empty() {
                    errs.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden when continue is provided",
                    ));
                }
            }
        } else {
            if !m.is_empty() {
                if o.rv.is_empty() {
                    errs.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden unless resourceVersion is provided",
                    ));
                }
                if !o.cont.is_empty() {
                    errs.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden when continue is provided",
                    ));
                }
                if m != "Exact" && m != "NotOlderThan" {
                    errs.push(FieldError::not_supported(
                        "resourceVersionMatch",
                        m,
                        &["Exact", "NotOlderThan", ""],
                    ));
                }
                if m == "Exact" && o.rv == "0" {
                    errs.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
                    ));
                }
            }
            if o.send_initial.is_some() {
                errs.push(FieldError::forbidden(
                    "sendInitialEvents",
                    "sendInitialEvents is forbidden for list",
                ));
            }
        }
        errs
    }

    fn get_object(&self, rt: &ResourceType, namespace: Option<&str>, name: &str) -> Response {
        let key = key_of(namespace.unwrap_or(""), name);
        match self.stores[resources::index_of(rt)].get(&key) {
            Some(o) => Response::json(200, with_type(rt, &o.json)),
            None => Response::json(
                404,
                status::not_found_object(&rt.qualified(), rt.group, rt.plural, name),
            ),
        }
    }

    fn parse_rv(s: &str) -> Result<u64, Response> {
        s.parse::<u64>().map_err(|_| {
            Response::json(
                400,
                status::bad_request(&format!("invalid resource version: {s:?}")),
            )
        })
    }

    fn list(&mut self, rt: ResourceType, q: Query, o: &Opts, now_ms: u64) -> Reply {
        let lagging = self.lag.is_some() && self.rng.chance(self.cfg.faults.lag_chance);
        let mut limit = o.limit;
        let (list_rv, after) = if !o.cont.is_empty() {
            if !o.rv.is_empty() && o.rv != "0" {
                return Reply::Response(Response::json(
                    400,
                    status::bad_request(
                        "specifying resource version is not allowed when using continue",
                    ),
                ));
            }
            let (rv, start) = match parse_continue(&o.cont) {
                Ok(x) => x,
                Err(e) => {
                    return Reply::Response(Response::json(
                        400,
                        status::bad_request(&format!("invalid continue token: {e}")),
                    ))
                }
            };
            if rv < self.compacted_rv {
                let fresh = continue_token(self.rv, &start);
                return Reply::Response(Response::json(410, status::continue_expired(&fresh)));
            }
            if rv > self.rv {
                return Reply::Response(Response::json(
                    400,
                    status::bad_request("invalid continue token: version from the future"),
                ));
            }
            let after = start.strip_suffix('\0').unwrap_or(&start).to_string();
            (rv, Some(after))
        } else if o.rv.is_empty() {
            (self.rv, None)
        } else if o.rv == "0" {
            limit = 0;
            (self.served_rv(lagging), None)
        } else {
            let n = match Self::parse_rv(&o.rv) {
                Ok(n) => n,
                Err(r) => return Reply::Response(r),
            };
            let exact = o.rv_match == "Exact" || (o.rv_match.is_empty() && limit > 0);
            if exact {
                if n > self.rv {
                    // From etcd: no wait, no Retry-After.
                    return Reply::Response(Response::json(504, status::too_large(n, self.rv)));
                }
                if n < self.compacted_rv {
                    return Reply::Response(Response::json(410, status::list_too_old()));
                }
                (n, None)
            } else {
                let served = self.served_rv(lagging);
                if n > served {
                    let resp = Response::json(504, status::too_large(n, served))
                        .with_header("Retry-After", "1");
                    return Reply::Delayed {
                        at_ms: now_ms + self.cfg.too_large_wait_ms,
                        response: resp,
                    };
                }
                (served, None)
            }
        };
        let mut items: Vec<&str> = Vec::new();
        let mut more = false;
        let mut remaining = 0u64;
        let mut last_key = String::new();
        let count_remaining = q.selectors_empty();
        let mut held: Vec<Arc<Obj>> = Vec::new();
        self.visit_at(&q, list_rv, after.as_deref(), |obj| {
            if limit == 0 || (held.len() as u64) < limit {
                held.push(obj.clone());
                true
            } else {
                more = true;
                remaining += 1;
                count_remaining
            }
        });
        if let Some(last) = held.last() {
            last_key = key_of(&last.namespace, &last.name);
        }
        for h in &held {
            items.push(&h.json);
        }
        let mut body =
            String::with_capacity(items.iter().map(|i| i.len() + 1).sum::<usize>() + 160);
        body.push_str(&format!(
            "{{\"kind\":\"{}\",\"apiVersion\":\"{}\",\"metadata\":{{\"resourceVersion\":\"{list_rv}\"",
            rt.list_kind,
            rt.api_version()
        ));
        if more {
            body.push_str(&format!(
                ",\"continue\":\"{}\"",
                continue_token(list_rv, &format!("{last_key}\0"))
            ));
            if count_remaining {
                body.push_str(&format!(",\"remainingItemCount\":{remaining}"));
            }
        }
        body.push_str("},\"items\":[");
        for (i, it) in items.iter().enumerate() {
            if i > 0 {
                body.push(',');
            }
            body.push_str(it);
        }
        body.push_str("]}");
        Reply::Response(Response::json(200, body))
    }

    fn open_watch(&mut self, q: Query, o: &Opts, now_ms: u64) -> Reply {
        let streaming = o.send_initial == Some(true);
        // A streaming list from "" is a consistent read (most recent state), never
        // served by a lagging replica's stale cache.
        let consistent = streaming && o.rv.is_empty();
        let lagging =
            !consistent && self.lag.is_some() && self.rng.chance(self.cfg.faults.lag_chance);
        let served = self.served_rv(lagging);
        let timeout_ms = match o.timeout {
            Some(t) => t * 1000,
            None => self.rng.range(1800, 3600) * 1000,
        };
        let f = self.cfg.faults.clone();
        let mut w = Watch {
            q,
            cursor: served,
            start_rv: served,
            wait_until_rv: None,
            initial: VecDeque::new(),
            end_bookmark: false,
            deadline_ms: now_ms + timeout_ms,
            bookmarks: o.bookmarks && !self.rng.chance(f.no_bookmarks),
            next_bookmark_ms: now_ms + self.cfg.bookmark_every_ms.max(1),
            final_bookmark_done: false,
            lagging,
            error_at: None,
            cut_at: None,
            bytes_sent: 0,
            malformed_at: None,
            events_made: 0,
            split: self.rng.chance(f.split),
            pending: VecDeque::new(),
            next_drip_ms: now_ms,
            finish: None,
            killed: false,
        };
        if self.rng.chance(f.cut) {
            w.cut_at = Some((self.rng.below(f.cut_within), false));
        } else if self.rng.chance(f.abort) {
            w.cut_at = Some((self.rng.below(f.cut_within), true));
        }
        if self.rng.chance(f.malformed) {
            w.malformed_at = Some(self.rng.below(20));
        }
        let synthetic = |this: &Self, w: &mut Watch, at: u64| {
            let mut v = VecDeque::new();
            this.visit_at(&w.q, at, None, |obj| {
                v.push_back(obj.clone());
                true
            });
            w.initial = v;
            w.cursor = at;
            w.start_rv = at;
        };
        let explicit = !o.rv.is_empty() && o.rv != "0";
        let n = if explicit {
            match Self::parse_rv(&o.rv) {
                Ok(n) => Some(n),
                Err(r) => return Reply::Response(r),
            }
        } else {
            None
        };
        if streaming {
            // Streaming list: state not older than N (or current), ADDED for each, then the end bookmark.
            match n {
                Some(n) if n > served => {
                    w.error_at = Some((
                        now_ms + self.cfg.too_large_wait_ms,
                        status::too_large(n, served),
                    ));
                }
                _ => {
                    synthetic(self, &mut w, served);
                    w.end_bookmark = true;
                }
            }
        } else {
            match n {
                None if o.send_initial == Some(false) && o.rv.is_empty() => {}
                None => synthetic(self, &mut w, served),
                Some(n) => {
                    let floor = self.watch_floor(now_ms);
                    if n < floor {
                        w.error_at = Some((now_ms, status::too_old_watch(n, floor)));
                    } else if n > served {
                        w.wait_until_rv = Some(n);
                        w.start_rv = n;
                    } else {
                        w.cursor = n;
                        w.start_rv = n;
                    }
                }
            }
        }
        let id = self.next_watch;
        self.next_watch += 1;
        self.watches.insert(id, w);
        Reply::Watch(WatchId(id))
    }

    /// Forgets a watch (the client went away).
    pub fn close_watch(&mut self, id: WatchId) {
        self.watches.remove(&id.0);
    }

    /// What watch `id` has for its client at `now_ms`. See [`WatchOutput`].
    pub fn poll_watch(&mut self, id: WatchId, now_ms: u64) -> WatchOutput {
        self.advance(now_ms);
        let now_ms = self.now_ms;
        let Some(mut w) = self.watches.remove(&id.0) else {
            return WatchOutput::End;
        };
        if w.killed {
            return WatchOutput::Abort;
        }
        if w.pending.is_empty() && w.finish.is_none() {
            self.produce(&mut w, now_ms);
        }
        let out = self.deliver(&mut w, now_ms);
        match out {
            WatchOutput::End | WatchOutput::Abort => {}
            _ => {
                self.watches.insert(id.0, w);
            }
        }
        out
    }

    /// Fills `w.pending` with the chunks due now (or sets `w.finish`).
    fn produce(&mut self, w: &mut Watch, now_ms: u64) {
        let rt = resources::ALL[w.q.res];
        if let Some((t, ref st)) = w.error_at {
            if now_ms >= t {
                w.pending.push_back(error_line(st));
                w.finish = Some(WatchOutput::End);
            }
            return;
        }
        if now_ms >= w.deadline_ms {
            w.finish = Some(WatchOutput::End);
            return;
        }
        let mut lines: Vec<Vec<u8>> = Vec::new();
        while lines.len() < MAX_EVENTS_PER_POLL {
            let Some(o) = w.initial.pop_front() else {
                break;
            };
            lines.push(event_line("ADDED", &rt, &o.json));
        }
        if w.initial.is_empty() {
            if w.end_bookmark {
                w.end_bookmark = false;
                lines.push(end_bookmark_line(&rt, w.cursor));
            }
            let served = self.served_rv(w.lagging);
            if let Some(n) = w.wait_until_rv {
                if served >= n {
                    w.wait_until_rv = None;
                    w.cursor = n;
                }
            }
            if w.wait_until_rv.is_none() && w.cursor < served {
                let first_rv = self.history.front().map(|c| c.rv).unwrap_or(self.rv + 1);
                if w.cursor + 1 < first_rv && w.cursor < self.rv {
                    // History this watcher still needed is gone: close it like a slow watcher.
                    w.finish = Some(WatchOutput::End);
                } else {
                    let start = (w.cursor + 1 - first_rv) as usize;
                    for c in self.history.range(start..) {
                        if c.rv > served || lines.len() >= MAX_EVENTS_PER_POLL {
                            break;
                        }
                        w.cursor = c.rv;
                        if c.res != w.q.res {
                            continue;
                        }
                        let now_m = w.q.matches(&c.obj);
                        let old_m = c.old.as_ref().is_some_and(|o| w.q.matches(o));
                        match (c.kind, old_m, now_m) {
                            (ChangeKind::Added, _, true) => {
                                lines.push(event_line("ADDED", &rt, &c.obj.json))
                            }
                            (ChangeKind::Deleted, _, true) => {
                                lines.push(event_line("DELETED", &rt, &c.obj.json))
                            }
                            (ChangeKind::Modified, true, true) => {
                                lines.push(event_line("MODIFIED", &rt, &c.obj.json))
                            }
                            (ChangeKind::Modified, false, true) => {
                                lines.push(event_line("ADDED", &rt, &c.obj.json))
                            }
                            (ChangeKind::Modified, true, false) => {
                                let prev = c.old.as_ref().map(|o| with_rv(o, c.rv));
                                if let Some(p) = prev {
                                    lines.push(event_line("DELETED", &rt, &p.json));
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
            if w.bookmarks && w.finish.is_none() && w.wait_until_rv.is_none() {
                let caught_up = w.cursor >= served;
                let mut sent = false;
                if now_ms >= w.next_bookmark_ms {
                    if caught_up && w.cursor > w.start_rv {
                        lines.push(bookmark_line(&rt, w.cursor));
                        sent = true;
                    }
                    while w.next_bookmark_ms <= now_ms {
                        w.next_bookmark_ms += self.cfg.bookmark_every_ms.max(1);
                    }
                }
                if !w.final_bookmark_done && now_ms + 2000 >= w.deadline_ms && caught_up {
                    w.final_bookmark_done = true;
                    if w.cursor > w.start_rv && !sent {
                        lines.push(bookmark_line(&rt, w.cursor));
                    }
                }
            }
        }
        for line in lines {
            if w.malformed_at == Some(w.events_made) {
                w.pending.push_back(b"{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\n".to_vec());
                w.finish = Some(WatchOutput::End);
                return;
            }
            w.events_made += 1;
            if w.split && line.len() > 1 {
                let pieces = 1 + self.rng.below(3) as usize;
                let mut cuts: Vec<usize> = (0..pieces)
                    .map(|_| 1 + self.rng.below(line.len() as u64 - 1) as usize)
                    .collect();
                cuts.sort_unstable();
                cuts.dedup();
                let mut prev = 0;
                for c in cuts {
                    w.pending.push_back(line[prev..c].to_vec());
                    prev = c;
                }
                w.pending.push_back(line[prev..].to_vec());
            } else {
                w.pending.push_back(line);
            }
        }
    }

    fn deliver(&mut self, w: &mut Watch, now_ms: u64) -> WatchOutput {
        let mut out: Vec<Vec<u8>> = Vec::new();
        if let Some((bytes, every)) = self.cfg.faults.drip {
            if !w.pending.is_empty() {
                if now_ms < w.next_drip_ms {
                    return WatchOutput::Pending {
                        wake_at_ms: w.next_drip_ms,
                    };
                }
                let Some(mut chunk) = w.pending.pop_front() else {
                    return WatchOutput::Pending { wake_at_ms: now_ms };
                };
                if chunk.len() > bytes {
                    let rest = chunk.split_off(bytes);
                    w.pending.push_front(rest);
                }
                out.push(chunk);
                w.next_drip_ms = now_ms + every;
            }
        } else {
            out.extend(w.pending.drain(..));
        }
        if let Some((cut, abrupt)) = w.cut_at {
            let mut kept = Vec::new();
            for mut c in out {
                let room = cut.saturating_sub(w.bytes_sent) as usize;
                if c.len() >= room {
                    c.truncate(room);
                    if !c.is_empty() {
                        kept.push(c);
                    }
                    w.pending.clear();
                    w.finish = Some(if abrupt {
                        WatchOutput::Abort
                    } else {
                        WatchOutput::End
                    });
                    w.bytes_sent = cut;
                    break;
                }
                w.bytes_sent += c.len() as u64;
                kept.push(c);
            }
            out = kept;
        } else {
            w.bytes_sent += out.iter().map(|c| c.len() as u64).sum::<u64>();
        }
        if !out.is_empty() {
            return WatchOutput::Chunks(out);
        }
        if w.pending.is_empty() {
            if let Some(f) = w.finish.take() {
                return f;
            }
        } else {
            return WatchOutput::Pending {
                wake_at_ms: w.next_drip_ms,
            };
        }
        let mut wake = w.deadline_ms;
        if let Some((t, _)) = w.error_at {
            wake = wake.min(t);
        }
        if w.bookmarks {
            wake = wake.min(w.next_bookmark_ms);
            if !w.final_bookmark_done {
                wake = wake.min(w.deadline_ms.saturating_sub(2000));
            }
        }
        if (w.wait_until_rv.is_none() && w.cursor < self.served_rv(w.lagging))
            || !w.initial.is_empty()
        {
            wake = now_ms;
        }
        WatchOutput::Pending {
            wake_at_ms: wake.max(now_ms),
        }
    }
}
