//! The namespace field: type any name (no permission to list namespaces is needed)
//! or pick a suggestion, each marked with what is known of the user's access there.

use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// A namespace the field suggests, and what is known of it.
#[derive(Clone, Debug, PartialEq)]
pub struct NsOption {
    pub name: String,
    /// Shown with the suggestion: `cannot list pods here`.
    pub note: Option<String>,
}

#[derive(Properties, PartialEq)]
pub struct NamespaceFieldProps {
    /// The view's namespace (`""`: all namespaces).
    pub value: AttrValue,
    pub options: Rc<Vec<NsOption>>,
    /// The resource is cluster-scoped.
    #[prop_or_default]
    pub disabled: bool,
    /// Why the suggestions may be incomplete (the namespaces watch failed).
    #[prop_or_default]
    pub note: Option<AttrValue>,
    /// What is known of the current namespace (`cannot list pods here`).
    #[prop_or_default]
    pub mark: Option<AttrValue>,
    /// A namespace name (checked), or `""` for all namespaces.
    pub on_apply: Callback<String>,
}

/// The namespace field: type any name (no permission to list namespaces needed) or
/// pick a suggestion; Enter, or picking, applies it; an empty field means all
/// namespaces.
#[function_component(NamespaceField)]
pub fn namespace_field(p: &NamespaceFieldProps) -> Html {
    let text = use_state(|| p.value.to_string());
    let error = use_state(|| None::<String>);
    {
        // The view moved (a link, a choice in the problem panel): show it.
        let text = text.clone();
        let error = error.clone();
        use_effect_with(p.value.clone(), move |v| {
            text.set(v.to_string());
            error.set(None);
        });
    }
    let apply = {
        let on_apply = p.on_apply.clone();
        let error = error.clone();
        move |raw: &str| {
            let name = raw.trim();
            if name.is_empty() || crate::app::query::is_dns_label(name) {
                error.set(None);
                on_apply.emit(name.to_string());
            } else {
                error.set(Some(format!(
                    "{name:?} is not a namespace name: lowercase letters, digits and '-', at most 63"
                )));
            }
        }
    };
    let oninput = {
        let text = text.clone();
        let options = p.options.clone();
        let apply = apply.clone();
        move |e: InputEvent| {
            let value = e.target_unchecked_into::<HtmlInputElement>().value();
            // Picking a suggestion is not typing: it applies at once.
            let kind = js_sys::Reflect::get(&e, &"inputType".into())
                .ok()
                .and_then(|t| t.as_string())
                .unwrap_or_default();
            let typing = kind.starts_with("insert") && kind != "insertReplacementText"
                || kind.starts_with("delete");
            text.set(value.clone());
            if !typing && options.iter().any(|o| o.name == value) {
                apply(&value);
            }
        }
    };
    let onkeydown = {
        let text = text.clone();
        let value = p.value.clone();
        let error = error.clone();
        move |e: KeyboardEvent| match e.key().as_str() {
            "Enter" => {
                e.prevent_default();
                apply(&e.target_unchecked_into::<HtmlInputElement>().value());
            }
            "Escape" => {
                text.set(value.to_string());
                error.set(None);
                let _ = e.target_unchecked_into::<HtmlInputElement>().blur();
            }
            _ => {}
        }
    };
    html! {
        <label class="picker ns-picker">
            <span>{"Namespace"}</span>
            <input id="namespace" class="ns-field" type="text" list="ns-options" value={(*text).clone()}
                placeholder="All namespaces" disabled={p.disabled} autocomplete="off" spellcheck="false"
                title="Type a namespace and press Enter, or pick one; empty: all namespaces"
                {oninput} {onkeydown} aria-invalid={error.is_some().to_string()} />
            <datalist id="ns-options">
                { for p.options.iter().map(|o| html! {
                    <option value={o.name.clone()} label={o.note.clone().map(|n| format!("{} — {n}", o.name))}
                        data-denied={o.note.is_some().to_string()} />
                }) }
            </datalist>
            if let Some(e) = &*error {
                <span class="field-error" id="ns-error" role="alert">{ e.clone() }</span>
            } else if let Some(m) = &p.mark {
                <span class="field-mark" id="ns-mark">{ m.clone() }</span>
            }
            if let Some(n) = &p.note {
                <span class="field-note" id="ns-note" title={n.clone()}>{ n.clone() }</span>
            }
        </label>
    }
}
