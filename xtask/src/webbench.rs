//! The browser benchmarks (BENCHMARKS.md, "Browser"): builds what `web/bench/run.mjs`
//! needs (dist, the sim, the watch stream file) and runs it. It prints a markdown
//! table and writes it, with the raw figures, to `artifacts/browser-bench.{md,json}`.
//!
//! `run.mjs` reads its knobs from the environment, passed through: `RUNS` (5),
//! `PODS` (100000), `CHURN` (1000), `FRAME_SECS` (10), `FRAME_RUNS` (3), `ONLY`
//! (`decode,sync,frames`; also `store`: the driver and store without the app, with
//! `STORE_MODES` and `STORE_RUNS`), and `EVENTS` here (20000: the watch stream's length).
//!
//! `cargo xtask bench discovery [--groups N] [--runs N] [--latency MS] [--before DIST]`
//! (also a part of `cargo xtask bench`, with the defaults): the time to the full
//! resource picker and the discovery requests (`web/bench/discovery.mjs`) against one
//! sim serving N more API groups (20), through kubectl proxy; with `--before`, a
//! second kubectl proxy serves that build's `dist` (an older commit's `cargo xtask
//! dist`) in front of the same sim, and the two take turns.

use crate::setup;
use crate::util::{cargo, command, output, root, run};
use crate::web::{self, Children, Cluster};
use std::path::PathBuf;

/// Dist + kubelive-sim + the watch stream, then `node web/bench/run.mjs`.
pub fn browser_bench() -> Result<(), String> {
    setup::web_tools()?;
    setup::browser()?;
    setup::npm_packages()?;
    web::dist(&[])?;
    let sim = web::sim_binary()?;
    let events: usize = match std::env::var("EVENTS") {
        Ok(v) => v
            .parse()
            .map_err(|_| format!("EVENTS: not a number: {v:?}"))?,
        Err(_) => 20_000,
    };
    let data = web::target_dir().join("bench-data");
    std::fs::create_dir_all(&data).map_err(|e| format!("mkdir {}: {e}", data.display()))?;
    let stream = data.join(format!("watch-{events}.jsonl"));
    if !stream.exists() {
        let mut gen = cargo(&[
            "run",
            "--release",
            "-p",
            "kubelive-sim",
            "--example",
            "watch_stream",
            "--",
            &events.to_string(),
        ]);
        gen.arg(&stream);
        run(gen)?;
    }
    let mut bench = command("node", &["bench/run.mjs"]);
    bench
        .current_dir(root().join("web"))
        .env("DIST", web::dist_dir())
        .env("SIM_BIN", &sim)
        .env("STREAM", &stream)
        .env("ARTIFACTS", root().join("artifacts"));
    run(bench)
}

/// `cargo xtask bench discovery ...` (see the module's doc): prints the markdown table
/// and writes it to `artifacts/discovery-bench.md`.
pub fn discovery_bench(args: &[String]) -> Result<(), String> {
    let (mut groups, mut runs, mut latency) = (20usize, 5usize, 40usize);
    let mut before: Option<PathBuf> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or(format!("{a} needs a value"));
        let num = |v: String| {
            v.parse::<usize>()
                .map_err(|_| format!("{a}: not a number: {v:?}"))
        };
        match a.as_str() {
            "--groups" => groups = num(value()?)?,
            "--runs" => runs = num(value()?)?,
            "--latency" => latency = num(value()?)?,
            "--before" => before = Some(PathBuf::from(value()?)),
            other => return Err(format!("bench discovery: unknown option {other:?}")),
        }
    }
    if let Some(dir) = &before {
        if !dir.join("index.html").exists() {
            return Err(format!(
                "--before {}: no index.html (a build's dist: `git worktree add DIR COMMIT && cd DIR && cargo xtask dist`)",
                dir.display()
            ));
        }
    }
    setup::web_tools()?;
    setup::browser()?;
    setup::npm_packages()?;
    web::dist(&[])?;
    let cluster = Cluster {
        objects: 60,
        churn: 4.0,
        faults: String::new(),
        extra: ["--namespaces", "4", "--extra-groups", &groups.to_string()]
            .map(String::from)
            .to_vec(),
    };
    let running = web::start_cluster(&cluster, 0, true)?;
    let mut builds = Vec::new();
    let mut kids = Children::default();
    if let Some(dir) = &before {
        let port = web::free_port()?;
        web::start_proxy(&running.kubeconfig(), dir, "/ui/", port, true, &mut kids)?;
        builds.push(format!(
            "before ({})=http://127.0.0.1:{port}",
            dir.display()
        ));
    }
    builds.push(format!("now=http://127.0.0.1:{}", running.proxy_port));
    let mut bench = command("node", &["bench/discovery.mjs"]);
    bench
        .current_dir(root().join("web"))
        .env("BUILDS", builds.join(","))
        .env("RUNS", runs.to_string())
        .env("LATENCY", latency.to_string());
    let table = output(bench)?;
    drop(kids);
    drop(running);
    println!("{table}");
    let artifacts = root().join("artifacts");
    let _ = std::fs::create_dir_all(&artifacts);
    let path = artifacts.join("discovery-bench.md");
    std::fs::write(&path, &table).map_err(|e| format!("write {}: {e}", path.display()))?;
    eprintln!("written to {}", path.display());
    Ok(())
}

/// Dist + kubelive-sim, then `node web/bench/gzip.mjs`: the app's lists with and
/// without compression through kubectl proxy (issue 15).
/// Synced with a streaming list against the sim as 1.36 and as 1.37 (which gzips it one
/// member per flush), the app's `stream=1` and the CLI's `--streaming-list`, runs
/// alternating, with the LIST requests each sync made (web/bench/releases.mjs).
pub fn releases_bench(pods: usize, runs: usize) -> Result<(), String> {
    setup::web_tools()?;
    setup::browser()?;
    setup::npm_packages()?;
    web::dist(&[])?;
    let bins = web::release_bins(&[("kubelive-sim", "kubelive-sim"), ("kubelive", "kubelive")])?;
    let mut bench = command("node", &["bench/releases.mjs"]);
    bench
        .current_dir(root().join("web"))
        .env("DIST", web::dist_dir())
        .env("SIM_BIN", &bins[0])
        .env("CLI_BIN", &bins[1])
        .env("PODS", pods.to_string())
        .env("RUNS", runs.to_string());
    run(bench)
}

pub fn gzip_bench(pods: usize, runs: usize) -> Result<(), String> {
    setup::web_tools()?;
    setup::browser()?;
    setup::npm_packages()?;
    web::dist(&[])?;
    let sim = web::sim_binary()?;
    let mut bench = command("node", &["bench/gzip.mjs"]);
    bench
        .current_dir(root().join("web"))
        .env("DIST", web::dist_dir())
        .env("SIM_BIN", &sim)
        .env("PODS", pods.to_string())
        .env("RUNS", runs.to_string())
        .env("ARTIFACTS", root().join("artifacts"));
    run(bench)
}
