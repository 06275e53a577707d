//! A table row as a saved view keeps it ([`crate::saved`]): only a row that holds
//! its identity members and cells ([`KeptMetadata::Identity`] of a
//! `PartialObjectMetadata`) can be written, so no other metadata (labels,
//! annotations such as `kubectl.kubernetes.io/last-applied-configuration`, which holds
//! a Secret's data when it was applied) and no object ever leaves the store.
//!
//! A record: a flags byte (bits 0-5: which identity members are present, in
//! [`IDENTITY_KEYS`] order; bit 6: the wrapper is `meta.k8s.io/v1beta1`, else `v1`;
//! bit 7 unused, zero), a LEB128 length per present member, the cells' length, then
//! the members' bytes back to back and the cells' ([`crate::table::enc`]), which is
//! exactly the row's allocation: loading it is one copy.
//!
//! [`KeptMetadata::Identity`]: super::KeptMetadata::Identity

use super::storage::{ColData, Span, Wrap, IDENTITY_KEYS, NAME, RESOURCE_VERSION, SPANS};
use super::Object;
use crate::table::{enc, json_string_len};

const V1BETA1: u8 = 1 << 6;
const PRESENT: u8 = (1 << 6) - 1;
/// Bytes a row's allocation may hold (as [`super::row::fields_row`] allows).
const MAX_ROW: usize = u32::MAX as usize - 1;

/// Appends `v` as LEB128.
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a LEB128 value at `*at`; `None` if cut short or over 64 bits.
#[inline]
pub(crate) fn get_varint(b: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *b.get(*at)?;
        *at += 1;
        v |= u64::from(byte & 0x7F) << shift;
        if byte & 0x80 == 0 {
            return (shift < 63 || byte <= 1).then_some(v);
        }
    }
    None
}

impl Object {
    /// Appends this row's record; `false` (nothing written) if it is not an identity
    /// row.
    pub(crate) fn write_saved(&self, out: &mut Vec<u8>) -> bool {
        let ColData::Cells {
            off,
            len,
            wrap,
            fields: true,
        } = self.cols
        else {
            return false;
        };
        let mut flags = match wrap {
            Wrap::V1 => 0,
            Wrap::V1beta1 => V1BETA1,
            Wrap::None => return false,
        };
        for (i, s) in self.spans[..IDENTITY_KEYS.len()].iter().enumerate() {
            if s.len != u32::MAX {
                flags |= 1 << i;
            }
        }
        out.push(flags);
        for s in &self.spans[..IDENTITY_KEYS.len()] {
            if s.len != u32::MAX {
                put_varint(out, u64::from(s.len));
            }
        }
        put_varint(out, u64::from(len));
        for s in &self.spans[..IDENTITY_KEYS.len()] {
            if s.len != u32::MAX {
                out.extend_from_slice(self.bytes(*s));
            }
        }
        out.extend_from_slice(self.bytes(Span { off, len }));
        true
    }

    fn bytes(&self, s: Span) -> &[u8] {
        let a = s.off as usize;
        self.buf.get(a..a + s.len as usize).unwrap_or(b"")
    }

    /// Reads one record at `*at`, checking everything an [`Object`] relies on: each
    /// member valid UTF-8, a name and a resourceVersion present, the cells a valid
    /// encoding. The row comes out as the decoder built it (equal to the one saved).
    pub(crate) fn read_saved(b: &[u8], at: &mut usize) -> Result<Object, &'static str> {
        const CUT: &str = "a row is cut short";
        let flags = *b.get(*at).ok_or(CUT)?;
        *at += 1;
        if flags & 0x80 != 0 {
            return Err("a row has unknown flags");
        }
        let need = (1 << NAME) | (1 << RESOURCE_VERSION);
        if flags & need != need {
            return Err("a row has no name or no resourceVersion");
        }
        let wrap = if flags & V1BETA1 != 0 {
            Wrap::V1beta1
        } else {
            Wrap::V1
        };
        let mut lens = [None; 6];
        let mut total = 0usize;
        for (i, len) in lens.iter_mut().enumerate() {
            if flags & PRESENT & (1 << i) != 0 {
                let n = get_varint(b, at).ok_or(CUT)?;
                let n = usize::try_from(n).map_err(|_| "a row is too large")?;
                total = total.checked_add(n).ok_or("a row is too large")?;
                *len = Some(n);
            }
        }
        let cells = usize::try_from(get_varint(b, at).ok_or(CUT)?).map_err(|_| CUT)?;
        let all = total.checked_add(cells).ok_or("a row is too large")?;
        if all > MAX_ROW {
            return Err("a row is too large");
        }
        let end = at.checked_add(all).ok_or(CUT)?;
        let bytes = b.get(*at..end).ok_or(CUT)?;
        *at = end;
        let mut spans = [Span::NONE; SPANS];
        // The length of what `Object::json` writes, as the decoder counts it.
        let (mut members, mut body, mut off) = (0usize, 0usize, 0usize);
        for (i, len) in lens.iter().enumerate() {
            let Some(len) = *len else { continue };
            let v = std::str::from_utf8(&bytes[off..off + len])
                .map_err(|_| "a row's metadata is not UTF-8")?;
            spans[i] = Span {
                off: off as u32,
                len: len as u32,
            };
            members += 1;
            body += IDENTITY_KEYS[i].len() + 3 + json_string_len(v);
            off += len;
        }
        let cell_bytes = &bytes[off..];
        check_cells(cell_bytes)?;
        let json = wrap.prefix().len() + 2 + body + members.max(1) - 1 + wrap.suffix().len();
        if json > MAX_ROW {
            return Err("a row is too large");
        }
        Ok(Object {
            json_len: 0,
            raw_len: json as u32,
            spans,
            cols: ColData::Cells {
                off: off as u32,
                len: cells as u32,
                wrap,
                fields: true,
            },
            buf: bytes.into(),
        })
    }
}

/// Checks a cells encoding ([`enc`]) entry by entry: every header known, every length
/// within the bytes, every text valid UTF-8 ending on a character boundary.
fn check_cells(b: &[u8]) -> Result<(), &'static str> {
    const BAD: &str = "a row's cells are not a valid encoding";
    let text = std::str::from_utf8(b).map_err(|_| BAD)?;
    let mut i = 0;
    while i < b.len() {
        let h = b[i];
        i += 1;
        let len = match h {
            h if h < enc::SHORT => usize::from(h),
            enc::STR | enc::NUM | enc::JSON => enc::get_len(b, &mut i).ok_or(BAD)?,
            enc::NULL | enc::TRUE | enc::FALSE | enc::NAME => 0,
            _ => return Err(BAD),
        };
        let end = i.checked_add(len).ok_or(BAD)?;
        text.get(i..end).ok_or(BAD)?;
        i = end;
    }
    Ok(())
}
