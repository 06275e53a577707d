//! Decoding server-side tables (`as=Table`) and pretty-printed answers. The bytes come
//! from the sim's printers (`kubelive_sim::printers`), which write what kube-apiserver
//! v1.32 writes (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go` for
//! list answers, `watch.go` for watch events: definitions with the first event of a
//! watch only, converted bookmarks, ERROR events as plain Status objects). Every body
//! is fed whole, byte by byte and at seeded random split points, with the same result.

mod support;

use kubelive_core::decode::{ListDecoder, ListMeta, WatchDecoder, WatchFrame};
use kubelive_core::{
    Cell, ColumnKind, ColumnType, DecodeError, Limits, Object, ParseOptions, TableColumn,
};
use kubelive_sim::printers::IncludeObject;
use kubelive_sim::Rng;
use serde_json::Value;
use support::{now_ms, Printer};

const GENERIC: ParseOptions = ParseOptions {
    metadata: kubelive_core::KeptMetadata::All,
    strip_managed_fields: false,
    columns: ColumnKind::Generic,
};
const STRIP: ParseOptions = ParseOptions {
    metadata: kubelive_core::KeptMetadata::All,
    strip_managed_fields: true,
    columns: ColumnKind::Pod,
};

/// Realistic pods (`kubelive_sim::pod_json`, managedFields and all) at versions 100+i.
fn pods(n: u64) -> Vec<String> {
    (0..n)
        .map(|i| {
            let mut v: Value = serde_json::from_str(&kubelive_sim::pod_json(7, i)).unwrap();
            v["metadata"]["resourceVersion"] = (100 + i).to_string().into();
            v.to_string()
        })
        .collect()
}

fn sizes_for(len: usize) -> Vec<Vec<usize>> {
    let mut all = vec![vec![len], vec![1; len]];
    for seed in 1..=4u64 {
        let mut rng = Rng::new(seed);
        let mut sizes = Vec::new();
        let mut left = len;
        while left > 0 {
            let n = (1 + rng.below(300) as usize).min(left);
            sizes.push(n);
            left -= n;
        }
        all.push(sizes);
    }
    all
}

type Listed = (
    Vec<Object>,
    Option<Vec<TableColumn>>,
    Result<ListMeta, DecodeError>,
);

fn list_with(body: &[u8], sizes: &[usize], opts: ParseOptions) -> Listed {
    let mut d = ListDecoder::new(Limits::default(), opts);
    let mut items = Vec::new();
    let mut columns = None;
    let mut at = 0;
    for &n in sizes {
        let before = items.len();
        let fed = d.feed(&body[at..at + n], &mut items);
        if let Some(c) = d.take_columns() {
            // The engine applies them before the rows of the same feed.
            assert_eq!(before, 0, "definitions come before any row");
            assert!(columns.is_none(), "definitions are taken once");
            columns = Some(c);
        }
        at += n;
        if let Err(e) = fed {
            return (items, columns, Err(e));
        }
    }
    let meta = d.finish();
    (items, columns, meta)
}

/// Decodes `body` at every split; all must agree. Returns the whole-body result.
fn list_all(body: &[u8], opts: ParseOptions) -> Listed {
    let whole = list_with(body, &[body.len()], opts);
    for sizes in sizes_for(body.len()) {
        let got = list_with(body, &sizes, opts);
        assert_eq!(got.0, whole.0);
        assert_eq!(got.1, whole.1);
        assert_eq!(got.2, whole.2);
    }
    whole
}

fn watch_with(body: &[u8], sizes: &[usize], opts: ParseOptions) -> Vec<WatchFrame> {
    let mut d = WatchDecoder::new(Limits::default(), opts);
    let mut frames = Vec::new();
    let mut at = 0;
    for &n in sizes {
        d.feed(&body[at..at + n], &mut frames).unwrap();
        at += n;
    }
    d.finish(&mut frames).unwrap();
    frames
}

fn watch_all(body: &[u8], opts: ParseOptions) -> Vec<WatchFrame> {
    let whole = watch_with(body, &[body.len()], opts);
    for sizes in sizes_for(body.len()) {
        assert_eq!(watch_with(body, &sizes, opts), whole);
    }
    whole
}

/// What a row's object must be: the pod's metadata as a PartialObjectMetadata (or the
/// whole pod), without managedFields when they are stripped.
fn expected_object(pod: &str, include: IncludeObject, strip: bool) -> Value {
    let mut v: Value = serde_json::from_str(pod).unwrap();
    if strip {
        v["metadata"]
            .as_object_mut()
            .unwrap()
            .remove("managedFields");
    }
    match include {
        IncludeObject::Object => v,
        _ => serde_json::json!({
            "kind": "PartialObjectMetadata",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": v["metadata"],
        }),
    }
}

/// The cells the printer gives `pod`, as a JSON value.
fn printed_cells(p: &Printer, pod: &str) -> Value {
    let mut cells = String::new();
    p.convertor
        .row_from_json(pod)
        .unwrap()
        .write_cells_json(now_ms(), &mut cells);
    serde_json::from_str(&cells).unwrap()
}

/// A row's cells as a JSON value (what the JS API hands out), checking that they are
/// valid JSON.
fn cells_value(row: &Object) -> Value {
    serde_json::from_str(&row.cells_json().expect("a row")).expect("valid JSON")
}

#[test]
fn table_list_rows_hold_the_printed_cells_and_the_rows_objects() {
    let pods = pods(6);
    for include in [IncludeObject::Metadata, IncludeObject::Object] {
        let p = Printer::pods(include);
        let body = p.list(500, "tok", Some(12), &pods);
        for opts in [GENERIC, STRIP] {
            let (rows, columns, meta) = list_all(body.as_bytes(), opts);
            let meta = meta.unwrap();
            assert!(meta.table);
            assert_eq!(meta.resource_version.as_deref(), Some("500"));
            assert_eq!(meta.continue_token.as_deref(), Some("tok"));
            assert_eq!(meta.remaining_item_count, Some(12));
            let columns = columns.expect("the list's column definitions");
            let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
            assert_eq!(
                names,
                [
                    "Name",
                    "Ready",
                    "Status",
                    "Restarts",
                    "Age",
                    "IP",
                    "Node",
                    "Nominated Node",
                    "Readiness Gates"
                ]
            );
            assert!(columns[0].is_name() && columns[4].is_age());
            assert_eq!(columns[5].priority, 1);
            assert_eq!(columns[1].column_type, ColumnType::String);
            assert_eq!(rows.len(), pods.len());
            for (row, pod) in rows.iter().zip(&pods) {
                let v: Value = serde_json::from_str(pod).unwrap();
                let m = &v["metadata"];
                assert!(row.is_row());
                assert_eq!(row.name(), m["name"]);
                assert_eq!(row.namespace(), m["namespace"]);
                assert_eq!(row.uid(), m["uid"]);
                assert_eq!(row.resource_version(), m["resourceVersion"]);
                assert_eq!(row.creation_timestamp(), m["creationTimestamp"].as_str());
                assert_eq!(cells_value(row), printed_cells(&p, pod));
                let cells: Vec<Cell> = row.cells().unwrap().collect();
                assert_eq!(cells.len(), columns.len());
                assert_eq!(cells[0], Cell::Str(row.name().into()));
                assert_eq!(row.cell(2), Some(cells[2].clone()));
                let got: Value = serde_json::from_slice(&row.json()).unwrap();
                let strip = opts.strip_managed_fields;
                assert_eq!(got, expected_object(pod, include, strip));
                if !strip {
                    // Byte for byte the row's object as the server wrote it.
                    let json = row.json();
                    assert!(body.as_bytes().windows(json.len()).any(|w| w == &json[..]));
                }
                assert_eq!(row.labels(), {
                    let mut l: Vec<(String, String)> = m["labels"]
                        .as_object()
                        .unwrap()
                        .iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                        .collect();
                    l.sort();
                    let mut got = row.labels();
                    got.sort();
                    assert_eq!(got, l);
                    row.labels()
                });
            }
        }
    }
}

#[test]
fn a_row_holds_far_fewer_bytes_than_the_object() {
    let pods = pods(20);
    let p = Printer::pods(IncludeObject::Metadata);
    let table = p.list(500, "", None, &pods);
    let (rows, _, meta) = list_with(table.as_bytes(), &[table.len()], STRIP);
    meta.unwrap();
    let plain = format!(
        "{{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{{\"resourceVersion\":\"500\"}},\"items\":[{}]}}",
        pods.join(",")
    );
    let opts = ParseOptions {
        metadata: kubelive_core::KeptMetadata::All,
        strip_managed_fields: false,
        columns: ColumnKind::Pod,
    };
    let (objects, _, _) = list_with(plain.as_bytes(), &[plain.len()], opts);
    let held = |v: &[Object]| v.iter().map(Object::heap_bytes).sum::<usize>();
    // The figures are in BENCHMARKS.md; here only that the row is much smaller.
    assert!(
        held(&rows) * 3 < held(&objects),
        "rows {} objects {}",
        held(&rows),
        held(&objects)
    );
}

/// `KeptMetadata::Identity` (the app's table): a row keeps its cells and the members
/// that name, version and date it; labels, annotations, ownerReferences, generateName
/// and managedFields are not stored, in lists and in watch events, at every split.
#[test]
fn identity_rows_keep_cells_and_identity_only() {
    let pods = pods(6);
    let p = Printer::pods(IncludeObject::Metadata);
    let identity = ParseOptions {
        metadata: kubelive_core::KeptMetadata::Identity,
        ..STRIP
    };
    let list = p.list(500, "", None, &pods);
    let (rows, columns, meta) = list_all(list.as_bytes(), identity);
    meta.unwrap();
    assert_eq!(columns.unwrap().len(), 9);
    let (full, _, _) = list_all(list.as_bytes(), STRIP);
    let mut w = p.watch();
    let watch: String = pods.iter().map(|pod| w.event("ADDED", pod)).collect();
    let events: Vec<Object> = watch_all(watch.as_bytes(), identity)
        .into_iter()
        .filter_map(|f| match f {
            WatchFrame::Added(o) => Some(o),
            WatchFrame::Columns(_) => None,
            f => panic!("{f:?}"),
        })
        .collect();
    assert_eq!(events.len(), pods.len());
    for ((row, event), (pod, whole)) in rows.iter().zip(&events).zip(pods.iter().zip(&full)) {
        let m = &serde_json::from_str::<Value>(pod).unwrap()["metadata"];
        let mut want = serde_json::Map::new();
        for k in [
            "name",
            "namespace",
            "uid",
            "resourceVersion",
            "creationTimestamp",
        ] {
            want.insert(k.into(), m[k].clone());
        }
        let want = serde_json::json!({
            "kind": "PartialObjectMetadata",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": want,
        });
        for o in [row, event] {
            assert_eq!(serde_json::from_slice::<Value>(&o.json()).unwrap(), want);
            assert_eq!(o.cells_json(), whole.cells_json());
            assert_eq!(
                (o.name(), o.namespace(), o.uid(), o.resource_version()),
                (
                    whole.name(),
                    whole.namespace(),
                    whole.uid(),
                    whole.resource_version()
                )
            );
            assert!(o.labels().is_empty() && !whole.labels().is_empty());
            // The figures are in BENCHMARKS.md; here only that these pods' labels,
            // annotations, ownerReferences and generateName (~360 bytes) are not held.
            assert!(
                o.heap_bytes() + 200 < whole.heap_bytes(),
                "{} against {}",
                o.heap_bytes(),
                whole.heap_bytes()
            );
        }
    }
}

#[test]
fn table_watch_events_carry_definitions_on_the_first_event_only() {
    let pods = pods(3);
    let p = Printer::pods(IncludeObject::Metadata);
    let mut w = p.watch();
    let mut modified: Value = serde_json::from_str(&pods[0]).unwrap();
    modified["metadata"]["resourceVersion"] = "200".into();
    modified["status"]["phase"] = "Succeeded".into();
    let modified = modified.to_string();
    let lines = [
        w.event("ADDED", &pods[0]),
        w.event("MODIFIED", &modified),
        w.bookmark("Pod", 201, false),
        w.event("DELETED", &pods[1]),
        w.bookmark("Pod", 202, true),
        w.error(r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (150)","reason":"Expired","code":410}"#),
    ];
    assert!(lines[0].contains("\"columnDefinitions\":[{"));
    assert!(lines[1].contains("\"columnDefinitions\":null"));
    assert!(lines[2].contains("\"kind\":\"Table\""), "{}", lines[2]);
    let body = lines.concat();
    for opts in [GENERIC, STRIP] {
        let frames = watch_all(body.as_bytes(), opts);
        assert_eq!(frames.len(), 7, "{frames:#?}");
        let WatchFrame::Columns(columns) = &frames[0] else {
            panic!("{:?}", frames[0]);
        };
        assert_eq!(columns.len(), 9);
        let WatchFrame::Added(a) = &frames[1] else {
            panic!("{:?}", frames[1]);
        };
        assert!(a.is_row());
        assert_eq!(cells_value(a), printed_cells(&p, &pods[0]));
        let WatchFrame::Modified(m) = &frames[2] else {
            panic!("{:?}", frames[2]);
        };
        assert_eq!((m.name(), m.resource_version()), (a.name(), "200"));
        assert_eq!(cells_value(m), printed_cells(&p, &modified));
        assert_eq!(m.cell(2), Some(Cell::Str("Succeeded".into())));
        assert_eq!(
            frames[3],
            WatchFrame::Bookmark {
                resource_version: "201".into(),
                initial_events_end: false
            }
        );
        let WatchFrame::Deleted(d) = &frames[4] else {
            panic!("{:?}", frames[4]);
        };
        assert_eq!(d.resource_version(), "101");
        assert_eq!(
            frames[5],
            WatchFrame::Bookmark {
                resource_version: "202".into(),
                initial_events_end: true
            }
        );
        assert!(matches!(frames[6], WatchFrame::Error { .. }));
    }
    // A watch whose first event is a bookmark: its definitions come with it.
    let mut w = p.watch();
    let body = [w.bookmark("Pod", 7, true), w.event("ADDED", &pods[2])].concat();
    let frames = watch_all(body.as_bytes(), GENERIC);
    assert!(matches!(&frames[0], WatchFrame::Columns(c) if c.len() == 9));
    assert_eq!(
        frames[1],
        WatchFrame::Bookmark {
            resource_version: "7".into(),
            initial_events_end: true
        }
    );
    assert!(matches!(&frames[2], WatchFrame::Added(o) if o.is_row()));
    assert_eq!(frames.len(), 3);
}

#[test]
fn cells_are_typed_values_of_their_columns() {
    // ReplicaSets print integers (Desired, Current, Ready).
    let mut rng = Rng::new(3);
    let rs = kubelive_sim::kinds::replica_set(&kubelive_sim::kinds::ReplicaSetParams {
        id: kubelive_sim::kinds::Identity {
            resource_version: Some(9),
            ..kubelive_sim::kinds::Identity::new(&mut rng, "ns-1", "web-5d8f7c9b", 1_000)
        },
        app: "web".into(),
        deployment_uid: "d-1".into(),
        template_hash: "5d8f7c9b".into(),
        image: "nginx:1.27".into(),
        replicas: 3,
        ready: 2,
    });
    let p = Printer::new("apps", "ReplicaSet", IncludeObject::Metadata);
    let body = p.list(10, "", None, &[rs]);
    let (rows, columns, _) = list_all(body.as_bytes(), GENERIC);
    let columns = columns.unwrap();
    assert_eq!(columns[1].name, "Desired");
    assert_eq!(columns[1].column_type, ColumnType::Integer);
    assert!(columns[1].column_type.is_numeric());
    let cells: Vec<Cell> = rows[0].cells().unwrap().collect();
    assert_eq!(cells[0], Cell::Str("web-5d8f7c9b".into()));
    assert_eq!(&cells[1..4], &[Cell::Int(3), Cell::Int(3), Cell::Int(2)]);
    // A name with escapes: the span holds the decoded text; the cell decodes too.
    let odd = r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a\u00e9\"b","namespace":"n","uid":"u","resourceVersion":"3","creationTimestamp":"2026-11-29T10:00:00Z"}}"#;
    let p = Printer::new("", "ConfigMap", IncludeObject::Metadata);
    let body = p.list(10, "", None, &[odd.to_string()]);
    let (rows, _, _) = list_all(body.as_bytes(), GENERIC);
    assert_eq!(rows[0].name(), "a\u{e9}\"b");
    assert_eq!(rows[0].cell(0), Some(Cell::Str("a\u{e9}\"b".into())));
}

#[test]
fn rows_without_their_objects_are_refused_with_the_reason() {
    let pods = pods(2);
    let p = Printer::pods(IncludeObject::None);
    let body = p.list(5, "", None, &pods);
    let (rows, _, r) = list_all(body.as_bytes(), GENERIC);
    assert!(rows.is_empty());
    let e = r.unwrap_err();
    assert!(e.to_string().contains("includeObject=None"), "{e}");
}

#[test]
fn a_plain_list_is_told_from_a_table() {
    let pods = pods(2);
    let plain = format!(
        "{{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{{\"resourceVersion\":\"5\"}},\"items\":[{}]}}",
        pods.join(",")
    );
    let (items, columns, meta) = list_all(plain.as_bytes(), GENERIC);
    assert!(!meta.unwrap().table);
    assert!(columns.is_none());
    assert!(items.iter().all(|o| !o.is_row() && o.cells().is_none()));
    // An empty Table from the default convertor: "rows":null.
    let p = Printer::new("example.com", "Gadget", IncludeObject::Metadata);
    let empty = p.list(5, "", None, &[]);
    assert!(empty.contains("\"rows\":null"), "{empty}");
    let (items, columns, meta) = list_all(empty.as_bytes(), GENERIC);
    assert!(meta.unwrap().table && items.is_empty());
    assert_eq!(
        columns
            .unwrap()
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>(),
        ["Name", "Created At"]
    );
    // A watch event that is not a Table, even with a "rows" member, is an object.
    let line = r#"{"type":"ADDED","object":{"kind":"Table","apiVersion":"db.example.com/v1","metadata":{"name":"t","resourceVersion":"3"},"rows":[1]}}"#;
    let frames = watch_all(format!("{line}\n").as_bytes(), GENERIC);
    assert!(matches!(&frames[..], [WatchFrame::Added(o)] if !o.is_row() && o.name() == "t"));
}

#[test]
fn a_table_event_must_hold_exactly_one_row() {
    for rows in [
        "[]",
        "null",
        r#"[{"cells":[],"object":{"metadata":{"name":"a","resourceVersion":"1"}}},{"cells":[],"object":{"metadata":{"name":"b","resourceVersion":"1"}}}]"#,
    ] {
        let line = format!(
            "{{\"type\":\"ADDED\",\"object\":{{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{{}},\"columnDefinitions\":null,\"rows\":{rows}}}}}\n"
        );
        let mut d = WatchDecoder::new(Limits::default(), GENERIC);
        let mut frames = Vec::new();
        assert!(d.feed(line.as_bytes(), &mut frames).is_err(), "{rows}");
        assert!(frames.is_empty());
    }
}

#[test]
fn pretty_printed_answers_are_stored_compact() {
    // kube-apiserver indents lists for browsers and curl (kubectl proxy forwards the
    // browser's User-Agent): the stored copy drops the indentation.
    let pods = pods(4);
    let plain = format!(
        "{{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{{\"resourceVersion\":\"5\"}},\"items\":[{}]}}",
        pods.join(",")
    );
    let p = Printer::pods(IncludeObject::Metadata);
    let table = p.list(5, "", None, &pods);
    for body in [plain, table] {
        let pretty = kubelive_sim::indent::indent(body.as_bytes());
        assert!(pretty.len() > body.len() + 1000);
        for opts in [GENERIC, STRIP] {
            let (compact, c_cols, c_meta) = list_with(body.as_bytes(), &[body.len()], opts);
            let (indented, i_cols, i_meta) = list_all(&pretty, opts);
            assert_eq!(c_meta, i_meta);
            assert_eq!(c_cols, i_cols);
            assert_eq!(compact.len(), indented.len());
            for (c, i) in compact.iter().zip(&indented) {
                assert_eq!(c.json(), i.json());
                assert_eq!(c.cells_json(), i.cells_json());
                assert_eq!(c.heap_bytes(), i.heap_bytes());
                assert_eq!((c.name(), c.uid()), (i.name(), i.uid()));
            }
        }
    }
}

#[test]
fn a_table_event_is_read_whatever_the_order_of_its_members() {
    // The apiserver writes kind and apiVersion first (the row is then read in one
    // pass); any other order is read too, with the same result.
    let row = r#"{"cells":["a",1],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a","namespace":"n","uid":"u","resourceVersion":"7"}}}"#;
    let defs = r#"[{"name":"Name","type":"string","format":"name","description":"","priority":0},{"name":"N","type":"integer","format":"","description":"","priority":0}]"#;
    let orders = [
        format!(
            r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"7"}},"columnDefinitions":{defs},"rows":[{row}]}}"#
        ),
        format!(
            r#"{{"rows":[{row}],"columnDefinitions":{defs},"metadata":{{"resourceVersion":"7"}},"apiVersion":"meta.k8s.io/v1","kind":"Table"}}"#
        ),
        format!(
            r#"{{"apiVersion":"meta.k8s.io/v1","rows":[{row}],"kind":"Table","columnDefinitions":{defs}}}"#
        ),
    ];
    let mut seen = Vec::new();
    for table in &orders {
        for line in [
            format!("{{\"type\":\"MODIFIED\",\"object\":{table}}}\n"),
            format!("{{\"object\":{table},\"type\":\"MODIFIED\"}}\n"),
        ] {
            let frames = watch_all(line.as_bytes(), GENERIC);
            assert!(
                matches!(&frames[0], WatchFrame::Columns(c) if c.len() == 2),
                "{line}"
            );
            let WatchFrame::Modified(o) = &frames[1] else {
                panic!("{line}: {frames:?}");
            };
            assert_eq!(o.cells_json().as_deref(), Some(r#"["a",1]"#));
            seen.push(o.json().into_owned());
        }
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]));
}
