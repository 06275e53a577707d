//! Saved views: what a table-mode engine shows, kept so that a reload can show it at
//! once and watch on from its version instead of listing again
//! ([`crate::Engine::save_view`], [`crate::Engine::restore`]).
//!
//! A saved view holds the collection and filters it is of ([`ViewKey`]), the
//! resourceVersion the rows are the state at, the Table's column definitions, and per
//! row only what a row kept with [`KeptMetadata::Identity`] holds: name, namespace,
//! uid, resourceVersion, creation and deletion timestamps, and the cells the server
//! printed. Never objects, never labels or annotations (an applied Secret's
//! `last-applied-configuration` annotation holds its data): an engine that keeps more
//! refuses to save ([`SaveError`]).
//!
//! The bytes: `KLVW`, a format version byte, the key, the version, the columns, the
//! rows (each a record that is its row's allocation, see `object/saved.rs`), then a
//! 64-bit checksum of everything before it. Anything truncated, damaged, of another
//! format version or not a saved view at all is a [`RestoreError`], never a panic.

use crate::object::saved::{get_varint, put_varint};
use crate::object::{KeptMetadata, Object};
use crate::rv::ResourceVersion;
use crate::table::{ColumnType, Format, IncludeObject, TableColumn};
use crate::Config;
use std::fmt;
use std::sync::Arc;

const MAGIC: &[u8; 4] = b"KLVW";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u8 = 1;
const CHECKSUM: usize = 8;
/// Format and metadata codes in the key (the only ones a view is saved with).
const TABLE_METADATA: u8 = 1;
const IDENTITY: u8 = 1;

/// What a view is of: a saved view restores only into an engine of the same key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewKey {
    /// The collection's path (`/api/v1/namespaces/a/pods`): resource and namespace.
    pub path: String,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    pub format: Format,
    pub metadata: KeptMetadata,
}

impl ViewKey {
    /// The key of what `config` shows (an empty selector is no selector).
    pub fn of(config: &Config) -> ViewKey {
        let selector = |s: &Option<String>| s.as_ref().filter(|s| !s.is_empty()).cloned();
        ViewKey {
            path: config.collection.path(),
            label_selector: selector(&config.label_selector),
            field_selector: selector(&config.field_selector),
            format: config.format,
            metadata: config.metadata,
        }
    }

    /// One string naming the key, for a storage key: the path, the selectors and the
    /// format, separated by characters none of them can hold unescaped.
    pub fn id(&self) -> String {
        let format = match (self.format, self.metadata) {
            (Format::Table(IncludeObject::Metadata), KeptMetadata::Identity) => "rows",
            (Format::Table(IncludeObject::Metadata), KeptMetadata::All) => "rows+meta",
            (Format::Table(IncludeObject::Metadata), KeptMetadata::Owners) => "rows+owners",
            (Format::Table(IncludeObject::Object), _) => "rows+objects",
            (Format::Objects, _) => "objects",
        };
        format!(
            "{}\n{}\n{}\n{format}",
            self.path,
            self.label_selector.as_deref().unwrap_or(""),
            self.field_selector.as_deref().unwrap_or("")
        )
    }

    /// Why a view of this key may not be saved, if so.
    pub(crate) fn unsavable(&self) -> Option<SaveError> {
        match self.format {
            Format::Objects => Some(SaveError::NotTables),
            Format::Table(IncludeObject::Object) => Some(SaveError::WholeObjects),
            Format::Table(IncludeObject::Metadata) => match self.metadata {
                KeptMetadata::Identity => None,
                KeptMetadata::All => Some(SaveError::AllMetadata),
                KeptMetadata::Owners => Some(SaveError::OwnerReferences),
            },
        }
    }

    /// The first difference between a saved view's key (`self`) and an engine's.
    fn mismatch(&self, config: &ViewKey) -> Option<RestoreError> {
        let differs = |what, saved: &Option<String>, wanted: &Option<String>| {
            (saved != wanted).then(|| RestoreError::OtherView {
                what,
                saved: saved.clone().unwrap_or_default(),
                wanted: wanted.clone().unwrap_or_default(),
            })
        };
        if self.path != config.path {
            return Some(RestoreError::OtherView {
                what: "collection",
                saved: self.path.clone(),
                wanted: config.path.clone(),
            });
        }
        differs(
            "label selector",
            &self.label_selector,
            &config.label_selector,
        )
        .or_else(|| {
            differs(
                "field selector",
                &self.field_selector,
                &config.field_selector,
            )
        })
        .or_else(|| {
            (self.format != config.format || self.metadata != config.metadata).then(|| {
                RestoreError::OtherView {
                    what: "format",
                    saved: self.id().rsplit('\n').next().unwrap_or("").into(),
                    wanted: config.id().rsplit('\n').next().unwrap_or("").into(),
                }
            })
        })
    }
}

/// Why an engine's view cannot be saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SaveError {
    /// The engine fetches objects, not tables.
    NotTables,
    /// Table mode, but the server does not print tables here: it holds objects.
    TablesUnavailable,
    /// Rows carry whole objects (`includeObject=Object`).
    WholeObjects,
    /// Rows keep all their metadata ([`KeptMetadata::All`]).
    AllMetadata,
    /// Rows keep their owner references too ([`KeptMetadata::Owners`]): a saved row
    /// holds no more than its identity, and restored rows would lack them.
    OwnerReferences,
    /// A row holds more than its identity members and cells (the server sent an
    /// object where a `PartialObjectMetadata` was asked for).
    RowNotSavable { namespace: String, name: String },
    /// The store is not the state at one version yet: a list or a streaming list is
    /// under way, or about to start again.
    NotAtVersion,
}

impl fmt::Display for SaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SaveError::NotTables => f.write_str(
                "only table views are saved: this engine holds whole objects",
            ),
            SaveError::TablesUnavailable => f.write_str(
                "only table views are saved: the server does not print tables here, so the engine holds whole objects",
            ),
            SaveError::WholeObjects => f.write_str(
                "only a row's metadata and cells are saved: these rows carry whole objects (includeObject=Object)",
            ),
            SaveError::AllMetadata => f.write_str(
                "only a row's identity (name, namespace, uid, versions, timestamps) and cells are saved: these rows keep all their metadata, whose labels and annotations may hold secrets",
            ),
            SaveError::OwnerReferences => f.write_str(
                "only a row's identity (name, namespace, uid, versions, timestamps) and cells are saved: these rows keep their owner references too",
            ),
            SaveError::RowNotSavable { namespace, name } => write!(
                f,
                "the row {namespace}/{name} holds more than its identity and cells: nothing was saved"
            ),
            SaveError::NotAtVersion => f.write_str(
                "the rows are not the state at one version yet (listing, or about to list again)",
            ),
        }
    }
}

impl std::error::Error for SaveError {}

/// Why saved bytes cannot be restored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RestoreError {
    /// The bytes do not start as a saved view does.
    NotASavedView,
    /// Written by another format version.
    OtherVersion { found: u8, supported: u8 },
    /// The checksum does not match: the bytes were cut short or damaged.
    Damaged,
    /// The checksum matches but the content does not parse (another writer).
    Malformed { offset: usize, why: &'static str },
    /// Two rows of the same namespace and name (another writer).
    DuplicateRow { namespace: String, name: String },
    /// It is a view of something else than the engine shows.
    OtherView {
        what: &'static str,
        saved: String,
        wanted: String,
    },
}

impl fmt::Display for RestoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RestoreError::NotASavedView => f.write_str("not a saved kubelive view"),
            RestoreError::OtherVersion { found, supported } => write!(
                f,
                "a saved view of format version {found}; this version reads {supported}"
            ),
            RestoreError::Damaged => {
                f.write_str("the saved view is damaged or cut short (its checksum does not match)")
            }
            RestoreError::Malformed { offset, why } => {
                write!(f, "the saved view is malformed at byte {offset}: {why}")
            }
            RestoreError::DuplicateRow { namespace, name } => {
                write!(f, "the saved view holds {namespace}/{name} twice")
            }
            RestoreError::OtherView {
                what,
                saved,
                wanted,
            } => write!(
                f,
                "the saved view's {what} is {saved:?}, not this view's {wanted:?}"
            ),
        }
    }
}

impl std::error::Error for RestoreError {}

/// A decoded saved view: check it, then hand it to [`crate::Engine::restore`].
#[derive(Clone, Debug)]
pub struct SavedView {
    pub(crate) key: ViewKey,
    pub(crate) resource_version: ResourceVersion,
    pub(crate) columns: Arc<[TableColumn]>,
    pub(crate) rows: Vec<Object>,
}

impl SavedView {
    pub fn key(&self) -> &ViewKey {
        &self.key
    }

    /// The version the rows are the state at: the engine watches from it.
    pub fn resource_version(&self) -> &ResourceVersion {
        &self.resource_version
    }

    pub fn columns(&self) -> &Arc<[TableColumn]> {
        &self.columns
    }

    pub fn rows(&self) -> &[Object] {
        &self.rows
    }

    /// Checks it restores into an engine of `config`: the same key.
    pub fn check(&self, config: &Config) -> Result<(), RestoreError> {
        match self.key.mismatch(&ViewKey::of(config)) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Reads saved bytes ([`crate::Engine::save_view`]).
    pub fn decode(bytes: &[u8]) -> Result<SavedView, RestoreError> {
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err(RestoreError::NotASavedView);
        }
        let found = *bytes.get(MAGIC.len()).ok_or(RestoreError::Damaged)?;
        if found != FORMAT_VERSION {
            return Err(RestoreError::OtherVersion {
                found,
                supported: FORMAT_VERSION,
            });
        }
        let body_end = bytes
            .len()
            .checked_sub(CHECKSUM)
            .filter(|&e| e > MAGIC.len())
            .ok_or(RestoreError::Damaged)?;
        let mut sum = [0u8; CHECKSUM];
        sum.copy_from_slice(&bytes[body_end..]);
        if u64::from_le_bytes(sum) != checksum(&bytes[..body_end]) {
            return Err(RestoreError::Damaged);
        }
        let mut r = Reader {
            b: &bytes[..body_end],
            at: MAGIC.len() + 1,
        };
        let path = r.string()?;
        let label_selector = r.opt_string()?;
        let field_selector = r.opt_string()?;
        let (format, metadata) = (r.byte()?, r.byte()?);
        if format != TABLE_METADATA || metadata != IDENTITY {
            return Err(r.err("a format no view is saved in"));
        }
        let key = ViewKey {
            path,
            label_selector,
            field_selector,
            format: Format::Table(IncludeObject::Metadata),
            metadata: KeptMetadata::Identity,
        };
        let resource_version = ResourceVersion::new(&r.string()?);
        let n = r.count(5)?;
        let mut columns = Vec::with_capacity(n);
        for _ in 0..n {
            columns.push(TableColumn {
                name: r.string()?,
                column_type: column_type(r.string()?),
                format: r.string()?,
                description: r.string()?,
                priority: r.priority()?,
            });
        }
        // A row's record is at least 4 bytes: flags, two lengths, cells' length.
        let n = r.count(4)?;
        let mut rows = Vec::with_capacity(n);
        for _ in 0..n {
            let at = r.at;
            rows.push(
                Object::read_saved(r.b, &mut r.at)
                    .map_err(|why| RestoreError::Malformed { offset: at, why })?,
            );
        }
        if r.at != r.b.len() {
            return Err(r.err("bytes after the last row"));
        }
        Ok(SavedView {
            key,
            resource_version,
            columns: columns.into(),
            rows,
        })
    }
}

/// Writes a saved view of the `n` `rows`; `Err` if the key or a row may not be saved.
pub(crate) fn encode<'o>(
    key: &ViewKey,
    resource_version: &ResourceVersion,
    columns: &[TableColumn],
    n: usize,
    rows: impl Iterator<Item = &'o Object>,
) -> Result<Vec<u8>, SaveError> {
    if let Some(e) = key.unsavable() {
        return Err(e);
    }
    // A pod's record is about 230 bytes.
    let mut out = Vec::with_capacity(256 + n * 240);
    out.extend_from_slice(MAGIC);
    out.push(FORMAT_VERSION);
    put_str(&mut out, &key.path);
    put_opt_str(&mut out, key.label_selector.as_deref());
    put_opt_str(&mut out, key.field_selector.as_deref());
    out.push(TABLE_METADATA);
    out.push(IDENTITY);
    put_str(&mut out, resource_version.as_str());
    put_varint(&mut out, columns.len() as u64);
    for c in columns {
        put_str(&mut out, &c.name);
        put_str(&mut out, column_type_name(&c.column_type));
        put_str(&mut out, &c.format);
        put_str(&mut out, &c.description);
        put_varint(&mut out, zigzag(c.priority));
    }
    put_varint(&mut out, n as u64);
    for row in rows {
        if !row.write_saved(&mut out) {
            return Err(SaveError::RowNotSavable {
                namespace: row.namespace().to_string(),
                name: row.name().to_string(),
            });
        }
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    Ok(out)
}

impl SavedView {
    /// The bytes of a view of `key` at `resource_version` holding only `rows` (a page's
    /// first screen of a view, say): read back by [`SavedView::decode`], refused as
    /// [`crate::Engine::save_view`] refuses a key or a row that may not be saved.
    pub fn encode_rows(
        key: &ViewKey,
        resource_version: &ResourceVersion,
        columns: &[TableColumn],
        rows: &[Arc<Object>],
    ) -> Result<Vec<u8>, SaveError> {
        encode(
            key,
            resource_version,
            columns,
            rows.len(),
            rows.iter().map(|o| &**o),
        )
    }

    /// The same bytes [`crate::Engine::save_view`] writes for these rows.
    pub fn encode(&self) -> Result<Vec<u8>, SaveError> {
        encode(
            &self.key,
            &self.resource_version,
            &self.columns,
            self.rows.len(),
            self.rows.iter(),
        )
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn put_opt_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        None => out.push(0),
        Some(s) => {
            out.push(1);
            put_str(out, s);
        }
    }
}

fn zigzag(v: i32) -> u64 {
    u64::from(((v << 1) ^ (v >> 31)) as u32)
}

fn column_type_name(t: &ColumnType) -> &str {
    match t {
        ColumnType::String => "string",
        ColumnType::Integer => "integer",
        ColumnType::Number => "number",
        ColumnType::Boolean => "boolean",
        ColumnType::Date => "date",
        ColumnType::Other(name) => name,
    }
}

fn column_type(name: String) -> ColumnType {
    match name.as_str() {
        "string" => ColumnType::String,
        "integer" => ColumnType::Integer,
        "number" => ColumnType::Number,
        "boolean" => ColumnType::Boolean,
        "date" => ColumnType::Date,
        _ => ColumnType::Other(name),
    }
}

struct Reader<'b> {
    b: &'b [u8],
    at: usize,
}

impl Reader<'_> {
    fn err(&self, why: &'static str) -> RestoreError {
        RestoreError::Malformed {
            offset: self.at,
            why,
        }
    }

    fn byte(&mut self) -> Result<u8, RestoreError> {
        let b = *self.b.get(self.at).ok_or_else(|| self.err("cut short"))?;
        self.at += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64, RestoreError> {
        let at = self.at;
        get_varint(self.b, &mut self.at).ok_or(RestoreError::Malformed {
            offset: at,
            why: "a bad length",
        })
    }

    /// A count of items each at least `min` bytes long: never more than the bytes
    /// left could hold, so a damaged count cannot ask for a huge allocation.
    fn count(&mut self, min: usize) -> Result<usize, RestoreError> {
        let n = self.varint()?;
        let left = (self.b.len() - self.at.min(self.b.len())) / min;
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= left)
            .ok_or_else(|| self.err("a count larger than the bytes that follow"))
    }

    fn string(&mut self) -> Result<String, RestoreError> {
        let len = self.varint()?;
        let end = usize::try_from(len)
            .ok()
            .and_then(|len| self.at.checked_add(len))
            .filter(|&end| end <= self.b.len())
            .ok_or_else(|| self.err("a string cut short"))?;
        let s = std::str::from_utf8(&self.b[self.at..end])
            .map_err(|_| self.err("a string that is not UTF-8"))?;
        self.at = end;
        Ok(s.to_string())
    }

    fn opt_string(&mut self) -> Result<Option<String>, RestoreError> {
        match self.byte()? {
            0 => Ok(None),
            1 => self.string().map(Some),
            _ => Err(self.err("a bad optional string")),
        }
    }

    fn priority(&mut self) -> Result<i32, RestoreError> {
        let v = u32::try_from(self.varint()?).map_err(|_| self.err("a bad priority"))?;
        Ok(((v >> 1) as i32) ^ -((v & 1) as i32))
    }
}

/// A 64-bit checksum, four lanes of eight bytes at a time (so the multiplies
/// overlap): it catches truncation and damage, which is all it is for. A saved view
/// ends with this checksum of every byte before it, little-endian.
pub fn checksum(b: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let word = |c: &[u8]| {
        let mut w = [0u8; 8];
        w[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(w)
    };
    let mut lanes: [u64; 4] = [
        0x243F_6A88_85A3_08D3,
        0x1319_8A2E_0370_7344,
        0xA409_3822_299F_31D0,
        0x082E_FA98_EC4E_6C89,
    ];
    let mut blocks = b.chunks_exact(32);
    for block in &mut blocks {
        for (lane, w) in lanes.iter_mut().zip(block.chunks_exact(8)) {
            *lane = (*lane ^ word(w)).wrapping_mul(K).rotate_left(29);
        }
    }
    for (lane, w) in lanes.iter_mut().zip(blocks.remainder().chunks(8)) {
        *lane = (*lane ^ word(w)).wrapping_mul(K).rotate_left(29);
    }
    let mut h = b.len() as u64;
    for lane in lanes {
        h = (h ^ lane).wrapping_mul(K).rotate_left(31);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^ (h >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::{Limits, ListDecoder};
    use crate::object::{ColumnKind, ParseOptions};

    /// Rows that stretch the record: escapes and non-ASCII in names, a cluster-scoped
    /// row, a deletion timestamp, v1beta1 wrappers, every kind of cell, long strings.
    fn rows() -> (Vec<TableColumn>, Vec<Object>) {
        let long = "x".repeat(300);
        let body = format!(
            r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"9"}},"columnDefinitions":[{{"name":"Name","type":"string","format":"name","description":"d","priority":0}},{{"name":"N","type":"integer","format":"","description":"","priority":-3}},{{"name":"W","type":"weird","format":"","description":"","priority":2147483647}}],"rows":[
            {{"cells":["a\"b\\c\u00e9\u2603",1,null,true,false,1.5e3,{{"k":[1,2]}},"{long}","<&>"],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"name":"a\"b\\c\u00e9\u2603","namespace":"ns\u0001","uid":"u1","resourceVersion":"5","creationTimestamp":"2026-01-01T00:00:00Z","deletionTimestamp":"2026-01-02T00:00:00Z","labels":{{"x":"y"}}}}}}}},
            {{"cells":["node-1","Ready",-7],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1beta1","metadata":{{"name":"node-1","resourceVersion":"6"}}}}}},
            {{"cells":[],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"name":"{long}","namespace":"","uid":"","resourceVersion":"7"}}}}}}
            ]}}"#
        );
        let opts = ParseOptions {
            strip_managed_fields: true,
            columns: ColumnKind::Generic,
            metadata: KeptMetadata::Identity,
        };
        let mut d = ListDecoder::new(Limits::default(), opts);
        let mut items = Vec::new();
        d.feed(body.as_bytes(), &mut items).unwrap();
        let columns = d.take_columns().unwrap();
        d.finish().unwrap();
        (columns, items)
    }

    fn key() -> ViewKey {
        ViewKey {
            path: "/api/v1/pods".into(),
            label_selector: Some("a in (b,c)".into()),
            field_selector: None,
            format: Format::Table(IncludeObject::Metadata),
            metadata: KeptMetadata::Identity,
        }
    }

    fn bytes() -> Vec<u8> {
        let (columns, rows) = rows();
        encode(
            &key(),
            &ResourceVersion::new("9"),
            &columns,
            rows.len(),
            rows.iter(),
        )
        .unwrap()
    }

    #[test]
    fn every_kind_of_row_and_column_comes_back_equal() {
        let (columns, rows) = rows();
        assert_eq!(rows.len(), 3);
        let view = SavedView::decode(&bytes()).unwrap();
        assert_eq!(view.key, key());
        assert_eq!(&view.columns[..], &columns[..]);
        assert_eq!(view.rows, rows);
        for (a, b) in view.rows.iter().zip(&rows) {
            assert_eq!(a.json(), b.json());
            assert_eq!(a.json_len(), b.json_len());
            assert_eq!(a.cells_json(), b.cells_json());
            assert_eq!(a.deletion_timestamp(), b.deletion_timestamp());
        }
        assert_eq!(view.rows[1].namespace(), "");
        assert!(view.rows[1]
            .json()
            .starts_with(br#"{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1beta1""#));
    }

    /// Bytes with a valid checksum but damaged content (another writer, or a bug):
    /// every cut and every byte changed is an error or a view, never a panic, and
    /// never a count that allocates more than the bytes could hold.
    #[test]
    fn damaged_content_under_a_valid_checksum_never_panics() {
        let good = bytes();
        let body = &good[..good.len() - CHECKSUM];
        let seal = |b: &[u8]| {
            let mut v = b.to_vec();
            let sum = checksum(&v);
            v.extend_from_slice(&sum.to_le_bytes());
            v
        };
        let mut errors = 0;
        for n in 5..body.len() {
            if SavedView::decode(&seal(&body[..n])).is_err() {
                errors += 1;
            }
        }
        assert_eq!(errors, body.len() - 5, "every cut body is an error");
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for i in 5..body.len() {
            for _ in 0..8 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let mut b = body.to_vec();
                b[i] = x as u8;
                if let Ok(view) = SavedView::decode(&seal(&b)) {
                    // Whatever parsed is readable without a panic.
                    for row in &view.rows {
                        let _ = (
                            row.json(),
                            row.cells_json(),
                            row.cells().map(Iterator::count),
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_checksum_sees_cuts_and_flips() {
        let b = bytes();
        assert_ne!(checksum(&b), checksum(&b[..b.len() - 1]));
        let mut z = vec![0u8; 64];
        let zero = checksum(&z);
        z.push(0);
        assert_ne!(zero, checksum(&z), "trailing zeros count");
    }
}
