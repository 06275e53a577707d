//! In the browser (wasm-bindgen-test, headless Chromium): the driver against a
//! scripted `fetch` whose bodies are real `ReadableStream`s, and the components with
//! hostile data.
#![cfg(target_arch = "wasm32")]

mod support;

use kubelive_core::{Collection, ColumnKind, Config, Event, Object, ParseOptions};
use kubelive_table::{view_columns, Column, RowState};
use kubelive_web::app::detail::{Detail, DetailProps, Fetched};
use kubelive_web::app::grid::{cell_looks, Rooms, Rows, RowsProps, ShownRow};
use kubelive_web::app::log::{EventLog, EventLogProps, LogEntry};
use kubelive_web::app::namespaces::{NamespaceField, NamespaceFieldProps, NsOption};
use kubelive_web::app::status_bar::{StatusBar, StatusBarProps};
use kubelive_web::app::App;
use kubelive_web::driver::{Driver, DriverRef};
use kubelive_web::status::StatusView;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;
use support::{mount, sleep};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
const calls = [];
// Bodies as byte streams, as fetch's are in Chromium and Firefox (the driver reads
// them into a buffer of its own), or as plain streams of chunks (elsewhere).
let byteBodies = false;
export function mock_install(bytes) {
  calls.length = 0;
  byteBodies = bytes;
  window.fetch = (url, init) => new Promise((resolve, reject) => {
    const call = { url: String(url), resolve, reject, controller: null, aborted: false };
    calls.push(call);
    const signal = init && init.signal;
    if (signal) signal.addEventListener('abort', () => {
      call.aborted = true;
      const err = new DOMException('The user aborted a request.', 'AbortError');
      reject(err);
      try { if (call.controller) call.controller.error(err); } catch (_) {}
    });
  });
}
export function mock_calls() { return calls.length; }
export function mock_url(i) { return calls[i].url; }
export function mock_aborted(i) { return calls[i].aborted; }
export function mock_respond(i, status, retryAfter) {
  const call = calls[i];
  const source = { start(c) { call.controller = c; } };
  const body = new ReadableStream(byteBodies ? { type: 'bytes', ...source } : source);
  const headers = { 'Content-Type': 'application/json' };
  if (retryAfter) headers['Retry-After'] = retryAfter;
  call.resolve(new Response(body, { status, headers }));
}
export function mock_push(i, text) { calls[i].controller.enqueue(new TextEncoder().encode(text)); }
export function mock_close(i) {
  const c = calls[i].controller;
  c.close();
  // A byte stream's source answers a read waiting with a buffer, as fetch's does.
  if (c.byobRequest) c.byobRequest.respond(0);
}
export function mock_break(i) { calls[i].controller.error(new TypeError('network error')); }
export function mock_reject(i) { calls[i].reject(new TypeError('Failed to fetch')); }
"#)]
extern "C" {
    fn mock_install(byte_bodies: bool);
    fn mock_calls() -> u32;
    fn mock_url(i: u32) -> String;
    fn mock_aborted(i: u32) -> bool;
    fn mock_respond(i: u32, status: u16, retry_after: Option<String>);
    fn mock_push(i: u32, text: &str);
    fn mock_close(i: u32);
    fn mock_break(i: u32);
    fn mock_reject(i: u32);
}

/// Waits until `f` holds (the driver runs on the event loop).
async fn until(what: &str, f: impl Fn() -> bool) {
    for _ in 0..200 {
        if f() {
            return;
        }
        sleep(10).await;
    }
    panic!("timed out waiting for {what}");
}

fn pod_json(name: &str, rv: u32) -> String {
    format!(
        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}","namespace":"default","uid":"u-{name}","resourceVersion":"{rv}","creationTimestamp":"2024-01-01T00:00:00Z"}},"spec":{{"nodeName":"n1","containers":[{{"name":"c"}}]}},"status":{{"phase":"Running"}}}}"#
    )
}

fn describe(e: &Event) -> String {
    match e {
        Event::Added(o) => format!("ADDED {}@{}", o.name(), o.resource_version()),
        Event::Modified { new, .. } => {
            format!("MODIFIED {}@{}", new.name(), new.resource_version())
        }
        Event::Deleted(o) => format!("DELETED {}", o.name()),
        Event::PageListed { page, .. } => format!("PAGE {page}"),
        Event::Synced {
            resource_version, ..
        } => format!("SYNCED {resource_version}"),
        Event::Resumed { resource_version } => format!("RESUMED {resource_version}"),
        Event::Restored {
            resource_version, ..
        } => format!("RESTORED {resource_version}"),
        Event::Relisting { reason } => format!("RELIST {reason}"),
        Event::BackingOff { reason, .. } => format!("BACKOFF {reason}"),
        Event::Failed { error } => format!("FAILED {error}"),
        Event::Columns { columns } => format!("COLUMNS {}", columns.len()),
        Event::TablesUnavailable { why } => format!("NO TABLES {why}"),
    }
}

fn start(log: &Rc<RefCell<Vec<String>>>) -> Driver {
    let mut config = Config::new(Collection::parse("/api/v1/pods").unwrap());
    config.page_size = 2;
    config.backoff.initial = Duration::from_millis(30);
    let log = log.clone();
    Driver::start(
        config,
        "",
        Box::new(move |_: &DriverRef<'_>, events: Vec<Event>| {
            log.borrow_mut().extend(events.iter().map(describe));
        }),
    )
}

#[wasm_bindgen_test]
async fn a_silent_watch_is_aborted_at_the_engines_deadline_and_resumed() {
    // The engine owns the deadlines; the driver only arms its timer from poll_timeout
    // and aborts what the engine gives up on. Short deadlines keep the test quick.
    mock_install(false);
    let log: Rc<RefCell<Vec<String>>> = Rc::default();
    let mut config = Config::new(Collection::parse("/api/v1/pods").unwrap());
    config.deadlines.watch_head = Duration::from_millis(150);
    config.deadlines.watch_grace = Duration::from_millis(150);
    config.watch_timeout_secs = (0, 0);
    let sink_log = log.clone();
    let driver = Driver::start(
        config,
        "",
        Box::new(move |_: &DriverRef<'_>, events: Vec<Event>| {
            sink_log.borrow_mut().extend(events.iter().map(describe));
        }),
    );
    until("the list request", || mock_calls() == 1).await;
    mock_respond(0, 200, None);
    mock_push(
        0,
        r#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[]}"#,
    );
    mock_close(0);
    // The watch's head never comes: aborted at its head deadline, then a new watch.
    until("the watch request", || mock_calls() == 2).await;
    until("the silent watch aborted", || mock_aborted(1)).await;
    until("a new watch", || mock_calls() == 3).await;
    assert!(
        mock_url(2).contains("resourceVersion=10"),
        "{}",
        mock_url(2)
    );
    // This one answers, then says nothing: aborted at its timeout (0 s) + grace.
    mock_respond(2, 200, None);
    until("the status says how long since the last byte", || {
        driver.status().last_byte_ago_ms.is_some()
    })
    .await;
    until("the silent body aborted", || mock_aborted(2)).await;
    until("a third watch", || mock_calls() == 4).await;
    assert!(
        mock_url(3).contains("resourceVersion=10"),
        "{}",
        mock_url(3)
    );
    assert!(
        driver
            .status()
            .last_error
            .as_deref()
            .is_some_and(|e| e.contains("outlived its timeout")),
        "{:?}",
        driver.status().last_error
    );
    driver.stop();
}

#[wasm_bindgen_test]
async fn driver_streams_lists_and_watches_and_resumes_after_a_reset() {
    streams_lists_and_watches_and_resumes_after_a_reset(false).await;
}

#[wasm_bindgen_test]
async fn driver_reads_byte_stream_bodies_into_its_own_buffer() {
    streams_lists_and_watches_and_resumes_after_a_reset(true).await;
}

async fn streams_lists_and_watches_and_resumes_after_a_reset(byte_bodies: bool) {
    mock_install(byte_bodies);
    let log: Rc<RefCell<Vec<String>>> = Rc::default();
    let driver = start(&log);
    until("the first list request", || mock_calls() == 1).await;
    assert_eq!(mock_url(0), "/api/v1/pods?limit=2&pretty=false");
    mock_respond(0, 200, None);
    // Chunks split anywhere, even inside a token.
    let list = format!(
        r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"10"}},"items":[{},{}]}}"#,
        pod_json("a", 5),
        pod_json("b", 6)
    );
    let (x, rest) = list.split_at(37);
    let (y, z) = rest.split_at(rest.len() / 2);
    for part in [x, y, z] {
        mock_push(0, part);
        sleep(5).await;
    }
    mock_close(0);
    until("the watch request", || mock_calls() == 2).await;
    assert!(
        mock_url(1)
            .starts_with("/api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true"),
        "{}",
        mock_url(1)
    );
    assert_eq!(driver.with_store(|s| s.len()), 2);
    assert!(driver.status().synced);
    mock_respond(1, 200, None);
    let event = format!(r#"{{"type":"ADDED","object":{}}}"#, pod_json("c", 11));
    let (p, q) = event.split_at(20);
    mock_push(1, p);
    mock_push(1, &format!("{q}\n"));
    until("c in the store", || {
        driver.with_store(|s| s.get("default", "c").is_some())
    })
    .await;
    assert_eq!(driver.status().phase, "watching");
    // The body dies by a network error after the watch delivered an event: its
    // version is good, so the driver resumes at once from it (no backoff, no relist);
    // the status still tells the error.
    mock_break(1);
    until("the resumed watch", || mock_calls() == 3).await;
    assert!(
        !log.borrow().iter().any(|l| l.starts_with("BACKOFF")),
        "{:?}",
        log.borrow()
    );
    let status = driver.status();
    assert_eq!(status.errors, 1);
    assert!(
        status
            .last_error
            .as_deref()
            .is_some_and(|e| e.starts_with("connection lost")),
        "{:?}",
        status.last_error
    );
    assert!(
        mock_url(2).contains("resourceVersion=11"),
        "{}",
        mock_url(2)
    );
    mock_respond(2, 200, None);
    until("resumed", || log.borrow().iter().any(|l| l == "RESUMED 11")).await;
    // Stopping aborts what is in flight.
    driver.stop();
    assert!(mock_aborted(2));
    assert_eq!(driver.in_flight(), 0);
    assert_eq!(driver.status().phase, "stopped");
    let log = log.borrow();
    assert_eq!(
        log.iter().take(5).cloned().collect::<Vec<_>>(),
        [
            "ADDED a@5",
            "ADDED b@6",
            "PAGE 1",
            "SYNCED 10",
            "ADDED c@11"
        ]
    );
}

#[wasm_bindgen_test]
async fn driver_reports_connect_errors_and_server_refusals() {
    mock_install(false);
    let log: Rc<RefCell<Vec<String>>> = Rc::default();
    let driver = start(&log);
    until("the first request", || mock_calls() == 1).await;
    mock_reject(0);
    until("backing off", || driver.status().phase == "backingOff").await;
    assert!(log.borrow().iter().any(|l| l.contains("cannot connect")));
    until("the retry", || mock_calls() == 2).await;
    assert_eq!(mock_url(1), "/api/v1/pods?limit=2&pretty=false");
    mock_respond(1, 403, None);
    mock_push(
        1,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods is forbidden: User \"x\" cannot list resource \"pods\"","reason":"Forbidden","code":403}"#,
    );
    mock_close(1);
    until("failed", || driver.status().failed.is_some()).await;
    let status = driver.status();
    assert!(
        status.headline().starts_with("Failed: pods is forbidden"),
        "{}",
        status.headline()
    );
    assert_eq!(status.tone(), "error");
    drop(driver);
    assert!(mock_calls() == 2);
}

#[wasm_bindgen_test]
async fn dropping_a_driver_aborts_its_request() {
    mock_install(false);
    let log: Rc<RefCell<Vec<String>>> = Rc::default();
    let driver = start(&log);
    until("the first request", || mock_calls() == 1).await;
    mock_respond(0, 200, None);
    mock_push(0, r#"{"kind":"PodList","items":["#);
    sleep(10).await;
    drop(driver);
    assert!(mock_aborted(0));
}

const HOSTILE_NAME: &str = "<img src=x onerror=\"window.__pwned=1\">";

fn hostile() -> Arc<Object> {
    let json = format!(
        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":{name},"namespace":"default","uid":"u1","resourceVersion":"7","creationTimestamp":"2024-01-01T00:00:00Z","labels":{{"app":{label}}},"annotations":{{"note":{ann}}}}},"spec":{{"nodeName":{node},"containers":[{{"name":"c"}}]}},"status":{{"phase":{phase}}}}}"#,
        name = quote(HOSTILE_NAME),
        label = quote("<script>window.__pwned=2</script>"),
        ann =
            quote("<b onmouseover=window.__pwned=3>x</b><iframe src=javascript:window.__pwned=4>"),
        node = quote("<svg onload=window.__pwned=5>"),
        phase = quote("<img src=y onerror=window.__pwned=6>"),
    );
    let opts = ParseOptions {
        columns: ColumnKind::Pod,
        ..ParseOptions::default()
    };
    Arc::new(Object::parse(json.as_bytes(), &opts).expect("hostile pod parses"))
}

/// A JSON string literal (Rust's escapes agree with JSON's for these strings).
fn quote(s: &str) -> String {
    format!("{s:?}")
}

fn pwned() -> JsValue {
    js_sys::Reflect::get(&js_sys::global(), &"__pwned".into()).unwrap()
}

fn assert_inert(root: &web_sys::Element) {
    for tag in ["img", "script", "svg", "iframe", "b"] {
        assert!(
            root.query_selector(tag).unwrap().is_none(),
            "a <{tag}> element was created from object data: {}",
            root.inner_html()
        );
    }
}

#[wasm_bindgen_test]
async fn hostile_object_data_renders_as_text() {
    let o = hostile();
    let root = mount();
    let cols: Vec<Column> = view_columns(None, ColumnKind::Pod, true, false);
    yew::Renderer::<Rows>::with_root_and_props(
        root.clone(),
        RowsProps {
            rows: Rc::new(vec![ShownRow::new(o.clone(), |_| (RowState::Normal, 0.0))]),
            first: 0,
            base: 0,
            pool: 0,
            looks: Rc::new(cell_looks(&cols, &cols, &Rooms::default())),
            cols: Rc::new(cols),
            selected: None,
            now: 1_704_067_260.0,
            on_select: Default::default(),
            on_open: Default::default(),
        },
    )
    .render();
    sleep(50).await;
    let text = root.text_content().unwrap_or_default();
    assert!(text.contains(HOSTILE_NAME), "{text}");
    assert!(text.contains("<svg onload=window.__pwned=5>"), "{text}");
    let age = root
        .query_selector("[data-col='age']")
        .unwrap()
        .expect("an age cell");
    assert_eq!(
        age.text_content().as_deref(),
        Some("60s"),
        "the age column: {text}"
    );
    assert_inert(&root);

    let detail = mount();
    yew::Renderer::<Detail>::with_root_and_props(
        detail.clone(),
        DetailProps {
            object: o.clone(),
            deleted: true,
            // The whole object as the GET gave it.
            fetched: Fetched::Loaded(Rc::new(
                serde_json::from_str(&o.json_str()).expect("the pod's JSON"),
            )),
            secret: false,
            on_close: Default::default(),
            events: Default::default(),
            now: 0.0,
            cols: Default::default(),
            shown: 0,
            history_target: None,
            history: Default::default(),
        },
    )
    .render();
    sleep(50).await;
    let text = detail.text_content().unwrap_or_default();
    assert!(text.contains("<script>window.__pwned=2</script>"), "{text}");
    assert!(
        text.contains("<iframe src=javascript:window.__pwned=4>"),
        "{text}"
    );
    assert!(text.contains("resourceVersion: '7'"), "YAML: {text}");
    assert!(
        text.contains("onerror=window.__pwned=6>"),
        "the status in the YAML: {text}"
    );
    assert!(text.contains("deleted"));
    assert_inert(&detail);
    sleep(50).await;
    assert!(
        pwned().is_undefined(),
        "hostile data executed: {:?}",
        pwned()
    );
}

#[wasm_bindgen_test]
async fn status_bar_tells_the_phase() {
    let root = mount();
    yew::Renderer::<StatusBar>::with_root_and_props(
        root.clone(),
        StatusBarProps {
            status: StatusView {
                phase: "backingOff",
                retry_in_ms: Some(1500),
                backoff_reason: Some("connection lost: network error".into()),
                relists: 2,
                last_relist_reason: Some("version expired: too old resource version".into()),
                ..StatusView::default()
            },
            resource: "v1/pods".into(),
            instead: None,
        },
    )
    .render();
    sleep(50).await;
    let bar = root.query_selector("#status").unwrap().unwrap();
    assert_eq!(
        bar.get_attribute("data-phase").as_deref(),
        Some("backingOff")
    );
    let text = bar.text_content().unwrap_or_default();
    assert!(
        text.contains("Backing off: retry in 1.5 s — connection lost"),
        "{text}"
    );
    assert!(text.contains("relists 2 (last: version expired"), "{text}");
}

#[wasm_bindgen_test]
async fn event_log_holds_under_the_pointer_and_says_what_waits() {
    let root = mount();
    let held = Rc::new(RefCell::new(Vec::new()));
    let entries: Vec<LogEntry> = (0..3u64)
        .map(|i| LogEntry {
            seq: 3 - i,
            kind: "MODIFIED",
            object: format!("default/web-{i}"),
            version: (100 - i).to_string(),
            at: "12:00:00".into(),
            tone: "modified",
        })
        .collect();
    let props = |is_held: bool, unseen: u64| EventLogProps {
        entries: Rc::new(entries.clone()),
        held: is_held,
        unseen,
        on_hold: {
            let held = held.clone();
            yew::Callback::from(move |h: bool| held.borrow_mut().push(h))
        },
    };
    let mut app =
        yew::Renderer::<EventLog>::with_root_and_props(root.clone(), props(false, 0)).render();
    sleep(50).await;
    let log = root.query_selector("#log").unwrap().unwrap();
    let lines = root.query_selector_all(".log-entry").unwrap();
    assert_eq!(lines.length(), 3);
    let first = lines.item(0).unwrap().text_content().unwrap_or_default();
    assert!(
        first.contains("default/web-0") && first.contains("rv 100"),
        "{first}"
    );
    assert!(
        root.query_selector("#log-held").unwrap().is_none(),
        "running: no badge"
    );

    // The pointer in and out: the app is asked to hold and to let go.
    for kind in ["mouseenter", "mouseleave"] {
        let e = web_sys::MouseEvent::new(kind).unwrap();
        log.dispatch_event(&e).unwrap();
    }
    assert_eq!(*held.borrow(), vec![true, false]);

    // Held with changes waiting: the badge says how many.
    app.update(props(true, 42));
    sleep(50).await;
    let log = root.query_selector("#log").unwrap().unwrap();
    assert_eq!(log.get_attribute("data-held").as_deref(), Some("true"));
    let badge = root.query_selector("#log-held").unwrap().unwrap();
    assert_eq!(badge.text_content().as_deref(), Some("paused · 42 new"));
}

// ---- issue 13: the namespace field, refused views, related events ----

/// Sets an input's value as typing would and fires its `input` event.
fn type_into(input: &web_sys::HtmlInputElement, text: &str) {
    input.set_value(text);
    let init = web_sys::InputEventInit::new();
    init.set_input_type("insertText");
    init.set_bubbles(true);
    let e = web_sys::InputEvent::new_with_event_init_dict("input", &init).unwrap();
    input.dispatch_event(&e).unwrap();
}

fn press(target: &web_sys::Element, key: &str) {
    let init = web_sys::KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    let e = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    target.dispatch_event(&e).unwrap();
}

fn text_of(root: &web_sys::Element, selector: &str) -> Option<String> {
    root.query_selector(selector)
        .unwrap()
        .map(|e| e.text_content().unwrap_or_default())
}

#[wasm_bindgen_test]
async fn the_namespace_field_takes_typed_names() {
    let root = mount();
    let applied: Rc<RefCell<Vec<String>>> = Rc::default();
    let options = Rc::new(vec![
        NsOption {
            name: "team-a".into(),
            note: None,
        },
        NsOption {
            name: "team-b".into(),
            note: Some("cannot list pods here".into()),
        },
    ]);
    let props = |value: &str, note: Option<&str>| NamespaceFieldProps {
        value: value.to_string().into(),
        options: options.clone(),
        disabled: false,
        note: note.map(|n| n.to_string().into()),
        mark: None,
        on_apply: {
            let applied = applied.clone();
            yew::Callback::from(move |ns: String| applied.borrow_mut().push(ns))
        },
    };
    let mut handle = yew::Renderer::<NamespaceField>::with_root_and_props(
        root.clone(),
        props("", Some("cannot list namespaces (403): type a name")),
    )
    .render();
    sleep(50).await;
    let input: web_sys::HtmlInputElement = root
        .query_selector("#namespace")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    // Suggestions, with what is known of them; the failed namespaces watch is said.
    let options_html = root
        .query_selector("#ns-options")
        .unwrap()
        .unwrap()
        .inner_html();
    assert!(options_html.contains(r#"value="team-a""#), "{options_html}");
    assert!(
        options_html.contains("team-b — cannot list pods here"),
        "{options_html}"
    );
    assert!(text_of(&root, "#ns-note")
        .unwrap()
        .contains("cannot list namespaces"));
    // A typed name that is in no list: applied on Enter, not while typing.
    type_into(&input, "team-zeta");
    sleep(20).await;
    assert!(applied.borrow().is_empty(), "typing alone applies nothing");
    press(&input, "Enter");
    sleep(20).await;
    assert_eq!(*applied.borrow(), ["team-zeta"]);
    // Not a namespace name: said, and nothing applied.
    type_into(&input, "../kube-system");
    press(&input, "Enter");
    sleep(50).await;
    assert!(
        text_of(&root, "#ns-error")
            .unwrap()
            .contains("is not a namespace name"),
        "{}",
        root.inner_html()
    );
    assert_eq!(applied.borrow().len(), 1);
    // Esc puts the view's namespace back; empty + Enter is all namespaces.
    press(&input, "Escape");
    sleep(50).await;
    assert_eq!(input.value(), "");
    assert!(root.query_selector("#ns-error").unwrap().is_none());
    press(&input, "Enter");
    sleep(20).await;
    assert_eq!(*applied.borrow(), ["team-zeta", ""]);
    // The view moved elsewhere (a link, a choice): the field follows.
    handle.update(props("team-a", None));
    sleep(50).await;
    assert_eq!(input.value(), "team-a");
}

#[wasm_bindgen_test]
async fn a_status_cannot_add_a_class_of_its_own() {
    let json = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default","uid":"u","resourceVersion":"1"},"spec":{"containers":[{"name":"c"}]},"status":{"phase":"x st-running"}}"#;
    let opts = ParseOptions {
        columns: ColumnKind::Pod,
        ..ParseOptions::default()
    };
    let o = Arc::new(Object::parse(json.as_bytes(), &opts).unwrap());
    let root = mount();
    let cols: Vec<Column> = view_columns(None, ColumnKind::Pod, true, false);
    yew::Renderer::<Rows>::with_root_and_props(
        root.clone(),
        RowsProps {
            rows: Rc::new(vec![ShownRow::new(o, |_| (RowState::Normal, 0.0))]),
            first: 0,
            base: 0,
            pool: 0,
            looks: Rc::new(cell_looks(&cols, &cols, &Rooms::default())),
            cols: Rc::new(cols),
            selected: None,
            now: 0.0,
            on_select: Default::default(),
            on_open: Default::default(),
        },
    )
    .render();
    sleep(50).await;
    let cell = root
        .query_selector(".td[data-col='status']")
        .unwrap()
        .unwrap();
    let class = cell.get_attribute("class").unwrap_or_default();
    let classes: Vec<&str> = class.split_whitespace().collect();
    assert!(classes.contains(&"st-xst-running"), "{class}");
    assert!(!classes.contains(&"st-running"), "{class}");
}

#[wasm_bindgen(inline_js = r#"
const routes = [];
const log = [];
// The open bodies' stream controllers, by the URL asked for (`route_push`).
const open = [];
export function router_install() {
  routes.length = 0;
  log.length = 0;
  open.length = 0;
  window.fetch = (url, init) => {
    url = String(url);
    const method = (init && init.method) || 'GET';
    const body = init && init.body ? String(init.body) : '';
    const entry = { method, url, body, aborted: false };
    log.push(entry);
    const matches = (r) => r.prefix.endsWith('$') ? url === r.prefix.slice(0, -1) : url.startsWith(r.prefix);
    const route = routes.find((r) => r.method === method && matches(r) && body.includes(r.bodyHas));
    if (!route) return Promise.resolve(new Response('{"kind":"Status","code":404,"reason":"NotFound","message":"no route"}', { status: 404, headers: { 'Content-Type': 'application/json' } }));
    let controller;
    const stream = new ReadableStream({
      start(c) {
        controller = c;
        if (route.body) c.enqueue(new TextEncoder().encode(route.body));
        if (!route.open) c.close();
        else open.push({ url, c });
      },
    });
    const signal = init && init.signal;
    if (signal) signal.addEventListener('abort', () => {
      entry.aborted = true;
      try { controller.error(new DOMException('aborted', 'AbortError')); } catch (_) {}
    });
    return Promise.resolve(new Response(stream, { status: route.status, headers: { 'Content-Type': route.type } }));
  };
}
// A prefix ending in `$` matches the whole URL.
export function route(method, prefix, status, type, body, open, bodyHas) {
  routes.push({ method, prefix, status, type, body, open, bodyHas });
}
// More body for the open responses whose URL starts with `prefix`; how many took it.
export function route_push(prefix, text) {
  let n = 0;
  for (const o of open) {
    if (!o.url.startsWith(prefix)) continue;
    try { o.c.enqueue(new TextEncoder().encode(text)); n += 1; } catch (_) {}
  }
  return n;
}
export function requests() { return log.map((e) => `${e.method} ${e.url}${e.body ? ' ' + e.body : ''}`).join('\n'); }
export function was_aborted(prefix) { return log.some((e) => e.url.startsWith(prefix) && e.aborted); }
export function set_hash(h) { history.replaceState(null, '', h); }
"#)]
extern "C" {
    fn router_install();
    fn route(
        method: &str,
        prefix: &str,
        status: u16,
        content_type: &str,
        body: &str,
        open: bool,
        body_has: &str,
    );
    fn requests() -> String;
    fn route_push(prefix: &str, text: &str) -> u32;
    fn was_aborted(prefix: &str) -> bool;
    fn set_hash(h: &str);
}

const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const JSON: &str = "application/json";

/// An empty namespace list, and its watch.
fn route_no_namespaces() {
    route(
        "GET",
        "/api/v1/namespaces?",
        200,
        JSON,
        r#"{"kind":"NamespaceList","metadata":{"resourceVersion":"1"},"items":[]}"#,
        false,
        "",
    );
    route("GET", "/api/v1/namespaces?watch", 200, JSON, "", true, "");
}

/// Aggregated discovery (`/api` and `/apis`): pods, namespaces, events, and the
/// review resources.
fn route_discovery() {
    let verbs = r#"["get","list","watch"]"#;
    route(
        "GET",
        "/api$",
        200,
        AGGREGATED,
        &format!(
            r#"{{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{{}},"items":[{{"metadata":{{}},"versions":[{{"version":"v1","resources":[
              {{"resource":"pods","responseKind":{{"group":"","version":"","kind":"Pod"}},"scope":"Namespaced","verbs":{verbs}}},
              {{"resource":"namespaces","responseKind":{{"group":"","version":"","kind":"Namespace"}},"scope":"Cluster","verbs":{verbs}}},
              {{"resource":"events","responseKind":{{"group":"","version":"","kind":"Event"}},"scope":"Namespaced","verbs":{verbs}}}],"freshness":"Current"}}]}}]}}"#
        ),
        false,
        "",
    );
    route(
        "GET",
        "/apis$",
        200,
        AGGREGATED,
        r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{"name":"authorization.k8s.io"},"versions":[{"version":"v1","resources":[
          {"resource":"selfsubjectaccessreviews","responseKind":{"group":"","version":"","kind":"SelfSubjectAccessReview"},"scope":"Cluster","verbs":["create"]},
          {"resource":"selfsubjectrulesreviews","responseKind":{"group":"","version":"","kind":"SelfSubjectRulesReview"},"scope":"Cluster","verbs":["create"]}],"freshness":"Current"}]}]}"#,
        false,
        "",
    );
}

fn forbidden(resource: &str, scope: &str) -> String {
    format!(
        r#"{{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":"{resource} is forbidden: User \"dev\" cannot list resource \"{resource}\" in API group \"\" {scope}","reason":"Forbidden","details":{{"kind":"{resource}"}},"code":403}}"#
    )
}

fn mount_app(hash: &str) -> (web_sys::Element, yew::AppHandle<App>) {
    set_hash(hash);
    let root = mount();
    let handle = yew::Renderer::<App>::with_root(root.clone()).render();
    (root, handle)
}

async fn until_text(root: &web_sys::Element, selector: &str, what: &str) -> String {
    // A bound that only turns a hang into a failure: WebKitGTK in Xvfb on a loaded
    // machine once took over 4 s to mount the app.
    for _ in 0..3000 {
        if let Some(t) = text_of(root, selector) {
            return t;
        }
        sleep(10).await;
    }
    panic!(
        "timed out waiting for {what} ({selector}): {}\nrequests:\n{}",
        root.inner_html(),
        requests()
    );
}

#[wasm_bindgen_test]
async fn a_refused_view_says_why_in_the_table_area_and_offers_the_namespaces_the_user_can_use() {
    router_install();
    route_discovery();
    route(
        "GET",
        "/api/v1/namespaces?",
        403,
        JSON,
        &forbidden("namespaces", "at the cluster scope"),
        false,
        "",
    );
    route(
        "GET",
        "/api/v1/pods?",
        403,
        JSON,
        &forbidden("pods", "at the cluster scope"),
        false,
        "",
    );
    route(
        "GET",
        "/api/v1/namespaces/team-a/pods?limit",
        200,
        JSON,
        r#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[]}"#,
        false,
        "",
    );
    route(
        "GET",
        "/api/v1/namespaces/team-a/pods?watch",
        200,
        JSON,
        "",
        true,
        "",
    );
    route(
        "POST",
        "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        201,
        JSON,
        r#"{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","status":{"allowed":false}}"#,
        false,
        "",
    );
    let rules = |json: &str| {
        format!(
            r#"{{"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1","status":{{"resourceRules":{json},"incomplete":false}}}}"#
        )
    };
    route(
        "POST",
        "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
        201,
        JSON,
        &rules(r#"[{"verbs":["get","list","watch"],"apiGroups":[""],"resources":["pods"]}]"#),
        false,
        r#""namespace":"team-a""#,
    );
    route(
        "POST",
        "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
        201,
        JSON,
        &rules("[]"),
        false,
        "",
    );
    // Namespaces this browser remembers (the user cannot list namespaces).
    let storage = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    storage
        .set_item("kubelive.namespaces", r#"["team-b","team-a"]"#)
        .unwrap();

    let (root, handle) = mount_app("#r=v1/pods");
    let title = until_text(&root, "#problem-title", "the refusal").await;
    assert_eq!(title, "You may not list pods in all namespaces.");
    let message = text_of(&root, "#problem-message").unwrap();
    assert!(
        message.contains(r#"cannot list resource "pods" in API group "" at the cluster scope"#),
        "the server's words: {message}"
    );
    let html = root.inner_html();
    assert!(!html.contains("Waiting for the first list"), "{html}");
    // The rules reviews come back: team-a allows pods, team-b does not.
    until_text(
        &root,
        "button.choice.allowed[data-ns='team-a']",
        "team-a offered",
    )
    .await;
    let denied = until_text(&root, "#denied", "team-b marked").await;
    assert!(denied.contains("team-b"), "{denied}");
    assert!(
        text_of(&root, ".problem-hint")
            .unwrap()
            .starts_with("Pick a namespace you can use"),
        "{}",
        root.inner_html()
    );
    // The namespaces watch failed: said by the namespace field.
    let note = until_text(&root, "#ns-note", "the namespaces watch failure").await;
    assert!(note.contains("cannot list namespaces"), "{note}");
    // Bounded questions, each asked once.
    let log = requests();
    let posts: Vec<&str> = log.lines().filter(|l| l.starts_with("POST")).collect();
    assert!(posts.len() <= 4, "{posts:?}");
    assert_eq!(
        posts
            .iter()
            .filter(|l| l.contains(r#""namespace":"team-a""#) && l.contains("rules"))
            .count(),
        1,
        "{posts:?}"
    );
    // One click: a working view of team-a.
    let button: web_sys::HtmlElement = root
        .query_selector("button.choice.allowed[data-ns='team-a']")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    button.click();
    for _ in 0..300 {
        if requests().contains("GET /api/v1/namespaces/team-a/pods?watch=true") {
            break;
        }
        sleep(10).await;
    }
    assert!(
        requests().contains("GET /api/v1/namespaces/team-a/pods?limit="),
        "{}",
        requests()
    );
    let hash = web_sys::window().unwrap().location().hash().unwrap();
    assert!(hash.contains("ns=team-a"), "{hash}");
    sleep(100).await;
    assert!(
        root.query_selector("#problem").unwrap().is_none(),
        "{}",
        root.inner_html()
    );
    assert_eq!(
        text_of(&root, "#empty").as_deref(),
        Some("No objects match.")
    );
    let remembered = storage.get_item("kubelive.namespaces").unwrap().unwrap();
    assert_eq!(remembered, r#"["team-a","team-b"]"#);
    handle.destroy();
    storage.remove_item("kubelive.namespaces").unwrap();
}

#[wasm_bindgen_test]
async fn the_detail_panel_watches_the_objects_events_while_it_is_open() {
    router_install();
    route_discovery();
    route_no_namespaces();
    route(
        "GET",
        "/api/v1/pods?limit",
        200,
        JSON,
        &format!(
            r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"20"}},"items":[{}]}}"#,
            pod_json("web-1", 5).replace("u-web-1", "uid-web-1")
        ),
        false,
        "",
    );
    route("GET", "/api/v1/pods?watch", 200, JSON, "", true, "");
    let event = |name: &str, reason: &str, count: u32, last: &str| {
        format!(
            r#"{{"kind":"Event","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"default","uid":"e-{name}","resourceVersion":"3","creationTimestamp":"2024-01-01T00:00:00Z"}},"involvedObject":{{"kind":"Pod","namespace":"default","name":"web-1","uid":"uid-web-1"}},"reason":"{reason}","message":"{reason} happened","source":{{"component":"kubelet","host":"node-1"}},"firstTimestamp":"2024-01-01T00:00:00Z","lastTimestamp":"{last}","count":{count},"type":"Normal"}}"#
        )
    };
    let events_prefix =
        "/api/v1/namespaces/default/events?fieldSelector=involvedObject.uid%3Duid-web-1";
    route(
        "GET",
        &format!("{events_prefix}&limit"),
        200,
        JSON,
        &format!(
            r#"{{"kind":"EventList","apiVersion":"v1","metadata":{{"resourceVersion":"30"}},"items":[{},{}]}}"#,
            event("web-1.a", "Scheduled", 1, "2024-01-01T00:00:00Z"),
            event("web-1.b", "BackOff", 4, "2024-01-01T00:05:00Z")
        ),
        false,
        "",
    );
    route(
        "GET",
        &format!("{events_prefix}&watch"),
        200,
        JSON,
        "",
        true,
        "",
    );

    // The selection and its open panel come from the URL.
    let (root, handle) = mount_app("#r=v1/pods&sel=default/web-1&open=1");
    until_text(
        &root,
        "#related-events[data-state='live'] .events",
        "the events",
    )
    .await;
    let reasons: Vec<String> = {
        let list = root.query_selector_all(".event .ev-reason").unwrap();
        (0..list.length())
            .map(|i| list.item(i).unwrap().text_content().unwrap_or_default())
            .collect()
    };
    assert_eq!(reasons, ["BackOff", "Scheduled"], "newest first");
    let age = text_of(&root, ".event .ev-age").unwrap();
    assert!(age.contains("(x4 over"), "{age}");
    assert_eq!(text_of(&root, "#detail-name").as_deref(), Some("web-1"));
    assert!(!was_aborted(events_prefix));
    // Closing the panel stops its watch.
    let close: web_sys::HtmlElement = root
        .query_selector("#close-detail")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    close.click();
    sleep(100).await;
    assert!(root.query_selector("#detail").unwrap().is_none());
    assert!(
        was_aborted(&format!("{events_prefix}&watch")),
        "{}",
        requests()
    );
    let hash = web_sys::window().unwrap().location().hash().unwrap();
    assert_eq!(hash, "#r=v1/pods&sel=default/web-1");
    handle.destroy();
}

#[wasm_bindgen_test]
async fn secret_values_stay_out_of_the_dom_until_revealed_one_by_one() {
    let json = r#"{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db","namespace":"default","uid":"s1","resourceVersion":"4"},"type":"Opaque","data":{"password":"aHVudGVyMg==","user":"YWRtaW4="}}"#;
    let o = Arc::new(Object::parse(json.as_bytes(), &ParseOptions::default()).unwrap());
    let root = mount();
    yew::Renderer::<Detail>::with_root_and_props(
        root.clone(),
        DetailProps {
            object: o,
            deleted: false,
            fetched: Fetched::Loaded(Rc::new(serde_json::from_str(json).unwrap())),
            secret: true,
            on_close: Default::default(),
            events: Default::default(),
            now: 0.0,
            cols: Default::default(),
            shown: 0,
            history_target: None,
            history: Default::default(),
        },
    )
    .render();
    sleep(50).await;
    let html = root.inner_html();
    assert!(
        !html.contains("aHVudGVyMg==") && !html.contains("YWRtaW4="),
        "{html}"
    );
    assert!(html.contains("type: Opaque"), "{html}");
    let mask = root
        .query_selector("[data-secret='data.user']")
        .unwrap()
        .expect("a masked value");
    mask.dyn_ref::<web_sys::HtmlElement>().unwrap().click();
    sleep(50).await;
    let html = root.inner_html();
    assert!(html.contains("user: YWRtaW4="), "revealed: {html}");
    assert!(
        !html.contains("aHVudGVyMg=="),
        "the other stays masked: {html}"
    );
    // The JSON view masks the same values.
    root.query_selector("#format-json")
        .unwrap()
        .unwrap()
        .dyn_ref::<web_sys::HtmlElement>()
        .unwrap()
        .click();
    sleep(50).await;
    let text = text_of(&root, "#detail-text").unwrap();
    assert!(text.contains("\"user\": \"YWRtaW4=\""), "{text}");
    assert!(text.contains("\"password\": ••••••"), "{text}");
    assert!(!root.inner_html().contains("aHVudGVyMg=="));
}

#[wasm_bindgen_test]
async fn the_detail_panel_says_why_the_object_cannot_be_shown() {
    let o = hostile();
    let root = mount();
    yew::Renderer::<Detail>::with_root_and_props(
        root.clone(),
        DetailProps {
            object: o,
            deleted: false,
            fetched: Fetched::Failed("HTTP 403: pods \"x\" is forbidden".into()),
            secret: false,
            on_close: Default::default(),
            events: Default::default(),
            now: 0.0,
            cols: Default::default(),
            shown: 0,
            history_target: None,
            history: Default::default(),
        },
    )
    .render();
    sleep(50).await;
    let text = text_of(&root, "#detail-error").unwrap();
    assert!(text.contains("HTTP 403: pods \"x\" is forbidden"), "{text}");
}

/// A pooled row's element, read back: its key, its place in the table, its classes,
/// its inline style and its NAME cell.
#[derive(Debug)]
struct ShownEl {
    el: web_sys::Element,
    key: String,
    index: usize,
    class: String,
    style: String,
    name: String,
}

/// The inline `animation-delay` of a row (ms), NaN without one.
fn delay_of(style: &str) -> f64 {
    style
        .split("animation-delay:")
        .nth(1)
        .and_then(|d| d.trim_end_matches(';').strip_suffix("ms"))
        .and_then(|d| d.parse().ok())
        .unwrap_or(f64::NAN)
}

fn shown_rows(root: &web_sys::Element) -> Vec<ShownEl> {
    let list = root.query_selector_all(".row").unwrap();
    let mut rows: Vec<ShownEl> = (0..list.length())
        .map(|i| {
            let el: web_sys::Element = list.item(i).unwrap().dyn_into().unwrap();
            ShownEl {
                key: el.get_attribute("data-key").unwrap_or_default(),
                index: el.get_attribute("aria-rowindex").unwrap().parse().unwrap(),
                class: el.get_attribute("class").unwrap_or_default(),
                style: el.get_attribute("style").unwrap_or_default(),
                name: text_of(&el, ".td.name").unwrap_or_default(),
                el,
            }
        })
        .collect();
    rows.sort_by_key(|r| r.index);
    rows
}

#[wasm_bindgen_test]
async fn scrolling_reuses_the_row_elements_and_row_states_follow_their_objects() {
    let opts = ParseOptions {
        columns: ColumnKind::Pod,
        ..ParseOptions::default()
    };
    let pods: Vec<Arc<Object>> = (0..60)
        .map(|i| {
            let json = pod_json(&format!("pod-{i:02}"), 10 + i);
            Arc::new(Object::parse(json.as_bytes(), &opts).unwrap())
        })
        .collect();
    let cols: Rc<Vec<Column>> = Rc::new(view_columns(None, ColumnKind::Pod, true, false));
    let looks = Rc::new(cell_looks(&cols, &cols, &Rooms::default()));
    let now = kubelive_web::time::now_ms();
    // pod-10 changed 500 ms ago, pod-30 changed 300 ms ago, pod-12 is being deleted.
    let look = move |key: &str| match key {
        "default/pod-10" => (
            RowState::Changed {
                added: false,
                generation: 1,
            },
            now - 500.0,
        ),
        "default/pod-30" => (
            RowState::Changed {
                added: true,
                generation: 2,
            },
            now - 300.0,
        ),
        "default/pod-12" => (RowState::Gone, now - 100.0),
        _ => (RowState::Normal, 0.0),
    };
    let selected_by_click = Rc::new(RefCell::new(Vec::<String>::new()));
    let props = |first: usize, selected: Option<&str>| RowsProps {
        rows: Rc::new(
            pods[first..first + 20]
                .iter()
                .map(|o| ShownRow::new(o.clone(), look))
                .collect(),
        ),
        first,
        base: 0,
        pool: 20,
        cols: cols.clone(),
        looks: looks.clone(),
        selected: selected.map(str::to_string),
        now: 1_704_067_260.0,
        on_select: {
            let s = selected_by_click.clone();
            yew::Callback::from(move |k: String| s.borrow_mut().push(k))
        },
        on_open: Default::default(),
    };
    let root = mount();
    let mut handle =
        yew::Renderer::<Rows>::with_root_and_props(root.clone(), props(0, Some("default/pod-05")))
            .render();
    sleep(50).await;
    let before = shown_rows(&root);
    assert_eq!(before.len(), 20);
    let changed: Vec<&str> = before
        .iter()
        .filter(|r| r.class.contains("mod-") || r.class.contains("added-"))
        .map(|r| r.key.as_str())
        .collect();
    assert_eq!(changed, ["default/pod-10"], "only the changed row flashes");
    let flashing = &before[10];
    // At its phase: 500 ms in, and the little time this test took since.
    let phase = delay_of(&flashing.style);
    assert!(
        (-1500.0..=-500.0).contains(&phase),
        "a flash shown late starts at its phase: {}",
        flashing.style
    );
    assert!(before[12].class.contains("gone"), "{}", before[12].class);

    // Scrolled by 15 rows: rows 15..35.
    handle.update(props(15, Some("default/pod-05")));
    sleep(50).await;
    let after = shown_rows(&root);
    assert_eq!(after.len(), 20, "the pool keeps its size");
    for (i, r) in after.iter().enumerate() {
        let want = format!("pod-{:02}", 15 + i);
        // The header is the grid's row 1.
        assert_eq!(r.index, 17 + i, "aria-rowindex");
        assert_eq!(r.key, format!("default/{want}"));
        assert_eq!(r.name, want, "the cells are the row's");
        assert!(
            before.iter().any(|b| b.el.is_same_node(Some(&r.el))),
            "row {} is shown in one of the elements there were (no element created)",
            r.key
        );
    }
    // The rows that stayed kept their elements.
    for r in &after[..5] {
        let was = before.iter().find(|b| b.key == r.key).unwrap();
        assert!(was.el.is_same_node(Some(&r.el)), "{} moved", r.key);
    }
    // pod-30 entered the element pod-10 flashed in: its own flash at its own phase;
    // the elements of rows that merely scrolled in do not flash, nor fade.
    let changed: Vec<&ShownEl> = after
        .iter()
        .filter(|r| r.class.contains("mod-") || r.class.contains("added-"))
        .collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(changed[0].key, "default/pod-30");
    assert!(changed[0].class.contains("added-"), "{}", changed[0].class);
    let phase = delay_of(&changed[0].style);
    assert!(
        (-1300.0..=-300.0).contains(&phase),
        "a flash scrolled into a reused element starts at its own phase: {}",
        changed[0].style
    );
    assert!(after.iter().all(|r| !r.class.contains("gone")));
    // The selection is the object's, not the element's: pod-05 scrolled out.
    assert!(root.query_selector(".row.selected").unwrap().is_none());
    handle.update(props(15, Some("default/pod-20")));
    sleep(50).await;
    let selected: Vec<String> = shown_rows(&root)
        .into_iter()
        .filter(|r| r.class.split_whitespace().any(|c| c == "selected"))
        .map(|r| r.key)
        .collect();
    assert_eq!(selected, ["default/pod-20"]);
    // A click on a reused element selects what it shows now.
    let target = shown_rows(&root)
        .into_iter()
        .find(|r| r.key == "default/pod-33")
        .unwrap();
    target.el.dyn_ref::<web_sys::HtmlElement>().unwrap().click();
    sleep(20).await;
    assert_eq!(*selected_by_click.borrow(), ["default/pod-33"]);
}

/// The keys of the rows the table shows (faded ones included), in table order.
fn row_keys(root: &web_sys::Element) -> Vec<String> {
    shown_rows(root).into_iter().map(|r| r.key).collect()
}

#[wasm_bindgen_test]
async fn rows_and_counts_keep_up_with_the_watch_while_the_user_scrolls() {
    router_install();
    route_discovery();
    route_no_namespaces();
    let items: Vec<String> = (0..200)
        .map(|i| pod_json(&format!("pod-{i:03}"), 10))
        .collect();
    route(
        "GET",
        "/api/v1/pods?limit",
        200,
        JSON,
        &format!(
            r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"100"}},"items":[{}]}}"#,
            items.join(",")
        ),
        false,
        "",
    );
    route("GET", "/api/v1/pods?watch", 200, JSON, "", true, "");
    // The page's layout for the table (the app's style.css is not loaded here): a
    // scroller of ten rows.
    let doc = web_sys::window().unwrap().document().unwrap();
    let style = doc.create_element("style").unwrap();
    style.set_text_content(Some(
        ".scroller{height:280px;overflow:auto;position:relative} \
         .window{position:absolute;top:0;left:0;right:0} \
         .row{position:absolute;left:0;right:0;height:28px}",
    ));
    doc.head().unwrap().append_child(&style).unwrap();
    let (root, handle) = mount_app("#r=v1/pods");
    let total = |root: &web_sys::Element| text_of(root, "#total-count").unwrap_or_default();
    for _ in 0..300 {
        if total(&root) == "200" && requests().contains("GET /api/v1/pods?watch") {
            break;
        }
        sleep(10).await;
    }
    assert_eq!(total(&root), "200", "{}", root.inner_html());
    let scroller: web_sys::HtmlElement = root
        .query_selector("#scroller")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    // The user scrolls back and forth over the first rows, a step every 16 ms, for
    // the whole test: every frame in it is a scrolling one.
    let started = kubelive_web::time::now_ms();
    let mut step = 0;
    let mut scroll = |scroller: &web_sys::HtmlElement| {
        step += 1;
        scroller.set_scroll_top(28 + (step % 8) * 14);
    };
    for _ in 0..10 {
        scroll(&scroller);
        sleep(16).await;
    }
    // Ten pods added (their names sort right after pod-000: on screen) and pod-003
    // deleted, in one burst.
    let mut burst = String::new();
    for i in 0..10 {
        burst.push_str(&format!(
            "{{\"type\":\"ADDED\",\"object\":{}}}\n",
            pod_json(&format!("pod-000-{i}"), 101 + i)
        ));
    }
    burst.push_str(&format!(
        "{{\"type\":\"DELETED\",\"object\":{}}}\n",
        pod_json("pod-003", 111)
    ));
    assert_eq!(route_push("/api/v1/pods?watch", &burst), 1);
    let pushed = kubelive_web::time::now_ms();
    // Still scrolling, the count and the rows show the burst within a few frames of
    // the table's cadence (SCROLL_APPLY_MS, 100 ms), not once the scroll stops.
    let mut caught_up = None;
    while kubelive_web::time::now_ms() - pushed < 1500.0 {
        scroll(&scroller);
        sleep(16).await;
        let keys = row_keys(&root);
        let gone = shown_rows(&root)
            .iter()
            .all(|r| r.key != "default/pod-003" || r.class.contains("gone"));
        if total(&root) == "209" && keys.iter().any(|k| k == "default/pod-000-4") && gone {
            caught_up = Some(kubelive_web::time::now_ms() - pushed);
            break;
        }
    }
    let scrolled_for = kubelive_web::time::now_ms() - started;
    let Some(after) = caught_up else {
        panic!(
            "the burst is not shown while scrolling (count {}, rows {:?})",
            total(&root),
            row_keys(&root)
        );
    };
    assert!(
        after < 1000.0,
        "shown {after:.0} ms after it arrived, scrolling for {scrolled_for:.0} ms"
    );
    // And the rows shown are the table's at the scroll position: in order, one per
    // row index, the window starting at the scrolled-to row less the overscan.
    let rows = shown_rows(&root);
    let first = rows[0].index;
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.index, first + i, "{:?}", row_keys(&root));
    }
    let keys = row_keys(&root);
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "rows in name order");
    handle.destroy();
    style.remove();
}
