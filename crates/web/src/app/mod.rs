//! The Yew app: resource and namespace pickers, a filter box that sends label and
//! field selectors to the server, a virtualized live table, a status bar that tells
//! the truth, a detail panel with the object's live events, and an event log. State
//! lives in the URL hash. Engine events are batched per animation frame, never
//! rendered per event.
//!
//! A view starts only once discovery says its resource exists (a link cannot make
//! the app request an arbitrary path); a view the server refuses says why in the
//! table area, and for a 403 offers the namespaces the user can use, asked of the
//! server with access reviews.
//!
//! `App` composes the parts, each with its state, its messages and its view:
//! `toolbar` (the pickers and the filter box), `discovery`, `namespaces` (and
//! access), `grid` (the table and its virtual scroller), `detail` (the panel, with
//! YAML and related events), `log`, `status_bar`; `engine` runs the view's engine,
//! `frames` says when to render, `focus` and `keys` keep the keyboard's way, `page`
//! holds the window's listeners. `url` and `query` are the view's state as a link.

pub mod detail;
pub mod discovery;
mod engine;
pub mod fetch;
pub mod first_screen;
mod focus;
mod frames;
pub mod grid;
mod help;
mod keys;
pub mod log;
pub mod namespaces;
mod page;
pub mod problem;
pub mod query;
pub mod status_bar;
mod toolbar;
pub mod tree;
pub mod url;

use crate::time;
use discovery::{Discovery, Found};
use engine::Engine;
use first_screen::FirstScreen;
use focus::Focus;
use frames::{FrameKind, Frames};
use grid::{Grid, ROW_HEIGHT_STYLE};
use help::KeyHelp;
use kubelive_table::{RowState, Sort};
use log::Log;
use namespaces::Namespaces;
use page::{location_hash, window, Kept, Page};
use problem::Blocked;
use query::Query;
use status_bar::Status;
use toolbar::{Bar, Toolbar};
use tree::forest::Forest;
use url::ViewState;
use wasm_bindgen::prelude::*;
use web_sys::KeyboardEvent;
use yew::prelude::*;

pub enum Msg {
    /// Frames, timers and the engine's wakes.
    Frames(frames::Msg),
    Discovery(discovery::Msg),
    Namespaces(namespaces::Msg),
    Toolbar(toolbar::Msg),
    Grid(grid::Msg),
    Detail(detail::Msg),
    Log(log::Msg),
    Forest(tree::forest::Msg),
    /// A namespace chosen in the field or the problem panel (`""`: all namespaces).
    SetNamespace(String),
    HashChanged,
    Key(KeyboardEvent),
    /// The view's kept first screen was read.
    FirstScreen(first_screen::Read),
}

impl Msg {
    /// Whether the header may show something new after it: not after frames and
    /// their timers, nor scrolls (a frame says itself whether it does: see
    /// [`App::frame`]).
    fn may_change_header(&self) -> bool {
        !matches!(
            self,
            Msg::Frames(_) | Msg::Grid(grid::Msg::Scroll) | Msg::Forest(_)
        )
    }
}

pub struct App {
    /// What the user looks at: the URL's whole state, selectors and the selection
    /// included.
    view: ViewState,
    engine: Engine,
    /// The view's first rows as a page kept them, shown until the engine's come.
    first_screen: FirstScreen,
    frames: Frames,
    discovery: Discovery,
    namespaces: Namespaces,
    toolbar: Toolbar,
    grid: Grid,
    /// The tree view of the rows (`view=tree`), over the same engine.
    forest: Forest,
    detail: detail::Panel,
    log: Log,
    status: Status,
    focus: Focus,
    page: Page,
}

impl App {
    /// (Re)starts the main engine for the current view (the selection stays: it may
    /// come from the URL).
    fn restart(&mut self) {
        self.engine.stop();
        self.forest.restart_roots();
        self.status.restart();
        self.frames.restart();
        self.grid.restart();
        self.log.restart();
        self.detail.clear();
        let plural = self.view.api().map(|(_, p)| p).unwrap_or_default();
        let rt = self.discovery.check(&self.view);
        let namespaced = rt.as_ref().map(|r| r.namespaced).unwrap_or(true);
        let ns = if namespaced {
            self.view.namespace.clone()
        } else {
            None
        };
        self.grid
            .columns
            .for_view(&self.view.resource, &plural, namespaced && ns.is_none());
        self.grid.set_columns(&self.view);
        self.first_screen.restart();
        if let Some(kept) = self.first_screen.rows(&self.view) {
            self.show_kept(kept);
        }
        self.refresh_marks();
        let rt = match rt {
            Ok(rt) => rt,
            Err(blocked) => {
                if let Blocked::BadSelector(e) = &blocked {
                    self.toolbar.error = Some(e.clone());
                }
                self.engine.blocked = Some(blocked);
                self.status.stopped();
                self.forest.stop();
                return;
            }
        };
        self.engine.blocked = None;
        let config = engine::config(&rt, ns.as_deref(), &self.view);
        self.status.view = self.engine.start(config, self.frames.waker());
        self.sync_forest();
        let q = &self.view.query;
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
        self.log.push("VIEW", what, String::new(), "note");
        self.plan_reviews();
    }

    /// Shows a kept first screen (`events`: its columns and rows) until the engine's
    /// rows come.
    fn show_kept(&mut self, kept: first_screen::KeptRows) {
        let columns = kubelive_core::Event::Columns {
            columns: kept.columns,
        };
        self.grid.note_columns(&[columns], &self.view);
        self.grid.model.show_only(&kept.rows);
        self.frames.chrome_stamp += 1;
    }

    /// Keeps the view's first screen if it is due: only a kept view's, synced, its rows
    /// in order (no sort or filter under way).
    fn keep_screen(&mut self) {
        let model = &self.grid.model;
        if self.view.tree
            || self.first_screen.is_shown()
            || model.is_stale()
            || model.is_filtering()
            || model.resorting()
            || model.behind()
        {
            return;
        }
        let Some(keeper) = self.engine.keeper() else {
            return;
        };
        let now = time::now_ms();
        if !self.first_screen.due(self.status.synced(), now) {
            return;
        }
        let (Some(columns), Some(version)) = (
            self.grid.columns.server(),
            self.status.view.resource_version.clone(),
        ) else {
            return;
        };
        let height = window()
            .inner_height()
            .ok()
            .and_then(|h| h.as_f64())
            .unwrap_or(1_000.0);
        // Rows fading out (deleted) are not kept: a reload would show them as live.
        let n = first_screen::rows_for(height);
        let rows: Vec<_> = model
            .window(0, 2 * n)
            .into_iter()
            .filter(|o| model.row_state(&kubelive_table::key_of(o), now) != RowState::Gone)
            .take(n)
            .collect();
        self.first_screen
            .keep(keeper, &self.view, &version, &columns, &rows, now);
    }

    /// Runs the tree view's engines while the view is a tree of a known resource.
    fn sync_forest(&mut self) {
        let rt = self.discovery.find(&self.view.resource);
        match rt.filter(|_| self.view.tree && self.engine.blocked.is_none()) {
            Some(rt) => {
                let ns = if rt.namespaced {
                    self.view.namespace.clone()
                } else {
                    None
                };
                let id = rt.id();
                let (group, kind) = (rt.group.clone(), rt.kind.clone());
                self.forest.start(&group, &kind, &id, ns.as_deref());
            }
            None => self.forest.stop(),
        }
    }

    /// Forgets the selection (a new view).
    fn unselect(&mut self) {
        self.view.selected = None;
        self.view.open = false;
        self.grid.selected = None;
        self.grid.reveal = false;
    }

    /// One half of discovery answered (`core`: `/api`).
    fn discovered(&mut self, core: bool, result: Result<Found, String>) {
        match &result {
            Ok(found) => {
                for (gv, why) in &found.failed {
                    self.log
                        .push("DISCOVERY", format!("{gv}: {why}"), String::new(), "warn");
                }
                if found.reviews {
                    self.namespaces.access.offer();
                }
            }
            Err(e) => self
                .log
                .push("DISCOVERY", e.clone(), String::new(), "error"),
        }
        self.discovery.answered(core, result);
        if matches!(
            self.engine.blocked,
            Some(Blocked::Discovering | Blocked::DiscoveryFailed(_))
        ) {
            self.restart();
        } else {
            self.refresh_marks();
            self.plan_reviews();
        }
    }

    /// Asks the server what the user may list, as far as is worth it now.
    fn plan_reviews(&mut self) {
        let forbidden = self.engine.forbidden();
        self.namespaces
            .plan_reviews(&self.view, &self.discovery, forbidden);
    }

    /// Recomputes what the pickers mark.
    fn refresh_marks(&mut self) {
        self.namespaces.refresh_marks(&self.view, &self.discovery);
    }

    /// Whether a sync's news may wait (see `frames`): not synced yet, and the first
    /// screen of rows already shown.
    fn hold_frames(&self) -> bool {
        let shown = self.grid.scroller.filled_by(self.grid.model.len());
        self.frames.hold(self.status.synced(), shown)
    }

    /// A frame: apply the batch, rebuild if due, drop faded rows; while the user
    /// scrolls, most frames only move the rows (see `frames`).
    fn frame(&mut self) -> bool {
        self.frames.frame_runs();
        let Some(pending) = self.engine.pending() else {
            return false;
        };
        let now = time::now_ms();
        let scroller = &self.grid.scroller;
        let kind = self
            .frames
            .kind(now, scroller.user_scrolled_at(), scroller.rows_moved());
        if kind != FrameKind::Full {
            // The news waits for its turn: a later frame looks again (the engine
            // sends no other wake while news is pending).
            if pending {
                self.frames.schedule_frame();
            }
            if kind == FrameKind::Skip {
                return false;
            }
            self.frames.start_measure();
            return true;
        }
        self.frames.take_news(now);
        let anchor = self.grid.anchor();
        let events = self.engine.take_events();
        if self.first_screen.is_shown() && !events.is_empty() {
            // The engine's rows (restored, or a first page) take the kept screen's place.
            self.first_screen.replaced();
            self.grid.model.clear();
            self.frames.chrome_stamp += 1;
        }
        for why in self.grid.note_columns(&events, &self.view) {
            self.log.push(
                "COLUMNS",
                format!("the app's own: {why}"),
                String::new(),
                "note",
            );
        }
        let Some(driver) = self.engine.driver() else {
            return false;
        };
        let now = time::now_ms();
        self.grid.apply(&events, driver, anchor);
        self.forest
            .roots(&events, driver, self.grid.columns.server());
        self.status.view = driver.status();
        let selected = self
            .view
            .selected
            .as_deref()
            .and_then(|k| self.engine.get(k));
        if self.status.announce(now) {
            self.frames.chrome_stamp += 1;
        }
        if selected.is_some() {
            self.grid.selected = selected;
        }
        self.grid
            .reveal_selected(self.view.selected.as_deref(), self.status.synced());
        self.sync_detail();
        if self.engine.note_failures(&events) {
            self.plan_reviews();
        }
        self.log.note_events(&events);
        self.log.refresh(now);
        if !self.frames.prepare_scheduled() && self.grid.prepare_due() {
            self.frames.schedule_prepare();
        }
        if self.grid.busy() {
            self.frames.schedule_frame();
        } else if self.grid.model.animating() || self.log.behind() {
            // Fading rows leave, and held-back log lines show, on a later frame; no
            // need to spin every frame for them.
            self.frames.schedule_sweep();
        }
        true
    }

    fn on_frames(&mut self, msg: frames::Msg) -> bool {
        match msg {
            frames::Msg::Wake(wake) => {
                if self.engine.is_current(wake.generation) {
                    self.frames.woken(wake.urgent);
                    if wake.urgent || !self.hold_frames() {
                        self.frames.schedule_frame();
                    } else {
                        self.frames.schedule_held_frame();
                    }
                }
                false
            }
            frames::Msg::HeldFrame => {
                self.frames.held_frame_due();
                false
            }
            frames::Msg::Frame => self.frame(),
            frames::Msg::Sweep => {
                self.frames.sweep_due();
                false
            }
            frames::Msg::Prepare => {
                self.frames.prepare_runs();
                let (more, show) = self.grid.prepare();
                if more {
                    self.frames.schedule_prepare();
                }
                if show {
                    self.frames.schedule_frame();
                }
                false
            }
            frames::Msg::Tick => {
                // Ages, countdowns and "N s ago" move with time. A frame (not a bare
                // status read) keeps the status and the rows from the same moment.
                self.frames.schedule_frame();
                self.keep_screen();
                // A state held back by the live region's gap is said when it ends.
                let said = self.status.announce(time::now_ms());
                if said {
                    self.frames.chrome_stamp += 1;
                }
                said
            }
        }
    }

    fn on_discovery(&mut self, msg: discovery::Msg) -> bool {
        match msg {
            discovery::Msg::CoreFound(result) => self.discovered(true, result),
            discovery::Msg::GroupsFound(result) => self.discovered(false, result),
            discovery::Msg::Retry => {
                self.discovery.discover();
                self.restart();
            }
        }
        true
    }

    fn on_toolbar(&mut self, msg: toolbar::Msg) -> bool {
        match msg {
            toolbar::Msg::SetResource(r) => {
                if r == self.view.resource {
                    return false;
                }
                self.view.resource = r;
                self.unselect();
                self.write_hash(true);
                self.restart();
            }
            toolbar::Msg::FilterInput(text) => {
                let words = Query::split(&text).words;
                self.toolbar.text = text;
                self.toolbar.error = None;
                if words != self.view.query.words {
                    self.grid
                        .apply_words(words, &mut self.view, self.engine.driver());
                    self.write_hash(false);
                }
            }
            toolbar::Msg::FilterApply => match Query::parse(&self.toolbar.text) {
                Ok(q) => {
                    self.toolbar.error = None;
                    self.apply_query(q);
                }
                Err(e) => self.toolbar.error = Some(e.to_string()),
            },
            toolbar::Msg::SetWide(wide) => {
                if wide == self.view.wide {
                    return false;
                }
                self.view.wide = wide;
                self.grid.set_columns(&self.view);
                self.grid.rebuild_now(self.engine.driver());
                self.write_hash(false);
            }
            toolbar::Msg::SetTree(tree) => {
                if tree == self.view.tree {
                    return false;
                }
                self.view.tree = tree;
                self.sync_forest();
                self.frames.schedule_frame();
                self.write_hash(true);
            }
            toolbar::Msg::Help => self.focus.toggle_help(),
        }
        true
    }

    fn on_grid(&mut self, msg: grid::Msg) -> bool {
        match msg {
            grid::Msg::SortBy(col) => {
                // The click's work to its render, measured as a frame's is.
                self.frames.start_measure();
                let sort = self.grid.model.sort().toggled(&col);
                self.apply_sort(sort);
                self.write_hash(false);
                true
            }
            grid::Msg::Scroll => {
                // Rendered by the frame, which runs after scroll events in the same
                // update of the rendering: one render a frame with the churn's batch.
                if self.grid.scroller.scrolled() {
                    self.frames.schedule_frame();
                }
                false
            }
            grid::Msg::Resize => self.grid.scroller.measure(),
            grid::Msg::MeasureColumns => self.grid.measure_columns(),
            grid::Msg::Select(key) => {
                self.select(key);
                self.focus.to_row = true;
                self.write_hash(false);
                self.sync_detail();
                true
            }
            grid::Msg::Open(key) => {
                self.select(key);
                self.open_detail();
                true
            }
            grid::Msg::ShowHidden => {
                if self.view.selected.is_none() {
                    self.select_index(0);
                }
                if self.view.selected.is_some() {
                    self.open_detail();
                }
                true
            }
            grid::Msg::Focus(inside) => {
                self.focus.table = inside;
                false
            }
        }
    }

    fn hash_changed(&mut self) -> bool {
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
        self.toolbar.text = self.view.query.to_text();
        self.toolbar.error = None;
        if old.selected != self.view.selected {
            self.grid.reveal = self.view.selected.is_some();
            self.grid.selected = None;
        }
        if restart {
            self.restart();
        } else {
            if old.query.words != self.view.query.words {
                let words = self.view.query.words.clone();
                self.grid
                    .apply_words(words, &mut self.view, self.engine.driver());
            }
            if old.tree != self.view.tree {
                self.sync_forest();
                self.frames.schedule_frame();
            }
            if old.wide != self.view.wide {
                self.grid.set_columns(&self.view);
                self.grid.rebuild_now(self.engine.driver());
            }
            if let Some(s) = Sort::parse(&self.view.sort, &self.grid.columns.all) {
                self.apply_sort(s);
            }
            if let Some(key) = self.view.selected.clone() {
                self.select(key);
                self.grid.reveal = old.selected != self.view.selected;
            }
            self.sync_detail();
        }
        true
    }

    fn set_namespace(&mut self, ns: String) -> bool {
        let ns = (!ns.is_empty()).then_some(ns);
        if let Some(n) = &ns {
            self.namespaces.chose(n);
        }
        if ns == self.view.namespace {
            return false;
        }
        self.view.namespace = ns;
        self.unselect();
        self.write_hash(true);
        self.restart();
        true
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

    /// Enter in the filter box: the selectors are checked, then sent (a new watch)
    /// if they changed.
    fn apply_query(&mut self, query: Query) {
        let restart = query.label != self.view.query.label || query.field != self.view.query.field;
        if restart {
            self.view.query = query;
            self.unselect();
            self.write_hash(true);
            self.restart();
        } else {
            self.grid
                .apply_words(query.words, &mut self.view, self.engine.driver());
            self.write_hash(false);
        }
    }

    /// Sorts the rows (slices of sort-key preparation follow while the sort is built).
    fn apply_sort(&mut self, sort: Sort) {
        if self
            .grid
            .apply_sort(sort, &mut self.view, self.engine.driver())
        {
            self.frames.schedule_prepare();
        }
    }

    /// Selects row `index` and keeps it in view.
    fn select_index(&mut self, index: usize) {
        if self.grid.select_index(index, &mut self.view) {
            self.write_hash(false);
        }
    }

    /// Moves the selection by `delta` rows; the focus goes to its row.
    fn move_selection(&mut self, delta: isize) {
        self.focus.to_row = true;
        if self.grid.move_selection(delta, &mut self.view) {
            self.write_hash(false);
        }
    }

    fn select(&mut self, key: String) {
        let found = self.engine.get(&key);
        self.grid.select(key, found, &mut self.view);
    }

    /// Has the detail panel follow the selection while it is open.
    fn sync_detail(&mut self) {
        let open = self
            .view
            .open
            .then_some(self.grid.selected.as_ref())
            .flatten();
        self.detail
            .sync(open, self.discovery.find(&self.view.resource));
    }

    /// Opens the detail panel of the selected row. Where it is a sheet over the
    /// table (a narrow window), the focus goes into it.
    fn open_detail(&mut self) {
        self.view.open = true;
        self.write_hash(false);
        self.sync_detail();
        self.focus.detail_opened();
    }

    /// Closes the detail panel; the focus, if it was in it, goes back to the table.
    fn close_detail(&mut self) {
        self.view.open = false;
        self.write_hash(false);
        self.sync_detail();
        self.focus.detail_closed();
    }

    /// Puts the focus where the user expects it (see `focus`).
    fn place_focus(&mut self) {
        self.focus
            .place(self.view.selected.as_deref(), &self.grid.scroller.node);
    }
}

impl Component for App {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let view = ViewState::from_hash(&location_hash());
        let link = ctx.link();
        let mut app = App {
            toolbar: Toolbar::new(link.callback(Msg::Toolbar), view.query.to_text()),
            grid: Grid::new(link.callback(Msg::Grid), view.selected.is_some()),
            forest: Forest::new(link.callback(Msg::Forest)),
            view,
            engine: Engine::keeping_views(),
            first_screen: FirstScreen::default(),
            frames: Frames::new(link.callback(Msg::Frames)),
            discovery: Discovery::new(link.callback(Msg::Discovery)),
            namespaces: Namespaces::new(
                link.callback(Msg::Namespaces),
                link.callback(Msg::SetNamespace),
            ),
            detail: detail::Panel::new(link.callback(Msg::Detail)),
            log: Log::new(link.callback(Msg::Log)),
            status: Status::default(),
            focus: Focus::default(),
            page: Page::default(),
        };
        first_screen::take_early(link.callback(Msg::FirstScreen));
        app.discovery.discover();
        app.restart();
        app.namespaces.start();
        app.page = Page::start(link);
        app
    }

    fn update(&mut self, _ctx: &Context<Self>, msg: Msg) -> bool {
        if msg.may_change_header() {
            self.frames.chrome_stamp += 1;
        }
        match msg {
            Msg::Frames(m) => self.on_frames(m),
            Msg::Discovery(m) => self.on_discovery(m),
            Msg::Namespaces(m) => {
                let forbidden = self.engine.forbidden();
                self.namespaces
                    .update(m, &self.view, &self.discovery, forbidden)
            }
            Msg::Toolbar(m) => self.on_toolbar(m),
            Msg::Grid(m) => self.on_grid(m),
            Msg::Forest(m @ tree::forest::Msg::Events(_)) => {
                if self.forest.update(m) {
                    self.frames.schedule_frame();
                }
                false
            }
            Msg::Forest(m) => self.forest.update(m),
            Msg::Detail(detail::Msg::Close) => {
                self.close_detail();
                true
            }
            Msg::Detail(m) => self.detail.update(m),
            Msg::Log(log::Msg::Hold(held)) => {
                if self.log.hold(held, time::now_ms()) {
                    self.frames.schedule_sweep();
                }
                true
            }
            Msg::SetNamespace(ns) => self.set_namespace(ns),
            Msg::HashChanged => self.hash_changed(),
            Msg::Key(e) => self.key(e),
            Msg::FirstScreen(read) => {
                let empty = self.grid.model.is_empty() && self.engine.driver().is_none();
                match self.first_screen.show(read, &self.view, empty) {
                    Some(kept) => {
                        self.show_kept(kept);
                        true
                    }
                    None => false,
                }
            }
        }
    }

    fn rendered(&mut self, ctx: &Context<Self>, first_render: bool) {
        if self.grid.model.is_filtering() {
            self.frames.schedule_frame();
        }
        if self.grid.scroller.rendered() {
            // The rest of the pool, with the next frame a sync lets through.
            if self.hold_frames() {
                self.frames.schedule_held_frame();
            } else {
                self.frames.schedule_frame();
            }
        }
        self.frames.end_measure();
        self.grid.observe_columns();
        if self.view.tree {
            self.forest.rendered();
        } else {
            self.place_focus();
        }
        if first_render {
            let before = self.grid.scroller.viewport();
            self.grid.scroller.measure();
            if before != self.grid.scroller.viewport() {
                ctx.link().send_message(Msg::Grid(grid::Msg::Resize));
            }
        }
    }

    fn destroy(&mut self, _ctx: &Context<Self>) {
        self.engine.stop();
        self.forest.stop();
        self.namespaces.stop();
        self.detail.clear();
        self.page.stop();
        self.grid.columns.disconnect();
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let resource = &self.view.resource;
        let blocked = self.engine.blocked.as_ref();
        let bar = Bar {
            view: &self.view,
            discovery: &self.discovery,
            namespaces: &self.namespaces,
            shown: self.grid.model.shown(),
            filtering: self.grid.model.is_filtering(),
            total: self.status.view.objects,
            // Only when the box's own error is not shown instead.
            rejected: self
                .toolbar
                .error
                .is_none()
                .then(|| {
                    self.engine
                        .rejected_selector(self.view.query.has_selectors())
                })
                .flatten(),
            has_wide: self.grid.columns.has_wide(),
            has_tree: self
                .discovery
                .find(resource)
                .is_some_and(|r| Forest::offered(&r.group, &r.kind)),
        };
        let problem = problem::view(
            link,
            blocked,
            self.engine.failure.as_ref(),
            &self.view,
            &self.discovery,
            &self.namespaces,
        );
        let label = self
            .discovery
            .find(resource)
            .map(|r| r.plural.clone())
            .unwrap_or_else(|| resource.clone());
        let table = if self.view.tree && problem.is_none() && blocked.is_none() {
            self.forest
                .view(&self.grid.model, &self.grid.columns.all, &label)
        } else {
            self.grid.view(
                problem,
                label,
                self.view.selected.as_ref(),
                self.status.synced(),
                blocked == Some(&Blocked::Discovering),
            )
        };
        let detail = self
            .view
            .open
            .then_some(self.grid.selected.as_ref())
            .flatten()
            .map(|o| {
                let cols = &self.grid.columns;
                let deleted = self.engine.deleted(o);
                let secret = resource == "v1/secrets";
                let history = self.engine.history();
                self.detail
                    .view(o, deleted, &cols.all, cols.shown.len(), secret, &history)
            });
        html! {
            // The rows' height is the app's (`--row-height`: style.css sizes them by it).
            <div class={classes!("app", self.view.open.then_some("with-detail"))} style={ROW_HEIGHT_STYLE}
                data-first-screen={self.first_screen.is_shown().then_some("kept")}>
                // The header is diffed only when an update may have changed it; the
                // status bar and the event log compare their props (unchanged by a
                // frame that only moves the rows).
                <Kept stamp={self.frames.chrome_stamp} content={self.toolbar.view(bar)} />
                { self.status.view(resource, blocked, self.first_screen.is_shown()) }
                <main class="body">
                    { table }
                    { detail.unwrap_or_default() }
                </main>
                { self.log.view() }
                if self.focus.help_open {
                    <KeyHelp on_close={link.callback(|_| Msg::Toolbar(toolbar::Msg::Help))} />
                }
                { self.status.view_announce() }
            </div>
        }
    }
}
