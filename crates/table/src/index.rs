//! The sorted index's parts: a row's sort key read once into a fixed-width prefix (so
//! most comparisons are two integer compares and never touch the object's text), and
//! a chunked sorted list of keyed rows (an insert or a delete moves at most one
//! chunk, not a million rows).

#[cfg(test)]
use super::natural_cmp;
use super::{Sort, SortAs, SortKey};
use kubelive_core::Object;
use std::cmp::Ordering;
use std::sync::Arc;

#[cfg(test)]
thread_local! {
    /// Scans of every row ([`Index::scan_for`]) in this thread: a test's count.
    pub static SCANS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Words of the column's prefix: 24 bytes, the first the key's kind.
const PRIMARY_WORDS: usize = 3;
/// Bytes of a text key kept in the prefix.
const TEXT_BYTES: usize = PRIMARY_WORDS * 8 - 1;
/// Words of `namespace \0 name` kept for the tie-break: 32 bytes hold most pods'
/// (`ns-12` and `app-1234-6c4f9b2e65-2jllf`), so that rows equal in the column (a
/// status, a count) are ordered without reading their objects.
const TIE_WORDS: usize = 4;
const TIE_BYTES: usize = TIE_WORDS * 8;

pub type Primary = [u64; PRIMARY_WORDS];
/// The words of `namespace \0 name` (see [`tie_prefix`]).
pub type Tie = [u64; TIE_WORDS];

/// A row's place in a sort, compactly: `primary` orders by the column (its kind
/// first, so that missing cells sort last; descending sorts store it inverted), `tie`
/// by namespace and name. Each is exact when its flag says so; otherwise equal
/// prefixes are decided from the object.
///
/// Sorts by a name column (see [`continues`]) use `tie` for the name's text on from
/// where `primary` ends instead: names rarely tie, but pods' share long prefixes
/// (`app-16-5d8f7c9b10-` before the random suffix), and a 23-byte prefix alone left
/// a million-row name sort reading both objects in most comparisons (~6 s natively).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    primary: Primary,
    tie: [u64; TIE_WORDS],
    /// `primary` holds the whole column value (equal prefixes: equal values).
    primary_exact: bool,
    /// `tie` holds the whole namespace and name, or, continuing a name, `primary` and
    /// `tie` hold the whole name.
    tie_exact: bool,
}

/// Whether `sort`'s keys continue the column's text in the tie words (a name column:
/// its values rarely tie; namespace and name are then read from the objects).
pub(super) fn continues(sort: &Sort) -> bool {
    sort.col.is_name && sort.col.sort_as == SortAs::Text
}

/// No slot (an entry made to look a row up).
pub const NO_SLOT: u32 = u32::MAX;

/// A shown row: its key, its object and its slot (where the table's prepared sort
/// keys keep the row's, see `keys`; the same in every index holding the row). The slot
/// fits in the entry's padding in wasm (72 bytes with or without it).
#[derive(Clone)]
pub struct Entry {
    pub key: Key,
    pub obj: Arc<Object>,
    pub slot: u32,
}

impl Entry {
    pub fn new(sort: &Sort, obj: Arc<Object>) -> Entry {
        Entry::in_slot(sort, obj, NO_SLOT)
    }

    pub fn in_slot(sort: &Sort, obj: Arc<Object>, slot: u32) -> Entry {
        Entry {
            key: Key::of(sort, &obj),
            obj,
            slot,
        }
    }

    /// The total order of [`Sort::compare`], from the prefixes where they differ.
    pub fn cmp(&self, other: &Entry, sort: &Sort) -> Ordering {
        let long = continues(sort);
        let (a, b) = (&self.key, &other.key);
        self.cmp_column(other, sort, long)
            .then_with(|| match a.tie.cmp(&b.tie) {
                Ordering::Equal if long || !(a.tie_exact && b.tie_exact) => {
                    (self.obj.namespace(), self.obj.name())
                        .cmp(&(other.obj.namespace(), other.obj.name()))
                }
                o => o,
            })
    }

    /// The order of the sort's column alone (`long`: [`continues`]).
    fn cmp_column(&self, other: &Entry, sort: &Sort, long: bool) -> Ordering {
        let (a, b) = (&self.key, &other.key);
        let (by_prefix, exact) = match long {
            true => (
                (a.primary, a.tie).cmp(&(b.primary, b.tie)),
                a.tie_exact && b.tie_exact,
            ),
            false => (
                a.primary.cmp(&b.primary),
                a.primary_exact && b.primary_exact,
            ),
        };
        match by_prefix {
            Ordering::Equal if exact => Ordering::Equal,
            Ordering::Equal => {
                let full = SortKey::of(&sort.col, &self.obj)
                    .compare_column(&SortKey::of(&sort.col, &other.obj));
                if sort.desc {
                    full.reverse()
                } else {
                    full
                }
            }
            o => o,
        }
    }

    pub fn same_row(&self, other: &Object) -> bool {
        self.obj.name() == other.name() && self.obj.namespace() == other.namespace()
    }
}

impl Key {
    /// [`Entry::cmp`] of entries with these keys when the keys decide it; None where
    /// it reads the objects (`long`: [`continues`]).
    fn decides(&self, other: &Key, long: bool) -> Option<Ordering> {
        let (by_prefix, exact) = match long {
            true => (
                (self.primary, self.tie).cmp(&(other.primary, other.tie)),
                self.tie_exact && other.tie_exact,
            ),
            false => (
                self.primary.cmp(&other.primary),
                self.primary_exact && other.primary_exact,
            ),
        };
        match by_prefix {
            Ordering::Equal if exact => {}
            Ordering::Equal => return None,
            o => return Some(o),
        }
        match self.tie.cmp(&other.tie) {
            Ordering::Equal if long || !(self.tie_exact && other.tie_exact) => None,
            o => Some(o),
        }
    }

    pub fn of(sort: &Sort, o: &Object) -> Key {
        let k = SortKey::of(&sort.col, o);
        let mut key = match (&k.primary, continues(sort)) {
            (super::Primary::Str(s), true) => {
                let mut b = [0u8; 1 + TEXT_BYTES + TIE_BYTES];
                let (len, exact) = natural_bytes(s, &mut b[1..]);
                Key {
                    primary: pack(&b[..1 + TEXT_BYTES]),
                    tie: pack(&b[1 + TEXT_BYTES..]),
                    primary_exact: exact && len <= TEXT_BYTES,
                    tie_exact: exact && len <= TEXT_BYTES + TIE_BYTES,
                }
            }
            (other, true) => {
                let (primary, exact) = other.prefix();
                Key {
                    primary,
                    tie: [0; TIE_WORDS],
                    primary_exact: exact,
                    tie_exact: exact,
                }
            }
            (other, false) => {
                let (primary, primary_exact) = other.prefix();
                let (tie, tie_exact) = tie_prefix(k.namespace, k.name);
                Key {
                    primary,
                    tie,
                    primary_exact,
                    tie_exact,
                }
            }
        };
        if sort.desc {
            key.flip(continues(sort));
        }
        key
    }

    /// The key of a sort that does not continue into the tie words (see [`continues`])
    /// from its parts: the column's prefix (ascending) and the row's namespace-and-name
    /// prefix ([`tie_prefix`]).
    pub fn from_parts(primary: (Primary, bool), tie: ([u64; TIE_WORDS], bool), desc: bool) -> Key {
        let mut key = Key {
            primary: primary.0,
            tie: tie.0,
            primary_exact: primary.1,
            tie_exact: tie.1,
        };
        if desc {
            key.flip(false);
        }
        key
    }

    /// The key of the same row in the other direction: the column's words inverted.
    fn flip(&mut self, long: bool) {
        self.primary = self.primary.map(|w| !w);
        if long {
            self.tie = self.tie.map(|w| !w);
        }
    }
}

/// Packs bytes big-endian (zero-padded) so that the words' order is byte order.
fn pack<const N: usize>(bytes: &[u8]) -> [u64; N] {
    let mut words = [0u64; N];
    for (i, chunk) in bytes.chunks(8).take(N).enumerate() {
        let mut b = [0u8; 8];
        b[..chunk.len()].copy_from_slice(chunk);
        words[i] = u64::from_be_bytes(b);
    }
    words
}

/// `namespace \0 name`: byte order is the order of the pair (names hold no NUL).
pub fn tie_prefix(namespace: &str, name: &str) -> (Tie, bool) {
    let mut b = [0u8; TIE_BYTES];
    let bytes = namespace
        .as_bytes()
        .iter()
        .chain(&[0u8])
        .chain(name.as_bytes());
    for (slot, &c) in b.iter_mut().zip(bytes) {
        *slot = c;
    }
    let exact = namespace.len() + 1 + name.len() <= TIE_BYTES && !name.as_bytes().contains(&0);
    (pack(&b), exact)
}

/// An `f64` as a `u64` whose order is `f64::total_cmp`'s.
pub fn f64_bits(x: f64) -> u64 {
    let bits = x.to_bits() as i64;
    let ordered = bits ^ ((((bits >> 63) as u64) >> 1) as i64);
    (ordered as u64) ^ (1 << 63)
}

/// The kind of a key in its first byte (Primary's rank), then the value.
pub fn number_prefix(rank: u8, value: Option<f64>) -> (Primary, bool) {
    match value {
        Some(x) => ordered_number_prefix(rank, f64_bits(x)),
        // None after every number of the same kind.
        None => ([((rank as u64) << 56) | 1, 0, 0], true),
    }
}

/// [`number_prefix`] of a number given as [`f64_bits`].
pub fn ordered_number_prefix(rank: u8, bits: u64) -> (Primary, bool) {
    ([(rank as u64) << 56, bits, 0], true)
}

/// A key of `rank` alone (a missing cell).
pub fn kind_prefix(rank: u8) -> (Primary, bool) {
    ([(rank as u64) << 56, 0, 0], true)
}

/// Text under natural order, as a byte string whose byte order is
/// [`natural_cmp`]'s: other bytes as themselves, a run of digits as its length (a
/// byte within the digits' range, so that it compares with other bytes as the
/// run's first digit does) and its digits without leading zeros. Kind 0 in the
/// first byte, then the first 23 bytes. Exact when it all fits and nothing but
/// bytes decides (no zero-padded numbers, whose order falls back to the bytes).
pub fn text_prefix(s: &str) -> (Primary, bool) {
    let mut out = [0u8; 1 + TEXT_BYTES];
    let (len, exact) = natural_bytes(s, &mut out[1..]);
    (pack(&out), exact && len <= TEXT_BYTES)
}

/// Writes `s`'s natural-order bytes (see [`text_prefix`]) into `out`, as many as fit.
/// Returns their whole length and whether byte order is all that decides (no
/// zero-padded numbers, no NUL, digit runs under 256).
fn natural_bytes(s: &str, out: &mut [u8]) -> (usize, bool) {
    let mut n = 0;
    let mut exact = true;
    let mut push = |b: u8, n: &mut usize, _: &mut bool| {
        if let Some(slot) = out.get_mut(*n) {
            *slot = b;
        }
        *n += 1;
    };
    let x = s.as_bytes();
    let mut i = 0;
    while i < x.len() {
        let c = x[i];
        if !c.is_ascii_digit() {
            if c == 0 {
                exact = false;
            }
            push(c, &mut n, &mut exact);
            i += 1;
            continue;
        }
        let start = i;
        while i < x.len() && x[i].is_ascii_digit() {
            i += 1;
        }
        let run = &x[start..i];
        let zeros = run.iter().take_while(|&&d| d == b'0').count();
        let digits = &run[zeros.min(run.len() - 1)..];
        if digits.len() != run.len() {
            exact = false;
        }
        let len = digits.len();
        if len <= 8 {
            push(b'0' + len as u8, &mut n, &mut exact);
        } else {
            push(b'9', &mut n, &mut exact);
            push(len.min(255) as u8, &mut n, &mut exact);
            if len > 255 {
                exact = false;
            }
        }
        for &d in digits {
            push(d, &mut n, &mut exact);
        }
    }
    (n, exact)
}

/// Rows per chunk at most: an insert moves at most this many entries (tests: a few, so
/// that small tables span many chunks and changes cross their edges).
const CHUNK: usize = if cfg!(test) { 16 } else { 256 };

/// Rows per chunk of an index built at once: room for inserts before a split.
const FILLED: usize = CHUNK * 3 / 4;

/// A place in an [`Index`]: (chunk, offset), an entry's or `(chunks, 0)`, the end.
/// A change works in places: a position counts the entries of every chunk before it
/// (thousands at a million rows), which took most of a change's time when each of its
/// lookups did.
type At = (usize, usize);

/// A sorted list of entries in chunks of at most [`CHUNK`] (none empty).
#[derive(Clone, Default)]
pub struct Index {
    chunks: Vec<Vec<Entry>>,
    /// Each chunk's last key, side by side: a search for an entry picks its chunk
    /// from these (a few cache lines) rather than from the chunks' ends, each a miss
    /// in memory of its own (at a million rows, most of a search's misses).
    lasts: Vec<Key>,
    len: usize,
}

impl Index {
    /// From entries already in order.
    pub fn from_sorted(entries: Vec<Entry>) -> Index {
        let len = entries.len();
        let mut chunks = Vec::with_capacity(len / (CHUNK / 2) + 1);
        let mut it = entries.into_iter().peekable();
        while it.peek().is_some() {
            let mut c = Vec::with_capacity(CHUNK);
            c.extend(it.by_ref().take(FILLED));
            chunks.push(c);
        }
        Index {
            chunks,
            lasts: Vec::new(),
            len,
        }
        .relinked()
    }

    /// With [`Index::lasts`] read again from the chunks.
    fn relinked(mut self) -> Index {
        self.lasts.clear();
        self.lasts
            .extend(self.chunks.iter().filter_map(|c| c.last()).map(|e| e.key));
        self
    }

    /// Whether [`Index::lasts`] are the chunks' last keys (tests).
    #[cfg(test)]
    pub fn lasts_agree(&self) -> bool {
        self.lasts.len() == self.chunks.len()
            && self
                .chunks
                .iter()
                .zip(&self.lasts)
                .all(|(c, k)| c.last().is_some_and(|e| e.key == *k))
    }

    /// Lays out up to `n` more entries as [`Index::from_sorted`] lays them (a chunk at
    /// most), each `filler` until [`Index::fill`] puts the right one in its place.
    pub fn push_filled(&mut self, n: usize, filler: &Entry) {
        let k = n.min(FILLED);
        let mut c = Vec::with_capacity(CHUNK);
        c.resize(k, filler.clone());
        self.chunks.push(c);
        self.lasts.push(filler.key);
        self.len += k;
    }

    /// Puts `e` at position `i` of an index laid out by [`Index::push_filled`].
    pub fn fill(&mut self, i: usize, e: Entry) {
        let (c, o) = (i / FILLED, i % FILLED);
        let Some(chunk) = self.chunks.get_mut(c) else {
            return;
        };
        if o + 1 == chunk.len() {
            self.lasts[c] = e.key;
        }
        if let Some(slot) = chunk.get_mut(o) {
            *slot = e;
        }
    }

    /// Sorts `entries` (keys compared, text only where prefixes tie).
    pub fn sort(mut entries: Vec<Entry>, sort: &Sort) -> Index {
        entries.sort_unstable_by(|a, b| a.cmp(b, sort));
        Index::from_sorted(entries)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The chunk and offset of position `i` (`i <= len`).
    fn locate(&self, mut i: usize) -> (usize, usize) {
        for (c, chunk) in self.chunks.iter().enumerate() {
            if i < chunk.len() {
                return (c, i);
            }
            i -= chunk.len();
        }
        (self.chunks.len(), i)
    }

    pub fn get(&self, i: usize) -> Option<&Entry> {
        let (c, o) = self.locate(i);
        self.chunks.get(c)?.get(o)
    }

    /// Entries from position `i` on.
    pub fn iter_from(&self, i: usize) -> impl Iterator<Item = &Entry> {
        let (c, o) = self.locate(i);
        self.chunks
            .get(c..)
            .unwrap_or_default()
            .iter()
            .enumerate()
            .flat_map(move |(k, chunk)| chunk[if k == 0 { o } else { 0 }..].iter())
    }

    pub fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.chunks.iter().flatten()
    }

    /// The number of entries for which `before` holds (they must come first).
    pub fn partition_point(&self, before: impl FnMut(&Entry) -> bool) -> usize {
        self.position_of(self.seek(before))
    }

    /// The place of the first entry for which `before` does not hold (they must come
    /// first): two binary searches.
    fn seek(&self, mut before: impl FnMut(&Entry) -> bool) -> At {
        let c = self
            .chunks
            .partition_point(|chunk| chunk.last().is_some_and(&mut before));
        match self.chunks.get(c) {
            Some(chunk) => (c, chunk.partition_point(before)),
            None => (c, 0),
        }
    }

    /// The position of place `at`.
    fn position_of(&self, (c, o): At) -> usize {
        self.chunks[..c].iter().map(Vec::len).sum::<usize>() + o
    }

    /// The entry at `at` (None: the end).
    fn at(&self, (c, o): At) -> Option<&Entry> {
        self.chunks.get(c)?.get(o)
    }

    /// Where `e` is or would go.
    pub fn position(&self, e: &Entry, sort: &Sort) -> usize {
        self.partition_point(|p| p.cmp(e, sort) == Ordering::Less)
    }

    /// The place where `e` is or would go: its chunk found by [`Index::lasts`] (the
    /// chunk's last entry read where keys do not decide), then its place in it.
    fn seek_entry(&self, e: &Entry, sort: &Sort) -> At {
        let long = continues(sort);
        let before = |p: &Entry| p.cmp(e, sort) == Ordering::Less;
        let (mut lo, mut hi) = (0, self.chunks.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let less = match self.lasts[mid].decides(&e.key, long) {
                Some(o) => o == Ordering::Less,
                None => self.chunks[mid].last().is_some_and(before),
            };
            match less {
                true => lo = mid + 1,
                false => hi = mid,
            }
        }
        match self.chunks.get(lo) {
            Some(chunk) => (lo, chunk.partition_point(before)),
            None => (lo, 0),
        }
    }

    /// The place of the entry that compares equal to `e` (the same row under the same
    /// key), if any.
    fn find_at(&self, e: &Entry, sort: &Sort) -> Option<At> {
        let at = self.seek_entry(e, sort);
        self.at(at)
            .is_some_and(|p| p.cmp(e, sort) == Ordering::Equal)
            .then_some(at)
    }

    /// The position of the entry that compares equal to `e` (the same row under the
    /// same key), if any.
    pub fn find(&self, e: &Entry, sort: &Sort) -> Option<usize> {
        self.find_at(e, sort).map(|at| self.position_of(at))
    }

    /// The entry that compares equal to `e`, if any.
    pub fn find_entry(&self, e: &Entry, sort: &Sort) -> Option<&Entry> {
        self.find_at(e, sort).and_then(|at| self.at(at))
    }

    /// The position of `o`'s row by a scan (when its key is not known).
    pub fn scan_for(&self, o: &Object) -> Option<usize> {
        self.scan_at(o).map(|at| self.position_of(at))
    }

    /// The place of `o`'s row by a scan (when its key is not known).
    fn scan_at(&self, o: &Object) -> Option<At> {
        #[cfg(test)]
        SCANS.with(|n| n.set(n.get() + 1));
        self.chunks.iter().enumerate().find_map(|(c, chunk)| {
            chunk
                .iter()
                .position(|p| p.same_row(o))
                .map(|offset| (c, offset))
        })
    }

    /// Inserts `e` in order; an entry comparing equal (the same row) is replaced.
    pub fn insert(&mut self, e: Entry, sort: &Sort) {
        let at = self.seek_entry(&e, sort);
        match self.at(at) {
            Some(p) if p.cmp(&e, sort) == Ordering::Equal => self.set_at(at, e),
            _ => self.insert_place(at, e),
        }
    }

    /// Inserts at place `at` (the caller keeps the order).
    fn insert_place(&mut self, (mut c, mut o): At, e: Entry) {
        self.len += 1;
        if self.chunks.is_empty() {
            self.lasts.push(e.key);
            self.chunks.push(vec![e]);
            return;
        }
        if c == self.chunks.len() {
            // At the end: the last chunk.
            c -= 1;
            o = self.chunks[c].len();
        }
        let chunk = &mut self.chunks[c];
        if o == chunk.len() {
            self.lasts[c] = e.key;
        }
        chunk.insert(o, e);
        if chunk.len() > CHUNK {
            let tail = chunk.split_off(CHUNK / 2);
            if let Some(last) = chunk.last() {
                self.lasts[c] = last.key;
            }
            if let Some(last) = tail.last() {
                self.lasts.insert(c + 1, last.key);
            }
            self.chunks.insert(c + 1, tail);
        }
    }

    /// Appends `e`, which sorts after every entry.
    pub fn push(&mut self, e: Entry) {
        match (self.chunks.last_mut(), self.lasts.last_mut()) {
            (Some(chunk), Some(last)) if chunk.len() < CHUNK => {
                *last = e.key;
                chunk.push(e);
            }
            _ => {
                self.lasts.push(e.key);
                self.chunks.push({
                    let mut c = Vec::with_capacity(CHUNK);
                    c.push(e);
                    c
                });
            }
        }
        self.len += 1;
    }

    /// Puts `e` in place of the entry at `at`.
    fn set_at(&mut self, (c, o): At, e: Entry) {
        if o + 1 == self.chunks[c].len() {
            self.lasts[c] = e.key;
        }
        self.chunks[c][o] = e;
    }

    /// Removes the entry at `at`.
    fn remove_place(&mut self, (c, o): At) -> Entry {
        let e = self.chunks[c].remove(o);
        match self.chunks[c].last() {
            Some(last) => self.lasts[c] = last.key,
            None => {
                self.chunks.remove(c);
                self.lasts.remove(c);
            }
        }
        self.len -= 1;
        e
    }

    /// Removes the entry equal to `e`, or else (a key that moved) `e`'s row found by a
    /// scan. Returns it if one was there.
    pub fn remove(&mut self, e: &Entry, sort: &Sort) -> Option<Entry> {
        let at = self.find_at(e, sort).or_else(|| self.scan_at(&e.obj))?;
        Some(self.remove_place(at))
    }

    /// Removes the entry equal to `e` if there is one (no scan otherwise).
    pub fn remove_found(&mut self, e: &Entry, sort: &Sort) -> Option<Entry> {
        let at = self.find_at(e, sort)?;
        Some(self.remove_place(at))
    }

    /// [`Index::change`] for the index whose entries own the rows' slots (the table's
    /// every row): `new` takes the slot of `old`'s entry if it is here, else `alloc()`'s.
    /// Returns `new`'s slot and the slot of an entry that left (`old`'s without a
    /// `new`, or one that `new` replaced as equal).
    pub fn change_owned(
        &mut self,
        old: Option<&Entry>,
        new: Option<Entry>,
        sort: &Sort,
        alloc: impl FnOnce() -> u32,
    ) -> (Option<u32>, Option<u32>) {
        let Some(mut n) = new else {
            let gone = old.and_then(|o| self.remove(o, sort));
            return (None, gone.map(|e| e.slot));
        };
        let at = old.and_then(|o| self.find_at(o, sort).or_else(|| self.scan_at(&o.obj)));
        match at {
            Some(at) => {
                n.slot = self.at(at).map_or(NO_SLOT, |e| e.slot);
                let slot = n.slot;
                if self.fits(at, &n, sort) {
                    self.set_at(at, n);
                    return (Some(slot), None);
                }
                self.remove_place(at);
                (Some(slot), self.insert_owned(n, sort))
            }
            None => {
                n.slot = alloc();
                let slot = n.slot;
                (Some(slot), self.insert_owned(n, sort))
            }
        }
    }

    /// Inserts `e` in order; returns the slot of an equal entry it replaced.
    fn insert_owned(&mut self, e: Entry, sort: &Sort) -> Option<u32> {
        let at = self.seek_entry(&e, sort);
        match self.at(at) {
            Some(p) if p.cmp(&e, sort) == Ordering::Equal => {
                let gone = p.slot;
                self.set_at(at, e);
                Some(gone)
            }
            _ => {
                self.insert_place(at, e);
                None
            }
        }
    }

    /// The place after `at` (an entry's), across chunks.
    fn after(&self, (c, o): At) -> At {
        match self.chunks.get(c) {
            Some(chunk) if o + 1 < chunk.len() => (c, o + 1),
            _ => (c + 1, 0),
        }
    }

    /// The entries before and after the entry at `at` (across chunks; before the end,
    /// the last entry).
    fn neighbours(&self, (c, o): At) -> (Option<&Entry>, Option<&Entry>) {
        let chunk = self.chunks.get(c);
        let before = match o {
            0 => c
                .checked_sub(1)
                .and_then(|p| self.chunks.get(p))
                .and_then(|p| p.last()),
            _ => chunk.and_then(|ch| ch.get(o - 1)),
        };
        let after = chunk
            .and_then(|ch| ch.get(o + 1))
            .or_else(|| self.chunks.get(c + 1).and_then(|n| n.first()));
        (before, after)
    }

    /// Whether `new` sorts at `at` (in place of the entry there).
    fn fits(&self, at: At, new: &Entry, sort: &Sort) -> bool {
        let (before, after) = self.neighbours(at);
        before.is_none_or(|p| p.cmp(new, sort) == Ordering::Less)
            && after.is_none_or(|p| new.cmp(p, sort) == Ordering::Less)
    }

    /// One row changed: `old` (its entry here) leaves, `new` comes.
    pub fn change(&mut self, old: Option<&Entry>, new: Option<&Entry>, sort: &Sort) {
        match (old, new) {
            // One search for the old entry, kept for the move.
            (Some(o), Some(n)) => match self.find_at(o, sort) {
                Some(at) if self.fits(at, n, sort) => self.set_at(at, n.clone()),
                at => {
                    if let Some(at) = at.or_else(|| self.scan_at(&o.obj)) {
                        self.remove_place(at);
                    }
                    self.insert(n.clone(), sort);
                }
            },
            (Some(o), None) => {
                self.remove(o, sort);
            }
            (None, Some(n)) => {
                self.insert(n.clone(), sort);
            }
            (None, None) => {}
        }
    }

    /// Replaces `old`'s entry with `new` when `new` sorts in the same place (moving
    /// nothing). Returns whether it did.
    pub fn replace(&mut self, old: &Entry, new: &Entry, sort: &Sort) -> bool {
        let Some(at) = self.find_at(old, sort) else {
            return false;
        };
        let fits = self.fits(at, new, sort);
        if fits {
            self.set_at(at, new.clone());
        }
        fits
    }

    /// The same rows under `sort`, which differs from the index's sort in direction
    /// only (see [`Flip`]), at once.
    pub fn flipped(self, sort: &Sort) -> Index {
        let mut flip = Flip::new(self, sort);
        loop {
            if let Progress::Done(index) = flip.advance(f64::INFINITY, &|| 0.0) {
                return index;
            }
        }
    }

    /// The first `k` rows of this index flipped ([`Index::flipped`]; `sort` is this
    /// index's): the last rows, each run of rows equal in the column taken from its
    /// start (they stay by namespace and name). Binary searches, no pass.
    pub fn first_flipped(&self, sort: &Sort, k: usize) -> Vec<Arc<Object>> {
        let long = continues(sort);
        let mut rows = Vec::with_capacity(k.min(self.len));
        // By places: a position counts the chunks before it, for each of up to `k` runs.
        let mut end: At = (self.chunks.len(), 0);
        while rows.len() < k {
            let Some(last) = self.neighbours(end).0 else {
                break;
            };
            let start = self.seek(|e| e.cmp_column(last, sort, long) == Ordering::Less);
            let mut at = start;
            while at != end && rows.len() < k {
                let Some(e) = self.at(at) else {
                    break;
                };
                rows.push(e.obj.clone());
                at = self.after(at);
            }
            end = start;
        }
        rows
    }

    /// The same rows, keyed for `sort` and sorted (this index is left as it is).
    pub fn rekeyed(&self, sort: &Sort) -> Index {
        let entries: Vec<Entry> = self
            .iter()
            .map(|e| Entry::in_slot(sort, e.obj.clone(), e.slot))
            .collect();
        Index::sort(entries, sort)
    }

    /// With `added` (sorted) merged in; an entry equal to one held replaces it (its
    /// slot is pushed on `gone`). A few are inserted one by one, many in one pass over
    /// both.
    pub fn merged(mut self, added: Vec<Entry>, sort: &Sort, gone: &mut Vec<u32>) -> Index {
        if added.len() < self.len / 64 {
            for e in added {
                gone.extend(self.insert_owned(e, sort));
            }
            return self;
        }
        let mut out = Vec::with_capacity(self.len + added.len());
        let mut old = self.chunks.into_iter().flatten().peekable();
        for e in added {
            while let Some(p) = old.next_if(|p| p.cmp(&e, sort) == Ordering::Less) {
                out.push(p);
            }
            if let Some(p) = old.next_if(|p| p.cmp(&e, sort) == Ordering::Equal) {
                gone.push(p.slot);
            }
            out.push(e);
        }
        out.extend(old);
        Index::from_sorted(out)
    }

    pub fn clear(&mut self) {
        self.chunks.clear();
        self.lasts.clear();
        self.len = 0;
    }

    /// Drops the last chunk's entries (an index being released in slices). Returns
    /// whether there was one.
    pub fn drop_chunk(&mut self) -> bool {
        let Some(c) = self.chunks.pop() else {
            return false;
        };
        self.lasts.pop();
        self.len -= c.len();
        true
    }
}

/// What a slice of work on an index under way came to.
pub enum Progress {
    Working,
    Done(Index),
    /// The rows are not what the work started from.
    Failed,
}

/// Items handled between two looks at the clock (tests: a few, so that slices stop
/// anywhere).
const FLIP_STEP: usize = if cfg!(test) { 8 } else { 1 << 14 };

/// An index flipped in slices: the same rows under a sort that differs in direction
/// only. Keys flipped and the order reversed, then each run of rows equal in the
/// column reversed back (they stay by namespace and name). In place, in one pass and
/// the runs' swaps; objects are read only where prefixes tie inexactly.
pub struct Flip {
    index: Index,
    sort: Sort,
    step: FlipStep,
}

enum FlipStep {
    /// Chunks below this one are reversed and their keys flipped.
    Reverse(usize),
    /// Runs of rows equal in the column, as (first, last) (chunk, offset) pairs, found
    /// up to `at`; the current run starts at `start`.
    Runs {
        runs: Vec<((usize, usize), (usize, usize))>,
        start: (usize, usize),
        at: (usize, usize),
    },
    /// Runs before the last one reversed back; the last from `a` to `b` still to be.
    Swaps {
        runs: Vec<((usize, usize), (usize, usize))>,
        a: (usize, usize),
        b: (usize, usize),
    },
}

impl Flip {
    pub fn new(mut index: Index, sort: &Sort) -> Flip {
        index.chunks.reverse();
        Flip {
            index,
            sort: sort.clone(),
            step: FlipStep::Reverse(0),
        }
    }

    /// The rows being flipped.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Goes on until `clock()` reaches `deadline`.
    pub fn advance(&mut self, deadline: f64, clock: &dyn Fn() -> f64) -> Progress {
        let long = continues(&self.sort);
        let chunks = &mut self.index.chunks;
        loop {
            if clock() >= deadline {
                return Progress::Working;
            }
            match &mut self.step {
                FlipStep::Reverse(c) => {
                    let end = (*c + FLIP_STEP / CHUNK + 1).min(chunks.len());
                    for chunk in &mut chunks[*c..end] {
                        chunk.reverse();
                        for e in chunk.iter_mut() {
                            e.key.flip(long);
                        }
                    }
                    *c = end;
                    if end == chunks.len() {
                        self.step = FlipStep::Runs {
                            runs: Vec::new(),
                            start: (0, 0),
                            at: (0, 0),
                        };
                    }
                }
                FlipStep::Runs { runs, start, at } => {
                    let mut budget = FLIP_STEP;
                    while at.0 < chunks.len() && budget > 0 {
                        let (c, o) = *at;
                        let first = &chunks[start.0][start.1];
                        if chunks[c][o].cmp_column(first, &self.sort, long) != Ordering::Equal {
                            let last = previous(chunks, *at);
                            if *start != last {
                                runs.push((*start, last));
                            }
                            *start = *at;
                        }
                        *at = next(chunks, *at);
                        budget -= 1;
                    }
                    if at.0 < chunks.len() {
                        continue;
                    }
                    let mut runs = std::mem::take(runs);
                    if !chunks.is_empty() {
                        let last = previous(chunks, *at);
                        if *start != last {
                            runs.push((*start, last));
                        }
                    }
                    match runs.pop() {
                        Some((a, b)) => self.step = FlipStep::Swaps { runs, a, b },
                        None => return Progress::Done(std::mem::take(&mut self.index).relinked()),
                    }
                }
                FlipStep::Swaps { runs, a, b } => {
                    let mut budget = FLIP_STEP;
                    while *a < *b && budget > 0 {
                        if a.0 == b.0 {
                            chunks[a.0][a.1..=b.1].reverse();
                            break;
                        }
                        let (left, right) = chunks.split_at_mut(b.0);
                        std::mem::swap(&mut left[a.0][a.1], &mut right[0][b.1]);
                        *a = next(chunks, *a);
                        *b = previous(chunks, *b);
                        budget -= 1;
                    }
                    if budget == 0 {
                        continue;
                    }
                    match runs.pop() {
                        Some((x, y)) => (*a, *b) = (x, y),
                        None => return Progress::Done(std::mem::take(&mut self.index).relinked()),
                    }
                }
            }
        }
    }
}

/// The place after `at` (chunk, offset) across chunks (none empty).
fn next(chunks: &[Vec<Entry>], (c, o): (usize, usize)) -> (usize, usize) {
    if o + 1 < chunks[c].len() {
        (c, o + 1)
    } else {
        (c + 1, 0)
    }
}

/// The place before `at` (not the first) across chunks (none empty).
fn previous(chunks: &[Vec<Entry>], (c, o): (usize, usize)) -> (usize, usize) {
    match o {
        0 => (c - 1, chunks[c - 1].len() - 1),
        _ => (c, o - 1),
    }
}

#[cfg(test)]
pub(super) fn natural_prefix_agrees(a: &str, b: &str) -> bool {
    let ((pa, ea), (pb, eb)) = (text_prefix(a), text_prefix(b));
    let full = natural_cmp(a, b);
    match pa.cmp(&pb) {
        Ordering::Equal => !(ea && eb) || full == Ordering::Equal,
        o => o == full,
    }
}
