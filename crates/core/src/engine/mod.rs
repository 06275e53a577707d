//! The list/watch state machine.
//!
//! One request is current at a time. While listing, the next LIST page may be asked
//! for as soon as the current page's continue token is read (one page ahead at most,
//! [`Config::pipeline_pages`]): what it answers is held and replayed when its turn
//! comes, so every rule treats it as if it had been sent then. The engine holds
//! exactly what its current state needs ([`State`]), decides every protocol question
//! (which version to resume from, when to relist, how long to back off) and tells
//! consumers what changed.
//!
//! The state machine is here: [`Engine`], its feed/poll API and `State`. What each
//! kind of request does lives beside it: `listing` (LIST pages), `streaming`
//! (watches and streaming lists), `failure` (what a failed request means),
//! `tables` (table mode); `config`, `events` and `progress` hold the types
//! a driver sees.

mod config;
mod events;
mod failure;
mod listing;
mod progress;
mod restore;
mod streaming;
mod tables;

pub use config::{Config, Mode};
pub use events::{Event, RelistReason, TransportError};
pub use progress::{Phase, Status};

use failure::Failure;
use listing::{AheadEnd, Listing};
use streaming::{gzipped, Stream, StreamKind};

use crate::backoff::{Backoff, Rng};
use crate::decode::{ListDecoder, WatchDecoder, WatchFrame};
use crate::object::{ColumnKind, Object, ParseOptions};
use crate::request::{Query, Request, RequestId, RequestKind};
use crate::rv::ResourceVersion;
use crate::status::{self, ApiError};
use crate::store::{Change, Store};
use crate::table::{Format, TableColumn, JSON_ACCEPT, TABLE_ACCEPT};
use crate::time::Instant;
use crate::timer::{Timer, TimerTable};
use core::time::Duration;
use std::collections::VecDeque;
use std::sync::Arc;

/// Error bodies are read up to this much (a Status is small; a proxy's page may not be).
const MAX_ERROR_BODY: usize = 64 * 1024;

enum Body<D> {
    /// Request sent, no response head yet.
    Awaiting,
    Open(D),
    Error {
        status: u16,
        retry_after: Option<Duration>,
        bytes: Vec<u8>,
    },
}

impl<D> Body<D> {
    /// The decoder of a 2xx body, or what went wrong with a body that ended otherwise.
    fn into_stream(self) -> Result<D, Failure> {
        match self {
            Body::Open(decoder) => Ok(decoder),
            Body::Error {
                status,
                retry_after,
                bytes,
            } => Err(Failure::Api(ApiError::from_http(
                status,
                retry_after,
                &bytes,
            ))),
            Body::Awaiting => Err(Failure::Transport(TransportError::Reset(
                "the response ended before its head".into(),
            ))),
        }
    }
}

/// What to do when a backoff ends.
#[derive(Clone, Debug)]
enum Next {
    /// Fetch (again) one page of the current list.
    ListPage {
        page: u32,
        continue_token: Option<String>,
    },
    Watch {
        rv: ResourceVersion,
    },
    /// Start a new list (or streaming list) from the most recent state.
    Fresh,
}

enum State {
    Listing(Listing),
    Streaming(Stream),
    BackingOff {
        until: Instant,
        next: Next,
    },
    /// `resume`: the version the store holds the state at, to watch from on a
    /// [`Engine::restart`]; `None` when it was stopped before a sync completed.
    Stopped {
        resume: Option<ResourceVersion>,
    },
}

/// What [`Engine::restart`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Restart {
    /// Watching again from the version the store holds: no relist. (A version the
    /// server no longer has gets a 410, and the engine relists as always.)
    Watch { resource_version: ResourceVersion },
    /// Listing again: the new list is diffed against the store, so what vanished
    /// meanwhile arrives as synthesized `Deleted` events before `Synced`.
    Relist,
    /// It was not stopped: nothing changed.
    Running,
}

/// What the engine learned about the server during this session: kept across syncs
/// (a relist forgets none of it), each fact learned once.
#[derive(Debug, Default)]
struct ServerFacts {
    /// It has sent a bookmark: it sends them, so a long silence on a watch is worth
    /// a renewal (the idle deadline applies).
    sends_bookmarks: bool,
    /// It does not serve streaming lists as tables (it answers 406, or plain
    /// objects): in table mode every sync is a Table LIST + WATCH, which it prints.
    streaming_lists_not_tables: bool,
    /// It gzips streaming lists, one gzip member per flush (1.37's
    /// WatchListCompression): unreadable where the driver reads only the first member.
    gzips_streaming_lists: bool,
}

/// The sans-io list/watch engine. See the crate docs for the draining rule.
pub struct Engine {
    config: Config,
    parse: ParseOptions,
    state: State,
    timers: TimerTable,
    /// What the engine learned about the server this session.
    server: ServerFacts,
    store: Store,
    /// Marks objects confirmed by the current list; bumped by every fresh list.
    epoch: u32,
    next_request: u64,
    rng: Rng,
    backoff: Backoff,
    too_large_attempts: u32,
    /// Relists since a watch last delivered anything: spaces out 410 loops.
    relists_in_a_row: u32,
    list_objects: usize,
    /// Body bytes of the list (this snapshot's pages) decoded so far: with
    /// `list_objects`, the bytes per item that later pages are sized by.
    list_bytes: u64,
    /// The next LIST is one unpaginated request: a continue token just expired, so the
    /// paginated list is slower than the server's history window (client-go's
    /// FullListIfExpired). The decoder still streams it item by item.
    whole_list_next: bool,
    /// Streaming lists of this sync that ended before their end bookmark.
    interrupted_streams: u32,
    /// This sync lists: streaming cannot work for it (the server refused the streaming
    /// list, ignored it, or stalled in its initial events), or only a LIST is a
    /// consistent read of the most recent state (the server is behind the version asked
    /// for; consumers were shown part of a streaming list that failed).
    list_this_sync: bool,
    /// The version consumers were last shown, for a streaming relist to ask for state
    /// "not older than" it: a lagging cache can then never take back what they saw.
    not_older_than: Option<ResourceVersion>,
    status: Status,
    requests: VecDeque<Request>,
    cancels: VecDeque<RequestId>,
    events: VecDeque<Event>,
    frames: Vec<WatchFrame>,
    items: Vec<Object>,
    /// Table mode, and the server prints tables (it may turn out not to).
    tables: bool,
    /// The column definitions the rows held were printed with.
    columns: Option<Arc<[TableColumn]>>,
    /// The current snapshot replaces every row, even at an unchanged version: the
    /// columns changed, so rows held were printed with other ones.
    replace_rows: bool,
}

impl Engine {
    /// Creates the engine and queues its first request.
    pub fn new(config: Config, now: Instant) -> Engine {
        let mut engine = Engine::blank(config);
        engine.start_fresh(now);
        engine
    }

    /// An engine that holds nothing and has asked for nothing yet.
    fn blank(config: Config) -> Engine {
        let parse = ParseOptions {
            strip_managed_fields: config.strip_managed_fields,
            columns: ColumnKind::for_resource(config.collection.resource()),
            metadata: config.metadata,
        };
        Engine {
            parse,
            state: State::Stopped { resume: None },
            timers: TimerTable::default(),
            server: ServerFacts::default(),
            store: Store::new(),
            epoch: 0,
            next_request: 0,
            rng: Rng::from_state(config.seed),
            backoff: Backoff::new(config.backoff),
            too_large_attempts: 0,
            relists_in_a_row: 0,
            list_objects: 0,
            list_bytes: 0,
            whole_list_next: false,
            list_this_sync: false,
            interrupted_streams: 0,
            not_older_than: None,
            status: Status {
                phase: Phase::Stopped,
                mode: config.mode,
                connected: false,
                synced: false,
                resource_version: None,
                objects: 0,
                pages_listed: 0,
                remaining_estimate: None,
                added: 0,
                modified: 0,
                deleted: 0,
                bookmarks: 0,
                last_bookmark_at: None,
                resumes: 0,
                renewals: 0,
                relists: 0,
                last_relist_reason: None,
                errors: 0,
                last_error: None,
                fell_back: None,
                last_byte_at: None,
                tables: config.format.is_table(),
                table_fallback: None,
                last_api_error: None,
            },
            tables: config.format.is_table(),
            columns: None,
            replace_rows: false,
            config,
            requests: VecDeque::new(),
            cancels: VecDeque::new(),
            events: VecDeque::new(),
            frames: Vec::new(),
            items: Vec::new(),
        }
    }

    // ----- drain -----

    /// Requests to abort (a request the engine gave up on). Drain before `poll_request`.
    #[must_use]
    pub fn poll_cancel(&mut self) -> Option<RequestId> {
        self.cancels.pop_front()
    }

    /// The next request to send.
    #[must_use]
    pub fn poll_request(&mut self) -> Option<Request> {
        self.requests.pop_front()
    }

    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When to call [`Engine::handle_timeout`] next, if ever: the earliest deadline
    /// (a backoff's end, or when the current request's connection counts as lost).
    /// Calling earlier is harmless; a driver may keep a timer that fires before a
    /// deadline that moved later (a watch's idle deadline moves with every byte).
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.timers.next()
    }

    // ----- ask -----

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn status(&self) -> Status {
        let mut s = self.status.clone();
        s.phase = match &self.state {
            State::Listing(l) => Phase::Listing { page: l.page },
            State::Streaming(Stream {
                kind: StreamKind::Initial,
                ..
            }) => Phase::InitialEvents,
            State::Streaming(_) => Phase::Watching,
            State::BackingOff { until, .. } => Phase::BackingOff { until: *until },
            State::Stopped { .. } => Phase::Stopped,
        };
        s.connected = match &self.state {
            State::Listing(l) => !matches!(l.body, Body::Awaiting),
            State::Streaming(st) => !matches!(st.body, Body::Awaiting),
            _ => false,
        };
        s.mode = self.config.mode;
        s.objects = self.store.len();
        s.tables = self.tables;
        // The live resume point while watching or waiting to re-watch; otherwise the
        // version of the last completed sync.
        match &self.state {
            State::Streaming(Stream {
                kind: StreamKind::Watch { rv, .. },
                ..
            })
            | State::BackingOff {
                next: Next::Watch { rv },
                ..
            }
            | State::Stopped { resume: Some(rv) } => s.resource_version = Some(rv.clone()),
            _ => {}
        }
        s
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Table mode: the column definitions of the rows held (`None` in object mode,
    /// after a fallback to objects, or before the first Table answer).
    pub fn columns(&self) -> Option<&Arc<[TableColumn]>> {
        self.columns.as_ref()
    }

    // ----- feed -----

    /// The response head of request `id` arrived.
    pub fn handle_response(
        &mut self,
        id: RequestId,
        status: u16,
        headers: &[(&str, &str)],
        now: Instant,
    ) {
        let retry_after = status::retry_after(headers);
        if let Some(ahead) = self.ahead_mut(id) {
            ahead.head.get_or_insert((status, retry_after));
            return;
        }
        if (200..300).contains(&status)
            && self.is_current(id)
            && self.in_streaming_list()
            && gzipped(headers)
        {
            self.server.gzips_streaming_lists = true;
            if !self.streams_this_sync() {
                // Nothing of it is read: the head comes before any body byte.
                self.abandon_current();
                self.fall_back(
                    "the server gzips streaming lists (a gzip member per flush) and this HTTP client reads only the first member".into(),
                    now,
                );
                return;
            }
        }
        self.response_head(id, status, retry_after, now);
    }

    fn response_head(
        &mut self,
        id: RequestId,
        status: u16,
        retry_after: Option<Duration>,
        now: Instant,
    ) {
        let ok = (200..300).contains(&status);
        fn error_body<D>(status: u16, retry_after: Option<Duration>) -> Body<D> {
            Body::Error {
                status,
                retry_after,
                bytes: Vec::new(),
            }
        }
        let d = self.config.deadlines;
        match &mut self.state {
            State::Listing(l) if l.request == id && matches!(l.body, Body::Awaiting) => {
                l.body = if ok {
                    Body::Open(ListDecoder::new(self.config.limits, self.parse))
                } else {
                    error_body(status, retry_after)
                };
                self.timers.stop(Timer::Head);
                self.timers.set(Timer::Stall, now + d.stall);
            }
            State::Streaming(s) if s.request == id && matches!(s.body, Body::Awaiting) => {
                self.timers.stop(Timer::Head);
                if !ok {
                    s.body = error_body(status, retry_after);
                    self.timers.set(Timer::Stall, now + d.stall);
                    return;
                }
                s.body = Body::Open(WatchDecoder::new(self.config.limits, self.parse));
                self.timers
                    .set(Timer::WatchEnd, now + s.timeout + d.watch_grace);
                match &s.kind {
                    StreamKind::Initial => self.timers.set(Timer::Stall, now + d.stall),
                    StreamKind::Watch { rv, resumed } => {
                        if self.server.sends_bookmarks {
                            self.timers.set(Timer::Idle, now + d.idle);
                        }
                        if *resumed {
                            self.status.resumes += 1;
                            self.events.push_back(Event::Resumed {
                                resource_version: rv.clone(),
                            });
                        }
                    }
                }
            }
            _ => return,
        }
        self.status.last_byte_at = Some(now);
    }

    /// Body bytes of request `id`, split anywhere.
    pub fn handle_body(&mut self, id: RequestId, bytes: &[u8], now: Instant) {
        if self.ahead_mut(id).is_some() {
            self.hold_ahead_body(bytes);
            return;
        }
        if !self.is_current(id) {
            return;
        }
        // Progress: the deadlines that watch for silence move (a timestamp, no more).
        self.status.last_byte_at = Some(now);
        let d = self.config.deadlines;
        match &mut self.state {
            State::Listing(_)
            | State::Streaming(Stream {
                kind: StreamKind::Initial,
                ..
            }) => self.timers.set(Timer::Stall, now + d.stall),
            State::Streaming(_) if self.server.sends_bookmarks => {
                self.timers.set(Timer::Idle, now + d.idle)
            }
            _ => {}
        }
        match &mut self.state {
            State::Listing(l) => match &mut l.body {
                Body::Open(decoder) => {
                    self.list_bytes += bytes.len() as u64;
                    let mut items = std::mem::take(&mut self.items);
                    let fed = decoder.feed(bytes, &mut items);
                    // Definitions come before the rows they describe.
                    if let Some(columns) = decoder.take_columns() {
                        self.columns_arrived(columns, now);
                    }
                    for object in items.drain(..) {
                        if !self.is_current(id) {
                            break;
                        }
                        if self.tables && !object.is_row() && self.objects_arrived(now) {
                            break;
                        }
                        self.apply_listed(object);
                    }
                    items.clear();
                    self.items = items;
                    if let Err(e) = fed {
                        if self.is_current(id) {
                            self.fail(Failure::Decode(e), true, now);
                        }
                        return;
                    }
                    if self.is_current(id) {
                        self.ask_ahead();
                    }
                }
                Body::Error { bytes: buf, .. } => append_capped(buf, bytes),
                Body::Awaiting => {}
            },
            State::Streaming(s) => match &mut s.body {
                Body::Open(decoder) => {
                    let mut frames = std::mem::take(&mut self.frames);
                    let fed = decoder.feed(bytes, &mut frames);
                    self.apply_frames(id, &mut frames, now);
                    self.frames = frames;
                    if let Err(e) = fed {
                        if self.is_current(id) {
                            self.fail(Failure::Decode(e), true, now);
                        }
                    }
                }
                Body::Error { bytes: buf, .. } => append_capped(buf, bytes),
                Body::Awaiting => {}
            },
            _ => {}
        }
    }

    /// The body of request `id` ended cleanly.
    pub fn handle_end(&mut self, id: RequestId, now: Instant) {
        if let Some(ahead) = self.ahead_mut(id) {
            ahead.end.get_or_insert(AheadEnd::Clean);
            return;
        }
        if !self.is_current(id) {
            return;
        }
        let state = std::mem::replace(&mut self.state, State::Stopped { resume: None });
        match state {
            State::Listing(mut l) => {
                let body = std::mem::replace(&mut l.body, Body::Awaiting);
                let page = l.page;
                self.state = State::Listing(l);
                match body.into_stream() {
                    Ok(mut decoder) => match decoder.finish() {
                        Ok(meta) => self.list_page_done(page, meta, now),
                        Err(e) => self.fail(Failure::Decode(e), false, now),
                    },
                    Err(failure) => self.fail(failure, false, now),
                }
            }
            State::Streaming(mut s) => {
                let body = std::mem::replace(&mut s.body, Body::Awaiting);
                self.state = State::Streaming(s);
                match body.into_stream() {
                    Ok(mut decoder) => {
                        let mut frames = std::mem::take(&mut self.frames);
                        let finished = decoder.finish(&mut frames);
                        self.apply_frames(id, &mut frames, now);
                        self.frames = frames;
                        if !self.is_current(id) {
                            return; // an ERROR frame already moved us on
                        }
                        match finished {
                            Ok(()) => self.stream_ended_cleanly(now),
                            Err(e) => self.fail(Failure::Decode(e), false, now),
                        }
                    }
                    Err(failure) => self.fail(failure, false, now),
                }
            }
            other => self.state = other,
        }
    }

    /// Request `id` failed below HTTP (connect error, reset, unexpected EOF).
    pub fn handle_error(&mut self, id: RequestId, error: TransportError, now: Instant) {
        if let Some(ahead) = self.ahead_mut(id) {
            ahead.end.get_or_insert(AheadEnd::Error(error));
            return;
        }
        if self.is_current(id) {
            self.fail(Failure::Transport(error), false, now);
        }
    }

    /// Time passed; call at (or after) [`Engine::poll_timeout`]. Each deadline that
    /// passed is handled by name; early calls change nothing.
    pub fn handle_timeout(&mut self, now: Instant) {
        for timer in Timer::ALL {
            if self.timers.expired(timer, now) {
                self.timers.stop(timer);
                self.expire(timer, now);
            }
        }
    }

    fn expire(&mut self, timer: Timer, now: Instant) {
        let d = self.config.deadlines;
        let secs = |d: Duration| d.as_secs();
        let why = match timer {
            Timer::Retry => {
                if let State::BackingOff { next, .. } = &self.state {
                    let next = next.clone();
                    self.proceed(next, now);
                }
                return;
            }
            Timer::Head => {
                let limit = match &self.state {
                    State::Listing(_) => d.list_head,
                    _ => d.watch_head,
                };
                format!("no response within {} s", secs(limit))
            }
            Timer::Stall => match &self.state {
                State::Streaming(Stream {
                    kind: StreamKind::Initial,
                    ..
                }) => {
                    // Cancel and list instead, for this sync only.
                    self.abandon_current();
                    let why = format!("the initial events stalled for {} s", secs(d.stall));
                    self.fall_back(why, now);
                    return;
                }
                _ => format!("the response stalled: no bytes for {} s", secs(d.stall)),
            },
            Timer::EndBookmark => {
                if let State::Streaming(Stream {
                    kind: StreamKind::Initial,
                    ..
                }) = &self.state
                {
                    self.abandon_current();
                    let why = format!(
                        "no initial-events-end bookmark within {} s of the first live event or bookmark: the server ignores sendInitialEvents",
                        secs(d.end_bookmark)
                    );
                    self.fall_back(why, now);
                }
                return;
            }
            Timer::WatchEnd => format!(
                "the watch outlived its timeout by {} s: the connection is gone",
                secs(d.watch_grace)
            ),
            Timer::Idle => {
                // The apiserver sends a bookmark only once its cache learned a newer
                // version, so a quiet collection may go silent on a healthy connection:
                // renew the watch from its version. A connection that is truly gone
                // then shows as the renewal's missing head.
                if let State::Streaming(Stream {
                    kind: StreamKind::Watch { rv, .. },
                    ..
                }) = &self.state
                {
                    let rv = rv.clone();
                    self.abandon_current();
                    self.status.renewals += 1;
                    self.send_watch(rv, true, now);
                }
                return;
            }
        };
        self.fail(Failure::Deadline(why), true, now);
    }

    /// Stops the engine: aborts what is in flight; no further requests. The store
    /// and the version it holds the state at stay, for [`Engine::restart`].
    pub fn stop(&mut self) {
        let resume = match &self.state {
            State::Streaming(Stream {
                kind: StreamKind::Watch { rv, .. },
                ..
            })
            | State::BackingOff {
                next: Next::Watch { rv },
                ..
            } => Some(rv.clone()),
            State::Stopped { resume } => resume.clone(),
            _ => None,
        };
        self.abandon_current();
        self.cancel_ahead();
        self.timers.clear();
        self.state = State::Stopped { resume };
    }

    /// Starts a stopped engine again from what it holds: a watch from the last
    /// version when the store holds the state at it (no relist), otherwise a fresh
    /// list diffed against the store (what vanished meanwhile comes as `Deleted`).
    /// Queues the first request; drain as after any feed.
    pub fn restart(&mut self, now: Instant) -> Restart {
        let State::Stopped { resume } = &self.state else {
            return Restart::Running;
        };
        match resume.clone() {
            Some(rv) => {
                self.send_watch(rv.clone(), true, now);
                Restart::Watch {
                    resource_version: rv,
                }
            }
            None => {
                self.start_fresh(now);
                Restart::Relist
            }
        }
    }

    // ----- transitions -----

    fn current_request(&self) -> Option<RequestId> {
        match &self.state {
            State::Listing(l) => Some(l.request),
            State::Streaming(s) => Some(s.request),
            _ => None,
        }
    }

    /// A streaming list is sending its initial events.
    fn in_streaming_list(&self) -> bool {
        matches!(
            self.state,
            State::Streaming(Stream {
                kind: StreamKind::Initial,
                ..
            })
        )
    }

    fn is_current(&self, id: RequestId) -> bool {
        self.current_request() == Some(id)
    }

    /// Tells the driver to abort the in-flight request, if any.
    fn abandon_current(&mut self) {
        if let Some(id) = self.current_request() {
            self.cancel(id);
        }
    }

    /// Aborts request `id`: a request not yet handed to the driver is simply taken
    /// back (a driver drains cancels first, so it would otherwise be sent after).
    fn cancel(&mut self, id: RequestId) {
        let queued = self.requests.len();
        self.requests.retain(|r| r.id != id);
        if self.requests.len() == queued {
            self.cancels.push_back(id);
        }
    }

    /// Queues a request; its head deadline starts now (every other timer belonged
    /// to the previous request or backoff). A page ahead of the current one is
    /// cancelled: the engine moves on.
    fn new_request(&mut self, kind: RequestKind, path: String, now: Instant) -> RequestId {
        self.cancel_ahead();
        let head = match kind {
            RequestKind::List { .. } => self.config.deadlines.list_head,
            RequestKind::Watch | RequestKind::StreamingList => self.config.deadlines.watch_head,
        };
        self.start_timers(head, now);
        self.queue_request(kind, path)
    }

    fn start_timers(&mut self, head: Duration, now: Instant) {
        self.timers.clear();
        self.timers.set(Timer::Head, now + head);
        self.status.last_byte_at = None;
    }

    fn queue_request(&mut self, kind: RequestKind, path: String) -> RequestId {
        self.next_request += 1;
        let id = RequestId(self.next_request);
        let accept = if self.tables {
            TABLE_ACCEPT
        } else {
            JSON_ACCEPT
        };
        self.requests.push_back(Request {
            id,
            kind,
            path,
            accept,
        });
        id
    }

    fn selectors(&self) -> Query {
        // Rows carry metadata by default; kubectl asks for whole objects the same way.
        let include = match self.config.format {
            Format::Table(crate::table::IncludeObject::Object) if self.tables => Some("Object"),
            _ => None,
        };
        Query::new(self.config.collection.path())
            .opt("labelSelector", self.config.label_selector.as_deref())
            .opt("fieldSelector", self.config.field_selector.as_deref())
            .opt("includeObject", include)
    }

    fn watch_timeout(&mut self) -> u64 {
        let (lo, hi) = self.config.watch_timeout_secs;
        self.rng.range(u64::from(lo), u64::from(hi.max(lo)))
    }

    /// Starts a new list (or streaming list) of the most recent state.
    fn start_fresh(&mut self, now: Instant) {
        self.status.synced = false;
        match self.config.mode {
            Mode::StreamingList if self.streams_this_sync() => self.send_streaming_list(now),
            Mode::StreamingList | Mode::ListWatch => self.send_list_page(1, None, now),
        }
    }

    /// A new snapshot begins (page one of a list, or a streaming list): objects
    /// confirmed from now on carry a new epoch, so whatever an earlier, unfinished
    /// attempt delivered is swept unless this one confirms it too.
    fn begin_snapshot(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        self.list_objects = 0;
        self.list_bytes = 0;
    }

    fn proceed(&mut self, next: Next, now: Instant) {
        match next {
            Next::ListPage {
                page,
                continue_token,
            } => self.send_list_page(page, continue_token, now),
            Next::Watch { rv } => self.send_watch(rv, true, now),
            Next::Fresh => self.start_fresh(now),
        }
    }

    /// A full list (or the initial events) is in: drop what it no longer holds.
    fn finish_sync(&mut self, rv: ResourceVersion, streamed: bool) {
        for gone in self.store.sweep(self.epoch) {
            self.status.deleted += 1;
            self.events.push_back(Event::Deleted(gone));
        }
        if streamed {
            // A streaming sync worked: nothing fell back.
            self.status.fell_back = None;
        }
        self.too_large_attempts = 0;
        self.whole_list_next = false;
        self.list_this_sync = false;
        self.interrupted_streams = 0;
        self.replace_rows = false;
        self.status.synced = true;
        self.status.remaining_estimate = None;
        self.status.resource_version = Some(rv.clone());
        self.events.push_back(Event::Synced {
            objects: self.store.len(),
            resource_version: rv,
        });
    }

    fn relist(&mut self, reason: RelistReason, now: Instant) {
        self.status.relists += 1;
        self.status.synced = false;
        self.status.last_relist_reason = Some(reason.clone());
        // A relist whose watch (or list) expired before anything was watched: the list
        // takes longer than the history window, and relisting at once would loop hot.
        let expired = matches!(
            reason,
            RelistReason::Expired { .. } | RelistReason::ContinueExpired { .. }
        );
        if matches!(reason, RelistReason::ContinueExpired { .. }) {
            self.whole_list_next = true;
        }
        let space_out = expired && self.relists_in_a_row > 0;
        match (&reason, &self.state) {
            // The server lacks that version: read its most recent state with a LIST,
            // a consistent read even on servers that would serve a streaming list
            // from "" out of a lagging cache.
            (RelistReason::TooLargeResourceVersion { .. }, _) => {
                self.not_older_than = None;
                self.list_this_sync = true;
            }
            (
                _,
                State::Streaming(Stream {
                    kind: StreamKind::Watch { rv, .. },
                    ..
                }),
            ) => self.not_older_than = Some(rv.clone()),
            _ => {}
        }
        let why = reason.to_string();
        self.events.push_back(Event::Relisting { reason });
        self.relists_in_a_row += 1;
        if space_out {
            self.back_off(Next::Fresh, why, false, None, now);
        } else {
            self.start_fresh(now);
        }
    }

    // ----- applying objects -----

    /// An item of a LIST page, or an initial event of a streaming list.
    fn apply_listed(&mut self, object: Object) {
        self.list_objects += 1;
        let object = Arc::new(object);
        let change = self
            .store
            .upsert(object.clone(), self.epoch, self.replace_rows);
        self.announce(change, object);
    }

    fn announce(&mut self, change: Change, object: Arc<Object>) {
        match change {
            Change::Added => {
                self.status.added += 1;
                self.events.push_back(Event::Added(object));
            }
            Change::Modified { old } => {
                self.status.modified += 1;
                self.events.push_back(Event::Modified { old, new: object });
            }
            Change::Recreated { old } => {
                self.status.deleted += 1;
                self.status.added += 1;
                self.events.push_back(Event::Deleted(old));
                self.events.push_back(Event::Added(object));
            }
            Change::Unchanged => {}
        }
    }
}

fn append_capped(buf: &mut Vec<u8>, bytes: &[u8]) {
    let room = MAX_ERROR_BODY.saturating_sub(buf.len());
    buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
}
