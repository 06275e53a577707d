//! kubelive-core: a sans-io engine that keeps a live, correct copy of a Kubernetes
//! collection with the list-then-watch protocol.
//!
//! The engine does no I/O and reads no clock. A driver (browser, CLI, simulation)
//! carries out the [`Request`]s it asks for and feeds back what happened:
//!
//! * feed: [`Engine::handle_response`], [`Engine::handle_body`], [`Engine::handle_end`],
//!   [`Engine::handle_error`], [`Engine::handle_timeout`];
//! * drain: [`Engine::poll_cancel`], [`Engine::poll_request`], [`Engine::poll_event`];
//! * ask: [`Engine::poll_timeout`].
//!
//! **Draining rule:** after every feed call, drain `poll_cancel`, `poll_request` and
//! `poll_event` until each returns `None`, then re-arm the timer from `poll_timeout`.

pub mod backoff;
mod compact;
pub mod decode;
mod dict;
pub mod engine;
mod error;
pub mod history;
mod json;
pub mod object;
pub mod owners;
pub mod request;
pub mod rv;
pub mod saved;
pub mod status;
pub mod store;
pub mod table;
pub mod time;
mod timer;

pub use decode::{DecodeError, Limits};
pub use engine::{
    Config, Engine, Event, Mode, Phase, RelistReason, Restart, Status, TransportError,
};
pub use history::{Change, Entry, EntryKind, History, HistoryConfig};
pub use object::{ColumnKind, FallbackCells, KeptMetadata, Object, ParseOptions, PrintedCells};
pub use owners::{Health, Owners, SourceId};
pub use request::{Collection, CollectionError, Request, RequestId, RequestKind};
pub use rv::ResourceVersion;
pub use saved::{RestoreError, SaveError, SavedView, ViewKey};
pub use status::{retry_after, ApiError, ApiErrorKind};
pub use store::Store;
pub use table::{Cell, Cells, ColumnType, Format, IncludeObject, TableColumn};
pub use time::Instant;
pub use timer::Deadlines;
