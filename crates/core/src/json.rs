//! A fast, validating, zero-DOM JSON scanner.
//!
//! [`Scanner`] walks one complete document held in a byte slice: it validates what
//! it skips (structure, literals, numbers, string escapes and control characters)
//! and hands out spans of strings so callers can pick the few fields they need.
//! Nesting is handled without recursion, so hostile input cannot overflow the stack.
//! UTF-8 is not checked here; callers validate whole documents with
//! `std::str::from_utf8` (fast on ASCII) before scanning.
//!
//! [`Boundary`] finds where a value ends in a stream that arrives in pieces, without
//! validating, so a resumed scan never re-reads bytes it has seen.

use crate::compact::{self, KeyHit};
use crate::dict;
use std::borrow::Cow;

/// Deepest nesting accepted (serde_json uses 128; Kubernetes' managedFields go ~20).
pub(crate) const MAX_DEPTH: usize = 512;

/// A syntax error at `offset` bytes into the scanned slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct JsonError {
    pub offset: usize,
    pub reason: &'static str,
}

#[cfg(test)]
impl JsonError {
    /// True if the slice ended where more JSON was required.
    pub fn is_eof(&self) -> bool {
        self.reason == EOF
    }
}

pub(crate) const EOF: &str = "unexpected end of document";

pub(crate) type JResult<T> = Result<T, JsonError>;

/// The content of a JSON string: bytes `start..end` of the slice (between the quotes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StrSpan {
    pub start: usize,
    pub end: usize,
    /// The raw bytes contain backslash escapes; decode with [`unescape`].
    pub escaped: bool,
}

#[inline]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The whitespace JSON allows between tokens.
pub(crate) fn is_json_ws(b: u8) -> bool {
    is_ws(b)
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Bit 7 of each byte of the result is set for the first byte of `w` (little endian)
/// that is `"`, `\` or a control character; bits above the first hit may be noise.
#[inline(always)]
fn special_bytes(w: u64) -> u64 {
    let q = w ^ (LO * 0x22);
    let bs = w ^ (LO * 0x5c);
    let zq = q.wrapping_sub(LO) & !q;
    let zb = bs.wrapping_sub(LO) & !bs;
    let ctl = w.wrapping_sub(LO * 0x20) & !w;
    (zq | zb | ctl) & HI
}

/// Nonzero bits of the result mark (at least) the bytes of `c` that are `"`, `\` or
/// a control character; the lowest set bit is in the first such byte (little endian).
/// Where the target has 16-byte vectors, written so that it compiles to a handful
/// of vector compares (no `unsafe`, no intrinsics); elsewhere (wasm) SWAR on two words.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn special16(c: [u8; 16]) -> u128 {
    special16_vec(c)
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
#[inline(always)]
fn special16(c: [u8; 16]) -> u128 {
    special16_swar(c)
}

#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64", test)),
    allow(dead_code)
)]
#[inline(always)]
fn special16_vec(c: [u8; 16]) -> u128 {
    let mut f = [0u8; 16];
    for (f, &x) in f.iter_mut().zip(c.iter()) {
        *f = if (x == b'"') | (x == b'\\') | (x < 0x20) {
            0xff
        } else {
            0
        };
    }
    u128::from_le_bytes(f)
}

#[cfg_attr(
    all(any(target_arch = "x86_64", target_arch = "aarch64"), not(test)),
    allow(dead_code)
)]
#[inline(always)]
fn special16_swar(c: [u8; 16]) -> u128 {
    let w = u128::from_le_bytes(c);
    u128::from(special_bytes(w as u64)) | (u128::from(special_bytes((w >> 64) as u64)) << 64)
}

/// Index of the first byte of `c` that is `"`, `\\` or a control character; 16 if none.
#[inline(always)]
fn first_special(c: [u8; 16]) -> usize {
    let m = special16(c);
    if m == 0 {
        16
    } else {
        (m.trailing_zeros() / 8) as usize
    }
}

/// Notes the whitespace run `from..to` (outside strings) as hits of at most 255 bytes,
/// so the stored copy drops it. Only pretty-printed documents get here.
#[cold]
#[inline(never)]
fn note_ws(hits: &mut Vec<KeyHit>, from: usize, to: usize) {
    let mut at = from;
    while at < to {
        let n = (to - at).min(usize::from(u8::MAX));
        // Positions past 4 GiB are never compacted (see `object::build`).
        hits.push(KeyHit {
            at: at as u32,
            plain: n as u8,
            token_len: 0,
            token: [0, 0],
        });
        at += n;
    }
}

/// [`nonws`] that notes the whitespace it skips (unless `NOTE` is false: a value
/// that is dropped needs no notes).
#[inline(always)]
fn skip_ws<const NOTE: bool>(b: &[u8], i: usize, hits: &mut Vec<KeyHit>) -> (usize, u8) {
    let (j, c) = nonws(b, i);
    if NOTE && j > i {
        note_ws(hits, i, j);
    }
    (j, c)
}

/// Notes `"key":` at `quote` if the key (content `quote+1..end`) is in the dictionary.
#[inline(always)]
fn note_key(b: &[u8], quote: usize, end: usize, hits: &mut Vec<KeyHit>) {
    if let Some(idx) = dict::lookup(b, quote + 1, end) {
        // Positions past 4 GiB are never compacted (see `object::build`).
        hits.push(compact::hit(quote as u32, idx));
    }
}

pub(crate) struct Scanner<'a> {
    pub b: &'a [u8],
    pub i: usize,
    /// Dictionary keys seen so far, in document order (every key the scan passes,
    /// whether handed out by [`Scanner::next_key`] or skipped inside a value).
    pub hits: Vec<KeyHit>,
    /// Where objects are assembled before their exact-size copy (reused; its
    /// contents mean nothing between uses).
    pub out: Vec<u8>,
    /// Where a table row's cells are encoded before they are copied into it (reused).
    pub cells: Vec<u8>,
}

/// A scanner's reusable buffers, kept by decoders between documents.
#[derive(Default)]
pub(crate) struct Scratch {
    pub hits: Vec<KeyHit>,
    pub out: Vec<u8>,
    pub cells: Vec<u8>,
}

impl<'a> Scanner<'a> {
    pub fn new(b: &'a [u8]) -> Self {
        Scanner::at(b, 0, Scratch::default())
    }

    /// A scanner at `i` that appends to `scratch.hits` and assembles objects in
    /// `scratch.out`.
    pub fn at(b: &'a [u8], i: usize, scratch: Scratch) -> Self {
        let Scratch { hits, out, cells } = scratch;
        Scanner {
            b,
            i,
            hits,
            out,
            cells,
        }
    }

    /// Takes back buffers lent with [`Scanner::take_scratch`].
    pub fn put_scratch(&mut self, scratch: Scratch) {
        self.hits = scratch.hits;
        self.out = scratch.out;
        self.cells = scratch.cells;
    }

    /// Gives the buffers back (for [`Scanner::at`]).
    pub fn take_scratch(&mut self) -> Scratch {
        Scratch {
            hits: std::mem::take(&mut self.hits),
            out: std::mem::take(&mut self.out),
            cells: std::mem::take(&mut self.cells),
        }
    }

    #[inline(always)]
    pub fn peek(&self) -> u8 {
        match self.b.get(self.i) {
            Some(&c) => c,
            None => 0,
        }
    }

    #[cold]
    pub fn err(&self, reason: &'static str) -> JsonError {
        if self.i >= self.b.len() {
            JsonError {
                offset: self.b.len(),
                reason: EOF,
            }
        } else {
            JsonError {
                offset: self.i,
                reason,
            }
        }
    }

    /// Skips whitespace and returns the next byte (0 at the end).
    #[inline(always)]
    pub fn ws(&mut self) -> u8 {
        let c = self.peek();
        if c > b' ' {
            return c;
        }
        self.ws_slow()
    }

    #[inline(never)]
    fn ws_slow(&mut self) -> u8 {
        let (j, c) = skip_ws::<true>(self.b, self.i, &mut self.hits);
        self.i = j;
        c
    }

    /// After optional whitespace: the document must end here.
    pub fn end(&mut self) -> JResult<()> {
        if self.ws() == 0 && self.i >= self.b.len() {
            Ok(())
        } else {
            Err(self.err("trailing characters after the document"))
        }
    }

    /// Scans a string; `self.i` is at its opening quote.
    #[inline]
    pub fn string(&mut self) -> JResult<StrSpan> {
        let start = self.i + 1;
        match string_end(self.b, start) {
            Ok((end, escaped)) => {
                self.i = end + 1;
                Ok(StrSpan {
                    start,
                    end,
                    escaped,
                })
            }
            Err(e) => {
                self.i = e.offset;
                Err(e)
            }
        }
    }

    fn literal(&mut self, lit: &'static [u8]) -> JResult<()> {
        match literal_end(self.b, self.i, lit) {
            Ok(i) => {
                self.i = i;
                Ok(())
            }
            Err(e) => {
                self.i = e.offset;
                Err(e)
            }
        }
    }

    /// Reads a non-negative integer value, validating it as any JSON value. Returns
    /// `None` for anything that is not a plain unsigned integer fitting in u64.
    pub fn uint(&mut self) -> JResult<Option<u64>> {
        self.ws();
        let start = self.i;
        let mut n: u64 = 0;
        let mut ok = true;
        while let Some(&c) = self.b.get(self.i) {
            if !c.is_ascii_digit() {
                break;
            }
            match n
                .checked_mul(10)
                .and_then(|n| n.checked_add(u64::from(c - b'0')))
            {
                Some(v) => n = v,
                None => ok = false,
            }
            self.i += 1;
        }
        if self.i == start
            || matches!(self.peek(), b'.' | b'e' | b'E')
            || (self.i - start > 1 && self.b[start] == b'0')
        {
            self.i = start;
            self.value()?;
            return Ok(None);
        }
        Ok(if ok { Some(n) } else { None })
    }

    /// Reads a boolean value (anything else is validated and gives `None`).
    pub fn boolean(&mut self) -> JResult<Option<bool>> {
        match self.ws() {
            b't' => self.literal(b"true").map(|_| Some(true)),
            b'f' => self.literal(b"false").map(|_| Some(false)),
            _ => self.value().map(|_| None),
        }
    }

    /// Reads a string value; `null` and any other value give `None` (validated).
    pub fn opt_string(&mut self) -> JResult<Option<StrSpan>> {
        if self.ws() == b'"' {
            self.string().map(Some)
        } else {
            self.value().map(|_| None)
        }
    }

    /// Starts an object: after whitespace expects `{`. Returns false for `null`
    /// (consumed); other values are an error.
    pub fn object_start(&mut self) -> JResult<bool> {
        match self.ws() {
            b'{' => {
                self.i += 1;
                Ok(true)
            }
            b'n' => self.literal(b"null").map(|_| false),
            _ => Err(self.err("expected an object")),
        }
    }

    /// The next key of an object whose `{` (first = true) or previous value has
    /// been read, positioned before its value. `None` at the closing `}`.
    #[inline]
    pub fn next_key(&mut self, first: &mut bool) -> JResult<Option<StrSpan>> {
        let b = self.b;
        let (mut i, mut c) = skip_ws::<true>(b, self.i, &mut self.hits);
        if c == b'}' {
            self.i = i + 1;
            return Ok(None);
        }
        if !*first {
            if c != b',' {
                self.i = i;
                return Err(self.err("expected ',' or '}' in an object"));
            }
            (i, c) = skip_ws::<true>(b, i + 1, &mut self.hits);
        }
        *first = false;
        if c != b'"' {
            self.i = i;
            return Err(self.err("expected a key string"));
        }
        let (end, escaped, after) =
            key_string::<true>(b, i, &mut self.hits).inspect_err(|e| self.i = e.offset)?;
        self.i = after;
        Ok(Some(StrSpan {
            start: i + 1,
            end,
            escaped,
        }))
    }

    /// Starts an array: `[` gives true, `null` gives false.
    pub fn array_start(&mut self) -> JResult<bool> {
        match self.ws() {
            b'[' => {
                self.i += 1;
                Ok(true)
            }
            b'n' => self.literal(b"null").map(|_| false),
            _ => Err(self.err("expected an array")),
        }
    }

    /// True if another element follows (positioned at it), false at the closing `]`.
    #[inline]
    pub fn next_elem(&mut self, first: &mut bool) -> JResult<bool> {
        let c = self.ws();
        if c == b']' {
            self.i += 1;
            return Ok(false);
        }
        if !*first {
            if c != b',' {
                return Err(self.err("expected ',' or ']' in an array"));
            }
            self.i += 1;
        }
        *first = false;
        Ok(true)
    }

    /// Skips (and validates) one value of any kind, iteratively.
    #[inline]
    pub fn value(&mut self) -> JResult<()> {
        self.skip::<true>()
    }

    /// Skips (and validates) one value that the caller drops from what it stores
    /// (managedFields when stripped, or the members identity metadata leaves out): no
    /// key or whitespace notes, which would be thrown away with it.
    #[inline]
    pub fn value_dropped(&mut self) -> JResult<()> {
        self.skip::<false>()
    }

    #[inline(always)]
    fn skip<const NOTE: bool>(&mut self) -> JResult<()> {
        match skip_value::<NOTE>(self.b, self.i, &mut self.hits) {
            Ok(i) => {
                self.i = i;
                Ok(())
            }
            Err(e) => {
                self.i = e.offset;
                Err(e)
            }
        }
    }
}

#[cold]
#[inline(never)]
fn error_at(b: &[u8], i: usize, reason: &'static str) -> JsonError {
    if i >= b.len() {
        JsonError {
            offset: b.len(),
            reason: EOF,
        }
    } else {
        JsonError { offset: i, reason }
    }
}

/// Finds the closing quote of a string whose content starts at `i`. Returns its
/// index and whether the content has escapes.
#[inline(always)]
fn string_end(b: &[u8], mut i: usize) -> JResult<(usize, bool)> {
    let mut escaped = false;
    loop {
        // Fast path: sixteen bytes at a time, so that most keys and values end in
        // the first step (a predictable branch) and the hit is found branch-free.
        if let Some(chunk) = b.get(i..i + 16) {
            let k = first_special(chunk.try_into().unwrap_or([0; 16]));
            i += k;
            if k == 16 {
                continue;
            }
            match b.get(i) {
                Some(b'"') => return Ok((i, escaped)),
                Some(b'\\') => {
                    escaped = true;
                    i = escape(b, i)?;
                    continue;
                }
                _ => return Err(error_at(b, i, "control character in a string")),
            }
        }
        match b.get(i) {
            Some(b'"') => return Ok((i, escaped)),
            Some(b'\\') => {
                escaped = true;
                i = escape(b, i)?;
            }
            Some(&c) if c < 0x20 => return Err(error_at(b, i, "control character in a string")),
            Some(_) => i += 1,
            None => return Err(error_at(b, i, EOF)),
        }
    }
}

/// Validates one escape sequence at `i` (the backslash); returns the index after it.
/// The two-byte escapes are checked inline (managedFields keys such as
/// `k:{\"type\":\"Ready\"}` hold several a key); `\u` takes the call.
#[inline(always)]
fn escape(b: &[u8], i: usize) -> JResult<usize> {
    match b.get(i + 1) {
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(i + 2),
        _ => escape_u(b, i),
    }
}

/// [`escape`] of anything but a two-byte escape: `\uXXXX`, or an error.
#[inline(never)]
fn escape_u(b: &[u8], i: usize) -> JResult<usize> {
    match b.get(i + 1) {
        Some(b'u') => {
            for k in i + 2..i + 6 {
                if !b.get(k).is_some_and(u8::is_ascii_hexdigit) {
                    return Err(error_at(b, k, "bad \\u escape"));
                }
            }
            Ok(i + 6)
        }
        _ => Err(error_at(b, i + 1, "bad escape in a string")),
    }
}

/// Index of the next non-whitespace byte at or after `i`, and that byte (0 at the end).
#[inline(always)]
fn nonws(b: &[u8], mut i: usize) -> (usize, u8) {
    while let Some(&c) = b.get(i) {
        if !is_ws(c) {
            return (i, c);
        }
        i += 1;
    }
    (i, 0)
}

/// After a key: optional whitespace, `:`; returns the index after the colon.
#[inline(always)]
fn colon<const NOTE: bool>(b: &[u8], i: usize, hits: &mut Vec<KeyHit>) -> JResult<usize> {
    if b.get(i) == Some(&b':') {
        return Ok(i + 1);
    }
    match skip_ws::<NOTE>(b, i, hits) {
        (j, b':') => Ok(j + 1),
        (j, _) => Err(error_at(b, j, "expected ':' after a key")),
    }
}

/// A key string at `i` (after whitespace) then its colon; returns the index after it.
#[inline(always)]
fn key_colon<const NOTE: bool>(b: &[u8], i: usize, hits: &mut Vec<KeyHit>) -> JResult<usize> {
    let (i, c) = skip_ws::<NOTE>(b, i, hits);
    if c != b'"' {
        return Err(error_at(b, i, "expected a key string"));
    }
    Ok(key_string::<NOTE>(b, i, hits)?.2)
}

/// The key string whose opening quote is at `q`, then its colon: returns the index of
/// the closing quote, whether the key has escapes, and the index after the colon.
/// Notes the key if it is in the dictionary and directly followed by its colon.
#[inline(always)]
fn key_string<const NOTE: bool>(
    b: &[u8],
    q: usize,
    hits: &mut Vec<KeyHit>,
) -> JResult<(usize, bool, usize)> {
    let s = q + 1;
    // Fast path: a key of up to sixteen bytes without escapes, directly followed by
    // its colon, looked up from the sixteen bytes already loaded for the scan.
    let mut from = s;
    if let Some(c) = b.get(s..s + 16) {
        // SWAR on eight bytes at a time: most keys end within the first eight.
        let lo = u64::from_le_bytes(c[..8].try_into().unwrap_or([0; 8]));
        let m = special_bytes(lo);
        let (n, w0, w1) = if m != 0 {
            let n = (m.trailing_zeros() / 8) as usize;
            (n, lo & ((1u64 << (8 * n)) - 1), 0)
        } else {
            let hi = u64::from_le_bytes(c[8..].try_into().unwrap_or([0; 8]));
            // trailing_zeros(0) is 64: no special byte in sixteen gives n = 16.
            let n = 8 + (special_bytes(hi).trailing_zeros() / 8) as usize;
            let w = u128::from(lo) | (u128::from(hi) << 64);
            // The last eight bytes of a key longer than eight.
            let w1 = if n > 8 {
                (w >> (8 * (n - 8))) as u64
            } else {
                0
            };
            (n, lo, w1)
        };
        let end = s + n;
        if b.get(end) == Some(&b'"') && b.get(end + 1) == Some(&b':') {
            if !NOTE {
                return Ok((end, false, end + 2));
            }
            if let Some(idx) = dict::index_of_words(w0, w1, n) {
                // Positions past 4 GiB are never compacted (see `object::build`).
                hits.push(compact::hit(q as u32, idx));
            }
            return Ok((end, false, end + 2));
        }
        // Resume at the first special byte (or after the sixteen): nothing before it
        // needs another look.
        from = end;
    }
    let (end, escaped) = string_end(b, from)?;
    if b.get(end + 1) == Some(&b':') {
        if NOTE {
            note_key(b, q, end, hits);
        }
        return Ok((end, escaped, end + 2));
    }
    Ok((end, escaped, colon::<NOTE>(b, end + 1, hits)?))
}

#[inline]
fn digits(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

/// Validates a number starting at `i`; returns the index after it.
fn number_end(b: &[u8], mut i: usize) -> JResult<usize> {
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    if at(i) == b'-' {
        i += 1;
    }
    match at(i) {
        b'0' => i += 1,
        b'1'..=b'9' => i = digits(b, i),
        _ => return Err(error_at(b, i, "bad number")),
    }
    if at(i) == b'.' {
        i += 1;
        if !at(i).is_ascii_digit() {
            return Err(error_at(b, i, "bad number"));
        }
        i = digits(b, i);
    }
    if matches!(at(i), b'e' | b'E') {
        i += 1;
        if matches!(at(i), b'+' | b'-') {
            i += 1;
        }
        if !at(i).is_ascii_digit() {
            return Err(error_at(b, i, "bad number"));
        }
        i = digits(b, i);
    }
    Ok(i)
}

/// Validates the literal `lit` at `i`; returns the index after it.
fn literal_end(b: &[u8], i: usize, lit: &'static [u8]) -> JResult<usize> {
    match b.get(i..i + lit.len()) {
        Some(s) if s == lit => Ok(i + lit.len()),
        Some(_) => Err(error_at(b, i, "bad literal")),
        None => {
            // A prefix of the literal up to the end is a truncation, else garbage.
            let rest = &b[i.min(b.len())..];
            if lit.starts_with(rest) {
                Err(error_at(b, b.len(), EOF))
            } else {
                Err(error_at(b, i, "bad literal"))
            }
        }
    }
}

/// Skips (and validates) one value starting at `i` (whitespace allowed before it);
/// returns the index after it. Iterative: nesting depth costs no stack.
fn skip_value<const NOTE: bool>(b: &[u8], mut i: usize, hits: &mut Vec<KeyHit>) -> JResult<usize> {
    // One bit per open container: 1 = object, 0 = array.
    let mut stack = [0u64; MAX_DEPTH / 64];
    let mut depth = 0usize;
    let mut in_obj = false;
    'value: loop {
        let Some(&c) = b.get(i) else {
            return Err(error_at(b, i, EOF));
        };
        match c {
            b'"' => i = string_end(b, i + 1)?.0 + 1,
            b'{' | b'[' => {
                let (j, d) = skip_ws::<NOTE>(b, i + 1, hits);
                if d == c + 2 {
                    // `{}` or `[]`
                    i = j + 1;
                } else {
                    if depth == MAX_DEPTH {
                        return Err(error_at(b, i, "nesting too deep"));
                    }
                    in_obj = c == b'{';
                    let bit = 1u64 << (depth % 64);
                    if in_obj {
                        stack[depth / 64] |= bit;
                        i = key_colon::<NOTE>(b, j, hits)?;
                    } else {
                        stack[depth / 64] &= !bit;
                        i = j;
                    }
                    depth += 1;
                    continue 'value;
                }
            }
            b't' => i = literal_end(b, i, b"true")?,
            b'f' => i = literal_end(b, i, b"false")?,
            b'n' => i = literal_end(b, i, b"null")?,
            b'-' | b'0'..=b'9' => i = number_end(b, i)?,
            b' ' | b'\t' | b'\n' | b'\r' => {
                i = skip_ws::<NOTE>(b, i, hits).0;
                continue 'value;
            }
            _ => return Err(error_at(b, i, "expected a value")),
        }
        // After a value: close containers or move to the next member.
        loop {
            if depth == 0 {
                return Ok(i);
            }
            let Some(&c) = b.get(i) else {
                return Err(error_at(b, i, EOF));
            };
            match c {
                b',' => {
                    i = if in_obj {
                        key_colon::<NOTE>(b, i + 1, hits)?
                    } else {
                        i + 1
                    };
                    continue 'value;
                }
                b'}' | b']' if (c == b'}') == in_obj => {
                    i += 1;
                    depth -= 1;
                    if depth > 0 {
                        let top = depth - 1;
                        in_obj = stack[top / 64] & (1 << (top % 64)) != 0;
                    }
                }
                b' ' | b'\t' | b'\n' | b'\r' => i = skip_ws::<NOTE>(b, i, hits).0,
                _ if in_obj => return Err(error_at(b, i, "expected ',' or '}' in an object")),
                _ => return Err(error_at(b, i, "expected ',' or ']' in an array")),
            }
        }
    }
}

/// Decodes a validated JSON string's raw content (between the quotes).
pub(crate) fn unescape(raw: &[u8]) -> Cow<'_, str> {
    if !raw.contains(&b'\\') {
        return String::from_utf8_lossy(raw);
    }
    let mut out: Vec<u8> = Vec::with_capacity(raw.len());
    unescape_into(raw, &mut out);
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

/// Appends the decoded content of a validated JSON string to `out` (UTF-8, no longer
/// than `raw`).
pub(crate) fn unescape_into(raw: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let e = raw.get(i + 1).copied().unwrap_or(b'\\');
        i += 2;
        let simple = match e {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            b'/' => Some(b'/'),
            b'b' => Some(8),
            b'f' => Some(12),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        // \uXXXX, possibly a surrogate pair.
        let hex = |at: usize| -> Option<u32> {
            let h = raw.get(at..at + 4)?;
            u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
        };
        let Some(u) = hex(i) else { break };
        i += 4;
        let ch = if (0xD800..0xDC00).contains(&u) {
            let lo = if raw.get(i) == Some(&b'\\') && raw.get(i + 1) == Some(&b'u') {
                hex(i + 2)
            } else {
                None
            };
            match lo {
                Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                    i += 6;
                    char::from_u32(0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00))
                }
                _ => None,
            }
        } else {
            char::from_u32(u)
        };
        let ch = ch.unwrap_or(char::REPLACEMENT_CHARACTER);
        let mut buf = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
    }
}

/// Finds the end of one JSON value arriving in pieces, without validating it.
/// `pos` is relative to the value's first byte, which the caller keeps at index 0 of
/// the slice passed to [`Boundary::advance`] (the slice only ever grows).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Boundary {
    pos: usize,
    depth: usize,
    in_str: bool,
    /// 0: not started, 1: container, 2: string, 3: scalar.
    kind: u8,
}

impl Boundary {
    /// No byte of the value seen yet.
    pub fn is_fresh(&self) -> bool {
        self.kind == 0
    }

    /// Returns the value's length once its end is in `v`.
    pub fn advance(&mut self, v: &[u8]) -> Option<usize> {
        if self.kind == 0 {
            let &c = v.first()?;
            self.pos = 1;
            match c {
                b'{' | b'[' => {
                    self.kind = 1;
                    self.depth = 1;
                }
                b'"' => {
                    self.kind = 2;
                    self.in_str = true;
                }
                _ => self.kind = 3,
            }
        }
        loop {
            if self.in_str {
                match memchr::memchr2(b'"', b'\\', &v[self.pos..]) {
                    None => {
                        self.pos = v.len();
                        return None;
                    }
                    Some(k) => {
                        let at = self.pos + k;
                        if v[at] == b'\\' {
                            if at + 1 >= v.len() {
                                self.pos = at;
                                return None;
                            }
                            self.pos = at + 2;
                        } else {
                            self.pos = at + 1;
                            self.in_str = false;
                            if self.kind == 2 {
                                return Some(self.pos);
                            }
                        }
                    }
                }
                continue;
            }
            if self.kind == 3 {
                while let Some(&c) = v.get(self.pos) {
                    if matches!(c, b',' | b'}' | b']') || is_ws(c) {
                        return Some(self.pos);
                    }
                    self.pos += 1;
                }
                return None;
            }
            // Inside a container, outside strings.
            loop {
                let &c = v.get(self.pos)?;
                self.pos += 1;
                match c {
                    b'"' => {
                        self.in_str = true;
                        break;
                    }
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' => {
                        self.depth -= 1;
                        if self.depth == 0 {
                            return Some(self.pos);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skip(s: &str) -> JResult<usize> {
        let mut sc = Scanner::new(s.as_bytes());
        sc.value()?;
        sc.end()?;
        Ok(sc.i)
    }

    #[test]
    fn valid_values() {
        for s in [
            "{}",
            "[]",
            " { \"a\" : [ 1 , -2.5e+3 , true , false , null , \"x\\u00e9\\n\" ] } ",
            "\"plain\"",
            "0",
            "-0.0E-1",
            "[[[[{}]]]]",
            "{\"a\":{\"b\":{\"c\":[{\"d\":\"éü\"}]}}}",
        ] {
            assert!(skip(s).is_ok(), "{s}");
        }
    }

    #[test]
    fn invalid_values() {
        for s in [
            "{",
            "[",
            "{\"a\"}",
            "{\"a\":}",
            "[1,]",
            "{,}",
            "01",
            "1.",
            "-",
            "1e",
            "tru",
            "nul",
            "truex",
            "\"abc",
            "\"a\u{1}b\"",
            "\"\\x\"",
            "\"\\u12g4\"",
            "{}{}",
            "[1 2]",
            "{\"a\":1,}",
            "]",
            "{\"a\":1]",
            "[1}",
        ] {
            assert!(skip(s).is_err(), "{s}");
        }
    }

    #[test]
    fn eof_is_distinguished() {
        assert!(skip("{\"a\":[1,2").unwrap_err().is_eof());
        assert!(skip("{\"a\":\"xy").unwrap_err().is_eof());
        assert!(skip("{\"a\":tr").unwrap_err().is_eof());
        assert!(!skip("{\"a\":tx").unwrap_err().is_eof());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let s = "[".repeat(100_000);
        assert_eq!(skip(&s).unwrap_err().reason, "nesting too deep");
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(skip(&ok).is_ok());
    }

    #[test]
    fn strings_long_and_short() {
        for n in 0..40 {
            let body = "x".repeat(n);
            let s = format!("\"{body}\"");
            let mut sc = Scanner::new(s.as_bytes());
            let sp = sc.string().unwrap();
            assert_eq!((sp.start, sp.end, sp.escaped), (1, n + 1, false));
            let s = format!("\"{body}\\\"{body}\"");
            let mut sc = Scanner::new(s.as_bytes());
            let sp = sc.string().unwrap();
            assert!(sp.escaped);
            assert_eq!(sc.i, s.len());
        }
    }

    /// The index of the first special byte by the vector and the SWAR forms.
    fn first_both(c: [u8; 16]) -> (u32, u32) {
        let f = |m: u128| if m == 0 { 16 } else { m.trailing_zeros() / 8 };
        (f(special16_vec(c)), f(special16_swar(c)))
    }

    #[test]
    fn special_bytes_vector_and_swar_agree() {
        let interesting = [
            0u8, 1, 0x1f, 0x20, 0x21, b'"', 0x23, 0x5b, b'\\', 0x5d, 0x7f, 0x80, 0xa2, 0xdc, 0xff,
            b'a',
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..20_000 {
            let mut c = [b'a'; 16];
            for (j, byte) in c.iter_mut().enumerate() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Mostly plain bytes, a few special ones anywhere.
                if (x >> 8) % 5 == 0 || round % 16 == j {
                    *byte = interesting[(x % interesting.len() as u64) as usize];
                } else {
                    *byte = 0x20 + (x >> 16) as u8 % 0x60;
                }
            }
            let want = c
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .unwrap_or(16) as u32;
            assert_eq!(first_both(c), (want, want), "{c:?}");
            assert_eq!(first_special(c), want as usize);
        }
    }

    /// Keys the fast path must get right: every dictionary key, and near misses that
    /// share its length and first and last bytes, or its prefix, at lengths around
    /// the 8- and 16-byte boundaries.
    fn tricky_keys() -> Vec<String> {
        let mut keys = Vec::new();
        for k in crate::dict::DICT {
            keys.push(k.to_string());
            let b = k.as_bytes();
            for at in 1..b.len().saturating_sub(1) {
                let mut v = b.to_vec();
                v[at] = if v[at] == b'x' { b'y' } else { b'x' };
                if let Ok(v) = String::from_utf8(v) {
                    keys.push(v);
                }
            }
            keys.push(format!("{k}x"));
            keys.push(format!("x{k}"));
            keys.push(k[..k.len() - 1].to_string());
            keys.push(format!("{k}\\n"));
            keys.push(format!("{k}é"));
        }
        for n in 0..=34 {
            keys.push("a".repeat(n));
            keys.push("\\\"".repeat(n / 2));
        }
        keys.push("na\\u006de".to_string());
        // Mutations can break escapes: keep valid JSON strings only.
        keys.retain(|k| serde_json::from_str::<String>(&format!("\"{k}\"")).is_ok());
        keys
    }

    #[test]
    fn key_fast_path_agrees_with_the_dictionary() {
        for k in tricky_keys() {
            // Keys at every distance from the end of the slice (the fast path needs
            // sixteen bytes), both as a top-level member (next_key) and nested
            // (skipped by value()).
            for tail in 0..20 {
                let pad = "1".repeat(tail + 1);
                let doc = format!("{{\"{k}\":{pad}}}");
                let b = doc.as_bytes();
                let want: Vec<KeyHit> = crate::dict::lookup(b, 2, 2 + k.len())
                    .map(|i| compact::hit(1, i))
                    .into_iter()
                    .collect();
                let mut sc = Scanner::new(b);
                sc.value().unwrap();
                assert_eq!(sc.hits, want, "value() {doc}");

                let mut sc = Scanner::new(b);
                assert!(sc.object_start().unwrap());
                let mut first = true;
                let span = sc.next_key(&mut first).unwrap().unwrap();
                assert_eq!((span.start, span.end), (2, 2 + k.len()), "{doc}");
                assert_eq!(span.escaped, k.contains('\\'), "{doc}");
                sc.value().unwrap();
                assert!(sc.next_key(&mut first).unwrap().is_none());
                assert_eq!(sc.hits, want, "next_key {doc}");

                // Not directly followed by its colon: never noted as a key (only the
                // whitespace is), still valid.
                let doc = format!("[{{\"{k}\" :{pad}}}]");
                let mut sc = Scanner::new(doc.as_bytes());
                sc.value().unwrap();
                assert!(sc.hits.iter().all(|h| h.is_ws()), "{doc}");
                assert_eq!(sc.hits.len(), 1, "{doc}");
            }
        }
    }

    #[test]
    fn key_fast_path_errors() {
        for s in [
            "{\"name\"}",
            "{\"name\" 1}",
            "{\"na\u{1}me\":1}",
            "{\"name",
            "{\"name\\",
            "{\"0123456789abcdef",
            "{\"0123456789abcdef\"",
            "{\"\\x\":1}",
        ] {
            assert!(skip(s).is_err(), "{s}");
            let mut sc = Scanner::new(s.as_bytes());
            sc.object_start().unwrap();
            assert!(sc.next_key(&mut true).is_err(), "{s}");
        }
    }

    #[test]
    fn unescape_works() {
        assert_eq!(
            unescape(br#"a\"b\\c\/\n\u00e9\ud83d\ude00"#),
            "a\"b\\c/\né😀"
        );
        assert_eq!(unescape(br"\ud800x"), "\u{fffd}x");
    }

    #[test]
    fn boundary_any_split() {
        let doc = br#"{"a":"x\"}y","b":[1,{"c":"]"}]} "#;
        let end = doc.len() - 1;
        for split in 0..doc.len() {
            let mut b = Boundary::default();
            let first = b.advance(&doc[..split]);
            let r = first.or_else(|| b.advance(doc));
            assert_eq!(r, Some(end), "split {split}");
        }
        let mut b = Boundary::default();
        assert_eq!(b.advance(b"123"), None);
        assert_eq!(b.advance(b"1234,"), Some(4));
        let mut b = Boundary::default();
        assert_eq!(b.advance(br#""ab\"#), None);
        assert_eq!(b.advance(br#""ab\"c""#), Some(7));
    }
}
