//! Output formatting: event lines, progress lines, snapshot, table, ages.

use kubelive::output::{
    event_line, human_age, parse_timestamp, progress, snapshot, table, Line, Shown,
};
use kubelive_core::{
    Collection, ColumnKind, Config, Engine, Event, Instant, Object, ParseOptions, RelistReason,
    ResourceVersion,
};
use std::sync::Arc;

fn pod(ns: &str, name: &str, rv: &str, phase: &str) -> String {
    format!(
        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}","namespace":"{ns}","uid":"u-{name}","resourceVersion":"{rv}","creationTimestamp":"2024-01-01T00:00:00Z"}},"spec":{{"nodeName":"node-1","containers":[{{"name":"c"}},{{"name":"d"}}]}},"status":{{"phase":"{phase}","containerStatuses":[{{"name":"c","ready":true,"restartCount":2}},{{"name":"d","ready":false,"restartCount":1}}]}}}}"#
    )
}

fn object(json: &str, columns: ColumnKind) -> Arc<Object> {
    Arc::new(
        Object::parse(
            json.as_bytes(),
            &ParseOptions {
                metadata: kubelive_core::KeptMetadata::All,
                strip_managed_fields: false,
                columns,
            },
        )
        .unwrap(),
    )
}

/// An engine whose store holds `items`, fed as one LIST response.
fn engine_with(resource_path: &str, items: &[String]) -> Engine {
    let now = Instant::ZERO;
    let mut e = Engine::new(Config::new(Collection::parse(resource_path).unwrap()), now);
    let req = e.poll_request().unwrap();
    e.handle_response(req.id, 200, &[("Content-Type", "application/json")], now);
    let body = format!(
        r#"{{"kind":"List","apiVersion":"v1","metadata":{{"resourceVersion":"99"}},"items":[{}]}}"#,
        items.join(",")
    );
    e.handle_body(req.id, body.as_bytes(), now);
    e.handle_end(req.id, now);
    while e.poll_event().is_some() {}
    while e.poll_request().is_some() {}
    e
}

#[test]
fn event_lines_are_greppable() {
    let p = object(&pod("default", "web-1", "1234", "Running"), ColumnKind::Pod);
    let now = Instant::from_millis(0);
    assert_eq!(
        event_line(&Event::Added(p.clone()), now),
        Line::Out(
            "ADDED     default/web-1  rv=1234  ready=1/2 status=Running restarts=3 node=node-1"
                .into()
        )
    );
    // With a clock, an object's line is a printed row's: the fallback printer's
    // default cells in column order, Age counted on.
    assert_eq!(
        kubelive::output::event_line_in(
            &Event::Added(p.clone()),
            now,
            None,
            parse_timestamp("2024-01-01T00:03:05Z").unwrap()
        ),
        Line::Out(
            "ADDED     default/web-1  rv=1234  ready=1/2 status=Running restarts=3 age=3m5s node=node-1"
                .into()
        )
    );
    let Line::Out(m) = event_line(
        &Event::Modified {
            old: p.clone(),
            new: p.clone(),
        },
        now,
    ) else {
        panic!()
    };
    assert!(m.starts_with("MODIFIED  default/web-1  rv=1234"), "{m}");
    let Line::Out(d) = event_line(&Event::Deleted(p), now) else {
        panic!()
    };
    assert!(d.starts_with("DELETED   default/web-1  rv=1234"), "{d}");
    let ns = object(
        r#"{"kind":"Namespace","metadata":{"name":"kube-system","uid":"u","resourceVersion":"5"}}"#,
        ColumnKind::Generic,
    );
    assert_eq!(
        event_line(&Event::Added(ns), now),
        Line::Out("ADDED     kube-system  rv=5".into())
    );
}

#[test]
fn progress_lines() {
    let now = Instant::from_millis(1000);
    let s = |e: Event| progress(&e, now).unwrap();
    assert_eq!(
        s(Event::Synced {
            objects: 3,
            resource_version: ResourceVersion::new("42")
        }),
        "synced 3 objects at rv 42"
    );
    assert_eq!(
        s(Event::PageListed {
            page: 2,
            objects: 10,
            remaining: Some(5)
        }),
        "listed page 2 (10 objects so far, ~5 remaining)"
    );
    assert_eq!(
        s(Event::BackingOff {
            until: Instant::from_millis(4200),
            reason: "HTTP 503".into()
        }),
        "backing off 3.2s because HTTP 503"
    );
    assert_eq!(
        s(Event::Resumed {
            resource_version: ResourceVersion::new("7")
        }),
        "resumed watch at rv 7"
    );
    let r = s(Event::Relisting {
        reason: RelistReason::Expired {
            message: "too old resource version: 1 (5)".into(),
        },
    });
    assert!(
        r.starts_with("relisting because") && r.contains("too old resource version"),
        "{r}"
    );
    assert!(matches!(
        event_line(
            &Event::Resumed {
                resource_version: ResourceVersion::new("7")
            },
            now
        ),
        Line::Err(_)
    ));
}

#[test]
fn snapshot_is_sorted_compact_json_as_stored() {
    let items = [
        pod("b", "z", "3", "Running"),
        pod("a", "y", "2", "Pending"),
        pod("a", "x", "1", "Running"),
    ];
    let e = engine_with("/api/v1/pods", &items);
    let snap = snapshot(e.store());
    let lines: Vec<&str> = snap.lines().collect();
    assert_eq!(
        lines,
        vec![items[2].as_str(), items[1].as_str(), items[0].as_str()]
    );
}

#[test]
fn pod_table() {
    let items = [
        pod("a", "web-1", "1", "Running"),
        pod("b", "db-0", "2", "Pending"),
    ];
    let e = engine_with("/api/v1/pods", &items);
    let now = parse_timestamp("2024-01-01T00:03:05Z").unwrap();
    let t = table(e.store(), None, now, true, false, Shown::All);
    assert_eq!(
        t,
        "NAMESPACE   NAME    READY   STATUS    RESTARTS   AGE    NODE\n\
         a           web-1   1/2     Running   3          3m5s   node-1\n\
         b           db-0    1/2     Pending   3          3m5s   node-1\n"
    );
    let t = table(e.store(), None, now, false, false, Shown::All);
    assert!(t.starts_with("NAME    READY"), "{t}");
    // A live redraw in a small terminal: the first rows by namespace and name, widths
    // from those alone, and a line for the rest.
    assert_eq!(
        table(e.store(), None, now, true, false, Shown::First(1)),
        "NAMESPACE   NAME    READY   STATUS    RESTARTS   AGE    NODE\n\
         a           web-1   1/2     Running   3          3m5s   node-1\n\
         ... and 1 more (the first 1 by namespace and name; a pipe or -o events shows every row)\n"
    );
    assert_eq!(
        table(e.store(), None, now, true, false, Shown::First(2)),
        table(e.store(), None, now, true, false, Shown::All)
    );
}

#[test]
fn deployment_and_generic_tables() {
    let d = r#"{"kind":"Deployment","metadata":{"name":"web","namespace":"a","uid":"u","resourceVersion":"1","creationTimestamp":"2024-01-01T00:00:00Z"},"spec":{"replicas":3},"status":{"readyReplicas":2,"updatedReplicas":3,"availableReplicas":2}}"#;
    let e = engine_with("/apis/apps/v1/deployments", &[d.to_string()]);
    let now = parse_timestamp("2024-01-02T01:00:00Z").unwrap();
    assert_eq!(
        table(e.store(), None, now, true, false, Shown::All),
        "NAMESPACE   NAME   READY   UP-TO-DATE   AVAILABLE   AGE\na           web    2/3     3            2           25h\n"
    );
    let w = r#"{"kind":"Widget","metadata":{"name":"w1","namespace":"a","uid":"u","resourceVersion":"1"}}"#;
    let e = engine_with("/apis/example.com/v1/widgets", &[w.to_string()]);
    assert_eq!(
        table(e.store(), None, now, true, false, Shown::All),
        "NAMESPACE   NAME   AGE\na           w1     <unknown>\n"
    );
}

#[test]
fn ages_like_kubectl() {
    for (secs, want) in [
        (-5, "0s"),
        (0, "0s"),
        (119, "119s"),
        (120, "2m"),
        (185, "3m5s"),
        (600, "10m"),
        (179 * 60, "179m"),
        (3 * 3600 + 5 * 60, "3h5m"),
        (8 * 3600, "8h"),
        (47 * 3600, "47h"),
        (50 * 3600, "2d2h"),
        (10 * 86400, "10d"),
        (800 * 86400, "2y70d"),
        (3650 * 86400, "10y"),
    ] {
        assert_eq!(human_age(secs), want, "{secs}");
    }
}

#[test]
fn timestamps() {
    assert_eq!(parse_timestamp("1970-01-01T00:00:00Z"), Some(0));
    assert_eq!(parse_timestamp("2024-02-29T12:00:00Z"), Some(1_709_208_000));
    assert_eq!(
        parse_timestamp("2024-02-29T12:00:00.123456Z"),
        Some(1_709_208_000)
    );
    assert_eq!(
        parse_timestamp("2024-02-29T14:00:00+02:00"),
        Some(1_709_208_000)
    );
    assert_eq!(parse_timestamp("yesterday"), None);
    assert_eq!(parse_timestamp("2024-13-01T00:00:00Z"), None);
}

#[test]
fn the_status_line_tells_how_long_since_the_last_byte() {
    use kubelive_core::{Collection, Config, Engine, Instant};
    let mut e = Engine::new(
        Config::new(Collection::parse("/api/v1/pods").unwrap()),
        Instant::ZERO,
    );
    let req = e.poll_request().unwrap();
    let line = kubelive::output::status_line(&e.status(), Instant::from_millis(500));
    assert!(!line.contains("last byte"), "{line}");
    e.handle_response(req.id, 200, &[], Instant::from_millis(1_000));
    e.handle_body(
        req.id,
        b"{\"kind\":\"PodList\",",
        Instant::from_millis(2_000),
    );
    let line = kubelive::output::status_line(&e.status(), Instant::from_millis(7_400));
    assert!(line.contains(" | last byte 5s ago"), "{line}");
}

/// An engine in table mode whose store holds the rows of `table` (a Table list body).
fn table_engine(table: &str) -> Engine {
    let now = Instant::ZERO;
    let config = Config::new(Collection::parse("/api/v1/pods").unwrap())
        .tables(kubelive_core::IncludeObject::Metadata);
    let mut e = Engine::new(config, now);
    let req = e.poll_request().unwrap();
    e.handle_response(req.id, 200, &[], now);
    e.handle_body(req.id, table.as_bytes(), now);
    e.handle_end(req.id, now);
    while e.poll_event().is_some() {}
    while e.poll_request().is_some() {}
    e
}

#[test]
fn server_tables_and_event_lines_show_cells_as_kubectl_prints_them() {
    // Cells as a server prints them (printers.go): a restart with its time, a null,
    // an integer; Age is recomputed from creationTimestamp.
    let row = |name: &str, restarts: &str| {
        format!(
            r#"{{"cells":["{name}","0/1","CrashLoopBackOff",{restarts},"9d",null,7],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"name":"{name}","namespace":"default","uid":"u-{name}","resourceVersion":"3","creationTimestamp":"2024-01-01T00:00:00Z"}}}}}}"#
        )
    };
    let defs = r#"[{"name":"Name","type":"string","format":"name","description":"","priority":0},{"name":"Ready","type":"string","format":"","description":"","priority":0},{"name":"Status","type":"string","format":"","description":"","priority":0},{"name":"Restarts","type":"string","format":"","description":"","priority":0},{"name":"Age","type":"string","format":"","description":"","priority":0},{"name":"Nominated Node","type":"string","format":"","description":"","priority":1},{"name":"Ports","type":"integer","format":"","description":"","priority":1}]"#;
    let body = format!(
        r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"9"}},"columnDefinitions":{defs},"rows":[{},{}]}}"#,
        row("web-1", "\"3 (5m ago)\""),
        row("web-2", "\"0\"")
    );
    let e = table_engine(&body);
    let columns = e.columns().unwrap().clone();
    let wall = parse_timestamp("2024-01-01T01:02:03Z").unwrap();
    assert_eq!(
        kubelive::output::table(
            e.store(),
            Some(&columns),
            wall,
            false,
            false,
            kubelive::output::Shown::All
        ),
        "NAME    READY   STATUS             RESTARTS     AGE\n\
         web-1   0/1     CrashLoopBackOff   3 (5m ago)   62m\n\
         web-2   0/1     CrashLoopBackOff   0            62m\n"
    );
    assert_eq!(
        kubelive::output::table(e.store(), Some(&columns), wall, true, true, kubelive::output::Shown::All),
        "NAMESPACE   NAME    READY   STATUS             RESTARTS     AGE   NOMINATED NODE   PORTS\n\
         default     web-1   0/1     CrashLoopBackOff   3 (5m ago)   62m   <none>           7\n\
         default     web-2   0/1     CrashLoopBackOff   0            62m   <none>           7\n"
    );
    let web1 = e.store().get("default", "web-1").unwrap().clone();
    assert_eq!(
        kubelive::output::event_line_in(&Event::Added(web1), Instant::ZERO, Some(&columns), wall),
        Line::Out(
            "ADDED     default/web-1  rv=3  ready=0/1 status=CrashLoopBackOff restarts=\"3 (5m ago)\" age=62m"
                .into()
        )
    );
}
