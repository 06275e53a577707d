//! The help (`?`): the keys, the filter's syntax, and whether this browser keeps views.

use crate::persist::{Limits, Persist};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct KeyHelpProps {
    pub on_close: Callback<()>,
}

/// The keys and the filter's syntax (`?`).
#[function_component(KeyHelp)]
pub fn key_help(p: &KeyHelpProps) -> Html {
    let keys: [(&str, &str); 14] = [
        ("/", "filter (free text, label and field selectors)"),
        (
            "Tab  Shift+Tab",
            "move between the controls, the table and the details",
        ),
        ("Enter (in the filter)", "ask the server for the selectors"),
        ("Esc", "close this, the details, or clear the filter"),
        ("↑ ↓  j k", "move the selection"),
        ("PgUp PgDn", "move a page"),
        ("Home End", "first and last row"),
        ("Enter", "open the selected object's details and events"),
        ("?", "this help"),
        (
            "Namespace field",
            "type a name and Enter; empty for all namespaces",
        ),
        ("Column header", "sort; again to reverse"),
        (
            "Tree (toolbar)",
            "each row over what it owns (ReplicaSets, Pods, Jobs), live",
        ),
        (
            "→ ←  Enter (tree)",
            "open or close a line; ← goes to its owner",
        ),
        (
            "+N (header's end)",
            "columns hidden for want of room: the details show every column",
        ),
    ];
    let syntax: [(&str, &str); 7] = [
        (
            "web api",
            "rows whose shown cells contain every word (in the browser)",
        ),
        ("app=web,tier!=db", "label selector (sent to the server)"),
        ("env in (a,b)  env notin (c)", "set-based label terms"),
        ("!canary   label:canary", "label absent / present"),
        ("replicas>3", "integer comparison of a label"),
        (
            "field:status.phase=Running",
            "field selector (also != and ==)",
        ),
        (
            "field:spec.nodeName=node-3",
            "fields the resource supports (the server says which)",
        ),
    ];
    let close = p.on_close.reform(|_: MouseEvent| ());
    let row = |(k, v): &(&str, &str)| html! { <><dt><kbd>{ k.to_string() }</kbd></dt><dd>{ v.to_string() }</dd></> };
    html! {
        <div class="help-backdrop" onclick={close.clone()}>
            <div class="help" id="help" role="dialog" aria-modal="true" aria-label="Keys and filter syntax" onclick={|e: MouseEvent| e.stop_propagation()}>
                <div class="help-head">
                    <b>{"Keys"}</b>
                    <button class="btn" id="close-help" onclick={close} title="Close (Esc)" aria-label="Close the help">{"×"}</button>
                </div>
                <dl class="help-keys">{ for keys.iter().map(row) }</dl>
                <b>{"Filter"}</b>
                <dl class="help-keys">{ for syntax.iter().map(row) }</dl>
                <KeepViews />
            </div>
        </div>
    }
}

/// Whether this browser keeps the rows of the views it shows (IndexedDB; table rows
/// only, for a day), so that a reload shows them at once and lists nothing. Off drops
/// every kept view. Absent where IndexedDB cannot be opened.
#[function_component(KeepViews)]
fn keep_views() -> Html {
    // None: not read yet, or no IndexedDB.
    let on = use_state(|| None::<bool>);
    {
        let on = on.clone();
        use_effect_with((), move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                if let Ok(p) = Persist::open(Limits::default()).await {
                    on.set(Some(p.enabled().await.unwrap_or(true)));
                }
            });
        });
    }
    let Some(checked) = *on else {
        return html! {};
    };
    let toggle = {
        let on = on.clone();
        Callback::from(move |_: Event| {
            let (on, want) = (on.clone(), !checked);
            wasm_bindgen_futures::spawn_local(async move {
                if let Ok(p) = Persist::open(Limits::default()).await {
                    if p.set_enabled(want).await.is_ok() {
                        on.set(Some(want));
                    }
                }
            });
        })
    };
    html! {
        <label class="help-keep">
            <input type="checkbox" id="keep-views" {checked} onchange={toggle} />
            { " Keep each view's rows in this browser for an instant reload (table rows, never whole objects; a day at most)" }
        </label>
    }
}
