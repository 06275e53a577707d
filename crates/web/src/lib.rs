//! kubelive-web: kubelive in the browser.
//!
//! * [`driver`]: the wasm driver of the sans-io engine (fetch + `ReadableStream`,
//!   `setTimeout`, `AbortController`);
//! * [`api`]: the JS API for other dashboards (`new Watcher({...})`);
//! * [`app`]: the Yew app (`startApp(element)`), served by `kubectl proxy --www`;
//! * [`bench`]: what the bench page (`web/bench/`) times.
//!
//! All of them live in one wasm module.

pub mod access;
pub mod api;
pub mod app;
pub mod bench;
pub mod driver;
pub mod events;
pub mod fetch;
pub mod query;
pub mod status;
pub mod table;
pub mod time;
pub mod url;

use wasm_bindgen::prelude::*;

/// Mounts the app in `root` (the page's `#app` element when absent).
#[wasm_bindgen(js_name = startApp)]
pub fn start_app(root: Option<web_sys::Element>) {
    let root = root.or_else(|| {
        web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id("app"))
    });
    match root {
        Some(root) => {
            yew::Renderer::<app::App>::with_root(root).render();
        }
        None => {
            yew::Renderer::<app::App>::new().render();
        }
    }
}
