//! End to end: the `kubelive` binary against the simulated apiserver behind the real
//! `kubectl proxy`.
//!
//! The sim runs in this process (kubelive-sim's `Server`), so a test can drive its churn,
//! switch its faults, compact its history and read its truth at quiescence. Each
//! scenario: churn with faults on, churn stops, faults off, a sentinel pod is created;
//! once the CLI has seen the sentinel (it is the last change, and a watch delivers in
//! order) it gets SIGINT, prints its `--output snapshot`, and that must equal the
//! server's truth object by object (namespace, name, uid, resourceVersion).
//!
//! No timing assertions: every wait has a generous bound whose only purpose is to turn
//! a hang into a failure.

use kubelive_sim::server::{Server, ServerConfig};
use kubelive_sim::{
    Action, Cluster, FaultPlan, Release, StreamingLists, Workload, WorkloadConfig, PODS,
};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

type Row = (String, String, String, String);

const KUBECTL: &str = "/usr/bin/kubectl";

fn kubectl() -> &'static str {
    if std::path::Path::new(KUBECTL).exists() {
        KUBECTL
    } else {
        "kubectl"
    }
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

fn temp_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "kubelive-e2e-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Lines a child wrote, shared with a reader thread.
#[derive(Default)]
struct Lines {
    lines: Mutex<(Vec<String>, bool)>,
    cond: Condvar,
}

impl Lines {
    fn spawn_reader(self: &Arc<Self>, r: impl Read + Send + 'static) {
        let me = self.clone();
        thread::spawn(move || {
            for line in BufReader::new(r).lines() {
                let Ok(line) = line else { break };
                me.lines.lock().unwrap().0.push(line);
                me.cond.notify_all();
            }
            me.lines.lock().unwrap().1 = true;
            me.cond.notify_all();
        });
    }

    /// Waits until a line satisfies `f` (true) or the stream ends / time runs out (false).
    fn wait_for(&self, limit: Duration, f: impl Fn(&str) -> bool) -> bool {
        self.wait_until(limit, |lines| lines.iter().any(|l| f(l)))
    }

    /// Waits until all lines so far satisfy `f`.
    fn wait_until(&self, limit: Duration, f: impl Fn(&[String]) -> bool) -> bool {
        let deadline = Instant::now() + limit;
        let mut g = self.lines.lock().unwrap();
        loop {
            if f(&g.0) {
                return true;
            }
            let now = Instant::now();
            if g.1 || now >= deadline {
                return false;
            }
            g = self.cond.wait_timeout(g, deadline - now).unwrap().0;
        }
    }

    fn wait_closed(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        let mut g = self.lines.lock().unwrap();
        while !g.1 && Instant::now() < deadline {
            g = self
                .cond
                .wait_timeout(g, Duration::from_millis(50))
                .unwrap()
                .0;
        }
    }

    fn text(&self) -> String {
        self.lines.lock().unwrap().0.join("\n")
    }
}

/// A child process killed on drop.
struct Proc {
    child: Child,
    stdout: Arc<Lines>,
    stderr: Arc<Lines>,
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Proc {
    fn spawn(mut cmd: Command) -> Proc {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let stdout = Arc::new(Lines::default());
        let stderr = Arc::new(Lines::default());
        stdout.spawn_reader(child.stdout.take().unwrap());
        stderr.spawn_reader(child.stderr.take().unwrap());
        Proc {
            child,
            stdout,
            stderr,
        }
    }

    fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(ok.success());
    }

    /// Waits for exit (bounded); returns the exit code.
    fn wait(&mut self, limit: Duration) -> Option<i32> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                self.stdout.wait_closed(Duration::from_secs(5));
                self.stderr.wait_closed(Duration::from_secs(5));
                return st.code();
            }
            if Instant::now() >= deadline {
                panic!(
                    "process did not exit in {limit:?}\nstderr:\n{}",
                    self.stderr.text()
                );
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
}

/// `kubectl proxy` in front of `upstream_port`, with a kubeconfig in a temp dir.
struct Proxy {
    proc: Proc,
    port: u16,
    dir: PathBuf,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.proc.child.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Proxy {
    fn start(upstream_port: u16, extra: &[&str]) -> Proxy {
        let dir = temp_dir();
        let kc = dir.join("kubeconfig");
        let kc = kc.to_str().unwrap();
        for args in [
            vec![
                "set-cluster".to_string(),
                "sim".into(),
                format!("--server=http://127.0.0.1:{upstream_port}"),
            ],
            vec!["set-context".into(), "sim".into(), "--cluster=sim".into()],
            vec!["use-context".into(), "sim".into()],
        ] {
            let st = Command::new(kubectl())
                .args(["config", "--kubeconfig", kc])
                .args(&args)
                .stdout(Stdio::null())
                .status()
                .expect("kubectl config");
            assert!(st.success());
        }
        let mut cmd = Command::new(kubectl());
        cmd.env("KUBECONFIG", kc)
            .args(["proxy", "--port", "0"])
            .args(extra);
        let proc = Proc::spawn(cmd);
        assert!(
            proc.stdout.wait_for(Duration::from_secs(20), |l| l
                .contains("Starting to serve on")),
            "kubectl proxy did not start: {}",
            proc.stderr.text()
        );
        let text = proc.stdout.text();
        let port = text
            .rsplit(':')
            .next()
            .and_then(|p| p.trim().parse().ok())
            .expect("proxy port");
        Proxy { proc, port, dir }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn kubeconfig(&self) -> PathBuf {
        self.dir.join("kubeconfig")
    }
}

fn sim_config(port: u16, faults: &str) -> ServerConfig {
    ServerConfig {
        port,
        objects: 0,
        // The test drives the churn itself (so it can stop it).
        churn: 0.0,
        seed: 7,
        bookmark_every_s: 1.0,
        faults: FaultPlan::parse(faults).unwrap(),
        ..ServerConfig::default()
    }
}

fn workload(server: &Server, pods: usize, churn: f64) -> Workload {
    let mut w = Workload::new(
        11,
        WorkloadConfig {
            namespaces: 3,
            pods,
            churn_per_sec: churn,
        },
    );
    server.with_cluster(|c, now| w.populate(c, now));
    w
}

/// Churns for `secs`, calling `each` on the cluster every tick.
fn churn(server: &Server, w: &mut Workload, secs: f64, mut each: impl FnMut(&mut Cluster, u32)) {
    let start = Instant::now();
    let mut tick = 0u32;
    while start.elapsed().as_secs_f64() < secs {
        thread::sleep(Duration::from_millis(20));
        tick += 1;
        server.with_cluster(|c, now| {
            w.tick(c, now);
            each(c, tick);
        });
    }
}

fn kubelive(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubelive"));
    cmd.args(args);
    cmd
}

fn parse_snapshot(text: &str) -> Vec<Row> {
    let mut rows: Vec<Row> = text
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            let m = &v["metadata"];
            let s = |k: &str| m[k].as_str().unwrap_or("").to_string();
            (s("namespace"), s("name"), s("uid"), s("resourceVersion"))
        })
        .collect();
    let sorted = {
        let mut s = rows.clone();
        s.sort();
        s
    };
    assert_eq!(rows, sorted, "snapshot must be sorted by namespace, name");
    rows.sort();
    rows
}

fn truth(server: &Server, path: &str) -> Vec<Row> {
    let mut t = server.with_cluster(|c, _| c.truth(path, "", "")).unwrap();
    t.sort();
    t
}

fn diff(a: &[Row], b: &[Row]) -> String {
    let mut out = String::new();
    for r in a.iter().filter(|r| !b.contains(r)) {
        out.push_str(&format!("  only in snapshot: {r:?}\n"));
    }
    for r in b.iter().filter(|r| !a.contains(r)) {
        out.push_str(&format!("  only in truth:    {r:?}\n"));
    }
    out
}

const SENTINEL: &str = "zz-sentinel";

/// Creates the sentinel pod: the last change before the snapshot.
fn sentinel(server: &Server) {
    server.with_cluster(|c, now| {
        // Pods still Terminating would be DELETED after the sentinel: end them first.
        c.finish_graceful_deletions(now);
        c.create(
            PODS,
            json!({"metadata": {"name": SENTINEL, "namespace": "ns-0", "labels": {"app": "sentinel"}},
                   "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "busybox"}]},
                   "status": {"phase": "Running"}}),
            now,
        )
        .unwrap();
    });
}

/// Whether the CLI's stderr (progress lines and, with -v, changes) says its store is a
/// synced copy that holds the sentinel: then it holds every change before it too (a
/// LIST is consistent, a watch is ordered) and there are none after it.
fn holds_sentinel_and_synced(lines: &[String]) -> bool {
    let mut synced = false;
    let mut sentinel = false;
    for l in lines {
        let Some((_, msg)) = l.split_once("] ") else {
            continue;
        };
        if msg.starts_with("synced ") {
            synced = true;
        } else if msg.starts_with("relisting because") || msg.starts_with("listed page") {
            synced = false;
        } else if msg.contains(SENTINEL) {
            if msg.starts_with("ADDED") || msg.starts_with("MODIFIED") {
                sentinel = true;
            } else if msg.starts_with("DELETED") {
                sentinel = false;
            }
        }
    }
    synced && sentinel
}

/// Waits for the CLI to show the sentinel, interrupts it, and checks its snapshot
/// against the server's truth. Returns the CLI's stderr.
fn settle_and_compare(server: &Server, cli: &mut Proc, path: &str) -> String {
    server.with_cluster(|c, _| c.set_faults(FaultPlan::none()));
    sentinel(server);
    let caught_up = cli
        .stderr
        .wait_until(Duration::from_secs(25), holds_sentinel_and_synced);
    assert!(
        caught_up,
        "the CLI never held the sentinel while synced\nstderr:\n{}",
        tail(&cli.stderr.text(), 60)
    );
    interrupt_and_compare(server, cli, path)
}

/// Interrupts the CLI and checks its snapshot against the server's truth. Returns the
/// CLI's stderr.
fn interrupt_and_compare(server: &Server, cli: &mut Proc, path: &str) -> String {
    cli.signal("-INT");
    let code = cli.wait(Duration::from_secs(10));
    let stderr = cli.stderr.text();
    assert_eq!(code, Some(0), "stderr:\n{stderr}");
    let snap = parse_snapshot(&cli.stdout.text());
    let truth = truth(server, path);
    assert!(!truth.is_empty());
    if snap != truth {
        if let Ok(dir) = std::env::var("KUBELIVE_E2E_DUMP") {
            let _ = std::fs::write(format!("{dir}/stderr.txt"), &stderr);
            let _ = std::fs::write(format!("{dir}/stdout.txt"), cli.stdout.text());
        }
    }
    assert!(
        snap == truth,
        "snapshot != truth\n{}\nstderr (tail):\n{}",
        diff(&snap, &truth),
        tail(&stderr, 40)
    );
    stderr
}

fn tail(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

struct Scenario<'a> {
    faults: &'a str,
    cli: &'a [&'a str],
    streaming: StreamingLists,
    pods: usize,
    churn: f64,
    secs: f64,
    /// Compact all history every this many ticks (0: never).
    compact_every_ticks: u32,
    watch_cache_window_s: f64,
}

impl Default for Scenario<'_> {
    fn default() -> Self {
        Scenario {
            faults: "none",
            cli: &[],
            streaming: StreamingLists::Supported,
            pods: 40,
            churn: 25.0,
            secs: 4.0,
            compact_every_ticks: 0,
            watch_cache_window_s: 75.0,
        }
    }
}

/// Runs a scenario against `pods`; returns the CLI's stderr.
fn run(s: Scenario) -> String {
    let mut cfg = sim_config(0, s.faults);
    cfg.streaming_lists = s.streaming;
    cfg.watch_cache_window_s = s.watch_cache_window_s;
    let server = Server::start(cfg).unwrap();
    let mut w = workload(&server, s.pods, s.churn);
    let proxy = Proxy::start(server.addr().port(), &[]);
    let mut args = vec![
        "watch",
        "pods",
        "--server",
        &proxy.url()[..],
        "-o",
        "snapshot",
        "-v",
    ]
    .into_iter()
    .map(String::from)
    .collect::<Vec<_>>();
    args.extend(s.cli.iter().map(|a| a.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut cli = Proc::spawn(kubelive(&args));
    let every = s.compact_every_ticks;
    churn(&server, &mut w, s.secs, |c, tick| {
        if every > 0 && tick % every == 0 {
            c.compact_now();
        }
    });
    settle_and_compare(&server, &mut cli, "/api/v1/pods")
}

#[test]
fn plain_churn_matches_truth_and_kubectl() {
    let server = Server::start(sim_config(0, "none")).unwrap();
    let mut w = workload(&server, 40, 25.0);
    let proxy = Proxy::start(server.addr().port(), &[]);
    let url = proxy.url();
    let mut cli = Proc::spawn(kubelive(&[
        "watch",
        "po",
        "--server",
        &url,
        "-A",
        "-o",
        "snapshot",
        "-v",
        "--page-size",
        "7",
    ]));
    churn(&server, &mut w, 3.0, |_, _| {});
    settle_and_compare(&server, &mut cli, "/api/v1/pods");
    // kubectl, the reference client, agrees with the sim's truth.
    let out = Command::new(kubectl())
        .env("KUBECONFIG", proxy.kubeconfig())
        .args(["get", "pods", "-A", "-o", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut rows: Vec<Row> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let m = &o["metadata"];
            let s = |k: &str| m[k].as_str().unwrap_or("").to_string();
            (s("namespace"), s("name"), s("uid"), s("resourceVersion"))
        })
        .collect();
    rows.sort();
    assert_eq!(rows, truth(&server, "/api/v1/pods"));
}

#[test]
fn abrupt_drops_at_any_byte() {
    let err = run(Scenario {
        faults: "abort=1,cut-within=6000",
        ..Scenario::default()
    });
    assert!(err.contains("resumed watch"), "{}", tail(&err, 30));
}

#[test]
fn tiny_chunks_and_clean_cuts() {
    run(Scenario {
        faults: "split=1,cut=0.4,cut-within=8000",
        ..Scenario::default()
    });
}

#[test]
fn compaction_forces_410_and_relist() {
    let err = run(Scenario {
        faults: "cut=1,cut-within=3000",
        compact_every_ticks: 10,
        watch_cache_window_s: 0.5,
        ..Scenario::default()
    });
    assert!(err.contains("relisting because"), "{}", tail(&err, 30));
}

#[test]
fn no_bookmarks() {
    run(Scenario {
        faults: "nobookmarks,cut=0.3",
        ..Scenario::default()
    });
}

#[test]
fn server_errors_5xx_429_and_html() {
    run(Scenario {
        faults: "500=0.15,503=0.1,429=0.15,html=0.1,cut=0.3,retry-after=1",
        ..Scenario::default()
    });
}

#[test]
fn lagging_replica() {
    run(Scenario {
        faults: "lag=5,lag-chance=0.5,cut=0.3",
        ..Scenario::default()
    });
}

#[test]
fn expiring_continue_tokens_with_small_pages() {
    run(Scenario {
        faults: "cut=1,cut-within=2000,malformed=0.05",
        cli: &["--page-size", "2"],
        pods: 80,
        compact_every_ticks: 3,
        watch_cache_window_s: 0.5,
        ..Scenario::default()
    });
}

#[test]
fn streaming_list_with_drops() {
    run(Scenario {
        faults: "abort=0.4,cut-within=20000",
        cli: &["--streaming-list"],
        ..Scenario::default()
    });
}

#[test]
fn streaming_list_on_a_server_without_it() {
    let err = run(Scenario {
        cli: &["--streaming-list"],
        streaming: StreamingLists::Rejected,
        ..Scenario::default()
    });
    assert!(
        err.contains("streaming list unavailable"),
        "{}",
        tail(&err, 30)
    );
}

/// Requests for pods the sim counted (`apiserver_request_total` at its `/metrics`),
/// summed over response codes: `verb` and, if given, only `code`.
fn pod_requests(server: &Server, verb: &str, code: Option<u16>) -> i64 {
    let base = kubelive::http::BaseUrl::parse(&server.url()).unwrap();
    let pool = kubelive::http::Pool::default();
    let r = kubelive::http::get(&base, &pool, "/metrics", Duration::from_secs(10)).unwrap();
    assert_eq!(r.status, 200);
    let text = String::from_utf8(r.body).unwrap();
    let prefix = format!("apiserver_request_total{{verb=\"{verb}\",resource=\"pods\",code=\"");
    text.lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .filter_map(|l| l.split_once("\"} "))
        .filter(|(c, _)| code.is_none_or(|want| c.parse() == Ok(want)))
        .map(|(_, n)| n.parse::<i64>().unwrap())
        .sum()
}

/// `kubelive watch pods --streaming-list` through kubectl proxy against the sim as
/// kube-apiserver 1.`minor` (WatchList and WatchListCompression at that release's
/// defaults) while its pods churn: it must hold the server's truth. Returns the CLI's
/// stderr and the sim.
fn streaming_sync_as(minor: u8) -> (String, Server) {
    let mut cfg = sim_config(0, "none");
    cfg.release = Release::new(minor).unwrap();
    cfg.streaming_lists = StreamingLists::ByRelease;
    let server = Server::start(cfg).unwrap();
    let mut w = workload(&server, 30, 20.0);
    let proxy = Proxy::start(server.addr().port(), &[]);
    let url = proxy.url();
    let mut cli = Proc::spawn(kubelive(&[
        "watch",
        "pods",
        "--server",
        &url,
        "-o",
        "snapshot",
        "-v",
        "--streaming-list",
    ]));
    churn(&server, &mut w, 2.0, |_, _| {});
    let stderr = settle_and_compare(&server, &mut cli, "/api/v1/pods");
    (stderr, server)
}

/// 1.27 to 1.31 refuse a streaming list (the `WatchList` gate is off by default,
/// kubernetes/website feature-gates/WatchList.md): the CLI falls back to LIST+WATCH.
fn refused_streaming_sync_as(minor: u8) {
    let (stderr, server) = streaming_sync_as(minor);
    assert!(
        pod_requests(&server, "WATCH", Some(422)) >= 1,
        "1.{minor} refuses the streaming list with 422\n{}",
        tail(&stderr, 30)
    );
    assert!(
        pod_requests(&server, "LIST", None) >= 1,
        "1.{minor}: the fallback LISTs\n{}",
        tail(&stderr, 30)
    );
    assert!(
        stderr.contains("streaming list unavailable"),
        "{}",
        tail(&stderr, 30)
    );
}

#[test]
fn streaming_sync_as_1_27_falls_back_to_list_and_watch() {
    refused_streaming_sync_as(27);
}

#[test]
fn streaming_sync_as_1_31_falls_back_to_list_and_watch() {
    refused_streaming_sync_as(31);
}

/// 1.37 gzips a streaming list one gzip member per flush (`WatchListCompression`, beta
/// and on from 1.37; `perFlushGzipWriter` in staging/src/k8s.io/apiserver/pkg/endpoints/
/// handlers/watch.go), and kubectl proxy passes the CLI's `Accept-Encoding: gzip` on:
/// the CLI reads every member and never LISTs.
#[test]
fn streaming_sync_as_1_37_reads_every_gzip_member_and_never_lists() {
    let (stderr, server) = streaming_sync_as(37);
    assert_eq!(
        pod_requests(&server, "LIST", None),
        0,
        "1.37 streams: no LIST\n{}",
        tail(&stderr, 30)
    );
    assert!(
        !stderr.contains("streaming list unavailable") && !stderr.contains("bad gzip body"),
        "{}",
        tail(&stderr, 30)
    );
}

#[test]
fn forbidden_exits_1_with_the_proxy_message() {
    let server = Server::start(sim_config(0, "none")).unwrap();
    let _w = workload(&server, 5, 0.0);
    let proxy = Proxy::start(server.addr().port(), &["--reject-paths=^/api/v1/pods"]);
    let mut cli = Proc::spawn(kubelive(&["watch", "pods", "--server", &proxy.url()]));
    let code = cli.wait(Duration::from_secs(30));
    let err = cli.stderr.text();
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("kubelive: error: HTTP 403: Forbidden"),
        "{err}"
    );
}

#[test]
fn missing_resource_exits_1_with_the_server_message() {
    let server = Server::start(sim_config(0, "none")).unwrap();
    let proxy = Proxy::start(server.addr().port(), &[]);
    let mut cli = Proc::spawn(kubelive(&["watch", "gizmos", "--server", &proxy.url()]));
    assert_eq!(cli.wait(Duration::from_secs(20)), Some(1));
    let err = cli.stderr.text();
    assert!(
        err.contains("the server doesn't have a resource type \"gizmos\""),
        "{err}"
    );
    // A path discovery does not know: the server's own 404 message.
    let mut cli = Proc::spawn(kubelive(&[
        "watch",
        "/apis/nope.example.com/v1/gizmos",
        "--server",
        &proxy.url(),
    ]));
    assert_eq!(cli.wait(Duration::from_secs(20)), Some(1));
    let err = cli.stderr.text();
    assert!(err.contains("kubelive: error: "), "{err}");
    assert!(
        err.contains("the server could not find the requested resource"),
        "{err}"
    );
}

#[test]
fn server_down_at_start_then_up() {
    // A free port for the sim, taken later.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let proxy = Proxy::start(port, &[]);
    let url = proxy.url();
    let mut cli = Proc::spawn(kubelive(&[
        "watch", "pods", "--server", &url, "-o", "snapshot", "-v",
    ]));
    // The CLI sees the proxy's errors and keeps retrying.
    assert!(
        cli.stderr
            .wait_for(Duration::from_secs(20), |l| l.contains("retrying")
                || l.contains("backing off")),
        "{}",
        cli.stderr.text()
    );
    let server = Server::start(sim_config(port, "none")).unwrap();
    let mut w = workload(&server, 20, 20.0);
    churn(&server, &mut w, 2.0, |_, _| {});
    settle_and_compare(&server, &mut cli, "/api/v1/pods");
}

#[test]
fn sigint_mid_list_prints_the_snapshot_so_far() {
    // A streaming list dripped slowly: interrupted while its initial events arrive.
    let server = Server::start(sim_config(0, "drip=200/50")).unwrap();
    let _w = workload(&server, 40, 0.0);
    let proxy = Proxy::start(server.addr().port(), &[]);
    let mut cli = Proc::spawn(kubelive(&[
        "watch",
        "/api/v1/pods",
        "--server",
        &proxy.url(),
        "--streaming-list",
        "-o",
        "snapshot",
        "-v",
    ]));
    assert!(
        cli.stderr
            .wait_for(Duration::from_secs(20), |l| l.contains("ADDED")),
        "{}",
        cli.stderr.text()
    );
    cli.signal("-INT");
    assert_eq!(cli.wait(Duration::from_secs(10)), Some(0));
    let err = cli.stderr.text();
    assert!(
        !err.contains("synced"),
        "the list was not interrupted: {err}"
    );
    let snap = parse_snapshot(&cli.stdout.text());
    assert!(!snap.is_empty());
    let truth = truth(&server, "/api/v1/pods");
    for row in &snap {
        assert!(truth.contains(row), "{row:?} is not in the server's state");
    }
}

#[test]
fn sigterm_and_duration_exit_0() {
    let server = Server::start(sim_config(0, "none")).unwrap();
    let _w = workload(&server, 10, 0.0);
    let url = server.url();
    // Straight to the sim, no proxy: --duration ends it.
    let mut cli = Proc::spawn(kubelive(&[
        "watch",
        "deploy",
        "--server",
        &url,
        "--duration",
        "1",
    ]));
    assert_eq!(cli.wait(Duration::from_secs(20)), Some(0));
    assert!(cli.stdout.text().contains("ADDED     ns-0/app-0"));
    let mut cli = Proc::spawn(kubelive(&["watch", "pods", "--server", &url]));
    assert!(cli
        .stderr
        .wait_for(Duration::from_secs(20), |l| l.contains("synced")));
    cli.signal("-TERM");
    assert_eq!(cli.wait(Duration::from_secs(10)), Some(0));
}

#[test]
fn pages_and_rewatches_reuse_kept_alive_connections_through_kubectl_proxy() {
    // kubectl proxy (Go's server) keeps client connections alive: after the first
    // request, the next pages go over the same connection.
    let stderr = run(Scenario {
        cli: &["--page-size", "5", "--max-page-size", "5"],
        ..Scenario::default()
    });
    let reused = stderr
        .lines()
        .filter(|l| l.contains("(kept-alive connection)"))
        .count();
    assert!(
        reused >= 7,
        "40 pods in pages of 5: at least the 7 pages after the first on a kept-alive \
         connection, saw {reused}\n{}",
        tail(&stderr, 40)
    );
}

/// Pages after the first double (`--max-page-size`), and the server answers each
/// continue request with the limit it asked for. Page 2 is asked for ahead as soon as
/// page 1's continue token is read: at the first size if none of page 1's items had
/// been decoded by then, else doubled; page 3 is asked for once page 1 is known
/// (5 x 4, capped at 16).
#[test]
fn later_pages_grow_through_kubectl_proxy() {
    let stderr = run(Scenario {
        cli: &["--page-size", "5", "--max-page-size", "16"],
        churn: 0.0,
        ..Scenario::default()
    });
    let so_far: Vec<usize> = stderr
        .lines()
        .filter_map(|l| l.split("listed page ").nth(1))
        .filter_map(|l| l.split(" (").nth(1)?.split(' ').next()?.parse().ok())
        .collect();
    let pages: Vec<usize> = so_far
        .iter()
        .scan(0, |before, &n| {
            let page = n - *before;
            *before = n;
            Some(page)
        })
        .collect();
    assert!(
        pages == [5, 10, 16, 9] || pages == [5, 5, 16, 14],
        "pages of {pages:?}\n{}",
        tail(&stderr, 40)
    );
}

/// A sim with `pods` pods (churned by the test at `churn` changes/s) and `faults`,
/// `kubectl proxy` in front of it, and `kubelive watch pods -o snapshot -v` with
/// `extra` arguments through it.
fn snapshot_of_pods(
    faults: &str,
    pods: usize,
    churn: f64,
    extra: &[&str],
) -> (Server, Workload, Proxy, Proc) {
    let server = Server::start(sim_config(0, faults)).unwrap();
    let w = workload(&server, pods, churn);
    let proxy = Proxy::start(server.addr().port(), &[]);
    let url = proxy.url();
    let mut args = vec!["watch", "pods", "--server", &url, "-o", "snapshot", "-v"];
    args.extend(extra);
    let cli = Proc::spawn(kubelive(&args));
    (server, w, proxy, cli)
}

/// The watch requests the CLI sent (`-v`: `> GET ...watch=true... (N)`), by id.
fn watch_requests(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| {
            let (_, msg) = l.split_once("] > ")?;
            msg.contains("watch=true")
                .then(|| msg.rsplit_once('(')?.1.strip_suffix(')').map(String::from))
                .flatten()
        })
        .collect()
}

/// Issue 11: a flaky proxy cuts every watch about once a second (mid-document, after
/// an HTML page, or after a truncated line) while 400 pods change 80 times a second.
/// Every cut watch had delivered events, so the CLI resumes at once each time; when
/// the changes stop its copy equals the server's within 5 s (the old engine backed
/// off longer after each cut and was still 160 objects stale 35 s later).
#[test]
fn flaky_proxy_under_load_the_copy_is_exact_within_5_s_of_the_last_change() {
    let (server, mut w, _proxy, mut cli) = snapshot_of_pods("proxy-cut-every=1000", 400, 80.0, &[]);
    assert!(
        cli.stderr
            .wait_for(Duration::from_secs(30), |l| l.contains("] synced ")),
        "{}",
        tail(&cli.stderr.text(), 30)
    );
    // Long enough for a backoff that escalated after every cut (0.8 s, 1.6 s, ... 30 s)
    // to leave the copy far behind when the changes stop.
    churn(&server, &mut w, 20.0, |_, _| {});
    // The faults stay on: the copy must catch up through the flaky proxy.
    sentinel(&server);
    let last_change = Instant::now();
    let caught_up = cli
        .stderr
        .wait_until(Duration::from_secs(5), holds_sentinel_and_synced);
    let waited = last_change.elapsed();
    assert!(
        caught_up,
        "5 s after the last change the CLI did not hold it\nstderr:\n{}",
        tail(&cli.stderr.text(), 60)
    );
    eprintln!("the last change reached the CLI after {waited:?}");
    let stderr = interrupt_and_compare(&server, &mut cli, "/api/v1/pods");
    // The proxy did cut the watches: each was resumed.
    let resumes = stderr.matches("resumed watch at rv").count();
    assert!(
        resumes >= 10,
        "20 s of watches cut about every second: {resumes} resumes\n{}",
        tail(&stderr, 40)
    );
}

/// Issue 11: a watch that goes silent (open, no byte ever again: a half-open
/// connection) is given up by the engine's deadline — `timeoutSeconds` (here
/// `--watch-timeout 5`) + 30 s — and the CLI resumes on a new connection and catches
/// up with the changes it missed. Only the watch open when the silence began stays
/// silent (as after a NAT or load balancer dropped one connection); new ones work.
#[test]
fn a_silent_watch_is_given_up_at_its_deadline_and_the_copy_catches_up() {
    let (server, mut w, _proxy, mut cli) =
        snapshot_of_pods("none", 100, 20.0, &["--watch-timeout", "5"]);
    assert!(
        cli.stderr
            .wait_for(Duration::from_secs(30), |l| l.contains("> GET")
                && l.contains("watch=true")),
        "{}",
        tail(&cli.stderr.text(), 30)
    );
    churn(&server, &mut w, 2.0, |_, _| {});
    // Every watch open at `at` (and any opened until the faults are lifted) goes silent.
    let at = server.with_cluster(|c, now| {
        let mut silent = FaultPlan::none();
        silent.at = vec![(now + 300, Action::Silent)];
        c.set_faults(silent);
        now + 300
    });
    churn(&server, &mut w, 1.0, |_, _| {});
    server.with_cluster(|c, now| {
        assert!(now > at);
        c.set_faults(FaultPlan::none());
    });
    let silenced = watch_requests(&cli.stderr.text());
    let silent_watch = silenced.last().cloned().expect("a watch was open");
    // Changes the silent watch never delivers.
    churn(&server, &mut w, 2.0, |_, _| {});
    sentinel(&server);
    // The deadline: 5 s + 30 s after the silent watch's head, which came at most 5 s
    // before the silence. The bound only turns "never noticed" into a failure.
    let caught_up = cli
        .stderr
        .wait_until(Duration::from_secs(60), holds_sentinel_and_synced);
    let stderr = cli.stderr.text();
    assert!(
        caught_up,
        "the CLI never caught up after the silence\nstderr:\n{}",
        tail(&stderr, 60)
    );
    // It was the CLI that gave up on the silent watch, then it resumed.
    let cancel = format!("] cancel {silent_watch}");
    let gave_up = stderr
        .lines()
        .position(|l| l.ends_with(&cancel))
        .unwrap_or_else(|| {
            panic!(
                "watch {silent_watch} was never cancelled\n{}",
                tail(&stderr, 60)
            )
        });
    let resumed = stderr
        .lines()
        .skip(gave_up)
        .position(|l| l.contains("resumed watch at rv"));
    assert!(
        resumed.is_some(),
        "no resume after the deadline\n{}",
        tail(&stderr, 60)
    );
    interrupt_and_compare(&server, &mut cli, "/api/v1/pods");
}

/// A kubectl-like table's lines, cells split on runs of 3+ spaces, without the columns
/// that count time (AGE, a CRD's date column): kubectl prints the server's text,
/// kubelive counts on from the timestamp, so the two differ by the seconds between.
fn table_cells(text: &str) -> Vec<Vec<String>> {
    const TIME_COLUMNS: [&str; 3] = ["AGE", "LAST SYNCED", "LAST SEEN"];
    let rows: Vec<Vec<String>> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.split("   ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(String::from)
                .collect()
        })
        .collect();
    let mut timed: Vec<usize> = rows
        .first()
        .map(|h| {
            (0..h.len())
                .filter(|&i| TIME_COLUMNS.contains(&h[i].as_str()))
                .collect()
        })
        .unwrap_or_default();
    assert!(!timed.is_empty(), "no AGE column in {text}");
    timed.reverse();
    rows.into_iter()
        .map(|mut r| {
            for &i in &timed {
                if r.len() > i {
                    r.remove(i);
                }
            }
            r
        })
        .collect()
}

#[test]
fn table_and_wide_print_what_kubectl_get_prints() {
    // The sim prints as kube-apiserver does; kubelive asks as kubectl does, through the
    // real kubectl proxy: the same headers and cells for pods (also -o wide), services,
    // deployments, nodes (cluster-scoped: no NAMESPACE even with -A) and a CRD's
    // additionalPrinterColumns.
    let server = Server::start(sim_config(0, "none")).unwrap();
    let _w = workload(&server, 12, 0.0);
    let proxy = Proxy::start(server.addr().port(), &[]);
    let url = proxy.url();
    for (resource, wide) in [
        ("pods", false),
        ("pods", true),
        ("services", false),
        ("deployments", false),
        ("nodes", true),
        ("widgets", false),
    ] {
        let output = if wide { "wide" } else { "table" };
        let out = kubelive(&[
            "watch",
            resource,
            "--server",
            &url,
            "-A",
            "-o",
            output,
            "--duration",
            "3",
        ])
        .output()
        .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("columns: "), "{stderr}");
        let mut args = vec!["get", resource, "-A"];
        if wide {
            args.extend(["-o", "wide"]);
        }
        let kc = Command::new(kubectl())
            .env("KUBECONFIG", proxy.kubeconfig())
            .args(&args)
            .output()
            .unwrap();
        assert!(
            kc.status.success(),
            "{}",
            String::from_utf8_lossy(&kc.stderr)
        );
        let ours = table_cells(&String::from_utf8_lossy(&out.stdout));
        let theirs = table_cells(&String::from_utf8_lossy(&kc.stdout));
        assert!(ours.len() > 1, "{resource}: {ours:?}");
        assert_eq!(ours, theirs, "{resource} -o {output}");
    }
}
