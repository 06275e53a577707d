//! kubelive-web: kubelive in the browser.
//!
//! * [`driver`]: the wasm driver of the sans-io engine (fetch + `ReadableStream`,
//!   `setTimeout`, `AbortController`);
//! * [`persist`]: saved views in IndexedDB, so a reload shows a view at once;
//! * [`scope`]: the global scope's fetch, timers and clock, on a page or in a worker;
//! * [`hub`], [`worker`]: the JS API's shared engine (one engine per view for every
//!   tab of the origin, in kubelive's worker): its bookkeeping and its wasm exports;
//! * [`api`]: the JS API's wasm half (the npm package's `Watcher` wraps it);
//! * [`table`]: the table model (columns, sorted and filtered index, row states) the
//!   app and the JS API's views (`<kubelive-table>`) both show;
//! * [`app`]: the Yew app (`startApp(element)`), served by `kubectl proxy --www`;
//! * [`bench`]: what the bench page (`web/bench/`) times.
//!
//! Features choose the wasm module: `app` (the app and the bench page's exports:
//! `dist/`) or `watcher` (the JS API alone, no Yew: the npm package's smaller module,
//! `dist/npm/`). Both are on by default, for tests and lints.

#[cfg(feature = "watcher")]
pub mod api;
pub mod driver;
#[cfg(feature = "watcher")]
pub mod hub;
pub mod persist;
pub mod scope;
pub mod status;
pub mod time;
#[cfg(feature = "watcher")]
pub mod worker;

#[cfg(feature = "app")]
pub mod app;
#[cfg(feature = "app")]
pub mod bench;

#[cfg(feature = "app")]
use wasm_bindgen::prelude::*;

/// Mounts the app in `root` (the page's `#app` element when absent).
#[cfg(feature = "app")]
#[wasm_bindgen(js_name = startApp)]
pub fn start_app(root: Option<web_sys::Element>) {
    // Its requests go out before the app's first render (Yew renders in a microtask).
    app::first_screen::read_ahead(&app::url::ViewState::from_hash(
        &web_sys::window()
            .and_then(|w| w.location().hash().ok())
            .unwrap_or_default(),
    ));
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
