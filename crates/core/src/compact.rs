//! Key-dictionary compaction of stored JSON.
//!
//! Outside JSON strings, a valid document only ever contains whitespace, the six
//! structural characters, `"`, number characters and the letters of `true`, `false`
//! and `null`. Every other character is free to mean something else there. While an
//! object is copied into storage, each member key found in [`DICT`] (the whole
//! `"key":`, quotes and colon included, exactly as the server sent it) is replaced by
//! a token:
//!
//! * the first [`SINGLE`] entries by one free ASCII byte ([`TOKENS`]);
//! * the rest by one two-byte character U+0080 + (index - [`SINGLE`]).
//!
//! Storage therefore stays valid UTF-8 (metadata spans into it remain `&str` without
//! checks), and string contents are copied untouched. [`expand`] restores the exact
//! bytes in one pass that tracks whether it is inside a string.
//!
//! The dictionary and the lookup of a key in it are in [`crate::dict`], which the
//! scanner ([`crate::json`]) uses too: one perfect hash for both.

use crate::dict::DICT;

/// A member key found in the compaction dictionary: `"key":` starts at `at` and
/// takes `plain` bytes; it is stored as `token[..token_len]` (see the module docs).
/// A hit with `token_len == 0` is a run of insignificant whitespace (pretty-printed
/// JSON), dropped from the stored copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KeyHit {
    pub at: u32,
    pub plain: u8,
    pub token_len: u8,
    pub token: [u8; 2],
}

impl KeyHit {
    /// Whether this is a whitespace run rather than a dictionary key.
    #[inline(always)]
    pub fn is_ws(&self) -> bool {
        self.token_len == 0
    }
}

/// Entries with a one-byte token.
pub(crate) const SINGLE: usize = 93;

/// The one-byte tokens: every ASCII byte that cannot occur outside a string in valid
/// JSON (not whitespace, structure, quote, backslash, number or literal characters).
const TOKENS: [u8; SINGLE] = free_ascii();

const fn free_ascii() -> [u8; SINGLE] {
    let used = b" \t\n\r{}[],:\"\\0123456789-+.eEtruefalsn";
    let mut out = [0u8; SINGLE];
    let mut n = 0;
    let mut c = 0u8;
    while c < 0x80 {
        let mut free = true;
        let mut k = 0;
        while k < used.len() {
            if used[k] == c {
                free = false;
            }
            k += 1;
        }
        if free {
            out[n] = c;
            n += 1;
        }
        c += 1;
    }
    assert!(n == SINGLE);
    out
}

/// What a byte means outside a string in stored JSON.
const CLASS_PLAIN: u8 = 0;
const CLASS_QUOTE: u8 = 1;
const CLASS_SINGLE: u8 = 2;
const CLASS_DOUBLE: u8 = 3;

/// Byte -> class; for one-byte tokens the entry index is in [`SINGLE_INDEX`].
const CLASS: [u8; 256] = classes();
const SINGLE_INDEX: [u8; 128] = single_index();

/// Lead bytes of two-byte tokens: U+0080.. is `C2 80`.., so leads `C2..=C4`.
const LEAD_FIRST: u8 = 0xC2;
const LEAD_LAST: u8 = 0xC2 + ((DICT.len() - SINGLE - 1) / 64) as u8;

const fn classes() -> [u8; 256] {
    let mut t = [CLASS_PLAIN; 256];
    t[b'"' as usize] = CLASS_QUOTE;
    let mut i = 0;
    while i < SINGLE {
        t[TOKENS[i] as usize] = CLASS_SINGLE;
        i += 1;
    }
    let mut l = LEAD_FIRST;
    while l <= LEAD_LAST {
        t[l as usize] = CLASS_DOUBLE;
        l += 1;
    }
    t
}

const fn single_index() -> [u8; 128] {
    let mut t = [0u8; 128];
    let mut i = 0;
    while i < SINGLE {
        t[TOKENS[i] as usize] = i as u8;
        i += 1;
    }
    t
}

/// The hit for entry `idx` at `at`.
#[inline(always)]
pub(crate) fn hit(at: u32, idx: u8) -> KeyHit {
    let [plain, token_len, t0, t1] = HITS[usize::from(idx)];
    KeyHit {
        at,
        plain,
        token_len,
        token: [t0, t1],
    }
}

/// Per entry: `"key":` length, token length, token bytes. A two-byte token is
/// U+0080 + (idx - SINGLE) in UTF-8 (lead C2..=C4).
const HITS: [[u8; 4]; DICT.len()] = hit_table();

const fn hit_table() -> [[u8; 4]; DICT.len()] {
    let mut t = [[0u8; 4]; DICT.len()];
    let mut i = 0;
    while i < DICT.len() {
        let plain = (DICT[i].len() + 3) as u8;
        t[i] = if i < SINGLE {
            [plain, 1, TOKENS[i], 0]
        } else {
            let cp = 0x80 + (i - SINGLE);
            [plain, 2, 0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8]
        };
        i += 1;
    }
    t
}

/// Appends the exact JSON that `stored` (compacted by the decoder) stands for.
pub(crate) fn expand(stored: &[u8], out: &mut Vec<u8>) {
    let n = stored.len();
    let mut i = 0;
    let mut run = 0;
    while i < n {
        let c = stored[i];
        match CLASS[usize::from(c)] {
            CLASS_PLAIN => {
                i += 1;
                continue;
            }
            CLASS_QUOTE => {
                // Copy the whole string, escapes and all, up to its closing quote.
                let mut j = i + 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &stored[j.min(n)..]) {
                        Some(k) if stored[j + k] == b'\\' => j += k + 2,
                        Some(k) => {
                            j += k + 1;
                            break;
                        }
                        None => {
                            j = n;
                            break;
                        }
                    }
                }
                i = j.min(n);
                continue;
            }
            class => {
                out.extend_from_slice(&stored[run..i]);
                let idx = if class == CLASS_SINGLE {
                    i += 1;
                    usize::from(SINGLE_INDEX[usize::from(c & 0x7f)])
                } else {
                    let lo = stored.get(i + 1).copied().unwrap_or(0x80);
                    i += 2;
                    SINGLE + ((usize::from(c & 0x1f) << 6) | usize::from(lo & 0x3f)) - 0x80
                };
                out.push(b'"');
                out.extend_from_slice(DICT.get(idx).copied().unwrap_or("").as_bytes());
                out.extend_from_slice(b"\":");
                run = i;
            }
        }
    }
    out.extend_from_slice(&stored[run..n]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dict::lookup;

    #[test]
    fn every_entry_is_found_and_round_trips() {
        for (i, k) in DICT.iter().enumerate() {
            let doc = format!("{{\"{k}\":1}}");
            let b = doc.as_bytes();
            assert_eq!(lookup(b, 2, 2 + k.len()), Some(i as u8), "{k}");
            let h = hit(7, i as u8);
            assert_eq!((h.at, usize::from(h.plain)), (7, k.len() + 3));
            assert_eq!(usize::from(h.token_len), if i < SINGLE { 1 } else { 2 });
            let s = std::str::from_utf8(&h.token[..usize::from(h.token_len)]).unwrap();
            let mut out = Vec::new();
            expand(format!("{{{s}1}}").as_bytes(), &mut out);
            assert_eq!(out, b, "{k}");
        }
    }

    #[test]
    fn near_misses_are_not_found() {
        for k in [
            "nam",
            "names",
            "Name",
            "f:nam",
            "f:names",
            "",
            "x",
            "lastTransitionTim",
        ] {
            let doc = format!("\"{k}\"");
            assert_eq!(lookup(doc.as_bytes(), 1, 1 + k.len()), None, "{k}");
        }
        // At the very end of the buffer (short load path).
        assert_eq!(lookup(b"\"name", 1, 5), Some(1));
    }

    #[test]
    fn strings_are_copied_verbatim() {
        let stored = "{\"a\\\"!b\":\"!#\u{80}é\\\\\",\"x\":[\"\\\"\"]}";
        let mut out = Vec::new();
        expand(stored.as_bytes(), &mut out);
        assert_eq!(out, stored.as_bytes());
    }
}
