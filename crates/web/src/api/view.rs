//! Views of a watcher's rows for a table that shows a window of them: the app's table
//! model ([`TableModel`]: a sorted and filtered index kept up to date change by
//! change, rebuilds throttled, row states, ages counted on) over the watcher's store,
//! read a window at a time. What goes in ([`ViewOptions`], a window's first row and
//! count) and what comes out ([`Window`]) is plain data, with no functions and no
//! object identity, so that the same requests can be answered across a
//! `postMessage` as they are here.

use kubelive_core::{ColumnKind, ColumnType, Event, Store, TableColumn};
use kubelive_table::{
    key_of, row_texts, view_columns, Column, Filter, RowState, Sort, Source, TableModel,
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The most a window spends on work left from changes (a filter over many rows, sort
/// keys prepared for the next click) before it answers (ms).
const SLICE_MS: f64 = 4.0;

/// The most rows one window holds (a screen is a few dozen).
pub const WINDOW_MAX: usize = 1000;

/// What a view shows: `watcher.view(options)`, `view.set(options)` (absent members
/// stay as they were).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ViewOptions {
    /// A column's id (`name`, `restarts`, `nominated-node`), `-` first for descending;
    /// empty: the rows' own order, by namespace and name.
    pub sort: Option<String>,
    /// Free text: every word must appear (case-insensitive) in one of the row's shown
    /// cells but its time cells.
    pub filter: Option<String>,
    /// Every column (kubectl's `-o wide`), not only those of priority 0.
    pub wide: Option<bool>,
}

/// One shown column.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ViewColumn {
    /// What `sort` names it by.
    pub id: String,
    /// As the server (or the fallback printer) names it; kubectl shows it upper-cased.
    pub name: String,
    /// The definition's type (`string`, `integer`, `number`, `boolean`, `date`).
    #[serde(rename = "type")]
    pub column_type: String,
    /// `name` for the object's name.
    pub format: String,
    pub description: String,
    pub priority: i32,
    /// The cell's index in the watcher's `columns()`; -1 for the NAMESPACE column a
    /// view across namespaces adds, as kubectl does.
    pub index: i64,
    /// Numbers and ages: aligned right.
    pub numeric: bool,
}

/// The sort a view has (`null` in a [`Window`]: the rows' own order).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ViewSort {
    pub column: String,
    pub descending: bool,
}

/// One row of a window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WindowRow {
    /// `namespace/name` (`/name` for a cluster-scoped object): the row's identity.
    pub key: String,
    pub namespace: String,
    pub name: String,
    /// The shown cells' text, as kubectl prints them (ages counted to now).
    pub cells: Vec<String>,
    /// `added` or `changed` (lately), `deleted` (shown a moment, fading), or `""`.
    pub state: &'static str,
    /// Milliseconds since the change or the deletion (0 for a row in no state).
    pub elapsed: f64,
}

/// An answer to `window(first, count)`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Window {
    /// The index of the first row given.
    pub first: usize,
    /// Rows in the view (deleted ones still fading included; while a filter is being
    /// applied, the matches found so far).
    pub length: usize,
    /// The shown columns, in order.
    pub columns: Vec<ViewColumn>,
    pub sort: Option<ViewSort>,
    pub rows: Vec<WindowRow>,
    /// Ask again on the next frame: work is left (a filter, a rebuild, sort keys) or
    /// rows are changing state (flashing, fading).
    pub pending: bool,
}

/// A view of a watcher's rows.
pub struct View {
    model: TableModel,
    /// As asked (it may name a column the server has not declared yet).
    sort: String,
    words: Vec<String>,
    wide: bool,
    /// The fallback printer's kind (when the server prints no tables).
    kind: ColumnKind,
    /// The watcher lists across namespaces.
    across: bool,
    /// The server's definitions; None: the fallback printer's.
    defs: Option<Arc<[TableColumn]>>,
    /// The fallback printer's definitions for `kind`.
    fallback: Vec<TableColumn>,
    with_namespace: bool,
    cols: Vec<Column>,
    /// `cols` as a window gives them.
    shown: Vec<ViewColumn>,
    /// Where the last window ended.
    shown_to: usize,
}

impl View {
    /// A view of a watcher of `kind`'s collection (`across`: across namespaces) whose
    /// rows are printed with `defs` (None: by the fallback printer).
    pub fn new(
        kind: ColumnKind,
        across: bool,
        defs: Option<Arc<[TableColumn]>>,
        options: ViewOptions,
    ) -> View {
        let mut view = View {
            model: TableModel::new(Sort::by_key(), Filter::default()),
            sort: String::new(),
            words: Vec::new(),
            wide: false,
            kind,
            across,
            defs,
            fallback: kind.columns(),
            with_namespace: false,
            cols: Vec::new(),
            shown: Vec::new(),
            shown_to: 0,
        };
        view.set(options);
        view.columns_changed();
        view
    }

    /// Changes what the view shows; absent options stay as they were.
    pub fn set(&mut self, options: ViewOptions) {
        if let Some(wide) = options.wide {
            if wide != self.wide {
                self.wide = wide;
                self.columns_changed();
            }
        }
        if let Some(sort) = options.sort {
            self.sort = sort;
            // A large table shows the first rows of the new order at once and builds
            // the rest in slices, a window at a time (as the app's header clicks).
            self.model
                .set_sort_showing(self.resolved_sort(), self.shown_to);
        }
        if let Some(filter) = options.filter {
            self.words = filter.split_whitespace().map(str::to_string).collect();
            self.model.set_filter(Filter::new(&self.words, &self.cols));
        }
    }

    /// The server declared its columns (None: it prints no tables; the fallback
    /// printer's columns).
    pub fn set_definitions(&mut self, defs: Option<Arc<[TableColumn]>>) {
        if self.defs.as_deref() != defs.as_deref() {
            self.defs = defs;
            self.columns_changed();
        }
    }

    /// The watcher had synced before the view was made: changes from now on flash.
    pub fn synced(&mut self, now: f64) {
        let synced = Event::Synced {
            objects: 0,
            resource_version: kubelive_core::ResourceVersion::new(""),
        };
        self.model.apply(&[synced], now);
    }

    /// A batch of engine events (`now`: ms on the view's clock).
    pub fn apply(&mut self, events: &[Event], now: f64) {
        self.model.apply(events, now);
    }

    /// The rows `first..first + count` (at most [`WINDOW_MAX`]) of the view over
    /// `store`, `now` ms on the view's clock and `wall_now` Unix seconds (ages);
    /// `clock` reads the view's clock, for the work done meanwhile.
    pub fn window(
        &mut self,
        store: &Store,
        first: usize,
        count: usize,
        now: f64,
        wall_now: f64,
        clock: &dyn Fn() -> f64,
    ) -> Window {
        // NAMESPACE shows across namespaces when the objects have them (kubectl
        // prints none for nodes, even with -A).
        let with_namespace = self.across
            && store
                .iter()
                .next()
                .is_some_and(|o| !o.namespace().is_empty());
        if with_namespace != self.with_namespace {
            self.with_namespace = with_namespace;
            self.columns_changed();
        }
        if self.model.is_stale() {
            let started = clock();
            if self.model.maybe_rebuild(store, now, false) {
                self.model.note_rebuild_cost(clock() - started);
            }
        }
        self.model.sweep(now);
        let count = count.min(WINDOW_MAX);
        let end = first.saturating_add(count);
        self.shown_to = end;
        if self.model.is_filtering() {
            // The window's matches first; the rest in slices, a window at a time.
            self.model.advance_filter(end, clock() + SLICE_MS, clock);
        }
        let rows: Vec<WindowRow> = self
            .model
            .window(first, end)
            .iter()
            .map(|o| {
                let key = key_of(o);
                let (state, at) = self.model.row_look(&key, now);
                let state = match state {
                    RowState::Normal => "",
                    RowState::Changed { added: true, .. } => "added",
                    RowState::Changed { added: false, .. } => "changed",
                    RowState::Gone => "deleted",
                };
                WindowRow {
                    cells: row_texts(&self.cols, o, wall_now),
                    namespace: o.namespace().to_string(),
                    name: o.name().to_string(),
                    elapsed: if state.is_empty() { 0.0 } else { now - at },
                    state,
                    key,
                }
            })
            .collect();
        // A sort being built, changes that waited for it, sort keys for the next click.
        let preparing = self.model.prepare(&self.cols, clock() + SLICE_MS, clock);
        let sort = self.model.sort();
        Window {
            first,
            length: self.model.len(),
            columns: self.shown.clone(),
            sort: (sort.col.source != Source::Key).then(|| ViewSort {
                column: sort.col.id.clone(),
                descending: sort.desc,
            }),
            // Rows flashing elsewhere (any change of a large, churning view) do not
            // make this window's answer move: asked every frame for them, a page (and,
            // shared, the worker) would redraw the same rows for as long as the churn
            // lasts. Fading deleted rows still count, as the length changes when they go.
            pending: preparing
                || self.model.is_stale()
                || self.model.is_filtering()
                || self.model.behind()
                || self.model.shown() != self.model.len()
                || rows.iter().any(|r| !r.state.is_empty()),
            rows,
        }
    }

    /// Rows in the view (see [`Window::length`]).
    pub fn len(&self) -> usize {
        self.model.len()
    }

    pub fn is_empty(&self) -> bool {
        self.model.is_empty()
    }

    /// The sort asked for, among the shown columns (else the rows' own order).
    fn resolved_sort(&self) -> Sort {
        Sort::parse(&self.sort, &self.cols).unwrap_or_else(Sort::by_key)
    }

    /// The shown columns moved: the sort (by id) and the filter follow them.
    fn columns_changed(&mut self) {
        self.cols = view_columns(
            self.defs.as_deref(),
            self.kind,
            self.with_namespace,
            self.wide,
        );
        self.shown = self.cols.iter().map(|c| self.column(c)).collect();
        self.model.set_sort(self.resolved_sort());
        self.model.set_filter(Filter::new(&self.words, &self.cols));
    }

    fn column(&self, c: &Column) -> ViewColumn {
        let defs = self.defs.as_deref().unwrap_or(&self.fallback);
        let (index, def) = match c.source {
            Source::Cell(i) | Source::Fallback(i) => (i as i64, defs.get(i)),
            Source::Namespace | Source::Key => (-1, None),
        };
        ViewColumn {
            id: c.id.clone(),
            name: c.title.clone(),
            column_type: match def.map(|d| &d.column_type) {
                None | Some(ColumnType::String) => "string".into(),
                Some(ColumnType::Integer) => "integer".into(),
                Some(ColumnType::Number) => "number".into(),
                Some(ColumnType::Boolean) => "boolean".into(),
                Some(ColumnType::Date) => "date".into(),
                Some(ColumnType::Other(t)) => t.clone(),
            },
            format: def.map(|d| d.format.clone()).unwrap_or_default(),
            description: c.description.clone(),
            priority: c.priority,
            index,
            numeric: c.numeric,
        }
    }
}

#[cfg(test)]
mod tests;
