//! The owner tree as WAI-ARIA's tree pattern: one `role=tree` list whose lines are
//! `treeitem`s with their level, place among siblings and, for a node with lines
//! below it, `aria-expanded`. One line takes the tab stop (roving tabindex); the
//! arrow keys move it (Up/Down through the lines shown, Right opens a node or goes to
//! its first child, Left closes it or goes to its owner), Home/End to the ends,
//! Enter/Space open or close. Health is a word as well as a colour.

use super::model::{health_word, Line, Model, Row};
use std::collections::HashSet;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Where the tree's watches stand.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum TreeState {
    #[default]
    Loading,
    /// Every kind involved is listed (or cannot be: its level says why).
    Live,
    /// The open object's own kind cannot be watched: the server's words.
    Failed(String),
}

impl TreeState {
    fn word(&self) -> &'static str {
        match self {
            TreeState::Loading => "loading",
            TreeState::Live => "live",
            TreeState::Failed(_) => "failed",
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct TreeViewProps {
    pub model: Rc<Model>,
    #[prop_or_default]
    pub state: TreeState,
    /// Whether the tree is shown (and its kinds watched); closed, the section is its
    /// heading and the button that opens it.
    #[prop_or(true)]
    pub open: bool,
    /// The heading's show/hide button; none: no button.
    #[prop_or_default]
    pub on_toggle: Option<Callback<()>>,
    /// A word under the tree on what it does not show (kinds left unread).
    #[prop_or_default]
    pub note: Option<AttrValue>,
}

/// The indices of the rows shown: those under a closed node are not.
pub fn shown(rows: &[Row], closed: &HashSet<String>) -> Vec<usize> {
    let mut out = Vec::with_capacity(rows.len());
    let mut hide_below: Option<usize> = None;
    for (i, r) in rows.iter().enumerate() {
        if let Some(d) = hide_below {
            if r.depth > d {
                continue;
            }
            hide_below = None;
        }
        out.push(i);
        if r.children > 0 && closed.contains(&r.key) {
            hide_below = Some(r.depth);
        }
    }
    out
}

/// Gives the DOM focus to the line with `key` in `tree` (the tab stop a key moved).
pub fn focus_line(tree: &web_sys::Element, key: &str) {
    let sel = format!(
        "[role=treeitem][data-key=\"{}\"]",
        key.replace('\\', "\\\\").replace('"', "\\\"")
    );
    if let Ok(Some(e)) = tree.query_selector(&sel) {
        if let Ok(e) = e.dyn_into::<web_sys::HtmlElement>() {
            let _ = e.focus();
        }
    }
}

/// A line's text as its parts (kind, name, cells, why it is absent, health): a
/// line's accessible name is this text, as shown. `name` draws the name (a link, in
/// the tree view); `before_name` and `after_cells` add what a drawing shows more.
pub fn line_body(line: &Line, name: Html, before_name: Html, after_cells: Html) -> Html {
    match line {
        Line::Node {
            uid,
            kind,
            name: n,
            namespace,
            ready,
            status,
            health,
            rolled,
            absent,
            ..
        } => {
            let word = health_word(*rolled);
            html! {
                <span class="tree-line" data-uid={uid.clone()} data-kind={kind.clone()} data-name={n.clone()}
                    data-namespace={namespace.clone()} data-health={word} data-own-health={health_word(*health)}
                    data-status={status.clone().unwrap_or_default()}>
                    // Spaces between the parts: the line's name is their text.
                    <span class="tree-kind">{ kind.clone() }</span>{" "}
                    { before_name }
                    { name }{" "}
                    if let Some(x) = ready { <span class="tree-ready" title="Ready">{ x.clone() }</span>{" "} }
                    if let Some(x) = status { <span class="tree-status">{ x.clone() }</span>{" "} }
                    if let Some(x) = absent { <span class="tree-absent">{ x.clone() }</span>{" "} }
                    { after_cells }
                    <span class={classes!("tree-health", word)} title="Health, rolled up from what it owns">{ word }</span>
                </span>
            }
        }
        Line::Missing { kind, why } => html! {
            <span class="tree-line tree-missing-line" data-kind={kind.clone()}>
                <span class="tree-kind">{ kind.clone() }</span>{" "}
                <span class="tree-why">{ format!("cannot be listed: {why}") }</span>
            </span>
        },
    }
}

/// A line's classes: its health, and whether it is the open object, absent or a
/// missing level.
pub fn line_class(line: &Line) -> Classes {
    match line {
        Line::Node {
            rolled,
            absent,
            current,
            ..
        } => classes!(
            "tree-node",
            format!("health-{}", health_word(*rolled)),
            current.then_some("current"),
            absent.is_some().then_some("absent")
        ),
        Line::Missing { .. } => classes!("tree-node", "tree-missing"),
    }
}

/// The owner tree of the open object (see the module documentation).
#[function_component(TreeView)]
pub fn tree_view(p: &TreeViewProps) -> Html {
    let closed = use_state(HashSet::<String>::new);
    let focus = use_state(|| None::<String>);
    // Set by a key press: the DOM focus follows the tab stop after the render.
    let move_focus = use_mut_ref(|| false);
    let tree = use_node_ref();
    let rows = &p.model.rows;
    let visible = shown(rows, &closed);
    // The tab stop: the focused line if shown, else the open object's line.
    let stop = focus
        .as_ref()
        .and_then(|k| visible.iter().copied().find(|&i| rows[i].key == *k))
        .or_else(|| {
            visible
                .iter()
                .copied()
                .find(|&i| matches!(rows[i].line, Line::Node { current: true, .. }))
        })
        .or_else(|| visible.first().copied());
    {
        let tree = tree.clone();
        let move_focus = move_focus.clone();
        let key = stop.map(|i| rows[i].key.clone());
        use_effect_with(key, move |key| {
            if std::mem::take(&mut *move_focus.borrow_mut()) {
                if let (Some(t), Some(key)) = (tree.cast::<web_sys::Element>(), key) {
                    focus_line(&t, key);
                }
            }
        });
    }
    let toggle = {
        let closed = closed.clone();
        move |key: &str| {
            let mut next = (*closed).clone();
            if !next.remove(key) {
                next.insert(key.to_string());
            }
            closed.set(next);
        }
    };
    let onkeydown = {
        let model = p.model.clone();
        let closed = closed.clone();
        let focus = focus.clone();
        let move_focus = move_focus.clone();
        let visible = visible.clone();
        let toggle = toggle.clone();
        Callback::from(move |e: KeyboardEvent| {
            let rows = &model.rows;
            let Some(at) = stop else { return };
            let pos = visible.iter().position(|&i| i == at).unwrap_or(0);
            let row = &rows[at];
            let open = row.children > 0 && !closed.contains(&row.key);
            let go = match e.key().as_str() {
                "ArrowDown" => visible.get(pos + 1).copied(),
                "ArrowUp" => pos.checked_sub(1).and_then(|p| visible.get(p).copied()),
                "Home" => visible.first().copied(),
                "End" => visible.last().copied(),
                "ArrowRight" if row.children > 0 && !open => {
                    toggle(&row.key);
                    None
                }
                "ArrowRight" if open => visible.get(pos + 1).copied(),
                "ArrowLeft" if open => {
                    toggle(&row.key);
                    None
                }
                "ArrowLeft" => (0..at).rev().find(|&i| rows[i].depth + 1 == row.depth),
                "Enter" | " " if row.children > 0 => {
                    toggle(&row.key);
                    None
                }
                "ArrowRight" | "Enter" | " " => None,
                _ => return,
            };
            // The tree's keys are its own: the page's (the table's arrows, Home, End)
            // do not also act on them.
            e.prevent_default();
            e.stop_propagation();
            if let Some(i) = go {
                *move_focus.borrow_mut() = true;
                focus.set(Some(rows[i].key.clone()));
            }
        })
    };
    let items = visible.iter().map(|&i| {
        let r = &rows[i];
        let expandable = r.children > 0;
        let open = expandable && !closed.contains(&r.key);
        let on_twisty = {
            let toggle = toggle.clone();
            let key = r.key.clone();
            Callback::from(move |e: MouseEvent| {
                e.stop_propagation();
                toggle(&key);
            })
        };
        let on_click = {
            let focus = focus.clone();
            let key = r.key.clone();
            Callback::from(move |_: MouseEvent| focus.set(Some(key.clone())))
        };
        let twisty = if expandable {
            html! { <span class="tree-twisty" aria-hidden="true" onclick={on_twisty}>{ if open { "▾" } else { "▸" } }</span> }
        } else {
            html! { <span class="tree-twisty" aria-hidden="true"></span> }
        };
        // A line's accessible name is its text (kind, name, cells, health word), as
        // shown: a label of other words would not match what a speech user reads.
        let common = |class: Classes, body: Html| {
            html! {
                <li key={r.key.clone()} role="treeitem" class={class}
                    data-key={r.key.clone()} data-depth={r.depth.to_string()}
                    aria-level={(r.depth + 1).to_string()} aria-posinset={r.pos.to_string()}
                    aria-setsize={r.of.to_string()}
                    aria-expanded={expandable.then(|| open.to_string())}
                    tabindex={if Some(i) == stop { "0" } else { "-1" }}
                    style={format!("--depth:{}", r.depth)}
                    onclick={on_click.clone()}>
                    { twisty.clone() }{ body }
                </li>
            }
        };
        let name = match &r.line {
            Line::Node { name, .. } => html! { <span class="tree-name">{ name.clone() }</span> },
            Line::Missing { .. } => html! {},
        };
        common(line_class(&r.line), line_body(&r.line, name, html! {}, html! {}))
    });
    let failed = match &p.state {
        TreeState::Failed(why) => Some(why.clone()),
        _ => None,
    };
    let toggle_button = p.on_toggle.as_ref().map(|on| {
        let on = on.reform(|_: MouseEvent| ());
        html! {
            <button class="btn small" id="owner-tree-toggle" aria-expanded={p.open.to_string()}
                aria-controls="owner-tree-body" onclick={on}
                title="The objects it belongs to and those it owns, live (one watch per kind)">
                { if p.open { "Hide" } else { "Show" } }
            </button>
        }
    });
    html! {
        <section class="owner-tree" id="owner-tree" data-state={if p.open { p.state.word() } else { "closed" }}
            data-count={rows.len().to_string()}>
            <h4 class="tree-head" id="owner-tree-title">{"Owners and dependents"}{ for toggle_button }</h4>
            <div id="owner-tree-body">
                if !p.open {
                } else if let Some(why) = failed {
                    <div class="tree-note error" role="alert">{ format!("Cannot show the tree: {why}") }</div>
                } else if rows.is_empty() {
                    <div class="tree-note">{ if p.state == TreeState::Loading { "Loading the tree…" } else { "Not found (deleted?)." } }</div>
                } else {
                    <ul role="tree" class="tree" ref={tree} aria-labelledby="owner-tree-title" {onkeydown}>
                        { for items }
                    </ul>
                }
                if let Some(note) = p.note.clone().filter(|_| p.open) {
                    <div class="tree-note" id="owner-tree-note">{ note }</div>
                }
            </div>
        </section>
    }
}
