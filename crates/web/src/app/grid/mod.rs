//! The table: its model (`kubelive_table::TableModel`), its columns, the virtual
//! scroller that puts the rows near the viewport in a pool of row elements, and the
//! selection. The app feeds it the engine's events once a frame (`App::frame`).

mod cells;
mod columns;
mod fit;
mod row;
mod scroller;

pub use cells::{cell_looks, CellLook, Rooms};
pub use row::{Animation, Row, RowProps};
pub use scroller::{
    pool_size, rows_html, slot_of, Rows, RowsProps, ShownRow, ROW_HEIGHT, ROW_HEIGHT_STYLE,
    USER_SCROLL_QUIET_MS,
};

use super::url::ViewState;
use crate::driver::Driver;
use crate::time;
use columns::Columns;
use kubelive_core::{Event as CoreEvent, Object};
use kubelive_table::{self as table, Column, Filter, Sort, TableModel};
use scroller::{ScrollAnchor, Scroller};
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// How long a keystroke (or a frame that scrolled past the matches found) may filter
/// to fill the screen before it paints what it found.
const FIRST_SCREEN_MS: f64 = 40.0;
/// The filter's work per frame after the first screen, while it counts the rest.
const FILTER_SLICE_MS: f64 = 6.0;
/// Preparing the columns' sort keys once synced (`TableModel::prepare`): work per
/// slice, each slice a task of its own after a timeout (a click or a frame goes
/// between two slices).
pub const PREPARE_SLICE_MS: f64 = 4.0;

pub enum Msg {
    /// A header's button: sort by its column (again: the other way).
    SortBy(Column),
    Scroll,
    /// The window's size changed.
    Resize,
    /// The header's columns were laid out anew (first shown, resized): how wide their
    /// cells are.
    MeasureColumns,
    /// A click on a row.
    Select(String),
    /// A double click on a row.
    Open(String),
    /// The header's note of hidden columns: the selected (or first) row's details.
    ShowHidden,
    /// The focus entered (true) or left the table.
    Focus(bool),
}

pub struct Grid {
    pub model: TableModel,
    pub columns: Columns,
    pub scroller: Scroller,
    /// The selected object as last seen (shown if it is deleted meanwhile).
    pub selected: Option<Arc<Object>>,
    /// The selection came from the URL: scroll to it once it is in the table.
    pub reveal: bool,
    send: Callback<Msg>,
    /// Made once, so that rows compare equal across renders.
    on_select: Callback<String>,
    on_open: Callback<String>,
    on_measured: Callback<()>,
}

impl Grid {
    /// `reveal`: the view comes with a selection to scroll to.
    pub fn new(send: Callback<Msg>, reveal: bool) -> Grid {
        Grid {
            model: TableModel::new(Sort::default(), Filter::default()),
            columns: Columns::default(),
            scroller: Scroller::default(),
            selected: None,
            reveal,
            on_select: send.reform(Msg::Select),
            on_open: send.reform(Msg::Open),
            on_measured: send.reform(|_| Msg::MeasureColumns),
            send,
        }
    }

    /// A new view: no rows, back to the top (the selection's key stays: it may come
    /// from the URL).
    pub fn restart(&mut self) {
        self.model.clear();
        self.selected = None;
        self.scroller.reset();
    }

    /// Recomputes the view's columns and what depends on them: the sort (kept by
    /// id when the column is still there, else by name) and the free-text filter.
    pub fn set_columns(&mut self, view: &ViewState) {
        if !self.columns.set(view.wide) {
            return;
        }
        let cols = &self.columns.all;
        let sort = Sort::parse(&view.sort, cols).unwrap_or_else(|| Sort::by_name(cols));
        self.model.set_sort(sort);
        self.model.set_filter(Filter::new(&view.query.words, cols));
    }

    /// The engine said which columns the server prints, or that it does not print;
    /// why the app's own are used, if so (for the log).
    pub fn note_columns(&mut self, events: &[CoreEvent], view: &ViewState) -> Vec<String> {
        let (changed, own) = self.columns.note(events, &view.resource);
        if changed {
            self.set_columns(view);
        }
        own
    }

    /// A frame's news: apply the batch, rebuild if due, drop faded rows, a slice of
    /// the filter, and keep the rows on screen in place (`anchor`, taken before).
    pub fn apply(&mut self, events: &[CoreEvent], driver: &Driver, anchor: Option<ScrollAnchor>) {
        let now = time::now_ms();
        self.model.apply(events, now);
        if self.model.is_stale() {
            let started = time::now_ms();
            let model = &mut self.model;
            let rebuilt = driver.with_store(|s| model.maybe_rebuild(s, now, false));
            if rebuilt {
                self.model.note_rebuild_cost(time::now_ms() - started);
            }
        }
        self.model.sweep(now);
        if self.model.is_filtering() {
            // A slice of the filter per frame (the keystroke filled the screen, or
            // spent its time trying: a rare word must not make every frame long).
            self.model
                .advance_filter(usize::MAX, time::now_ms() + FILTER_SLICE_MS, &time::now_ms);
        }
        self.scroller.follow(anchor, &self.model);
    }

    /// What to keep in place through a frame's changes.
    pub fn anchor(&self) -> Option<ScrollAnchor> {
        self.scroller.anchor(&self.model)
    }

    /// Whether sort keys wait to be prepared (a deadline already past: only whether
    /// there is work, as after a sync, a rebuild or other columns).
    pub fn prepare_due(&mut self) -> bool {
        self.model
            .prepare(&self.columns.all, f64::NEG_INFINITY, &time::now_ms)
    }

    /// A slice of preparing sort keys: whether work is left, and whether what it
    /// did is to be shown (a sort built past the first screen, or changes that
    /// waited for it).
    pub fn prepare(&mut self) -> (bool, bool) {
        let resorting = self.model.resorting();
        let catching_up = self.model.behind() && !resorting;
        let deadline = time::now_ms() + PREPARE_SLICE_MS;
        let more = self
            .model
            .prepare(&self.columns.all, deadline, &time::now_ms);
        (more, (resorting && !self.model.resorting()) || catching_up)
    }

    /// Whether the model wants the next frame (rebuilding or filtering).
    pub fn busy(&self) -> bool {
        self.model.is_stale() || self.model.is_filtering()
    }

    /// Brings the rows up to date at once (a filter's or a sort's first screen).
    pub fn rebuild_now(&mut self, driver: Option<&Driver>) {
        if let Some(driver) = driver {
            let model = &mut self.model;
            driver.with_store(|s| model.maybe_rebuild(s, time::now_ms(), true));
        }
        // A filter over many rows: the first screen of matches now, the rest in
        // slices on the next frames (`rendered` asks for them).
        if self.model.is_filtering() {
            let want = self.scroller.visible_end();
            self.model
                .advance_filter(want, time::now_ms() + FIRST_SCREEN_MS, &time::now_ms);
        }
    }

    /// Applies the box's free words (the browser's part of the filter).
    pub fn apply_words(
        &mut self,
        words: Vec<String>,
        view: &mut ViewState,
        driver: Option<&Driver>,
    ) {
        view.query.words = words;
        self.model
            .set_filter(Filter::new(&view.query.words, &self.columns.all));
        self.rebuild_now(driver);
    }

    /// Sorts the rows; at a large table, the first rows of the new order at once and
    /// the rest in idle slices (`TableModel::set_sort_showing`). True while a sort
    /// is being built (slices of `prepare` are due).
    pub fn apply_sort(
        &mut self,
        sort: Sort,
        view: &mut ViewState,
        driver: Option<&Driver>,
    ) -> bool {
        view.sort = sort.to_param();
        self.model
            .set_sort_showing(sort, self.scroller.visible_end());
        self.rebuild_now(driver);
        self.model.resorting()
    }

    /// Selects row `index` and keeps it in view. False if there is no such row.
    pub fn select_index(&mut self, index: usize, view: &mut ViewState) -> bool {
        let Some(o) = self.model.get(index).cloned() else {
            return false;
        };
        view.selected = Some(table::key_of(&o));
        self.selected = Some(o);
        self.reveal = false;
        self.scroller.keep_in_view(index);
        true
    }

    /// Moves the selection by `delta` rows. False if the table is empty.
    pub fn move_selection(&mut self, delta: isize, view: &mut ViewState) -> bool {
        let rows = self.model.len();
        if rows == 0 {
            return false;
        }
        let current = self
            .selected
            .as_ref()
            .filter(|o| view.selected.as_deref() == Some(table::key_of(o).as_str()))
            .and_then(|o| self.model.find(o));
        let next = match current {
            Some(i) => (i as isize + delta).clamp(0, rows as isize - 1) as usize,
            None => 0,
        };
        self.select_index(next, view)
    }

    /// Selects the row `key`: `found` is the object as the engine's store has it.
    pub fn select(&mut self, key: String, found: Option<Arc<Object>>, view: &mut ViewState) {
        self.selected = found.or_else(|| self.model.find_key(&key));
        view.selected = Some(key);
        self.reveal = false;
    }

    /// Scrolls a selection restored from the URL into view once its row is there.
    pub fn reveal_selected(&mut self, key: Option<&str>, synced: bool) {
        if !self.reveal || self.model.is_stale() {
            return;
        }
        let Some(key) = key else {
            self.reveal = false;
            return;
        };
        let Some(shown) = self.selected.as_ref().filter(|o| table::key_of(o) == key) else {
            if synced {
                self.reveal = false;
            }
            return;
        };
        match self.model.find(shown) {
            Some(i) => {
                self.scroller.reveal(i);
                self.reveal = false;
            }
            None if synced => self.reveal = false,
            None => {}
        }
    }

    /// After a render: has the header's cells watched for their size.
    pub fn observe_columns(&mut self) {
        self.columns.observe(&self.scroller.node, &self.on_measured);
    }

    /// The header's cells changed size: what the cells carry and the scroller's
    /// height. True if either changed.
    pub fn measure_columns(&mut self) -> bool {
        // The scroller's height may have changed too (the toolbar wraps to more
        // lines or fewer as the window's width changes).
        let before = self.scroller.viewport();
        self.scroller.measure();
        self.columns.measure(&self.scroller.node) || before != self.scroller.viewport()
    }

    /// The table area: `problem` (what it says instead of or above rows), the
    /// header, the row window; `resource` names the grid, `selected` is the
    /// selection's key, `synced` and `discovering` say why it is empty.
    pub fn view(
        &self,
        problem: Option<Html>,
        resource: String,
        selected: Option<&String>,
        synced: bool,
        discovering: bool,
    ) -> Html {
        let rows = self.model.len();
        let window = self.scroller.window(rows);
        let first = window.first;
        let sort = self.model.sort();
        let cols = &self.columns;
        let hidden = cols.hidden();
        let last_col = cols.shown.len().saturating_sub(1);
        let header = cols.shown.iter().zip(cols.looks.iter()).enumerate().map(|(i, (c, look))| {
            let sorted = sort.col.id == c.id;
            let arrow = if sorted {
                if sort.desc { " ▼" } else { " ▲" }
            } else {
                ""
            };
            let class = classes!("th", sorted.then_some("sorted"));
            let col = c.clone();
            // The server's description on hover (as `kubectl explain` would say).
            let title = (!c.description.is_empty()).then(|| c.description.clone());
            let aria_sort = sorted.then_some(if sort.desc { "descending" } else { "ascending" });
            html! {
                <div class={classes!("thc", look.kind.to_string())} role="columnheader" aria-sort={aria_sort}
                    aria-colindex={look.colindex.clone()}>
                    <button class={class} data-col={c.id.clone()} {title}
                        onclick={self.send.reform(move |_: MouseEvent| Msg::SortBy(col.clone()))}>
                        <span class="th-name">{c.title.clone()}</span><span aria-hidden="true">{arrow}</span>
                    </button>
                    // The columns the table has no room for, said at the header's end:
                    // a row's details show them.
                    if i == last_col && !hidden.is_empty() {
                        <button class="more-cols" id="hidden-columns" data-hidden={hidden.len().to_string()}
                            title={format!("Hidden for want of room: {}. A row's details show every column (Enter).", hidden.join(", "))}
                            aria-label={format!("{} more columns: {}; show the selected row's details", hidden.len(), hidden.join(", "))}
                            onclick={self.send.reform(|_: MouseEvent| Msg::ShowHidden)}>
                            { format!("+{}", hidden.len()) }
                        </button>
                    }
                </div>
            }
        });
        let on_scroll = self.send.reform(|_: Event| Msg::Scroll);
        let empty =
            rows == 0 && !self.model.is_stale() && !self.model.is_filtering() && problem.is_none();
        let empty_text = if synced {
            "No objects match."
        } else if discovering {
            "Discovering resources…"
        } else {
            "Waiting for the first list…"
        };
        let now = time::now_ms();
        let shown: Rc<Vec<ShownRow>> = Rc::new(
            self.model
                .window(first, window.last)
                .into_iter()
                .map(|o| ShownRow::new(o, |key| self.model.row_look(key, now)))
                .collect(),
        );
        let onfocusin = self.send.reform(|_: FocusEvent| Msg::Focus(true));
        let onfocusout = {
            let send = self.send.clone();
            Callback::from(move |e: FocusEvent| {
                // Leaving the table for another element (not for a row that moved).
                let to = e
                    .related_target()
                    .and_then(|t| t.dyn_into::<web_sys::Element>().ok());
                match to {
                    Some(el) if el.closest(".table").ok().flatten().is_some() => {}
                    _ => send.emit(Msg::Focus(false)),
                }
            })
        };
        html! {
            <section class={classes!("table-area", (!hidden.is_empty()).then_some("has-hidden"))}>
            { problem.unwrap_or_default() }
            // A grid a screen reader walks: the header is row 1, each row says its
            // place in the whole table (only the rows in view are in the DOM).
            // Busy while a sort's rows past the first screen are being put in order.
            <div class="table" role="grid" aria-label={resource} aria-rowcount={(rows + 1).to_string()}
                aria-colcount={cols.all.len().to_string()}
                aria-busy={self.model.resorting().then_some("true")} {onfocusin} {onfocusout}>
                <div class="thead" role="row" aria-rowindex="1" ref={cols.header.clone()}
                    style={format!("--gutter:{}px", cols.gutter)}>{ for header }</div>
                <div class="scroller" id="scroller" ref={self.scroller.node.clone()} onscroll={on_scroll} tabindex="0"
                    role="rowgroup" aria-label="Rows: arrows move the selection, Enter shows its details">
                    // The window is the spacer's sibling, placed against the scroller:
                    // the table's height changing under churn lays out only the spacer.
                    <div class="spacer" style={format!("height:{}px", window.height)}></div>
                    { rows_html(&RowsProps {
                        rows: shown,
                        first,
                        base: self.scroller.base(),
                        pool: window.pool,
                        cols: cols.shown.clone(),
                        looks: cols.looks.clone(),
                        selected: selected.cloned(),
                        now: time::unix_now().floor(),
                        on_select: self.on_select.clone(),
                        on_open: self.on_open.clone(),
                    }) }
                </div>
            </div>
            if empty {
                <div class="empty" id="empty">{ empty_text }</div>
            }
            </section>
        }
    }
}
