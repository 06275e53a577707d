//! The wasm half of the JS API: `WatcherCore`, one engine and its driver, for the npm
//! package's `Watcher` (`web/npm/index.js`) to wrap. The wrapper owns what is JS's to
//! own (it is the `EventTarget`, keeps started watchers alive, throttles status
//! events, refuses calls after `free()`); this half checks the options
//! ([`options`]), runs the engine, keeps the snapshot and the objects' JS values
//! cached, and says what happened through the hooks it was given:
//!
//! * `change(type, object)`: one change, only once `wantChanges()` was called (no
//!   object is parsed for nobody);
//! * `update(version)`: a batch of changes landed (the snapshot moved);
//! * `synced(objects, resourceVersion)`, `reset(reason)`, `error(error)`: the
//!   [`report::Signal`]s;
//! * `status(urgent)`: the status changed; urgent when the state did (phase, sync,
//!   connection, error), not just counters.
//!
//! No borrow is held while a hook runs: a hook may call back (`snapshot()`, `stop()`).

pub mod options;
pub mod report;

use crate::driver::{Driver, DriverRef};
use crate::status::StatusView;
use kubelive_core::{Event, Object, Restart};
use options::{ErrorKind, Settings, Value};
use report::{Report, Signal, Tracker, Urgency};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The functions the wrapper gives, each optional.
#[derive(Default)]
struct Hooks {
    change: Option<js_sys::Function>,
    update: Option<js_sys::Function>,
    status: Option<js_sys::Function>,
    synced: Option<js_sys::Function>,
    reset: Option<js_sys::Function>,
    error: Option<js_sys::Function>,
}

impl Hooks {
    fn read(hooks: &JsValue) -> Hooks {
        let get = |name: &str| {
            js_sys::Reflect::get(hooks, &JsValue::from_str(name))
                .ok()
                .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        };
        Hooks {
            change: get("change"),
            update: get("update"),
            status: get("status"),
            synced: get("synced"),
            reset: get("reset"),
            error: get("error"),
        }
    }
}

fn call(f: &Option<js_sys::Function>, args: &[JsValue]) {
    let Some(f) = f else { return };
    let result = match args {
        [] => f.call0(&JsValue::UNDEFINED),
        [a] => f.call1(&JsValue::UNDEFINED, a),
        [a, b, ..] => f.call2(&JsValue::UNDEFINED, a, b),
    };
    if let Err(e) = result {
        // A hook that throws must not stop the watcher (EventTarget listeners never
        // do: the wrapper's dispatch reports their errors itself).
        web_sys::console::error_2(&JsValue::from_str("kubelive: a Watcher hook threw"), &e);
    }
}

/// JS values of objects, each parsed at most once per version of the object (keyed
/// by the stored `Arc`'s address, which the cache keeps alive, so it cannot be
/// reused), and the last snapshot with the version it was taken at.
#[derive(Default)]
struct Cache {
    objects: HashMap<usize, (Arc<Object>, JsValue)>,
    snapshot: Option<(u64, js_sys::Array)>,
}

fn key(o: &Arc<Object>) -> usize {
    Arc::as_ptr(o) as usize
}

/// The object's JSON as a JS value (parsed from the stored bytes).
fn parse(o: &Object) -> JsValue {
    js_sys::JSON::parse(&o.json_str()).unwrap_or(JsValue::NULL)
}

impl Cache {
    fn value(&mut self, o: &Arc<Object>) -> JsValue {
        self.objects
            .entry(key(o))
            .or_insert_with(|| (o.clone(), parse(o)))
            .1
            .clone()
    }

    /// The object's JS value when someone wants it.
    fn value_if(&mut self, wanted: bool, o: &Arc<Object>) -> Option<JsValue> {
        wanted.then(|| self.value(o))
    }

    fn forget(&mut self, o: &Arc<Object>) -> Option<JsValue> {
        self.objects.remove(&key(o)).map(|(_, v)| v)
    }

    /// Drops values of objects no longer held anywhere but here (a watch's DELETED
    /// carries the server's last state, not the stored object, whose entry stays
    /// until now), once they could outnumber the live ones.
    fn prune(&mut self, held: usize) {
        if self.objects.len() > 2 * held + 64 {
            self.objects.retain(|_, (o, _)| Arc::strong_count(o) > 1);
        }
    }
}

/// What the watcher and its engine's sink share.
struct Shared {
    settings: Settings,
    hooks: Hooks,
    wants_changes: Cell<bool>,
    /// Counts batches of changes: the snapshot's version.
    version: Cell<u64>,
    cache: RefCell<Cache>,
    tracker: RefCell<Tracker>,
    /// The status last told, for telling only changes.
    told: RefCell<Option<Report>>,
    /// Inside `Driver::start`: the driver is not the watcher's yet, so its status
    /// cannot be read back; told once it is.
    starting: Cell<bool>,
}

impl Shared {
    fn report(&self, view: &StatusView) -> Report {
        Report::new(view, &self.tracker.borrow())
    }

    /// Tells the status if it changed.
    fn tell_status(&self, view: &StatusView) {
        if self.starting.get() {
            return;
        }
        let now = self.report(view);
        let urgency = report::urgency(self.told.borrow().as_ref(), &now);
        if urgency == Urgency::Same {
            return;
        }
        *self.told.borrow_mut() = Some(now);
        call(
            &self.hooks.status,
            &[JsValue::from_bool(urgency == Urgency::Now)],
        );
    }

    /// One batch of engine events (possibly none: the status may have moved).
    fn batch(&self, d: &DriverRef<'_>, events: Vec<Event>) {
        let view = d.status();
        let held = view.objects;
        let changed = events.iter().any(|e| {
            matches!(
                e,
                Event::Added(_) | Event::Modified { .. } | Event::Deleted(_)
            )
        });
        if changed {
            // Before any hook runs, so a snapshot taken in one sees the whole batch
            // (the store already holds it).
            self.version.set(self.version.get() + 1);
        }
        let wants = self.wants_changes.get();
        let mut give_up = false;
        for event in &events {
            let change = match event {
                Event::Added(o) => Some(("ADDED", self.cache.borrow_mut().value_if(wants, o))),
                Event::Modified { old, new } => {
                    let mut cache = self.cache.borrow_mut();
                    cache.forget(old);
                    Some(("MODIFIED", cache.value_if(wants, new)))
                }
                Event::Deleted(o) => {
                    let cached = self.cache.borrow_mut().forget(o);
                    Some(("DELETED", cached.or_else(|| wants.then(|| parse(o)))))
                }
                _ => None,
            };
            if let Some((kind, object)) = change {
                if let Some(object) = object {
                    call(&self.hooks.change, &[JsValue::from_str(kind), object]);
                }
                continue;
            }
            let signal = self.tracker.borrow_mut().note(event, &view, held);
            match signal {
                Some(Signal::Synced {
                    objects,
                    resource_version,
                }) => call(
                    &self.hooks.synced,
                    &[
                        JsValue::from_f64(objects as f64),
                        JsValue::from_str(&resource_version),
                    ],
                ),
                Some(Signal::Reset { reason }) => {
                    call(&self.hooks.reset, &[JsValue::from_str(&reason)])
                }
                Some(Signal::Error(error)) => {
                    give_up |= !error.retryable && !self.settings.retry_on_failure;
                    call(&self.hooks.error, &[to_js(&error)]);
                }
                None => {}
            }
        }
        if changed {
            self.cache.borrow_mut().prune(held);
            call(
                &self.hooks.update,
                &[JsValue::from_f64(self.version.get() as f64)],
            );
        }
        if give_up {
            // Retrying cannot help and was not asked for: stop, and say `failed`.
            d.stop();
            self.tracker.borrow_mut().failed = true;
        }
        self.tell_status(&d.status());
    }
}

fn to_js<T: serde::Serialize>(value: &T) -> JsValue {
    let ser = serde_wasm_bindgen::Serializer::json_compatible();
    value.serialize(&ser).unwrap_or(JsValue::NULL)
}

/// An option value as option checking sees it.
fn option_value(v: &JsValue) -> Value {
    if v.is_undefined() || v.is_null() {
        return Value::Absent;
    }
    if let Some(b) = v.as_bool() {
        return Value::Bool(b);
    }
    if let Some(n) = v.as_f64() {
        return Value::Number(n);
    }
    if let Some(s) = v.as_string() {
        return Value::String(s);
    }
    if js_sys::Array::is_array(v) {
        return Value::Other("array");
    }
    Value::Other(match v.js_typeof().as_string().as_deref() {
        Some("function") => "function",
        Some("symbol") => "symbol",
        Some("bigint") => "bigint",
        _ => "object",
    })
}

fn check_options(options: &JsValue) -> Result<Settings, JsValue> {
    if !options.is_object() || js_sys::Array::is_array(options) {
        let got = match option_value(options) {
            Value::Absent if options.is_null() => "null",
            v => v.type_name(),
        };
        return Err(js_sys::TypeError::new(&format!(
            "Watcher options must be an object such as {{ path: '/api/v1/pods' }}, got {got}"
        ))
        .into());
    }
    let object: &js_sys::Object = options.unchecked_ref();
    let entries = js_sys::Object::keys(object)
        .iter()
        .filter_map(|k| k.as_string())
        .map(|k| {
            let v = js_sys::Reflect::get(options, &JsValue::from_str(&k)).unwrap_or_default();
            (k, option_value(&v))
        })
        .collect();
    options::parse(entries).map_err(|e| match e.kind {
        ErrorKind::Type => js_sys::TypeError::new(&e.message).into(),
        ErrorKind::Range => js_sys::RangeError::new(&e.message).into(),
    })
}

/// One watched collection. Internal: use the package's `Watcher`.
#[wasm_bindgen(skip_typescript)]
pub struct WatcherCore {
    shared: Rc<Shared>,
    driver: RefCell<Option<Driver>>,
}

#[wasm_bindgen]
impl WatcherCore {
    /// Checks `options` (a `TypeError` or `RangeError` naming the option if they are
    /// wrong); `hooks` are the wrapper's functions. Nothing is requested yet.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue, hooks: JsValue) -> Result<WatcherCore, JsValue> {
        let settings = check_options(&options)?;
        Ok(WatcherCore {
            shared: Rc::new(Shared {
                settings,
                hooks: Hooks::read(&hooks),
                wants_changes: Cell::new(false),
                version: Cell::new(0),
                cache: RefCell::default(),
                tracker: RefCell::default(),
                told: RefCell::default(),
                starting: Cell::new(false),
            }),
            driver: RefCell::new(None),
        })
    }

    /// Starts; after `stop()` (or a failure) resumes from the last version when the
    /// store holds the state at one, otherwise relists and tells a `reset` when
    /// objects are held (the relist's deletes follow). Running: nothing.
    pub fn start(&self) {
        let restarted = match self.driver.borrow().as_ref() {
            Some(d) if d.is_stopped() => {
                self.shared.tracker.borrow_mut().restarted();
                Some((d.restart(), d.with_store(|s| s.len())))
            }
            Some(_) => return,
            None => None,
        };
        match restarted {
            Some((Restart::Relist, held)) if held > 0 => call(
                &self.shared.hooks.reset,
                &[JsValue::from_str(
                    "restarted before a sync completed: listing again (what vanished meanwhile \
                     comes as deletes)",
                )],
            ),
            Some(_) => {}
            None => {
                let shared = self.shared.clone();
                let sink =
                    Box::new(move |d: &DriverRef<'_>, events: Vec<Event>| shared.batch(d, events));
                let s = &self.shared.settings;
                self.shared.starting.set(true);
                let driver = Driver::start(s.config.clone(), &s.base_url, sink);
                self.shared.starting.set(false);
                *self.driver.borrow_mut() = Some(driver);
            }
        }
        self.tell_status();
    }

    /// Stops and aborts what is in flight; the last state stays readable, and `start()`
    /// resumes from it.
    pub fn stop(&self) {
        if let Some(d) = self.driver.borrow().as_ref() {
            d.stop();
        }
        // Stopped by the page, not by the failure (which stays in `error`).
        self.shared.tracker.borrow_mut().failed = false;
        self.tell_status();
    }

    /// Started and not stopped (by `stop()` or a failure).
    #[wasm_bindgen(getter)]
    pub fn running(&self) -> bool {
        self.driver
            .borrow()
            .as_ref()
            .is_some_and(|d| !d.is_stopped())
    }

    /// Delivers `change` from now on.
    #[wasm_bindgen(js_name = wantChanges)]
    pub fn want_changes(&self) {
        self.shared.wants_changes.set(true);
    }

    /// Every object held, sorted by namespace and name: the same (frozen) array until
    /// something changes, and the same object for each object that did not.
    pub fn snapshot(&self) -> js_sys::Array {
        let version = self.shared.version.get();
        let mut cache = self.shared.cache.borrow_mut();
        if let Some((at, array)) = &cache.snapshot {
            if *at == version {
                return array.clone();
            }
        }
        let array = js_sys::Array::new();
        if let Some(d) = self.driver.borrow().as_ref() {
            d.with_store(|store| {
                let sorted = store.sorted();
                let mut objects = HashMap::with_capacity(sorted.len());
                for o in sorted {
                    let entry = cache
                        .objects
                        .remove(&key(o))
                        .unwrap_or_else(|| (o.clone(), parse(o)));
                    array.push(&entry.1);
                    objects.insert(key(o), entry);
                }
                cache.objects = objects;
            });
        }
        js_sys::Object::freeze(&array);
        cache.snapshot = Some((version, array.clone()));
        array
    }

    /// One object (`""` namespace for cluster-scoped ones), or `undefined`.
    pub fn get(&self, namespace: &str, name: &str) -> JsValue {
        let driver = self.driver.borrow();
        let Some(d) = driver.as_ref() else {
            return JsValue::UNDEFINED;
        };
        d.with_store(|s| {
            s.get(namespace, name)
                .map(|o| self.shared.cache.borrow_mut().value(o))
        })
        .unwrap_or(JsValue::UNDEFINED)
    }

    /// Objects held.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.driver
            .borrow()
            .as_ref()
            .map(|d| d.with_store(|s| s.len()))
            .unwrap_or(0)
    }

    /// Moves with every batch of changes: the snapshot changed when it did.
    #[wasm_bindgen(getter)]
    pub fn version(&self) -> f64 {
        self.shared.version.get() as f64
    }

    pub fn status(&self) -> JsValue {
        to_js(&self.shared.report(&self.view()))
    }
}

impl WatcherCore {
    fn view(&self) -> StatusView {
        match self.driver.borrow().as_ref() {
            Some(d) => d.status(),
            None => StatusView {
                phase: "stopped",
                mode: match self.shared.settings.config.mode {
                    kubelive_core::Mode::ListWatch => "listWatch",
                    kubelive_core::Mode::StreamingList => "streamingList",
                },
                ..StatusView::default()
            },
        }
    }

    fn tell_status(&self) {
        let view = self.view();
        self.shared.tell_status(&view);
    }
}
