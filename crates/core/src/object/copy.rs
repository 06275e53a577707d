//! The compacting copier: the stored copy of an object is its JSON with dropped
//! members and whitespace cut and dictionary keys replaced by tokens
//! ([`crate::compact`]), made in one pass over the hits the scanner noted.

use super::extract::{sat, Extract};
use super::printer::{ColumnKind, DeploymentColumns};
use super::storage::{row_cells, ColData, Span, Wrap, NAME, SPANS};
use super::Object;
use crate::compact::KeyHit;
use crate::error::DecodeError;
use crate::json::{unescape, StrSpan};
use std::borrow::Cow;

/// The hits (sorted by position) that start within `a..e`.
pub(super) fn hits_within(hits: &[KeyHit], a: usize, e: usize) -> &[KeyHit] {
    let from = hits.partition_point(|h| (h.at as usize) < a);
    let to = hits.partition_point(|h| (h.at as usize) < e);
    &hits[from..to.max(from)]
}

/// Builds the stored object from the document's `object` range (and, for a table
/// row, its `cells` range): the copy drops cuts and whitespace hits and replaces key
/// hits by tokens; the cells are copied without their whitespace, keys kept plain.
pub(super) fn build(
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
pub(super) const SLACK: usize = 18;

/// A copy buffer larger than this is released after use.
pub(super) const SCRATCH_KEEP: usize = 256 << 10;

/// Where the extracted fields land in the stored copy.
pub(super) struct FieldMap {
    /// Fields to map, by position in the source (`usize::MAX` after the last).
    pub(super) order: [(usize, usize); SPANS],
    pub(super) next: usize,
    /// Position of the next field to map (usize::MAX: none left).
    pub(super) at: usize,
    pub(super) spans: [Span; SPANS],
}

impl FieldMap {
    /// Maps the fields that start in `src[a..b]`, copied to `o..`.
    #[inline(never)]
    pub(super) fn map(&mut self, a: usize, b: usize, o: usize) {
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
pub(super) fn copy(
    out: &mut [u8],
    o: usize,
    src: &[u8],
    a: usize,
    b: usize,
    fm: &mut FieldMap,
) -> usize {
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
pub(super) fn copy_hit(
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
pub(super) fn copy_hits(
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
