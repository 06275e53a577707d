//! The model prints like kube-apiserver (`Accept: application/json;as=Table;v=v1;
//! g=meta.k8s.io`), in process, as the DST drives it (`Get::with_output`): LIST pages
//! (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go`, `asTable`), a GET,
//! WATCH events, bookmarks and streaming lists (`handlers/watch.go`,
//! `watchEmbeddedEncoder`), `includeObject` (`optionsForTransform`), with each resource's
//! printer (`pkg/printers/internalversion/printers.go`, a CRD's columns). The bytes are
//! pinned; the cells are checked against the printers applied to the same objects read
//! back as JSON.

use kubelive_sim::printers::{Row, TableConvertor};
use kubelive_sim::*;
use serde_json::Value;

const V1: Output = Output::Table(TableVersion::V1);

/// 2025-01-01T00:05:00Z: five minutes after the sim's time zero, in Unix ms.
const FIVE_MIN_MS: u64 = 300_000;

fn cluster() -> Cluster {
    Cluster::new(ClusterConfig {
        seed: 7,
        ..ClusterConfig::default()
    })
}

fn reply(c: &mut Cluster, path: &str, output: Output, now: u64) -> Response {
    match c.handle(&Get::new(path).with_output(output), now) {
        Reply::Response(r) => r,
        other => panic!("expected a response for {path}, got {other:?}"),
    }
}

fn table(c: &mut Cluster, path: &str, now: u64) -> Response {
    reply(c, path, V1, now)
}

fn json(r: &Response) -> Value {
    serde_json::from_slice(&r.body).unwrap_or_else(|e| panic!("{e}: {}", r.text()))
}

/// A small pod in wire order, created 2025-01-01T00:00:00Z.
fn pod_text(name: &str, uid: &str, restarts: u32) -> String {
    format!(
        r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"shop","uid":"{uid}","creationTimestamp":"2025-01-01T00:00:00Z","labels":{{"app":"web"}}}},"spec":{{"containers":[{{"name":"web","image":"nginx"}}],"nodeName":"node-1"}},"status":{{"phase":"Running","containerStatuses":[{{"name":"web","ready":true,"restartCount":{restarts},"state":{{"running":{{}}}}}}],"podIPs":[{{"ip":"10.244.1.5"}}]}}}}"#
    )
}

/// The pod's metadata as the store holds it (Go order), at `rv`.
fn pod_meta(name: &str, uid: &str, rv: u64) -> String {
    format!(
        r#"{{"name":"{name}","namespace":"shop","uid":"{uid}","resourceVersion":"{rv}","creationTimestamp":"2025-01-01T00:00:00Z","labels":{{"app":"web"}}}}"#
    )
}

fn pod_cells(name: &str, restarts: u32) -> String {
    format!(
        r#"["{name}","1/1","Running","{restarts}","5m","10.244.1.5","node-1","\u003cnone\u003e","\u003cnone\u003e"]"#
    )
}

fn pod_row(name: &str, uid: &str, rv: u64) -> String {
    format!(
        r#"{{"cells":{},"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{}}}}}"#,
        pod_cells(name, 0),
        pod_meta(name, uid, rv)
    )
}

/// The Table's column definitions as the printer declares them, in Go's field order.
fn columns_text(conv: &TableConvertor) -> String {
    let cols: Vec<String> = conv
        .columns()
        .iter()
        .map(|c| {
            format!(
                r#"{{"name":{},"type":{},"format":{},"description":{},"priority":{}}}"#,
                printers::gojson::quote(&c.name),
                printers::gojson::quote(&c.type_),
                printers::gojson::quote(&c.format),
                printers::gojson::quote(&c.description),
                c.priority
            )
        })
        .collect();
    format!("[{}]", cols.join(","))
}

fn columns_json(conv: &TableConvertor) -> Value {
    serde_json::from_str(&columns_text(conv)).unwrap()
}

/// `doc` is `{<head>"columnDefinitions":<the printer's>,"rows":<rows>}` + newline.
fn assert_table(doc: &str, head: &str, conv: &TableConvertor, rows: &str) {
    assert!(doc.ends_with("}\n"), "the encoder's newline: {doc:?}");
    let v: Value = serde_json::from_str(doc).unwrap();
    assert_eq!(v["columnDefinitions"], columns_json(conv), "{doc}");
    assert!(
        doc.starts_with(&format!("{head}\"columnDefinitions\":[{{\"name\":\"Name\"")),
        "{doc}"
    );
    assert!(doc.ends_with(&format!("],\"rows\":{rows}}}\n")), "{doc}");
}

fn three_pods() -> (Cluster, Vec<u64>) {
    let mut c = cluster();
    let rvs = ["a", "b", "c"]
        .iter()
        .map(|n| {
            c.create_object(
                PODS,
                &pod_text(&format!("web-{n}"), &format!("u-{n}"), 0),
                0,
            )
            .unwrap()
            .resource_version
        })
        .collect();
    (c, rvs)
}

/// A paginated LIST as Table pages: the list's metadata (resourceVersion, continue,
/// remainingItemCount) on the table, every column, a PartialObjectMetadata per row; the
/// continue token of a table page serves the next table page.
#[test]
fn list_pages_are_tables() {
    let (mut c, rvs) = three_pods();
    let list_rv = c.resource_version();
    let pods = TableConvertor::for_kind("", "Pod");
    let first = table(&mut c, "/api/v1/namespaces/shop/pods?limit=2", FIVE_MIN_MS);
    assert_eq!(first.status, 200);
    assert_eq!(first.header("content-type"), Some("application/json"));
    let cont = json(&first)["metadata"]["continue"]
        .as_str()
        .unwrap()
        .to_string();
    assert_table(
        &first.text(),
        &format!(
            r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"{list_rv}","continue":"{cont}","remainingItemCount":1}},"#
        ),
        &pods,
        &format!(
            "[{},{}]",
            pod_row("web-a", "u-a", rvs[0]),
            pod_row("web-b", "u-b", rvs[1])
        ),
    );
    let second = table(
        &mut c,
        &format!("/api/v1/namespaces/shop/pods?limit=2&continue={cont}"),
        FIVE_MIN_MS,
    );
    assert_table(
        &second.text(),
        &format!(
            r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"{list_rv}"}},"#
        ),
        &pods,
        &format!("[{}]", pod_row("web-c", "u-c", rvs[2])),
    );
    // The same page as objects: the same resourceVersion and continue token.
    let plain = reply(
        &mut c,
        "/api/v1/namespaces/shop/pods?limit=2",
        Output::Json,
        FIVE_MIN_MS,
    );
    assert_eq!(json(&plain)["metadata"]["continue"], cont.as_str());
}

/// includeObject=None: `"object":null`; Object: the object itself, kind and apiVersion
/// first; v1beta1 (kubectl's second choice) has the same shape in its own apiVersion.
#[test]
fn include_object_and_v1beta1() {
    let (mut c, rvs) = three_pods();
    let doc = table(
        &mut c,
        "/api/v1/namespaces/shop/pods?limit=1&includeObject=None",
        FIVE_MIN_MS,
    )
    .text();
    assert!(
        doc.ends_with(&format!(
            "],\"rows\":[{{\"cells\":{},\"object\":null}}]}}\n",
            pod_cells("web-a", 0)
        )),
        "{doc}"
    );
    let doc = table(
        &mut c,
        "/api/v1/namespaces/shop/pods?limit=1&includeObject=Object",
        FIVE_MIN_MS,
    )
    .text();
    let object = pod_text("web-a", "u-a", 0).replace(
        r#""uid":"u-a","#,
        &format!(r#""uid":"u-a","resourceVersion":"{}","#, rvs[0]),
    );
    assert!(
        doc.ends_with(&format!(
            "],\"rows\":[{{\"cells\":{},\"object\":{object}}}]}}\n",
            pod_cells("web-a", 0)
        )),
        "{doc}"
    );
    let beta = reply(
        &mut c,
        "/api/v1/namespaces/shop/pods?limit=1",
        Output::Table(TableVersion::V1Beta1),
        FIVE_MIN_MS,
    )
    .text();
    assert!(beta.starts_with(r#"{"kind":"Table","apiVersion":"meta.k8s.io/v1beta1","#));
    assert!(beta.contains(r#""object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1beta1","metadata":{"name":"web-a""#));
}

/// A bad includeObject is the apiserver's 400 (`optionsForTransform` wraps
/// `ValidateTableOptions`), after the read: a missing object is still a 404 and an
/// expired continue a 410; a request for objects ignores the parameter.
#[test]
fn bad_include_object_is_400_after_the_read() {
    let (mut c, _) = three_pods();
    let want = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unable to convert to Table as requested: includeObject: Unsupported value: \"All\": supported values: \"Metadata\", \"None\", \"Object\"","reason":"BadRequest","code":400}
"#;
    for path in [
        "/api/v1/namespaces/shop/pods?includeObject=All",
        "/api/v1/namespaces/shop/pods/web-a?includeObject=All",
        "/api/v1/namespaces/shop/pods?watch=true&includeObject=All",
    ] {
        let r = table(&mut c, path, 0);
        assert_eq!((r.status, r.text().as_str()), (400, want), "{path}");
    }
    let r = table(
        &mut c,
        "/api/v1/namespaces/shop/pods/nope?includeObject=All",
        0,
    );
    assert_eq!(r.status, 404);
    let page = table(&mut c, "/api/v1/namespaces/shop/pods?limit=1", 0);
    let cont = json(&page)["metadata"]["continue"]
        .as_str()
        .unwrap()
        .to_string();
    c.create_object(PODS, &pod_text("web-d", "u-d", 0), 1)
        .unwrap();
    c.compact_now();
    let r = table(
        &mut c,
        &format!("/api/v1/namespaces/shop/pods?limit=1&continue={cont}&includeObject=All"),
        2,
    );
    assert_eq!(r.status, 410);
    assert_eq!(json(&r)["kind"], "Status");
    let r = reply(
        &mut c,
        "/api/v1/namespaces/shop/pods?includeObject=All",
        Output::Json,
        2,
    );
    assert_eq!(r.status, 200);
    assert_eq!(json(&r)["kind"], "PodList");
}

/// A GET with the Table Accept: one row, every column, the object's resourceVersion on
/// the table.
#[test]
fn get_one_object_as_table() {
    let (mut c, rvs) = three_pods();
    let doc = table(&mut c, "/api/v1/namespaces/shop/pods/web-b", FIVE_MIN_MS).text();
    assert_table(
        &doc,
        &format!(
            r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"{}"}},"#,
            rvs[1]
        ),
        &TableConvertor::for_kind("", "Pod"),
        &format!("[{}]", pod_row("web-b", "u-b", rvs[1])),
    );
}

/// Polls until nothing is due at `now`; the event lines.
fn watch_lines(c: &mut Cluster, id: WatchId, now: u64) -> Vec<String> {
    let mut bytes = Vec::new();
    for _ in 0..10_000 {
        match c.poll_watch(id, now) {
            WatchOutput::Chunks(ch) => ch.iter().for_each(|x| bytes.extend_from_slice(x)),
            WatchOutput::Pending { wake_at_ms } if wake_at_ms > now => break,
            WatchOutput::Pending { .. } => {}
            _ => break,
        }
    }
    String::from_utf8(bytes)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn open_watch(c: &mut Cluster, path: &str, now: u64) -> WatchId {
    match c.handle(&Get::new(path).with_output(V1), now) {
        Reply::Watch(id) => id,
        other => panic!("expected a watch for {path}, got {other:?}"),
    }
}

fn one_row_table(rv: u64, columns: &str, row: &str) -> String {
    format!(
        r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"{rv}"}},"columnDefinitions":{columns},"rows":[{row}]}}"#
    )
}

/// A Table watch: each event's object is a one-row table at the object's version, the
/// column definitions with the first event only (`null` after); DELETED too; a BOOKMARK is
/// converted like any object (the kind's empty object printed, a PartialObjectMetadata
/// with the version and `creationTimestamp: null`).
#[test]
fn watch_events_and_bookmarks_are_tables() {
    let (mut c, _) = three_pods();
    let from = c.resource_version();
    let id = open_watch(
        &mut c,
        &format!("/api/v1/namespaces/shop/pods?watch=true&allowWatchBookmarks=true&resourceVersion={from}&timeoutSeconds=600"),
        FIVE_MIN_MS,
    );
    assert!(watch_lines(&mut c, id, FIVE_MIN_MS).is_empty());
    let m = c
        .update_object(PODS, &pod_text("web-a", "u-a", 1), FIVE_MIN_MS)
        .unwrap()
        .resource_version;
    let d = c
        .delete(PODS, "shop", "web-b", FIVE_MIN_MS)
        .unwrap()
        .resource_version;
    let lines = watch_lines(&mut c, id, FIVE_MIN_MS);
    let cols = columns_text(&TableConvertor::for_kind("", "Pod"));
    let restarted = format!(
        r#"{{"cells":{},"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{}}}}}"#,
        pod_cells("web-a", 1),
        pod_meta("web-a", "u-a", m)
    );
    assert_eq!(
        lines,
        [
            format!(
                r#"{{"type":"MODIFIED","object":{}}}"#,
                one_row_table(m, &cols, &restarted)
            ),
            format!(
                r#"{{"type":"DELETED","object":{}}}"#,
                one_row_table(d, "null", &pod_row("web-b", "u-b", d))
            ),
        ]
    );
    // A minute later, caught up: a bookmark, printed from the empty Pod.
    let lines = watch_lines(&mut c, id, FIVE_MIN_MS + 60_000);
    let empty_pod_row = format!(
        r#"{{"cells":["","0/0","","0","\u003cunknown\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e"],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"{d}","creationTimestamp":null}}}}}}"#
    );
    assert_eq!(
        lines,
        [format!(
            r#"{{"type":"BOOKMARK","object":{}}}"#,
            one_row_table(d, "null", &empty_pod_row)
        )]
    );
}

/// A streaming list in a Table watch: synthetic ADDED one-row tables (the first with the
/// column definitions), then the initial-events-end bookmark converted, its annotation in
/// the row's metadata.
#[test]
fn streaming_lists_are_tables() {
    let (mut c, rvs) = three_pods();
    let rv = c.resource_version();
    let id = open_watch(
        &mut c,
        "/api/v1/namespaces/shop/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
        FIVE_MIN_MS,
    );
    let lines = watch_lines(&mut c, id, FIVE_MIN_MS);
    assert_eq!(lines.len(), 4, "{lines:?}");
    let cols = columns_text(&TableConvertor::for_kind("", "Pod"));
    assert_eq!(
        lines[0],
        format!(
            r#"{{"type":"ADDED","object":{}}}"#,
            one_row_table(rvs[0], &cols, &pod_row("web-a", "u-a", rvs[0]))
        )
    );
    assert_eq!(
        lines[2],
        format!(
            r#"{{"type":"ADDED","object":{}}}"#,
            one_row_table(rvs[2], "null", &pod_row("web-c", "u-c", rvs[2]))
        )
    );
    let end_row = format!(
        r#"{{"cells":["","0/0","","0","\u003cunknown\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e"],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"{rv}","creationTimestamp":null,"annotations":{{"k8s.io/initial-events-end":"true"}}}}}}}}"#
    );
    assert_eq!(
        lines[3],
        format!(
            r#"{{"type":"BOOKMARK","object":{}}}"#,
            one_row_table(rv, "null", &end_row)
        )
    );
}

/// An ERROR stays a plain Status in a Table watch (`doTransformObject` passes Status
/// through), and carries the headers' turn: nothing follows it.
#[test]
fn watch_errors_stay_status() {
    let (mut c, _) = three_pods();
    c.create_object(PODS, &pod_text("web-d", "u-d", 0), 1)
        .unwrap();
    c.compact_now();
    let id = open_watch(
        &mut c,
        "/api/v1/namespaces/shop/pods?watch=true&resourceVersion=2",
        2,
    );
    let lines = watch_lines(&mut c, id, 2);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with(r#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 2"#),
        "{lines:?}"
    );
}

/// The rows of a Table list of `path` (cells as kubectl prints them, at `now` Unix ms).
fn table_rows(c: &mut Cluster, path: &str, now_sim: u64) -> Vec<Vec<String>> {
    let v = json(&table(c, path, now_sim));
    v["rows"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|r| {
                    r["cells"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|c| match c {
                            Value::String(s) => s.clone(),
                            Value::Null => "<none>".into(),
                            other => other.to_string(),
                        })
                        .collect()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What the printer gives for the items of `path`'s plain list (each read back as JSON).
fn printed_rows(
    c: &mut Cluster,
    conv: &TableConvertor,
    path: &str,
    now_sim: u64,
    kind: &str,
    api_version: &str,
) -> Vec<Vec<String>> {
    let list = json(&reply(c, path, Output::Json, now_sim));
    let now_unix = (util::EPOCH_UNIX_S * 1000 + now_sim) as i64;
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            let mut item = item.clone();
            item["kind"] = Value::String(kind.into());
            item["apiVersion"] = Value::String(api_version.into());
            let row: Row = conv.row(&item);
            row.texts(now_unix)
        })
        .collect()
}

/// The workload's pods (typed states, printed without JSON) print as the pod printer
/// prints their JSON, whatever their state: Pending, Running ready or not, restarted,
/// Succeeded, Failed, Terminating.
#[test]
fn generated_pods_print_as_their_json() {
    let mut c = cluster();
    let mut w = Workload::new(
        3,
        WorkloadConfig {
            namespaces: 2,
            pods: 60,
            churn_per_sec: 0.0,
        },
    );
    w.populate(&mut c, 0);
    let mut now = 0;
    for _ in 0..1500 {
        now += 250;
        w.step(&mut c, now);
    }
    let conv = TableConvertor::for_kind("", "Pod");
    let served = table_rows(&mut c, "/api/v1/pods", now);
    let printed = printed_rows(&mut c, &conv, "/api/v1/pods", now, "Pod", "v1");
    assert_eq!(served, printed);
    let status: std::collections::BTreeSet<&str> = served.iter().map(|r| r[2].as_str()).collect();
    for s in [
        "Running",
        "Completed",
        "Error",
        "Terminating",
        "ContainerCreating",
    ] {
        assert!(status.contains(s), "{s} among {status:?}");
    }
    assert!(
        served.iter().any(|r| r[3].contains(" ago)")),
        "a restarted pod: {served:?}"
    );
}

/// Every kind the sim serves lists as a Table whose headers are its printer's and whose
/// cells are what the printer gives for the same objects read back as JSON.
#[test]
fn every_served_kind_prints_its_json() {
    let mut c = cluster();
    c.set_control_plane(ControlPlane::LIVE, 0);
    let mut w = Workload::new(
        5,
        WorkloadConfig {
            namespaces: 3,
            pods: 40,
            churn_per_sec: 0.0,
        },
    );
    w.populate(&mut c, 0);
    w.add_cronjob(&mut c, "ns-0", "nightly", 1, 0).unwrap();
    w.add_statefulset(
        &mut c,
        "ns-1",
        "db",
        StatefulSetSpec {
            replicas: 2,
            claim_templates: &["data"],
            retention: ClaimRetention::Retain,
        },
        0,
    )
    .unwrap();
    let mut now = 0;
    for _ in 0..200 {
        now += 500;
        w.step(&mut c, now);
    }
    // The CronJob's first Job (at one minute) and its pod.
    w.tick(&mut c, now);
    let crd: Value = serde_json::from_str(&kinds::widget_crd("", None, 0)).unwrap();
    for rt in resources::ALL {
        let conv = if rt == WIDGETS {
            TableConvertor::for_crd(&crd, "v1").unwrap()
        } else {
            TableConvertor::for_kind(rt.group, rt.kind)
        };
        let path = rt.collection_path(None);
        let doc = json(&table(&mut c, &path, now));
        assert_eq!(doc["columnDefinitions"], columns_json(&conv), "{path}");
        let served = table_rows(&mut c, &path, now);
        assert!(!served.is_empty(), "{path}: the workload has some");
        let printed = printed_rows(&mut c, &conv, &path, now, rt.kind, &rt.api_version());
        assert_eq!(served, printed, "{path}");
    }
}

/// A row is stored once; its time-dependent cells render when served.
#[test]
fn ages_render_when_served() {
    let (mut c, _) = three_pods();
    let at = |c: &mut Cluster, now| table_rows(c, "/api/v1/namespaces/shop/pods", now)[0].clone();
    let early = at(&mut c, FIVE_MIN_MS);
    let late = at(&mut c, 3 * 3_600_000 + 60_000);
    assert_eq!(early[4], "5m");
    assert_eq!(late[4], "3h1m");
    assert_eq!(early[..4], late[..4]);
}
