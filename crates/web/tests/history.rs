//! In the browser (wasm-bindgen-test): the detail panel's history of an object, from
//! the versions a core `History` was given: one entry per version, newest first, each
//! with its kind, resourceVersion, age and changes (path, before → after); a Secret's
//! values never in the DOM.
#![cfg(all(target_arch = "wasm32", feature = "app"))]

mod support;

use kubelive_core::{Event, History, HistoryConfig, Instant, Object, ParseOptions};
use kubelive_web::app::detail::history::merge;
use kubelive_web::app::detail::{Detail, DetailProps, Fetched};
use std::rc::Rc;
use std::sync::Arc;
use support::{mount, sleep};
use wasm_bindgen_test::*;
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

/// Unix milliseconds of the first version.
const T0: u64 = 1_780_000_000_000;

fn obj(json: &str) -> Arc<Object> {
    Arc::new(Object::parse(json.as_bytes(), &ParseOptions::default()).expect("an object"))
}

fn pod(rv: u32, image: &str, ready: &str, tier: &str) -> Arc<Object> {
    obj(&format!(
        r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"web-1","namespace":"shop","uid":"u-1","resourceVersion":"{rv}","generation":{rv},"labels":{{"app":"web"{tier}}},"managedFields":[{{"manager":"m{rv}"}}]}},"spec":{{"containers":[{{"name":"web","image":"{image}"}}]}},"status":{{"conditions":[{{"type":"Ready","status":"{ready}"}}]}}}}"#
    ))
}

fn secret(rv: u32, password: &str) -> Arc<Object> {
    obj(&format!(
        r#"{{"kind":"Secret","apiVersion":"v1","metadata":{{"name":"db","namespace":"shop","uid":"u-2","resourceVersion":"{rv}"}},"type":"Opaque","data":{{"password":"{password}"}}}}"#
    ))
}

/// Renders the panel of `object` with `history`'s entries of it, `now` in Unix seconds.
async fn render(object: &Arc<Object>, history: &History, now: f64) -> Element {
    let rows: Vec<_> = history
        .entries(object.namespace(), object.name())
        .cloned()
        .collect();
    let root = mount();
    yew::Renderer::<Detail>::with_root_and_props(
        root.clone(),
        DetailProps {
            object: object.clone(),
            deleted: false,
            fetched: Fetched::Loading,
            secret: object.json_str().contains(r#""kind":"Secret""#),
            on_close: Default::default(),
            events: Default::default(),
            now,
            cols: Default::default(),
            shown: 0,
            history_target: None,
            history: Rc::new(rows),
        },
    )
    .render();
    sleep(50).await;
    root
}

fn all(root: &Element, selector: &str) -> Vec<Element> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| wasm_bindgen::JsCast::dyn_into::<Element>(n).ok())
        .collect()
}

fn text(e: &Element, selector: &str) -> String {
    e.query_selector(selector)
        .unwrap()
        .and_then(|e| e.text_content())
        .unwrap_or_default()
}

/// Each change of an entry as `path before → after`, as the panel shows it.
fn changes(entry: &Element) -> Vec<String> {
    all(entry, "li.change")
        .iter()
        .map(|c| {
            let side = |class: &str| text(c, class);
            format!(
                "{} {} -> {}",
                text(c, ".change-path"),
                side(".change-before"),
                side(".change-after")
            )
        })
        .collect()
}

#[wasm_bindgen_test]
async fn the_history_lists_every_version_newest_first_with_its_changes() {
    let mut h = History::new(HistoryConfig::default());
    let v1 = pod(101, "nginx:1.25", "False", "");
    let v2 = pod(107, "nginx:1.26", "False", "");
    let v3 = pod(115, "nginx:1.26", "True", r#","tier":"front""#);
    h.apply(&Event::Added(v1.clone()), Instant::from_millis(T0));
    h.apply(
        &Event::Modified {
            old: v1,
            new: v2.clone(),
        },
        Instant::from_millis(T0 + 60_000),
    );
    h.apply(
        &Event::Modified {
            old: v2,
            new: v3.clone(),
        },
        Instant::from_millis(T0 + 120_000),
    );
    let now = (T0 + 210_000) as f64 / 1000.0;
    let root = render(&v3, &h, now).await;

    let section = root
        .query_selector("#detail-history")
        .unwrap()
        .expect("the history");
    assert_eq!(section.get_attribute("data-count").as_deref(), Some("3"));
    // Headed: the section and each entry.
    assert_eq!(text(&section, "h4"), "History");
    assert_eq!(
        section.get_attribute("aria-labelledby").as_deref(),
        Some("detail-history-title")
    );
    let entries = all(&section, "ol.history-list > li.history-entry");
    let head: Vec<(String, String, String)> = entries
        .iter()
        .map(|e| {
            (
                e.get_attribute("data-kind").unwrap_or_default(),
                e.get_attribute("data-rv").unwrap_or_default(),
                text(e, "h5 .hist-age"),
            )
        })
        .collect();
    assert_eq!(
        head,
        [
            ("modified".into(), "115".into(), "90s ago".into()),
            ("modified".into(), "107".into(), "2m30s ago".into()),
            ("added".into(), "101".into(), "3m30s ago".into()),
        ]
    );
    assert_eq!(text(&entries[0], "h5 .hist-rv"), "rv 115");
    assert_eq!(
        changes(&entries[0]),
        [
            r#"metadata.labels.tier (absent) -> "front""#,
            r#"status.conditions[type=Ready].status "False" -> "True""#,
        ]
    );
    // A narrow panel wraps a path between its members, not inside a key.
    let ready = entries[0]
        .query_selector(
            r#"li.change[data-path="status.conditions[type=Ready].status"] .change-path"#,
        )
        .unwrap()
        .expect("the condition's change");
    assert_eq!(ready.query_selector_all("wbr").unwrap().length(), 3);
    // managedFields, resourceVersion and generation are noise, left out.
    assert_eq!(
        changes(&entries[1]),
        [r#"spec.containers[name=web].image "nginx:1.25" -> "nginx:1.26""#]
    );
    assert!(changes(&entries[2]).is_empty(), "an Added has no changes");
    // The arrow is decoration; a screen reader hears "becomes".
    let arrow = entries[1].query_selector(".change-arrow").unwrap().unwrap();
    assert_eq!(arrow.get_attribute("aria-hidden").as_deref(), Some("true"));
    assert_eq!(text(&entries[1], ".sr-only"), " becomes ");
}

#[wasm_bindgen_test]
async fn a_secrets_values_never_reach_the_dom() {
    let mut h = History::new(HistoryConfig::default());
    let s1 = secret(5, "czNjcjN0");
    let s2 = secret(9, "bmV3LXBhc3M=");
    h.apply(&Event::Added(s1.clone()), Instant::from_millis(T0));
    h.apply(
        &Event::Modified {
            old: s1,
            new: s2.clone(),
        },
        Instant::from_millis(T0 + 5_000),
    );
    let root = render(&s2, &h, (T0 + 10_000) as f64 / 1000.0).await;
    let entries = all(&root, "#detail-history li.history-entry");
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].get_attribute("data-rv").as_deref(), Some("9"));
    assert_eq!(
        changes(&entries[0]),
        [r#"data.password "(hidden)" -> "(hidden)""#]
    );
    let html = root.inner_html();
    for value in ["czNjcjN0", "bmV3LXBhc3M=", "s3cr3t", "new-pass"] {
        assert!(!html.contains(value), "{value} is in the DOM");
    }
}

#[wasm_bindgen_test]
async fn the_panels_own_versions_win_over_the_rows_and_all_go_newest_first() {
    let mut rows = History::new(HistoryConfig::default());
    let mut own = History::new(HistoryConfig::default());
    let (v1, v2, v3) = (
        pod(1, "a", "False", ""),
        pod(2, "b", "False", ""),
        pod(3, "c", "False", ""),
    );
    let m12 = Event::Modified {
        old: v1,
        new: v2.clone(),
    };
    let m23 = Event::Modified { old: v2, new: v3 };
    rows.apply(&m12, Instant::from_millis(T0));
    rows.apply(&m23, Instant::from_millis(T0 + 2_000));
    // The panel opened after version 2: its own watch delivered version 3.
    own.apply(&m23, Instant::from_millis(T0 + 2_001));
    let rows: Vec<_> = rows.entries("shop", "web-1").cloned().collect();
    let own: Vec<_> = own.entries("shop", "web-1").cloned().collect();
    let merged = merge(&rows, own);
    let got: Vec<(&str, u64)> = merged
        .iter()
        .map(|e| (e.resource_version.as_str(), e.at.as_millis() - T0))
        .collect();
    assert_eq!(got, [("3", 2_001), ("2", 0)]);
}
