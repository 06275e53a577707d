//! `cargo xtask bench`: kubelive against its peers on the same bytes in one run, and
//! how it scales. Builds `benches/peers` (a standalone crate, so kube-rs stays out of
//! normal builds), writes the shared inputs, runs the Rust and Node contenders and
//! prints the markdown tables behind BENCHMARKS.md (also written to
//! `<target>/bench-results.md`).
//!
//! Options: `--quick` (small inputs, 3 runs: a smoke test, not figures),
//! `--events N` (watch stream, default 100000), `--pods N` (memory and sync, default
//! 50000), `--runs N` (default 7), `--scale 1000,10000,...`, `--no-node`, `--no-browser`,
//! `--only cli` (only the CLI's time to synced against kubelive-sim, objects and tables,
//! pipelined LIST pages and not, for `--pods N`; `--no-kubectl` leaves `kubectl get`
//! out, which takes minutes a run at 100,000 pods), `--only bill` (what one viewer costs the apiserver per hour:
//! `xtask/src/billbench.rs`; `--pods N` (10000), `--churn PER_SEC` (10), `--secs S`
//! (600, after the sync), `--faults SPEC` (the flaky setup, `proxy-cut-every=60000`)),
//! `--only gzip` (the app's time to Synced and bytes with and without compression
//! through kubectl proxy, web/bench/gzip.mjs; `--pods N`, `--runs N`), `--only releases`
//! (Synced with a streaming list, the app's and the CLI's, against the sim as 1.36 and as
//! 1.37, and the LIST requests each made: web/bench/releases.mjs; `--pods N`, `--runs N`).
//! `cargo xtask bench discovery ...` runs only the discovery part (`webbench.rs`).

use crate::util::{command, have, output, root, run};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

struct Opts {
    events: usize,
    pods: usize,
    runs: usize,
    scale: String,
    node: bool,
    /// The headless-Chromium figures (web/bench/run.mjs).
    browser: bool,
    quick: bool,
    /// `--only cli`: only the CLI end-to-end sync bench.
    only_cli: bool,
    /// `--only cli`: time `kubectl get` too (off: `--no-kubectl`).
    kubectl: bool,
    /// `--only gzip`: only the browser's lists with and without compression.
    only_gzip: bool,
}

fn parse(args: &[String]) -> Result<Opts, String> {
    let quick = args.iter().any(|a| a == "--quick");
    let mut o = if quick {
        Opts {
            events: 20_000,
            pods: 10_000,
            runs: 3,
            scale: "1000,10000".into(),
            node: true,
            browser: true,
            quick,
            only_cli: false,
            kubectl: true,
            only_gzip: false,
        }
    } else {
        Opts {
            events: 100_000,
            pods: 50_000,
            runs: 7,
            scale: "1000,3000,10000,30000,100000".into(),
            node: true,
            browser: true,
            quick,
            only_cli: false,
            kubectl: true,
            only_gzip: false,
        }
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match a.as_str() {
            "--quick" => {}
            "--no-node" => o.node = false,
            "--no-browser" => o.browser = false,
            "--no-kubectl" => o.kubectl = false,
            "--events" => o.events = num(&value(a)?)?,
            "--pods" => o.pods = num(&value(a)?)?,
            "--runs" => o.runs = num(&value(a)?)?,
            "--scale" => o.scale = value(a)?,
            "--only" => match value(a)?.as_str() {
                "cli" => o.only_cli = true,
                "gzip" => o.only_gzip = true,
                // Dispatched in `bench` before the options are read.
                "releases" => {}
                other => {
                    return Err(format!(
                        "--only: {other:?} (known: cli, bill, gzip, releases)"
                    ))
                }
            },
            other => return Err(format!("unknown bench option {other:?}")),
        }
    }
    Ok(o)
}

fn num(s: &str) -> Result<usize, String> {
    s.parse().map_err(|_| format!("not a number: {s:?}"))
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target").join("bench-peers"))
}

/// One `RESULT<TAB>table<TAB>row<TAB>col=value...` line.
struct Row {
    table: String,
    label: String,
    cols: Vec<(String, String)>,
}

fn rows_of(stdout: &str) -> Vec<Row> {
    stdout
        .lines()
        .filter_map(|l| {
            let mut f = l.split('\t');
            if f.next()? != "RESULT" {
                return None;
            }
            let table = f.next()?.to_string();
            let label = f.next()?.to_string();
            let cols = f
                .filter_map(|c| c.split_once('=').map(|(k, v)| (k.into(), v.into())))
                .collect();
            Some(Row { table, label, cols })
        })
        .collect()
}

fn get<'a>(r: &'a Row, col: &str) -> Option<&'a str> {
    r.cols
        .iter()
        .find(|(k, _)| k == col)
        .map(|(_, v)| v.as_str())
}

fn set(r: &mut Row, col: &str, v: String) {
    match r.cols.iter_mut().find(|(k, _)| k == col) {
        Some(c) => c.1 = v,
        None => r.cols.push((col.into(), v)),
    }
}

fn markdown(title: &str, rows: &[&Row]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut cols: Vec<&str> = Vec::new();
    for r in rows {
        for (k, _) in &r.cols {
            if !cols.contains(&k.as_str()) {
                cols.push(k);
            }
        }
    }
    let mut s = format!("### {title}\n\n| |");
    for c in &cols {
        s.push_str(&format!(" {c} |"));
    }
    s.push_str("\n|---|");
    s.push_str(&"---:|".repeat(cols.len()));
    s.push('\n');
    for r in rows {
        s.push_str(&format!("| {} |", r.label));
        for c in &cols {
            s.push_str(&format!(" {} |", get(r, c).unwrap_or("")));
        }
        s.push('\n');
    }
    s.push('\n');
    s
}

fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_default();
    let commit = output(command("git", &["rev-parse", "--short", "HEAD"]))
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let node = output(command("node", &["--version"]))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "none".into());
    format!("{cores} cores, {cpu}; load average {load} at start; commit {commit}; node {node}")
}

/// `--only bill` and its own options.
fn bill_opts(args: &[String]) -> Result<crate::billbench::BillOpts, String> {
    let mut o = crate::billbench::BillOpts {
        pods: 10_000,
        churn: 10.0,
        secs: 600,
        flaky: "proxy-cut-every=60000".into(),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match a.as_str() {
            "--only" => {
                value(a)?;
            }
            "--pods" => o.pods = num(&value(a)?)?,
            "--secs" => o.secs = num(&value(a)?)? as u64,
            "--churn" => {
                let v = value(a)?;
                o.churn = v.parse().map_err(|_| format!("not a number: {v:?}"))?;
            }
            "--faults" => o.flaky = value(a)?,
            other => return Err(format!("unknown option of --only bill: {other:?}")),
        }
    }
    Ok(o)
}

pub fn bench(args: &[String]) -> Result<(), String> {
    if args.first().map(String::as_str) == Some("discovery") {
        return crate::webbench::discovery_bench(&args[1..]);
    }
    if args.windows(2).any(|w| w[0] == "--only" && w[1] == "bill") {
        println!("{}", crate::billbench::bill_bench(&bill_opts(args)?)?);
        return Ok(());
    }
    let o = parse(args)?;
    // A web bench's own defaults where `--pods` / `--runs` are not given.
    let given = |flag: &str, value: usize, default: usize| {
        if args.iter().any(|a| a == flag) {
            value
        } else {
            default
        }
    };
    if args
        .windows(2)
        .any(|w| w[0] == "--only" && w[1] == "releases")
    {
        return crate::webbench::releases_bench(
            given("--pods", o.pods, 100_000),
            given("--runs", o.runs, 5),
        );
    }
    if o.only_gzip {
        return crate::webbench::gzip_bench(
            given("--pods", o.pods, 100_000),
            given("--runs", o.runs, 3),
        );
    }
    if o.only_cli {
        let sizes = if args.iter().any(|a| a == "--pods") {
            vec![o.pods]
        } else {
            vec![10_000]
        };
        println!(
            "{}",
            crate::e2ebench::cli_sync_bench(&sizes, o.runs.min(3), o.kubectl)?
        );
        return Ok(());
    }
    let target = target_dir();
    let manifest = root().join("benches/peers/Cargo.toml");
    let mut build = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    build
        .args(["build", "--release", "--bins", "--manifest-path"])
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(root());
    run(build)?;
    let bin = |name: &str| target.join("release").join(name);
    let data = target.join("bench-data");
    let (events, pods, runs) = (o.events.to_string(), o.pods.to_string(), o.runs.to_string());
    let header = machine();
    eprintln!("machine: {header}");

    let mut gen = Command::new(bin("peers-data"));
    gen.arg(&data).args(["--events", &events, "--pods", &pods]);
    let files = output(gen)?;
    let mut files = files.lines();
    let (watch_file, pods_file) = (
        files.next().unwrap_or_default().to_string(),
        files.next().unwrap_or_default().to_string(),
    );

    let mut all = String::new();
    let mut speed = Command::new(bin("peers-speed"));
    speed.args(["--events", &events, "--runs", &runs, "--scale", &o.scale]);
    all.push_str(&output(speed)?);
    let mut mem = Command::new(bin("peers-mem"));
    mem.args(["--pods", &pods, "--scale", &o.scale]);
    all.push_str(&output(mem)?);

    if o.node && have("node") {
        let dir = root().join("benches/node");
        if !dir.join("node_modules/@kubernetes/client-node").exists() {
            let mut npm = Command::new("npm");
            npm.args(["ci", "--no-audit", "--no-fund"])
                .current_dir(&dir);
            run(npm)?;
        }
        let mut parse = Command::new("node");
        parse
            .args(["--expose-gc", "parse.mjs", "--watch", &watch_file])
            .args(["--pods", &pods_file, "--runs", &runs])
            .current_dir(&dir);
        all.push_str(&output(parse)?);
        all.push_str(&sync_against_server(
            &bin("peers-serve"),
            &bin("peers-e2e"),
            &dir,
            &o,
        )?);
    } else {
        eprintln!("node not run: the Node rows are missing");
    }

    let report = render(&header, &o, rows_of(&all));
    let path = target.join("bench-results.md");
    std::fs::write(&path, &report).map_err(|e| format!("write {}: {e}", path.display()))?;
    println!("{report}");
    eprintln!("written to {}", path.display());
    let sizes: &[usize] = if o.quick {
        &[10_000]
    } else {
        &[10_000, 100_000]
    };
    let e2e = crate::e2ebench::cli_sync_bench(sizes, o.runs.min(3), o.kubectl)?;
    println!("{e2e}");
    if o.browser {
        crate::webbench::browser_bench()?;
        crate::webbench::discovery_bench(&[])?;
    }
    Ok(())
}

/// Starts `peers-serve` with `o.pods` pods, runs client-node's ListWatch and
/// kubelive's native client against it, stops it.
fn sync_against_server(
    serve: &PathBuf,
    e2e: &PathBuf,
    node_dir: &PathBuf,
    o: &Opts,
) -> Result<String, String> {
    let port = "18089";
    let mut server = Command::new(serve)
        .args(["--port", port, "--pods", &o.pods.to_string()])
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start peers-serve: {e}"))?;
    let mut first = String::new();
    if let Some(out) = server.stdout.take() {
        let _ = BufReader::new(out).read_line(&mut first);
    }
    let result = (|| {
        if !first.starts_with("listening") {
            return Err(format!("peers-serve did not start: {first:?}"));
        }
        let runs = o.runs.min(5).to_string();
        let mut s = String::new();
        let mut native = Command::new(e2e);
        native.args(["--server", &format!("127.0.0.1:{port}")]);
        native.args(["--pods", &o.pods.to_string(), "--runs", &runs]);
        s.push_str(&output(native)?);
        let mut lw = Command::new("node");
        lw.args(["--expose-gc", "listwatch.mjs", "--server"])
            .arg(format!("http://127.0.0.1:{port}"))
            .args(["--pods", &o.pods.to_string(), "--runs", &runs])
            .current_dir(node_dir);
        s.push_str(&output(lw)?);
        Ok(s)
    })();
    let _ = server.kill();
    let _ = server.wait();
    result
}

fn render(header: &str, o: &Opts, mut rows: Vec<Row>) -> String {
    let f = |r: &Row, c: &str| get(r, c).and_then(|v| v.trim_end_matches('x').parse::<f64>().ok());
    let kubelive_mbs = rows
        .iter()
        .find(|r| r.table == "throughput" && r.label.starts_with("kubelive"))
        .and_then(|r| f(r, "MB/s"));
    let kubelive_mem = rows
        .iter()
        .find(|r| r.table == "memory" && r.label.starts_with("kubelive"))
        .and_then(|r| f(r, "x raw JSON"));
    let kubelive_sync = rows
        .iter()
        .find(|r| r.table == "sync" && r.label.contains("one LIST"))
        .and_then(|r| f(r, "objects/s"));
    let scaling_mem: BTreeMap<String, Vec<(String, String)>> = rows
        .iter()
        .filter(|r| r.table == "scaling-memory")
        .map(|r| (r.label.clone(), r.cols.clone()))
        .collect();
    for r in &mut rows {
        match r.table.as_str() {
            "throughput-node" => {
                if let (Some(k), Some(v)) = (kubelive_mbs, f(r, "MB/s")) {
                    set(r, "kubelive speedup", format!("{:.1}x", k / v));
                }
                r.table = "throughput".into();
            }
            "memory-node" => {
                if let (Some(k), Some(v)) = (kubelive_mem, f(r, "x raw JSON")) {
                    set(r, "vs kubelive", format!("{:.1}x", v / k));
                }
                r.table = "memory".into();
            }
            "sync" if !r.label.starts_with("kubelive") => {
                if let (Some(k), Some(v)) = (kubelive_sync, f(r, "objects/s")) {
                    set(r, "kubelive one-LIST speedup", format!("{:.1}x", k / v));
                }
            }
            "scaling" => {
                if let Some(cols) = scaling_mem.get(&r.label) {
                    for (k, v) in cols {
                        if k != "objects" {
                            set(r, &format!("memory {k}"), v.clone());
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let table = |name: &str| -> Vec<&Row> { rows.iter().filter(|r| r.table == name).collect() };
    let input = |name: &str, col: &str| {
        rows.iter()
            .find(|r| r.table == name)
            .and_then(|r| get(r, col))
            .unwrap_or("?")
            .to_string()
    };
    let mut s = format!(
        "<!-- cargo xtask bench --events {} --pods {} --runs {} --scale {} -->\n\nMachine: {header}.\n\n",
        o.events, o.pods, o.runs, o.scale
    );
    s.push_str(&markdown(
        &format!(
            "Peers: decode + apply of {} watch events ({} bytes), medians of {} runs",
            input("throughput-input", "events"),
            input("throughput-input", "bytes"),
            input("throughput-input", "runs"),
        ),
        &table("throughput"),
    ));
    s.push_str(&markdown(
        &format!(
            "Memory held after caching {} pods ({} raw JSON bytes, {} bytes/pod)",
            input("memory-input", "pods"),
            input("memory-input", "raw bytes"),
            input("memory-input", "bytes/pod"),
        ),
        &table("memory"),
    ));
    s.push_str(&markdown(
        "Scaling (kubelive-core): initial sync from one LIST page, relist after a 410 with ~1% changed, memory",
        &table("scaling"),
    ));
    s.push_str(&markdown(
        "Time to synced over HTTP from the simulated apiserver (peers-serve over kubelive-sim's Cluster)",
        &table("sync"),
    ));
    s
}
