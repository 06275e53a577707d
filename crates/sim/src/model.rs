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
//! * Mutations (`create`, `update`, `modify`, `delete`, `delete_graceful`, `recreate`,
//!   `create_pod`, `update_pod`), `compact_now`, `restart`, `set_lag` change the server;
//!   `truth` reads its current state for invariant checks.
//! * Removing an object that others name in `ownerReferences` has the garbage collector
//!   collect them [`GC_DELAY_MS`] later (see `gc.rs`), on the next call that moves time.
//!
//! Storage is MVCC as in the apiserver's watch cache: each resource type is a persistent
//! ordered map with subtree counts ([`crate::tree`]). A paginated list keeps a snapshot of
//! the version it started at (O(1)), so each page costs O(log N + page) however many
//! objects and changes there are; a continue token whose snapshot was dropped is answered
//! exactly by undoing the history since its version (the slow path).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::ops::Bound;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::faults::{Action, CutStyle, FaultPlan};
use crate::genpod::PodState;
use crate::negotiate::Output;
use crate::object::{json_body, json_body_from_text, Body, Obj, Printed};
use crate::printers::{
    write_object_table, IncludeObject, ListMeta, TableConvertor, TableFormat, TableListWriter,
    WatchTableEncoder,
};
use crate::release::Release;
use crate::resources::{self, ResourceType, Target, CONFIGMAPS, EVENTS, LEASES};
use crate::selector::{FieldSelector, LabelSelector};
use crate::status::{self, FieldError};
use crate::tree::{Key, Keyed, Tree};
use crate::util::{json_str, timestamp, unix_ms_exact, url_decode, Rng};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::{DecodeError, Engine};

mod gc;
pub use gc::GC_DELAY_MS;

/// How the server treats `sendInitialEvents` (streaming lists).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StreamingLists {
    /// As the release does by default (its `WatchList` gate: [`Release::watch_list_default`]).
    #[default]
    ByRelease,
    /// WatchList enabled: synthetic ADDED, then the initial-events-end bookmark (when and
    /// how as the release does it).
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
    /// The `WatchList` gate: the release's default unless set.
    pub streaming_lists: StreamingLists,
    /// How long a too-large list waits before its 504 (ms).
    pub too_large_wait_ms: u64,
    pub faults: FaultPlan,
    /// The Kubernetes release the model answers as (default: the newest).
    pub release: Release,
    /// The `WatchListCompression` gate (None: the release's default,
    /// [`Release::watch_list_compression_default`]).
    pub watch_list_compression: Option<bool>,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            seed: 1,
            compact_every_ms: 300_000,
            watch_cache_window_ms: 75_000,
            bookmark_every_ms: 60_000,
            streaming_lists: StreamingLists::ByRelease,
            too_large_wait_ms: 3_000,
            faults: FaultPlan::none(),
            release: Release::NEWEST,
            watch_list_compression: None,
        }
    }
}

impl ClusterConfig {
    /// The `WatchList` gate in effect: the one set, else the release's default.
    pub fn watch_list(&self) -> StreamingLists {
        match self.streaming_lists {
            StreamingLists::ByRelease if self.release.watch_list_default() => {
                StreamingLists::Supported
            }
            StreamingLists::ByRelease => StreamingLists::Rejected,
            set => set,
        }
    }

    /// Whether streaming lists are gzipped for clients that accept it (the
    /// `WatchListCompression` gate in effect).
    pub fn compresses_watch_lists(&self) -> bool {
        self.watch_list_compression
            .unwrap_or(self.release.watch_list_compression_default())
    }
}

/// A GET request: the path with its query string, e.g. `/api/v1/pods?limit=5`, and the
/// request headers that matter to the answer (e.g. `Accept`). Build with [`Get::new`] and
/// [`Get::with_header`]; more fields may come.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Get {
    pub path_and_query: String,
    pub headers: Vec<(String, String)>,
    /// The representation the client negotiated through `Accept` (the HTTP layer decides;
    /// default: the objects as JSON). `Output::Table` asks for server-side printing.
    pub output: Output,
}

impl Get {
    pub fn new(path_and_query: impl Into<String>) -> Self {
        Get {
            path_and_query: path_and_query.into(),
            headers: Vec::new(),
            output: Output::Json,
        }
    }
    /// Adds a request header.
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
    /// The value of a request header (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
    /// The same request asking for another representation.
    pub fn with_output(mut self, output: Output) -> Self {
        self.output = output;
        self
    }
}

fn find_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// A complete HTTP response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// A JSON body as the apiserver's encoder writes it (`json.Encoder.Encode`: the
    /// document and a newline).
    fn json(status: u16, mut body: String) -> Self {
        if !body.ends_with('\n') {
            body.push('\n');
        }
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
        find_header(&self.headers, name)
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
    /// Send each element as one chunk, then poll again (the server writes them at once,
    /// or one by one under the split fault). Chunks and events
    /// need not match: a chunk may hold several events, an event may span chunks.
    Chunks(Vec<Vec<u8>>),
    /// Nothing now. Poll again at `wake_at_ms` at the latest, or after any mutation. A
    /// silent watch (the `silent` faults) stays here until the client closes it.
    Pending { wake_at_ms: u64 },
    /// End the body cleanly (terminating chunk). The watch is gone.
    End,
    /// Cut the connection without the terminating chunk. The watch is gone.
    Abort,
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
    kind: ChangeKind,
    /// New state; for Deleted, the last state with the deletion's resourceVersion.
    obj: Arc<Obj>,
    /// State before (None for Added).
    old: Option<Arc<Obj>>,
}

type Store = Tree<Arc<Obj>>;

#[derive(Debug, Clone)]
struct Query {
    rt: ResourceType,
    res: usize,
    namespace: Option<String>,
    labels: LabelSelector,
    fields: FieldSelector,
}

impl Query {
    fn matches(&self, o: &Obj) -> bool {
        self.namespace
            .as_deref()
            .is_none_or(|ns| ns == &*o.namespace)
            && self.labels.matches_with(|k| o.label(k))
            && self.fields.matches(|f| o.field(f))
    }
    fn selectors_empty(&self) -> bool {
        self.labels.is_empty() && self.fields.is_empty()
    }
    /// The key range of the query: a namespace's keys, or all.
    fn range(&self) -> (Option<String>, Option<String>) {
        match &self.namespace {
            Some(ns) => (Some(format!("{ns}/")), Some(format!("{ns}0"))),
            None => (None, None),
        }
    }
}

/// The objects of a synthetic initial list still to send (a streaming list's or a plain
/// watch's ADDED events), read from a snapshot a batch at a time.
#[derive(Debug)]
struct Initial {
    tree: Store,
    /// The key of the last object sent.
    after: Option<String>,
}

#[derive(Debug)]
struct Watch {
    q: Query,
    /// Last resourceVersion delivered (history events after it come next).
    cursor: u64,
    start_rv: u64,
    /// Plain watch from a version the server has not reached: silent until it does.
    wait_until_rv: Option<u64>,
    initial: Option<Initial>,
    /// The initial-events-end bookmark still to send, and when it is due.
    end_bookmark: Option<EndBookmarkDue>,
    deadline_ms: u64,
    bookmarks: bool,
    next_bookmark_ms: u64,
    final_bookmark_done: bool,
    lagging: bool,
    /// (when, ERROR Status JSON): deliver then end.
    error_at: Option<(u64, String)>,
    /// Chunk framing: several events to a chunk, events across chunks.
    rng: Rng,
    // Faults.
    cut_at: Option<(u64, bool)>,
    bytes_sent: u64,
    malformed_at: Option<u64>,
    events_made: u64,
    split: bool,
    /// A flaky proxy cuts the watch at this time, this way.
    proxy_cut: Option<(u64, CutStyle)>,
    /// From this time on the watch sends nothing and never ends.
    silent_at: Option<u64>,
    pending: VecDeque<Vec<u8>>,
    next_drip_ms: u64,
    finish: Option<WatchOutput>,
    killed: bool,
    /// A Table watch (`Accept: ...;as=Table`): each event's object printed as a one-row
    /// table, the column definitions with the first event only.
    table: Option<WatchTableEncoder>,
    /// Each batch of the body is one gzip member (`WatchListCompression`).
    gzip: bool,
}

/// When a streaming list's initial-events-end bookmark goes out
/// ([`Release::end_bookmark_right_after_initial_events`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EndBookmarkDue {
    /// Right after the last initial event (1.32 on).
    AfterInitialEvents,
    /// At the cacher's bookmark tick at `at_ms` (before 1.32), once the initial events
    /// are out; the changes made until then go first.
    Tick { at_ms: u64 },
}

/// The period of the cacher's bookmark timer (`dispatchEvents` in staging/src/k8s.io/
/// apiserver/pkg/storage/cacher/cacher.go: `wait.Jitter(time.Second, 0.25)`; the jitter
/// is left out so that a virtual clock knows when it fires).
pub const BOOKMARK_TICK_MS: u64 = 1000;

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
    /// `includeObject` (Table answers only).
    include_object: Option<String>,
}

/// The decoded value of query parameter `key`, if present.
pub(crate) fn query_param(query: &str, key: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (url_decode(k) == key).then(|| url_decode(v))
    })
}

/// A query parameter as a boolean, as apimachinery's `Convert_Slice_string_To_bool`
/// reads it: only `0` and `false` (any case) are false; present with any other value,
/// even empty (`?watch`), is true.
pub(crate) fn query_bool(v: &str) -> bool {
    !(v == "0" || v.eq_ignore_ascii_case("false"))
}

fn parse_opts(query: &str) -> Result<Opts, String> {
    let mut o = Opts::default();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let v = url_decode(v);
        match url_decode(k).as_str() {
            "watch" => o.watch = query_bool(&v),
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
            "allowWatchBookmarks" => o.bookmarks = query_bool(&v),
            "sendInitialEvents" => o.send_initial = Some(query_bool(&v)),
            "includeObject" => o.include_object = Some(v),
            _ => {}
        }
    }
    Ok(o)
}

/// How many list snapshots the server keeps (the oldest go first; a continue token whose
/// snapshot is gone is answered from the history). A snapshot costs nothing until the
/// store changes under it, then up to a path per change: few, and not for long, bounds
/// what they hold under churn.
const MAX_SNAPSHOTS: usize = 64;

/// How long a list snapshot is kept at most (ms): a paginated list is read in seconds.
const SNAPSHOT_TTL_MS: u64 = 60_000;

/// How quickly a resource's watch cache learns versions written to other resources while
/// its own is quiet: what decides whether a watch of an idle collection gets bookmarks.
///
/// The cacher sends a watch a bookmark about every minute, at the newest version it has
/// processed, and only if that is newer than the watch's start
/// (`staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go` `dispatchEvents`,
/// `cache_watcher.go` `process`). Its version moves with its own resource's events and with
/// etcd's progress notifications, which etcd sends every 10 minutes by default and at once
/// when a cache asks (`progress/watch_progress.go`: a consistent read waiting for the cache
/// to be fresh asks every 100 ms). All caches watch on one gRPC stream
/// (`SeparateCacheWatchRPC`), so a progress notification reaches every resource's cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheProgress {
    /// Every cache knows every version as soon as it is written (a busy cluster whose
    /// consistent reads keep asking etcd for progress).
    Immediate,
    /// etcd's progress notifications every this many ms, and every consistent read (a LIST
    /// or streaming list from `resourceVersion=""`, a streaming list from any version).
    Every(u64),
}

/// What a live cluster's control plane writes by itself (`coordination.k8s.io/v1` Leases
/// in `kube-system`), so the global resourceVersion moves even when nothing a user watches
/// changes, and how the watch caches learn of it. Off by default ([`ControlPlane::QUIET`]):
/// the in-process model writes only what its driver asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ControlPlane {
    /// kube-apiserver renews its identity lease (`apiserver-…`) this often (ms; 0 = never;
    /// kube-apiserver's `--identity-lease-renew-interval-seconds` is 10).
    pub identity_renew_ms: u64,
    /// kube-controller-manager and kube-scheduler renew their leader-election leases this
    /// often (ms; 0 = never; their `--leader-elect-retry-period` is 2 s).
    pub leader_renew_ms: u64,
    pub progress: CacheProgress,
}

impl ControlPlane {
    /// No writes of its own; caches know every version at once.
    pub const QUIET: ControlPlane = ControlPlane {
        identity_renew_ms: 0,
        leader_renew_ms: 0,
        progress: CacheProgress::Immediate,
    };

    /// A kube-apiserver 1.32 control plane on etcd's defaults: the identity lease every
    /// 10 s, the leader leases every 2 s, progress notifications every 10 minutes.
    pub const LIVE: ControlPlane = ControlPlane {
        identity_renew_ms: 10_000,
        leader_renew_ms: 2_000,
        progress: CacheProgress::Every(600_000),
    };
}

impl ControlPlane {
    /// How often lease `i` of [`CONTROL_PLANE_LEASES`] is renewed (0 = never).
    fn renew_every_ms(&self, i: usize) -> u64 {
        if i == 0 {
            self.identity_renew_ms
        } else {
            self.leader_renew_ms
        }
    }
}

/// The leases the control plane renews: (name, holder prefix, lease duration in seconds).
const CONTROL_PLANE_LEASES: [(&str, &str, u32); 3] = [
    ("apiserver-kubelive-sim", "apiserver-kubelive-sim", 3600),
    ("kube-controller-manager", "control-plane", 15),
    ("kube-scheduler", "control-plane", 15),
];

/// How long an Event lives after its last write (kube-apiserver's `--event-ttl`, 1 h: its
/// etcd lease is renewed by every update, `pkg/registry/core/event/storage`).
pub const EVENT_TTL_MS: u64 = 3_600_000;

/// The simulated apiserver.
#[derive(Debug)]
pub struct Cluster {
    cfg: ClusterConfig,
    rng: Rng,
    now_ms: u64,
    rv: u64,
    stores: Vec<Store>,
    /// Stores as of the versions paginated lists started at: (resource, version).
    snapshots: BTreeMap<(usize, u64), Store>,
    /// Snapshots oldest first, with the time each was taken.
    snapshot_order: VecDeque<(u64, (usize, u64))>,
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
    /// One shared string per namespace name.
    namespaces: HashMap<Box<str>, Arc<str>>,
    /// Graceful deletions to finish: (when, sequence) -> (resource, namespace, name, uid).
    finalizing: BTreeMap<(u64, u64), (usize, String, String, String)>,
    next_finalize: u64,
    /// Watch events' objects written once for every watch that sends them: (change
    /// version, old state?) -> JSON with kind/apiVersion. The newest few thousand.
    rendered: HashMap<(u64, bool), Arc<str>>,
    rendered_order: VecDeque<(u64, bool)>,
    /// Each resource's printer (the index is the resource's id).
    convertors: Vec<TableConvertor>,
    /// Objects with a time to live (Events): (when, sequence) -> (resource, namespace, name,
    /// the version whose TTL it is: a later write renews it).
    expiring: BTreeMap<(u64, u64), (usize, String, String, u64)>,
    next_expiry: u64,
    control_plane: ControlPlane,
    /// When each control-plane lease is renewed next (`CONTROL_PLANE_LEASES` order).
    next_renewal: [u64; 3],
    next_progress_ms: u64,
    /// The newest version each resource's watch cache knows ([`CacheProgress::Every`]).
    cache_rv: Vec<u64>,
    /// Per resource, the newest of its changes compaction dropped from the history.
    dropped_rv: Vec<u64>,
    /// The garbage collector's state (dependents of removed owners to collect).
    gc: gc::Collector,
}

/// `text` decoded for what the store reads of it (labels, selectable fields, the printer's
/// cells): everything but `metadata.managedFields`, often most of an object's fields and
/// none of what a printer shows, so not decoded.
fn decode_for_printing(text: &str) -> Result<Value, String> {
    use crate::printers::gojson::object_fields;
    let managed = object_fields(text)
        .map_err(|e| e.to_string())?
        .into_iter()
        .find(|(k, _)| *k == "metadata")
        .and_then(|(_, meta)| {
            let fields = object_fields(&text[meta.clone()]).ok()?;
            let i = fields.iter().position(|(k, _)| *k == "managedFields")?;
            // From the end of the field before (its comma goes) to this value's end; the
            // first field goes with the comma after it.
            let end = meta.start + fields[i].1.end;
            Some(match i {
                0 => (meta.start + 1)..end,
                _ => (meta.start + fields[i - 1].1.end)..end,
            })
        });
    match managed {
        Some(cut) => {
            let mut slim = String::with_capacity(text.len() - cut.len());
            slim.push_str(&text[..cut.start]);
            let rest = &text[cut.end..];
            let rest = if slim.ends_with('{') {
                rest.trim_start().strip_prefix(',').unwrap_or(rest)
            } else {
                rest
            };
            slim.push_str(rest);
            serde_json::from_str(&slim).map_err(|e| e.to_string())
        }
        None => serde_json::from_str(text).map_err(|e| e.to_string()),
    }
}

/// The printer of a resource type: a built-in one, the default convertor, or a CRD's
/// columns (the widgets' `additionalPrinterColumns`; the extra groups declare none).
fn convertor_of(rt: &ResourceType, release: Release) -> TableConvertor {
    if !rt.custom {
        return TableConvertor::for_kind_in(rt.group, rt.kind, release);
    }
    let crd: Value = if *rt == resources::WIDGETS {
        serde_json::from_str(&crate::kinds::widget_crd("", None, 0)).unwrap_or_default()
    } else {
        serde_json::json!({"spec": {"versions": [{"name": rt.version}]}})
    };
    TableConvertor::for_crd(&crd, rt.version)
        .unwrap_or_else(|_| TableConvertor::default_convertor())
}

/// How many rendered watch objects the cache keeps (~4 KB each).
const RENDERED_CACHE: usize = 2048;

const MAX_EVENTS_PER_POLL: usize = 256;

/// Whether a resource type is served from a CustomResourceDefinition (its list items
/// carry `kind`/`apiVersion`, its empty objects are unstructured).
fn is_custom(rt: &ResourceType) -> bool {
    rt.custom
}

/// The empty object of a kind as the watch cache builds a bookmark's (a typed object's
/// zero-value fields included; `creationTimestamp` is a struct, so `null`), with
/// `extra_meta` (e.g. annotations) after the resourceVersion.
fn empty_object(rt: &ResourceType, rv: u64, annotations: Option<&str>) -> String {
    let ann = annotations
        .map(|a| format!(",\"annotations\":{a}"))
        .unwrap_or_default();
    if is_custom(rt) {
        // Unstructured: a map, so keys are sorted and nothing is added.
        return format!(
            "{{\"apiVersion\":\"{}\",\"kind\":\"{}\",\"metadata\":{{{}\"resourceVersion\":\"{rv}\"}}}}",
            rt.api_version(),
            rt.kind,
            annotations
                .map(|a| format!("\"annotations\":{a},"))
                .unwrap_or_default(),
        );
    }
    // Go's encoding of each zero-value struct (k8s.io/api types.go): fields without
    // omitempty, and structs (never omitted), stay; a zero metav1.Time is null.
    let rest = match rt.kind {
        "Pod" => ",\"spec\":{\"containers\":null},\"status\":{}",
        "Namespace" => ",\"spec\":{},\"status\":{}",
        "Node" => ",\"spec\":{},\"status\":{\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":0}},\"nodeInfo\":{\"machineID\":\"\",\"systemUUID\":\"\",\"bootID\":\"\",\"kernelVersion\":\"\",\"osImage\":\"\",\"containerRuntimeVersion\":\"\",\"kubeletVersion\":\"\",\"kubeProxyVersion\":\"\",\"operatingSystem\":\"\",\"architecture\":\"\"}}",
        "Deployment" => ",\"spec\":{\"selector\":null,\"template\":{\"metadata\":{\"creationTimestamp\":null},\"spec\":{\"containers\":null}},\"strategy\":{}},\"status\":{}",
        "ReplicaSet" => ",\"spec\":{\"selector\":null,\"template\":{\"metadata\":{\"creationTimestamp\":null},\"spec\":{\"containers\":null}}},\"status\":{\"replicas\":0}",
        "Service" => ",\"spec\":{},\"status\":{\"loadBalancer\":{}}",
        "Event" => ",\"involvedObject\":{},\"source\":{},\"firstTimestamp\":null,\"lastTimestamp\":null,\"eventTime\":null,\"reportingComponent\":\"\",\"reportingInstance\":\"\"",
        "Lease" => ",\"spec\":{}",
        "CustomResourceDefinition" => ",\"spec\":{\"group\":\"\",\"names\":{\"plural\":\"\",\"kind\":\"\"},\"scope\":\"\",\"versions\":null},\"status\":{\"acceptedNames\":{\"plural\":\"\",\"kind\":\"\"},\"storedVersions\":null}",
        // ConfigMap, Secret: every field omitempty.
        _ => "",
    };
    format!(
        "{{\"kind\":\"{}\",\"apiVersion\":\"{}\",\"metadata\":{{\"resourceVersion\":\"{rv}\",\"creationTimestamp\":null{ann}}}{rest}}}",
        rt.kind,
        rt.api_version()
    )
}

fn event_line(ty: &str, object_json: &str) -> Vec<u8> {
    let mut s = Vec::with_capacity(object_json.len() + 32);
    s.extend_from_slice(b"{\"type\":\"");
    s.extend_from_slice(ty.as_bytes());
    s.extend_from_slice(b"\",\"object\":");
    s.extend_from_slice(object_json.as_bytes());
    s.extend_from_slice(b"}\n");
    s
}

/// The 406 of content negotiation (`negotiation.NewNotAcceptableError`), written raw and
/// indented as `WriteRawJSON` does: the client accepts nothing the server can write.
fn not_acceptable() -> Response {
    let body = status::status_json(
        406,
        "NotAcceptable",
        &crate::negotiate::not_acceptable_message(),
        None,
    );
    Response {
        status: 406,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: crate::indent::indent(body.as_bytes()),
    }
}

/// `bytes` as one gzip member, written the way Go's `gzip.Writer` is by
/// `perFlushGzipWriter.Flush` (watch.go): a sync flush, then `Close`, at level 1 like the
/// apiserver's gzip pool.
fn gzip_member(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(
        Vec::with_capacity(bytes.len() / 4 + 64),
        flate2::Compression::new(1),
    );
    // Writing to a Vec cannot fail.
    let _ = gz.write_all(bytes).and_then(|_| gz.flush());
    gz.finish().unwrap_or_default()
}

fn error_line(status_json: &str) -> Vec<u8> {
    format!("{{\"type\":\"ERROR\",\"object\":{status_json}}}\n").into_bytes()
}

/// A typed list: `kind`, `apiVersion`, `metadata` (ListMeta order: resourceVersion,
/// continue, remainingItemCount), then the items without `kind`/`apiVersion`.
fn write_typed_list(out: &mut String, rt: &ResourceType, meta: &ListMeta<'_>, page: &[&Arc<Obj>]) {
    out.push_str("{\"kind\":\"");
    out.push_str(rt.list_kind);
    out.push_str("\",\"apiVersion\":\"");
    out.push_str(&rt.api_version());
    out.push_str("\",\"metadata\":{\"resourceVersion\":");
    out.push_str(&json_str(meta.resource_version));
    if !meta.continue_token.is_empty() {
        out.push_str(",\"continue\":");
        out.push_str(&json_str(meta.continue_token));
    }
    if let Some(n) = meta.remaining_item_count {
        out.push_str(&format!(",\"remainingItemCount\":{n}"));
    }
    out.push_str("},\"items\":[");
    for (i, obj) in page.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        obj.write_json(out, None);
    }
    out.push_str("]}");
}

/// A custom resource's list, unstructured (`UnstructuredList`: a map, keys sorted:
/// `apiVersion`, `items`, `kind`, `metadata`; the items whole).
fn write_unstructured_list(
    out: &mut String,
    rt: &ResourceType,
    meta: &ListMeta<'_>,
    page: &[&Arc<Obj>],
) {
    out.push_str("{\"apiVersion\":\"");
    out.push_str(&rt.api_version());
    out.push_str("\",\"items\":[");
    for (i, obj) in page.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        obj.write_json(out, Some(rt));
    }
    out.push_str("],\"kind\":\"");
    out.push_str(rt.list_kind);
    out.push_str("\",\"metadata\":{");
    if !meta.continue_token.is_empty() {
        out.push_str("\"continue\":");
        out.push_str(&json_str(meta.continue_token));
        out.push(',');
    }
    if let Some(n) = meta.remaining_item_count {
        out.push_str(&format!("\"remainingItemCount\":{n},"));
    }
    out.push_str("\"resourceVersion\":");
    out.push_str(&json_str(meta.resource_version));
    out.push_str("}}");
}

fn continue_token(rv: i64, start: &str) -> String {
    let j = format!(
        "{{\"v\":\"meta.k8s.io/v1\",\"rv\":{rv},\"start\":{}}}",
        json_str(start)
    );
    URL_SAFE_NO_PAD.encode(j)
}

/// (version, start key) of a continue token; version -1 is "the current one" (a token
/// handed out with an expired continue's 410).
fn parse_continue(tok: &str) -> Result<(i64, String), String> {
    // Go's base64.RawURLEncoding: no padding, the URL alphabet only
    // (storage.DecodeContinue in staging/src/k8s.io/apiserver/pkg/storage/continue.go).
    let bytes = URL_SAFE_NO_PAD.decode(tok).map_err(|e| {
        let at = match e {
            DecodeError::InvalidByte(at, _) | DecodeError::InvalidLastSymbol(at, _) => at,
            // One symbol left over: Go names the byte it began at.
            DecodeError::InvalidLength(len) => len.saturating_sub(1),
            DecodeError::InvalidPadding => tok.find('=').unwrap_or(tok.len()),
        };
        format!("continue key is not valid: illegal base64 data at input byte {at}")
    })?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
    if v["v"] != "meta.k8s.io/v1" {
        return Err("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)".into());
    }
    let rv = v["rv"]
        .as_i64()
        .filter(|rv| *rv != 0)
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
        let release = cfg.release;
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
            stores: vec![Tree::new(); resources::all().len()],
            snapshots: BTreeMap::new(),
            snapshot_order: VecDeque::new(),
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
            namespaces: HashMap::new(),
            finalizing: BTreeMap::new(),
            next_finalize: 0,
            rendered: HashMap::new(),
            rendered_order: VecDeque::new(),
            convertors: resources::all()
                .iter()
                .map(|rt| convertor_of(rt, release))
                .collect(),
            expiring: BTreeMap::new(),
            next_expiry: 0,
            control_plane: ControlPlane::QUIET,
            next_renewal: [u64::MAX; 3],
            next_progress_ms: u64::MAX,
            cache_rv: vec![1; resources::all().len()],
            dropped_rv: vec![0; resources::all().len()],
            gc: gc::Collector::default(),
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

    /// Watches of `rt` from versions older than this get 410 (at `now_ms`).
    ///
    /// Each resource has its own watch cache, which drops only its own events: a watch is
    /// too old if an event of its resource after its version is gone (compacted, or older
    /// than the window), not because other resources moved on. An idle collection's watch
    /// keeps resuming while the control plane writes elsewhere (`cacher.go`,
    /// `watch_cache.go` `getAllEventsSinceLocked`: the bound is the cache's own oldest
    /// event). A restart re-initialises every cache at the current version.
    pub fn watch_floor(&self, rt: ResourceType, now_ms: u64) -> u64 {
        let res = resources::index_of(&rt);
        let mut floor = self.dropped_rv[res].max(self.restart_floor);
        let w = self.cfg.watch_cache_window_ms;
        if w > 0 && now_ms > w {
            let cutoff = now_ms - w;
            let p = self.history.partition_point(|c| c.at_ms < cutoff);
            // The newest event of the resource older than the window.
            if let Some(c) = self.history.range(..p).rev().find(|c| c.res == res) {
                floor = floor.max(c.rv);
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

    /// Whether objects of `rt` changed after version `rv` (within the retained history;
    /// true if that history is gone).
    pub fn changed_since(&self, rt: ResourceType, rv: u64) -> bool {
        let res = resources::index_of(&rt);
        if rv < self.compacted_rv && rv < self.rv {
            return true;
        }
        let first = self.history.partition_point(|c| c.rv <= rv);
        self.history.range(first..).any(|c| c.res == res)
    }

    /// Bytes the current objects' stored rows hold (for benches: what printing once per
    /// version costs in memory; the history's older versions share most of it).
    pub fn row_bytes(&self) -> usize {
        self.stores
            .iter()
            .flat_map(|s| s.iter())
            .map(|o| o.row_heap_bytes())
            .sum()
    }

    /// Number of list snapshots held (for tests and benches).
    pub fn snapshot_count(&self) -> usize {
        self.snapshots.len()
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

    /// Runs what is due at `now_ms`: scheduled compactions, scripted fault actions, and
    /// graceful deletions whose grace period is over.
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
                Action::Silent => {
                    for w in self.watches.values_mut() {
                        w.silent_at = Some(w.silent_at.map_or(t, |s| s.min(t)));
                    }
                }
            }
        }
        self.drop_snapshots();
        self.collect_garbage(now_ms);
        while let Some(entry) = self.finalizing.first_entry() {
            if entry.key().0 > now_ms {
                break;
            }
            let (at, _) = *entry.key();
            let (res, ns, name, uid) = entry.remove();
            self.finish_deletion(res, &ns, &name, &uid, at.max(self.now_ms));
        }
        while let Some(entry) = self.expiring.first_entry() {
            if entry.key().0 > now_ms {
                break;
            }
            let (res, ns, name, rv) = entry.remove();
            // Expired unless written again since (that write renewed the TTL).
            if self.stores[res]
                .get(Key::new(&ns, &name))
                .is_some_and(|o| o.rv == rv)
            {
                let _ = self.delete_now(res, &ns, &name, now_ms);
            }
        }
        self.control_plane_tick(now_ms);
    }

    /// Sets what the control plane writes by itself and how the watch caches learn of it
    /// (see [`ControlPlane`]); the leases are written at once, then renewed on schedule.
    pub fn set_control_plane(&mut self, cp: ControlPlane, now_ms: u64) {
        self.advance(now_ms);
        self.control_plane = cp;
        let now = self.now_ms;
        for (i, next) in self.next_renewal.iter_mut().enumerate() {
            let every = cp.renew_every_ms(i);
            *next = if every == 0 { u64::MAX } else { now };
        }
        self.next_progress_ms = match cp.progress {
            CacheProgress::Immediate => u64::MAX,
            CacheProgress::Every(ms) => now + ms.max(1),
        };
        self.cache_rv.fill(self.rv);
        self.control_plane_tick(now);
    }

    /// The control plane's configuration.
    pub fn control_plane(&self) -> ControlPlane {
        self.control_plane
    }

    /// Renews the leases that are due (every renewal since the last call, each with its
    /// own renewTime; at most a thousand a lease, then the schedule skips ahead) and
    /// delivers etcd's periodic progress notification.
    fn control_plane_tick(&mut self, now_ms: u64) {
        for i in 0..CONTROL_PLANE_LEASES.len() {
            let every = self.control_plane.renew_every_ms(i);
            let mut budget = 1000;
            while self.next_renewal[i] <= now_ms {
                let due = self.next_renewal[i];
                self.renew_lease(i, due);
                budget -= 1;
                self.next_renewal[i] = match every {
                    0 => u64::MAX,
                    _ if budget == 0 => now_ms + every,
                    _ => due + every,
                };
            }
        }
        if now_ms >= self.next_progress_ms {
            self.caches_fresh();
            if let CacheProgress::Every(ms) = self.control_plane.progress {
                while self.next_progress_ms <= now_ms {
                    self.next_progress_ms += ms.max(1);
                }
            }
        }
    }

    /// Writes control-plane lease `i` as renewed at `now_ms` (created on its first renewal).
    fn renew_lease(&mut self, i: usize, now_ms: u64) {
        let (name, holder, duration) = CONTROL_PLANE_LEASES[i];
        let res = resources::index_of(&LEASES);
        let current = self.stores[res].get(Key::new("kube-system", name)).cloned();
        let (uid, acquired) = match &current {
            Some(o) => (o.uid().into_owned(), o.created()),
            None => (self.rng.uuid(), timestamp(now_ms)),
        };
        let text = crate::kinds::lease(&crate::kinds::LeaseParams {
            name,
            namespace: "kube-system",
            uid: &uid,
            created: &acquired,
            holder: &format!("{holder}_{}", &uid[..8]),
            duration_s: duration,
            renew_ms: now_ms,
            identity: i == 0,
        });
        let rv = self.rv + 1;
        let Ok(o) = self.obj_from_text(&LEASES, &text, rv) else {
            debug_assert!(false, "a control-plane lease did not build: {text}");
            return;
        };
        if current.is_some() {
            self.replace(res, o, now_ms);
        } else {
            let _ = self.insert_new(res, o, now_ms);
        }
    }

    /// Every watch cache learns the newest version (an etcd progress notification).
    fn caches_fresh(&mut self) {
        self.cache_rv.fill(self.rv);
    }

    /// The newest version resource `res`'s watch cache knows.
    fn cache_rv(&self, res: usize) -> u64 {
        match self.control_plane.progress {
            CacheProgress::Immediate => self.rv,
            CacheProgress::Every(_) => self.cache_rv[res],
        }
    }

    /// Removes an object whose graceful deletion is over (unless it is gone already or
    /// a new object has its name).
    fn finish_deletion(&mut self, res: usize, ns: &str, name: &str, uid: &str, at_ms: u64) {
        let still = self.stores[res]
            .get(Key::new(ns, name))
            .is_some_and(|o| o.deleting() && o.uid() == uid);
        if still {
            let _ = self.delete_now(res, ns, name, at_ms);
        }
    }

    /// Ends every graceful deletion under way now (their objects are DELETED), as if
    /// every grace period were over: for a test that needs the server quiet.
    pub fn finish_graceful_deletions(&mut self, now_ms: u64) {
        self.advance(now_ms);
        let due = std::mem::take(&mut self.finalizing);
        for (res, ns, name, uid) in due.into_values() {
            self.finish_deletion(res, &ns, &name, &uid, self.now_ms);
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
            if let Some(c) = self.history.pop_front() {
                self.dropped_rv[c.res] = c.rv;
            }
        }
        let floor = self.compacted_rv;
        self.snapshots.retain(|(_, rv), _| *rv >= floor);
        self.snapshot_order.retain(|(_, (_, rv))| *rv >= floor);
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
        // The new watch caches start from a list at the current version.
        self.caches_fresh();
        // The new watch cache has no snapshots.
        self.snapshots.clear();
        self.snapshot_order.clear();
    }

    fn served_rv(&self, lagging: bool) -> u64 {
        match (lagging, self.lag) {
            (true, Some(l)) => self.rv.saturating_sub(l).max(self.compacted_rv),
            _ => self.rv,
        }
    }

    fn intern(&mut self, ns: &str) -> Arc<str> {
        if let Some(a) = self.namespaces.get(ns) {
            return a.clone();
        }
        let a: Arc<str> = ns.into();
        self.namespaces.insert(ns.into(), a.clone());
        a
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
            Some(k) => k.uid().into_owned(),
            None => self.rng.uuid(),
        };
        meta.insert("uid".into(), Value::String(uid.clone()));
        meta.remove("resourceVersion");
        let created = match keep {
            Some(k) => k.created(),
            None => timestamp(now_ms),
        };
        meta.insert("creationTimestamp".into(), Value::String(created));
        let row = self.convertors[resources::index_of(rt)].row(&v);
        let body = json_body(rt, &v, row);
        Ok(Obj {
            namespace: self.intern(&namespace),
            name: name.into_boxed_str(),
            rv,
            body: Body::Json(Arc::new(body)),
        })
    }

    /// An object from its wire text (see [`Cluster::create_object`]) at version `rv`.
    fn obj_from_text(
        &mut self,
        rt: &ResourceType,
        text: &str,
        rv: u64,
    ) -> Result<Obj, MutationError> {
        // A custom resource is rebuilt from its decoded form (unstructured): all of it.
        let v = if rt.custom {
            serde_json::from_str(text).map_err(|e| e.to_string())
        } else {
            decode_for_printing(text)
        }
        .map_err(MutationError::Invalid)?;
        let meta = &v["metadata"];
        let name = meta["name"].as_str().unwrap_or("");
        if name.is_empty() {
            return Err(MutationError::Invalid("metadata.name is required".into()));
        }
        let namespace = match (rt.namespaced, meta["namespace"].as_str()) {
            (true, Some(ns)) if !ns.is_empty() => ns,
            (true, _) => {
                return Err(MutationError::Invalid(
                    "metadata.namespace is required".into(),
                ))
            }
            (false, _) => "",
        };
        for field in ["uid", "creationTimestamp"] {
            if meta[field].as_str().is_none_or(str::is_empty) {
                return Err(MutationError::Invalid(format!(
                    "metadata.{field} is required"
                )));
            }
        }
        let row = self.convertors[resources::index_of(rt)].row(&v);
        let body = json_body_from_text(rt, text, &v, row).map_err(MutationError::Invalid)?;
        Ok(Obj {
            namespace: self.intern(namespace),
            name: name.into(),
            rv,
            body: Body::Json(Arc::new(body)),
        })
    }

    /// Stores an object given as the apiserver would serve it: compact JSON in wire order
    /// (for typed kinds `kind`, `apiVersion`, then Go struct order, as [`crate::kinds`]
    /// writes them), with `metadata.name`, `namespace` (namespaced kinds), `uid` and
    /// `creationTimestamp` set; its order is kept, its resourceVersion is the store's.
    pub fn create_object(
        &mut self,
        rt: ResourceType,
        text: &str,
        now_ms: u64,
    ) -> Result<ObjRef, MutationError> {
        self.advance(now_ms);
        let res = resources::index_of(&rt);
        let o = self.obj_from_text(&rt, text, self.rv + 1)?;
        self.insert_new(res, o, now_ms)
    }

    /// Replaces an existing object with one given as in [`Cluster::create_object`] (an
    /// update: the text says what it is now, uid and creationTimestamp included).
    pub fn update_object(
        &mut self,
        rt: ResourceType,
        text: &str,
        now_ms: u64,
    ) -> Result<ObjRef, MutationError> {
        self.advance(now_ms);
        let res = resources::index_of(&rt);
        let o = self.obj_from_text(&rt, text, self.rv + 1)?;
        let old = self.stores[res]
            .get(o.key())
            .ok_or(MutationError::NotFound)?;
        if old.uid() != o.uid() {
            return Err(MutationError::Invalid(format!(
                "Precondition failed: UID in precondition: {}, UID in object meta: {}",
                o.uid(),
                old.uid()
            )));
        }
        Ok(self.replace(res, o, now_ms))
    }

    fn record(
        &mut self,
        res: usize,
        kind: ChangeKind,
        obj: Arc<Obj>,
        old: Option<Arc<Obj>>,
        now_ms: u64,
    ) {
        self.cache_rv[res] = obj.rv;
        if res == resources::index_of(&EVENTS) && kind != ChangeKind::Deleted {
            // Every write of an Event renews its TTL.
            self.next_expiry += 1;
            self.expiring.insert(
                (now_ms.max(self.now_ms) + EVENT_TTL_MS, self.next_expiry),
                (res, obj.namespace.to_string(), obj.name.to_string(), obj.rv),
            );
        }
        self.history.push_back(Change {
            rv: obj.rv,
            at_ms: now_ms.max(self.now_ms),
            res,
            kind,
            obj,
            old,
        });
    }

    fn objref(o: &Obj) -> ObjRef {
        ObjRef {
            namespace: o.namespace.to_string(),
            name: o.name.to_string(),
            uid: o.uid().into_owned(),
            resource_version: o.rv,
        }
    }

    /// Stores a new object made at version `self.rv + 1`.
    fn insert_new(&mut self, res: usize, o: Obj, now_ms: u64) -> Result<ObjRef, MutationError> {
        if self.stores[res].get(o.key()).is_some() {
            return Err(MutationError::AlreadyExists);
        }
        self.rv += 1;
        let o = Arc::new(o);
        self.gc.referenced(&o, None);
        self.stores[res].insert(o.clone());
        self.record(res, ChangeKind::Added, o.clone(), None, now_ms);
        Ok(Self::objref(&o))
    }

    /// Replaces the object at `o`'s key with `o` (made at version `self.rv + 1`).
    fn replace(&mut self, res: usize, o: Obj, now_ms: u64) -> ObjRef {
        self.rv += 1;
        let o = Arc::new(o);
        let old = self.stores[res].insert(o.clone());
        self.gc.referenced(&o, old.as_deref());
        self.record(res, ChangeKind::Modified, o.clone(), old, now_ms);
        Self::objref(&o)
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
        self.insert_new(res, o, now_ms)
    }

    /// Creates a pod from its compact state (the workload's pods): same list/watch
    /// behaviour as any pod, a fraction of the memory.
    pub fn create_pod(&mut self, state: PodState, now_ms: u64) -> Result<ObjRef, MutationError> {
        self.advance(now_ms);
        let res = resources::index_of(&resources::PODS);
        let ns = self.intern(&state.deploy.namespace);
        let o = Obj {
            namespace: ns,
            name: state.name().into_boxed_str(),
            rv: self.rv + 1,
            body: Body::Pod(Arc::new(state)),
        };
        self.insert_new(res, o, now_ms)
    }

    /// The compact state of a pod made by [`Cluster::create_pod`] (None if absent or
    /// stored as JSON).
    pub fn pod_state(&self, namespace: &str, name: &str) -> Option<&PodState> {
        let res = resources::index_of(&resources::PODS);
        match &self.stores[res].get(Key::new(namespace, name))?.body {
            Body::Pod(p) => Some(p),
            Body::Json(_) => None,
        }
    }

    /// Changes a pod created by [`Cluster::create_pod`] with `f` (an update). Refused for a
    /// pod stored as JSON, or one being deleted.
    pub fn update_pod(
        &mut self,
        namespace: &str,
        name: &str,
        now_ms: u64,
        f: impl FnOnce(&mut PodState),
    ) -> Result<ObjRef, MutationError> {
        self.advance(now_ms);
        let res = resources::index_of(&resources::PODS);
        let old = self.stores[res]
            .get(Key::new(namespace, name))
            .cloned()
            .ok_or(MutationError::NotFound)?;
        let Body::Pod(p) = &old.body else {
            return Err(MutationError::Invalid("not a generated pod".into()));
        };
        if p.deletion.is_some() {
            return Err(MutationError::Invalid("the pod is being deleted".into()));
        }
        let mut state = (**p).clone();
        f(&mut state);
        let o = Obj {
            rv: self.rv + 1,
            body: Body::Pod(Arc::new(state)),
            ..(*old).clone()
        };
        Ok(self.replace(res, o, now_ms))
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
        let old = self.stores[res]
            .get(Key::new(ns, name))
            .cloned()
            .ok_or(MutationError::NotFound)?;
        let o = self.build_obj(&rt, obj, self.rv + 1, Some(&old), now_ms)?;
        Ok(self.replace(res, o, now_ms))
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

    /// Deletes an object at once (`--grace-period=0 --force`); watchers get DELETED with
    /// its last state at the deletion's version.
    pub fn delete(
        &mut self,
        rt: ResourceType,
        namespace: &str,
        name: &str,
        now_ms: u64,
    ) -> Result<ObjRef, MutationError> {
        self.advance(now_ms);
        let res = resources::index_of(&rt);
        let ns = if rt.namespaced { namespace } else { "" };
        self.delete_now(res, ns, name, now_ms)
    }

    fn delete_now(
        &mut self,
        res: usize,
        namespace: &str,
        name: &str,
        now_ms: u64,
    ) -> Result<ObjRef, MutationError> {
        let old = self.stores[res]
            .remove(Key::new(namespace, name))
            .ok_or(MutationError::NotFound)?;
        self.rv += 1;
        let gone = Arc::new(old.at_rv(self.rv));
        self.gc.removed(&gone, now_ms);
        self.record(res, ChangeKind::Deleted, gone.clone(), Some(old), now_ms);
        Ok(Self::objref(&gone))
    }

    /// Deletes gracefully, as a pod's delete does: the object gets `deletionTimestamp`
    /// (now + grace) and `deletionGracePeriodSeconds` (a MODIFIED; kubectl shows
    /// Terminating), and is removed (DELETED) once the grace period is over. Its name
    /// stays taken until then. Grace 0 deletes at once. Deleting an object already being
    /// deleted changes nothing.
    pub fn delete_graceful(
        &mut self,
        rt: ResourceType,
        namespace: &str,
        name: &str,
        grace_s: u64,
        now_ms: u64,
    ) -> Result<ObjRef, MutationError> {
        if grace_s == 0 {
            return self.delete(rt, namespace, name, now_ms);
        }
        self.advance(now_ms);
        let ns = if rt.namespaced { namespace } else { "" };
        self.begin_graceful_deletion(rt, ns, name, grace_s, self.now_ms)
    }

    /// Marks an object deleted `grace_s` seconds after `now_ms` (see
    /// [`Cluster::delete_graceful`]).
    fn begin_graceful_deletion(
        &mut self,
        rt: ResourceType,
        ns: &str,
        name: &str,
        grace_s: u64,
        now_ms: u64,
    ) -> Result<ObjRef, MutationError> {
        let res = resources::index_of(&rt);
        let old = self.stores[res]
            .get(Key::new(ns, name))
            .cloned()
            .ok_or(MutationError::NotFound)?;
        if old.deleting() {
            return Ok(Self::objref(&old));
        }
        let until = now_ms + grace_s * 1000;
        let o = match &old.body {
            Body::Pod(p) => {
                let mut state = (**p).clone();
                state.deletion = Some((until, grace_s as u32));
                Obj {
                    rv: self.rv + 1,
                    body: Body::Pod(Arc::new(state)),
                    ..(*old).clone()
                }
            }
            Body::Json(_) => {
                let mut v: Value = serde_json::from_str(&old.to_json(None))
                    .map_err(|e| MutationError::Invalid(e.to_string()))?;
                v["metadata"]["deletionTimestamp"] = Value::String(timestamp(until));
                v["metadata"]["deletionGracePeriodSeconds"] = Value::from(grace_s);
                self.build_obj(&rt, v, self.rv + 1, Some(&old), now_ms)?
            }
        };
        let r = self.replace(res, o, now_ms);
        self.next_finalize += 1;
        self.finalizing.insert(
            (until, self.next_finalize),
            (res, ns.to_string(), name.to_string(), r.uid.clone()),
        );
        Ok(r)
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

    /// The Kubernetes release the model answers as.
    pub fn release(&self) -> Release {
        self.cfg.release
    }

    /// The current object as JSON (item form, no kind/apiVersion).
    pub fn get_value(&self, rt: ResourceType, namespace: &str, name: &str) -> Option<Value> {
        let res = resources::index_of(&rt);
        let ns = if rt.namespaced { namespace } else { "" };
        self.stores[res]
            .get(Key::new(ns, name))
            .and_then(|o| serde_json::from_str(&o.to_json(None)).ok())
    }

    /// Names (namespace, name) of the current objects of a type, in key order.
    pub fn names(&self, rt: ResourceType) -> Vec<(String, String)> {
        self.stores[resources::index_of(&rt)]
            .iter()
            .map(|o| (o.namespace.to_string(), o.name.to_string()))
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
            .iter()
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
        Ok(self
            .store_at(q.res, rv)
            .iter()
            .filter(|o| q.matches(o))
            .map(|o| Self::truth_entry(o))
            .collect())
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
            fields: FieldSelector::parse(field_selector, &rt)?,
            rt,
        })
    }

    fn truth_entry(o: &Obj) -> (String, String, String, String) {
        (
            o.namespace.to_string(),
            o.name.to_string(),
            o.uid().into_owned(),
            o.rv.to_string(),
        )
    }

    // ---------------------------------------------------------------- reads

    /// The store of resource `res` as of version `rv` (>= compacted): the current one, a
    /// snapshot, or one rebuilt by undoing the history after `rv` (from the nearest newer
    /// snapshot if there is one).
    fn store_at(&self, res: usize, rv: u64) -> Store {
        if rv >= self.rv {
            return self.stores[res].clone();
        }
        if let Some(t) = self.snapshots.get(&(res, rv)) {
            return t.clone();
        }
        let (mut t, upto) = match self.snapshots.range((res, rv)..(res, u64::MAX)).next() {
            Some(((_, srv), t)) => (t.clone(), *srv),
            None => (self.stores[res].clone(), self.rv),
        };
        let first = self.history.partition_point(|c| c.rv <= rv);
        let last = self.history.partition_point(|c| c.rv <= upto);
        for c in self.history.range(first..last).rev() {
            if c.res != res {
                continue;
            }
            match &c.old {
                Some(o) => {
                    t.insert(o.clone());
                }
                None => {
                    t.remove(c.obj.key());
                }
            }
        }
        t
    }

    /// The JSON of a change's object as watch events carry it (`old`: the state before
    /// the change, at the change's version), written once for all watches.
    fn rendered(&mut self, rt: &ResourceType, rv: u64, obj: &Obj, old: bool) -> Arc<str> {
        if let Some(j) = self.rendered.get(&(rv, old)) {
            return j.clone();
        }
        let json: Arc<str> = if old {
            obj.at_rv(rv).to_json(Some(rt))
        } else {
            obj.to_json(Some(rt))
        }
        .into();
        self.rendered.insert((rv, old), json.clone());
        self.rendered_order.push_back((rv, old));
        while self.rendered_order.len() > RENDERED_CACHE {
            if let Some(k) = self.rendered_order.pop_front() {
                self.rendered.remove(&k);
            }
        }
        json
    }

    /// Keeps a snapshot of `store` as of `rv` for the pages after this one.
    fn keep_snapshot(&mut self, res: usize, rv: u64, store: &Store) {
        if self.snapshots.contains_key(&(res, rv)) {
            return;
        }
        self.snapshots.insert((res, rv), store.clone());
        self.snapshot_order.push_back((self.now_ms, (res, rv)));
        self.drop_snapshots();
    }

    /// Drops the snapshots past the count or the age the server keeps.
    fn drop_snapshots(&mut self) {
        let now = self.now_ms;
        while let Some(&(at, k)) = self.snapshot_order.front() {
            if self.snapshot_order.len() <= MAX_SNAPSHOTS && at + SNAPSHOT_TTL_MS > now {
                break;
            }
            self.snapshot_order.pop_front();
            self.snapshots.remove(&k);
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
            // The server writes `/version` raw; the model answers it as its release.
            Target::Discovery(_) if path.trim_end_matches('/') == "/version" => {
                return Reply::Response(Response::json(
                    200,
                    crate::discovery::version_document(self.cfg.release),
                ))
            }
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
        let table = |include: Option<&str>| match req.output {
            Output::Json => None,
            Output::Table(version) => Some(
                IncludeObject::from_query(include).map(|include| TableFormat { version, include }),
            ),
        };
        if let Some(name) = &name {
            // An object's path serves GET only: `?watch=true` there is ignored (the GET
            // handler reads GetOptions; installer.go registers watches of one object
            // under the deprecated /watch/ prefix only), as are list options.
            let include = query_param(query, "includeObject");
            let format = table(include.as_deref());
            return Reply::Response(self.get_object(
                &rt,
                namespace.as_deref(),
                name,
                format,
                now_ms,
            ));
        }
        let mut o = match parse_opts(query) {
            Ok(o) => o,
            Err(e) => return Reply::Response(Response::json(400, status::bad_request(&e))),
        };
        let format = table(o.include_object.as_deref());
        let q = match (
            LabelSelector::parse(&o.labels),
            FieldSelector::parse(&o.fields, &rt),
        ) {
            (Ok(labels), Ok(fields)) => Query {
                rt,
                res: resources::index_of(&rt),
                namespace,
                labels,
                fields,
            },
            (Err(e), _) | (_, Err(e)) => {
                return Reply::Response(Response::json(400, status::bad_request(&e)))
            }
        };
        let watch_list = self.cfg.watch_list();
        if watch_list == StreamingLists::Ignored && o.watch {
            o.send_initial = None;
            o.rv_match.clear();
        }
        // `SetListOptionsDefaults` (staging/src/k8s.io/apimachinery/pkg/apis/meta/
        // internalversion/defaults.go), called by `ListResource` with the WatchList gate:
        // a watch from "" or "0" that names neither sendInitialEvents nor
        // resourceVersionMatch becomes a streaming list.
        if watch_list == StreamingLists::Supported
            && o.watch
            && o.send_initial.is_none()
            && o.rv_match.is_empty()
            && (o.rv.is_empty() || o.rv == "0")
        {
            o.send_initial = Some(true);
            o.rv_match = "NotOlderThan".into();
        }
        let errs = self.validate(&o);
        if !errs.is_empty() {
            return Reply::Response(Response::json(422, status::invalid_list_options(&errs)));
        }
        // `isListWatchRequest` (get.go, and cacher.go's copy): only with bookmarks does a
        // watch with initial events get the end bookmark, the 406 for Tables and gzip.
        let list_watch = watch_list == StreamingLists::Supported
            && o.watch
            && o.send_initial == Some(true)
            && o.bookmarks;
        if list_watch
            && matches!(req.output, Output::Table(_))
            && self.cfg.release.refuses_table_streaming_lists()
        {
            return Reply::Response(not_acceptable());
        }
        if o.watch {
            // The watch handler converts (optionsForTransform) once the watch is open; a
            // bad includeObject is its 400 (response.go, watch.go).
            let format = match format {
                Some(Err(e)) => {
                    return Reply::Response(Response::json(400, status::bad_request(&e)))
                }
                Some(Ok(f)) => Some(f),
                None => None,
            };
            let gzip = list_watch
                && self.cfg.compresses_watch_lists()
                && crate::http::accepts_gzip(req.header("accept-encoding"));
            self.open_watch(q, &o, format, gzip, now_ms)
        } else {
            self.list(rt, q, &o, format, now_ms)
        }
    }

    fn request_fault(&mut self) -> Option<Response> {
        let f = &self.cfg.faults;
        let (p429, p500, p503, phtml, ra) = (f.err429, f.err500, f.err503, f.html, f.retry_after);
        let ra_s = ra.to_string();
        if self.rng.chance(p429) {
            // The priority-and-fairness (and max-in-flight) filter's answer, not a Status:
            // `tooManyRequests` in staging/src/k8s.io/apiserver/pkg/server/filters/
            // maxinflight.go writes it with Go's http.Error.
            return Some(Response {
                status: 429,
                headers: vec![
                    ("Retry-After".into(), ra_s),
                    ("Content-Type".into(), "text/plain; charset=utf-8".into()),
                    ("X-Content-Type-Options".into(), "nosniff".into()),
                ],
                body: status::TOO_MANY_REQUESTS_TEXT.as_bytes().to_vec(),
            });
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
                if !o.bookmarks && self.cfg.release.initial_events_require_bookmarks() {
                    errs.push(FieldError::forbidden(
                        "allowWatchBookmarks",
                        "sendInitialEvents requires setting allowWatchBookmarks to true",
                    ));
                }
                if self.cfg.watch_list() == StreamingLists::Rejected {
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

    fn get_object(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        name: &str,
        table: Option<Result<TableFormat, String>>,
        now_ms: u64,
    ) -> Response {
        let k = Key::new(namespace.unwrap_or(""), name);
        let res = resources::index_of(rt);
        let Some(o) = self.stores[res].get(k) else {
            return Response::json(
                404,
                status::not_found_object(&rt.qualified(), rt.group, rt.plural, name),
            );
        };
        match table {
            None => Response::json(200, o.to_json(Some(rt))),
            // The object is read first, then converted (transformResponseObject).
            Some(Err(e)) => Response::json(400, status::bad_request(&e)),
            Some(Ok(format)) => {
                let mut out = String::with_capacity(4096);
                let printed = Printed { obj: o, rt };
                let conv = &self.convertors[res];
                match write_object_table(
                    &mut out,
                    conv,
                    format,
                    &o.row(),
                    &printed,
                    unix_ms_exact(now_ms),
                ) {
                    Ok(()) => Response::json(200, out),
                    Err(e) => Response::json(500, status::internal_message(&e.to_string())),
                }
            }
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

    fn list(
        &mut self,
        rt: ResourceType,
        q: Query,
        o: &Opts,
        table: Option<Result<TableFormat, String>>,
        now_ms: u64,
    ) -> Reply {
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
            // -1: the token of an expired continue, an inconsistent list from the newest.
            let rv = u64::try_from(rv).unwrap_or(self.rv);
            if rv < self.compacted_rv {
                // The etcd3 store's answer to a compacted continue: a fresh token for the
                // same key at version -1 (staging/src/k8s.io/apiserver/pkg/storage/etcd3/
                // store.go, handleCompactedErrorForPaging).
                let fresh = continue_token(-1, &start);
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
        if o.cont.is_empty() && o.rv.is_empty() {
            // A consistent read: served once the watch cache caught up with etcd, whose
            // progress notification reaches every resource's cache.
            self.caches_fresh();
        }
        // The list is read first, then converted (transformResponseObject).
        let format = match table {
            Some(Err(e)) => return Reply::Response(Response::json(400, status::bad_request(&e))),
            Some(Ok(f)) => Some(f),
            None => None,
        };
        let store = self.store_at(q.res, list_rv);
        let (lo, hi) = q.range();
        let lower = match (after.as_deref(), lo.as_deref()) {
            (Some(a), Some(p)) if a >= p => Bound::Excluded(Key::raw(a)),
            (Some(a), None) => Bound::Excluded(Key::raw(a)),
            (_, Some(p)) => Bound::Included(Key::raw(p)),
            (None, None) => Bound::Unbounded,
        };
        let upper = hi.as_deref().map(Key::raw);
        let mut page: Vec<&Arc<Obj>> = Vec::with_capacity(limit.min(4096) as usize);
        for obj in store.iter_from(lower) {
            if upper.is_some_and(|u| obj.key().cmp_key(&u).is_ge()) {
                break;
            }
            if limit > 0 && page.len() as u64 >= limit {
                break;
            }
            if q.matches(obj) {
                page.push(obj);
            }
        }
        let mut cont = String::new();
        let mut remaining = None;
        if let (true, Some(last)) = (limit > 0 && page.len() as u64 >= limit, page.last()) {
            // More if any key of the range follows the last item (as the apiserver's
            // `hasMore`): a rank difference, not a walk over the rest.
            let rest = store.count_range(
                Bound::Excluded(last.key()),
                upper.map_or(Bound::Unbounded, Bound::Excluded),
            );
            if rest > 0 {
                cont = continue_token(list_rv as i64, &format!("{}\0", last.key().joined()));
                if q.selectors_empty() {
                    remaining = Some(rest as i64);
                }
            }
        }
        let list_rv_text = list_rv.to_string();
        let meta = ListMeta {
            resource_version: &list_rv_text,
            continue_token: &cont,
            remaining_item_count: remaining,
        };
        let per_item = if format.is_some() { 1800 } else { 4300 };
        let mut body = String::with_capacity(page.len() * per_item + 512);
        match format {
            Some(format) => {
                let conv = &self.convertors[q.res];
                let now = unix_ms_exact(now_ms);
                let mut w = TableListWriter::begin(&mut body, conv, format, &meta);
                for obj in &page {
                    let printed = Printed { obj, rt: &rt };
                    // Stored objects always print; a failure would drop only that row.
                    let _ = w.push_row(&mut body, &obj.row(), &printed, now);
                }
                w.finish(&mut body);
            }
            None if is_custom(&rt) => write_unstructured_list(&mut body, &rt, &meta, &page),
            None => write_typed_list(&mut body, &rt, &meta, &page),
        }
        body.push('\n');
        if !cont.is_empty() {
            self.keep_snapshot(q.res, list_rv, &store);
        }
        Reply::Response(Response::json(200, body))
    }

    fn open_watch(
        &mut self,
        q: Query,
        o: &Opts,
        table: Option<TableFormat>,
        gzip: bool,
        now_ms: u64,
    ) -> Reply {
        let streaming = o.send_initial == Some(true);
        if streaming {
            // The cache waits until it is at least as fresh as asked (a consistent read
            // from "", NotOlderThan otherwise), asking etcd for progress.
            self.caches_fresh();
        }
        // A streaming list from "" is a consistent read (most recent state), never
        // served by a lagging replica's stale cache.
        let consistent = streaming && o.rv.is_empty();
        let lagging =
            !consistent && self.lag.is_some() && self.rng.chance(self.cfg.faults.lag_chance);
        let served = self.served_rv(lagging);
        // No timeout (or 0): the server's own, MinRequestTimeout (1800 s) times a random
        // factor in [1, 2) (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/get.go).
        let timeout_ms = match o.timeout {
            Some(t) if t > 0 => t * 1000,
            _ => self.rng.range(1800, 3599) * 1000,
        };
        let f = self.cfg.faults.clone();
        let mut w = Watch {
            q,
            cursor: served,
            start_rv: served,
            wait_until_rv: None,
            initial: None,
            end_bookmark: None,
            deadline_ms: now_ms + timeout_ms,
            bookmarks: o.bookmarks && !self.rng.chance(f.no_bookmarks),
            next_bookmark_ms: now_ms + self.cfg.bookmark_every_ms.max(1),
            final_bookmark_done: false,
            lagging,
            error_at: None,
            rng: Rng::new(self.rng.next_u64()),
            cut_at: None,
            bytes_sent: 0,
            malformed_at: None,
            events_made: 0,
            split: self.rng.chance(f.split),
            proxy_cut: None,
            silent_at: None,
            pending: VecDeque::new(),
            next_drip_ms: now_ms,
            finish: None,
            killed: false,
            table: table.map(WatchTableEncoder::new),
            gzip,
        };
        if self.rng.chance(f.cut) {
            w.cut_at = Some((self.rng.below(f.cut_within), false));
        } else if self.rng.chance(f.abort) {
            w.cut_at = Some((self.rng.below(f.cut_within), true));
        }
        if self.rng.chance(f.malformed) {
            w.malformed_at = Some(self.rng.below(20));
        }
        if let Some(every) = f.proxy_cut_every_ms {
            // About `every` of life, ± 50%.
            let life = every / 2 + self.rng.below(every.max(1));
            let style = match self.rng.below(3) {
                0 => CutStyle::MidDocument,
                1 => CutStyle::HtmlPage,
                _ => CutStyle::TruncatedLine,
            };
            w.proxy_cut = Some((now_ms + life, style));
        }
        if self.rng.chance(f.silent) {
            w.silent_at = Some(now_ms + self.rng.below(f.silent_within_ms.max(1)));
        }
        if self
            .cfg
            .faults
            .at
            .iter()
            .any(|(t, a)| *a == Action::Silent && *t <= now_ms)
        {
            w.silent_at = Some(now_ms);
        }
        let explicit = !o.rv.is_empty() && o.rv != "0";
        let n = if explicit {
            match Self::parse_rv(&o.rv) {
                Ok(n) => Some(n),
                Err(r) => return Reply::Response(r),
            }
        } else {
            None
        };
        let synthetic = |this: &Self, w: &mut Watch, at: u64| {
            w.initial = Some(Initial {
                tree: this.store_at(w.q.res, at),
                after: None,
            });
            w.cursor = at;
            w.start_rv = at;
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
                    if o.bookmarks {
                        w.end_bookmark = Some(
                            if self.cfg.release.end_bookmark_right_after_initial_events() {
                                EndBookmarkDue::AfterInitialEvents
                            } else {
                                EndBookmarkDue::Tick {
                                    at_ms: (now_ms / BOOKMARK_TICK_MS + 1) * BOOKMARK_TICK_MS,
                                }
                            },
                        );
                    }
                }
            }
        } else {
            match n {
                None if o.send_initial == Some(false) && o.rv.is_empty() => {}
                None => synthetic(self, &mut w, served),
                Some(n) => {
                    let floor = self.watch_floor(w.q.rt, now_ms);
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

    /// Status and headers of watch `id`'s response: [`watch_response_head`], plus
    /// `Content-Encoding: gzip` and `Vary: Accept-Encoding` for a streaming list the
    /// release compresses (`watchResponseWriter.BeginStream` in watch.go). Then each
    /// [`WatchOutput::Chunks`] batch is one gzip member.
    pub fn watch_head(&self, id: WatchId) -> Response {
        let mut head = watch_response_head();
        if self.watches.get(&id.0).is_some_and(|w| w.gzip) {
            head.headers
                .push(("Content-Encoding".into(), "gzip".into()));
            head.headers.push(("Vary".into(), "Accept-Encoding".into()));
        }
        head
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
        if w.silent_at.is_some_and(|t| now_ms >= t) {
            // Open, says nothing, never ends: only the client can give up on it.
            self.watches.insert(id.0, w);
            return WatchOutput::Pending {
                wake_at_ms: now_ms + 3_600_000,
            };
        }
        if w.pending.is_empty() && w.finish.is_none() {
            self.produce(&mut w, now_ms);
        }
        if let Some((at, style)) = w.proxy_cut {
            if now_ms >= at && w.finish.is_none() {
                w.proxy_cut = None;
                Self::proxy_cut(&mut w, style);
            }
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

    /// A flaky proxy between client and server ends the response now: what it leaves in
    /// the body, and how the body ends.
    fn proxy_cut(w: &mut Watch, style: CutStyle) {
        let next: Vec<u8> = w.pending.iter().flatten().copied().collect();
        w.pending.clear();
        let partial = |line: &[u8]| -> Vec<u8> {
            if line.len() > 2 {
                line[..line.len() / 2].to_vec()
            } else {
                b"{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"".to_vec()
            }
        };
        let (bytes, end) = match style {
            CutStyle::MidDocument => (partial(&next), WatchOutput::Abort),
            CutStyle::HtmlPage => (
                status::HTML_ERROR_PAGE.as_bytes().to_vec(),
                WatchOutput::Abort,
            ),
            CutStyle::TruncatedLine => (partial(&next), WatchOutput::End),
        };
        w.pending.push_back(bytes);
        w.finish = Some(end);
    }

    /// Fills `w.pending` with the chunks due now (or sets `w.finish`).
    /// The line of an ADDED/MODIFIED/DELETED event in the watch's representation (`old`:
    /// the object is the state before the change, at the change's version `rv`).
    fn event_bytes(
        &mut self,
        w: &mut Watch,
        ty: &str,
        rv: u64,
        obj: &Arc<Obj>,
        old: bool,
        now_ms: u64,
    ) -> Vec<u8> {
        let rt = w.q.rt;
        match &mut w.table {
            None => {
                let json = self.rendered(&rt, rv, obj, old);
                event_line(ty, &json)
            }
            Some(enc) => {
                let at;
                let o: &Obj = if old {
                    at = obj.at_rv(rv);
                    &at
                } else {
                    obj
                };
                let mut line = String::with_capacity(2048);
                let conv = &self.convertors[w.q.res];
                let printed = Printed { obj: o, rt: &rt };
                // Stored objects always print (a failure would leave the line empty).
                let _ = enc.write_event(
                    &mut line,
                    conv,
                    ty,
                    &o.row(),
                    &printed,
                    unix_ms_exact(now_ms),
                );
                line.into_bytes()
            }
        }
    }

    /// A BOOKMARK line at `rv` (`end`: the initial-events-end one) in the watch's
    /// representation: the kind's empty object, or that object printed as a one-row table.
    fn bookmark_bytes(&self, w: &mut Watch, rv: u64, end: bool, now_ms: u64) -> Vec<u8> {
        let rt = w.q.rt;
        let ann = end.then_some("{\"k8s.io/initial-events-end\":\"true\"}");
        let object = empty_object(&rt, rv, ann);
        match &mut w.table {
            None => format!("{{\"type\":\"BOOKMARK\",\"object\":{object}}}\n").into_bytes(),
            Some(enc) => {
                let mut line = String::with_capacity(1024);
                let conv = &self.convertors[w.q.res];
                let _ = enc.write_bookmark(&mut line, conv, &object, unix_ms_exact(now_ms));
                line.into_bytes()
            }
        }
    }

    fn produce(&mut self, w: &mut Watch, now_ms: u64) {
        let rt = w.q.rt;
        if let Some((t, ref st)) = w.error_at {
            if now_ms >= t {
                // An ERROR's Status is never converted, in a Table watch too.
                let line = match &mut w.table {
                    None => error_line(st),
                    Some(enc) => {
                        let mut line = String::new();
                        enc.write_error(&mut line, st);
                        line.into_bytes()
                    }
                };
                w.pending.push_back(line);
                w.finish = Some(WatchOutput::End);
            }
            return;
        }
        if now_ms >= w.deadline_ms {
            w.finish = Some(WatchOutput::End);
            return;
        }
        let mut lines: Vec<Vec<u8>> = Vec::new();
        let mut initial: Vec<Arc<Obj>> = Vec::new();
        if let Some(init) = &mut w.initial {
            let (lo, hi) = w.q.range();
            let lower = match (init.after.as_deref(), lo.as_deref()) {
                (Some(a), _) => Bound::Excluded(Key::raw(a)),
                (None, Some(p)) => Bound::Included(Key::raw(p)),
                (None, None) => Bound::Unbounded,
            };
            let upper = hi.as_deref().map(Key::raw);
            let mut done = true;
            let mut last = None;
            for o in init.tree.iter_from(lower) {
                if upper.is_some_and(|u| o.key().cmp_key(&u).is_ge()) {
                    break;
                }
                if initial.len() >= MAX_EVENTS_PER_POLL {
                    done = false;
                    break;
                }
                last = Some(o.key().joined());
                if w.q.matches(o) {
                    initial.push(o.clone());
                }
            }
            if done {
                w.initial = None;
            } else if let Some(k) = last {
                init.after = Some(k);
            }
        }
        for o in initial {
            let line = match &mut w.table {
                None => event_line("ADDED", &o.to_json(Some(&rt))),
                Some(_) => self.event_bytes(w, "ADDED", o.rv, &o, false, now_ms),
            };
            lines.push(line);
        }
        if w.initial.is_none() {
            'events: {
                // The server flushes right after the end bookmark (watch.go), so it ends the
                // batch: with gzip, it closes a member.
                if w.end_bookmark == Some(EndBookmarkDue::AfterInitialEvents) {
                    w.end_bookmark = None;
                    w.next_bookmark_ms = now_ms + self.cfg.bookmark_every_ms.max(1);
                    lines.push(self.bookmark_bytes(w, w.cursor, true, now_ms));
                    break 'events;
                }
                let tick = match w.end_bookmark {
                    Some(EndBookmarkDue::Tick { at_ms }) if now_ms >= at_ms => Some(at_ms),
                    _ => None,
                };
                let mut capped = false;
                let served = self.served_rv(w.lagging);
                if let Some(n) = w.wait_until_rv {
                    if served >= n {
                        w.wait_until_rv = None;
                        w.cursor = n;
                    }
                }
                if w.wait_until_rv.is_none() && w.cursor < served {
                    let first_rv = self.history.front().map(|c| c.rv).unwrap_or(self.rv + 1);
                    if self.dropped_rv[w.q.res] > w.cursor {
                        // History this watcher still needed is gone: close it like a slow watcher.
                        w.finish = Some(WatchOutput::End);
                    } else {
                        // What is gone before the history's start was other resources'.
                        let start = (w.cursor + 1).saturating_sub(first_rv) as usize;
                        // (event type, change version, the change's new state or its old one)
                        let mut due: Vec<(&'static str, u64, Arc<Obj>, bool)> = Vec::new();
                        for c in self.history.range(start..) {
                            if c.rv > served || tick.is_some_and(|t| c.at_ms > t) {
                                break;
                            }
                            if lines.len() + due.len() >= MAX_EVENTS_PER_POLL {
                                capped = true;
                                break;
                            }
                            w.cursor = c.rv;
                            if c.res != w.q.res {
                                continue;
                            }
                            let now_m = w.q.matches(&c.obj);
                            let old_m = c.old.as_ref().is_some_and(|o| w.q.matches(o));
                            let ty = match (c.kind, old_m, now_m) {
                                (ChangeKind::Added, _, true) => "ADDED",
                                (ChangeKind::Deleted, _, true) => "DELETED",
                                (ChangeKind::Modified, true, true) => "MODIFIED",
                                (ChangeKind::Modified, false, true) => "ADDED",
                                (ChangeKind::Modified, true, false) => {
                                    // Out of the selection: DELETED with the last state it
                                    // matched, at this change's version.
                                    if let Some(p) = &c.old {
                                        due.push(("DELETED", c.rv, p.clone(), true));
                                    }
                                    continue;
                                }
                                _ => continue,
                            };
                            due.push((ty, c.rv, c.obj.clone(), false));
                        }
                        for (ty, rv, obj, old) in due {
                            lines.push(self.event_bytes(w, ty, rv, &obj, old, now_ms));
                        }
                    }
                }
                if tick.is_some() && !capped && w.finish.is_none() {
                    // The tick's bookmark carries the cacher's newest version, past the
                    // changes it dispatched before (cacher.go `dispatchEvents`).
                    w.end_bookmark = None;
                    // The watcher is due for a bookmark again a period after this one
                    // (`nextBookmarkTime`).
                    w.next_bookmark_ms = now_ms + self.cfg.bookmark_every_ms.max(1);
                    let at = w.cursor.min(self.cache_rv(w.q.res)).max(w.start_rv);
                    lines.push(self.bookmark_bytes(w, at, true, now_ms));
                    break 'events;
                }
                if w.bookmarks
                    && w.end_bookmark.is_none()
                    && w.finish.is_none()
                    && w.wait_until_rv.is_none()
                {
                    let caught_up = w.cursor >= served;
                    // The cacher's bookmark carries the newest version its cache processed,
                    // and goes only to a watch that started before it (cache_watcher.go).
                    let at = w.cursor.min(self.cache_rv(w.q.res));
                    let mut sent = false;
                    if now_ms >= w.next_bookmark_ms {
                        if caught_up && at > w.start_rv {
                            lines.push(self.bookmark_bytes(w, at, false, now_ms));
                            sent = true;
                        }
                        while w.next_bookmark_ms <= now_ms {
                            w.next_bookmark_ms += self.cfg.bookmark_every_ms.max(1);
                        }
                    }
                    if !w.final_bookmark_done && now_ms + 2000 >= w.deadline_ms && caught_up {
                        w.final_bookmark_done = true;
                        if at > w.start_rv && !sent {
                            lines.push(self.bookmark_bytes(w, at, false, now_ms));
                        }
                    }
                }
            }
        }
        let mut out: Vec<Vec<u8>> = Vec::new();
        for line in lines {
            if w.malformed_at == Some(w.events_made) {
                out.push(b"{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\n".to_vec());
                w.finish = Some(WatchOutput::End);
                break;
            }
            w.events_made += 1;
            if w.split && line.len() > 1 {
                let pieces = 1 + w.rng.below(3) as usize;
                let mut cuts: Vec<usize> = (0..pieces)
                    .map(|_| 1 + w.rng.below(line.len() as u64 - 1) as usize)
                    .collect();
                cuts.sort_unstable();
                cuts.dedup();
                let mut prev = 0;
                for c in cuts {
                    out.push(line[prev..c].to_vec());
                    prev = c;
                }
                out.push(line[prev..].to_vec());
                continue;
            }
            // A real server's chunks follow its write buffer, not the events: several
            // events may share a chunk, one event may span two.
            let roll = w.rng.below(100);
            match out.last_mut() {
                Some(prev) if roll < 30 => prev.extend_from_slice(&line),
                _ if roll >= 90 && line.len() > 1 => {
                    let at = 1 + w.rng.below(line.len() as u64 - 1) as usize;
                    out.push(line[..at].to_vec());
                    out.push(line[at..].to_vec());
                }
                _ => out.push(line),
            }
        }
        if w.gzip && !out.is_empty() {
            // One flush, one member; the split fault still cuts it into separate writes.
            let member = gzip_member(&out.concat());
            out = if w.split && member.len() > 2 {
                let at = 1 + w.rng.below(member.len() as u64 - 1) as usize;
                vec![member[..at].to_vec(), member[at..].to_vec()]
            } else {
                vec![member]
            };
        }
        w.pending.extend(out);
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
        if let Some((t, _)) = w.proxy_cut {
            wake = wake.min(t);
        }
        if let Some(t) = w.silent_at {
            wake = wake.min(t);
        }
        if let Some(EndBookmarkDue::Tick { at_ms }) = w.end_bookmark {
            wake = wake.min(at_ms);
        }
        if w.bookmarks && w.end_bookmark.is_none() {
            wake = wake.min(w.next_bookmark_ms);
            if !w.final_bookmark_done {
                wake = wake.min(w.deadline_ms.saturating_sub(2000));
            }
        }
        if (w.wait_until_rv.is_none() && w.cursor < self.served_rv(w.lagging))
            || w.initial.is_some()
        {
            wake = now_ms;
        }
        if let Some((at, _)) = self.finalizing.first_key_value().map(|(k, v)| (k.0, v)) {
            wake = wake.min(at.max(now_ms));
        }
        WatchOutput::Pending {
            wake_at_ms: wake.max(now_ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Continue tokens are Go's `base64.RawURLEncoding` (storage.DecodeContinue): strict,
    /// and its errors name the byte, as `invalid continue token: ...` bodies show them.
    #[test]
    fn continue_tokens_decode_as_go_does() {
        let tok = continue_token(42, "ns/web-1");
        assert!(!tok.contains('='));
        assert_eq!(parse_continue(&tok), Ok((42, "ns/web-1".to_string())));
        for (bad, at) in [("ab=c", 2), ("a+bc", 1), ("abcde", 4), ("ab/c", 2)] {
            assert_eq!(
                parse_continue(bad),
                Err(format!(
                    "continue key is not valid: illegal base64 data at input byte {at}"
                )),
                "{bad}"
            );
        }
    }

    /// What the store reads of an object is all of it but `metadata.managedFields`,
    /// wherever that field sits in the metadata.
    #[test]
    fn decoding_for_printing_leaves_out_managed_fields() {
        let mut rng = Rng::new(3);
        let svc = crate::kinds::service(&crate::kinds::ServiceParams::random(
            &mut rng,
            "ns",
            "web",
            crate::kinds::ServiceKind::NodePort,
            0,
        ));
        for text in [
            svc.clone(),
            r#"{"metadata":{"managedFields":[{"a":1}],"name":"x"},"spec":{}}"#.to_string(),
            r#"{"metadata":{"managedFields":[]}}"#.to_string(),
            r#"{"metadata":{"name":"x"}}"#.to_string(),
        ] {
            let mut want: Value = serde_json::from_str(&text).unwrap();
            if let Some(m) = want["metadata"].as_object_mut() {
                m.remove("managedFields");
            }
            assert_eq!(decode_for_printing(&text).unwrap(), want, "{text}");
        }
        assert!(decode_for_printing("[1]").is_err());
    }
}
