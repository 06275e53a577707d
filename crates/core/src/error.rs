//! [`DecodeError`]: why a body could not be decoded. Below both the decoders
//! ([`crate::decode`]) and the object parser ([`crate::object`]), which both return it.

use crate::json::JsonError;
use std::fmt;

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

impl From<JsonError> for DecodeError {
    fn from(e: JsonError) -> Self {
        DecodeError::Malformed {
            offset: e.offset,
            reason: e.reason,
        }
    }
}
