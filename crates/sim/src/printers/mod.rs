//! Server-side printing (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`), as
//! kube-apiserver does it: the built-in printers' columns and cells
//! (`pkg/printers/internalversion/printers.go`), the default convertor for everything else
//! (`staging/src/k8s.io/apiserver/pkg/registry/rest/table.go`), a CRD's
//! `additionalPrinterColumns` (`apiextensions-apiserver/.../tableconvertor/tableconvertor.go`),
//! and the `meta.k8s.io/v1` Table documents for lists and watches
//! (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go`, `watch.go`).
//!
//! Designed for a store that keeps one printed [`Row`] per object version:
//! * [`TableConvertor::row`] reads the object once (the expensive part) and returns cells;
//!   time-dependent cells (`Age`, `Last Seen`, `3 (5m ago)`) stay symbolic ([`Cell::Since`]).
//! * The writers render rows at serve time for a given `now`: a list page
//!   ([`TableListWriter`]), a watch event ([`WatchTableEncoder`]), a single object
//!   ([`write_object_table`]). They take the object's JSON text (the object exactly as it
//!   would be sent, with `kind` and `apiVersion`) only to embed it or its metadata, per
//!   `includeObject`.
//!
//! Like the apiserver (`pkg/printers/storage/storage.go`: `GenerateOptions{Wide: true}`),
//! rows always carry every column, priority > 0 included; clients hide the wide ones.
//! All JSON is written as Go's `encoding/json` writes it ([`gojson`]).

mod builtin;
mod clock;
mod crd;
pub mod gojson;

use std::fmt::Write as _;

use serde_json::Value;

pub use clock::{format_rfc3339, human_duration, parse_rfc3339_ms};
pub use crd::CrdColumnError;
use gojson::{top_level_field, top_level_str, write_object_meta, write_str, ScanError};

/// One column as the Table's `columnDefinitions` declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    /// OpenAPI type: `string`, `integer`, `number`, `boolean`, `date`.
    pub type_: String,
    /// `name` for the name column, `""` otherwise (CRDs may declare others).
    pub format: String,
    pub description: String,
    /// 0: shown by default; > 0: `-o wide` only.
    pub priority: i32,
}

impl Column {
    fn write_json(&self, out: &mut String) {
        out.push_str("{\"name\":");
        write_str(out, &self.name);
        out.push_str(",\"type\":");
        write_str(out, &self.type_);
        out.push_str(",\"format\":");
        write_str(out, &self.format);
        out.push_str(",\"description\":");
        write_str(out, &self.description);
        let _ = write!(out, ",\"priority\":{}}}", self.priority);
    }
}

/// One cell. The time-dependent kinds are rendered against `now` when written.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Box<str>),
    /// `HumanDuration(now - unix_ms)`: Age, Last Seen, a CRD `date` column.
    Since {
        unix_ms: i64,
    },
    /// A pod's restarts with the time of the last one: `"3 (5m ago)"`.
    RestartsSince {
        count: i64,
        unix_ms: i64,
    },
}

impl Cell {
    fn str(s: impl Into<Box<str>>) -> Cell {
        Cell::Str(s.into())
    }

    /// `Since` for a known time, `"<unknown>"` for an unset one (`translateTimestampSince`).
    fn since(unix_ms: Option<i64>) -> Cell {
        match unix_ms {
            Some(unix_ms) => Cell::Since { unix_ms },
            None => Cell::str("<unknown>"),
        }
    }

    /// Appends the cell's JSON value as of `now_unix_ms`.
    pub fn write_json(&self, now_unix_ms: i64, out: &mut String) {
        match self {
            Cell::Null => out.push_str("null"),
            Cell::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Cell::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Cell::Float(f) => gojson::write_f64(out, *f),
            Cell::Str(s) => write_str(out, s),
            Cell::Since { .. } | Cell::RestartsSince { .. } => {
                write_str(out, &self.text(now_unix_ms))
            }
        }
    }

    /// The cell as kubectl prints it (strings unquoted, `null` as `<none>` like kubectl).
    pub fn text(&self, now_unix_ms: i64) -> String {
        match self {
            Cell::Null => "<none>".into(),
            Cell::Bool(b) => b.to_string(),
            Cell::Int(i) => i.to_string(),
            Cell::Float(f) => gojson::fmt_v_float(*f),
            Cell::Str(s) => s.to_string(),
            Cell::Since { unix_ms } => human_duration(now_unix_ms - unix_ms),
            Cell::RestartsSince { count, unix_ms } => {
                format!("{count} ({} ago)", human_duration(now_unix_ms - unix_ms))
            }
        }
    }
}

/// A row's `Completed` condition (the pod printer sets it for finished pods).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    Succeeded,
    Failed,
}

impl Completion {
    fn write_json(self, out: &mut String) {
        out.push_str(match self {
            Completion::Succeeded => "[{\"type\":\"Completed\",\"status\":\"True\",\"reason\":\"Succeeded\",\"message\":\"The pod has completed successfully.\"}]",
            Completion::Failed => "[{\"type\":\"Completed\",\"status\":\"True\",\"reason\":\"Failed\",\"message\":\"The pod failed.\"}]",
        });
    }
}

/// One object's printed row, computed once per object version.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub cells: Vec<Cell>,
    pub completed: Option<Completion>,
}

impl Row {
    /// Appends `[cell, ...]` as of `now_unix_ms`.
    pub fn write_cells_json(&self, now_unix_ms: i64, out: &mut String) {
        out.push('[');
        for (i, c) in self.cells.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            c.write_json(now_unix_ms, out);
        }
        out.push(']');
    }

    /// The cells as kubectl prints them.
    pub fn texts(&self, now_unix_ms: i64) -> Vec<String> {
        self.cells.iter().map(|c| c.text(now_unix_ms)).collect()
    }

    /// Bytes the row holds on the heap (its cells and their strings).
    pub fn heap_bytes(&self) -> usize {
        self.cells.capacity() * std::mem::size_of::<Cell>()
            + self
                .cells
                .iter()
                .map(|c| match c {
                    Cell::Str(s) => s.len(),
                    _ => 0,
                })
                .sum::<usize>()
    }
}

/// `meta.k8s.io/v1` or the older `meta.k8s.io/v1beta1` (same shape; kubectl asks for both).
pub use crate::negotiate::TableVersion;

/// The `includeObject` query parameter: what each row's `object` carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IncludeObject {
    /// `"object":null`.
    None,
    /// A `PartialObjectMetadata` with the object's whole metadata (managedFields too).
    #[default]
    Metadata,
    /// The whole object.
    Object,
}

impl IncludeObject {
    /// Parses the query value (absent or empty: `Metadata`). The error is the message of the
    /// apiserver's 400 (`optionsForTransform` + `ValidateTableOptions`).
    pub fn from_query(value: Option<&str>) -> Result<IncludeObject, String> {
        match value.unwrap_or("") {
            "" | "Metadata" => Ok(IncludeObject::Metadata),
            "None" => Ok(IncludeObject::None),
            "Object" => Ok(IncludeObject::Object),
            other => Err(format!(
                "Unable to convert to Table as requested: includeObject: Unsupported value: {}: supported values: \"Metadata\", \"None\", \"Object\"",
                gojson::quote(other)
            )),
        }
    }
}

/// What a Table answer looks like: its version and what rows carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableFormat {
    pub version: TableVersion,
    pub include: IncludeObject,
}

impl Default for TableFormat {
    fn default() -> Self {
        TableFormat {
            version: TableVersion::V1,
            include: IncludeObject::Metadata,
        }
    }
}

/// The list metadata of a Table list answer (copied from the list it converts).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListMeta<'a> {
    pub resource_version: &'a str,
    /// `""` when there is no next page.
    pub continue_token: &'a str,
    pub remaining_item_count: Option<i64>,
}

impl ListMeta<'_> {
    fn write_json(&self, out: &mut String) {
        out.push('{');
        let mut sep = "";
        if !self.resource_version.is_empty() {
            out.push_str("\"resourceVersion\":");
            write_str(out, self.resource_version);
            sep = ",";
        }
        if !self.continue_token.is_empty() {
            out.push_str(sep);
            out.push_str("\"continue\":");
            write_str(out, self.continue_token);
            sep = ",";
        }
        if let Some(n) = self.remaining_item_count {
            let _ = write!(out, "{sep}\"remainingItemCount\":{n}");
        }
        out.push('}');
    }
}

/// Why a row could not be written (the object text is not a JSON object).
#[derive(Debug)]
pub enum TableError {
    Scan(ScanError),
    Json(serde_json::Error),
}

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TableError::Scan(e) => write!(f, "malformed object: {e}"),
            TableError::Json(e) => write!(f, "malformed object: {e}"),
        }
    }
}

impl std::error::Error for TableError {}

impl From<ScanError> for TableError {
    fn from(e: ScanError) -> Self {
        TableError::Scan(e)
    }
}

impl From<serde_json::Error> for TableError {
    fn from(e: serde_json::Error) -> Self {
        TableError::Json(e)
    }
}

/// Which printer a convertor uses.
#[derive(Debug, Clone)]
enum Printer {
    Builtin(builtin::Kind),
    /// `rest.NewDefaultTableConvertor`: Name, Created At.
    Default,
    /// A CRD's columns (Name first).
    Custom(Vec<crd::JsonPath>),
}

/// The columns and the printer of one resource, like the apiserver's `TableConvertor`.
#[derive(Debug, Clone)]
pub struct TableConvertor {
    columns: Vec<Column>,
    printer: Printer,
}

impl TableConvertor {
    /// The convertor kube-apiserver uses for `group`/`kind`: a built-in printer for Pod,
    /// Deployment, ReplicaSet, Service, Node, Namespace, ConfigMap, Secret, core Event, Lease,
    /// Job and PersistentVolumeClaim (the newest release's), CronJob and StatefulSet, else the
    /// default convertor. (CRDs: [`TableConvertor::for_crd`].)
    pub fn for_kind(group: &str, kind: &str) -> TableConvertor {
        match builtin::Kind::of(group, kind) {
            Some(k) => TableConvertor::builtin(k),
            None => TableConvertor::default_convertor(),
        }
    }

    /// [`for_kind`](Self::for_kind) as release `release` prints: where a printer's columns
    /// changed between releases (Job: Status from 1.30; PersistentVolumeClaim:
    /// VolumeAttributesClass from 1.29), that release's.
    pub fn for_kind_in(
        group: &str,
        kind: &str,
        release: crate::release::Release,
    ) -> TableConvertor {
        match builtin::Kind::of(group, kind) {
            Some(k) => TableConvertor::builtin(k.in_release(release)),
            None => TableConvertor::default_convertor(),
        }
    }

    fn builtin(k: builtin::Kind) -> TableConvertor {
        TableConvertor {
            columns: k.columns(),
            printer: Printer::Builtin(k),
        }
    }

    /// The default convertor: `Name` and `Created At` (`rest/table.go`).
    pub fn default_convertor() -> TableConvertor {
        TableConvertor {
            columns: builtin::default_columns(),
            printer: Printer::Default,
        }
    }

    /// The convertor of version `version` of a CustomResourceDefinition (its JSON): `Name`,
    /// then `additionalPrinterColumns`, or `Age` when none are declared
    /// (`serveDefaultColumnsIfEmpty`).
    pub fn for_crd(crd: &Value, version: &str) -> Result<TableConvertor, CrdColumnError> {
        let (columns, paths) = crd::columns_for_version(crd, version)?;
        Ok(TableConvertor {
            columns,
            printer: Printer::Custom(paths),
        })
    }

    /// The column definitions (all priorities).
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// Prints one object (its decoded JSON). Missing fields read as Go's zero values, so any
    /// JSON object (a bookmark's empty object too) gives a row of the right width.
    pub fn row(&self, obj: &Value) -> Row {
        match &self.printer {
            Printer::Builtin(k) => k.row(obj),
            Printer::Default => builtin::default_row(obj),
            Printer::Custom(paths) => crd::row(&self.columns, paths, obj),
        }
    }

    /// [`row`](Self::row) of an object given as JSON text.
    pub fn row_from_json(&self, json: &str) -> Result<Row, serde_json::Error> {
        Ok(self.row(&serde_json::from_str(json)?))
    }

    /// Objects of custom resources are not typed Go structs: their `PartialObjectMetadata`
    /// is the metadata re-encoded as a typed `ObjectMeta` (struct field order).
    fn metadata_style(&self) -> MetaStyle {
        match self.printer {
            Printer::Custom(_) => MetaStyle::Typed,
            _ => MetaStyle::Verbatim,
        }
    }

    fn write_columns(&self, out: &mut String) {
        out.push('[');
        for (i, c) in self.columns.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            c.write_json(out);
        }
        out.push(']');
    }
}

/// How a row's `PartialObjectMetadata` gets its metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MetaStyle {
    /// The object's own `metadata` text, as the model stores it (typed kinds: Go order).
    Verbatim,
    /// Decoded and re-encoded as a typed `metav1.ObjectMeta`.
    Typed,
}

/// The object a row is printed from, as the Table writers need it: its metadata (rows with
/// `includeObject=Metadata`), the whole object (`Object`), its resourceVersion (a one-row
/// table's metadata). An object's JSON text (`str`) is one; the sim's stored objects are
/// another, writing only the part asked for.
pub trait RowObject {
    /// Appends the object's `metadata` object as the object carries it; `Ok(false)` (nothing
    /// written) when it has none.
    fn write_metadata(&self, out: &mut String) -> Result<bool, TableError>;
    /// Appends the whole object as it would be sent (`kind` and `apiVersion` included).
    fn write_object(&self, out: &mut String) -> Result<(), TableError>;
    /// `metadata.resourceVersion`, if set.
    fn resource_version(&self) -> Result<Option<String>, TableError>;
    /// Refuses what cannot be a row's object before anything is written.
    fn check(&self) -> Result<(), TableError> {
        Ok(())
    }
}

impl RowObject for str {
    fn write_metadata(&self, out: &mut String) -> Result<bool, TableError> {
        match top_level_field(self, "metadata")? {
            Some(m) if m.starts_with('{') => {
                out.push_str(m);
                Ok(true)
            }
            _ => Ok(false),
        }
    }
    fn write_object(&self, out: &mut String) -> Result<(), TableError> {
        out.push_str(self.trim());
        Ok(())
    }
    fn resource_version(&self) -> Result<Option<String>, TableError> {
        match top_level_field(self, "metadata")? {
            Some(m) if m.starts_with('{') => Ok(top_level_str(m, "resourceVersion")?),
            _ => Ok(None),
        }
    }
    fn check(&self) -> Result<(), TableError> {
        if self.trim_start().starts_with('{') {
            Ok(())
        } else {
            Err(ScanError("the object is not a JSON object").into())
        }
    }
}

impl RowObject for String {
    fn write_metadata(&self, out: &mut String) -> Result<bool, TableError> {
        self.as_str().write_metadata(out)
    }
    fn write_object(&self, out: &mut String) -> Result<(), TableError> {
        self.as_str().write_object(out)
    }
    fn resource_version(&self) -> Result<Option<String>, TableError> {
        self.as_str().resource_version()
    }
    fn check(&self) -> Result<(), TableError> {
        self.as_str().check()
    }
}

impl<T: RowObject + ?Sized> RowObject for &T {
    fn write_metadata(&self, out: &mut String) -> Result<bool, TableError> {
        (**self).write_metadata(out)
    }
    fn write_object(&self, out: &mut String) -> Result<(), TableError> {
        (**self).write_object(out)
    }
    fn resource_version(&self) -> Result<Option<String>, TableError> {
        (**self).resource_version()
    }
    fn check(&self) -> Result<(), TableError> {
        (**self).check()
    }
}

/// Appends one `TableRow`: `{"cells":[..],"conditions":[..],"object":..}`.
fn write_row<O: RowObject + ?Sized>(
    out: &mut String,
    format: TableFormat,
    style: MetaStyle,
    row: &Row,
    object: &O,
    now_unix_ms: i64,
) -> Result<(), TableError> {
    object.check()?;
    out.push_str("{\"cells\":");
    row.write_cells_json(now_unix_ms, out);
    if let Some(c) = row.completed {
        out.push_str(",\"conditions\":");
        c.write_json(out);
    }
    out.push_str(",\"object\":");
    match format.include {
        IncludeObject::None => out.push_str("null"),
        IncludeObject::Object => object.write_object(out)?,
        IncludeObject::Metadata => {
            out.push_str("{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"");
            out.push_str(format.version.api_version());
            out.push_str("\",\"metadata\":");
            match style {
                MetaStyle::Verbatim => {
                    if !object.write_metadata(out)? {
                        // No metadata: a zero ObjectMeta.
                        out.push_str("{\"creationTimestamp\":null}");
                    }
                }
                MetaStyle::Typed => {
                    let mut text = String::new();
                    if object.write_metadata(&mut text)? {
                        write_object_meta(out, &serde_json::from_str::<Value>(&text)?);
                    } else {
                        out.push_str("{\"creationTimestamp\":null}");
                    }
                }
            }
            out.push('}');
        }
    }
    out.push('}');
    Ok(())
}

/// Writes a Table list answer page by page, row by row, into the caller's buffer
/// (`{"kind":"Table",...,"rows":[` ... `]}`), so a page is never held twice.
#[derive(Debug)]
pub struct TableListWriter<'c> {
    convertor: &'c TableConvertor,
    format: TableFormat,
    rows: usize,
}

impl<'c> TableListWriter<'c> {
    /// Writes the head: kind, apiVersion, metadata, columnDefinitions, and opens `rows`.
    pub fn begin(
        out: &mut String,
        convertor: &'c TableConvertor,
        format: TableFormat,
        meta: &ListMeta<'_>,
    ) -> Self {
        out.push_str("{\"kind\":\"Table\",\"apiVersion\":\"");
        out.push_str(format.version.api_version());
        out.push_str("\",\"metadata\":");
        meta.write_json(out);
        out.push_str(",\"columnDefinitions\":");
        convertor.write_columns(out);
        out.push_str(",\"rows\":");
        TableListWriter {
            convertor,
            format,
            rows: 0,
        }
    }

    /// Appends one row: `row` printed from `object` (its JSON text, or any [`RowObject`]).
    /// On error nothing is appended.
    pub fn push_row<O: RowObject + ?Sized>(
        &mut self,
        out: &mut String,
        row: &Row,
        object: &O,
        now_unix_ms: i64,
    ) -> Result<(), TableError> {
        let mark = out.len();
        out.push(if self.rows == 0 { '[' } else { ',' });
        let style = self.convertor.metadata_style();
        match write_row(out, self.format, style, row, object, now_unix_ms) {
            Ok(()) => {
                self.rows += 1;
                Ok(())
            }
            Err(e) => {
                out.truncate(mark);
                Err(e)
            }
        }
    }

    /// Rows written so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Closes the document. An empty list has `"rows":[]` from the built-in printers and CRDs,
    /// `"rows":null` from the default convertor (it appends to a nil slice).
    pub fn finish(self, out: &mut String) {
        match (self.rows, &self.convertor.printer) {
            (0, Printer::Default) => out.push_str("null}"),
            (0, _) => out.push_str("[]}"),
            _ => out.push_str("]}"),
        }
    }
}

/// A Table of one object (a GET with the Table Accept header): all columns, one row, the
/// object's resourceVersion as the table's.
pub fn write_object_table<O: RowObject + ?Sized>(
    out: &mut String,
    convertor: &TableConvertor,
    format: TableFormat,
    row: &Row,
    object: &O,
    now_unix_ms: i64,
) -> Result<(), TableError> {
    let one = OneRow {
        convertor,
        format,
        headers: true,
        style: convertor.metadata_style(),
    };
    one.write(out, row, object, now_unix_ms)
}

/// How a one-row table (a GET's, a watch event's) is written.
struct OneRow<'c> {
    convertor: &'c TableConvertor,
    format: TableFormat,
    /// Column definitions, or `null` (a watch's events after the first).
    headers: bool,
    style: MetaStyle,
}

impl OneRow<'_> {
    fn write<O: RowObject + ?Sized>(
        &self,
        out: &mut String,
        row: &Row,
        object: &O,
        now_unix_ms: i64,
    ) -> Result<(), TableError> {
        // Everything that can fail comes before the first byte is written.
        let rv = object.resource_version()?;
        let mark = out.len();
        out.push_str("{\"kind\":\"Table\",\"apiVersion\":\"");
        out.push_str(self.format.version.api_version());
        out.push_str("\",\"metadata\":");
        ListMeta {
            resource_version: rv.as_deref().unwrap_or(""),
            ..ListMeta::default()
        }
        .write_json(out);
        out.push_str(",\"columnDefinitions\":");
        if self.headers {
            self.convertor.write_columns(out);
        } else {
            // A nil slice without omitempty: Go writes null.
            out.push_str("null");
        }
        out.push_str(",\"rows\":[");
        if let Err(e) = write_row(out, self.format, self.style, row, object, now_unix_ms) {
            out.truncate(mark);
            return Err(e);
        }
        out.push_str("]}");
        Ok(())
    }
}

/// The per-watch state of a Table watch: column definitions go with the first event only
/// (`watchEmbeddedEncoder.doEncode` sets `NoHeaders` after encoding any event, an ERROR or a
/// BOOKMARK included); later tables carry `"columnDefinitions":null`.
#[derive(Debug, Clone)]
pub struct WatchTableEncoder {
    format: TableFormat,
    headers_sent: bool,
}

impl WatchTableEncoder {
    pub fn new(format: TableFormat) -> Self {
        WatchTableEncoder {
            format,
            headers_sent: false,
        }
    }

    pub fn format(&self) -> TableFormat {
        self.format
    }

    /// Whether the column definitions went out already.
    pub fn headers_sent(&self) -> bool {
        self.headers_sent
    }

    /// Appends one event line `{"type":..,"object":<one-row Table>}\n` for an ADDED,
    /// MODIFIED or DELETED event of `object` printed as `row`. On error nothing is appended
    /// and the headers are still to send.
    pub fn write_event<O: RowObject + ?Sized>(
        &mut self,
        out: &mut String,
        convertor: &TableConvertor,
        event_type: &str,
        row: &Row,
        object: &O,
        now_unix_ms: i64,
    ) -> Result<(), TableError> {
        let style = convertor.metadata_style();
        self.write_line(out, convertor, event_type, style, row, object, now_unix_ms)
    }

    /// Appends a converted BOOKMARK: the bookmark object (`object_json`, as the watch would
    /// send it in object mode, e.g. `{"kind":"Pod","apiVersion":"v1","metadata":
    /// {"resourceVersion":"12","annotations":{"k8s.io/initial-events-end":"true"}}}`) goes
    /// through the printer like any object: an empty object's cells, and a
    /// `PartialObjectMetadata` with only resourceVersion, `creationTimestamp: null` and the
    /// annotations.
    pub fn write_bookmark(
        &mut self,
        out: &mut String,
        convertor: &TableConvertor,
        object_json: &str,
        now_unix_ms: i64,
    ) -> Result<(), TableError> {
        let row = convertor.row_from_json(object_json)?;
        // The cacher's bookmark object is a typed (or unstructured) object with a zero
        // ObjectMeta: its PartialObjectMetadata is a typed ObjectMeta whatever the store holds.
        self.write_line(
            out,
            convertor,
            "BOOKMARK",
            MetaStyle::Typed,
            &row,
            object_json,
            now_unix_ms,
        )
    }

    /// Appends an ERROR event: the Status object unchanged (`doTransformObject` passes
    /// `*metav1.Status` through). It still counts as the event that carried the headers.
    pub fn write_error(&mut self, out: &mut String, status_json: &str) {
        out.push_str("{\"type\":\"ERROR\",\"object\":");
        out.push_str(status_json.trim());
        out.push_str("}\n");
        self.headers_sent = true;
    }

    #[allow(clippy::too_many_arguments)]
    fn write_line<O: RowObject + ?Sized>(
        &mut self,
        out: &mut String,
        convertor: &TableConvertor,
        event_type: &str,
        style: MetaStyle,
        row: &Row,
        object: &O,
        now_unix_ms: i64,
    ) -> Result<(), TableError> {
        let mark = out.len();
        out.push_str("{\"type\":");
        write_str(out, event_type);
        out.push_str(",\"object\":");
        let one = OneRow {
            convertor,
            format: self.format,
            headers: !self.headers_sent,
            style,
        };
        if let Err(e) = one.write(out, row, object, now_unix_ms) {
            out.truncate(mark);
            return Err(e);
        }
        out.push_str("}\n");
        self.headers_sent = true;
        Ok(())
    }
}
