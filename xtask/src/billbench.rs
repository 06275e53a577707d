//! The apiserver's bill (BENCHMARKS.md, "What one viewer costs the apiserver"): what
//! one watching client costs the server, read from the sim's `/metrics`
//! (`crates/sim/src/metrics.rs`: kube-apiserver's request and LIST-source counters, bytes
//! sent, watch events, lists from nothing).
//!
//! Every (setup, client) pair gets its own `kubelive-sim serve --objects N --churn C
//! --namespaces 20 [--faults F]`, all pairs at once (the clients idle between changes,
//! so they barely compete; the initial syncs overlap for a few seconds). For each: the
//! sim's counters after it is ready (M0), once the client has synced (M1) and `secs`
//! later (M2). Initial sync = M1 - M0; steady state = (M2 - M1) scaled to one hour.
//! Only the `pods` series count (discovery and the scrapes themselves are left out).
//!
//! Clients: the `kubelive` CLI (`watch pods -A --server-print=false`, pages from 500 growing to 4,000 (`--max-page-size`), then a
//! watch; `--streaming-list`; and the streaming list in table mode) and
//! @kubernetes/client-node's informer (`benches/node/bill.mjs`).

use crate::util::{have, root};
use crate::web::{http_get, release_bins};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub struct BillOpts {
    pub pods: usize,
    pub churn: f64,
    pub secs: u64,
    /// `--faults` of the flaky-proxy setup.
    pub flaky: String,
}

/// A child killed (by its pid) and reaped when dropped.
struct Kid(Child);

impl Drop for Kid {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[derive(Clone, Copy)]
enum Client {
    KubeliveList,
    KubeliveStreaming,
    KubeliveStreamingTables,
    NodeInformer,
}

impl Client {
    fn label(self) -> &'static str {
        match self {
            Client::KubeliveList => "kubelive, list-then-watch (pages from 500, growing)",
            Client::KubeliveStreaming => "kubelive, streaming list",
            Client::KubeliveStreamingTables => "kubelive, streaming list, table mode",
            Client::NodeInformer => "client-node 1.4.0 informer",
        }
    }
}

/// The `pods` counters of one scrape, by series (name and labels without `resource`).
type Scrape = BTreeMap<String, f64>;

fn scrape(port: u16) -> Result<Scrape, String> {
    let (code, body) = http_get(port, "/metrics").ok_or("no answer from /metrics")?;
    if code != 200 {
        return Err(format!("/metrics: {code}"));
    }
    let mut out = Scrape::new();
    for line in body.lines().filter(|l| !l.starts_with('#')) {
        let Some((series, value)) = line.rsplit_once(' ') else {
            continue;
        };
        if !series.contains("resource=\"pods\"") {
            continue;
        }
        let key = series
            .replace(",resource=\"pods\"", "")
            .replace("resource=\"pods\"", "");
        out.insert(key, value.parse().unwrap_or(0.0));
    }
    Ok(out)
}

/// One client's bill: the counters at M0, M1, M2 and how long M1..M2 took.
struct Bill {
    client: Client,
    setup: String,
    sync_s: f64,
    initial: Scrape,
    steady: Scrape,
    steady_s: f64,
    client_log: Vec<String>,
}

fn diff(a: &Scrape, b: &Scrape) -> Scrape {
    b.iter()
        .map(|(k, v)| (k.clone(), (v - a.get(k).copied().unwrap_or(0.0)).max(0.0)))
        .collect()
}

/// Sum of the series whose key starts with `prefix` (e.g. every code of LIST requests).
fn sum(s: &Scrape, prefix: &str) -> f64 {
    s.iter()
        .filter(|(k, _)| k.starts_with(prefix))
        .map(|(_, v)| v)
        .sum::<f64>()
        // An empty float sum is -0.0.
        + 0.0
}

fn spawn_sim(sim: &Path, o: &BillOpts, faults: &str) -> Result<(Kid, u16), String> {
    let mut cmd = Command::new(sim);
    cmd.args(["serve", "--port", "0", "--namespaces", "20"])
        .args([
            "--objects",
            &o.pods.to_string(),
            "--churn",
            &o.churn.to_string(),
        ]);
    if !faults.is_empty() {
        cmd.args(["--faults", faults]);
    }
    let mut kid = Kid(cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", sim.display()))?);
    let mut first = String::new();
    if let Some(out) = kid.0.stdout.take() {
        let _ = BufReader::new(out).read_line(&mut first);
    }
    let port = first
        .trim()
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .ok_or_else(|| format!("kubelive-sim did not say its port: {first:?}"))?;
    let started = Instant::now();
    while http_get(port, "/api/v1/namespaces?limit=1").is_none_or(|(c, _)| c != 200) {
        if started.elapsed() > Duration::from_secs(120) {
            return Err("kubelive-sim not ready in 120 s".into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok((kid, port))
}

/// Starts the client; its output lines go to `lines` (the first `synced` marks the sync).
fn spawn_client(
    client: Client,
    cli: &Path,
    node_dir: &Path,
    port: u16,
    secs: u64,
    lines: mpsc::Sender<String>,
) -> Result<Kid, String> {
    let server = format!("http://127.0.0.1:{port}");
    let mut cmd = match client {
        Client::NodeInformer => {
            let mut c = Command::new("node");
            c.args(["bill.mjs", "--server", &server])
                .current_dir(node_dir);
            c
        }
        _ => {
            let mut c = Command::new(cli);
            c.args([
                "watch",
                "pods",
                "-A",
                "--server",
                &server,
                "--page-size",
                "500",
            ])
            .args(["--duration", &(secs + 300).to_string()]);
            if !matches!(client, Client::KubeliveStreamingTables) {
                c.arg("--server-print=false");
            }
            if !matches!(client, Client::KubeliveList) {
                c.arg("--streaming-list");
            }
            c
        }
    };
    let mut kid = Kid(cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", client.label()))?);
    // kubelive says `[  1.234s] synced N objects at rv R` on stderr and prints the
    // events on stdout; bill.mjs says `synced N` on stdout: both are read to the end.
    for (is_err, pipe) in [
        (
            true,
            kid.0
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn std::io::Read + Send>),
        ),
        (
            false,
            kid.0
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn std::io::Read + Send>),
        ),
    ] {
        let Some(pipe) = pipe else { continue };
        let tx = lines.clone();
        let keep = is_err || matches!(client, Client::NodeInformer);
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                if keep {
                    let _ = tx.send(line);
                }
            }
        });
    }
    Ok(kid)
}

fn bill_one(
    client: Client,
    setup: &str,
    faults: &str,
    bins: &(PathBuf, PathBuf),
    node_dir: &Path,
    o: &BillOpts,
) -> Result<Bill, String> {
    let (_sim, port) = spawn_sim(&bins.0, o, faults)?;
    let m0 = scrape(port)?;
    let (tx, rx) = mpsc::channel();
    let started = Instant::now();
    let _client = spawn_client(client, &bins.1, node_dir, port, o.secs, tx)?;
    let mut log = Vec::new();
    let sync_s = loop {
        match rx.recv_timeout(Duration::from_secs(300)) {
            Ok(line) if line.contains("synced ") => break started.elapsed().as_secs_f64(),
            Ok(line) => log.push(line),
            Err(_) => {
                return Err(format!(
                    "{} did not sync: {}",
                    client.label(),
                    log.join(" | ")
                ))
            }
        }
    };
    // kubelive says synced when its list is in, before it opens its watch: the first
    // watch belongs to the sync, so M1 waits (up to 10 s) until a watch is open.
    let open = "apiserver_longrunning_requests{verb=\"WATCH\"}";
    let mut m1 = scrape(port)?;
    let waiting = Instant::now();
    while m1.get(open).copied().unwrap_or(0.0) < 1.0 && waiting.elapsed().as_secs() < 10 {
        std::thread::sleep(Duration::from_millis(50));
        m1 = scrape(port)?;
    }
    let t1 = Instant::now();
    let deadline = t1 + Duration::from_secs(o.secs);
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        if let Ok(line) = rx.recv_timeout(left) {
            log.push(line);
        }
    }
    let m2 = scrape(port)?;
    let steady_s = t1.elapsed().as_secs_f64();
    Ok(Bill {
        client,
        setup: setup.to_string(),
        sync_s,
        initial: diff(&m0, &m1),
        steady: diff(&m1, &m2),
        steady_s,
        client_log: log,
    })
}

pub fn bill_bench(o: &BillOpts) -> Result<String, String> {
    let bins = release_bins(&[("kubelive-sim", "kubelive-sim"), ("kubelive", "kubelive")])?;
    let bins = (bins[0].clone(), bins[1].clone());
    let node_dir = root().join("benches/node");
    let mut clients = vec![
        Client::KubeliveList,
        Client::KubeliveStreaming,
        Client::KubeliveStreamingTables,
    ];
    if have("node") {
        crate::setup::node_peers()?;
        clients.push(Client::NodeInformer);
    } else {
        eprintln!("node not found: no client-node rows");
    }
    let flaky = format!("flaky proxy ({})", o.flaky);
    let setups = [("steady", ""), (flaky.as_str(), o.flaky.as_str())];
    eprintln!(
        "bill: {} pods, {} changes/s, {} s per client after its sync, {} clients at once",
        o.pods,
        o.churn,
        o.secs,
        clients.len() * setups.len()
    );
    let results: Vec<Result<Bill, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = setups
            .iter()
            .flat_map(|(setup, faults)| clients.iter().map(move |c| (*c, *setup, *faults)))
            .map(|(c, setup, faults)| {
                let (bins, node_dir) = (&bins, &node_dir);
                s.spawn(move || bill_one(c, setup, faults, bins, node_dir, o))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a bench thread panicked".into()))
            })
            .collect()
    });
    let mut out = format!(
        "<!-- cargo xtask bench --only bill --pods {} --churn {} --secs {} --faults {} -->\n\n\
         One viewer of {} pods under {} changes/s (`kubelive-sim serve --objects {} --churn {} \
         --namespaces 20`), counted by the sim's `/metrics`; per hour = the {} s after the \
         client synced, scaled to 3,600 s.\n\n",
        o.pods, o.churn, o.secs, o.flaky, o.pods, o.churn, o.pods, o.churn, o.secs
    );
    out.push_str(
        "| setup | client | sync s | initial: requests | initial: MB | initial: LISTs from etcd / cache | \
         per hour: LIST requests (etcd / cache) | per hour: WATCH requests | per hour: relists | \
         per hour: MB sent | per hour: watch events | non-200 per hour |\n\
         |---|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|\n",
    );
    let mut notes = String::new();
    for r in results {
        let b = match r {
            Ok(b) => b,
            Err(e) => {
                out.push_str(&format!("| | failed: {e} | | | | | | | | | | |\n"));
                continue;
            }
        };
        let h = 3600.0 / b.steady_s;
        let (i, st) = (&b.initial, &b.steady);
        let requests = |s: &Scrape| {
            sum(s, "apiserver_request_total{verb=\"LIST\"")
                + sum(s, "apiserver_request_total{verb=\"WATCH\"")
        };
        let ok = |s: &Scrape| sum(s, "apiserver_request_total") - sum_code(s, "200");
        let mb = |s: &Scrape| sum(s, "kubelive_sim_sent_bytes_total") / 1e6;
        let etcd = |s: &Scrape| sum(s, "apiserver_storage_list_total");
        let cache = |s: &Scrape| sum(s, "apiserver_cache_list_total");
        let lists = |s: &Scrape| sum(s, "apiserver_request_total{verb=\"LIST\"");
        let watches = |s: &Scrape| sum(s, "apiserver_request_total{verb=\"WATCH\"");
        out.push_str(&format!(
            "| {} | {} | {:.2} | {} | {:.1} | {} / {} | {:.0} ({:.0} / {:.0}) | {:.0} | {:.0} | {:.1} | {:.0} | {:.0} |\n",
            b.setup,
            b.client.label(),
            b.sync_s,
            requests(i),
            mb(i),
            etcd(i),
            cache(i),
            lists(st) * h,
            etcd(st) * h,
            cache(st) * h,
            watches(st) * h,
            sum(st, "kubelive_sim_initial_lists_total") * h,
            mb(st) * h,
            sum(st, "kubelive_sim_watch_events_total") * h,
            ok(st) * h,
        ));
        let errors = b.client_log.iter().filter(|l| !l.trim().is_empty()).count();
        notes.push_str(&format!(
            "* {} / {}: {errors} lines on stderr during the run{}\n",
            b.setup,
            b.client.label(),
            b.client_log
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .map(|l| format!(" (last: `{}`)", l.chars().take(160).collect::<String>()))
                .unwrap_or_default()
        ));
    }
    out.push('\n');
    out.push_str(&notes);
    Ok(out)
}

/// Requests with this status code.
fn sum_code(s: &Scrape, code: &str) -> f64 {
    s.iter()
        .filter(|(k, _)| {
            k.starts_with("apiserver_request_total") && k.contains(&format!("code=\"{code}\""))
        })
        .map(|(_, v)| v)
        .sum()
}
