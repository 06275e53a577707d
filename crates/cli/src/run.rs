//! The driver: a main loop owning the [`Engine`], one I/O thread per in-flight request.
//!
//! I/O threads take a kept-alive connection from the pool (or connect), write the GET,
//! parse and decompress the response and send what they read to the main loop as
//! [`Msg`]s. The main loop waits for messages until the engine's next deadline (the
//! engine owns every deadline: a silent connection is the engine's call, and its
//! cancel shuts the socket down), feeds the engine, and follows the draining rule:
//! cancels, requests (spawn a thread), events (print).

use crate::args::{Namespaces, Output, WatchArgs};
use crate::discovery::{self, DiscoveryError};
use crate::http::{self, BaseUrl, BodyDecoding, Part, Pool, ResponseParser};
use crate::output::{self, Line};
use kubelive_core::{
    ApiErrorKind, Collection, Config, Engine, Event, IncludeObject, Instant, Mode, Request,
    RequestId, TransportError,
};
use serde::de::IgnoredAny;
use std::collections::HashMap;
use std::io::{IsTerminal, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Consecutive `Failed` events (401/403) before giving up.
pub(crate) const MAX_FAILED: u32 = 3;
/// A live table is redrawn at most 4 times a second while it changes (each redraw
/// selects a screenful from the whole store: O(objects)), and every second for ages.
const TABLE_MIN_INTERVAL: Duration = Duration::from_millis(250);
const TABLE_REFRESH: Duration = Duration::from_secs(1);

/// What I/O threads (and the signal thread) tell the main loop.
#[derive(Debug)]
pub enum Msg {
    Head {
        id: RequestId,
        status: u16,
        headers: Vec<(String, String)>,
        /// It came over a kept-alive connection (told with -v).
        reused: bool,
    },
    Body {
        id: RequestId,
        bytes: Vec<u8>,
    },
    End {
        id: RequestId,
    },
    Error {
        id: RequestId,
        error: TransportError,
        /// What to check, when the server could not be reached at all.
        unreachable: Option<String>,
    },
    Signal(i32),
}

/// The main loop's handle on an in-flight request.
#[derive(Default)]
pub(crate) struct Conn {
    stream: Mutex<Option<TcpStream>>,
    cancelled: AtomicBool,
}

impl Conn {
    pub(crate) fn cancel(&self) {
        let slot = self.stream.lock().unwrap_or_else(|e| e.into_inner());
        self.cancelled.store(true, Ordering::SeqCst);
        if let Some(s) = slot.as_ref() {
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

/// How one attempt at a request on one connection ended.
enum Outcome {
    /// Done: the request's messages were all sent (or it was cancelled).
    Done,
    /// A pooled connection turned out closed before any byte came back: not the
    /// request's failure, retry on a fresh connection.
    Stale,
}

/// One request the driver hands to an I/O thread.
pub(crate) struct Job {
    pub(crate) base: BaseUrl,
    pub(crate) pool: Arc<Pool>,
    pub(crate) id: RequestId,
    pub(crate) path: String,
    pub(crate) accept: &'static str,
    pub(crate) conn: Arc<Conn>,
    pub(crate) tx: SyncSender<Msg>,
}

impl Job {
    /// Sends to the main loop unless the request was cancelled; false if not sent.
    fn send(&self, m: Msg) -> bool {
        !self.conn.cancelled.load(Ordering::SeqCst) && self.tx.send(m).is_ok()
    }

    fn reset(&self, m: String) -> Msg {
        Msg::Error {
            id: self.id,
            error: TransportError::Reset(m),
            unreachable: None,
        }
    }

    pub(crate) fn run(self) {
        loop {
            let pooled = self.pool.take();
            let reused = pooled.is_some();
            let stream = match pooled {
                Some(s) => s,
                None => match http::connect(&self.base, CONNECT_TIMEOUT) {
                    Ok(s) => s,
                    Err(e) => {
                        self.send(Msg::Error {
                            id: self.id,
                            error: TransportError::Connect(e.to_string()),
                            unreachable: Some(http::unreachable_hint(&self.base, &e)),
                        });
                        return;
                    }
                },
            };
            match self.exchange(stream, reused) {
                Outcome::Stale if reused => continue,
                Outcome::Stale => {
                    self.send(self.reset("the connection closed before a response".into()));
                    return;
                }
                Outcome::Done => return,
            }
        }
    }

    /// One request on one connection: write it, then parse, decompress and forward the
    /// response. A connection whose response ended cleanly goes back to the pool.
    fn exchange(&self, mut stream: TcpStream, reused: bool) -> Outcome {
        let (id, conn) = (self.id, &self.conn);
        let send = |m: Msg| self.send(m);
        let reset = |m: String| self.reset(m);
        {
            let mut slot = conn.stream.lock().unwrap_or_else(|e| e.into_inner());
            if conn.cancelled.load(Ordering::SeqCst) {
                let _ = stream.shutdown(Shutdown::Both);
                return Outcome::Done;
            }
            *slot = stream.try_clone().ok();
        }
        let _ = stream.set_write_timeout(Some(CONNECT_TIMEOUT));
        if stream
            .write_all(&http::request_bytes(&self.base, &self.path, self.accept))
            .is_err()
        {
            return Outcome::Stale;
        }
        let mut parser = ResponseParser::new();
        let mut parts = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        let mut decoding = BodyDecoding::Identity;
        let mut got_any = false;
        loop {
            let n = match stream.read(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) if !got_any && !conn.cancelled.load(Ordering::SeqCst) => {
                    return Outcome::Stale
                }
                Err(e) => {
                    send(reset(e.to_string()));
                    return Outcome::Done;
                }
            };
            if n == 0 && !got_any && !conn.cancelled.load(Ordering::SeqCst) {
                return Outcome::Stale;
            }
            got_any = true;
            let fed = if n == 0 {
                parser.eof(&mut parts)
            } else {
                parser.feed(&buf[..n], &mut parts)
            };
            // Decoded pieces of at most 64 KiB, one message each: the channel's bound
            // holds whatever gzip inflated.
            let mut body: Vec<Vec<u8>> = Vec::new();
            let mut ended = false;
            for part in parts.drain(..) {
                match part {
                    Part::Head { status, headers } => {
                        decoding = match BodyDecoding::for_headers(&headers) {
                            Ok(d) => d,
                            Err(e) => {
                                send(reset(e));
                                let _ = stream.shutdown(Shutdown::Both);
                                return Outcome::Done;
                            }
                        };
                        if !send(Msg::Head {
                            id,
                            status,
                            headers,
                            reused,
                        }) {
                            return Outcome::Done;
                        }
                    }
                    Part::Body(b) => match decoding.feed(b) {
                        Ok(pieces) => body.extend(pieces),
                        Err(e) => {
                            send(reset(e));
                            let _ = stream.shutdown(Shutdown::Both);
                            return Outcome::Done;
                        }
                    },
                    Part::End => ended = true,
                }
            }
            if ended {
                match decoding.finish() {
                    Ok(rest) => body.extend(rest),
                    Err(e) => {
                        send(reset(e));
                        let _ = stream.shutdown(Shutdown::Both);
                        return Outcome::Done;
                    }
                }
            }
            if ended {
                // Back to the pool before the engine hears of the end: its next request
                // (the next page, the re-watch) finds the connection there.
                let reusable = parser.reusable() && !conn.cancelled.load(Ordering::SeqCst);
                *conn.stream.lock().unwrap_or_else(|e| e.into_inner()) = None;
                if reusable {
                    self.pool.put(stream);
                } else {
                    let _ = stream.shutdown(Shutdown::Both);
                }
                if body.into_iter().all(|bytes| send(Msg::Body { id, bytes })) {
                    send(Msg::End { id });
                }
                return Outcome::Done;
            }
            if !body.into_iter().all(|bytes| send(Msg::Body { id, bytes })) {
                return Outcome::Done;
            }
            if let Err(e) = fed {
                send(reset(e.to_string()));
                return Outcome::Done;
            }
        }
    }
}

/// Milliseconds since the driver started, as the engine's clock.
pub(crate) struct Clock(pub(crate) std::time::Instant);

impl Clock {
    pub(crate) fn now(&self) -> Instant {
        Instant::from_millis(self.0.elapsed().as_millis() as u64)
    }
}

pub(crate) fn wall_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

pub(crate) fn seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ (u64::from(std::process::id()) << 32) ^ 0x6b75_6265_6c69_7665
}

/// Reports progress on stderr, prefixed with the time since start.
pub(crate) fn note(clock: &Clock, msg: &str) {
    let ms = clock.now().as_millis();
    eprintln!("[{:>4}.{:03}s] {msg}", ms / 1000, ms % 1000);
}

/// Builds the collection path from RESOURCE and the namespace options; discovery
/// when RESOURCE is a name. `Err((code, message))` to exit with.
/// A discovery answer that is not JSON, said with what the server sent.
fn not_discovery(base: &BaseUrl, path: &str, body: &[u8]) -> DiscoveryError {
    let e = kubelive_core::ApiError::from_http(502, None, body);
    DiscoveryError::Permanent(format!(
        "GET {base}{path}: not a discovery document: {}",
        e.message
    ))
}

pub(crate) fn collection(
    w: &WatchArgs,
    base: &BaseUrl,
    pool: &Pool,
    clock: &Clock,
    end_at: Option<std::time::Instant>,
    rx: &mpsc::Receiver<Msg>,
) -> Result<Collection, (i32, String)> {
    if w.resource.starts_with('/') {
        let c = Collection::parse(&w.resource).map_err(|e| (2, e.to_string()))?;
        return match (&w.namespaces, c.namespace()) {
            (Namespaces::One(ns), Some(p)) if ns != p => Err((
                2,
                format!("-n {ns} contradicts the namespace {p:?} in {}", w.resource),
            )),
            (Namespaces::One(ns), _) => Ok(c.with_namespace(Some(ns))),
            (Namespaces::All, Some(p)) => Err((
                2,
                format!("-A contradicts the namespace {p:?} in {}", w.resource),
            )),
            _ => Ok(c),
        };
    }
    let mut delay = Duration::from_millis(500);
    let mut refusals = 0;
    let mut hint: Option<String> = None;
    let mut told = false;
    let left = || end_at.map(|t| t.saturating_duration_since(std::time::Instant::now()));
    loop {
        let mut fetch = |path: &str| -> Result<Option<String>, DiscoveryError> {
            if w.verbose {
                note(clock, &format!("> GET {path} (discovery)"));
            }
            // --duration bounds discovery too: never wait on a socket past it.
            let timeout = left()
                .map_or(CONNECT_TIMEOUT, |l| CONNECT_TIMEOUT.min(l))
                .max(Duration::from_millis(1));
            let r = http::get(base, pool, path, timeout).map_err(|e| {
                if let http::GetError::Connect(c) = &e {
                    hint = Some(http::unreachable_hint(base, c));
                }
                DiscoveryError::Transient(format!("GET {base}{path}: {e}"))
            })?;
            if w.verbose {
                note(clock, &format!("< {} GET {path}", r.status));
            }
            match r.status {
                // Not JSON at all (a proxy's HTML page): say what came instead.
                200..=299 => match String::from_utf8(r.body) {
                    Ok(text) if serde_json::from_str::<IgnoredAny>(&text).is_ok() => Ok(Some(text)),
                    Ok(text) => Err(not_discovery(base, path, text.as_bytes())),
                    Err(e) => Err(not_discovery(base, path, e.as_bytes())),
                },
                404 => Ok(None),
                status => {
                    let headers: Vec<(&str, &str)> = r
                        .headers
                        .iter()
                        .map(|(k, v)| (k.as_str(), v.as_str()))
                        .collect();
                    let e = kubelive_core::ApiError::from_http(
                        status,
                        kubelive_core::retry_after(&headers),
                        &r.body,
                    );
                    let msg = format!("GET {base}{path}: {e}");
                    if e.kind.needs_user() {
                        Err(DiscoveryError::Permanent(msg))
                    } else {
                        Err(DiscoveryError::Transient(msg))
                    }
                }
            }
        };
        let err = match discovery::resolve(&w.resource, &mut fetch) {
            Ok(r) => {
                let ns = match (&w.namespaces, r.namespaced) {
                    (Namespaces::One(ns), true) => Some(ns.as_str()),
                    _ => None,
                };
                let c = Collection::new(&r.prefix, ns, &r.resource);
                if w.verbose {
                    note(clock, &format!("{} is {} ({})", w.resource, c, r.kind));
                }
                return Ok(c);
            }
            Err(DiscoveryError::NoSuchResource(m)) => return Err((1, m)),
            Err(DiscoveryError::Permanent(m)) => {
                refusals += 1;
                if refusals >= MAX_FAILED {
                    return Err((1, m));
                }
                m
            }
            Err(DiscoveryError::Transient(m)) => m,
        };
        match hint.take() {
            // Unreachable: say once, clearly, what to check; then retry quietly.
            Some(h) if !told => {
                told = true;
                note(clock, &h);
            }
            Some(_) => {}
            None => note(
                clock,
                &format!(
                    "discovery failed, retrying in {:.1}s: {err}",
                    delay.as_secs_f64()
                ),
            ),
        }
        let wait = left().map_or(delay, |l| delay.min(l));
        if left().is_some_and(|l| l.is_zero()) {
            return Err((
                1,
                format!("--duration ended before the server answered: {err}"),
            ));
        }
        match rx.recv_timeout(wait) {
            Ok(Msg::Signal(_)) => return Err((0, String::new())),
            Ok(_) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Err((1, err)),
        }
        delay = (delay * 2).min(Duration::from_secs(10));
    }
}

pub(crate) fn start_signals(tx: SyncSender<Msg>) {
    use signal_hook::consts::{SIGINT, SIGTERM};
    match signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) {
        Ok(mut signals) => {
            std::thread::spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    let _ = tx.send(Msg::Signal(sig));
                }
                // A second signal while shutting down: leave at once.
                if signals.forever().next().is_some() {
                    std::process::exit(130);
                }
            });
        }
        Err(e) => eprintln!("kubelive: warning: cannot handle signals: {e}"),
    }
}

/// Runs `kubelive watch`; returns the exit status.
pub fn watch(w: WatchArgs) -> i32 {
    let base = match BaseUrl::parse(&w.server) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("kubelive: --server: {e}");
            return 2;
        }
    };
    let clock = Clock(std::time::Instant::now());
    // --duration holds from the first moment, discovery included.
    let end_wall = w.duration.map(|d| clock.0 + d);
    // Bounded: a reader ahead of the decoder waits instead of queueing the response (up to
    // 64 KiB a message, gzip decoded or not: 4 MiB in flight, where 1,024 messages held
    // up to 64 MiB).
    let (tx, rx) = mpsc::sync_channel::<Msg>(64);
    start_signals(tx.clone());
    let pool = Arc::new(Pool::default());

    let collection = match collection(&w, &base, &pool, &clock, end_wall, &rx) {
        Ok(c) => c,
        Err((0, _)) => return 0,
        Err((code, msg)) => {
            eprintln!("kubelive: error: {msg}");
            return code;
        }
    };

    let mut config = Config::new(collection.clone());
    config.label_selector = w.label_selector.clone();
    config.field_selector = w.field_selector.clone();
    config.mode = if w.streaming_list {
        Mode::StreamingList
    } else {
        Mode::ListWatch
    };
    config.page_size = w.page_size;
    config.max_page_size = w.max_page_size;
    config.pipeline_pages = w.pipeline_pages;
    if let Some(secs) = w.watch_timeout {
        config.watch_timeout_secs = (secs, secs);
    }
    config.strip_managed_fields = w.strip_managed_fields;
    if w.server_print && w.output != Output::Snapshot {
        // The server prints (its columns for any resource); a server that cannot is
        // served as objects by the engine itself.
        config = config.tables(IncludeObject::Metadata);
    }
    config.seed = seed();
    // The CLI gives up after a few refusals; no need to wait long between them.
    config.backoff.needs_user_floor = Duration::from_secs(2);

    let mut driver = Driver {
        engine: Engine::new(config, clock.now()),
        base,
        pool,
        tx: tx.clone(),
        told_unreachable: false,
        reached_server: !w.resource.starts_with('/'),
        inflight: HashMap::new(),
        out: std::io::BufWriter::new(std::io::stdout()),
        output: w.output,
        wide: w.wide,
        verbose: w.verbose,
        tty: std::io::stdout().is_terminal(),
        with_namespace: collection.namespace().is_none(),
        failed_in_a_row: 0,
        fatal: None,
        table_dirty: true,
        terminal: Terminal::default(),
        last_draw: None,
        clock,
    };
    if driver.verbose || w.output != Output::Table || !driver.tty {
        note(
            &driver.clock,
            &format!("watching {}{}", driver.base, collection),
        );
    }
    let end_at = w.duration.map(|d| Instant::from_millis(0) + d);
    driver.drain();
    let mut stopped_by_pipe = false;
    let mut stopped_by_signal = false;
    loop {
        if driver.fatal.is_some() {
            break;
        }
        let now = driver.clock.now();
        if end_at.is_some_and(|t| now >= t) {
            break;
        }
        let mut deadline = driver.engine.poll_timeout();
        let mut consider = |t: Instant| {
            deadline = Some(deadline.map_or(t, |d| d.min(t)));
        };
        if let Some(t) = end_at {
            consider(t);
        }
        if let Some(t) = driver.next_draw() {
            consider(t);
        }
        let wait = match deadline {
            Some(t) => Duration::from_millis(t.as_millis().saturating_sub(now.as_millis())),
            None => Duration::from_secs(3600),
        };
        match rx.recv_timeout(wait) {
            Ok(Msg::Signal(sig)) => {
                if w.verbose {
                    note(&driver.clock, &format!("signal {sig}: stopping"));
                }
                stopped_by_signal = true;
                break;
            }
            Ok(msg) => driver.feed(msg),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        let now = driver.clock.now();
        if driver.engine.poll_timeout().is_some_and(|t| now >= t) {
            driver.engine.handle_timeout(now);
        }
        driver.drain();
        if driver.output == Output::Table {
            driver.maybe_draw(false);
        }
        if driver.out.flush().is_err() {
            stopped_by_pipe = true;
            break;
        }
    }
    let last_status = driver.engine.status();
    driver.engine.stop();
    driver.drain();
    for (_, conn) in driver.inflight.drain() {
        conn.cancel();
    }
    if let Some(msg) = driver.fatal.take() {
        let _ = driver.out.flush();
        eprintln!("kubelive: error: {msg}");
        return 1;
    }
    if !driver.reached_server && !stopped_by_signal {
        let _ = driver.out.flush();
        eprintln!(
            "kubelive: error: --duration ended and the server at {} was never reached",
            driver.base
        );
        return 1;
    }
    if stopped_by_pipe {
        return 0;
    }
    match driver.output {
        Output::Snapshot => {
            let _ = driver
                .out
                .write_all(output::snapshot(driver.engine.store()).as_bytes());
        }
        Output::Table => {
            if driver.tty {
                // The last table stays in the terminal's scrollback: every row.
                driver.maybe_draw(true);
            } else {
                let table = driver.table(output::Shown::All);
                let _ = driver.out.write_all(table.as_bytes());
            }
        }
        Output::Events => {}
    }
    let _ = driver.out.flush();
    let s = last_status;
    if w.verbose || w.output != Output::Table || !driver.tty {
        note(
            &driver.clock,
            &format!(
                "stopped: {} objects, rv {}, {} resumes, {} relists, {} errors",
                s.objects,
                s.resource_version.as_ref().map_or("-", |v| v.as_str()),
                s.resumes,
                s.relists,
                s.errors
            ),
        );
    }
    0
}

struct Driver {
    engine: Engine,
    base: BaseUrl,
    pool: Arc<Pool>,
    tx: SyncSender<Msg>,
    /// The hint for an unreachable server was printed (once is enough).
    told_unreachable: bool,
    /// A response came from the server (or discovery got one).
    reached_server: bool,
    inflight: HashMap<RequestId, Arc<Conn>>,
    out: std::io::BufWriter<std::io::Stdout>,
    output: Output,
    wide: bool,
    verbose: bool,
    tty: bool,
    with_namespace: bool,
    failed_in_a_row: u32,
    /// Set when the driver gives up: the message to exit 1 with.
    fatal: Option<String>,
    table_dirty: bool,
    terminal: Terminal,
    last_draw: Option<Instant>,
    clock: Clock,
}

impl Driver {
    fn feed(&mut self, msg: Msg) {
        let now = self.clock.now();
        match msg {
            Msg::Head {
                id,
                status,
                headers,
                reused,
            } => {
                if self.verbose {
                    let how = if reused {
                        " (kept-alive connection)"
                    } else {
                        ""
                    };
                    note(&self.clock, &format!("< {status} {id}{how}"));
                }
                self.reached_server = true;
                let h: Vec<(&str, &str)> = headers
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect();
                self.engine.handle_response(id, status, &h, now);
            }
            Msg::Body { id, bytes } => self.engine.handle_body(id, &bytes, now),
            Msg::End { id } => {
                self.inflight.remove(&id);
                if self.verbose {
                    note(&self.clock, &format!("< end of body {id}"));
                }
                self.engine.handle_end(id, now);
            }
            Msg::Error {
                id,
                error,
                unreachable,
            } => {
                self.inflight.remove(&id);
                if self.verbose {
                    note(&self.clock, &format!("< {id} failed: {error}"));
                }
                if let Some(hint) = unreachable {
                    if !std::mem::replace(&mut self.told_unreachable, true) {
                        let _ = self.out.flush();
                        note(&self.clock, &hint);
                    }
                }
                self.engine.handle_error(id, error, now);
            }
            Msg::Signal(_) => {}
        }
    }

    /// The draining rule: cancels, requests, events, until all are empty.
    fn drain(&mut self) {
        loop {
            let mut any = false;
            while let Some(id) = self.engine.poll_cancel() {
                any = true;
                if let Some(conn) = self.inflight.remove(&id) {
                    if self.verbose {
                        note(&self.clock, &format!("cancel {id}"));
                    }
                    conn.cancel();
                }
            }
            while let Some(req) = self.engine.poll_request() {
                any = true;
                self.spawn(req);
            }
            while let Some(event) = self.engine.poll_event() {
                any = true;
                self.show(event);
            }
            if !any {
                break;
            }
        }
    }

    fn spawn(&mut self, req: Request) {
        if self.verbose {
            note(&self.clock, &format!("> {req} ({})", req.id));
        }
        let conn = Arc::new(Conn::default());
        self.inflight.insert(req.id, conn.clone());
        let base = self.base.clone();
        let pool = self.pool.clone();
        let tx = self.tx.clone();
        let Request {
            id, path, accept, ..
        } = req;
        let job = Job {
            base,
            pool,
            id,
            path,
            accept,
            conn,
            tx,
        };
        let spawned = std::thread::Builder::new()
            .name(format!("kubelive-{id}"))
            .spawn(move || job.run());
        if let Err(e) = spawned {
            self.inflight.remove(&id);
            self.engine.handle_error(
                id,
                TransportError::Connect(format!("cannot start a thread: {e}")),
                self.clock.now(),
            );
        }
    }

    fn show(&mut self, event: Event) {
        let now = self.clock.now();
        match &event {
            Event::Failed { error } => {
                self.failed_in_a_row += 1;
                let permanent_now =
                    matches!(error.kind, ApiErrorKind::NotFound | ApiErrorKind::Invalid);
                if permanent_now || self.failed_in_a_row >= MAX_FAILED {
                    self.fatal = Some(error.message.clone());
                }
            }
            Event::Synced { .. } | Event::Resumed { .. } | Event::PageListed { .. } => {
                self.failed_in_a_row = 0;
            }
            _ => {}
        }
        if matches!(
            event,
            Event::Added(_) | Event::Modified { .. } | Event::Deleted(_)
        ) {
            self.table_dirty = true;
        }
        match self.output {
            Output::Events => match output::event_line_in(
                &event,
                now,
                self.engine.columns().map(|c| &c[..]),
                wall_now(),
            ) {
                Line::Out(l) => {
                    let _ = writeln!(self.out, "{l}");
                }
                Line::Err(l) => {
                    let _ = self.out.flush();
                    note(&self.clock, &l);
                }
            },
            Output::Snapshot => match output::event_line(&event, now) {
                // With --verbose, changes are told on stderr too (stdout is the snapshot).
                Line::Out(l) if self.verbose => note(&self.clock, &l),
                Line::Out(_) => {}
                Line::Err(l) => note(&self.clock, &l),
            },
            Output::Table => {
                self.table_dirty = true;
                if !self.tty || self.verbose {
                    if let Some(l) = output::progress(&event, now) {
                        note(&self.clock, &l);
                    }
                }
            }
        }
    }

    /// The table: the server's columns while it prints, else the fallback printer's.
    /// NAMESPACE shows when the view spans namespaces and the kind has them (kubectl
    /// prints none for nodes, even with -A).
    fn table(&self, shown: output::Shown) -> String {
        let store = self.engine.store();
        let with_namespace = self.with_namespace && store.iter().any(|o| !o.namespace().is_empty());
        let columns = self.engine.columns().map(|c| &c[..]);
        output::table(store, columns, wall_now(), with_namespace, self.wide, shown)
    }

    fn next_draw(&self) -> Option<Instant> {
        if self.output != Output::Table || !self.tty {
            return None;
        }
        Some(match self.last_draw {
            None => self.clock.now(),
            Some(t) if self.table_dirty => t + TABLE_MIN_INTERVAL,
            Some(t) => t + TABLE_REFRESH,
        })
    }

    fn maybe_draw(&mut self, force: bool) {
        if !self.tty {
            return;
        }
        let now = self.clock.now();
        if !force && self.next_draw().is_some_and(|t| now < t) {
            return;
        }
        // A live redraw formats what fits the terminal (a collection of 100,000 is
        // not re-printed 10 times a second); the last one (`force`) prints every row.
        let shown = match (force, self.terminal.rows(now)) {
            (false, Some(rows)) => output::Shown::First(rows.saturating_sub(4).max(1)),
            _ => output::Shown::All,
        };
        let mut screen = String::from("\x1b[H\x1b[2J");
        screen.push_str(&output::status_line(&self.engine.status(), now));
        screen.push_str("\n\n");
        screen.push_str(&self.table(shown));
        let _ = self.out.write_all(screen.as_bytes());
        let _ = self.out.flush();
        self.last_draw = Some(now);
        self.table_dirty = false;
    }
}

/// The terminal's height in rows, for live tables: asked of `stty size` on `/dev/tty`
/// (the workspace has no unsafe `ioctl`), at most every 2 s so that a resized window is
/// followed; `LINES` if that fails; `None` if neither says.
#[derive(Default)]
pub(crate) struct Terminal {
    rows: Option<usize>,
    asked: Option<Instant>,
}

impl Terminal {
    const EVERY: Duration = Duration::from_secs(2);

    pub(crate) fn rows(&mut self, now: Instant) -> Option<usize> {
        if self.asked.is_none_or(|t| now >= t + Self::EVERY) {
            self.asked = Some(now);
            self.rows = stty_rows().or_else(|| std::env::var("LINES").ok()?.parse().ok());
        }
        self.rows
    }
}

fn stty_rows() -> Option<usize> {
    let tty = std::fs::File::open("/dev/tty").ok()?;
    let out = Command::new("stty")
        .arg("size")
        .stdin(tty)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    text.split_whitespace()
        .next()?
        .parse()
        .ok()
        .filter(|&r| r > 0)
}
