//! BOOKMARK events: the version they carry and the initial-events-end mark.

use super::extract::key;
use super::parse::{table_columns, TableKeys};
use crate::error::DecodeError;
use crate::json::{unescape, Scanner};
use crate::table::TableColumn;

/// What a BOOKMARK's object says.
#[derive(Default)]
pub(super) struct BookmarkFields {
    pub(super) rv: Option<String>,
    pub(super) end_mark: bool,
}

/// Walks a bookmark object (or a converted bookmark's row object): its
/// `metadata.resourceVersion` and initial-events-end annotation; with `tk`, also the
/// top-level Table markers.
pub(super) fn bookmark_object(
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

pub(super) fn bookmark_metadata(
    sc: &mut Scanner<'_>,
    f: &mut BookmarkFields,
) -> Result<(), DecodeError> {
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
