//! The HTTP/1.1 server over the model, answering as kube-apiserver does: std::net + one
//! thread per keep-alive connection, a churn thread, and a condvar that wakes watch
//! threads when the cluster changes. Virtual time is wall-clock milliseconds since the
//! server started.
//!
//! Each request goes the way the apiserver's handler chain takes it: the headers every
//! response carries (`Audit-Id`, `Cache-Control`, the priority-and-fairness UIDs),
//! authorization ([`crate::rbac`]: 403 before anything else), then routing (404, 405),
//! content negotiation ([`crate::negotiate`]: 406), then the handler: discovery
//! ([`crate::discovery`]), the review APIs, or the model. Bodies are gzipped and
//! pretty-printed as the apiserver's response writers do ([`crate::http`]).

use std::io::{self, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::discovery;
use crate::faults::FaultPlan;
use crate::http::{self, BodyOptions, Conn, Head, ReadError, Request};
use crate::metrics::{self, ListSource, Metrics};
use crate::model::{
    Cluster, ClusterConfig, ControlPlane, Get, Reply, Response, StreamingLists, WatchOutput,
};
use crate::negotiate::{self, Discovery};
use crate::rbac::{self, Policy};
use crate::release::Release;
use crate::resources::{self, Target};
use crate::status;
use crate::util::Rng;
use crate::workload::{ClaimRetention, StatefulSetSpec};
use crate::workload::{Workload, WorkloadConfig};

/// Go's `http.Server.IdleTimeout` as the apiserver sets it: an idle keep-alive connection
/// is closed after this.
const IDLE_TIMEOUT: Duration = Duration::from_secs(90);

/// Settings of the HTTP server (the `serve` flags).
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub address: String,
    /// 0 picks a free port.
    pub port: u16,
    pub seed: u64,
    /// Initial pods.
    pub objects: usize,
    pub namespaces: usize,
    /// Changes per second.
    pub churn: f64,
    /// Churn stops this many seconds after the start (None: never). The server keeps
    /// running what is due (graceful deletions end, faults act).
    pub churn_for_s: Option<f64>,
    /// Start a rollout (a new pod template) of one Deployment after the other this often
    /// (None: never). Rollouts move on with the churn and stop with it.
    pub rollout_every_s: Option<f64>,
    /// CronJobs (`cron-0` .. in the workload's namespaces, every minute) whose Jobs and
    /// pods the workload runs.
    pub cronjobs: usize,
    /// StatefulSets (`web-0` .. in the workload's namespaces, 3 pods with a `data` claim
    /// each) the workload runs.
    pub statefulsets: usize,
    pub compact_every_s: f64,
    pub watch_cache_window_s: f64,
    pub bookmark_every_s: f64,
    /// The release the server answers as (`--kube-version`; default: the newest).
    pub release: Release,
    /// The `WatchList` gate (default: the release's).
    pub streaming_lists: StreamingLists,
    /// The `WatchListCompression` gate (None: the release's default).
    pub watch_list_compression: Option<bool>,
    pub faults: FaultPlan,
    /// Who the client is and what it may do (default: a cluster admin, everything allowed).
    pub policy: Policy,
    /// What the control plane writes by itself (default: [`ControlPlane::LIVE`], leases
    /// renewed as kube-apiserver, the controller-manager and the scheduler renew theirs).
    pub control_plane: ControlPlane,
    /// More API groups to serve, each with one listable resource (discovery at scale).
    pub extra_groups: usize,
    /// Gzip large responses for clients that accept it, as kube-apiserver does
    /// (`APIResponseCompression`, on by default); off for benchmarks without it. Streaming
    /// lists follow `WatchListCompression` instead (watch.go asks only that gate).
    pub compression: bool,
    /// Log each request to stderr.
    pub verbose: bool,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            address: "127.0.0.1".into(),
            port: 0,
            seed: 1,
            objects: 50,
            namespaces: 3,
            churn: 5.0,
            churn_for_s: None,
            rollout_every_s: None,
            cronjobs: 0,
            statefulsets: 0,
            compact_every_s: 300.0,
            watch_cache_window_s: 75.0,
            bookmark_every_s: 60.0,
            release: Release::NEWEST,
            streaming_lists: StreamingLists::ByRelease,
            watch_list_compression: None,
            faults: FaultPlan::none(),
            policy: Policy::admin(),
            control_plane: ControlPlane::LIVE,
            extra_groups: 0,
            compression: true,
            verbose: false,
        }
    }
}

struct State {
    cluster: Cluster,
    workload: Workload,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    start: Instant,
    stop: AtomicBool,
    /// Set once the initial objects exist; requests wait for it.
    ready: AtomicBool,
    verbose: bool,
    policy: Policy,
    /// `host:port` for `/api`'s `serverAddressByClientCIDRs`.
    address: String,
    seed: u64,
    /// Requests so far (seeds each `Audit-Id`).
    requests: AtomicU64,
    /// What the clients cost (served at `/metrics`).
    metrics: Metrics,
    compression: bool,
    release: Release,
}

impl Shared {
    fn now_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A running server. Dropping it stops accepting and stops the churn.
pub struct Server {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl Server {
    /// Binds, populates the cluster and starts the accept and churn threads.
    pub fn start(cfg: ServerConfig) -> io::Result<Server> {
        crate::resources::register_extra_groups(cfg.extra_groups)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let listener = TcpListener::bind((cfg.address.as_str(), cfg.port))?;
        let addr = listener.local_addr()?;
        let ms = |s: f64| (s * 1000.0) as u64;
        let mut cluster = Cluster::new(ClusterConfig {
            seed: cfg.seed,
            compact_every_ms: ms(cfg.compact_every_s),
            watch_cache_window_ms: ms(cfg.watch_cache_window_s),
            bookmark_every_ms: ms(cfg.bookmark_every_s).max(1),
            streaming_lists: cfg.streaming_lists,
            too_large_wait_ms: 3000,
            faults: cfg.faults.clone(),
            release: cfg.release,
            watch_list_compression: cfg.watch_list_compression,
        });
        // Its leases are written at time zero, before the workload.
        cluster.set_control_plane(cfg.control_plane, 0);
        let workload = Workload::new(
            cfg.seed,
            WorkloadConfig {
                namespaces: cfg.namespaces,
                pods: cfg.objects,
                churn_per_sec: cfg.churn,
            },
        );
        let shared = Arc::new(Shared {
            state: Mutex::new(State { cluster, workload }),
            changed: Condvar::new(),
            start: Instant::now(),
            stop: AtomicBool::new(false),
            ready: AtomicBool::new(false),
            verbose: cfg.verbose,
            policy: cfg.policy.clone(),
            address: addr.to_string(),
            seed: cfg.seed,
            requests: AtomicU64::new(0),
            metrics: Metrics::default(),
            compression: cfg.compression,
            release: cfg.release,
        });
        let sh = shared.clone();
        let churn_until_ms = cfg.churn_for_s.map(ms);
        let rollout_every_ms = cfg.rollout_every_s.map(ms);
        let extras = Extras {
            rollout_every_ms,
            cronjobs: cfg.cronjobs,
            statefulsets: cfg.statefulsets,
            namespaces: cfg.namespaces.max(1),
        };
        thread::spawn(move || churn_loop(sh, churn_until_ms, extras));
        let sh = shared.clone();
        thread::spawn(move || {
            for conn in listener.incoming() {
                if sh.stop.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(stream) = conn else { continue };
                let sh = sh.clone();
                thread::spawn(move || {
                    let _ = serve_conn(&sh, stream);
                });
            }
        });
        Ok(Server { addr, shared })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Runs `f` on the cluster under the lock (then wakes the watches).
    pub fn with_cluster<R>(&self, f: impl FnOnce(&mut Cluster, u64) -> R) -> R {
        let now = self.shared.now_ms();
        let r = f(&mut self.shared.lock().cluster, now);
        self.shared.changed.notify_all();
        r
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(self.addr);
        self.shared.changed.notify_all();
    }
}

/// What the workload runs besides its churn (off by default).
struct Extras {
    rollout_every_ms: Option<u64>,
    cronjobs: usize,
    statefulsets: usize,
    namespaces: usize,
}

fn churn_loop(sh: Arc<Shared>, churn_until_ms: Option<u64>, extras: Extras) {
    {
        // Populate in the background so the server answers its port at once; requests
        // wait for `ready` (100,000 pods take seconds).
        let mut st = sh.lock();
        let State { cluster, workload } = &mut *st;
        workload.populate(cluster, sh.now_ms());
        workload.skip_to(sh.now_ms());
        workload.set_rollout_every(extras.rollout_every_ms, sh.now_ms());
        for i in 0..extras.cronjobs {
            let ns = format!("ns-{}", i % extras.namespaces);
            let _ = workload.add_cronjob(cluster, &ns, &format!("cron-{i}"), 1, sh.now_ms());
        }
        for i in 0..extras.statefulsets {
            let ns = format!("ns-{}", i % extras.namespaces);
            let _ = workload.add_statefulset(
                cluster,
                &ns,
                &format!("web-{i}"),
                StatefulSetSpec {
                    replicas: 3,
                    claim_templates: &["data"],
                    retention: ClaimRetention::Retain,
                },
                sh.now_ms(),
            );
        }
        sh.ready.store(true, Ordering::Release);
    }
    while !sh.stop.load(Ordering::Relaxed) {
        thread::sleep(Duration::from_millis(20));
        {
            let now = sh.now_ms();
            let mut st = sh.lock();
            let State { cluster, workload } = &mut *st;
            if churn_until_ms.is_none_or(|until| now < until) {
                workload.tick(cluster, now);
            }
            cluster.advance(now);
        }
        sh.changed.notify_all();
    }
}

/// A UUID derived from a name (the sim's stand-in for the UID of an API object that
/// exists in every real cluster, such as a FlowSchema).
fn uid_of(name: &str) -> String {
    let d = Sha256::digest(name.as_bytes());
    let hex: String = d[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-4{}-8{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}

/// What the connection does after a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    KeepAlive,
    Close,
}

/// The connection, counting what is written to it under the request's verb and resource
/// (`kubelive_sim_sent_bytes_total`), as it goes: a watch open for an hour counts its bytes
/// while it runs.
struct Metered<'a> {
    stream: &'a mut TcpStream,
    metrics: &'a Metrics,
    verb: &'a str,
    resource: &'a str,
}

impl Write for Metered<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.stream.write(buf)?;
        self.metrics.add(
            "kubelive_sim_sent_bytes_total",
            &[("verb", self.verb), ("resource", self.resource)],
            n as i64,
        );
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.stream.flush()
    }
}

impl Metered<'_> {
    /// `apiserver_request_total`, counted when the response starts.
    fn count_request(&self, status: u16) {
        self.metrics.add(
            "apiserver_request_total",
            &[
                ("verb", self.verb),
                ("resource", self.resource),
                ("code", &status.to_string()),
            ],
            1,
        );
    }
}

/// The verb as the apiserver's metrics write it: `LIST` and `WATCH` for collections, the
/// HTTP method otherwise (`cleanVerb` in staging/src/k8s.io/apiserver/pkg/endpoints/
/// metrics/metrics.go).
fn metrics_verb(attrs: &rbac::Attributes, method: &str) -> String {
    match (attrs.resource_request, attrs.verb.as_str()) {
        (true, "list") => "LIST".into(),
        (true, "watch") => "WATCH".into(),
        _ => method.to_ascii_uppercase(),
    }
}

/// One request being answered.
struct Exchange<'a, 'm> {
    sh: &'a Shared,
    req: &'a Request,
    out: &'a mut Metered<'m>,
    /// The client asked to close (or speaks HTTP/1.0 without keep-alive).
    close: bool,
    /// `pretty` from the query or a human User-Agent (a clause's `pretty=1` adds to it).
    pretty: bool,
    gzip_ok: bool,
    /// Headers every response carries.
    common: Vec<(String, String)>,
}

impl Exchange<'_, '_> {
    fn accept(&self) -> Option<&str> {
        self.req.header("accept")
    }

    fn send(
        &mut self,
        status: u16,
        headers: Vec<(String, String)>,
        body: &[u8],
        opts: BodyOptions,
    ) -> io::Result<Next> {
        let mut all = self.common.clone();
        for (k, v) in headers {
            // A handler's value replaces a common one (aggregated discovery's Cache-Control).
            all.retain(|(ck, _)| !ck.eq_ignore_ascii_case(&k));
            all.push((k, v));
        }
        let head = Head {
            status,
            headers: all,
        };
        self.out.count_request(status);
        http::write_response(
            self.out,
            &head,
            body,
            opts,
            self.close,
            self.req.http10,
            self.req.method == "HEAD",
        )?;
        Ok(if self.close || self.req.http10 {
            Next::Close
        } else {
            Next::KeepAlive
        })
    }

    /// A JSON body the apiserver's serializer wrote (newline-terminated), negotiated like
    /// its documents: pretty when asked for.
    fn send_json(
        &mut self,
        status: u16,
        extra: Vec<(String, String)>,
        body: &str,
        pretty: bool,
    ) -> io::Result<Next> {
        let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
        headers.extend(extra);
        let opts = BodyOptions {
            pretty: pretty || self.pretty,
            gzip_ok: self.gzip_ok,
        };
        self.send(status, headers, body.as_bytes(), opts)
    }

    /// An error Status (`ErrorNegotiated`): JSON if the client accepts it, else written
    /// raw and indented (`WriteRawJSON`), as a 406 always is.
    fn send_status(&mut self, status: u16, body: &str) -> io::Result<Next> {
        match negotiate::for_plain(self.accept()) {
            Ok(n) => self.send_json(status, Vec::new(), body, n.pretty),
            Err(negotiate::NotAcceptable) => self.send_raw_json(status, body),
        }
    }

    /// `WriteRawJSON`: indented, no trailing newline, never compressed.
    fn send_raw_json(&mut self, status: u16, body: &str) -> io::Result<Next> {
        let indented = crate::indent::indent(body.as_bytes());
        let headers = vec![("Content-Type".to_string(), "application/json".to_string())];
        self.send(status, headers, &indented, BodyOptions::default())
    }

    fn not_acceptable(&mut self) -> io::Result<Next> {
        let body = status::status_json(
            406,
            "NotAcceptable",
            &negotiate::not_acceptable_message(),
            None,
        );
        self.send_raw_json(406, &body)
    }

    fn method_not_allowed(&mut self) -> io::Result<Next> {
        self.send_status(405, &format!("{}\n", status::method_not_allowed()))
    }

    fn not_found(&mut self) -> io::Result<Next> {
        self.send_status(404, &format!("{}\n", status::not_found_path()))
    }
}

fn serve_conn(sh: &Shared, mut stream: TcpStream) -> io::Result<()> {
    let _ = stream.set_nodelay(true);
    while !sh.ready.load(Ordering::Acquire) {
        thread::sleep(Duration::from_millis(5));
    }
    let mut conn = Conn::new(stream.try_clone()?);
    loop {
        let _ = conn.stream().set_read_timeout(Some(IDLE_TIMEOUT));
        let req = match conn.read_request() {
            Ok(r) => r,
            Err(ReadError::Bad(why)) => {
                // Go answers a malformed request itself, before any handler.
                if sh.verbose {
                    eprintln!("[{} ms] bad request: {why}", sh.now_ms());
                }
                let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request");
                let _ = stream.shutdown(Shutdown::Both);
                return Ok(());
            }
            Err(ReadError::Closed) | Err(ReadError::Io(_)) => return Ok(()),
        };
        let _ = conn.stream().set_read_timeout(None);
        if sh.verbose {
            let encoding = req
                .header("accept-encoding")
                .map(|e| format!(", Accept-Encoding: {e}"))
                .unwrap_or_default();
            eprintln!(
                "[{} ms] {} {} (Accept: {}{encoding})",
                sh.now_ms(),
                req.method,
                req.target,
                req.header("accept").unwrap_or("")
            );
        }
        if handle(sh, &req, &mut stream)? == Next::Close {
            let _ = stream.shutdown(Shutdown::Both);
            return Ok(());
        }
    }
}

fn handle(sh: &Shared, req: &Request, out: &mut TcpStream) -> io::Result<Next> {
    let path = req.path();
    let query = req.query();
    let n = sh.requests.fetch_add(1, Ordering::Relaxed);
    // Priority and fairness: an admin (system:masters) matches the `exempt` flow schema,
    // any other user `global-default`, except health probes (`probes`, exempt level).
    let probe = matches!(path, "/healthz" | "/livez" | "/readyz");
    let (flow_schema, level) = if !sh.policy.is_restricted() {
        ("exempt", "exempt")
    } else if probe {
        ("probes", "exempt")
    } else {
        ("global-default", "global-default")
    };
    let common = vec![
        (
            "Audit-Id".to_string(),
            Rng::new(sh.seed ^ n.wrapping_mul(0x9E37_79B9)).uuid(),
        ),
        ("Cache-Control".to_string(), "no-cache, private".to_string()),
        (
            "X-Kubernetes-Pf-Flowschema-Uid".to_string(),
            uid_of(&format!("flowschema/{flow_schema}")),
        ),
        (
            "X-Kubernetes-Pf-Prioritylevel-Uid".to_string(),
            uid_of(&format!("prioritylevelconfiguration/{level}")),
        ),
    ];
    let attrs = rbac::request_info(&req.method, path, query);
    let verb = metrics_verb(&attrs, &req.method);
    let resource = if attrs.resource_request {
        attrs.resource.as_str()
    } else {
        ""
    };
    let mut metered = Metered {
        stream: out,
        metrics: &sh.metrics,
        verb: &verb,
        resource,
    };
    let mut x = Exchange {
        sh,
        req,
        out: &mut metered,
        close: req.wants_close(),
        pretty: negotiate::wants_pretty(query, req.header("user-agent")),
        gzip_ok: sh.compression && http::accepts_gzip(req.header("accept-encoding")),
        common,
    };
    if !sh.policy.authorize(&attrs).allowed {
        let body = rbac::forbidden(&attrs, &sh.policy.user);
        return x.send_status(403, &body);
    }
    if attrs.resource_request {
        resource_request(&mut x)
    } else {
        non_resource_request(&mut x)
    }
}

fn non_resource_request(x: &mut Exchange<'_, '_>) -> io::Result<Next> {
    let path = x.req.path().to_string();
    let known = matches!(
        path.as_str(),
        "/healthz" | "/livez" | "/readyz" | "/version" | "/version/" | "/metrics"
    ) || (discovery::is_discovery_path(&path)
        && discovery::legacy_document(path.trim_end_matches('/'), &x.sh.address).is_some());
    if !known {
        return x.not_found();
    }
    if x.req.method != "GET" {
        return x.method_not_allowed();
    }
    match path.trim_end_matches('/') {
        "/healthz" | "/livez" | "/readyz" => {
            let headers = vec![
                (
                    "Content-Type".to_string(),
                    "text/plain; charset=utf-8".to_string(),
                ),
                ("X-Content-Type-Options".to_string(), "nosniff".to_string()),
            ];
            x.send(200, headers, b"ok", BodyOptions::default())
        }
        // The Prometheus text format, as the apiserver's legacy registry handler writes it.
        "/metrics" => {
            let headers = vec![(
                "Content-Type".to_string(),
                "text/plain; version=0.0.4; charset=utf-8".to_string(),
            )];
            let body = x.sh.metrics.render();
            x.send(200, headers, body.as_bytes(), BodyOptions::default())
        }
        // `WriteRawJSON`: indented whatever the client accepts.
        "/version" => {
            let headers = vec![("Content-Type".to_string(), "application/json".to_string())];
            x.send(
                200,
                headers,
                discovery::version_document(x.sh.release).as_bytes(),
                BodyOptions::default(),
            )
        }
        root @ ("/api" | "/apis") => {
            match negotiate::for_discovery_root(x.accept(), x.sh.release.aggregated_discovery()) {
                Err(negotiate::NotAcceptable) => x.not_acceptable(),
                Ok(n) => match n.what {
                    Discovery::Aggregated(v) => {
                        let doc = discovery::aggregated(root == "/api", v);
                        let etag = format!("\"{}\"", doc.etag);
                        let headers = vec![
                            ("Etag".to_string(), etag.clone()),
                            ("Vary".to_string(), "Accept".to_string()),
                            ("Cache-Control".to_string(), "public".to_string()),
                        ];
                        if x.req.header("if-none-match") == Some(etag.as_str()) {
                            return x.send(304, headers, b"", BodyOptions::default());
                        }
                        let mut headers = headers;
                        headers.push(("Content-Type".to_string(), doc.content_type));
                        let opts = BodyOptions {
                            pretty: n.pretty || x.pretty,
                            gzip_ok: x.gzip_ok,
                        };
                        x.send(200, headers, doc.body.as_bytes(), opts)
                    }
                    Discovery::Legacy => {
                        let doc =
                            discovery::legacy_document(root, &x.sh.address).unwrap_or_default();
                        x.send_json(200, Vec::new(), &doc, n.pretty)
                    }
                },
            }
        }
        other => match negotiate::for_plain(x.accept()) {
            Err(negotiate::NotAcceptable) => x.not_acceptable(),
            Ok(n) => {
                let doc = discovery::legacy_document(other, &x.sh.address).unwrap_or_default();
                x.send_json(200, Vec::new(), &doc, n.pretty)
            }
        },
    }
}

fn resource_request(x: &mut Exchange<'_, '_>) -> io::Result<Next> {
    let path = x.req.path().trim_end_matches('/').to_string();
    type Review = fn(&Policy, &[u8], rbac::BodyFormat) -> Result<String, rbac::ReviewError>;
    let reviews: [(discovery::Entry, Review); 2] = [
        (discovery::SELF_SUBJECT_ACCESS_REVIEWS, rbac::access_review),
        (discovery::SELF_SUBJECT_RULES_REVIEWS, rbac::rules_review),
    ];
    for (entry, review) in reviews {
        if path != format!("/apis/{}/{}", entry.group_version(), entry.plural) {
            continue;
        }
        if x.req.method != "POST" {
            return x.method_not_allowed();
        }
        if negotiate::for_resource(x.accept(), false).is_err() {
            return x.not_acceptable();
        }
        let ct = x
            .req
            .header("content-type")
            .unwrap_or("application/json")
            .trim();
        let format = if ct.starts_with("application/json") {
            rbac::BodyFormat::Json
        } else if ct.starts_with("application/vnd.kubernetes.protobuf") {
            rbac::BodyFormat::Protobuf
        } else {
            let msg = format!(
                "the body of the request was in an unknown format - accepted media types include: {}",
                negotiate::SERVER_MEDIA_TYPES.join(", ")
            );
            let body = status::status_json(415, "UnsupportedMediaType", &msg, None);
            return x.send_status(415, &format!("{body}\n"));
        };
        return match review(&x.sh.policy, &x.req.body, format) {
            Ok(body) => x.send_json(201, Vec::new(), &body, false),
            Err((code, body)) => x.send_status(code, &body),
        };
    }
    if !matches!(
        resources::resolve(&path),
        Some(Target::Collection { .. } | Target::Object { .. })
    ) {
        return x.not_found();
    }
    if x.req.method != "GET" {
        return x.method_not_allowed();
    }
    let output = match negotiate::for_resource(x.accept(), true) {
        Ok(n) => n,
        Err(negotiate::NotAcceptable) => return x.not_acceptable(),
    };
    let mut get = Get::new(x.req.target.clone()).with_output(output.what);
    if let Some(v) = x.req.header("accept-encoding") {
        get = get.with_header("Accept-Encoding", v);
    }
    let reply = x.sh.lock().cluster.handle(&get, x.sh.now_ms());
    count_read(x, &reply);
    match reply {
        Reply::Response(r) => send_model_response(x, r, output.pretty),
        Reply::Delayed { at_ms, response } => {
            let now = x.sh.now_ms();
            if at_ms > now {
                thread::sleep(Duration::from_millis(at_ms - now));
            }
            send_model_response(x, response, output.pretty)
        }
        Reply::Watch(id) => serve_watch(x, id),
    }
}

/// Where a served LIST was read from, and whether it (or a streaming watch) lists from
/// nothing (`crate::metrics`).
fn count_read(x: &Exchange<'_, '_>, reply: &Reply) {
    let (metrics, resource) = (x.out.metrics, x.out.resource);
    let param = |name: &str| crate::model::query_param(x.req.query(), name);
    let param = |name: &str| param(name).unwrap_or_default();
    match (x.out.verb, reply) {
        ("LIST", Reply::Response(r)) if r.status == 200 => {
            let limit = param("limit").parse().unwrap_or(0);
            let cont = param("continue");
            let name = match metrics::list_source(
                &param("resourceVersion"),
                &param("resourceVersionMatch"),
                limit,
                &cont,
            ) {
                ListSource::Etcd => "apiserver_storage_list_total",
                ListSource::WatchCache => "apiserver_cache_list_total",
            };
            metrics.add(name, &[("resource", resource)], 1);
            if cont.is_empty() {
                let labels = [("resource", resource), ("how", "list")];
                metrics.add("kubelive_sim_initial_lists_total", &labels, 1);
            }
        }
        ("WATCH", Reply::Watch(_))
            if crate::model::query_param(x.req.query(), "sendInitialEvents")
                .is_some_and(|v| crate::model::query_bool(&v)) =>
        {
            let labels = [("resource", resource), ("how", "streaming")];
            metrics.add("kubelive_sim_initial_lists_total", &labels, 1);
        }
        _ => {}
    }
}

/// A response of the model: JSON bodies are pretty-printed and gzipped as asked; other
/// bodies (a proxy's HTML page, plain text) go out as they are.
fn send_model_response(x: &mut Exchange<'_, '_>, r: Response, pretty: bool) -> io::Result<Next> {
    if r.status == 406 {
        // Written raw (`WriteRawJSON`): the client accepts no form the server can write.
        return x.send(406, r.headers, &r.body, BodyOptions::default());
    }
    let json = r
        .header("content-type")
        .is_some_and(|ct| ct.starts_with("application/json"));
    let opts = BodyOptions {
        pretty: json && (pretty || x.pretty),
        gzip_ok: json && x.gzip_ok,
    };
    x.send(r.status, r.headers, &r.body, opts)
}

/// A watch: the head, then chunks as the model produces them. Watches are never
/// pretty-printed, and compressed only where the model says so (a streaming list under
/// `WatchListCompression`: then each batch is already one gzip member). A watch that ends
/// cleanly leaves the connection open for the next request.
fn serve_watch(x: &mut Exchange<'_, '_>, id: crate::model::WatchId) -> io::Result<Next> {
    let mut headers = x.common.clone();
    let head = x.sh.lock().cluster.watch_head(id);
    headers.extend(
        head.headers
            .into_iter()
            .filter(|(k, _)| !k.eq_ignore_ascii_case("transfer-encoding")),
    );
    let chunked = !x.req.http10;
    let framing = if chunked {
        http::Framing::Chunked
    } else {
        http::Framing::UntilClose
    };
    let close = x.close || !chunked;
    let head = Head {
        status: 200,
        headers,
    };
    x.out.count_request(200);
    let open = [("verb", "WATCH"), ("resource", x.out.resource)];
    let metrics = x.out.metrics;
    metrics.add("apiserver_longrunning_requests", &open, 1);
    let result = watch_frames(x, id, &head, &framing, close);
    metrics.add("apiserver_longrunning_requests", &open, -1);
    result
}

/// Body chunks, each in HTTP chunked framing if the response is chunked, in one buffer.
fn framed<C: AsRef<[u8]>>(chunks: &[C], chunked: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(chunks.iter().map(|c| c.as_ref().len() + 12).sum());
    for c in chunks {
        let c = c.as_ref();
        if chunked {
            out.extend_from_slice(format!("{:x}\r\n", c.len()).as_bytes());
        }
        out.extend_from_slice(c);
        if chunked {
            out.extend_from_slice(b"\r\n");
        }
    }
    out
}

/// The watch's head and frames, until it ends.
fn watch_frames(
    x: &mut Exchange<'_, '_>,
    id: crate::model::WatchId,
    head: &Head,
    framing: &http::Framing,
    close: bool,
) -> io::Result<Next> {
    let sh = x.sh;
    let chunked = *framing == http::Framing::Chunked;
    if let Err(e) = x.out.write_all(head.render(framing, close).as_bytes()) {
        sh.lock().cluster.close_watch(id);
        return Err(e);
    }
    // A drip delivers one chunk a poll, so only the split fault needs writes of its own.
    let split_writes = sh.lock().cluster.config().faults.split > 0.0;
    let mut last_check = Instant::now();
    loop {
        let output = {
            let mut st = sh.lock();
            let now = sh.now_ms();
            match st.cluster.poll_watch(id, now) {
                WatchOutput::Pending { wake_at_ms } => {
                    if sh.stop.load(Ordering::Relaxed) {
                        st.cluster.close_watch(id);
                        return Ok(Next::Close);
                    }
                    let wait = wake_at_ms.saturating_sub(now).clamp(1, 1000);
                    let _ = sh.changed.wait_timeout(st, Duration::from_millis(wait));
                    if last_check.elapsed() > Duration::from_secs(1) {
                        last_check = Instant::now();
                        if client_gone(x.out.stream) {
                            sh.lock().cluster.close_watch(id);
                            return Ok(Next::Close);
                        }
                    }
                    continue;
                }
                other => other,
            }
        };
        match output {
            WatchOutput::Chunks(chunks) => {
                let events: usize = chunks
                    .iter()
                    .map(|c| memchr::memchr_iter(b'\n', c).count())
                    .sum();
                let labels = [("resource", x.out.resource)];
                x.out
                    .metrics
                    .add("kubelive_sim_watch_events_total", &labels, events as i64);
                // kube-apiserver flushes a watch only when no further event is queued
                // (watch.go), so a burst (a streaming list's initial events) leaves in
                // large writes. One write per poll does the same; the chunks keep their
                // own framing. The split fault, which cuts frames on purpose, writes
                // each chunk alone, so that the pieces reach the client in separate reads.
                let writes: Vec<Vec<u8>> = if split_writes {
                    chunks.iter().map(|c| framed(&[c], chunked)).collect()
                } else {
                    vec![framed(&chunks, chunked)]
                };
                for w in writes {
                    if let Err(e) = x.out.write_all(&w).and_then(|_| x.out.flush()) {
                        sh.lock().cluster.close_watch(id);
                        return Err(e);
                    }
                }
            }
            WatchOutput::End => {
                if chunked {
                    x.out.write_all(b"0\r\n\r\n")?;
                    x.out.flush()?;
                }
                return Ok(if close { Next::Close } else { Next::KeepAlive });
            }
            WatchOutput::Abort | WatchOutput::Pending { .. } => {
                let _ = x.out.stream.shutdown(Shutdown::Both);
                return Ok(Next::Close);
            }
        }
    }
}

fn client_gone(stream: &TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return true;
    }
    let mut b = [0u8; 1];
    let gone = match stream.peek(&mut b) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => e.kind() != io::ErrorKind::WouldBlock,
    };
    let _ = stream.set_nonblocking(false);
    gone
}
