//! What one simulation run does, all derived from one seed: the engine's configuration,
//! the server's, the workload's shape and the faults. A [`Scenario`] is plain data so a
//! failing run can be shrunk (faults removed one by one, a shorter workload) and the
//! smallest failing scenario printed and replayed.

use kubelive_core::{IncludeObject, Mode};
use kubelive_sim::{Release, Rng, StreamingLists};
use std::fmt;

/// One fault, with its parameters. Each is independent: removing one leaves the rest.
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// Sim: each watch ends cleanly at a random byte (probability, within bytes).
    Cut(f64, u64),
    /// Sim: each watch ends abruptly (no terminating chunk) at a random byte.
    Abort(f64, u64),
    /// Harness: every body is re-chunked at random points (watch streams and lists).
    Split,
    /// Sim: bookmarks withheld from a watch with this probability.
    NoBookmarks(f64),
    /// Sim: a lagging replica `versions` behind serves this fraction of requests.
    Lag { versions: u64, chance: f64 },
    /// Sim: 429 / 500 / 503 with `Retry-After: secs`.
    Http {
        p429: f64,
        p500: f64,
        p503: f64,
        retry_after: u64,
    },
    /// Sim: an HTML 502 page from a "proxy".
    Html(f64),
    /// Sim: a watch emits one malformed document and ends.
    Malformed(f64),
    /// Compaction of all history at these simulated times (ms).
    CompactAt(Vec<u64>),
    /// Harness: right after a LIST page with a continue token is delivered, the server
    /// changes something and compacts (the next page's token has expired).
    CompactMidList(f64),
    /// Server restart (watches cut, watch cache re-initialised) at these times.
    RestartAt(Vec<u64>),
    /// Harness: the client is paused (laptop lid closed) from `.0` for `.1` ms; its
    /// connection breaks.
    Pause(Vec<(u64, u64)>),
    /// Harness: a proxy or load balancer ends a watch at a random moment: cleanly or
    /// abruptly (half each).
    ProxyCut(f64),
    /// Harness: a watch gets an in-stream ERROR 410 (etcd compacted under it).
    InStream410(f64),
    /// Harness: a request answers 504 "Too large resource version" after 3 s.
    TooLarge(f64),
    /// Harness: a LIST body ends (cleanly or abruptly) at a random byte.
    ListCut(f64),
    /// Harness: the initial-events-end bookmark of a streaming list is never sent.
    NoEndBookmark(f64),
    /// Server: streaming lists rejected (422) or ignored (pre-1.27: no end bookmark).
    NoStreamingList(StreamingLists),
    /// Harness: a watch (or streaming list) goes silent at a random moment: open, no
    /// byte ever again, never closed (a half-open connection).
    Silent(f64),
    /// Harness: a request whose response head never comes.
    NoHead(f64),
    /// Harness: a LIST body stops after a random number of bytes and stays open.
    ListStall(f64),
    /// Harness: a flaky proxy cuts every watch abruptly 1-1.6 s after it was sent:
    /// mid-document, after an HTML error page, or after a truncated line.
    FlakyProxy,
    /// Harness: a LIST answer arrives in pieces over time (head, then body pieces
    /// up to 2 s apart), so the page asked for ahead answers, fails or stalls while
    /// the current page still streams.
    ListTrickle(f64),
    /// Harness: the page reloads at these times: the view is saved
    /// (`Engine::save_view`), every connection goes, and a new engine starts from the
    /// saved view (`Engine::restore`). Only table views of identity rows are saved:
    /// scenarios with this fault keep `KeptMetadata::Identity`; a reload while the
    /// engine is not at one version (listing) saves nothing and is skipped.
    ReloadAt(Vec<u64>),
}

impl Fault {
    pub fn name(&self) -> &'static str {
        match self {
            Fault::Cut(..) => "cut",
            Fault::Abort(..) => "abort",
            Fault::Split => "split",
            Fault::NoBookmarks(_) => "nobookmarks",
            Fault::Lag { .. } => "lag",
            Fault::Http { .. } => "http",
            Fault::Html(_) => "html",
            Fault::Malformed(_) => "malformed",
            Fault::CompactAt(_) => "compact",
            Fault::CompactMidList(_) => "compact-mid-list",
            Fault::RestartAt(_) => "restart",
            Fault::Pause(_) => "pause",
            Fault::ProxyCut(_) => "proxy-cut",
            Fault::InStream410(_) => "in-stream-410",
            Fault::TooLarge(_) => "too-large",
            Fault::ListCut(_) => "list-cut",
            Fault::NoEndBookmark(_) => "no-end-bookmark",
            Fault::NoStreamingList(_) => "no-streaming-list",
            Fault::Silent(_) => "silent",
            Fault::NoHead(_) => "no-head",
            Fault::ListStall(_) => "list-stall",
            Fault::FlakyProxy => "flaky-proxy",
            Fault::ListTrickle(_) => "list-trickle",
            Fault::ReloadAt(_) => "reload",
        }
    }
}

/// The share of seeds whose engine asks for server-side tables.
pub const TABLE_SHARE: f64 = 0.3;

/// Every fault name, for `--without` and the docs.
pub const FAULT_NAMES: [&str; 24] = [
    "cut",
    "abort",
    "split",
    "nobookmarks",
    "lag",
    "http",
    "html",
    "malformed",
    "compact",
    "compact-mid-list",
    "restart",
    "pause",
    "proxy-cut",
    "in-stream-410",
    "too-large",
    "list-cut",
    "no-end-bookmark",
    "no-streaming-list",
    "silent",
    "no-head",
    "list-stall",
    "flaky-proxy",
    "list-trickle",
    "reload",
];

/// The faults under which staleness is bounded (TESTING.md, invariant 9): connections
/// that break, abruptly or not, or carry garbage, at any rate.
pub const FRESH_FAULTS: [&str; 7] = [
    "cut",
    "abort",
    "split",
    "proxy-cut",
    "html",
    "malformed",
    "flaky-proxy",
];

/// Which objects the workload makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Objects {
    /// Small pods (~300 bytes): fast, the default.
    Small,
    /// The sim's realistic ~4 KB pods of Deployments ([`kubelive_sim::Workload`]).
    Realistic,
}

/// Everything one run does.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub seed: u64,
    // The engine.
    pub mode: Mode,
    /// `None`: all namespaces; `Some(ns)`: one namespace.
    pub namespace: Option<String>,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    pub page_size: u32,
    /// `Config::max_page_size`: pages kept at `page_size` (0), or growing.
    pub max_page_size: u32,
    pub initial_list_any_version: bool,
    pub watch_timeout_secs: (u32, u32),
    /// Server-side tables (`Config::tables`) with rows carrying this, or objects.
    pub tables: Option<IncludeObject>,
    /// `Config::pipeline_pages`: the next LIST page asked for while one streams.
    pub pipeline_pages: bool,
    /// The Kubernetes release the sim answers as (streaming lists refused on 1.27-1.31
    /// and 1.33, the end bookmark at the next bookmark tick before 1.32, Table streaming
    /// lists refused on 1.32-1.33).
    pub release: Release,
    // The server.
    pub compact_every_ms: u64,
    pub watch_cache_window_ms: u64,
    pub bookmark_every_ms: u64,
    // The workload.
    pub objects: Objects,
    pub namespaces: usize,
    pub initial_pods: usize,
    /// Simulated time the workload (and faults) run; then quiescence.
    pub workload_ms: u64,
    /// Mean gap between changes (ms), outside bursts and idle periods.
    pub mean_gap_ms: u64,
    pub burst_chance: f64,
    pub idle_chance: f64,
    /// Network latency range (ms) for a response head.
    pub latency_ms: (u64, u64),
    pub faults: Vec<Fault>,
    /// Also hit the engine bugs already reported (TESTING.md, "Known bugs"); off, the
    /// generator and harness steer clear of them so a sweep finds new ones.
    pub known_bugs: bool,
}

/// `KUBELIVE_DST_KNOWN_BUGS=1`: generate scenarios that hit reported engine bugs too.
pub fn include_known_bugs() -> bool {
    std::env::var("KUBELIVE_DST_KNOWN_BUGS").is_ok_and(|v| v == "1")
}

fn prob(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * (rng.below(1001) as f64 / 1000.0)
}

fn times(rng: &mut Rng, n: u64, within_ms: u64) -> Vec<u64> {
    let mut t: Vec<u64> = (0..n).map(|_| rng.range(1_000, within_ms)).collect();
    t.sort_unstable();
    t
}

impl Scenario {
    /// The scenario of `seed`, steering clear of known bugs unless
    /// `KUBELIVE_DST_KNOWN_BUGS=1`.
    pub fn from_seed(seed: u64) -> Scenario {
        let mut scn = Scenario::raw(seed);
        if !include_known_bugs() {
            scn.avoid_known_bugs();
        }
        scn
    }

    /// The scenario of `seed` as drawn, known bugs included.
    pub fn raw(seed: u64) -> Scenario {
        let mut rng = Rng::new(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0xD57);
        let mode = if rng.chance(0.5) {
            Mode::StreamingList
        } else {
            Mode::ListWatch
        };
        let namespaces = rng.range(2, 4) as usize;
        let namespace = rng.chance(0.25).then(|| "ns-0".to_string());
        let label_selector = match rng.below(6) {
            0 => Some("tier=backend".to_string()),
            1 => Some("app in (a0,a2)".to_string()),
            2 => Some("track!=canary".to_string()),
            _ => None,
        };
        let field_selector = rng.chance(0.2).then(|| "status.phase=Running".to_string());
        let page_size = *rng.pick(&[0u32, 1, 2, 3, 5, 7, 500]);
        let initial_list_any_version = rng.chance(0.1);
        let watch_timeout_secs = *rng.pick(&[(300, 600), (60, 120), (20, 40), (5, 15)]);
        let compact_every_ms = *rng.pick(&[0, 60_000, 300_000]);
        let watch_cache_window_ms = *rng.pick(&[0, 20_000, 75_000]);
        let bookmark_every_ms = *rng.pick(&[10_000, 60_000]);
        let objects = if rng.chance(0.05) {
            Objects::Realistic
        } else {
            Objects::Small
        };
        let initial_pods = rng.range(3, 30) as usize;
        let workload_ms = rng.range(3, 25) * 60_000;
        let mean_gap_ms = *rng.pick(&[500, 2_000, 5_000, 15_000]);
        let burst_chance = prob(&mut rng, 0.0, 0.08);
        let idle_chance = prob(&mut rng, 0.0, 0.05);
        let latency_ms = *rng.pick(&[(0, 5), (1, 50), (20, 400)]);

        // Faults: each present with some chance; a few seeds get none at all.
        let mut faults = Vec::new();
        let intensity = if rng.chance(0.1) { 0.0 } else { 1.0 };
        let w = workload_ms;
        let mut maybe = |rng: &mut Rng, p: f64, f: &dyn Fn(&mut Rng) -> Fault| {
            if rng.chance(p * intensity) {
                faults.push(f(rng));
            }
        };
        maybe(&mut rng, 0.35, &|r| {
            Fault::Cut(prob(r, 0.05, 0.5), *r.pick(&[200, 4_096, 65_536]))
        });
        maybe(&mut rng, 0.35, &|r| {
            Fault::Abort(prob(r, 0.05, 0.5), *r.pick(&[200, 4_096, 65_536]))
        });
        maybe(&mut rng, 0.5, &|_| Fault::Split);
        maybe(&mut rng, 0.35, &|r| Fault::NoBookmarks(prob(r, 0.3, 1.0)));
        maybe(&mut rng, 0.2, &|r| Fault::Lag {
            versions: r.range(1, 20),
            chance: prob(r, 0.2, 1.0),
        });
        maybe(&mut rng, 0.25, &|r| Fault::Http {
            p429: prob(r, 0.0, 0.1),
            p500: prob(r, 0.0, 0.05),
            p503: prob(r, 0.0, 0.05),
            retry_after: r.range(0, 5),
        });
        maybe(&mut rng, 0.15, &|r| Fault::Html(prob(r, 0.02, 0.1)));
        maybe(&mut rng, 0.2, &|r| Fault::Malformed(prob(r, 0.05, 0.3)));
        maybe(&mut rng, 0.35, &|r| {
            let n = r.range(1, 4);
            Fault::CompactAt(times(r, n, w))
        });
        maybe(&mut rng, 0.2, &|r| Fault::CompactMidList(prob(r, 0.2, 1.0)));
        maybe(&mut rng, 0.15, &|r| {
            let n = r.range(1, 2);
            Fault::RestartAt(times(r, n, w))
        });
        maybe(&mut rng, 0.15, &|r| {
            let n = r.range(1, 2);
            let starts = times(r, n, w);
            Fault::Pause(
                starts
                    .into_iter()
                    .map(|s| (s, r.range(30_000, 600_000)))
                    .collect(),
            )
        });
        maybe(&mut rng, 0.3, &|r| Fault::ProxyCut(prob(r, 0.05, 0.5)));
        maybe(&mut rng, 0.2, &|r| Fault::InStream410(prob(r, 0.05, 0.3)));
        maybe(&mut rng, 0.1, &|r| Fault::TooLarge(prob(r, 0.02, 0.2)));
        maybe(&mut rng, 0.2, &|r| Fault::ListCut(prob(r, 0.05, 0.3)));
        if mode == Mode::StreamingList {
            maybe(&mut rng, 0.15, &|r| Fault::NoEndBookmark(prob(r, 0.2, 1.0)));
            maybe(&mut rng, 0.2, &|r| {
                Fault::NoStreamingList(if r.chance(0.5) {
                    StreamingLists::Rejected
                } else {
                    StreamingLists::Ignored
                })
            });
        }
        // Drawn last, so the faults above stay what they were for every seed.
        maybe(&mut rng, 0.15, &|r| Fault::Silent(prob(r, 0.02, 0.2)));
        maybe(&mut rng, 0.1, &|r| Fault::NoHead(prob(r, 0.01, 0.1)));
        maybe(&mut rng, 0.1, &|r| Fault::ListStall(prob(r, 0.05, 0.3)));
        maybe(&mut rng, 0.15, &|_| Fault::FlakyProxy);
        // Drawn after everything else, so the rest of each seed stays what it was.
        let tables = rng.chance(TABLE_SHARE).then(|| {
            if rng.chance(0.25) {
                IncludeObject::Object
            } else {
                IncludeObject::Metadata
            }
        });
        // Drawn after the tables, so every earlier draw of a seed stays what it was.
        if rng.chance(0.3 * intensity) {
            faults.push(Fault::ListTrickle(prob(&mut rng, 0.2, 1.0)));
        }
        let pipeline_pages = rng.chance(0.85);
        // Drawn last, so every earlier draw of a seed stays what it was.
        let releases: Vec<Release> = Release::all().collect();
        let release = releases[rng.below(releases.len() as u64) as usize];
        // Drawn after the release, so every earlier draw of a seed stays what it was.
        // Only table views of metadata are saved.
        if tables == Some(IncludeObject::Metadata) && rng.chance(0.5 * intensity) {
            let n = rng.range(1, 3);
            faults.push(Fault::ReloadAt(times(&mut rng, n, w)));
        }
        Scenario {
            seed,
            mode,
            namespace,
            label_selector,
            field_selector,
            page_size,
            // From the seed, not the generator: the seeds' other draws stay as they were.
            max_page_size: [0, page_size.saturating_mul(4), 4000][(seed % 3) as usize],
            initial_list_any_version,
            watch_timeout_secs,
            tables,
            pipeline_pages,
            release,
            compact_every_ms,
            watch_cache_window_ms,
            bookmark_every_ms,
            objects,
            namespaces,
            initial_pods,
            workload_ms,
            mean_gap_ms,
            burst_chance,
            idle_chance,
            latency_ms,
            faults,
            known_bugs: true,
        }
    }

    /// Steers clear of engine bugs already reported (see TESTING.md, "Known bugs"), so
    /// the sweep keeps finding new ones. `KUBELIVE_DST_KNOWN_BUGS=1` turns this off.
    pub fn avoid_known_bugs(&mut self) {
        self.known_bugs = false;
        // No open bug: bugs 1-4 of TESTING.md are fixed in the engine. A new one gets
        // a clause here (or a guard in the harness that reads `known_bugs`) changing
        // the scenario so the sweep does not stop on it.
    }

    pub fn fault(&self, name: &str) -> Option<&Fault> {
        self.faults.iter().find(|f| f.name() == name)
    }

    /// The same scenario without the named faults.
    pub fn without(&self, names: &[&str]) -> Scenario {
        let mut s = self.clone();
        s.faults.retain(|f| !names.contains(&f.name()));
        s
    }

    /// Applies `--without a,b` and `--workload-ms N` style overrides (the shrinker's
    /// output), so a shrunk scenario replays exactly.
    pub fn with_overrides(mut self, without: &[String], workload_ms: Option<u64>) -> Scenario {
        let names: Vec<&str> = without.iter().map(String::as_str).collect();
        self = self.without(&names);
        if let Some(ms) = workload_ms {
            self.workload_ms = ms;
        }
        self
    }

    pub fn streaming_lists(&self) -> StreamingLists {
        match self.fault("no-streaming-list") {
            Some(Fault::NoStreamingList(s)) => *s,
            _ => StreamingLists::ByRelease,
        }
    }

    /// Whether every fault of this scenario is one under which staleness is bounded.
    pub fn freshness_bounded(&self) -> bool {
        self.faults.iter().all(|f| FRESH_FAULTS.contains(&f.name()))
    }

    pub fn collection_path(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("/api/v1/namespaces/{ns}/pods"),
            None => "/api/v1/pods".to_string(),
        }
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "seed {} k8s-1.{} {:?}{} {}{}{} page={}{}{} any-version-first={} watch-timeout={:?}s \
             compact-every={}ms cache-window={}ms bookmarks-every={}ms {:?} ns={} pods={} \
             workload={}ms gap={}ms latency={:?}ms faults=[",
            self.seed,
            self.release.minor(),
            self.mode,
            match self.tables {
                Some(include) => format!(" tables({include:?})"),
                None => String::new(),
            },
            self.collection_path(),
            self.label_selector
                .as_deref()
                .map(|s| format!(" labels={s:?}"))
                .unwrap_or_default(),
            self.field_selector
                .as_deref()
                .map(|s| format!(" fields={s:?}"))
                .unwrap_or_default(),
            self.page_size,
            match self.max_page_size {
                0 => String::new(),
                m => format!(" growing-to={m}"),
            },
            if self.pipeline_pages {
                " pipelined"
            } else {
                ""
            },
            self.initial_list_any_version,
            self.watch_timeout_secs,
            self.compact_every_ms,
            self.watch_cache_window_ms,
            self.bookmark_every_ms,
            self.objects,
            self.namespaces,
            self.initial_pods,
            self.workload_ms,
            self.mean_gap_ms,
            self.latency_ms,
        )?;
        for (i, fault) in self.faults.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{fault:?}")?;
        }
        f.write_str("]")
    }
}
