//! Table rows: a row's object and its cells as one [`Object`].

use super::copy::build;
use super::extract::{key, Extract};
use super::parse::{require_identity, walk, TableKeys};
use super::printer::ColumnKind;
use super::storage::{row_cells, ColData, Span, Wrap, IDENTITY_KEYS, NAME, SPANS};
use super::{KeptMetadata, Object, ParseOptions};
use crate::error::DecodeError;
use crate::json::{unescape, Scanner, StrSpan};
use crate::table::{encode_cells, json_string_len};
use std::borrow::Cow;

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
pub(super) fn identity_values<'d>(
    doc: &'d str,
    ex: &Extract,
) -> [Option<(Cow<'d, str>, usize)>; 6] {
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
pub(super) fn fields_row(
    doc: &str,
    wrap: Wrap,
    ex: &Extract,
    cells: &[u8],
) -> Result<Object, DecodeError> {
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
