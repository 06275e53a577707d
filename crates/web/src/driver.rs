//! The browser driver of the sans-io engine: it moves bytes and time, nothing else.
//!
//! Every request the engine asks for becomes a `fetch` whose body is read chunk by
//! chunk from its `ReadableStream` and fed to the engine as it arrives (no buffering of
//! whole bodies). The engine's earliest deadline becomes one `setTimeout` (the engine
//! owns every deadline: a silent connection is its call, and the driver aborts what it
//! gives up on). Requests the engine gives up on, and everything on [`Driver::stop`]
//! (or drop), are aborted with their `AbortController`. After each feed the engine is drained as the core's draining rule
//! says, and the events go to the sink in one batch, outside any borrow, so the sink
//! may call back into the driver.

use crate::status::{DriverNotes, StatusView};
use crate::time;
use kubelive_core::{
    Config, Engine, Event, Request, RequestId, RequestKind, Restart, RestoreError, SaveError,
    SavedView, Store, TransportError,
};
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortController, ReadableStreamByobReader, ReadableStreamDefaultReader,
    ReadableStreamReadResult, RequestCredentials, RequestInit,
};

/// Receives every batch of engine events, with a handle to ask the driver for status
/// or the store while it runs.
pub type Sink = Box<dyn FnMut(&DriverRef<'_>, Vec<Event>)>;

/// Receives each saved view ([`Driver::save_views`]) to store (e.g.
/// [`crate::persist::Persist::save`]).
pub type SaveSink = Box<dyn FnMut(Vec<u8>)>;

/// When a running view is saved: when it syncs, then at most every `every_ms` while
/// its version moves, and when the page is hidden or left (`pagehide`,
/// `visibilitychange` to hidden: the last moment a page is sure to run).
struct Saver {
    every_ms: f64,
    sink: SaveSink,
    /// The most a saved view may take (the store's bound): a larger one is not
    /// written, and once a view was larger it is not encoded again while its rows
    /// would still be (at a million rows, an encoding is most of a second of the
    /// page's time, for bytes the store would refuse).
    max_bytes: usize,
    /// The last encoding's bytes a row.
    bytes_per_row: Option<f64>,
    /// When the last save was made (`performance.now()`), and at which version.
    last_at: f64,
    last_rv: Option<String>,
    /// The page listeners, removed when the driver stops.
    listeners: Vec<Listener>,
}

/// A page event listener the driver added.
struct Listener {
    target: web_sys::EventTarget,
    event: &'static str,
    callback: Closure<dyn FnMut(web_sys::Event)>,
}

struct Inner {
    engine: Engine,
    base_url: String,
    inflight: Vec<(RequestId, AbortController)>,
    /// The armed timer: (setTimeout handle, engine instant it fires for).
    timer: Option<(i32, u64)>,
    stopped: bool,
    /// The page is in the back/forward cache: the engine is stopped until the page
    /// is shown again ([`listen_to_the_page`]).
    paused: bool,
    /// The page's `pagehide` and `pageshow` listeners (none in a worker).
    lifecycle: Vec<Listener>,
    notes: DriverNotes,
    saver: Option<Saver>,
    /// The version a restored view started at: already saved, so not saved again
    /// until the view moves past it (saving it again would only make it look newer).
    restored_rv: Option<String>,
}

struct Shared {
    inner: RefCell<Inner>,
    sink: RefCell<Sink>,
}

/// A running engine. Dropping it stops it (aborts what is in flight, clears timers).
pub struct Driver {
    shared: Rc<Shared>,
}

/// What a sink may look at while it handles a batch.
pub struct DriverRef<'a> {
    shared: &'a Shared,
}

impl DriverRef<'_> {
    pub fn status(&self) -> StatusView {
        status_of(self.shared)
    }

    pub fn with_store<R>(&self, f: impl FnOnce(&Store) -> R) -> R {
        f(self.shared.inner.borrow().engine.store())
    }

    /// Stops the engine (as [`Driver::stop`]) from inside the sink.
    pub fn stop(&self) {
        stop(self.shared);
    }
}

fn status_of(shared: &Shared) -> StatusView {
    let inner = shared.inner.borrow();
    StatusView::new(&inner.engine.status(), &inner.notes, time::now())
}

impl Driver {
    /// Starts an engine for `config` against `base_url` (`""` for same origin: API
    /// paths are absolute, `/api/...`).
    pub fn start(config: Config, base_url: &str, sink: Sink) -> Driver {
        let config = browser_config(config);
        Driver::run(Engine::new(config, time::now()), base_url, sink)
    }

    /// Starts from a saved view ([`crate::persist::Persist::load`]): the sink's first
    /// batch holds the saved rows (`Columns`, an `Added` per row, then
    /// `Event::Restored`), and the engine watches from their version instead of
    /// listing; a 410 relists with the rows diffed, as any resume does. Bytes that do
    /// not restore into `config` (damaged, another format version, another view) start
    /// the engine as [`Driver::start`] does, and the error says why: forget that saved
    /// view then ([`crate::persist::Persist::forget`]).
    pub fn restore(
        config: Config,
        saved: &[u8],
        base_url: &str,
        sink: Sink,
    ) -> (Driver, Option<RestoreError>) {
        let config = browser_config(config);
        let restored = SavedView::decode(saved)
            .and_then(|view| Engine::restore(config.clone(), view, time::now()));
        match restored {
            Ok(engine) => {
                let rv = engine.status().resource_version.map(|rv| rv.to_string());
                let driver = Driver::run(engine, base_url, sink);
                driver.shared.inner.borrow_mut().restored_rv = rv;
                (driver, None)
            }
            Err(e) => (
                Driver::run(Engine::new(config, time::now()), base_url, sink),
                Some(e),
            ),
        }
    }

    fn run(engine: Engine, base_url: &str, sink: Sink) -> Driver {
        let shared = Rc::new(Shared {
            inner: RefCell::new(Inner {
                engine,
                base_url: base_url.trim_end_matches('/').to_string(),
                inflight: Vec::new(),
                timer: None,
                stopped: false,
                paused: false,
                lifecycle: Vec::new(),
                notes: DriverNotes::default(),
                saver: None,
                restored_rv: None,
            }),
            sink: RefCell::new(sink),
        });
        listen_to_the_page(&shared);
        // The engine queued its first request in `new`: drain it.
        feed(&shared, |_, _| {});
        Driver { shared }
    }

    /// Stops the engine and aborts everything in flight. Idempotent.
    pub fn stop(&self) {
        stop(&self.shared);
    }

    /// Starts a stopped engine again from what it holds ([`Engine::restart`]): a watch
    /// from its last version, or a relist diffed against its store.
    pub fn restart(&self) -> Restart {
        let mut restart = Restart::Running;
        if !self.is_stopped() {
            return restart;
        }
        self.shared.inner.borrow_mut().stopped = false;
        feed(&self.shared, |engine, now| restart = engine.restart(now));
        restart
    }

    pub fn is_stopped(&self) -> bool {
        self.shared.inner.borrow().stopped
    }

    /// Ends the engine's requests without stopping it, as a page going into the
    /// back/forward cache does: what it holds, its saver and its listeners stay, and
    /// [`Driver::resume`] watches on from its version. For a view nobody shows for a
    /// while (a shared view in its grace). Stopped or paused: nothing.
    pub fn pause(&self) {
        pause(&self.shared);
    }

    /// Starts a paused engine again from what it holds (a watch from its version, no
    /// LIST). Not paused: nothing.
    pub fn resume(&self) {
        resume(&self.shared);
    }

    pub fn status(&self) -> StatusView {
        status_of(&self.shared)
    }

    pub fn with_store<R>(&self, f: impl FnOnce(&Store) -> R) -> R {
        f(self.shared.inner.borrow().engine.store())
    }

    /// The running view as [`Engine::save_view`] writes it: `Err` says why it cannot
    /// be saved now (not a table view of identity rows, or not at one version yet).
    pub fn save_view(&self) -> Result<Vec<u8>, SaveError> {
        self.shared.inner.borrow().engine.save_view()
    }

    /// Saves the view through `sink` from now on: at each `Synced`, then at most
    /// every `every_ms` milliseconds while its version moves, and when the page is
    /// hidden or left (not as it goes into the back/forward cache). Views that cannot
    /// be saved (see [`Driver::save_view`]) are not; the engine's work is unchanged.
    /// Replaces an earlier saver. In a worker (no window) only the first two apply.
    pub fn save_views(&self, every_ms: f64, max_bytes: usize, sink: SaveSink) {
        let mut listeners = Vec::new();
        // A page left for good is saved as it goes by its `pagehide`
        // ([`listen_to_the_page`]); here, a page hidden (a tab put aside).
        if let Some(document) = web_sys::window().and_then(|w| w.document()) {
            let weak = Rc::downgrade(&self.shared);
            let callback = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
                let Some(shared) = weak.upgrade() else {
                    return;
                };
                let now_hidden = web_sys::window()
                    .and_then(|w| w.document())
                    .is_some_and(|d| d.hidden());
                if !now_hidden {
                    return;
                }
                // A page leaving is hidden too, and its pagehide comes in the same task:
                // saved after it, unless it paused the engine (cached) or stopped it (left,
                // saved already).
                let weak = Rc::downgrade(&shared);
                let later = Closure::once_into_js(move || {
                    if let Some(shared) = weak.upgrade() {
                        if !shared.inner.borrow().paused {
                            save_now(&shared, true);
                        }
                    }
                });
                if let Some(w) = web_sys::window() {
                    let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(
                        later.unchecked_ref(),
                        0,
                    );
                }
            });
            let target: web_sys::EventTarget = document.into();
            let event = "visibilitychange";
            if target
                .add_event_listener_with_callback(event, callback.as_ref().unchecked_ref())
                .is_ok()
            {
                listeners.push(Listener {
                    target,
                    event,
                    callback,
                });
            }
        }
        let mut inner = self.shared.inner.borrow_mut();
        let last_rv = inner.restored_rv.clone();
        // A restored view counts as saved when it was restored: its watch's first
        // events do not write it whole again at once, only after `every_ms`.
        let last_at = match last_rv {
            Some(_) => time::now_ms(),
            None => f64::NEG_INFINITY,
        };
        let old = inner.saver.replace(Saver {
            every_ms,
            sink,
            max_bytes,
            bytes_per_row: None,
            last_at,
            last_rv,
            listeners,
        });
        drop(inner);
        if let Some(old) = old {
            remove_listeners(old.listeners);
        }
        // A view already at a version is saved at once, unless it is the version it
        // was restored at.
        save_now(&self.shared, false);
    }

    /// Saves the view through the saver now if its version moved since the last save
    /// (a worker's page leaving: the worker may end with it).
    pub fn save_now(&self) {
        save_now(&self.shared, true);
    }

    /// Requests currently in flight (for tests and the status bar).
    pub fn in_flight(&self) -> usize {
        self.shared.inner.borrow().inflight.len()
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        stop(&self.shared);
    }
}

/// What every browser engine is started with.
fn browser_config(mut config: Config) -> Config {
    // Jitter and watch timeouts differ between tabs; simulations fix the seed.
    config.seed = (js_sys::Math::random() * 9_007_199_254_740_991.0) as u64;
    // fetch keeps only a gzip body's first member: every engine in the browser (the
    // app's views, the JS Watcher, <kubelive-table>) starts here.
    config.reads_first_gzip_member_only = true;
    config
}

fn remove_listeners(listeners: Vec<Listener>) {
    for l in listeners {
        let _ = l
            .target
            .remove_event_listener_with_callback(l.event, l.callback.as_ref().unchecked_ref());
    }
}

/// Whether a view of `rows` rows would fit `max_bytes`, at the last encoding's bytes a
/// row (unknown: it is encoded to know).
fn fits(bytes_per_row: Option<f64>, rows: usize, max_bytes: usize) -> bool {
    bytes_per_row.is_none_or(|b| b * rows as f64 <= max_bytes as f64)
}

/// Saves the view if a saver is set, the engine holds the state at a version other
/// than the last saved one, and (unless `force`) `every_ms` has passed since.
fn save_now(shared: &Shared, force: bool) {
    let saved = {
        let mut inner = shared.inner.borrow_mut();
        let inner = &mut *inner;
        let Some(saver) = inner.saver.as_mut() else {
            return;
        };
        let now = time::now_ms();
        if !force && now - saver.last_at < saver.every_ms {
            return;
        }
        let rv = inner
            .engine
            .status()
            .resource_version
            .map(|rv| rv.to_string());
        if rv.is_none() || rv == saver.last_rv {
            return;
        }
        let rows = inner.engine.store().len();
        if !fits(saver.bytes_per_row, rows, saver.max_bytes) {
            saver.last_at = now;
            return;
        }
        match inner.engine.save_view() {
            Ok(bytes) => {
                saver.last_at = now;
                saver.last_rv = rv;
                saver.bytes_per_row = Some(bytes.len() as f64 / rows.max(1) as f64);
                (bytes.len() <= saver.max_bytes).then_some(bytes)
            }
            Err(_) => None,
        }
    };
    if let Some(bytes) = saved {
        // Outside the borrow: the sink may call back into the driver. A saver
        // replaced meanwhile gets nothing: its sink is gone with it.
        let sink = shared
            .inner
            .borrow_mut()
            .saver
            .as_mut()
            .map(|s| std::mem::replace(&mut s.sink, Box::new(|_| {})));
        if let Some(mut sink) = sink {
            sink(bytes);
            if let Some(saver) = shared.inner.borrow_mut().saver.as_mut() {
                saver.sink = sink;
            }
        }
    }
}

/// After a batch: a `Synced` saves at once (the moment a fresh view is whole); a
/// `Restored` counts as saved; anything else saves when `every_ms` has passed.
fn after_batch(shared: &Shared, events: &[Event]) {
    let mut force = false;
    {
        let mut inner = shared.inner.borrow_mut();
        let Some(saver) = inner.saver.as_mut() else {
            return;
        };
        for e in events {
            match e {
                Event::Synced { .. } => force = true,
                Event::Restored {
                    resource_version, ..
                } => {
                    saver.last_at = time::now_ms();
                    saver.last_rv = Some(resource_version.to_string());
                }
                _ => {}
            }
        }
    }
    save_now(shared, force);
}

fn stop(shared: &Shared) {
    let mut inner = shared.inner.borrow_mut();
    if inner.stopped {
        return;
    }
    if let Some(saver) = inner.saver.take() {
        remove_listeners(saver.listeners);
    }
    remove_listeners(std::mem::take(&mut inner.lifecycle));
    halt(&mut inner);
    inner.stopped = true;
    inner.paused = false;
}

/// Stops the engine where it stands and aborts what is in flight; the store, the
/// version it holds and the saver stay.
fn halt(inner: &mut Inner) {
    inner.engine.stop();
    while inner.engine.poll_cancel().is_some() {}
    while inner.engine.poll_request().is_some() {}
    while inner.engine.poll_event().is_some() {}
    for (_, controller) in inner.inflight.drain(..) {
        controller.abort();
    }
    if let Some((handle, _)) = inner.timer.take() {
        if let Some(w) = crate::scope::global() {
            w.clear_timeout_with_handle(handle);
        }
    }
}

/// A page that goes into the back/forward cache (`pagehide`, persisted) stops its
/// engine: a page kept there must not hold a watch open on the apiserver, its events
/// buffered for a page that may never come back. It saves nothing as it goes: a write
/// begun then is frozen with the page (WebKitGTK), holding the store's lock for every
/// page and worker of the origin until the page comes back. Shown again from the cache
/// (`pageshow`, persisted), the engine starts again from what it holds: a watch from
/// its version, no LIST (a relist, diffed, only if the server answers 410).
/// A page left for good (`pagehide`, not persisted) saves its view and stops the
/// engine, aborting its requests: the browser should end them with the page, but
/// Firefox ESR was seen to keep a left page's watch open and reading (1 page in 4).
fn listen_to_the_page(shared: &Rc<Shared>) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let mut listeners = Vec::new();
    for event in ["pagehide", "pageshow"] {
        let weak = Rc::downgrade(shared);
        let callback = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            let persisted = js_sys::Reflect::get(&e, &JsValue::from_str("persisted"))
                .is_ok_and(|p| p.is_truthy());
            match (weak.upgrade(), event) {
                (Some(shared), "pagehide") if persisted => pause(&shared),
                (Some(shared), "pageshow") if persisted => resume(&shared),
                (Some(shared), "pagehide") => {
                    save_now(&shared, true);
                    stop(&shared);
                }
                _ => {}
            }
        });
        if window
            .add_event_listener_with_callback(event, callback.as_ref().unchecked_ref())
            .is_ok()
        {
            listeners.push(Listener {
                target: window.clone().into(),
                event,
                callback,
            });
        }
    }
    shared.inner.borrow_mut().lifecycle = listeners;
}

fn pause(shared: &Shared) {
    let mut inner = shared.inner.borrow_mut();
    if !inner.stopped && !inner.paused {
        halt(&mut inner);
        inner.paused = true;
    }
}

fn resume(shared: &Rc<Shared>) {
    let paused = std::mem::take(&mut shared.inner.borrow_mut().paused);
    if paused {
        feed(shared, |engine, now| {
            engine.restart(now);
        });
    }
}

/// One feed call, then the draining rule, then the sink (outside the borrow). The sink
/// is called even without events (an empty batch): the status may have moved (a head
/// arrived, a backoff ended); only body chunks that brought no event skip it.
fn feed(shared: &Rc<Shared>, f: impl FnOnce(&mut Engine, kubelive_core::Instant)) {
    feed_and_tell(shared, true, f);
}

/// A body chunk: the sink hears of it only when it brought events.
fn feed_body(shared: &Rc<Shared>, f: impl FnOnce(&mut Engine, kubelive_core::Instant)) {
    feed_and_tell(shared, false, f);
}

fn feed_and_tell(
    shared: &Rc<Shared>,
    always: bool,
    f: impl FnOnce(&mut Engine, kubelive_core::Instant),
) {
    let events = {
        let mut guard = shared.inner.borrow_mut();
        let inner = &mut *guard;
        if inner.stopped {
            return;
        }
        f(&mut inner.engine, time::now());
        drain(shared, inner)
    };
    after_batch(shared, &events);
    if always || !events.is_empty() {
        let mut sink = shared.sink.borrow_mut();
        (*sink)(&DriverRef { shared }, events);
    }
}

/// The URL a request is fetched from. A LIST page asks for `pretty=false`:
/// kube-apiserver indents its answers for a browser's User-Agent (`Mozilla/5.0`,
/// negotiation's `isPrettyPrint`), which doubles a list's bytes (12.5 KB instead of
/// 5.7 KB a pod) for nothing. Watch events are written compact anyway.
pub fn request_url(base_url: &str, request: &Request) -> String {
    let path = &request.path;
    match request.kind {
        RequestKind::List { .. } => {
            let sep = if path.contains('?') { '&' } else { '?' };
            format!("{base_url}{path}{sep}pretty=false")
        }
        RequestKind::Watch | RequestKind::StreamingList => format!("{base_url}{path}"),
    }
}

fn drain(shared: &Rc<Shared>, inner: &mut Inner) -> Vec<Event> {
    while let Some(id) = inner.engine.poll_cancel() {
        if let Some(i) = inner.inflight.iter().position(|(r, _)| *r == id) {
            inner.inflight.swap_remove(i).1.abort();
        }
    }
    while let Some(request) = inner.engine.poll_request() {
        let controller = match AbortController::new() {
            Ok(c) => c,
            Err(_) => continue, // no AbortController: not a browser we support
        };
        inner.inflight.push((request.id, controller.clone()));
        let url = request_url(&inner.base_url, &request);
        wasm_bindgen_futures::spawn_local(run_request(
            Rc::downgrade(shared),
            request,
            url,
            controller,
        ));
    }
    let mut events = Vec::new();
    // One clock read for the batch: a chunk of a list brings hundreds of events, and
    // each read is three calls into JS.
    let now = time::now();
    while let Some(event) = inner.engine.poll_event() {
        inner.notes.note(&event, now);
        events.push(event);
    }
    rearm(shared, inner);
    events
}

fn rearm(shared: &Rc<Shared>, inner: &mut Inner) {
    let want = inner.engine.poll_timeout().map(|t| t.as_millis());
    match (inner.timer.map(|(_, at)| at), want) {
        // The armed timer fires first: the engine, called early, changes nothing and
        // the timer is armed again then. (A watch's idle deadline moves with every
        // chunk: this keeps it to one timer per quiet spell, not one per chunk.)
        (Some(at), Some(want)) if at <= want => return,
        (None, None) => return,
        _ => {}
    }
    let Some(window) = crate::scope::global() else {
        return;
    };
    if let Some((handle, _)) = inner.timer.take() {
        window.clear_timeout_with_handle(handle);
    }
    let Some(at) = want else {
        return;
    };
    let delay = at
        .saturating_sub(time::now().as_millis())
        .min(i32::MAX as u64) as i32;
    let weak = Rc::downgrade(shared);
    // once_into_js frees itself when called; a cleared timer leaks one small closure.
    let callback = Closure::once_into_js(move || {
        if let Some(shared) = weak.upgrade() {
            shared.inner.borrow_mut().timer = None;
            feed(&shared, |engine, now| engine.handle_timeout(now));
        }
    });
    if let Ok(handle) = window
        .set_timeout_with_callback_and_timeout_and_arguments_0(callback.unchecked_ref(), delay)
    {
        inner.timer = Some((handle, at));
    }
}

fn still_wanted(weak: &Weak<Shared>, id: RequestId) -> Option<Rc<Shared>> {
    let shared = weak.upgrade()?;
    let wanted = {
        let inner = shared.inner.borrow();
        !inner.stopped && inner.inflight.iter().any(|(r, _)| *r == id)
    };
    wanted.then_some(shared)
}

fn forget(shared: &Shared, id: RequestId) {
    shared.inner.borrow_mut().inflight.retain(|(r, _)| *r != id);
}

fn js_message(e: &JsValue) -> String {
    if let Some(err) = e.dyn_ref::<js_sys::Error>() {
        return String::from(err.message());
    }
    e.as_string().unwrap_or_else(|| format!("{e:?}"))
}

/// Carries out one request: fetch, head, then the body chunk by chunk.
async fn run_request(
    weak: Weak<Shared>,
    request: Request,
    url: String,
    controller: AbortController,
) {
    let id = request.id;
    let init = RequestInit::new();
    init.set_method("GET");
    init.set_signal(Some(&controller.signal()));
    // Same origin only: the proxy adds credentials; the browser sends none of its own
    // to other origins.
    init.set_credentials(RequestCredentials::SameOrigin);
    // The engine's Accept (server-side tables, or plain JSON).
    if let Ok(headers) = web_sys::Headers::new() {
        let _ = headers.set("Accept", request.accept);
        init.set_headers(&headers);
    }
    let Some(window) = crate::scope::global() else {
        return;
    };
    let fetched = JsFuture::from(window.fetch_with_str_and_init(&url, &init)).await;
    let Some(shared) = still_wanted(&weak, id) else {
        return;
    };
    let response: web_sys::Response = match fetched.and_then(|r| r.dyn_into()) {
        Ok(r) => r,
        Err(e) => {
            forget(&shared, id);
            let error = TransportError::Connect(js_message(&e));
            feed(&shared, |engine, now| engine.handle_error(id, error, now));
            return;
        }
    };
    let headers = response.headers();
    let mut head: Vec<(&str, String)> = Vec::new();
    // Date: a Retry-After given as a date is read against the response's own Date.
    // Content-Encoding: the browser decodes gzip itself but keeps only the first gzip
    // member, and a gzipped streaming list (kube-apiserver 1.37) is one member per
    // flush: the engine must know before the body starts. A same-origin fetch reads
    // it; another origin's only where the server exposes it.
    for name in ["retry-after", "date", "content-type", "content-encoding"] {
        if let Ok(Some(v)) = headers.get(name) {
            head.push((name, v));
        }
    }
    let head: Vec<(&str, &str)> = head.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let status = response.status();
    feed(&shared, |engine, now| {
        engine.handle_response(id, status, &head, now)
    });
    let Some(body) = response.body() else {
        forget(&shared, id);
        feed(&shared, |engine, now| engine.handle_end(id, now));
        return;
    };
    let mut reader = BodyReader::new(&body);
    drop(shared);
    let mut buf: Vec<u8> = Vec::new();
    loop {
        let read = reader.read_into(&mut buf).await;
        // Not wanted any more: it was aborted, which also errored the stream (a
        // reader.cancel() here would only add a promise rejecting with AbortError).
        let Some(shared) = still_wanted(&weak, id) else {
            return;
        };
        match read {
            Ok(Some(n)) => feed_body(&shared, |engine, now| {
                engine.handle_body(id, &buf[..n], now)
            }),
            Ok(None) => {
                forget(&shared, id);
                feed(&shared, |engine, now| engine.handle_end(id, now));
                return;
            }
            Err(e) => {
                // The body ended by a network error, not by its end: a reset.
                forget(&shared, id);
                let error = TransportError::Reset(js_message(&e));
                feed(&shared, |engine, now| engine.handle_error(id, error, now));
                return;
            }
        }
    }
}

/// Bytes a BYOB read may bring at once: a busy page takes what piled up in one read.
const BYOB_BYTES: u32 = 1 << 20;

/// A response body's reader. Where the fetch body is a byte stream (Chromium,
/// Firefox), reads go into one reused buffer (no new buffer per chunk for the
/// garbage collector, and a page that fell behind takes what piled up in one read);
/// elsewhere the default reader's own chunks.
enum BodyReader {
    Byob {
        reader: ReadableStreamByobReader,
        /// The buffer to read into next (a read transfers it and hands it back).
        spare: Option<js_sys::ArrayBuffer>,
    },
    Chunks(ReadableStreamDefaultReader),
}

impl BodyReader {
    fn new(body: &web_sys::ReadableStream) -> BodyReader {
        match ReadableStreamByobReader::new(body) {
            Ok(reader) => BodyReader::Byob {
                reader,
                spare: None,
            },
            Err(_) => BodyReader::Chunks(body.get_reader().unchecked_into()),
        }
    }

    /// Reads the next bytes into the start of `buf`, which only grows (so it is not
    /// zeroed again per read): how many, `Ok(None)` at the body's end, `Err` when the
    /// body failed (a reset, or aborted).
    async fn read_into(&mut self, buf: &mut Vec<u8>) -> Result<Option<usize>, JsValue> {
        let value = match self {
            BodyReader::Byob { reader, spare } => {
                let buffer = spare
                    .take()
                    .unwrap_or_else(|| js_sys::ArrayBuffer::new(BYOB_BYTES));
                let view = js_sys::Uint8Array::new(&buffer);
                let result: ReadableStreamReadResult =
                    JsFuture::from(reader.read_with_array_buffer_view(&view))
                        .await?
                        .unchecked_into();
                if result.get_done() != Some(false) {
                    return Ok(None);
                }
                let value: js_sys::Uint8Array = result.get_value().unchecked_into();
                *spare = Some(value.buffer());
                value
            }
            BodyReader::Chunks(reader) => {
                let result: ReadableStreamReadResult =
                    JsFuture::from(reader.read()).await?.unchecked_into();
                if result.get_done() != Some(false) {
                    return Ok(None);
                }
                match result.get_value().dyn_into::<js_sys::Uint8Array>() {
                    Ok(value) => value,
                    // Not bytes (never from fetch): nothing to feed.
                    Err(_) => js_sys::Uint8Array::new_with_length(0),
                }
            }
        };
        let n = value.length() as usize;
        if buf.len() < n {
            buf.resize(n, 0);
        }
        value.copy_to(&mut buf[..n]);
        Ok(Some(n))
    }
}

#[cfg(test)]
mod tests {
    use super::fits;

    /// A view is encoded when its size is unknown or its rows would fit; one that was
    /// too large is not encoded again until its rows shrink enough.
    #[test]
    fn a_view_too_large_to_keep_is_not_encoded_again() {
        let max = 50 * 1024 * 1024;
        assert!(fits(None, 1_000_000, max));
        // 100 bytes a row: 1,000,000 rows are 100 MB, 400,000 rows 40 MB.
        assert!(!fits(Some(100.0), 1_000_000, max));
        assert!(fits(Some(100.0), 400_000, max));
        assert!(fits(Some(100.0), 0, max));
    }
}
