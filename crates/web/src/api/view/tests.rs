use super::*;
use kubelive_core::{Collection, Config, Engine, IncludeObject, Instant};
use kubelive_table::{FADE_MS, FLASH_MS};

/// 2024-01-01T00:05:00Z: pods made at midnight are 5m old.
const WALL: f64 = 1_704_067_500.0;

fn pod(ns: &str, name: &str, rv: u32, restarts: u32, node: &str) -> String {
    format!(
        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}","namespace":"{ns}","uid":"u-{ns}-{name}","resourceVersion":"{rv}","creationTimestamp":"2024-01-01T00:00:00Z"}},"spec":{{"nodeName":"{node}","containers":[{{"name":"c"}}]}},"status":{{"phase":"Running","containerStatuses":[{{"name":"c","ready":true,"restartCount":{restarts}}}]}}}}"#
    )
}

/// A watcher's engine after one LIST of `items` (`config`'s collection), and the
/// events it told.
fn listed(config: Config, body: &str) -> (Engine, Vec<Event>) {
    let now = Instant::ZERO;
    let mut e = Engine::new(config, now);
    let req = e.poll_request().expect("the LIST");
    e.handle_response(req.id, 200, &[("Content-Type", "application/json")], now);
    e.handle_body(req.id, body.as_bytes(), now);
    e.handle_end(req.id, now);
    let mut events = Vec::new();
    while let Some(ev) = e.poll_event() {
        events.push(ev);
    }
    (e, events)
}

fn pods(items: &[String]) -> (Engine, Vec<Event>) {
    let body = format!(
        r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"99"}},"items":[{}]}}"#,
        items.join(",")
    );
    listed(
        Config::new(Collection::parse("/api/v1/pods").expect("a path")),
        &body,
    )
}

/// The engine's watch after its LIST, fed `lines` (watch events); the events told.
fn watch(e: &mut Engine, lines: &[String]) -> Vec<Event> {
    let now = Instant::from_millis(1);
    let req = loop {
        let req = e.poll_request().expect("the watch");
        if req.path.contains("watch=") {
            break req;
        }
    };
    e.handle_response(req.id, 200, &[("Content-Type", "application/json")], now);
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    e.handle_body(req.id, body.as_bytes(), now);
    let mut events = Vec::new();
    while let Some(ev) = e.poll_event() {
        events.push(ev);
    }
    events
}

fn view_of(events: &[Event], options: ViewOptions) -> View {
    let mut v = View::new(ColumnKind::Pod, true, None, options);
    v.apply(events, 0.0);
    v
}

fn keys(w: &Window) -> Vec<&str> {
    w.rows.iter().map(|r| r.key.as_str()).collect()
}

fn ids(w: &Window) -> Vec<&str> {
    w.columns.iter().map(|c| c.id.as_str()).collect()
}

fn options(sort: Option<&str>, filter: Option<&str>, wide: Option<bool>) -> ViewOptions {
    ViewOptions {
        sort: sort.map(str::to_string),
        filter: filter.map(str::to_string),
        wide,
    }
}

#[test]
fn a_window_is_a_slice_of_the_rows_in_order_as_plain_text() {
    let (e, events) = pods(&[
        pod("ns-2", "b", 1, 0, "node-1"),
        pod("ns-10", "a", 2, 3, "node-2"),
        pod("ns-2", "a", 3, 1, ""),
        pod("ns-10", "c", 4, 0, "node-1"),
    ]);
    let mut v = view_of(&events, ViewOptions::default());
    let w = v.window(e.store(), 1, 2, 0.0, WALL, &|| 0.0);
    // No sort: the rows' own order (namespace, then name, as a snapshot lists them).
    assert_eq!(w.length, 4);
    assert_eq!((w.first, keys(&w)), (1, vec!["ns-10/c", "ns-2/a"]));
    assert_eq!(w.sort, None);
    // The fallback printer's columns, shown as a server's: NAMESPACE first.
    assert_eq!(
        ids(&w),
        [
            "namespace",
            "name",
            "ready",
            "status",
            "restarts",
            "age",
            "node"
        ]
    );
    assert_eq!(w.columns[0].index, -1);
    assert_eq!(
        (w.columns[1].index, w.columns[1].format.as_str()),
        (0, "name")
    );
    assert_eq!(w.columns[5].name, "Age");
    assert!(w.columns[5].numeric);
    assert_eq!(
        w.rows[1].cells,
        ["ns-2", "a", "1/1", "Running", "1", "5m", "<none>"]
    );
    assert_eq!((w.rows[1].state, w.rows[1].elapsed), ("", 0.0));
    // Plain data: what crosses a postMessage.
    let json = serde_json::to_value(&w).expect("serializable");
    assert_eq!(json["rows"][0]["key"], "ns-10/c");
    assert_eq!(json["columns"][0]["type"], "string");
    assert_eq!(json["sort"], serde_json::Value::Null);
    // Past the end: the rows there are.
    let w = v.window(e.store(), 3, 50, 0.0, WALL, &|| 0.0);
    assert_eq!(keys(&w), ["ns-2/b"]);
    assert!(v
        .window(e.store(), 9, 5, 0.0, WALL, &|| 0.0)
        .rows
        .is_empty());
}

#[test]
fn sort_and_filter_go_through_the_table_model() {
    let (e, events) = pods(&[
        pod("a", "web-10", 1, 2, "node-1"),
        pod("a", "web-2", 2, 7, "node-2"),
        pod("b", "db-0", 3, 0, "node-2"),
        pod("b", "web-1", 4, 12, "node-1"),
    ]);
    let mut v = view_of(&events, options(Some("-restarts"), None, None));
    let w = v.window(e.store(), 0, 10, 0.0, WALL, &|| 0.0);
    assert_eq!(keys(&w), ["b/web-1", "a/web-2", "a/web-10", "b/db-0"]);
    assert_eq!(
        w.sort,
        Some(ViewSort {
            column: "restarts".into(),
            descending: true
        })
    );
    // Names sort naturally (web-2 before web-10).
    v.set(options(Some("name"), None, None));
    let w = v.window(e.store(), 0, 10, 0.0, WALL, &|| 0.0);
    assert_eq!(keys(&w), ["b/db-0", "b/web-1", "a/web-2", "a/web-10"]);
    // The filter narrows the same order, and leaves the sort as it was.
    v.set(options(None, Some("WEB node-2"), None));
    let w = v.window(e.store(), 0, 10, 0.0, WALL, &|| 0.0);
    assert_eq!((w.length, keys(&w)), (1, vec!["a/web-2"]));
    assert_eq!(w.sort.map(|s| s.column), Some("name".to_string()));
    // Time cells are not filtered on (they change with the clock).
    v.set(options(None, Some("5m"), None));
    assert_eq!(v.window(e.store(), 0, 10, 0.0, WALL, &|| 0.0).length, 0);
    // A sort naming no column: the rows' own order.
    v.set(options(Some("-nope"), Some(""), None));
    let w = v.window(e.store(), 0, 10, 0.0, WALL, &|| 0.0);
    assert_eq!(w.sort, None);
    assert_eq!(keys(&w), ["a/web-10", "a/web-2", "b/db-0", "b/web-1"]);
}

#[test]
fn changes_flash_and_deletes_fade_in_the_window() {
    let (mut e, events) = pods(&[pod("a", "p1", 1, 0, "n"), pod("a", "p2", 2, 0, "n")]);
    let mut v = view_of(&events, options(Some("restarts"), None, None));
    assert!(events.iter().any(|e| matches!(e, Event::Synced { .. })));
    let w = v.window(e.store(), 0, 10, 0.0, WALL, &|| 0.0);
    assert_eq!(keys(&w), ["a/p1", "a/p2"]);
    let changes = watch(
        &mut e,
        &[
            format!(
                r#"{{"type":"MODIFIED","object":{}}}"#,
                pod("a", "p1", 5, 4, "n")
            ),
            format!(
                r#"{{"type":"ADDED","object":{}}}"#,
                pod("a", "p0", 6, 1, "n")
            ),
            format!(
                r#"{{"type":"DELETED","object":{}}}"#,
                pod("a", "p2", 7, 0, "n")
            ),
        ],
    );
    v.apply(&changes, 100.0);
    let w = v.window(e.store(), 0, 10, 150.0, WALL, &|| 150.0);
    let looks: Vec<(&str, &str, f64)> = w
        .rows
        .iter()
        .map(|r| (r.key.as_str(), r.state, r.elapsed))
        .collect();
    assert_eq!(
        looks,
        [
            ("a/p2", "deleted", 50.0),
            ("a/p0", "added", 50.0),
            ("a/p1", "changed", 50.0)
        ]
    );
    assert_eq!(w.rows[2].cells[4], "4", "the new restarts");
    assert!(w.pending, "rows are changing state: ask again");
    // Once the flash and the fade are over, the deleted row is gone.
    let later = 100.0 + FADE_MS.max(FLASH_MS);
    let w = v.window(e.store(), 0, 10, later, WALL, &|| later);
    assert_eq!(keys(&w), ["a/p0", "a/p1"]);
    assert!(w.rows.iter().all(|r| r.state.is_empty()));
    assert!(!w.pending);
}

#[test]
fn a_view_made_after_the_sync_flashes_the_changes_that_follow() {
    let (mut e, events) = pods(&[pod("a", "p1", 1, 0, "n")]);
    let mut v = View::new(ColumnKind::Pod, true, None, ViewOptions::default());
    v.synced(0.0);
    // Rows made after the first sync come from the store, not from events.
    assert_eq!(v.window(e.store(), 0, 5, 0.0, WALL, &|| 0.0).length, 1);
    drop(events);
    let changes = watch(
        &mut e,
        &[format!(
            r#"{{"type":"MODIFIED","object":{}}}"#,
            pod("a", "p1", 2, 1, "n")
        )],
    );
    v.apply(&changes, 10.0);
    let w = v.window(e.store(), 0, 5, 20.0, WALL, &|| 20.0);
    assert_eq!(w.rows[0].state, "changed");
}

#[test]
fn the_servers_columns_replace_the_fallbacks_and_the_sort_follows_by_id() {
    let defs = r#"[{"name":"Name","type":"string","format":"name","description":"","priority":0},{"name":"Ready","type":"string","format":"","description":"","priority":0},{"name":"Status","type":"string","format":"","description":"","priority":0},{"name":"Restarts","type":"string","format":"","description":"","priority":0},{"name":"Age","type":"string","format":"","description":"","priority":0},{"name":"IP","type":"string","format":"","description":"","priority":1}]"#;
    let row = |name: &str, restarts: u32| {
        format!(
            r#"{{"cells":["{name}","1/1","Running","{restarts}","9d","10.0.0.{restarts}"],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"name":"{name}","namespace":"x","uid":"u-{name}","resourceVersion":"3","creationTimestamp":"2024-01-01T00:00:00Z"}}}}}}"#
        )
    };
    let body = format!(
        r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"9"}},"columnDefinitions":{defs},"rows":[{},{}]}}"#,
        row("p1", 9),
        row("p2", 10)
    );
    let config = Config::new(Collection::parse("/api/v1/namespaces/x/pods").expect("a path"))
        .tables(IncludeObject::Metadata);
    let (e, events) = listed(config, &body);
    // Made before the server said (the fallback's columns), sorted by restarts.
    let mut v = View::new(
        ColumnKind::Pod,
        false,
        None,
        options(Some("-restarts"), None, None),
    );
    for ev in &events {
        if let Event::Columns { columns } = ev {
            v.set_definitions(Some(columns.clone()));
        }
    }
    v.apply(&events, 0.0);
    let w = v.window(e.store(), 0, 10, 0.0, WALL, &|| 0.0);
    // One namespace: no NAMESPACE column. The server's cells; Age counted on.
    assert_eq!(ids(&w), ["name", "ready", "status", "restarts", "age"]);
    assert_eq!(w.rows[0].cells, ["p2", "1/1", "Running", "10", "5m"]);
    assert_eq!(
        keys(&w),
        ["x/p2", "x/p1"],
        "restarts as numbers, descending"
    );
    v.set(options(None, None, Some(true)));
    let w = v.window(e.store(), 0, 10, 0.0, WALL, &|| 0.0);
    assert_eq!(ids(&w).last(), Some(&"ip"));
    assert_eq!(w.columns.last().map(|c| c.index), Some(5));
    assert_eq!(
        w.rows[0].cells.last().map(String::as_str),
        Some("10.0.0.10")
    );
    assert_eq!(w.sort.map(|s| s.column), Some("restarts".to_string()));
}

#[test]
fn options_are_plain_data_and_unknown_ones_are_refused() {
    let o: ViewOptions =
        serde_json::from_str(r#"{"sort":"-age","filter":"web","wide":true}"#).expect("options");
    assert_eq!(o, options(Some("-age"), Some("web"), Some(true)));
    let o: ViewOptions = serde_json::from_str(r#"{"sort":null}"#).expect("options");
    assert_eq!(o, ViewOptions::default());
    let e = serde_json::from_str::<ViewOptions>(r#"{"sortBy":"age"}"#).unwrap_err();
    assert!(e.to_string().contains("sortBy"), "{e}");
    assert!(serde_json::from_str::<ViewOptions>(r#"{"wide":"yes"}"#).is_err());
}

#[test]
fn a_window_is_at_most_window_max_rows() {
    let items: Vec<String> = (0..WINDOW_MAX + 5)
        .map(|i| pod("a", &format!("p{i}"), i as u32 + 1, 0, "n"))
        .collect();
    let (e, events) = pods(&items);
    let mut v = view_of(&events, ViewOptions::default());
    let w = v.window(e.store(), 0, usize::MAX, 0.0, WALL, &|| 0.0);
    assert_eq!((w.rows.len(), w.length), (WINDOW_MAX, WINDOW_MAX + 5));
}

#[test]
fn a_large_tables_sort_shows_its_first_window_at_once_and_the_rest_follows() {
    // Past the model's slice threshold (64 rows in tests): the sort is built in slices,
    // a window at a time, the window's rows first.
    let items: Vec<String> = (0..100)
        .map(|i| pod("a", &format!("p{i:03}"), i + 1, (i * 37) % 101, "n"))
        .collect();
    let (e, events) = pods(&items);
    let mut v = view_of(&events, options(Some("name"), None, None));
    // Sort keys are prepared while windows are read (the clock stands still here).
    let w = v.window(e.store(), 0, 10, 0.0, WALL, &|| 0.0);
    assert_eq!(w.rows[0].key, "a/p000");
    v.set(options(Some("-restarts"), None, None));
    let restarts = |w: &Window| -> Vec<u32> {
        w.rows
            .iter()
            .map(|r| r.cells[4].parse().expect("a count"))
            .collect()
    };
    let mut want: Vec<u32> = (0..100).map(|i| (i * 37) % 101).collect();
    want.sort_unstable_by(|a, b| b.cmp(a));
    let first = v.window(e.store(), 0, 10, 0.0, WALL, &|| 0.0);
    assert_eq!(restarts(&first), want[..10]);
    assert_eq!(first.length, 100);
    let all = v.window(e.store(), 0, 100, 0.0, WALL, &|| 0.0);
    assert_eq!(restarts(&all), want);
    assert!(!all.pending);
}
