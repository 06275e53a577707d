//! What the detail panel shows: the row's cells (those the table has no room for
//! too), the object's related events, labels and annotations, and the whole object as
//! YAML or JSON. Object data is only ever rendered as text (Yew escapes text nodes
//! and attribute values); nothing here sets inner HTML.

use super::events::EventRow;
use super::history::{HistoryTarget, ObjectHistory};
use super::yaml::{plain, to_json, to_yaml, Mask, Segment, MASK};
use crate::app::tree::OwnerTree;
use kubelive_core::{Entry, Object};
use kubelive_table::{row_texts, Column};
use std::collections::HashSet;
use std::rc::Rc;
use std::sync::Arc;
use yew::prelude::*;

/// The whole object as the detail panel last fetched it (a row holds only metadata).
#[derive(Clone, Debug)]
pub enum Fetched {
    Loading,
    Loaded(Rc<serde_json::Value>),
    /// What went wrong: the server's words (403, 404) or the network's.
    Failed(String),
}

/// Compared by pointer: a fetched object is never changed in place.
impl PartialEq for Fetched {
    fn eq(&self, other: &Fetched) -> bool {
        match (self, other) {
            (Fetched::Loading, Fetched::Loading) => true,
            (Fetched::Loaded(a), Fetched::Loaded(b)) => Rc::ptr_eq(a, b),
            (Fetched::Failed(a), Fetched::Failed(b)) => a == b,
            _ => false,
        }
    }
}

/// `metadata.<field>` of the fetched object as pairs; `None` before it is fetched (a
/// row holds its own labels and annotations only when the view keeps all metadata).
fn meta_pairs(fetched: &Fetched, field: &str) -> Option<Vec<(String, String)>> {
    let Fetched::Loaded(v) = fetched else {
        return None;
    };
    let map = v["metadata"][field].as_object();
    Some(
        map.into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
            .collect(),
    )
}

#[derive(Properties, PartialEq)]
pub struct DetailProps {
    /// The row: its metadata.
    pub object: Arc<Object>,
    pub deleted: bool,
    /// The whole object, fetched on demand.
    pub fetched: Fetched,
    /// The object is a Secret: `data` and `stringData` values are masked.
    #[prop_or_default]
    pub secret: bool,
    pub on_close: Callback<()>,
    /// The object's events, live.
    #[prop_or_default]
    pub events: Rc<RelatedView>,
    /// Unix seconds, for the events' ages.
    #[prop_or_default]
    pub now: f64,
    /// The view's columns: the panel shows every cell of the row, those the table
    /// has no room for too.
    #[prop_or_default]
    pub cols: Rc<Vec<Column>>,
    /// How many of `cols` the table shows.
    #[prop_or_default]
    pub shown: usize,
    /// What the panel watches for the object's history; none: only `history` shows.
    #[prop_or_default]
    pub history_target: Option<Rc<HistoryTarget>>,
    /// The object's versions as the view's engine saw its row, oldest first.
    #[prop_or_default]
    pub history: Rc<Vec<Entry>>,
}

/// The selected object: metadata, labels, annotations, its events, and the whole
/// object as YAML or JSON. Secret values stay masked (and out of the DOM) until the
/// user reveals them one by one; the panel is keyed by object, so a reveal does not
/// carry over to another one.
#[function_component(Detail)]
pub fn detail(p: &DetailProps) -> Html {
    let o = &p.object;
    let yaml = use_state(|| true);
    let revealed = use_state(HashSet::<String>::new);
    let copied = use_state(|| false);
    // The text of the shown version and format only (re-made when they change).
    let segments = use_memo(
        (p.fetched.clone(), *yaml, p.secret, {
            let mut ids: Vec<String> = revealed.iter().cloned().collect();
            ids.sort();
            ids
        }),
        |(fetched, yaml, secret, _)| match fetched {
            Fetched::Loaded(v) => {
                let mask = Mask {
                    secret: *secret,
                    revealed: &revealed,
                };
                if *yaml {
                    to_yaml(v, mask)
                } else {
                    to_json(v, mask)
                }
            }
            _ => Vec::new(),
        },
    );
    let pairs = |list: Vec<(String, String)>| {
        html! {
            <dl class="pairs">
                { for list.into_iter().map(|(k, v)| html! { <><dt>{k}</dt><dd>{v}</dd></> }) }
            </dl>
        }
    };
    let format = |is_yaml: bool| {
        let state = yaml.clone();
        let copied = copied.clone();
        Callback::from(move |_: MouseEvent| {
            state.set(is_yaml);
            copied.set(false);
        })
    };
    let on_copy = {
        let segments = segments.clone();
        let copied = copied.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(w) = web_sys::window() {
                // What is shown: masked values stay masked.
                let _ = w.navigator().clipboard().write_text(&plain(&segments));
                copied.set(true);
            }
        })
    };
    let on_close = p.on_close.reform(|_: MouseEvent| ());
    let body = match &p.fetched {
        Fetched::Loading => {
            html! { <div class="detail-note" id="detail-loading">{"Loading the object…"}</div> }
        }
        Fetched::Failed(why) => html! {
            <div class="detail-note error" id="detail-error" role="alert">{ format!("Cannot show the object: {why}") }</div>
        },
        Fetched::Loaded(_) => html! {
            <pre class="json" id="detail-text" data-format={if *yaml { "yaml" } else { "json" }}
                tabindex="0" aria-label={if *yaml { "The object as YAML" } else { "The object as JSON" }}>
                { for segments.iter().map(|s| match s {
                    Segment::Text(t) => html! { { t.clone() } },
                    Segment::Masked { id } => {
                        let reveal = {
                            let revealed = revealed.clone();
                            let id = id.clone();
                            Callback::from(move |_: MouseEvent| {
                                let mut next = (*revealed).clone();
                                next.insert(id.clone());
                                revealed.set(next);
                            })
                        };
                        html! {
                            <button class="secret-mask" data-secret={id.clone()} title="Reveal this value" onclick={reveal}>{ MASK }</button>
                        }
                    }
                }) }
            </pre>
        },
    };
    html! {
        <aside class="detail" id="detail" aria-label={format!("Details of {}", o.name())}>
            <div class="detail-head">
                <div class="detail-title">
                    <div class="detail-name" id="detail-name">{ o.name() }</div>
                    <div class="detail-sub">
                        { if o.namespace().is_empty() { String::new() } else { format!("{} · ", o.namespace()) } }
                        { format!("rv {}", o.resource_version()) }
                        if p.deleted { <span class="badge gone">{"deleted"}</span> }
                    </div>
                </div>
                <button class="btn" id="copy-text" onclick={on_copy} disabled={segments.is_empty()}
                    title="Copy the object as shown (masked values stay masked)">
                    { if *copied { "Copied" } else if *yaml { "Copy YAML" } else { "Copy JSON" } }
                </button>
                <button class="btn" id="close-detail" onclick={on_close} title="Close (Esc)" aria-label="Close the details">{"×"}</button>
            </div>
            <div class="detail-body">
                if !p.cols.is_empty() {
                    <h4 id="detail-cells-title">{"Columns"}</h4>
                    <dl class="pairs" id="detail-cells" aria-labelledby="detail-cells-title"
                        data-hidden={(p.cols.len() - p.shown.min(p.cols.len())).to_string()}>
                        { for p.cols.iter().zip(row_texts(&p.cols, o, p.now)).map(|(c, text)| html! {
                            <><dt data-col={c.id.clone()}>{ c.title.clone() }</dt><dd data-col={c.id.clone()}>{ text }</dd></>
                        }) }
                    </dl>
                }
                <OwnerTree history={p.history_target.clone()} fetched={p.fetched.clone()} uid={o.uid().to_string()}
                    row={o.clone()} cols={p.cols.clone()} />
                <RelatedEvents view={p.events.clone()} now={p.now} />
                <ObjectHistory target={p.history_target.clone()} rows={p.history.clone()} now={p.now} />
                <h4>{"Labels"}</h4>
                { pairs(meta_pairs(&p.fetched, "labels").unwrap_or_else(|| o.labels())) }
                <h4>{"Annotations"}</h4>
                { pairs(meta_pairs(&p.fetched, "annotations").unwrap_or_else(|| o.annotations())) }
                <h4 class="detail-format">
                    {"Object"}
                    <span class="switch" role="group" aria-label="Format">
                        <button class="btn small" id="format-yaml" aria-pressed={(*yaml).to_string()} onclick={format(true)}>{"YAML"}</button>
                        <button class="btn small" id="format-json" aria-pressed={(!*yaml).to_string()} onclick={format(false)}>{"JSON"}</button>
                    </span>
                </h4>
                { body }
            </div>
        </aside>
    }
}

/// Where the related-events watch stands.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum RelatedState {
    /// Not watching (no object, or an object without a uid).
    #[default]
    Off,
    Loading,
    Live,
    /// The server refused (the user may not list events, say): its words.
    Failed(String),
}

/// The related events the detail panel shows, newest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RelatedView {
    pub rows: Vec<EventRow>,
    pub state: RelatedState,
}

#[derive(Properties, PartialEq)]
pub struct RelatedEventsProps {
    pub view: Rc<RelatedView>,
    pub now: f64,
}

/// The object's events, as `kubectl describe` lists them (newest first here).
#[function_component(RelatedEvents)]
pub fn related_events(p: &RelatedEventsProps) -> Html {
    let v = &p.view;
    let state = match &v.state {
        RelatedState::Off => return html! {},
        RelatedState::Loading => "loading",
        RelatedState::Live => "live",
        RelatedState::Failed(_) => "failed",
    };
    html! {
        <section class="related" id="related-events" data-state={state} data-count={v.rows.len().to_string()}>
            <h4>{"Events"}</h4>
            if let RelatedState::Failed(why) = &v.state {
                <div class="related-note error">{ format!("Cannot show events: {why}") }</div>
            } else if v.rows.is_empty() {
                <div class="related-note">{ if v.state == RelatedState::Loading { "Loading events…" } else { "No events." } }</div>
            } else {
                <ol class="events">
                    { for v.rows.iter().map(|e| html! {
                        <li key={e.name.clone()} class={classes!("event", e.class())} data-reason={e.reason.clone()}>
                            <span class="ev-type">{ e.kind.clone() }</span>
                            <span class="ev-reason">{ e.reason.clone() }</span>
                            <span class="ev-age">{ e.age(p.now) }</span>
                            <span class="ev-source">{ e.source.clone() }</span>
                            <span class="ev-message">{ e.message.clone() }</span>
                        </li>
                    }) }
                </ol>
            }
        </section>
    }
}
