//! The live table's model: which columns a view has (the server's printed columns,
//! or the fallback printer's when the server does not print tables), how rows sort
//! (by the column's type) and filter, and a sorted, filtered index kept up to date
//! from engine events.
//!
//! Small batches are applied incrementally (binary search, insert/remove); a large
//! batch (a LIST page, a relist) marks the index stale and it is rebuilt from the
//! store, throttled, never per event. Changed rows flash; deleted rows stay for a
//! moment marked as gone, then leave.

use kubelive_core::{Cell, ColumnKind, ColumnType, Event, Object, Store, TableColumn};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use ages::{human_duration, parse_rfc3339};
use index::{Entry, Index, NO_SLOT};
use keys::Prepared;

/// How long a deleted row stays (fading out) before it leaves the table.
pub const FADE_MS: f64 = 1500.0;
/// How long a changed row is marked as changed.
pub const FLASH_MS: f64 = 1200.0;
/// Batches larger than this (and than an eighth of the rows) are not applied row by
/// row: the index is rebuilt (or, for new objects only, merged).
const INCREMENTAL_MAX: usize = 256;
/// Minimum time between two rebuilds of a large index.
const REBUILD_EVERY_MS: f64 = 250.0;

/// How a column's cells compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortAs {
    /// Strings, with runs of digits compared as numbers (`web-2` before `web-10`).
    Text,
    /// Integers and numbers (a leading number of a string cell such as `3 (5m ago)`).
    Number,
    /// Ages: youngest first when ascending, from `metadata.creationTimestamp`.
    Age,
    /// A date column: an RFC 3339 time or a printed duration (`5m`, `3d4h`).
    Date,
}

/// Where a column's text comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// The row's namespace: added by the app when the view spans namespaces (the
    /// server never prints it, as kubectl adds it itself).
    Namespace,
    /// Cell `index` of the rows the server printed.
    Cell(usize),
    /// Cell `index` of the fallback printer's cells of an object (the server prints
    /// no tables: [`ColumnKind::columns`]).
    Fallback(usize),
    /// No cell: every row ties, so a sort by it is the rows' own order, by namespace
    /// and name ([`Sort::by_key`]: a view sorted by no column).
    Key,
}

/// One column of the table: as the server, or the fallback printer, defines it.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// The sort parameter and `data-col`: the name in `[a-z0-9-]` (`nominated-node`).
    pub id: String,
    /// As the server names it (the header shows it upper-cased, as kubectl does).
    pub title: String,
    /// The server's description, shown on hover.
    pub description: String,
    pub source: Source,
    pub sort_as: SortAs,
    /// The object's name (`format: name`).
    pub is_name: bool,
    /// Status-like (Status, Phase, State, Ready): cells are coloured by their words.
    pub status_like: bool,
    /// Right-aligned.
    pub numeric: bool,
    /// The server's priority: 0 shown by default, higher only with `-o wide` (the
    /// first columns a narrow table hides).
    pub priority: i32,
}

/// Column names whose cells say how something is doing.
const STATUS_LIKE: [&str; 6] = [
    "status",
    "phase",
    "state",
    "ready",
    "condition",
    "conditions",
];

/// `Nominated Node` -> `nominated-node`: lowercase, runs of anything else one `-`.
pub fn column_id(name: &str) -> String {
    let mut id = String::with_capacity(name.len());
    for c in name.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            id.push(c);
        } else if !id.is_empty() && !id.ends_with('-') {
            id.push('-');
        }
    }
    while id.ends_with('-') {
        id.pop();
    }
    if id.is_empty() {
        id.push_str("column");
    }
    id
}

impl Column {
    pub fn namespace() -> Column {
        Column {
            id: "namespace".into(),
            title: "Namespace".into(),
            description: "The namespace of the object.".into(),
            source: Source::Namespace,
            sort_as: SortAs::Text,
            is_name: false,
            status_like: false,
            numeric: false,
            priority: 0,
        }
    }

    /// The name column (the first of every printer's).
    pub fn name() -> Column {
        Column::server(
            0,
            &TableColumn {
                name: "Name".into(),
                column_type: ColumnType::String,
                format: "name".into(),
                description: String::new(),
                priority: 0,
            },
        )
    }

    /// The column of no cell ([`Source::Key`]).
    pub fn key() -> Column {
        Column {
            id: String::new(),
            title: String::new(),
            description: String::new(),
            source: Source::Key,
            sort_as: SortAs::Text,
            is_name: false,
            status_like: false,
            numeric: false,
            priority: 0,
        }
    }

    /// Cell `index` of the fallback printer's cells, as `def` declares it.
    pub fn fallback(index: usize, def: &TableColumn) -> Column {
        Column {
            source: Source::Fallback(index),
            ..Column::server(index, def)
        }
    }

    /// Cell `index` of the server's rows, as `def` declares it.
    pub fn server(index: usize, def: &TableColumn) -> Column {
        let sort_as = if def.is_age() {
            SortAs::Age
        } else if def.column_type.is_numeric() {
            SortAs::Number
        } else if def.column_type == ColumnType::Date
            || def.format == "date"
            // Events' `Last Seen`: a printed duration in a string column.
            || def.name.ends_with(" Seen")
        {
            SortAs::Date
        } else {
            SortAs::Text
        };
        Column {
            id: column_id(&def.name),
            title: def.name.clone(),
            description: def.description.clone(),
            source: Source::Cell(index),
            sort_as,
            is_name: def.is_name(),
            status_like: STATUS_LIKE.contains(&def.name.to_ascii_lowercase().as_str()),
            numeric: matches!(sort_as, SortAs::Number | SortAs::Age),
            priority: def.priority,
        }
    }

    /// Cells that change with the clock rather than with the object.
    pub fn is_time(&self) -> bool {
        matches!(self.sort_as, SortAs::Age | SortAs::Date)
    }

    /// The width class of this column: cells are laid out in a row by flex ratios and
    /// least widths (style.css, `.w-*`), the header's the same.
    pub fn width_class(&self) -> &'static str {
        if self.is_name {
            "w-name"
        } else if self.source == Source::Namespace || self.status_like {
            "w-mid"
        } else if self.numeric {
            "w-num"
        } else {
            "w-text"
        }
    }
}

/// The columns a view shows. `server`: the Table's definitions (None: the server
/// does not print, or has not yet: the fallback printer's for `kind`); priority 0
/// only unless `wide`; NAMESPACE first when `with_namespace` (the view spans
/// namespaces and the kind is namespaced), as kubectl.
pub fn view_columns(
    server: Option<&[TableColumn]>,
    kind: ColumnKind,
    with_namespace: bool,
    wide: bool,
) -> Vec<Column> {
    let fallback_defs;
    let (defs, fallback) = match server {
        Some(defs) => (defs, false),
        None => {
            fallback_defs = kind.columns();
            (&fallback_defs[..], true)
        }
    };
    let mut cols = Vec::with_capacity(defs.len() + 1);
    if with_namespace {
        cols.push(Column::namespace());
    }
    for (i, def) in defs.iter().enumerate() {
        if wide || def.priority == 0 {
            let mut c = match fallback {
                true => Column::fallback(i, def),
                false => Column::server(i, def),
            };
            // Ids stay unique (the sort parameter names one column).
            if cols.iter().any(|o: &Column| o.id == c.id) {
                c.id = format!("{}-{i}", c.id);
            }
            cols.push(c);
        }
    }
    cols
}

/// Whether any of the server's columns shows only in the wide view.
pub fn has_wide(server: Option<&[TableColumn]>) -> bool {
    server.is_some_and(|defs| defs.iter().any(|d| d.priority > 0))
}

#[derive(Clone, Debug, PartialEq)]
pub struct Sort {
    pub col: Column,
    pub desc: bool,
}

impl Default for Sort {
    fn default() -> Self {
        Sort {
            col: Column::name(),
            desc: false,
        }
    }
}

impl Sort {
    /// `name`, `-restarts`, among `cols`.
    pub fn parse(s: &str, cols: &[Column]) -> Option<Sort> {
        let (desc, id) = match s.strip_prefix('-') {
            Some(id) => (true, id),
            None => (false, s),
        };
        let col = cols.iter().find(|c| c.id == id)?.clone();
        Some(Sort { col, desc })
    }

    /// The rows' own order, by namespace and name (as the store and a snapshot
    /// list them): a view sorted by no column.
    pub fn by_key() -> Sort {
        Sort {
            col: Column::key(),
            desc: false,
        }
    }

    /// The name column of `cols`, ascending.
    pub fn by_name(cols: &[Column]) -> Sort {
        match cols.iter().find(|c| c.is_name) {
            Some(col) => Sort {
                col: col.clone(),
                desc: false,
            },
            None => Sort::default(),
        }
    }

    pub fn to_param(&self) -> String {
        format!("{}{}", if self.desc { "-" } else { "" }, self.col.id)
    }

    /// Clicking a column: the same column flips, another starts ascending.
    pub fn toggled(&self, col: &Column) -> Sort {
        Sort {
            col: col.clone(),
            desc: self.col == *col && !self.desc,
        }
    }

    /// A total order: the column, then namespace and name (unique per object).
    pub fn compare(&self, a: &Object, b: &Object) -> Ordering {
        SortKey::of(&self.col, a).compare(&SortKey::of(&self.col, b), self.desc)
    }
}

/// Compares strings with runs of ASCII digits as numbers (`web-2` < `web-10`), the
/// rest byte by byte; equal numbers with different zero padding fall back to bytes,
/// so the order stays total. Allocates nothing.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    // The common prefix decides nothing; the first difference is a plain byte
    // difference unless a digit run is under way there or starts there in both.
    let p = x.iter().zip(y).take_while(|(a, b)| a == b).count();
    let digit = |s: &[u8], i: usize| s.get(i).is_some_and(u8::is_ascii_digit);
    let mut start = p;
    while start > 0 && x[start - 1].is_ascii_digit() {
        start -= 1;
    }
    if start == p && !(digit(x, p) && digit(y, p)) {
        return match (x.get(p), y.get(p)) {
            (Some(a), Some(b)) => a.cmp(b),
            _ => x.len().cmp(&y.len()),
        };
    }
    natural_from(x, y, start)
}

/// [`natural_cmp`] from `start`, where `x` and `y` agree before it and no digit run
/// crosses it.
fn natural_from(x: &[u8], y: &[u8], start: usize) -> Ordering {
    let (mut i, mut j) = (start, start);
    while i < x.len() && j < y.len() {
        if x[i].is_ascii_digit() && y[j].is_ascii_digit() {
            let si = i;
            while i < x.len() && x[i].is_ascii_digit() {
                i += 1;
            }
            let sj = j;
            while j < y.len() && y[j].is_ascii_digit() {
                j += 1;
            }
            let p = trim_zeros(&x[si..i]);
            let q = trim_zeros(&y[sj..j]);
            let by_value = p.len().cmp(&q.len()).then_with(|| p.cmp(q));
            if by_value != Ordering::Equal {
                return by_value;
            }
        } else {
            if x[i] != y[j] {
                return x[i].cmp(&y[j]);
            }
            i += 1;
            j += 1;
        }
    }
    (x.len() - i).cmp(&(y.len() - j)).then_with(|| x.cmp(y))
}

fn trim_zeros(digits: &[u8]) -> &[u8] {
    let zeros = digits.iter().take_while(|&&d| d == b'0').count();
    &digits[zeros.min(digits.len().saturating_sub(1))..]
}

/// The number a cell starts with (`3`, `2.5`, `"3 (5m ago)"`), if any.
fn leading_number(cell: &Cell<'_>) -> Option<f64> {
    if let Some(n) = cell.as_f64() {
        return Some(n);
    }
    let Cell::Str(s) = cell else { return None };
    let s = s.trim_start();
    let end = s
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && c == '-')))
        .map_or(s.len(), |(i, _)| i);
    s[..end].parse().ok()
}

/// A printed duration (`45s`, `5m12s`, `3d4h`, `2y`) in seconds, as kubectl's
/// `HumanDuration` writes them.
pub fn parse_duration(s: &str) -> Option<f64> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let mut total = 0.0;
    let mut num = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() {
            num.push(c);
            continue;
        }
        let n: f64 = num.parse().ok()?;
        num.clear();
        total += n * match c {
            's' => 1.0,
            'm' => 60.0,
            'h' => 3600.0,
            'd' => 86_400.0,
            'y' => 365.0 * 86_400.0,
            _ => return None,
        };
    }
    num.is_empty().then_some(total)
}

/// What a row sorts by, read out of its object once: the object's accessors check
/// UTF-8 (and cells are scanned) on every call, which a sort of 100,000 rows would
/// do some 3.4 million times.
enum Primary<'a> {
    Str(Cow<'a, str>),
    /// None last.
    Num(Option<f64>),
    /// Seconds of age, or minus the creation time: larger is older. None last.
    Older(Option<f64>),
    /// A column the object's kind does not have, or a null cell: last.
    None,
}

impl Primary<'_> {
    /// The key's fixed-width prefix (see `index::Key`) and whether it is exact.
    fn prefix(&self) -> (index::Primary, bool) {
        match self {
            Primary::Str(s) => index::text_prefix(s),
            Primary::Num(n) => index::number_prefix(self.rank(), *n),
            Primary::Older(n) => index::number_prefix(self.rank(), *n),
            Primary::None => index::kind_prefix(self.rank()),
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Primary::Str(_) => 0,
            Primary::Num(_) => 1,
            Primary::Older(_) => 2,
            // Last, whatever kinds come before (`keys` prepares missing cells as 4).
            Primary::None => 4,
        }
    }
}

struct SortKey<'a> {
    primary: Primary<'a>,
    namespace: &'a str,
    name: &'a str,
}

fn older_of_timestamp(t: Option<&str>) -> Option<f64> {
    t.and_then(parse_rfc3339).map(|t| -t)
}

impl<'a> SortKey<'a> {
    fn of(col: &Column, o: &'a Object) -> SortKey<'a> {
        let primary = match &col.source {
            Source::Namespace => Primary::Str(Cow::Borrowed(o.namespace())),
            Source::Key => Primary::None,
            _ if col.sort_as == SortAs::Age && o.creation_timestamp().is_some() => {
                Primary::Older(older_of_timestamp(o.creation_timestamp()))
            }
            // The name cell prints metadata.name: read without scanning the cells.
            _ if col.is_name && col.sort_as == SortAs::Text && !o.name().is_empty() => {
                Primary::Str(Cow::Borrowed(o.name()))
            }
            _ => match printed_cell(col, o) {
                None if col.is_name => Primary::Str(Cow::Borrowed(o.name())),
                None => Primary::None,
                Some(c) => match col.sort_as {
                    SortAs::Number => Primary::Num(leading_number(&c)),
                    SortAs::Age | SortAs::Date => Primary::Older(match &c {
                        Cell::Str(s) => parse_rfc3339(s).map(|t| -t).or_else(|| parse_duration(s)),
                        other => other.as_f64(),
                    }),
                    SortAs::Text => match c {
                        Cell::Str(s) => Primary::Str(s),
                        Cell::Null => Primary::None,
                        Cell::Json(j) => Primary::Str(Cow::Borrowed(j)),
                        other => Primary::Str(Cow::Owned(other.to_string())),
                    },
                },
            },
        };
        SortKey {
            primary,
            namespace: o.namespace(),
            name: o.name(),
        }
    }

    fn compare(&self, other: &SortKey<'_>, desc: bool) -> Ordering {
        let by_col = self.compare_column(other);
        let by_col = if desc { by_col.reverse() } else { by_col };
        by_col.then_with(|| (self.namespace, self.name).cmp(&(other.namespace, other.name)))
    }

    /// The column's order alone (ascending).
    fn compare_column(&self, other: &SortKey<'_>) -> Ordering {
        fn last_none(a: Option<f64>, b: Option<f64>) -> Ordering {
            match (a, b) {
                (Some(a), Some(b)) => a.total_cmp(&b),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            }
        }
        match (&self.primary, &other.primary) {
            (Primary::Str(a), Primary::Str(b)) => natural_cmp(a, b),
            (Primary::Num(a), Primary::Num(b)) => last_none(*a, *b),
            (Primary::Older(a), Primary::Older(b)) => last_none(*a, *b),
            // Keys of different kinds (a missing cell): by kind, missing last, so
            // the order stays total.
            (a, b) => a.rank().cmp(&b.rank()),
        }
    }
}

/// The printed cell a column shows of `o`: the server's cell of a row, or the
/// fallback printer's of an object (None: printed by the other printer).
fn printed_cell<'o>(col: &Column, o: &'o Object) -> Option<Cell<'o>> {
    match col.source {
        Source::Namespace | Source::Key => None,
        Source::Cell(i) => o.cell(i),
        Source::Fallback(i) => o.fallback_cells()?.get(i),
    }
}

/// `rows` in `sort` order, each row's key read once.
pub fn sorted(rows: &[Arc<Object>], sort: &Sort) -> Vec<Arc<Object>> {
    let mut keyed: Vec<(SortKey<'_>, &Arc<Object>)> = rows
        .iter()
        .map(|o| (SortKey::of(&sort.col, o), o))
        .collect();
    keyed.sort_unstable_by(|a, b| a.0.compare(&b.0, sort.desc));
    keyed.into_iter().map(|(_, o)| o.clone()).collect()
}

/// The text of one cell (`now` in Unix seconds, for ages).
pub fn cell(col: &Column, o: &Object, now: f64) -> String {
    let mut out = String::new();
    write_cell(col, o, now, &mut out);
    out
}

/// Appends the text of one cell to `out`. Ages count on from the object's
/// creationTimestamp (the server's text is as old as the row).
pub fn write_cell(col: &Column, o: &Object, now: f64, out: &mut String) {
    write_cell_given(col, o, printed_cell(col, o), now, out);
}

/// The texts of a row's shown cells, in `cols` order: the server's cells are read once
/// for the row (reading cell `i` alone rescans the cells before it).
pub fn row_texts(cols: &[Column], o: &Object, now: f64) -> Vec<String> {
    let printed: Vec<Cell<'_>> = o
        .printed_cells(by_fallback(cols))
        .map(Iterator::collect)
        .unwrap_or_default();
    cols.iter()
        .map(|c| {
            let mut out = String::new();
            let given = match c.source {
                Source::Cell(i) | Source::Fallback(i) => printed.get(i).cloned(),
                Source::Namespace | Source::Key => None,
            };
            write_cell_given(c, o, given, now, &mut out);
            out
        })
        .collect()
}

/// Whether `cols` are the fallback printer's (a view's columns all come from one
/// printer).
fn by_fallback(cols: &[Column]) -> bool {
    cols.iter().any(|c| matches!(c.source, Source::Fallback(_)))
}

/// [`write_cell`] with the printed cell for `col` (if it is one) already read.
fn write_cell_given(
    col: &Column,
    o: &Object,
    server: Option<Cell<'_>>,
    now: f64,
    out: &mut String,
) {
    match &col.source {
        Source::Namespace => out.push_str(o.namespace()),
        Source::Key => {}
        Source::Cell(_) | Source::Fallback(_) => {
            if col.sort_as == SortAs::Age {
                if let Some(t) = o.creation_timestamp().and_then(parse_rfc3339) {
                    out.push_str(&human_duration(now - t));
                    return;
                }
            }
            match server {
                Some(c) => write_server_cell(&c, out),
                // Not a row (the server stopped printing): its name at least.
                None if col.is_name => out.push_str(o.name()),
                None => {}
            }
        }
    }
}

/// A cell as kubectl prints it (`null` as `<none>`).
fn write_server_cell(c: &Cell<'_>, out: &mut String) {
    use std::fmt::Write;
    match c {
        Cell::Str(s) => out.push_str(s),
        other => {
            let _ = write!(out, "{other}");
        }
    }
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

/// How a status-like cell is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tone {
    Ok,
    Warn,
    Bad,
}

impl Tone {
    /// The cell's class: `tone-ok`, `tone-warn`, `tone-bad`.
    pub fn class(self) -> &'static str {
        match self {
            Tone::Ok => "tone-ok",
            Tone::Warn => "tone-warn",
            Tone::Bad => "tone-bad",
        }
    }
}

/// The tone of a status-like cell: the worst of its comma-separated words
/// (`Ready,SchedulingDisabled`), `Init:` prefixes dropped, and `n/m` counts
/// (`1/1` ready, `0/1` not yet). None for words that say nothing known.
pub fn tone(text: &str) -> Option<Tone> {
    text.split(',')
        .filter_map(|word| {
            let word = word.trim();
            let word = word.rsplit(':').next().unwrap_or(word);
            if let Some((a, b)) = word.split_once('/') {
                let (a, b) = (a.parse::<u64>().ok()?, b.parse::<u64>().ok()?);
                return Some(if a == b && b > 0 {
                    Tone::Ok
                } else {
                    Tone::Warn
                });
            }
            match word.to_ascii_lowercase().as_str() {
                "running" | "ready" | "true" | "active" | "bound" | "succeeded" | "completed"
                | "complete" | "available" | "normal" => Some(Tone::Ok),
                "pending" | "containercreating" | "podinitializing" | "terminating" | "unknown"
                | "schedulingdisabled" | "released" => Some(Tone::Warn),
                "failed"
                | "error"
                | "crashloopbackoff"
                | "imagepullbackoff"
                | "errimagepull"
                | "notready"
                | "false"
                | "evicted"
                | "oomkilled"
                | "lost"
                | "createcontainerconfigerror"
                | "invalidimagename" => Some(Tone::Bad),
                _ => None,
            }
        })
        .max()
}

/// The free-text filter: every word must appear (case-insensitive) in one of the
/// row's shown cells. Time cells are left out: they change with the clock, not with
/// the object, and the index is only kept up to date on changes. Label and field
/// selectors are the server's business (see `query`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filter {
    /// Lowercase.
    words: Vec<String>,
    cols: Vec<Column>,
    /// `shown_cells[i]`: the printed cell `i` is in `cols` (one pass over a row's
    /// cells instead of a scan per column).
    shown_cells: Vec<bool>,
    /// The columns are the fallback printer's.
    fallback: bool,
}

impl Filter {
    pub fn new(words: &[String], cols: &[Column]) -> Filter {
        let cols: Vec<Column> = cols.iter().filter(|c| !c.is_time()).cloned().collect();
        let mut shown_cells = Vec::new();
        for c in &cols {
            if let Source::Cell(i) | Source::Fallback(i) = c.source {
                if shown_cells.len() <= i {
                    shown_cells.resize(i + 1, false);
                }
                shown_cells[i] = true;
            }
        }
        Filter {
            words: words.iter().map(|w| w.to_lowercase()).collect(),
            fallback: by_fallback(&cols),
            cols,
            shown_cells,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Every row this filter matches, `previous` matches too (each of its words is
    /// within one of these, over the same columns): typing on filters the previous
    /// matches only.
    pub fn narrows(&self, previous: &Filter) -> bool {
        !previous.is_empty()
            && self.cols == previous.cols
            && previous
                .words
                .iter()
                .all(|w| self.words.iter().any(|n| n.contains(w.as_str())))
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
            let mut printed = false;
            if let Some(row) = o.printed_cells(self.fallback) {
                for (i, c) in row.enumerate() {
                    if self.shown_cells.get(i).copied().unwrap_or(false) {
                        write_server_cell(&c, &mut cells);
                        cells.push('\u{1}');
                        printed = true;
                    }
                }
            }
            for c in &self.cols {
                match c.source {
                    Source::Cell(_) | Source::Fallback(_) if printed => continue,
                    // Printed by the other printer: the name column shows the name.
                    Source::Cell(_) | Source::Fallback(_) if !c.is_name => continue,
                    _ => write_cell(c, o, 0.0, &mut cells),
                }
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

/// How many indexes of earlier sorts (by other columns) are kept up to date, so that
/// going back to a column is a swap: each costs an entry per row (~72 bytes in wasm)
/// and a key and a binary search per change.
const KEEP_SORTS: usize = 2;

/// Tables from this many rows sort by a new column in slices ([`Resort`]), the first
/// screen first: building a million rows' index took 250-450 ms in one task.
const RESORT_MIN: usize = if cfg!(test) { 64 } else { 50_000 };

/// The rows a click puts in order at once while its sort is built: a scroll soon
/// after the click finds them there (~28,000 px). A table scrolled further down is
/// sorted in one task.
const RESORT_FIRST_MAX: usize = if cfg!(test) { 48 } else { 1024 };

/// A filter's matches up to this many are sorted again at once by a click whose index
/// of every row is built in slices (a few ms); more are filtered again in the new
/// order, which needs that index: sorted in one task.
const MATCHES_AT_ONCE_MAX: usize = 20_000;

/// Tables up to this many rows are filtered at once; larger ones in slices
/// ([`TableModel::advance_filter`]), the first screen first.
const FILTER_AT_ONCE_MAX: usize = 20_000;

/// A filter being applied: every candidate up to `cursor` was looked at.
struct Scan {
    /// The last candidate looked at (None: none yet). A key, not a position: rows
    /// come and go while the scan waits for the next frame.
    cursor: Option<Entry>,
    /// The candidates: the previous filter's matches when the new filter narrows it
    /// (kept up to date past the cursor), else every row (`None`).
    from: Option<Index>,
}

/// A sort being built in idle slices (large tables): the click shows the first screen
/// of the new order at once (a new column's found in one pass over the prepared words,
/// a flip's by binary searches; a filter's few matches sorted again whole), and the
/// index of every row follows. Changes wait until it is built (a few hundred ms), so
/// that the rows it is built from stay as they were (`TableModel::waiting`).
struct Resort {
    work: Work,
    /// The first rows in the new order, shown meanwhile (unless a filter's matches,
    /// all sorted, are).
    first: Vec<Arc<Object>>,
}

impl Resort {
    /// The rows being sorted (the table's until it is built).
    fn rows(&self) -> usize {
        match &self.work {
            Work::Sort(build) => build.rows(),
            Work::Flip(flip) => flip.len(),
        }
    }
}

/// What a [`Resort`] builds.
enum Work {
    /// A new column's index, from the prepared words.
    Sort(keys::Build),
    /// The index the other way.
    Flip(index::Flip),
}

/// The version of each row the index holds, by namespace/name. A `Deleted` event
/// brings the server's final state of the object, whose cell in the sorted column may
/// differ from the row's (a pod's status or readiness at its deletion): the row is
/// then found by binary search for the version held, where it took a scan of every
/// row (a long task at a million). A pointer a row.
#[derive(Default)]
struct Held(hashbrown::HashTable<Arc<Object>>);

impl Held {
    fn of(o: &Object) -> u64 {
        kubelive_core::store::key_hash(o.namespace(), o.name())
    }

    /// Whether a held version is `o`'s row.
    fn same(o: &Object) -> impl Fn(&Arc<Object>) -> bool + '_ {
        move |h| h.name() == o.name() && h.namespace() == o.namespace()
    }

    fn get(&self, o: &Object) -> Option<&Arc<Object>> {
        self.0.find(Held::of(o), Held::same(o))
    }

    /// The row held as `namespace/name`.
    fn by_key(&self, namespace: &str, name: &str) -> Option<&Arc<Object>> {
        let hash = kubelive_core::store::key_hash(namespace, name);
        self.0
            .find(hash, |h| h.name() == name && h.namespace() == namespace)
    }

    fn put(&mut self, o: &Arc<Object>) {
        match self.0.entry(Held::of(o), Held::same(o), |h| Held::of(h)) {
            hashbrown::hash_table::Entry::Occupied(mut e) => *e.get_mut() = o.clone(),
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert(o.clone());
            }
        }
    }

    fn remove(&mut self, o: &Object) {
        if let Ok(e) = self.0.find_entry(Held::of(o), Held::same(o)) {
            e.remove();
        }
    }

    fn clear(&mut self) {
        self.0.clear();
    }
}

/// The sorted, filtered index the table renders a window of.
///
/// Every row is in `all`, sorted by compact keys (`index::Key`); a non-empty filter
/// keeps its matches, in the same order, in `matched`. Changes are applied row by row
/// (a binary search and one chunk moved); a sort change re-keys and re-sorts the
/// entries (not the store); a filter is applied in sort order, in slices, so the
/// first screen of matches is there before the count is complete.
#[derive(Default)]
pub struct TableModel {
    sort: Sort,
    filter: Filter,
    all: Index,
    /// The rows matching a non-empty filter (None: no filter, `all` is shown).
    matched: Option<Index>,
    /// Filtering under way (`matched` holds the matches up to its cursor).
    scan: Option<Scan>,
    /// The indexes of the last sorts by other columns, newest first, kept up to date
    /// (every row, as `all`), at most [`KEEP_SORTS`].
    kept: Vec<(Sort, Index)>,
    /// The rows' slots, and the view's columns' sort keys prepared by them in idle
    /// frames (see `keys`): a click on a column not sorted by yet sorts those.
    prepared: Prepared,
    /// The version of each row `all` holds, by namespace/name (see [`Held`]).
    held: Held,
    /// Deleted rows still shown: key -> (the object in the index, deleted at).
    fading: HashMap<String, (Arc<Object>, f64)>,
    /// Recently changed rows: key -> (added?, generation, at).
    flashes: HashMap<String, (bool, u32, f64)>,
    generation: u32,
    /// The index misses changes; rebuild from the store.
    stale: bool,
    last_rebuild: f64,
    rebuild_cost: f64,
    /// Changes are highlighted only once the first sync is done (not the initial list).
    live: bool,
    /// Tables up to this many rows are filtered at once.
    filter_at_once: usize,
    /// Indexes no longer kept, dropped a chunk at a time by [`TableModel::prepare`].
    retired: Vec<Index>,
    /// A sort under way (`all` is empty meanwhile).
    resort: Option<Resort>,
    /// Batches of changes (and when they came) that wait for a sort under way, then
    /// are applied in idle slices, in order (a second's worth at a million rows took
    /// 50-200 ms in one task); later batches queue behind them.
    waiting: VecDeque<(Vec<Event>, f64)>,
}

impl TableModel {
    pub fn new(sort: Sort, filter: Filter) -> TableModel {
        let mut m = TableModel {
            sort,
            stale: true,
            last_rebuild: f64::NEG_INFINITY,
            filter_at_once: FILTER_AT_ONCE_MAX,
            ..TableModel::default()
        };
        m.set_filter(filter);
        m
    }

    pub fn sort(&self) -> &Sort {
        &self.sort
    }

    /// The rows shown, in order.
    fn view(&self) -> &Index {
        self.matched.as_ref().unwrap_or(&self.all)
    }

    /// A sort under way whose first rows are what is shown (no filter's matches).
    fn shown_resort(&self) -> Option<&Resort> {
        self.resort.as_ref().filter(|_| self.matched.is_none())
    }

    /// Rows in the table (matches found so far while filtering), fading ones included.
    pub fn len(&self) -> usize {
        match self.shown_resort() {
            Some(r) => r.rows(),
            None => self.view().len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        match self.shown_resort() {
            Some(r) => r.rows() == 0,
            None => self.view().is_empty(),
        }
    }

    /// The row at `i` (while a sort is built, only the first rows are known).
    pub fn get(&self, i: usize) -> Option<&Arc<Object>> {
        match self.shown_resort() {
            Some(r) => r.first.get(i),
            None => self.view().get(i).map(|e| &e.obj),
        }
    }

    /// Rows `first..last` (as many as there are, or are known while a sort is built).
    pub fn window(&self, first: usize, last: usize) -> Vec<Arc<Object>> {
        if let Some(r) = self.shown_resort() {
            let end = last.min(r.first.len());
            return r.first[first.min(end)..end].to_vec();
        }
        self.view()
            .iter_from(first)
            .take(last.saturating_sub(first))
            .map(|e| e.obj.clone())
            .collect()
    }

    /// Every row, in order (tests; while a sort is built, the first rows).
    #[cfg(test)]
    pub fn rows(&self) -> Vec<Arc<Object>> {
        match self.shown_resort() {
            Some(r) => r.first.clone(),
            None => self.view().iter().map(|e| e.obj.clone()).collect(),
        }
    }

    /// Rows shown, not counting deleted ones fading out.
    pub fn shown(&self) -> usize {
        self.len() - self.fading.len().min(self.len())
    }

    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// A filter is still being applied: rows past the found ones are not known yet.
    pub fn is_filtering(&self) -> bool {
        self.scan.is_some()
    }

    /// Sorts by `sort`, at once.
    pub fn set_sort(&mut self, sort: Sort) {
        self.set_sort_showing(sort, usize::MAX);
    }

    /// Sorts by `sort` for a view showing the rows up to `shown_to`: a large table
    /// showing no further than the rows put in order at once ([`RESORT_FIRST_MAX`])
    /// shows those first and builds the rest in slices ([`TableModel::prepare`]).
    pub fn set_sort_showing(&mut self, sort: Sort, shown_to: usize) {
        if sort == self.sort {
            return;
        }
        self.drop_resort();
        if sort == self.sort {
            return;
        }
        let previous = std::mem::replace(&mut self.sort, sort);
        if self.stale {
            self.kept.clear();
            return;
        }
        let all = std::mem::take(&mut self.all);
        // The same column the other way: no row's key is read again.
        let flip = previous.col == self.sort.col;
        self.all = if flip {
            self.flip_showing(all, &previous, shown_to)
        } else {
            // A column sorted by lately: its index, kept up to date; else the rows
            // keyed and sorted again.
            let kept = match self.kept.iter().position(|(s, _)| s.col == self.sort.col) {
                Some(i) => {
                    let (s, index) = self.kept.remove(i);
                    match s.desc == self.sort.desc {
                        true => index,
                        false => self.flip_showing(index, &s, shown_to),
                    }
                }
                None => match self.start_resort(all.len(), shown_to) {
                    Some(resort) => {
                        self.resort = Some(resort);
                        Index::default()
                    }
                    None => self
                        .prepared
                        .sorted(&self.sort, all.len())
                        .unwrap_or_else(|| all.rekeyed(&self.sort)),
                },
            };
            self.kept.insert(0, (previous, all));
            // An index no longer kept: dropped in idle slices (a million rows' objects
            // released in one task took as long as the sort).
            self.retired.extend(
                self.kept
                    .drain(KEEP_SORTS.min(self.kept.len())..)
                    .map(|(_, i)| i),
            );
            kept
        };
        match (&mut self.matched, &mut self.scan) {
            (Some(m), None) if flip => *m = std::mem::take(m).flipped(&self.sort),
            // The index of every row is being built: the few matches sorted again.
            (Some(m), None) if self.resort.is_some() => *m = m.rekeyed(&self.sort),
            // Filtered again in the new order, the first screen first.
            (Some(m), scan) => {
                m.clear();
                *scan = Some(Scan {
                    cursor: None,
                    from: None,
                });
            }
            (None, _) => {}
        }
        self.finish_small_scan();
    }

    /// Whether a sort of `rows` rows for a view showing those up to `shown_to` is
    /// built in slices ([`Resort`]): a large table, few rows shown, and no filter or
    /// one whose few matches are all found.
    fn in_slices(&self, rows: usize, shown_to: usize) -> bool {
        let few_matches = match (&self.matched, &self.scan) {
            (None, _) => true,
            (Some(m), None) => m.len() <= MATCHES_AT_ONCE_MAX,
            (Some(_), Some(_)) => false,
        };
        rows >= RESORT_MIN && shown_to <= RESORT_FIRST_MAX && few_matches
    }

    /// `index` (sorted by `by`) flipped to `self.sort`: at once, or its first rows now
    /// and the rest in slices (then the index returned is empty until it is done).
    fn flip_showing(&mut self, index: Index, by: &Sort, shown_to: usize) -> Index {
        if !self.in_slices(index.len(), shown_to) {
            return index.flipped(&self.sort);
        }
        self.resort = Some(Resort {
            first: index.first_flipped(by, RESORT_FIRST_MAX),
            work: Work::Flip(index::Flip::new(index, &self.sort)),
        });
        Index::default()
    }

    /// A sort by the (new) column of `self.sort` in slices, if [`TableModel::in_slices`]
    /// and the column's words are prepared.
    fn start_resort(&mut self, rows: usize, shown_to: usize) -> Option<Resort> {
        if !self.in_slices(rows, shown_to) {
            return None;
        }
        let build = self.prepared.start(&self.sort, rows)?;
        let first = self
            .prepared
            .first_slots(&self.sort, RESORT_FIRST_MAX)
            .into_iter()
            .filter_map(|s| self.prepared.obj(s).cloned())
            .collect();
        Some(Resort {
            work: Work::Sort(build),
            first,
        })
    }

    /// Whether a sort is being built (see [`Resort`]).
    pub fn resorting(&self) -> bool {
        self.resort.is_some()
    }

    /// Whether changes wait ([`Resort`]), or the rows shown are not all known.
    pub fn behind(&self) -> bool {
        self.resort.is_some() || !self.waiting.is_empty()
    }

    /// Goes on building the sort under way until `clock()` reaches `deadline`.
    /// Returns whether work is left.
    fn advance_resort(&mut self, deadline: f64, clock: &dyn Fn() -> f64) -> bool {
        let Some(r) = &mut self.resort else {
            return false;
        };
        let progress = match &mut r.work {
            Work::Sort(build) => self.prepared.advance(build, deadline, clock),
            Work::Flip(flip) => flip.advance(deadline, clock),
        };
        let index = match progress {
            index::Progress::Working => return true,
            index::Progress::Done(index) => Some(index),
            index::Progress::Failed => None,
        };
        self.resort = None;
        match index {
            Some(index) => self.all = index,
            // Not expected (the rows stayed as they were): built again from the store,
            // which holds the changes that waited.
            None => {
                self.stale = true;
                self.kept.clear();
                self.waiting.clear();
            }
        }
        false
    }

    /// Applies the changes that waited, in order, until `clock()` reaches `deadline`.
    /// Returns whether some still wait.
    fn catch_up(&mut self, deadline: f64, clock: &dyn Fn() -> f64) -> bool {
        if self.resort.is_some() {
            return !self.waiting.is_empty();
        }
        while !self.waiting.is_empty() && clock() < deadline {
            if let Some((events, at)) = self.waiting.pop_front() {
                self.apply_now(&events, at);
            }
        }
        !self.waiting.is_empty()
    }

    /// Builds the sort under way at once (before anything else changes the rows).
    fn finish_resort(&mut self) {
        self.advance_resort(f64::INFINITY, &|| 0.0);
    }

    /// Before another click: a new column's sort under way is dropped rather than
    /// finished (a second click soon after the first, to sort the other way, is
    /// common), back to the index it started from (kept, as the prepared keys, as it
    /// was; the changes that waited go on waiting in order). A flip under way is
    /// finished (it cannot be undone half-way; it is the quick one).
    fn drop_resort(&mut self) {
        let Some(resort) = self.resort.take() else {
            return;
        };
        match resort.work {
            Work::Sort(_) if !self.kept.is_empty() => {
                let (sort, index) = self.kept.remove(0);
                self.sort = sort;
                self.all = index;
                if let Some(m) = &mut self.matched {
                    *m = m.rekeyed(&self.sort);
                }
            }
            work => {
                self.resort = Some(Resort { work, ..resort });
                self.finish_resort();
            }
        }
    }

    pub fn set_filter(&mut self, filter: Filter) {
        self.finish_resort();
        if filter == self.filter && (filter.is_empty() || self.matched.is_some()) {
            return;
        }
        let previous = std::mem::replace(&mut self.filter, filter);
        if self.filter.is_empty() {
            self.matched = None;
            self.scan = None;
            return;
        }
        // A filter that only narrows the previous one looks at its matches alone.
        let from = if !self.filter.narrows(&previous) {
            None
        } else {
            match (self.matched.take(), self.scan.take()) {
                (Some(done), None) => Some(done),
                // Half done over the previous matches: those found, then the
                // candidates not looked at yet.
                (
                    Some(found),
                    Some(Scan {
                        cursor,
                        from: Some(rest),
                    }),
                ) => {
                    let at = cursor.map_or(0, |c| self.after(&rest, &c));
                    let mut v: Vec<Entry> = found.iter().cloned().collect();
                    v.extend(rest.iter_from(at).cloned());
                    Some(Index::from_sorted(v))
                }
                _ => None,
            }
        };
        self.matched = Some(Index::default());
        self.scan = Some(Scan { cursor: None, from });
        self.finish_small_scan();
    }

    /// Where the entries after `cursor` start in `index`.
    fn after(&self, index: &Index, cursor: &Entry) -> usize {
        index.partition_point(|p| p.cmp(cursor, &self.sort) != Ordering::Greater)
    }

    /// Filters a small table at once.
    fn finish_small_scan(&mut self) {
        if !self.stale && self.scan.is_some() && self.all.len() <= self.filter_at_once {
            self.advance_filter(usize::MAX, f64::INFINITY, &|| 0.0);
        }
    }

    /// Goes on filtering in order until `want` rows match or `clock()` reaches
    /// `deadline` (looked at every 256 rows). Returns whether rows were found or the
    /// filter completed.
    pub fn advance_filter(&mut self, want: usize, deadline: f64, clock: &dyn Fn() -> f64) -> bool {
        let Some(scan) = &self.scan else {
            return false;
        };
        let sort = &self.sort;
        let source = scan.from.as_ref().unwrap_or(&self.all);
        let start = scan.cursor.as_ref().map_or(0, |c| {
            source.partition_point(|p| p.cmp(c, sort) != Ordering::Greater)
        });
        let matched = self.matched.get_or_insert_with(Index::default);
        let before = matched.len();
        let mut cursor = None;
        let mut complete = true;
        for (n, e) in source.iter_from(start).enumerate() {
            if n % 256 == 255 && (matched.len() >= want || clock() >= deadline) {
                complete = false;
                break;
            }
            if self.filter.matches(&e.obj) {
                matched.push(e.clone());
            }
            cursor = Some(e);
        }
        let found = matched.len() > before;
        if complete {
            self.scan = None;
            return true;
        }
        let cursor = cursor.cloned();
        if let Some(scan) = &mut self.scan {
            if cursor.is_some() {
                scan.cursor = cursor;
            }
        }
        found
    }

    pub fn row_state(&self, key: &str, now: f64) -> RowState {
        self.row_look(key, now).0
    }

    /// How a row looks and since when (ms, the time of the change or the deletion;
    /// 0 for a normal row): a pooled row element that starts showing it mid-way
    /// starts its animation at that phase.
    pub fn row_look(&self, key: &str, now: f64) -> (RowState, f64) {
        if let Some(&(_, at)) = self.fading.get(key) {
            return (RowState::Gone, at);
        }
        match self.flashes.get(key) {
            Some(&(added, generation, at)) if now - at < FLASH_MS => {
                (RowState::Changed { added, generation }, at)
            }
            _ => (RowState::Normal, 0.0),
        }
    }

    /// Applies one batch of engine events (`now` in ms), or queues it behind those
    /// that wait ([`TableModel::behind`]).
    pub fn apply(&mut self, events: &[Event], now: f64) {
        if self.behind() {
            self.waiting.push_back((events.to_vec(), now));
            return;
        }
        self.apply_now(events, now);
    }

    fn apply_now(&mut self, events: &[Event], now: f64) {
        let objects = events
            .iter()
            .filter(|e| {
                matches!(
                    e,
                    Event::Added(_) | Event::Modified { .. } | Event::Deleted(_)
                )
            })
            .count();
        // Row by row costs a binary search and a move within one chunk; a rebuild
        // keys and sorts every row: row by row is cheaper up to an eighth of the rows,
        // and for a table that stays small. (A restored view's rows come in one batch
        // into an empty table: merged, not inserted one by one.)
        let incremental = !self.stale
            && (objects <= INCREMENTAL_MAX.max(self.all.len() / 8)
                || self.all.len() + objects < 2000);
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
                        Event::Synced { .. } | Event::Restored { .. } => self.live = true,
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
            self.kept.clear();
        }
        for event in events {
            match event {
                // Restored rows are a synced state too: what changes after them flashes.
                Event::Synced { .. } | Event::Restored { .. } => self.live = true,
                Event::Added(o) => {
                    self.flash(o, true, now);
                    if incremental {
                        self.unfade(o);
                        self.change(None, Some(o));
                    }
                }
                Event::Modified { old, new } => {
                    self.flash(new, false, now);
                    if incremental {
                        self.change(Some(old), Some(new));
                    }
                }
                Event::Deleted(o) => {
                    let key = key_of(o);
                    self.flashes.remove(&key);
                    if self.live {
                        // Shown as gone (as the version shown) until it fades out.
                        let shown = match incremental {
                            true => self.shown_version(o),
                            false => Some(o.clone()),
                        };
                        if let Some(shown) = shown {
                            self.fading.insert(key, (shown, now));
                        }
                    } else if incremental {
                        // The version indexed, which the final state may not match.
                        let held = self.held.get(o).cloned().unwrap_or_else(|| o.clone());
                        self.change(Some(&held), None);
                    }
                }
                _ => {}
            }
        }
    }

    /// The version of `o`'s row in the index, if it is there: the object indexed, not
    /// `o` (equal under this sort's key, it may differ in a column an index kept of
    /// another sort is keyed by, which would then find it only by a scan of every row).
    fn shown_version(&self, o: &Arc<Object>) -> Option<Arc<Object>> {
        let find = |o: &Arc<Object>| {
            self.all
                .find_entry(&Entry::new(&self.sort, o.clone()), &self.sort)
        };
        self.held
            .get(o)
            .and_then(find)
            .or_else(|| find(o))
            .or_else(|| self.all.scan_for(o).and_then(|i| self.all.get(i)))
            .map(|e| e.obj.clone())
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
            self.change(Some(&shown), None);
        }
    }

    /// Whether `e` is in the part of the matches already filtered (all of it unless
    /// a scan is under way).
    fn scanned(&self, e: &Entry) -> bool {
        match &self.scan {
            None => true,
            Some(scan) => scan
                .cursor
                .as_ref()
                .is_some_and(|c| e.cmp(c, &self.sort) != Ordering::Greater),
        }
    }

    /// One row changed: `old` (the version indexed) leaves, `new` comes.
    fn change(&mut self, old: Option<&Arc<Object>>, new: Option<&Arc<Object>>) {
        let sort = &self.sort;
        let old_entry = old.map(|o| Entry::new(sort, o.clone()));
        let new_entry = new.map(|o| Entry::new(sort, o.clone()));
        // `all` holds every row: the row's slot is its entry's (a new row's, a new one).
        let prepared = &mut self.prepared;
        let (slot, gone) =
            self.all
                .change_owned(old_entry.as_ref(), new_entry.clone(), sort, || {
                    prepared.reserve()
                });
        if let Some(gone) = gone {
            self.prepared.release(gone);
        }
        if let (Some(slot), Some(o)) = (slot, new) {
            self.prepared.put(slot, o);
        }
        match (old, new) {
            (_, Some(n)) => self.held.put(n),
            (Some(o), None) => self.held.remove(o),
            (None, None) => {}
        }
        let slot = slot.unwrap_or(NO_SLOT);
        for (sort, index) in &mut self.kept {
            let old = old.map(|o| Entry::new(sort, o.clone()));
            let new = new.map(|o| Entry::in_slot(sort, o.clone(), slot));
            index.change(old.as_ref(), new.as_ref(), sort);
        }
        let old = old_entry;
        let new = new_entry.map(|e| Entry { slot, ..e });
        if self.matched.is_none() {
            return;
        }
        let old = old.filter(|o| self.filter.matches(&o.obj));
        let new = new.filter(|n| self.filter.matches(&n.obj));
        let old_in = old.as_ref().map(|o| self.scanned(o));
        let new_in = new.as_ref().map(|n| self.scanned(n));
        let sort = &self.sort;
        if let (Some(o), Some(n), Some(true), Some(true)) = (&old, &new, old_in, new_in) {
            if let Some(m) = &mut self.matched {
                if m.replace(o, n, sort) {
                    return;
                }
            }
        }
        if let Some(o) = &old {
            match (old_in, &mut self.matched, &mut self.scan) {
                (Some(true), Some(m), _) => {
                    m.remove(o, sort);
                }
                (
                    _,
                    _,
                    Some(Scan {
                        from: Some(from), ..
                    }),
                ) => {
                    from.remove_found(o, sort);
                }
                _ => {}
            }
        }
        if let Some(n) = new {
            match (new_in, &mut self.matched, &mut self.scan) {
                (Some(true), Some(m), _) => {
                    m.insert(n, sort);
                }
                // Matching the new filter, it matches the one it narrows: a candidate.
                (
                    _,
                    _,
                    Some(Scan {
                        from: Some(from), ..
                    }),
                ) => {
                    from.insert(n, sort);
                }
                _ => {}
            }
        }
    }

    /// Merges new objects (keys not shown yet) into the index: sorted, then one pass
    /// where a rebuild would key and sort all `n` rows again.
    fn merge(&mut self, added: Vec<Arc<Object>>) {
        let slots: Vec<u32> = added
            .iter()
            .map(|o| {
                let slot = self.prepared.reserve();
                self.prepared.put(slot, o);
                self.held.put(o);
                slot
            })
            .collect();
        for (sort, index) in &mut self.kept {
            let mut added: Vec<Entry> = added
                .iter()
                .zip(&slots)
                .map(|(o, &slot)| Entry::in_slot(sort, o.clone(), slot))
                .collect();
            added.sort_unstable_by(|a, b| a.cmp(b, sort));
            *index = std::mem::take(index).merged(added, sort, &mut Vec::new());
        }
        let sort = &self.sort;
        let mut added: Vec<Entry> = added
            .into_iter()
            .zip(slots)
            .map(|(o, slot)| Entry::in_slot(sort, o, slot))
            .collect();
        added.sort_unstable_by(|a, b| a.cmp(b, sort));
        let all = std::mem::take(&mut self.all);
        let mut gone = Vec::new();
        self.all = all.merged(added.clone(), sort, &mut gone);
        for slot in gone {
            self.prepared.release(slot);
        }
        if self.matched.is_none() {
            return;
        }
        for e in added.iter() {
            if self.filter.matches(&e.obj) {
                if self.scanned(e) {
                    if let Some(m) = &mut self.matched {
                        m.insert(e.clone(), sort);
                    }
                } else if let Some(Scan {
                    from: Some(from), ..
                }) = &mut self.scan
                {
                    from.insert(e.clone(), sort);
                }
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
        // Deleted rows still fading stay (unless the store has the key again).
        self.fading
            .retain(|_, (o, _)| store.get(o.namespace(), o.name()).is_none());
        self.rebuild_from(store.len(), store.iter());
    }

    /// Shows `rows` alone, not live (a view's kept first screen, before its engine
    /// has any): as a rebuild from a store holding only them would.
    pub fn show_only(&mut self, rows: &[Arc<Object>]) {
        self.clear();
        self.rebuild_from(rows.len(), rows.iter());
        self.last_rebuild = f64::NEG_INFINITY;
    }

    /// Builds the index anew from `n` rows and those still fading.
    fn rebuild_from<'a>(&mut self, n: usize, source: impl Iterator<Item = &'a Arc<Object>>) {
        // The store holds the changes a sort under way kept waiting.
        self.resort = None;
        self.waiting.clear();
        let sort = &self.sort;
        let mut rows: Vec<Entry> = Vec::with_capacity(n + self.fading.len());
        // Every row gets a slot again (what was prepared is built again in idle frames).
        self.prepared.reset();
        self.held.clear();
        let prepared = &mut self.prepared;
        let held = &mut self.held;
        let mut entry = |o: &Arc<Object>| {
            let slot = prepared.reserve();
            prepared.put(slot, o);
            held.put(o);
            Entry::in_slot(sort, o.clone(), slot)
        };
        rows.extend(source.map(&mut entry));
        rows.extend(self.fading.values().map(|(o, _)| entry(o)));
        self.all = Index::sort(rows, sort);
        self.kept.clear();
        self.stale = false;
        if !self.filter.is_empty() {
            self.matched = Some(Index::default());
            self.scan = Some(Scan {
                cursor: None,
                from: None,
            });
            self.finish_small_scan();
        }
    }

    /// Drops rows that finished fading and forgets old flashes. Returns whether the
    /// rows changed.
    pub fn sweep(&mut self, now: f64) -> bool {
        self.flashes.retain(|_, (_, _, at)| now - *at < FLASH_MS);
        if self.resort.is_some() {
            // The rows stay as they are until the sort is built.
            return false;
        }
        let done: Vec<Arc<Object>> = self
            .fading
            .values()
            .filter(|(_, at)| now - *at >= FADE_MS)
            .map(|(o, _)| o.clone())
            .collect();
        for o in &done {
            self.fading.remove(&key_of(o));
            if !self.stale {
                self.change(Some(o), None);
            }
        }
        !done.is_empty()
    }

    /// Prepares sort keys for `cols` (the view's columns) until `clock()` reaches
    /// `deadline`, once the table is synced and current: a slice of an idle frame.
    /// Returns whether work is left.
    pub fn prepare(&mut self, cols: &[Column], deadline: f64, clock: &dyn Fn() -> f64) -> bool {
        // A sort being built first: its user is waiting for it, and the words it
        // reads must stay as they are (the view's columns may have changed).
        if self.advance_resort(deadline, clock) || self.catch_up(deadline, clock) {
            return true;
        }
        while let Some(index) = self.retired.last_mut() {
            if clock() >= deadline {
                return true;
            }
            for _ in 0..16 {
                if !index.drop_chunk() {
                    self.retired.pop();
                    break;
                }
            }
        }
        if !self.live || self.stale {
            return false;
        }
        self.prepared.prepare(cols, deadline, clock)
    }

    /// Whether a sort by `col` would find its keys prepared.
    pub fn prepared(&self, col: &Column) -> bool {
        self.prepared.ready(col) && self.resort.is_none() && self.prepared.len() == self.all.len()
    }

    /// Anything time-based left to animate or drop.
    pub fn animating(&self) -> bool {
        !self.fading.is_empty() || !self.flashes.is_empty()
    }

    /// Where `o` is, or would be, in the sorted rows: its index when shown, else the
    /// index of the row that now takes its place. A binary search.
    pub fn place_of(&self, o: &Arc<Object>) -> usize {
        if let Some(r) = self.shown_resort() {
            return r
                .first
                .iter()
                .position(|f| Arc::ptr_eq(f, o))
                .unwrap_or(r.first.len());
        }
        self.view()
            .position(&Entry::new(&self.sort, o.clone()), &self.sort)
    }

    /// The index of `o`'s row, if shown: by binary search for the version shown,
    /// else by a scan.
    pub fn find(&self, o: &Arc<Object>) -> Option<usize> {
        if let Some(r) = self.shown_resort() {
            return r
                .first
                .iter()
                .position(|f| f.name() == o.name() && f.namespace() == o.namespace());
        }
        let view = self.view();
        view.find(&Entry::new(&self.sort, o.clone()), &self.sort)
            .or_else(|| view.scan_for(o))
    }

    /// The row with `key` (`namespace/name`), fading ones included: among every row
    /// by its name ([`Held`], also while a sort is built), or among a filter's matches
    /// by a scan.
    pub fn find_key(&self, key: &str) -> Option<Arc<Object>> {
        let (ns, name) = key.split_once('/')?;
        match &self.matched {
            None => self.held.by_key(ns, name).cloned(),
            Some(m) => m
                .iter()
                .find(|e| e.obj.name() == name && e.obj.namespace() == ns)
                .map(|e| e.obj.clone()),
        }
    }

    /// Forgets everything (a new view).
    pub fn clear(&mut self) {
        self.resort = None;
        self.waiting.clear();
        self.all.clear();
        self.held.clear();
        self.kept.clear();
        self.retired.clear();
        self.prepared.reset();
        if let Some(m) = &mut self.matched {
            m.clear();
        }
        self.scan = None;
        self.fading.clear();
        self.flashes.clear();
        self.live = false;
        self.stale = true;
        self.last_rebuild = f64::NEG_INFINITY;
    }
}

pub mod ages;
mod index;
mod keys;
#[cfg(test)]
mod tests;
