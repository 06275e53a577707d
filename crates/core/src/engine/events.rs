//! What the engine tells consumers ([`Event`]) and the reasons and failures those
//! events carry.

use crate::object::Object;
use crate::rv::ResourceVersion;
use crate::status::ApiError;
use crate::table::TableColumn;
use crate::time::Instant;
use std::fmt;
use std::sync::Arc;

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
    /// The store holds a saved view's rows ([`crate::Engine::restore`], each announced
    /// by an `Added` before this): the server's state at `resource_version`, as it was
    /// when saved. A UI shows them as restored; the watch from that version that
    /// follows (`Resumed` once it answers) brings them up to date, or a relist
    /// (`Relisting`, then `Deleted` for what vanished, then `Synced`) replaces them.
    Restored {
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
