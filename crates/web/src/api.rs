//! The JS API for other dashboards: `new Watcher({...})`, no Yew involved.

use crate::driver::{Driver, DriverRef};
use crate::status::StatusView;
use kubelive_core::{Collection, Config, Event, Mode, Object};
use serde::Deserialize;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** Options of a Watcher. */
export interface WatcherOptions {
  /** A collection path: `/api/v1/pods`, `/apis/apps/v1/deployments`, `/apis/<group>/<version>/<plural>`. */
  path: string;
  /** Watch one namespace (default: all). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Use a streaming list (`sendInitialEvents=true`); falls back to LIST+WATCH by itself. */
  streamingList?: boolean;
  /** Items per LIST page (default 500; 0 lists in one response). */
  pageSize?: number;
  /** Origin of the API (default: the page's own, e.g. through `kubectl proxy`). */
  baseUrl?: string;
}

/** Where a Watcher stands. */
export interface WatcherStatus {
  phase: 'listing' | 'initialEvents' | 'watching' | 'backingOff' | 'stopped';
  page: number | null;
  retryInMs: number | null;
  backoffReason: string | null;
  mode: 'listWatch' | 'streamingList';
  connected: boolean;
  synced: boolean;
  resourceVersion: string | null;
  objects: number;
  listed: number;
  pagesListed: number;
  remainingEstimate: number | null;
  added: number;
  modified: number;
  deleted: number;
  bookmarks: number;
  lastBookmarkAgoMs: number | null;
  /** Since the current request last received anything; null while connecting. */
  lastByteAgoMs: number | null;
  resumes: number;
  relists: number;
  lastRelistReason: string | null;
  errors: number;
  lastError: string | null;
  failed: string | null;
  fellBack: string | null;
}

/** One change of the collection; `object` is the object's JSON (DELETED: its last state). */
export interface WatcherChange {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: any;
}
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "WatcherOptions")]
    pub type WatcherOptions;
    #[wasm_bindgen(typescript_type = "WatcherStatus")]
    pub type WatcherStatus;
    #[wasm_bindgen(typescript_type = "any[]")]
    pub type ObjectArray;
    #[wasm_bindgen(typescript_type = "(change: WatcherChange) => void")]
    pub type ChangeCallback;
    #[wasm_bindgen(typescript_type = "(status: WatcherStatus) => void")]
    pub type StatusCallback;
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Options {
    path: String,
    namespace: Option<String>,
    label_selector: Option<String>,
    field_selector: Option<String>,
    streaming_list: Option<bool>,
    page_size: Option<u32>,
    base_url: Option<String>,
}

#[derive(Default)]
struct Callbacks {
    change: Vec<js_sys::Function>,
    status: Vec<js_sys::Function>,
}

/// Keeps a live copy of one Kubernetes collection.
#[wasm_bindgen]
pub struct Watcher {
    config: Config,
    base_url: String,
    driver: Option<Driver>,
    callbacks: Rc<RefCell<Callbacks>>,
}

fn js_error(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

/// The object's JSON as a JS value (parsed from the stored bytes).
fn object_js(o: &Object) -> JsValue {
    js_sys::JSON::parse(&o.json_str()).unwrap_or(JsValue::NULL)
}

fn status_js(s: &StatusView) -> JsValue {
    let ser = serde_wasm_bindgen::Serializer::json_compatible();
    serde::Serialize::serialize(s, &ser).unwrap_or(JsValue::NULL)
}

fn call(f: &js_sys::Function, arg: &JsValue) {
    if let Err(e) = f.call1(&JsValue::NULL, arg) {
        web_sys_console_error(&e);
    }
}

fn web_sys_console_error(e: &JsValue) {
    // A throwing callback must not stop the watcher.
    let console = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("console"));
    if let Ok(console) = console {
        if let Ok(error) = js_sys::Reflect::get(&console, &JsValue::from_str("error")) {
            if let Some(error) = error.dyn_ref::<js_sys::Function>() {
                let _ = error.call2(
                    &console,
                    &JsValue::from_str("kubelive watcher callback threw:"),
                    e,
                );
            }
        }
    }
}

#[wasm_bindgen]
impl Watcher {
    #[wasm_bindgen(constructor)]
    pub fn new(options: WatcherOptions) -> Result<Watcher, JsError> {
        let o: Options = serde_wasm_bindgen::from_value(options.into()).map_err(js_error)?;
        let collection = Collection::parse(&o.path).map_err(js_error)?;
        let collection = match o.namespace.as_deref().filter(|n| !n.is_empty()) {
            Some(ns) => collection.with_namespace(Some(ns)),
            None => collection,
        };
        let mut config = Config::new(collection);
        config.label_selector = o.label_selector.filter(|s| !s.is_empty());
        config.field_selector = o.field_selector.filter(|s| !s.is_empty());
        if o.streaming_list.unwrap_or(false) {
            config.mode = Mode::StreamingList;
        }
        if let Some(n) = o.page_size {
            config.page_size = n;
        }
        Ok(Watcher {
            config,
            base_url: o.base_url.unwrap_or_default(),
            driver: None,
            callbacks: Rc::default(),
        })
    }

    /// Starts (or restarts, from an empty cache) listing and watching.
    pub fn start(&mut self) {
        self.driver = None;
        let callbacks = self.callbacks.clone();
        let sink = Box::new(move |d: &DriverRef<'_>, events: Vec<Event>| {
            let cbs = callbacks.borrow();
            let mut status_changed = false;
            for event in &events {
                let (kind, object) = match event {
                    Event::Added(o) => ("ADDED", o),
                    Event::Modified { new, .. } => ("MODIFIED", new),
                    Event::Deleted(o) => ("DELETED", o),
                    _ => {
                        status_changed = true;
                        continue;
                    }
                };
                if cbs.change.is_empty() {
                    continue;
                }
                let change = js_sys::Object::new();
                let _ = js_sys::Reflect::set(&change, &"type".into(), &kind.into());
                let _ = js_sys::Reflect::set(&change, &"object".into(), &object_js(object));
                for f in &cbs.change {
                    call(f, &change);
                }
            }
            if status_changed && !cbs.status.is_empty() {
                let status = status_js(&d.status());
                for f in &cbs.status {
                    call(f, &status);
                }
            }
        });
        self.driver = Some(Driver::start(self.config.clone(), &self.base_url, sink));
    }

    /// Stops watching and aborts what is in flight; the last state stays readable.
    pub fn stop(&mut self) {
        if let Some(d) = &self.driver {
            d.stop();
            let status = status_js(&d.status());
            for f in &self.callbacks.borrow().status {
                call(f, &status);
            }
        }
    }

    /// Every object held, sorted by namespace and name.
    pub fn snapshot(&self) -> ObjectArray {
        let out = js_sys::Array::new();
        if let Some(d) = &self.driver {
            d.with_store(|store| {
                for o in store.sorted() {
                    out.push(&object_js(o));
                }
            });
        }
        out.unchecked_into()
    }

    /// One object (`""` namespace for cluster-scoped ones), or `undefined`.
    pub fn get(&self, namespace: &str, name: &str) -> JsValue {
        self.driver
            .as_ref()
            .and_then(|d| d.with_store(|s| s.get(namespace, name).map(|o| object_js(o))))
            .unwrap_or(JsValue::UNDEFINED)
    }

    /// Objects held.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.driver
            .as_ref()
            .map(|d| d.with_store(|s| s.len()))
            .unwrap_or(0)
    }

    pub fn status(&self) -> WatcherStatus {
        let view = match &self.driver {
            Some(d) => d.status(),
            None => StatusView {
                phase: "stopped",
                ..StatusView::default()
            },
        };
        status_js(&view).unchecked_into()
    }

    /// Calls `f` with every change, `{type, object}`.
    #[wasm_bindgen(js_name = onChange)]
    pub fn on_change(&self, f: ChangeCallback) {
        self.callbacks.borrow_mut().change.push(f.unchecked_into());
    }

    /// Calls `f` with the status whenever the phase or sync state moves.
    #[wasm_bindgen(js_name = onStatus)]
    pub fn on_status(&self, f: StatusCallback) {
        self.callbacks.borrow_mut().status.push(f.unchecked_into());
    }
}
