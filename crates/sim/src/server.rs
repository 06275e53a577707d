//! The HTTP/1.1 server over the model: std::net + one thread per connection, a churn
//! thread, and a condvar that wakes watch threads when the cluster changes.
//! Virtual time is wall-clock milliseconds since the server started.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use crate::faults::FaultPlan;
use crate::model::{
    watch_response_head, Cluster, ClusterConfig, Get, Reply, Response, StreamingLists, WatchOutput,
};
use crate::status;
use crate::workload::{Workload, WorkloadConfig};

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
    pub compact_every_s: f64,
    pub watch_cache_window_s: f64,
    pub bookmark_every_s: f64,
    pub streaming_lists: StreamingLists,
    pub faults: FaultPlan,
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
            compact_every_s: 300.0,
            watch_cache_window_s: 75.0,
            bookmark_every_s: 60.0,
            streaming_lists: StreamingLists::Supported,
            faults: FaultPlan::none(),
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
        let listener = TcpListener::bind((cfg.address.as_str(), cfg.port))?;
        let addr = listener.local_addr()?;
        let ms = |s: f64| (s * 1000.0) as u64;
        let cluster = Cluster::new(ClusterConfig {
            seed: cfg.seed,
            compact_every_ms: ms(cfg.compact_every_s),
            watch_cache_window_ms: ms(cfg.watch_cache_window_s),
            bookmark_every_ms: ms(cfg.bookmark_every_s).max(1),
            streaming_lists: cfg.streaming_lists,
            too_large_wait_ms: 3000,
            faults: cfg.faults.clone(),
        });
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
        });
        let sh = shared.clone();
        thread::spawn(move || churn_loop(sh));
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

fn churn_loop(sh: Arc<Shared>) {
    {
        // Populate in the background so the server answers its port at once; requests
        // wait for `ready` (100,000 pods take seconds).
        let mut st = sh.lock();
        let State { cluster, workload } = &mut *st;
        workload.populate(cluster, sh.now_ms());
        workload.skip_to(sh.now_ms());
        sh.ready.store(true, Ordering::Release);
    }
    while !sh.stop.load(Ordering::Relaxed) {
        thread::sleep(Duration::from_millis(20));
        {
            let now = sh.now_ms();
            let mut st = sh.lock();
            let State { cluster, workload } = &mut *st;
            workload.tick(cluster, now);
            cluster.advance(now);
        }
        sh.changed.notify_all();
    }
}

fn read_head(stream: &mut TcpStream) -> io::Result<Option<String>> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 4096];
    loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            buf.truncate(p);
            return Ok(Some(String::from_utf8_lossy(&buf).into_owned()));
        }
        if buf.len() > 65536 {
            return Ok(None);
        }
        let n = stream.read(&mut tmp)?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&tmp[..n]);
    }
}

fn write_response(stream: &mut TcpStream, r: &Response) -> io::Result<()> {
    let mut out = format!("HTTP/1.1 {} {}\r\n", r.status, reason(r.status));
    for (k, v) in &r.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        r.body.len()
    ));
    // Head and body through one buffer: a small response goes out in one write, a
    // large one (a full list of 100k pods is 570 MB) is never copied.
    let mut w = io::BufWriter::with_capacity(16 * 1024, stream);
    w.write_all(out.as_bytes())?;
    w.write_all(&r.body)?;
    w.flush()
}

fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        410 => "Gone",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
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

fn serve_conn(sh: &Shared, mut stream: TcpStream) -> io::Result<()> {
    let _ = stream.set_nodelay(true);
    while !sh.ready.load(Ordering::Acquire) {
        thread::sleep(Duration::from_millis(5));
    }
    let Some(head) = read_head(&mut stream)? else {
        return Ok(());
    };
    let mut lines = head.lines();
    let first = lines.next().unwrap_or("");
    let mut parts = first.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    if sh.verbose {
        let accept = lines
            .clone()
            .find_map(|l| {
                l.split_once(':')
                    .filter(|(k, _)| k.eq_ignore_ascii_case("accept"))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_default();
        eprintln!("[{} ms] {method} {target} (Accept: {accept})", sh.now_ms());
    }
    if method != "GET" {
        let r = Response {
            status: 405,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: status::method_not_allowed().into_bytes(),
        };
        return write_response(&mut stream, &r);
    }
    let reply = sh.lock().cluster.handle(&Get::new(target), sh.now_ms());
    match reply {
        Reply::Response(r) => write_response(&mut stream, &r),
        Reply::Delayed { at_ms, response } => {
            let now = sh.now_ms();
            if at_ms > now {
                thread::sleep(Duration::from_millis(at_ms - now));
            }
            write_response(&mut stream, &response)
        }
        Reply::Watch(id) => {
            let head = watch_response_head();
            let mut out = "HTTP/1.1 200 OK\r\n".to_string();
            for (k, v) in &head.headers {
                out.push_str(&format!("{k}: {v}\r\n"));
            }
            out.push_str("Connection: close\r\n\r\n");
            if let Err(e) = stream.write_all(out.as_bytes()) {
                sh.lock().cluster.close_watch(id);
                return Err(e);
            }
            let mut last_check = Instant::now();
            loop {
                let out = {
                    let mut st = sh.lock();
                    let now = sh.now_ms();
                    match st.cluster.poll_watch(id, now) {
                        WatchOutput::Pending { wake_at_ms } => {
                            if sh.stop.load(Ordering::Relaxed) {
                                st.cluster.close_watch(id);
                                return Ok(());
                            }
                            let wait = wake_at_ms.saturating_sub(now).clamp(1, 1000);
                            let _ = sh.changed.wait_timeout(st, Duration::from_millis(wait));
                            if last_check.elapsed() > Duration::from_secs(1) {
                                last_check = Instant::now();
                                if client_gone(&stream) {
                                    sh.lock().cluster.close_watch(id);
                                    return Ok(());
                                }
                            }
                            continue;
                        }
                        other => other,
                    }
                };
                match out {
                    WatchOutput::Chunks(chunks) => {
                        for c in chunks {
                            let mut buf = format!("{:x}\r\n", c.len()).into_bytes();
                            buf.extend_from_slice(&c);
                            buf.extend_from_slice(b"\r\n");
                            if let Err(e) = stream.write_all(&buf).and_then(|_| stream.flush()) {
                                sh.lock().cluster.close_watch(id);
                                return Err(e);
                            }
                        }
                    }
                    WatchOutput::End => {
                        stream.write_all(b"0\r\n\r\n")?;
                        stream.flush()?;
                        let _ = stream.shutdown(Shutdown::Write);
                        return Ok(());
                    }
                    WatchOutput::Abort | WatchOutput::Pending { .. } => {
                        let _ = stream.shutdown(Shutdown::Both);
                        return Ok(());
                    }
                }
            }
        }
    }
}
