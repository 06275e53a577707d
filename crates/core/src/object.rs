//! One Kubernetes object as the store keeps it: its JSON, once, with common keys
//! compacted to one- or two-byte tokens (see [`crate::compact`]), plus the few fields
//! the engine and the UIs need, extracted without building a DOM.

use crate::compact;
use crate::compact::KeyHit;
use crate::decode::DecodeError;
use crate::json::{unescape, JResult, JsonError, Scanner, StrSpan};
use crate::table::{
    enc, encode_cells, json_string_len, parse_columns, write_json_string, Cell, Cells, TableColumn,
};
use std::borrow::Cow;
use std::fmt;

/// Which display columns to extract while decoding (chosen from the resource name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ColumnKind {
    #[default]
    Generic,
    Pod,
    Deployment,
}

impl ColumnKind {
    /// The column set for a resource (plural name as in the API path).
    pub fn for_resource(resource: &str) -> Self {
        match resource {
            "pods" => ColumnKind::Pod,
            "deployments" => ColumnKind::Deployment,
            _ => ColumnKind::Generic,
        }
    }
}

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
}

impl KeptMetadata {
    /// Whether the member `key` of `metadata` is left out of the stored copy;
    /// `identity`: it is one of the members the object is read by ([`identity_slot`]).
    #[inline]
    fn drops(self, key: &[u8], identity: bool, strip_managed_fields: bool) -> bool {
        match self {
            KeptMetadata::All => strip_managed_fields && key == b"managedFields",
            KeptMetadata::Identity => !identity,
        }
    }
}

/// Where the walk keeps a metadata member the object is read by (name, namespace,
/// uid, resourceVersion, timestamps): the members [`KeptMetadata::Identity`] keeps.
#[inline]
fn identity_slot<'e>(ex: &'e mut Extract, key: &[u8]) -> Option<&'e mut Option<StrSpan>> {
    match key {
        b"name" => Some(&mut ex.name),
        b"namespace" => Some(&mut ex.namespace),
        b"uid" => Some(&mut ex.uid),
        b"resourceVersion" => Some(&mut ex.resource_version),
        b"creationTimestamp" => Some(&mut ex.creation_timestamp),
        b"deletionTimestamp" => Some(&mut ex.deletion_timestamp),
        _ => None,
    }
}

/// Display columns, extracted at decode time so rendering never re-parses JSON.
/// Strings borrow from the object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Columns<'a> {
    #[default]
    Generic,
    Pod(PodColumns<'a>),
    Deployment(DeploymentColumns),
}

/// `kubectl get pods` columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PodColumns<'a> {
    /// Ready containers.
    pub ready: u16,
    /// All containers (spec.containers).
    pub containers: u16,
    /// Sum of containerStatuses[].restartCount.
    pub restarts: u32,
    /// What kubectl shows as STATUS: "Terminating" when deletionTimestamp is set, else a
    /// waiting/terminated container reason if any, else status.reason, else status.phase.
    pub status: &'a str,
    /// spec.nodeName, empty when unscheduled.
    pub node: &'a str,
}

/// `kubectl get deployments` columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct DeploymentColumns {
    /// spec.replicas (default 1).
    pub desired: u32,
    /// status.readyReplicas.
    pub ready: u32,
    /// status.updatedReplicas.
    pub up_to_date: u32,
    /// status.availableReplicas.
    pub available: u32,
}

/// A span of the object's storage: `off..off+len`; `len == u32::MAX` means absent.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Span {
    off: u32,
    len: u32,
}

impl Span {
    const NONE: Span = Span {
        off: 0,
        len: u32::MAX,
    };
}

/// The columns as stored (their strings are spans, see [`Object`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum ColData {
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
enum Wrap {
    None,
    V1,
    V1beta1,
}

impl Wrap {
    fn prefix(self) -> &'static [u8] {
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

    fn suffix(self) -> &'static [u8] {
        match self {
            Wrap::None => b"",
            _ => b"}",
        }
    }
}

/// The keys of the identity members, by their index in [`Object::spans`].
const IDENTITY_KEYS: [&str; 6] = [
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "deletionTimestamp",
];

/// Indexes of [`Object::spans`].
const NAME: usize = 0;
const NAMESPACE: usize = 1;
const UID: usize = 2;
const RESOURCE_VERSION: usize = 3;
const CREATION_TIMESTAMP: usize = 4;
const DELETION_TIMESTAMP: usize = 5;
const NODE: usize = 6;
const STATUS: usize = 7;
const SPANS: usize = 8;

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
            .field("columns", &self.columns())
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
        let mut sc = Scanner::new(b);
        if !sc.object_start()? {
            return Ok(());
        }
        let mut first = true;
        while let Some(k) = sc.next_key(&mut first)? {
            if key(b, k).as_ref() != b"metadata" {
                sc.value()?;
                continue;
            }
            if !sc.object_start()? {
                continue;
            }
            let mut first = true;
            while let Some(k) = sc.next_key(&mut first)? {
                if key(b, k).as_ref() != field {
                    sc.value()?;
                    continue;
                }
                if !sc.object_start()? {
                    continue;
                }
                out.clear();
                let mut first = true;
                while let Some(k) = sc.next_key(&mut first)? {
                    if let Some(v) = sc.opt_string()? {
                        out.push((
                            unescape(&b[k.start..k.end]).into_owned(),
                            unescape(&b[v.start..v.end]).into_owned(),
                        ));
                    }
                }
            }
        }
        Ok(())
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

    pub fn columns(&self) -> Columns<'_> {
        match self.cols {
            ColData::Generic => Columns::Generic,
            ColData::Pod {
                ready,
                containers,
                restarts,
                terminating,
            } => Columns::Pod(PodColumns {
                ready,
                containers,
                restarts,
                status: if terminating {
                    "Terminating"
                } else {
                    self.span(self.spans[STATUS]).unwrap_or("")
                },
                node: self.span(self.spans[NODE]).unwrap_or(""),
            }),
            ColData::Deployment(d) => Columns::Deployment(d),
            ColData::Cells { .. } => Columns::Generic,
        }
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

impl From<JsonError> for DecodeError {
    fn from(e: JsonError) -> Self {
        DecodeError::Malformed {
            offset: e.offset,
            reason: e.reason,
        }
    }
}

/// Validates UTF-8 of a whole document.
pub(crate) fn utf8(b: &[u8]) -> Result<&str, DecodeError> {
    std::str::from_utf8(b).map_err(|e| DecodeError::Malformed {
        offset: e.valid_up_to(),
        reason: "invalid UTF-8",
    })
}

/// A key's bytes, decoded only if it has escapes.
#[inline]
pub(crate) fn key(b: &[u8], k: StrSpan) -> Cow<'_, [u8]> {
    let raw = &b[k.start..k.end];
    if k.escaped {
        match unescape(raw) {
            Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        }
    } else {
        Cow::Borrowed(raw)
    }
}

/// What the walk over one object collects (absolute positions in the document).
#[derive(Default)]
struct Extract {
    name: Option<StrSpan>,
    namespace: Option<StrSpan>,
    uid: Option<StrSpan>,
    resource_version: Option<StrSpan>,
    creation_timestamp: Option<StrSpan>,
    deletion_timestamp: Option<StrSpan>,
    /// Byte ranges to drop from the stored copy (dropped metadata members), in order.
    cuts: Vec<(usize, usize)>,
    // Pod columns.
    containers: u16,
    ready: u16,
    restarts: u32,
    node: Option<StrSpan>,
    phase: Option<StrSpan>,
    reason: Option<StrSpan>,
    container_reason: Option<StrSpan>,
    // Deployment columns.
    replicas: Option<u64>,
    ready_replicas: u64,
    updated_replicas: u64,
    available_replicas: u64,
}

/// Top-level members that say a document is a `meta.k8s.io` Table (positions in
/// the document).
#[derive(Default)]
struct TableKeys {
    kind_table: bool,
    meta_api: bool,
    /// Where the `rows` value starts.
    rows: Option<usize>,
    /// The `columnDefinitions` value.
    columns: Option<(usize, usize)>,
    /// Members seen, and how far they matched the exact shape of a
    /// `PartialObjectMetadata` (kind, apiVersion, metadata: 3 when complete).
    members: u32,
    partial: u32,
    partial_v1beta1: bool,
    /// The `metadata` value.
    metadata: Option<(usize, usize)>,
    /// The one row, parsed in place when `kind` and `apiVersion` came before `rows`
    /// (as the apiserver writes them), so the row is scanned once.
    row: Option<Object>,
}

impl TableKeys {
    fn is_table(&self) -> bool {
        self.kind_table && self.meta_api
    }

    /// Exactly `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/..",
    /// "metadata":{..}}`: what to store of it and how to restore it.
    fn partial_metadata(&self) -> Option<((usize, usize), Wrap)> {
        let wrap = if self.partial_v1beta1 {
            Wrap::V1beta1
        } else {
            Wrap::V1
        };
        match self.metadata {
            Some(m) if self.members == 3 && self.partial == 3 => Some((m, wrap)),
            _ => None,
        }
    }
}

/// Walks the members of the object at `sc.i`, collecting what the store needs into
/// `ex` and the Table markers into `tk`; with `doc` (the text of `sc.b`), a Table's one
/// row is parsed in place. Returns the object's start and end.
fn walk(
    sc: &mut Scanner<'_>,
    opts: &ParseOptions,
    ex: &mut Extract,
    tk: &mut TableKeys,
    doc: Option<&str>,
) -> Result<(usize, usize), DecodeError> {
    let start = sc.i;
    if !sc.object_start()? {
        return Err(JsonError {
            offset: start,
            reason: "expected an object",
        }
        .into());
    }
    let b = sc.b;
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        let member = tk.members;
        tk.members += 1;
        match (key(b, k).as_ref(), opts.columns) {
            (b"metadata", _) => {
                if sc.ws() == b'{' {
                    let at = sc.i;
                    metadata(sc, ex, opts)?;
                    tk.metadata = Some((at, sc.i));
                    tk.partial += u32::from(member == 2 && tk.partial == 2);
                } else {
                    metadata(sc, ex, opts)?;
                }
            }
            (b"spec", ColumnKind::Pod) => pod_spec(sc, ex)?,
            (b"status", ColumnKind::Pod) => pod_status(sc, ex)?,
            (b"spec", ColumnKind::Deployment) => deployment_spec(sc, ex)?,
            (b"status", ColumnKind::Deployment) => deployment_status(sc, ex)?,
            (b"kind", _) => {
                let kind = sc.opt_string()?.map_or(&b""[..], |s| &b[s.start..s.end]);
                tk.kind_table = kind == b"Table";
                tk.partial += u32::from(member == 0 && kind == b"PartialObjectMetadata");
            }
            (b"apiVersion", _) => {
                let api = sc.opt_string()?.map_or(&b""[..], |s| &b[s.start..s.end]);
                tk.meta_api = api.starts_with(b"meta.k8s.io/");
                let v1 = api == b"meta.k8s.io/v1";
                tk.partial_v1beta1 = api == b"meta.k8s.io/v1beta1";
                tk.partial +=
                    u32::from(member == 1 && tk.partial == 1 && (v1 || tk.partial_v1beta1));
            }
            (b"rows", _) => {
                sc.ws();
                tk.rows = Some(sc.i);
                match doc {
                    Some(doc) if tk.is_table() => tk.row = Some(single_row(doc, sc, opts)?),
                    _ => sc.value()?,
                }
            }
            (b"columnDefinitions", _) => {
                sc.ws();
                let at = sc.i;
                sc.value()?;
                tk.columns = Some((at, sc.i));
            }
            _ => sc.value()?,
        }
    }
    Ok((start, sc.i))
}

fn require_identity(ex: &Extract) -> Result<(), DecodeError> {
    if ex.name.is_none() {
        return Err(DecodeError::MissingField {
            field: "metadata.name",
        });
    }
    if ex.resource_version.is_none() {
        return Err(DecodeError::MissingField {
            field: "metadata.resourceVersion",
        });
    }
    Ok(())
}

/// Parses the object whose `{` is at `sc.i` (after whitespace); `doc` is the
/// validated text of `sc.b`. Leaves `sc` after the closing `}`.
///
/// A `meta.k8s.io` Table of one row (a watch event's object in table mode) gives that
/// row, and its column definitions, if it has any, in `columns`.
pub(crate) fn parse_object(
    doc: &str,
    sc: &mut Scanner<'_>,
    opts: &ParseOptions,
    columns: &mut Option<Vec<TableColumn>>,
) -> Result<Object, DecodeError> {
    let h0 = sc.hits.len();
    let mut ex = Extract::default();
    let mut tk = TableKeys::default();
    let (start, end) = walk(sc, opts, &mut ex, &mut tk, Some(doc))?;
    if tk.is_table() {
        sc.hits.truncate(h0);
        let r = one_row(doc, sc, opts, &mut tk, columns);
        sc.i = end;
        sc.hits.truncate(h0);
        return r;
    }
    require_identity(&ex)?;
    let hits = &sc.hits[h0.min(sc.hits.len())..];
    let r = build(
        doc,
        ((start, end), Wrap::None),
        None,
        &ex,
        hits,
        opts.columns,
        &mut sc.out,
    );
    sc.hits.truncate(h0);
    r
}

/// The column definitions of a Table (`tk.columns`), `None` when absent or `null`.
fn table_columns(b: &[u8], tk: &TableKeys) -> Result<Option<Vec<TableColumn>>, DecodeError> {
    match tk.columns {
        Some((a, e)) => {
            parse_columns(&b[a..e]).map_err(|reason| DecodeError::Malformed { offset: a, reason })
        }
        None => Ok(None),
    }
}

/// The one row of a Table whose members `tk` located.
fn one_row(
    doc: &str,
    sc: &mut Scanner<'_>,
    opts: &ParseOptions,
    tk: &mut TableKeys,
    columns: &mut Option<Vec<TableColumn>>,
) -> Result<Object, DecodeError> {
    *columns = table_columns(sc.b, tk)?;
    if let Some(row) = tk.row.take() {
        return Ok(row);
    }
    // `rows` came before `kind`/`apiVersion`: read it now.
    let Some(rows) = tk.rows else {
        return Err(DecodeError::MissingField { field: "rows" });
    };
    sc.i = rows;
    single_row(doc, sc, opts)
}

/// The `rows` array at `sc.i` of a Table event: exactly one row.
fn single_row(doc: &str, sc: &mut Scanner<'_>, opts: &ParseOptions) -> Result<Object, DecodeError> {
    let mut first = true;
    if !sc.array_start()? || !sc.next_elem(&mut first)? {
        return Err(DecodeError::MissingField {
            field: "rows (a Table event without a row)",
        });
    }
    let row = parse_row(doc, sc, opts)?;
    if sc.next_elem(&mut first)? {
        return Err(DecodeError::Malformed {
            offset: sc.i,
            reason: "a Table event with more than one row",
        });
    }
    Ok(row)
}

/// Parses one Table row (`{"cells":[..],"conditions":[..],"object":{..}}`) at `sc.i`
/// into an [`Object`] holding the row's object and its cells.
pub(crate) fn parse_row(
    doc: &str,
    sc: &mut Scanner<'_>,
    opts: &ParseOptions,
) -> Result<Object, DecodeError> {
    let h0 = sc.hits.len();
    if !sc.object_start()? {
        return Err(sc.err("expected a Table row").into());
    }
    let b = sc.b;
    // Rows never carry pod/deployment columns: the server printed them.
    let row_opts = ParseOptions {
        columns: ColumnKind::Generic,
        ..*opts
    };
    let mut ex = Extract::default();
    let mut cells = false;
    let mut object: Option<((usize, usize), Wrap)> = None;
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        match key(b, k).as_ref() {
            b"cells" => {
                if sc.ws() != b'[' {
                    return Err(sc.err("a row's cells must be an array").into());
                }
                let mut enc = std::mem::take(&mut sc.cells);
                let r = encode_cells(sc, &mut enc);
                sc.cells = enc;
                r?;
                cells = true;
            }
            b"object" if sc.ws() == b'{' => {
                ex = Extract::default();
                let mut tk = TableKeys::default();
                let range = walk(sc, &row_opts, &mut ex, &mut tk, None)?;
                object = Some(tk.partial_metadata().unwrap_or((range, Wrap::None)));
            }
            _ => sc.value()?,
        }
    }
    if !cells {
        return Err(DecodeError::MissingField {
            field: "rows[].cells",
        });
    }
    let Some(object) = object else {
        return Err(DecodeError::MissingField {
            field: "rows[].object (rows of includeObject=None cannot be kept)",
        });
    };
    require_identity(&ex)?;
    let r = if object.1 != Wrap::None && opts.metadata == KeptMetadata::Identity {
        fields_row(doc, object.1, &ex, &sc.cells)
    } else {
        let hits = &sc.hits[h0.min(sc.hits.len())..];
        build(
            doc,
            object,
            Some(&sc.cells),
            &ex,
            hits,
            ColumnKind::Generic,
            &mut sc.out,
        )
    };
    sc.hits.truncate(h0);
    r
}

/// The identity members' values as [`Object`] stores them, decoded (a member that is
/// absent, `null` or not a string is absent), and the length of each as a JSON string
/// written back ([`write_json_string`]).
fn identity_values<'d>(doc: &'d str, ex: &Extract) -> [Option<(Cow<'d, str>, usize)>; 6] {
    let value = |f: Option<StrSpan>| {
        f.map(|s| {
            let raw = doc.get(s.start..s.end).unwrap_or("");
            if s.escaped {
                let v = unescape(raw.as_bytes());
                let len = json_string_len(&v);
                (v, len)
            } else {
                // Validated without escapes: no quote, backslash or control character,
                // so written back as it came.
                (Cow::Borrowed(raw), raw.len() + 2)
            }
        })
    };
    [
        value(ex.name),
        value(ex.namespace),
        value(ex.uid),
        value(ex.resource_version),
        value(ex.creation_timestamp),
        value(ex.deletion_timestamp),
    ]
}

/// Builds a `PartialObjectMetadata` row kept with [`KeptMetadata::Identity`]: the
/// identity members' values back to back, then the cells (the name cell stored once).
fn fields_row(doc: &str, wrap: Wrap, ex: &Extract, cells: &[u8]) -> Result<Object, DecodeError> {
    let values = identity_values(doc, ex);
    let name = values[NAME].as_ref().map_or("", |(v, _)| v.as_ref());
    let (tag, rest) = row_cells(cells, name);
    let fields: usize = values.iter().flatten().map(|(v, _)| v.len()).sum();
    // Built in its exact-size allocation: no copy through the decoder's scratch.
    let mut buf = Vec::with_capacity(fields + usize::from(tag.is_some()) + rest.len());
    let mut spans = [Span::NONE; SPANS];
    // The length of what `Object::json` writes: `{"key":"value",..}` in the wrapper.
    let (mut members, mut body) = (0, 0);
    for (i, (v, key)) in values.iter().zip(IDENTITY_KEYS).enumerate() {
        if let Some((v, json_len)) = v {
            spans[i] = Span {
                off: buf.len() as u32,
                len: v.len() as u32,
            };
            buf.extend_from_slice(v.as_bytes());
            members += 1;
            body += key.len() + 3 + json_len;
        }
    }
    let json = wrap.prefix().len() + 2 + body + members.max(1) - 1 + wrap.suffix().len();
    let off = buf.len();
    buf.extend(tag);
    buf.extend_from_slice(rest);
    if json.max(buf.len()) > u32::MAX as usize - 1 {
        return Err(DecodeError::TooLarge {
            limit: u32::MAX as usize - 1,
        });
    }
    Ok(Object {
        json_len: 0,
        raw_len: json as u32,
        spans,
        cols: ColData::Cells {
            off: off as u32,
            len: (buf.len() - off) as u32,
            wrap,
            fields: true,
        },
        buf: buf.into_boxed_slice(),
    })
}

/// Encoded cells as a row stores them: a first cell that is the object's name becomes
/// [`enc::NAME`] (the name is stored once); returns that tag, if so, and the rest.
fn row_cells<'c>(cells: &'c [u8], name: &str) -> (Option<u8>, &'c [u8]) {
    match enc::str_entry_len(cells, name.as_bytes()) {
        Some(first) => (Some(enc::NAME), &cells[first..]),
        None => (None, cells),
    }
}

/// The hits (sorted by position) that start within `a..e`.
fn hits_within(hits: &[KeyHit], a: usize, e: usize) -> &[KeyHit] {
    let from = hits.partition_point(|h| (h.at as usize) < a);
    let to = hits.partition_point(|h| (h.at as usize) < e);
    &hits[from..to.max(from)]
}

/// Builds the stored object from the document's `object` range (and, for a table
/// row, its `cells` range): the copy drops cuts and whitespace hits and replaces key
/// hits by tokens; the cells are copied without their whitespace, keys kept plain.
fn build(
    doc: &str,
    ((start, end), wrap): ((usize, usize), Wrap),
    cells: Option<&[u8]>,
    ex: &Extract,
    hits: &[KeyHit],
    kind: ColumnKind,
    scratch: &mut Vec<u8>,
) -> Result<Object, DecodeError> {
    // Hit positions are u32: a document past 4 GiB is stored as it came.
    let hits = if end <= u32::MAX as usize { hits } else { &[] };
    // A plain object's hits all lie within it; a row's own keys and conditions lie
    // outside its object.
    let hits = match cells {
        Some(_) => hits_within(hits, start, end),
        None => hits,
    };
    debug_assert!(hits.iter().all(|h| (start..end).contains(&(h.at as usize))));
    let cuts = &ex.cuts;
    let cut_total: usize = cuts.iter().map(|(a, b)| b - a).sum();
    let terminating = kind == ColumnKind::Pod && ex.deletion_timestamp.is_some();
    let status = if kind == ColumnKind::Pod && !terminating {
        [ex.container_reason, ex.reason, ex.phase]
            .into_iter()
            .flatten()
            .find(|s| s.end > s.start)
    } else {
        None
    };
    let node = ex
        .node
        .filter(|s| s.end > s.start && kind == ColumnKind::Pod);
    let fields: [Option<StrSpan>; SPANS] = [
        ex.name,
        ex.namespace,
        ex.uid,
        ex.resource_version,
        ex.creation_timestamp,
        ex.deletion_timestamp,
        node,
        status,
    ];
    // Bytes whitespace and tokens save (hits inside cut ranges are dropped with them):
    // `saved` counts both (a whitespace hit's token is empty), `ws` the whitespace.
    let (mut ws, mut saved) = (0usize, 0usize);
    let mut count = |h: &KeyHit| {
        saved += usize::from(h.plain - h.token_len);
        ws += usize::from(h.plain) * usize::from(h.is_ws());
    };
    if cuts.is_empty() {
        hits.iter().for_each(&mut count);
    } else {
        let mut ci = 0;
        for h in hits {
            let p = h.at as usize;
            while ci < cuts.len() && cuts[ci].1 <= p {
                ci += 1;
            }
            if ci < cuts.len() && cuts[ci].0 <= p {
                continue;
            }
            count(h);
        }
    }
    // The JSON the object stands for (compact), and what is stored of it.
    let stored_raw = end - start - cut_total - ws;
    let json_len = end - start - cut_total - saved;
    let raw_len = stored_raw + wrap.prefix().len() + wrap.suffix().len();
    let mut extra = 0usize;
    let mut decoded: [Option<Cow<'_, str>>; SPANS] = Default::default();
    for (f, d) in fields.iter().zip(decoded.iter_mut()) {
        if let Some(s) = f {
            if s.escaped {
                let v = unescape(&doc.as_bytes()[s.start..s.end]);
                extra += v.len();
                *d = Some(v);
            }
        }
    }
    let name = match (&decoded[NAME], ex.name) {
        (Some(d), _) => d.as_ref(),
        (None, Some(s)) => doc.get(s.start..s.end).unwrap_or(""),
        (None, None) => "",
    };
    let row_cells = cells.map(|c| row_cells(c, name));
    let cells_len = row_cells.map_or(0, |(tag, rest)| usize::from(tag.is_some()) + rest.len());
    let total = json_len + cells_len + extra;
    if raw_len.max(total) > u32::MAX as usize - 1 {
        return Err(DecodeError::TooLarge {
            limit: u32::MAX as usize - 1,
        });
    }
    // Unescaped fields are spans into the copied JSON: visit them in document order
    // while copying.
    let mut spans = [Span::NONE; SPANS];
    let mut order = [(usize::MAX, 0usize); SPANS];
    let mut n = 0;
    for (i, f) in fields.iter().enumerate() {
        if let (Some(f), None) = (f, &decoded[i]) {
            order[n] = (f.start, i);
            spans[i].len = (f.end - f.start) as u32;
            n += 1;
        }
    }
    order[..n].sort_unstable();
    // Copied into `scratch` (reused: never zeroed again once grown), then once into
    // the object's exact-size allocation.
    if scratch.len() < total + SLACK {
        scratch.resize(total + SLACK, 0);
    }
    let src = doc.as_bytes();
    let out = &mut scratch[..];
    let mut fm = FieldMap {
        order,
        next: 0,
        at: order[0].0,
        spans,
    };
    let mut o = 0usize;
    let mut at = start;
    let mut ci = 0;
    if cuts.is_empty() {
        (o, at) = copy_hits(out, src, hits, o, at, &mut fm);
    }
    for h in hits
        .iter()
        .take(if cuts.is_empty() { 0 } else { hits.len() })
    {
        let p = h.at as usize;
        while ci < cuts.len() && cuts[ci].0 <= p {
            let (a, b) = cuts[ci];
            if a > at {
                o = copy(out, o, src, at, a, &mut fm);
            }
            at = at.max(b);
            ci += 1;
        }
        if p < at {
            continue;
        }
        o = copy_hit(out, o, src, at, h, &mut fm);
        at = p + usize::from(h.plain);
    }
    for &(a, b) in &cuts[ci..] {
        if a > at {
            o = copy(out, o, src, at, a, &mut fm);
        }
        at = at.max(b);
    }
    o = copy(out, o, src, at, end, &mut fm);
    debug_assert_eq!(o, json_len);
    let cols = match (row_cells, kind) {
        (Some((tag, rest)), _) => {
            let off = o;
            if let Some(tag) = tag {
                if let Some(b) = out.get_mut(o) {
                    *b = tag;
                }
                o += 1;
            }
            if let Some(to) = out.get_mut(o..o + rest.len()) {
                to.copy_from_slice(rest);
            }
            o += rest.len();
            ColData::Cells {
                off: off as u32,
                len: cells_len as u32,
                wrap,
                fields: false,
            }
        }
        (None, ColumnKind::Generic) => ColData::Generic,
        (None, ColumnKind::Pod) => ColData::Pod {
            ready: ex.ready,
            containers: ex.containers,
            restarts: ex.restarts,
            terminating,
        },
        (None, ColumnKind::Deployment) => ColData::Deployment(DeploymentColumns {
            desired: sat(ex.replicas.unwrap_or(1)),
            ready: sat(ex.ready_replicas),
            up_to_date: sat(ex.updated_replicas),
            available: sat(ex.available_replicas),
        }),
    };
    debug_assert_eq!(o, json_len + cells_len);
    let mut spans = fm.spans;
    for (d, sp) in decoded.iter().zip(spans.iter_mut()) {
        if let Some(d) = d {
            *sp = Span {
                off: o as u32,
                len: d.len() as u32,
            };
            if let Some(to) = out.get_mut(o..o + d.len()) {
                to.copy_from_slice(d.as_bytes());
            }
            o += d.len();
        }
    }
    debug_assert_eq!(o, total);
    let buf: Box<[u8]> = out.get(..total).unwrap_or_default().into();
    if scratch.len() > SCRATCH_KEEP {
        // One huge object: do not hold its size for the rest of the stream.
        *scratch = Vec::new();
    }
    Ok(Object {
        buf,
        json_len: json_len as u32,
        raw_len: raw_len as u32,
        spans,
        cols,
    })
}

/// Slack past the end of the copy buffer: a short segment is copied as one
/// fixed-size move of sixteen bytes and its token as two (the excess is overwritten
/// by what follows), so no copy between keys is a `memcpy` call.
const SLACK: usize = 18;

/// A copy buffer larger than this is released after use.
const SCRATCH_KEEP: usize = 256 << 10;

/// Where the extracted fields land in the stored copy.
struct FieldMap {
    /// Fields to map, by position in the source (`usize::MAX` after the last).
    order: [(usize, usize); SPANS],
    next: usize,
    /// Position of the next field to map (usize::MAX: none left).
    at: usize,
    spans: [Span; SPANS],
}

impl FieldMap {
    /// Maps the fields that start in `src[a..b]`, copied to `o..`.
    #[inline(never)]
    fn map(&mut self, a: usize, b: usize, o: usize) {
        while self.at < b {
            let i = self.order[self.next].1;
            debug_assert!(self.at >= a);
            self.spans[i].off = (o + self.at.saturating_sub(a)) as u32;
            self.next += 1;
            self.at = self.order.get(self.next).map_or(usize::MAX, |f| f.0);
        }
    }
}

/// Copies `src[a..b]` to `out[o..]`; returns the new end.
#[inline(always)]
fn copy(out: &mut [u8], o: usize, src: &[u8], a: usize, b: usize, fm: &mut FieldMap) -> usize {
    if fm.at < b {
        fm.map(a, b, o);
    }
    let len = b.wrapping_sub(a);
    match (src.get(a..a + 16), out.get_mut(o..o + 16)) {
        (Some(from), Some(to)) if len <= 16 => to.copy_from_slice(from),
        _ => {
            if let (Some(from), Some(to)) = (src.get(a..b), out.get_mut(o..o + len)) {
                to.copy_from_slice(from);
            }
        }
    }
    o + len
}

/// Copies `src[a..h.at]` then the token of `h` to `out[o..]`; returns the new end.
#[inline(always)]
fn copy_hit(
    out: &mut [u8],
    o: usize,
    src: &[u8],
    a: usize,
    h: &KeyHit,
    fm: &mut FieldMap,
) -> usize {
    let p = h.at as usize;
    if fm.at < p {
        fm.map(a, p, o);
    }
    let len = p.wrapping_sub(a);
    let tl = usize::from(h.token_len);
    // The common case: up to sixteen bytes since the previous key, one move each.
    if let (Some(from), Some(to)) = (src.get(a..a + 16), out.get_mut(o..o + SLACK)) {
        if len <= 16 {
            to[..16].copy_from_slice(from);
            to[len..len + 2].copy_from_slice(&h.token);
            return o + len + tl;
        }
    }
    let o = copy(out, o, src, a, p, fm);
    if let Some(to) = out.get_mut(o..o + 2) {
        to.copy_from_slice(&h.token);
    }
    o + tl
}

/// Copies from `src[at..]` to `out[o..]` up to each of `hits` and its token; returns
/// the new ends `(o, at)`. The loop every stored object runs once per key.
#[inline(never)]
fn copy_hits(
    out: &mut [u8],
    src: &[u8],
    hits: &[KeyHit],
    mut o: usize,
    mut at: usize,
    fm: &mut FieldMap,
) -> (usize, usize) {
    for h in hits {
        o = copy_hit(out, o, src, at, h, fm);
        at = h.at as usize + usize::from(h.plain);
    }
    (o, at)
}

fn sat(v: u64) -> u32 {
    v.min(u64::from(u32::MAX)) as u32
}

/// A pending cut of dropped members (managedFields, or all but the identity ones):
/// where the first one's key starts, where its value ends, and
/// where the previous member's value ended (None if it is the first member).
struct PendingCut {
    key_start: usize,
    value_end: usize,
    prev_end: Option<usize>,
}

fn metadata(sc: &mut Scanner<'_>, ex: &mut Extract, opts: &ParseOptions) -> JResult<()> {
    if !sc.object_start()? {
        return Ok(());
    }
    let b = sc.b;
    let mut first = true;
    let mut prev_end: Option<usize> = None;
    let mut pending: Option<PendingCut> = None;
    while let Some(k) = sc.next_key(&mut first)? {
        let key_start = k.start - 1;
        let kb = key(b, k);
        let slot = identity_slot(ex, kb.as_ref());
        let drop = opts
            .metadata
            .drops(kb.as_ref(), slot.is_some(), opts.strip_managed_fields);
        match slot {
            Some(slot) => *slot = sc.opt_string()?,
            None if drop => sc.value_dropped()?,
            None => sc.value()?,
        }
        // A run of dropped members ends at this kept one: cut up to its key.
        if let Some(p) = pending.take() {
            if drop {
                pending = Some(p);
            } else {
                ex.cuts.push((p.key_start, key_start));
            }
        }
        if drop {
            match &mut pending {
                Some(p) => p.value_end = sc.i,
                None => {
                    pending = Some(PendingCut {
                        key_start,
                        value_end: sc.i,
                        prev_end,
                    })
                }
            }
        }
        prev_end = Some(sc.i);
    }
    if let Some(p) = pending {
        match p.prev_end {
            Some(pe) => ex.cuts.push((pe, p.value_end)),
            None => ex.cuts.push((p.key_start, p.value_end)),
        }
    }
    Ok(())
}

fn pod_spec(sc: &mut Scanner<'_>, ex: &mut Extract) -> JResult<()> {
    if !sc.object_start()? {
        return Ok(());
    }
    let b = sc.b;
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        match key(b, k).as_ref() {
            b"nodeName" => ex.node = sc.opt_string()?,
            b"containers" => {
                let mut n: u16 = 0;
                if sc.array_start()? {
                    let mut first = true;
                    while sc.next_elem(&mut first)? {
                        sc.value()?;
                        n = n.saturating_add(1);
                    }
                }
                ex.containers = n;
            }
            _ => sc.value()?,
        }
    }
    Ok(())
}

fn pod_status(sc: &mut Scanner<'_>, ex: &mut Extract) -> JResult<()> {
    if !sc.object_start()? {
        return Ok(());
    }
    let b = sc.b;
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        match key(b, k).as_ref() {
            b"phase" => ex.phase = sc.opt_string()?,
            b"reason" => ex.reason = sc.opt_string()?,
            b"containerStatuses" => {
                ex.ready = 0;
                ex.restarts = 0;
                ex.container_reason = None;
                if sc.array_start()? {
                    let mut first = true;
                    while sc.next_elem(&mut first)? {
                        container_status(sc, ex)?;
                    }
                }
            }
            _ => sc.value()?,
        }
    }
    Ok(())
}

fn container_status(sc: &mut Scanner<'_>, ex: &mut Extract) -> JResult<()> {
    if !sc.object_start()? {
        return Ok(());
    }
    let b = sc.b;
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        match key(b, k).as_ref() {
            b"ready" => {
                if sc.boolean()? == Some(true) {
                    ex.ready = ex.ready.saturating_add(1);
                }
            }
            b"restartCount" => {
                let n = sc.uint()?.unwrap_or(0);
                ex.restarts = ex.restarts.saturating_add(sat(n));
            }
            b"state" if sc.object_start()? => {
                let mut first = true;
                while let Some(k) = sc.next_key(&mut first)? {
                    let kb = key(b, k);
                    if matches!(kb.as_ref(), b"waiting" | b"terminated") && sc.object_start()? {
                        let mut first = true;
                        while let Some(k) = sc.next_key(&mut first)? {
                            if key(b, k).as_ref() == b"reason" {
                                let r = sc.opt_string()?;
                                if ex.container_reason.is_none() {
                                    ex.container_reason = r.filter(|r| r.end > r.start);
                                }
                            } else {
                                sc.value()?;
                            }
                        }
                    } else if !matches!(kb.as_ref(), b"waiting" | b"terminated") {
                        sc.value()?;
                    }
                }
            }
            b"state" => {}
            _ => sc.value()?,
        }
    }
    Ok(())
}

fn deployment_spec(sc: &mut Scanner<'_>, ex: &mut Extract) -> JResult<()> {
    if !sc.object_start()? {
        return Ok(());
    }
    let b = sc.b;
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        match key(b, k).as_ref() {
            b"replicas" => ex.replicas = sc.uint()?,
            _ => sc.value()?,
        }
    }
    Ok(())
}

fn deployment_status(sc: &mut Scanner<'_>, ex: &mut Extract) -> JResult<()> {
    if !sc.object_start()? {
        return Ok(());
    }
    let b = sc.b;
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        match key(b, k).as_ref() {
            b"readyReplicas" => ex.ready_replicas = sc.uint()?.unwrap_or(0),
            b"updatedReplicas" => ex.updated_replicas = sc.uint()?.unwrap_or(0),
            b"availableReplicas" => ex.available_replicas = sc.uint()?.unwrap_or(0),
            _ => sc.value()?,
        }
    }
    Ok(())
}

/// What a BOOKMARK's object says.
#[derive(Default)]
struct BookmarkFields {
    rv: Option<String>,
    end_mark: bool,
}

/// Walks a bookmark object (or a converted bookmark's row object): its
/// `metadata.resourceVersion` and initial-events-end annotation; with `tk`, also the
/// top-level Table markers.
fn bookmark_object(
    sc: &mut Scanner<'_>,
    f: &mut BookmarkFields,
    mut tk: Option<&mut TableKeys>,
) -> Result<(), DecodeError> {
    let b = sc.b;
    if !sc.object_start()? {
        return Ok(());
    }
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        let k = key(b, k);
        match (k.as_ref(), tk.as_deref_mut()) {
            (b"metadata", _) => bookmark_metadata(sc, f)?,
            (b"kind", Some(tk)) => {
                tk.kind_table = sc
                    .opt_string()?
                    .is_some_and(|s| &b[s.start..s.end] == b"Table")
            }
            (b"apiVersion", Some(tk)) => {
                tk.meta_api = sc
                    .opt_string()?
                    .is_some_and(|s| b[s.start..s.end].starts_with(b"meta.k8s.io/"))
            }
            (b"rows", Some(tk)) => {
                sc.ws();
                tk.rows = Some(sc.i);
                sc.value()?;
            }
            (b"columnDefinitions", Some(tk)) => {
                sc.ws();
                let at = sc.i;
                sc.value()?;
                tk.columns = Some((at, sc.i));
            }
            _ => sc.value()?,
        }
    }
    Ok(())
}

fn bookmark_metadata(sc: &mut Scanner<'_>, f: &mut BookmarkFields) -> Result<(), DecodeError> {
    let b = sc.b;
    if !sc.object_start()? {
        return Ok(());
    }
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        match key(b, k).as_ref() {
            b"resourceVersion" => {
                f.rv = sc
                    .opt_string()?
                    .map(|s| unescape(&b[s.start..s.end]).into_owned())
            }
            b"annotations" if sc.object_start()? => {
                let mut first = true;
                while let Some(k) = sc.next_key(&mut first)? {
                    if key(b, k).as_ref() == b"k8s.io/initial-events-end" {
                        f.end_mark = match sc.opt_string()? {
                            Some(v) => &b[v.start..v.end] == b"true",
                            None => false,
                        };
                    } else {
                        sc.value()?;
                    }
                }
            }
            b"annotations" => {}
            _ => sc.value()?,
        }
    }
    Ok(())
}

/// A BOOKMARK's object: `metadata.resourceVersion` and the initial-events-end mark.
/// A converted bookmark (a Table of one row, in table mode) carries them in its row's
/// object, and may bring the watch's column definitions (into `columns`).
pub(crate) fn parse_bookmark(
    sc: &mut Scanner<'_>,
    columns: &mut Option<Vec<TableColumn>>,
) -> Result<(String, bool), DecodeError> {
    let mut top = BookmarkFields::default();
    let mut tk = TableKeys::default();
    bookmark_object(sc, &mut top, Some(&mut tk))?;
    let f = if tk.is_table() {
        *columns = table_columns(sc.b, &tk)?;
        let end = sc.i;
        let mut row = BookmarkFields::default();
        if let Some(rows) = tk.rows {
            sc.i = rows;
            let mut first = true;
            if sc.array_start()? && sc.next_elem(&mut first)? && sc.object_start()? {
                let b = sc.b;
                let mut first = true;
                while let Some(k) = sc.next_key(&mut first)? {
                    if key(b, k).as_ref() == b"object" {
                        bookmark_object(sc, &mut row, None)?;
                    } else {
                        sc.value()?;
                    }
                }
            }
        }
        sc.i = end;
        // The table's own metadata carries the row object's version too.
        BookmarkFields {
            rv: row.rv.or(top.rv),
            end_mark: row.end_mark,
        }
    } else {
        top
    };
    match f.rv {
        Some(rv) => Ok((rv, f.end_mark)),
        None => Err(DecodeError::MissingField {
            field: "metadata.resourceVersion",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::{WatchDecoder, WatchFrame};
    use crate::Limits;

    fn objects_of(stream: &str, opts: ParseOptions) -> Vec<Object> {
        let mut dec = WatchDecoder::new(Limits::default(), opts);
        let mut frames = Vec::new();
        dec.feed(stream.as_bytes(), &mut frames).unwrap();
        dec.finish(&mut frames).unwrap();
        frames
            .into_iter()
            .map(|f| match f {
                WatchFrame::Added(o) => o,
                f => panic!("{f:?}"),
            })
            .collect()
    }

    /// `KeptMetadata::Identity` keeps exactly the identity members, wherever the
    /// dropped ones stand (first, last, in runs, all of them) and in either strip mode.
    #[test]
    fn identity_metadata_keeps_only_identity_members_in_any_order() {
        let members = [
            r#""name":"web-1""#,
            r#""namespace":"ns""#,
            r#""uid":"u-1""#,
            r#""resourceVersion":"42""#,
            r#""creationTimestamp":"2026-01-01T00:00:00Z""#,
            r#""deletionTimestamp":"2026-01-02T00:00:00Z""#,
            r#""labels":{"app":"web","tier":"a,b"}"#,
            r#""annotations":{"k8s.io/x":"{\"y\":[1,2]}"}"#,
            r#""ownerReferences":[{"kind":"ReplicaSet","name":"rs"}]"#,
            r#""generateName":"web-""#,
            r#""managedFields":[{"manager":"m","fieldsV1":{"f:a":{}}}]"#,
            r#""finalizers":["x"]"#,
        ];
        let mut seed = 7u64;
        for round in 0..300 {
            let mut order: Vec<usize> = (0..members.len()).collect();
            for i in (1..order.len()).rev() {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                order.swap(i, (seed >> 33) as usize % (i + 1));
            }
            // Some rounds have only some members, down to the two required ones.
            let keep = if round % 3 == 0 {
                order.len()
            } else {
                1 + round % order.len()
            };
            // name and resourceVersion are required of every object.
            let mut kept: Vec<usize> = order[..keep].to_vec();
            for must in [0, 3] {
                if !kept.contains(&must) {
                    kept.insert(round % (kept.len() + 1), must);
                }
            }
            let meta: Vec<&str> = kept.iter().map(|&i| members[i]).collect();
            let doc = format!(
                r#"{{"kind":"Pod","metadata":{{{}}},"spec":{{"nodeName":"n1"}}}}"#,
                meta.join(",")
            );
            for strip in [false, true] {
                let opts = ParseOptions {
                    metadata: KeptMetadata::Identity,
                    strip_managed_fields: strip,
                    columns: ColumnKind::Pod,
                };
                let stream = format!("{{\"type\":\"ADDED\",\"object\":{doc}}}\n");
                let o = objects_of(&stream, opts).remove(0);
                let mut want: serde_json::Value = serde_json::from_str(&doc).unwrap();
                want["metadata"].as_object_mut().unwrap().retain(|k, _| {
                    matches!(
                        k.as_str(),
                        "name"
                            | "namespace"
                            | "uid"
                            | "resourceVersion"
                            | "creationTimestamp"
                            | "deletionTimestamp"
                    )
                });
                let got: serde_json::Value = serde_json::from_slice(&o.json()).unwrap();
                assert_eq!(got, want, "{doc}");
                assert_eq!(o.name(), want["metadata"]["name"].as_str().unwrap_or(""));
                assert_eq!(o.uid(), want["metadata"]["uid"].as_str().unwrap_or(""));
                assert!(o.labels().is_empty() && o.annotations().is_empty());
                assert_eq!(
                    o.columns(),
                    Object::parse(
                        doc.as_bytes(),
                        &ParseOptions {
                            metadata: KeptMetadata::All,
                            ..opts
                        }
                    )
                    .unwrap()
                    .columns()
                );
            }
        }
    }

    /// A `PartialObjectMetadata` row kept with identity metadata stores the members'
    /// values and the cells only: what it gives back is the same, as JSON values, as
    /// what a row kept whole gives, for every subset and order of the members, escaped
    /// values, `null` members, both wrapper versions, and a first cell that is the name
    /// or is not.
    #[test]
    fn identity_rows_give_back_what_whole_rows_give() {
        let members = [
            r#""name":"web-1""#,
            r#""namespace":"n\u0073-\"q\"""#,
            r#""uid":"0b1c""#,
            r#""resourceVersion":"42""#,
            r#""creationTimestamp":"2025-01-01T00:00:00Z""#,
            r#""deletionTimestamp":null"#,
            r#""deletionTimestamp":"2025-01-02T00:00:00Z""#,
            r#""labels":{"a":"b"}"#,
            r#""generateName":"web-""#,
        ];
        let cells = [
            r#"["web-1","1/1","\u003cnone\u003e",3,null]"#,
            r#"["web-2","x"]"#,
            r#"[7,"web-1"]"#,
            r#"["web-1"]"#,
            r#"[]"#,
        ];
        let whole = ParseOptions {
            metadata: KeptMetadata::All,
            strip_managed_fields: true,
            columns: ColumnKind::Generic,
        };
        let identity = ParseOptions {
            metadata: KeptMetadata::Identity,
            ..whole
        };
        for round in 0..200usize {
            let mut kept: Vec<&str> = (0..members.len())
                .filter(|i| (round * 7 + i * 3) % 5 != 0 || *i == 0 || *i == 3)
                .map(|i| members[i])
                .collect();
            let n = kept.len();
            kept.rotate_left(round % n);
            if kept
                .iter()
                .filter(|m| m.contains("deletionTimestamp"))
                .count()
                > 1
            {
                kept.retain(|m| !m.contains(r#""deletionTimestamp":null"#));
            }
            let version = if round % 2 == 0 { "v1" } else { "v1beta1" };
            let row = format!(
                r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{}},"columnDefinitions":null,"rows":[{{"cells":{},"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/{version}","metadata":{{{}}}}}}}]}}"#,
                cells[round % cells.len()],
                kept.join(",")
            );
            let stream = format!("{{\"type\":\"ADDED\",\"object\":{row}}}\n");
            let a = objects_of(&stream, whole).remove(0);
            let b = objects_of(&stream, identity).remove(0);
            let mut want: serde_json::Value = serde_json::from_slice(&a.json()).unwrap();
            want["metadata"]
                .as_object_mut()
                .unwrap()
                .retain(|k, v| IDENTITY_KEYS.contains(&k.as_str()) && !v.is_null());
            let got: serde_json::Value = serde_json::from_slice(&b.json()).unwrap();
            assert_eq!(got, want, "{row}");
            assert_eq!(b.json().len(), b.json_len(), "{row}");
            let mut written = Vec::new();
            b.write_json(&mut written);
            assert_eq!(written, b.json().as_ref());
            for (x, y) in [
                (a.name(), b.name()),
                (a.namespace(), b.namespace()),
                (a.uid(), b.uid()),
                (a.resource_version(), b.resource_version()),
            ] {
                assert_eq!(x, y, "{row}");
            }
            assert_eq!(a.creation_timestamp(), b.creation_timestamp());
            assert_eq!(a.deletion_timestamp(), b.deletion_timestamp());
            if kept.iter().any(|m| m.starts_with(r#""namespace""#)) {
                assert_eq!(b.namespace(), "ns-\"q\"");
            }
            let cells_of = |o: &Object| -> serde_json::Value {
                serde_json::from_str(&o.cells_json().unwrap()).unwrap()
            };
            let sent: serde_json::Value = serde_json::from_str(cells[round % cells.len()]).unwrap();
            assert_eq!(cells_of(&a), sent);
            assert_eq!(cells_of(&b), sent);
            assert!(a.cells().unwrap().eq(b.cells().unwrap()));
            assert!(b.heap_bytes() < a.heap_bytes(), "{row}");
        }
    }

    /// Gaps of every length around the sixteen-byte copy step between dictionary
    /// keys (one- and two-byte tokens), between a key and the end, and objects of
    /// very different sizes one after the other through the same reused buffer.
    #[test]
    fn stored_copy_round_trips_at_every_gap() {
        for strip in [false, true] {
            let opts = ParseOptions {
                metadata: crate::object::KeptMetadata::All,
                strip_managed_fields: strip,
                columns: ColumnKind::Pod,
            };
            let mut docs = Vec::new();
            for pad in 0..40 {
                let p = "p".repeat(pad);
                docs.push(format!(
                    r#"{{"kind":"{p}","apiVersion":"v1","metadata":{{"name":"n{p}","resourceVersion":"1","managedFields":[{{"manager":"{p}"}}],"uid":"u"}},"x{p}":1,"spec":{{"nodeName":"{p}","allowPrivilegeEscalation":{pad}}},"z":"{p}"}}"#
                ));
            }
            // A large object (past the buffer kept between documents), then small ones.
            let big = "q".repeat(300 << 10);
            docs.insert(
                3,
                format!(r#"{{"metadata":{{"name":"big","resourceVersion":"2"}},"data":{{"k":"{big}"}}}}"#),
            );
            let stream: String = docs
                .iter()
                .map(|d| format!("{{\"type\":\"ADDED\",\"object\":{d}}}\n"))
                .collect();
            let objs = objects_of(&stream, opts);
            assert_eq!(objs.len(), docs.len());
            for (o, d) in objs.iter().zip(&docs) {
                let want = if strip {
                    let v: serde_json::Value = serde_json::from_str(d).unwrap();
                    let mut v = v;
                    if let Some(m) = v["metadata"].as_object_mut() {
                        m.remove("managedFields");
                    }
                    serde_json::to_string(&v).unwrap()
                } else {
                    d.clone()
                };
                let got: serde_json::Value = serde_json::from_slice(&o.json()).unwrap();
                let want_v: serde_json::Value = serde_json::from_str(&want).unwrap();
                assert_eq!(got, want_v, "{d}");
                if !strip {
                    assert_eq!(o.json().as_ref(), d.as_bytes());
                }
                assert_eq!(o.json_len(), o.json().len());
                assert!(o.name().starts_with('n') || o.name() == "big");
                assert!(o.heap_bytes() < d.len() + 200);
            }
        }
    }
}
