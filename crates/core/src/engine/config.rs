//! What the engine is told up front: [`Config`] and the [`Mode`] it fetches in.

use crate::backoff::BackoffConfig;
use crate::decode::Limits;
use crate::object::KeptMetadata;
use crate::request::Collection;
use crate::table::Format;
use crate::timer::Deadlines;

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
