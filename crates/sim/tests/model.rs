//! Rules of protocol.md, checked against the in-process model.

mod common;

use common::{cluster, get, json_of, watch};
use kubelive_sim::*;
use serde_json::{json, Value};

fn mk_pod(c: &mut Cluster, ns: &str, name: &str, app: &str, now: u64) -> ObjRef {
    c.create(
        PODS,
        json!({"metadata": {"name": name, "namespace": ns, "labels": {"app": app}}, "spec": {}, "status": {"phase": "Running"}}),
        now,
    )
    .unwrap()
}

/// Polls until nothing is due; returns the parsed lines and whether the watch ended.
fn drain(c: &mut Cluster, id: WatchId, now: u64) -> (Vec<Value>, Option<WatchOutput>) {
    let mut bytes = Vec::new();
    let mut end = None;
    for _ in 0..10_000 {
        match c.poll_watch(id, now) {
            WatchOutput::Chunks(ch) => ch.iter().for_each(|c| bytes.extend_from_slice(c)),
            WatchOutput::Pending { wake_at_ms } if wake_at_ms > now => break,
            WatchOutput::Pending { .. } => {}
            e => {
                end = Some(e);
                break;
            }
        }
    }
    let lines = bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            serde_json::from_slice(l)
                .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(l)))
        })
        .collect();
    (lines, end)
}

fn types(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(|l| l["type"].as_str().unwrap().to_string())
        .collect()
}

fn names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn list_sorted_without_item_kind() {
    let mut c = cluster();
    mk_pod(&mut c, "b", "p2", "x", 0);
    mk_pod(&mut c, "a", "p9", "x", 0);
    mk_pod(&mut c, "a", "p1", "y", 0);
    let r = get(&mut c, "/api/v1/pods", 0);
    assert_eq!(r.status, 200);
    let v = json_of(&r);
    assert_eq!(v["kind"], "PodList");
    assert_eq!(v["apiVersion"], "v1");
    assert_eq!(
        v["metadata"]["resourceVersion"],
        c.resource_version().to_string()
    );
    assert_eq!(names(&v), ["p1", "p9", "p2"]);
    assert!(v["items"][0].get("kind").is_none());
    assert!(v["metadata"].get("continue").is_none());
    let v = json_of(&get(
        &mut c,
        "/api/v1/namespaces/a/pods?labelSelector=app%3Dy",
        0,
    ));
    assert_eq!(names(&v), ["p1"]);
    let v = json_of(&get(
        &mut c,
        "/api/v1/pods?fieldSelector=metadata.namespace!%3Da",
        0,
    ));
    assert_eq!(names(&v), ["p2"]);
    let obj = json_of(&get(&mut c, "/api/v1/namespaces/a/pods/p1", 0));
    assert_eq!(obj["kind"], "Pod");
    assert_eq!(get(&mut c, "/api/v1/namespaces/a/pods/nope", 0).status, 404);
}

#[test]
fn pagination_and_continue_expiry() {
    let mut c = cluster();
    for i in 0..10 {
        mk_pod(&mut c, "ns", &format!("p{i}"), "x", 0);
    }
    let list_rv = c.resource_version().to_string();
    let v = json_of(&get(&mut c, "/api/v1/pods?limit=4", 0));
    assert_eq!(names(&v), ["p0", "p1", "p2", "p3"]);
    assert_eq!(v["metadata"]["remainingItemCount"], 6);
    let tok = v["metadata"]["continue"].as_str().unwrap().to_string();
    // Changes after the first page do not show in later pages.
    c.delete(PODS, "ns", "p5", 1).unwrap();
    mk_pod(&mut c, "ns", "p55", "x", 1);
    let v = json_of(&get(
        &mut c,
        &format!("/api/v1/pods?limit=4&continue={tok}"),
        1,
    ));
    assert_eq!(names(&v), ["p4", "p5", "p6", "p7"]);
    assert_eq!(v["metadata"]["resourceVersion"], list_rv);
    assert_eq!(v["metadata"]["remainingItemCount"], 2);
    let tok2 = v["metadata"]["continue"].as_str().unwrap().to_string();
    let v = json_of(&get(
        &mut c,
        &format!("/api/v1/pods?limit=4&continue={tok2}"),
        1,
    ));
    assert_eq!(names(&v), ["p8", "p9"]);
    assert!(v["metadata"].get("continue").is_none());
    assert!(v["metadata"].get("remainingItemCount").is_none());
    // Selectors: no remainingItemCount.
    let v = json_of(&get(
        &mut c,
        "/api/v1/pods?limit=2&labelSelector=app%3Dx",
        1,
    ));
    assert!(v["metadata"]["continue"].is_string());
    assert!(v["metadata"].get("remainingItemCount").is_none());
    // continue + resourceVersion N is a 400.
    let r = get(
        &mut c,
        &format!("/api/v1/pods?limit=4&continue={tok2}&resourceVersion=3"),
        1,
    );
    assert_eq!(r.status, 400);
    // Compaction expires the token: 410 Expired with a fresh token.
    c.compact(2);
    let r = get(&mut c, &format!("/api/v1/pods?limit=4&continue={tok2}"), 2);
    assert_eq!(r.status, 410);
    let v = json_of(&r);
    assert_eq!(v["reason"], "Expired");
    assert!(v["message"].as_str().unwrap().starts_with(
        "The provided continue parameter is too old to display a consistent list result."
    ));
    assert!(v["metadata"]["continue"].is_string());
    let r = get(&mut c, "/api/v1/pods?continue=!!!", 2);
    assert_eq!(r.status, 400);
}

#[test]
fn periodic_compaction_keeps_at_least_one_period() {
    let mut c = Cluster::new(ClusterConfig {
        compact_every_ms: 1000,
        ..ClusterConfig::default()
    });
    mk_pod(&mut c, "ns", "a", "x", 0);
    mk_pod(&mut c, "ns", "b", "x", 0);
    let v = json_of(&get(&mut c, "/api/v1/pods?limit=1", 0));
    let tok = v["metadata"]["continue"].as_str().unwrap().to_string();
    assert_eq!(
        get(
            &mut c,
            &format!("/api/v1/pods?limit=1&continue={tok}"),
            1500
        )
        .status,
        200
    );
    mk_pod(&mut c, "ns", "c", "x", 1500);
    assert_eq!(
        get(
            &mut c,
            &format!("/api/v1/pods?limit=1&continue={tok}"),
            2500
        )
        .status,
        200
    );
    assert_eq!(
        get(
            &mut c,
            &format!("/api/v1/pods?limit=1&continue={tok}"),
            3500
        )
        .status,
        410
    );
}

#[test]
fn rv0_ignores_limit_and_exact_reads_history() {
    let mut c = cluster();
    for i in 0..5 {
        mk_pod(&mut c, "ns", &format!("p{i}"), "x", 0);
    }
    let old_rv = c.resource_version();
    let v = json_of(&get(&mut c, "/api/v1/pods?resourceVersion=0&limit=2", 0));
    assert_eq!(names(&v).len(), 5);
    assert!(v["metadata"].get("continue").is_none());
    c.delete(PODS, "ns", "p0", 1).unwrap();
    c.modify(PODS, "ns", "p1", 1, |v| {
        v["metadata"]["labels"]["app"] = json!("z")
    })
    .unwrap();
    // Exact at an older version: the state then.
    let v = json_of(&get(
        &mut c,
        &format!("/api/v1/pods?resourceVersion={old_rv}&resourceVersionMatch=Exact"),
        1,
    ));
    assert_eq!(names(&v), ["p0", "p1", "p2", "p3", "p4"]);
    assert_eq!(v["metadata"]["resourceVersion"], old_rv.to_string());
    assert_eq!(v["items"][1]["metadata"]["labels"]["app"], "x");
    // N with limit = Exact too.
    let v = json_of(&get(
        &mut c,
        &format!("/api/v1/pods?resourceVersion={old_rv}&limit=2"),
        1,
    ));
    assert_eq!(names(&v), ["p0", "p1"]);
    // NotOlderThan: current state.
    let v = json_of(&get(
        &mut c,
        &format!("/api/v1/pods?resourceVersion={old_rv}"),
        1,
    ));
    assert_eq!(names(&v), ["p1", "p2", "p3", "p4"]);
    c.compact_now();
    let r = get(
        &mut c,
        &format!("/api/v1/pods?resourceVersion={old_rv}&resourceVersionMatch=Exact"),
        1,
    );
    assert_eq!(r.status, 410);
    assert_eq!(json_of(&r)["reason"], "Expired");
}

#[test]
fn too_large_list_waits_then_504() {
    let mut c = cluster();
    mk_pod(&mut c, "ns", "a", "x", 0);
    let cur = c.resource_version();
    match c.handle(
        &Get::new(format!("/api/v1/pods?resourceVersion={}", cur + 100)),
        1000,
    ) {
        Reply::Delayed { at_ms, response } => {
            assert_eq!(at_ms, 4000);
            assert_eq!(response.status, 504);
            assert_eq!(response.header("Retry-After"), Some("1"));
            assert_eq!(
                response.text(),
                format!(
                    "{{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{{}},\"status\":\"Failure\",\"message\":\"Timeout: Too large resource version: {}, current: {cur}\",\"reason\":\"Timeout\",\"details\":{{\"causes\":[{{\"reason\":\"ResourceVersionTooLarge\",\"message\":\"Too large resource version\"}}],\"retryAfterSeconds\":1}},\"code\":504}}\n",
                    cur + 100
                )
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn validation_texts() {
    let mut c = cluster();
    let cases = [
        ("/api/v1/pods?watch=true&sendInitialEvents=true&allowWatchBookmarks=true", "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"),
        ("/api/v1/pods?watch=true&resourceVersionMatch=NotOlderThan", "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"),
        ("/api/v1/pods?sendInitialEvents=true", "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"),
        ("/api/v1/pods?resourceVersionMatch=Exact", "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"),
    ];
    for (path, want) in cases {
        let r = get(&mut c, path, 0);
        assert_eq!(r.status, 422, "{path}");
        let v = json_of(&r);
        assert_eq!(v["reason"], "Invalid");
        assert_eq!(
            v["message"],
            format!("ListOptions.meta.k8s.io \"\" is invalid: {want}"),
            "{path}"
        );
    }
    let mut old = Cluster::new(ClusterConfig {
        streaming_lists: StreamingLists::Rejected,
        ..ClusterConfig::default()
    });
    let r = get(&mut old, "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", 0);
    assert_eq!(r.status, 422);
    assert_eq!(json_of(&r)["message"], "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled");
    // Bad requests never panic.
    for p in [
        "/api/v1/pods?limit=x",
        "/api/v1/pods?labelSelector=a%20in%20(b",
        "/api/v1/pods?fieldSelector=spec.foo%3D1",
        "/api/v1/pods?resourceVersion=abc&limit=1",
    ] {
        assert_eq!(get(&mut c, p, 0).status, 400, "{p}");
    }
    let r = get(&mut c, "/api/v1/nothing", 0);
    assert_eq!(r.status, 404);
    assert_eq!(json_of(&r)["kind"], "Status");
}

#[test]
fn watch_from_empty_replays_then_streams() {
    let mut c = cluster();
    mk_pod(&mut c, "ns", "a", "x", 0);
    let id = watch(&mut c, "/api/v1/pods?watch=true", 0);
    let (l, end) = drain(&mut c, id, 0);
    assert_eq!(types(&l), ["ADDED"]);
    assert_eq!(l[0]["object"]["kind"], "Pod");
    assert_eq!(l[0]["object"]["apiVersion"], "v1");
    assert!(end.is_none());
    mk_pod(&mut c, "ns", "b", "x", 10);
    let (l, _) = drain(&mut c, id, 10);
    assert_eq!(types(&l), ["ADDED"]);
    assert_eq!(l[0]["object"]["metadata"]["name"], "b");
}

#[test]
fn watch_from_n_no_synthetic_and_deleted_last_state() {
    let mut c = cluster();
    mk_pod(&mut c, "ns", "a", "x", 0);
    let rv = c.resource_version();
    let id = watch(
        &mut c,
        &format!("/api/v1/pods?watch=true&resourceVersion={rv}"),
        0,
    );
    assert!(drain(&mut c, id, 0).0.is_empty());
    c.modify(PODS, "ns", "a", 5, |v| {
        v["status"]["phase"] = json!("Failed")
    })
    .unwrap();
    let d = c.delete(PODS, "ns", "a", 6).unwrap();
    let (l, _) = drain(&mut c, id, 6);
    assert_eq!(types(&l), ["MODIFIED", "DELETED"]);
    assert_eq!(l[1]["object"]["status"]["phase"], "Failed");
    assert_eq!(
        l[1]["object"]["metadata"]["resourceVersion"],
        d.resource_version.to_string()
    );
    // Recreate: new uid.
    mk_pod(&mut c, "ns", "a", "x", 7);
    let r1 = c.recreate(PODS, "ns", "a", 8).unwrap();
    let (l, _) = drain(&mut c, id, 8);
    assert_eq!(types(&l), ["ADDED", "DELETED", "ADDED"]);
    assert_ne!(
        l[0]["object"]["metadata"]["uid"],
        l[2]["object"]["metadata"]["uid"]
    );
    assert_eq!(l[2]["object"]["metadata"]["uid"], r1.uid);
}

#[test]
fn selector_transitions() {
    let mut c = cluster();
    mk_pod(&mut c, "ns", "a", "x", 0);
    let rv = c.resource_version();
    let id = watch(
        &mut c,
        &format!("/api/v1/pods?watch=true&resourceVersion={rv}&labelSelector=app%3Dy"),
        0,
    );
    let fid = watch(
        &mut c,
        &format!(
            "/api/v1/pods?watch=true&resourceVersion={rv}&fieldSelector=status.phase%3DRunning"
        ),
        0,
    );
    let to_y = c
        .modify(PODS, "ns", "a", 1, |v| {
            v["metadata"]["labels"]["app"] = json!("y")
        })
        .unwrap();
    c.modify(PODS, "ns", "a", 2, |v| {
        v["status"]["phase"] = json!("Pending")
    })
    .unwrap();
    let back = c
        .modify(PODS, "ns", "a", 3, |v| {
            v["metadata"]["labels"]["app"] = json!("x")
        })
        .unwrap();
    let (l, _) = drain(&mut c, id, 3);
    assert_eq!(types(&l), ["ADDED", "MODIFIED", "DELETED"]);
    assert_eq!(
        l[0]["object"]["metadata"]["resourceVersion"],
        to_y.resource_version.to_string()
    );
    // DELETED on leaving: previous content, the event's version.
    assert_eq!(l[2]["object"]["metadata"]["labels"]["app"], "y");
    assert_eq!(
        l[2]["object"]["metadata"]["resourceVersion"],
        back.resource_version.to_string()
    );
    let (l, _) = drain(&mut c, fid, 3);
    assert_eq!(types(&l), ["MODIFIED", "DELETED"]);
}

#[test]
fn too_old_watch_is_200_error_then_clean_end() {
    let mut c = Cluster::new(ClusterConfig {
        watch_cache_window_ms: 10_000,
        ..ClusterConfig::default()
    });
    mk_pod(&mut c, "ns", "a", "x", 0);
    let old = c.resource_version();
    mk_pod(&mut c, "ns", "b", "x", 1000);
    mk_pod(&mut c, "ns", "c", "x", 20_000);
    let id = watch(
        &mut c,
        &format!("/api/v1/pods?watch=true&resourceVersion={}", old - 1),
        20_000,
    );
    let (l, end) = drain(&mut c, id, 20_000);
    assert_eq!(end, Some(WatchOutput::End));
    assert_eq!(l.len(), 1);
    let floor = c.watch_floor(PODS, 20_000);
    assert_eq!(
        l[0].to_string(),
        format!(r#"{{"object":{{"apiVersion":"v1","code":410,"kind":"Status","message":"too old resource version: {} ({floor})","metadata":{{}},"reason":"Expired","status":"Failure"}},"type":"ERROR"}}"#, old - 1)
            .replace(' ', " ")
    );
    // Compaction too.
    let rv = c.resource_version();
    c.compact_now();
    mk_pod(&mut c, "ns", "d", "x", 20_001);
    let id = watch(
        &mut c,
        &format!("/api/v1/pods?watch=true&resourceVersion={}", rv - 1),
        20_001,
    );
    let (l, end) = drain(&mut c, id, 20_001);
    assert_eq!(l[0]["object"]["code"], 410);
    assert_eq!(end, Some(WatchOutput::End));
}

#[test]
fn too_large_plain_watch_waits_silently_until_timeout() {
    let mut c = cluster();
    mk_pod(&mut c, "ns", "a", "x", 0);
    let rv = c.resource_version();
    let id = watch(
        &mut c,
        &format!(
            "/api/v1/pods?watch=true&resourceVersion={}&timeoutSeconds=5",
            rv + 2
        ),
        0,
    );
    assert!(drain(&mut c, id, 0).0.is_empty());
    mk_pod(&mut c, "ns", "b", "x", 1000); // rv+1: not yet reached
    assert!(drain(&mut c, id, 1000).0.is_empty());
    mk_pod(&mut c, "ns", "c", "x", 2000); // rv+2 reached: events after it come
    mk_pod(&mut c, "ns", "d", "x", 2000);
    let (l, _) = drain(&mut c, id, 2000);
    assert_eq!(l.len(), 1);
    assert_eq!(l[0]["object"]["metadata"]["name"], "d");
    assert_eq!(drain(&mut c, id, 5000).1, Some(WatchOutput::End));
}

#[test]
fn streaming_list_and_end_bookmark() {
    let mut c = cluster();
    mk_pod(&mut c, "ns", "a", "x", 0);
    mk_pod(&mut c, "ns", "b", "x", 0);
    let rv = c.resource_version();
    let id = watch(&mut c, "/api/v1/pods?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&resourceVersion=", 0);
    let (l, _) = drain(&mut c, id, 0);
    assert_eq!(types(&l), ["ADDED", "ADDED", "BOOKMARK"]);
    // The full empty Pod the watch cache builds, plus the annotation (exact bytes are
    // pinned in tests/fidelity.rs).
    assert_eq!(
        l[2].to_string(),
        format!(
            r#"{{"object":{{"apiVersion":"v1","kind":"Pod","metadata":{{"annotations":{{"k8s.io/initial-events-end":"true"}},"creationTimestamp":null,"resourceVersion":"{rv}"}},"spec":{{"containers":null}},"status":{{}}}},"type":"BOOKMARK"}}"#
        )
    );
    // Too large: in-stream ERROR after the wait.
    let id = watch(&mut c, &format!("/api/v1/pods?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&resourceVersion={}", rv + 50), 0);
    assert!(drain(&mut c, id, 0).0.is_empty());
    let (l, end) = drain(&mut c, id, 3000);
    assert_eq!(l[0]["type"], "ERROR");
    assert_eq!(l[0]["object"]["code"], 504);
    assert_eq!(end, Some(WatchOutput::End));
    // Ignored mode: synthetic ADDED, never the end bookmark.
    let mut old = Cluster::new(ClusterConfig {
        streaming_lists: StreamingLists::Ignored,
        ..ClusterConfig::default()
    });
    mk_pod(&mut old, "ns", "a", "x", 0);
    let id = watch(&mut old, "/api/v1/pods?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan", 0);
    assert_eq!(types(&drain(&mut old, id, 0).0), ["ADDED"]);
}

#[test]
fn bookmarks_only_when_asked_and_past_start() {
    let mut c = Cluster::new(ClusterConfig {
        bookmark_every_ms: 1000,
        ..ClusterConfig::default()
    });
    mk_pod(&mut c, "ns", "a", "x", 0);
    let rv = c.resource_version();
    let idle = watch(&mut c, &format!("/api/v1/pods?watch=true&resourceVersion={rv}&allowWatchBookmarks=true&timeoutSeconds=10"), 0);
    let none = watch(
        &mut c,
        &format!("/api/v1/pods?watch=true&resourceVersion={rv}&timeoutSeconds=10"),
        0,
    );
    assert!(
        drain(&mut c, idle, 1500).0.is_empty(),
        "idle collection: no bookmark"
    );
    // A configmap change moves the version past the start: pod watchers get a bookmark.
    c.create(
        CONFIGMAPS,
        json!({"metadata": {"name": "cm", "namespace": "ns"}}),
        1600,
    )
    .unwrap();
    let (l, _) = drain(&mut c, idle, 2100);
    assert_eq!(types(&l), ["BOOKMARK"]);
    assert_eq!(
        l[0]["object"]["metadata"]["resourceVersion"],
        c.resource_version().to_string()
    );
    assert_eq!(l[0]["object"]["kind"], "Pod");
    assert!(drain(&mut c, none, 2100).0.is_empty());
    // ~2 s before the deadline, then the clean end at timeoutSeconds.
    let (l, end) = drain(&mut c, idle, 8000);
    assert_eq!(types(&l), ["BOOKMARK"]);
    assert!(end.is_none());
    assert!(drain(&mut c, idle, 9999).1.is_none());
    assert_eq!(drain(&mut c, idle, 10_000).1, Some(WatchOutput::End));
    assert_eq!(drain(&mut c, none, 10_000).1, Some(WatchOutput::End));
}

#[test]
fn default_timeout_between_1800_and_3600_s() {
    let mut c = cluster();
    let id = watch(&mut c, "/api/v1/pods?watch=true", 0);
    assert!(drain(&mut c, id, 1_799_999).1.is_none());
    assert_eq!(drain(&mut c, id, 3_600_000).1, Some(WatchOutput::End));
}

#[test]
fn lagging_replica() {
    let mut c = cluster();
    for i in 0..5 {
        mk_pod(&mut c, "ns", &format!("p{i}"), "x", 0);
    }
    c.set_lag(Some(2));
    let cur = c.resource_version();
    // rv="" is a consistent read: current.
    let v = json_of(&get(&mut c, "/api/v1/pods", 0));
    assert_eq!(v["metadata"]["resourceVersion"], cur.to_string());
    // rv=0 is served by the replica.
    let v = json_of(&get(&mut c, "/api/v1/pods?resourceVersion=0", 0));
    assert_eq!(v["metadata"]["resourceVersion"], (cur - 2).to_string());
    assert_eq!(names(&v).len(), 3);
    // Too large for the replica.
    assert!(matches!(
        c.handle(&Get::new(format!("/api/v1/pods?resourceVersion={cur}")), 0),
        Reply::Delayed { .. }
    ));
    // A watch from the list version hangs (no events) until the replica catches up.
    let id = watch(
        &mut c,
        &format!("/api/v1/pods?watch=true&resourceVersion={cur}"),
        0,
    );
    mk_pod(&mut c, "ns", "q", "x", 1);
    assert!(drain(&mut c, id, 1).0.is_empty());
    c.set_lag(None);
    assert_eq!(types(&drain(&mut c, id, 2).0), ["ADDED"]);
}

#[test]
fn streaming_list_from_empty_version_is_a_consistent_read_even_when_lagging() {
    let mut c = cluster();
    for i in 0..5 {
        mk_pod(&mut c, "ns", &format!("p{i}"), "x", 0);
    }
    c.set_lag(Some(2));
    let cur = c.resource_version();
    let id = watch(
        &mut c,
        "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true",
        0,
    );
    let (lines, _) = drain(&mut c, id, 1);
    assert_eq!(
        types(&lines),
        ["ADDED", "ADDED", "ADDED", "ADDED", "ADDED", "BOOKMARK"]
    );
    let end = &lines[5]["object"]["metadata"];
    assert_eq!(end["resourceVersion"], cur.to_string());
    assert_eq!(end["annotations"]["k8s.io/initial-events-end"], "true");
}

#[test]
fn restart_aborts_watches_and_keeps_store() {
    let mut c = cluster();
    mk_pod(&mut c, "ns", "a", "x", 0);
    let id = watch(&mut c, "/api/v1/pods?watch=true", 0);
    drain(&mut c, id, 0);
    let caught_up = c.resource_version();
    c.restart();
    assert_eq!(c.poll_watch(id, 1), WatchOutput::Abort);
    let list = json_of(&get(&mut c, "/api/v1/pods", 1));
    assert_eq!(names(&list), ["a"]);
    // Even a client that was caught up must relist: its version predates the new cache.
    let resumed = watch(
        &mut c,
        &format!("/api/v1/pods?watch=true&resourceVersion={caught_up}"),
        1,
    );
    let (lines, _) = drain(&mut c, resumed, 1);
    assert_eq!(types(&lines), ["ERROR"]);
    assert_eq!(lines[0]["object"]["code"], 410);
    // The fresh list's version is served.
    let rv = list["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    let fresh = watch(
        &mut c,
        &format!("/api/v1/pods?watch=true&resourceVersion={rv}"),
        1,
    );
    mk_pod(&mut c, "ns", "b", "x", 2);
    assert_eq!(types(&drain(&mut c, fresh, 2).0), ["ADDED"]);
}

#[test]
fn faults_split_cut_and_request_errors() {
    let mut c = Cluster::new(ClusterConfig {
        faults: FaultPlan::parse("split=1,cut=1,cut-within=300").unwrap(),
        ..ClusterConfig::default()
    });
    for i in 0..5 {
        mk_pod(&mut c, "ns", &format!("p{i}"), "x", 0);
    }
    let id = watch(&mut c, "/api/v1/pods?watch=true", 0);
    let mut total = 0;
    let mut chunks = 0;
    loop {
        match c.poll_watch(id, 0) {
            WatchOutput::Chunks(ch) => {
                chunks += ch.len();
                total += ch.iter().map(Vec::len).sum::<usize>();
            }
            WatchOutput::End => break,
            other => panic!("{other:?}"),
        }
    }
    assert!(total < 300);
    assert!(chunks >= 2);
    let mut c = Cluster::new(ClusterConfig {
        faults: FaultPlan::parse("503=1,retry-after=3").unwrap(),
        ..ClusterConfig::default()
    });
    let r = get(&mut c, "/api/v1/pods", 0);
    assert_eq!(r.status, 503);
    assert_eq!(r.header("Retry-After"), Some("3"));
    assert_eq!(json_of(&r)["details"]["retryAfterSeconds"], 3);
    // Discovery is not faulted.
    assert_eq!(get(&mut c, "/api", 0).status, 200);
}

#[test]
fn workload_churn_and_truth() {
    let mut c = cluster();
    let mut w = Workload::new(
        3,
        WorkloadConfig {
            namespaces: 2,
            pods: 40,
            churn_per_sec: 200.0,
        },
    );
    w.populate(&mut c, 0);
    assert_eq!(c.count(PODS), 40);
    let rv0 = c.resource_version();
    let id = watch(
        &mut c,
        &format!("/api/v1/pods?watch=true&resourceVersion={rv0}"),
        0,
    );
    let n = w.tick(&mut c, 1000);
    assert_eq!(n, 200);
    let (l, _) = drain(&mut c, id, 1000);
    assert!(!l.is_empty());
    let truth = c.truth("/api/v1/pods", "", "").unwrap();
    let list = json_of(&get(&mut c, "/api/v1/pods", 1000));
    assert_eq!(truth.len(), names(&list).len());
    for (t, item) in truth.iter().zip(list["items"].as_array().unwrap()) {
        assert_eq!(t.1, item["metadata"]["name"]);
        assert_eq!(t.2, item["metadata"]["uid"]);
        assert_eq!(t.3, item["metadata"]["resourceVersion"]);
    }
    // Replaying the watch from rv0 onto the rv0 state gives the truth.
    let mut state: std::collections::BTreeMap<String, String> = json_of(&get(
        &mut c,
        &format!("/api/v1/pods?resourceVersion={rv0}&resourceVersionMatch=Exact"),
        1000,
    ))["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                format!(
                    "{}/{}",
                    i["metadata"]["namespace"].as_str().unwrap(),
                    i["metadata"]["name"].as_str().unwrap()
                ),
                i["metadata"]["resourceVersion"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    for e in &l {
        let m = &e["object"]["metadata"];
        let k = format!(
            "{}/{}",
            m["namespace"].as_str().unwrap(),
            m["name"].as_str().unwrap()
        );
        match e["type"].as_str().unwrap() {
            "DELETED" => {
                state.remove(&k);
            }
            _ => {
                state.insert(k, m["resourceVersion"].as_str().unwrap().to_string());
            }
        }
    }
    let want: Vec<(String, String)> = truth
        .iter()
        .map(|t| (format!("{}/{}", t.0, t.1), t.3.clone()))
        .collect();
    assert_eq!(state.into_iter().collect::<Vec<_>>(), want);
    // Widgets and deployments exist.
    assert_eq!(
        json_of(&get(&mut c, "/apis/kubelive.dev/v1/widgets", 1000))["kind"],
        "WidgetList"
    );
    assert_eq!(
        json_of(&get(
            &mut c,
            "/apis/apps/v1/namespaces/ns-0/deployments",
            1000
        ))["kind"],
        "DeploymentList"
    );
}
