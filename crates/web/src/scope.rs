//! The global scope's timers, clock and `fetch`, on a page (`Window`) or in a worker
//! (`WorkerGlobalScope`) alike: the driver runs in both (the JS API's shared engine
//! runs in a worker), and `web_sys::window()` is `None` in a worker.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `globalThis`: a `Window` or a `WorkerGlobalScope`, which both have these.
    pub type Global;

    #[wasm_bindgen(method, js_name = fetch)]
    pub fn fetch_with_str_and_init(
        this: &Global,
        input: &str,
        init: &web_sys::RequestInit,
    ) -> js_sys::Promise;

    #[wasm_bindgen(method, catch, js_name = setTimeout)]
    pub fn set_timeout_with_callback_and_timeout_and_arguments_0(
        this: &Global,
        handler: &js_sys::Function,
        timeout: i32,
    ) -> Result<i32, JsValue>;

    #[wasm_bindgen(method, js_name = clearTimeout)]
    pub fn clear_timeout_with_handle(this: &Global, handle: i32);

    #[wasm_bindgen(method, getter, js_name = performance)]
    fn performance_member(this: &Global) -> JsValue;
}

impl Global {
    /// `performance`, where the scope has one.
    pub fn performance(&self) -> Option<web_sys::Performance> {
        let p = self.performance_member();
        (!p.is_undefined() && !p.is_null()).then(|| p.unchecked_into())
    }
}

/// The global scope, if this is a browser's (a page or a worker); `None` elsewhere
/// (native tests, where nothing is fetched).
pub fn global() -> Option<Global> {
    if cfg!(not(target_arch = "wasm32")) {
        return None;
    }
    Some(js_sys::global().unchecked_into())
}

/// Resolves after `ms` (at once where the scope has no timers).
pub async fn sleep(ms: i32) {
    let timer = js_sys::Promise::new(&mut |resolve, _| match global() {
        Some(g) => {
            let _ = g.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
        None => {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(timer).await;
}
