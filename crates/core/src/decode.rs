//! Decoders: bytes in, split anywhere; complete documents out.
//!
//! INTERFACE STUB: bodies are filled by the decoder work.

use crate::object::{Object, ParseOptions};
use std::fmt;

/// Bounds on what a decoder may buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest single document (one watch event, one list item). Default 16 MiB.
    pub max_document_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_document_bytes: 16 << 20,
        }
    }
}

/// Why a body could not be decoded. Messages are meant for users.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The body is not JSON at all (an HTML error page, plain text); `snippet` is its start.
    NotJson { snippet: String },
    /// JSON that is broken at `offset` (bytes into the document).
    Malformed { offset: usize, reason: &'static str },
    /// A document larger than the configured limit.
    TooLarge { limit: usize },
    /// The body ended in the middle of a document.
    Truncated { buffered: usize },
    /// A required field is missing (e.g. metadata.name).
    MissingField { field: &'static str },
    /// A watch event whose type is not ADDED/MODIFIED/DELETED/BOOKMARK/ERROR.
    UnknownEventType { event_type: String },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::NotJson { snippet } => {
                write!(f, "the server sent something that is not JSON: {snippet:?}")
            }
            DecodeError::Malformed { offset, reason } => {
                write!(f, "malformed JSON at byte {offset}: {reason}")
            }
            DecodeError::TooLarge { limit } => {
                write!(f, "a document is larger than the {limit}-byte limit")
            }
            DecodeError::Truncated { buffered } => write!(
                f,
                "the body ended in the middle of a document ({buffered} bytes buffered)"
            ),
            DecodeError::MissingField { field } => write!(f, "an object has no {field}"),
            DecodeError::UnknownEventType { event_type } => {
                write!(f, "unknown watch event type {event_type:?}")
            }
        }
    }
}

impl std::error::Error for DecodeError {}

/// One document of a watch stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WatchFrame {
    Added(Object),
    Modified(Object),
    Deleted(Object),
    /// Advances the version only. `initial_events_end` is the streaming-list sync mark
    /// (annotation `k8s.io/initial-events-end: "true"`).
    Bookmark {
        resource_version: String,
        initial_events_end: bool,
    },
    /// An ERROR event: the raw bytes of its Status object.
    Error { status: Box<[u8]> },
}

/// Newline-framed watch stream decoder.
pub struct WatchDecoder {
    _todo: (),
}

impl WatchDecoder {
    pub fn new(_limits: Limits, _opts: ParseOptions) -> Self {
        todo!()
    }
    /// Feeds one chunk, appending every complete document to `out` in order. On error
    /// the documents before it are in `out` and the decoder must not be fed again.
    pub fn feed(&mut self, _chunk: &[u8], _out: &mut Vec<WatchFrame>) -> Result<(), DecodeError> {
        todo!()
    }
    /// The body ended. A complete last document without its newline is still emitted;
    /// a partial one is `Truncated`.
    pub fn finish(&mut self, _out: &mut Vec<WatchFrame>) -> Result<(), DecodeError> {
        todo!()
    }
    /// Bytes held for an incomplete document.
    pub fn buffered(&self) -> usize {
        todo!()
    }
}

/// What a list body says about itself besides its items.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListMeta {
    pub resource_version: Option<String>,
    /// `metadata.continue`; `None` when absent or empty.
    pub continue_token: Option<String>,
    pub remaining_item_count: Option<u64>,
}

/// Streaming decoder of one LIST response body (`{"kind":..,"metadata":{..},"items":[..]}`):
/// yields items as soon as each is complete, so a page is never held twice.
pub struct ListDecoder {
    _todo: (),
}

impl ListDecoder {
    pub fn new(_limits: Limits, _opts: ParseOptions) -> Self {
        todo!()
    }
    /// Feeds one chunk, appending each completed item to `out`.
    pub fn feed(&mut self, _chunk: &[u8], _out: &mut Vec<Object>) -> Result<(), DecodeError> {
        todo!()
    }
    /// The body ended: the top-level object must be complete.
    pub fn finish(&mut self) -> Result<ListMeta, DecodeError> {
        todo!()
    }
    /// Bytes held for an incomplete item or top-level field.
    pub fn buffered(&self) -> usize {
        todo!()
    }
}
