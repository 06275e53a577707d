//! One Kubernetes object as the store keeps it: its JSON, once, with common keys
//! compacted to one- or two-byte tokens (see [`crate::compact`]), plus the few fields
//! the engine and the UIs need, extracted without building a DOM.
//!
//! Here: [`Object`] and its accessors. Beside it: `storage` (the layout of its one
//! allocation), `parse` (the walk over one object's JSON), `copy` (the compacting
//! copier that makes the stored copy), `row` (table rows), `bookmark` (BOOKMARK
//! events), `printer` (the fallback printer: the columns and cells of objects for
//! servers that print no tables) and `extract` (what a walk collects, below all of
//! them). A Table's row holds an object, so `parse` and `row` call each other.

mod bookmark;
mod copy;
mod extract;
mod parse;
mod printer;
mod row;
pub(crate) mod saved;
mod storage;
#[cfg(test)]
mod tests;

pub use printer::{ColumnKind, FallbackCells, PrintedCells};

pub(crate) use bookmark::parse_bookmark;
pub(crate) use extract::{in_metadata, key, utf8};
pub(crate) use parse::parse_object;
pub(crate) use row::parse_row;

use storage::{
    ColData, Span, Wrap, CREATION_TIMESTAMP, DELETION_TIMESTAMP, IDENTITY_KEYS, NAME, NAMESPACE,
    RESOURCE_VERSION, SPANS, UID,
};

use crate::compact;
use crate::error::DecodeError;
use crate::json::{unescape, JResult, Scanner};
use crate::table::{write_json_string, Cell, Cells};
use std::borrow::Cow;
use std::fmt;

/// How objects are decoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Drop `metadata.managedFields` on the way in (saves ~30% of a typical pod).
    pub strip_managed_fields: bool,
    pub columns: ColumnKind,
    /// Which other members of `metadata` are stored.
    pub metadata: KeptMetadata,
}

/// Which members of an object's `metadata` are stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeptMetadata {
    /// Every member (managedFields as `strip_managed_fields` says).
    #[default]
    All,
    /// Only what names, versions and dates the object: name, namespace, uid,
    /// resourceVersion, creationTimestamp, deletionTimestamp. For views that show the
    /// server's cells and fetch the whole object when asked (the app's table): labels,
    /// annotations, ownerReferences and the rest are most of a row's bytes.
    Identity,
    /// The identity members and `ownerReferences`: for views that join objects by
    /// owner ([`crate::owners`]) and otherwise show the server's cells.
    Owners,
}

impl KeptMetadata {
    /// Whether the member `key` of `metadata` is left out of the stored copy;
    /// `identity`: it is one of the members the object is read by ([`extract::identity_slot`]).
    #[inline]
    fn drops(self, key: &[u8], identity: bool, strip_managed_fields: bool) -> bool {
        match self {
            KeptMetadata::All => strip_managed_fields && key == b"managedFields",
            KeptMetadata::Identity => !identity,
            KeptMetadata::Owners => !identity && key != b"ownerReferences",
        }
    }
}

/// A decoded object. Immutable once built; shared between the store and events.
///
/// Holds one exact-size allocation: the object's JSON (as received, without
/// insignificant whitespace, minus `metadata.managedFields` if asked) with dictionary
/// keys replaced by tokens ([`crate::compact`]; string contents are untouched), then
/// for a table row its cells (decoded, [`crate::table::enc`]), then decoded copies of
/// the rare metadata/column strings that contained escapes. Metadata fields, the pod
/// STATUS/NODE columns and the cells are spans into it.
///
/// A table row ([`Object::is_row`]) is the row's object (a `PartialObjectMetadata`, or
/// the whole object with `includeObject=Object`) plus its cells ([`Object::cells`]).
/// A `PartialObjectMetadata` row with [`KeptMetadata::Identity`] (the app's table)
/// stores no JSON at all: the identity members' values back to back, then the cells;
/// [`Object::json`] writes the object from them.
#[derive(Clone, PartialEq, Eq)]
pub struct Object {
    /// Valid UTF-8 throughout (tokens are characters), kept as bytes so that the
    /// decoder can copy without per-segment checks; spans are checked on access.
    buf: Box<[u8]>,
    /// Bytes of stored (compacted) JSON at the start of `buf`.
    json_len: u32,
    /// Bytes of the JSON it stands for.
    raw_len: u32,
    spans: [Span; SPANS],
    cols: ColData,
}

impl fmt::Debug for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Object")
            .field("namespace", &self.namespace())
            .field("name", &self.name())
            .field("uid", &self.uid())
            .field("resource_version", &self.resource_version())
            .field("creation_timestamp", &self.creation_timestamp())
            .field("deletion_timestamp", &self.deletion_timestamp())
            .field(
                "fallback_cells",
                &self.fallback_cells().map(Iterator::collect::<Vec<_>>),
            )
            .field("cells", &self.cells_json())
            .field("json_bytes", &self.raw_len)
            .field("stored_bytes", &self.json_len)
            .finish()
    }
}

impl Object {
    /// Decodes one object from its JSON bytes (the value of `object` in a watch event,
    /// or one element of a list's `items`), copying (and, if asked, stripping) into
    /// owned compact storage. Requires metadata.name and metadata.resourceVersion.
    pub fn parse(json: &[u8], opts: &ParseOptions) -> Result<Object, DecodeError> {
        let doc = utf8(json)?;
        let mut sc = Scanner::new(json);
        if sc.ws() != b'{' {
            return Err(sc.err("expected an object").into());
        }
        let obj = parse_object(doc, &mut sc, opts, &mut None)?;
        sc.end()?;
        Ok(obj)
    }

    #[inline]
    fn span(&self, s: Span) -> Option<&str> {
        if s.len == u32::MAX {
            None
        } else {
            let a = s.off as usize;
            std::str::from_utf8(self.buf.get(a..a + s.len as usize)?).ok()
        }
    }

    /// metadata.namespace, "" for cluster-scoped objects.
    pub fn namespace(&self) -> &str {
        self.span(self.spans[NAMESPACE]).unwrap_or("")
    }
    pub fn name(&self) -> &str {
        self.span(self.spans[NAME]).unwrap_or("")
    }
    /// metadata.uid, "" if absent.
    pub fn uid(&self) -> &str {
        self.span(self.spans[UID]).unwrap_or("")
    }
    pub fn resource_version(&self) -> &str {
        self.span(self.spans[RESOURCE_VERSION]).unwrap_or("")
    }
    pub fn creation_timestamp(&self) -> Option<&str> {
        self.span(self.spans[CREATION_TIMESTAMP])
    }
    pub fn deletion_timestamp(&self) -> Option<&str> {
        self.span(self.spans[DELETION_TIMESTAMP])
    }
    /// metadata.labels, decoded on demand from the stored bytes (not on the hot path).
    pub fn labels(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let _ = self.map_in_metadata(b"labels", &mut out);
        out
    }
    /// metadata.annotations, decoded on demand from the stored bytes.
    pub fn annotations(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let _ = self.map_in_metadata(b"annotations", &mut out);
        out
    }

    fn map_in_metadata(&self, field: &[u8], out: &mut Vec<(String, String)>) -> JResult<()> {
        let json = self.json();
        let b = json.as_ref();
        in_metadata(b, field, |sc| {
            // The last of a repeated key wins, as Go's decoder reads it.
            out.clear();
            if !sc.object_start()? {
                return Ok(());
            }
            let mut first = true;
            while let Some(k) = sc.next_key(&mut first)? {
                if let Some(v) = sc.opt_string()? {
                    out.push((
                        unescape(&b[k.start..k.end]).into_owned(),
                        unescape(&b[v.start..v.end]).into_owned(),
                    ));
                }
            }
            Ok(())
        })
    }

    /// The stored (compacted) JSON.
    fn stored(&self) -> &[u8] {
        self.buf.get(..self.json_len as usize).unwrap_or(b"")
    }

    /// The object's JSON as the server sent it, whitespace-normalised: without
    /// insignificant whitespace (a pretty-printed answer comes back compact; a compact
    /// one byte for byte), minus managedFields if they were stripped. For a table row,
    /// the row's object. Borrowed when nothing was compacted, else expanded (one pass).
    pub fn json(&self) -> Cow<'_, [u8]> {
        if self.raw_len == self.json_len && self.wrap() == Wrap::None && !self.is_fields_row() {
            Cow::Borrowed(self.stored())
        } else {
            let mut out = Vec::new();
            self.write_json(&mut out);
            Cow::Owned(out)
        }
    }

    fn wrap(&self) -> Wrap {
        match self.cols {
            ColData::Cells { wrap, .. } => wrap,
            _ => Wrap::None,
        }
    }

    /// A row that stores its identity members' values and no JSON.
    fn is_fields_row(&self) -> bool {
        matches!(self.cols, ColData::Cells { fields: true, .. })
    }

    /// [`Object::json`] as text (always valid UTF-8).
    pub fn json_str(&self) -> Cow<'_, str> {
        match self.json() {
            Cow::Borrowed(b) => String::from_utf8_lossy(b),
            Cow::Owned(v) => Cow::Owned(
                String::from_utf8(v)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            ),
        }
    }

    /// Appends [`Object::json`] to `out` without an intermediate copy (snapshots).
    pub fn write_json(&self, out: &mut Vec<u8>) {
        out.reserve(self.raw_len as usize);
        let wrap = self.wrap();
        out.extend_from_slice(wrap.prefix());
        if self.is_fields_row() {
            out.extend_from_slice(self.identity_json().as_bytes());
        } else {
            compact::expand(self.stored(), out);
        }
        out.extend_from_slice(wrap.suffix());
    }

    /// The identity members as a `metadata` object (of a row that stores only them),
    /// in the order the apiserver writes them.
    fn identity_json(&self) -> String {
        let mut out = String::with_capacity(self.buf.len() + 96);
        out.push('{');
        for (i, (key, value)) in self.identity_members().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push('"');
            out.push_str(key);
            out.push_str("\":");
            write_json_string(&mut out, value);
        }
        out.push('}');
        out
    }

    /// The identity members present, by key, in the apiserver's order.
    fn identity_members(&self) -> impl Iterator<Item = (&'static str, &str)> {
        IDENTITY_KEYS
            .iter()
            .zip(&self.spans)
            .filter_map(|(k, s)| Some((*k, self.span(*s)?)))
    }

    /// Length of [`Object::json`] in bytes.
    pub fn json_len(&self) -> usize {
        self.raw_len as usize
    }

    /// Whether this is a table row (decoded from a `meta.k8s.io` Table): it has cells.
    pub fn is_row(&self) -> bool {
        matches!(self.cols, ColData::Cells { .. })
    }

    /// A table row's cells as JSON (an array, compact), e.g. to hand to JavaScript.
    /// The values the server sent; strings are escaped only as JSON requires.
    pub fn cells_json(&self) -> Option<String> {
        self.cells().map(Cells::into_json)
    }

    /// A table row's cells in column order, typed by value; `None` for an object.
    pub fn cells(&self) -> Option<Cells<'_>> {
        match self.cols {
            ColData::Cells { off, len, .. } => {
                Some(Cells::new(self.span(Span { off, len })?, self.name()))
            }
            _ => None,
        }
    }

    /// Cell `i` of a table row.
    pub fn cell(&self, i: usize) -> Option<Cell<'_>> {
        self.cells()?.nth(i)
    }

    /// Bytes this object occupies: the struct and its one allocation (for memory
    /// accounting in status and benches). A container's own overhead (an `Arc`'s
    /// counters, a table slot) is the container's to add.
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Object>() + self.buf.len()
    }
}
