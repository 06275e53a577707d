use super::*;
use kubelive_core::{ParseOptions, Store};
use std::collections::HashMap;

fn pod(ns: &str, name: &str, rv: u32, restarts: u32, app: &str) -> Arc<Object> {
    let json = format!(
        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}","namespace":"{ns}","uid":"u-{name}","resourceVersion":"{rv}","creationTimestamp":"2024-01-01T00:00:00Z","labels":{{"app":"{app}"}}}},"spec":{{"nodeName":"node-{app}","containers":[{{"name":"c"}}]}},"status":{{"phase":"Running","containerStatuses":[{{"name":"c","ready":true,"restartCount":{restarts}}}]}}}}"#
    );
    let opts = ParseOptions {
        columns: ColumnKind::Pod,
        ..ParseOptions::default()
    };
    Arc::new(Object::parse(json.as_bytes(), &opts).expect("test pod parses"))
}

/// Pod columns of the fallback printer (object mode), across namespaces.
fn pod_cols() -> Vec<Column> {
    view_columns(None, ColumnKind::Pod, true, false)
}

/// The fallback pod column with id `id`.
fn known(id: &str) -> Column {
    pod_cols()
        .into_iter()
        .find(|c| c.id == id)
        .expect("a fallback pod column")
}

fn sort(s: &str) -> Sort {
    Sort::parse(s, &pod_cols()).expect("a pod column")
}

/// The server's pod columns (kubernetes `pkg/printers/internalversion/printers.go`).
const POD_COLUMNS: &str = r#"[{"name":"Name","type":"string","format":"name","description":"Name must be unique within a namespace.","priority":0},
 {"name":"Ready","type":"string","format":"","description":"The aggregate readiness state of this pod for accepting traffic.","priority":0},
 {"name":"Status","type":"string","format":"","description":"The aggregate status of the containers in this pod.","priority":0},
 {"name":"Restarts","type":"string","format":"","description":"The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.","priority":0},
 {"name":"Age","type":"string","format":"","description":"CreationTimestamp is a timestamp representing the server time when this object was created.","priority":0},
 {"name":"IP","type":"string","format":"","description":"IP address allocated to the pod.","priority":1},
 {"name":"Node","type":"string","format":"","description":"Name of the Node where the Pod is scheduled.","priority":1}]"#;

/// Rows as the list decoder stores them from a Table answer with `columns`; each
/// row is `(namespace, name, creationTimestamp, cells JSON)`.
fn table_rows(
    columns: &str,
    rows: &[(&str, &str, &str, &str)],
) -> (Vec<TableColumn>, Vec<Arc<Object>>) {
    let rows: Vec<String> = rows
        .iter()
        .map(|(ns, name, created, cells)| {
            format!(
                r#"{{"cells":{cells},"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"name":"{name}","namespace":"{ns}","uid":"u-{name}","resourceVersion":"1","creationTimestamp":"{created}"}}}}}}"#
            )
        })
        .collect();
    let body = format!(
        r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"9"}},"columnDefinitions":{columns},"rows":[{}]}}"#,
        rows.join(",")
    );
    let mut d = kubelive_core::decode::ListDecoder::new(
        kubelive_core::Limits::default(),
        ParseOptions::default(),
    );
    let mut out = Vec::new();
    d.feed(body.as_bytes(), &mut out).expect("a Table list");
    d.finish().expect("a complete Table");
    let cols = d.take_columns().expect("column definitions");
    (cols, out.into_iter().map(Arc::new).collect())
}

fn ids(cols: &[Column]) -> String {
    cols.iter()
        .map(|c| c.id.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

fn names(m: &TableModel) -> Vec<String> {
    m.rows().iter().map(|o| o.name().to_string()).collect()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn columns_fit_the_resource() {
    // The fallback printer's columns (kubectl's), as a server's are shown.
    let ids = |kind, ns| ids(&view_columns(None, kind, ns, true));
    assert_eq!(
        ids(ColumnKind::Pod, true),
        "namespace,name,ready,status,restarts,age,node"
    );
    assert_eq!(
        ids(ColumnKind::Deployment, true),
        "namespace,name,ready,up-to-date,available,age"
    );
    assert_eq!(ids(ColumnKind::Generic, false), "name,age");
    let cols = view_columns(None, ColumnKind::Pod, false, false);
    assert_eq!(cols[1].source, Source::Fallback(1));
    assert!(cols[0].is_name && cols[2].status_like && cols[4].sort_as == SortAs::Age);
    assert!(!has_wide(None));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn cells_read_like_kubectl() {
    let p = pod("default", "web-1", 5, 3, "web");
    assert_eq!(cell(&known("ready"), &p, 0.0), "1/1");
    assert_eq!(cell(&known("status"), &p, 0.0), "Running");
    assert_eq!(cell(&known("restarts"), &p, 0.0), "3");
    assert_eq!(cell(&known("node"), &p, 0.0), "node-web");
    assert_eq!(cell(&known("age"), &p, 1_704_067_200.0 + 90.0), "90s");
    assert_eq!(cell(&known("namespace"), &p, 0.0), "default");
    assert_eq!(
        row_texts(&pod_cols(), &p, 1_704_067_200.0 + 90.0),
        ["default", "web-1", "1/1", "Running", "3", "90s", "node-web"]
    );
    // A table row under the fallback's columns (the server stopped printing, and the
    // rows are being replaced): its name, and nothing made up.
    let (_, rows) = table_rows(
        POD_COLUMNS,
        &[(
            "a",
            "r",
            "2024-01-01T00:00:00Z",
            r#"["r","0/1","Pending","0","1m",null,null]"#,
        )],
    );
    assert_eq!(cell(&known("name"), &rows[0], 0.0), "r");
    assert_eq!(cell(&known("status"), &rows[0], 0.0), "");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn sort_params_round_trip() {
    let s = sort("-restarts");
    assert_eq!((s.col.source.clone(), s.desc), (Source::Fallback(3), true));
    assert_eq!(s.to_param(), "-restarts");
    assert_eq!(s.toggled(&known("restarts")).to_param(), "restarts");
    assert_eq!(s.toggled(&known("name")).to_param(), "name");
    assert!(Sort::parse("bogus", &pod_cols()).is_none());
    // Server columns are named by their names.
    let (defs, _) = table_rows(POD_COLUMNS, &[]);
    let cols = view_columns(Some(&defs), ColumnKind::Generic, true, true);
    let s = Sort::parse("-nominated-node", &cols);
    assert!(s.is_none(), "not a column of this table");
    let s = Sort::parse("-ip", &cols).unwrap();
    assert_eq!(s.col.source, Source::Cell(5));
    assert_eq!(Sort::by_name(&cols).to_param(), "name");
}

/// A filter for the free-text word `w` over the pod columns.
fn text(w: &str) -> Filter {
    let words: Vec<String> = w.split_whitespace().map(String::from).collect();
    Filter::new(&words, &pod_cols())
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn free_text_matches_any_shown_cell() {
    let p = pod("default", "Web-1", 5, 0, "web");
    assert!(text("web").matches(&p), "the name, case-insensitive");
    assert!(text("DEFAULT").matches(&p), "the namespace");
    assert!(text("running").matches(&p), "the status");
    assert!(text("node-web").matches(&p), "the node");
    assert!(text("1/1").matches(&p), "the ready column");
    assert!(
        text("eb- runn").matches(&p),
        "every word, each in some cell"
    );
    assert!(!text("web api").matches(&p));
    assert!(
        !text("app=web").matches(&p),
        "labels are the server's business"
    );
    assert!(!text("2024").matches(&p), "ages are not matched");
    assert!(text("  ").is_empty());
    assert!(text("  ").matches(&p));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn status_classes_are_built_from_safe_characters_only() {
    assert_eq!(status_class("Running").as_deref(), Some("st-running"));
    assert_eq!(
        status_class("CrashLoopBackOff").as_deref(),
        Some("st-crashloopbackoff")
    );
    assert_eq!(status_class("Init:0/1").as_deref(), Some("st-init01"));
    assert_eq!(
        status_class("x st-running").as_deref(),
        Some("st-xst-running")
    );
    assert_eq!(
        status_class("<img src=x onerror=alert(1)>").as_deref(),
        Some("st-imgsrcxonerroralert1")
    );
    assert_eq!(status_class("Ünïcode é").as_deref(), Some("st-ncode"));
    assert_eq!(status_class(" \"'<>").as_deref(), None);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn incremental_updates_keep_the_index_sorted() {
    let mut m = TableModel::new(sort("-restarts"), Filter::default());
    let store = Store::new();
    assert!(m.maybe_rebuild(&store, 0.0, false));
    let a = pod("ns", "a", 1, 1, "x");
    let b = pod("ns", "b", 2, 5, "x");
    let c = pod("ns", "c", 3, 3, "y");
    m.apply(
        &[
            Event::Added(a.clone()),
            Event::Added(b.clone()),
            Event::Added(c.clone()),
        ],
        0.0,
    );
    assert_eq!(names(&m), ["b", "c", "a"]);
    let a2 = pod("ns", "a", 4, 9, "x");
    m.apply(
        &[Event::Modified {
            old: a.clone(),
            new: a2.clone(),
        }],
        0.0,
    );
    assert_eq!(names(&m), ["a", "b", "c"]);
    // Before the first sync, deletes leave at once and nothing flashes.
    m.apply(&[Event::Deleted(b.clone())], 0.0);
    assert_eq!(names(&m), ["a", "c"]);
    assert_eq!(m.row_state("ns/a", 0.0), RowState::Normal);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_kept_first_screen_shows_its_rows_in_order_until_the_stores_replace_them() {
    let mut m = TableModel::new(sort("-restarts"), text("x"));
    let (a, b, c) = (
        pod("ns", "a", 1, 1, "x"),
        pod("ns", "b", 2, 5, "x"),
        pod("ns", "c", 3, 3, "y"),
    );
    m.show_only(&[a.clone(), b.clone(), c.clone()]);
    assert!(!m.is_stale());
    assert_eq!(names(&m), ["b", "a"], "sorted and filtered as any row");
    // Not live: a row added to them does not flash as news.
    let d = pod("ns", "d", 4, 4, "x");
    m.apply(&[Event::Added(d.clone())], 0.0);
    assert_eq!(names(&m), ["b", "d", "a"]);
    assert_eq!(m.row_state("ns/d", 0.0), RowState::Normal);
    // The engine's rows take their place: a rebuild from its store alone.
    m.clear();
    assert!(m.maybe_rebuild(&Store::new(), 0.0, false));
    assert!(m.is_empty(), "no kept row stays");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn after_sync_changes_flash_and_deletes_fade() {
    let mut m = TableModel::new(Sort::default(), text("node-x"));
    m.maybe_rebuild(&Store::new(), 0.0, false);
    let a = pod("ns", "a", 1, 1, "x");
    let y = pod("ns", "y", 1, 1, "y");
    m.apply(
        &[
            Event::Added(a.clone()),
            Event::Added(y.clone()),
            Event::Synced {
                objects: 2,
                resource_version: kubelive_core::ResourceVersion::new("1"),
            },
        ],
        0.0,
    );
    assert_eq!(
        names(&m),
        ["a"],
        "the filter applies to incremental inserts"
    );
    let b = pod("ns", "b", 2, 0, "x");
    m.apply(&[Event::Added(b.clone())], 100.0);
    assert!(matches!(
        m.row_state("ns/b", 150.0),
        RowState::Changed { added: true, .. }
    ));
    assert_eq!(m.row_state("ns/b", 100.0 + FLASH_MS), RowState::Normal);
    // The deleted object's final state may differ from the shown one.
    let a_final = pod("ns", "a", 3, 7, "x");
    m.apply(&[Event::Deleted(a_final)], 200.0);
    assert_eq!(m.row_state("ns/a", 300.0), RowState::Gone);
    assert_eq!(names(&m), ["a", "b"]);
    assert_eq!(m.shown(), 1);
    assert!(m.sweep(200.0 + FADE_MS));
    assert_eq!(names(&m), ["b"]);
    // Recreated while fading: the fading row gives way to the new one.
    m.apply(&[Event::Deleted(b.clone())], 300.0);
    let b2 = pod("ns", "b", 5, 0, "x");
    m.apply(&[Event::Added(b2)], 400.0);
    assert_eq!(names(&m), ["b"]);
    assert_ne!(m.row_state("ns/b", 450.0), RowState::Gone);
}

/// A restored view comes as one batch (its rows, then `Restored`) into a table that
/// has drawn its first, empty window: every row shown in order, none flashing, and
/// what changes after it flashes as after a sync (the rows are the server's state at
/// the kept version).
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_restored_view_arrives_in_order_and_its_later_changes_flash() {
    let mut m = TableModel::new(sort("name"), Filter::default());
    m.maybe_rebuild(&Store::new(), 0.0, false);
    let mut events: Vec<Event> = (0..3000)
        .map(|i| {
            Event::Added(pod(
                &format!("ns-{}", i % 7),
                &format!("p-{:04}", (i * 7919) % 3000),
                1,
                0,
                "x",
            ))
        })
        .collect();
    events.push(Event::Restored {
        objects: 3000,
        resource_version: kubelive_core::ResourceVersion::new("1"),
    });
    m.apply(&events, 0.0);
    let shown = names(&m);
    let mut expected = shown.clone();
    expected.sort();
    assert_eq!(shown.len(), 3000);
    assert_eq!(shown, expected, "sorted by name");
    assert_eq!(
        m.row_state("ns-0/p-0000", 10.0),
        RowState::Normal,
        "restored rows do not flash"
    );
    m.apply(
        &[Event::Modified {
            old: pod("ns-0", "p-0000", 1, 0, "x"),
            new: pod("ns-0", "p-0000", 2, 1, "x"),
        }],
        100.0,
    );
    assert!(matches!(
        m.row_state("ns-0/p-0000", 150.0),
        RowState::Changed { added: false, .. }
    ));
}

/// A deleted object's final state may differ in the sorted column from the row shown
/// (a pod's restarts, status or readiness at its deletion): its row is found by the
/// version held, not by a scan of every row (a long task at a million rows), both
/// while synced (it fades, shown as it was) and before (it leaves at once).
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_deleted_row_whose_sorted_cell_changed_is_found_without_a_scan() {
    let mut m = TableModel::new(sort("restarts"), Filter::default());
    m.maybe_rebuild(&Store::new(), 0.0, false);
    let rows: Vec<Arc<Object>> = (0..40)
        .map(|i| pod("ns", &format!("p{i:02}"), 1, i % 7, "x"))
        .collect();
    let added: Vec<Event> = rows.iter().map(|o| Event::Added(o.clone())).collect();
    m.apply(&added[..10], 0.0);
    // Before the sync: deleted with other restarts than shown, it leaves at once.
    super::index::SCANS.with(|n| n.set(0));
    m.apply(&[Event::Deleted(pod("ns", "p03", 2, 99, "x"))], 10.0);
    assert!(!names(&m).contains(&"p03".to_string()), "{:?}", names(&m));
    m.apply(&added[10..], 20.0);
    m.apply(
        &[Event::Synced {
            objects: 39,
            resource_version: kubelive_core::ResourceVersion::new("1"),
        }],
        30.0,
    );
    // Synced: it fades as the version shown, then leaves.
    m.apply(&[Event::Deleted(pod("ns", "p20", 2, 99, "x"))], 100.0);
    assert_eq!(m.row_state("ns/p20", 150.0), RowState::Gone);
    let shown = m.find_key("ns/p20").expect("the fading row");
    assert_eq!(shown.resource_version(), "1", "shown as it was");
    assert!(m.sweep(100.0 + FADE_MS));
    assert!(m.find_key("ns/p20").is_none());
    assert_eq!(m.len(), 38);
    assert_eq!(
        super::index::SCANS.with(|n| n.get()),
        0,
        "no scan of every row"
    );
    let mut expected: Vec<String> = rows
        .iter()
        .filter(|o| !["p03", "p20"].contains(&o.name()))
        .map(|o| o.name().to_string())
        .collect();
    expected.sort_by_key(|n| {
        let i: u32 = n[1..].parse().unwrap();
        (i % 7, i)
    });
    assert_eq!(names(&m), expected);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_rebuild_sorts_like_sort_compare() {
    let mut rows = Vec::new();
    for i in 0..60u32 {
        let ns = ["a", "b", "c"][(i % 3) as usize];
        let name = format!("p{}", (i * 37) % 23);
        rows.push(pod(ns, &name, i, (i * 7) % 5, "x"));
    }
    for col in pod_cols() {
        for desc in [false, true] {
            let sort = Sort {
                col: col.clone(),
                desc,
            };
            let mut want = rows.clone();
            want.sort_by(|a, b| sort.compare(a, b));
            let got = sorted(&rows, &sort);
            let keys = |v: &[Arc<Object>]| v.iter().map(|o| key_of(o)).collect::<Vec<_>>();
            assert_eq!(keys(&got), keys(&want), "{sort:?}");
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_large_batch_of_new_objects_merges_without_a_rebuild() {
    let mut m = TableModel::new(sort("-restarts"), text("node-x"));
    assert!(m.maybe_rebuild(&Store::new(), 0.0, false));
    let mk = |i: u32| {
        pod(
            ["a", "b"][(i % 2) as usize],
            &format!("p{}", (i * 7919) % 5003),
            i,
            i % 13,
            ["x", "y"][(i % 5 == 0) as usize],
        )
    };
    let mut all: Vec<Arc<Object>> = Vec::new();
    for round in 0..9u32 {
        let batch: Vec<Arc<Object>> = (round * 500..round * 500 + 500).map(mk).collect();
        let events: Vec<Event> = batch.iter().cloned().map(Event::Added).collect();
        m.apply(&events, 0.0);
        assert!(!m.is_stale(), "round {round}");
        all.extend(batch);
    }
    let sort = m.sort().clone();
    let mut want: Vec<&Arc<Object>> = all.iter().filter(|o| m.filter.matches(o)).collect();
    want.sort_by(|a, b| sort.compare(a, b));
    let want: Vec<String> = want.iter().map(|o| key_of(o)).collect();
    let got: Vec<String> = m.rows().iter().map(|o| key_of(o)).collect();
    assert_eq!(got, want);
    // A large batch (over an eighth of the rows) with anything but ADDED: rebuilt
    // from the store.
    let mut events: Vec<Event> = (5000..5600).map(|i| Event::Added(mk(i))).collect();
    events.push(Event::Deleted(all[0].clone()));
    m.apply(&events, 0.0);
    assert!(m.is_stale());
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_initial_list_in_frame_sized_batches_stays_sorted_and_shown() {
    // A streaming list brings a few hundred objects a frame, before the first sync:
    // the table shows them all, in order, whichever way each batch goes in.
    let mut m = TableModel::new(sort("-restarts"), text("node-x"));
    assert!(m.maybe_rebuild(&Store::new(), 0.0, false));
    let mk = |i: u32| {
        pod(
            ["a", "b", "c"][(i % 3) as usize],
            &format!("p{}", (i * 7919) % 100_003),
            i,
            (i * 31) % 17,
            ["x", "y"][(i % 7 == 0) as usize],
        )
    };
    let mut all: Vec<Arc<Object>> = Vec::new();
    let check = |m: &TableModel, all: &[Arc<Object>]| {
        let sort = m.sort().clone();
        let mut want: Vec<&Arc<Object>> = all.iter().filter(|o| m.filter.matches(o)).collect();
        want.sort_by(|a, b| sort.compare(a, b));
        let want: Vec<String> = want.iter().map(|o| key_of(o)).collect();
        let got: Vec<String> = m.rows().iter().map(|o| key_of(o)).collect();
        assert_eq!(got, want);
    };
    for round in 0..100u32 {
        // 17..57 objects a frame.
        let n = 17 + round % 41;
        let batch: Vec<Arc<Object>> = (0..n).map(|k| mk(round * 64 + k)).collect();
        let events: Vec<Event> = batch.iter().cloned().map(Event::Added).collect();
        m.apply(&events, 0.0);
        assert!(!m.is_stale(), "round {round}");
        all.extend(batch);
    }
    check(&m, &all);
    assert_eq!(m.row_state(&key_of(&all[0]), 0.0), RowState::Normal);
    // Synced: from now on a batch is news, applied row by row and flashed.
    m.apply(
        &[Event::Synced {
            objects: all.len(),
            resource_version: kubelive_core::ResourceVersion::new("1"),
        }],
        0.0,
    );
    let batch: Vec<Arc<Object>> = (0..40).map(|k| mk(10_000 + k)).collect();
    m.apply(
        &batch.iter().cloned().map(Event::Added).collect::<Vec<_>>(),
        10.0,
    );
    all.extend(batch.iter().cloned());
    check(&m, &all);
    assert!(matches!(
        m.row_state(&key_of(&batch[0]), 20.0),
        RowState::Changed { added: true, .. }
    ));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_modified_row_that_keeps_its_place_is_replaced_in_place() {
    let mut m = TableModel::new(Sort::default(), Filter::default());
    assert!(m.maybe_rebuild(&Store::new(), 0.0, false));
    let (a, b, c) = (
        pod("ns", "a", 1, 0, "x"),
        pod("ns", "b", 2, 0, "x"),
        pod("ns", "c", 3, 0, "x"),
    );
    m.apply(
        &[Event::Added(a), Event::Added(b.clone()), Event::Added(c)],
        0.0,
    );
    let b2 = pod("ns", "b", 9, 4, "x");
    m.apply(&[Event::Modified { old: b, new: b2 }], 0.0);
    assert_eq!(names(&m), ["a", "b", "c"]);
    assert_eq!(m.rows()[1].resource_version(), "9");
    // Filtered out by its new version: it leaves.
    let mut m2 = TableModel::new(Sort::default(), text("node-x"));
    m2.maybe_rebuild(&Store::new(), 0.0, false);
    let d = pod("ns", "d", 1, 0, "x");
    m2.apply(&[Event::Added(d.clone())], 0.0);
    m2.apply(
        &[Event::Modified {
            old: d,
            new: pod("ns", "d", 2, 0, "y"),
        }],
        0.0,
    );
    assert!(m2.rows().is_empty());
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn place_of_follows_a_row_as_rows_come_and_go_before_it() {
    let mut m = TableModel::new(Sort::default(), Filter::default());
    assert!(m.maybe_rebuild(&Store::new(), 0.0, false));
    let rows: Vec<Arc<Object>> = ["b", "d", "f", "h"]
        .iter()
        .map(|n| pod("ns", n, 1, 0, "x"))
        .collect();
    m.apply(
        &rows.iter().cloned().map(Event::Added).collect::<Vec<_>>(),
        0.0,
    );
    let anchor = rows[2].clone(); // "f"
    assert_eq!(m.place_of(&anchor), 2);
    m.apply(
        &[
            Event::Added(pod("ns", "a", 2, 0, "x")),
            Event::Added(pod("ns", "c", 2, 0, "x")),
            Event::Added(pod("ns", "g", 2, 0, "x")),
        ],
        0.0,
    );
    assert_eq!(m.place_of(&anchor), 4, "two rows came before it, one after");
    assert_eq!(m.rows()[4].name(), "f");
    // A modified version of the row: same place (sorted by name).
    m.apply(
        &[Event::Modified {
            old: anchor.clone(),
            new: pod("ns", "f", 3, 1, "x"),
        }],
        0.0,
    );
    assert_eq!(m.place_of(&anchor), 4);
    // Gone (before the model went live, so no fade): the row after it takes its place.
    m.apply(&[Event::Deleted(pod("ns", "f", 3, 1, "x"))], 0.0);
    assert_eq!(m.place_of(&anchor), 4);
    assert_eq!(m.rows()[4].name(), "g");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_server_columns_show_priority_0_unless_wide_and_namespace_first_across_namespaces() {
    let (defs, _) = table_rows(POD_COLUMNS, &[]);
    assert_eq!(
        ids(&view_columns(Some(&defs), ColumnKind::Pod, false, false)),
        "name,ready,status,restarts,age"
    );
    assert_eq!(
        ids(&view_columns(Some(&defs), ColumnKind::Pod, true, true)),
        "namespace,name,ready,status,restarts,age,ip,node"
    );
    // No table: the fallback printer's columns for the kind, shown the same way.
    assert_eq!(
        ids(&view_columns(None, ColumnKind::Pod, true, true)),
        "namespace,name,ready,status,restarts,age,node"
    );
    let cols = view_columns(Some(&defs), ColumnKind::Pod, false, false);
    assert!(cols[0].is_name);
    assert_eq!(cols[2].title, "Status");
    assert!(cols[2].status_like && cols[1].status_like && !cols[3].status_like);
    assert_eq!(
        cols[0].description,
        "Name must be unique within a namespace."
    );
    assert!(has_wide(Some(&defs)));
    assert!(!has_wide(None));
    assert_eq!(column_id("Nominated Node"), "nominated-node");
    // Events' Last Seen is a printed duration in a string column: a time column.
    let (events, _) = table_rows(
        r#"[{"name":"Last Seen","type":"string","format":"","description":"","priority":0}]"#,
        &[],
    );
    let last_seen = Column::server(0, &events[0]);
    assert!(last_seen.is_time() && last_seen.sort_as == SortAs::Date);
    assert_eq!(column_id("Up-to-date"), "up-to-date");
    assert_eq!(column_id("<b>X</b>"), "b-x-b");
    assert_eq!(column_id("  "), "column");
}

/// The CRD's columns: `additionalPrinterColumns` (an integer, a date, a priority-1
/// column) with Name and Age, as the apiserver's CRD table convertor gives them.
const WIDGET_COLUMNS: &str = r#"[{"name":"Name","type":"string","format":"name","description":"Name must be unique within a namespace.","priority":0},
 {"name":"Size","type":"integer","format":"","description":"How big the widget is.","priority":0},
 {"name":"Built","type":"date","format":"","description":"When it was built.","priority":0},
 {"name":"Color","type":"string","format":"","description":"","priority":1},
 {"name":"Age","type":"date","format":"","description":"","priority":0}]"#;

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn server_rows_sort_by_the_columns_type() {
    let (defs, rows) = table_rows(
        WIDGET_COLUMNS,
        &[
            (
                "ns",
                "w-10",
                "2024-01-01T00:00:00Z",
                r#"["w-10",10,"5m","red","2d"]"#,
            ),
            (
                "ns",
                "w-2",
                "2024-01-03T00:00:00Z",
                r#"["w-2",9,"3d4h","blue","5m"]"#,
            ),
            (
                "ns",
                "w-1",
                "2024-01-02T00:00:00Z",
                r#"["w-1",100,"45s","green","1d"]"#,
            ),
            (
                "ns",
                "w-3",
                "2024-01-02T12:00:00Z",
                r#"["w-3",null,"<unknown>",null,"1d"]"#,
            ),
        ],
    );
    let cols = view_columns(Some(&defs), ColumnKind::Generic, false, true);
    let order = |param: &str| {
        let sort = Sort::parse(param, &cols).unwrap();
        let got: Vec<String> = sorted(&rows, &sort)
            .iter()
            .map(|o| o.name().to_string())
            .collect();
        // The incremental order agrees with the rebuild's.
        let mut want = rows.clone();
        want.sort_by(|a, b| sort.compare(a, b));
        assert_eq!(
            got,
            want.iter()
                .map(|o| o.name().to_string())
                .collect::<Vec<_>>()
        );
        got.join(" ")
    };
    // Names naturally: w-2 before w-10.
    assert_eq!(order("name"), "w-1 w-2 w-3 w-10");
    // Integers as numbers, null last.
    assert_eq!(order("size"), "w-2 w-10 w-1 w-3");
    assert_eq!(order("-size"), "w-3 w-1 w-10 w-2");
    // A date column by the duration printed: youngest first.
    assert_eq!(order("built"), "w-1 w-10 w-2 w-3");
    // Age by creationTimestamp, not by the text printed at list time.
    assert_eq!(order("age"), "w-2 w-3 w-1 w-10");
    assert_eq!(order("color"), "w-2 w-1 w-10 w-3");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn restarts_sort_by_their_leading_number_and_ages_count_on() {
    let (defs, rows) = table_rows(
        POD_COLUMNS,
        &[
            (
                "a",
                "p1",
                "2024-01-01T00:00:00Z",
                r#"["p1","1/1","Running","10 (5m ago)","5m","10.0.0.1","n1"]"#,
            ),
            (
                "a",
                "p2",
                "2024-01-01T00:00:00Z",
                r#"["p2","0/1","CrashLoopBackOff","9 (1m ago)","5m","10.0.0.2","n1"]"#,
            ),
            (
                "b",
                "p3",
                "2024-01-01T00:00:00Z",
                r#"["p3","1/1","Running",0,"5m","<none>","n2"]"#,
            ),
        ],
    );
    let mut defs = defs;
    // As current servers send it: Restarts typed integer, cells strings.
    defs[3].column_type = kubelive_core::ColumnType::Integer;
    let cols = view_columns(Some(&defs), ColumnKind::Generic, true, false);
    let sort = Sort::parse("-restarts", &cols).unwrap();
    let got: Vec<String> = sorted(&rows, &sort)
        .iter()
        .map(|o| o.name().to_string())
        .collect();
    assert_eq!(got, ["p1", "p2", "p3"]);
    let age = cols.iter().find(|c| c.id == "age").unwrap();
    // The server said 5m when it printed; an hour later the cell says 60m.
    assert_eq!(cell(age, &rows[0], 1_704_067_200.0 + 3600.0), "60m");
    let ns = cols.iter().find(|c| c.id == "namespace").unwrap();
    assert_eq!(cell(ns, &rows[2], 0.0), "b");
    let status = cols.iter().find(|c| c.id == "status").unwrap();
    assert_eq!(cell(status, &rows[1], 0.0), "CrashLoopBackOff");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn free_text_matches_the_server_cells_shown() {
    let (defs, rows) = table_rows(
        POD_COLUMNS,
        &[(
            "team-a",
            "web-1",
            "2024-01-01T00:00:00Z",
            r#"["web-1","1/1","ImagePullBackOff","2","5m","10.1.2.3",null]"#,
        )],
    );
    let narrow = view_columns(Some(&defs), ColumnKind::Generic, true, false);
    let wide = view_columns(Some(&defs), ColumnKind::Generic, true, true);
    let f = |w: &str, cols: &[Column]| {
        Filter::new(
            &w.split_whitespace().map(String::from).collect::<Vec<_>>(),
            cols,
        )
        .matches(&rows[0])
    };
    assert!(f("imagepull", &narrow));
    assert!(f("TEAM-A web", &narrow), "namespace and name");
    assert!(!f("10.1.2", &narrow), "the IP is not shown");
    assert!(f("10.1.2", &wide), "shown in the wide view");
    assert!(f("<none>", &wide), "null prints as <none>");
    assert!(!f("5m", &narrow), "time cells are not matched");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn status_like_cells_have_a_tone() {
    for (text, want) in [
        ("Running", Some(Tone::Ok)),
        ("Ready", Some(Tone::Ok)),
        ("True", Some(Tone::Ok)),
        ("Bound", Some(Tone::Ok)),
        ("Completed", Some(Tone::Ok)),
        ("1/1", Some(Tone::Ok)),
        ("0/1", Some(Tone::Warn)),
        ("Pending", Some(Tone::Warn)),
        ("ContainerCreating", Some(Tone::Warn)),
        ("Terminating", Some(Tone::Warn)),
        ("Unknown", Some(Tone::Warn)),
        ("Ready,SchedulingDisabled", Some(Tone::Warn)),
        ("Failed", Some(Tone::Bad)),
        ("CrashLoopBackOff", Some(Tone::Bad)),
        ("Init:CrashLoopBackOff", Some(Tone::Bad)),
        ("ErrImagePull", Some(Tone::Bad)),
        ("NotReady", Some(Tone::Bad)),
        ("False", Some(Tone::Bad)),
        ("Evicted", Some(Tone::Bad)),
        ("Init:0/2", Some(Tone::Warn)),
        ("web", None),
        ("", None),
    ] {
        assert_eq!(tone(text), want, "{text}");
    }
    assert_eq!(Tone::Bad.class(), "tone-bad");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn natural_order_and_durations() {
    use std::cmp::Ordering::*;
    assert_eq!(natural_cmp("web-2", "web-10"), Less);
    assert_eq!(natural_cmp("web-10", "web-9"), Greater);
    assert_eq!(natural_cmp("a", "b"), Less);
    assert_eq!(
        natural_cmp("a01", "a1"),
        Less,
        "a total order: padding decides last"
    );
    assert_eq!(natural_cmp("a1", "a1"), Equal);
    assert_eq!(natural_cmp("a", "a0"), Less);
    assert_eq!(
        natural_cmp("x99999999999999999999999", "x100000000000000000000000"),
        Less
    );
    assert_eq!(parse_duration("45s"), Some(45.0));
    assert_eq!(parse_duration("3d4h"), Some(3.0 * 86_400.0 + 4.0 * 3600.0));
    assert_eq!(parse_duration("2y"), Some(2.0 * 365.0 * 86_400.0));
    assert_eq!(parse_duration("<unknown>"), None);
    assert_eq!(parse_duration("5"), None);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_natural_orders_fast_path_agrees_with_the_whole_comparison_and_is_total() {
    // Strings over a small alphabet, so digit runs, zero padding and shared prefixes
    // meet often.
    let alphabet = ['a', 'b', '-', '0', '1', '2', '9'];
    let mut seed = 0x2545_f491_u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let words: Vec<String> = (0..400)
        .map(|_| {
            let len = (next() % 7) as usize;
            (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect()
        })
        .collect();
    for a in &words {
        for b in &words {
            let whole = natural_from(a.as_bytes(), b.as_bytes(), 0);
            assert_eq!(natural_cmp(a, b), whole, "{a:?} {b:?}");
            assert_eq!(natural_cmp(b, a), whole.reverse(), "{a:?} {b:?}");
            assert_eq!(whole == std::cmp::Ordering::Equal, a == b, "{a:?} {b:?}");
        }
    }
    let mut sorted_words = words.clone();
    sorted_words.sort_by(|a, b| natural_cmp(a, b));
    for w in sorted_words.windows(2) {
        assert_ne!(natural_cmp(&w[0], &w[1]), std::cmp::Ordering::Greater);
    }
}

/// A small deterministic generator (xorshift64*), for the random change sequences.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

/// Names that exercise the prefix keys: equal 15-byte prefixes, digit runs (padded,
/// long), the end of the prefix falling inside a number, pods' names (equal past
/// the 23 bytes of a column prefix) and names longer than a name sort's 55 bytes.
fn random_name(r: &mut Rng) -> String {
    let n = r.below(40);
    match r.below(8) {
        6 => format!("app-{}-5d8f7c9b{n:02}-{}", n % 3, r.below(30)),
        7 => format!(
            "a-very-long-statefulset-name-for-a-test-{}-{}-x{}",
            n % 2,
            r.below(3),
            r.below(12)
        ),
        0 => format!("web-{n}"),
        1 => format!("web-0{n}"),
        2 => format!("deployment-long-name-{n}-{}", r.below(3)),
        3 => format!("x{}", 123_456_789_000u64 + r.below(3)),
        4 => format!("deployment-lon{n}"),
        _ => format!("a{n}b{}", r.below(100)),
    }
}

/// What the table must show: `rows` filtered and sorted by the definitions alone.
fn oracle(rows: &HashMap<String, Arc<Object>>, sort: &Sort, filter: &Filter) -> Vec<String> {
    let mut want: Vec<&Arc<Object>> = rows.values().filter(|o| filter.matches(o)).collect();
    want.sort_by(|a, b| sort.compare(a, b));
    want.iter().map(|o| key_of(o)).collect()
}

fn keys(m: &TableModel) -> Vec<String> {
    m.rows().iter().map(|o| key_of(o)).collect()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_text_prefix_never_contradicts_the_natural_order() {
    let mut r = Rng(7);
    let alphabet = ["a", "b", "0", "1", "9", "00", "-", "x", "\u{e9}", "10"];
    for _ in 0..20_000 {
        let word = |r: &mut Rng| {
            let len = r.below(12);
            (0..len).map(|_| *r.pick(&alphabet)).collect::<String>()
        };
        let (a, b) = (word(&mut r), word(&mut r));
        assert!(index::natural_prefix_agrees(&a, &b), "{a:?} {b:?}");
    }
    for (a, b) in [
        ("web-2", "web-10"),
        ("abcdefghijklmn9", "abcdefghijklmn10"),
        ("x123456789000", "x123456789001"),
        ("a", "a0"),
        ("web-01", "web-1"),
    ] {
        assert!(index::natural_prefix_agrees(a, b), "{a:?} {b:?}");
        assert!(index::natural_prefix_agrees(b, a), "{b:?} {a:?}");
    }
}

/// Random change sequences (adds, modifies, deletes, large batches of adds, sort and
/// filter changes, a filter applied in slices while changes arrive) against a naive
/// sort + filter of the same rows: at every step the table shows exactly the oracle's
/// rows, or, while a filter is still being applied, the oracle's first rows.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn random_changes_keep_the_index_equal_to_a_naive_sort_and_filter() {
    let cols = pod_cols();
    let sorts: Vec<Sort> = cols
        .iter()
        .flat_map(|c| {
            [false, true].map(|desc| Sort {
                col: c.clone(),
                desc,
            })
        })
        .collect();
    let words = [
        "",
        "web",
        "web-1",
        "node-y",
        "a",
        "1",
        "deployment-lon",
        "b",
    ];
    let seeds: u64 = if cfg!(target_arch = "wasm32") { 4 } else { 12 };
    for seed in 1..=seeds {
        let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut sort = r.pick(&sorts).clone();
        let mut filter = Filter::new(&[], &cols);
        let mut m = TableModel::new(sort.clone(), filter.clone());
        // Slices from the first row: the at-once limit is lowered for most seeds.
        m.filter_at_once = [0, 5, 100_000][(seed % 3) as usize];
        assert!(m.maybe_rebuild(&Store::new(), 0.0, false));
        let mut rows: HashMap<String, Arc<Object>> = HashMap::new();
        let mut rv = 0u32;
        let mut fresh = |r: &mut Rng, ns: &str, name: &str| {
            rv += 1;
            let app = *r.pick(&["x", "y", "web"]);
            pod(ns, name, rv, r.below(4) as u32, app)
        };
        for step in 0..150 {
            let mut events = Vec::new();
            match r.below(10) {
                0..=2 => {
                    for _ in 0..=r.below(4) {
                        let ns = *r.pick(&["a", "b", "kube-system"]);
                        let name = random_name(&mut r);
                        let o = fresh(&mut r, ns, &name);
                        match rows.insert(key_of(&o), o.clone()) {
                            Some(old) => events.push(Event::Modified { old, new: o }),
                            None => events.push(Event::Added(o)),
                        }
                    }
                }
                3 | 4 if !rows.is_empty() => {
                    let key = r.pick(&rows.keys().cloned().collect::<Vec<_>>()).clone();
                    let old = rows[&key].clone();
                    if r.below(2) == 0 {
                        rows.remove(&key);
                        events.push(Event::Deleted(old));
                    } else {
                        let new = fresh(&mut r, old.namespace(), old.name());
                        rows.insert(key, new.clone());
                        events.push(Event::Modified { old, new });
                    }
                }
                5 if r.below(3) == 0 => {
                    // A LIST page's worth of new rows: merged.
                    for i in 0..(300 + r.below(300)) {
                        let name = format!("{}-{i}", random_name(&mut r));
                        if !rows.contains_key(&format!("page/{name}")) {
                            let o = fresh(&mut r, "page", &name);
                            rows.insert(key_of(&o), o.clone());
                            events.push(Event::Added(o));
                        }
                    }
                }
                6 => {
                    sort = r.pick(&sorts).clone();
                    m.set_sort(sort.clone());
                }
                7 => {
                    // Typing on (narrowing), or another filter.
                    let current: Vec<String> = filter.words.clone();
                    let next: Vec<String> = match (r.below(2), current.last()) {
                        (0, Some(w)) => {
                            let mut ws = current.clone();
                            *ws.last_mut().unwrap() =
                                format!("{w}{}", r.pick(&["-", "1", "b", "e"]));
                            ws
                        }
                        _ => {
                            let w = *r.pick(&words);
                            if w.is_empty() {
                                vec![]
                            } else {
                                vec![w.to_string()]
                            }
                        }
                    };
                    filter = Filter::new(&next, &cols);
                    m.set_filter(filter.clone());
                }
                _ => {
                    // A frame's slice of the filter: a clock that ticks per look.
                    let ticks = std::cell::Cell::new(0.0);
                    let clock = || {
                        ticks.set(ticks.get() + 1.0);
                        ticks.get()
                    };
                    m.advance_filter(usize::MAX, r.below(4) as f64, &clock);
                }
            }
            m.apply(&events, step as f64);
            assert!(!m.is_stale(), "seed {seed} step {step}");
            let want = oracle(&rows, &sort, &filter);
            let got = keys(&m);
            let first_difference = got.iter().zip(&want).position(|(g, w)| g != w);
            let filtering = m.is_filtering();
            assert!(
                first_difference.is_none() && (filtering || got.len() == want.len()),
                "seed {seed} step {step} (filtering: {filtering}): {} rows shown, {} wanted, \
                 first difference at {first_difference:?}: {:?} against {:?}",
                got.len(),
                want.len(),
                first_difference.map(|i| &got[i]),
                first_difference.map(|i| &want[i]),
            );
            // The indexes kept of earlier sorts hold every row in their order.
            for (s, index) in m.kept.iter().filter(|_| step % 10 == 0) {
                let got: Vec<String> = index.iter().map(|e| key_of(&e.obj)).collect();
                let want = oracle(&rows, s, &Filter::default());
                assert_eq!(got, want, "seed {seed} step {step}: kept {}", s.to_param());
            }
            // Every shown row is found where it is.
            for (i, o) in m.rows().iter().enumerate().step_by(7) {
                assert_eq!(m.find(o), Some(i));
                assert_eq!(m.place_of(o), i);
            }
        }
        m.advance_filter(usize::MAX, f64::INFINITY, &|| 0.0);
        assert!(!m.is_filtering());
        assert_eq!(keys(&m), oracle(&rows, &sort, &filter), "seed {seed}");
    }
}

/// The first screen of a filter comes before the count: asked for `want` rows, the
/// filter stops once it has them, and they are the first matches in sort order.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_filter_finds_the_first_screen_before_the_rest() {
    let cols = pod_cols();
    let mut m = TableModel::new(Sort::default(), Filter::default());
    m.filter_at_once = 0;
    assert!(m.maybe_rebuild(&Store::new(), 0.0, false));
    let rows: Vec<Arc<Object>> = (0..5000)
        .map(|i| pod("ns", &format!("p{i}"), i, 0, ["x", "y"][(i % 2) as usize]))
        .collect();
    m.apply(
        &rows.iter().cloned().map(Event::Added).collect::<Vec<_>>(),
        0.0,
    );
    m.set_filter(Filter::new(&["node-y".into()], &cols));
    assert!(m.is_filtering());
    m.advance_filter(40, f64::INFINITY, &|| 0.0);
    assert!(m.is_filtering(), "stopped once the screen was full");
    assert!((40..40 + 256).contains(&m.len()), "{}", m.len());
    assert_eq!(names(&m)[..3], ["p1", "p3", "p5"]);
    // Typing on narrows the matches found so far and the rows not yet looked at:
    // odd numbers (node-y) with "p4" in the name, then with "p40".
    m.set_filter(Filter::new(&["node-y".into(), "p4".into()], &cols));
    m.advance_filter(usize::MAX, f64::INFINITY, &|| 0.0);
    assert!(!m.is_filtering());
    assert_eq!(m.len(), 5 + 50 + 500);
    m.set_filter(Filter::new(&["node-y".into(), "p40".into()], &cols));
    assert!(m.is_filtering());
    m.advance_filter(usize::MAX, f64::INFINITY, &|| 0.0);
    assert_eq!(m.len(), 5 + 50);
    assert_eq!(names(&m)[..3], ["p401", "p403", "p405"]);
}

/// Sort changes as a user clicks headers, while rows change and a filter is half
/// applied: the other direction of the column (keys flipped, no re-sort), a column
/// sorted by earlier (its index kept up to date meanwhile) and a new one all show
/// exactly the naive sort's rows; the filter starts again, first screen first.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn header_clicks_mid_churn_match_a_naive_sort() {
    let cols = pod_cols();
    let mut m = TableModel::new(sort("name"), Filter::default());
    m.filter_at_once = 0;
    assert!(m.maybe_rebuild(&Store::new(), 0.0, false));
    let mut r = Rng(99);
    let mut rows: HashMap<String, Arc<Object>> = HashMap::new();
    let mut rv = 0;
    let mut churn = |m: &mut TableModel, rows: &mut HashMap<String, Arc<Object>>, r: &mut Rng| {
        let mut events = Vec::new();
        for _ in 0..40 {
            rv += 1;
            let ns = *r.pick(&["a", "b"]);
            let name = random_name(r);
            let app = ["x", "y"][r.below(2) as usize];
            let o = pod(ns, &name, rv, r.below(3) as u32, app);
            match rows.insert(key_of(&o), o.clone()) {
                Some(old) if r.below(4) == 0 => {
                    rows.remove(&key_of(&o));
                    events.push(Event::Deleted(old));
                }
                Some(old) => events.push(Event::Modified { old, new: o }),
                None => events.push(Event::Added(o)),
            }
        }
        m.apply(&events, 0.0);
    };
    for _ in 0..10 {
        churn(&mut m, &mut rows, &mut r);
    }
    let filter = Filter::new(&["node-y".into()], &cols);
    m.set_filter(filter.clone());
    m.advance_filter(10, f64::INFINITY, &|| 0.0);
    assert!(m.is_filtering());
    for (click, want_kept) in [
        ("-name", 0),
        ("-restarts", 1),
        ("age", 2),
        ("-name", 2),
        ("-age", 2),
        ("restarts", 2),
        ("-restarts", 2),
        ("namespace", 2),
        ("name", 2),
    ] {
        let s = sort(click);
        m.set_sort(s.clone());
        assert_eq!(m.kept.len(), want_kept, "after {click}");
        // The first screen, then (after more changes) every row.
        m.advance_filter(10, f64::INFINITY, &|| 0.0);
        let want = oracle(&rows, &s, &filter);
        assert_eq!(keys(&m)[..10], want[..10], "first screen after {click}");
        churn(&mut m, &mut rows, &mut r);
        m.advance_filter(usize::MAX, f64::INFINITY, &|| 0.0);
        assert_eq!(keys(&m), oracle(&rows, &s, &filter), "after {click}");
        m.set_filter(Filter::default());
        assert_eq!(keys(&m), oracle(&rows, &s, &Filter::default()), "{click}");
        m.set_filter(filter.clone());
    }
    // The indexes no longer kept are dropped in idle slices, not by the click.
    assert!(!m.retired.is_empty());
    let ticks = std::cell::Cell::new(0.0);
    let clock = || {
        ticks.set(ticks.get() + 1.0);
        ticks.get()
    };
    assert!(m.prepare(&cols, 1.0, &clock), "a slice leaves work");
    assert!(!m.prepare(&cols, f64::INFINITY, &|| 0.0));
    assert!(m.retired.is_empty());
}

/// A DELETED event carries the object's last state, which may differ from the version
/// shown (here in RESTARTS, by which an index is kept): the row fades as the version
/// in the index, so that it leaves every index by its key (not by a scan of every row).
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_deleted_row_fades_as_the_version_indexed() {
    let mut m = TableModel::new(sort("restarts"), Filter::default());
    assert!(m.maybe_rebuild(&Store::new(), 0.0, false));
    let rows: Vec<Arc<Object>> = (0..50)
        .map(|i| pod("ns", &format!("p{i}"), i, i % 4, "x"))
        .collect();
    let mut events: Vec<Event> = rows.iter().cloned().map(Event::Added).collect();
    events.push(Event::Synced {
        objects: 50,
        resource_version: kubelive_core::ResourceVersion::new("9"),
    });
    m.apply(&events, 0.0);
    m.set_sort(sort("age"));
    assert_eq!(m.kept.len(), 1);
    let last_state = pod("ns", "p7", 99, 9, "x");
    m.apply(&[Event::Deleted(last_state)], 10.0);
    let (fading, _) = &m.fading["ns/p7"];
    assert!(Arc::ptr_eq(fading, &rows[7]), "the version indexed fades");
    assert!(m.sweep(10.0 + FADE_MS));
    let mut live: HashMap<String, Arc<Object>> =
        rows.iter().map(|o| (key_of(o), o.clone())).collect();
    live.remove("ns/p7");
    assert_eq!(keys(&m), oracle(&live, &sort("age"), &Filter::default()));
    let (s, kept) = &m.kept[0];
    let got: Vec<String> = kept.iter().map(|e| key_of(&e.obj)).collect();
    assert_eq!(got, oracle(&live, s, &Filter::default()));
}

/// A flip over several chunks, where runs of rows equal in the column span chunks
/// (three RESTARTS values over 5,000 rows) and names tie in their first 23 bytes.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_flip_across_chunks_keeps_equal_rows_by_name() {
    let mut m = TableModel::new(sort("restarts"), Filter::default());
    assert!(m.maybe_rebuild(&Store::new(), 0.0, false));
    let rows: HashMap<String, Arc<Object>> = (0..5000u32)
        .map(|i| {
            let name = format!("app-{}-5d8f7c9b10-{}", i % 7, (i * 7919) % 5003);
            let o = pod(["a", "b"][(i % 2) as usize], &name, i, (i * 31) % 3, "x");
            (key_of(&o), o)
        })
        .collect();
    let events: Vec<Event> = rows.values().cloned().map(Event::Added).collect();
    for batch in events.chunks(400) {
        m.apply(batch, 0.0);
    }
    // Chunks hold at most 1,024 rows: 5,000 make at least five.
    assert_eq!(m.len(), 5000);
    for click in [
        "-restarts",
        "restarts",
        "-restarts",
        "name",
        "-name",
        "name",
    ] {
        m.set_sort(sort(click));
        assert_eq!(
            keys(&m),
            oracle(&rows, &sort(click), &Filter::default()),
            "{click}"
        );
    }
}

/// A pod (object mode) whose every column varies: readiness, phase (`late` adds
/// phases that sort between and around the earlier ones: the dictionary grows and
/// reorders after it was built), restarts, node (`node-2` before `node-10`; some
/// unscheduled) and age.
fn varied_pod(r: &mut Rng, ns: &str, name: &str, rv: u32, late: bool) -> Arc<Object> {
    let phases: &[&str] = match late {
        false => &["Running", "Pending", "Failed"],
        true => &["Running", "Aborted", "Qux", "Zeta", "Pending"],
    };
    let phase = *r.pick(phases);
    let node = match r.below(5) {
        0 => String::new(),
        _ => format!(r#""nodeName":"node-{}","#, r.below(12)),
    };
    let ready = r.below(2) == 0;
    let restarts = r.pick(&[0, 0, 0, 1, 2, 11]);
    let (day, hour) = (1 + r.below(3), r.below(3));
    let json = format!(
        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}","namespace":"{ns}","uid":"u-{name}","resourceVersion":"{rv}","creationTimestamp":"2024-01-0{day}T0{hour}:00:00Z"}},"spec":{{{node}"containers":[{{"name":"c"}}]}},"status":{{"phase":"{phase}","containerStatuses":[{{"name":"c","ready":{ready},"restartCount":{restarts}}}]}}}}"#
    );
    let opts = ParseOptions {
        columns: ColumnKind::Pod,
        ..ParseOptions::default()
    };
    Arc::new(Object::parse(json.as_bytes(), &opts).expect("test pod parses"))
}

/// Server rows (kubectl's pod columns, wide) whose cells vary as [`varied_pod`]'s,
/// IPs and null cells among them.
fn varied_rows(r: &mut Rng, rows: &[(String, String)], rv: u32, late: bool) -> Vec<Arc<Object>> {
    let cells: Vec<(String, String, String, String)> = rows
        .iter()
        .map(|(ns, name)| {
            let phases: &[&str] = match late {
                false => &["Running", "Pending", "Failed"],
                true => &["Running", "Aborted", "Qux", "Zeta", "Pending"],
            };
            let restarts = match r.below(4) {
                0 => format!("\"{} (5m ago)\"", 1 + r.below(12)),
                1 => "null".to_string(),
                _ => "\"0\"".to_string(),
            };
            let node = match r.below(5) {
                0 => "null".to_string(),
                _ => format!("\"node-{}\"", r.below(12)),
            };
            let json = format!(
                r#"["{name}","{}/1","{}",{restarts},"5m","10.{}.{}.{}",{node}]"#,
                r.below(2),
                r.pick(phases),
                r.below(3),
                r.below(300),
                r.below(30),
            );
            let created = format!("2024-01-0{}T0{}:00:00Z", 1 + r.below(3), r.below(3));
            (ns.clone(), name.clone(), created, json)
        })
        .collect();
    let refs: Vec<(&str, &str, &str, &str)> = cells
        .iter()
        .map(|(a, b, c, d)| (a.as_str(), b.as_str(), c.as_str(), d.as_str()))
        .collect();
    let _ = rv;
    table_rows(POD_COLUMNS, &refs).1
}

/// Every entry of the table's index is keyed as its object is under the sort, and its
/// slot holds that object: the keys a prepared sort made are the ones a change's
/// binary search compares with.
fn assert_slots_and_keys(m: &TableModel, what: &str) {
    assert_eq!(m.prepared.len(), m.all.len(), "{what}: rows held");
    assert!(m.all.lasts_agree(), "{what}: the chunks' last keys");
    for (s, index) in &m.kept {
        assert!(index.lasts_agree(), "{what}: kept {}", s.to_param());
    }
    for e in m.all.iter() {
        assert_eq!(
            e.key,
            index::Key::of(&m.sort, &e.obj),
            "{what}: {}",
            key_of(&e.obj)
        );
        let held = m.prepared.obj(e.slot).expect("a slot in use");
        assert!(
            Arc::ptr_eq(held, &e.obj),
            "{what}: slot of {}",
            key_of(&e.obj)
        );
    }
    if let Some(order) = m.prepared.by_name() {
        let got: Vec<(String, String)> = order
            .iter()
            .map(|&s| {
                let o = m.prepared.obj(s).expect("a slot in use");
                (o.namespace().to_string(), o.name().to_string())
            })
            .collect();
        let mut want = got.clone();
        want.sort();
        assert_eq!(got, want, "{what}: the slots by namespace and name");
        assert_eq!(
            got.len(),
            m.all.len(),
            "{what}: every row in the name order"
        );
    }
}

/// Rows for the prepared-sort tests, changed at random: pods in object mode, or the
/// server's pod rows; `rows` is what the server holds now, by namespace/name.
struct Churn {
    object_mode: bool,
    rv: u32,
    rows: HashMap<String, Arc<Object>>,
}

impl Churn {
    /// Object mode for even seeds.
    fn new(seed: u64) -> Churn {
        Churn {
            object_mode: seed % 2 == 0,
            rv: 0,
            rows: HashMap::new(),
        }
    }

    /// The view's columns: kubectl's in object mode, else the server's (wide).
    fn cols(&self, server: &[Column]) -> Vec<Column> {
        match self.object_mode {
            true => pod_cols(),
            false => server.to_vec(),
        }
    }

    fn make(&mut self, r: &mut Rng, keys: &[(String, String)], late: bool) -> Vec<Arc<Object>> {
        self.rv += 1;
        match self.object_mode {
            true => keys
                .iter()
                .map(|(ns, name)| varied_pod(r, ns, name, self.rv, late))
                .collect(),
            false => varied_rows(r, keys, self.rv, late),
        }
    }

    /// A first list of `n` rows, then Synced.
    fn first_list(&mut self, r: &mut Rng, n: usize) -> Vec<Event> {
        let first: Vec<(String, String)> = (0..n)
            .map(|i| {
                let ns = r.pick(&["a", "b", "kube-system"]).to_string();
                (ns, format!("{}-{i}", random_name(r)))
            })
            .collect();
        let mut events: Vec<Event> = self
            .make(r, &first, false)
            .into_iter()
            .map(|o| {
                self.rows.insert(key_of(&o), o.clone());
                Event::Added(o)
            })
            .collect();
        events.push(Event::Synced {
            objects: self.rows.len(),
            resource_version: kubelive_core::ResourceVersion::new("9"),
        });
        events
    }

    /// A batch of 1 to `most + 1` changes: rows deleted, modified, added.
    fn changes(&mut self, r: &mut Rng, most: u64, late: bool) -> Vec<Event> {
        let mut events = Vec::new();
        for _ in 0..=r.below(most) {
            let keys: Vec<String> = self.rows.keys().cloned().collect();
            match r.below(3) {
                0 if !keys.is_empty() => {
                    let key = r.pick(&keys).clone();
                    events.push(Event::Deleted(self.rows.remove(&key).unwrap()));
                }
                1 if !keys.is_empty() => {
                    let key = r.pick(&keys).clone();
                    let old = self.rows[&key].clone();
                    let at = [(old.namespace().to_string(), old.name().to_string())];
                    let new = self.make(r, &at, late).remove(0);
                    self.rows.insert(key, new.clone());
                    events.push(Event::Modified { old, new });
                }
                _ => {
                    let ns = r.pick(&["a", "b", "c"]).to_string();
                    let at = [(ns, random_name(r))];
                    let o = self.make(r, &at, late).remove(0);
                    match self.rows.insert(key_of(&o), o.clone()) {
                        Some(old) => events.push(Event::Modified { old, new: o }),
                        None => events.push(Event::Added(o)),
                    }
                }
            }
        }
        events
    }
}

/// Every column of `cols`, both ways.
fn both_ways(cols: &[Column]) -> Vec<Sort> {
    cols.iter()
        .flat_map(|c| {
            [false, true].map(|desc| Sort {
                col: c.clone(),
                desc,
            })
        })
        .collect()
}

/// A clock that ticks once per look (slices stop after as many looks as their budget).
fn ticking() -> impl Fn() -> f64 {
    let ticks = std::cell::Cell::new(0.0);
    move || {
        ticks.set(ticks.get() + 1.0);
        ticks.get()
    }
}

/// Sort keys prepared in idle slices (a clock that ticks per look, so slices stop
/// anywhere: mid-way through the name order's merge sort, a column's rows, while
/// rows come and go in between), then clicks on every column in both directions,
/// against a naive sort of the same rows: every click shows exactly its rows, a
/// prepared one as well as one sorted the old way, and the index stays keyed as its
/// objects are. Deleted rows fade and leave (their slots are freed and reused); new
/// text values arrive after a column was prepared.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn prepared_sorts_match_a_naive_sort_under_random_changes() {
    let (defs, _) = table_rows(POD_COLUMNS, &[]);
    let server = view_columns(Some(&defs), ColumnKind::Generic, true, true);
    let seeds: u64 = if cfg!(target_arch = "wasm32") { 2 } else { 8 };
    let mut prepared_clicks = 0;
    for seed in 1..=seeds {
        let mut churn = Churn::new(seed);
        let cols = churn.cols(&server);
        let sorts = both_ways(&cols);
        let mut r = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d));
        let mut sort = Sort::by_name(&cols);
        let mut m = TableModel::new(sort.clone(), Filter::default());
        assert!(m.maybe_rebuild(&Store::new(), 0.0, false));
        m.apply(&churn.first_list(&mut r, 400), 0.0);
        let mut now = 0.0;
        for step in 0..160 {
            now += 10.0;
            let late = step > 80;
            match r.below(8) {
                0..=2 => {
                    m.apply(&churn.changes(&mut r, 6, late), now);
                    if r.below(2) == 0 {
                        // Faded rows leave (their slots free for new rows).
                        m.sweep(now + FADE_MS);
                    }
                }
                3..=5 => {
                    m.prepare(&cols, r.below(300) as f64, &ticking());
                }
                _ => {
                    sort = r.pick(&sorts).clone();
                    let prepared =
                        m.prepared(&sort.col) && !m.kept.iter().any(|(s, _)| s.col == sort.col);
                    m.set_sort(sort.clone());
                    prepared_clicks += usize::from(prepared);
                    assert_slots_and_keys(
                        &m,
                        &format!("seed {seed} step {step} {}", sort.to_param()),
                    );
                }
            }
            // Rows still fading are shown: the naive sort has them too.
            let mut shown = churn.rows.clone();
            for (key, (o, _)) in &m.fading {
                shown.insert(key.clone(), o.clone());
            }
            assert_eq!(
                keys(&m),
                oracle(&shown, &sort, &Filter::default()),
                "seed {seed} step {step} {}",
                sort.to_param()
            );
        }
        // Finished: every column's keys ready, every click prepared.
        m.sweep(now + FADE_MS);
        assert!(!m.prepare(&cols, f64::INFINITY, &|| 0.0));
        for s in &sorts {
            if !s.col.is_name {
                assert!(m.prepared(&s.col), "seed {seed}: {} prepared", s.col.id);
            }
            m.set_sort(s.clone());
            assert_slots_and_keys(&m, &format!("seed {seed} {}", s.to_param()));
            assert_eq!(
                keys(&m),
                oracle(&churn.rows, s, &Filter::default()),
                "seed {seed} {}",
                s.to_param()
            );
        }
    }
    assert!(
        prepared_clicks > 10,
        "{prepared_clicks} clicks sorted prepared keys"
    );
}

/// Equal cells keep rows by namespace then name in bytes (`app-10` before `app-9`,
/// unlike the name column's natural order), names too long for the tie words
/// included; the flip of a prepared sort keeps them so as well.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn prepared_ties_stay_by_namespace_and_name() {
    let mut m = TableModel::new(sort("name"), Filter::default());
    assert!(m.maybe_rebuild(&Store::new(), 0.0, false));
    let mut rows: HashMap<String, Arc<Object>> = HashMap::new();
    let mut events = Vec::new();
    for i in 0..3000u32 {
        let name = match i % 3 {
            0 => format!("app-{}-x", i % 23),
            1 => format!("a-name-longer-than-the-tie-words-hold-{}-{}", i % 5, i),
            _ => format!("web-{i}"),
        };
        let o = pod(["b", "a"][(i % 2) as usize], &name, i, (i % 4) / 3, "x");
        if let std::collections::hash_map::Entry::Vacant(v) = rows.entry(key_of(&o)) {
            v.insert(o.clone());
            events.push(Event::Added(o));
        }
    }
    events.push(Event::Synced {
        objects: rows.len(),
        resource_version: kubelive_core::ResourceVersion::new("9"),
    });
    for batch in events.chunks(500) {
        m.apply(batch, 0.0);
    }
    assert!(!m.prepare(&pod_cols(), f64::INFINITY, &|| 0.0));
    assert_slots_and_keys(&m, "prepared");
    for col in pod_cols().iter().filter(|c| !c.is_name) {
        assert!(m.prepared(col), "{} prepared", col.id);
    }
    for click in [
        "restarts",
        "-restarts",
        "status",
        "node",
        "-node",
        "namespace",
        "-ready",
    ] {
        let s = sort(click);
        m.set_sort(s.clone());
        let (got, want) = (keys(&m), oracle(&rows, &s, &Filter::default()));
        let diff = got.iter().zip(&want).position(|(g, w)| g != w);
        assert!(
            diff.is_none() && got.len() == want.len(),
            "{click}: first difference at {diff:?}: {:?}",
            diff.map(|i| (
                &got[i.saturating_sub(2)..i + 2],
                &want[i.saturating_sub(2)..i + 2]
            ))
        );
    }
}

/// The radix sort orders by the words and keeps equal words in their order.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_radix_sort_is_stable() {
    let mut r = Rng(5);
    for n in [0usize, 1, 2, 255, 3000] {
        let mut items: Vec<(u64, u32)> = (0..n as u32)
            .map(|i| {
                let w = match r.below(3) {
                    0 => r.below(4),
                    1 => r.below(4) << 40,
                    _ => r.next(),
                };
                (w, i)
            })
            .collect();
        let mut want = items.clone();
        want.sort_by_key(|&(w, _)| w);
        keys::radix_sort(&mut items);
        assert_eq!(items, want);
    }
}

/// A click on a new column, or on the sorted one (a flip), at a large table (from
/// [`RESORT_MIN`] rows; 64 in tests) shows the first rows of the new order at once and
/// builds the index in slices (a clock that ticks per look, so slices stop anywhere in
/// every phase), while rows come, change, go and fade: meanwhile the table shows
/// exactly the first rows of the order at the click (a filter's matches whole), with
/// the row count of then; once built, the changes that waited are applied in slices
/// (meanwhile the rows held are in order), then the table equals a naive sort of the
/// rows. Another click drops a new column's build (back to the rows before it) or
/// finishes a flip; a change of filter finishes the build first; a new view drops it.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_large_tables_click_shows_the_first_screen_then_builds_the_rest_in_slices() {
    let (defs, _) = table_rows(POD_COLUMNS, &[]);
    let server = view_columns(Some(&defs), ColumnKind::Generic, true, true);
    let seeds: u64 = if cfg!(target_arch = "wasm32") { 2 } else { 6 };
    let (mut resorts, mut flips, mut built_in_slices, mut waited) = (0, 0, 0, 0);
    // Clicks while a build was under way (dropped, or a flip finished).
    let mut clicked_over = 0;
    let mut filtered = 0;
    let mut caught_up_in_slices = 0;
    for seed in 1..=seeds {
        let mut churn = Churn::new(seed);
        let cols = churn.cols(&server);
        let sorts = both_ways(&cols);
        let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let mut sort = Sort::by_name(&cols);
        // Sometimes a filter (its few matches are sorted again whole at a click).
        let mut filter = Filter::default();
        let words = |w: &str| Filter::new(&[w.to_string()], &cols);
        let mut m = TableModel::new(sort.clone(), Filter::default());
        assert!(m.maybe_rebuild(&Store::new(), 0.0, false));
        m.apply(&churn.first_list(&mut r, 300), 0.0);
        assert!(!m.prepare(&cols, f64::INFINITY, &|| 0.0));
        // The rows after each batch of changes the model queued (`m.waiting`, oldest
        // first), and after the last it applied: what it holds.
        let mut queued: std::collections::VecDeque<HashMap<String, Arc<Object>>> =
            Default::default();
        let mut applied = churn.rows.clone();
        // What a resort under way must show: the first rows of the order at the click.
        let mut at_click: Option<(Vec<String>, usize)> = None;
        let mut now = 0.0;
        let shown_rows = |m: &TableModel, rows: &HashMap<String, Arc<Object>>| {
            let mut shown = rows.clone();
            for (key, (o, _)) in &m.fading {
                shown.insert(key.clone(), o.clone());
            }
            shown
        };
        for step in 0..200 {
            now += 10.0;
            match r.below(10) {
                0..=2 => {
                    let events = churn.changes(&mut r, 4, false);
                    waited += usize::from(m.resorting());
                    if m.behind() {
                        queued.push_back(churn.rows.clone());
                    } else {
                        applied = churn.rows.clone();
                    }
                    m.apply(&events, now);
                    if r.below(2) == 0 {
                        m.sweep(now + FADE_MS);
                    }
                }
                3..=6 => {
                    let was = m.resorting();
                    m.prepare(&cols, r.below(400) as f64, &ticking());
                    built_in_slices += usize::from(was && !m.resorting());
                }
                7 => {
                    // A filter typed, changed or cleared: the build finishes first.
                    filter = match r.below(3) {
                        0 => Filter::default(),
                        1 => words("a"),
                        _ => words("b"),
                    };
                    m.set_filter(filter.clone());
                    assert!(!m.resorting(), "seed {seed} step {step}: finished");
                }
                _ => {
                    // A third of the clicks on the sorted column (a flip).
                    sort = match r.below(3) {
                        0 => Sort {
                            col: sort.col.clone(),
                            desc: !sort.desc,
                        },
                        _ => r.pick(&sorts).clone(),
                    };
                    // Now and then further down than the rows put in order at once.
                    let shown_to = 1 + r.below(60) as usize;
                    // A build under way finishes first (its waiting changes applied);
                    // the same sort again changes nothing.
                    // A click applies none of the batches that wait.
                    let same = sort == *m.sort();
                    let flip = sort.col == m.sort().col;
                    clicked_over += usize::from(m.resorting() && !same);
                    m.set_sort_showing(sort.clone(), shown_to);
                    if m.resorting() && !same {
                        let before = shown_rows(&m, &applied);
                        resorts += 1;
                        flips += usize::from(flip);
                        filtered += usize::from(!filter.is_empty());
                        let want = oracle(&before, &sort, &filter);
                        // The first rows put in order at once (a filter's matches are
                        // shown whole, sorted at once).
                        let shown = match filter.is_empty() {
                            true => RESORT_FIRST_MAX.min(want.len()),
                            false => want.len(),
                        };
                        at_click = Some((want[..shown].to_vec(), want.len()));
                    }
                }
            }
            while queued.len() > m.waiting.len() {
                applied = queued.pop_front().unwrap();
            }
            let what = format!("seed {seed} step {step} {}", sort.to_param());
            match (&at_click, m.resorting()) {
                (Some((first, len)), true) => {
                    assert_eq!(&keys(&m), first, "{what}: the first rows at the click");
                    assert_eq!(m.len(), *len, "{what}: the rows at the click");
                    // Any row held is found by its key meanwhile (the selection's).
                    if let Some(key) = applied.keys().next().filter(|_| filter.is_empty()) {
                        assert!(m.find_key(key).is_some(), "{what}: {key} found");
                    }
                    assert_eq!(
                        m.window(1, 3),
                        m.rows().into_iter().skip(1).take(2).collect::<Vec<_>>()
                    );
                }
                // Built; changes that waited still being applied: the rows held are
                // in order, but not all of the latest.
                _ if m.behind() => {
                    at_click = None;
                    caught_up_in_slices += 1;
                    assert_slots_and_keys(&m, &what);
                    let held: HashMap<String, Arc<Object>> =
                        m.rows().into_iter().map(|o| (key_of(&o), o)).collect();
                    assert_eq!(keys(&m), oracle(&held, &sort, &filter), "{what}: in order");
                }
                _ => {
                    at_click = None;
                    assert_slots_and_keys(&m, &what);
                    assert_eq!(
                        keys(&m),
                        oracle(&shown_rows(&m, &applied), &sort, &filter),
                        "{what}"
                    );
                }
            }
        }
        // A new view (another resource) drops a build under way.
        assert!(!m.prepare(&cols, f64::INFINITY, &|| 0.0));
        m.set_sort_showing(Sort::by_name(&cols), usize::MAX);
        let other = sorts
            .iter()
            .rev()
            .find(|s| !s.col.is_name && !m.kept.iter().any(|(k, _)| k.col == s.col))
            .unwrap();
        m.set_sort_showing(other.clone(), 10);
        assert!(m.resorting(), "seed {seed}: a build under way");
        m.clear();
        assert!(!m.resorting() && m.is_empty(), "seed {seed}: dropped");
        assert!(m.maybe_rebuild(&Store::new(), now, true));
        assert!(keys(&m).is_empty());
    }
    assert!(resorts > 20, "{resorts} clicks built in slices");
    assert!(flips > 2 * seeds as usize, "{flips} flips in slices");
    assert!(
        clicked_over > seeds as usize,
        "{clicked_over} clicks over a build"
    );
    assert!(
        filtered > seeds as usize,
        "{filtered} builds under a filter"
    );
    assert!(
        caught_up_in_slices > seeds as usize,
        "{caught_up_in_slices} looks while changes that waited were applied in slices"
    );
    assert!(
        built_in_slices > 10,
        "{built_in_slices} builds finished in slices"
    );
    assert!(
        waited > 10,
        "{waited} batches of changes waited for a build"
    );
}

/// An index's changes go by places in its chunks and pick a chunk by the chunks' last
/// keys: under random inserts, moves and removals across many chunks (a few entries
/// each in tests), by a column with many ties (restarts) and by the long name keys
/// (random names: long ones, padded numbers), in both directions, it holds exactly a
/// naive sort's rows, finds each at its place, and the last keys stay the chunks'.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn an_index_stays_sorted_by_places_across_chunks_under_random_changes() {
    for (seed, param) in [(1, "restarts"), (2, "-restarts"), (3, "name"), (4, "-name")] {
        let by = sort(param);
        let mut r = Rng(0x9e37_79b9_7f4a_7c15u64.wrapping_mul(seed));
        let mut index = index::Index::default();
        let mut rows: HashMap<String, Arc<Object>> = HashMap::new();
        let steps = if cfg!(target_arch = "wasm32") {
            600
        } else {
            1500
        };
        for step in 0..steps {
            let keys: Vec<String> = rows.keys().cloned().collect();
            let what = format!("{param} step {step}");
            match r.below(5) {
                // A row leaves.
                0 if !keys.is_empty() => {
                    let old = rows.remove(r.pick(&keys)).unwrap();
                    index.change(Some(&Entry::new(&by, old)), None, &by);
                }
                // A row changes (it may move: restarts drawn again).
                1 | 2 if !keys.is_empty() => {
                    let old = rows[r.pick(&keys)].clone();
                    let new = pod(old.namespace(), old.name(), step, r.below(4) as u32, "a");
                    rows.insert(key_of(&new), new.clone());
                    let (o, n) = (Entry::new(&by, old), Entry::new(&by, new));
                    index.change(Some(&o), Some(&n), &by);
                }
                // A new row.
                _ => {
                    let ns = r.pick(&["a", "b"]).to_string();
                    let new = pod(&ns, &random_name(&mut r), step, r.below(4) as u32, "a");
                    if let Some(old) = rows.insert(key_of(&new), new.clone()) {
                        let (o, n) = (Entry::new(&by, old), Entry::new(&by, new));
                        index.change(Some(&o), Some(&n), &by);
                    } else {
                        index.change(None, Some(&Entry::new(&by, new)), &by);
                    }
                }
            }
            assert!(index.lasts_agree(), "{what}: the chunks' last keys");
            let want = oracle(&rows, &by, &Filter::default());
            let got: Vec<String> = index.iter().map(|e| key_of(&e.obj)).collect();
            assert_eq!(got, want, "{what}");
            if step % 50 == 0 {
                for (i, e) in index.iter().enumerate() {
                    assert_eq!(index.find(e, &by), Some(i), "{what}: {}", key_of(&e.obj));
                }
            }
        }
        assert!(rows.len() > 3 * 16, "{param}: rows over many chunks");
    }
}
