//! The detail panel's history of its object: what changed, version by version, newest
//! first, as structured diffs (path, before → after) made by the core's
//! [`kubelive_core::History`].
//!
//! Two sources, merged by resourceVersion: the view's engine keeps the versions of
//! every row that changed since the view synced (rows: their printed cells and
//! identity), and the panel watches its own object while it is open (one watch of the
//! object by `metadata.name`, whole objects), whose diffs of the same version are
//! richer and win. Where the panel's watch is refused (a user who may list the table
//! but not watch it, say) the rows' versions still show, and the panel says why the
//! rest do not.
//!
//! A Secret's values never reach the DOM: the core masks `data`, `stringData` and the
//! last-applied annotation in every change before it is kept.

use crate::app::engine::record;
use crate::driver::{Driver, DriverRef};
use crate::time::human_duration;
use kubelive_core::{
    Collection, Config, Entry, EntryKind, Event as CoreEvent, History, HistoryConfig,
};
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;
use yew::prelude::*;

/// Longest value shown in full (characters); longer ones are cut, with a mark.
const MAX_VALUE_CHARS: usize = 240;

/// What the panel watches to follow its object: the collection (as the view's engine
/// names it) and the object's name in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryTarget {
    /// `/api/v1`, `/apis/apps/v1`.
    pub prefix: String,
    /// Empty for a cluster-scoped object.
    pub namespace: String,
    /// `pods`, `deployments`.
    pub plural: String,
    pub name: String,
    /// The object is a Secret (masked even where a version does not say its kind).
    pub secret: bool,
}

impl HistoryTarget {
    fn config(&self) -> Config {
        let ns = (!self.namespace.is_empty()).then_some(self.namespace.as_str());
        let mut config = Config::new(Collection::new(&self.prefix, ns, &self.plural));
        config.field_selector = Some(format!("metadata.name={}", self.name));
        config.strip_managed_fields = true;
        config
    }
}

/// Where the panel's own watch of its object stands.
#[derive(Clone, Debug, PartialEq)]
enum WatchState {
    /// No watch (no resource to watch it in).
    Off,
    Loading,
    /// Live since the version the panel opened at.
    Live,
    /// The server refused: its words.
    Failed(String),
}

#[derive(Properties, PartialEq)]
pub struct ObjectHistoryProps {
    /// What to watch; none: only `rows` show.
    #[prop_or_default]
    pub target: Option<Rc<HistoryTarget>>,
    /// The object's versions as the view's engine saw its row, oldest first.
    #[prop_or_default]
    pub rows: Rc<Vec<Entry>>,
    /// Unix seconds, for the entries' ages.
    pub now: f64,
}

pub enum Msg {
    /// The panel's watch produced events (its generation).
    Events(u64),
}

/// The panel's watch of its object and the versions it delivered.
struct Watch {
    /// Dropped with the component: its requests go with it.
    driver: Driver,
    history: Rc<RefCell<History>>,
    generation: u64,
    state: WatchState,
}

/// The history section of the detail panel (see the module documentation). It owns
/// the watch of its object, started when it is made (or shown another target) and
/// stopped when it goes.
pub struct ObjectHistory {
    watch: Option<Watch>,
    generation: u64,
}

impl ObjectHistory {
    fn start(&mut self, ctx: &Context<Self>) {
        self.watch = None;
        let Some(target) = ctx.props().target.clone() else {
            return;
        };
        self.generation += 1;
        let generation = self.generation;
        let history = Rc::new(RefCell::new(History::new(HistoryConfig {
            secret: target.secret,
            ..HistoryConfig::default()
        })));
        let sink_history = history.clone();
        let mut synced = false;
        let link = ctx.link().clone();
        let sink = Box::new(move |_: &DriverRef<'_>, events: Vec<CoreEvent>| {
            record(&mut sink_history.borrow_mut(), &mut synced, &events);
            link.send_message(Msg::Events(generation));
        });
        self.watch = Some(Watch {
            driver: Driver::start(target.config(), "", sink),
            history,
            generation,
            state: WatchState::Loading,
        });
    }
}

impl Component for ObjectHistory {
    type Message = Msg;
    type Properties = ObjectHistoryProps;

    fn create(ctx: &Context<Self>) -> Self {
        let mut me = ObjectHistory {
            watch: None,
            generation: 0,
        };
        me.start(ctx);
        me
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &ObjectHistoryProps) -> bool {
        if ctx.props().target != old.target {
            self.start(ctx);
        }
        true
    }

    fn update(&mut self, _ctx: &Context<Self>, msg: Msg) -> bool {
        let Msg::Events(generation) = msg;
        let Some(w) = self.watch.as_mut().filter(|w| w.generation == generation) else {
            return false;
        };
        let status = w.driver.status();
        w.state = match status.failed {
            Some(why) => WatchState::Failed(why),
            None if status.synced => WatchState::Live,
            None => WatchState::Loading,
        };
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let p = ctx.props();
        let (state, entries) = match &self.watch {
            Some(w) => {
                let h = w.history.borrow();
                let name = p.target.as_ref().map(|t| t.name.as_str()).unwrap_or("");
                let ns = p
                    .target
                    .as_ref()
                    .map(|t| t.namespace.as_str())
                    .unwrap_or("");
                let own: Vec<Entry> = h.entries(ns, name).cloned().collect();
                (w.state.clone(), merge(&p.rows, own))
            }
            None => (WatchState::Off, merge(&p.rows, Vec::new())),
        };
        html! {
            <Timeline entries={Rc::new(entries)} now={p.now} state={match &state {
                WatchState::Off => "off",
                WatchState::Loading => "loading",
                WatchState::Live => "live",
                WatchState::Failed(_) => "failed",
            }} failed={match state { WatchState::Failed(why) => Some(why), _ => None }} />
        }
    }
}

/// The entries of both sources, newest first: the panel's own (`own`) and those of
/// `rows` whose version it does not have, in the order they came.
pub fn merge(rows: &[Entry], own: Vec<Entry>) -> Vec<Entry> {
    let versions: HashSet<(&str, &str)> = own
        .iter()
        .map(|e| (e.resource_version.as_str(), kind_word(e.kind)))
        .collect();
    let mut all: Vec<Entry> = rows
        .iter()
        .filter(|e| !versions.contains(&(e.resource_version.as_str(), kind_word(e.kind))))
        .cloned()
        .collect();
    all.extend(own.iter().cloned());
    // Stable: entries of one moment keep the order they came in.
    all.sort_by_key(|e| e.at);
    all.reverse();
    all
}

#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    /// Newest first; `at` in Unix milliseconds.
    pub entries: Rc<Vec<Entry>>,
    /// Unix seconds.
    pub now: f64,
    /// The panel's watch: `off`, `loading`, `live`, `failed`.
    #[prop_or(AttrValue::Static("off"))]
    pub state: AttrValue,
    /// Why the panel's watch was refused.
    #[prop_or_default]
    pub failed: Option<String>,
}

fn kind_word(k: EntryKind) -> &'static str {
    match k {
        EntryKind::Added => "added",
        EntryKind::Modified => "modified",
        EntryKind::Deleted => "deleted",
    }
}

/// A value as shown: compact JSON, cut past [`MAX_VALUE_CHARS`].
fn shown(v: &str) -> String {
    match v.char_indices().nth(MAX_VALUE_CHARS) {
        Some((i, _)) => format!("{}…", &v[..i]),
        None => v.to_string(),
    }
}

/// A path with its breaks where a reader expects them: after each `.` and before
/// each `[` (a narrow panel wraps `status.conditions[type=Ready].status` there, not
/// inside a key).
fn path_html(path: &str) -> Html {
    let mut parts = Vec::new();
    let mut start = 0;
    for (i, c) in path.char_indices() {
        if c == '[' && i > start {
            parts.push(&path[start..i]);
            start = i;
        } else if c == '.' {
            parts.push(&path[start..=i]);
            start = i + 1;
        }
    }
    parts.push(&path[start..]);
    html! {
        { for parts.into_iter().enumerate().map(|(i, part)| html! {
            <>
                if i > 0 { <wbr /> }
                { part.to_string() }
            </>
        }) }
    }
}

/// The object's versions as a list of entries, each headed by its kind, version and
/// age, listing its changes (path, before → after).
#[function_component(Timeline)]
pub fn timeline(p: &TimelineProps) -> Html {
    let value = |v: &Option<String>, class: &'static str| match v {
        Some(v) => {
            html! { <code class={class} title={(v.chars().count() > MAX_VALUE_CHARS).then(|| v.clone())}>{ shown(v) }</code> }
        }
        None => html! { <span class={classes!(class, "absent")}>{"(absent)"}</span> },
    };
    html! {
        <section class="history" id="detail-history" aria-labelledby="detail-history-title"
            data-state={p.state.clone()} data-count={p.entries.len().to_string()}>
            <h4 id="detail-history-title">{"History"}</h4>
            if let Some(why) = &p.failed {
                <div class="history-note error">{ format!("Cannot watch the object (only the table's changes show): {why}") }</div>
            }
            if p.entries.is_empty() {
                <div class="history-note">{ if p.state == "loading" { "Watching the object…" } else { "No changes seen yet." } }</div>
            } else {
                <ol class="history-list">
                    { for p.entries.iter().map(|e| {
                        let kind = kind_word(e.kind);
                        let secs = e.at.as_millis() as f64 / 1000.0;
                        let when = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(e.at.as_millis() as f64));
                        let iso = String::from(when.to_iso_string());
                        html! {
                            <li class={classes!("history-entry", kind)} data-kind={kind} data-rv={e.resource_version.clone()}>
                                <h5 class="hist-head">
                                    <span class="hist-kind">{ kind }</span>{" "}
                                    <span class="hist-rv">{ format!("rv {}", e.resource_version) }</span>{" "}
                                    <time class="hist-age" datetime={iso.clone()} title={iso}>{ format!("{} ago", human_duration(p.now - secs)) }</time>
                                </h5>
                                if e.kind == EntryKind::Modified && e.changes.is_empty() {
                                    <div class="history-note">{"Only its version moved."}</div>
                                } else if !e.changes.is_empty() {
                                    <ul class="changes">
                                        { for e.changes.iter().map(|c| html! {
                                            <li class="change" data-path={c.path.clone()}>
                                                <code class="change-path">{ path_html(&c.path) }</code>
                                                <span class="change-values">
                                                    { value(&c.before, "change-before") }
                                                    <span class="change-arrow" aria-hidden="true">{" → "}</span>
                                                    <span class="sr-only">{" becomes "}</span>
                                                    { value(&c.after, "change-after") }
                                                </span>
                                            </li>
                                        }) }
                                    </ul>
                                }
                            </li>
                        }
                    }) }
                </ol>
            }
        </section>
    }
}
