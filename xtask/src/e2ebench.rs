//! End to end (BENCHMARKS.md, "End to end"): the native `kubelive` CLI against
//! `kubelive-sim serve`, through the real `kubectl proxy` and direct, next to what a
//! user would reach for instead, `kubectl get pods -A -o json --chunk-size=500`.
//!
//! For each N: the sim with N pods and no churn, waited for until it answers a
//! `limit=1` LIST (it holds requests while it populates), then `kubectl proxy` in
//! front of it with a kubeconfig in a temp dir. Timed, interleaved, `runs` times:
//!
//! * `kubelive watch pods -A --page-size 500 [--streaming-list] [--server-print=false]`:
//!   from spawning the process to its `synced N objects` line on stderr (the process is
//!   killed then); stdout, the ADDED lines, goes to /dev/null; objects, or server-side
//!   tables (rows);
//! * `kubectl get pods -A [-o json] --chunk-size=500 > /dev/null`: spawn to exit
//!   (discovery cached in the temp dir after the first run, as for a user); `-o json`
//!   for objects, kubectl's default table output for tables.
//!
//! Every child is killed by its pid and reaped when its guard drops, on every path.

use crate::util::{command, run};
use crate::web::{free_port, http_get, release_bins};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Child processes, killed (by pid, through `Child::kill`) and reaped when dropped.
#[derive(Default)]
struct Kids(Vec<(String, Child)>);

impl Kids {
    fn add(&mut self, name: &str, child: Child) -> &mut Child {
        self.0.push((name.to_string(), child));
        &mut self.0.last_mut().expect("just pushed").1
    }

    fn exited(&mut self) -> Option<String> {
        self.0.iter_mut().find_map(|(name, c)| {
            c.try_wait()
                .ok()
                .flatten()
                .map(|s| format!("{name} exited ({s})"))
        })
    }
}

impl Drop for Kids {
    fn drop(&mut self) {
        for (_, child) in self.0.iter_mut().rev() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A directory removed when dropped.
struct Tmp(PathBuf);

impl Tmp {
    fn new(n: usize) -> Result<Tmp, String> {
        let dir =
            std::env::temp_dir().join(format!("kubelive-e2ebench-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("mkdir {}: {e}", dir.display()))?;
        Ok(Tmp(dir))
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn wait_ready(port: u16, what: &str, kids: &mut Kids, secs: u64) -> Result<(), String> {
    let path = "/api/v1/pods?limit=1";
    let started = Instant::now();
    loop {
        if http_get(port, path).is_some_and(|(code, _)| code == 200) {
            return Ok(());
        }
        if let Some(e) = kids.exited() {
            return Err(format!("{what} is not up: {e}"));
        }
        if started.elapsed() > Duration::from_secs(secs) {
            return Err(format!("{what} did not answer {path} within {secs} s"));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn build() -> Result<(PathBuf, PathBuf), String> {
    let bins = release_bins(&[("kubelive-sim", "kubelive-sim"), ("kubelive", "kubelive")])?;
    Ok((bins[0].clone(), bins[1].clone()))
}

/// `kubectl config --kubeconfig F ...`.
fn kubeconfig(file: &Path, args: &[&str]) -> Result<(), String> {
    let mut c = command("kubectl", &["config", "--kubeconfig"]);
    c.arg(file).args(args).stdout(Stdio::null());
    run(c)
}

/// One contender: a label and what to run (kubelive's args, or kubectl's context).
enum How {
    Kubelive {
        server: String,
        streaming: bool,
        tables: bool,
        /// LIST pages pipelined (the default); off: `--no-pipeline`, the baseline.
        pipeline: bool,
    },
    Kubectl {
        context: &'static str,
        tables: bool,
    },
}

struct Contender {
    path: &'static str,
    label: &'static str,
    how: How,
    secs: Vec<f64>,
}

/// Spawn to the `synced N objects` line on stderr; the process is killed then.
fn time_kubelive(
    cli: &Path,
    server: &str,
    streaming: bool,
    tables: bool,
    pipeline: bool,
    n: usize,
) -> Result<f64, String> {
    let mut cmd = Command::new(cli);
    cmd.args(["watch", "pods", "-A", "--server", server]).args([
        "--page-size",
        "500",
        "--duration",
        "900",
    ]);
    if streaming {
        cmd.arg("--streaming-list");
    }
    if !pipeline {
        cmd.arg("--no-pipeline");
    }
    if !tables {
        cmd.arg("--server-print=false");
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut kids = Kids::default();
    let started = Instant::now();
    let child = kids.add(
        "kubelive",
        cmd.spawn()
            .map_err(|e| format!("cannot start {}: {e}", cli.display()))?,
    );
    let stderr = child.stderr.take().ok_or("no stderr")?;
    let mut seen = Vec::new();
    for line in BufReader::new(stderr).lines() {
        let line = line.map_err(|e| format!("kubelive stderr: {e}"))?;
        // "[  12.345s] synced 100000 objects at rv 123"
        if let Some((_, rest)) = line.split_once("] synced ") {
            let secs = started.elapsed().as_secs_f64();
            let objects: usize = rest
                .split_whitespace()
                .next()
                .and_then(|o| o.parse().ok())
                .ok_or_else(|| format!("cannot read {line:?}"))?;
            if objects != n {
                return Err(format!("kubelive synced {objects} objects, not {n}"));
            }
            return Ok(secs);
        }
        seen.push(line);
    }
    Err(format!(
        "kubelive ended without syncing: {}",
        seen.join(" | ")
    ))
}

/// Spawn to exit of `kubectl get pods -A [-o json] --chunk-size=500 > /dev/null`.
fn time_kubectl(config: &Path, cache: &Path, context: &str, tables: bool) -> Result<f64, String> {
    let mut cmd = command("kubectl", &["--kubeconfig"]);
    cmd.arg(config)
        .args(["--context", context, "--cache-dir"])
        .arg(cache)
        .args(["get", "pods", "-A", "--chunk-size=500"]);
    if !tables {
        cmd.args(["-o", "json"]);
    }
    cmd.args(["--request-timeout", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut kids = Kids::default();
    let started = Instant::now();
    let child = kids.add(
        "kubectl get",
        cmd.spawn()
            .map_err(|e| format!("cannot start kubectl: {e}"))?,
    );
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let status = child.wait().map_err(|e| format!("kubectl get: {e}"))?;
    let secs = started.elapsed().as_secs_f64();
    if !status.success() {
        return Err(format!("kubectl get failed ({status}): {}", err.trim()));
    }
    Ok(secs)
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

fn thousands(x: f64) -> String {
    let s = format!("{:.0}", x);
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Runs every contender `runs` times, interleaved, against N pods.
fn bench_n(
    sim: &Path,
    cli: &Path,
    n: usize,
    runs: usize,
    with_kubectl: bool,
) -> Result<Vec<Contender>, String> {
    let tmp = Tmp::new(n)?;
    let mut kids = Kids::default();
    let args = [
        "serve",
        "--port",
        "0",
        "--objects",
        &n.to_string(),
        "--churn",
        "0",
        "--namespaces",
        "20",
    ];
    eprintln!("$ {} {}", sim.display(), args.join(" "));
    let populating = Instant::now();
    let child = kids.add(
        "kubelive-sim",
        Command::new(sim)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start kubelive-sim: {e}"))?,
    );
    let mut first = String::new();
    if let Some(out) = child.stdout.take() {
        let _ = BufReader::new(out).read_line(&mut first);
    }
    // "kubelive-sim listening on http://127.0.0.1:PORT"
    let sim_port: u16 = first
        .trim()
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .ok_or_else(|| format!("kubelive-sim did not start: {first:?}"))?;
    wait_ready(sim_port, "kubelive-sim", &mut kids, 600)?;
    eprintln!(
        "kubelive-sim: {n} pods on port {sim_port}, ready after {:.1} s",
        populating.elapsed().as_secs_f64()
    );

    let proxy_port = free_port()?;
    let config = tmp.0.join("kubeconfig");
    let cache = tmp.0.join("cache");
    let sim_url = format!("http://127.0.0.1:{sim_port}");
    let proxy_url = format!("http://127.0.0.1:{proxy_port}");
    kubeconfig(
        &config,
        &["set-cluster", "sim", &format!("--server={sim_url}")],
    )?;
    kubeconfig(
        &config,
        &["set-cluster", "proxy", &format!("--server={proxy_url}")],
    )?;
    kubeconfig(&config, &["set-credentials", "sim"])?;
    kubeconfig(
        &config,
        &["set-context", "sim", "--cluster=sim", "--user=sim"],
    )?;
    kubeconfig(
        &config,
        &["set-context", "proxy", "--cluster=proxy", "--user=sim"],
    )?;
    kubeconfig(&config, &["use-context", "sim"])?;
    let mut proxy = command("kubectl", &["proxy", "--port"]);
    proxy
        .arg(proxy_port.to_string())
        .arg("--kubeconfig")
        .arg(&config)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    kids.add(
        "kubectl proxy",
        proxy
            .spawn()
            .map_err(|e| format!("cannot start kubectl proxy: {e}"))?,
    );
    wait_ready(proxy_port, "kubectl proxy", &mut kids, 60)?;
    eprintln!("kubectl proxy on port {proxy_port}");

    let kubelive = |path, label, server: &str, streaming, tables| Contender {
        path,
        label,
        how: How::Kubelive {
            server: server.to_string(),
            streaming,
            tables,
            pipeline: true,
        },
        secs: Vec::new(),
    };
    // The same list-then-watch with each page asked for after the previous ended.
    let unpipelined = |path, label, server: &str, tables| Contender {
        path,
        label,
        how: How::Kubelive {
            server: server.to_string(),
            streaming: false,
            tables,
            pipeline: false,
        },
        secs: Vec::new(),
    };
    let kubectl = |path, context, tables| Contender {
        path,
        label: if tables {
            "`kubectl get pods -A --chunk-size=500` (table)"
        } else {
            "`kubectl get pods -A -o json --chunk-size=500`"
        },
        how: How::Kubectl { context, tables },
        secs: Vec::new(),
    };
    let mut all = Vec::new();
    for (path, server, context) in [
        ("kubectl proxy", &proxy_url, "proxy"),
        ("direct", &sim_url, "sim"),
    ] {
        all.extend([
            kubelive(
                path,
                "kubelive, list-then-watch (page 500)",
                server,
                false,
                false,
            ),
            unpipelined(
                path,
                "kubelive, list-then-watch (page 500), --no-pipeline",
                server,
                false,
            ),
            kubelive(path, "kubelive, streaming list", server, true, false),
            kubectl(path, context, false),
            kubelive(
                path,
                "kubelive tables, list-then-watch (page 500)",
                server,
                false,
                true,
            ),
            unpipelined(
                path,
                "kubelive tables, list-then-watch (page 500), --no-pipeline",
                server,
                true,
            ),
            kubelive(path, "kubelive tables, streaming list", server, true, true),
            kubectl(path, context, true),
        ]);
    }
    if !with_kubectl {
        all.retain(|c| !matches!(c.how, How::Kubectl { .. }));
    }
    for run in 1..=runs {
        for c in &mut all {
            if let Some(e) = kids.exited() {
                return Err(e);
            }
            let secs = match &c.how {
                How::Kubelive {
                    server,
                    streaming,
                    tables,
                    pipeline,
                } => time_kubelive(cli, server, *streaming, *tables, *pipeline, n)?,
                How::Kubectl { context, tables } => {
                    time_kubectl(&config, &cache, context, *tables)?
                }
            };
            eprintln!(
                "{n} pods, run {run}/{runs}: {} via {}: {secs:.2} s",
                c.label, c.path
            );
            c.secs.push(secs);
        }
    }
    Ok(all)
}

/// Time to synced of the `kubelive` CLI for each N in `pods`, through `kubectl proxy`
/// and direct, against `kubectl get` on the same paths: a markdown table (medians of
/// `runs`).
pub fn cli_sync_bench(pods: &[usize], runs: usize, kubectl: bool) -> Result<String, String> {
    let runs = runs.max(1);
    let (sim, cli) = build()?;
    let mut s = format!(
        "### kubelive CLI: time to synced from kubelive-sim, medians of {runs}\n\n\
         | pods | path | client, mode | median s | min..max s | objects/s | vs kubectl get |\n\
         |---:|---|---|---:|---|---:|---:|\n"
    );
    for &n in pods {
        let all = bench_n(&sim, &cli, n, runs, kubectl)?;
        for c in &all {
            let m = median(&c.secs);
            // Against kubectl asking for the same representation.
            let tables = matches!(
                c.how,
                How::Kubelive { tables: true, .. } | How::Kubectl { tables: true, .. }
            );
            let kubectl = all
                .iter()
                .find(|k| {
                    k.path == c.path
                        && matches!(k.how, How::Kubectl { tables: t, .. } if t == tables)
                })
                .map(|k| median(&k.secs))
                .unwrap_or(f64::NAN);
            let min = c.secs.iter().copied().fold(f64::INFINITY, f64::min);
            let max = c.secs.iter().copied().fold(0.0, f64::max);
            let vs = if kubectl.is_nan() {
                "-".to_string()
            } else {
                format!("{:.1}x", kubectl / m)
            };
            s.push_str(&format!(
                "| {} | {} | {} | {m:.2} | {min:.2}..{max:.2} | {} | {vs} |\n",
                thousands(n as f64),
                c.path,
                c.label,
                thousands(n as f64 / m),
            ));
        }
    }
    Ok(s)
}
