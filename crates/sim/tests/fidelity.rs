//! The sim as kube-apiserver (issue 15, the rows that live in the model), and the store at
//! scale (issue 16): one test per row, pinning the bytes, each citing the apiserver source
//! the behaviour comes from.

mod common;

use base64::Engine;
use common::{cluster, get, json_of, watch};
use kubelive_sim::*;
use serde_json::{json, Value};

fn mk_pod(c: &mut Cluster, ns: &str, name: &str, phase: &str, now: u64) -> ObjRef {
    c.create(
        PODS,
        json!({"metadata": {"name": name, "namespace": ns, "labels": {"app": "a"}}, "spec": {"nodeName": "n1", "containers": []}, "status": {"phase": phase}}),
        now,
    )
    .unwrap()
}

/// Polls until nothing is due at `now`: the chunks, and how the watch ended if it did.
fn chunks(c: &mut Cluster, id: WatchId, now: u64) -> (Vec<Vec<u8>>, Option<WatchOutput>) {
    let mut out = Vec::new();
    for _ in 0..10_000 {
        match c.poll_watch(id, now) {
            WatchOutput::Chunks(ch) => out.extend(ch),
            WatchOutput::Pending { wake_at_ms } if wake_at_ms > now => return (out, None),
            WatchOutput::Pending { .. } => {}
            e => return (out, Some(e)),
        }
    }
    panic!("watch never settles")
}

fn lines(chunks: &[Vec<u8>]) -> Vec<String> {
    let all: Vec<u8> = chunks.concat();
    String::from_utf8(all)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn types(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// `sendInitialEvents` without `allowWatchBookmarks=true` is refused up to 1.28 (with the
/// WatchList gate on), as `validateWatchOptions` in staging/src/k8s.io/apimachinery/pkg/
/// apis/meta/internalversion/validation/validation.go did then; later releases serve it
/// (tests/releases.rs).
#[test]
fn streaming_list_without_bookmarks_is_422() {
    let mut c = Cluster::new(ClusterConfig {
        seed: 7,
        release: "1.28".parse().unwrap(),
        streaming_lists: StreamingLists::Supported,
        ..ClusterConfig::default()
    });
    let r = get(
        &mut c,
        "/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan",
        0,
    );
    assert_eq!(r.status, 422);
    assert_eq!(
        r.text().trim_end_matches('\n'),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ListOptions.meta.k8s.io \"\" is invalid: allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"ListOptions","causes":[{"reason":"FieldValueForbidden","message":"Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true","field":"allowWatchBookmarks"}]},"code":422}"#
    );
}

/// The initial-events-end bookmark is the kind's empty typed object (the cacher's
/// `newFunc()`, staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go): every
/// zero-value field the Go type serialises (`creationTimestamp: null`, a pod's
/// `spec.containers: null` and `status: {}`), plus the annotation. Custom resources are
/// unstructured: a map, so sorted keys and nothing added.
#[test]
fn initial_events_end_bookmark_is_the_full_empty_object() {
    let mut c = cluster();
    mk_pod(&mut c, "ns", "a", "Running", 0);
    let rv = c.resource_version();
    let q = "watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan";
    let cases = [
        (
            "/api/v1/pods",
            format!(
                r#"{{"type":"BOOKMARK","object":{{"kind":"Pod","apiVersion":"v1","metadata":{{"resourceVersion":"{rv}","creationTimestamp":null,"annotations":{{"k8s.io/initial-events-end":"true"}}}},"spec":{{"containers":null}},"status":{{}}}}}}"#
            ),
        ),
        (
            "/api/v1/namespaces",
            format!(
                r#"{{"type":"BOOKMARK","object":{{"kind":"Namespace","apiVersion":"v1","metadata":{{"resourceVersion":"{rv}","creationTimestamp":null,"annotations":{{"k8s.io/initial-events-end":"true"}}}},"spec":{{}},"status":{{}}}}}}"#
            ),
        ),
        (
            "/api/v1/configmaps",
            format!(
                r#"{{"type":"BOOKMARK","object":{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"resourceVersion":"{rv}","creationTimestamp":null,"annotations":{{"k8s.io/initial-events-end":"true"}}}}}}}}"#
            ),
        ),
        (
            "/apis/apps/v1/deployments",
            format!(
                r#"{{"type":"BOOKMARK","object":{{"kind":"Deployment","apiVersion":"apps/v1","metadata":{{"resourceVersion":"{rv}","creationTimestamp":null,"annotations":{{"k8s.io/initial-events-end":"true"}}}},"spec":{{"selector":null,"template":{{"metadata":{{"creationTimestamp":null}},"spec":{{"containers":null}}}},"strategy":{{}}}},"status":{{}}}}}}"#
            ),
        ),
        (
            "/apis/kubelive.dev/v1/widgets",
            format!(
                r#"{{"type":"BOOKMARK","object":{{"apiVersion":"kubelive.dev/v1","kind":"Widget","metadata":{{"annotations":{{"k8s.io/initial-events-end":"true"}},"resourceVersion":"{rv}"}}}}}}"#
            ),
        ),
    ];
    for (path, want) in cases {
        let id = watch(&mut c, &format!("{path}?{q}"), 0);
        let l = lines(&chunks(&mut c, id, 0).0);
        assert_eq!(l.last(), Some(&want), "{path}");
    }
}

/// No `timeoutSeconds` (or 0) is not "end at once": the apiserver picks its own,
/// `MinRequestTimeout` (1800 s) times a random factor in [1, 2)
/// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/get.go, `ListResource`).
#[test]
fn watch_without_timeout_lasts_the_servers_own() {
    for q in ["", "&timeoutSeconds=0"] {
        let mut c = cluster();
        let id = watch(&mut c, &format!("/api/v1/pods?watch=true{q}"), 0);
        assert_eq!(chunks(&mut c, id, 0).1, None, "{q}");
        assert_eq!(chunks(&mut c, id, 1_799_000).1, None, "{q}: open at 1799 s");
        assert_eq!(
            chunks(&mut c, id, 3_600_000).1,
            Some(WatchOutput::End),
            "{q}: ended by 3600 s"
        );
    }
}

/// Boolean query parameters as apimachinery converts them (`Convert_Slice_string_To_bool`
/// in staging/src/k8s.io/apimachinery/pkg/runtime/conversion.go): only `0` and `false`
/// (any case) are false; `?watch`, `?watch=yes`, `?watch=` are true.
#[test]
fn query_bools_as_apimachinery_reads_them() {
    let mut c = cluster();
    for q in [
        "watch",
        "watch=",
        "watch=yes",
        "watch=True",
        "watch=1",
        "watch=t",
    ] {
        assert!(
            matches!(
                c.handle(&Get::new(format!("/api/v1/pods?{q}")), 0),
                Reply::Watch(_)
            ),
            "{q} is a watch"
        );
    }
    for q in ["watch=0", "watch=false", "watch=FALSE", "watch=False"] {
        assert_eq!(
            get(&mut c, &format!("/api/v1/pods?{q}"), 0).status,
            200,
            "{q}"
        );
    }
    // The same rule for allowWatchBookmarks and sendInitialEvents.
    let id = watch(
        &mut c,
        "/api/v1/pods?watch&sendInitialEvents&allowWatchBookmarks=yes&resourceVersionMatch=NotOlderThan",
        0,
    );
    assert_eq!(types(&lines(&chunks(&mut c, id, 0).0)), ["BOOKMARK"]);
}

/// Field selectors per kind, as the field label conversion functions accept them
/// (pkg/apis/core/v1/conversion.go; the pod's fields from `ToSelectableFields` in
/// pkg/registry/core/pod/strategy.go; other kinds `DefaultMetaV1FieldSelectorConversion`
/// in staging/src/k8s.io/apimachinery/pkg/runtime/conversion.go), and transitions on a
/// watch: a change out of the selection is a DELETED, into it an ADDED.
#[test]
fn field_selectors_per_kind() {
    let mut c = cluster();
    mk_pod(&mut c, "ns", "a", "Running", 0);
    mk_pod(&mut c, "ns", "b", "Pending", 0);
    c.modify(PODS, "ns", "b", 0, |v| v["spec"]["nodeName"] = json!("n2"))
        .unwrap();
    let names = |c: &mut Cluster, q: &str| -> Vec<String> {
        let r = get(c, &format!("/api/v1/pods?fieldSelector={q}"), 0);
        assert_eq!(r.status, 200, "{q}: {}", r.text());
        json_of(&r)["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["metadata"]["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&mut c, "spec.nodeName%3Dn2"), ["b"]);
    assert_eq!(names(&mut c, "status.phase%3DRunning"), ["a"]);
    assert_eq!(names(&mut c, "spec.hostNetwork%3Dfalse"), ["a", "b"]);
    assert_eq!(names(&mut c, "spec.restartPolicy%3D"), ["a", "b"]);
    assert_eq!(
        names(&mut c, "status.nominatedNodeName%3D,metadata.name!%3Da"),
        ["b"]
    );
    let refused = [
        (
            "/api/v1/pods?fieldSelector=status.hostIP%3D1",
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"field label not supported: status.hostIP","reason":"BadRequest","code":400}"#,
        ),
        (
            "/api/v1/namespaces?fieldSelector=metadata.namespace%3Dx",
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"field label not supported: metadata.namespace","reason":"BadRequest","code":400}"#,
        ),
        (
            "/api/v1/configmaps?fieldSelector=data.k%3Dv",
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"\"data.k\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"","reason":"BadRequest","code":400}"#,
        ),
    ];
    for (path, want) in refused {
        let r = get(&mut c, path, 0);
        assert_eq!(
            (r.status, r.text().trim_end_matches('\n')),
            (400, want),
            "{path}"
        );
    }
    assert_eq!(
        get(
            &mut c,
            "/api/v1/namespaces?fieldSelector=status.phase%3DActive",
            0
        )
        .status,
        200
    );
    // Transitions on a watch on spec.nodeName=n1.
    let rv = c.resource_version();
    let id = watch(
        &mut c,
        &format!("/api/v1/pods?watch=1&fieldSelector=spec.nodeName%3Dn1&resourceVersion={rv}"),
        0,
    );
    c.modify(PODS, "ns", "a", 1, |v| v["spec"]["nodeName"] = json!("n3"))
        .unwrap();
    c.modify(PODS, "ns", "b", 1, |v| v["spec"]["nodeName"] = json!("n1"))
        .unwrap();
    let l = lines(&chunks(&mut c, id, 1).0);
    assert_eq!(types(&l), ["DELETED", "ADDED"]);
}

/// Graceful deletion of a pod: the apiserver sets `deletionTimestamp` (now + grace) and
/// `deletionGracePeriodSeconds` (a MODIFIED: kubectl shows Terminating), the object goes
/// (DELETED) when the grace period is over, and its name stays taken until then
/// (`BeforeDelete` in staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go).
#[test]
fn graceful_deletion_is_terminating_then_deleted() {
    let mut c = cluster();
    mk_pod(&mut c, "ns", "a", "Running", 0);
    let rv = c.resource_version();
    let id = watch(
        &mut c,
        &format!("/api/v1/pods?watch=1&resourceVersion={rv}"),
        0,
    );
    let r = c.delete_graceful(PODS, "ns", "a", 30, 1_000).unwrap();
    let l = lines(&chunks(&mut c, id, 1_000).0);
    assert_eq!(types(&l), ["MODIFIED"]);
    let o: Value = serde_json::from_str(&l[0]).unwrap();
    assert_eq!(
        o["object"]["metadata"]["deletionTimestamp"],
        "2025-01-01T00:00:31Z"
    );
    assert_eq!(o["object"]["metadata"]["deletionGracePeriodSeconds"], 30);
    // Go field order: deletionTimestamp right after creationTimestamp.
    assert!(l[0].contains(r#""creationTimestamp":"2025-01-01T00:00:00Z","deletionTimestamp":"2025-01-01T00:00:31Z","deletionGracePeriodSeconds":30,"labels""#), "{}", l[0]);
    assert_eq!(
        c.create(
            PODS,
            json!({"metadata": {"name": "a", "namespace": "ns"}}),
            2_000
        ),
        Err(MutationError::AlreadyExists)
    );
    // A second delete changes nothing.
    assert_eq!(c.delete_graceful(PODS, "ns", "a", 5, 2_000).unwrap(), r);
    assert!(chunks(&mut c, id, 30_999).0.is_empty());
    let l = lines(&chunks(&mut c, id, 31_000).0);
    assert_eq!(types(&l), ["DELETED"]);
    assert!(c
        .create(
            PODS,
            json!({"metadata": {"name": "a", "namespace": "ns"}}),
            31_000
        )
        .is_ok());
    // `--grace-period=0 --force`: at once.
    c.delete_graceful(PODS, "ns", "a", 0, 32_000).unwrap();
    assert_eq!(
        types(&lines(&chunks(&mut c, id, 32_000).0)),
        ["ADDED", "DELETED"]
    );
}

/// The workload's pods go Pending -> Running -> Succeeded/Failed and never back (a
/// container restart keeps the phase: pkg/kubelet/kubelet_pods.go `getPhase`); their
/// deletions are graceful; every change is a new state of the same pod or a new pod.
#[test]
fn workload_pod_phases_only_move_forward() {
    let mut c = cluster();
    let mut w = Workload::new(
        3,
        WorkloadConfig {
            namespaces: 2,
            pods: 60,
            churn_per_sec: 200.0,
        },
    );
    w.populate(&mut c, 0);
    let id = watch(&mut c, "/api/v1/pods?watch=1", 0);
    chunks(&mut c, id, 0);
    let rank = |p: &str| match p {
        "Pending" => 0,
        "Running" => 1,
        _ => 2,
    };
    let mut phase: std::collections::HashMap<String, String> = Default::default();
    let (mut terminating, mut deleted, mut restarts) = (0, 0, 0);
    for t in 1..=300u64 {
        let now = t * 100;
        w.tick(&mut c, now);
        for l in lines(&chunks(&mut c, id, now).0) {
            let e: Value = serde_json::from_str(&l).unwrap();
            let o = &e["object"];
            let uid = o["metadata"]["uid"].as_str().unwrap().to_string();
            let p = o["status"]["phase"].as_str().unwrap().to_string();
            if let Some(prev) = phase.get(&uid) {
                assert!(rank(prev) <= rank(&p), "{uid}: {prev} -> {p}");
                if prev == "Succeeded" || prev == "Failed" {
                    assert_eq!(prev, &p, "{uid}: a finished pod stays finished");
                }
            }
            if o["metadata"]["deletionTimestamp"].is_string() && e["type"] == "MODIFIED" {
                terminating += 1;
            }
            if e["type"] == "DELETED" {
                assert!(
                    o["metadata"]["deletionTimestamp"].is_string(),
                    "deleted without grace"
                );
                deleted += 1;
            }
            if o["status"]["containerStatuses"][0]["restartCount"].as_u64() > Some(0) {
                restarts += 1;
            }
            phase.insert(uid, p);
        }
    }
    assert!(
        terminating > 10 && deleted > 10 && restarts > 10,
        "{terminating} {deleted} {restarts}"
    );
    for p in ["Pending", "Running", "Succeeded", "Failed"] {
        assert!(phase.values().any(|x| x == p), "no pod was ever {p}");
    }
}

/// List items of a custom resource carry `kind` and `apiVersion` (unstructured objects
/// keep them); built-in list items do not (staging/src/k8s.io/apiextensions-apiserver/
/// pkg/registry/customresource, vs the typed encoders).
#[test]
fn custom_resource_list_items_carry_kind() {
    let mut c = cluster();
    c.create(
        WIDGETS,
        json!({"metadata": {"name": "w", "namespace": "ns"}, "spec": {"size": 1}}),
        0,
    )
    .unwrap();
    mk_pod(&mut c, "ns", "a", "Running", 0);
    let w = json_of(&get(&mut c, "/apis/kubelive.dev/v1/widgets", 0));
    assert_eq!(w["items"][0]["kind"], "Widget");
    assert_eq!(w["items"][0]["apiVersion"], "kubelive.dev/v1");
    let p = json_of(&get(&mut c, "/api/v1/pods", 0));
    assert!(p["items"][0].get("kind").is_none());
}

/// Objects in Go struct field order (encoding/json writes struct fields in declaration
/// order: k8s.io/apimachinery/pkg/apis/meta/v1/types.go `ObjectMeta`, k8s.io/api/core/v1/
/// types.go `Pod`, `PodSpec`, `Container`, `PodStatus`, ...; maps sorted by key).
#[test]
fn objects_in_go_field_order() {
    let mut c = cluster();
    let mut w = Workload::new(
        1,
        WorkloadConfig {
            namespaces: 1,
            pods: 1,
            churn_per_sec: 0.0,
        },
    );
    w.populate(&mut c, 0);
    let (ns, name) = c.names(PODS).remove(0);
    let r = get(&mut c, &format!("/api/v1/namespaces/{ns}/pods/{name}"), 0);
    let t = r.text();
    let order = |keys: &[&str]| {
        let pos: Vec<usize> = keys
            .iter()
            .map(|k| {
                t.find(&format!("\"{k}\":"))
                    .unwrap_or_else(|| panic!("{k} in {t}"))
            })
            .collect();
        assert!(
            pos.windows(2).all(|p| p[0] < p[1]),
            "{keys:?} out of order in {t}"
        );
    };
    assert!(
        t.starts_with(r#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":""#),
        "{t}"
    );
    order(&["kind", "apiVersion", "metadata", "spec", "status"]);
    order(&[
        "generateName",
        "namespace",
        "uid",
        "resourceVersion",
        "creationTimestamp",
        "labels",
        "annotations",
        "ownerReferences",
        "managedFields",
    ]);
    order(&[
        "volumes",
        "containers",
        "restartPolicy",
        "terminationGracePeriodSeconds",
        "dnsPolicy",
        "serviceAccountName",
        "nodeName",
        "schedulerName",
        "tolerations",
        "enableServiceLinks",
    ]);
    order(&[
        "phase",
        "conditions",
        "hostIP",
        "podIP",
        "startTime",
        "containerStatuses",
        "qosClass",
    ]);
    order(&[
        "livenessProbe",
        "readinessProbe",
        "terminationMessagePath",
        "imagePullPolicy",
    ]);
    // Objects made from JSON are written in the same order.
    mk_pod(&mut c, "ns", "a", "Running", 0);
    let t = get(&mut c, "/api/v1/namespaces/ns/pods/a", 0).text();
    assert!(
        t.starts_with(
            r#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","uid":""#
        ),
        "{t}"
    );
    assert!(t.find("\"spec\":").unwrap() < t.find("\"status\":").unwrap());
}

/// A real server's chunks follow its write buffer, not the events: several events may
/// share a chunk and one event may span chunks. The bytes are the same whatever the
/// framing, and the framing is the same for the same seed.
#[test]
fn watch_chunks_mix_events() {
    let run = || {
        let mut c = cluster();
        let id = watch(&mut c, "/api/v1/pods?watch=1", 0);
        for i in 0..200 {
            mk_pod(&mut c, "ns", &format!("p{i}"), "Running", 0);
            if i % 10 == 0 {
                chunks(&mut c, id, 0);
            }
        }
        chunks(&mut c, id, 0).0
    };
    let ch = run();
    assert_eq!(ch, run(), "deterministic");
    let shared = ch
        .iter()
        .filter(|c| c.iter().filter(|b| **b == b'\n').count() > 1)
        .count();
    let spanning = ch.iter().filter(|c| c.last() != Some(&b'\n')).count();
    assert!(
        shared > 0 && spanning > 0,
        "{shared} shared, {spanning} spanning"
    );
    assert!(lines(&ch)
        .iter()
        .all(|l| serde_json::from_str::<Value>(l).is_ok()));
}

/// 404 for a missing object: `StatusDetails.group` is `omitempty` (`NewNotFound` in
/// staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go).
#[test]
fn not_found_has_no_empty_group() {
    let mut c = cluster();
    let r = get(&mut c, "/api/v1/namespaces/ns/pods/nope", 0);
    assert_eq!(
        (r.status, r.text().trim_end_matches('\n')),
        (
            404,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"nope\" not found","reason":"NotFound","details":{"name":"nope","kind":"pods"},"code":404}"#
        )
    );
    let r = get(&mut c, "/apis/apps/v1/namespaces/ns/deployments/nope", 0);
    assert!(r
        .text()
        .contains(r#""details":{"name":"nope","group":"apps","kind":"deployments"}"#));
}

/// An expired continue: 410 with a fresh token for the same key at version -1 (the etcd3
/// store, staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go, and
/// storage/continue.go `EncodeContinue`); that token lists on from the newest version.
#[test]
fn expired_continue_gets_a_token_at_version_minus_one() {
    let mut c = cluster();
    for i in 0..6 {
        mk_pod(&mut c, "ns", &format!("p{i}"), "Running", 0);
    }
    let v = json_of(&get(&mut c, "/api/v1/pods?limit=2", 0));
    let tok = v["metadata"]["continue"].as_str().unwrap().to_string();
    mk_pod(&mut c, "ns", "p9", "Running", 1);
    c.compact_now();
    let r = get(&mut c, &format!("/api/v1/pods?limit=2&continue={tok}"), 1);
    assert_eq!(r.status, 410);
    let fresh = json_of(&r)["metadata"]["continue"]
        .as_str()
        .unwrap()
        .to_string();
    let decoded = String::from_utf8(
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(&fresh)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        decoded,
        r#"{"v":"meta.k8s.io/v1","rv":-1,"start":"ns/p1\u0000"}"#
    );
    let v = json_of(&get(
        &mut c,
        &format!("/api/v1/pods?limit=10&continue={fresh}"),
        1,
    ));
    assert_eq!(
        v["metadata"]["resourceVersion"],
        c.resource_version().to_string()
    );
    let names: Vec<&str> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["p2", "p3", "p4", "p5", "p9"]);
}

/// 429 from the priority-and-fairness / max-in-flight filter: plain text from Go's
/// `http.Error` (staging/src/k8s.io/apiserver/pkg/server/filters/maxinflight.go,
/// `tooManyRequests`), with `Retry-After`.
#[test]
fn too_many_requests_is_plain_text() {
    let mut c = Cluster::new(ClusterConfig {
        faults: FaultPlan::parse("429=1,retry-after=3").unwrap(),
        ..ClusterConfig::default()
    });
    let r = get(&mut c, "/api/v1/pods", 0);
    assert_eq!(r.status, 429);
    assert_eq!(r.text(), "Too many requests, please try again later.\n");
    assert_eq!(r.header("Content-Type"), Some("text/plain; charset=utf-8"));
    assert_eq!(r.header("X-Content-Type-Options"), Some("nosniff"));
    assert_eq!(r.header("Retry-After"), Some("3"));
}

/// `proxy-cut-every=MS`: every watch is cut after about MS (± 50%), three ways.
#[test]
fn proxy_cut_ends_every_watch_about_on_time() {
    let mut c = Cluster::new(ClusterConfig {
        faults: FaultPlan::parse("proxy-cut-every=1000").unwrap(),
        ..ClusterConfig::default()
    });
    mk_pod(&mut c, "ns", "a", "Running", 0);
    let (mut html, mut aborts, mut ends) = (0, 0, 0);
    for k in 0..60u64 {
        let t0 = k * 10_000;
        let id = watch(&mut c, "/api/v1/pods?watch=1", t0);
        let (first, end) = chunks(&mut c, id, t0);
        assert_eq!(end, None);
        assert_eq!(lines(&first).len(), 1, "the ADDED first");
        assert_eq!(chunks(&mut c, id, t0 + 499).1, None, "open before 500 ms");
        let (last, end) = chunks(&mut c, id, t0 + 1500);
        let text = String::from_utf8_lossy(&last.concat()).to_string();
        match end {
            Some(WatchOutput::Abort) if text.contains("<html>") => html += 1,
            Some(WatchOutput::Abort) => aborts += 1,
            Some(WatchOutput::End) => ends += 1,
            other => panic!("not cut by 1500 ms: {other:?}"),
        }
        assert!(!text.ends_with('\n') || text.contains("<html>"), "{text:?}");
    }
    assert!(html > 5 && aborts > 5 && ends > 5, "{html} {aborts} {ends}");
}

/// `silent@S` and `silent=P`: the watch stays open and sends nothing (no events, no
/// bookmarks, no end) until the client closes it.
#[test]
fn silent_watches_say_nothing_and_never_end() {
    let mut c = Cluster::new(ClusterConfig {
        bookmark_every_ms: 1000,
        faults: FaultPlan::parse("silent@10").unwrap(),
        ..ClusterConfig::default()
    });
    let id = watch(
        &mut c,
        "/api/v1/pods?watch=1&allowWatchBookmarks=true&timeoutSeconds=60",
        0,
    );
    mk_pod(&mut c, "ns", "a", "Running", 5_000);
    assert!(types(&lines(&chunks(&mut c, id, 5_000).0)).contains(&"ADDED".to_string()));
    mk_pod(&mut c, "ns", "b", "Running", 10_000);
    for t in [10_000, 20_000, 61_000, 7_200_000] {
        assert_eq!(chunks(&mut c, id, t), (vec![], None), "at {t}");
    }
    assert_eq!(c.open_watches(), 1);
    c.close_watch(id);
    assert_eq!(c.open_watches(), 0);
    let mut c = Cluster::new(ClusterConfig {
        faults: FaultPlan::parse("silent=1,silent-within=1000").unwrap(),
        ..ClusterConfig::default()
    });
    let id = watch(&mut c, "/api/v1/pods?watch=1&timeoutSeconds=5", 0);
    chunks(&mut c, id, 1_000);
    mk_pod(&mut c, "ns", "a", "Running", 1_000);
    assert_eq!(chunks(&mut c, id, 100_000), (vec![], None));
}

/// Pages of a paginated list come from the snapshot of the list's version, whatever
/// changes meanwhile, and `remainingItemCount` is exactly what is left; with the
/// snapshot gone (many lists since), the history answers the same.
#[test]
fn pages_are_exact_under_churn_with_and_without_snapshots() {
    let mut c = cluster();
    let mut w = Workload::new(
        9,
        WorkloadConfig {
            namespaces: 3,
            pods: 700,
            churn_per_sec: 1000.0,
        },
    );
    w.populate(&mut c, 0);
    let mut now = 1;
    for evict in [false, true] {
        let first = json_of(&get(&mut c, "/api/v1/pods?limit=50", now));
        let rv: u64 = first["metadata"]["resourceVersion"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let want: Vec<String> = c
            .truth_at("/api/v1/pods", "", "", rv)
            .unwrap()
            .into_iter()
            .map(|e| format!("{}/{} {}", e.0, e.1, e.3))
            .collect();
        let entry = |i: &Value| {
            let m = &i["metadata"];
            format!(
                "{}/{} {}",
                m["namespace"].as_str().unwrap(),
                m["name"].as_str().unwrap(),
                m["resourceVersion"].as_str().unwrap()
            )
        };
        let mut got: Vec<String> = first["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(entry)
            .collect();
        let mut page = first;
        while let Some(tok) = page["metadata"]["continue"].as_str().map(str::to_string) {
            let remaining = page["metadata"]["remainingItemCount"].as_u64().unwrap() as usize;
            assert_eq!(remaining, want.len() - got.len());
            now += 50;
            w.tick(&mut c, now);
            if evict {
                // 70 lists at 70 versions: more snapshots than the server keeps.
                for _ in 0..70 {
                    w.step(&mut c, now);
                    get(&mut c, "/api/v1/configmaps?limit=1", now);
                }
                assert_eq!(c.snapshot_count(), 64);
            }
            page = json_of(&get(
                &mut c,
                &format!("/api/v1/pods?limit=50&continue={tok}"),
                now,
            ));
            assert_eq!(page["metadata"]["resourceVersion"], rv.to_string());
            got.extend(page["items"].as_array().unwrap().iter().map(entry));
        }
        assert_eq!(got, want, "evict={evict}");
        assert!(
            c.resource_version() > rv + 500,
            "the list ran under churn: {rv} -> {}",
            c.resource_version()
        );
    }
}

/// A GET on an object's path with `?watch=true` is a plain GET: the object's route serves
/// GET only (`installer.go` registers watches of one object under the deprecated
/// `/watch/` prefix; `GetResource` decodes GetOptions, which have no `watch`), and the
/// request is authorized as `get` (`RequestInfoFactory` keeps the verb when a name is
/// present).
#[test]
fn object_path_with_watch_is_a_plain_get() {
    let mut c = cluster();
    mk_pod(&mut c, "ns", "a", "Running", 0);
    let r = get(
        &mut c,
        "/api/v1/namespaces/ns/pods/a?watch=true&resourceVersion=0",
        0,
    );
    assert_eq!(r.status, 200);
    let v = json_of(&r);
    assert_eq!(v["kind"], "Pod");
    assert_eq!(v["metadata"]["name"], "a");
    let r = get(&mut c, "/api/v1/namespaces/ns/pods/nope?watch=1", 0);
    assert_eq!(r.status, 404);
    let attrs = rbac::request_info("GET", "/api/v1/namespaces/ns/pods/a", "watch=true");
    assert_eq!((attrs.verb.as_str(), attrs.name.as_str()), ("get", "a"));
}

/// Every JSON body ends with the newline of the apiserver's encoder (`json.Encoder.Encode`
/// in `staging/src/k8s.io/apimachinery/pkg/runtime/serializer/json/json.go`): lists,
/// objects, Tables, and the Status of every error.
#[test]
fn json_bodies_end_with_a_newline() {
    let mut c = cluster();
    mk_pod(&mut c, "ns", "a", "Running", 0);
    mk_pod(&mut c, "ns", "b", "Running", 0);
    let rv = c.resource_version();
    for path in [
        "/api/v1/pods",
        "/api/v1/pods?limit=1",
        "/api/v1/namespaces/ns/pods/a",
        "/apis/kubelive.dev/v1/widgets",
        "/api/v1/namespaces/ns/pods/nope",
        "/api/v1/nothing",
        "/api/v1/pods?fieldSelector=spec.nope%3D1",
        "/api/v1/pods?watch=true&sendInitialEvents=true",
        "/api/v1/pods?resourceVersion=1&resourceVersionMatch=Exact&limit=1",
    ] {
        for output in [Output::Json, Output::Table(TableVersion::V1)] {
            let r = match c.handle(&Get::new(path).with_output(output), 1) {
                Reply::Response(r) => r,
                other => panic!("{path}: {other:?}"),
            };
            let text = r.text();
            assert!(
                text.ends_with("}\n") && !text.ends_with("\n\n"),
                "{path} {output:?}: {text:?}"
            );
        }
    }
    let r = match c.handle(
        &Get::new(format!("/api/v1/pods?resourceVersion={}", rv + 9)),
        1,
    ) {
        Reply::Delayed { response, .. } => response,
        other => panic!("{other:?}"),
    };
    assert!(r.text().ends_with("}\n"));
}

/// The bookmark object of every typed kind is the cacher's `newFunc()` object: the kind's
/// zero value as Go encodes it (fields without omitempty and structs stay; a zero
/// `metav1.Time` is `null`), `creationTimestamp: null` in the periodic bookmark and the
/// initial-events-end one alike (`cacher.go` builds both from `c.newFunc()`; k8s.io/api
/// types.go for each kind's JSON tags). Custom resources are unstructured: nothing added.
#[test]
fn bookmarks_of_every_kind_are_its_empty_object() {
    let cases: [(&str, &str); 12] = [
        (
            "/api/v1/pods",
            r#"{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"RV","creationTimestamp":nullANN},"spec":{"containers":null},"status":{}}"#,
        ),
        (
            "/api/v1/namespaces",
            r#"{"kind":"Namespace","apiVersion":"v1","metadata":{"resourceVersion":"RV","creationTimestamp":nullANN},"spec":{},"status":{}}"#,
        ),
        (
            "/api/v1/configmaps",
            r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"RV","creationTimestamp":nullANN}}"#,
        ),
        (
            "/api/v1/secrets",
            r#"{"kind":"Secret","apiVersion":"v1","metadata":{"resourceVersion":"RV","creationTimestamp":nullANN}}"#,
        ),
        (
            "/api/v1/services",
            r#"{"kind":"Service","apiVersion":"v1","metadata":{"resourceVersion":"RV","creationTimestamp":nullANN},"spec":{},"status":{"loadBalancer":{}}}"#,
        ),
        (
            "/api/v1/nodes",
            r#"{"kind":"Node","apiVersion":"v1","metadata":{"resourceVersion":"RV","creationTimestamp":nullANN},"spec":{},"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},"nodeInfo":{"machineID":"","systemUUID":"","bootID":"","kernelVersion":"","osImage":"","containerRuntimeVersion":"","kubeletVersion":"","kubeProxyVersion":"","operatingSystem":"","architecture":""}}}"#,
        ),
        (
            "/api/v1/events",
            r#"{"kind":"Event","apiVersion":"v1","metadata":{"resourceVersion":"RV","creationTimestamp":nullANN},"involvedObject":{},"source":{},"firstTimestamp":null,"lastTimestamp":null,"eventTime":null,"reportingComponent":"","reportingInstance":""}"#,
        ),
        (
            "/apis/apps/v1/deployments",
            r#"{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"resourceVersion":"RV","creationTimestamp":nullANN},"spec":{"selector":null,"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}},"strategy":{}},"status":{}}"#,
        ),
        (
            "/apis/apps/v1/replicasets",
            r#"{"kind":"ReplicaSet","apiVersion":"apps/v1","metadata":{"resourceVersion":"RV","creationTimestamp":nullANN},"spec":{"selector":null,"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}}},"status":{"replicas":0}}"#,
        ),
        (
            "/apis/coordination.k8s.io/v1/leases",
            r#"{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"resourceVersion":"RV","creationTimestamp":nullANN},"spec":{}}"#,
        ),
        (
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            r#"{"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1","metadata":{"resourceVersion":"RV","creationTimestamp":nullANN},"spec":{"group":"","names":{"plural":"","kind":""},"scope":"","versions":null},"status":{"acceptedNames":{"plural":"","kind":""},"storedVersions":null}}"#,
        ),
        (
            "/apis/kubelive.dev/v1/widgets",
            r#"{"apiVersion":"kubelive.dev/v1","kind":"Widget","metadata":{ANN"resourceVersion":"RV"}}"#,
        ),
    ];
    for (path, object) in cases {
        let mut c = cluster();
        let start = c.resource_version();
        c.create(
            CONFIGMAPS,
            json!({"metadata": {"name": "x", "namespace": "ns"}}),
            0,
        )
        .unwrap();
        let rv = c.resource_version();
        let custom = path.contains("kubelive.dev");
        let (ann_end, ann) = if custom {
            (r#""annotations":{"k8s.io/initial-events-end":"true"},"#, "")
        } else {
            (r#","annotations":{"k8s.io/initial-events-end":"true"}"#, "")
        };
        let want = |ann: &str| {
            format!(
                r#"{{"type":"BOOKMARK","object":{}}}"#,
                object.replace("RV", &rv.to_string()).replace("ANN", ann)
            )
        };
        // The end of a streaming list.
        let id = watch(
            &mut c,
            &format!("{path}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"),
            0,
        );
        let l = lines(&chunks(&mut c, id, 0).0);
        assert_eq!(l.last(), Some(&want(ann_end)), "{path}");
        // A periodic one, a minute into a watch that started before the version moved.
        let id = watch(
            &mut c,
            &format!("{path}?watch=true&allowWatchBookmarks=true&resourceVersion={start}"),
            0,
        );
        chunks(&mut c, id, 0);
        let l = lines(&chunks(&mut c, id, 60_000).0);
        assert_eq!(l.last(), Some(&want(ann)), "{path}");
    }
}

/// A custom resource is unstructured on the server: objects and lists are Go maps, so every
/// key is sorted (`apiVersion`, `items`, `kind`, `metadata`; `continue`,
/// `remainingItemCount`, `resourceVersion`), in list items, GETs and watch events alike
/// (`UnstructuredJSONScheme.doEncode` in staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/
/// unstructured/unstructured.go).
#[test]
fn custom_resources_are_encoded_unstructured() {
    let mut c = cluster();
    for n in ["a", "b"] {
        c.create(
            WIDGETS,
            json!({"metadata": {"name": n, "namespace": "ns"}, "spec": {"size": 1, "color": "red"}}),
            0,
        )
        .unwrap();
    }
    let page = get(&mut c, "/apis/kubelive.dev/v1/widgets?limit=1", 0).text();
    assert!(
        page.starts_with(r#"{"apiVersion":"kubelive.dev/v1","items":[{"apiVersion":"kubelive.dev/v1","kind":"Widget","metadata":{"creationTimestamp":"2025-01-01T00:00:00Z","name":"a","namespace":"ns","resourceVersion":"2","uid":""#),
        "{page}"
    );
    let tail = &page[page.find(r#"}],"kind":"WidgetList""#).expect(&page)..];
    assert!(
        tail.starts_with(r#"}],"kind":"WidgetList","metadata":{"continue":""#),
        "{tail}"
    );
    assert!(
        tail.ends_with("\",\"remainingItemCount\":1,\"resourceVersion\":\"3\"}}\n"),
        "{tail}"
    );
    let one = get(&mut c, "/apis/kubelive.dev/v1/namespaces/ns/widgets/b", 0).text();
    assert!(one.starts_with(r#"{"apiVersion":"kubelive.dev/v1","kind":"Widget","metadata":{"#));
    assert!(
        one.ends_with("\"spec\":{\"color\":\"red\",\"size\":1}}\n"),
        "{one}"
    );
}

/// Every cluster has the `kube-system` Namespace (kube-apiserver's system namespaces
/// controller makes it; the control plane's Leases live there), which clients read as the
/// cluster's identity: its uid is the seed's (the same cluster on every start), not
/// another namespace's, and it is written after every object the workload populates,
/// whose resourceVersions it so leaves as they were.
#[test]
fn kube_system_namespace_is_the_clusters_identity() {
    let populated = |seed: u64| {
        let mut c = cluster();
        let mut w = Workload::new(
            seed,
            WorkloadConfig {
                namespaces: 2,
                pods: 20,
                churn_per_sec: 0.0,
            },
        );
        w.populate(&mut c, 0);
        c
    };
    let uid_of = |c: &mut Cluster| {
        let r = get(c, "/api/v1/namespaces/kube-system", 0);
        assert_eq!(r.status, 200, "{}", r.text());
        let v = json_of(&r);
        assert_eq!(
            v["metadata"]["labels"]["kubernetes.io/metadata.name"],
            "kube-system"
        );
        assert_eq!(
            v["metadata"]["managedFields"][0]["manager"],
            "kube-apiserver"
        );
        assert_eq!(v["status"]["phase"], "Active");
        v["metadata"]["uid"].as_str().unwrap().to_string()
    };
    let (mut a, mut b, mut other) = (populated(7), populated(7), populated(8));
    let uid = uid_of(&mut a);
    assert_eq!(uid, uid_of(&mut b), "the same seed, the same cluster");
    assert_ne!(uid, uid_of(&mut other), "another seed, another cluster");
    let namespaces = json_of(&get(&mut a, "/api/v1/namespaces", 0));
    let uids: Vec<&str> = namespaces["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["metadata"]["uid"].as_str().unwrap())
        .collect();
    assert_eq!(uids.iter().filter(|u| **u == uid).count(), 1, "{uids:?}");
    let pods = json_of(&get(&mut a, "/api/v1/pods", 0));
    let max_rv = pods["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            p["metadata"]["resourceVersion"]
                .as_str()
                .unwrap()
                .parse::<u64>()
                .unwrap()
        })
        .max()
        .unwrap();
    let ns_rv: u64 = json_of(&get(&mut a, "/api/v1/namespaces/kube-system", 0))["metadata"]
        ["resourceVersion"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        ns_rv > max_rv,
        "kube-system is written after every pod ({ns_rv} > {max_rv})"
    );
}
