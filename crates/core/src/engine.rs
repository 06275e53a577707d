//! The list/watch state machine.
//!
//! One request is current at a time. While listing, the next LIST page may be asked
//! for as soon as the current page's continue token is read (one page ahead at most,
//! [`Config::pipeline_pages`]): what it answers is held and replayed when its turn
//! comes, so every rule treats it as if it had been sent then. The engine holds
//! exactly what its current state needs ([`State`]), decides every protocol question
//! (which version to resume from, when to relist, how long to back off) and tells
//! consumers what changed.

use crate::backoff::{Backoff, BackoffConfig, Rng};
use crate::decode::{DecodeError, Limits, ListDecoder, WatchDecoder, WatchFrame};
use crate::object::{ColumnKind, KeptMetadata, Object, ParseOptions};
use crate::request::{Collection, Query, Request, RequestId, RequestKind};
use crate::rv::ResourceVersion;
use crate::status::{self, ApiError, ApiErrorKind};
use crate::store::{Change, Store};
use crate::table::{Format, TableColumn, JSON_ACCEPT, TABLE_ACCEPT};
use crate::time::Instant;
use crate::timer::{Deadlines, Timer, TimerTable};
use core::time::Duration;
use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;

/// How the initial state is fetched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Paginated LIST, then WATCH from the list's version.
    ListWatch,
    /// One watch with `sendInitialEvents=true`. When the server cannot do it (it
    /// rejects it, ignores it, or the initial events stall), that sync falls back to
    /// LIST + WATCH; the next sync tries streaming again (client-go's rule). Failures
    /// that retrying fixes (throttling, a refused or broken connection, a 5xx) back
    /// off and stream again.
    StreamingList,
}

/// Everything the engine needs to know up front.
#[derive(Clone, Debug)]
pub struct Config {
    pub collection: Collection,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    pub mode: Mode,
    /// Items per LIST page (`limit`) of a list's first page; 0 lists in one response.
    pub page_size: u32,
    /// The most items a later page asks for. Pages after the first double, up to this
    /// and to what fits half a document's limit at the bytes per item seen so far: the
    /// first page comes as quickly as kubectl's, then a list of 100,000 takes dozens of
    /// round trips instead of hundreds. `page_size` (or less) keeps every page at
    /// `page_size`.
    pub max_page_size: u32,
    /// The first LIST asks for `resourceVersion=0` ("any", possibly stale, served
    /// from the watch cache, ignores `limit`). Off unless the user asks: relists after
    /// a 410 always read the most recent state.
    pub initial_list_any_version: bool,
    pub limits: Limits,
    /// Objects (the default) or server-side tables; see [`Config::tables`].
    pub format: Format,
    pub strip_managed_fields: bool,
    /// Which members of each object's metadata are stored (all by default).
    pub metadata: KeptMetadata,
    /// When the engine gives up on a silent connection (head, body progress, watch
    /// timeout, idle watch).
    pub deadlines: Deadlines,
    /// "Too large resource version" retries at the same version before relisting.
    pub too_large_retries: u32,
    pub backoff: BackoffConfig,
    /// Range of the server-side watch timeout, chosen at random per watch.
    pub watch_timeout_secs: (u32, u32),
    /// Seeds jitter and watch timeouts; the driver picks it (random in production,
    /// fixed in simulations).
    pub seed: u64,
    /// Ask for the next LIST page as soon as the current page's continue token is
    /// read (it comes before the items), so the server's work, the transfer and the
    /// decoding of consecutive pages overlap. Two requests are then in flight while
    /// listing. On by default; off asks for each page after the previous one ended.
    pub pipeline_pages: bool,
    /// The driver's HTTP stack decodes a gzipped body but reads only its first gzip
    /// member (browsers; `kubectl proxy` passes their gzip through). Kubernetes 1.37
    /// gzips a streaming list one member per flush, so such a driver loses all but the
    /// first flush. When set, a streaming list whose head says `Content-Encoding: gzip`
    /// is given up at once and every sync of the session is a LIST + WATCH (LISTs and
    /// plain watches are one member). Off by default: the CLI reads every member.
    pub reads_first_gzip_member_only: bool,
}

impl Config {
    pub fn new(collection: Collection) -> Self {
        Config {
            collection,
            label_selector: None,
            field_selector: None,
            mode: Mode::ListWatch,
            page_size: 500,
            max_page_size: 4000,
            initial_list_any_version: false,
            limits: Limits::default(),
            format: Format::Objects,
            strip_managed_fields: false,
            metadata: KeptMetadata::All,
            deadlines: Deadlines::default(),
            too_large_retries: 3,
            backoff: BackoffConfig::default(),
            watch_timeout_secs: (300, 600),
            seed: 0,
            pipeline_pages: true,
            reads_first_gzip_member_only: false,
        }
    }

    /// Table mode: the server prints each object (its columns, as kubectl shows them)
    /// and rows carry `include`; managedFields are dropped (no view of a row uses
    /// them; set `strip_managed_fields` back to keep them).
    pub fn tables(mut self, include: crate::table::IncludeObject) -> Config {
        self.format = Format::Table(include);
        self.strip_managed_fields = true;
        self
    }
}

/// A failure below HTTP: the connection could not be made or broke.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TransportError {
    /// Could not connect (refused, DNS, connect timeout).
    Connect(String),
    /// The connection broke before the body ended cleanly.
    Reset(String),
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::Connect(m) => write!(f, "cannot connect: {m}"),
            TransportError::Reset(m) => write!(f, "connection lost: {m}"),
        }
    }
}

/// Why the engine is listing again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RelistReason {
    /// 410 on a watch: its version left the server's history.
    Expired { message: String },
    /// 410 on a LIST page: the continue token expired; the list restarts at page one.
    ContinueExpired { message: String },
    /// The server kept answering "Too large resource version".
    TooLargeResourceVersion { message: String },
    /// The streaming list cannot be used with this server.
    StreamingListFallback { why: String },
    /// A streaming list ended before its initial events were complete: it is sent
    /// again; after a few in a row, this sync lists.
    InitialEventsInterrupted,
    /// A watch brought other column definitions than the rows held were printed
    /// with (the server was upgraded, a CRD's columns changed): every row is printed
    /// anew.
    ColumnsChanged,
    /// Table mode: the server stopped printing tables while rows were held; the
    /// collection is listed again as objects.
    TablesUnavailable { why: String },
}

impl fmt::Display for RelistReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RelistReason::Expired { message } => write!(f, "version expired: {message}"),
            RelistReason::ContinueExpired { message } => {
                write!(f, "continue token expired: {message}")
            }
            RelistReason::TooLargeResourceVersion { message } => {
                write!(f, "server behind our version: {message}")
            }
            RelistReason::StreamingListFallback { why } => {
                write!(f, "streaming list unavailable, using LIST+WATCH: {why}")
            }
            RelistReason::InitialEventsInterrupted => {
                f.write_str("streaming list ended before its initial events were complete")
            }
            RelistReason::ColumnsChanged => {
                f.write_str("the server's columns changed; listing every row again")
            }
            RelistReason::TablesUnavailable { why } => {
                write!(f, "listing objects instead of tables: {why}")
            }
        }
    }
}

/// What consumers are told.
#[derive(Clone, Debug)]
#[must_use]
pub enum Event {
    Added(Arc<Object>),
    Modified {
        old: Arc<Object>,
        new: Arc<Object>,
    },
    /// The final state: the server's last word on a watch, or the last state held for
    /// an object a relist no longer contains.
    Deleted(Arc<Object>),
    /// A LIST page was applied. `objects` counts this list so far.
    PageListed {
        page: u32,
        objects: usize,
        remaining: Option<u64>,
    },
    /// The store equals the server's state at `resource_version`.
    Synced {
        objects: usize,
        resource_version: ResourceVersion,
    },
    /// A watch resumed after a clean end or an error, without relisting.
    Resumed {
        resource_version: ResourceVersion,
    },
    Relisting {
        reason: RelistReason,
    },
    BackingOff {
        until: Instant,
        reason: String,
    },
    /// An error retrying will not fix by itself (401, 403, 404, a rejected selector).
    /// The engine keeps retrying slowly; a CLI may give up.
    Failed {
        error: ApiError,
    },
    /// Table mode: the columns to show from now on (the first Table answer's
    /// definitions, or different ones). Rows printed with other columns are replaced
    /// (`Modified`, even at the same resourceVersion) before the next `Synced`.
    Columns {
        columns: Arc<[TableColumn]>,
    },
    /// Table mode: the server does not print tables for this collection (it answered
    /// a plain list, plain events, or 406). The engine serves objects from now on
    /// (with the generic columns of [`crate::Object::columns`]); `why` says what
    /// happened.
    TablesUnavailable {
        why: String,
    },
}

/// Where the engine stands, for status bars.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    Listing {
        page: u32,
    },
    /// A streaming list is sending its initial events.
    InitialEvents,
    Watching,
    BackingOff {
        until: Instant,
    },
    Stopped,
}

/// A snapshot of the engine's health and progress.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub phase: Phase,
    pub mode: Mode,
    /// Whether the current request has its response head (false while connecting).
    pub connected: bool,
    /// The store equals the server's state at `resource_version`.
    pub synced: bool,
    /// The last version seen, valid to resume from when `synced`.
    pub resource_version: Option<ResourceVersion>,
    pub objects: usize,
    pub pages_listed: u64,
    /// The server's estimate of items still to list.
    pub remaining_estimate: Option<u64>,
    pub added: u64,
    pub modified: u64,
    pub deleted: u64,
    pub bookmarks: u64,
    pub last_bookmark_at: Option<Instant>,
    pub resumes: u64,
    /// Watches renewed from their version after the idle deadline passed
    /// ([`crate::Deadlines::idle`]): a quiet collection may go silent on a healthy
    /// connection, so this is no error.
    pub renewals: u64,
    pub relists: u64,
    pub last_relist_reason: Option<RelistReason>,
    pub errors: u64,
    pub last_error: Option<String>,
    /// Why syncs fall back from a streaming list to LIST + WATCH: set when one falls
    /// back, cleared when a sync streams again. A fallback for the session (streaming
    /// lists cannot be tables here, or the driver cannot read a gzipped one) stays.
    pub fell_back: Option<String>,
    /// When the current request last received anything (its head or body bytes): a
    /// UI shows "last byte N s ago". `None` while connecting.
    pub last_byte_at: Option<Instant>,
    /// The engine asks for tables (table mode, and the server prints them).
    pub tables: bool,
    /// Why the engine serves objects although tables were asked for.
    pub table_fallback: Option<String>,
    /// The server's answer behind `last_error`, when it was one (its code and reason);
    /// `None` for a broken connection, an unreadable body or a deadline.
    pub last_api_error: Option<ApiError>,
}

/// Streaming lists of one sync that may end before their end bookmark before that
/// sync lists instead.
const MAX_INTERRUPTED_STREAMS: u32 = 3;

/// Error bodies are read up to this much (a Status is small; a proxy's page may not be).
const MAX_ERROR_BODY: usize = 64 * 1024;

/// An attempt that breaks this soon after it was sent, having delivered nothing, is a
/// failure that backs off (and escalates), so a server or proxy that ends every
/// request at once causes no storm. One that lived longer, or made progress, is
/// resumed at once: the rate of attempts is bounded by their own length. Counted from
/// the send, as client-go counts its "very short watch" (some proxies hold the head
/// until the first event).
const SUSPICIOUS: Duration = Duration::from_secs(1);

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

struct Listing {
    request: RequestId,
    page: u32,
    continue_token: Option<String>,
    body: Body<ListDecoder>,
    sent_at: Instant,
    /// `list_objects` and `list_bytes` when this page began: a failed page is fetched
    /// again whole, so what it counted before failing is taken back.
    counted_before: (usize, u64),
    /// The next page, asked for before this one ended (boxed: rare next to the
    /// decoder, and it keeps `State` small).
    ahead: Option<Box<Ahead>>,
}

/// The next LIST page, asked for while the current page still streams. What it
/// answers is held, untouched, and replayed in order when the current page ends
/// (its turn): the engine then handles it exactly as if it had been sent at that
/// moment (its `sent_at` and deadlines start then; bytes already held count as
/// progress, so the stall deadline starts then too). If the current page fails, it
/// is cancelled and dropped. Until its turn no deadline watches it: the current
/// page's deadlines already do the waiting.
struct Ahead {
    request: RequestId,
    continue_token: String,
    /// The response head: status and Retry-After.
    head: Option<(u16, Option<Duration>)>,
    body: Vec<u8>,
    end: Option<AheadEnd>,
}

enum AheadEnd {
    Clean,
    Error(TransportError),
    /// It sent more than its bound (`Ahead::max_bytes`): the engine cancelled it and dropped
    /// what it held; the page is asked for again in its turn (and then streams).
    Dropped,
}

impl Ahead {
    /// Most bytes held for a page ahead: one document's limit (pages grow only to half
    /// of it at the bytes per item seen, [`Engine::page_limit`]). Memory stays bounded;
    /// a bigger page is simply fetched again when its turn comes.
    fn max_bytes(limits: &Limits) -> usize {
        limits.max_document_bytes
    }
}

enum StreamKind {
    /// Watching from a version whose state the store holds; `rv` is the last seen.
    Watch { rv: ResourceVersion, resumed: bool },
    /// A streaming list before its initial-events-end bookmark.
    Initial,
}

struct Stream {
    request: RequestId,
    kind: StreamKind,
    body: Body<WatchDecoder>,
    /// The `timeoutSeconds` asked for: the server ends the stream then.
    timeout: Duration,
    sent_at: Instant,
    /// It delivered an event or a bookmark: its version was good.
    progressed: bool,
}

/// How far the current attempt got, for deciding what its failure means.
struct Attempt {
    sent_at: Instant,
    progressed: bool,
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

enum Failure {
    Api(ApiError),
    Decode(DecodeError),
    Transport(TransportError),
    /// A watch that ended at once with nothing in it.
    EmptyWatch,
    /// A deadline passed: the connection went silent.
    Deadline(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Api(e) => e.fmt(f),
            Failure::Decode(e) => write!(f, "bad response: {e}"),
            Failure::Transport(e) => e.fmt(f),
            Failure::EmptyWatch => f.write_str("the watch ended at once without events"),
            Failure::Deadline(why) => f.write_str(why),
        }
    }
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
        let parse = ParseOptions {
            strip_managed_fields: config.strip_managed_fields,
            columns: ColumnKind::for_resource(config.collection.resource()),
            metadata: config.metadata,
        };
        let mut engine = Engine {
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
        };
        engine.start_fresh(now);
        engine
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

    /// The page ahead, if `id` is it.
    fn ahead_mut(&mut self, id: RequestId) -> Option<&mut Ahead> {
        match &mut self.state {
            State::Listing(Listing { ahead: Some(a), .. }) if a.request == id => Some(a),
            _ => None,
        }
    }

    /// Cancels and drops the page ahead, if any (the current page failed, the list
    /// restarts, the Accept changed, the engine stops). One that already ended is
    /// cancelled too: the driver forgets it (a no-op for most), and every page ahead
    /// ends either in its turn or in a cancel.
    fn cancel_ahead(&mut self) {
        let State::Listing(l) = &mut self.state else {
            return;
        };
        if let Some(ahead) = l.ahead.take() {
            if !matches!(ahead.end, Some(AheadEnd::Dropped)) {
                self.cancel(ahead.request);
            }
        }
    }

    /// Holds body bytes of the page ahead, up to its bound; past it the request is
    /// cancelled and the page will be asked for again in its turn.
    fn hold_ahead_body(&mut self, bytes: &[u8]) {
        let max = Ahead::max_bytes(&self.config.limits);
        let State::Listing(Listing {
            ahead: Some(ahead), ..
        }) = &mut self.state
        else {
            return;
        };
        if ahead.end.is_some() || ahead.head.is_none() {
            return;
        }
        if ahead.body.len() + bytes.len() <= max {
            ahead.body.extend_from_slice(bytes);
            return;
        }
        ahead.body = Vec::new();
        ahead.end = Some(AheadEnd::Dropped);
        let id = ahead.request;
        self.cancel(id);
    }

    /// While listing, once the current page's continue token is read: asks for the
    /// next page now (one ahead at most).
    fn ask_ahead(&mut self) {
        if !self.config.pipeline_pages {
            return;
        }
        let State::Listing(l) = &self.state else {
            return;
        };
        let Body::Open(decoder) = &l.body else {
            return;
        };
        if l.ahead.is_some() {
            return;
        }
        let Some(token) = decoder.continue_token() else {
            return;
        };
        let token = token.to_string();
        let page = l.page + 1;
        let path = self.list_path(page, Some(&token));
        let request = self.queue_request(RequestKind::List { page }, path);
        if let State::Listing(l) = &mut self.state {
            l.ahead = Some(Box::new(Ahead {
                request,
                continue_token: token,
                head: None,
                body: Vec::new(),
                end: None,
            }));
        }
    }

    /// The page ahead's turn: it becomes the current request as if sent now, and
    /// what it already answered is replayed in order.
    fn promote(&mut self, page: u32, ahead: Ahead, now: Instant) {
        let Ahead {
            request,
            continue_token,
            head,
            body,
            end,
        } = ahead;
        if matches!(end, Some(AheadEnd::Dropped)) {
            self.send_list_page(page, Some(continue_token), now);
            return;
        }
        self.start_timers(self.config.deadlines.list_head, now);
        self.state = State::Listing(Listing {
            request,
            page,
            continue_token: Some(continue_token),
            body: Body::Awaiting,
            sent_at: now,
            counted_before: (self.list_objects, self.list_bytes),
            ahead: None,
        });
        if let Some((status, retry_after)) = head {
            self.response_head(request, status, retry_after, now);
        }
        if !body.is_empty() {
            self.handle_body(request, &body, now);
        }
        match end {
            Some(AheadEnd::Clean) => self.handle_end(request, now),
            Some(AheadEnd::Error(e)) => self.handle_error(request, e, now),
            Some(AheadEnd::Dropped) | None => {}
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
            Mode::StreamingList if self.streams_this_sync() => {
                self.begin_snapshot();
                let timeout = self.watch_timeout();
                let path = self
                    .selectors()
                    .param("watch", "true")
                    .param("sendInitialEvents", "true")
                    .param("resourceVersionMatch", "NotOlderThan")
                    .param(
                        "resourceVersion",
                        self.not_older_than.as_ref().map_or("", |rv| rv.as_str()),
                    )
                    .param("allowWatchBookmarks", "true")
                    .param("timeoutSeconds", &timeout.to_string())
                    .finish();
                let request = self.new_request(RequestKind::StreamingList, path, now);
                self.state = State::Streaming(Stream {
                    request,
                    kind: StreamKind::Initial,
                    body: Body::Awaiting,
                    timeout: Duration::from_secs(timeout),
                    sent_at: now,
                    progressed: false,
                });
            }
            Mode::StreamingList | Mode::ListWatch => self.send_list_page(1, None, now),
        }
    }

    /// Whether this sync streams (in streaming mode): nothing this sync or this session
    /// said streaming cannot work.
    fn streams_this_sync(&self) -> bool {
        let not_tables = self.tables && self.server.streaming_lists_not_tables;
        let unreadable =
            self.config.reads_first_gzip_member_only && self.server.gzips_streaming_lists;
        !(self.list_this_sync || not_tables || unreadable)
    }

    /// A new snapshot begins (page one of a list, or a streaming list): objects
    /// confirmed from now on carry a new epoch, so whatever an earlier, unfinished
    /// attempt delivered is swept unless this one confirms it too.
    fn begin_snapshot(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        self.list_objects = 0;
        self.list_bytes = 0;
    }

    fn send_list_page(&mut self, page: u32, continue_token: Option<String>, now: Instant) {
        if continue_token.is_none() {
            self.begin_snapshot();
        }
        let path = self.list_path(page, continue_token.as_deref());
        let request = self.new_request(RequestKind::List { page }, path, now);
        self.state = State::Listing(Listing {
            request,
            page,
            continue_token,
            body: Body::Awaiting,
            sent_at: now,
            counted_before: (self.list_objects, self.list_bytes),
            ahead: None,
        });
    }

    fn list_path(&self, page: u32, continue_token: Option<&str>) -> String {
        let first_page = continue_token.is_none();
        let mut q = self.selectors();
        if self.config.page_size > 0 && !self.whole_list_next {
            q = q.param("limit", &self.page_limit(page).to_string());
        }
        q = q.opt("continue", continue_token);
        // "0" ("any", possibly stale) only when asked, and only until consumers have
        // been shown anything a stale answer could take back; never for a relist.
        let nothing_shown =
            self.status.added == 0 && self.status.relists == 0 && self.status.pages_listed == 0;
        if first_page && self.config.initial_list_any_version && nothing_shown {
            q = q.param("resourceVersion", "0");
        }
        q.finish()
    }

    /// Items to ask for on page `page` (from 1) of a list ([`Config::max_page_size`]):
    /// the configured size doubled per page, within the maximum and within half the
    /// document limit at the bytes per item seen so far (so a page ahead is held whole,
    /// and big objects keep pages small); never below the configured size.
    fn page_limit(&self, page: u32) -> u32 {
        let first = self.config.page_size;
        let max = self.config.max_page_size;
        if page <= 1 || max <= first || self.list_objects == 0 {
            return first;
        }
        let doubled = first.saturating_mul(1 << (page - 1).min(16));
        let per_item = (self.list_bytes / self.list_objects as u64).max(1);
        let fits = self.config.limits.max_document_bytes as u64 / 2 / per_item;
        doubled
            .min(max)
            .min(fits.min(u64::from(u32::MAX)) as u32)
            .max(first)
    }

    fn send_watch(&mut self, rv: ResourceVersion, resumed: bool, now: Instant) {
        let timeout = self.watch_timeout();
        let path = self
            .selectors()
            .param("watch", "true")
            .param("resourceVersion", rv.as_str())
            .param("allowWatchBookmarks", "true")
            .param("timeoutSeconds", &timeout.to_string())
            .finish();
        let request = self.new_request(RequestKind::Watch, path, now);
        self.status.resource_version = Some(rv.clone());
        self.state = State::Streaming(Stream {
            request,
            kind: StreamKind::Watch { rv, resumed },
            body: Body::Awaiting,
            timeout: Duration::from_secs(timeout),
            sent_at: now,
            progressed: false,
        });
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

    fn list_page_done(&mut self, page: u32, meta: crate::decode::ListMeta, now: Instant) {
        if let Some(body) = &meta.status {
            // A Status answered with a 200: the error it is (a 410 relists).
            let error = ApiError::from_status_json(body).unwrap_or_else(|| unreadable(body));
            self.fail(Failure::Api(error), false, now);
            return;
        }
        if self.tables && !meta.table && self.objects_arrived(now) {
            return;
        }
        // A page is progress: whatever failed before it is forgiven.
        self.backoff.reset();
        self.status.pages_listed += 1;
        self.status.remaining_estimate = meta.remaining_item_count;
        if let Some(remaining) = meta.remaining_item_count {
            self.store
                .presize((self.list_objects as u64).saturating_add(remaining));
        }
        self.events.push_back(Event::PageListed {
            page,
            objects: self.list_objects,
            remaining: meta.remaining_item_count,
        });
        if let Some(token) = meta.continue_token {
            let ahead = match &mut self.state {
                State::Listing(l) => l.ahead.take_if(|a| a.continue_token == token),
                _ => None,
            };
            match ahead {
                Some(ahead) => self.promote(page + 1, *ahead, now),
                None => self.send_list_page(page + 1, Some(token), now),
            }
            return;
        }
        let Some(rv) = meta.resource_version.filter(|v| !v.is_empty()) else {
            self.fail(
                Failure::Decode(DecodeError::MissingField {
                    field: "metadata.resourceVersion",
                }),
                false,
                now,
            );
            return;
        };
        self.finish_sync(ResourceVersion::new(&rv), false);
        self.send_watch(ResourceVersion::new(&rv), false, now);
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

    fn stream_ended_cleanly(&mut self, now: Instant) {
        let State::Streaming(s) = &self.state else {
            return;
        };
        if !s.progressed && quick(s.sent_at, now) {
            self.fail(Failure::EmptyWatch, false, now);
            return;
        }
        match &s.kind {
            StreamKind::Watch { rv, .. } => {
                let rv = rv.clone();
                self.send_watch(rv, true, now);
            }
            StreamKind::Initial => self.initial_events_interrupted(now),
        }
    }

    /// A streaming list failed before its end bookmark. It is streamed again (after a
    /// backoff when nothing came of it), as client-go's reflector does, unless
    /// consumers were shown part of its snapshot: streaming again could show them older
    /// state (a server that ignores sendInitialEvents replays its watch cache from "",
    /// or the events after the version asked; another apiserver's cache may lag behind
    /// this one's). Then this sync lists: a consistent read of the most recent state.
    /// Nothing shown, asking again for state not older than the last sync's version
    /// (what `not_older_than` holds) shows nothing older than consumers saw.
    fn streaming_list_failed(&mut self) {
        if self.list_objects > 0 {
            self.list_this_sync = true;
        }
    }

    /// A streaming list ended (cleanly or not) before its end bookmark, having lived or
    /// delivered something: stream again at once. Several in a row in one sync make it
    /// a LIST: a server that ignores sendInitialEvents may end each plain watch before
    /// the stall or end-bookmark deadline could tell.
    fn initial_events_interrupted(&mut self, now: Instant) {
        self.streaming_list_failed();
        self.interrupted_streams += 1;
        if self.interrupted_streams >= MAX_INTERRUPTED_STREAMS {
            self.list_this_sync = true;
            self.status.fell_back = Some(format!(
                "{} streaming lists in a row ended before their initial-events-end bookmark",
                self.interrupted_streams
            ));
        }
        self.relist(RelistReason::InitialEventsInterrupted, now);
    }

    /// This sync cannot use a streaming list: it lists instead; the next sync streams
    /// again (a server may gain the feature, a stalled stream may have been bad luck).
    fn fall_back(&mut self, why: String, now: Instant) {
        self.list_this_sync = true;
        self.status.fell_back = Some(why.clone());
        self.relist(RelistReason::StreamingListFallback { why }, now);
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

    fn back_off(
        &mut self,
        next: Next,
        reason: String,
        needs_user: bool,
        at_least: Option<Duration>,
        now: Instant,
    ) {
        let delay = self
            .backoff
            .next_delay(now, needs_user, at_least, &mut self.rng);
        let until = now + delay;
        self.cancel_ahead();
        self.timers.clear();
        self.timers.set(Timer::Retry, until);
        self.status.last_byte_at = None;
        self.state = State::BackingOff { until, next };
        self.events.push_back(Event::BackingOff { until, reason });
    }

    /// Decides what a failure of the current request means. `open`: the request is
    /// still streaming and must be aborted.
    fn fail(&mut self, failure: Failure, open: bool, now: Instant) {
        if let State::Listing(l) = &self.state {
            // The page is fetched again whole: what it counted so far is taken back.
            (self.list_objects, self.list_bytes) = l.counted_before;
        }
        let (resume, attempt) = match &self.state {
            State::Listing(l) => (
                Next::ListPage {
                    page: l.page,
                    continue_token: l.continue_token.clone(),
                },
                // Items of an unfinished page are not progress: the page is fetched again.
                Attempt {
                    sent_at: l.sent_at,
                    progressed: false,
                },
            ),
            State::Streaming(s) => (
                match &s.kind {
                    StreamKind::Watch { rv, .. } => Next::Watch { rv: rv.clone() },
                    StreamKind::Initial => Next::Fresh,
                },
                Attempt {
                    sent_at: s.sent_at,
                    progressed: s.progressed,
                },
            ),
            State::BackingOff { .. } | State::Stopped { .. } => return,
        };
        let in_streaming_list = self.in_streaming_list();
        if in_streaming_list {
            self.streaming_list_failed();
        }
        let message = failure.to_string();
        self.status.errors += 1;
        self.status.last_error = Some(message.clone());
        self.status.last_api_error = match &failure {
            Failure::Api(e) => Some(e.clone()),
            _ => None,
        };
        if open {
            self.abandon_current();
        }
        let Failure::Api(error) = failure else {
            // The connection broke, the body was unreadable (HTML, a truncated line), a
            // deadline passed, or a watch closed at once with nothing.
            if attempt.progressed || !quick(attempt.sent_at, now) {
                // Not a storm: the attempt delivered something (its version is still
                // good) or lasted a while. Resume at once, as client-go does.
                if in_streaming_list {
                    self.initial_events_interrupted(now);
                } else {
                    self.proceed(resume, now);
                }
                return;
            }
            // Nothing came of it: retry the same step after a backoff that grows
            // while the failures repeat at the same place.
            self.back_off(resume, message, false, None, now);
            return;
        };
        if error.code == 406 && self.tables && in_streaming_list {
            let why = format!(
                "the server does not serve streaming lists as tables (406): {}",
                error.message
            );
            self.streaming_lists_not_tables(why, now);
            return;
        }
        if error.code == 406 && self.tables {
            // The server (an aggregated API) cannot print this resource: ask for
            // objects instead, at once.
            let why = format!("the server cannot print tables here: {}", error.message);
            if !self.stop_tables(why, false, now) {
                self.proceed(resume, now);
            }
            return;
        }
        match error.kind {
            // A streaming list asks for state "not older than" a version, which never
            // expires: a 410 means the server ignored sendInitialEvents and took it for
            // a plain watch from that version.
            ApiErrorKind::Expired if in_streaming_list => self.fall_back(
                format!(
                    "the server took the streaming list for a plain watch ({})",
                    error.message
                ),
                now,
            ),
            ApiErrorKind::Expired => {
                let reason = match &resume {
                    Next::ListPage {
                        continue_token: Some(_),
                        ..
                    } => RelistReason::ContinueExpired {
                        message: error.message,
                    },
                    _ => RelistReason::Expired {
                        message: error.message,
                    },
                };
                self.relist(reason, now);
            }
            ApiErrorKind::TooLargeResourceVersion => {
                self.too_large_attempts += 1;
                if self.too_large_attempts > self.config.too_large_retries {
                    self.too_large_attempts = 0;
                    self.relist(
                        RelistReason::TooLargeResourceVersion {
                            message: error.message,
                        },
                        now,
                    );
                } else {
                    self.back_off(resume, message, false, error.retry_after, now);
                }
            }
            ApiErrorKind::Invalid if in_streaming_list => self.fall_back(error.message, now),
            kind if kind.needs_user() || kind == ApiErrorKind::Invalid => {
                let retry_after = error.retry_after;
                self.events.push_back(Event::Failed { error });
                self.back_off(resume, message, true, retry_after, now);
            }
            _ => self.back_off(resume, message, false, error.retry_after, now),
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

    // ----- tables -----

    /// Nothing of the current snapshot was applied yet: page one of a list, or a
    /// streaming list before its first initial event.
    fn at_snapshot_start(&self) -> bool {
        self.list_objects == 0
            && match &self.state {
                State::Listing(l) => l.continue_token.is_none(),
                State::Streaming(s) => matches!(s.kind, StreamKind::Initial),
                _ => false,
            }
    }

    /// Column definitions came (a Table list, or a watch's first Table event).
    fn columns_arrived(&mut self, columns: Vec<TableColumn>, now: Instant) {
        if !self.tables || self.columns.as_deref() == Some(&columns[..]) {
            return;
        }
        let columns: Arc<[TableColumn]> = columns.into();
        self.columns = Some(columns.clone());
        self.events.push_back(Event::Columns { columns });
        if self.store.is_empty() {
            return;
        }
        // The rows held were printed with other columns: this snapshot (or a new
        // one) replaces them all.
        self.replace_rows = true;
        if !self.at_snapshot_start() {
            self.abandon_current();
            self.relist(RelistReason::ColumnsChanged, now);
        }
    }

    /// An object came where a row was expected: the server does not print tables
    /// for this collection. True if the engine relisted (the current request is gone).
    fn objects_arrived(&mut self, now: Instant) -> bool {
        if self.in_streaming_list() {
            self.abandon_current();
            self.streaming_lists_not_tables(
                "the server sent the streaming list as plain objects, not tables".into(),
                now,
            );
            return true;
        }
        let why = match &self.state {
            State::Listing(_) => "the server answered a plain list",
            _ => "the server sent plain watch events",
        };
        self.stop_tables(why.to_string(), true, now)
    }

    /// The server does not serve streaming lists as tables, though its LISTs and
    /// watches may print them: tables stay on, and for the rest of the session every
    /// sync is a Table LIST + WATCH (said once, here).
    fn streaming_lists_not_tables(&mut self, why: String, now: Instant) {
        self.server.streaming_lists_not_tables = true;
        self.fall_back(why, now);
    }

    /// Serves objects from now on. Rows held are replaced as objects arrive; unless
    /// the current snapshot has only just begun, that takes a relist (true: done; an
    /// `open` current request is aborted).
    fn stop_tables(&mut self, why: String, open: bool, now: Instant) -> bool {
        // A page ahead was asked for tables: the next page is asked for anew.
        self.cancel_ahead();
        self.tables = false;
        self.columns = None;
        self.status.table_fallback = Some(why.clone());
        self.events
            .push_back(Event::TablesUnavailable { why: why.clone() });
        if self.at_snapshot_start() || !self.store.iter().any(|o| o.is_row()) {
            return false;
        }
        if open {
            self.abandon_current();
        }
        self.relist(RelistReason::TablesUnavailable { why }, now);
        true
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

    /// Applies the frames request `id` delivered, as long as it is the current
    /// request: an ERROR (or a decoding failure) moves the engine on, possibly to a new
    /// stream at once, and what followed on the old one is not the new one's to apply.
    fn apply_frames(&mut self, id: RequestId, frames: &mut Vec<WatchFrame>, now: Instant) {
        for frame in frames.drain(..) {
            if !self.is_current(id) {
                continue;
            }
            self.apply_frame(frame, now);
        }
    }

    fn apply_frame(&mut self, frame: WatchFrame, now: Instant) {
        let frame = match frame {
            WatchFrame::Columns(columns) => return self.columns_arrived(columns, now),
            WatchFrame::Added(o) | WatchFrame::Modified(o) | WatchFrame::Deleted(o)
                if self.tables && !o.is_row() && self.objects_arrived(now) =>
            {
                return;
            }
            frame => frame,
        };
        let State::Streaming(stream) = &mut self.state else {
            return;
        };
        let initial = matches!(stream.kind, StreamKind::Initial);
        if !matches!(frame, WatchFrame::Error { .. }) {
            stream.progressed = true;
            // Progress: the failure streak is over.
            self.backoff.reset();
            if !initial {
                // The watch delivered something real: its version was good.
                self.relists_in_a_row = 0;
            }
        }
        let live_or_plain_bookmark = match &frame {
            WatchFrame::Modified(_) | WatchFrame::Deleted(_) => true,
            WatchFrame::Bookmark {
                initial_events_end, ..
            } => !initial_events_end,
            _ => false,
        };
        if initial && live_or_plain_bookmark && !self.timers.is_armed(Timer::EndBookmark) {
            // Before 1.32 these could legally precede the end bookmark, which came
            // soon after; a server that ignores sendInitialEvents never sends it.
            self.timers
                .set(Timer::EndBookmark, now + self.config.deadlines.end_bookmark);
        }
        match frame {
            WatchFrame::Added(object) if initial => self.apply_listed(object),
            WatchFrame::Added(object) | WatchFrame::Modified(object) => {
                if !initial {
                    set_rv(stream, object.resource_version());
                }
                // A live event before the end bookmark changes the list being built
                // (it carries this snapshot's epoch); it never advances the version:
                // only the end bookmark does.
                let object = Arc::new(object);
                let change = self
                    .store
                    .upsert(object.clone(), self.epoch, self.replace_rows);
                self.announce(change, object);
            }
            WatchFrame::Deleted(object) => {
                if !initial {
                    set_rv(stream, object.resource_version());
                }
                if self
                    .store
                    .remove(object.namespace(), object.name())
                    .is_some()
                {
                    self.status.deleted += 1;
                    self.events.push_back(Event::Deleted(Arc::new(object)));
                }
            }
            WatchFrame::Bookmark {
                resource_version,
                initial_events_end,
            } => {
                self.status.bookmarks += 1;
                self.status.last_bookmark_at = Some(now);
                if !initial_events_end && !self.server.sends_bookmarks {
                    self.server.sends_bookmarks = true;
                    if !initial {
                        self.timers
                            .set(Timer::Idle, now + self.config.deadlines.idle);
                    }
                }
                if !initial {
                    set_rv(stream, &resource_version);
                } else if initial_events_end && !resource_version.is_empty() {
                    let rv = ResourceVersion::new(&resource_version);
                    stream.kind = StreamKind::Watch {
                        rv: rv.clone(),
                        resumed: false,
                    };
                    self.timers.stop(Timer::Stall);
                    self.timers.stop(Timer::EndBookmark);
                    if self.server.sends_bookmarks {
                        self.timers
                            .set(Timer::Idle, now + self.config.deadlines.idle);
                    }
                    self.finish_sync(rv, true);
                }
            }
            WatchFrame::Error { status } => {
                let error =
                    ApiError::from_status_json(&status).unwrap_or_else(|| unreadable(&status));
                self.fail(Failure::Api(error), true, now);
            }
            // Handled above, before the stream was borrowed.
            WatchFrame::Columns(_) => {}
        }
    }
}

/// Whether an attempt broke so soon after it was sent that retrying at once could be
/// a storm.
fn quick(sent_at: Instant, now: Instant) -> bool {
    now.saturating_since(sent_at) < SUSPICIOUS
}

/// Whether a response head says its body is gzipped (`Content-Encoding` lists gzip).
fn gzipped(headers: &[(&str, &str)]) -> bool {
    headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("content-encoding"))
        .flat_map(|(_, v)| v.split(','))
        .any(|coding| {
            let coding = coding.trim();
            coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip")
        })
}

fn unreadable(status: &[u8]) -> ApiError {
    ApiError {
        kind: ApiErrorKind::ServerError,
        code: 500,
        reason: String::new(),
        message: format!(
            "an ERROR event without a readable Status: {}",
            String::from_utf8_lossy(&status[..status.len().min(200)])
        ),
        retry_after: None,
    }
}

fn set_rv(stream: &mut Stream, rv: &str) {
    if let StreamKind::Watch { rv: current, .. } = &mut stream.kind {
        if current.as_str() != rv && !rv.is_empty() {
            *current = ResourceVersion::new(rv);
        }
    }
}

fn append_capped(buf: &mut Vec<u8>, bytes: &[u8]) {
    let room = MAX_ERROR_BODY.saturating_sub(buf.len());
    buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
}
