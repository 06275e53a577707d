//! The live table's model: which columns a resource has, how rows sort and filter,
//! and a sorted, filtered index kept up to date from engine events.
//!
//! Small batches are applied incrementally (binary search, insert/remove); a large
//! batch (a LIST page, a relist) marks the index stale and it is rebuilt from the
//! store, throttled, never per event. Changed rows flash; deleted rows stay for a
//! moment marked as gone, then leave.

use crate::time::{human_duration, parse_rfc3339};
use kubelive_core::{ColumnKind, Columns, Event, Object, Store};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

/// How long a deleted row stays (fading out) before it leaves the table.
pub const FADE_MS: f64 = 1500.0;
/// How long a changed row is marked as changed.
pub const FLASH_MS: f64 = 1200.0;
/// Batches larger than this (and than 2% of the rows) are not applied row by row: the
/// index is rebuilt (or, for new objects only, merged).
const INCREMENTAL_MAX: usize = 256;
/// Minimum time between two rebuilds of a large index.
const REBUILD_EVERY_MS: f64 = 250.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Col {
    Name,
    Namespace,
    Ready,
    Status,
    Restarts,
    Node,
    UpToDate,
    Available,
    Age,
}

impl Col {
    pub const ALL: [Col; 9] = [
        Col::Name,
        Col::Namespace,
        Col::Ready,
        Col::Status,
        Col::Restarts,
        Col::Node,
        Col::UpToDate,
        Col::Available,
        Col::Age,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Col::Name => "name",
            Col::Namespace => "namespace",
            Col::Ready => "ready",
            Col::Status => "status",
            Col::Restarts => "restarts",
            Col::Node => "node",
            Col::UpToDate => "uptodate",
            Col::Available => "available",
            Col::Age => "age",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Col::Name => "Name",
            Col::Namespace => "Namespace",
            Col::Ready => "Ready",
            Col::Status => "Status",
            Col::Restarts => "Restarts",
            Col::Node => "Node",
            Col::UpToDate => "Up-to-date",
            Col::Available => "Available",
            Col::Age => "Age",
        }
    }

    pub fn from_id(id: &str) -> Option<Col> {
        Col::ALL.into_iter().find(|c| c.id() == id)
    }

    /// Numbers align right.
    pub fn numeric(self) -> bool {
        matches!(
            self,
            Col::Restarts | Col::UpToDate | Col::Available | Col::Age
        )
    }
}

/// The columns that fit a resource.
pub fn columns(kind: ColumnKind, namespaced: bool) -> Vec<Col> {
    let mut cols = vec![Col::Name];
    if namespaced {
        cols.push(Col::Namespace);
    }
    match kind {
        ColumnKind::Pod => cols.extend([Col::Ready, Col::Status, Col::Restarts, Col::Node]),
        ColumnKind::Deployment => cols.extend([Col::Ready, Col::UpToDate, Col::Available]),
        ColumnKind::Generic => {}
    }
    cols.push(Col::Age);
    cols
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sort {
    pub col: Col,
    pub desc: bool,
}

impl Default for Sort {
    fn default() -> Self {
        Sort {
            col: Col::Name,
            desc: false,
        }
    }
}

impl Sort {
    /// `name`, `-restarts`.
    pub fn parse(s: &str) -> Option<Sort> {
        let (desc, id) = match s.strip_prefix('-') {
            Some(id) => (true, id),
            None => (false, s),
        };
        Col::from_id(id).map(|col| Sort { col, desc })
    }

    pub fn to_param(self) -> String {
        format!("{}{}", if self.desc { "-" } else { "" }, self.col.id())
    }

    /// Clicking a column: the same column flips, another starts ascending.
    pub fn toggled(self, col: Col) -> Sort {
        if self.col == col {
            Sort {
                col,
                desc: !self.desc,
            }
        } else {
            Sort { col, desc: false }
        }
    }

    /// A total order: the column, then namespace and name (unique per object).
    pub fn compare(self, a: &Object, b: &Object) -> Ordering {
        let by_col = compare_col(self.col, a, b);
        let by_col = if self.desc { by_col.reverse() } else { by_col };
        by_col.then_with(|| (a.namespace(), a.name()).cmp(&(b.namespace(), b.name())))
    }
}

// The borrows keep this compiling whether the core's column strings are owned or
// borrowed (its API is moving to borrowed ones).
#[allow(clippy::needless_borrow)]
fn compare_col(col: Col, a: &Object, b: &Object) -> Ordering {
    match col {
        Col::Name => a.name().cmp(b.name()),
        Col::Namespace => a.namespace().cmp(b.namespace()),
        // Youngest first when ascending, like a list of recent things.
        Col::Age => b.creation_timestamp().cmp(&a.creation_timestamp()),
        _ => match (a.columns(), b.columns()) {
            (Columns::Pod(x), Columns::Pod(y)) => match col {
                Col::Ready => (x.ready, x.containers).cmp(&(y.ready, y.containers)),
                Col::Status => x.status.cmp(&y.status),
                Col::Restarts => x.restarts.cmp(&y.restarts),
                Col::Node => x.node.cmp(&y.node),
                _ => Ordering::Equal,
            },
            (Columns::Deployment(x), Columns::Deployment(y)) => match col {
                Col::Ready => (x.ready, x.desired).cmp(&(y.ready, y.desired)),
                Col::UpToDate => x.up_to_date.cmp(&y.up_to_date),
                Col::Available => x.available.cmp(&y.available),
                _ => Ordering::Equal,
            },
            _ => Ordering::Equal,
        },
    }
}

/// What a row sorts by, read out of its object once: the object's accessors check
/// UTF-8 (and pod columns parse spans) on every call, which a sort of 100,000 rows
/// would do some 3.4 million times (half the time of a sync of 100,000 pods).
#[derive(Clone, Copy)]
enum Primary<'a> {
    Str(&'a str),
    /// Reversed (youngest first when ascending).
    Age(Option<&'a str>),
    Nums(u32, u32),
    /// A column the object's kind does not have.
    None,
}

struct SortKey<'a> {
    primary: Primary<'a>,
    namespace: &'a str,
    name: &'a str,
}

impl<'a> SortKey<'a> {
    fn of(col: Col, o: &'a Object) -> SortKey<'a> {
        let primary = match col {
            Col::Name => Primary::Str(o.name()),
            Col::Namespace => Primary::Str(o.namespace()),
            Col::Age => Primary::Age(o.creation_timestamp()),
            _ => match o.columns() {
                Columns::Pod(p) => match col {
                    Col::Ready => Primary::Nums(p.ready.into(), p.containers.into()),
                    Col::Status => Primary::Str(p.status),
                    Col::Restarts => Primary::Nums(p.restarts, 0),
                    Col::Node => Primary::Str(p.node),
                    _ => Primary::None,
                },
                Columns::Deployment(d) => match col {
                    Col::Ready => Primary::Nums(d.ready, d.desired),
                    Col::UpToDate => Primary::Nums(d.up_to_date, 0),
                    Col::Available => Primary::Nums(d.available, 0),
                    _ => Primary::None,
                },
                Columns::Generic => Primary::None,
            },
        };
        SortKey {
            primary,
            namespace: o.namespace(),
            name: o.name(),
        }
    }

    /// The order of [`Sort::compare`] (which stays the reference: the index is kept
    /// with it between rebuilds).
    fn compare(&self, other: &SortKey<'_>, desc: bool) -> Ordering {
        let by_col = match (self.primary, other.primary) {
            (Primary::Str(a), Primary::Str(b)) => a.cmp(b),
            (Primary::Age(a), Primary::Age(b)) => b.cmp(&a),
            (Primary::Nums(a, x), Primary::Nums(b, y)) => (a, x).cmp(&(b, y)),
            _ => Ordering::Equal,
        };
        let by_col = if desc { by_col.reverse() } else { by_col };
        by_col.then_with(|| (self.namespace, self.name).cmp(&(other.namespace, other.name)))
    }
}

/// `rows` in `sort` order, each row's key read once.
fn sorted(rows: &[Arc<Object>], sort: Sort) -> Vec<Arc<Object>> {
    let mut keyed: Vec<(SortKey<'_>, &Arc<Object>)> =
        rows.iter().map(|o| (SortKey::of(sort.col, o), o)).collect();
    keyed.sort_unstable_by(|a, b| a.0.compare(&b.0, sort.desc));
    keyed.into_iter().map(|(_, o)| o.clone()).collect()
}

/// The text of one cell (`now` in Unix seconds, for ages).
pub fn cell(col: Col, o: &Object, now: f64) -> String {
    let mut out = String::new();
    write_cell(col, o, now, &mut out);
    out
}

/// Appends the text of one cell to `out` (the free-text filter reuses one buffer).
pub fn write_cell(col: Col, o: &Object, now: f64, out: &mut String) {
    use std::fmt::Write;
    let _ = match col {
        Col::Name => write!(out, "{}", o.name()),
        Col::Namespace => write!(out, "{}", o.namespace()),
        Col::Age => match o.creation_timestamp().and_then(parse_rfc3339) {
            Some(t) => write!(out, "{}", human_duration(now - t)),
            None => write!(out, "<unknown>"),
        },
        _ => match o.columns() {
            Columns::Pod(p) => match col {
                Col::Ready => write!(out, "{}/{}", p.ready, p.containers),
                Col::Status => write!(out, "{}", p.status),
                Col::Restarts => write!(out, "{}", p.restarts),
                Col::Node if p.node.is_empty() => write!(out, "<none>"),
                Col::Node => write!(out, "{}", p.node),
                _ => Ok(()),
            },
            Columns::Deployment(d) => match col {
                Col::Ready => write!(out, "{}/{}", d.ready, d.desired),
                Col::UpToDate => write!(out, "{}", d.up_to_date),
                Col::Available => write!(out, "{}", d.available),
                _ => Ok(()),
            },
            Columns::Generic => Ok(()),
        },
    };
}

/// The CSS class of a status cell, `st-<status>`, built only from `[a-z0-9-]`: the
/// status is server data, and a status `"x st-running"` must not add a class of its
/// own (it gives `st-xst-running`). None when nothing is left.
pub fn status_class(status: &str) -> Option<String> {
    let name: String = status
        .chars()
        .map(|c| c.to_ascii_lowercase())
        .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
        .collect();
    (!name.is_empty()).then(|| format!("st-{name}"))
}

/// The free-text filter: every word must appear (case-insensitive) in one of the
/// row's shown cells. Ages are left out: they change with the clock, not with the
/// object, and the index is only kept up to date on changes. Label and field
/// selectors are the server's business (see `query`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// Lowercase.
    words: Vec<String>,
    cols: Vec<Col>,
}

impl Filter {
    pub fn new(words: &[String], cols: &[Col]) -> Filter {
        Filter {
            words: words.iter().map(|w| w.to_lowercase()).collect(),
            cols: cols.iter().copied().filter(|c| *c != Col::Age).collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn matches(&self, o: &Object) -> bool {
        if self.words.is_empty() {
            return true;
        }
        // The shown cells, lowercase, in one buffer reused across rows (a filter over
        // 100,000 rows must not allocate per cell); a separator no word holds keeps
        // words from matching across two cells.
        thread_local! {
            static CELLS: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
        }
        CELLS.with(|cells| {
            let mut cells = cells.borrow_mut();
            cells.clear();
            for &c in &self.cols {
                write_cell(c, o, 0.0, &mut cells);
                cells.push('\u{1}');
            }
            if cells.is_ascii() {
                cells.make_ascii_lowercase();
            } else {
                *cells = cells.to_lowercase();
            }
            self.words.iter().all(|w| cells.contains(w.as_str()))
        })
    }
}

/// How a row looks right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowState {
    Normal,
    /// Added or modified recently; the generation alternates the animation.
    Changed {
        added: bool,
        generation: u32,
    },
    /// Deleted; fading out.
    Gone,
}

pub fn key_of(o: &Object) -> String {
    format!("{}/{}", o.namespace(), o.name())
}

/// The sorted, filtered index the table renders a window of.
#[derive(Default)]
pub struct TableModel {
    sort: Sort,
    filter: Filter,
    rows: Vec<Arc<Object>>,
    /// Deleted rows still shown: key -> (the object in `rows`, deleted at).
    fading: HashMap<String, (Arc<Object>, f64)>,
    /// Recently changed rows: key -> (added?, generation, at).
    flashes: HashMap<String, (bool, u32, f64)>,
    generation: u32,
    /// `rows` misses changes; rebuild from the store.
    stale: bool,
    last_rebuild: f64,
    rebuild_cost: f64,
    /// Changes are highlighted only once the first sync is done (not the initial list).
    live: bool,
}

impl TableModel {
    pub fn new(sort: Sort, filter: Filter) -> TableModel {
        TableModel {
            sort,
            filter,
            stale: true,
            last_rebuild: f64::NEG_INFINITY,
            ..TableModel::default()
        }
    }

    pub fn sort(&self) -> Sort {
        self.sort
    }

    pub fn rows(&self) -> &[Arc<Object>] {
        &self.rows
    }

    /// Rows shown, not counting deleted ones fading out.
    pub fn shown(&self) -> usize {
        self.rows.len() - self.fading.len().min(self.rows.len())
    }

    pub fn is_stale(&self) -> bool {
        self.stale
    }

    pub fn set_sort(&mut self, sort: Sort) {
        if sort != self.sort {
            self.sort = sort;
            self.stale = true;
            self.last_rebuild = f64::NEG_INFINITY;
        }
    }

    pub fn set_filter(&mut self, filter: Filter) {
        if filter != self.filter {
            self.filter = filter;
            self.stale = true;
            self.last_rebuild = f64::NEG_INFINITY;
        }
    }

    pub fn row_state(&self, key: &str, now: f64) -> RowState {
        if self.fading.contains_key(key) {
            return RowState::Gone;
        }
        match self.flashes.get(key) {
            Some(&(added, generation, at)) if now - at < FLASH_MS => {
                RowState::Changed { added, generation }
            }
            _ => RowState::Normal,
        }
    }

    /// Applies one batch of engine events (`now` in ms).
    pub fn apply(&mut self, events: &[Event], now: f64) {
        let objects = events
            .iter()
            .filter(|e| {
                matches!(
                    e,
                    Event::Added(_) | Event::Modified { .. } | Event::Deleted(_)
                )
            })
            .count();
        // Row by row costs a binary search and at worst a move of the rows after it;
        // a rebuild sorts them all: up to a batch of 2% of the rows, row by row is
        // cheaper (a long frame under churn must not turn the next one into a rebuild).
        let incremental = !self.stale
            && (objects <= INCREMENTAL_MAX.max(self.rows.len() / 50) || self.rows.len() < 2000);
        if !incremental && !self.stale && self.fading.is_empty() && objects > 0 {
            // A large batch of new objects only (a LIST page): merged in, no rebuild.
            let added: Option<Vec<Arc<Object>>> = events
                .iter()
                .filter_map(|e| match e {
                    Event::Added(o) => Some(Some(o.clone())),
                    Event::Modified { .. } | Event::Deleted(_) => Some(None),
                    _ => None,
                })
                .collect();
            if let Some(added) = added {
                for e in events {
                    match e {
                        Event::Synced { .. } => self.live = true,
                        Event::Added(o) => self.flash(o, true, now),
                        _ => {}
                    }
                }
                self.merge(added);
                return;
            }
        }
        if !incremental && objects > 0 {
            self.stale = true;
        }
        for event in events {
            match event {
                Event::Synced { .. } => self.live = true,
                Event::Added(o) => {
                    self.flash(o, true, now);
                    if incremental {
                        self.unfade(o);
                        self.insert(o);
                    }
                }
                Event::Modified { old, new } => {
                    self.flash(new, false, now);
                    if incremental && !self.replace(old, new) {
                        self.remove(old);
                        self.insert(new);
                    }
                }
                Event::Deleted(o) => {
                    let key = key_of(o);
                    self.flashes.remove(&key);
                    if !incremental {
                        if self.live {
                            // Shown as gone until the rebuild drops it.
                            self.fading.insert(key, (o.clone(), now));
                        }
                        continue;
                    }
                    match self.position_of(o) {
                        Some(i) if self.live => {
                            let shown = self.rows[i].clone();
                            self.fading.insert(key, (shown, now));
                        }
                        Some(i) => {
                            self.rows.remove(i);
                        }
                        None => {}
                    }
                }
                _ => {}
            }
        }
    }

    fn flash(&mut self, o: &Arc<Object>, added: bool, now: f64) {
        if self.live {
            self.generation = self.generation.wrapping_add(1);
            self.flashes
                .insert(key_of(o), (added, self.generation, now));
        }
    }

    fn unfade(&mut self, o: &Object) {
        if let Some((shown, _)) = self.fading.remove(&key_of(o)) {
            self.remove(&shown);
        }
    }

    fn insert(&mut self, o: &Arc<Object>) {
        if !self.filter.matches(o) {
            return;
        }
        let sort = self.sort;
        let i = self
            .rows
            .partition_point(|p| sort.compare(p, o) == Ordering::Less);
        if self.rows.get(i).is_some_and(|p| same_key(p, o)) {
            self.rows[i] = o.clone();
        } else {
            self.rows.insert(i, o.clone());
        }
    }

    /// Merges new objects (keys not shown yet) into the index: `k` binary searches and
    /// one pass, where a rebuild would sort all `n` rows again.
    fn merge(&mut self, added: Vec<Arc<Object>>) {
        let filter = &self.filter;
        let added: Vec<Arc<Object>> = added.into_iter().filter(|o| filter.matches(o)).collect();
        let sort = self.sort;
        let added = sorted(&added, sort);
        let mut at = Vec::with_capacity(added.len());
        let mut from = 0;
        for o in &added {
            from += self.rows[from..].partition_point(|p| sort.compare(p, o) == Ordering::Less);
            at.push(from);
        }
        let old = std::mem::take(&mut self.rows);
        let mut rows = Vec::with_capacity(old.len() + added.len());
        let mut old = old.into_iter().enumerate().peekable();
        for (o, i) in added.into_iter().zip(at) {
            while let Some((_, p)) = old.next_if(|(j, _)| *j < i) {
                rows.push(p);
            }
            // The same key shown already (not expected for an ADDED): replaced.
            if old.peek().is_some_and(|(_, p)| same_key(p, &o)) {
                old.next();
            }
            rows.push(o);
        }
        rows.extend(old.map(|(_, p)| p));
        self.rows = rows;
    }

    /// Puts `new` in the place of `old` when it sorts there too (the usual MODIFIED:
    /// a status change under a sort by name), moving no other row.
    fn replace(&mut self, old: &Object, new: &Arc<Object>) -> bool {
        if !self.filter.matches(new) {
            return false;
        }
        let sort = self.sort;
        let Ok(i) = self.rows.binary_search_by(|p| sort.compare(p, old)) else {
            return false;
        };
        let fits = (i == 0 || sort.compare(&self.rows[i - 1], new) == Ordering::Less)
            && self
                .rows
                .get(i + 1)
                .is_none_or(|p| sort.compare(new, p) == Ordering::Less);
        if fits {
            self.rows[i] = new.clone();
        }
        fits
    }

    /// Where the row of `o`'s key is: by binary search when `o` is the version shown
    /// (or sorts the same), else by a scan.
    fn position_of(&self, o: &Object) -> Option<usize> {
        let sort = self.sort;
        if let Ok(i) = self.rows.binary_search_by(|p| sort.compare(p, o)) {
            return Some(i);
        }
        self.rows.iter().position(|p| same_key(p, o))
    }

    fn remove(&mut self, o: &Object) {
        let sort = self.sort;
        if let Ok(i) = self.rows.binary_search_by(|p| sort.compare(p, o)) {
            self.rows.remove(i);
        } else if self.filter.matches(o) {
            // Shown, but under a version that sorts differently (should not happen:
            // `old` is the version the store held); find it the slow way.
            if let Some(i) = self.rows.iter().position(|p| same_key(p, o)) {
                self.rows.remove(i);
            }
        }
    }

    /// Rebuilds a stale index from the store when the throttle allows (or `force`).
    /// Returns whether it rebuilt.
    pub fn maybe_rebuild(&mut self, store: &Store, now: f64, force: bool) -> bool {
        if !self.stale {
            return false;
        }
        let wait = REBUILD_EVERY_MS.max(4.0 * self.rebuild_cost);
        if !force && now - self.last_rebuild < wait && store.len() > 2000 {
            return false;
        }
        self.rebuild(store);
        self.last_rebuild = now;
        true
    }

    /// Records how long the last rebuild took (the throttle adapts to it).
    pub fn note_rebuild_cost(&mut self, ms: f64) {
        self.rebuild_cost = ms;
    }

    fn rebuild(&mut self, store: &Store) {
        let filter = &self.filter;
        let mut rows: Vec<Arc<Object>> = Vec::with_capacity(store.len());
        rows.extend(store.iter().filter(|o| filter.matches(o)).cloned());
        // Deleted rows still fading stay (unless the store has the key again).
        self.fading
            .retain(|_, (o, _)| store.get(o.namespace(), o.name()).is_none());
        rows.extend(
            self.fading
                .values()
                .filter(|(o, _)| filter.matches(o))
                .map(|(o, _)| o.clone()),
        );
        self.rows = sorted(&rows, self.sort);
        self.stale = false;
    }

    /// Drops rows that finished fading and forgets old flashes. Returns whether the
    /// rows changed.
    pub fn sweep(&mut self, now: f64) -> bool {
        self.flashes.retain(|_, (_, _, at)| now - *at < FLASH_MS);
        let done: Vec<Arc<Object>> = self
            .fading
            .values()
            .filter(|(_, at)| now - *at >= FADE_MS)
            .map(|(o, _)| o.clone())
            .collect();
        for o in &done {
            self.fading.remove(&key_of(o));
            if !self.stale {
                self.remove(o);
            }
        }
        !done.is_empty()
    }

    /// Anything time-based left to animate or drop.
    pub fn animating(&self) -> bool {
        !self.fading.is_empty() || !self.flashes.is_empty()
    }

    /// Where `o` is, or would be, in the sorted rows: its index when shown, else the
    /// index of the row that now takes its place. A binary search.
    pub fn place_of(&self, o: &Object) -> usize {
        let sort = self.sort;
        self.rows
            .partition_point(|p| sort.compare(p, o) == Ordering::Less)
    }

    /// The index of the row with `key`, if shown.
    pub fn find(&self, key: &str) -> Option<usize> {
        self.rows.iter().position(|o| key_of(o) == key)
    }

    /// Forgets everything (a new view).
    pub fn clear(&mut self) {
        self.rows.clear();
        self.fading.clear();
        self.flashes.clear();
        self.live = false;
        self.stale = true;
        self.last_rebuild = f64::NEG_INFINITY;
    }
}

fn same_key(a: &Object, b: &Object) -> bool {
    a.name() == b.name() && a.namespace() == b.namespace()
}

#[cfg(test)]
mod tests;
