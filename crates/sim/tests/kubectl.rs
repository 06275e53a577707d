//! The real `kubectl` (the reference client) against the `kubelive-sim` binary.
//! Skipped (with a message) when kubectl is not installed.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

mod support;

/// A child process killed on drop.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn kubectl_path() -> Option<PathBuf> {
    ["/usr/bin/kubectl", "/usr/local/bin/kubectl"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kubelive-sim-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Lines of a child's stdout, as they come.
fn line_channel(r: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines() {
            let Ok(l) = line else { break };
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    rx
}

struct Sim {
    _p: Proc,
    url: String,
    port: u16,
    log: PathBuf,
}

fn start_sim(dir: &Path, args: &[&str]) -> Sim {
    let log = dir.join("sim.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubelive-sim"))
        .args(["serve", "--port", "0", "--verbose", "--seed", "5"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let rx = line_channel(child.stdout.take().unwrap());
    let p = Proc(child);
    let first = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("sim printed no URL");
    let url = first
        .strip_prefix("kubelive-sim listening on ")
        .expect(&first)
        .to_string();
    let port = url.rsplit(':').next().unwrap().parse().unwrap();
    Sim {
        _p: p,
        url,
        port,
        log,
    }
}

fn kubeconfig(dir: &Path, kubectl: &Path, url: &str) -> PathBuf {
    let kc = dir.join("kubeconfig");
    for args in [
        vec!["config", "set-cluster", "sim", &format!("--server={url}")],
        vec!["config", "set-context", "sim", "--cluster=sim"],
        vec!["config", "use-context", "sim"],
    ] {
        let st = Command::new(kubectl)
            .args(&args)
            .env("KUBECONFIG", &kc)
            .output()
            .unwrap();
        assert!(st.status.success(), "{:?}", st);
    }
    kc
}

/// Runs kubectl to completion (bounded), returning stdout; panics with stderr on failure.
fn run(kubectl: &Path, kc: &Path, args: &[&str]) -> String {
    let (ok, stdout, stderr) = run_status(kubectl, kc, args);
    assert!(ok, "kubectl {args:?} failed: {stderr}\n{stdout}");
    stdout
}

/// Runs kubectl to completion (bounded): (succeeded, stdout, stderr). Discovery is cached
/// next to the kubeconfig, never in the user's home.
fn run_status(kubectl: &Path, kc: &Path, args: &[&str]) -> (bool, String, String) {
    let cache = kc.with_file_name("cache");
    let child = Command::new(kubectl)
        .args(args)
        .arg(format!("--cache-dir={}", cache.display()))
        .env("KUBECONFIG", kc)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let Ok(out) = rx.recv_timeout(Duration::from_secs(30)) else {
        let _ = Command::new("kill").arg(pid.to_string()).status();
        panic!("kubectl {args:?} timed out");
    };
    let out = out.unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A plain HTTP GET (Connection: close); returns the raw response bytes.
fn http_get(port: u16, path: &str, read_for: Duration) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = Vec::new();
    let deadline = Instant::now() + read_for;
    let mut buf = [0u8; 65536];
    while Instant::now() < deadline {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(_) => {}
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn list_rv(port: u16, path: &str) -> String {
    let v = support::get(port, path, &[]).json();
    v["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn kubectl_get_lists_pages_and_resources() {
    let Some(k) = kubectl_path() else {
        eprintln!("kubectl not installed: skipped");
        return;
    };
    let dir = tmpdir("get");
    let sim = start_sim(&dir, &["--objects", "30", "--churn", "0"]);
    let kc = kubeconfig(&dir, &k, &sim.url);

    let out = run(&k, &kc, &["get", "pods", "-A"]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("NAMESPACE"), "{out}");
    assert_eq!(lines.len(), 31, "{out}");

    let v: serde_json::Value =
        serde_json::from_str(&run(&k, &kc, &["get", "pods", "-A", "-o", "json"])).unwrap();
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 30);
    assert_eq!(items[0]["kind"], "Pod");
    assert!(items[0]["spec"]["containers"][0]["image"].is_string());

    let out = run(
        &k,
        &kc,
        &["get", "pods", "-A", "-l", "app=app-1", "-o", "name"],
    );
    assert_eq!(out.lines().count(), 10, "{out}");
    assert!(out.lines().all(|l| l.starts_with("pod/app-1-")), "{out}");

    let out = run(
        &k,
        &kc,
        &["get", "pods", "-A", "--chunk-size=7", "-o", "name"],
    );
    assert_eq!(out.lines().count(), 30, "{out}");
    let log = std::fs::read_to_string(&sim.log).unwrap();
    assert_eq!(log.matches("/api/v1/pods?continue=").count(), 4, "{log}");

    let out = run(&k, &kc, &["get", "deploy", "-A"]);
    assert_eq!(out.lines().count(), 4, "{out}");
    let out = run(&k, &kc, &["get", "widgets", "-A"]);
    assert!(out.contains("widget-0"), "{out}");
    let out = run(&k, &kc, &["get", "ns"]);
    assert!(out.contains("ns-2"), "{out}");
    let out = run(&k, &kc, &["get", "cm", "-n", "ns-0"]);
    assert!(out.contains("app-0-config"), "{out}");
    // One object by name.
    let name = items[0]["metadata"]["name"].as_str().unwrap();
    let ns = items[0]["metadata"]["namespace"].as_str().unwrap();
    let one: serde_json::Value =
        serde_json::from_str(&run(&k, &kc, &["get", "pod", "-n", ns, name, "-o", "json"])).unwrap();
    assert_eq!(one["metadata"]["uid"], items[0]["metadata"]["uid"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kubectl_watch_receives_changes() {
    let Some(k) = kubectl_path() else {
        eprintln!("kubectl not installed: skipped");
        return;
    };
    let dir = tmpdir("watch");
    let sim = start_sim(&dir, &["--objects", "10", "--churn", "20"]);
    let kc = kubeconfig(&dir, &k, &sim.url);
    let mut child = Command::new(&k)
        .args(["get", "pods", "-A", "-w", "--output-watch-events"])
        .env("KUBECONFIG", &kc)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let rx = line_channel(child.stdout.take().unwrap());
    let _p = Proc(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    let (mut added, mut changes) = (0, 0);
    while Instant::now() < deadline && changes < 5 {
        if let Ok(l) = rx.recv_timeout(Duration::from_millis(200)) {
            if l.starts_with("ADDED") {
                added += 1;
            }
            if l.starts_with("MODIFIED") || l.starts_with("DELETED") {
                changes += 1;
            }
        }
    }
    assert!(added >= 10, "initial list shown as ADDED: {added}");
    assert!(changes >= 5, "watch changes seen: {changes}");
    let log = std::fs::read_to_string(&sim.log).unwrap();
    assert!(log.contains("watch=true"), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kubectl_proxy_passes_watch_unbuffered() {
    let Some(k) = kubectl_path() else {
        eprintln!("kubectl not installed: skipped");
        return;
    };
    let dir = tmpdir("proxy");
    let sim = start_sim(&dir, &["--objects", "10", "--churn", "10"]);
    let kc = kubeconfig(&dir, &k, &sim.url);
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(&k)
        .args(["proxy", "--port", &port.to_string()])
        .env("KUBECONFIG", &kc)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let rx = line_channel(child.stdout.take().unwrap());
    let _p = Proc(child);
    let first = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("proxy did not start");
    assert!(first.contains("Starting to serve"), "{first}");

    let rv = list_rv(port, "/api/v1/pods");
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    write!(s, "GET /api/v1/pods?watch=true&resourceVersion={rv}&timeoutSeconds=60 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    let start = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 65536];
    let mut events = 0;
    while start.elapsed() < Duration::from_secs(15) && events < 3 {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(_) => {}
        }
        events = String::from_utf8_lossy(&got)
            .matches("{\"type\":\"")
            .count();
    }
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(
        events >= 3,
        "events through the proxy while the watch is open: {events}\n{text}"
    );
    // The watch is still open (timeoutSeconds=60): events came through unbuffered.
    assert!(start.elapsed() < Duration::from_secs(15));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn http_wire_format() {
    let dir = tmpdir("http");
    let sim = start_sim(
        &dir,
        &["--objects", "5", "--churn", "0", "--faults", "compact@0.3"],
    );
    std::thread::sleep(Duration::from_millis(500));
    let r = http_get(sim.port, "/api/v1/nothing", Duration::from_secs(5));
    assert!(r.starts_with("HTTP/1.1 404"), "{r}");
    assert!(r.contains("\"kind\":\"Status\""), "{r}");
    let r = http_get(
        sim.port,
        "/api/v1/pods?watch=true&sendInitialEvents=true",
        Duration::from_secs(5),
    );
    assert!(r.starts_with("HTTP/1.1 422"), "{r}");
    // Too-old watch (history compacted at start): 200, one ERROR line, terminating chunk.
    let r = http_get(
        sim.port,
        "/api/v1/pods?watch=true&resourceVersion=1",
        Duration::from_secs(5),
    );
    assert!(r.starts_with("HTTP/1.1 200"), "{r}");
    assert!(
        r.to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "{r}"
    );
    assert!(
        r.contains("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\""),
        "{r}"
    );
    assert!(r.contains("\"code\":410"), "{r}");
    assert!(r.ends_with("\r\n0\r\n\r\n"), "clean end: {r:?}");
    // Too-large list: 504 with Retry-After after the wait.
    let rv: u64 = list_rv(sim.port, "/api/v1/pods").parse().unwrap();
    let t = Instant::now();
    let r = http_get(
        sim.port,
        &format!("/api/v1/pods?resourceVersion={}", rv + 100),
        Duration::from_secs(6),
    );
    assert!(t.elapsed() >= Duration::from_millis(2900));
    assert!(r.starts_with("HTTP/1.1 504"), "{r}");
    assert!(r.contains("Retry-After: 1"), "{r}");
    assert!(r.contains("Too large resource version"), "{r}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Columns of a kubectl table, by header name.
fn rows(table: &str) -> Vec<Vec<String>> {
    table
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().map(String::from).collect())
        .collect()
}

/// `kubectl api-resources` and `kubectl get all` (kubectl 1.32) read the sim's aggregated
/// discovery: one request each for `/api` and `/apis`, never the per-group documents; the
/// categories make `get all` list pods, services, deployments, replicasets, statefulsets, jobs and cronjobs (as the real
/// registry's `Categories()` say) and not configmaps; `--verbs=list` leaves out the review
/// resources (create only).
#[test]
fn kubectl_discovery_api_resources_and_get_all() {
    let Some(k) = kubectl_path() else {
        eprintln!("kubectl not installed: skipped");
        return;
    };
    let dir = tmpdir("discovery");
    let sim = start_sim(&dir, &["--objects", "12", "--churn", "0"]);
    let kc = kubeconfig(&dir, &k, &sim.url);

    let out = run(&k, &kc, &["api-resources"]);
    let table = rows(&out);
    let row = |name: &str| -> Vec<String> {
        table
            .iter()
            .find(|r| r[0] == name)
            .unwrap_or_else(|| panic!("{name} missing:\n{out}"))
            .clone()
    };
    assert_eq!(row("pods"), ["pods", "po", "v1", "true", "Pod"]);
    assert_eq!(row("nodes"), ["nodes", "no", "v1", "false", "Node"]);
    assert_eq!(row("secrets"), ["secrets", "v1", "true", "Secret"]);
    assert_eq!(row("events"), ["events", "ev", "v1", "true", "Event"]);
    assert_eq!(
        row("services"),
        ["services", "svc", "v1", "true", "Service"]
    );
    assert_eq!(
        row("replicasets"),
        ["replicasets", "rs", "apps/v1", "true", "ReplicaSet"]
    );
    assert_eq!(
        row("widgets"),
        ["widgets", "wg", "kubelive.dev/v1", "true", "Widget"]
    );
    // pkg/registry/apps/statefulset/storage and core/persistentvolumeclaim/storage.
    assert_eq!(
        row("statefulsets"),
        ["statefulsets", "sts", "apps/v1", "true", "StatefulSet"]
    );
    assert_eq!(
        row("persistentvolumeclaims"),
        [
            "persistentvolumeclaims",
            "pvc",
            "v1",
            "true",
            "PersistentVolumeClaim"
        ]
    );
    assert_eq!(
        row("selfsubjectaccessreviews"),
        [
            "selfsubjectaccessreviews",
            "authorization.k8s.io/v1",
            "false",
            "SelfSubjectAccessReview"
        ]
    );
    let listable = run(&k, &kc, &["api-resources", "--verbs=list", "-o", "name"]);
    assert!(listable.lines().any(|l| l == "pods"), "{listable}");
    assert!(!listable.contains("selfsubject"), "{listable}");
    let all = run(
        &k,
        &kc,
        &["api-resources", "--categories=all", "-o", "name"],
    );
    let mut all: Vec<&str> = all.lines().collect();
    all.sort();
    assert_eq!(
        all,
        [
            "cronjobs.batch",
            "deployments.apps",
            "jobs.batch",
            "pods",
            "replicasets.apps",
            "services",
            "statefulsets.apps"
        ]
    );

    let out = run(&k, &kc, &["get", "all", "-A"]);
    assert!(
        out.lines().filter(|l| l.contains(" pod/")).count() == 12,
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.contains(" deployment.apps/")),
        "{out}"
    );
    let log = std::fs::read_to_string(&sim.log).unwrap();
    for path in [
        "/api/v1/pods",
        "/api/v1/services",
        "/apis/apps/v1/deployments",
        "/apis/apps/v1/replicasets",
    ] {
        assert!(
            log.contains(&format!("GET {path}?")),
            "get all listed {path}:\n{log}"
        );
    }
    assert!(!log.contains("GET /api/v1/configmaps"), "{log}");
    let fetched = |path: &str| {
        log.lines().any(|l| {
            l.contains(&format!("GET {path} ")) || l.contains(&format!("GET {path}?timeout"))
        })
    };
    assert!(
        log.lines().any(|l| l.contains("GET /apis?timeout=32s (Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")),
        "{log}"
    );
    assert!(
        !fetched("/api/v1") && !fetched("/apis/apps/v1") && !fetched("/apis/kubelive.dev/v1"),
        "aggregated discovery only:\n{log}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `kubectl auth can-i` against the RBAC mode gives kubectl's own answers (it asks
/// SelfSubjectAccessReview / SelfSubjectRulesReview); forbidden requests show the
/// apiserver's message through kubectl.
#[test]
fn kubectl_auth_can_i_in_rbac_mode() {
    let Some(k) = kubectl_path() else {
        eprintln!("kubectl not installed: skipped");
        return;
    };
    let dir = tmpdir("rbac");
    let sim = start_sim(
        &dir,
        &[
            "--objects",
            "12",
            "--churn",
            "0",
            "--allow",
            "list,watch:pods@ns-0,ns-1",
        ],
    );
    let kc = kubeconfig(&dir, &k, &sim.url);
    let can = |args: &[&str]| -> (bool, String) {
        let mut full = vec!["auth", "can-i"];
        full.extend_from_slice(args);
        let (ok, out, _) = run_status(&k, &kc, &full);
        (ok, out.trim().to_string())
    };
    assert_eq!(can(&["list", "pods", "-n", "ns-0"]), (true, "yes".into()));
    assert_eq!(can(&["watch", "pods", "-n", "ns-1"]), (true, "yes".into()));
    assert_eq!(can(&["list", "pods", "-n", "ns-2"]), (false, "no".into()));
    assert_eq!(can(&["get", "pods", "-n", "ns-0"]), (false, "no".into()));
    assert_eq!(can(&["list", "pods", "-A"]), (false, "no".into()));
    assert_eq!(can(&["list", "namespaces"]), (false, "no".into()));
    assert_eq!(
        can(&["create", "selfsubjectaccessreviews"]),
        (true, "yes".into())
    );

    let (ok, rules, err) = run_status(&k, &kc, &["auth", "can-i", "--list", "-n", "ns-0"]);
    assert!(ok, "{err}");
    let table = rows(&rules);
    assert!(
        table
            .iter()
            .any(|r| r == &["pods", "[]", "[]", "[list", "watch]"]),
        "{rules}"
    );
    assert!(
        table.iter().any(|r| r
            == &[
                "selfsubjectaccessreviews.authorization.k8s.io",
                "[]",
                "[]",
                "[create]"
            ]),
        "{rules}"
    );
    assert!(
        table.iter().any(|r| r == &["[/api/*]", "[]", "[get]"]),
        "{rules}"
    );
    let (_, rules, _) = run_status(&k, &kc, &["auth", "can-i", "--list", "-n", "ns-2"]);
    assert!(!rows(&rules).iter().any(|r| r[0] == "pods"), "{rules}");

    let (ok, _, err) = run_status(&k, &kc, &["get", "pods", "-n", "ns-2"]);
    assert!(!ok);
    assert!(
        err.contains("Error from server (Forbidden): pods is forbidden: User \"jane@example.com\" cannot list resource \"pods\" in API group \"\" in the namespace \"ns-2\""),
        "{err}"
    );
    let out = run(&k, &kc, &["get", "pods", "-n", "ns-0", "-o", "name"]);
    assert!(
        out.lines().count() > 0 && out.lines().all(|l| l.starts_with("pod/")),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// gzip through `kubectl proxy`: the proxy forwards the client's `Accept-Encoding` and
/// passes the compressed body through untouched (what the browser gets); kubectl itself
/// (client-go) asks for gzip and decodes it.
#[test]
fn kubectl_proxy_passes_gzip_through() {
    let Some(k) = kubectl_path() else {
        eprintln!("kubectl not installed: skipped");
        return;
    };
    let dir = tmpdir("gzip");
    // No lease renewals: the two lists must be the same bytes.
    let sim = start_sim(&dir, &["--objects", "300", "--churn", "0", "--no-leases"]);
    let kc = kubeconfig(&dir, &k, &sim.url);
    let out = run(&k, &kc, &["get", "pods", "-A", "-o", "name"]);
    assert_eq!(out.lines().count(), 300);
    let log = std::fs::read_to_string(&sim.log).unwrap();
    assert!(
        log.lines()
            .any(|l| l.contains("GET /api/v1/pods?") && l.contains("Accept-Encoding: gzip")),
        "kubectl asks for gzip:\n{log}"
    );

    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(&k)
        .args(["proxy", "--port", &port.to_string()])
        .env("KUBECONFIG", &kc)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let rx = line_channel(child.stdout.take().unwrap());
    let _p = Proc(child);
    rx.recv_timeout(Duration::from_secs(10))
        .expect("proxy did not start");
    let plain = support::get(port, "/api/v1/pods", &[]);
    let gz = support::get(
        port,
        "/api/v1/pods",
        &[("Accept-Encoding", "gzip, deflate, br")],
    );
    assert_eq!(plain.header("content-encoding"), None);
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    assert!(gz.body.len() * 4 < plain.body.len());
    assert_eq!(gz.decoded(), plain.body);
    assert_eq!(gz.json()["items"].as_array().unwrap().len(), 300);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Field selectors per kind through kubectl: pods by `spec.nodeName`, and the
/// apiserver's refusal of a field the kind does not support.
#[test]
fn kubectl_field_selectors() {
    let Some(k) = kubectl_path() else {
        eprintln!("kubectl not installed: skipped");
        return;
    };
    let dir = tmpdir("fields");
    let sim = start_sim(&dir, &["--objects", "40", "--churn", "0"]);
    let kc = kubeconfig(&dir, &k, &sim.url);
    let all: serde_json::Value =
        serde_json::from_str(&run(&k, &kc, &["get", "pods", "-A", "-o", "json"])).unwrap();
    let node = all["items"][0]["spec"]["nodeName"]
        .as_str()
        .unwrap()
        .to_string();
    let want = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["spec"]["nodeName"] == node.as_str())
        .count();
    let sel = format!("spec.nodeName={node}");
    let got: serde_json::Value = serde_json::from_str(&run(
        &k,
        &kc,
        &["get", "pods", "-A", "--field-selector", &sel, "-o", "json"],
    ))
    .unwrap();
    let items = got["items"].as_array().unwrap();
    assert_eq!(items.len(), want);
    assert!(items.iter().all(|i| i["spec"]["nodeName"] == node.as_str()));
    let out = Command::new(&k)
        .args(["get", "pods", "-A", "--field-selector", "status.hostIP=1"])
        .env("KUBECONFIG", &kc)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("field label not supported: status.hostIP"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reads a response for `secs`, noting when each piece came: (ms since the request,
/// bytes), and whether the response ended: the server closed the connection, or the
/// chunked body ended cleanly (the connection then stays open for the next request).
fn timed_get(port: u16, path: &str, secs: u64) -> (Vec<(u128, Vec<u8>)>, bool) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    let t0 = Instant::now();
    let mut pieces = Vec::new();
    let mut buf = [0u8; 65536];
    while t0.elapsed() < Duration::from_secs(secs) {
        match s.read(&mut buf) {
            Ok(0) => return (pieces, true),
            Ok(n) => {
                pieces.push((t0.elapsed().as_millis(), buf[..n].to_vec()));
                let tail: Vec<u8> = pieces
                    .iter()
                    .rev()
                    .take(2)
                    .rev()
                    .flat_map(|p| p.1.iter().copied())
                    .collect();
                if tail.ends_with(b"\r\n0\r\n\r\n") {
                    return (pieces, true);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return (pieces, true),
            Err(_) => {}
        }
    }
    (pieces, false)
}

/// The faults the freshness work needs, through the HTTP server: a proxy that cuts every
/// watch after about a second, and a watch that goes silent and stays open.
#[test]
fn http_proxy_cut_and_silent_watches() {
    let dir = tmpdir("cutsilent");
    let sim = start_sim(
        &dir,
        &[
            "--objects",
            "5",
            "--churn",
            "20",
            "--faults",
            "proxy-cut-every=1000",
        ],
    );
    for _ in 0..3 {
        let (pieces, closed) = timed_get(sim.port, "/api/v1/pods?watch=true", 4);
        assert!(closed, "cut within 4 s");
        let last = pieces.last().map(|p| p.0).unwrap_or(0);
        // Life is 500-1500 ms; the upper bound leaves room for a busy machine.
        assert!((400..=3000).contains(&last), "cut after {last} ms");
        let bytes: Vec<u8> = pieces.iter().flat_map(|p| p.1.iter().copied()).collect();
        let body = String::from_utf8_lossy(&bytes).to_string();
        assert!(body.contains("\"type\":\"ADDED\""), "{body}");
    }
    drop(sim);
    let sim = start_sim(
        &dir,
        &["--objects", "5", "--churn", "20", "--faults", "silent@2"],
    );
    let (pieces, closed) = timed_get(
        sim.port,
        "/api/v1/pods?watch=true&allowWatchBookmarks=true&timeoutSeconds=3",
        6,
    );
    assert!(
        !closed,
        "a silent watch is never ended by the server, even past its timeout"
    );
    let before: usize = pieces
        .iter()
        .filter(|p| p.0 < 1500)
        .map(|p| p.1.len())
        .sum();
    let after: usize = pieces
        .iter()
        .filter(|p| p.0 >= 2500)
        .map(|p| p.1.len())
        .sum();
    assert!(before > 0, "events flowed before");
    assert_eq!(after, 0, "nothing after it went silent");
    let _ = std::fs::remove_dir_all(&dir);
}

fn unix_ms_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// `kubectl get <what> -A` (or without `-A` for cluster-scoped kinds), `-o wide` when
/// `wide`, against what the printers give for the same objects read back with
/// `kubectl get -o json`: kubectl's header (NAMESPACE, then the server's column names
/// upper-cased; priority-1 columns with `-o wide` only) and cells. Age-like cells are
/// compared at some instant of the time kubectl ran.
fn compare_with_printers(
    k: &Path,
    kc: &Path,
    what: &str,
    namespaced: bool,
    wide: bool,
    conv: &kubelive_sim::printers::TableConvertor,
) {
    let mut args = vec!["get", what];
    if namespaced {
        args.push("-A");
    }
    if wide {
        args.extend(["-o", "wide"]);
    }
    let before = unix_ms_now() - 1000;
    let out = run(k, kc, &args);
    let after = unix_ms_now() + 1000;
    let mut json_args = vec!["get", what, "-o", "json"];
    if namespaced {
        json_args.push("-A");
    }
    let list: serde_json::Value = serde_json::from_str(&run(k, kc, &json_args)).unwrap();
    let shown: Vec<usize> = conv
        .columns()
        .iter()
        .enumerate()
        .filter(|(_, c)| wide || c.priority == 0)
        .map(|(i, _)| i)
        .collect();
    let mut header: Vec<String> = Vec::new();
    if namespaced {
        header.push("NAMESPACE".into());
    }
    header.extend(shown.iter().map(|i| conv.columns()[*i].name.to_uppercase()));
    let g = support::grid(&out);
    assert_eq!(g[0], header, "kubectl get {what}:\n{out}");
    let items = list["items"].as_array().unwrap();
    assert!(!items.is_empty(), "{what}: the sim has some");
    let mut got: Vec<Vec<String>> = g[1..].to_vec();
    got.sort();
    let rows_at = |now: i64| {
        let mut rows: Vec<Vec<String>> = items
            .iter()
            .map(|item| {
                let texts = conv.row(item).texts(now);
                let mut r = Vec::new();
                if namespaced {
                    r.push(item["metadata"]["namespace"].as_str().unwrap().to_string());
                }
                r.extend(shown.iter().map(|i| texts[*i].clone()));
                r
            })
            .collect();
        rows.sort();
        rows
    };
    let matched = (before..=after).step_by(250).any(|now| rows_at(now) == got);
    assert!(
        matched,
        "kubectl get {what}{}:\n{out}\nprinters (at the start):\n{:?}",
        if wide { " -o wide" } else { "" },
        rows_at(before + 1000)
    );
}

/// The real kubectl against the sim: every kind users look at prints the same headers and
/// cells as the printers give for the same objects (kubectl asks for
/// `as=Table;v=v1;g=meta.k8s.io` and prints the server's columns); `get all` shows pods,
/// services, deployments and replicasets.
#[test]
fn kubectl_prints_the_servers_tables_for_every_kind() {
    use kubelive_sim::printers::TableConvertor;
    let Some(k) = kubectl_path() else {
        eprintln!("kubectl not installed: skipped");
        return;
    };
    let dir = tmpdir("tables");
    let sim = start_sim(&dir, &["--objects", "40", "--churn", "0"]);
    let kc = kubeconfig(&dir, &k, &sim.url);
    let crd: serde_json::Value =
        serde_json::from_str(&kubelive_sim::kinds::widget_crd("", None, 0)).unwrap();
    let widgets = TableConvertor::for_crd(&crd, "v1").unwrap();
    let cases: Vec<(&str, bool, TableConvertor)> = vec![
        ("pods", true, TableConvertor::for_kind("", "Pod")),
        (
            "deploy",
            true,
            TableConvertor::for_kind("apps", "Deployment"),
        ),
        ("rs", true, TableConvertor::for_kind("apps", "ReplicaSet")),
        ("svc", true, TableConvertor::for_kind("", "Service")),
        ("nodes", false, TableConvertor::for_kind("", "Node")),
        ("events", true, TableConvertor::for_kind("", "Event")),
        ("secrets", true, TableConvertor::for_kind("", "Secret")),
        ("cm", true, TableConvertor::for_kind("", "ConfigMap")),
        ("ns", false, TableConvertor::for_kind("", "Namespace")),
        ("widgets", true, widgets.clone()),
        (
            "leases",
            true,
            TableConvertor::for_kind("coordination.k8s.io", "Lease"),
        ),
        ("crd", false, TableConvertor::default_convertor()),
    ];
    for (what, namespaced, conv) in &cases {
        compare_with_printers(&k, &kc, what, *namespaced, false, conv);
    }
    for (what, namespaced, conv) in [
        ("pods", true, TableConvertor::for_kind("", "Pod")),
        ("widgets", true, widgets),
        ("nodes", false, TableConvertor::for_kind("", "Node")),
        ("svc", true, TableConvertor::for_kind("", "Service")),
    ] {
        compare_with_printers(&k, &kc, what, namespaced, true, &conv);
    }
    let log = std::fs::read_to_string(&sim.log).unwrap();
    assert!(
        log.contains("GET /api/v1/nodes?limit=500 (Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"),
        "kubectl asked for tables:\n{log}"
    );

    // `get all`: one table per kind of category `all`, names prefixed with the kind.
    let out = run(&k, &kc, &["get", "all", "-A"]);
    let sections: Vec<&str> = out.split("\n\n").collect();
    let headers: Vec<&str> = sections.iter().map(|s| s.lines().next().unwrap()).collect();
    assert_eq!(headers.len(), 4, "{out}");
    let starts = |prefix: &str| {
        sections
            .iter()
            .find(|s| s.lines().nth(1).is_some_and(|l| l.contains(prefix)))
            .unwrap_or_else(|| panic!("{prefix} in {out}"))
            .lines()
            .next()
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(starts(" pod/"), "NAMESPACE NAME READY STATUS RESTARTS AGE");
    assert_eq!(
        starts(" service/"),
        "NAMESPACE NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE"
    );
    assert_eq!(
        starts(" deployment.apps/"),
        "NAMESPACE NAME READY UP-TO-DATE AVAILABLE AGE"
    );
    assert_eq!(
        starts(" replicaset.apps/"),
        "NAMESPACE NAME DESIRED CURRENT READY AGE"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `kubectl get pods -w` through tables: the list's header once, then a row per event;
/// a graceful deletion shows as Terminating (the pod printer's reason for a
/// deletionTimestamp) before the pod is gone.
#[test]
fn kubectl_watch_shows_terminating_through_tables() {
    let Some(k) = kubectl_path() else {
        eprintln!("kubectl not installed: skipped");
        return;
    };
    let dir = tmpdir("terminating");
    let sim = start_sim(&dir, &["--objects", "20", "--churn", "15"]);
    let kc = kubeconfig(&dir, &k, &sim.url);
    let mut child = Command::new(&k)
        .args(["get", "pods", "-A", "-w", "--output-watch-events"])
        .env("KUBECONFIG", &kc)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let rx = line_channel(child.stdout.take().unwrap());
    let _p = Proc(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut lines = Vec::new();
    let mut terminating = None;
    while Instant::now() < deadline && terminating.is_none() {
        if let Ok(l) = rx.recv_timeout(Duration::from_millis(200)) {
            let cells = support::grid(&l).remove(0);
            if cells.first().map(String::as_str) == Some("MODIFIED")
                && cells.get(4).map(String::as_str) == Some("Terminating")
            {
                terminating = Some(cells);
            }
            lines.push(l);
        }
    }
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        header,
        [
            "EVENT",
            "NAMESPACE",
            "NAME",
            "READY",
            "STATUS",
            "RESTARTS",
            "AGE"
        ],
        "{lines:?}"
    );
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("EVENT")).count(),
        1,
        "the header once: {lines:?}"
    );
    let t = terminating.unwrap_or_else(|| panic!("no Terminating row: {lines:?}"));
    assert_eq!(t.len(), 7, "{t:?}");
    let log = std::fs::read_to_string(&sim.log).unwrap();
    assert!(
        log.lines()
            .any(|l| l.contains("watch=true") && l.contains("as=Table;v=v1;g=meta.k8s.io")),
        "the watch asked for tables:\n{log}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An idle collection's watch gets the cacher's minute bookmarks through the HTTP server:
/// the control plane's leases move the version, the watch cache learns it from etcd's
/// progress notifications (`--progress-notify-every`, here 1 s; bookmarks every second
/// with `--bookmark-every 1`). With `--no-leases` nothing moves and none comes
/// (cache_watcher.go sends only bookmarks newer than the watch's start).
#[test]
fn http_idle_collection_gets_bookmarks() {
    let dir = tmpdir("idlebookmarks");
    let path_at = |rv: &str| {
        format!("/api/v1/namespaces?watch=true&allowWatchBookmarks=true&resourceVersion={rv}&timeoutSeconds=60")
    };
    let bookmarks = |pieces: &[(u128, Vec<u8>)]| -> Vec<u64> {
        let bytes: Vec<u8> = pieces.iter().flat_map(|p| p.1.iter().copied()).collect();
        String::from_utf8_lossy(&bytes)
            .split("{\"type\":\"BOOKMARK\"")
            .skip(1)
            .filter_map(|b| {
                let at = b.find("\"resourceVersion\":\"")? + 19;
                b[at..].split('"').next()?.parse().ok()
            })
            .collect()
    };
    let sim = start_sim(
        &dir,
        &[
            "--objects",
            "3",
            "--churn",
            "0",
            "--bookmark-every",
            "1",
            "--progress-notify-every",
            "1",
        ],
    );
    let rv = list_rv(sim.port, "/api/v1/namespaces");
    let (pieces, _) = timed_get(sim.port, &path_at(&rv), 4);
    let b = bookmarks(&pieces);
    let start: u64 = rv.parse().unwrap();
    assert!(b.len() >= 2, "bookmarks on an idle collection: {b:?}");
    assert!(b.iter().all(|v| *v > start), "{b:?} after {start}");
    assert!(b.windows(2).all(|w| w[1] >= w[0]), "{b:?}");
    drop(sim);
    let sim = start_sim(
        &dir,
        &[
            "--objects",
            "3",
            "--churn",
            "0",
            "--bookmark-every",
            "1",
            "--progress-notify-every",
            "1",
            "--no-leases",
        ],
    );
    let rv = list_rv(sim.port, "/api/v1/namespaces");
    let (pieces, _) = timed_get(sim.port, &path_at(&rv), 3);
    assert!(bookmarks(&pieces).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--extra-groups 20`: twenty more API groups in aggregated and legacy discovery, each
/// with one listable resource and its CustomResourceDefinition; kubectl finds them.
#[test]
fn extra_groups_are_served() {
    let dir = tmpdir("extragroups");
    let sim = start_sim(
        &dir,
        &["--objects", "3", "--churn", "0", "--extra-groups", "20"],
    );
    let agg = support::get(
        sim.port,
        "/apis",
        &[(
            "Accept",
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
        )],
    )
    .json();
    let groups: Vec<&str> = agg["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["metadata"]["name"].as_str().unwrap())
        .collect();
    let extra: Vec<&&str> = groups
        .iter()
        .filter(|g| g.ends_with(".extra.kubelive.dev"))
        .collect();
    assert_eq!(extra.len(), 20, "{groups:?}");
    let legacy = support::get(sim.port, "/apis", &[]).json();
    assert_eq!(legacy["groups"].as_array().unwrap().len(), groups.len());
    let things = support::get(sim.port, "/apis/group-07.extra.kubelive.dev/v1/things", &[]);
    assert_eq!(things.status, 200);
    assert_eq!(things.json()["kind"], "ThingList");
    let crds = support::get(
        sim.port,
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        &[],
    )
    .json();
    assert_eq!(crds["items"].as_array().unwrap().len(), 21);
    if let Some(k) = kubectl_path() {
        let kc = kubeconfig(&dir, &k, &sim.url);
        let out = run(
            &k,
            &kc,
            &["api-resources", "--api-group=group-19.extra.kubelive.dev"],
        );
        assert!(out.contains("things"), "{out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `kubectl get jobs,cronjobs` against `serve --cronjobs 1`: the CronJob's table, then,
/// once the wall-clock minute has come, its Job (`<cronjob>-<minutes since the epoch>`)
/// with the 1.30+ Status column, as printJob/printCronJob print them.
#[test]
fn kubectl_get_jobs_and_cronjobs() {
    let Some(k) = kubectl_path() else {
        eprintln!("kubectl not installed: skipped");
        return;
    };
    let dir = tmpdir("batch");
    let sim = start_sim(&dir, &["--objects", "4", "--churn", "0", "--cronjobs", "1"]);
    let kc = kubeconfig(&dir, &k, &sim.url);
    // The first run is at the next wall-clock minute; the bound only turns a CronJob that
    // never runs into a failure.
    let limit = Instant::now() + Duration::from_secs(90);
    let out = loop {
        let out = run(&k, &kc, &["get", "jobs,cronjobs", "-A"]);
        if out.contains("job.batch/cron-0-") {
            break out;
        }
        assert!(Instant::now() < limit, "no Job:\n{out}");
        std::thread::sleep(Duration::from_millis(500));
    };
    let sections: Vec<&str> = out.split("\n\n").collect();
    assert_eq!(sections.len(), 2, "{out}");
    let words = |s: &str| -> Vec<Vec<String>> {
        s.lines()
            .map(|l| l.split_whitespace().map(String::from).collect())
            .collect()
    };
    let jobs = words(sections[0]);
    assert_eq!(
        jobs[0],
        [
            "NAMESPACE",
            "NAME",
            "STATUS",
            "COMPLETIONS",
            "DURATION",
            "AGE"
        ]
    );
    assert_eq!(jobs[1][0], "ns-0");
    let minutes: u64 = jobs[1][1]
        .strip_prefix("job.batch/cron-0-")
        .unwrap()
        .parse()
        .unwrap();
    let now_min = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        / 60;
    assert!(minutes <= now_min && now_min - minutes <= 1, "{out}");
    assert!(
        ["Running", "Complete"].contains(&jobs[1][2].as_str()),
        "{out}"
    );
    assert!(["0/1", "1/1"].contains(&jobs[1][3].as_str()), "{out}");
    let cron = words(sections[1]);
    assert_eq!(
        cron[0],
        [
            "NAMESPACE",
            "NAME",
            "SCHEDULE",
            "TIMEZONE",
            "SUSPEND",
            "ACTIVE",
            "LAST",
            "SCHEDULE",
            "AGE"
        ]
    );
    assert_eq!(
        cron[1][..9],
        [
            "ns-0",
            "cronjob.batch/cron-0",
            "*/1",
            "*",
            "*",
            "*",
            "*",
            "<none>",
            "False"
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `kubectl get sts,pvc` against `serve --statefulsets 1`: once the set's three pods are
/// up (OrderedReady, one after the other), the set reads 3/3 and its claims
/// `data-web-0-N` are Bound, as printStatefulSet / printPersistentVolumeClaim print them
/// (1.37: with the VolumeAttributesClass column).
#[test]
fn kubectl_get_statefulsets_and_claims() {
    let Some(k) = kubectl_path() else {
        eprintln!("kubectl not installed: skipped");
        return;
    };
    let dir = tmpdir("statefulsets");
    let sim = start_sim(
        &dir,
        &["--objects", "4", "--churn", "0", "--statefulsets", "1"],
    );
    let kc = kubeconfig(&dir, &k, &sim.url);
    // Three pods 2 s apart; the bound only turns a set that never gets ready into a failure.
    let limit = Instant::now() + Duration::from_secs(60);
    let out = loop {
        let out = run(&k, &kc, &["get", "sts,pvc", "-A"]);
        if out.contains("3/3") && out.matches("Bound").count() == 3 {
            break out;
        }
        assert!(Instant::now() < limit, "not ready:\n{out}");
        std::thread::sleep(Duration::from_millis(500));
    };
    let sections: Vec<&str> = out.split("\n\n").collect();
    assert_eq!(sections.len(), 2, "{out}");
    let words = |s: &str| -> Vec<Vec<String>> {
        s.lines()
            .map(|l| l.split_whitespace().map(String::from).collect())
            .collect()
    };
    let sts = words(sections[0]);
    assert_eq!(sts[0], ["NAMESPACE", "NAME", "READY", "AGE"]);
    assert_eq!(sts[1][..3], ["ns-0", "statefulset.apps/web-0", "3/3"]);
    let pvc = words(sections[1]);
    assert_eq!(
        pvc[0],
        [
            "NAMESPACE",
            "NAME",
            "STATUS",
            "VOLUME",
            "CAPACITY",
            "ACCESS",
            "MODES",
            "STORAGECLASS",
            "VOLUMEATTRIBUTESCLASS",
            "AGE"
        ]
    );
    assert_eq!(pvc.len(), 4, "{out}");
    for (i, row) in pvc[1..].iter().enumerate() {
        assert_eq!(
            [&row[..3], &row[4..8]].concat(),
            [
                "ns-0".to_string(),
                format!("persistentvolumeclaim/data-web-0-{i}"),
                "Bound".into(),
                "1Gi".into(),
                "RWO".into(),
                "standard".into(),
                "<unset>".into()
            ],
            "{out}"
        );
        assert!(row[3].starts_with("pvc-"), "{out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
