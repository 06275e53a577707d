//! How an [`Object`] lays out its one allocation: spans into it, the column data,
//! the wrapper a metadata-only row drops, and the indexes of the identity fields.

use super::printer::DeploymentColumns;
use crate::table::enc;

/// A span of the object's storage: `off..off+len`; `len == u32::MAX` means absent.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    pub(super) off: u32,
    pub(super) len: u32,
}

impl Span {
    pub(super) const NONE: Span = Span {
        off: 0,
        len: u32::MAX,
    };
}

/// The columns as stored (their strings are spans, see [`Object`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ColData {
    Generic,
    Pod {
        ready: u16,
        containers: u16,
        restarts: u32,
        /// STATUS is "Terminating" (deletionTimestamp set), not a span.
        terminating: bool,
    },
    Deployment(DeploymentColumns),
    /// A table row: its cells ([`crate::table::enc`]) at `off..off+len`; `wrap`: the
    /// row's object is a `PartialObjectMetadata` of which only the metadata is stored
    /// ([`Wrap`]); `fields`: and of that only the identity members' values
    /// ([`KeptMetadata::Identity`]), with no JSON around them (see [`Object`]).
    Cells {
        off: u32,
        len: u32,
        wrap: Wrap,
        fields: bool,
    },
}

/// A row's object that is exactly `{"kind":"PartialObjectMetadata","apiVersion":
/// "meta.k8s.io/<version>","metadata":{..}}` (what `includeObject=Metadata` rows carry)
/// is stored as its metadata alone; [`Object::json`] puts the wrapper back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Wrap {
    None,
    V1,
    V1beta1,
}

impl Wrap {
    pub(super) fn prefix(self) -> &'static [u8] {
        match self {
            Wrap::None => b"",
            Wrap::V1 => {
                br#"{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":"#
            }
            Wrap::V1beta1 => {
                br#"{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1beta1","metadata":"#
            }
        }
    }

    pub(super) fn suffix(self) -> &'static [u8] {
        match self {
            Wrap::None => b"",
            _ => b"}",
        }
    }
}

/// The keys of the identity members, by their index in [`Object::spans`].
pub(super) const IDENTITY_KEYS: [&str; 6] = [
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "deletionTimestamp",
];

/// Indexes of [`Object::spans`].
pub(super) const NAME: usize = 0;
pub(super) const NAMESPACE: usize = 1;
pub(super) const UID: usize = 2;
pub(super) const RESOURCE_VERSION: usize = 3;
pub(super) const CREATION_TIMESTAMP: usize = 4;
pub(super) const DELETION_TIMESTAMP: usize = 5;
pub(super) const NODE: usize = 6;
pub(super) const STATUS: usize = 7;
pub(super) const SPANS: usize = 8;

/// Encoded cells as a row stores them: a first cell that is the object's name becomes
/// [`enc::NAME`] (the name is stored once); returns that tag, if so, and the rest.
pub(super) fn row_cells<'c>(cells: &'c [u8], name: &str) -> (Option<u8>, &'c [u8]) {
    match enc::str_entry_len(cells, name.as_bytes()) {
        Some(first) => (Some(enc::NAME), &cells[first..]),
        None => (None, cells),
    }
}
