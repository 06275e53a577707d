//! What the browser tests share: waiting on the event loop and a place to render.
// Each test file uses what it needs of this module.
#![allow(dead_code)]

use web_sys::Element;

/// Waits `ms` milliseconds on the event loop (timers, fetches and renders run).
pub async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(p).await.unwrap();
}

/// A new element at the end of the page's body, to render a component into.
pub fn mount() -> Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let root = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    root
}
