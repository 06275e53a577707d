//! Deterministic simulation: the sans-io engine against the sim's model, in one process,
//! on a virtual clock, everything derived from one seed ([`Scenario::from_seed`]).
//!
//! The harness plays the network: it carries each [`Request`] to
//! [`Cluster::handle`], delivers response heads after a latency, pumps watches with
//! [`Cluster::poll_watch`], re-chunks bodies at random points and injects the faults
//! the sim does not do itself (proxy cuts, in-stream 410s, 504 "too large", cut list
//! bodies, a withheld end bookmark, client pauses). After every feed it drains the
//! engine and checks the invariants (see [`crate`] docs and TESTING.md); at the end,
//! after the faults stop and the engine has had its backoff time, the store must equal
//! the server's truth object by object.

use crate::scan::{self, LineInfo, LineType};
use crate::scenario::{Fault, Objects, Scenario};
use crate::staleness::{Histogram, Pending, Tracker};
use kubelive_core::{
    Collection, Config, Engine, Event, Instant, KeptMetadata, Phase, RelistReason, Request,
    RequestId, RequestKind, SavedView, TransportError,
};
use kubelive_sim::{
    negotiate, status, watch_response_head, Cluster, ClusterConfig, FaultPlan, Get, Output, Reply,
    Response, Rng, WatchId, WatchOutput, Workload, WorkloadConfig, CONFIGMAPS, PODS,
};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Write as _;
use std::rc::Rc;

/// Simulated time after the workload and faults stop, before the final comparison:
/// longer than the largest backoff (30 s + jitter), the streaming-list deadline (60 s)
/// and a "too large" retry cycle.
pub const QUIET_MS: u64 = 300_000;

/// The backoff floor every retry after a failure must respect.
pub const BACKOFF_FLOOR_MS: u64 = 800;

/// An attempt that fails this soon after it was sent, having delivered nothing, may be
/// backed off; any other broken attempt must be resumed at once (the engine's rule).
pub const QUICK_MS: u64 = 1_000;

/// The engine's deadlines (kubelive_core::Deadlines::default()), which the liveness
/// invariant holds it to.
pub const WATCH_HEAD_MS: u64 = 30_000;
pub const LIST_HEAD_MS: u64 = 75_000;
pub const STALL_MS: u64 = 30_000;
/// The engine's end-bookmark deadline (`Deadlines::end_bookmark`).
pub const END_BOOKMARK_MS: u64 = 10_000;
pub const WATCH_GRACE_MS: u64 = 30_000;
pub const IDLE_MS: u64 = 150_000;

/// Under the faults of [`crate::scenario::FRESH_FAULTS`], no change may be shown later
/// than this, beyond the time the engine spent on what the faults (or the server's own
/// pace) made it wait for: backoffs, attempts that brought nothing, LIST requests.
/// What remains is a resume's round trip (latency up to 400 ms each) and the watch
/// delivering in order: 2 s allows several resumes in a row (the worst over the
/// 10 000 CI seeds is 905 ms). An engine that backs off after progress, or waits for
/// anything but the server, exceeds it.
pub const FRESH_BOUND_MS: u64 = 2_000;

/// What a finished run reports.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub requests: u64,
    pub events: u64,
    pub relists: u64,
    pub expired_served: u64,
    pub changes: u64,
    pub sim_ms: u64,
    pub failures_served: u64,
    /// Per server change, the simulated ms until the store showed it (or newer).
    pub staleness: Histogram,
    /// The largest staleness beyond the excused waits, in seeds under fresh faults.
    pub fresh_excess_max: u64,
    /// Silent connections (silent, no head, stalled list) the engine gave up on.
    pub silences_noticed: u64,
    /// Watch chunks that reached the engine holding several events.
    pub multi_event_chunks: u64,
    /// LIST pages asked for ahead of the current one (pipelined pages).
    pub pages_ahead: u64,
    /// Pages ahead that answered in full (or broke) before their turn.
    pub pages_ahead_early: u64,
    /// Page reloads that restored a saved view.
    pub reloads: u64,
}

impl Stats {
    pub fn add(&mut self, o: &Stats) {
        self.requests += o.requests;
        self.events += o.events;
        self.relists += o.relists;
        self.expired_served += o.expired_served;
        self.changes += o.changes;
        self.sim_ms += o.sim_ms;
        self.failures_served += o.failures_served;
        self.staleness.add(&o.staleness);
        self.fresh_excess_max = self.fresh_excess_max.max(o.fresh_excess_max);
        self.silences_noticed += o.silences_noticed;
        self.multi_event_chunks += o.multi_event_chunks;
        self.pages_ahead += o.pages_ahead;
        self.pages_ahead_early += o.pages_ahead_early;
        self.reloads += o.reloads;
    }
}

/// An invariant that did not hold.
#[derive(Clone, Debug)]
pub struct Violation {
    pub at_ms: u64,
    pub what: String,
    /// The last lines of the run's trace (only when run with tracing).
    pub trace: Vec<String>,
}

type Entry = (String, String, String, String);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kill {
    Clean,
    Abort,
    Error410,
    /// A proxy writes its HTML error page into the stream, then drops it.
    AbortAfterHtml,
    /// Half a line, then the connection drops.
    AbortAfterTruncatedLine,
    /// No byte ever again; the connection stays open.
    Silent,
}

#[derive(Debug)]
enum ConnPhase {
    /// A whole response, delivered at `at`; `cut`: body cut at a byte, abruptly or not.
    Reply {
        at: u64,
        resp: Response,
        cut: Option<(usize, bool)>,
        too_large: bool,
        /// Delivered in pieces over time (`list-trickle`).
        trickle: Option<Trickle>,
    },
    /// A watch whose head arrives at `at`.
    Head {
        at: u64,
        wid: WatchId,
    },
    Watch {
        wid: WatchId,
        wake: u64,
    },
    /// Open, silent forever: the engine must give up on it by `bound`.
    Silent {
        bound: u64,
    },
}

/// A LIST answer delivered in pieces: `fed` body bytes so far; the next pieces end at
/// `ends` (the last piece runs to the end of the body).
#[derive(Debug)]
struct Trickle {
    fed: usize,
    ends: Vec<usize>,
}

/// A silent connection's bound while it is the page ahead: no deadline watches it
/// before its turn.
const NEVER: u64 = u64::MAX / 2;

#[derive(Debug)]
struct Conn {
    kind: RequestKind,
    sent_at: u64,
    phase: ConnPhase,
    /// An incomplete line, held until its newline (invisible to the engine: delivery
    /// within one instant), flushed at the end so cuts still land mid-document.
    partial: Vec<u8>,
    frames: u64,
    /// A line that the engine applies as progress (an event, a bookmark) was delivered.
    progressed: bool,
    head_at: Option<u64>,
    /// When bytes (or the head) last reached the engine.
    last_byte: u64,
    /// The `timeoutSeconds` the request asked for, in ms.
    timeout_ms: u64,
    /// A LIST body stalls after this many bytes.
    stall_at: Option<usize>,
    /// An ERROR or malformed line was delivered: what follows is not applied.
    stopped: bool,
    failed: Option<String>,
    expired: bool,
    too_large: bool,
    past_initial: bool,
    /// A streaming list's first live event (not ADDED) or plain bookmark before its end
    /// bookmark: the engine's end-bookmark deadline runs from then.
    first_live_at: Option<u64>,
    no_end_bookmark: bool,
    kill: Option<(u64, Kill)>,
}

impl Conn {
    fn new(kind: RequestKind, sent_at: u64, phase: ConnPhase) -> Conn {
        Conn {
            kind,
            sent_at,
            phase,
            partial: Vec::new(),
            frames: 0,
            progressed: false,
            head_at: None,
            last_byte: sent_at,
            timeout_ms: 0,
            stall_at: None,
            stopped: false,
            failed: None,
            expired: false,
            too_large: false,
            past_initial: false,
            first_live_at: None,
            no_end_bookmark: false,
            kill: None,
        }
    }

    fn next_at(&self) -> u64 {
        let t = match &self.phase {
            ConnPhase::Reply { at, .. } | ConnPhase::Head { at, .. } => *at,
            ConnPhase::Watch { wake, .. } => *wake,
            ConnPhase::Silent { bound } => *bound + 1,
        };
        match self.kill {
            Some((k, _)) if matches!(self.phase, ConnPhase::Watch { .. }) => t.min(k),
            _ => t,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum How {
    /// The connection broke before a response head was delivered (client paused).
    Lost,
    End,
    Abort,
    Cancelled,
}

/// The workload: small pods (or the sim's realistic ones) over several namespaces.
struct Churn {
    rng: Rng,
    realistic: Option<Workload>,
    namespaces: Vec<String>,
    live: Vec<(String, String)>,
    next_id: u64,
    counter: u64,
    configmaps: u64,
}

fn small_pod(ns: &str, name: &str, app: &str, tier: &str, phase: &str, n: u64) -> Value {
    json!({
        "metadata": {"name": name, "namespace": ns, "labels": {"app": app, "tier": tier}},
        "spec": {"nodeName": format!("node-{}", n % 7), "containers": [{"name": "c", "image": "nginx"}]},
        "status": {"phase": phase, "n": n}
    })
}

impl Churn {
    fn new(scn: &Scenario) -> Churn {
        let realistic = (scn.objects == Objects::Realistic).then(|| {
            Workload::new(
                scn.seed,
                WorkloadConfig {
                    namespaces: scn.namespaces,
                    pods: scn.initial_pods,
                    churn_per_sec: 0.0,
                },
            )
        });
        Churn {
            rng: Rng::new(scn.seed ^ 0xC4A2),
            realistic,
            namespaces: (0..scn.namespaces).map(|i| format!("ns-{i}")).collect(),
            live: Vec::new(),
            next_id: 0,
            counter: 0,
            configmaps: 0,
        }
    }

    fn populate(&mut self, c: &mut Cluster, pods: usize, now: u64) {
        if let Some(w) = &mut self.realistic {
            w.populate(c, now);
            return;
        }
        for _ in 0..pods {
            self.create(c, now);
        }
    }

    fn create(&mut self, c: &mut Cluster, now: u64) {
        let ns = self.rng.pick(&self.namespaces).clone();
        self.next_id += 1;
        let name = format!("p-{}", self.next_id);
        let app = format!("a{}", self.rng.below(4));
        let tier = if self.rng.chance(0.7) {
            "backend"
        } else {
            "frontend"
        };
        self.counter += 1;
        let pod = small_pod(&ns, &name, &app, tier, "Running", self.counter);
        if c.create(PODS, pod, now).is_ok() {
            self.live.push((ns, name));
        }
    }

    /// One random change; false if only another resource changed.
    fn step(&mut self, c: &mut Cluster, now: u64) -> bool {
        if let Some(w) = &mut self.realistic {
            w.step(c, now);
            return true;
        }
        let roll = self.rng.below(100);
        if self.live.len() < 3 || (roll < 18 && self.live.len() < 60) {
            self.create(c, now);
            return true;
        }
        let k = self.rng.below(self.live.len() as u64) as usize;
        let (ns, name) = self.live[k].clone();
        self.counter += 1;
        let n = self.counter;
        match roll {
            0..=29 => {
                let _ = c.modify(PODS, &ns, &name, now, |v| v["status"]["n"] = json!(n));
            }
            30..=44 => {
                // Selector transitions: tier, track=canary, app.
                let which = self.rng.below(3);
                let flip = self.rng.chance(0.5);
                let app = format!("a{}", self.rng.below(4));
                let _ = c.modify(PODS, &ns, &name, now, |v| {
                    let labels = &mut v["metadata"]["labels"];
                    match which {
                        0 => labels["tier"] = json!(if flip { "frontend" } else { "backend" }),
                        1 => {
                            if let Some(m) = labels.as_object_mut() {
                                if flip {
                                    m.insert("track".into(), json!("canary"));
                                } else {
                                    m.remove("track");
                                }
                            }
                        }
                        _ => labels["app"] = json!(app),
                    }
                });
            }
            45..=54 => {
                let phase = *self
                    .rng
                    .pick(&["Running", "Pending", "Succeeded", "Failed"]);
                let _ = c.modify(PODS, &ns, &name, now, |v| {
                    v["status"]["phase"] = json!(phase);
                    v["status"]["n"] = json!(n);
                });
            }
            55..=69 => {
                self.live.swap_remove(k);
                let _ = c.delete(PODS, &ns, &name, now);
            }
            70..=79 => {
                let _ = c.recreate(PODS, &ns, &name, now);
            }
            _ => {
                self.touch_other(c, now);
                return false;
            }
        }
        true
    }

    /// A change to another resource: the version moves, the pods do not.
    fn touch_other(&mut self, c: &mut Cluster, now: u64) {
        let ns = self.rng.pick(&self.namespaces).clone();
        self.configmaps += 1;
        let name = format!("cm-{}", self.configmaps % 5);
        let v = json!({"metadata": {"name": name, "namespace": ns}, "data": {"n": self.configmaps.to_string()}});
        if c.create(CONFIGMAPS, v.clone(), now).is_err() {
            let _ = c.update(CONFIGMAPS, v, now);
        }
    }
}

/// One run: the world (server, engine, workload, clock) and the checker's memory.
pub struct Run<'a> {
    scn: &'a Scenario,
    now: u64,
    cluster: Cluster,
    engine: Engine,
    churn: Churn,
    frng: Rng,
    conns: BTreeMap<u64, Conn>,
    quiet: bool,
    next_change_at: u64,
    burst_left: u32,
    compactions: VecDeque<u64>,
    restarts: VecDeque<u64>,
    /// Page reloads to come (save the view, start a new engine from it).
    reloads: VecDeque<u64>,
    pauses: VecDeque<(u64, u64)>,
    paused_until: Option<u64>,
    // The consumer: a map kept only from Added/Modified/Deleted.
    consumer: HashMap<(String, String), (String, u64)>,
    /// The highest version seen per uid (versions never go backwards).
    uid_rv: HashMap<String, u64>,
    /// Server truth for the engine's query after each change: (version, objects).
    snapshots: Vec<(u64, Rc<Vec<Entry>>)>,
    peak_server: usize,
    /// Changes to the query's result not yet shown by the store.
    fresh: Tracker,
    /// Changes before this time (the initial population) are not timed.
    started_at: u64,
    /// Keys the server had for the query since the engine last synced: the store may
    /// hold no others (a relist keeps old objects until its sweep, never more).
    seen_since_sync: std::collections::HashSet<(String, String)>,
    /// The version the engine must resume from: the last it was shown.
    last_seen: Option<u64>,
    expired_served: u64,
    too_large_served: u64,
    /// A streaming-list fallback is justified (422, stalled initial events, live events
    /// before the end bookmark); each fallback uses it up.
    fallback_ok: bool,
    interrupted: u64,
    /// A broken attempt that made progress or lived past [`QUICK_MS`]: the engine must
    /// resume at this instant.
    at_once: Option<(u64, String)>,
    /// The engine was shown a plain bookmark: its idle deadline applies.
    bookmarks_seen: bool,
    /// Spans the engine spent waiting on what faults or the server's pace imposed
    /// (backoffs, fruitless attempts, LIST requests), in time order.
    excused: Vec<(u64, u64)>,
    /// The scenario is under fresh faults only: staleness is bounded.
    fresh_bounded: bool,
    /// Simulated time after the workload.
    quiet_ms: u64,
    relists: HashMap<&'static str, u64>,
    pending_failure: Option<(u64, u64, String)>,
    relisted: bool,
    watch_must_follow: Option<String>,
    backoff_until: Option<u64>,
    drains: u64,
    /// A `Synced` came in this drain: the store is compared with the replay at its end.
    synced_in_drain: bool,
    /// Table mode: the column definitions the engine announced.
    columns: Option<std::sync::Arc<[kubelive_core::TableColumn]>>,
    /// The LIST page the engine asked for ahead of the current one, until its turn.
    ahead: Option<u64>,
    /// The page ahead ended before its turn: how, classified only when the engine
    /// takes it up (it then treats it as sent at that moment).
    ahead_ended: Option<(Conn, How)>,
    /// The current LIST page ended cleanly: unless the engine cancels the page ahead
    /// in this feed, that page takes its turn.
    list_ended: bool,
    /// The current LIST page failed: the engine must cancel the page ahead.
    list_failed: bool,
    trace: Option<VecDeque<String>>,
    stats: Stats,
}

fn violation(at_ms: u64, what: String) -> Violation {
    Violation {
        at_ms,
        what,
        trace: Vec::new(),
    }
}

fn fail<T>(at_ms: u64, what: String) -> Result<T, Violation> {
    Err(violation(at_ms, what))
}

fn reason_key(r: &RelistReason) -> &'static str {
    match r {
        RelistReason::Expired { .. } => "expired",
        RelistReason::ContinueExpired { .. } => "continue-expired",
        RelistReason::TooLargeResourceVersion { .. } => "too-large",
        // A 410 on a streaming list: the server took it for a plain watch.
        RelistReason::StreamingListFallback { why } if why.contains("plain watch") => {
            "expired-fallback"
        }
        RelistReason::StreamingListFallback { .. } => "fallback",
        RelistReason::InitialEventsInterrupted => "interrupted",
        RelistReason::ColumnsChanged => "columns-changed",
        RelistReason::TablesUnavailable { .. } => "tables-unavailable",
    }
}

fn rv_num(s: &str) -> Result<u64, String> {
    s.parse()
        .map_err(|_| format!("resourceVersion {s:?} is not a sim version"))
}

impl<'a> Run<'a> {
    pub fn new(scn: &'a Scenario, trace: bool) -> Run<'a> {
        let mut plan = FaultPlan::none();
        for f in &scn.faults {
            match f {
                Fault::Cut(p, within) => {
                    plan.cut = *p;
                    plan.cut_within = *within;
                }
                Fault::Abort(p, within) => {
                    plan.abort = *p;
                    if scn.fault("cut").is_none() {
                        plan.cut_within = *within;
                    }
                }
                Fault::NoBookmarks(p) => plan.no_bookmarks = *p,
                Fault::Lag { versions, chance } => {
                    plan.lag = Some(*versions);
                    plan.lag_chance = *chance;
                }
                Fault::Http {
                    p429,
                    p500,
                    p503,
                    retry_after,
                } => {
                    plan.err429 = *p429;
                    plan.err500 = *p500;
                    plan.err503 = *p503;
                    plan.retry_after = *retry_after;
                }
                Fault::Html(p) => plan.html = *p,
                Fault::Malformed(p) => plan.malformed = *p,
                _ => {}
            }
        }
        let cfg = ClusterConfig {
            seed: scn.seed ^ 0x51A,
            compact_every_ms: scn.compact_every_ms,
            watch_cache_window_ms: scn.watch_cache_window_ms,
            bookmark_every_ms: scn.bookmark_every_ms,
            streaming_lists: scn.streaming_lists(),
            too_large_wait_ms: 3_000,
            faults: plan,
            release: scn.release,
            watch_list_compression: None,
        };
        let mut cluster = Cluster::new(cfg);
        let mut churn = Churn::new(scn);
        churn.populate(&mut cluster, scn.initial_pods, 0);

        let mut config = Config::new(
            Collection::parse(&scn.collection_path()).expect("a valid collection path"),
        );
        config.mode = scn.mode;
        config.label_selector = scn.label_selector.clone();
        config.field_selector = scn.field_selector.clone();
        config.page_size = scn.page_size;
        config.max_page_size = scn.max_page_size;
        config.initial_list_any_version = scn.initial_list_any_version;
        config.watch_timeout_secs = scn.watch_timeout_secs;
        if let Some(include) = scn.tables {
            config = config.tables(include);
        }
        if scn.fault("reload").is_some() {
            config.metadata = KeptMetadata::Identity;
        }
        config.seed = scn.seed ^ 0xE9;
        config.pipeline_pages = scn.pipeline_pages;
        let start = 1_000;
        let engine = Engine::new(config, Instant::from_millis(start));

        let mut compactions = VecDeque::new();
        let mut restarts = VecDeque::new();
        let mut reloads = VecDeque::new();
        let mut pauses = VecDeque::new();
        for f in &scn.faults {
            match f {
                Fault::CompactAt(t) => compactions.extend(t.iter().copied()),
                Fault::RestartAt(t) => restarts.extend(t.iter().copied()),
                Fault::ReloadAt(t) => reloads.extend(t.iter().copied()),
                Fault::Pause(p) => pauses.extend(p.iter().copied()),
                _ => {}
            }
        }
        let mut run = Run {
            scn,
            now: start,
            cluster,
            engine,
            churn,
            frng: Rng::new(scn.seed ^ 0xFA17),
            conns: BTreeMap::new(),
            quiet: false,
            next_change_at: start + 500,
            burst_left: 0,
            compactions,
            restarts,
            reloads,
            pauses,
            paused_until: None,
            consumer: HashMap::new(),
            uid_rv: HashMap::new(),
            snapshots: Vec::new(),
            peak_server: 0,
            fresh: Tracker::default(),
            started_at: start,
            seen_since_sync: Default::default(),
            last_seen: None,
            expired_served: 0,
            too_large_served: 0,
            fallback_ok: false,
            interrupted: 0,
            at_once: None,
            bookmarks_seen: false,
            excused: Vec::new(),
            fresh_bounded: scn.freshness_bounded(),
            quiet_ms: quiet_ms(scn),
            relists: HashMap::new(),
            pending_failure: None,
            relisted: false,
            watch_must_follow: None,
            backoff_until: None,
            drains: 0,
            synced_in_drain: false,
            columns: None,
            ahead: None,
            ahead_ended: None,
            list_ended: false,
            list_failed: false,
            trace: trace.then(VecDeque::new),
            stats: Stats::default(),
        };
        run.snapshot();
        // Move the version past what a lagging replica (at most 20 behind) could serve,
        // so every state the engine may be shown has a snapshot.
        for _ in 0..21 {
            run.churn.touch_other(&mut run.cluster, 0);
            run.snapshot_if(false);
        }
        run
    }

    fn log(&mut self, f: impl FnOnce() -> String) {
        let now = self.now;
        if let Some(t) = &mut self.trace {
            if t.len() >= 400 {
                t.pop_front();
            }
            t.push_back(format!("{now:>9} {}", f()));
        }
    }

    fn at(&self) -> Instant {
        Instant::from_millis(self.now)
    }

    /// Runs the scenario to its end and checks quiescence.
    pub fn run(mut self) -> Result<Stats, Violation> {
        let r = self.run_inner();
        match r {
            Ok(()) => Ok(self.stats),
            Err(mut v) => {
                if let Some(t) = self.trace.take() {
                    v.trace = t.into_iter().collect();
                }
                Err(v)
            }
        }
    }

    fn run_inner(&mut self) -> Result<(), Violation> {
        self.drain()?;
        let workload_end = self.now + self.scn.workload_ms;
        let end = workload_end + self.quiet_ms;
        let mut same_instant = 0u32;
        loop {
            let t = self.next_time(workload_end).max(self.now);
            if t >= end {
                self.now = end;
                break;
            }
            if t == self.now {
                same_instant += 1;
                if same_instant > 100_000 {
                    return fail(
                        self.now,
                        "no progress: the loop spins at one instant".into(),
                    );
                }
            } else {
                same_instant = 0;
            }
            self.now = t;
            // The server changes pods on its own too (a graceful deletion ends): let it
            // run what is due and record the state before anything else at this instant.
            self.cluster.advance(t);
            self.snapshot_if(false);
            if !self.quiet && t >= workload_end {
                self.go_quiet()?;
            }
            self.step()?;
        }
        self.stats.sim_ms = self.now;
        self.final_check()
    }

    fn next_time(&self, workload_end: u64) -> u64 {
        let mut t = u64::MAX;
        if !self.quiet {
            t = t.min(workload_end).min(self.next_change_at);
            if let Some(&c) = self.compactions.front() {
                t = t.min(c);
            }
            if let Some(&r) = self.restarts.front() {
                t = t.min(r);
            }
            if let Some(&r) = self.reloads.front() {
                t = t.min(r);
            }
            if let Some(&(p, _)) = self.pauses.front() {
                t = t.min(p);
            }
        }
        if let Some(p) = self.paused_until {
            return t.min(p);
        }
        if let Some(e) = self.engine.poll_timeout() {
            t = t.min(e.as_millis());
        }
        for c in self.conns.values() {
            t = t.min(c.next_at());
        }
        t
    }

    fn go_quiet(&mut self) -> Result<(), Violation> {
        self.quiet = true;
        self.log(|| "quiet: faults and workload stop".into());
        self.cluster.set_faults(FaultPlan::none());
        self.cluster.set_lag(None);
        for c in self.conns.values_mut() {
            c.kill = None;
        }
        self.wake_watches();
        self.compactions.clear();
        self.restarts.clear();
        self.reloads.clear();
        self.pauses.clear();
        if self.paused_until.is_some() {
            self.unpause()?;
        }
        Ok(())
    }

    fn step(&mut self) -> Result<(), Violation> {
        let now = self.now;
        if self.paused_until.is_some_and(|p| now >= p) {
            self.unpause()?;
        }
        if !self.quiet {
            while self.compactions.front().is_some_and(|&c| c <= now) {
                self.compactions.pop_front();
                self.log(|| "server: compaction".into());
                self.cluster.compact(now);
                self.wake_watches();
            }
            while self.restarts.front().is_some_and(|&c| c <= now) {
                self.restarts.pop_front();
                self.log(|| "server: restart".into());
                self.cluster.restart();
                self.wake_watches();
            }
            while self.reloads.front().is_some_and(|&r| r <= now) {
                self.reloads.pop_front();
                self.reload()?;
            }
            while self.pauses.front().is_some_and(|&(p, _)| p <= now) {
                let (_, d) = self.pauses.pop_front().unwrap_or_default();
                if self.paused_until.is_none() {
                    self.log(|| format!("client paused for {d} ms"));
                    self.paused_until = Some(now + d);
                }
            }
            if self.next_change_at <= now {
                self.change()?;
            }
        }
        if self.paused_until.is_some() {
            return Ok(());
        }
        if self
            .engine
            .poll_timeout()
            .is_some_and(|t| t.as_millis() <= now)
        {
            self.engine.handle_timeout(self.at());
            self.drain()?;
        }
        let due: Vec<u64> = self
            .conns
            .iter()
            .filter(|(_, c)| c.next_at() <= now)
            .map(|(id, _)| *id)
            .collect();
        for id in due {
            self.process(id)?;
        }
        Ok(())
    }

    /// The page reloads: the view is saved, the page's engine and every connection it
    /// had go, and a new engine starts from the saved view. It must show the saved
    /// rows at once (`Added` each, then `Restored` at the last version shown) and
    /// watch from that version: `check_request` holds it to `last_seen`.
    fn reload(&mut self) -> Result<(), Violation> {
        let now = self.now;
        if self.paused_until.is_some() {
            return Ok(());
        }
        let bytes = match self.engine.save_view() {
            Ok(b) => b,
            Err(e) => {
                self.log(|| format!("reload: nothing saved ({e})"));
                return Ok(());
            }
        };
        let view = SavedView::decode(&bytes)
            .map_err(|e| violation(now, format!("a saved view does not read back: {e}")))?;
        if view.rows().len() != self.engine.store().len() {
            return fail(
                now,
                format!(
                    "the saved view holds {} rows, the store {}",
                    view.rows().len(),
                    self.engine.store().len()
                ),
            );
        }
        let saved_rv = rv_num(view.resource_version().as_str()).map_err(|e| violation(now, e))?;
        if Some(saved_rv) != self.last_seen {
            return fail(
                now,
                format!(
                    "saved at version {saved_rv}, but the last version shown is {:?}",
                    self.last_seen
                ),
            );
        }
        self.log(|| {
            format!(
                "reload: {} rows saved at {saved_rv} ({} bytes)",
                view.rows().len(),
                bytes.len()
            )
        });
        // The old page's connections go with it; the new engine knows none of them.
        for (_, c) in std::mem::take(&mut self.conns) {
            if let ConnPhase::Head { wid, .. } | ConnPhase::Watch { wid, .. } = c.phase {
                self.cluster.close_watch(wid);
            }
        }
        self.ahead = None;
        self.ahead_ended = None;
        self.list_ended = false;
        self.list_failed = false;
        self.pending_failure = None;
        self.at_once = None;
        self.backoff_until = None;
        self.watch_must_follow = None;
        // The new page's consumer starts empty and hears of every saved row.
        self.consumer.clear();
        // A new engine is a new session: what the old one learned of the server (that
        // it sends bookmarks, so a silent watch is renewed after the idle deadline) it
        // learns again.
        self.bookmarks_seen = false;
        let config = self.engine.config().clone();
        self.engine = Engine::restore(config, view, self.at())
            .map_err(|e| violation(now, format!("the saved view does not restore: {e}")))?;
        self.stats.reloads += 1;
        self.drain()
    }

    fn wake_watches(&mut self) {
        let now = self.now;
        for c in self.conns.values_mut() {
            if let ConnPhase::Watch { wake, .. } = &mut c.phase {
                *wake = now;
            }
        }
    }

    fn change(&mut self) -> Result<(), Violation> {
        let now = self.now;
        let pods = self.churn.step(&mut self.cluster, now);
        self.stats.changes += 1;
        self.snapshot_if(pods);
        self.wake_watches();
        let gap = if self.burst_left > 0 {
            self.burst_left -= 1;
            self.churn.rng.below(5)
        } else if self.churn.rng.chance(self.scn.burst_chance) {
            self.burst_left = self.churn.rng.range(5, 30) as u32;
            0
        } else if self.churn.rng.chance(self.scn.idle_chance) {
            self.churn.rng.range(90_000, 400_000)
        } else {
            self.churn.rng.range(1, 2 * self.scn.mean_gap_ms)
        };
        self.next_change_at = now + gap;
        Ok(())
    }

    /// Records the server's state for the engine's query at the current version.
    /// `pods_changed: false` (only another resource changed) reuses the last one.
    fn snapshot_if(&mut self, pods_changed: bool) {
        let rv = self.cluster.resource_version();
        let last = self.snapshots.last().cloned();
        if let Some((r, prev)) = &last {
            if *r == rv {
                return;
            }
            // The server also changes pods by itself (a graceful deletion ends when its
            // grace period is over): only reuse the last state if it did not.
            if !pods_changed && !self.cluster.changed_since(PODS, *r) {
                self.snapshots.push((rv, prev.clone()));
                return;
            }
        }
        let truth = self.truth();
        self.peak_server = self.peak_server.max(self.cluster.count(PODS));
        // A merge walk over the previous snapshot (the sim keeps "ns/name" order):
        // new keys for the memory check; new, changed and removed keys for staleness.
        let ord = |a: &Entry, b: &Entry| {
            let ka = a.0.bytes().chain(std::iter::once(b'/')).chain(a.1.bytes());
            let kb = b.0.bytes().chain(std::iter::once(b'/')).chain(b.1.bytes());
            ka.cmp(kb)
        };
        let prev: &[Entry] = last.as_ref().map(|(_, p)| p.as_slice()).unwrap_or(&[]);
        let timed = last.is_some() && self.now >= self.started_at;
        let (mut i, mut j) = (0, 0);
        while i < truth.len() || j < prev.len() {
            let o = match (truth.get(i), prev.get(j)) {
                (Some(e), Some(p)) => ord(e, p),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            match o {
                std::cmp::Ordering::Less => {
                    let e = &truth[i];
                    self.seen_since_sync.insert((e.0.clone(), e.1.clone()));
                    if timed {
                        self.note_change(&e.0, &e.1, rv_num(&e.3).unwrap_or(rv), false);
                    }
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    let p = &prev[j];
                    if timed {
                        self.note_change(&p.0.clone(), &p.1.clone(), rv, true);
                    }
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    let (e, p) = (&truth[i], &prev[j]);
                    if timed && (e.2 != p.2 || e.3 != p.3) {
                        let (ns, name) = (e.0.clone(), e.1.clone());
                        self.note_change(&ns, &name, rv_num(&e.3).unwrap_or(rv), false);
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        self.snapshots.push((rv, Rc::new(truth)));
    }

    fn snapshot(&mut self) {
        self.snapshot_if(true);
    }

    fn note_change(&mut self, ns: &str, name: &str, rv: u64, gone: bool) {
        let at = self.now;
        self.fresh.push(ns, name, Pending { at, rv, gone });
    }

    /// Times every change the store now shows; under fresh faults, holds each to
    /// [`FRESH_BOUND_MS`] beyond its excused waits.
    fn settle_staleness(&mut self) -> Result<(), Violation> {
        if self.fresh.is_empty() {
            return Ok(());
        }
        let now = self.now;
        let mut shown = Vec::new();
        self.fresh
            .settle(self.engine.store(), now, |s| shown.push(s));
        for s in shown {
            let delay = s.shown - s.at;
            self.stats.staleness.record(delay);
            if !self.fresh_bounded {
                continue;
            }
            let excess = delay.saturating_sub(self.excused_within(s.at, s.shown));
            self.stats.fresh_excess_max = self.stats.fresh_excess_max.max(excess);
            if excess > FRESH_BOUND_MS {
                return fail(
                    now,
                    format!(
                        "freshness: the change made at {} ms was shown {delay} ms later, {excess} ms \
                         beyond the backoffs, fruitless attempts and lists in between (bound {FRESH_BOUND_MS} ms)",
                        s.at
                    ),
                );
            }
        }
        Ok(())
    }

    /// How much of `from..to` the engine spent in excused spans.
    fn excused_within(&self, from: u64, to: u64) -> u64 {
        let i = self.excused.partition_point(|&(_, end)| end <= from);
        self.excused[i..]
            .iter()
            .take_while(|&&(start, _)| start < to)
            .map(|&(start, end)| end.min(to).saturating_sub(start.max(from)))
            .sum()
    }

    fn truth(&self) -> Vec<Entry> {
        self.cluster
            .truth(
                &self.scn.collection_path(),
                self.scn.label_selector.as_deref().unwrap_or(""),
                self.scn.field_selector.as_deref().unwrap_or(""),
            )
            .unwrap_or_default()
    }

    /// What the consumer holds, as entries in the store's order.
    fn consumer_entries(&self) -> Vec<Entry> {
        let mut v: Vec<Entry> = self
            .consumer
            .iter()
            .map(|((ns, name), (uid, rv))| (ns.clone(), name.clone(), uid.clone(), rv.to_string()))
            .collect();
        v.sort_unstable_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        v
    }

    fn store_entries(&self) -> Vec<Entry> {
        self.engine
            .store()
            .sorted()
            .into_iter()
            .map(|o| {
                (
                    o.namespace().to_string(),
                    o.name().to_string(),
                    o.uid().to_string(),
                    o.resource_version().to_string(),
                )
            })
            .collect()
    }

    fn unpause(&mut self) -> Result<(), Violation> {
        self.paused_until = None;
        self.log(|| "client resumes: its connections broke".into());
        let ids: Vec<u64> = self.conns.keys().copied().collect();
        for id in ids {
            let Some(mut conn) = self.conns.remove(&id) else {
                continue;
            };
            if let ConnPhase::Head { wid, .. } | ConnPhase::Watch { wid, .. } = conn.phase {
                self.cluster.close_watch(wid);
            }
            conn.partial.clear();
            self.finalize(&conn, How::Lost);
            self.engine.handle_error(
                RequestId(id),
                TransportError::Reset("connection lost while paused".into()),
                self.at(),
            );
            self.drain()?;
        }
        Ok(())
    }

    // ----- the network -----

    fn send(&mut self, req: Request, ahead: bool) -> Result<(), Violation> {
        let now = self.now;
        self.stats.requests += 1;
        let latency = self
            .frng
            .range(self.scn.latency_ms.0, self.scn.latency_ms.1);
        let mut conn = Conn::new(
            req.kind,
            now,
            ConnPhase::Head {
                at: now,
                wid: WatchId(0),
            },
        );
        let faulty = !self.quiet;
        let too_large = faulty
            && self
                .scn
                .fault("too-large")
                .is_some_and(|f| matches!(f, Fault::TooLarge(p) if self.frng.chance(*p)));
        if too_large {
            let rv = self.cluster.resource_version();
            let resp = Response {
                status: 504,
                headers: vec![
                    ("Content-Type".into(), "application/json".into()),
                    ("Retry-After".into(), "1".into()),
                ],
                body: status::too_large(rv + 10, rv).into_bytes(),
            };
            conn.phase = ConnPhase::Reply {
                at: now + 3_000 + latency,
                resp,
                cut: None,
                too_large: true,
                trickle: None,
            };
        } else {
            // The representation as the apiserver negotiates the request's Accept.
            let output =
                negotiate::for_resource(Some(req.accept), true).map_or(Output::Json, |n| n.what);
            let get = Get::new(req.path.clone())
                .with_header("Accept", req.accept)
                .with_output(output);
            let reply = self.cluster.handle(&get, now);
            match reply {
                Reply::Response(resp) => {
                    let cut = self.list_cut(&req, &resp);
                    conn.phase = ConnPhase::Reply {
                        at: now + latency,
                        resp,
                        cut,
                        too_large: false,
                        trickle: None,
                    };
                }
                Reply::Delayed { at_ms, response } => {
                    let too_large = response.status == 504;
                    conn.phase = ConnPhase::Reply {
                        at: at_ms.max(now) + latency,
                        resp: response,
                        cut: None,
                        too_large,
                        trickle: None,
                    };
                }
                Reply::Watch(wid) => {
                    conn.phase = ConnPhase::Head {
                        at: now + latency,
                        wid,
                    };
                    if faulty {
                        self.watch_faults(&mut conn);
                    }
                }
            }
        }
        conn.timeout_ms = scan::query_param(&req.path, "timeoutSeconds")
            .and_then(|t| t.parse::<u64>().ok())
            .unwrap_or(0)
            * 1_000;
        if faulty && self.chance_of("no-head") {
            if let ConnPhase::Head { wid, .. } = conn.phase {
                self.cluster.close_watch(wid);
            }
            let limit = match req.kind {
                RequestKind::List { .. } => LIST_HEAD_MS,
                _ => WATCH_HEAD_MS,
            };
            self.log(|| format!("   #{}: its head will never come", req.id.0));
            let bound = if ahead { NEVER } else { now + limit };
            conn.phase = ConnPhase::Silent { bound };
        } else if let ConnPhase::Reply {
            resp, cut: None, ..
        } = &conn.phase
        {
            let stall = resp.status == 200
                && matches!(req.kind, RequestKind::List { .. })
                && !resp.body.is_empty()
                && faulty
                && self.chance_of("list-stall");
            if stall {
                conn.stall_at = Some(self.frng.below(resp.body.len() as u64) as usize);
            }
        }
        self.maybe_trickle(&req, &mut conn);
        self.log(|| format!("-> #{} {}", req.id.0, req.path));
        self.conns.insert(req.id.0, conn);
        Ok(())
    }

    /// `list-trickle`: a LIST answer (not stalled) arrives in 2-5 pieces, up to 2 s apart.
    fn maybe_trickle(&mut self, req: &Request, conn: &mut Conn) {
        let p = match self.scn.fault("list-trickle") {
            Some(Fault::ListTrickle(p)) if !self.quiet => *p,
            _ => return,
        };
        if !matches!(req.kind, RequestKind::List { .. }) || conn.stall_at.is_some() {
            return;
        }
        let ConnPhase::Reply {
            resp, cut, trickle, ..
        } = &mut conn.phase
        else {
            return;
        };
        let len = cut.map_or(resp.body.len(), |(n, _)| n);
        if len < 2 || !self.frng.chance(p) {
            return;
        }
        let n = self.frng.range(1, 4);
        let mut ends: Vec<usize> = (0..n)
            .map(|_| 1 + self.frng.below(len as u64 - 1) as usize)
            .collect();
        ends.sort_unstable();
        ends.dedup();
        *trickle = Some(Trickle { fed: 0, ends });
    }

    /// Draws a fault with a probability parameter: whether it strikes this time.
    fn chance_of(&mut self, name: &str) -> bool {
        let p = match self.scn.fault(name) {
            Some(Fault::Silent(p) | Fault::NoHead(p) | Fault::ListStall(p)) => *p,
            _ => return false,
        };
        self.frng.chance(p)
    }

    fn list_cut(&mut self, req: &Request, resp: &Response) -> Option<(usize, bool)> {
        if self.quiet || resp.status != 200 || !matches!(req.kind, RequestKind::List { .. }) {
            return None;
        }
        let p = match self.scn.fault("list-cut") {
            Some(Fault::ListCut(p)) => *p,
            _ => return None,
        };
        if !self.frng.chance(p) || resp.body.is_empty() {
            return None;
        }
        // Cut inside the document: a body that loses only its final newline (the
        // apiserver's encoder ends every body with one) is complete, not a failure.
        let document = resp.body.trim_ascii_end().len().max(1);
        Some((
            self.frng.below(document as u64) as usize,
            self.frng.chance(0.5),
        ))
    }

    fn watch_faults(&mut self, conn: &mut Conn) {
        let now = self.now;
        for f in &self.scn.faults {
            match f {
                Fault::ProxyCut(p) if self.frng.chance(*p) => {
                    let at = now + self.frng.range(50, 600_000);
                    let how = if self.frng.chance(0.5) {
                        Kill::Clean
                    } else {
                        Kill::Abort
                    };
                    conn.kill = Some((at, how));
                }
                Fault::InStream410(p)
                    if conn.kind == RequestKind::Watch && self.frng.chance(*p) =>
                {
                    conn.kill = Some((now + self.frng.range(100, 300_000), Kill::Error410));
                }
                Fault::NoEndBookmark(p)
                    if conn.kind == RequestKind::StreamingList && self.frng.chance(*p) =>
                {
                    conn.no_end_bookmark = true;
                }
                Fault::Silent(p) if self.frng.chance(*p) => {
                    let at = now + self.frng.range(50, 120_000);
                    if conn.kill.is_none_or(|(k, _)| at < k) {
                        conn.kill = Some((at, Kill::Silent));
                    }
                }
                Fault::FlakyProxy => {
                    let at = now + self.frng.range(1_000, 1_600);
                    let how = *self.frng.pick(&[
                        Kill::Abort,
                        Kill::AbortAfterHtml,
                        Kill::AbortAfterTruncatedLine,
                    ]);
                    if conn.kill.is_none_or(|(k, _)| at < k) {
                        conn.kill = Some((at, how));
                    }
                }
                _ => {}
            }
        }
    }

    fn split_points(&mut self, len: usize) -> Vec<usize> {
        if len < 2 || self.scn.fault("split").is_none() {
            return vec![];
        }
        let n = 1 + self.frng.below(4);
        let mut cuts: Vec<usize> = (0..n)
            .map(|_| 1 + self.frng.below(len as u64 - 1) as usize)
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        cuts
    }

    /// Feeds body bytes to a request still in `conns`, re-chunked; false once the
    /// engine cancelled it (its outcome was then classified in `drain`).
    fn feed_body(&mut self, id: u64, bytes: &[u8]) -> Result<bool, Violation> {
        let cuts = self.split_points(bytes.len());
        let mut prev = 0;
        for c in cuts.into_iter().chain(std::iter::once(bytes.len())) {
            let piece = &bytes[prev..c];
            prev = c;
            if piece.is_empty() {
                continue;
            }
            let now = self.now;
            if let Some(c) = self.conns.get_mut(&id) {
                c.last_byte = now;
            }
            self.engine.handle_body(RequestId(id), piece, self.at());
            self.drain()?;
            if !self.conns.contains_key(&id) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn process(&mut self, id: u64) -> Result<(), Violation> {
        let now = self.now;
        let Some(conn) = self.conns.get_mut(&id) else {
            return Ok(());
        };
        match conn.phase {
            ConnPhase::Reply { at, .. } if at <= now => self.deliver_reply(id),
            ConnPhase::Head { at, wid } if at <= now => {
                conn.phase = ConnPhase::Watch { wid, wake: now };
                conn.head_at = Some(now);
                conn.last_byte = now;
                let head = watch_response_head();
                let headers: Vec<(&str, &str)> = head
                    .headers
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect();
                self.log(|| format!("<- #{id} 200 (watch)"));
                self.engine
                    .handle_response(RequestId(id), 200, &headers, self.at());
                self.drain()?;
                self.pump(id)
            }
            ConnPhase::Watch { .. } => self.pump(id),
            ConnPhase::Silent { bound } if now > bound => fail(
                now,
                format!(
                    "liveness: request #{id} ({:?}) has been silent since {} ms and the engine \
                     did not give up on it by its deadline ({bound} ms)",
                    conn.kind, conn.last_byte
                ),
            ),
            _ => Ok(()),
        }
    }

    fn deliver_reply(&mut self, id: u64) -> Result<(), Violation> {
        let Some(ConnPhase::Reply {
            resp, cut, trickle, ..
        }) = self.conns.get(&id).map(|c| &c.phase)
        else {
            return Ok(());
        };
        let (status, cut) = (resp.status, *cut);
        let headers: Vec<(String, String)> = resp.headers.clone();
        let body = match cut {
            Some((n, _)) => resp.body[..n].to_vec(),
            None => resp.body.clone(),
        };
        let full_len = resp.body.len();
        // This delivery's share of the body: all of it, or the next trickled piece.
        let (from, to) = match trickle {
            Some(t) => (t.fed, t.ends.first().copied().unwrap_or(body.len())),
            None => (0, body.len()),
        };
        let first = self.conns.get(&id).is_some_and(|c| c.head_at.is_none());
        let now = self.now;
        if first {
            self.log(|| {
                format!(
                    "<- #{id} {status} {full_len} bytes{}{}",
                    match cut {
                        Some((n, abrupt)) => format!(" cut at {n} (abrupt {abrupt})"),
                        None => String::new(),
                    },
                    if to < body.len() { " (trickled)" } else { "" }
                )
            });
            let h: Vec<(&str, &str)> = headers
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            let mut stall_at = None;
            if let Some(c) = self.conns.get_mut(&id) {
                c.head_at = Some(now);
                c.last_byte = now;
                stall_at = c.stall_at;
            }
            self.engine
                .handle_response(RequestId(id), status, &h, self.at());
            self.drain()?;
            if let Some(n) = stall_at {
                // The body stops here and the connection stays open.
                self.log(|| format!("<- #{id} stalls after {n} bytes"));
                if !self.conns.contains_key(&id) || !self.feed_body(id, &body[..n])? {
                    return Ok(());
                }
                let ahead = self.ahead == Some(id);
                if let Some(c) = self.conns.get_mut(&id) {
                    let bound = if ahead { NEVER } else { c.last_byte + STALL_MS };
                    c.phase = ConnPhase::Silent { bound };
                }
                return Ok(());
            }
        } else {
            self.log(|| format!("<- #{id} bytes {from}..{to} of {}", body.len()));
        }
        if !self.conns.contains_key(&id) || !self.feed_body(id, &body[from..to])? {
            return Ok(());
        }
        if to < body.len() {
            // More pieces later, while other requests go on.
            let pause = self.frng.range(1, 2_000);
            if let Some(ConnPhase::Reply { at, trickle, .. }) =
                self.conns.get_mut(&id).map(|c| &mut c.phase)
            {
                *at = now + pause;
                if let Some(t) = trickle {
                    t.fed = to;
                    if !t.ends.is_empty() {
                        t.ends.remove(0);
                    }
                }
            }
            return Ok(());
        }
        let Some(conn) = self.conns.remove(&id) else {
            return Ok(());
        };
        let abrupt = cut.is_some_and(|(_, a)| a);
        let how = if abrupt { How::Abort } else { How::End };
        let kind = conn.kind;
        if self.ahead == Some(id) {
            // The engine holds what the page ahead answered until its turn: what it
            // means is classified then.
            self.log(|| format!("   #{id} (the page ahead) ended: held for its turn"));
            self.ahead_ended = Some((conn, how));
        } else {
            self.finalize(&conn, how);
            if matches!(kind, RequestKind::List { .. }) {
                if abrupt {
                    self.list_failed = true;
                } else {
                    self.list_ended = true;
                }
            }
        }
        if abrupt {
            self.engine.handle_error(
                RequestId(id),
                TransportError::Reset("unexpected EOF".into()),
                self.at(),
            );
        } else {
            self.engine.handle_end(RequestId(id), self.at());
        }
        self.drain()?;
        self.check_relists()?;
        if status == 200 && cut.is_none() && matches!(kind, RequestKind::List { .. }) {
            let (_, more) = scan::list_meta(&body);
            let p = match self.scn.fault("compact-mid-list") {
                Some(Fault::CompactMidList(p)) if !self.quiet => *p,
                _ => 0.0,
            };
            if more && self.frng.chance(p) {
                self.log(|| "server: change + compaction mid-list".into());
                self.churn.touch_other(&mut self.cluster, self.now);
                self.snapshot_if(false);
                self.cluster.compact(self.now);
                self.wake_watches();
            }
        }
        Ok(())
    }

    fn pump(&mut self, id: u64) -> Result<(), Violation> {
        let Some(conn) = self.conns.get(&id) else {
            return Ok(());
        };
        let ConnPhase::Watch { wid, .. } = conn.phase else {
            return Ok(());
        };
        if let Some((at, kill)) = conn.kill {
            if at <= self.now {
                self.cluster.close_watch(wid);
                self.log(|| format!("<- #{id} killed: {kill:?}"));
                return match kill {
                    Kill::Clean => self.watch_end(id, true),
                    Kill::Abort => self.watch_end(id, false),
                    Kill::AbortAfterHtml => {
                        let page = "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>\n";
                        if !self.watch_bytes(id, page.as_bytes())? {
                            return Ok(());
                        }
                        self.watch_end(id, false)
                    }
                    Kill::AbortAfterTruncatedLine => {
                        let half = "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p-";
                        if !self.watch_bytes(id, half.as_bytes())? {
                            return Ok(());
                        }
                        self.watch_end(id, false)
                    }
                    Kill::Silent => {
                        let bookmarks_seen = self.bookmarks_seen;
                        if let Some(c) = self.conns.get_mut(&id) {
                            // What was in flight never arrives.
                            c.partial.clear();
                            let head = c.head_at.unwrap_or(c.sent_at);
                            let mut bound = head + c.timeout_ms + WATCH_GRACE_MS;
                            if c.kind == RequestKind::StreamingList && !c.past_initial {
                                bound = bound.min(c.last_byte + STALL_MS);
                            } else if bookmarks_seen {
                                bound = bound.min(c.last_byte + IDLE_MS);
                            }
                            c.phase = ConnPhase::Silent { bound };
                        }
                        Ok(())
                    }
                    Kill::Error410 => {
                        if let Some(c) = self.conns.get_mut(&id) {
                            // Held bytes never reached the engine: drop them.
                            c.partial.clear();
                        }
                        let st = status::too_old_watch(
                            self.last_seen.unwrap_or(1),
                            self.cluster.compacted_rv(),
                        );
                        let line = format!("{{\"type\":\"ERROR\",\"object\":{st}}}\n");
                        if !self.watch_bytes(id, line.as_bytes())? {
                            return Ok(());
                        }
                        self.watch_end(id, true)
                    }
                };
            }
        }
        for _ in 0..10_000 {
            match self.cluster.poll_watch(wid, self.now) {
                WatchOutput::Chunks(chunks) => {
                    for c in chunks {
                        if !self.watch_bytes(id, &c)? {
                            self.cluster.close_watch(wid);
                            return Ok(());
                        }
                    }
                }
                WatchOutput::Pending { wake_at_ms } => {
                    let now = self.now;
                    if let Some(c) = self.conns.get_mut(&id) {
                        c.phase = ConnPhase::Watch {
                            wid,
                            wake: wake_at_ms.max(now + 1),
                        };
                    }
                    return Ok(());
                }
                WatchOutput::End => return self.watch_end(id, true),
                WatchOutput::Abort => return self.watch_end(id, false),
            }
        }
        fail(self.now, format!("watch #{id} never stops sending"))
    }

    /// Bytes of a watch body: complete lines are noted and delivered; false once the
    /// engine cancelled the request.
    fn watch_bytes(&mut self, id: u64, bytes: &[u8]) -> Result<bool, Violation> {
        let Some(mut conn) = self.conns.remove(&id) else {
            return Ok(false);
        };
        conn.partial.extend_from_slice(bytes);
        let Some(last_nl) = memchr::memrchr(b'\n', &conn.partial) else {
            self.conns.insert(id, conn);
            return Ok(true);
        };
        let complete: Vec<u8> = conn.partial.drain(..=last_nl).collect();
        let mut out = Vec::with_capacity(complete.len());
        for line in complete.split_inclusive(|&c| c == b'\n') {
            let body = &line[..line.len() - 1];
            let info = scan::inspect_line(body);
            if conn.no_end_bookmark && info.initial_events_end {
                self.log(|| format!("<- #{id} end bookmark withheld"));
                continue;
            }
            self.note_line(&mut conn, &info);
            out.extend_from_slice(line);
        }
        self.conns.insert(id, conn);
        if out.is_empty() {
            return Ok(true);
        }
        // The sim puts several events in one chunk at times (as a real server does):
        // they reach the engine together, and each event's checks hold at the moment
        // it was emitted (against the consumer's replay, not the store, which already
        // shows the whole chunk).
        if memchr::memchr_iter(b'\n', &out).nth(1).is_some() {
            self.stats.multi_event_chunks += 1;
        }
        if !self.feed_body(id, &out)? {
            return Ok(false);
        }
        self.check_relists()?;
        Ok(true)
    }

    fn note_line(&mut self, conn: &mut Conn, info: &LineInfo) {
        if conn.stopped {
            return;
        }
        conn.frames += 1;
        let live = conn.kind == RequestKind::Watch || conn.past_initial;
        let progress = match info.ty {
            LineType::Added | LineType::Modified | LineType::Deleted => info.rv.is_some(),
            LineType::Bookmark => true,
            LineType::Error | LineType::Other => false,
        };
        if progress {
            conn.progressed = true;
        }
        let plain_bookmark = info.ty == LineType::Bookmark && !info.initial_events_end;
        if !live
            && progress
            && (plain_bookmark || matches!(info.ty, LineType::Modified | LineType::Deleted))
        {
            // Live events may precede the end bookmark (before 1.32 it comes at the next
            // bookmark tick): the engine applies them and waits, up to END_BOOKMARK_MS.
            conn.first_live_at.get_or_insert(self.now);
        }
        if info.ty == LineType::Bookmark && !info.initial_events_end {
            self.bookmarks_seen = true;
        }
        match info.ty {
            LineType::Error => {
                conn.stopped = true;
                match info.code {
                    Some(410) => {
                        conn.expired = true;
                        self.expired_served += 1;
                        self.stats.expired_served += 1;
                    }
                    Some(504) => {
                        conn.too_large = true;
                        self.too_large_served += 1;
                        conn.failed = Some("in-stream 504".into());
                    }
                    c => conn.failed = Some(format!("in-stream ERROR {c:?}")),
                }
            }
            LineType::Added | LineType::Modified | LineType::Deleted => match info.rv {
                Some(rv) if live => self.last_seen = Some(rv),
                Some(_) => {}
                None => {
                    conn.stopped = true;
                    conn.failed = Some("malformed document".into());
                }
            },
            LineType::Bookmark => {
                if live {
                    if info.rv.is_some() {
                        self.last_seen = info.rv;
                    }
                } else if info.initial_events_end && info.rv.is_some() {
                    conn.past_initial = true;
                    self.last_seen = info.rv;
                }
            }
            LineType::Other => {
                conn.stopped = true;
                conn.failed = Some("malformed document".into());
            }
        }
    }

    fn watch_end(&mut self, id: u64, clean: bool) -> Result<(), Violation> {
        let Some(mut conn) = self.conns.remove(&id) else {
            return Ok(());
        };
        if !conn.partial.is_empty() {
            let rest = std::mem::take(&mut conn.partial);
            let complete = clean && serde_json::from_slice::<serde::de::IgnoredAny>(&rest).is_ok();
            if complete {
                let info = scan::inspect_line(&rest);
                self.note_line(&mut conn, &info);
            } else if !conn.stopped && clean {
                conn.failed = Some(format!("body cut mid-document ({} bytes)", rest.len()));
            }
            self.log(|| format!("<- #{id} {} bytes of a last line", rest.len()));
            self.conns.insert(id, conn);
            if !self.feed_body(id, &rest)? {
                return Ok(());
            }
            let Some(c) = self.conns.remove(&id) else {
                return Ok(());
            };
            conn = c;
        }
        self.log(|| format!("<- #{id} {}", if clean { "end" } else { "abort" }));
        self.finalize(&conn, if clean { How::End } else { How::Abort });
        if clean {
            self.engine.handle_end(RequestId(id), self.at());
        } else {
            self.engine.handle_error(
                RequestId(id),
                TransportError::Reset("unexpected EOF".into()),
                self.at(),
            );
        }
        self.drain()?;
        self.check_relists()
    }

    fn set_failure(&mut self, floor: u64, why: String) {
        self.stats.failures_served += 1;
        self.pending_failure = Some((self.now, floor, why));
        self.relisted = false;
    }

    /// A span the engine spent waiting on what the faults or the server's pace imposed.
    fn excuse(&mut self, from: u64, to: u64) {
        if to > from && self.excused.last() != Some(&(from, to)) {
            self.excused.push((from, to));
        }
    }

    /// Classifies how a request finished, for the checks of what the engine does next.
    /// Called before the engine hears of the end (its reaction comes in that feed).
    fn finalize(&mut self, conn: &Conn, how: How) {
        let now = self.now;
        let quick = now.saturating_sub(conn.sent_at) < QUICK_MS;
        if matches!(conn.kind, RequestKind::List { .. }) {
            // A LIST goes at the server's pace (pages, latency): its time is excused.
            self.excuse(conn.sent_at, now);
        }
        if matches!(conn.phase, ConnPhase::Silent { .. }) && how == How::Cancelled {
            self.stats.silences_noticed += 1;
        }
        if let ConnPhase::Reply {
            resp,
            cut,
            too_large,
            ..
        } = &conn.phase
        {
            let status = resp.status;
            let ra_ms = resp
                .header("Retry-After")
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(0)
                * 1000;
            if how != How::End {
                // The connection broke (or the engine gave up on the body).
                if quick {
                    let floor = if how == How::Lost {
                        BACKOFF_FLOOR_MS
                    } else {
                        BACKOFF_FLOOR_MS.max(ra_ms)
                    };
                    self.excuse(conn.sent_at, now);
                    self.set_failure(floor, format!("{status} response broke ({how:?})"));
                } else {
                    self.at_once = Some((
                        now,
                        format!(
                            "a {status} response broke ({how:?}) after {} ms",
                            now - conn.sent_at
                        ),
                    ));
                }
                return;
            }
            if status == 410 {
                self.expired_served += 1;
                self.stats.expired_served += 1;
                return;
            }
            // 422: the WatchList gate is off; 406: 1.32-1.33 refuse a Table streaming list.
            if matches!(status, 406 | 422) && conn.kind == RequestKind::StreamingList {
                self.fallback_ok = true;
            }
            if *too_large {
                self.too_large_served += 1;
            }
            if status == 200 && cut.is_none() {
                if matches!(conn.kind, RequestKind::List { .. }) {
                    let (rv, more) = scan::list_meta(&resp.body);
                    if !more {
                        self.last_seen = rv;
                    }
                }
                return;
            }
            if status == 200 && !quick {
                // A body cut short is unreadable, not the server's error: an attempt
                // that lived past 1 s (a trickled answer) is resumed at once.
                self.at_once = Some((
                    now,
                    format!("a 200 cut at {cut:?} after {} ms", now - conn.sent_at),
                ));
                return;
            }
            self.excuse(conn.sent_at, now);
            self.set_failure(
                BACKOFF_FLOOR_MS.max(ra_ms),
                format!("answered {status} (cut {cut:?})"),
            );
            return;
        }
        if matches!(conn.kind, RequestKind::List { .. }) {
            // A LIST that stalled or never got its head: given up after its deadline.
            self.at_once = Some((now, format!("a silent LIST was given up ({how:?})")));
            return;
        }
        let stream = conn.kind == RequestKind::Watch || conn.past_initial;
        if conn.kind == RequestKind::StreamingList && !conn.past_initial && !conn.expired {
            self.interrupted += 1;
            let no_end_bookmark = conn
                .first_live_at
                .is_some_and(|t| now.saturating_sub(t) >= END_BOOKMARK_MS);
            if how == How::Cancelled
                && (now.saturating_sub(conn.last_byte) >= STALL_MS || no_end_bookmark)
            {
                // Its initial events stalled, or live events came and no end bookmark
                // followed in time (a server ignoring sendInitialEvents): the engine
                // lists this sync instead.
                self.fallback_ok = true;
            }
        }
        if conn.expired {
            return;
        }
        let failure = if let Some(f) = &conn.failed {
            Some(f.clone())
        } else {
            match how {
                How::Abort | How::Lost => Some("connection reset".to_string()),
                How::Cancelled => Some("cancelled by the engine".to_string()),
                How::End => {
                    (!conn.progressed && quick).then(|| "watch ended at once, empty".to_string())
                }
            }
        };
        if conn.too_large {
            // An in-stream 504: the server's error, retried after a backoff.
            self.excuse(conn.sent_at, now);
            self.set_failure(BACKOFF_FLOOR_MS, failure.unwrap_or_default());
            return;
        }
        match &failure {
            Some(f) if !conn.progressed && quick => {
                self.excuse(conn.sent_at, now);
                self.set_failure(BACKOFF_FLOOR_MS, f.clone());
            }
            _ => {
                let why = failure.clone().unwrap_or_else(|| "a clean end".into());
                let what = if conn.progressed {
                    "made progress"
                } else {
                    "lived past 1 s"
                };
                self.at_once = Some((now, format!("{why}, after the attempt {what}")));
            }
        }
        if stream {
            self.watch_must_follow = Some(failure.unwrap_or_else(|| "clean end".into()));
            self.relisted = false;
        }
    }

    // ----- the engine's outputs, and the checks -----

    fn drain(&mut self) -> Result<(), Violation> {
        self.drains += 1;
        while let Some(id) = self.engine.poll_cancel() {
            if self.ahead == Some(id.0) {
                // Dropped with the current page (or the list): never the engine's to
                // classify.
                self.ahead = None;
                self.ahead_ended = None;
                if let Some(c) = self.conns.remove(&id.0) {
                    if let ConnPhase::Head { wid, .. } | ConnPhase::Watch { wid, .. } = c.phase {
                        self.cluster.close_watch(wid);
                    }
                }
                self.log(|| format!("cancel #{} (the page ahead)", id.0));
                continue;
            }
            if let Some(c) = self.conns.remove(&id.0) {
                if matches!(c.kind, RequestKind::List { .. }) {
                    self.list_failed = true;
                }
                if let ConnPhase::Head { wid, .. } | ConnPhase::Watch { wid, .. } = c.phase {
                    self.cluster.close_watch(wid);
                }
                self.log(|| format!("cancel #{}", id.0));
                self.finalize(&c, How::Cancelled);
            }
        }
        if std::mem::take(&mut self.list_failed) {
            if let Some(a) = self.ahead {
                return fail(
                    self.now,
                    format!("the current LIST page failed and page ahead #{a} was not cancelled"),
                );
            }
        }
        if std::mem::take(&mut self.list_ended) {
            if let Some(a) = self.ahead.take() {
                self.take_turn(a);
            }
        }
        while let Some(ev) = self.engine.poll_event() {
            self.stats.events += 1;
            self.check_event(ev)?;
        }
        while let Some(req) = self.engine.poll_request() {
            let ahead = self.is_ahead(&req);
            if ahead {
                self.check_ahead(&req)?;
            } else {
                self.check_request(&req)?;
            }
            self.send(req, ahead)?;
        }
        self.check_store()
    }

    /// A LIST request for the page after the one the engine is listing: asked for
    /// ahead, while that page streams.
    fn is_ahead(&self, req: &Request) -> bool {
        match (req.kind, self.engine.status().phase) {
            (RequestKind::List { page }, Phase::Listing { page: current }) => page == current + 1,
            _ => false,
        }
    }

    /// The rule for a second request in flight: only the next LIST page, one at most,
    /// only with a continue token, only when pipelining is on.
    fn check_ahead(&mut self, req: &Request) -> Result<(), Violation> {
        let now = self.now;
        if !self.scn.pipeline_pages {
            return fail(now, format!("a page ahead with pipelining off: {req}"));
        }
        if let Some(a) = self.ahead {
            return fail(now, format!("a second page ahead while #{a} is: {req}"));
        }
        if scan::query_param(&req.path, "continue").is_none() {
            return fail(now, format!("a page ahead without a continue token: {req}"));
        }
        self.ahead = Some(req.id.0);
        self.stats.pages_ahead += 1;
        self.log(|| format!("   #{} is the page ahead", req.id.0));
        Ok(())
    }

    /// The page ahead's turn: from now on the engine treats it as sent now. If it
    /// already ended, what that means is classified now; if it is silent, its deadline
    /// runs from now.
    fn take_turn(&mut self, id: u64) {
        let now = self.now;
        self.log(|| format!("   #{id} takes its turn"));
        if let Some((mut conn, how)) = self.ahead_ended.take() {
            self.stats.pages_ahead_early += 1;
            conn.sent_at = now;
            self.finalize(&conn, how);
            return;
        }
        if let Some(c) = self.conns.get_mut(&id) {
            c.sent_at = now;
            if let ConnPhase::Silent { bound } = &mut c.phase {
                c.last_byte = now;
                *bound = now
                    + if c.head_at.is_some() {
                        STALL_MS
                    } else {
                        LIST_HEAD_MS
                    };
            }
        }
    }

    fn check_request(&mut self, req: &Request) -> Result<(), Violation> {
        let now = self.now;
        if let Some((t, floor, why)) = self.pending_failure.take() {
            if !self.relisted && now - t < floor {
                return fail(
                    now,
                    format!(
                        "retried {} ms after a failure ({why}); the floor is {floor} ms: {req}",
                        now - t
                    ),
                );
            }
        }
        if let Some((t, why)) = self.at_once.take() {
            if now != t && !self.relisted {
                return fail(
                    now,
                    format!(
                        "after {why}, the engine waited {} ms instead of resuming at once: {req}",
                        now - t
                    ),
                );
            }
        }
        if let Some(until) = self.backoff_until.take() {
            if now < until {
                return fail(
                    now,
                    format!("request before the backoff ended ({until}): {req}"),
                );
            }
        }
        if let Some(why) = self.watch_must_follow.take() {
            if req.kind != RequestKind::Watch && !self.relisted {
                return fail(
                    now,
                    format!("after a watch ended ({why}) the engine did not resume: {req}"),
                );
            }
        }
        self.relisted = false;
        match req.kind {
            RequestKind::Watch => {
                let rv = scan::query_param(&req.path, "resourceVersion").unwrap_or("");
                let Ok(rv) = rv.parse::<u64>() else {
                    return fail(now, format!("a watch without an exact version: {req}"));
                };
                if Some(rv) != self.last_seen {
                    return fail(
                        now,
                        format!(
                            "resumes from {rv}, but the last version it was shown is {:?}: {req}",
                            self.last_seen
                        ),
                    );
                }
            }
            RequestKind::StreamingList | RequestKind::List { .. } => {}
        }
        Ok(())
    }

    fn check_event(&mut self, ev: Event) -> Result<(), Violation> {
        let now = self.now;
        let fmt_obj = |o: &kubelive_core::Object| {
            format!(
                "{}/{} uid={} rv={}",
                o.namespace(),
                o.name(),
                o.uid(),
                o.resource_version()
            )
        };
        match &ev {
            Event::Added(o) => self.log(|| format!("   Added {}", fmt_obj(o))),
            Event::Modified { new, .. } => self.log(|| format!("   Modified {}", fmt_obj(new))),
            Event::Deleted(o) => self.log(|| format!("   Deleted {}", fmt_obj(o))),
            Event::PageListed { .. } => {}
            other => {
                let s = format!("   {other:?}");
                self.log(|| s);
            }
        }
        let bad = |what: String| fail(now, what);
        match ev {
            Event::Added(o) => {
                let key = (o.namespace().to_string(), o.name().to_string());
                if self.consumer.contains_key(&key) {
                    return bad(format!(
                        "Added {} but the consumer holds it (no Deleted between)",
                        fmt_obj(&o)
                    ));
                }
                let rv = rv_num(o.resource_version()).map_err(|e| violation(now, e))?;
                self.version_forward(o.uid(), rv, &fmt_obj(&o))?;
                self.consumer.insert(key, (o.uid().to_string(), rv));
            }
            Event::Modified { old, new } => {
                let key = (new.namespace().to_string(), new.name().to_string());
                let Some((uid, rv)) = self.consumer.get(&key).cloned() else {
                    return bad(format!("Modified {} never Added", fmt_obj(&new)));
                };
                if uid != old.uid() || rv.to_string() != old.resource_version() {
                    return bad(format!(
                        "Modified: old {} but the consumer holds uid={uid} rv={rv}",
                        fmt_obj(&old)
                    ));
                }
                if new.uid() != old.uid() {
                    return bad(format!("Modified changes the uid: {}", fmt_obj(&new)));
                }
                let nrv = rv_num(new.resource_version()).map_err(|e| violation(now, e))?;
                if nrv <= rv {
                    return bad(format!(
                        "version went backwards: {} after rv={rv}",
                        fmt_obj(&new)
                    ));
                }
                self.version_forward(new.uid(), nrv, &fmt_obj(&new))?;
                self.consumer.insert(key, (uid, nrv));
            }
            Event::Deleted(o) => {
                let key = (o.namespace().to_string(), o.name().to_string());
                let Some((uid, rv)) = self.consumer.remove(&key) else {
                    return bad(format!(
                        "Deleted {} that the consumer never had",
                        fmt_obj(&o)
                    ));
                };
                if uid != o.uid() {
                    return bad(format!(
                        "Deleted {} but the consumer held uid={uid}",
                        fmt_obj(&o)
                    ));
                }
                let drv = rv_num(o.resource_version()).map_err(|e| violation(now, e))?;
                if drv < rv {
                    return bad(format!(
                        "Deleted with an older version than held: {} < {rv}",
                        fmt_obj(&o)
                    ));
                }
                self.version_forward(o.uid(), drv, &fmt_obj(&o))?;
            }
            Event::Synced {
                objects,
                resource_version,
            } => {
                // The store may already show events after this one (the rest of its
                // chunk): the consumer's replay is the store as of this event.
                if objects != self.consumer.len() {
                    return bad(format!(
                        "Synced says {objects} objects, the events replay to {}",
                        self.consumer.len()
                    ));
                }
                let rv = rv_num(resource_version.as_str()).map_err(|e| violation(now, e))?;
                let i = self.snapshots.partition_point(|(r, _)| *r <= rv);
                let Some((at, snapshot)) = i.checked_sub(1).and_then(|i| self.snapshots.get(i))
                else {
                    return bad(format!("Synced at {rv}, before any state"));
                };
                // A version inside one workload step (a recreate is a delete and a
                // create) has no snapshot of its own: ask the server's history.
                let exact;
                let truth: &Vec<Entry> = if *at == rv {
                    snapshot
                } else {
                    match self.cluster.truth_at(
                        &self.scn.collection_path(),
                        self.scn.label_selector.as_deref().unwrap_or(""),
                        self.scn.field_selector.as_deref().unwrap_or(""),
                        rv,
                    ) {
                        Ok(t) => {
                            exact = t;
                            &exact
                        }
                        Err(_) => snapshot,
                    }
                };
                let shown = self.consumer_entries();
                if shown != *truth {
                    return bad(format!(
                        "Synced at {rv} but the store differs from the server's state then: {}",
                        diff(&shown, truth)
                    ));
                }
                // The store equals the replay once the drain is over.
                self.synced_in_drain = true;
                // From now on the store may hold what the server had at `rv` or since.
                let mut seen = std::collections::HashSet::new();
                for (_, t) in &self.snapshots[i - 1..] {
                    for (a, b, _, _) in t.iter() {
                        if !seen.contains(&(a.as_str(), b.as_str())) {
                            seen.insert((a.as_str(), b.as_str()));
                        }
                    }
                }
                self.seen_since_sync = seen
                    .into_iter()
                    .map(|(a, b)| (a.to_string(), b.to_string()))
                    .collect();
            }
            Event::Relisting { reason } => {
                self.stats.relists += 1;
                self.relisted = true;
                let k = reason_key(&reason);
                *self.relists.entry(k).or_default() += 1;
                let n = self.relists[k];
                match k {
                    "expired" | "continue-expired" | "expired-fallback" => {
                        let total = self.relists_for_410();
                        if total > self.expired_served {
                            return bad(format!(
                                "relist #{total} for a 410, but only {} were served",
                                self.expired_served
                            ));
                        }
                    }
                    "too-large" if n > self.too_large_served => {
                        return bad(format!(
                            "relist for 'too large' #{n}, but {} were served",
                            self.too_large_served
                        ));
                    }
                    // Each fallback needs its own reason (used up here): a 422, initial
                    // events that stalled for 30 s, or live events before the end bookmark.
                    "fallback" if !std::mem::take(&mut self.fallback_ok) => {
                        return bad(format!("unjustified streaming-list fallback: {reason}"));
                    }
                    "columns-changed" | "tables-unavailable" => {
                        return bad(format!("unjustified relist: {reason}"));
                    }
                    "interrupted" if n > self.interrupted => {
                        return bad(format!(
                            "relist #{n} for an interrupted streaming list, but {} ended early",
                            self.interrupted
                        ));
                    }
                    _ => {}
                }
            }
            Event::BackingOff { until, reason } => {
                let until = until.as_millis();
                if until < now + BACKOFF_FLOOR_MS {
                    return bad(format!(
                        "backs off {} ms (< {BACKOFF_FLOOR_MS}) after: {reason}",
                        until - now
                    ));
                }
                self.excuse(now, until);
                self.backoff_until = Some(until);
            }
            Event::Failed { error } => {
                return bad(format!(
                    "Failed (no scenario should need a user): {error:?}"
                ));
            }
            // The sim's printers never change, and it prints every table asked for.
            Event::Columns { columns } => {
                if self.columns.as_ref().is_some_and(|c| *c != columns) {
                    return bad(format!("the columns changed: {columns:?}"));
                }
                self.columns = Some(columns);
            }
            Event::TablesUnavailable { why } => {
                return bad(format!("tables unavailable from the sim: {why}"));
            }
            Event::PageListed { .. } | Event::Resumed { .. } => {}
            Event::Restored {
                objects,
                resource_version,
            } => {
                let rv = rv_num(resource_version.as_str()).map_err(|e| violation(now, e))?;
                if Some(rv) != self.last_seen || objects != self.consumer.len() {
                    return bad(format!(
                        "Restored {objects} at {rv}, but {} were told and the last version shown is {:?}",
                        self.consumer.len(),
                        self.last_seen
                    ));
                }
            }
        }
        Ok(())
    }

    fn version_forward(&mut self, uid: &str, rv: u64, what: &str) -> Result<(), Violation> {
        let e = self.uid_rv.entry(uid.to_string()).or_insert(0);
        if rv < *e {
            return fail(
                self.now,
                format!("version went backwards: {what}, already saw {}", *e),
            );
        }
        *e = rv;
        Ok(())
    }

    fn check_store(&mut self) -> Result<(), Violation> {
        self.settle_staleness()?;
        let store = self.engine.store();
        if store.len() != self.consumer.len() {
            return fail(
                self.now,
                format!(
                    "the store holds {} objects, the events replay to {}",
                    store.len(),
                    self.consumer.len()
                ),
            );
        }
        // Memory: during a relist the store keeps old objects until its sweep, but never
        // holds an object the server did not have since the last sync.
        if store.len() > self.seen_since_sync.len() {
            return fail(
                self.now,
                format!(
                    "the store holds {} objects, the server had only {} since the last sync",
                    store.len(),
                    self.seen_since_sync.len()
                ),
            );
        }
        if self.drains.is_multiple_of(32) {
            for o in store.iter() {
                if !self
                    .seen_since_sync
                    .contains(&(o.namespace().to_string(), o.name().to_string()))
                {
                    return fail(
                        self.now,
                        format!(
                            "the store holds {}/{}, which the server did not have since the last sync",
                            o.namespace(),
                            o.name()
                        ),
                    );
                }
            }
        }
        if self.drains.is_multiple_of(32) || std::mem::take(&mut self.synced_in_drain) {
            self.compare_consumer()?;
        }
        Ok(())
    }

    fn relists_for_410(&self) -> u64 {
        ["expired", "continue-expired", "expired-fallback"]
            .iter()
            .map(|k| self.relists.get(k).copied().unwrap_or(0))
            .sum()
    }

    /// Every 410 delivered in full made exactly one relist. Called when no body is
    /// half-fed (the harness notes a line before its last byte reaches the engine).
    fn check_relists(&self) -> Result<(), Violation> {
        let relist_410 = self.relists_for_410();
        if relist_410 != self.expired_served {
            return fail(
                self.now,
                format!(
                    "{} 410s were served but the engine relisted {relist_410} times for them",
                    self.expired_served
                ),
            );
        }
        Ok(())
    }

    fn compare_consumer(&self) -> Result<(), Violation> {
        for o in self.engine.store().iter() {
            let key = (o.namespace().to_string(), o.name().to_string());
            match self.consumer.get(&key) {
                Some((uid, rv)) if uid == o.uid() && rv.to_string() == o.resource_version() => {}
                other => {
                    return fail(
                        self.now,
                        format!(
                            "store has {}/{} uid={} rv={} but the events replay to {other:?}",
                            o.namespace(),
                            o.name(),
                            o.uid(),
                            o.resource_version()
                        ),
                    )
                }
            }
        }
        Ok(())
    }

    fn final_check(&mut self) -> Result<(), Violation> {
        let st = self.engine.status();
        if self.scn.tables.is_some() {
            // The sim prints every table asked for: rows only, with their columns.
            let objects = self.engine.store().iter().filter(|o| !o.is_row()).count();
            if !st.tables || objects > 0 || self.engine.columns().is_none() {
                return fail(
                    self.now,
                    format!(
                        "table mode: tables {} with {objects} objects that are not rows, columns {:?}",
                        st.tables,
                        self.engine.columns().map(|c| c.len())
                    ),
                );
            }
        }
        if st.phase != Phase::Watching || !st.synced {
            return fail(
                self.now,
                format!(
                    "not converged after {} ms without faults: phase {:?}, synced {}, last error {:?}",
                    self.quiet_ms, st.phase, st.synced, st.last_error
                ),
            );
        }
        let store = self.store_entries();
        let truth = self.truth();
        if store != truth {
            return fail(
                self.now,
                format!(
                    "at quiescence the store differs from the server: {}",
                    diff(&store, &truth)
                ),
            );
        }
        self.compare_consumer()?;
        self.settle_staleness()?;
        if let Some(at) = self.fresh.oldest() {
            return fail(
                self.now,
                format!(
                    "the change made at {at} ms was never shown, yet the store equals the server"
                ),
            );
        }
        let too_large = self.relists.get("too-large").copied().unwrap_or(0);
        if too_large > self.too_large_served {
            return fail(self.now, "too many too-large relists".into());
        }
        Ok(())
    }
}

/// The first differences between two sorted object lists.
fn diff(store: &[Entry], truth: &[Entry]) -> String {
    let s: BTreeMap<(&str, &str), (&str, &str)> = store
        .iter()
        .map(|(a, b, c, d)| ((a.as_str(), b.as_str()), (c.as_str(), d.as_str())))
        .collect();
    let t: BTreeMap<(&str, &str), (&str, &str)> = truth
        .iter()
        .map(|(a, b, c, d)| ((a.as_str(), b.as_str()), (c.as_str(), d.as_str())))
        .collect();
    let mut out = String::new();
    let mut n = 0;
    for (k, v) in &s {
        match t.get(k) {
            None => {
                let _ = write!(out, "extra {}/{} {:?}; ", k.0, k.1, v);
                n += 1;
            }
            Some(tv) if tv != v => {
                let _ = write!(out, "{}/{} store {:?} server {:?}; ", k.0, k.1, v, tv);
                n += 1;
            }
            _ => {}
        }
        if n > 5 {
            break;
        }
    }
    for (k, v) in &t {
        if n > 5 {
            break;
        }
        if !s.contains_key(k) {
            let _ = write!(out, "missing {}/{} {:?}; ", k.0, k.1, v);
            n += 1;
        }
    }
    format!("{out}({} in store, {} on server)", store.len(), truth.len())
}

/// The quiet phase: long enough for backoff, fallbacks and, with silent connections,
/// the longest watch's timeout plus grace (a silent watch before any bookmark).
fn quiet_ms(scn: &Scenario) -> u64 {
    if scn.fault("silent").is_some() || scn.fault("no-head").is_some() {
        QUIET_MS.max(u64::from(scn.watch_timeout_secs.1) * 1_000 + WATCH_GRACE_MS + 60_000)
    } else {
        QUIET_MS
    }
}

/// Runs one scenario.
pub fn run(scn: &Scenario) -> Result<Stats, Violation> {
    Run::new(scn, false).run()
}

/// Runs one scenario with a trace of its last steps (for a failure report).
pub fn run_traced(scn: &Scenario) -> Result<Stats, Violation> {
    Run::new(scn, true).run()
}
