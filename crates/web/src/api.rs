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
//!   connection, error), not just counters;
//! * table mode: `columns(definitions)` when the columns change, `tablesUnavailable(why)`
//!   when the server prints none (rows are then made from objects by the fallback
//!   printer, `ColumnKind::columns`: kubectl's columns for pods and deployments, Name
//!   and Age for the rest).
//!
//! No borrow is held while a hook runs: a hook may call back (`snapshot()`, `stop()`).

mod history;
pub mod options;
pub mod order;
pub mod report;
mod screen;
pub mod view;

use crate::driver::{Driver, DriverRef};
use crate::persist::{keep_saving, kept_later, server_identity_within, Limits, Persist};
use crate::status::StatusView;
use kubelive_core::{
    ColumnKind, ColumnType, Event, IncludeObject, Object, Restart, RestoreError, Store,
    TableColumn, ViewKey,
};
use options::{ErrorKind, Format, Settings, Value};
use order::{Op, Order, Plan};
use report::{Report, Signal, Tracker, Urgency};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use view::{View, ViewOptions};
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
    columns: Option<js_sys::Function>,
    tables_unavailable: Option<js_sys::Function>,
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
            columns: get("columns"),
            tables_unavailable: get("tablesUnavailable"),
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

/// JS values of objects, each parsed at most once per version of the object: those of
/// the last snapshot live in its array; the others (from change events and `get()`,
/// keyed by the stored `Arc`'s address, which the entry keeps alive so it cannot be
/// reused) wait here for the next snapshot.
#[derive(Default)]
struct Cache {
    /// What each value is: the object, or a table row.
    format: Format,
    fresh: HashMap<usize, (Arc<Object>, JsValue)>,
    order: Order,
    /// The last snapshot and the version it was taken at.
    snapshot: Option<(u64, js_sys::Array)>,
}

fn key(o: &Arc<Object>) -> usize {
    Arc::as_ptr(o) as usize
}

/// The object's JSON as a JS value (parsed from the stored bytes).
fn parse_object(o: &Object) -> JsValue {
    js_sys::JSON::parse(&o.json_str()).unwrap_or(JsValue::NULL)
}

/// The value the page sees: the object, or in table mode its row
/// (`{ cells, metadata }`, and `object` when rows include it).
fn parse(o: &Object, format: Format) -> JsValue {
    let Format::Table(include) = format else {
        return parse_object(o);
    };
    let object = parse_object(o);
    let metadata = js_sys::Reflect::get(&object, &"metadata".into()).unwrap_or(JsValue::NULL);
    let cells = match o.cells_json() {
        Some(cells) => js_sys::JSON::parse(&cells).unwrap_or_else(|_| js_sys::Array::new().into()),
        // Not a row: the server does not print tables (`tablesUnavailable`); the
        // fallback printer's cells, under its columns.
        None => fallback_cells_js(o).into(),
    };
    js_sys::Object::freeze(cells.unchecked_ref::<js_sys::Object>());
    let row = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&row, &k.into(), v);
    let _ = set("cells", &cells);
    let _ = set("metadata", &metadata);
    if include == IncludeObject::Object {
        let _ = set("object", &object);
    }
    row.into()
}

/// An object's cells as the fallback printer prints them ([`Object::fallback_cells`]),
/// as a server prints a row: Age as the age now (a server's Age cell is as old as
/// the row).
fn fallback_cells_js(o: &Object) -> js_sys::Array {
    let Some(cells) = o.fallback_cells() else {
        return js_sys::Array::of1(&JsValue::from_str(o.name()));
    };
    let age = cells.kind().age_index();
    cells
        .enumerate()
        .map(|(i, cell)| match cell {
            _ if i == age => JsValue::from_str(&match o
                .creation_timestamp()
                .and_then(crate::time::parse_rfc3339)
            {
                Some(t) => crate::time::human_duration(crate::time::unix_now() - t),
                None => "<unknown>".into(),
            }),
            kubelive_core::Cell::Null => JsValue::NULL,
            kubelive_core::Cell::Bool(b) => JsValue::from_bool(b),
            kubelive_core::Cell::Int(i) => JsValue::from_f64(i as f64),
            kubelive_core::Cell::Number(n) => JsValue::from_f64(n),
            kubelive_core::Cell::Str(s) => JsValue::from_str(&s),
            kubelive_core::Cell::Json(j) => js_sys::JSON::parse(j).unwrap_or(JsValue::NULL),
        })
        .collect()
}

/// A column definition as the server sent it (`columnDefinitions[]`).
fn column_js(c: &TableColumn) -> JsValue {
    let column_type = match &c.column_type {
        ColumnType::String => "string",
        ColumnType::Integer => "integer",
        ColumnType::Number => "number",
        ColumnType::Boolean => "boolean",
        ColumnType::Date => "date",
        ColumnType::Other(name) => name,
    };
    let o = js_sys::Object::new();
    let set = |k: &str, v: JsValue| js_sys::Reflect::set(&o, &k.into(), &v);
    let _ = set("name", JsValue::from_str(&c.name));
    let _ = set("type", JsValue::from_str(column_type));
    let _ = set("format", JsValue::from_str(&c.format));
    let _ = set("description", JsValue::from_str(&c.description));
    let _ = set("priority", JsValue::from_f64(f64::from(c.priority)));
    js_sys::Object::freeze(&o);
    o.into()
}

fn columns_js(columns: &[TableColumn]) -> js_sys::Array {
    let array: js_sys::Array = columns.iter().map(column_js).collect();
    js_sys::Object::freeze(&array);
    array
}

impl Cache {
    /// The object's JS value: the last snapshot's if it holds this very object, else
    /// parsed once and kept for the next snapshot.
    fn value(&mut self, o: &Arc<Object>) -> JsValue {
        if let Some(v) = self.in_snapshot(o) {
            return v;
        }
        self.fresh
            .entry(key(o))
            .or_insert_with(|| (o.clone(), parse(o, self.format)))
            .1
            .clone()
    }

    /// The last snapshot's value of this very object, if it holds it.
    fn in_snapshot(&self, o: &Arc<Object>) -> Option<JsValue> {
        let (i, held) = self.order.position(o.namespace(), o.name())?;
        let (_, array) = self.snapshot.as_ref()?;
        Arc::ptr_eq(held, o).then(|| array.get(i as u32))
    }

    /// The value for the next snapshot's array (no longer kept here).
    fn take(&mut self, o: &Arc<Object>) -> JsValue {
        match self.fresh.remove(&key(o)) {
            Some((_, v)) => v,
            None => parse(o, self.format),
        }
    }

    /// Drops values of objects held nowhere else any more (older versions, deleted
    /// objects), once they could outnumber the live ones.
    fn prune(&mut self, held: usize) {
        if self.fresh.len() > held / 4 + 64 {
            self.fresh.retain(|_, (o, _)| Arc::strong_count(o) > 1);
        }
    }

    /// The snapshot at `version`: the last one if nothing changed, else the last one
    /// patched where objects changed (or rebuilt, after many changes).
    fn snapshot(&mut self, version: u64, store: Option<&Store>) -> js_sys::Array {
        if let Some((at, array)) = &self.snapshot {
            if *at == version {
                return array.clone();
            }
        }
        let last = self.snapshot.take().map(|(_, a)| a);
        if last.is_none() {
            self.order.forget();
        }
        let plan = match store {
            Some(store) => self.order.plan(
                |ns, name| store.get(ns, name).cloned(),
                || store.sorted().into_iter().cloned().collect(),
            ),
            None => Plan::Whole(Vec::new()),
        };
        let array = match plan {
            Plan::Patch(ops) => {
                // (There is a last snapshot: without one the plan is whole.)
                let array = last.map(|l| l.slice_from(0)).unwrap_or_default();
                for op in ops {
                    match op {
                        Op::Set(i, o) => array.set(i as u32, self.take(&o)),
                        Op::Insert(i, o) => {
                            array.splice(i as u32, 0, &self.take(&o));
                        }
                        Op::Remove(i) => {
                            array.splice_many(i as u32, 1, &[]);
                        }
                    }
                }
                array
            }
            Plan::Whole(list) => {
                let array = js_sys::Array::new_with_length(list.len() as u32);
                for (i, (o, at)) in list.iter().enumerate() {
                    let value = match (at, &last) {
                        (Some(at), Some(last)) => last.get(*at as u32),
                        _ => self.take(o),
                    };
                    array.set(i as u32, value);
                }
                array
            }
        };
        js_sys::Object::freeze(&array);
        self.snapshot = Some((version, array.clone()));
        array
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
    /// Table mode: the columns of the rows held, and their (frozen) JS array.
    columns: RefCell<Option<(Arc<[TableColumn]>, js_sys::Array)>>,
    /// Table mode: why the server prints no tables, once it said so.
    tables_unavailable: RefCell<Option<String>>,
    /// The rows held are a saved view's ([`crate::persist`]) the server has not
    /// confirmed yet: from `Restored` until the watch from its version answers, and
    /// again while a relist (that version expired) replaces them.
    restored: Cell<bool>,
    /// Restored, and the watch has not delivered anything yet: a relist now is the
    /// saved version's, and the rows are still the saved ones.
    restore_pending: Cell<bool>,
    /// `restored` as last told (a change of it is told at once).
    told_restored: Cell<bool>,
    /// The views made by `view()`, by id.
    views: RefCell<HashMap<u32, View>>,
    next_view: Cell<u32>,
    /// The objects' versions since the sync, for `history()`.
    history: history::Histories,
}

impl Shared {
    fn report(&self, view: &StatusView) -> Report {
        Report::new(view, &self.tracker.borrow())
    }

    /// New columns: kept (with their JS array) and told.
    fn set_columns(&self, columns: Arc<[TableColumn]>) {
        let same = matches!(&*self.columns.borrow(), Some((held, _)) if **held == *columns);
        if same {
            return;
        }
        let array = columns_js(&columns);
        *self.columns.borrow_mut() = Some((columns, array.clone()));
        call(&self.hooks.columns, &[array.into()]);
    }

    /// Tells the status if it changed.
    fn tell_status(&self, view: &StatusView) {
        if self.starting.get() {
            return;
        }
        let now = self.report(view);
        let mut urgency = report::urgency(self.told.borrow().as_ref(), &now);
        if self.told_restored.replace(self.restored.get()) != self.restored.get() {
            urgency = Urgency::Now;
        }
        if urgency == Urgency::Same {
            return;
        }
        *self.told.borrow_mut() = Some(now);
        call(
            &self.hooks.status,
            &[JsValue::from_bool(urgency == Urgency::Now)],
        );
    }

    /// Follows whether the rows held are a saved view's not yet confirmed.
    fn note_restore(&self, event: &Event) {
        match event {
            Event::Restored { .. } => {
                self.restored.set(true);
                self.restore_pending.set(true);
            }
            Event::Resumed { .. } => self.restored.set(false),
            Event::Relisting { .. } if self.restore_pending.get() => self.restored.set(true),
            Event::Synced { .. } => {
                self.restored.set(false);
                self.restore_pending.set(false);
            }
            Event::Added(_) | Event::Modified { .. } | Event::Deleted(_)
                if !self.restored.get() =>
            {
                self.restore_pending.set(false)
            }
            _ => {}
        }
    }

    /// One batch of engine events (possibly none: the status may have moved).
    fn batch(&self, d: &DriverRef<'_>, events: Vec<Event>) {
        self.history
            .record(&self.settings.config, &events, js_sys::Date::now());
        for event in &events {
            self.note_restore(event);
        }
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
            let mut cache = self.cache.borrow_mut();
            for event in &events {
                if let Event::Added(o) | Event::Modified { new: o, .. } | Event::Deleted(o) = event
                {
                    cache.order.touch(o);
                }
            }
        }
        self.feed_views(&events);
        let wants = self.wants_changes.get();
        let mut give_up = false;
        for event in &events {
            let change = match event {
                Event::Added(o) => Some(("ADDED", o)),
                Event::Modified { new, .. } => Some(("MODIFIED", new)),
                Event::Deleted(o) => Some(("DELETED", o)),
                _ => None,
            };
            let change = change.map(|(kind, o)| {
                let mut cache = self.cache.borrow_mut();
                let value = wants.then(|| match kind {
                    // The last snapshot's value when it holds this very object (a
                    // relist's delete), else its last state; not kept for later.
                    "DELETED" => cache
                        .in_snapshot(o)
                        .unwrap_or_else(|| parse(o, self.settings.format)),
                    _ => cache.value(o),
                });
                (kind, value)
            });
            if let Some((kind, object)) = change {
                if let Some(object) = object {
                    call(&self.hooks.change, &[JsValue::from_str(kind), object]);
                }
                continue;
            }
            match event {
                Event::Columns { columns } => {
                    self.set_columns(columns.clone());
                    continue;
                }
                Event::TablesUnavailable { why } => {
                    *self.tables_unavailable.borrow_mut() = Some(why.clone());
                    call(&self.hooks.tables_unavailable, &[JsValue::from_str(why)]);
                    let kind = ColumnKind::for_resource(self.settings.config.collection.resource());
                    self.set_columns(Arc::from(kind.columns()));
                    continue;
                }
                _ => {}
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

impl Shared {
    /// The definitions rows are printed with now: the server's, or None (the fallback
    /// printer's: object mode, a server that prints no tables, or before it said).
    fn definitions(&self) -> Option<Arc<[TableColumn]>> {
        if self.tables_unavailable.borrow().is_some() {
            return None;
        }
        self.columns.borrow().as_ref().map(|(c, _)| c.clone())
    }

    /// A batch for the views: the columns it declares, then its changes.
    fn feed_views(&self, events: &[Event]) {
        let mut views = self.views.borrow_mut();
        if views.is_empty() {
            return;
        }
        for event in events {
            let defs = match event {
                Event::Columns { columns } => Some(columns.clone()),
                Event::TablesUnavailable { .. } => None,
                _ => continue,
            };
            for view in views.values_mut() {
                view.set_definitions(defs.clone());
            }
        }
        let now = crate::time::now_ms();
        for view in views.values_mut() {
            view.apply(events, now);
        }
    }
}

/// The status object: the driver's status, the error, whether the rows are a saved
/// view's not yet confirmed (`restored`; the phase `restored` while the watch from
/// its version has not answered), and in table mode why the server prints no tables
/// (`null` while it does; absent in object mode).
fn status_js(report: &Report, restored: bool, tables_unavailable: Option<Option<&str>>) -> JsValue {
    let object = to_js(&report.view);
    let _ = js_sys::Reflect::set(
        &object,
        &JsValue::from_str("restored"),
        &JsValue::from_bool(restored),
    );
    if restored && report.view.phase == "watching" {
        let _ = js_sys::Reflect::set(
            &object,
            &JsValue::from_str("phase"),
            &JsValue::from_str("restored"),
        );
    }
    let error = report.error.as_ref().map(to_js).unwrap_or(JsValue::NULL);
    let _ = js_sys::Reflect::set(&object, &JsValue::from_str("error"), &error);
    if let Some(why) = tables_unavailable {
        let why = why.map(JsValue::from_str).unwrap_or(JsValue::NULL);
        let _ = js_sys::Reflect::set(&object, &JsValue::from_str("tablesUnavailable"), &why);
    }
    object
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

pub(crate) fn check_options(options: &JsValue) -> Result<Settings, JsValue> {
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
    driver: Rc<RefCell<Option<Driver>>>,
    /// A persisted watcher reads its saved view before its engine starts: the number
    /// of that start while it reads (0: none; `stop()` makes it stale).
    loading: Rc<Cell<u64>>,
    starts: Cell<u64>,
}

#[wasm_bindgen]
impl WatcherCore {
    /// Checks `options` (a `TypeError` or `RangeError` naming the option if they are
    /// wrong); `hooks` are the wrapper's functions. Nothing is requested yet.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue, hooks: JsValue) -> Result<WatcherCore, JsValue> {
        let settings = check_options(&options)?;
        let cache = Cache {
            format: settings.format,
            ..Cache::default()
        };
        Ok(WatcherCore {
            shared: Rc::new(Shared {
                settings,
                hooks: Hooks::read(&hooks),
                wants_changes: Cell::new(false),
                version: Cell::new(0),
                cache: RefCell::new(cache),
                columns: RefCell::default(),
                tables_unavailable: RefCell::default(),
                restored: Cell::new(false),
                restore_pending: Cell::new(false),
                told_restored: Cell::new(false),
                views: RefCell::default(),
                next_view: Cell::new(1),
                history: history::Histories::default(),
                tracker: RefCell::default(),
                told: RefCell::default(),
                starting: Cell::new(false),
            }),
            driver: Rc::default(),
            loading: Rc::default(),
            starts: Cell::new(0),
        })
    }

    /// Starts; after `stop()` (or a failure) resumes from the last version when the
    /// store holds the state at one, otherwise relists and tells a `reset` when
    /// objects are held (the relist's deletes follow). Running: nothing.
    pub fn start(&self) {
        if self.loading.get() != 0 {
            return;
        }
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
            None if self.shared.settings.persist => {
                let start = self.starts.get() + 1;
                self.starts.set(start);
                self.loading.set(start);
                wasm_bindgen_futures::spawn_local(start_kept(
                    self.shared.clone(),
                    self.driver.clone(),
                    self.loading.clone(),
                    start,
                ));
                // Its first status is told once the kept view is read: `restored` when
                // there is one, else `listing` (saying `listing` now would be wrong for
                // the ~0.5 s a restore takes).
                return;
            }
            None => {
                let driver = run_driver(&self.shared, None, |config, base_url, sink| {
                    (Driver::start(config, base_url, sink), None)
                });
                *self.driver.borrow_mut() = Some(driver);
            }
        }
        self.tell_status();
    }

    /// Stops and aborts what is in flight; the last state stays readable, and `start()`
    /// resumes from it.
    pub fn stop(&self) {
        // A start still reading its saved view does not start.
        self.loading.set(0);
        if let Some(d) = self.driver.borrow().as_ref() {
            d.stop();
        }
        // Stopped by the page, not by the failure (which stays in `error`).
        self.shared.tracker.borrow_mut().failed = false;
        self.tell_status();
    }

    /// kubelive's worker, for a view no page shows now (in its grace): its requests
    /// end (a page the browser keeps in its back/forward cache may leave the worker
    /// suspended, and its watch open); what it holds stays. Internal.
    #[wasm_bindgen(skip_typescript)]
    pub fn pause(&self) {
        if let Some(d) = self.driver.borrow().as_ref() {
            d.pause();
        }
    }

    /// kubelive's worker: a paused view shown again watches on from its version.
    /// Internal.
    #[wasm_bindgen(skip_typescript)]
    pub fn resume(&self) {
        if let Some(d) = self.driver.borrow().as_ref() {
            d.resume();
        }
    }

    /// A persisted watcher: saves its view now if it moved since the last save (its
    /// page is leaving). Otherwise nothing.
    #[wasm_bindgen(js_name = saveNow)]
    pub fn save_now(&self) {
        if let Some(d) = self.driver.borrow().as_ref() {
            d.save_now();
        }
    }

    /// Started and not stopped (by `stop()` or a failure).
    #[wasm_bindgen(getter)]
    pub fn running(&self) -> bool {
        self.loading.get() != 0
            || self
                .driver
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
        let driver = self.driver.borrow();
        let mut cache = self.shared.cache.borrow_mut();
        match driver.as_ref() {
            Some(d) => d.with_store(|store| cache.snapshot(version, Some(store))),
            None => cache.snapshot(version, None),
        }
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
        let why = self.shared.tables_unavailable.borrow();
        let tables =
            matches!(self.shared.settings.format, Format::Table(_)).then(|| why.as_deref());
        status_js(
            &self.shared.report(&self.view()),
            self.shared.restored.get(),
            tables,
        )
    }

    /// Table mode: the column definitions of the rows (the same frozen array until
    /// they change), `null` before the first answer and in object mode.
    pub fn columns(&self) -> JsValue {
        match &*self.shared.columns.borrow() {
            Some((_, array)) => array.clone().into(),
            None => JsValue::NULL,
        }
    }
}

#[wasm_bindgen]
impl WatcherCore {
    /// A view of the rows, sorted and filtered by the table model (see [`view`]):
    /// its id, for `window`, `setView` and `dropView`. `options`: `{ sort, filter,
    /// wide }`, each optional.
    #[wasm_bindgen(js_name = createView)]
    pub fn create_view(&self, options: JsValue) -> Result<u32, JsValue> {
        let options = view_options(&options, "view")?;
        let s = &self.shared.settings;
        let kind = ColumnKind::for_resource(s.config.collection.resource());
        let across = s.config.collection.namespace().is_none();
        let mut view = View::new(kind, across, self.shared.definitions(), options);
        if self.view().synced {
            view.synced(crate::time::now_ms());
        }
        let id = self.shared.next_view.get();
        self.shared.next_view.set(id.wrapping_add(1).max(1));
        self.shared.views.borrow_mut().insert(id, view);
        Ok(id)
    }

    /// Changes view `id`'s sort, filter or wide (absent ones stay).
    #[wasm_bindgen(js_name = setView)]
    pub fn set_view(&self, id: u32, options: JsValue) -> Result<(), JsValue> {
        let options = view_options(&options, "set")?;
        match self.shared.views.borrow_mut().get_mut(&id) {
            Some(view) => {
                view.set(options);
                Ok(())
            }
            None => Err(gone_view(id)),
        }
    }

    /// Rows `first..first + count` of view `id` (plain data: [`view::Window`]).
    pub fn window(&self, id: u32, first: f64, count: f64) -> Result<JsValue, JsValue> {
        let index = |n: f64, what: &str| -> Result<usize, JsValue> {
            if n.is_finite() && n >= 0.0 && n.fract() == 0.0 {
                Ok(n as usize)
            } else {
                Err(js_sys::RangeError::new(&format!(
                    "View.window(first, count): {what} must be a whole number from 0, got {n}"
                ))
                .into())
            }
        };
        let (first, count) = (index(first, "first")?, index(count, "count")?);
        let mut views = self.shared.views.borrow_mut();
        let view = views.get_mut(&id).ok_or_else(|| gone_view(id))?;
        let now = crate::time::now_ms();
        let wall = crate::time::unix_now();
        let window = match self.driver.borrow().as_ref() {
            Some(d) => d.with_store(|store| {
                view.window(store, first, count, now, wall, &crate::time::now_ms)
            }),
            None => view.window(&Store::new(), first, count, now, wall, &crate::time::now_ms),
        };
        Ok(to_js(&window))
    }

    /// Forgets view `id`.
    #[wasm_bindgen(js_name = dropView)]
    pub fn drop_view(&self, id: u32) {
        self.shared.views.borrow_mut().remove(&id);
    }
}

/// kubectl's human duration of `seconds` (`45s`, `5m2s`, `3h10m`, `2d4h`; `<invalid>`
/// more than a second in the future), as every Age cell is printed.
#[wasm_bindgen(js_name = humanDuration, skip_typescript)]
pub fn human_duration(seconds: f64) -> String {
    kubelive_core::time::human_duration((seconds * 1000.0) as i64)
}

/// View options from JS, checked (a `TypeError` naming what is wrong).
fn view_options(options: &JsValue, method: &str) -> Result<ViewOptions, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(ViewOptions::default());
    }
    serde_wasm_bindgen::from_value(options.clone()).map_err(|e| {
        js_sys::TypeError::new(&format!(
            "Watcher.{method}(options): {e} (options are {{ sort, filter, wide }})"
        ))
        .into()
    })
}

fn gone_view(id: u32) -> JsValue {
    js_sys::Error::new(&format!(
        "View {id}: this view was freed (free() was called)"
    ))
    .into()
}

impl WatcherCore {
    fn view(&self) -> StatusView {
        status_before(&self.shared, &self.driver, self.loading.get() != 0)
    }

    fn tell_status(&self) {
        let view = self.view();
        self.shared.tell_status(&view);
    }
}

/// The driver's status, or before there is one what it will say: `listing` (or
/// `initialEvents`) while a persisted watcher reads its saved view, else `stopped`.
fn status_before(shared: &Shared, driver: &RefCell<Option<Driver>>, loading: bool) -> StatusView {
    if let Some(d) = driver.borrow().as_ref() {
        return d.status();
    }
    let streaming = shared.settings.config.mode == kubelive_core::Mode::StreamingList;
    StatusView {
        phase: match (loading, streaming) {
            (false, _) => "stopped",
            (true, false) => "listing",
            (true, true) => "initialEvents",
        },
        mode: if streaming {
            "streamingList"
        } else {
            "listWatch"
        },
        ..StatusView::default()
    }
}

/// Makes the watcher's driver with `make` (given its config, base URL and sink), its
/// first batch told to `shared` without a status read back (it is not the watcher's
/// yet), the restore error if any.
fn run_driver(
    shared: &Rc<Shared>,
    restore_error: Option<&mut Option<RestoreError>>,
    make: impl FnOnce(
        kubelive_core::Config,
        &str,
        crate::driver::Sink,
    ) -> (Driver, Option<RestoreError>),
) -> Driver {
    let sink = {
        let shared = shared.clone();
        Box::new(move |d: &DriverRef<'_>, events: Vec<Event>| shared.batch(d, events))
    };
    let s = &shared.settings;
    shared.starting.set(true);
    let (driver, error) = make(s.config.clone(), &s.base_url, sink);
    shared.starting.set(false);
    if let Some(out) = restore_error {
        *out = error;
    }
    driver
}

/// A persisted watcher's start: reads the server's identity and the saved view (at
/// once, side by side), starts the engine from it (its rows shown at once, a watch
/// from its version) or, without one, as any watcher starts, then saves the view
/// from now on. Saved views unavailable (no IndexedDB, a weak identity, saving
/// turned off) start it as any watcher; a `stop()` meanwhile (`loading` no longer
/// `start`) does not start it.
async fn start_kept(
    shared: Rc<Shared>,
    driver: Rc<RefCell<Option<Driver>>>,
    loading: Rc<Cell<u64>>,
    start: u64,
) {
    let s = &shared.settings;
    let key = ViewKey::of(&s.config);
    let namespace = s.config.collection.namespace().map(str::to_string);
    let (opened, identity) = futures::future::join(
        Persist::open(Limits::default()),
        server_identity_within(&s.base_url, namespace.as_deref()),
    )
    .await;
    // No identity in time: the view starts unkept, and is kept once it is read.
    let late = opened.is_ok() && identity.is_none();
    let kept = match (opened, identity) {
        (Ok(persist), Some(identity)) if persist.usable(&identity) => {
            Some((Rc::new(persist), identity))
        }
        _ => None,
    };
    let saved = match &kept {
        Some((persist, identity)) => persist
            .load(&s.base_url, identity, &key)
            .await
            .ok()
            .flatten(),
        None => None,
    };
    if loading.get() != start {
        return;
    }
    loading.set(0);
    let mut refused = None;
    let d = match &saved {
        Some(bytes) => run_driver(&shared, Some(&mut refused), |config, base_url, sink| {
            Driver::restore(config, bytes, base_url, sink)
        }),
        None => run_driver(&shared, None, |config, base_url, sink| {
            (Driver::start(config, base_url, sink), None)
        }),
    };
    if let Some((persist, identity)) = kept {
        if refused.is_some() {
            // Damaged, or of another format version: listed again, and saved anew.
            let (persist, server, key) = (persist.clone(), s.base_url.clone(), key.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let _ = persist.forget(&server, &key).await;
            });
        }
        keep_saving(&d, persist, identity, &s.base_url, &key);
    } else if late {
        // Only while this watcher's engine runs (not stopped, not freed).
        let (base_url, slot, key) = (s.base_url.clone(), Rc::downgrade(&driver), key.clone());
        let running = {
            let slot = slot.clone();
            move || {
                slot.upgrade()
                    .and_then(|d| d.borrow().as_ref().map(|d| !d.is_stopped()))
                    .unwrap_or(false)
            }
        };
        wasm_bindgen_futures::spawn_local(async move {
            let Some((persist, identity)) =
                kept_later(&base_url, namespace.as_deref(), &running).await
            else {
                return;
            };
            if let Some(driver) = running().then(|| slot.upgrade()).flatten() {
                if let Some(d) = driver.borrow().as_ref() {
                    keep_saving(d, persist, identity, &base_url, &key);
                }
            }
        });
    }
    *driver.borrow_mut() = Some(d);
    let view = status_before(&shared, &driver, false);
    shared.tell_status(&view);
}

/// Drops every view kept in this origin's IndexedDB by persisted watchers (theirs
/// and the app's). Running watchers keep saving theirs.
#[wasm_bindgen(js_name = forgetSavedViews, skip_typescript)]
pub async fn forget_saved_views() -> Result<(), JsValue> {
    let persist = Persist::open(Limits::default())
        .await
        .map_err(|e| JsValue::from(js_sys::Error::new(&e.to_string())))?;
    persist
        .clear()
        .await
        .map_err(|e| js_sys::Error::new(&e.to_string()).into())
}
