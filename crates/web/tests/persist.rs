//! In the browser (wasm-bindgen-test, headless Chromium): saved views in IndexedDB
//! (`persist`), bounded by age and size, dropped when the server's identity changes or
//! the user turns saving off; and the driver started from a saved view (a WATCH from
//! its version, no LIST) or saving the view it runs, against a scripted `fetch`.
#![cfg(target_arch = "wasm32")]

use kubelive_core::{
    Collection, Config, Engine, Event, IncludeObject, Instant, KeptMetadata, SavedView, ViewKey,
};
use kubelive_web::driver::{Driver, DriverRef};
use kubelive_web::persist::{
    server_identity, server_identity_within, view_id, Limits, Persist, ServerIdentity,
};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
const urls = [];
// LISTs answer `list` (a Table); watches send `watch` (if any) and stay open.
export function fetch_install(list, watch) {
  urls.length = 0;
  window.fetch = (url, init) => {
    urls.push(String(url));
    if (String(url).includes('watch=true')) {
      if (!watch) return new Promise(() => {});
      const body = new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode(watch)); } });
      return Promise.resolve(new Response(body, { status: 200 }));
    }
    return Promise.resolve(new Response(list, { status: 200, headers: { 'content-type': 'application/json' } }));
  };
}
export function fetch_urls() { return urls.join('\n'); }
// Answers GETs by path from `answers` (path -> [[status, body], ...], taken in turn, the
// last one again and again; status 0: no answer, a network error); anything else 404.
export function fetch_answers(answers) {
  urls.length = 0;
  window.fetch = (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input.url, location.href);
    urls.push(url.pathname);
    const turns = answers[url.pathname] || [[404, '{}']];
    const [status, body] = turns.length > 1 ? turns.shift() : turns[0];
    if (status === 0) return Promise.reject(new TypeError('Failed to fetch'));
    return Promise.resolve(new Response(body, { status, headers: { 'content-type': 'application/json' } }));
  };
}
export function tick(ms) { return new Promise(r => setTimeout(r, ms)); }
// What the browser fires as a page goes into its back/forward cache and comes back.
export function page_transition(type, persisted) { window.dispatchEvent(new PageTransitionEvent(type, { persisted })); }
"#)]
extern "C" {
    fn fetch_install(list: &str, watch: Option<String>);
    fn fetch_urls() -> String;
    fn fetch_answers(answers: JsValue);
    fn tick(ms: u32) -> js_sys::Promise;
    fn page_transition(kind: &str, persisted: bool);
}

async fn sleep(ms: u32) {
    let _ = wasm_bindgen_futures::JsFuture::from(tick(ms)).await;
}

fn config() -> Config {
    let mut c =
        Config::new(Collection::parse("/api/v1/pods").unwrap()).tables(IncludeObject::Metadata);
    c.metadata = KeptMetadata::Identity;
    c
}

fn key(path: &str) -> ViewKey {
    let mut c = config();
    c.collection = Collection::parse(path).unwrap();
    ViewKey::of(&c)
}

fn strong(value: &str) -> ServerIdentity {
    ServerIdentity {
        value: value.into(),
        strong: true,
    }
}

async fn open(name: &str, limits: Limits) -> Persist {
    let p = Persist::open_named(name, limits).await.expect("IndexedDB");
    p.set_enabled(true).await.unwrap();
    p.clear().await.unwrap();
    p
}

const SERVER: &str = "http://127.0.0.1:8001";
const HOUR: f64 = 3600.0 * 1000.0;

#[wasm_bindgen_test]
async fn a_saved_view_loads_back_by_server_view_and_identity() {
    let p = open("test-roundtrip", Limits::default()).await;
    let id = strong("uid:1");
    let pods = key("/api/v1/pods");
    p.save_at(SERVER, &id, &pods, b"saved", 1000.0)
        .await
        .unwrap();
    assert_eq!(
        p.load_at(SERVER, &id, &pods, 2000.0).await.unwrap(),
        Some(b"saved".to_vec())
    );
    // A trailing slash is the same server; another server, view or selector is not.
    assert!(p
        .load_at("http://127.0.0.1:8001/", &id, &pods, 2000.0)
        .await
        .unwrap()
        .is_some());
    assert_eq!(
        p.load_at("http://other:8001", &id, &pods, 2000.0)
            .await
            .unwrap(),
        None
    );
    let ns = key("/api/v1/namespaces/a/pods");
    assert_eq!(p.load_at(SERVER, &id, &ns, 2000.0).await.unwrap(), None);
    let mut selected = config();
    selected.label_selector = Some("app=web".into());
    let selected = ViewKey::of(&selected);
    assert_eq!(
        p.load_at(SERVER, &id, &selected, 2000.0).await.unwrap(),
        None
    );
    assert_ne!(view_id(SERVER, &pods), view_id(SERVER, &selected));
    // Saved again: replaced, not added.
    p.save_at(SERVER, &id, &pods, b"newer", 3000.0)
        .await
        .unwrap();
    assert_eq!(p.usage().await.unwrap(), (1, 5.0));
    assert_eq!(
        p.load_at(SERVER, &id, &pods, 3000.0).await.unwrap(),
        Some(b"newer".to_vec())
    );
    p.forget(SERVER, &pods).await.unwrap();
    assert_eq!(p.usage().await.unwrap(), (0, 0.0));
}

#[wasm_bindgen_test]
async fn a_view_older_than_the_age_bound_is_not_restored_and_is_dropped() {
    let p = open("test-age", Limits::default()).await;
    let id = strong("uid:1");
    let pods = key("/api/v1/pods");
    p.save_at(SERVER, &id, &pods, b"old", 0.0).await.unwrap();
    assert!(p
        .load_at(SERVER, &id, &pods, 23.0 * HOUR)
        .await
        .unwrap()
        .is_some());
    assert_eq!(
        p.load_at(SERVER, &id, &pods, 25.0 * HOUR).await.unwrap(),
        None
    );
    assert_eq!(p.usage().await.unwrap(), (0, 0.0));
    // A clock set back past the save does not make a view from the future valid.
    p.save_at(SERVER, &id, &pods, b"future", 10.0 * HOUR)
        .await
        .unwrap();
    assert_eq!(
        p.load_at(SERVER, &id, &pods, 1.0 * HOUR).await.unwrap(),
        None
    );
}

#[wasm_bindgen_test]
async fn the_oldest_views_are_evicted_to_fit_the_size_bound() {
    let limits = Limits {
        max_bytes: 100.0,
        ..Limits::default()
    };
    let p = open("test-size", limits).await;
    let id = strong("uid:1");
    let views = ["/api/v1/pods", "/api/v1/nodes", "/api/v1/services"].map(key);
    for (i, view) in views.iter().enumerate() {
        p.save_at(SERVER, &id, view, &[b'x'; 40], 1000.0 * (i + 1) as f64)
            .await
            .unwrap();
    }
    assert_eq!(p.usage().await.unwrap(), (2, 80.0));
    assert_eq!(
        p.load_at(SERVER, &id, &views[0], 5000.0).await.unwrap(),
        None
    );
    assert!(p
        .load_at(SERVER, &id, &views[2], 5000.0)
        .await
        .unwrap()
        .is_some());
    // A view larger than the bound alone is not saved (and evicts nothing).
    p.save_at(SERVER, &id, &views[0], &[b'x'; 101], 6000.0)
        .await
        .unwrap();
    assert_eq!(p.usage().await.unwrap(), (2, 80.0));
}

#[wasm_bindgen_test]
async fn another_cluster_at_the_same_url_drops_that_servers_views_only() {
    let p = open("test-identity", Limits::default()).await;
    let pods = key("/api/v1/pods");
    let nodes = key("/api/v1/nodes");
    p.save_at(SERVER, &strong("uid:A"), &pods, b"a", 1.0)
        .await
        .unwrap();
    p.save_at(SERVER, &strong("uid:A"), &nodes, b"a", 1.0)
        .await
        .unwrap();
    p.save_at("http://elsewhere", &strong("uid:C"), &pods, b"c", 1.0)
        .await
        .unwrap();
    // The proxy now serves cluster B: none of A's views, and they are gone.
    assert_eq!(
        p.load_at(SERVER, &strong("uid:B"), &pods, 2.0)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        p.load_at(SERVER, &strong("uid:A"), &nodes, 2.0)
            .await
            .unwrap(),
        None
    );
    assert_eq!(p.usage().await.unwrap(), (1, 1.0));
    assert!(p
        .load_at("http://elsewhere", &strong("uid:C"), &pods, 2.0)
        .await
        .unwrap()
        .is_some());
    // Saving under B keeps B's from then on.
    p.save_at(SERVER, &strong("uid:B"), &pods, b"b", 3.0)
        .await
        .unwrap();
    assert_eq!(
        p.load_at(SERVER, &strong("uid:B"), &pods, 4.0)
            .await
            .unwrap(),
        Some(b"b".to_vec())
    );
}

#[wasm_bindgen_test]
async fn a_weak_identity_saves_nothing_unless_allowed() {
    let weak = ServerIdentity {
        value: "version:v1.32.0 abc 2026-01-01 linux/amd64".into(),
        strong: false,
    };
    let pods = key("/api/v1/pods");
    let p = open("test-weak", Limits::default()).await;
    p.save_at(SERVER, &weak, &pods, b"w", 1.0).await.unwrap();
    assert_eq!(p.usage().await.unwrap(), (0, 0.0));
    drop(p);
    let allowed = Limits {
        allow_weak_identity: true,
        ..Limits::default()
    };
    let p = open("test-weak", allowed).await;
    p.save_at(SERVER, &weak, &pods, b"w", 1.0).await.unwrap();
    assert_eq!(
        p.load_at(SERVER, &weak, &pods, 2.0).await.unwrap(),
        Some(b"w".to_vec())
    );
}

#[wasm_bindgen_test]
async fn turned_off_nothing_is_kept_or_restored() {
    let p = open("test-off", Limits::default()).await;
    let id = strong("uid:1");
    let pods = key("/api/v1/pods");
    p.save_at(SERVER, &id, &pods, b"kept", 1.0).await.unwrap();
    assert!(p.enabled().await.unwrap());
    p.set_enabled(false).await.unwrap();
    assert!(!p.enabled().await.unwrap());
    assert_eq!(
        p.usage().await.unwrap(),
        (0, 0.0),
        "turning off drops every view"
    );
    p.save_at(SERVER, &id, &pods, b"kept", 2.0).await.unwrap();
    assert_eq!(p.load_at(SERVER, &id, &pods, 3.0).await.unwrap(), None);
    assert_eq!(p.usage().await.unwrap(), (0, 0.0));
    // The setting is the origin's: another handle sees it.
    let other = Persist::open_named("test-off", Limits::default())
        .await
        .unwrap();
    assert!(!other.enabled().await.unwrap());
    p.set_enabled(true).await.unwrap();
    p.save_at(SERVER, &id, &pods, b"kept", 4.0).await.unwrap();
    assert_eq!(p.usage().await.unwrap(), (1, 4.0));
}

/// The screen kept of `view` on [`SERVER`] shown as `shown`, under `id` at `now_ms`.
async fn screen(
    p: &Persist,
    id: &ServerIdentity,
    view: &ViewKey,
    shown: &str,
    now_ms: f64,
) -> Option<String> {
    p.screen_at(SERVER, id, view, shown, now_ms).await.unwrap()
}

/// Keeps `window` as that screen.
async fn keep(
    p: &Persist,
    id: &ServerIdentity,
    view: &ViewKey,
    shown: &str,
    window: &str,
    now_ms: f64,
) {
    p.save_screen_at(SERVER, id, view, shown, window, now_ms)
        .await
        .unwrap();
}

#[wasm_bindgen_test]
async fn a_views_first_screen_is_kept_beside_it_and_goes_with_it() {
    let p = open("test-screens", Limits::default()).await;
    let (a, b) = (strong("uid:a"), strong("uid:b"));
    let pods = key("/api/v1/pods");
    let svcs = key("/api/v1/services");
    let by_age = "-age\n\nfalse";
    let window = r#"{"first":0,"length":2,"rows":[]}"#;
    // No view kept: no screen either (it could never be shown restored).
    keep(&p, &a, &pods, by_age, window, 1000.0).await;
    assert_eq!(screen(&p, &a, &pods, by_age, 1000.0).await, None);
    p.save_at(SERVER, &a, &pods, b"rows", 1000.0).await.unwrap();
    keep(&p, &a, &pods, by_age, window, 1500.0).await;
    assert_eq!(
        screen(&p, &a, &pods, by_age, 2000.0).await.as_deref(),
        Some(window)
    );
    // The view saved again keeps its screen.
    p.save_at(SERVER, &a, &pods, b"newer", 1800.0)
        .await
        .unwrap();
    assert_eq!(
        screen(&p, &a, &pods, by_age, 2000.0).await.as_deref(),
        Some(window),
        "a view saved again keeps its screen"
    );
    // Shown another way, of another view, under another identity: none.
    for (id, view, shown) in [
        (&a, &pods, "age\n\nfalse"),
        (&a, &svcs, by_age),
        (&b, &pods, by_age),
    ] {
        assert_eq!(screen(&p, id, view, shown, 2000.0).await, None);
    }
    // The view expired: its screen is not shown; it goes when the view is evicted.
    let day = 24.0 * HOUR;
    assert_eq!(
        screen(&p, &a, &pods, by_age, 1800.0 + day + 1.0).await,
        None
    );
    // Forgotten with its view, and with every view when saving is turned off.
    p.forget(SERVER, &pods).await.unwrap();
    p.save_at(SERVER, &a, &pods, b"rows", 3000.0).await.unwrap();
    assert_eq!(screen(&p, &a, &pods, by_age, 3000.0).await, None);
    keep(&p, &a, &pods, by_age, window, 3000.0).await;
    // Another cluster at the URL: the view goes, and its screen with it.
    p.save_at(SERVER, &b, &svcs, b"other", 4000.0)
        .await
        .unwrap();
    p.save_at(SERVER, &a, &pods, b"rows", 5000.0).await.unwrap();
    assert_eq!(
        screen(&p, &a, &pods, by_age, 5000.0).await,
        None,
        "evicted with its view"
    );
    keep(&p, &a, &pods, by_age, window, 5000.0).await;
    p.set_enabled(false).await.unwrap();
    p.set_enabled(true).await.unwrap();
    p.save_at(SERVER, &a, &pods, b"rows", 6000.0).await.unwrap();
    assert_eq!(screen(&p, &a, &pods, by_age, 6000.0).await, None);
    // A screen too large is not kept.
    let huge = format!(
        r#"{{"rows":"{}"}}"#,
        "x".repeat(kubelive_web::persist::SCREEN_MAX_BYTES)
    );
    keep(&p, &a, &pods, by_age, &huge, 6000.0).await;
    assert_eq!(screen(&p, &a, &pods, by_age, 6000.0).await, None);
}

fn table(rv: u64, names: &[&str]) -> String {
    let rows: Vec<String> = names
        .iter()
        .map(|n| {
            format!(
                r#"{{"cells":["{n}","Running"],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"name":"{n}","namespace":"a","uid":"u-{n}","resourceVersion":"{rv}","creationTimestamp":"2026-01-01T00:00:00Z"}}}}}}"#
            )
        })
        .collect();
    format!(
        r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"{rv}"}},"columnDefinitions":[{{"name":"Name","type":"string","format":"name","description":"","priority":0}},{{"name":"Status","type":"string","format":"","description":"","priority":0}}],"rows":[{}]}}"#,
        rows.join(",")
    )
}

/// A saved view of p1 and p2 at version 42, made by an engine in this page.
fn saved_view() -> Vec<u8> {
    let mut engine = Engine::new(config(), Instant::ZERO);
    let list = engine.poll_request().unwrap();
    engine.handle_response(list.id, 200, &[], Instant::ZERO);
    engine.handle_body(list.id, table(42, &["p1", "p2"]).as_bytes(), Instant::ZERO);
    engine.handle_end(list.id, Instant::ZERO);
    let watch = engine.poll_request().unwrap();
    engine.handle_response(watch.id, 200, &[], Instant::ZERO);
    engine.save_view().unwrap()
}

type Log = Rc<RefCell<Vec<String>>>;

fn sink(log: &Log) -> kubelive_web::driver::Sink {
    let log = log.clone();
    Box::new(move |_: &DriverRef<'_>, events: Vec<Event>| {
        for e in events {
            log.borrow_mut().push(match e {
                Event::Added(o) => format!("Added {}", o.name()),
                Event::Restored {
                    objects,
                    resource_version,
                } => format!("Restored {objects} at {resource_version}"),
                Event::Synced {
                    objects,
                    resource_version,
                } => format!("Synced {objects} at {resource_version}"),
                Event::Columns { columns } => format!("Columns {}", columns.len()),
                other => format!("{other:?}"),
            });
        }
    })
}

#[wasm_bindgen_test]
async fn a_driver_restored_from_a_saved_view_shows_it_and_watches_without_listing() {
    fetch_install(&table(90, &[]), None);
    let log: Log = Rc::default();
    let (driver, error) = Driver::restore(config(), &saved_view(), "", sink(&log));
    assert_eq!(error, None);
    let mut events = log.borrow().clone();
    events.sort();
    assert_eq!(
        events,
        ["Added p1", "Added p2", "Columns 2", "Restored 2 at 42"]
    );
    assert_eq!(driver.with_store(|s| s.len()), 2);
    // What was just restored is not saved again (that would only make it look newer).
    let saves = Rc::new(RefCell::new(0));
    let count = saves.clone();
    driver.save_views(0.0, usize::MAX, Box::new(move |_| *count.borrow_mut() += 1));
    sleep(0).await;
    assert_eq!(*saves.borrow(), 0);
    assert_eq!(
        fetch_urls().split("&timeoutSeconds").next().unwrap(),
        "/api/v1/pods?watch=true&resourceVersion=42&allowWatchBookmarks=true"
    );
    driver.stop();
}

#[wasm_bindgen_test]
async fn a_saved_view_that_does_not_restore_lists_and_says_why() {
    fetch_install(&table(90, &[]), None);
    let log: Log = Rc::default();
    let mut damaged = saved_view();
    let last = damaged.len() - 1;
    damaged[last] ^= 1;
    let (driver, error) = Driver::restore(config(), &damaged, "", sink(&log));
    assert_eq!(error, Some(kubelive_core::RestoreError::Damaged));
    let mut other = config();
    other.collection = Collection::parse("/api/v1/namespaces/a/pods").unwrap();
    let (driver2, error) = Driver::restore(other, &saved_view(), "", sink(&log));
    assert!(
        matches!(
            error,
            Some(kubelive_core::RestoreError::OtherView {
                what: "collection",
                ..
            })
        ),
        "{error:?}"
    );
    sleep(0).await;
    let urls = fetch_urls();
    assert!(urls.starts_with("/api/v1/pods?limit="), "{urls}");
    assert!(urls.contains("/api/v1/namespaces/a/pods?limit="), "{urls}");
    driver.stop();
    driver2.stop();
}

#[wasm_bindgen_test]
async fn a_running_view_is_saved_when_it_syncs() {
    fetch_install(&table(77, &["p1", "p2", "p3"]), None);
    let log: Log = Rc::default();
    let mut c = config();
    c.page_size = 100;
    let driver = Driver::start(c, "", sink(&log));
    let saved: Rc<RefCell<Vec<Vec<u8>>>> = Rc::default();
    let into = saved.clone();
    driver.save_views(
        30_000.0,
        usize::MAX,
        Box::new(move |b| into.borrow_mut().push(b)),
    );
    assert!(saved.borrow().is_empty(), "nothing to save before the sync");
    for _ in 0..100 {
        if !saved.borrow().is_empty() {
            break;
        }
        sleep(10).await;
    }
    assert!(
        log.borrow().iter().any(|e| e == "Synced 3 at 77"),
        "{:?}",
        log.borrow()
    );
    let saved = saved.borrow();
    assert_eq!(saved.len(), 1, "saved once, at the sync");
    let view = SavedView::decode(&saved[0]).unwrap();
    assert_eq!(view.resource_version().as_str(), "77");
    assert_eq!(view.rows().len(), 3);
    assert_eq!(driver.save_view().unwrap(), saved[0]);
    driver.stop();
}

/// A driver on pods p1 and p2 listed at 77, whose watch then brings p1 at 80 and stays
/// open; its events as `sink` logs them.
fn moving_view() -> (Driver, Log) {
    let event = format!(
        "{{\"type\":\"MODIFIED\",\"object\":{}}}\n",
        table(80, &["p1"])
    );
    fetch_install(&table(77, &["p1", "p2"]), Some(event));
    let log: Log = Rc::default();
    (Driver::start(config(), "", sink(&log)), log)
}

/// Waits (a second at most) for `driver` to hold version `rv`.
async fn at_version(driver: &Driver, rv: &str) {
    for _ in 0..100 {
        if driver.status().resource_version.as_deref() == Some(rv) {
            return;
        }
        sleep(10).await;
    }
}

#[wasm_bindgen_test]
async fn a_view_larger_than_the_store_keeps_is_not_saved() {
    let (driver, log) = moving_view();
    let saved: Rc<RefCell<Vec<Vec<u8>>>> = Rc::default();
    let into = saved.clone();
    // Two rows take more than 16 bytes: neither the sync nor the page's leaving saves.
    driver.save_views(0.0, 16, Box::new(move |b| into.borrow_mut().push(b)));
    at_version(&driver, "80").await;
    assert!(
        log.borrow().iter().any(|e| e == "Synced 2 at 77"),
        "{:?}",
        log.borrow()
    );
    web_sys::window()
        .unwrap()
        .dispatch_event(&web_sys::Event::new("pagehide").unwrap())
        .unwrap();
    assert!(saved.borrow().is_empty(), "{} saved", saved.borrow().len());
    assert!(driver.save_view().unwrap().len() > 16);
    driver.stop();
}

/// [`moving_view`] at version 80, saving through a sink that keeps every save (never
/// on its timer: only the sync and the page's leaving save).
async fn saving_moving_view() -> (Driver, Rc<RefCell<Vec<Vec<u8>>>>) {
    let (driver, _log) = moving_view();
    let saved: Rc<RefCell<Vec<Vec<u8>>>> = Rc::default();
    let into = saved.clone();
    driver.save_views(
        3_600_000.0,
        usize::MAX,
        Box::new(move |b| into.borrow_mut().push(b)),
    );
    at_version(&driver, "80").await;
    (driver, saved)
}

/// A page left for good saves its view as it goes, then stops its engine: its watch is
/// aborted rather than left to the browser (Firefox ESR kept such a watch open).
#[wasm_bindgen_test]
async fn a_page_left_for_good_saves_its_view_and_ends_its_watch() {
    let (driver, saved) = saving_moving_view().await;
    assert_eq!(saved.borrow().len(), 1, "saved at the sync only");
    assert_eq!(driver.in_flight(), 1, "the watch");
    let window = web_sys::window().unwrap();
    window
        .dispatch_event(&web_sys::Event::new("pagehide").unwrap())
        .unwrap();
    assert_eq!(saved.borrow().len(), 2, "saved again as the page goes");
    let view = SavedView::decode(&saved.borrow()[1]).unwrap();
    assert_eq!(view.resource_version().as_str(), "80");
    assert_eq!(driver.in_flight(), 0, "the watch is aborted");
    assert!(driver.is_stopped());
    // Stopped: leaving again saves nothing more.
    window
        .dispatch_event(&web_sys::Event::new("pagehide").unwrap())
        .unwrap();
    assert_eq!(saved.borrow().len(), 2);
}

/// A page in the back/forward cache holds no watch open (the server would go on
/// sending to a page that reads nothing) and writes nothing as it goes in; shown again,
/// it watches on from its version without listing, and its view is still saved when it
/// leaves for good.
#[wasm_bindgen_test]
async fn a_page_in_the_back_forward_cache_holds_no_watch_and_watches_on_when_shown() {
    let (driver, saved) = saving_moving_view().await;
    assert_eq!(driver.in_flight(), 1, "the watch");
    page_transition("pagehide", true);
    assert_eq!(driver.in_flight(), 0, "no request while the page is cached");
    assert!(!driver.is_stopped(), "paused, not stopped by its user");
    // Saved at its sync (77) only: going into the cache writes nothing (a write begun
    // then would be frozen with the page in WebKitGTK, holding the store's lock for
    // every other page of the origin).
    assert_eq!(saved.borrow().len(), 1);
    // Meanwhile the server moved on to 81.
    let event = format!(
        "{{\"type\":\"MODIFIED\",\"object\":{}}}\n",
        table(81, &["p1"])
    );
    fetch_install(&table(77, &["p1", "p2"]), Some(event));
    page_transition("pageshow", true);
    assert_eq!(driver.in_flight(), 1);
    sleep(0).await;
    assert_eq!(
        fetch_urls().split("&timeoutSeconds").next().unwrap(),
        "/api/v1/pods?watch=true&resourceVersion=80&allowWatchBookmarks=true",
        "only a watch from the version held: no LIST"
    );
    at_version(&driver, "81").await;
    // Shown again without having been paused: nothing more.
    page_transition("pageshow", true);
    assert_eq!(driver.in_flight(), 1);
    // Going into the cache again writes nothing.
    page_transition("pagehide", true);
    assert_eq!(saved.borrow().len(), 1);
    page_transition("pageshow", true);
    // The saver outlived the pauses: leaving for good saves the view at 81, and stops.
    page_transition("pagehide", false);
    assert_eq!(saved.borrow().len(), 2);
    let view = SavedView::decode(&saved.borrow()[1]).unwrap();
    assert_eq!(view.resource_version().as_str(), "81");
    assert_eq!(driver.in_flight(), 0);
    assert!(driver.is_stopped());
    // A stopped driver's listeners are gone: nothing starts it again.
    page_transition("pageshow", true);
    assert_eq!(driver.in_flight(), 0);
    assert!(driver.is_stopped());
}

fn answer(answers: &[(&str, u16, &str)]) {
    let turns: Vec<(&str, Vec<(u16, &str)>)> = answers
        .iter()
        .map(|&(path, status, body)| (path, vec![(status, body)]))
        .collect();
    answer_in_turn(&turns);
}

/// Each path's answers in turn (the last one again and again; status 0: no answer).
fn answer_in_turn(answers: &[(&str, Vec<(u16, &str)>)]) {
    let o = js_sys::Object::new();
    for (path, turns) in answers {
        let list = js_sys::Array::new();
        for &(status, body) in turns {
            list.push(&js_sys::Array::of2(
                &JsValue::from(status),
                &JsValue::from_str(body),
            ));
        }
        js_sys::Reflect::set(&o, &JsValue::from_str(path), &list).unwrap();
    }
    fetch_answers(o.into());
}

const FORBIDDEN: &str =
    r#"{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403}"#;
const VERSION: &str = r#"{"major":"1","minor":"32","gitVersion":"v1.32.0","gitCommit":"abc","buildDate":"2026-01-01T00:00:00Z","platform":"linux/amd64"}"#;

#[wasm_bindgen_test]
async fn the_server_identity_is_the_cluster_not_the_release_where_it_can_be_read() {
    let ns = "/api/v1/namespaces/kube-system";
    let ca = "/api/v1/namespaces/team%20a/configmaps/kube-root-ca.crt";
    // The kube-system namespace's uid, when it may be read.
    answer(&[
        (
            ns,
            200,
            r#"{"kind":"Namespace","metadata":{"name":"kube-system","uid":"0f1e-77"}}"#,
        ),
        ("/version", 200, VERSION),
    ]);
    assert_eq!(
        server_identity("", Some("team a")).await,
        Some(strong("uid:0f1e-77"))
    );
    // Forbidden: the cluster CA published in the view's namespace.
    let ca_body = r#"{"kind":"ConfigMap","metadata":{"name":"kube-root-ca.crt"},"data":{"ca.crt":"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"}}"#;
    answer(&[
        (ns, 403, FORBIDDEN),
        (ca, 200, ca_body),
        ("/version", 200, VERSION),
    ]);
    let by_ca = server_identity("", Some("team a")).await.unwrap();
    assert!(by_ca.strong && by_ca.value.starts_with("ca:"), "{by_ca:?}");
    assert_eq!(fetch_urls(), format!("{ns}\n{ca}"));
    // Another CA, another cluster.
    answer(&[
        (ns, 403, FORBIDDEN),
        (ca, 200, &ca_body.replace("MIIB", "MIIC")),
    ]);
    assert_ne!(server_identity("", Some("team a")).await.unwrap(), by_ca);
    // Neither readable (or a cluster-wide view): the release only, which is weak.
    answer(&[(ns, 403, FORBIDDEN), ("/version", 200, VERSION)]);
    assert_eq!(
        server_identity("", None).await,
        Some(ServerIdentity {
            value: "version:v1.32.0 abc 2026-01-01T00:00:00Z linux/amd64".into(),
            strong: false,
        })
    );
    // Nothing answers: no identity, so nothing is saved or restored.
    answer(&[]);
    assert_eq!(server_identity("", Some("team a")).await, None);
}

/// A flaky proxy must not make one cluster read as another: a failure that may pass
/// (a 5xx, a 429, no answer, a proxy's page that is not JSON) asks the same source
/// again, and one that keeps failing gives no identity, never the next source's.
#[wasm_bindgen_test]
async fn a_failing_identity_read_is_asked_again_not_taken_from_the_next_source() {
    let ns = "/api/v1/namespaces/kube-system";
    let ca = "/api/v1/namespaces/team%20a/configmaps/kube-root-ca.crt";
    let ca_body = r#"{"kind":"ConfigMap","data":{"ca.crt":"-----BEGIN CERTIFICATE-----"}}"#;
    let uid = r#"{"kind":"Namespace","metadata":{"name":"kube-system","uid":"0f1e-77"}}"#;
    answer_in_turn(&[
        (
            ns,
            vec![
                (503, "<html>Service Unavailable</html>"),
                (0, ""),
                (429, r#"{"kind":"Status","code":429}"#),
                (200, "<html>a captive portal</html>"),
                (200, uid),
            ],
        ),
        (ca, vec![(200, ca_body)]),
        ("/version", vec![(200, VERSION)]),
    ]);
    assert_eq!(
        server_identity_within("", Some("team a")).await,
        Some(strong("uid:0f1e-77"))
    );
    // (Only the identity's reads: a driver another test left may fetch meanwhile.)
    let identity_reads = || {
        fetch_urls()
            .lines()
            .filter(|u| u.starts_with("/api/v1/namespaces/") || *u == "/version")
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        identity_reads(),
        [ns; 5].join("\n"),
        "the same source, asked again"
    );
    // Failing past the read's deadline: no identity (nothing saved, restored or
    // dropped), and the CA, which would name the cluster otherwise, is not read.
    answer_in_turn(&[
        (ns, vec![(500, "{}")]),
        (ca, vec![(200, ca_body)]),
        ("/version", vec![(200, VERSION)]),
    ]);
    assert_eq!(server_identity_within("", Some("team a")).await, None);
    let reads = identity_reads();
    assert!(
        !reads.is_empty() && reads.lines().all(|u| u == ns),
        "only the kube-system namespace was asked: {reads}"
    );
}
