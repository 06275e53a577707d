//! The Yew app: resource and namespace pickers, a filter box that sends label and
//! field selectors to the server, a virtualized live table, a status bar that tells
//! the truth, a detail panel with the object's live events, and an event log. State
//! lives in the URL hash. Engine events are batched per animation frame, never
//! rendered per event.
//!
//! A view starts only once discovery says its resource exists (a link cannot make
//! the app request an arbitrary path); a view the server refuses says why in the
//! table area, and for a 403 offers the namespaces the user can use, asked of the
//! server with access reviews (`reviews`).

pub mod access;
mod announce;
mod detail;
pub mod discovery;
pub mod events;
pub mod fetch;
mod fit;
mod log;
pub mod parts;
pub mod prefs;
pub mod problem;
pub mod query;
mod related;
mod reviews;
pub mod url;
pub mod yaml;

use crate::app::access::Access;
use crate::driver::{Driver, DriverRef};
use crate::app::query::Query;
use crate::status::StatusView;
use crate::table::{self, has_wide, spacer_rows, view_columns, Column, Filter, Sort, TableModel};
use crate::time;
use crate::app::url::{check_resource, ViewState};
use discovery::{Found, ResourceType};
use kubelive_core::{
    ApiError, ApiErrorKind, Collection, ColumnKind, Config, Event as CoreEvent, IncludeObject,
    KeptMetadata, Object, TableColumn,
};
use parts::{
    cell_looks, pool_size, CellLook, Detail, EventLog, Kept, KeyHelp, NamespaceField, NsOption,
    Problem, RelatedView, Rooms, RowsProps, ShownRow, StatusBar,
};
use problem::Blocked;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement, KeyboardEvent};
use yew::prelude::*;

/// Height of one table row in pixels (the CSS says the same).
pub const ROW_HEIGHT: f64 = 28.0;
/// Rows rendered above and below the visible window.
const OVERSCAN: usize = 8;
/// How often fading rows, flashes and a log that is behind are looked at again.
const SWEEP_MS: i32 = 250;
/// How long after the user's last scroll the table holds off keeping rows in place:
/// setting the scroll position would cut a wheel or fling animation short.
const USER_SCROLL_QUIET_MS: f64 = 400.0;
/// The User Timing name of the app's work for one render (a frame's batch of changes,
/// or a scroll), for DevTools and the frame-time benchmark.
const FRAME_MEASURE: &str = "kubelive:frame";
/// How long a keystroke (or a frame that scrolled past the matches found) may filter
/// to fill the screen before it paints what it found.
const FIRST_SCREEN_MS: f64 = 40.0;
/// The filter's work per frame after the first screen, while it counts the rest.
const FILTER_SLICE_MS: f64 = 6.0;
/// Preparing the columns' sort keys once synced (`TableModel::prepare`): work per
/// slice, each slice a task of its own after a timeout (a click or a frame goes
/// between two slices).
const PREPARE_SLICE_MS: f64 = 4.0;
/// Until Synced, once the first screen of rows is shown, the table is brought up to
/// date at most this often: every render re-lays-out and repaints the table and the
/// status bar while the main thread is the sync's bottleneck. The progress still moves
/// several times a second; Synced itself (and a failure) is shown at the next frame.
const SYNC_FRAME_MS: f64 = 200.0;
/// Items the first LIST page asks for (later pages double, up to the engine's
/// `max_page_size`): a few screens of rows, which arrive and are decoded sooner than
/// kubectl's 500 (a fifth of the bytes before the first rows are shown), for a few
/// more requests while the pages grow.
const FIRST_PAGE_ITEMS: u32 = 100;
/// While the user scrolls, the table takes the engine's news (and shows it with the
/// status bar, the counts and the event log) at most this often; the frames between
/// only move the rows. A scrolling frame then costs the rows that scroll in, not the
/// churn's batch and a render of the whole page: the data shown lags the engine by at
/// most this plus a frame, and not at all once the scroll stops.
const SCROLL_APPLY_MS: f64 = 100.0;

pub enum Msg {
    /// A slice of preparing sort keys (see [`PREPARE_SLICE_MS`]).
    Prepare,
    /// Discovery of the core group (`/api`) answered.
    CoreFound(Result<Found, String>),
    /// Discovery of the named groups (`/apis`) answered.
    GroupsFound(Result<Found, String>),
    RetryDiscovery,
    /// The main engine produced events (at most one message per frame; the work waits
    /// for a frame).
    Wake(Wake),
    Frame,
    /// A frame held back during a sync is due.
    HeldFrame,
    /// Time to look at fading rows, flashes and the log again.
    Sweep,
    /// The pointer entered (true) or left the event log.
    HoldLog(bool),
    Namespaces(Vec<String>),
    /// The namespaces watch failed (the server's words), or works again (None).
    NamespacesFailed(Option<String>),
    Tick,
    HashChanged,
    SetResource(String),
    SetNamespace(String),
    /// The filter box's text as typed: free text applies at once.
    FilterInput(String),
    /// Enter in the filter box: selectors are checked and sent.
    FilterApply,
    SortBy(Column),
    /// The wide toggle: every column the server prints, or priority 0 only.
    SetWide(bool),
    Scroll,
    Resize,
    /// The header's columns were laid out anew (first shown, resized): how wide their
    /// cells are.
    MeasureColumns,
    Select(String),
    Open(String),
    CloseDetail,
    Key(KeyboardEvent),
    /// The detail panel's GET answered (its generation).
    DetailFetched(u64, Result<serde_json::Value, String>),
    /// An access review answered: its HTTP status and body, or a transport error.
    Reviewed(crate::app::access::Question, Result<(u16, String), String>),
    /// The resource picker got the focus: worth asking what the user may list.
    PickerFocus,
    /// The related-events engine produced events.
    Related(u64),
    ToggleHelp,
    /// The header's note of hidden columns: the selected (or first) row's details.
    ShowHidden,
    /// The focus entered (true) or left the table.
    TableFocus(bool),
}

/// What a frame renders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FrameKind {
    /// The engine's news and the whole page.
    Full,
    /// The rows alone, where a scroll moved them (see [`SCROLL_APPLY_MS`]).
    Rows,
    /// Nothing moved.
    Skip,
}

/// What a frame does, from how long ago the user scrolled and the news last shown
/// (ms), and whether news that cannot wait is pending.
fn frame_kind(since_scroll: f64, since_applied: f64, urgent: bool, rows_moved: bool) -> FrameKind {
    if urgent || since_scroll >= USER_SCROLL_QUIET_MS || since_applied >= SCROLL_APPLY_MS {
        FrameKind::Full
    } else if rows_moved {
        FrameKind::Rows
    } else {
        FrameKind::Skip
    }
}

/// The first visible row and how far it is scrolled past, taken before a frame's
/// changes so the row can be kept where it is on screen.
struct ScrollAnchor {
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

/// A running engine and the events it produced since the last frame.
struct Feed {
    driver: Driver,
    pending: Rc<RefCell<Vec<CoreEvent>>>,
}

/// The main engine has news for the table (sent once per frame's worth of batches,
/// not once per body chunk).
pub struct Wake {
    generation: u64,
    /// The news includes more than rows and pages listed (Synced, a failure, a
    /// relist, columns): shown at the next frame even while frames are held back.
    urgent: bool,
}

/// Whether `event` must be shown at the next frame even during a sync.
fn is_urgent(event: &CoreEvent) -> bool {
    !matches!(
        event,
        CoreEvent::Added(_)
            | CoreEvent::Modified { .. }
            | CoreEvent::Deleted(_)
            | CoreEvent::PageListed { .. }
    )
}

/// One half of discovery (`/api` or `/apis`).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Half {
    Pending,
    Done,
    Failed(String),
}

/// What discovery has found so far.
struct Discovery {
    core: Half,
    groups: Half,
    found: Found,
}

impl Discovery {
    /// The half that knows about `id` (`v1/pods`: core; `apps/v1/deployments`: groups).
    fn half_of(&self, id: &str) -> &Half {
        if id.split('/').count() == 2 {
            &self.core
        } else {
            &self.groups
        }
    }

    fn find(&self, id: &str) -> Option<&ResourceType> {
        self.found.resources.iter().find(|r| r.id() == id)
    }

    /// What failed, for the picker's note.
    fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (what, half) in [("/api", &self.core), ("/apis", &self.groups)] {
            if let Half::Failed(e) = half {
                out.push(format!("{what}: {e}"));
            }
        }
        for (gv, why) in &self.found.failed {
            out.push(format!("{gv}: {why}"));
        }
        out
    }
}

/// The marks the pickers show, recomputed when something is learnt (not per frame).
#[derive(Default)]
struct Marks {
    /// Resource ids the user may not list in the current scope.
    denied: HashSet<String>,
    ns_options: Rc<Vec<NsOption>>,
    /// What is known of the current scope for the current resource.
    scope_mark: Option<AttrValue>,
}

pub struct App {
    view: ViewState,
    discovery: Discovery,
    /// Why the view is not running, if it is not.
    blocked: Option<Blocked>,
    /// The main engine's last refusal, until it syncs again.
    failure: Option<ApiError>,
    main: Option<Feed>,
    generation: u64,
    ns_feed: Option<Driver>,
    namespaces: Vec<String>,
    /// The namespaces watch's failure (the server's words).
    ns_failure: Option<String>,
    /// Namespaces this browser remembers (newest first).
    remembered: Vec<String>,
    /// Namespaces the user chose this session (asked about past the review budget).
    typed: Vec<String>,
    access: Access,
    /// The resource picker was focused: ask about every resource.
    picker_focused: bool,
    marks: Marks,
    /// The filter box's text (selectors in it are sent on Enter).
    filter_text: String,
    /// A selector the box holds that the parser rejects.
    filter_error: Option<String>,
    model: TableModel,
    kind: ColumnKind,
    /// The server's columns for the view (None: not printed, or not yet).
    server_cols: Option<Arc<[TableColumn]>>,
    /// The last columns each resource was printed with: a view of it starts with
    /// them (no flash of other columns before the first page).
    printed: HashMap<String, Arc<[TableColumn]>>,
    /// The view spans namespaces of a namespaced kind: a NAMESPACE column.
    with_namespace: bool,
    cols: Rc<Vec<Column>>,
    /// The columns the table has room for (`fit`): the others are in the detail panel.
    shown: Rc<Vec<Column>>,
    /// What the cells of `shown` carry besides their text.
    looks: Rc<Vec<CellLook>>,
    /// The width a row has for its cells (px) and the columns' floors, as last
    /// measured, and the room the note of hidden columns takes; none before the
    /// table is laid out (every column shows).
    room: Option<(f64, fit::Floors, f64)>,
    /// The scroller's scrollbar width (px): the header leaves it free, so that its
    /// cells are as wide as the rows' in every engine.
    gutter: f64,
    /// The status as the live region says it.
    announcer: announce::Announcer,
    announced: String,
    /// The focus was in the table (a row or the scroller) when it last moved: it is
    /// kept on the selected row as rows move, or put back if its element went.
    table_focused: bool,
    /// Where the focus goes after the help or the detail panel closes.
    focus_back: Option<FocusBack>,
    /// Where the focus was when the help opened.
    help_opener: Option<FocusBack>,
    /// The user moved the selection (keys, a click): the focus goes to its row.
    focus_row: bool,
    /// Made once, so that rows compare equal across renders.
    on_select: Callback<String>,
    on_open: Callback<String>,
    /// Made once, so that the namespace field, the event log and the detail panel
    /// compare equal across renders.
    on_namespace: Callback<String>,
    on_hold_log: Callback<bool>,
    on_close_detail: Callback<()>,
    status: StatusView,
    log: log::Log,
    log_live: bool,
    frame_scheduled: bool,
    /// A frame held back during a sync is due (a timer, see [`SYNC_FRAME_MS`]).
    held_frame_scheduled: bool,
    /// When the last frame ran (ms, [`time::now_ms`]).
    last_frame_at: f64,
    sweep_scheduled: bool,
    prepare_scheduled: bool,
    /// A frame's update ran; its render is being measured.
    frame_measured: bool,
    /// Bumped by every update that may change what the header shows (all but frames
    /// that only move the rows): the header is diffed again only then (`parts::Kept`).
    chrome_stamp: u64,
    /// When a frame last took the engine's news (ms, [`time::now_ms`]).
    applied_at: f64,
    /// The engine's pending news includes something that cannot wait (see [`Wake`]).
    urgent_pending: bool,
    /// The first row index the last render showed.
    shown_first: Cell<usize>,
    scroll_top: f64,
    /// A scroll position to set once the render has sized the table for it.
    scroll_to: Option<f64>,
    /// The row index the row window is placed at. It moves only with the rows the
    /// anchor absorbs, so rows keep their place in the window layer both when the user
    /// scrolls and when rows come and go above (nothing in it is repainted but rows
    /// that enter or change).
    window_base: i64,
    /// The rows the scroll range was last made for (`table::spacer_rows`).
    spacer_rows: Cell<usize>,
    /// How many rows the last render showed.
    shown_rows: Cell<usize>,
    /// The last render showed the first screen of rows only: the rest of the pool
    /// (the overscan) is due in a later frame.
    fill_pool: Cell<bool>,
    /// When the user last scrolled (ms, `performance.now()`).
    user_scrolled_at: f64,
    viewport: f64,
    /// The selected object as last seen (shown if it is deleted meanwhile).
    selected_obj: Option<Arc<Object>>,
    /// The selection came from the URL: scroll to it once it is in the table.
    reveal: bool,
    related: Option<related::RelatedFeed>,
    detail: Option<detail::DetailFetch>,
    detail_generation: u64,
    related_generation: u64,
    related_view: Rc<RelatedView>,
    help_open: bool,
    filter_ref: NodeRef,
    scroller_ref: NodeRef,
    thead_ref: NodeRef,
    /// Watches the header's cells for a change of size (the window, the detail
    /// panel, the wide toggle) and says when ([`Msg::MeasureColumns`]).
    column_observer: Option<(web_sys::ResizeObserver, Closure<dyn FnMut()>)>,
    /// The columns whose header cells it watches.
    observed_cols: Option<Rc<Vec<Column>>>,
    /// How the cells' text is laid out, as last measured.
    rooms: Rooms,
    /// The cells' font as last measured (a CSS `font` value).
    cell_font: String,
    listeners: Vec<Listener>,
    interval: Option<(i32, Closure<dyn FnMut()>)>,
}

/// Where the focus goes once the page has rendered.
#[derive(Clone, Debug, PartialEq)]
enum FocusBack {
    /// Back to an element (where it was when the help opened).
    Element(HtmlElement),
    /// The help's close button (the help opened).
    Help,
    /// The `?` button (the help closed).
    HelpButton,
    /// The detail panel's close button (it opened as a sheet over the table).
    Detail,
    /// The selected row, or the table (the detail panel closed).
    Table,
}

/// Where the detail panel is a sheet over the table (style.css says the same width).
const SHEET_MEDIA: &str = "(max-width: 720px)";

/// Whether the focus is in the element `selector` names.
fn focus_within(selector: &str) -> bool {
    window()
        .document()
        .and_then(|d| d.active_element())
        .is_some_and(|a| a.closest(selector).ok().flatten().is_some())
}

/// Whether the window is narrow enough for the detail panel to be a sheet over the table.
fn detail_is_sheet() -> bool {
    window()
        .match_media(SHEET_MEDIA)
        .ok()
        .flatten()
        .is_some_and(|m| m.matches())
}

/// Keeps Tab inside the modal element `selector`: from its last control Tab goes to its
/// first, from its first Shift+Tab goes to its last, and from outside to its first. True
/// when it moved the focus (the browser's own move must then be prevented).
fn cycle_focus_within(selector: &str, backwards: bool) -> bool {
    let Some(doc) = window().document() else {
        return false;
    };
    let Some(container) = doc.query_selector(selector).ok().flatten() else {
        return false;
    };
    let Ok(list) = container.query_selector_all(
        "button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), \
         textarea:not([disabled]), summary, [tabindex]:not([tabindex='-1'])",
    ) else {
        return false;
    };
    // Shown controls only (a collapsed section's have no layout box).
    let controls: Vec<HtmlElement> = (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<HtmlElement>().ok())
        .filter(|el| el.offset_parent().is_some())
        .collect();
    let (Some(first), Some(last)) = (controls.first(), controls.last()) else {
        return false;
    };
    let active = doc.active_element();
    let is = |el: &HtmlElement| {
        active
            .as_ref()
            .is_some_and(|a| a == el.unchecked_ref::<web_sys::Element>())
    };
    let to = if !focus_within(selector) {
        if backwards {
            last
        } else {
            first
        }
    } else if backwards && is(first) {
        last
    } else if !backwards && is(last) {
        first
    } else {
        return false;
    };
    let _ = to.focus();
    true
}

/// A DOM event listener removed on drop.
struct Listener {
    target: web_sys::EventTarget,
    kind: &'static str,
    closure: Closure<dyn FnMut(web_sys::Event)>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self
            .target
            .remove_event_listener_with_callback(self.kind, self.closure.as_ref().unchecked_ref());
    }
}

fn listen(
    target: &web_sys::EventTarget,
    kind: &'static str,
    f: impl FnMut(web_sys::Event) + 'static,
) -> Listener {
    let closure = Closure::<dyn FnMut(web_sys::Event)>::new(f);
    let _ = target.add_event_listener_with_callback(kind, closure.as_ref().unchecked_ref());
    Listener {
        target: target.clone(),
        kind,
        closure,
    }
}

fn window() -> web_sys::Window {
    web_sys::window().expect("the app runs in a window")
}

fn performance() -> Option<web_sys::Performance> {
    window().performance()
}

fn location_hash() -> String {
    window().location().hash().unwrap_or_default()
}

/// Runs `f` at the next animation frame, or within 300 ms if frames are not coming
/// (a hidden tab), whichever is first.
fn next_frame(f: impl Fn() + 'static) {
    let f = Rc::new(f);
    let once = Rc::new(std::cell::Cell::new(false));
    let make = |f: Rc<dyn Fn()>, once: Rc<std::cell::Cell<bool>>| {
        Closure::once_into_js(move || {
            if !once.replace(true) {
                f()
            }
        })
    };
    let w = window();
    let _ = w.request_animation_frame(make(f.clone(), once.clone()).unchecked_ref());
    let _ =
        w.set_timeout_with_callback_and_timeout_and_arguments_0(make(f, once).unchecked_ref(), 300);
}

impl App {
    /// The view's resource type, once discovery has found it.
    fn resource(&self) -> Option<&ResourceType> {
        self.discovery.find(&self.view.resource)
    }

    fn namespaced(&self) -> bool {
        self.resource().map(|r| r.namespaced).unwrap_or(true)
    }

    /// The namespace the view is in (None: all namespaces, or a cluster-scoped resource).
    fn scope(&self) -> Option<String> {
        if self.namespaced() {
            self.view.namespace.clone()
        } else {
            None
        }
    }

    /// Whether the view can run, and what it runs on.
    fn check_view(&self) -> Result<ResourceType, Blocked> {
        check_resource(&self.view.resource).map_err(Blocked::BadLink)?;
        if let Some(why) = self.view.namespace_problem() {
            return Err(Blocked::BadLink(why));
        }
        self.view
            .query
            .check()
            .map_err(|e| Blocked::BadSelector(e.to_string()))?;
        if let Some(rt) = self.resource() {
            return Ok(rt.clone());
        }
        let id = &self.view.resource;
        match self.discovery.half_of(id) {
            Half::Pending => Err(Blocked::Discovering),
            Half::Failed(e) => Err(Blocked::DiscoveryFailed(e.clone())),
            Half::Done => {
                let gv = id.rsplit_once('/').map(|(gv, _)| gv).unwrap_or(id);
                let failed = self.discovery.found.failed.iter().find(|(g, _)| g == gv);
                Err(Blocked::NotOffered(match failed {
                    Some((_, why)) => format!(
                        "The server could not describe {gv} ({why}): {id} cannot be checked."
                    ),
                    None => format!(
                        "The server offers no resource {id} that can be listed and watched."
                    ),
                }))
            }
        }
    }

    /// (Re)starts the main engine for the current view (the selection stays: it may
    /// come from the URL).
    fn restart(&mut self, ctx: &Context<Self>) {
        self.main = None;
        self.announcer.restart();
        self.generation += 1;
        self.urgent_pending = false;
        self.model.clear();
        self.log_live = false;
        self.failure = None;
        self.selected_obj = None;
        self.related = None;
        self.related_view = Rc::default();
        self.detail = None;
        self.scroll_top = 0.0;
        self.window_base = 0;
        if let Some(el) = self.scroller_ref.cast::<HtmlElement>() {
            el.set_scroll_top(0);
        }
        let plural = self.view.api().map(|(_, p)| p).unwrap_or_default();
        let rt = self.check_view();
        let namespaced = rt.as_ref().map(|r| r.namespaced).unwrap_or(true);
        let ns = if namespaced {
            self.view.namespace.clone()
        } else {
            None
        };
        self.kind = ColumnKind::for_resource(&plural);
        // The namespace column only when it varies.
        self.with_namespace = namespaced && ns.is_none();
        self.server_cols = self.printed.get(&self.view.resource).cloned();
        self.set_columns();
        self.refresh_marks();
        let rt = match rt {
            Ok(rt) => rt,
            Err(blocked) => {
                if let Blocked::BadSelector(e) = &blocked {
                    self.filter_error = Some(e.clone());
                }
                self.blocked = Some(blocked);
                self.status = StatusView {
                    phase: "stopped",
                    ..StatusView::default()
                };
                return;
            }
        };
        self.blocked = None;
        let prefix = if rt.group.is_empty() {
            format!("/api/{}", rt.version)
        } else {
            format!("/apis/{}/{}", rt.group, rt.version)
        };
        // The server prints the rows (kubectl's columns for any resource); a server
        // that does not is served as objects, with the app's own columns.
        let mut config = Config::new(Collection::new(&prefix, ns.as_deref(), &rt.plural))
            .tables(IncludeObject::Metadata);
        config.strip_managed_fields = true;
        // A row shows the server's cells; the detail panel GETs the whole object, so
        // labels, annotations and owners need not be held for every row.
        config.metadata = KeptMetadata::Identity;
        let q = &self.view.query;
        config.label_selector = (!q.label.is_empty()).then(|| q.label.clone());
        config.field_selector = (!q.field.is_empty()).then(|| q.field.clone());
        if self.view.streaming {
            config.mode = kubelive_core::Mode::StreamingList;
        }
        config.pipeline_pages = self.view.pipeline;
        config.page_size = FIRST_PAGE_ITEMS;
        let pending: Rc<RefCell<Vec<CoreEvent>>> = Rc::default();
        let generation = self.generation;
        let wake = ctx.link().callback(Msg::Wake);
        let sink_pending = pending.clone();
        let sink = Box::new(move |_: &DriverRef<'_>, events: Vec<CoreEvent>| {
            let urgent = events.iter().any(is_urgent);
            let mut pending = sink_pending.borrow_mut();
            // Pending events not yet taken: a wake is already on its way (one Yew
            // message per frame, not per chunk), unless this batch cannot wait.
            let woken = !pending.is_empty();
            pending.extend(events);
            drop(pending);
            if !woken || urgent {
                wake.emit(Wake { generation, urgent });
            }
        });
        let driver = Driver::start(config, "", sink);
        self.status = driver.status();
        let mut what = match &ns {
            Some(ns) => format!("{} in {ns}", self.view.resource),
            None if namespaced => format!("{} in all namespaces", self.view.resource),
            None => self.view.resource.clone(),
        };
        for (k, v) in [("labels", &q.label), ("fields", &q.field)] {
            if !v.is_empty() {
                what.push_str(&format!(" · {k} {v}"));
            }
        }
        self.push_log("VIEW", what, String::new(), "note");
        self.main = Some(Feed { driver, pending });
        self.plan_reviews(ctx);
    }

    /// Recomputes the shown columns (server's or the app's, wide or not) and what
    /// depends on them: the grid, the sort (kept by id when the column is still
    /// there, else by name) and the free-text filter.
    fn set_columns(&mut self) {
        let cols = view_columns(
            self.server_cols.as_deref(),
            self.kind,
            self.with_namespace,
            self.view.wide,
        );
        if *self.cols == cols {
            return;
        }
        self.cols = Rc::new(cols);
        self.fit_columns(true);
        let sort =
            Sort::parse(&self.view.sort, &self.cols).unwrap_or_else(|| Sort::by_name(&self.cols));
        self.model.set_sort(sort);
        self.model
            .set_filter(Filter::new(&self.view.query.words, &self.cols));
    }

    /// Picks the columns the table has room for; `force`: the columns changed. True
    /// if the shown ones did.
    fn fit_columns(&mut self, force: bool) -> bool {
        let shown: Vec<Column> = match &self.room {
            Some((room, floors, marker)) => {
                let fits = fit::fit_columns(&self.cols, floors, *room, *marker);
                self.cols
                    .iter()
                    .zip(fits)
                    .filter(|(_, shown)| *shown)
                    .map(|(c, _)| c.clone())
                    .collect()
            }
            None => self.cols.to_vec(),
        };
        if !force && *self.shown == shown {
            return false;
        }
        self.shown = Rc::new(shown);
        // Their widths are measured once their header is laid out.
        self.rooms.widths.clear();
        self.looks = Rc::new(cell_looks(&self.shown, &self.cols, &self.rooms));
        true
    }

    /// The engine said which columns the server prints, or that it does not print.
    fn note_columns(&mut self, events: &[CoreEvent]) {
        let mut changed = false;
        for e in events {
            match e {
                CoreEvent::Columns { columns } => {
                    self.printed
                        .insert(self.view.resource.clone(), columns.clone());
                    self.server_cols = Some(columns.clone());
                    changed = true;
                }
                CoreEvent::TablesUnavailable { why } => {
                    self.printed.remove(&self.view.resource);
                    self.server_cols = None;
                    changed = true;
                    self.push_log(
                        "COLUMNS",
                        format!("the app's own: {why}"),
                        String::new(),
                        "note",
                    );
                }
                _ => {}
            }
        }
        if changed {
            self.set_columns();
        }
    }

    /// Forgets the selection (a new view).
    fn unselect(&mut self) {
        self.view.selected = None;
        self.view.open = false;
        self.selected_obj = None;
        self.reveal = false;
    }

    fn start_namespaces(&mut self, ctx: &Context<Self>) {
        let link = ctx.link().clone();
        let sink = Box::new(move |d: &DriverRef<'_>, events: Vec<CoreEvent>| {
            for e in &events {
                if let CoreEvent::Failed { error } = e {
                    link.send_message(Msg::NamespacesFailed(Some(error.to_string())));
                }
            }
            let changed = events.iter().any(|e| {
                matches!(
                    e,
                    CoreEvent::Added(_) | CoreEvent::Deleted(_) | CoreEvent::Synced { .. }
                )
            });
            if changed {
                let names =
                    d.with_store(|s| s.sorted().iter().map(|o| o.name().to_string()).collect());
                link.send_message(Msg::Namespaces(names));
            }
        });
        let config = Config::new(Collection::new("/api/v1", None, "namespaces"));
        self.ns_feed = Some(Driver::start(config, "", sink));
    }

    fn discover(&mut self, ctx: &Context<Self>) {
        if self.discovery.core != Half::Done {
            self.discovery.core = Half::Pending;
            let link = ctx.link().clone();
            wasm_bindgen_futures::spawn_local(async move {
                link.send_message(Msg::CoreFound(discovery::discover_core().await));
            });
        }
        if self.discovery.groups != Half::Done {
            self.discovery.groups = Half::Pending;
            let link = ctx.link().clone();
            wasm_bindgen_futures::spawn_local(async move {
                link.send_message(Msg::GroupsFound(discovery::discover_groups().await));
            });
        }
    }

    /// One half of discovery answered.
    fn discovered(&mut self, ctx: &Context<Self>, core: bool, result: Result<Found, String>) {
        let half = match result {
            Ok(found) => {
                for (gv, why) in &found.failed {
                    self.push_log("DISCOVERY", format!("{gv}: {why}"), String::new(), "warn");
                }
                if found.reviews {
                    self.access.offer();
                }
                self.discovery.found.merge(found);
                Half::Done
            }
            Err(e) => {
                self.push_log("DISCOVERY", e.clone(), String::new(), "error");
                Half::Failed(e)
            }
        };
        if core {
            self.discovery.core = half;
        } else {
            self.discovery.groups = half;
        }
        if matches!(
            self.blocked,
            Some(Blocked::Discovering | Blocked::DiscoveryFailed(_))
        ) {
            self.restart(ctx);
        } else {
            self.refresh_marks();
            self.plan_reviews(ctx);
        }
    }

    /// Whether a sync's news may wait for [`SYNC_FRAME_MS`] after the last frame: not
    /// synced yet, and the first screen of rows already shown.
    fn hold_frames(&self) -> bool {
        !self.status.synced
            && self.model.len() as f64 * ROW_HEIGHT >= self.viewport
            && time::now_ms() - self.last_frame_at < SYNC_FRAME_MS
    }

    /// A frame [`SYNC_FRAME_MS`] after the last one (see [`Self::hold_frames`]).
    fn schedule_held_frame(&mut self, ctx: &Context<Self>) {
        if self.held_frame_scheduled || self.frame_scheduled {
            return;
        }
        self.held_frame_scheduled = true;
        let link = ctx.link().clone();
        let delay = (self.last_frame_at + SYNC_FRAME_MS - time::now_ms()).max(0.0);
        let cb = Closure::once_into_js(move || link.send_message(Msg::HeldFrame));
        let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(
            cb.unchecked_ref(),
            delay.ceil() as i32,
        );
    }

    fn schedule_frame(&mut self, ctx: &Context<Self>) {
        if self.frame_scheduled {
            return;
        }
        self.frame_scheduled = true;
        let link = ctx.link().clone();
        next_frame(move || link.send_message(Msg::Frame));
    }

    /// A slice of preparing sort keys after a timeout, if there is work left.
    fn schedule_prepare(&mut self, ctx: &Context<Self>) {
        if self.prepare_scheduled {
            return;
        }
        self.prepare_scheduled = true;
        let link = ctx.link().clone();
        let cb = Closure::once_into_js(move || link.send_message(Msg::Prepare));
        let _ =
            window().set_timeout_with_callback_and_timeout_and_arguments_0(cb.unchecked_ref(), 0);
    }

    /// Frames run at the next animation frame; this timer only brings one about when
    /// nothing else will (rows to fade, flashes to end, log lines to show).
    fn schedule_sweep(&mut self, ctx: &Context<Self>) {
        if self.sweep_scheduled {
            return;
        }
        self.sweep_scheduled = true;
        let link = ctx.link().clone();
        let cb = Closure::once_into_js(move || link.send_message(Msg::Sweep));
        let _ = window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(cb.unchecked_ref(), SWEEP_MS);
    }

    fn push_log(
        &mut self,
        kind: &'static str,
        object: String,
        version: String,
        tone: &'static str,
    ) {
        let d = js_sys::Date::new_0();
        let at = format!(
            "{:02}:{:02}:{:02}",
            d.get_hours(),
            d.get_minutes(),
            d.get_seconds()
        );
        self.log.push(kind, object, version, at, tone);
    }

    fn log_events(&mut self, events: &[CoreEvent]) {
        for e in events {
            match e {
                // Object changes only once synced: the initial list is not news.
                CoreEvent::Added(o)
                | CoreEvent::Modified { new: o, .. }
                | CoreEvent::Deleted(o)
                    if self.log_live =>
                {
                    let kind = match e {
                        CoreEvent::Added(_) => "ADDED",
                        CoreEvent::Modified { .. } => "MODIFIED",
                        _ => "DELETED",
                    };
                    let tone = match kind {
                        "ADDED" => "added",
                        "DELETED" => "deleted",
                        _ => "modified",
                    };
                    self.push_log(
                        kind,
                        table::key_of(o),
                        o.resource_version().to_string(),
                        tone,
                    );
                }
                CoreEvent::Synced {
                    objects,
                    resource_version,
                } => {
                    self.log_live = true;
                    self.push_log(
                        "SYNCED",
                        format!("{objects} objects"),
                        resource_version.to_string(),
                        "ok",
                    )
                }
                CoreEvent::Resumed { resource_version } => self.push_log(
                    "RESUMED",
                    "watch".into(),
                    resource_version.to_string(),
                    "ok",
                ),
                CoreEvent::Relisting { reason } => {
                    self.push_log("RELIST", reason.to_string(), String::new(), "warn")
                }
                CoreEvent::BackingOff { reason, .. } => {
                    self.push_log("BACKOFF", reason.clone(), String::new(), "warn")
                }
                CoreEvent::Failed { error } => {
                    self.push_log("FAILED", error.to_string(), String::new(), "error")
                }
                _ => {}
            }
        }
    }

    /// Keeps the main engine's last refusal until it gets something again. Returns
    /// whether a refusal arrived.
    fn note_failures(&mut self, events: &[CoreEvent]) -> bool {
        let mut failed = false;
        for e in events {
            match e {
                CoreEvent::Failed { error } => {
                    self.failure = Some(error.clone());
                    failed = true;
                }
                CoreEvent::PageListed { .. }
                | CoreEvent::Synced { .. }
                | CoreEvent::Resumed { .. } => self.failure = None,
                _ => {}
            }
        }
        failed
    }

    /// The first row index a render shows (the overscan included).
    fn window_first(&self) -> usize {
        ((self.scroll_top / ROW_HEIGHT) as usize).saturating_sub(OVERSCAN)
    }

    /// A frame: apply the batch, rebuild if due, drop faded rows; while the user
    /// scrolls, most frames only move the rows (see [`SCROLL_APPLY_MS`]).
    fn frame(&mut self, ctx: &Context<Self>) -> bool {
        self.frame_scheduled = false;
        let Some(feed) = &self.main else {
            return false;
        };
        let pending = !feed.pending.borrow().is_empty();
        let now = time::now_ms();
        let kind = frame_kind(
            now - self.user_scrolled_at,
            now - self.applied_at,
            self.urgent_pending,
            self.window_first() != self.shown_first.get(),
        );
        if kind != FrameKind::Full {
            // The news waits for its turn: a later frame looks again (the engine
            // sends no other wake while news is pending).
            if pending {
                self.schedule_frame(ctx);
            }
            if kind == FrameKind::Skip {
                return false;
            }
            self.start_measure();
            return true;
        }
        self.applied_at = now;
        self.urgent_pending = false;
        self.chrome_stamp += 1;
        self.last_frame_at = now;
        self.start_measure();
        let anchor = self.scroll_anchor();
        let Some(feed) = &self.main else {
            return false;
        };
        let events = std::mem::take(&mut *feed.pending.borrow_mut());
        self.note_columns(&events);
        let Some(feed) = &self.main else {
            return false;
        };
        let now = time::now_ms();
        self.model.apply(&events, now);
        if self.model.is_stale() {
            let started = time::now_ms();
            let model = &mut self.model;
            let rebuilt = feed
                .driver
                .with_store(|s| model.maybe_rebuild(s, now, false));
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
        if let Some((anchor, (top, shift))) =
            anchor.and_then(|a| a.moved_to(&self.model).map(|m| (a, m)))
        {
            if anchor.hold {
                self.scroll_top = top;
                self.scroll_to = Some(top);
            }
            // The window's origin moves with the rows: each keeps its element (only
            // the window moves), where otherwise every row on screen would take the
            // element of another and be rendered anew.
            self.window_base += shift;
        }
        self.status = feed.driver.status();
        let selected = self.view.selected.as_deref().and_then(|key| {
            let (ns, name) = key.split_once('/')?;
            feed.driver.with_store(|s| s.get(ns, name).cloned())
        });
        self.announce(now);
        if selected.is_some() {
            self.selected_obj = selected;
        }
        self.reveal_selected();
        self.sync_related(ctx);
        if self.note_failures(&events) {
            self.plan_reviews(ctx);
        }
        self.log_events(&events);
        self.log.refresh(now);
        // A deadline already past: only whether there is work to prepare (the table
        // synced, rebuilt, or shows other columns).
        if !self.prepare_scheduled
            && self
                .model
                .prepare(&self.cols, f64::NEG_INFINITY, &time::now_ms)
        {
            self.schedule_prepare(ctx);
        }
        if self.model.is_stale() || self.model.is_filtering() {
            self.schedule_frame(ctx);
        } else if self.model.animating() || self.log.behind() {
            // Fading rows leave, and held-back log lines show, on a later frame; no
            // need to spin every frame for them.
            self.schedule_sweep(ctx);
        }
        true
    }

    /// Has the live region say the status's state when that is news (`announce`).
    fn announce(&mut self, now: f64) {
        if let Some(words) = self.announcer.note(&self.status, now) {
            self.announced = words;
            self.chrome_stamp += 1;
        }
    }

    /// Scrolls a selection restored from the URL into view once its row is there.
    fn reveal_selected(&mut self) {
        if !self.reveal || self.model.is_stale() {
            return;
        }
        let Some(key) = self.view.selected.as_deref() else {
            self.reveal = false;
            return;
        };
        let Some(shown) = self
            .selected_obj
            .as_ref()
            .filter(|o| table::key_of(o) == key)
        else {
            if self.status.synced {
                self.reveal = false;
            }
            return;
        };
        match self.model.find(shown) {
            Some(i) => {
                let top = (i as f64 * ROW_HEIGHT - self.viewport / 2.0).max(0.0);
                self.scroll_top = top;
                self.scroll_to = Some(top);
                self.reveal = false;
            }
            None if self.status.synced => self.reveal = false,
            None => {}
        }
    }

    /// Marks the start of work that ends with a render (measured in `rendered`).
    fn start_measure(&mut self) {
        if let Some(p) = performance() {
            self.frame_measured = p.mark(FRAME_MEASURE).is_ok();
        }
    }

    /// What to keep in place while rows come and go above it (while the user
    /// scrolls, what to keep in its element only). None at the top: there new rows
    /// push the rest down, as in any live list.
    /// `scroll_top` is current: every scroll fires a scroll event, handled before the
    /// frame (reading `scrollTop` here would force a layout of the rows a render
    /// just changed).
    fn scroll_anchor(&self) -> Option<ScrollAnchor> {
        let user_scrolling = time::now_ms() - self.user_scrolled_at < USER_SCROLL_QUIET_MS;
        if self.scroll_top < ROW_HEIGHT || self.scroll_to.is_some() {
            return None;
        }
        let index = (self.scroll_top / ROW_HEIGHT) as usize;
        let row = self.model.get(index)?.clone();
        Some(ScrollAnchor {
            row,
            index,
            offset: self.scroll_top - index as f64 * ROW_HEIGHT,
            hold: !user_scrolling,
        })
    }

    fn write_hash(&self, push: bool) {
        let hash = self.view.to_hash();
        if location_hash() == hash {
            return;
        }
        if push {
            window().location().set_hash(&hash).ok();
        } else if let Ok(h) = window().history() {
            let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&hash));
        }
    }

    fn rebuild_now(&mut self) {
        if let Some(feed) = &self.main {
            let model = &mut self.model;
            feed.driver
                .with_store(|s| model.maybe_rebuild(s, time::now_ms(), true));
        }
        // A filter over many rows: the first screen of matches now, the rest in
        // slices on the next frames (`rendered` asks for them).
        if self.model.is_filtering() {
            let want = self.visible_end();
            self.model
                .advance_filter(want, time::now_ms() + FIRST_SCREEN_MS, &time::now_ms);
        }
    }

    /// One past the last row the viewport shows (with the overscan).
    fn visible_end(&self) -> usize {
        ((self.scroll_top + self.viewport) / ROW_HEIGHT).ceil() as usize + OVERSCAN
    }

    /// Applies the box's free words (the browser's part of the filter).
    fn apply_words(&mut self, words: Vec<String>) {
        self.view.query.words = words;
        self.model
            .set_filter(Filter::new(&self.view.query.words, &self.cols));
        self.rebuild_now();
    }

    /// Enter in the filter box: the selectors are checked, then sent (a new watch)
    /// if they changed.
    fn apply_query(&mut self, ctx: &Context<Self>, query: Query) {
        let restart = query.label != self.view.query.label || query.field != self.view.query.field;
        if restart {
            self.view.query = query;
            self.unselect();
            self.write_hash(true);
            self.restart(ctx);
        } else {
            self.apply_words(query.words);
            self.write_hash(false);
        }
    }

    /// Sorts the rows; at a large table, the first rows of the new order at once and
    /// the rest in idle slices (`TableModel::set_sort_showing`).
    fn apply_sort(&mut self, ctx: &Context<Self>, sort: Sort) {
        self.view.sort = sort.to_param();
        self.model.set_sort_showing(sort, self.visible_end());
        self.rebuild_now();
        if self.model.resorting() {
            self.schedule_prepare(ctx);
        }
    }

    /// Selects row `index` and keeps it in view.
    fn select_index(&mut self, index: usize) {
        let Some(o) = self.model.get(index).cloned() else {
            return;
        };
        self.view.selected = Some(table::key_of(&o));
        self.selected_obj = Some(o);
        self.reveal = false;
        let top = index as f64 * ROW_HEIGHT;
        let mut scroll = self.scroll_top;
        if top < scroll {
            scroll = top;
        } else if top + ROW_HEIGHT > scroll + self.viewport {
            scroll = top + ROW_HEIGHT - self.viewport;
        }
        if scroll != self.scroll_top {
            self.scroll_top = scroll;
            if let Some(el) = self.scroller_ref.cast::<HtmlElement>() {
                el.set_scroll_top(scroll as i32);
            }
        }
        self.write_hash(false);
    }

    /// Moves the selection by `delta` rows.
    fn move_selection(&mut self, delta: isize) {
        self.focus_row = true;
        let rows = self.model.len();
        if rows == 0 {
            return;
        }
        let current = self
            .selected_obj
            .as_ref()
            .filter(|o| self.view.selected.as_deref() == Some(table::key_of(o).as_str()))
            .and_then(|o| self.model.find(o));
        let next = match current {
            Some(i) => (i as isize + delta).clamp(0, rows as isize - 1) as usize,
            None => 0,
        };
        self.select_index(next);
    }

    fn select(&mut self, key: String) {
        self.selected_obj = self
            .main
            .as_ref()
            .and_then(|f| {
                let (ns, name) = key.split_once('/')?;
                f.driver.with_store(|s| s.get(ns, name).cloned())
            })
            .or_else(|| self.model.find_key(&key));
        self.view.selected = Some(key);
        self.reveal = false;
    }

    fn key(&mut self, ctx: &Context<Self>, e: KeyboardEvent) -> bool {
        let target = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok());
        let in_input = target
            .as_ref()
            .map(|el| matches!(el.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"))
            .unwrap_or(false);
        let in_control = target.as_ref().is_some_and(|el| {
            matches!(el.tag_name().as_str(), "BUTTON" | "A" | "SUMMARY")
                || el.closest("#help, #detail").ok().flatten().is_some()
        });
        // The help is modal: Tab stays in it (its one control is its close button).
        if self.help_open && e.key() == "Tab" {
            e.prevent_default();
            self.focus_back = Some(FocusBack::Help);
            self.place_focus();
            return false;
        }
        // The detail panel is modal where it is a sheet over the table: Tab cycles
        // through its controls.
        if self.view.open && e.key() == "Tab" && detail_is_sheet() {
            if cycle_focus_within("#detail", e.shift_key()) {
                e.prevent_default();
            }
            return false;
        }
        if e.ctrl_key() || e.meta_key() || e.alt_key() {
            return false;
        }
        // The namespace field handles its own keys (Esc puts its value back).
        if target.as_ref().is_some_and(|el| el.id() == "namespace") {
            return false;
        }
        match e.key().as_str() {
            "Escape" => {
                if self.help_open {
                    self.toggle_help();
                } else if self.view.open {
                    self.close_detail(ctx);
                } else {
                    self.filter_text.clear();
                    self.filter_error = None;
                    if let Some(el) = self.filter_ref.cast::<HtmlInputElement>() {
                        el.set_value("");
                        let _ = el.blur();
                    }
                    self.apply_query(ctx, Query::default());
                }
                true
            }
            _ if in_input => false,
            "/" => {
                e.prevent_default();
                if let Some(el) = self.filter_ref.cast::<HtmlInputElement>() {
                    let _ = el.focus();
                    el.select();
                }
                false
            }
            "?" => {
                e.prevent_default();
                self.toggle_help();
                true
            }
            "ArrowDown" | "j" => {
                e.prevent_default();
                self.move_selection(1);
                true
            }
            "ArrowUp" | "k" => {
                e.prevent_default();
                self.move_selection(-1);
                true
            }
            "PageDown" => {
                e.prevent_default();
                self.move_selection((self.viewport / ROW_HEIGHT) as isize);
                true
            }
            "PageUp" => {
                e.prevent_default();
                self.move_selection(-((self.viewport / ROW_HEIGHT) as isize));
                true
            }
            "Home" => {
                e.prevent_default();
                self.focus_row = true;
                self.select_index(0);
                true
            }
            "End" => {
                e.prevent_default();
                self.focus_row = true;
                self.select_index(self.model.len().saturating_sub(1));
                true
            }
            // A button, a link or the panels' own content takes its Enter (on a
            // header it sorts, it does not also open the selected row).
            "Enter" if self.view.selected.is_some() && !in_control => {
                // The focus may move into the panel at once: the key must not then
                // press the button it lands on.
                e.prevent_default();
                self.open_detail(ctx);
                true
            }
            _ => false,
        }
    }

    /// Opens the detail panel of the selected row. Where it is a sheet over the
    /// table (a narrow window), the focus goes into it.
    fn open_detail(&mut self, ctx: &Context<Self>) {
        self.view.open = true;
        self.write_hash(false);
        self.sync_related(ctx);
        if detail_is_sheet() {
            self.focus_back = Some(FocusBack::Detail);
        }
    }

    /// Closes the detail panel; the focus, if it was in it, goes back to the table.
    fn close_detail(&mut self, ctx: &Context<Self>) {
        self.view.open = false;
        self.write_hash(false);
        self.sync_related(ctx);
        if focus_within("#detail") {
            self.focus_back = Some(FocusBack::Table);
        }
    }

    /// Opens or closes the help; the focus goes into it, and back after to where it
    /// was (the table, if it was on a row or the table).
    fn toggle_help(&mut self) {
        self.help_open = !self.help_open;
        if self.help_open {
            let active = window().document().and_then(|d| d.active_element());
            self.help_opener = match active {
                Some(a) if a.closest("#scroller").ok().flatten().is_some() => {
                    Some(FocusBack::Table)
                }
                Some(a) if a.id() == "help-button" => Some(FocusBack::HelpButton),
                Some(a) => a
                    .dyn_into::<HtmlElement>()
                    .ok()
                    .filter(|a| a.tag_name() != "BODY")
                    .map(FocusBack::Element),
                None => None,
            };
            self.focus_back = Some(FocusBack::Help);
        } else {
            self.focus_back = self.help_opener.take();
        }
    }

    /// Keeps the focus where the user expects it after a render: on the element
    /// `focus_back` says, and while the table has it, on the selected row's element
    /// (rows move: the element that showed it may show another row now), or on the
    /// table when that row is out of view or its element went.
    fn place_focus(&mut self) {
        let Some(doc) = window().document() else {
            return;
        };
        let by_id = |id: &str| {
            doc.get_element_by_id(id)
                .and_then(|e| e.dyn_into::<HtmlElement>().ok())
        };
        let focus = |el: &HtmlElement| {
            let opts = web_sys::FocusOptions::new();
            opts.set_prevent_scroll(true);
            let _ = el.focus_with_options(&opts);
        };
        match self.focus_back.take() {
            Some(FocusBack::Element(el)) if el.is_connected() => focus(&el),
            Some(FocusBack::Help) => by_id("close-help").iter().for_each(focus),
            Some(FocusBack::HelpButton) => by_id("help-button").iter().for_each(focus),
            Some(FocusBack::Detail) => by_id("close-detail").iter().for_each(focus),
            Some(FocusBack::Table) => {
                self.table_focused = true;
                self.focus_row = true;
            }
            // Gone meanwhile (the view changed under the help).
            Some(FocusBack::Element(_)) | None => {}
        }
        let to_row = std::mem::take(&mut self.focus_row);
        if !self.table_focused && !to_row {
            return;
        }
        let active = doc.active_element();
        // A row has it (which may show another row now), or its element went.
        let on_row = active
            .as_ref()
            .is_some_and(|a| a.matches(".row").unwrap_or(false));
        let lost = active.as_ref().is_none_or(|a| a.tag_name() == "BODY");
        let in_table = active
            .as_ref()
            .is_some_and(|a| a.closest("#scroller").ok().flatten().is_some());
        // The user's selection moves the focus from the table (Tab put it on the
        // scroller) to the row; from elsewhere only a click on a row does.
        if !(on_row || (lost && self.table_focused) || (to_row && (in_table || lost))) {
            return;
        }
        let selected = self.view.selected.as_deref();
        if on_row
            && active
                .as_ref()
                .and_then(|a| a.get_attribute("data-key"))
                .as_deref()
                == selected
        {
            return;
        }
        let Some(scroller) = self.scroller_ref.cast::<HtmlElement>() else {
            return;
        };
        let row = self.view.selected.as_deref().and_then(|key| {
            let rows = scroller.query_selector_all(".row").ok()?;
            (0..rows.length())
                .filter_map(|i| rows.get(i)?.dyn_into::<HtmlElement>().ok())
                .find(|r| r.get_attribute("data-key").as_deref() == Some(key))
        });
        let target = row.unwrap_or(scroller);
        if active.as_ref() != Some(target.as_ref()) {
            focus(&target);
        }
    }

    fn measure(&mut self) {
        if let Some(el) = self.scroller_ref.cast::<HtmlElement>() {
            self.scroll_top = el.scroll_top() as f64;
            self.viewport = (el.client_height() as f64).max(ROW_HEIGHT);
        }
    }

    /// Reads the scroll position (only: the viewport's height changes on resize),
    /// noting a position the app did not set as the user's.
    fn measure_scroll(&mut self) {
        let Some(el) = self.scroller_ref.cast::<HtmlElement>() else {
            return;
        };
        let before = self.scroll_top;
        self.scroll_top = el.scroll_top() as f64;
        if (self.scroll_top - before).abs() >= 1.0 {
            self.user_scrolled_at = time::now_ms();
        }
    }

    /// Has the header's cells of the current columns watched for their size: the
    /// observer reports each once it is laid out (no layout forced here, after a
    /// render), then whenever its size changes.
    fn observe_columns(&mut self, ctx: &Context<Self>) {
        if self
            .observed_cols
            .as_ref()
            .is_some_and(|c| Rc::ptr_eq(c, &self.shown))
        {
            return;
        }
        let Some(cells) = self.header_cells() else {
            return;
        };
        if self.column_observer.is_none() {
            let link = ctx.link().clone();
            // Measured at the next frame, not in the observer's callback: what the
            // measure changes (the columns shown, the header's gutter) resizes what it
            // observes, which within the callback is a ResizeObserver loop.
            let said = Closure::<dyn FnMut()>::new(move || {
                let link = link.clone();
                next_frame(move || link.send_message(Msg::MeasureColumns));
            });
            match web_sys::ResizeObserver::new(said.as_ref().unchecked_ref()) {
                Ok(observer) => self.column_observer = Some((observer, said)),
                // No observer: every cell keeps its ellipsis.
                Err(_) => return,
            }
        }
        let Some((observer, _)) = &self.column_observer else {
            return;
        };
        observer.disconnect();
        // The scroller's width says which columns fit.
        if let Some(scroller) = self.scroller_ref.cast::<web_sys::Element>() {
            observer.observe(&scroller);
        }
        for i in 0..cells.length() {
            if let Some(cell) = cells
                .get(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            {
                observer.observe(&cell);
            }
        }
        self.observed_cols = Some(self.shown.clone());
    }

    /// The header's cells, once there is one for each current column.
    fn header_cells(&self) -> Option<web_sys::NodeList> {
        let cells = self
            .thead_ref
            .cast::<web_sys::Element>()?
            .query_selector_all(".th")
            .ok()?;
        (cells.length() as usize == self.shown.len()).then_some(cells)
    }

    /// Reads how wide the header's cells are (the observer calls after layout): the
    /// rows' cells are as wide ([`parts::CellLook::may_overflow`]). True if that
    /// changed what the cells carry.
    fn measure_columns(&mut self) -> bool {
        let (Some(cells), Some(scroller)) = (
            self.header_cells(),
            self.scroller_ref.cast::<web_sys::Element>(),
        ) else {
            return false;
        };
        let style = |el: &web_sys::Element| window().get_computed_style(el).ok().flatten();
        let px = |s: &web_sys::CssStyleDeclaration, name: &str| {
            s.get_property_value(name)
                .ok()
                .and_then(|v| v.trim().trim_end_matches("px").parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        let gutter = self.gutter;
        // The room the rows have: their width less their padding (style.css, `.row`).
        let scroller_el = scroller.clone().dyn_into::<HtmlElement>().ok();
        if let (Some(el), Some(s)) = (&scroller_el, style(&scroller)) {
            let width = f64::from(el.client_width());
            let floors = fit::Floors {
                name: px(&s, "--floor-name"),
                mid: px(&s, "--floor-mid"),
                num: px(&s, "--floor-num"),
                text: px(&s, "--floor-text"),
            };
            let marker = px(&s, "--more-cols");
            let room = width - px(&s, "--row-pad") * 2.0;
            self.gutter = f64::from(el.offset_width() - el.client_width()).max(0.0);
            if width > 0.0 && floors.name > 0.0 {
                let next = Some((room, floors, marker));
                if next != self.room {
                    self.room = next;
                    if self.fit_columns(false) {
                        // The header's new cells are measured once laid out.
                        return true;
                    }
                }
            }
        }
        let mut widths = Vec::with_capacity(self.shown.len());
        for i in 0..cells.length() {
            let Some(cell) = cells.get(i).and_then(|n| n.dyn_into::<HtmlElement>().ok()) else {
                return false;
            };
            // A header cell's button is as wide as its column's cells' text (style.css:
            // .thc and .td are padded alike; the button's own padding is vertical).
            let padding = style(&cell)
                .map(|s| px(&s, "padding-left") + px(&s, "padding-right"))
                .unwrap_or(0.0);
            widths.push((f64::from(cell.client_width()) - padding).max(0.0));
        }
        // The cells take the scroller's font (the header's is its own).
        let mut em = 0.0;
        if let Some(s) = style(&scroller) {
            em = px(&s, "font-size");
            let get = |name: &str| s.get_property_value(name).unwrap_or_default();
            let font = format!(
                "{} {} {} {}",
                get("font-style"),
                get("font-weight"),
                get("font-size"),
                get("font-family")
            );
            if font != self.cell_font {
                parts::set_cell_font(&font);
                self.cell_font = font;
            }
        }
        let rooms = Rooms { widths, em };
        if rooms == self.rooms {
            return gutter != self.gutter;
        }
        self.rooms = rooms;
        self.looks = Rc::new(cell_looks(&self.shown, &self.cols, &self.rooms));
        true
    }

    /// The server refused the selector (400/422 with selectors set): its words, to
    /// show next to the box.
    fn rejected_selector(&self) -> Option<String> {
        let f = self.failure.as_ref()?;
        (f.kind == ApiErrorKind::Invalid && self.view.query.has_selectors())
            .then(|| format!("The server rejected the selector: {}", f.message))
    }

    fn view_header(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let on_resource = link.callback(|e: Event| {
            Msg::SetResource(e.target_unchecked_into::<HtmlSelectElement>().value())
        });
        let on_filter = link.callback(|e: InputEvent| {
            Msg::FilterInput(e.target_unchecked_into::<HtmlInputElement>().value())
        });
        let on_filter_key = link.batch_callback(|e: KeyboardEvent| {
            (e.key() == "Enter").then(|| {
                e.prevent_default();
                Msg::FilterApply
            })
        });
        let mut groups: Vec<(String, Vec<&ResourceType>)> = Vec::new();
        for r in &self.discovery.found.resources {
            let g = if r.group.is_empty() {
                "core".to_string()
            } else {
                r.group.clone()
            };
            match groups.last_mut() {
                Some((name, list)) if *name == g => list.push(r),
                _ => groups.push((g, vec![r])),
            }
        }
        let current = self.view.resource.clone();
        let known = self.resource().is_some();
        let shown = self.model.shown();
        let total = self.status.objects;
        let problems = self.discovery.problems();
        let typed = Query::split(&self.filter_text);
        let pending = typed.label != self.view.query.label || typed.field != self.view.query.field;
        let error = self
            .filter_error
            .clone()
            .or_else(|| self.rejected_selector());
        // Offered while wide is on, so it can always be turned off.
        let wide_offered = self.view.wide || has_wide(self.server_cols.as_deref());
        html! {
            <header class="top">
                <div class="brand">{"kube"}<b>{"live"}</b></div>
                <label class="picker">
                    <span>{"Resource"}</span>
                    <select id="resource" onchange={on_resource} onfocus={link.callback(|_: FocusEvent| Msg::PickerFocus)}
                        title={problems.join("\n")}>
                        if !known {
                            <option value={current.clone()} selected=true>{current.clone()}</option>
                        }
                        { for groups.iter().map(|(g, list)| html! {
                            <optgroup label={g.clone()}>
                                { for list.iter().map(|r| {
                                    let id = r.id();
                                    let denied = self.marks.denied.contains(&id);
                                    let label = if denied { format!("{} — no access", r.label()) } else { r.label() };
                                    html! {
                                        <option value={id.clone()} selected={id == current}
                                            data-access={if denied { "denied" } else { "" }}>{label}</option>
                                    }
                                }) }
                            </optgroup>
                        }) }
                    </select>
                </label>
                <NamespaceField
                    value={AttrValue::from(self.view.namespace.clone().unwrap_or_default())}
                    options={self.marks.ns_options.clone()}
                    disabled={!self.namespaced()}
                    note={self.ns_failure.as_ref().map(|e| AttrValue::from(format!("cannot list namespaces ({e}): type a name")))}
                    mark={self.marks.scope_mark.clone()}
                    on_apply={self.on_namespace.clone()} />
                <div class="filter-box">
                    <input id="filter" class="filter" type="search" ref={self.filter_ref.clone()}
                        placeholder="Filter: text · app=web,tier!=db · env in (a,b) · field:status.phase=Running ↵"
                        title="Free text filters the rows shown. Label selector terms (app=web, env in (a,b), !canary, label:canary) and field:path=value terms are sent to the server when you press Enter. ? shows the syntax."
                        aria-label="Filter the rows"
                        value={self.filter_text.clone()} oninput={on_filter} onkeydown={on_filter_key}
                        autocomplete="off" spellcheck="false" aria-invalid={error.is_some().to_string()} />
                    if let Some(e) = error {
                        <span class="field-error" id="filter-error" role="alert" title={e.clone()}>{ e }</span>
                    } else if pending {
                        <span class="field-hint" id="filter-hint">{"Enter: ask the server"}</span>
                    }
                </div>
                if !problems.is_empty() {
                    <span class="discovery-note" id="discovery-note" title={problems.join("\n")}>
                        { format!("discovery: {} failed", problems.len()) }
                    </span>
                }
                // Kept together at the toolbar's end, on one line when it wraps.
                <div class="top-end">
                <label class="wide-toggle" title={if wide_offered { "Every column the server prints (kubectl get -o wide)" } else { "The server prints no more columns for this resource" }}>
                    <input type="checkbox" id="wide" checked={self.view.wide} disabled={!wide_offered}
                        onchange={link.callback(|e: Event| Msg::SetWide(e.target_unchecked_into::<HtmlInputElement>().checked()))} />
                    {"Wide"}
                </label>
                <div class="counts" id="counts">
                    <b id="shown-count">{shown}</b>{if self.model.is_filtering() { "+ shown (filtering…) · " } else { " shown · " }}<b id="total-count">{total}</b>{" objects"}
                </div>
                <button class="btn help-btn" id="help-button" title="Keys and filter syntax (?)" aria-label="Keys and filter syntax"
                    onclick={link.callback(|_: MouseEvent| Msg::ToggleHelp)}>{"?"}</button>
                </div>
            </header>
        }
    }

    /// What the table area says instead of (or above) rows, if anything.
    fn view_problem(&self, ctx: &Context<Self>) -> Option<Html> {
        let link = ctx.link();
        let explained = match (&self.blocked, &self.failure) {
            (Some(b), _) => problem::explain_block(b)?,
            (None, Some(f)) => {
                let plural = self
                    .resource()
                    .map(|r| r.plural.clone())
                    .unwrap_or_default();
                problem::explain_failure(
                    f,
                    &plural,
                    self.namespaced(),
                    self.scope().as_deref(),
                    self.view.query.has_selectors(),
                )
            }
            (None, None) => return None,
        };
        let choices = if explained.offer_namespaces {
            self.choices()
        } else {
            Vec::new()
        };
        let hint = if explained.offer_namespaces {
            let allowed = choices
                .iter()
                .filter(|c| c.verdict == crate::app::access::Verdict::Allowed)
                .count();
            let others = choices.iter().filter(|c| !c.verdict.is_denied()).count() - allowed;
            Some(problem::choice_hint(
                allowed,
                others,
                self.access.in_flight() > 0,
            ))
        } else {
            explained.hint
        };
        let action = explained.retry.then(|| {
            (
                AttrValue::from("Retry discovery"),
                link.callback(|_| Msg::RetryDiscovery),
            )
        });
        Some(html! {
            <Problem title={explained.title} message={explained.message.map(AttrValue::from)}
                hint={hint.map(AttrValue::from)} choices={Rc::new(choices)}
                on_choose={link.callback(Msg::SetNamespace)} {action} />
        })
    }

    fn view_table(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let rows = self.model.len();
        let seen_to = ((self.scroll_top + self.viewport) / ROW_HEIGHT).ceil() as usize;
        let spacer = spacer_rows(rows, self.spacer_rows.get(), seen_to);
        self.spacer_rows.set(spacer);
        let total_h = spacer as f64 * ROW_HEIGHT;
        let first = self.window_first();
        self.shown_first.set(first);
        // Even, and the pool's size: no slot is spare mid-table, so scrolling never
        // creates or drops a row element (`parts::Rows`).
        let count = pool_size((self.viewport / ROW_HEIGHT).ceil() as usize + 2 * OVERSCAN);
        let mut last = (first + count).min(rows);
        // Rows appearing in an empty table (the first page): the rows on screen now,
        // the overscan in a later frame. Creating the row elements is most of that
        // frame's work, and the rows past the viewport are not seen.
        if self.shown_rows.get() == 0 && last > seen_to {
            last = seen_to.max(first);
            self.fill_pool.set(true);
        }
        let first = first.min(last);
        self.shown_rows.set(last - first);
        let sort = self.model.sort();
        let hidden: Vec<&str> = self
            .cols
            .iter()
            .filter(|c| !self.shown.iter().any(|s| s.id == c.id))
            .map(|c| c.title.as_str())
            .collect();
        let last_col = self.shown.len().saturating_sub(1);
        let header = self.shown.iter().zip(self.looks.iter()).enumerate().map(|(i, (c, look))| {
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
                        onclick={link.callback(move |_| Msg::SortBy(col.clone()))}>
                        <span class="th-name">{c.title.clone()}</span><span aria-hidden="true">{arrow}</span>
                    </button>
                    // The columns the table has no room for, said at the header's end:
                    // a row's details show them.
                    if i == last_col && !hidden.is_empty() {
                        <button class="more-cols" id="hidden-columns" data-hidden={hidden.len().to_string()}
                            title={format!("Hidden for want of room: {}. A row's details show every column (Enter).", hidden.join(", "))}
                            aria-label={format!("{} more columns: {}; show the selected row's details", hidden.len(), hidden.join(", "))}
                            onclick={link.callback(|_: MouseEvent| Msg::ShowHidden)}>
                            { format!("+{}", hidden.len()) }
                        </button>
                    }
                </div>
            }
        });
        let on_scroll = link.callback(|_: Event| Msg::Scroll);
        let problem = self.view_problem(ctx);
        let empty =
            rows == 0 && !self.model.is_stale() && !self.model.is_filtering() && problem.is_none();
        let empty_text = if self.status.synced {
            "No objects match."
        } else if self.blocked == Some(Blocked::Discovering) {
            "Discovering resources…"
        } else {
            "Waiting for the first list…"
        };
        let now = time::now_ms();
        let shown: Rc<Vec<ShownRow>> = Rc::new(
            self.model
                .window(first, last)
                .into_iter()
                .map(|o| ShownRow::new(o, |key| self.model.row_look(key, now)))
                .collect(),
        );
        let resource = self
            .resource()
            .map(|r| r.plural.clone())
            .unwrap_or_else(|| self.view.resource.clone());
        let onfocusin = link.callback(|_: FocusEvent| Msg::TableFocus(true));
        let onfocusout = link.batch_callback(|e: FocusEvent| {
            // Leaving the table for another element (not for a row that moved).
            let to = e
                .related_target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok());
            match to {
                Some(el) if el.closest(".table").ok().flatten().is_some() => None,
                _ => Some(Msg::TableFocus(false)),
            }
        });
        html! {
            <section class={classes!("table-area", (!hidden.is_empty()).then_some("has-hidden"))}>
            { problem.unwrap_or_default() }
            // A grid a screen reader walks: the header is row 1, each row says its
            // place in the whole table (only the rows in view are in the DOM).
            // Busy while a sort's rows past the first screen are being put in order.
            <div class="table" role="grid" aria-label={resource} aria-rowcount={(rows + 1).to_string()}
                aria-colcount={self.cols.len().to_string()}
                aria-busy={self.model.resorting().then_some("true")} {onfocusin} {onfocusout}>
                <div class="thead" role="row" aria-rowindex="1" ref={self.thead_ref.clone()}
                    style={format!("--gutter:{}px", self.gutter)}>{ for header }</div>
                <div class="scroller" id="scroller" ref={self.scroller_ref.clone()} onscroll={on_scroll} tabindex="0"
                    role="rowgroup" aria-label="Rows: arrows move the selection, Enter shows its details">
                    // The window is the spacer's sibling, placed against the scroller:
                    // the table's height changing under churn lays out only the spacer.
                    <div class="spacer" style={format!("height:{total_h}px")}></div>
                    { parts::rows_html(&RowsProps {
                        rows: shown,
                        first,
                        base: self.window_base,
                        pool: count,
                        cols: self.shown.clone(),
                        looks: self.looks.clone(),
                        selected: self.view.selected.clone(),
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

impl Component for App {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let view = ViewState::from_hash(&location_hash());
        let mut app = App {
            filter_text: view.query.to_text(),
            reveal: view.selected.is_some(),
            view,
            discovery: Discovery {
                core: Half::Pending,
                groups: Half::Pending,
                found: Found::default(),
            },
            blocked: None,
            failure: None,
            main: None,
            generation: 0,
            ns_feed: None,
            namespaces: Vec::new(),
            ns_failure: None,
            remembered: prefs::remembered(),
            typed: Vec::new(),
            access: Access::default(),
            picker_focused: false,
            marks: Marks::default(),
            filter_error: None,
            model: TableModel::new(Sort::default(), Filter::default()),
            kind: ColumnKind::Generic,
            server_cols: None,
            printed: HashMap::new(),
            with_namespace: false,
            cols: Rc::default(),
            shown: Rc::default(),
            looks: Rc::default(),
            room: None,
            gutter: 0.0,
            announcer: announce::Announcer::default(),
            announced: String::new(),
            table_focused: false,
            focus_back: None,
            help_opener: None,
            focus_row: false,
            on_select: ctx.link().callback(Msg::Select),
            on_open: ctx.link().callback(Msg::Open),
            on_namespace: ctx.link().callback(Msg::SetNamespace),
            on_hold_log: ctx.link().callback(Msg::HoldLog),
            on_close_detail: ctx.link().callback(|_| Msg::CloseDetail),
            status: StatusView::default(),
            log: log::Log::default(),
            log_live: false,
            frame_scheduled: false,
            held_frame_scheduled: false,
            last_frame_at: f64::NEG_INFINITY,
            sweep_scheduled: false,
            prepare_scheduled: false,
            frame_measured: false,
            chrome_stamp: 0,
            applied_at: f64::NEG_INFINITY,
            urgent_pending: false,
            shown_first: Cell::new(0),
            scroll_top: 0.0,
            scroll_to: None,
            window_base: 0,
            spacer_rows: Cell::new(0),
            shown_rows: Cell::new(0),
            fill_pool: Cell::new(false),
            user_scrolled_at: f64::NEG_INFINITY,
            viewport: 600.0,
            selected_obj: None,
            related: None,
            detail: None,
            detail_generation: 0,
            related_generation: 0,
            related_view: Rc::default(),
            help_open: false,
            filter_ref: NodeRef::default(),
            scroller_ref: NodeRef::default(),
            thead_ref: NodeRef::default(),
            column_observer: None,
            observed_cols: None,
            rooms: Rooms::default(),
            cell_font: String::new(),
            listeners: Vec::new(),
            interval: None,
        };
        app.discover(ctx);
        app.restart(ctx);
        app.start_namespaces(ctx);
        let w = window();
        let link = ctx.link().clone();
        app.listeners.push(listen(&w, "hashchange", move |_| {
            link.send_message(Msg::HashChanged)
        }));
        let link = ctx.link().clone();
        app.listeners.push(listen(&w, "resize", move |_| {
            link.send_message(Msg::Resize)
        }));
        if let Some(doc) = w.document() {
            let link = ctx.link().clone();
            app.listeners.push(listen(&doc, "keydown", move |e| {
                if let Ok(k) = e.dyn_into::<KeyboardEvent>() {
                    link.send_message(Msg::Key(k));
                }
            }));
        }
        let link = ctx.link().clone();
        let tick = Closure::<dyn FnMut()>::new(move || link.send_message(Msg::Tick));
        if let Ok(handle) = w.set_interval_with_callback_and_timeout_and_arguments_0(
            tick.as_ref().unchecked_ref(),
            500,
        ) {
            app.interval = Some((handle, tick));
        }
        app
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        // What the header shows may change with any message but these (a frame says
        // itself whether it does: see `frame`).
        if !matches!(
            msg,
            Msg::Frame
                | Msg::Scroll
                | Msg::Wake(_)
                | Msg::HeldFrame
                | Msg::Sweep
                | Msg::Tick
                | Msg::Prepare
        ) {
            self.chrome_stamp += 1;
        }
        match msg {
            Msg::CoreFound(result) => {
                self.discovered(ctx, true, result);
                true
            }
            Msg::GroupsFound(result) => {
                self.discovered(ctx, false, result);
                true
            }
            Msg::RetryDiscovery => {
                self.discover(ctx);
                self.restart(ctx);
                true
            }
            Msg::Wake(wake) => {
                if wake.generation == self.generation {
                    self.urgent_pending |= wake.urgent;
                    if wake.urgent || !self.hold_frames() {
                        self.schedule_frame(ctx);
                    } else {
                        self.schedule_held_frame(ctx);
                    }
                }
                false
            }
            Msg::HeldFrame => {
                self.held_frame_scheduled = false;
                self.schedule_frame(ctx);
                false
            }
            Msg::Frame => self.frame(ctx),
            Msg::Sweep => {
                self.sweep_scheduled = false;
                self.schedule_frame(ctx);
                false
            }
            Msg::Prepare => {
                self.prepare_scheduled = false;
                let resorting = self.model.resorting();
                let catching_up = self.model.behind() && !resorting;
                let deadline = time::now_ms() + PREPARE_SLICE_MS;
                if self.model.prepare(&self.cols, deadline, &time::now_ms) {
                    self.schedule_prepare(ctx);
                }
                // A sort built (the rows past the first screen), or changes that waited
                // for it applied: shown at the next frame. Else nothing shown changed.
                if (resorting && !self.model.resorting()) || catching_up {
                    self.schedule_frame(ctx);
                }
                false
            }
            Msg::HoldLog(held) => {
                self.log.hold(held);
                if !held {
                    self.log.refresh(time::now_ms());
                    if self.log.behind() {
                        self.schedule_sweep(ctx);
                    }
                }
                true
            }
            Msg::Namespaces(names) => {
                self.namespaces = names;
                self.ns_failure = None;
                self.refresh_marks();
                self.plan_reviews(ctx);
                true
            }
            Msg::NamespacesFailed(why) => {
                self.ns_failure = why;
                true
            }
            Msg::Tick => {
                // Ages, countdowns and "N s ago" move with time. A frame (not a bare
                // status read) keeps the status and the rows from the same moment.
                self.schedule_frame(ctx);
                // A state held back by the live region's gap is said when it ends.
                let before = self.chrome_stamp;
                self.announce(time::now_ms());
                before != self.chrome_stamp
            }
            Msg::HashChanged => {
                let next = ViewState::from_hash(&location_hash());
                if next == self.view {
                    return false;
                }
                let restart = next.resource != self.view.resource
                    || next.namespace != self.view.namespace
                    || next.query.label != self.view.query.label
                    || next.query.field != self.view.query.field
                    || next.streaming != self.view.streaming
                    || next.pipeline != self.view.pipeline;
                let old = std::mem::replace(&mut self.view, next);
                self.filter_text = self.view.query.to_text();
                self.filter_error = None;
                if old.selected != self.view.selected {
                    self.reveal = self.view.selected.is_some();
                    self.selected_obj = None;
                }
                if restart {
                    self.restart(ctx);
                } else {
                    if old.query.words != self.view.query.words {
                        self.apply_words(self.view.query.words.clone());
                    }
                    if old.wide != self.view.wide {
                        self.set_columns();
                        self.rebuild_now();
                    }
                    if let Some(s) = Sort::parse(&self.view.sort, &self.cols) {
                        self.apply_sort(ctx, s);
                    }
                    if let Some(key) = self.view.selected.clone() {
                        self.select(key);
                        self.reveal = old.selected != self.view.selected;
                    }
                    self.sync_related(ctx);
                }
                true
            }
            Msg::SetResource(r) => {
                if r == self.view.resource {
                    return false;
                }
                self.view.resource = r;
                self.unselect();
                self.write_hash(true);
                self.restart(ctx);
                true
            }
            Msg::SetNamespace(ns) => {
                let ns = (!ns.is_empty()).then_some(ns);
                if let Some(n) = &ns {
                    prefs::remember(n);
                    self.remembered = prefs::remembered();
                    if !self.typed.contains(n) {
                        self.typed.push(n.clone());
                    }
                }
                if ns == self.view.namespace {
                    return false;
                }
                self.view.namespace = ns;
                self.unselect();
                self.write_hash(true);
                self.restart(ctx);
                true
            }
            Msg::FilterInput(text) => {
                let words = Query::split(&text).words;
                self.filter_text = text;
                self.filter_error = None;
                if words != self.view.query.words {
                    self.apply_words(words);
                    self.write_hash(false);
                }
                true
            }
            Msg::FilterApply => {
                match Query::parse(&self.filter_text) {
                    Ok(q) => {
                        self.filter_error = None;
                        self.apply_query(ctx, q);
                    }
                    Err(e) => self.filter_error = Some(e.to_string()),
                }
                true
            }
            Msg::SortBy(col) => {
                // The click's work to its render, measured as a frame's is.
                self.start_measure();
                let sort = self.model.sort().toggled(&col);
                self.apply_sort(ctx, sort);
                self.write_hash(false);
                true
            }
            Msg::SetWide(wide) => {
                if wide == self.view.wide {
                    return false;
                }
                self.view.wide = wide;
                self.set_columns();
                self.rebuild_now();
                self.write_hash(false);
                true
            }
            Msg::Scroll => {
                // Rendered by the frame, which runs after scroll events in the same
                // update of the rendering: one render a frame with the churn's batch.
                let before = self.scroll_top;
                self.measure_scroll();
                if (before / ROW_HEIGHT) as i64 != (self.scroll_top / ROW_HEIGHT) as i64 {
                    self.schedule_frame(ctx);
                }
                false
            }
            Msg::Resize => {
                let before = (self.scroll_top, self.viewport);
                self.measure();
                before != (self.scroll_top, self.viewport)
            }
            Msg::MeasureColumns => {
                // The scroller's height may have changed too (the toolbar wraps to
                // more lines or fewer as the window's width changes).
                let before = self.viewport;
                self.measure();
                self.measure_columns() || before != self.viewport
            }
            Msg::Select(key) => {
                self.select(key);
                self.focus_row = true;
                self.write_hash(false);
                self.sync_related(ctx);
                true
            }
            Msg::Open(key) => {
                self.select(key);
                self.open_detail(ctx);
                true
            }
            Msg::CloseDetail => {
                self.close_detail(ctx);
                true
            }
            Msg::Key(e) => self.key(ctx, e),
            Msg::DetailFetched(generation, result) => self.detail_fetched(generation, result),
            Msg::Reviewed(question, reply) => {
                self.access.answer(&question, reply);
                self.refresh_marks();
                self.plan_reviews(ctx);
                true
            }
            Msg::PickerFocus => {
                if self.picker_focused {
                    return false;
                }
                self.picker_focused = true;
                self.plan_reviews(ctx);
                false
            }
            Msg::Related(generation) => self.read_related(generation),
            Msg::ToggleHelp => {
                self.toggle_help();
                true
            }
            Msg::ShowHidden => {
                if self.view.selected.is_none() {
                    self.select_index(0);
                }
                if self.view.selected.is_some() {
                    self.open_detail(ctx);
                }
                true
            }
            Msg::TableFocus(inside) => {
                self.table_focused = inside;
                false
            }
        }
    }

    fn rendered(&mut self, ctx: &Context<Self>, first_render: bool) {
        if self.model.is_filtering() {
            self.schedule_frame(ctx);
        }
        if self.fill_pool.take() {
            // The rest of the pool, with the next frame a sync lets through.
            if self.hold_frames() {
                self.schedule_held_frame(ctx);
            } else {
                self.schedule_frame(ctx);
            }
        }
        if let Some(top) = self.scroll_to.take() {
            if let Some(el) = self.scroller_ref.cast::<HtmlElement>() {
                el.set_scroll_top(top.round() as i32);
            }
        }
        if std::mem::take(&mut self.frame_measured) {
            if let Some(p) = performance() {
                let _ = p.measure_with_start_mark(FRAME_MEASURE, FRAME_MEASURE);
                // Observers and DevTools have seen it; the buffer must not grow.
                p.clear_marks_with_mark_name(FRAME_MEASURE);
                p.clear_measures_with_measure_name(FRAME_MEASURE);
            }
        }
        self.observe_columns(ctx);
        self.place_focus();
        if first_render {
            let before = self.viewport;
            self.measure();
            if before != self.viewport {
                ctx.link().send_message(Msg::Resize);
            }
        }
    }

    fn destroy(&mut self, _ctx: &Context<Self>) {
        self.main = None;
        self.ns_feed = None;
        self.related = None;
        self.detail = None;
        self.listeners.clear();
        if let Some((handle, _)) = self.interval.take() {
            window().clear_interval_with_handle(handle);
        }
        if let Some((observer, _)) = self.column_observer.take() {
            observer.disconnect();
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let deleted = self.selected_obj.as_ref().is_some_and(|o| {
            self.main
                .as_ref()
                .map(|f| {
                    f.driver
                        .with_store(|s| s.get(o.namespace(), o.name()).is_none())
                })
                .unwrap_or(true)
        });
        html! {
            <div class={classes!("app", self.view.open.then_some("with-detail"))}>
                // The header is diffed only when an update may have changed it; the
                // status bar and the event log compare their props (unchanged by a
                // frame that only moves the rows).
                <Kept stamp={self.chrome_stamp} content={self.view_header(ctx)} />
                <StatusBar status={self.status.clone()} resource={self.view.resource.clone()}
                    instead={self.blocked.as_ref().map(|b| AttrValue::from(match b {
                        Blocked::Discovering => "Discovering resources…",
                        _ => "Not started: see below",
                    }))} />
                <main class="body">
                    { self.view_table(ctx) }
                    if self.view.open {
                        if let Some(o) = &self.selected_obj {
                            <Detail key={table::key_of(o)} object={o.clone()} deleted={deleted}
                                cols={self.cols.clone()} shown={self.shown.len()}
                                fetched={self.detail.as_ref().map(|d| d.shown.clone()).unwrap_or(parts::Fetched::Loading)}
                                secret={self.view.resource == "v1/secrets"}
                                on_close={self.on_close_detail.clone()}
                                events={self.related_view.clone()}
                                now={time::unix_now().floor()} />
                        }
                    }
                </main>
                <EventLog entries={self.log.shown()} held={self.log.held()}
                    unseen={if self.log.held() { self.log.unseen() } else { 0 }}
                    on_hold={self.on_hold_log.clone()} />
                if self.help_open {
                    <KeyHelp on_close={link.callback(|_| Msg::ToggleHelp)} />
                }
                // The status's news for screen readers: its state, throttled (the
                // status bar's counters change every second and are not announced).
                <div class="sr-only" id="announce" role="status" aria-live="polite" aria-atomic="true">
                    { self.announced.clone() }
                </div>
            </div>
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn while_the_user_scrolls_news_waits_its_turn_and_frames_move_the_rows() {
        let quiet = USER_SCROLL_QUIET_MS;
        // Not scrolling (or long ago): every frame takes the news.
        assert_eq!(
            frame_kind(f64::INFINITY, 0.0, false, false),
            FrameKind::Full
        );
        assert_eq!(frame_kind(quiet, 0.0, false, true), FrameKind::Full);
        // Scrolling, news taken 30 ms ago: the rows move alone, or nothing renders.
        assert_eq!(frame_kind(10.0, 30.0, false, true), FrameKind::Rows);
        assert_eq!(frame_kind(10.0, 30.0, false, false), FrameKind::Skip);
        // Its turn comes: the news is at most SCROLL_APPLY_MS old, scrolling or not.
        assert_eq!(
            frame_kind(10.0, SCROLL_APPLY_MS, false, true),
            FrameKind::Full
        );
        // News that cannot wait (Synced, a failure, a relist, columns) never does.
        assert_eq!(frame_kind(10.0, 1.0, true, false), FrameKind::Full);
    }
}
