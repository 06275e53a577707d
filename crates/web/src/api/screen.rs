//! A shared view's kept first screen (`persist`): what a page drew of the view's first
//! rows, its sort and filter and columns, kept beside the saved view
//! ([`Persist::save_screen`]) so that a reload draws it from the page itself, before
//! kubelive's worker has started and restored the view. Internal: `web/npm/index.js`
//! calls these for a shared, persisted watcher's views.

use super::{check_options, view_options, ViewOptions};
use crate::persist::{server_identity_within, Limits, Persist, ServerIdentity};
use kubelive_core::ViewKey;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The identity each server (and namespace) was read to have, once a page: a
    /// page that keeps its screen every few seconds asks once.
    /// (A page has one server or two: a list, not a map.)
    static IDENTITIES: RefCell<Vec<(Server, ServerIdentity)>> = RefCell::default();
}

/// A server's base URL and the namespace of the view (whose CA may be its identity).
type Server = (String, Option<String>);

/// How a view is shown, as a kept screen's id has it: the same sort, the same words
/// of filter, the same columns.
fn shown(options: &ViewOptions) -> String {
    let words: Vec<&str> = options
        .filter
        .as_deref()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    format!(
        "{}\n{}\n{}",
        options.sort.as_deref().unwrap_or(""),
        words.join(" "),
        options.wide.unwrap_or(false)
    )
}

/// The server's identity (read once a page, see [`IDENTITIES`]; None when it cannot be
/// read in time).
async fn identity(server: Server) -> Option<ServerIdentity> {
    let known = IDENTITIES.with(|i| {
        i.borrow()
            .iter()
            .find(|(s, _)| *s == server)
            .map(|(_, id)| id.clone())
    });
    if known.is_some() {
        return known;
    }
    let read = server_identity_within(&server.0, server.1.as_deref()).await?;
    IDENTITIES.with(|i| {
        let mut known = i.borrow_mut();
        if !known.iter().any(|(s, _)| *s == server) {
            known.push((server, read.clone()));
        }
    });
    Some(read)
}

/// Where a watcher's view, shown one way, keeps its screen: None when the watcher
/// keeps nothing.
fn place(options: &JsValue, view: &JsValue) -> Result<Option<(Server, ViewKey, String)>, JsValue> {
    let settings = check_options(options)?;
    let shown = shown(&view_options(view, "view")?);
    if !settings.persist {
        return Ok(None);
    }
    let namespace = settings.config.collection.namespace().map(str::to_string);
    Ok(Some((
        (settings.base_url.clone(), namespace),
        ViewKey::of(&settings.config),
        shown,
    )))
}

/// The screen kept of watcher `options`' view shown as `view` (`{ sort, filter, wide
/// }`), as the window it was (plain data), or null: storage that cannot be used (no
/// IndexedDB, no identity readable) has none. The kept screen is read while the
/// server's identity is.
#[wasm_bindgen(js_name = keptScreen, skip_typescript)]
pub async fn kept_screen(options: JsValue, view: JsValue) -> Result<JsValue, JsValue> {
    let Some((server, key, shown)) = place(&options, &view)? else {
        return Ok(JsValue::NULL);
    };
    let read = async {
        let persist = Persist::open(Limits::default()).await.ok()?;
        persist.read_screen(&server.0, &key, &shown).await.ok()
    };
    let (read, identity) = futures::future::join(read, identity(server.clone())).await;
    let window = match (read, identity) {
        (Some(read), Some(identity)) => read.window(&identity, js_sys::Date::now()),
        _ => None,
    };
    Ok(window
        .and_then(|w| js_sys::JSON::parse(&w).ok())
        .unwrap_or(JsValue::NULL))
}

/// Keeps `window` (a window answer, plain data) as the screen of watcher `options`'
/// view shown as `view`. Storage that cannot be used keeps nothing, silently: a
/// reload then waits for the worker's restore.
#[wasm_bindgen(js_name = keepScreen, skip_typescript)]
pub async fn keep_screen(options: JsValue, view: JsValue, window: JsValue) -> Result<(), JsValue> {
    let Some((server, key, shown)) = place(&options, &view)? else {
        return Ok(());
    };
    let Some(text) = js_sys::JSON::stringify(&window)
        .ok()
        .and_then(|t| t.as_string())
    else {
        return Ok(());
    };
    let (opened, identity) =
        futures::future::join(Persist::open(Limits::default()), identity(server.clone())).await;
    if let (Ok(persist), Some(identity)) = (opened, identity) {
        let _ = persist
            .save_screen(&server.0, &identity, &key, &shown, &text)
            .await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_screen_is_told_apart_by_sort_words_and_columns_only() {
        let opts = |sort: Option<&str>, filter: Option<&str>, wide| ViewOptions {
            sort: sort.map(str::to_string),
            filter: filter.map(str::to_string),
            wide,
        };
        assert_eq!(
            shown(&opts(None, None, None)),
            shown(&opts(Some(""), Some("  "), Some(false)))
        );
        assert_eq!(
            shown(&opts(Some("-age"), Some(" web  running"), None)),
            shown(&opts(Some("-age"), Some("web running "), Some(false)))
        );
        assert_ne!(
            shown(&opts(Some("age"), None, None)),
            shown(&opts(Some("-age"), None, None))
        );
        assert_ne!(
            shown(&opts(None, Some("web"), None)),
            shown(&opts(None, Some("web running"), None))
        );
        assert_ne!(
            shown(&opts(None, None, Some(true))),
            shown(&opts(None, None, None))
        );
    }
}
