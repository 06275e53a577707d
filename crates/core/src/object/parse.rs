//! The walk over one object's JSON: what the store keeps of its metadata, the
//! markers that say it is a `meta.k8s.io` Table, and the object's bounds.

use super::copy::build;
use super::extract::{identity_slot, key, Extract};
use super::printer::{deployment_spec, deployment_status, pod_spec, pod_status, ColumnKind};
use super::row::parse_row;
use super::storage::Wrap;
use super::{Object, ParseOptions};
use crate::error::DecodeError;
use crate::json::{JResult, JsonError, Scanner};
use crate::table::{parse_columns, TableColumn};

/// Top-level members that say a document is a `meta.k8s.io` Table (positions in
/// the document).
#[derive(Default)]
pub(super) struct TableKeys {
    pub(super) kind_table: bool,
    pub(super) meta_api: bool,
    /// Where the `rows` value starts.
    pub(super) rows: Option<usize>,
    /// The `columnDefinitions` value.
    pub(super) columns: Option<(usize, usize)>,
    /// Members seen, and how far they matched the exact shape of a
    /// `PartialObjectMetadata` (kind, apiVersion, metadata: 3 when complete).
    pub(super) members: u32,
    pub(super) partial: u32,
    pub(super) partial_v1beta1: bool,
    /// The `metadata` value.
    pub(super) metadata: Option<(usize, usize)>,
    /// The one row, parsed in place when `kind` and `apiVersion` came before `rows`
    /// (as the apiserver writes them), so the row is scanned once.
    pub(super) row: Option<Object>,
}

impl TableKeys {
    pub(super) fn is_table(&self) -> bool {
        self.kind_table && self.meta_api
    }

    /// Exactly `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/..",
    /// "metadata":{..}}`: what to store of it and how to restore it.
    pub(super) fn partial_metadata(&self) -> Option<((usize, usize), Wrap)> {
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
pub(super) fn walk(
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

pub(super) fn require_identity(ex: &Extract) -> Result<(), DecodeError> {
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
pub(super) fn table_columns(
    b: &[u8],
    tk: &TableKeys,
) -> Result<Option<Vec<TableColumn>>, DecodeError> {
    match tk.columns {
        Some((a, e)) => {
            parse_columns(&b[a..e]).map_err(|reason| DecodeError::Malformed { offset: a, reason })
        }
        None => Ok(None),
    }
}

/// The one row of a Table whose members `tk` located.
pub(super) fn one_row(
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
pub(super) fn single_row(
    doc: &str,
    sc: &mut Scanner<'_>,
    opts: &ParseOptions,
) -> Result<Object, DecodeError> {
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

/// A pending cut of dropped members (managedFields, or all but the identity ones):
/// where the first one's key starts, where its value ends, and
/// where the previous member's value ended (None if it is the first member).
pub(super) struct PendingCut {
    pub(super) key_start: usize,
    pub(super) value_end: usize,
    pub(super) prev_end: Option<usize>,
}

pub(super) fn metadata(sc: &mut Scanner<'_>, ex: &mut Extract, opts: &ParseOptions) -> JResult<()> {
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
