//! The Yew app: resource and namespace pickers, a virtualized live table, a status
//! bar that tells the truth, a detail panel and an event log. State lives in the URL
//! hash. Engine events are batched per animation frame, never rendered per event.

pub mod discovery;
mod log;
pub mod parts;

use crate::driver::{Driver, DriverRef};
use crate::status::StatusView;
use crate::table::{self, columns, Col, Filter, Sort, TableModel};
use crate::time;
use crate::url::ViewState;
use discovery::ResourceType;
use kubelive_core::{Collection, ColumnKind, Config, Event as CoreEvent, Object};
use parts::{Detail, EventLog, Rows, ShownRow, StatusBar};
use std::cell::RefCell;
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

pub enum Msg {
    Discovered(Result<Vec<ResourceType>, String>),
    /// The main engine produced events (sent per batch; the work waits for a frame).
    Wake(u64),
    Frame,
    /// Time to look at fading rows, flashes and the log again.
    Sweep,
    /// The pointer entered (true) or left the event log.
    HoldLog(bool),
    Namespaces(Vec<String>),
    Tick,
    HashChanged,
    SetResource(String),
    SetNamespace(String),
    SetFilter(String),
    SortBy(Col),
    Scroll,
    Resize,
    Select(String),
    Open(String),
    CloseDetail,
    Key(KeyboardEvent),
    Copy,
}

/// The first visible row and how far it is scrolled past, taken before a frame's
/// changes so the row can be kept where it is on screen.
struct ScrollAnchor {
    row: Arc<Object>,
    index: usize,
    offset: f64,
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

pub struct App {
    view: ViewState,
    resources: Vec<ResourceType>,
    discovery_error: Option<String>,
    main: Option<Feed>,
    generation: u64,
    started_namespaced: bool,
    ns_feed: Option<Driver>,
    namespaces: Vec<String>,
    model: TableModel,
    kind: ColumnKind,
    cols: Rc<Vec<Col>>,
    /// The rows' `grid-template-columns` for `cols`.
    template: AttrValue,
    /// Made once, so that rows compare equal across renders.
    on_select: Callback<String>,
    on_open: Callback<String>,
    status: StatusView,
    log: log::Log,
    log_live: bool,
    frame_scheduled: bool,
    sweep_scheduled: bool,
    /// A frame's update ran; its render is being measured.
    frame_measured: bool,
    scroll_top: f64,
    /// A scroll position to set once the render has sized the table for it.
    scroll_to: Option<f64>,
    /// The row index the row window is placed at. It moves only with the rows the
    /// anchor absorbs, so rows keep their place in the window layer both when the user
    /// scrolls and when rows come and go above (nothing in it is repainted but rows
    /// that enter or change).
    window_base: i64,
    /// When the user last scrolled (ms, `performance.now()`).
    user_scrolled_at: f64,
    viewport: f64,
    selected: Option<String>,
    /// The selected object as last seen (shown if it is deleted meanwhile).
    selected_obj: Option<Arc<Object>>,
    detail_open: bool,
    copied: bool,
    filter_ref: NodeRef,
    scroller_ref: NodeRef,
    listeners: Vec<Listener>,
    interval: Option<(i32, Closure<dyn FnMut()>)>,
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
    fn resource(&self) -> Option<&ResourceType> {
        self.resources.iter().find(|r| r.id() == self.view.resource)
    }

    fn namespaced(&self) -> bool {
        self.resource().map(|r| r.namespaced).unwrap_or(true)
    }

    /// (Re)starts the main engine for the current view.
    fn restart(&mut self, ctx: &Context<Self>) {
        self.main = None;
        self.generation += 1;
        self.model.clear();
        self.log_live = false;
        self.selected = None;
        self.selected_obj = None;
        self.detail_open = false;
        self.scroll_top = 0.0;
        self.window_base = 0;
        if let Some(el) = self.scroller_ref.cast::<HtmlElement>() {
            el.set_scroll_top(0);
        }
        let Some((prefix, plural)) = self.view.api() else {
            self.status = StatusView {
                phase: "stopped",
                failed: Some(format!("not a resource: {:?}", self.view.resource)),
                ..StatusView::default()
            };
            return;
        };
        self.started_namespaced = self.namespaced();
        let ns = if self.started_namespaced {
            self.view.namespace.as_deref()
        } else {
            None
        };
        self.kind = ColumnKind::for_resource(&plural);
        // The namespace column only when it varies.
        self.cols = Rc::new(columns(self.kind, self.started_namespaced && ns.is_none()));
        self.template = grid_template(&self.cols).into();
        let sort = Sort::parse(&self.view.sort)
            .filter(|s| self.cols.contains(&s.col))
            .unwrap_or_default();
        self.model.set_sort(sort);
        self.model.set_filter(Filter::parse(&self.view.filter));
        let mut config = Config::new(Collection::new(&prefix, ns, &plural));
        config.strip_managed_fields = true;
        if self.view.streaming {
            config.mode = kubelive_core::Mode::StreamingList;
        }
        let pending: Rc<RefCell<Vec<CoreEvent>>> = Rc::default();
        let generation = self.generation;
        let wake = ctx.link().callback(Msg::Wake);
        let sink_pending = pending.clone();
        let sink = Box::new(move |_: &DriverRef<'_>, events: Vec<CoreEvent>| {
            sink_pending.borrow_mut().extend(events);
            wake.emit(generation);
        });
        let driver = Driver::start(config, "", sink);
        self.status = driver.status();
        let what = match ns {
            Some(ns) => format!("{} in {ns}", self.view.resource),
            None => format!("{} in all namespaces", self.view.resource),
        };
        self.push_log("VIEW", what, String::new(), "note");
        self.main = Some(Feed { driver, pending });
    }

    fn start_namespaces(&mut self, ctx: &Context<Self>) {
        let link = ctx.link().clone();
        let sink = Box::new(move |d: &DriverRef<'_>, events: Vec<CoreEvent>| {
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

    fn schedule_frame(&mut self, ctx: &Context<Self>) {
        if self.frame_scheduled {
            return;
        }
        self.frame_scheduled = true;
        let link = ctx.link().clone();
        next_frame(move || link.send_message(Msg::Frame));
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

    /// A frame: apply the batch, rebuild if due, drop faded rows.
    fn frame(&mut self, ctx: &Context<Self>) -> bool {
        self.frame_scheduled = false;
        if self.main.is_none() {
            return false;
        }
        self.start_measure();
        let anchor = self.scroll_anchor();
        let Some(feed) = &self.main else {
            return false;
        };
        let events = std::mem::take(&mut *feed.pending.borrow_mut());
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
        if let Some((top, shift)) = anchor.and_then(|a| a.moved_to(&self.model)) {
            self.scroll_top = top;
            self.scroll_to = Some(top);
            self.window_base += shift;
        }
        self.status = feed.driver.status();
        let selected = self.selected.as_deref().and_then(|key| {
            let (ns, name) = key.split_once('/')?;
            feed.driver.with_store(|s| s.get(ns, name).cloned())
        });
        if selected.is_some() {
            self.selected_obj = selected;
        }
        self.log_events(&events);
        self.log.refresh(now);
        if self.model.is_stale() {
            self.schedule_frame(ctx);
        } else if self.model.animating() || self.log.behind() {
            // Fading rows leave, and held-back log lines show, on a later frame; no
            // need to spin every frame for them.
            self.schedule_sweep(ctx);
        }
        true
    }

    /// Marks the start of work that ends with a render (measured in `rendered`).
    fn start_measure(&mut self) {
        if let Some(p) = performance() {
            self.frame_measured = p.mark(FRAME_MEASURE).is_ok();
        }
    }

    /// What to keep in place while rows come and go above it. None at the top: there
    /// new rows push the rest down, as in any live list.
    /// `scroll_top` is current: every scroll fires a scroll event, handled before the
    /// frame (reading `scrollTop` here would force a layout of the rows a render
    /// just changed).
    fn scroll_anchor(&self) -> Option<ScrollAnchor> {
        let user_scrolling = time::now_ms() - self.user_scrolled_at < USER_SCROLL_QUIET_MS;
        if self.scroll_top < ROW_HEIGHT || self.scroll_to.is_some() || user_scrolling {
            return None;
        }
        let index = (self.scroll_top / ROW_HEIGHT) as usize;
        let row = self.model.rows().get(index)?.clone();
        Some(ScrollAnchor {
            row,
            index,
            offset: self.scroll_top - index as f64 * ROW_HEIGHT,
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
    }

    fn apply_filter(&mut self, q: String) {
        self.view.filter = q;
        self.model.set_filter(Filter::parse(&self.view.filter));
        self.rebuild_now();
    }

    fn apply_sort(&mut self, sort: Sort) {
        self.view.sort = sort.to_param();
        self.model.set_sort(sort);
        self.rebuild_now();
    }

    /// Moves the selection by `delta` rows and keeps it in view.
    fn move_selection(&mut self, delta: isize) {
        let rows = self.model.rows();
        if rows.is_empty() {
            return;
        }
        let current = self.selected.as_deref().and_then(|k| self.model.find(k));
        let next = match current {
            Some(i) => (i as isize + delta).clamp(0, rows.len() as isize - 1) as usize,
            None => 0,
        };
        let o = rows[next].clone();
        self.selected = Some(table::key_of(&o));
        self.selected_obj = Some(o);
        let top = next as f64 * ROW_HEIGHT;
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
    }

    fn select(&mut self, key: String) {
        self.selected_obj = self
            .main
            .as_ref()
            .and_then(|f| {
                let (ns, name) = key.split_once('/')?;
                f.driver.with_store(|s| s.get(ns, name).cloned())
            })
            .or_else(|| {
                self.model
                    .rows()
                    .iter()
                    .find(|o| table::key_of(o) == key)
                    .cloned()
            });
        self.selected = Some(key);
        self.copied = false;
    }

    fn key(&mut self, e: KeyboardEvent) -> bool {
        let in_input = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .map(|el| matches!(el.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"))
            .unwrap_or(false);
        if e.ctrl_key() || e.meta_key() || e.alt_key() {
            return false;
        }
        match e.key().as_str() {
            "Escape" => {
                if self.detail_open {
                    self.detail_open = false;
                } else {
                    self.apply_filter(String::new());
                    self.write_hash(false);
                    if let Some(el) = self.filter_ref.cast::<HtmlInputElement>() {
                        el.set_value("");
                        let _ = el.blur();
                    }
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
            "Enter" if self.selected.is_some() => {
                self.detail_open = true;
                true
            }
            _ => false,
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

    fn view_header(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let on_resource = link.callback(|e: Event| {
            Msg::SetResource(e.target_unchecked_into::<HtmlSelectElement>().value())
        });
        let on_namespace = link.callback(|e: Event| {
            Msg::SetNamespace(e.target_unchecked_into::<HtmlSelectElement>().value())
        });
        let on_filter = link.callback(|e: InputEvent| {
            Msg::SetFilter(e.target_unchecked_into::<HtmlInputElement>().value())
        });
        let mut groups: Vec<(String, Vec<&ResourceType>)> = Vec::new();
        for r in &self.resources {
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
        let known = self.resources.iter().any(|r| r.id() == current);
        let ns_current = self.view.namespace.clone().unwrap_or_default();
        let mut namespaces = self.namespaces.clone();
        if !ns_current.is_empty() && !namespaces.contains(&ns_current) {
            namespaces.insert(0, ns_current.clone());
        }
        let shown = self.model.shown();
        let total = self.status.objects;
        html! {
            <header class="top">
                <div class="brand">{"kube"}<b>{"live"}</b></div>
                <label class="picker">
                    <span>{"Resource"}</span>
                    <select id="resource" onchange={on_resource} title={self.discovery_error.clone().unwrap_or_default()}>
                        if !known {
                            <option value={current.clone()} selected=true>{current.clone()}</option>
                        }
                        { for groups.iter().map(|(g, list)| html! {
                            <optgroup label={g.clone()}>
                                { for list.iter().map(|r| {
                                    let id = r.id();
                                    html! { <option value={id.clone()} selected={id == current}>{r.label()}</option> }
                                }) }
                            </optgroup>
                        }) }
                    </select>
                </label>
                <label class="picker">
                    <span>{"Namespace"}</span>
                    <select id="namespace" onchange={on_namespace} disabled={!self.namespaced()}>
                        <option value="" selected={ns_current.is_empty()}>{"All namespaces"}</option>
                        { for namespaces.iter().map(|n| html! {
                            <option value={n.clone()} selected={*n == ns_current}>{n.clone()}</option>
                        }) }
                    </select>
                </label>
                <input id="filter" class="filter" type="search" ref={self.filter_ref.clone()}
                    placeholder="Filter by name, or label k=v   ( / )"
                    value={self.view.filter.clone()} oninput={on_filter} autocomplete="off" spellcheck="false" />
                <div class="counts" id="counts">
                    <b id="shown-count">{shown}</b>{" shown · "}<b id="total-count">{total}</b>{" objects"}
                </div>
            </header>
        }
    }

    fn view_table(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let rows = self.model.rows();
        let total_h = rows.len() as f64 * ROW_HEIGHT;
        let first = ((self.scroll_top / ROW_HEIGHT) as usize).saturating_sub(OVERSCAN);
        let count = (self.viewport / ROW_HEIGHT).ceil() as usize + 2 * OVERSCAN;
        let last = (first + count).min(rows.len());
        let first = first.min(last);
        let template = self.template.clone();
        let sort = self.model.sort();
        let header = self.cols.iter().map(|&c| {
            let arrow = if sort.col == c {
                if sort.desc { " ▼" } else { " ▲" }
            } else {
                ""
            };
            let class = classes!("th", c.numeric().then_some("num"), (sort.col == c).then_some("sorted"));
            html! {
                <button class={class} data-col={c.id()} onclick={link.callback(move |_| Msg::SortBy(c))}>
                    {c.title()}{arrow}
                </button>
            }
        });
        let on_scroll = link.callback(|_: Event| Msg::Scroll);
        let empty = rows.is_empty() && !self.model.is_stale();
        let now = time::now_ms();
        let shown: Rc<Vec<ShownRow>> = Rc::new(
            rows[first..last]
                .iter()
                .map(|o| ShownRow::new(o.clone(), |key| self.model.row_state(key, now)))
                .collect(),
        );
        html! {
            <section class="table" role="grid" aria-rowcount={rows.len().to_string()}>
                <div class="thead" style={template.clone()}>{ for header }</div>
                <div class="scroller" id="scroller" ref={self.scroller_ref.clone()} onscroll={on_scroll} tabindex="0">
                    // The window is the spacer's sibling, placed against the scroller:
                    // the table's height changing under churn lays out only the spacer.
                    <div class="spacer" style={format!("height:{total_h}px")}></div>
                    <Rows
                        rows={shown}
                        first={first}
                        base={self.window_base}
                        cols={self.cols.clone()}
                        template={template}
                        selected={self.selected.clone()}
                        now={time::unix_now().floor()}
                        on_select={self.on_select.clone()}
                        on_open={self.on_open.clone()}
                    />
                    if empty {
                        <div class="empty">{ if self.status.synced { "No objects match." } else { "Waiting for the first list…" } }</div>
                    }
                </div>
            </section>
        }
    }
}

fn grid_template(cols: &[Col]) -> String {
    let widths: Vec<&str> = cols
        .iter()
        .map(|c| match c {
            Col::Name => "minmax(180px, 3fr)",
            Col::Namespace => "minmax(110px, 1.2fr)",
            Col::Node => "minmax(110px, 1.2fr)",
            Col::Status => "minmax(110px, 1fr)",
            _ => "minmax(70px, 0.6fr)",
        })
        .collect();
    format!("grid-template-columns:{}", widths.join(" "))
}

impl Component for App {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let view = ViewState::from_hash(&location_hash());
        let mut app = App {
            view,
            resources: discovery::fallback(),
            discovery_error: None,
            main: None,
            generation: 0,
            started_namespaced: true,
            ns_feed: None,
            namespaces: Vec::new(),
            model: TableModel::new(Sort::default(), Filter::default()),
            kind: ColumnKind::Generic,
            cols: Rc::default(),
            template: AttrValue::default(),
            on_select: ctx.link().callback(Msg::Select),
            on_open: ctx.link().callback(Msg::Open),
            status: StatusView::default(),
            log: log::Log::default(),
            log_live: false,
            frame_scheduled: false,
            sweep_scheduled: false,
            frame_measured: false,
            scroll_top: 0.0,
            scroll_to: None,
            window_base: 0,
            user_scrolled_at: f64::NEG_INFINITY,
            viewport: 600.0,
            selected: None,
            selected_obj: None,
            detail_open: false,
            copied: false,
            filter_ref: NodeRef::default(),
            scroller_ref: NodeRef::default(),
            listeners: Vec::new(),
            interval: None,
        };
        app.restart(ctx);
        app.start_namespaces(ctx);
        let link = ctx.link().clone();
        wasm_bindgen_futures::spawn_local(async move {
            link.send_message(Msg::Discovered(discovery::discover().await));
        });
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
        match msg {
            Msg::Discovered(Ok(resources)) => {
                self.resources = resources;
                self.discovery_error = None;
                if self.namespaced() != self.started_namespaced {
                    self.restart(ctx);
                }
                true
            }
            Msg::Discovered(Err(e)) => {
                self.push_log("DISCOVERY", e.clone(), String::new(), "error");
                self.discovery_error = Some(e);
                true
            }
            Msg::Wake(generation) => {
                if generation == self.generation {
                    self.schedule_frame(ctx);
                }
                false
            }
            Msg::Frame => self.frame(ctx),
            Msg::Sweep => {
                self.sweep_scheduled = false;
                self.schedule_frame(ctx);
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
                true
            }
            Msg::Tick => {
                // Ages, countdowns and "N s ago" move with time. A frame (not a bare
                // status read) keeps the status and the rows from the same moment.
                self.schedule_frame(ctx);
                false
            }
            Msg::HashChanged => {
                let next = ViewState::from_hash(&location_hash());
                if next == self.view {
                    return false;
                }
                let restart =
                    next.resource != self.view.resource || next.namespace != self.view.namespace;
                let old = std::mem::replace(&mut self.view, next);
                if restart {
                    self.restart(ctx);
                } else {
                    if old.filter != self.view.filter {
                        self.apply_filter(self.view.filter.clone());
                    }
                    if let Some(s) = Sort::parse(&self.view.sort) {
                        self.apply_sort(s);
                    }
                }
                true
            }
            Msg::SetResource(r) => {
                if r == self.view.resource {
                    return false;
                }
                self.view.resource = r;
                self.write_hash(true);
                self.restart(ctx);
                true
            }
            Msg::SetNamespace(ns) => {
                let ns = (!ns.is_empty()).then_some(ns);
                if ns == self.view.namespace {
                    return false;
                }
                self.view.namespace = ns;
                self.write_hash(true);
                self.restart(ctx);
                true
            }
            Msg::SetFilter(q) => {
                self.apply_filter(q);
                self.write_hash(false);
                true
            }
            Msg::SortBy(col) => {
                let sort = self.model.sort().toggled(col);
                self.apply_sort(sort);
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
            Msg::Select(key) => {
                self.select(key);
                true
            }
            Msg::Open(key) => {
                self.select(key);
                self.detail_open = true;
                true
            }
            Msg::CloseDetail => {
                self.detail_open = false;
                true
            }
            Msg::Key(e) => self.key(e),
            Msg::Copy => {
                if let Some(o) = &self.selected_obj {
                    let text = parts::pretty_json(&o.json_str());
                    let clipboard = window().navigator().clipboard();
                    let _ = clipboard.write_text(&text);
                    self.copied = true;
                }
                true
            }
        }
    }

    fn rendered(&mut self, ctx: &Context<Self>, first_render: bool) {
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
        self.listeners.clear();
        if let Some((handle, _)) = self.interval.take() {
            window().clear_interval_with_handle(handle);
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
            <div class={classes!("app", self.detail_open.then_some("with-detail"))}>
                { self.view_header(ctx) }
                <StatusBar status={self.status.clone()} resource={self.view.resource.clone()} />
                <main class="body">
                    { self.view_table(ctx) }
                    if self.detail_open {
                        if let Some(o) = &self.selected_obj {
                            <Detail object={o.clone()} deleted={deleted} copied={self.copied}
                                on_copy={link.callback(|_| Msg::Copy)}
                                on_close={link.callback(|_| Msg::CloseDetail)} />
                        }
                    }
                </main>
                <EventLog entries={self.log.shown()} held={self.log.held()}
                    unseen={if self.log.held() { self.log.unseen() } else { 0 }}
                    on_hold={link.callback(Msg::HoldLog)} />
            </div>
        }
    }
}
