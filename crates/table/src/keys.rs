//! Sort keys prepared ahead of a click on a column not sorted by yet.
//!
//! Sorting by reading one cell of every row from the objects, which are spread over
//! the heap, costs ~1 s at a million rows before any comparison. So each of
//! the view's columns (the name column aside: see `index::continues`) keeps one
//! `u64` per row, by the row's slot, built in slices of idle frames once the table is
//! synced (nothing during the sync) and updated on every change once built. A click
//! then sorts those words: a stable LSD radix sort (only over the bytes that differ)
//! of the slots taken in namespace-and-name order (the sorts' tie-break, kept here as
//! well), and builds the new index's entries from the words, reading no object.
//!
//! Words: numbers and dates as their ordered bits ([`f64_bits`]), count pairs
//! (`1/2`) as one word, text as an id in a dictionary of the column's values whose
//! sorted order is computed at the sort (text columns with too many distinct values,
//! such as an IP, are not prepared: a click on one sorts by reading the cells).

use super::index::{
    f64_bits, kind_prefix, ordered_number_prefix, text_prefix, tie_prefix, Entry, Index, Key,
    Primary as Words, Progress, Tie, NO_SLOT,
};
use super::Sort;
use super::{natural_cmp, Column, Primary, SortAs, SortKey};
use kubelive_core::Object;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

/// A missing cell (`Primary::None`): after everything.
const MISSING: u64 = u64::MAX;
/// A number column's cell without a number: after every number.
const NO_NUMBER: u64 = u64::MAX - 1;
/// Text columns with more distinct values than this are not prepared.
const DICT_MAX: usize = 1 << 14;
/// Rows handled between two looks at the clock (tests: a few, so that slices stop
/// mid-way through every phase).
const STEP: usize = if cfg!(test) { 4 } else { 1024 };
/// Rows sorted at once when the name order is built (then merged in slices).
const BLOCK: usize = if cfg!(test) { 16 } else { 8192 };

/// Items of a sort under way handled between two looks at the clock: a radix pass
/// or the places (tests: a few, so that slices stop mid-way through every phase).
const RADIX_STEP: usize = if cfg!(test) { 8 } else { 1 << 16 };
/// Entries laid out or filled between two looks at the clock.
const FILL_STEP: usize = if cfg!(test) { 8 } else { 1 << 14 };

/// An index being built from the prepared words, in slices ([`Prepared::advance`]).
pub struct Build {
    sort: Sort,
    rows: usize,
    step: Step,
}

/// Where a [`Build`] is.
enum Step {
    /// The (word, slot) pairs being taken from the name order, a chunk at a time.
    Items {
        items: Vec<(u64, u32)>,
        chunk: usize,
    },
    Radix(Radix),
    /// Each slot's place, from the sorted pairs up to `at`.
    Places {
        items: Vec<(u64, u32)>,
        place: Vec<u32>,
        at: usize,
    },
    Filler {
        place: Vec<u32>,
        index: Index,
        filler: Entry,
    },
    /// The entries of the slots below `at` written to their places.
    Fill {
        place: Vec<u32>,
        index: Index,
        text: Vec<(Words, bool)>,
        at: usize,
        filled: usize,
    },
}

/// Slots looked at per call by [`Prepared::first_slots`].
const FIRST_BLOCK: usize = 1 << 14;

/// [`Prepared::first_slots`] over the slots from `from` (`objs` and `words` start
/// there): each that beats the last of the best `k` so far takes its place among them.
#[inline(never)]
fn keep_best(
    best: &mut Vec<(u64, u32)>,
    k: usize,
    from: usize,
    objs: &[Option<Arc<Object>>],
    words: &[u64],
    sortable: &impl Fn(u64) -> u64,
    before: &impl Fn((u64, u32), (u64, u32)) -> bool,
) {
    for (i, (obj, &w)) in objs.iter().zip(words).enumerate() {
        if obj.is_none() {
            continue;
        }
        let item = (sortable(w), (from + i) as u32);
        if best.len() == k && best.last().is_some_and(|&last| !before(item, last)) {
            continue;
        }
        let at = best.partition_point(|&b| before(b, item));
        best.insert(at, item);
        best.truncate(k);
    }
}

/// Whether `col` can be prepared: a name column sorts by its long keys (and is the
/// table's first sort, kept or flipped in place).
fn preparable(col: &Column) -> bool {
    !(col.is_name && col.sort_as == SortAs::Text)
}

/// How one column's words are made (decided by the first cell that is not missing).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Unknown,
    /// Dictionary ids.
    Text,
    /// Ordered bits of a number of this rank (`Primary::Num` or `Older`).
    Number(u8),
}

/// One column's words by slot.
struct ColumnKeys {
    col: Column,
    words: Vec<u64>,
    /// Slots below this have been written since the column was added.
    built: usize,
    mode: Mode,
    /// Text: value -> id, and the values by id.
    ids: HashMap<Box<str>, u32>,
    values: Vec<Box<str>>,
    /// Id -> rank in natural order (None: values came since).
    ranks: Option<Vec<u32>>,
    /// A cell the words cannot order (another kind, too many values): not prepared.
    refused: bool,
}

impl ColumnKeys {
    fn new(col: &Column, slots: usize) -> ColumnKeys {
        ColumnKeys {
            col: col.clone(),
            words: vec![MISSING; slots],
            built: 0,
            mode: Mode::Unknown,
            ids: HashMap::new(),
            values: Vec::new(),
            ranks: None,
            refused: false,
        }
    }

    fn write(&mut self, slot: usize, o: &Object) {
        if self.refused {
            return;
        }
        let k = SortKey::of(&self.col, o);
        match self.word(&k.primary) {
            Some(w) => self.words[slot] = w,
            None => {
                self.refused = true;
                self.words = Vec::new();
                self.ids = HashMap::new();
                self.values = Vec::new();
            }
        }
    }

    /// The word of a cell; None if this column's words cannot order it.
    fn word(&mut self, p: &Primary<'_>) -> Option<u64> {
        let mode = match p {
            Primary::None => return Some(MISSING),
            Primary::Str(_) => Mode::Text,
            Primary::Num(_) | Primary::Older(_) => Mode::Number(p.rank()),
        };
        if self.mode == Mode::Unknown {
            self.mode = mode;
        }
        if self.mode != mode {
            return None;
        }
        match p {
            Primary::Str(s) => {
                if let Some(&id) = self.ids.get(&**s) {
                    return Some(id as u64);
                }
                if self.values.len() >= DICT_MAX {
                    return None;
                }
                let id = self.values.len() as u32;
                self.values.push((&**s).into());
                self.ids.insert((&**s).into(), id);
                self.ranks = None;
                Some(id as u64)
            }
            Primary::Num(Some(x)) | Primary::Older(Some(x)) => {
                Some(f64_bits(*x)).filter(|&b| b < NO_NUMBER)
            }
            Primary::Num(None) | Primary::Older(None) => Some(NO_NUMBER),
            Primary::None => Some(MISSING),
        }
    }

    /// The dictionary's ranks, computed if values came.
    fn rank(&mut self) {
        if self.ranks.is_some() {
            return;
        }
        let mut by_value: Vec<u32> = (0..self.values.len() as u32).collect();
        by_value.sort_unstable_by(|&a, &b| {
            natural_cmp(&self.values[a as usize], &self.values[b as usize])
        });
        let mut ranks = vec![0; self.values.len()];
        for (rank, id) in by_value.into_iter().enumerate() {
            ranks[id as usize] = rank as u32;
        }
        self.ranks = Some(ranks);
    }
}

/// The slots in namespace-and-name order, as far as they are built.
enum Base {
    /// Not yet (the table is syncing, or was rebuilt).
    None,
    /// Each slot's `namespace \0 name` words being read (those below the cursor are).
    Ties(usize),
    /// The slots in use being sorted by them; slots added meanwhile wait.
    Sorting(MergeSort, Vec<u32>),
    Ready(Chunks),
}

/// The rows' slots and what is prepared for them.
pub struct Prepared {
    /// The row in each slot (the version the table's index holds); None: free.
    objs: Vec<Option<Arc<Object>>>,
    free: Vec<u32>,
    len: usize,
    /// Each slot's `namespace \0 name` words (kept once the base is started).
    ties: Vec<Tie>,
    tie_exact: Vec<bool>,
    base: Base,
    cols: Vec<ColumnKeys>,
}

impl Default for Prepared {
    fn default() -> Self {
        Prepared {
            objs: Vec::new(),
            free: Vec::new(),
            len: 0,
            ties: Vec::new(),
            tie_exact: Vec::new(),
            base: Base::None,
            cols: Vec::new(),
        }
    }
}

/// Compares slots by namespace and name.
struct Names<'a> {
    ties: &'a [Tie],
    exact: &'a [bool],
    objs: &'a [Option<Arc<Object>>],
    /// Rows that left while the name order was being sorted, still compared by it.
    parked: Option<&'a HashMap<u32, Arc<Object>>>,
}

impl Names<'_> {
    fn obj(&self, slot: u32) -> Option<&Arc<Object>> {
        self.objs[slot as usize]
            .as_ref()
            .or_else(|| self.parked?.get(&slot))
    }
}

impl Names<'_> {
    fn cmp(&self, a: u32, b: u32) -> Ordering {
        let (x, y) = (a as usize, b as usize);
        match self.ties[x].cmp(&self.ties[y]) {
            Ordering::Equal if !(self.exact[x] && self.exact[y]) => {
                match (self.obj(a), self.obj(b)) {
                    (Some(p), Some(q)) => (p.namespace(), p.name()).cmp(&(q.namespace(), q.name())),
                    _ => Ordering::Equal,
                }
            }
            o => o,
        }
        .then(a.cmp(&b))
    }
}

impl Build {
    /// The rows being sorted.
    pub fn rows(&self) -> usize {
        self.rows
    }
}

impl Prepared {
    /// Rows held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Forgets every row and what was prepared (the index is rebuilt).
    pub fn reset(&mut self) {
        *self = Prepared::default();
    }

    fn ties_kept(&self) -> bool {
        !matches!(self.base, Base::None)
    }

    /// A free slot for a new row (then [`Prepared::put`]).
    pub fn reserve(&mut self) -> u32 {
        // Not while the base sorts: its comparisons read the slots' words.
        if !matches!(self.base, Base::Sorting(..)) {
            if let Some(s) = self.free.pop() {
                return s;
            }
        }
        let s = self.objs.len();
        self.objs.push(None);
        if self.ties_kept() {
            self.ties.push([0; 4]);
            self.tie_exact.push(true);
        }
        for c in &mut self.cols {
            if !c.refused {
                c.words.push(MISSING);
            }
        }
        s as u32
    }

    /// Row `slot` is now `o` (a new row in a reserved slot, or a change).
    pub fn put(&mut self, slot: u32, o: &Arc<Object>) {
        let s = slot as usize;
        let Some(held) = self.objs.get_mut(s) else {
            return;
        };
        let was = held.replace(o.clone());
        if was.is_none() {
            self.len += 1;
        }
        if self.ties_kept() {
            let (tie, exact) = tie_prefix(o.namespace(), o.name());
            let renamed = was.is_some() && (self.ties[s], self.tie_exact[s]) != (tie, exact);
            if renamed {
                if matches!(self.base, Base::Sorting(..)) {
                    // Its words move under the sort: sorted again later.
                    self.base = Base::Ties(0);
                } else {
                    self.unlink(slot);
                }
            }
            self.ties[s] = tie;
            self.tie_exact[s] = exact;
            if was.is_none() || renamed {
                self.link(slot);
            }
        }
        for c in &mut self.cols {
            c.write(s, o);
        }
    }

    /// Row `slot` left.
    pub fn release(&mut self, slot: u32) {
        if self.objs.get(slot as usize).is_none_or(Option::is_none) {
            return;
        }
        // Found by its name while the object is there (a name longer than the tie
        // words is compared in full: without it the search would miss, and scan).
        if self.ties_kept() {
            self.unlink(slot);
        }
        let gone = self.objs[slot as usize].take();
        if let (Base::Sorting(sort, _), Some(o)) = (&mut self.base, gone) {
            // The sort under way compares it still (and leaves it out at the end).
            sort.parked.insert(slot, o);
        }
        self.len -= 1;
        self.free.push(slot);
    }

    fn link(&mut self, slot: u32) {
        let names = Names {
            ties: &self.ties,
            exact: &self.tie_exact,
            objs: &self.objs,
            parked: None,
        };
        match &mut self.base {
            Base::Sorting(_, waiting) => waiting.push(slot),
            Base::Ready(order) => order.insert(slot, |a, b| names.cmp(a, b)),
            Base::None | Base::Ties(_) => {}
        }
    }

    fn unlink(&mut self, slot: u32) {
        let names = Names {
            ties: &self.ties,
            exact: &self.tie_exact,
            objs: &self.objs,
            parked: None,
        };
        match &mut self.base {
            // Left out when the sort is done.
            Base::Sorting(..) => {}
            Base::Ready(order) => order.remove(slot, |a, b| names.cmp(a, b)),
            Base::None | Base::Ties(_) => {}
        }
    }

    /// Prepares `cols` (the view's) until `clock()` reaches `deadline`. Returns
    /// whether work is left.
    pub fn prepare(&mut self, cols: &[Column], deadline: f64, clock: &dyn Fn() -> f64) -> bool {
        self.cols.retain(|c| cols.contains(&c.col));
        for col in cols {
            if preparable(col) && !self.cols.iter().any(|c| c.col == *col) {
                self.cols.push(ColumnKeys::new(col, self.objs.len()));
            }
        }
        if !self.prepare_base(deadline, clock) {
            return true;
        }
        for c in &mut self.cols {
            while c.built < self.objs.len() && !c.refused {
                if c.built % STEP == 0 && clock() >= deadline {
                    return true;
                }
                if let Some(o) = &self.objs[c.built] {
                    c.write(c.built, o);
                }
                c.built += 1;
            }
            if c.mode == Mode::Text && !c.refused && c.ranks.is_none() {
                if clock() >= deadline {
                    return true;
                }
                c.rank();
            }
        }
        false
    }

    /// Goes on building the name order. Returns whether it is ready.
    fn prepare_base(&mut self, deadline: f64, clock: &dyn Fn() -> f64) -> bool {
        loop {
            match &mut self.base {
                Base::Ready(_) => return true,
                Base::None => {
                    self.ties = vec![[0; 4]; self.objs.len()];
                    self.tie_exact = vec![true; self.objs.len()];
                    self.base = Base::Ties(0);
                }
                Base::Ties(at) => {
                    while *at < self.objs.len() {
                        if *at % STEP == 0 && clock() >= deadline {
                            return false;
                        }
                        if let Some(o) = &self.objs[*at] {
                            let (tie, exact) = tie_prefix(o.namespace(), o.name());
                            self.ties[*at] = tie;
                            self.tie_exact[*at] = exact;
                        }
                        *at += 1;
                    }
                    let slots: Vec<u32> = (0..self.objs.len() as u32)
                        .filter(|&s| self.objs[s as usize].is_some())
                        .collect();
                    self.base = Base::Sorting(MergeSort::new(slots), Vec::new());
                }
                Base::Sorting(sort, _) => {
                    let parked = std::mem::take(&mut sort.parked);
                    let names = Names {
                        ties: &self.ties,
                        exact: &self.tie_exact,
                        objs: &self.objs,
                        parked: Some(&parked),
                    };
                    let done = sort.step(|a, b| names.cmp(a, b), deadline, clock);
                    sort.parked = parked;
                    if !done {
                        return false;
                    }
                    let Base::Sorting(sort, waiting) =
                        std::mem::replace(&mut self.base, Base::None)
                    else {
                        return false;
                    };
                    // Rows that left meanwhile are dropped in one pass (their objects
                    // are gone: a search by name would miss); the slots were not reused,
                    // so the new ones are those added meanwhile, linked one by one.
                    let mut items = sort.items;
                    items.retain(|&s| self.objs[s as usize].is_some());
                    self.base = Base::Ready(Chunks::from_vec(items));
                    for slot in waiting {
                        if self.objs[slot as usize].is_some() {
                            self.link(slot);
                        }
                    }
                }
            }
        }
    }

    /// Whether a sort by `col` would find its words ready.
    pub fn ready(&self, col: &Column) -> bool {
        matches!(self.base, Base::Ready(_))
            && self
                .cols
                .iter()
                .any(|c| c.col == *col && !c.refused && c.built >= self.objs.len())
    }

    /// The index of the rows held sorted by `sort` (whose key does not continue into
    /// the tie words), from the prepared words; None if they are not ready or `rows`
    /// (the table's row count) says the rows held are not the index's.
    pub fn sorted(&mut self, sort: &Sort, rows: usize) -> Option<Index> {
        let mut build = self.start(sort, rows)?;
        loop {
            match self.advance(&mut build, f64::INFINITY, &|| 0.0) {
                Progress::Working => {}
                Progress::Done(index) => return Some(index),
                Progress::Failed => return None,
            }
        }
    }

    /// Starts building the index of [`Prepared::sorted`] in slices (see
    /// [`Prepared::advance`]); None if the words are not ready. The rows must not
    /// change until it is done.
    pub fn start(&mut self, sort: &Sort, rows: usize) -> Option<Build> {
        if !preparable(&sort.col) || rows != self.len || !self.ready(&sort.col) {
            return None;
        }
        let c = self.cols.iter_mut().find(|c| c.col == sort.col)?;
        c.rank();
        Some(Build {
            sort: sort.clone(),
            rows,
            step: Step::Items {
                items: Vec::with_capacity(rows),
                chunk: 0,
            },
        })
    }

    /// The column's words as the sort orders them (text by its rank, reversed for a
    /// descending sort); slots with equal words go in name order.
    fn sortable<'a>(&'a self, sort: &Sort) -> Option<(&'a ColumnKeys, impl Fn(u64) -> u64 + 'a)> {
        let c = self.cols.iter().find(|c| c.col == sort.col)?;
        let flip = if sort.desc { !0 } else { 0 };
        let ranks = c.ranks.as_deref().unwrap_or_default();
        let mode = c.mode;
        Some((c, move |w: u64| {
            let w = match mode {
                Mode::Text if w != MISSING => ranks.get(w as usize).map_or(MISSING, |&r| r as u64),
                _ => w,
            };
            w ^ flip
        }))
    }

    /// The first `k` slots in the order [`Prepared::sorted`] gives (by the words, then
    /// by name), found in one pass over the slots without sorting them all: what a
    /// click shows at once while the index is built. Needs [`Prepared::start`] first.
    pub fn first_slots(&self, sort: &Sort, k: usize) -> Vec<u32> {
        let Some((c, sortable)) = self.sortable(sort) else {
            return Vec::new();
        };
        let names = Names {
            ties: &self.ties,
            exact: &self.tie_exact,
            objs: &self.objs,
            parked: None,
        };
        let before = |a: (u64, u32), b: (u64, u32)| {
            a.0.cmp(&b.0).then_with(|| names.cmp(a.1, b.1)) == Ordering::Less
        };
        // The best `k` so far, in order; most slots lose to the last at once. The pass
        // is many calls: V8 swaps in its optimised code for a hot function at its next
        // call (compiled meanwhile), so the first click runs optimised for most of it.
        let mut best: Vec<(u64, u32)> = Vec::with_capacity(k + 1);
        if k > 0 {
            for (b, objs) in self.objs.chunks(FIRST_BLOCK).enumerate() {
                let words = &c.words[b * FIRST_BLOCK..];
                keep_best(
                    &mut best,
                    k,
                    b * FIRST_BLOCK,
                    objs,
                    words,
                    &sortable,
                    &before,
                );
            }
        }
        best.into_iter().map(|(_, s)| s).collect()
    }

    /// Goes on with `build` until `clock()` reaches `deadline`.
    pub fn advance(&self, build: &mut Build, deadline: f64, clock: &dyn Fn() -> f64) -> Progress {
        let Some((c, sortable)) = self.sortable(&build.sort) else {
            return Progress::Failed;
        };
        let Base::Ready(order) = &self.base else {
            return Progress::Failed;
        };
        let rows = build.rows;
        loop {
            if clock() >= deadline {
                return Progress::Working;
            }
            match &mut build.step {
                // The (word, slot) pairs, in name order (the sort's tie-break).
                Step::Items { items, chunk } => {
                    let Some(slots) = order.chunks.get(*chunk) else {
                        let items = std::mem::take(items);
                        build.step = Step::Radix(Radix::new(items));
                        continue;
                    };
                    items.extend(slots.iter().map(|&s| (sortable(c.words[s as usize]), s)));
                    *chunk += 1;
                }
                Step::Radix(radix) => {
                    if !radix.step(RADIX_STEP) {
                        continue;
                    }
                    let items = std::mem::take(&mut radix.items);
                    build.step = Step::Places {
                        items,
                        place: vec![u32::MAX; self.objs.len()],
                        at: 0,
                    };
                }
                // Each slot's place.
                Step::Places { items, place, at } => {
                    let end = (*at + RADIX_STEP).min(items.len());
                    for (i, &(_, slot)) in items[*at..end].iter().enumerate() {
                        place[slot as usize] = (*at + i) as u32;
                    }
                    *at = end;
                    if end < items.len() {
                        continue;
                    }
                    let Some(filler) = self.objs.iter().flatten().next().map(|o| Entry {
                        key: Key::from_parts(kind_prefix(4), ([0; 4], true), false),
                        obj: o.clone(),
                        slot: NO_SLOT,
                    }) else {
                        return Progress::Failed;
                    };
                    build.step = Step::Filler {
                        place: std::mem::take(place),
                        index: Index::default(),
                        filler,
                    };
                }
                // The index laid out, each entry a placeholder for now (its object's
                // count is hot, where the rows' objects are not).
                Step::Filler {
                    place,
                    index,
                    filler,
                } => {
                    let end = (index.len() + FILL_STEP).min(rows);
                    while index.len() < end {
                        index.push_filled(rows - index.len(), filler);
                    }
                    if end < rows {
                        continue;
                    }
                    let text = match c.mode {
                        Mode::Text => c.values.iter().map(|v| text_prefix(v)).collect(),
                        _ => Vec::new(),
                    };
                    build.step = Step::Fill {
                        place: std::mem::take(place),
                        index: std::mem::take(index),
                        text,
                        at: 0,
                        filled: 0,
                    };
                }
                // The entries built in slot order (the rows' words and objects read in
                // the order they are held, mostly the order the objects were allocated
                // in: a read in sort order would miss the cache on every row) and
                // written to their places.
                Step::Fill {
                    place,
                    index,
                    text,
                    at,
                    filled,
                } => {
                    let end = (*at + FILL_STEP).min(self.objs.len());
                    for (s, (obj, &to)) in self.objs[*at..end]
                        .iter()
                        .zip(&place[*at..end])
                        .enumerate()
                        .map(|(i, held)| (*at + i, held))
                    {
                        let Some(obj) = obj else {
                            continue;
                        };
                        let to = to as usize;
                        if to >= rows {
                            return Progress::Failed;
                        }
                        let prefix = match (c.words[s], c.mode) {
                            (MISSING, _) => kind_prefix(4),
                            (w, Mode::Text) => {
                                text.get(w as usize).copied().unwrap_or(kind_prefix(4))
                            }
                            (NO_NUMBER, Mode::Number(rank)) => {
                                ([((rank as u64) << 56) | 1, 0, 0], true)
                            }
                            (w, Mode::Number(rank)) => ordered_number_prefix(rank, w),
                            (_, Mode::Unknown) => kind_prefix(4),
                        };
                        let key = Key::from_parts(
                            prefix,
                            (self.ties[s], self.tie_exact[s]),
                            build.sort.desc,
                        );
                        index.fill(
                            to,
                            Entry {
                                key,
                                obj: obj.clone(),
                                slot: s as u32,
                            },
                        );
                        *filled += 1;
                    }
                    *at = end;
                    if end < self.objs.len() {
                        continue;
                    }
                    if *filled != rows {
                        return Progress::Failed;
                    }
                    return Progress::Done(std::mem::take(index));
                }
            }
        }
    }

    /// Slots in name order, if built (tests).
    #[cfg(test)]
    pub fn by_name(&self) -> Option<Vec<u32>> {
        match &self.base {
            Base::Ready(order) => Some(order.iter().collect()),
            _ => None,
        }
    }

    /// The row in `slot`.
    pub fn obj(&self, slot: u32) -> Option<&Arc<Object>> {
        self.objs.get(slot as usize)?.as_ref()
    }
}

/// Sorts by the words, stably: one counting pass per byte that differs between them,
/// least significant first.
#[cfg(test)]
pub(super) fn radix_sort(items: &mut Vec<(u64, u32)>) {
    let mut radix = Radix::new(std::mem::take(items));
    while !radix.step(usize::MAX) {}
    *items = radix.items;
}

/// [`radix_sort`] that goes on where it stopped.
struct Radix {
    items: Vec<(u64, u32)>,
    tmp: Vec<(u64, u32)>,
    /// The bits in which some words differ from the first.
    diff: u64,
    /// The byte being sorted by (8: done).
    byte: u32,
    /// Each byte value's next place (after the counting pass), and how far the pass
    /// (counting, then placing) has gone.
    starts: Box<[usize; 256]>,
    counted: bool,
    at: usize,
}

impl Radix {
    fn new(items: Vec<(u64, u32)>) -> Radix {
        let first = items.first().map_or(0, |it| it.0);
        let diff = items.iter().fold(0, |d, it| d | (it.0 ^ first));
        let mut radix = Radix {
            items,
            tmp: Vec::new(),
            diff,
            byte: 0,
            starts: Box::new([0; 256]),
            counted: false,
            at: 0,
        };
        radix.skip_equal_bytes();
        radix
    }

    /// Moves on to the next byte in which the words differ.
    fn skip_equal_bytes(&mut self) {
        while self.byte < 8 && (self.diff >> (self.byte * 8)) & 0xff == 0 {
            self.byte += 1;
        }
    }

    /// Sorts on for about `budget` items. Returns whether the items are sorted.
    fn step(&mut self, mut budget: usize) -> bool {
        while self.byte < 8 {
            let shift = self.byte * 8;
            let n = self.items.len();
            let end = self.at.saturating_add(budget).min(n);
            budget -= end - self.at;
            if !self.counted {
                for it in &self.items[self.at..end] {
                    self.starts[((it.0 >> shift) & 0xff) as usize] += 1;
                }
                self.at = end;
                if end < n {
                    return false;
                }
                let mut sum = 0;
                for s in self.starts.iter_mut() {
                    let k = *s;
                    *s = sum;
                    sum += k;
                }
                if self.tmp.len() != n {
                    self.tmp = vec![(0u64, 0u32); n];
                }
                self.counted = true;
                self.at = 0;
            } else {
                for it in &self.items[self.at..end] {
                    let b = ((it.0 >> shift) & 0xff) as usize;
                    self.tmp[self.starts[b]] = *it;
                    self.starts[b] += 1;
                }
                self.at = end;
                if end < n {
                    return false;
                }
                std::mem::swap(&mut self.items, &mut self.tmp);
                *self.starts = [0; 256];
                self.counted = false;
                self.at = 0;
                self.byte += 1;
                self.skip_equal_bytes();
            }
            if budget == 0 {
                return self.byte >= 8;
            }
        }
        true
    }
}

/// A merge sort of slots that goes on where it stopped: blocks sorted, then merged
/// in pairs, a few thousand slots between two looks at the clock.
struct MergeSort {
    items: Vec<u32>,
    /// Rows that left meanwhile (see `Names::parked`).
    parked: HashMap<u32, Arc<Object>>,
    tmp: Vec<u32>,
    /// Sorted runs' length (0: blocks not sorted yet).
    width: usize,
    /// Where the current block or pair starts.
    at: usize,
    /// Within the pair: the next of the left run, of the right run, and the output.
    cursor: (usize, usize, usize),
}

impl MergeSort {
    fn new(items: Vec<u32>) -> MergeSort {
        MergeSort {
            parked: HashMap::new(),
            tmp: vec![0; items.len()],
            items,
            width: 0,
            at: 0,
            cursor: (0, 0, 0),
        }
    }

    /// Sorts on until done (true) or `deadline`.
    fn step(
        &mut self,
        cmp: impl Fn(u32, u32) -> Ordering,
        deadline: f64,
        clock: &dyn Fn() -> f64,
    ) -> bool {
        let n = self.items.len();
        loop {
            if clock() >= deadline {
                return false;
            }
            if self.width == 0 {
                let end = (self.at + BLOCK).min(n);
                self.items[self.at..end].sort_unstable_by(|&a, &b| cmp(a, b));
                self.at = end;
                if self.at >= n {
                    self.width = BLOCK;
                    self.start_pair(0);
                }
                continue;
            }
            if self.width >= n {
                return true;
            }
            let mid = (self.at + self.width).min(n);
            let end = (self.at + 2 * self.width).min(n);
            let (mut i, mut j, mut o) = self.cursor;
            let mut budget = 4 * STEP;
            while o < end && budget > 0 {
                let left =
                    i < mid && (j >= end || cmp(self.items[i], self.items[j]) != Ordering::Greater);
                self.tmp[o] = match left {
                    true => self.items[i],
                    false => self.items[j],
                };
                match left {
                    true => i += 1,
                    false => j += 1,
                }
                o += 1;
                budget -= 1;
            }
            self.cursor = (i, j, o);
            if o >= end {
                if end >= n {
                    std::mem::swap(&mut self.items, &mut self.tmp);
                    self.width *= 2;
                    self.start_pair(0);
                } else {
                    self.start_pair(end);
                }
            }
        }
    }

    fn start_pair(&mut self, at: usize) {
        self.at = at;
        self.cursor = (at, (at + self.width).min(self.items.len()), at);
    }
}

/// Slots at most per chunk of [`Chunks`].
const CHUNK: usize = 1024;

/// A sorted list of slots in chunks (an insert moves at most one chunk).
#[derive(Default)]
struct Chunks {
    chunks: Vec<Vec<u32>>,
}

impl Chunks {
    fn from_vec(v: Vec<u32>) -> Chunks {
        Chunks {
            chunks: v.chunks(CHUNK * 3 / 4).map(<[u32]>::to_vec).collect(),
        }
    }

    #[cfg(test)]
    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.chunks.iter().flatten().copied()
    }

    /// The chunk and offset of the first slot not before `slot`.
    fn seek(&self, slot: u32, cmp: &impl Fn(u32, u32) -> Ordering) -> (usize, usize) {
        let before = |p: u32| cmp(p, slot) == Ordering::Less;
        let c = self
            .chunks
            .partition_point(|ch| ch.last().is_some_and(|&p| before(p)));
        match self.chunks.get(c) {
            Some(ch) => (c, ch.partition_point(|&p| before(p))),
            None => (c, 0),
        }
    }

    fn insert(&mut self, slot: u32, cmp: impl Fn(u32, u32) -> Ordering) {
        if self.chunks.is_empty() {
            self.chunks.push(vec![slot]);
            return;
        }
        let (mut c, mut o) = self.seek(slot, &cmp);
        if c == self.chunks.len() {
            c -= 1;
            o = self.chunks[c].len();
        }
        let ch = &mut self.chunks[c];
        ch.insert(o, slot);
        if ch.len() > CHUNK {
            let tail = ch.split_off(CHUNK / 2);
            self.chunks.insert(c + 1, tail);
        }
    }

    /// Removes `slot` (where its words say, else found by a scan).
    fn remove(&mut self, slot: u32, cmp: impl Fn(u32, u32) -> Ordering) {
        let (c, o) = self.seek(slot, &cmp);
        let at = match self.chunks.get(c).and_then(|ch| ch.get(o)) {
            Some(&p) if p == slot => Some((c, o)),
            _ => self
                .chunks
                .iter()
                .enumerate()
                .find_map(|(ci, ch)| ch.iter().position(|&p| p == slot).map(|oi| (ci, oi))),
        };
        if let Some((c, o)) = at {
            self.chunks[c].remove(o);
            if self.chunks[c].is_empty() {
                self.chunks.remove(c);
            }
        }
    }
}
