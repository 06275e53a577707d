//! The browser side: dist, demo, and the browser test steps (owned by the web work).
//!
//! * `dist`: release wasm (kubelive-web's `app` feature) -> wasm-bindgen (`--target
//!   web`) -> wasm-opt -Oz (binaryen from npm, else the PATH's) -> `dist/` with
//!   index.html, the app's module and CSS, the JS API example and the bench page; and
//!   the npm package in `dist/npm/` (`npm.rs`: the `watcher` feature alone).
//! * `demo`: dist + kubelive-sim with a churning workload + the real
//!   `kubectl proxy --www dist --www-prefix /ui/`; prints the URL; Ctrl-C stops all.
//! * test steps: clippy for wasm32, wasm-bindgen-test in headless Chromium, the
//!   Playwright end-to-end scripts in `web/tests`, and the npm package's step
//!   (`npm.rs`).

use crate::setup;
use crate::util::{cargo, command, have, root, run, Steps};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const WASM_TARGET: &str = "wasm32-unknown-unknown";
const CRATE_WASM: &str = "kubelive_web";

pub(crate) fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|p| if p.is_relative() { root().join(p) } else { p })
        .unwrap_or_else(|| root().join("target"))
}

pub(crate) fn dist_dir() -> PathBuf {
    root().join("dist")
}

/// Copies `from` (a file or a directory, recursively) to `to`.
pub(crate) fn copy(from: &Path, to: &Path) -> Result<(), String> {
    if from.is_dir() {
        std::fs::create_dir_all(to).map_err(|e| format!("mkdir {}: {e}", to.display()))?;
        let entries =
            std::fs::read_dir(from).map_err(|e| format!("read {}: {e}", from.display()))?;
        for entry in entries.flatten() {
            copy(&entry.path(), &to.join(entry.file_name()))?;
        }
        Ok(())
    } else {
        std::fs::copy(from, to)
            .map(|_| ())
            .map_err(|e| format!("copy {} -> {}: {e}", from.display(), to.display()))
    }
}

pub(crate) fn gzipped_size(path: &Path) -> Option<u64> {
    let out = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(path)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout.len() as u64)
}

/// `cargo xtask dist`: the release build of the web app into `dist/`, and the npm
/// package (the Watcher alone, without the Yew app) into `dist/npm/`.
pub fn dist(_args: &[String]) -> Result<(), String> {
    let dist = dist_dir();
    if dist.exists() {
        std::fs::remove_dir_all(&dist).map_err(|e| format!("cannot clear dist/: {e}"))?;
    }
    std::fs::create_dir_all(&dist).map_err(|e| format!("cannot create dist/: {e}"))?;
    let app = Wasm {
        profile: "wasm-release",
        features: &["--no-default-features", "--features", "app"],
        out_name: CRATE_WASM,
    };
    let bg = app.build(&dist)?;
    let web = root().join("web");
    copy(&root().join("index.html"), &dist.join("index.html"))?;
    for asset in ["app.js", "style.css"] {
        copy(&web.join(asset), &dist.join(asset))?;
    }
    for dir in ["example", "bench"] {
        if web.join(dir).exists() {
            copy(&web.join(dir), &dist.join(dir))?;
        }
    }
    let package = crate::npm::package(&dist)?;
    crate::npm::react_example(&dist)?;
    println!("dist: {}", dist.display());
    for wasm in [&bg, &package] {
        println!("  {}", crate::npm::Sizes::of(wasm));
    }
    Ok(())
}

/// One wasm build of kubelive-web, through wasm-bindgen (`--target web`) and wasm-opt.
pub(crate) struct Wasm {
    /// Its own profile directory, so builds with other features never replace it.
    pub profile: &'static str,
    /// Cargo arguments choosing features.
    pub features: &'static [&'static str],
    /// wasm-bindgen's `--out-name`: `<name>.js` and `<name>_bg.wasm`.
    pub out_name: &'static str,
}

impl Wasm {
    /// Builds into `out`; returns the optimised `_bg.wasm`.
    pub fn build(&self, out: &Path) -> Result<PathBuf, String> {
        let mut args = vec![
            "build",
            "-p",
            "kubelive-web",
            "--lib",
            "--target",
            WASM_TARGET,
            "--profile",
            self.profile,
        ];
        args.extend(self.features);
        run(cargo(&args))?;
        let wasm = target_dir()
            .join(WASM_TARGET)
            .join(self.profile)
            .join(format!("{CRATE_WASM}.wasm"));
        std::fs::create_dir_all(out).map_err(|e| format!("mkdir {}: {e}", out.display()))?;
        let mut bindgen = command("wasm-bindgen", &["--target", "web", "--out-name"]);
        bindgen
            .arg(self.out_name)
            .arg("--out-dir")
            .arg(out)
            .arg(&wasm);
        run(bindgen)?;
        let bg = out.join(format!("{}_bg.wasm", self.out_name));
        optimise(&bg)?;
        Ok(bg)
    }
}

/// wasm-opt -Oz in place (kept as built, already for size, when it cannot run).
fn optimise(bg: &Path) -> Result<(), String> {
    let Some(mut opt) = wasm_opt() else {
        eprintln!(
            "wasm-opt not found: the wasm is not size-optimised (npm install in web/ brings binaryen)"
        );
        return Ok(());
    };
    let optimised = bg.with_extension("opt.wasm");
    opt.args([
        "-Oz",
        "--enable-bulk-memory",
        "--enable-nontrapping-float-to-int",
        "--enable-sign-ext",
        "--enable-mutable-globals",
        "--enable-reference-types",
        "--enable-multivalue",
        "-o",
    ]);
    opt.arg(&optimised).arg(bg);
    // Should it still fail (a binaryen too old for this rustc's output), keep the
    // unoptimised module: it is already built for size.
    match run(opt) {
        Ok(()) => std::fs::rename(&optimised, bg)
            .map_err(|e| format!("cannot move the optimised wasm: {e}")),
        Err(e) => {
            let _ = std::fs::remove_file(&optimised);
            eprintln!("wasm-opt failed, keeping the unoptimised wasm: {e}");
            Ok(())
        }
    }
}

/// binaryen's wasm-opt: the npm package in `web/` (binaryen 132, installed with the
/// test packages when missing), which parses what this rustc emits (`table.fill`),
/// unlike the Debian binaryen 108; else whatever `wasm-opt` is on the PATH.
fn wasm_opt() -> Option<Command> {
    let web = root().join("web");
    let script = web.join("node_modules/binaryen/bin/wasm-opt");
    if !script.exists() && have("npm") && have("node") {
        let mut npm = command("npm", &["install", "--no-audit", "--no-fund"]);
        npm.current_dir(&web)
            .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
        if let Err(e) = run(npm) {
            eprintln!("cannot install binaryen from npm: {e}");
        }
    }
    if script.exists() && have("node") {
        let mut c = command("node", &[]);
        c.arg(&script);
        return Some(c);
    }
    have("wasm-opt").then(|| command("wasm-opt", &[]))
}

/// Child processes killed (and reaped) when dropped.
#[derive(Default)]
pub(crate) struct Children(Vec<(String, Child)>);

impl Children {
    pub(crate) fn add(&mut self, name: &str, child: Child) {
        self.0.push((name.to_string(), child));
    }

    /// The first child that exited, if any.
    fn exited(&mut self) -> Option<String> {
        for (name, child) in &mut self.0 {
            if let Ok(Some(status)) = child.try_wait() {
                return Some(format!("{name} exited ({status})"));
            }
        }
        None
    }

    fn pid(&self, name: &str) -> Option<u32> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, c)| c.id())
    }
}

impl Drop for Children {
    fn drop(&mut self) {
        for (_, child) in self.0.iter_mut().rev() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn port_free(port: u16) -> bool {
    TcpListener::bind(("127.0.0.1", port)).is_ok()
}

/// A port free now and not handed out before in this run: suites started side by side
/// ask at nearly the same moment, before any has bound its port, and the kernel may
/// offer a just-released port again (two proxies on one port cross the suites' wires).
pub(crate) fn free_port() -> Result<u16, String> {
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
    // Listeners held until a new port is found, so the kernel cannot offer them again.
    let mut held = Vec::new();
    for _ in 0..64 {
        let listener =
            TcpListener::bind(("127.0.0.1", 0)).map_err(|e| format!("no free port: {e}"))?;
        let port = listener
            .local_addr()
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        if !given.contains(&port) {
            given.push(port);
            return Ok(port);
        }
        held.push(listener);
    }
    Err("no free port not handed out already".into())
}

/// A plain HTTP GET (for readiness checks): status code and body.
pub(crate) fn http_get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    let code = out.split_whitespace().nth(1)?.parse().ok()?;
    let body = out.split_once("\r\n\r\n").map(|(_, b)| b.to_string())?;
    Some((code, body))
}

pub(crate) fn wait_http(
    port: u16,
    path: &str,
    what: &str,
    kids: &mut Children,
    secs: u64,
) -> Result<(), String> {
    let started = Instant::now();
    loop {
        if let Some((200, _)) = http_get(port, path) {
            return Ok(());
        }
        if let Some(e) = kids.exited() {
            return Err(format!("{what} is not up: {e}"));
        }
        if started.elapsed() > Duration::from_secs(secs) {
            return Err(format!(
                "{what} did not answer GET {path} on port {port} within {secs} s"
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// What the sim should simulate.
pub(crate) struct Cluster {
    pub objects: usize,
    pub churn: f64,
    pub faults: String,
    pub extra: Vec<String>,
}

/// A running sim behind kubectl proxy.
pub(crate) struct Running {
    kids: Children,
    pub proxy_port: u16,
    sim_port: u16,
    _tmp: TempDir,
}

impl Running {
    /// The kubeconfig that reaches the sim (for another kubectl in front of it).
    pub(crate) fn kubeconfig(&self) -> PathBuf {
        self._tmp.0.join("kubeconfig")
    }
}

pub(crate) struct TempDir(pub PathBuf);

impl TempDir {
    pub(crate) fn new(name: &str) -> Result<TempDir, String> {
        let dir = std::env::temp_dir().join(format!("kubelive-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("mkdir {}: {e}", dir.display()))?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(crate) fn sim_binary() -> Result<PathBuf, String> {
    Ok(release_bins(&[("kubelive-sim", "kubelive-sim")])?.remove(0))
}

/// Builds `(package, binary)` pairs in release, in one cargo call; their paths.
pub(crate) fn release_bins(bins: &[(&str, &str)]) -> Result<Vec<PathBuf>, String> {
    let mut args = vec!["build", "--release"];
    for (package, bin) in bins {
        args.extend(["-p", package, "--bin", bin]);
    }
    run(cargo(&args))?;
    let release = target_dir().join("release");
    bins.iter()
        .map(|(_, bin)| {
            let path = release.join(bin);
            if path.exists() {
                Ok(path)
            } else {
                Err(format!("{} was not built", path.display()))
            }
        })
        .collect()
}

/// Starts the sim and `kubectl proxy --www dist --www-prefix /ui/` in front of it.
pub(crate) fn start_cluster(
    c: &Cluster,
    preferred_proxy_port: u16,
    quiet: bool,
) -> Result<Running, String> {
    let sim = sim_binary()?;
    let tmp = TempDir::new("web")?;
    let mut kids = Children::default();
    let sim_port = free_port()?;
    let mut args = vec![
        "serve".to_string(),
        "--port".into(),
        sim_port.to_string(),
        "--objects".into(),
        c.objects.to_string(),
        "--churn".into(),
        c.churn.to_string(),
    ];
    if !c.faults.is_empty() {
        args.push("--faults".into());
        args.push(c.faults.clone());
    }
    args.extend(c.extra.iter().cloned());
    eprintln!("$ {} {}", sim.display(), args.join(" "));
    let mut cmd = Command::new(&sim);
    cmd.args(&args).stdout(Stdio::piped());
    if quiet {
        cmd.stderr(Stdio::null());
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start kubelive-sim: {e}"))?;
    let stdout = child.stdout.take();
    kids.add("kubelive-sim", child);
    if let Some(stdout) = stdout {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        eprintln!("{}", line.trim());
    }
    wait_http(sim_port, "/api", "kubelive-sim", &mut kids, 60)?;

    let kubeconfig = tmp.0.join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: sim\n  cluster:\n    server: http://127.0.0.1:{sim_port}\n\
             contexts:\n- name: sim\n  context:\n    cluster: sim\n    user: sim\ncurrent-context: sim\n\
             users:\n- name: sim\n  user: {{}}\n"
        ),
    )
    .map_err(|e| format!("cannot write kubeconfig: {e}"))?;
    let proxy_port = if preferred_proxy_port != 0 && port_free(preferred_proxy_port) {
        preferred_proxy_port
    } else {
        let p = free_port()?;
        if preferred_proxy_port != 0 {
            eprintln!("port {preferred_proxy_port} is busy; kubectl proxy uses {p}");
        }
        p
    };
    start_proxy(
        &kubeconfig,
        &dist_dir(),
        "/ui/",
        proxy_port,
        quiet,
        &mut kids,
    )?;
    Ok(Running {
        kids,
        proxy_port,
        sim_port,
        _tmp: tmp,
    })
}

/// `kubectl proxy --www <www> --www-prefix <prefix>` on `port` in front of the cluster
/// of `kubeconfig`, added to `kids`; returns once it serves the API and the files.
pub(crate) fn start_proxy(
    kubeconfig: &Path,
    www: &Path,
    prefix: &str,
    port: u16,
    quiet: bool,
    kids: &mut Children,
) -> Result<(), String> {
    let mut proxy = command("kubectl", &["proxy", "--port"]);
    proxy
        .arg(port.to_string())
        .arg("--www")
        .arg(www)
        .args(["--www-prefix", prefix, "--kubeconfig"])
        .arg(kubeconfig);
    if quiet {
        proxy.stdout(Stdio::null()).stderr(Stdio::null());
    }
    let child = proxy
        .spawn()
        .map_err(|e| format!("cannot start kubectl proxy: {e}"))?;
    kids.add("kubectl proxy", child);
    wait_http(port, "/api", "kubectl proxy", kids, 30)?;
    wait_http(port, prefix, "kubectl proxy (www)", kids, 10)
}

/// `cargo xtask demo [--pods N] [--churn R] [--faults SPEC] [--port P]`.
pub fn demo(args: &[String]) -> Result<(), String> {
    let mut cluster = Cluster {
        objects: 3000,
        churn: 40.0,
        faults: "cut=0.05,split=0.3,500=0.01".into(),
        extra: vec![
            "--namespaces".into(),
            "8".into(),
            "--compact-every".into(),
            "60".into(),
        ],
    };
    let mut port = 8001;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || it.next().cloned().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--pods" | "--objects" => {
                cluster.objects = val()?.parse().map_err(|_| "--pods: a number")?
            }
            "--churn" => cluster.churn = val()?.parse().map_err(|_| "--churn: a number")?,
            "--faults" => cluster.faults = val()?,
            "--port" => port = val()?.parse().map_err(|_| "--port: a number")?,
            other => return Err(format!("demo: unknown option {other:?}")),
        }
    }
    // A 410 now and then: a restart drops every watch; with compaction since the
    // watchers' last version the resume gets "too old resource version" and relists.
    let restarts: Vec<String> = (1..=20).map(|i| format!("restart@{}", i * 90)).collect();
    if !cluster.faults.contains("restart@") {
        cluster.faults = format!("{},{}", cluster.faults, restarts.join(","));
    }
    dist(&[])?;
    let mut running = start_cluster(&cluster, port, false)?;
    println!(
        "\nkubelive demo: {} pods churning {} changes/s, faults {}\n\n    http://127.0.0.1:{}/ui/\n\n\
         (kubectl proxy on port {}, kubelive-sim on port {}; Ctrl-C stops all)",
        cluster.objects,
        cluster.churn,
        cluster.faults,
        running.proxy_port,
        running.proxy_port,
        running.sim_port
    );
    loop {
        std::thread::sleep(Duration::from_millis(500));
        if let Some(e) = running.kids.exited() {
            return Err(e);
        }
    }
}

/// Adds the browser test steps (wasm-bindgen-test in Chromium, Playwright end to end).
pub fn test_steps(steps: &mut Steps) {
    steps.run(
        "web: cargo clippy (wasm32)",
        cargo(&[
            "clippy",
            "-p",
            "kubelive-web",
            "-p",
            "kubelive-table",
            "--all-targets",
            "--target",
            WASM_TARGET,
            "--",
            "-D",
            "warnings",
        ]),
    );
    // The table model's tests too: it runs in wasm in the app and the worker.
    let mut wasm_tests = cargo(&[
        "test",
        "-p",
        "kubelive-web",
        "-p",
        "kubelive-table",
        "--target",
        WASM_TARGET,
    ]);
    wasm_tests
        .env(
            "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER",
            "wasm-bindgen-test-runner",
        )
        .env("CHROMEDRIVER", "/usr/bin/chromedriver")
        .env("WASM_BINDGEN_TEST_TIMEOUT", "120");
    steps.step("web: wasm-bindgen-test (headless Chromium)", || {
        setup::web_tools()?;
        setup::browser()?;
        run(wasm_tests)
    });
    // The browser tests (tests/browser.rs; the unit tests run in Node, above) in Firefox
    // and WebKitGTK: the runner drives geckodriver, and WebKitWebDriver as it drives
    // safaridriver (both W3C WebDriver), inside Xvfb. WebKitGTK has no byte streams
    // (ReadableByteStreamController): the test of the byte-stream reader cannot build its
    // mock there; the default reader's test, the path WebKit's fetch takes, runs.
    let firefox = wasm_browser_tests("GECKODRIVER", "geckodriver", false, &[]);
    steps.step("web: wasm-bindgen-test (headless Firefox)", || {
        setup::other_browsers()?;
        run(firefox)
    });
    let webkit = wasm_browser_tests(
        "SAFARIDRIVER",
        "/usr/bin/WebKitWebDriver",
        true,
        &[
            "--skip",
            "driver_reads_byte_stream_bodies_into_its_own_buffer",
        ],
    );
    steps.step("web: wasm-bindgen-test (WebKitGTK in Xvfb)", || {
        setup::other_browsers()?;
        run(webkit)
    });
    steps.step("web: cargo xtask dist", || {
        setup::web_tools()?;
        dist(&[])
    });
    steps.step(
        "web: end to end (Playwright, kubectl proxy, sim under faults)",
        e2e,
    );
    steps.run(
        "web: cargo clippy of the Watcher-only wasm (no Yew app)",
        crate::npm::clippy(),
    );
    steps.step(
        "web: the npm package (npm pack, install, tsc --strict, the Watcher's contract through kubectl proxy)",
        crate::npm::test_step,
    );
}

/// `cargo test` of kubelive-web's browser tests in wasm, through the WebDriver server
/// that `driver_var` names (wasm-bindgen-test-runner's variables), with Firefox's
/// capabilities from `web/tests/xb/webdriver-firefox.json` (Debian's firefox-esr).
fn wasm_browser_tests(driver_var: &str, driver: &str, xvfb: bool, skip: &[&str]) -> Command {
    let test = [
        "test",
        "-p",
        "kubelive-web",
        "--target",
        WASM_TARGET,
        "--test",
        "browser",
        "--",
    ];
    let mut c = if xvfb {
        let mut c = command("xvfb-run", &["-a"]);
        c.arg(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(test);
        c
    } else {
        cargo(&test)
    };
    c.args(skip)
        .env(
            "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER",
            "wasm-bindgen-test-runner",
        )
        .env(driver_var, driver)
        .env(
            "WASM_BINDGEN_TEST_WEBDRIVER_JSON",
            root().join("web/tests/xb/webdriver-firefox.json"),
        )
        .env("WASM_BINDGEN_TEST_TIMEOUT", "120");
    c
}

/// Runs `scripts` one after another against a sim behind kubectl proxy started for
/// them (stopped after). Returns the failures.
fn on_cluster(
    cluster: &Cluster,
    scripts: &[&str],
    sim_pid: bool,
    artifacts: &Path,
    log: Option<&Path>,
) -> Vec<String> {
    let running = match start_cluster(cluster, 0, true) {
        Ok(r) => r,
        Err(e) => return vec![e],
    };
    let mut env = vec![
        (
            "BASE_URL",
            format!("http://127.0.0.1:{}", running.proxy_port),
        ),
        ("ARTIFACTS", artifacts.display().to_string()),
    ];
    if sim_pid {
        let pid = running.kids.pid("kubelive-sim").unwrap_or(0);
        env.push(("SIM_PID", pid.to_string()));
    }
    scripts
        .iter()
        .filter_map(|script| timed(script, logged(node_script(script, &env), log)).err())
        .collect()
}

/// Runs a script, saying how long it took.
fn timed(script: &str, cmd: Command) -> Result<(), String> {
    let started = Instant::now();
    let result = run(cmd);
    eprintln!(
        "e2e: {script} {} in {:.0} s",
        if result.is_ok() { "passed" } else { "FAILED" },
        started.elapsed().as_secs_f64()
    );
    result
}

pub(crate) fn node_script(script: &str, env: &[(&str, String)]) -> Command {
    let mut c = command("node", &[script]);
    c.current_dir(root().join("web"));
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

/// `cmd` with its output appended to `log`, if given (else inherited).
fn logged(mut cmd: Command, log: Option<&Path>) -> Command {
    let file = log.and_then(|l| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(l)
            .ok()
    });
    if let Some(f) = file {
        if let Ok(f2) = f.try_clone() {
            cmd.stdout(f).stderr(f2);
        }
    }
    cmd
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// Where a suite's scripts run.
enum Target {
    /// The script serves `dist` itself (a mock apiserver in node).
    Own,
    /// A sim behind kubectl proxy, started for the suite; `sim_pid`: the scripts get
    /// `SIM_PID` (to kill the sim at their end).
    Sim { cluster: Cluster, sim_pid: bool },
}

/// Browser scripts and what they run against.
struct Suite {
    scripts: &'static [&'static str],
    target: Target,
    /// Runs alongside the other suites (it mostly waits, for a deadline of minutes);
    /// its output goes to `artifacts/e2e-<script>.log`, shown at its end.
    alongside: bool,
}

impl Suite {
    /// A suite that runs in turn with the others.
    fn new(scripts: &'static [&'static str], target: Target) -> Suite {
        Suite {
            scripts,
            target,
            alongside: false,
        }
    }

    fn sim(scripts: &'static [&'static str], cluster: Cluster) -> Suite {
        Suite::new(
            scripts,
            Target::Sim {
                cluster,
                sim_pid: false,
            },
        )
    }

    /// Runs `scripts` (of this suite); the failures.
    fn run(&self, scripts: &[&str], artifacts: &Path, log: Option<&Path>) -> Vec<String> {
        match &self.target {
            Target::Own => {
                let env = [
                    ("DIST", dist_dir().display().to_string()),
                    ("ARTIFACTS", artifacts.display().to_string()),
                ];
                scripts
                    .iter()
                    .filter_map(|script| {
                        timed(script, logged(node_script(script, &env), log)).err()
                    })
                    .collect()
            }
            Target::Sim { cluster, sim_pid } => {
                on_cluster(cluster, scripts, *sim_pid, artifacts, log)
            }
        }
    }
}

/// The faults of the app's flaky suites: cuts, aborts, split frames, 5xx, 429, HTML pages.
const FLAKY: &str = "cut=0.3,abort=0.2,cut-within=20000,split=0.5,500=0.05,429=0.03,html=0.02";
/// Their sim: 4 namespaces, a short history (410s and relists) and frequent bookmarks.
const FLAKY_HISTORY: [&str; 8] = [
    "--namespaces",
    "4",
    "--compact-every",
    "5",
    "--watch-cache-window",
    "4",
    "--bookmark-every",
    "3",
];

/// The Playwright suites of the e2e step, in the order they run.
fn suites() -> Vec<Suite> {
    let calm = |objects: usize, churn: f64, extra: &[&str]| Cluster {
        objects,
        churn,
        faults: String::new(),
        extra: args(extra),
    };
    // A user who may list and watch pods in ns-1 and ns-2 (and what `more` allows).
    let jane = |more: &[&str]| {
        let mut extra = vec![
            "--namespaces",
            "4",
            "--user",
            "jane@example.com",
            "--allow",
            "list,watch:pods@ns-1,ns-2",
        ];
        extra.extend(more);
        calm(40, 5.0, &extra)
    };
    vec![
        // Issue 11: a watch goes silent (silent.mjs makes its connection half-open);
        // the churn stops before the engine's 150 s deadline, and the history is kept
        // so that the resume catches up from it. Started first, it runs alongside.
        Suite {
            alongside: true,
            ..Suite::sim(
                &["tests/silent.mjs"],
                calm(
                    30,
                    5.0,
                    &[
                        "--namespaces",
                        "3",
                        "--bookmark-every",
                        "2",
                        "--churn-for",
                        "45",
                        "--watch-cache-window",
                        "600",
                        "--compact-every",
                        "600",
                    ],
                ),
            )
        },
        // Hostile data: a mock apiserver (node) serving dist and objects full of markup.
        Suite::new(&["tests/hostile.mjs"], Target::Own),
        // The app and the JS API against the sim under faults, through kubectl proxy.
        // SIM_PID: app.mjs kills the sim at its end, to see a connection loss.
        Suite::new(
            &["tests/example.mjs", "tests/app.mjs"],
            Target::Sim {
                cluster: Cluster {
                    objects: 60,
                    churn: 4.0,
                    faults: format!("{FLAKY},restart@25,restart@50"),
                    extra: args(&FLAKY_HISTORY),
                },
                sim_pid: true,
            },
        ),
        // Issue 30: the app, the Watcher and <kubelive-table> in Firefox and WebKit
        // (WebDriver: geckodriver, WebKitWebDriver under Xvfb) against the same faults,
        // the sim restarting every 30 s (each browser in turn sees a relist).
        Suite::sim(
            &["tests/xb/run.mjs"],
            Cluster {
                objects: 60,
                churn: 4.0,
                faults: (1..=20).fold(FLAKY.to_string(), |faults, i| {
                    format!("{faults},restart@{}", 30 * i)
                }),
                extra: args(&FLAKY_HISTORY),
            },
        ),
        // Aggregated discovery; a pod's events, live; selectors and the small things; the
        // server's tables (every kind, wide, YAML detail, Secrets):
        // a calm, churning cluster (pods move in and out of `tier=backend`, change
        // phase, and their lives are written as Events), no faults.
        Suite::sim(
            &[
                "tests/discovery.mjs",
                "tests/events.mjs",
                // Issue 29: an object's history in the detail panel.
                "tests/history.mjs",
                "tests/selectors.mjs",
                "tests/tables.mjs",
                // Issue 30: any width from 360 px up; accessible (axe-core, the keyboard).
                "tests/widths.mjs",
                "tests/a11y.mjs",
            ],
            calm(60, 10.0, &["--namespaces", "4"]),
        ),
        // Issue 13: a user who may list pods in ns-1 and ns-2 only, and no namespaces.
        Suite::sim(&["tests/rbac.mjs"], jane(&[])),
        // The same user, allowed to list namespaces: her first visit offers ns-1, ns-2.
        Suite::sim(
            &["tests/rbac-offers.mjs"],
            jane(&["--allow", "list,watch:namespaces"]),
        ),
        // Issue 11: a flaky proxy cuts every watch about once a second while 400 pods
        // change 80 times a second, for 25 s.
        Suite::sim(
            &["tests/flaky.mjs"],
            Cluster {
                faults: "proxy-cut-every=1000".into(),
                ..calm(
                    400,
                    80.0,
                    &[
                        "--namespaces",
                        "8",
                        "--bookmark-every",
                        "1",
                        "--churn-for",
                        "25",
                    ],
                )
            },
        ),
        // Issue 15: client-node's informer (not kubelive) converges against the sim under
        // faults (cuts, splits, 5xx, 429, HTML, 410s): the sim's fidelity breaks no
        // correct client. Its CHURN_FOR default (30) is the --churn-for here.
        Suite::sim(
            &["../benches/node/informer.mjs"],
            Cluster {
                faults: "cut=0.3,abort=0.2,cut-within=20000,split=0.5,500=0.05,429=0.03,html=0.02,restart@20".into(),
                ..calm(
                    300,
                    30.0,
                    &[
                        "--namespaces",
                        "4",
                        "--churn-for",
                        "30",
                        "--compact-every",
                        "5",
                        "--watch-cache-window",
                        "4",
                        "--bookmark-every",
                        "3",
                    ],
                )
            },
        ),
        // Issue 26: the app's streaming sync through kubectl proxy against the sim as
        // releases that refuse a streaming list (1.27, 1.31: the WatchList gate is off)
        // and one that gzips it one member per flush (1.37), which a browser cannot read.
        Suite::sim(
            &["tests/releases.mjs"],
            calm(30, 5.0, &["--namespaces", "3", "--kube-version", "1.27"]),
        ),
        Suite::sim(
            &["tests/releases.mjs"],
            calm(30, 5.0, &["--namespaces", "3", "--kube-version", "1.31"]),
        ),
        Suite::sim(
            &["tests/releases.mjs"],
            calm(30, 5.0, &["--namespaces", "3", "--kube-version", "1.37"]),
        ),
        // A busy table: thousands of pods churning hundreds of times a second, no faults.
        Suite::sim(
            &["tests/live.mjs"],
            calm(5000, 300.0, &["--namespaces", "20"]),
        ),
        // Issue 16: a large table's header clicks, put in order in slices.
        Suite::sim(
            &["tests/bigsort.mjs"],
            calm(60_000, 200.0, &["--namespaces", "20"]),
        ),
        // The JS API's shared engine: tabs on one view share one LIST and one watch.
        Suite::sim(&["tests/shared.mjs"], calm(60, 2.0, &["--namespaces", "2"])),
        // Persisted views: a reload shows the kept rows and watches from their version;
        // kept past the 30 s watch cache window (restore.mjs's WATCH_CACHE_WINDOW), a
        // 410 and a relist.
        Suite::sim(
            &["tests/restore.mjs"],
            calm(60, 5.0, &["--namespaces", "2", "--watch-cache-window", "30"]),
        ),
        // Issue 29: the detail panel's owner tree and the tree view, against
        // Deployments rolling over (a new ReplicaSet every 8 s, one Deployment after the
        // other) and a StatefulSet.
        Suite::sim(
            &["tests/tree.mjs", "tests/forest.mjs"],
            calm(
                20,
                0.0,
                &[
                    "--namespaces",
                    "1",
                    "--rollout-every",
                    "8",
                    "--statefulsets",
                    "1",
                ],
            ),
        ),
        // The same for a user who may list Deployments and ReplicaSets, not Pods.
        Suite::sim(
            &["tests/tree-rbac.mjs"],
            calm(
                20,
                0.0,
                &[
                    "--namespaces",
                    "1",
                    "--user",
                    "jane@example.com",
                    "--allow",
                    "get,list,watch:deployments.apps@ns-0",
                    "--allow",
                    "get,list,watch:replicasets.apps@ns-0",
                ],
            ),
        ),
        // The app keeps the view it shows: a reload shows its rows and lists nothing;
        // a page in the back/forward cache holds no watch, and shown again lists nothing.
        Suite::sim(
            &["tests/reload.mjs", "tests/bfcache.mjs"],
            calm(60, 2.0, &["--namespaces", "2"]),
        ),
    ]
}

/// The Playwright scripts (all, or those whose names contain one of `only`), each
/// suite against what it needs.
fn e2e_scripts(only: &[String]) -> Result<(), String> {
    setup::browser()?;
    if only.is_empty() || only.iter().any(|o| "tests/xb/run.mjs".contains(o.as_str())) {
        setup::other_browsers()?;
    }
    setup::npm_packages()?;
    setup::node_peers()?;
    if !dist_dir().join(format!("{CRATE_WASM}_bg.wasm")).exists() {
        dist(&[])?;
    }
    // Built once here, so that suites running side by side do not wait for cargo.
    sim_binary()?;
    let artifacts = root().join("artifacts");
    let _ = std::fs::create_dir_all(&artifacts);
    let started = Instant::now();
    let mut failures = Vec::new();
    let mut ran = 0;
    let chosen: Vec<(Suite, Vec<&str>)> = suites()
        .into_iter()
        .map(|suite| {
            let scripts = suite
                .scripts
                .iter()
                .copied()
                .filter(|s| only.is_empty() || only.iter().any(|o| s.contains(o.as_str())))
                .collect::<Vec<_>>();
            (suite, scripts)
        })
        .filter(|(_, scripts)| !scripts.is_empty())
        .collect();
    std::thread::scope(|scope| {
        let mut beside = Vec::new();
        for (suite, scripts) in chosen.iter().filter(|(s, _)| s.alongside) {
            ran += scripts.len();
            let name = scripts[0]
                .trim_start_matches("tests/")
                .trim_end_matches(".mjs");
            let log = artifacts.join(format!("e2e-{name}.log"));
            let _ = std::fs::remove_file(&log);
            eprintln!(
                "e2e: {} alongside the others (output: {})",
                scripts.join(" "),
                log.display()
            );
            let artifacts = &artifacts;
            beside.push((
                log.clone(),
                scope.spawn(move || suite.run(scripts, artifacts, Some(&log))),
            ));
        }
        for (suite, scripts) in chosen.iter().filter(|(s, _)| !s.alongside) {
            ran += scripts.len();
            failures.extend(suite.run(scripts, &artifacts, None));
        }
        for (log, handle) in beside {
            let failed = handle
                .join()
                .unwrap_or_else(|_| vec!["a suite's thread panicked".into()]);
            eprintln!("\n==> {}", log.display());
            eprint!("{}", std::fs::read_to_string(&log).unwrap_or_default());
            failures.extend(failed);
        }
    });
    if ran == 0 {
        return Err(format!("no e2e script matches {only:?}"));
    }
    eprintln!(
        "e2e: {ran} script(s) in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}

/// The e2e step of `cargo xtask test`: every script.
fn e2e() -> Result<(), String> {
    e2e_scripts(&[])
}

/// `cargo xtask e2e [--repeat N] [NAME...]`: the browser end-to-end scripts (those
/// whose file names contain a NAME, or all), N times; builds dist first.
pub fn e2e_command(argv: &[String]) -> Result<(), String> {
    let mut repeat = 1;
    let mut only = Vec::new();
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--repeat" => {
                repeat = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--repeat: a number")?
            }
            name => only.push(name.to_string()),
        }
    }
    dist(&[])?;
    let mut failed = 0;
    for round in 1..=repeat {
        if let Err(e) = e2e_scripts(&only) {
            failed += 1;
            eprintln!("e2e round {round}/{repeat} FAILED: {e}");
        }
    }
    if failed == 0 {
        Ok(())
    } else {
        Err(format!("{failed} of {repeat} round(s) failed"))
    }
}
