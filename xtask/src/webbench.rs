//! The browser benchmarks (BENCHMARKS.md, "Browser"): builds what `web/bench/run.mjs`
//! needs (dist, the sim, the watch stream file) and runs it. It prints a markdown
//! table and writes it, with the raw figures, to `artifacts/browser-bench.{md,json}`.
//!
//! `run.mjs` reads its knobs from the environment, passed through: `RUNS` (5),
//! `PODS` (100000), `CHURN` (1000), `FRAME_SECS` (10), `FRAME_RUNS` (3), `ONLY`
//! (`decode,sync,frames`), and `EVENTS` here (20000: the watch stream's length).

use crate::setup;
use crate::util::{cargo, command, root, run};
use crate::web;

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

/// Dist + kubelive-sim, then `node web/bench/gzip.mjs`: the app's lists with and
/// without compression through kubectl proxy (issue 15).
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
