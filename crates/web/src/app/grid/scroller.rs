//! The virtual scroller: which of the table's rows are in the DOM, where, and in which
//! pooled element. It keeps the scroll position, the row window's origin and the
//! anchor that holds the rows on screen in place while rows come and go above them,
//! and sizes the scroll range ([`spacer_rows`]).

use crate::time;
use kubelive_core::Object;
use kubelive_table::{key_of, Column, RowState, TableModel};
use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;
use web_sys::HtmlElement;
use yew::prelude::*;

use super::cells::CellLook;
use super::row::{show_title, Row};

/// Height of one table row in pixels. The app's root sets it as the CSS custom
/// property `--row-height` ([`ROW_HEIGHT_STYLE`]), which style.css sizes the rows by.
pub const ROW_HEIGHT: f64 = 28.0;
/// `--row-height` as the app's root sets it: [`ROW_HEIGHT`] in CSS (a test checks
/// that they agree).
pub const ROW_HEIGHT_STYLE: &str = "--row-height:28px";
/// Rows rendered above and below the visible window.
const OVERSCAN: usize = 8;
/// How long after the user's last scroll the table holds off keeping rows in place:
/// setting the scroll position would cut a wheel or fling animation short.
pub const USER_SCROLL_QUIET_MS: f64 = 400.0;

/// The first visible row and how far it is scrolled past, taken before a frame's
/// changes so the row can be kept where it is on screen.
pub struct ScrollAnchor {
    row: Arc<Object>,
    index: usize,
    offset: f64,
    /// Kept in place on screen (the scroll position follows it); not while the user
    /// scrolls, when a scroll position written would cut the gesture short.
    hold: bool,
}

impl ScrollAnchor {
    /// The scroll position that keeps the anchor row where it was on screen, and by
    /// how many rows it moved, if rows came or went above it (what browsers' scroll
    /// anchoring does for ordinary pages).
    fn moved_to(&self, model: &TableModel) -> Option<(f64, i64)> {
        let index = model.place_of(&self.row);
        (index != self.index).then_some((
            index as f64 * ROW_HEIGHT + self.offset,
            index as i64 - self.index as i64,
        ))
    }
}

/// The rows a render puts in the DOM ([`Scroller::window`]).
pub struct Window {
    /// The first row's index in the table.
    pub first: usize,
    /// One past the last row's.
    pub last: usize,
    /// The row elements the pool keeps.
    pub pool: usize,
    /// The scroll range's height (px).
    pub height: f64,
}

/// Where the table is scrolled and which rows the DOM holds.
pub struct Scroller {
    /// The scrolling element (`#scroller`).
    pub node: NodeRef,
    /// The scroll position as last read or set (px).
    top: f64,
    /// A scroll position to set once the render has sized the table for it.
    scroll_to: Option<f64>,
    /// The scroller's height (px).
    viewport: f64,
    /// When the user last scrolled (ms, [`time::now_ms`]).
    user_scrolled_at: f64,
    /// The row index the row window is placed at. It moves only with the rows the
    /// anchor absorbs, so rows keep their place in the window layer both when the user
    /// scrolls and when rows come and go above (nothing in it is repainted but rows
    /// that enter or change).
    base: i64,
    /// The first row index the last render showed.
    shown_first: Cell<usize>,
    /// The rows the scroll range was last made for ([`spacer_rows`]).
    spacer_rows: Cell<usize>,
    /// How many rows the last render showed.
    shown_rows: Cell<usize>,
    /// The last render showed the first screen of rows only: the rest of the pool
    /// (the overscan) is due in a later frame.
    fill_pool: Cell<bool>,
}

impl Default for Scroller {
    fn default() -> Scroller {
        Scroller {
            node: NodeRef::default(),
            top: 0.0,
            scroll_to: None,
            viewport: 600.0,
            user_scrolled_at: f64::NEG_INFINITY,
            base: 0,
            shown_first: Cell::new(0),
            spacer_rows: Cell::new(0),
            shown_rows: Cell::new(0),
            fill_pool: Cell::new(false),
        }
    }
}

impl Scroller {
    /// A new view: back to the top.
    pub fn reset(&mut self) {
        self.top = 0.0;
        self.base = 0;
        if let Some(el) = self.node.cast::<HtmlElement>() {
            el.set_scroll_top(0);
        }
    }

    /// The scroller's height (px).
    pub fn viewport(&self) -> f64 {
        self.viewport
    }

    /// When the user last scrolled (ms).
    pub fn user_scrolled_at(&self) -> f64 {
        self.user_scrolled_at
    }

    /// Rows a page key moves by.
    pub fn page_rows(&self) -> isize {
        (self.viewport / ROW_HEIGHT) as isize
    }

    /// Whether `rows` rows fill the viewport (the first screen is shown).
    pub fn filled_by(&self, rows: usize) -> bool {
        rows as f64 * ROW_HEIGHT >= self.viewport
    }

    /// The first row index a render shows (the overscan included).
    pub fn window_first(&self) -> usize {
        ((self.top / ROW_HEIGHT) as usize).saturating_sub(OVERSCAN)
    }

    /// Whether a scroll moved the window since the last render.
    pub fn rows_moved(&self) -> bool {
        self.window_first() != self.shown_first.get()
    }

    /// One past the last row the viewport shows (with the overscan).
    pub fn visible_end(&self) -> usize {
        ((self.top + self.viewport) / ROW_HEIGHT).ceil() as usize + OVERSCAN
    }

    /// What to keep in place while rows come and go above it (while the user
    /// scrolls, what to keep in its element only). None at the top: there new rows
    /// push the rest down, as in any live list.
    /// `top` is current: every scroll fires a scroll event, handled before the
    /// frame (reading `scrollTop` here would force a layout of the rows a render
    /// just changed).
    pub fn anchor(&self, model: &TableModel) -> Option<ScrollAnchor> {
        let user_scrolling = time::now_ms() - self.user_scrolled_at < USER_SCROLL_QUIET_MS;
        if self.top < ROW_HEIGHT || self.scroll_to.is_some() {
            return None;
        }
        let index = (self.top / ROW_HEIGHT) as usize;
        let row = model.get(index)?.clone();
        Some(ScrollAnchor {
            row,
            index,
            offset: self.top - index as f64 * ROW_HEIGHT,
            hold: !user_scrolling,
        })
    }

    /// After a frame's changes: the anchor row stays where it was on screen.
    pub fn follow(&mut self, anchor: Option<ScrollAnchor>, model: &TableModel) {
        if let Some((anchor, (top, shift))) = anchor.and_then(|a| a.moved_to(model).map(|m| (a, m)))
        {
            if anchor.hold {
                self.top = top;
                self.scroll_to = Some(top);
            }
            // The window's origin moves with the rows: each keeps its element (only
            // the window moves), where otherwise every row on screen would take the
            // element of another and be rendered anew.
            self.base += shift;
        }
    }

    /// Scrolls row `index` to the middle of the viewport (at the next render).
    pub fn reveal(&mut self, index: usize) {
        let top = (index as f64 * ROW_HEIGHT - self.viewport / 2.0).max(0.0);
        self.top = top;
        self.scroll_to = Some(top);
    }

    /// Scrolls just enough for row `index` to be in view, at once.
    pub fn keep_in_view(&mut self, index: usize) {
        let top = index as f64 * ROW_HEIGHT;
        let mut scroll = self.top;
        if top < scroll {
            scroll = top;
        } else if top + ROW_HEIGHT > scroll + self.viewport {
            scroll = top + ROW_HEIGHT - self.viewport;
        }
        if scroll != self.top {
            self.top = scroll;
            if let Some(el) = self.node.cast::<HtmlElement>() {
                el.set_scroll_top(scroll as i32);
            }
        }
    }

    /// Reads the scroll position and the viewport's height. True if either changed.
    pub fn measure(&mut self) -> bool {
        let before = (self.top, self.viewport);
        if let Some(el) = self.node.cast::<HtmlElement>() {
            self.top = el.scroll_top() as f64;
            self.viewport = (el.client_height() as f64).max(ROW_HEIGHT);
        }
        before != (self.top, self.viewport)
    }

    /// A scroll event: reads the scroll position (only: the viewport's height changes
    /// on resize), noting a position the app did not set as the user's. True if the
    /// first visible row changed (a frame is due).
    pub fn scrolled(&mut self) -> bool {
        let before = self.top;
        if let Some(el) = self.node.cast::<HtmlElement>() {
            self.top = el.scroll_top() as f64;
            if (self.top - before).abs() >= 1.0 {
                self.user_scrolled_at = time::now_ms();
            }
        }
        (before / ROW_HEIGHT) as i64 != (self.top / ROW_HEIGHT) as i64
    }

    /// After a render: sets the scroll position it was sized for. True if the rest
    /// of the row pool is due (the render showed the first screen only).
    pub fn rendered(&mut self) -> bool {
        if let Some(top) = self.scroll_to.take() {
            if let Some(el) = self.node.cast::<HtmlElement>() {
                el.set_scroll_top(top.round() as i32);
            }
        }
        self.fill_pool.take()
    }

    /// The rows a render of a table of `rows` rows shows, and the scroll range.
    pub fn window(&self, rows: usize) -> Window {
        let seen_to = ((self.top + self.viewport) / ROW_HEIGHT).ceil() as usize;
        let spacer = spacer_rows(rows, self.spacer_rows.get(), seen_to);
        self.spacer_rows.set(spacer);
        let height = spacer as f64 * ROW_HEIGHT;
        let first = self.window_first();
        self.shown_first.set(first);
        // Even, and the pool's size: no slot is spare mid-table, so scrolling never
        // creates or drops a row element ([`Rows`]).
        let pool = pool_size((self.viewport / ROW_HEIGHT).ceil() as usize + 2 * OVERSCAN);
        let mut last = (first + pool).min(rows);
        // Rows appearing in an empty table (the first page): the rows on screen now,
        // the overscan in a later frame. Creating the row elements is most of that
        // frame's work, and the rows past the viewport are not seen.
        if self.shown_rows.get() == 0 && last > seen_to {
            last = seen_to.max(first);
            self.fill_pool.set(true);
        }
        let first = first.min(last);
        self.shown_rows.set(last - first);
        Window {
            first,
            last,
            pool,
            height,
        }
    }

    /// The row window's origin (a row index).
    pub fn base(&self) -> i64 {
        self.base
    }
}

/// A row to render, with what the table model knows of it (looked up once a render).
#[derive(Clone, Debug, PartialEq)]
pub struct ShownRow {
    pub object: Arc<Object>,
    /// `namespace/name`.
    pub key: Rc<str>,
    pub state: RowState,
    /// When `state` began (ms, [`crate::time::now_ms`]): the change or the deletion.
    pub since: f64,
}

impl ShownRow {
    /// `look`: the row's state and since when, by its key (`TableModel::row_look`).
    pub fn new(object: Arc<Object>, look: impl FnOnce(&str) -> (RowState, f64)) -> ShownRow {
        let key: Rc<str> = key_of(&object).into();
        let (state, since) = look(&key);
        ShownRow {
            object,
            key,
            state,
            since,
        }
    }
}

/// The pooled row element that shows the row `place` rows from the window's origin,
/// out of `pool` elements. A row keeps its element while it stays in the window (the
/// origin moves with the rows that come and go above, as the row's place does); a row
/// scrolling in takes the element of the one that scrolled out.
pub fn slot_of(place: i64, pool: usize) -> usize {
    place.rem_euclid(pool.max(1) as i64) as usize
}

/// The elements a window of `rows` rows needs: even, so that a pooled element's
/// stripe never changes.
pub fn pool_size(rows: usize) -> usize {
    rows.div_ceil(2) * 2
}

#[derive(Properties, PartialEq)]
pub struct RowsProps {
    /// The visible window of rows.
    pub rows: Rc<Vec<ShownRow>>,
    /// Index of the first of them in the whole table.
    pub first: usize,
    /// The row index the window is placed at; rows sit at their index less this.
    pub base: i64,
    /// How many row elements the window keeps (at least the rows it may show; 0: as
    /// many as `rows`, rounded up to even). Constant while the viewport's height is.
    #[prop_or_default]
    pub pool: usize,
    pub cols: Rc<Vec<Column>>,
    /// What each column's cells carry besides their text ([`cell_looks`] of `cols`).
    pub looks: Rc<Vec<CellLook>>,
    pub selected: Option<String>,
    /// Unix seconds, for ages.
    pub now: f64,
    pub on_select: Callback<String>,
    pub on_open: Callback<String>,
}

/// The rendered window of the virtualized table: a layer placed at row `base`, each
/// row absolutely placed in it, in a fixed pool of row elements keyed by their slot
/// ([`slot_of`]) and kept in slot order in the DOM. Scrolling changes what the
/// elements that change rows show (their text, their place), never which elements
/// there are or their order: no row element is created, styled from scratch or laid
/// out anew while the table scrolls, and the page need not re-layerize for it. Each
/// row is a component of its own, so only rows that change are rendered. The DOM
/// order is not the table's: `aria-rowindex` says each row's place.
#[function_component(Rows)]
pub fn rows(p: &RowsProps) -> Html {
    rows_html(p)
}

/// How far from the table's end the scroll range moves in steps rather than row by row.
pub const SPACER_STEP: usize = 256;

/// The rows the scroll range covers (the table's spacer). Under churn the row count
/// changes every frame, and a scroll range that changes makes Chromium lay out the
/// whole page's compositor layers again (a full layerization, ~2 ms a frame here).
/// Away from the end, the range stays put while it covers the rows with at most two
/// steps to spare (blank rows past the end that no one sees from where they are);
/// near the end (within a step of the last visible row, `seen_to`) it is exact.
pub fn spacer_rows(rows: usize, previous: usize, seen_to: usize) -> usize {
    if seen_to + SPACER_STEP >= rows {
        rows
    } else if (rows..=rows + 2 * SPACER_STEP).contains(&previous) {
        previous
    } else {
        rows.div_ceil(SPACER_STEP) * SPACER_STEP
    }
}

/// What [`Rows`] renders, for a parent to render in place: the app does, so that a
/// render that first brings rows creates their elements in the same run of Yew's
/// scheduler. A child component's new props wait in a queue that Yew may leave for a
/// later task once a run has taken 16 ms (it yields to the browser), and the browser
/// would then paint the table without its rows first.
pub fn rows_html(p: &RowsProps) -> Html {
    let origin = p.base as f64 * ROW_HEIGHT;
    let pool = if p.pool >= p.rows.len() {
        p.pool
    } else {
        pool_size(p.rows.len())
    };
    let mut slots: Vec<Option<(usize, &ShownRow)>> = vec![None; pool];
    for (i, r) in p.rows.iter().enumerate() {
        let index = p.first + i;
        slots[slot_of(index as i64 - p.base, pool)] = Some((index, r));
    }
    html! {
        <div class="window" style={format!("transform:translateY({origin}px)")} onmouseover={show_title}>
            { for slots.into_iter().enumerate().filter_map(|(slot, shown)| {
                let (index, r) = shown?;
                let selected = p.selected.as_deref() == Some(&*r.key);
                let place = index as i64 - p.base;
                Some(html! {
                    <Row key={slot} id={r.key.clone()} object={r.object.clone()} state={r.state}
                         since={r.since} {selected} {index} {place} cols={p.cols.clone()}
                         looks={p.looks.clone()} now={p.now}
                         on_select={p.on_select.clone()} on_open={p.on_open.clone()} />
                })
            }) }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_css_row_height_is_the_rust_one() {
        assert_eq!(ROW_HEIGHT_STYLE, format!("--row-height:{ROW_HEIGHT}px"));
    }

    #[test]
    fn a_row_keeps_its_element_while_it_stays_in_the_window() {
        let pool = pool_size(37);
        assert_eq!(pool, 38);
        // Scrolled by one row: the rows that stay keep their slots, the one that
        // enters takes a slot none of them holds (the one that left, or the spare).
        let before: Vec<usize> = (100..137).map(|i| slot_of(i - 5, pool)).collect();
        let after: Vec<usize> = (101..138).map(|i| slot_of(i - 5, pool)).collect();
        assert_eq!(before[1..], after[..36]);
        assert!(!after[..36].contains(&after[36]));
        // A window's rows never share an element.
        let mut slots = after.clone();
        slots.sort();
        slots.dedup();
        assert_eq!(slots.len(), 37);
        // Rows added above move the rows and the window's origin alike: same slots.
        let shifted: Vec<usize> = (104..141).map(|i| slot_of(i - 8, pool)).collect();
        assert_eq!(shifted, after);
        // An even pool: an element's stripe (its place's parity) never changes.
        for place in -50..50i64 {
            let slot = slot_of(place, pool) as i64;
            assert_eq!(place.rem_euclid(2), slot.rem_euclid(2));
        }
    }

    #[test]
    fn the_scroll_range_holds_still_under_churn_away_from_the_end() {
        // Far from the end: a step that covers the rows, kept while rows come and go.
        let first = spacer_rows(100_000, 0, 5_000);
        assert!((100_000..100_000 + SPACER_STEP).contains(&first));
        for rows in [100_000 - 40, 100_000 + 40, first] {
            assert_eq!(spacer_rows(rows, first, 5_000), first, "{rows} rows");
        }
        // Never shorter than the table, and never more than two steps past it.
        assert!(spacer_rows(first + 1, first, 5_000) > first);
        let shrunk = spacer_rows(first - 3 * SPACER_STEP, first, 5_000);
        assert!((first - 3 * SPACER_STEP..first - 2 * SPACER_STEP).contains(&shrunk));
        // Near the end (and for small tables) the exact count: no blank rows to scroll to.
        assert_eq!(spacer_rows(100_000, first, 100_000 - SPACER_STEP), 100_000);
        assert_eq!(spacer_rows(100, 0, 20), 100);
        assert_eq!(spacer_rows(0, 512, 0), 0);
    }
}
