//! The app's smaller pieces. Object data is only ever rendered as text (Yew escapes
//! text nodes and attribute values); nothing here sets inner HTML.

use crate::status::StatusView;
use crate::table::{cell, key_of, Col, RowState};
use kubelive_core::Object;
use std::rc::Rc;
use std::sync::Arc;
use yew::prelude::*;

/// Pretty-prints compact JSON, keeping the key order (`JSON.stringify(JSON.parse(s), null, 2)`).
pub fn pretty_json(compact: &str) -> String {
    js_sys::JSON::parse(compact)
        .ok()
        .and_then(|v| {
            js_sys::JSON::stringify_with_replacer_and_space(
                &v,
                &wasm_bindgen::JsValue::NULL,
                &2.into(),
            )
            .ok()
        })
        .and_then(|s| s.as_string())
        .unwrap_or_else(|| compact.to_string())
}

#[derive(Properties, PartialEq)]
pub struct StatusBarProps {
    pub status: StatusView,
    pub resource: String,
}

/// The status bar: the engine's phase and health, from `Engine::status()`.
#[function_component(StatusBar)]
pub fn status_bar(p: &StatusBarProps) -> Html {
    let s = &p.status;
    let tone = s.tone();
    let error = s.last_error.as_ref().filter(|e| {
        s.phase == "backingOff" && s.failed.is_none() && s.backoff_reason.as_ref() != Some(*e)
    });
    html! {
        <div class={classes!("statusbar", tone)} id="status" data-phase={s.phase} data-synced={s.synced.to_string()}
             data-rv={s.resource_version.clone().unwrap_or_default()}
             data-relists={s.relists.to_string()} data-resumes={s.resumes.to_string()} role="status" aria-live="polite">
            <span class="dot"></span>
            <span class="headline" id="status-headline">{ s.headline() }</span>
            if let Some(e) = error {
                <span class="err" title={e.clone()}>{ e.clone() }</span>
            }
            <span class="facts">
                { for s.details().into_iter().map(|d| html! { <span class="fact">{d}</span> }) }
            </span>
        </div>
    }
}

/// A row to render, with what the table model knows of it (looked up once a render).
#[derive(Clone, Debug, PartialEq)]
pub struct ShownRow {
    pub object: Arc<Object>,
    /// `namespace/name`.
    pub key: Rc<str>,
    pub state: RowState,
}

impl ShownRow {
    pub fn new(object: Arc<Object>, state: impl FnOnce(&str) -> RowState) -> ShownRow {
        let key: Rc<str> = key_of(&object).into();
        let state = state(&key);
        ShownRow { object, key, state }
    }
}

#[derive(Properties, PartialEq)]
pub struct RowsProps {
    /// The visible window of rows.
    pub rows: Rc<Vec<ShownRow>>,
    /// Index of the first of them in the whole table.
    pub first: usize,
    /// The row index the window is placed at; rows sit at their index less this.
    pub base: i64,
    pub cols: Rc<Vec<Col>>,
    /// `grid-template-columns:...`
    pub template: AttrValue,
    pub selected: Option<String>,
    /// Unix seconds, for ages.
    pub now: f64,
    pub on_select: Callback<String>,
    pub on_open: Callback<String>,
}

/// The rendered window of the virtualized table: a layer placed at row `base`, each
/// row absolutely placed in it. A row that stays keeps its place in the layer while
/// the window scrolls, so only rows that enter or change are painted. Each row is a
/// component of its own, so only those are rendered.
#[function_component(Rows)]
pub fn rows(p: &RowsProps) -> Html {
    let origin = p.base as f64 * super::ROW_HEIGHT;
    html! {
        <div class="window" style={format!("transform:translateY({origin}px)")}>
            { for p.rows.iter().enumerate().map(|(i, r)| {
                let selected = p.selected.as_deref() == Some(&*r.key);
                let slot = (p.first + i) as i64 - p.base;
                html! {
                    <Row key={r.key.clone()} id={r.key.clone()} object={r.object.clone()} state={r.state}
                         {selected} {slot} cols={p.cols.clone()} template={p.template.clone()} now={p.now}
                         on_select={p.on_select.clone()} on_open={p.on_open.clone()} />
                }
            }) }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct RowProps {
    /// Compared by pointer first: the table shares the store's `Arc`s, so an
    /// unchanged row costs a pointer comparison.
    pub object: Arc<Object>,
    /// `namespace/name` (also the row's Yew key).
    pub id: Rc<str>,
    pub state: RowState,
    pub selected: bool,
    /// Where in the window: rows from its origin.
    pub slot: i64,
    pub cols: Rc<Vec<Col>>,
    pub template: AttrValue,
    pub now: f64,
    pub on_select: Callback<String>,
    pub on_open: Callback<String>,
}

/// One row of the table.
#[function_component(Row)]
pub fn row(p: &RowProps) -> Html {
    let o = &p.object;
    let class = classes!(
        "row",
        // Stripes by place in the window, which a row keeps while it stays in view.
        (p.slot.rem_euclid(2) == 1).then_some("odd"),
        p.selected.then_some("selected"),
        match p.state {
            RowState::Normal => None,
            RowState::Gone => Some("gone"),
            RowState::Changed {
                added: true,
                generation,
            } => Some(if generation % 2 == 0 {
                "added-a"
            } else {
                "added-b"
            }),
            RowState::Changed {
                added: false,
                generation,
            } => Some(if generation % 2 == 0 {
                "mod-a"
            } else {
                "mod-b"
            }),
        },
    );
    let select = {
        let key = p.id.clone();
        p.on_select.reform(move |_: MouseEvent| key.to_string())
    };
    let open = {
        let key = p.id.clone();
        p.on_open.reform(move |_: MouseEvent| key.to_string())
    };
    html! {
        <div class={class} data-key={AttrValue::from(p.id.clone())} style={format!("{};top:{}px", p.template, p.slot as f64 * super::ROW_HEIGHT)}
             onclick={select} ondblclick={open} role="row">
            { for p.cols.iter().map(|&c| {
                let text = cell(c, o, p.now);
                let class = classes!(
                    "td",
                    c.numeric().then_some("num"),
                    (c == Col::Status).then(|| format!("st-{}", text.to_ascii_lowercase())),
                    (c == Col::Name).then_some("name"),
                );
                // Tooltips where text is long enough to be cut off.
                let title = matches!(c, Col::Name | Col::Namespace | Col::Node | Col::Status).then(|| text.clone());
                html! { <span class={class} {title}>{ text }</span> }
            }) }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct DetailProps {
    pub object: Arc<Object>,
    pub deleted: bool,
    pub copied: bool,
    pub on_copy: Callback<()>,
    pub on_close: Callback<()>,
}

/// The selected object: metadata, labels, annotations and its JSON.
#[function_component(Detail)]
pub fn detail(p: &DetailProps) -> Html {
    let o = &p.object;
    // The pretty JSON of the shown version only (re-made when the version changes).
    let json = use_memo(
        (
            o.uid().to_string(),
            o.resource_version().to_string(),
            o.name().to_string(),
        ),
        {
            let o = o.clone();
            move |_| pretty_json(&o.json_str())
        },
    );
    let pairs = |list: Vec<(String, String)>| {
        html! {
            <dl class="pairs">
                { for list.into_iter().map(|(k, v)| html! { <><dt>{k}</dt><dd>{v}</dd></> }) }
            </dl>
        }
    };
    let on_copy = p.on_copy.reform(|_: MouseEvent| ());
    let on_close = p.on_close.reform(|_: MouseEvent| ());
    html! {
        <aside class="detail" id="detail">
            <div class="detail-head">
                <div class="detail-title">
                    <div class="detail-name" id="detail-name">{ o.name() }</div>
                    <div class="detail-sub">
                        { if o.namespace().is_empty() { String::new() } else { format!("{} · ", o.namespace()) } }
                        { format!("rv {}", o.resource_version()) }
                        if p.deleted { <span class="badge gone">{"deleted"}</span> }
                    </div>
                </div>
                <button class="btn" id="copy-json" onclick={on_copy}>{ if p.copied { "Copied" } else { "Copy JSON" } }</button>
                <button class="btn" id="close-detail" onclick={on_close} title="Close (Esc)">{"×"}</button>
            </div>
            <div class="detail-body">
                <h4>{"Labels"}</h4>
                { pairs(o.labels()) }
                <h4>{"Annotations"}</h4>
                { pairs(o.annotations()) }
                <h4>{"JSON"}</h4>
                <pre class="json" id="detail-json">{ (*json).clone() }</pre>
            </div>
        </aside>
    }
}

/// One line of the event log.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LogEntry {
    pub seq: u64,
    /// ADDED, MODIFIED, DELETED, SYNCED, RELIST, BACKOFF, FAILED, RESUMED, VIEW.
    pub kind: &'static str,
    pub object: String,
    pub version: String,
    /// Wall-clock time, HH:MM:SS.
    pub at: String,
    /// CSS tone: added, modified, deleted, ok, warn, error, note.
    pub tone: &'static str,
}

#[derive(Properties, PartialEq)]
pub struct EventLogProps {
    pub entries: Rc<Vec<LogEntry>>,
    /// Held still while the pointer is over it.
    pub held: bool,
    /// Entries recorded but not shown yet.
    pub unseen: u64,
    pub on_hold: Callback<bool>,
}

/// The last changes, newest first.
#[function_component(EventLog)]
pub fn event_log(p: &EventLogProps) -> Html {
    let enter = p.on_hold.reform(|_: MouseEvent| true);
    let leave = p.on_hold.reform(|_: MouseEvent| false);
    html! {
        <footer class="log" id="log" onmouseenter={enter} onmouseleave={leave} data-held={p.held.to_string()}>
            <div class="log-title">
                {"Recent changes"}
                if p.held {
                    <span class="log-held" id="log-held">
                        { if p.unseen == 0 { "paused".to_string() } else { format!("paused · {} new", p.unseen) } }
                    </span>
                }
            </div>
            <LogList entries={p.entries.clone()} />
        </footer>
    }
}

#[derive(Properties, PartialEq)]
struct LogListProps {
    entries: Rc<Vec<LogEntry>>,
}

/// The lines: re-rendered only when a new snapshot of them is shown.
#[function_component(LogList)]
fn log_list(p: &LogListProps) -> Html {
    html! {
        <ol class="log-list">
            { for p.entries.iter().map(|e| html! {
                <li key={e.seq} class={classes!("log-entry", e.tone)} data-kind={e.kind}>
                    <span class="log-at">{ e.at.clone() }</span>
                    <span class="log-kind">{ e.kind }</span>
                    <span class="log-obj">{ e.object.clone() }</span>
                    <span class="log-rv">{ if e.version.is_empty() { String::new() } else { format!("rv {}", e.version) } }</span>
                </li>
            }) }
        </ol>
    }
}
