use super::*;
use kubelive_core::{ParseOptions, Store};

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

fn names(m: &TableModel) -> Vec<&str> {
    m.rows().iter().map(|o| o.name()).collect()
}

#[test]
fn columns_fit_the_resource() {
    let ids = |c: Vec<Col>| c.into_iter().map(Col::id).collect::<Vec<_>>().join(",");
    assert_eq!(
        ids(columns(ColumnKind::Pod, true)),
        "name,namespace,ready,status,restarts,node,age"
    );
    assert_eq!(
        ids(columns(ColumnKind::Deployment, true)),
        "name,namespace,ready,uptodate,available,age"
    );
    assert_eq!(ids(columns(ColumnKind::Generic, false)), "name,age");
}

#[test]
fn cells_read_like_kubectl() {
    let p = pod("default", "web-1", 5, 3, "web");
    assert_eq!(cell(Col::Ready, &p, 0.0), "1/1");
    assert_eq!(cell(Col::Status, &p, 0.0), "Running");
    assert_eq!(cell(Col::Restarts, &p, 0.0), "3");
    assert_eq!(cell(Col::Node, &p, 0.0), "node-web");
    assert_eq!(cell(Col::Age, &p, 1_704_067_200.0 + 90.0), "90s");
}

#[test]
fn sort_params_round_trip() {
    let s = Sort::parse("-restarts").unwrap();
    assert_eq!((s.col, s.desc), (Col::Restarts, true));
    assert_eq!(s.to_param(), "-restarts");
    assert_eq!(s.toggled(Col::Restarts).to_param(), "restarts");
    assert_eq!(s.toggled(Col::Name).to_param(), "name");
    assert!(Sort::parse("bogus").is_none());
}

/// A filter for the free-text word `w` over the pod columns.
fn text(w: &str) -> Filter {
    let words: Vec<String> = w.split_whitespace().map(String::from).collect();
    Filter::new(&words, &columns(ColumnKind::Pod, true))
}

#[test]
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

#[test]
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

#[test]
fn incremental_updates_keep_the_index_sorted() {
    let mut m = TableModel::new(Sort::parse("-restarts").unwrap(), Filter::default());
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

#[test]
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

#[test]
fn the_rebuild_sorts_like_sort_compare() {
    let mut rows = Vec::new();
    for i in 0..60u32 {
        let ns = ["a", "b", "c"][(i % 3) as usize];
        let name = format!("p{}", (i * 37) % 23);
        rows.push(pod(ns, &name, i, (i * 7) % 5, "x"));
    }
    for col in Col::ALL {
        for desc in [false, true] {
            let sort = Sort { col, desc };
            let mut want = rows.clone();
            want.sort_by(|a, b| sort.compare(a, b));
            let got = sorted(&rows, sort);
            let keys = |v: &[Arc<Object>]| v.iter().map(|o| key_of(o)).collect::<Vec<_>>();
            assert_eq!(keys(&got), keys(&want), "{sort:?}");
        }
    }
}

#[test]
fn a_large_batch_of_new_objects_merges_without_a_rebuild() {
    let mut m = TableModel::new(Sort::parse("-restarts").unwrap(), text("node-x"));
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
    let sort = m.sort();
    let mut want: Vec<&Arc<Object>> = all.iter().filter(|o| m.filter.matches(o)).collect();
    want.sort_by(|a, b| sort.compare(a, b));
    let want: Vec<String> = want.iter().map(|o| key_of(o)).collect();
    let got: Vec<String> = m.rows().iter().map(|o| key_of(o)).collect();
    assert_eq!(got, want);
    // A large batch with anything but ADDED: rebuilt from the store.
    let mut events: Vec<Event> = (5000..5300).map(|i| Event::Added(mk(i))).collect();
    events.push(Event::Deleted(all[0].clone()));
    m.apply(&events, 0.0);
    assert!(m.is_stale());
}

#[test]
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

#[test]
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
