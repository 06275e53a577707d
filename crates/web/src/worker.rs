//! The shared engine's wasm half: what `web/npm/worker.js` (a SharedWorker, or a
//! dedicated Worker where there is none) needs besides `WatcherCore`, which it runs,
//! one per view: the views' keys ([`crate::hub::view_key`]) and their bookkeeping
//! ([`Hub`]) with the worker's clock.

use crate::hub::{Decision, Hub, HubError, Opened};
use wasm_bindgen::prelude::*;

/// The view key of watcher `options` (the same errors as `new Watcher(options)` for
/// options that are wrong).
#[wasm_bindgen(js_name = viewKey, skip_typescript)]
pub fn view_key(options: JsValue) -> Result<String, JsValue> {
    let settings = crate::api::check_options(&options)?;
    Ok(crate::hub::view_key(&settings))
}

/// How often the worker calls `tick()`, in ms.
#[wasm_bindgen(js_name = hubTickMs, skip_typescript)]
pub fn hub_tick_ms() -> f64 {
    1_000.0
}

/// How often a page sends its heartbeat, in ms.
#[wasm_bindgen(js_name = hubHeartbeatMs, skip_typescript)]
pub fn hub_heartbeat_ms() -> f64 {
    crate::hub::HEARTBEAT_MS
}

fn hub_error(e: HubError) -> JsValue {
    js_sys::Error::new(&e.to_string()).into()
}

/// The worker's registry of views and pages. Internal: `worker.js` drives it.
#[wasm_bindgen(skip_typescript)]
pub struct HubCore {
    hub: Hub,
}

impl Default for HubCore {
    fn default() -> Self {
        HubCore { hub: Hub::new() }
    }
}

#[wasm_bindgen]
impl HubCore {
    #[wasm_bindgen(constructor)]
    pub fn new() -> HubCore {
        HubCore::default()
    }

    /// A page connected on port `port`.
    pub fn connect(&mut self, port: u32) {
        self.hub.connect(port, crate::time::now_ms());
    }

    /// A message came from `port`: false if the port was dropped (silent too long).
    pub fn heard(&mut self, port: u32) -> bool {
        self.hub.heard(port, crate::time::now_ms()).is_ok()
    }

    /// Watcher `sub` of `port` opens view `key`: `"start"` (start its engine), `"join"`
    /// (it runs) or `"rejoin"` (it runs, in its grace after its last watcher left).
    pub fn open(&mut self, port: u32, sub: u32, key: &str) -> Result<String, JsValue> {
        let opened = self
            .hub
            .open(port, sub, key, crate::time::now_ms())
            .map_err(hub_error)?;
        Ok(match opened {
            Opened::Start => "start",
            Opened::Join { idle: false } => "join",
            Opened::Join { idle: true } => "rejoin",
        }
        .into())
    }

    /// Watcher `sub` of `port` closes; the key of the view it had, if any.
    pub fn close(&mut self, port: u32, sub: u32) -> Option<String> {
        self.hub.close(port, sub, crate::time::now_ms())
    }

    /// Page `port` said goodbye.
    pub fn disconnect(&mut self, port: u32) {
        self.hub.disconnect(port, crate::time::now_ms());
    }

    /// What to do now: `{ drop: port }` and `{ stop: key }` items.
    pub fn tick(&mut self) -> js_sys::Array {
        self.hub
            .tick(crate::time::now_ms())
            .into_iter()
            .map(|d| {
                let o = js_sys::Object::new();
                let (k, v) = match d {
                    Decision::Drop(port) => ("drop", JsValue::from_f64(f64::from(port))),
                    Decision::Stop(key) => ("stop", JsValue::from_str(&key)),
                };
                let _ = js_sys::Reflect::set(&o, &k.into(), &v);
                JsValue::from(o)
            })
            .collect()
    }

    /// The subscriptions of view `key`: `[port, sub]` pairs.
    pub fn subscribers(&self, key: &str) -> js_sys::Array {
        self.hub
            .subscribers(key)
            .into_iter()
            .map(|(p, s)| {
                JsValue::from(js_sys::Array::of2(
                    &JsValue::from_f64(f64::from(p)),
                    &JsValue::from_f64(f64::from(s)),
                ))
            })
            .collect()
    }

    /// The key of the view watcher `sub` of `port` watches.
    #[wasm_bindgen(js_name = viewOf)]
    pub fn view_of(&self, port: u32, sub: u32) -> Option<String> {
        self.hub.view_of(port, sub).map(str::to_string)
    }
}
