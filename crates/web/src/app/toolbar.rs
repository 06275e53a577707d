//! The toolbar: the resource picker (what discovery found, marked with what the user
//! may not list), the namespace field, the filter box, the wide and tree toggles, the counts
//! and the help button. The filter box's text is parsed by `query` into free words
//! (filtered in the browser) and selectors (sent to the server on Enter).

use super::discovery::{Discovery, ResourceType};
use super::namespaces::Namespaces;
use super::query::Query;
use super::url::ViewState;
use web_sys::{HtmlInputElement, HtmlSelectElement, KeyboardEvent};
use yew::prelude::*;

pub enum Msg {
    SetResource(String),
    /// The filter box's text as typed: free text applies at once.
    FilterInput(String),
    /// Enter in the filter box: selectors are checked and sent.
    FilterApply,
    /// The wide toggle: every column the server prints, or priority 0 only.
    SetWide(bool),
    /// The tree toggle: each row over what it owns, or the table.
    SetTree(bool),
    /// The help button (or the help's close button).
    Help,
}

/// What the toolbar shows besides its own state.
pub struct Bar<'a> {
    pub view: &'a ViewState,
    pub discovery: &'a Discovery,
    pub namespaces: &'a Namespaces,
    /// Rows shown, and whether the filter is still counting them.
    pub shown: usize,
    pub filtering: bool,
    /// Objects the engine holds.
    pub total: usize,
    /// The server's refusal of the selectors, in words.
    pub rejected: Option<String>,
    /// The server prints columns for `-o wide`.
    pub has_wide: bool,
    /// The view's kind owns built-in kinds (a tree of it has levels).
    pub has_tree: bool,
}

/// The filter box's state.
pub struct Toolbar {
    /// The filter box's text (selectors in it are sent on Enter).
    pub text: String,
    /// A selector the box holds that the parser rejects.
    pub error: Option<String>,
    /// The filter box (`#filter`).
    pub filter: NodeRef,
    send: Callback<Msg>,
}

impl Toolbar {
    /// `text`: the filter the view starts with.
    pub fn new(send: Callback<Msg>, text: String) -> Toolbar {
        Toolbar {
            text,
            error: None,
            filter: NodeRef::default(),
            send,
        }
    }

    /// Esc: the box is emptied and gives up the focus.
    pub fn clear(&mut self) {
        self.text.clear();
        self.error = None;
        if let Some(el) = self.filter.cast::<HtmlInputElement>() {
            el.set_value("");
            let _ = el.blur();
        }
    }

    /// `/`: the box takes the focus, its text selected.
    pub fn focus(&self) {
        if let Some(el) = self.filter.cast::<HtmlInputElement>() {
            let _ = el.focus();
            el.select();
        }
    }

    pub fn view(&self, bar: Bar<'_>) -> Html {
        let Bar {
            view,
            discovery,
            namespaces,
            shown,
            filtering,
            total,
            rejected,
            has_wide,
            has_tree,
        } = bar;
        let on_resource = self.send.reform(|e: Event| {
            Msg::SetResource(e.target_unchecked_into::<HtmlSelectElement>().value())
        });
        let on_filter = self.send.reform(|e: InputEvent| {
            Msg::FilterInput(e.target_unchecked_into::<HtmlInputElement>().value())
        });
        let on_filter_key = {
            let send = self.send.clone();
            Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Enter" {
                    e.prevent_default();
                    send.emit(Msg::FilterApply);
                }
            })
        };
        let mut groups: Vec<(String, Vec<&ResourceType>)> = Vec::new();
        for r in &discovery.found.resources {
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
        let current = view.resource.clone();
        let known = discovery.find(&view.resource).is_some();
        let problems = discovery.problems();
        let typed = Query::split(&self.text);
        let pending = typed.label != view.query.label || typed.field != view.query.field;
        let error = self.error.clone().or(rejected);
        // Offered while wide is on, so it can always be turned off.
        let wide_offered = view.wide || has_wide;
        html! {
            <header class="top">
                <div class="brand">{"kube"}<b>{"live"}</b></div>
                <label class="picker">
                    <span>{"Resource"}</span>
                    <select id="resource" onchange={on_resource} onfocus={namespaces.on_picker_focus()}
                        title={problems.join("\n")}>
                        if !known {
                            <option value={current.clone()} selected=true>{current.clone()}</option>
                        }
                        { for groups.iter().map(|(g, list)| html! {
                            <optgroup label={g.clone()}>
                                { for list.iter().map(|r| {
                                    let id = r.id();
                                    let denied = namespaces.marks.denied.contains(&id);
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
                { namespaces.view_field(view.namespace.as_ref(), discovery.namespaced(&view.resource)) }
                <div class="filter-box">
                    <input id="filter" class="filter" type="search" ref={self.filter.clone()}
                        placeholder="Filter: text · app=web,tier!=db · env in (a,b) · field:status.phase=Running ↵"
                        title="Free text filters the rows shown. Label selector terms (app=web, env in (a,b), !canary, label:canary) and field:path=value terms are sent to the server when you press Enter. ? shows the syntax."
                        aria-label="Filter the rows"
                        value={self.text.clone()} oninput={on_filter} onkeydown={on_filter_key}
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
                    <input type="checkbox" id="wide" checked={view.wide} disabled={!wide_offered}
                        onchange={self.send.reform(|e: Event| Msg::SetWide(e.target_unchecked_into::<HtmlInputElement>().checked()))} />
                    {"Wide"}
                </label>
                if has_tree || view.tree {
                    <label class="wide-toggle" title="Each row over what it owns (its ReplicaSets, Pods, Jobs...), live">
                        <input type="checkbox" id="tree-toggle" checked={view.tree}
                            onchange={self.send.reform(|e: Event| Msg::SetTree(e.target_unchecked_into::<HtmlInputElement>().checked()))} />
                        {"Tree"}
                    </label>
                }
                <div class="counts" id="counts">
                    <b id="shown-count">{shown}</b>{if filtering { "+ shown (filtering…) · " } else { " shown · " }}<b id="total-count">{total}</b>{" objects"}
                </div>
                <button class="btn help-btn" id="help-button" title="Keys and filter syntax (?)" aria-label="Keys and filter syntax"
                    onclick={self.send.reform(|_: MouseEvent| Msg::Help)}>{"?"}</button>
                </div>
            </header>
        }
    }
}
