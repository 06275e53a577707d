//! The engine's health and progress as a status bar shows them ([`Status`], [`Phase`]).

use super::config::Mode;
use super::events::RelistReason;
use crate::rv::ResourceVersion;
use crate::status::ApiError;
use crate::time::Instant;

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
