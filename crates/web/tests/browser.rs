//! In the browser (wasm-bindgen-test, headless Chromium): the driver against a
//! scripted `fetch` whose bodies are real `ReadableStream`s, and the components with
//! hostile data.
#![cfg(target_arch = "wasm32")]

use kubelive_core::{Collection, ColumnKind, Config, Event, Object, ParseOptions};
use kubelive_web::app::parts::{
    Detail, DetailProps, EventLog, EventLogProps, LogEntry, Rows, RowsProps, ShownRow, StatusBar,
    StatusBarProps,
};
use kubelive_web::driver::{Driver, DriverRef};
use kubelive_web::status::StatusView;
use kubelive_web::table::{columns, RowState};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use yew::AttrValue;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
const calls = [];
export function mock_install() {
  calls.length = 0;
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
  const body = new ReadableStream({ start(c) { call.controller = c; } });
  const headers = { 'Content-Type': 'application/json' };
  if (retryAfter) headers['Retry-After'] = retryAfter;
  call.resolve(new Response(body, { status, headers }));
}
export function mock_push(i, text) { calls[i].controller.enqueue(new TextEncoder().encode(text)); }
export function mock_close(i) { calls[i].controller.close(); }
export function mock_break(i) { calls[i].controller.error(new TypeError('network error')); }
export function mock_reject(i) { calls[i].reject(new TypeError('Failed to fetch')); }
"#)]
extern "C" {
    fn mock_install();
    fn mock_calls() -> u32;
    fn mock_url(i: u32) -> String;
    fn mock_aborted(i: u32) -> bool;
    fn mock_respond(i: u32, status: u16, retry_after: Option<String>);
    fn mock_push(i: u32, text: &str);
    fn mock_close(i: u32);
    fn mock_break(i: u32);
    fn mock_reject(i: u32);
}

async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    JsFuture::from(p).await.unwrap();
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
        Event::Relisting { reason } => format!("RELIST {reason}"),
        Event::BackingOff { reason, .. } => format!("BACKOFF {reason}"),
        Event::Failed { error } => format!("FAILED {error}"),
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
async fn driver_streams_lists_and_watches_and_resumes_after_a_reset() {
    mock_install();
    let log: Rc<RefCell<Vec<String>>> = Rc::default();
    let driver = start(&log);
    until("the first list request", || mock_calls() == 1).await;
    assert_eq!(mock_url(0), "/api/v1/pods?limit=2");
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
    // The body dies by a network error: a reset, visible at once, then a resume
    // from the last version seen (no relist).
    mock_break(1);
    until("backing off", || driver.status().phase == "backingOff").await;
    assert!(
        log.borrow()
            .iter()
            .any(|l| l.starts_with("BACKOFF connection lost")),
        "{:?}",
        log.borrow()
    );
    until("the resumed watch", || mock_calls() == 3).await;
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
    mock_install();
    let log: Rc<RefCell<Vec<String>>> = Rc::default();
    let driver = start(&log);
    until("the first request", || mock_calls() == 1).await;
    mock_reject(0);
    until("backing off", || driver.status().phase == "backingOff").await;
    assert!(log.borrow().iter().any(|l| l.contains("cannot connect")));
    until("the retry", || mock_calls() == 2).await;
    assert_eq!(mock_url(1), "/api/v1/pods?limit=2");
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
    mock_install();
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

fn mount() -> web_sys::Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let div = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&div).unwrap();
    div
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
    let cols = columns(ColumnKind::Pod, true);
    yew::Renderer::<Rows>::with_root_and_props(
        root.clone(),
        RowsProps {
            rows: Rc::new(vec![ShownRow::new(o.clone(), |_| RowState::Normal)]),
            first: 0,
            base: 0,
            cols: Rc::new(cols),
            template: AttrValue::default(),
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
    assert!(text.ends_with("60s"), "the age column: {text}");
    assert_inert(&root);

    let detail = mount();
    yew::Renderer::<Detail>::with_root_and_props(
        detail.clone(),
        DetailProps {
            object: o.clone(),
            deleted: true,
            copied: false,
            on_copy: Default::default(),
            on_close: Default::default(),
            events: Default::default(),
            now: 0.0,
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
    assert!(
        text.contains("\"resourceVersion\": \"7\""),
        "pretty JSON: {text}"
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
