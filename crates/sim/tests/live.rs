//! A live cluster, in the model: the control plane's own writes (Leases), what they mean
//! for a watch of a quiet collection (the cacher's bookmarks), the workload's objects of
//! every kind and how they hang together, and the Events of its pods (correlated,
//! expiring, bounded).

use std::collections::{BTreeSet, HashMap};

use kubelive_sim::*;
use serde_json::Value;

fn cluster() -> Cluster {
    Cluster::new(ClusterConfig {
        seed: 11,
        compact_every_ms: 0,
        watch_cache_window_ms: 0,
        ..ClusterConfig::default()
    })
}

fn list(c: &mut Cluster, path: &str, now: u64) -> Value {
    match c.handle(&Get::new(path), now) {
        Reply::Response(r) => {
            assert_eq!(r.status, 200, "{path}: {}", r.text());
            serde_json::from_slice(&r.body).unwrap()
        }
        other => panic!("{path}: {other:?}"),
    }
}

fn items(c: &mut Cluster, path: &str, now: u64) -> Vec<Value> {
    list(c, path, now)["items"].as_array().unwrap().clone()
}

/// Polls a watch up to `until` in steps of `step` ms; each line with the time it came.
fn pump(c: &mut Cluster, id: WatchId, from: u64, until: u64, step: u64) -> Vec<(u64, Value)> {
    let mut out = Vec::new();
    let mut buf = Vec::new();
    let mut t = from;
    while t <= until {
        while let WatchOutput::Chunks(ch) = c.poll_watch(id, t) {
            ch.iter().for_each(|x| buf.extend_from_slice(x));
        }
        while let Some(i) = buf.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buf.drain(..=i).collect();
            out.push((t, serde_json::from_slice(&line).unwrap()));
        }
        t += step;
    }
    out
}

fn watch(c: &mut Cluster, path: &str, now: u64) -> WatchId {
    match c.handle(&Get::new(path), now) {
        Reply::Watch(id) => id,
        other => panic!("{path}: {other:?}"),
    }
}

fn bookmarks(lines: &[(u64, Value)]) -> Vec<(u64, u64)> {
    lines
        .iter()
        .filter(|(_, v)| v["type"] == "BOOKMARK")
        .map(|(t, v)| {
            let rv = v["object"]["metadata"]["resourceVersion"].as_str().unwrap();
            (*t, rv.parse().unwrap())
        })
        .collect()
}

/// kube-apiserver renews its identity lease every 10 s, the controller-manager and the
/// scheduler their leader leases every 2 s (client-go leaderelection's retryPeriod): the
/// resourceVersion moves while nothing a user watches changes.
#[test]
fn control_plane_leases_move_the_version() {
    let mut c = cluster();
    c.set_control_plane(ControlPlane::LIVE, 0);
    let leases = items(
        &mut c,
        "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases",
        0,
    );
    let names: Vec<&str> = leases
        .iter()
        .map(|l| l["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "apiserver-kubelive-sim",
            "kube-controller-manager",
            "kube-scheduler"
        ]
    );
    assert_eq!(leases[1]["spec"]["leaseDurationSeconds"], 15);
    let rv0 = c.resource_version();
    c.advance(20_000);
    // 10 leader renewals each (every 2 s), 2 identity renewals (every 10 s).
    assert_eq!(c.resource_version() - rv0, 22);
    let leases = items(
        &mut c,
        "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases",
        20_000,
    );
    assert_eq!(
        leases[2]["spec"]["renewTime"],
        "2025-01-01T00:00:20.000000Z"
    );
    // Off by default in process: the DST's world writes only what its driver asks.
    let mut quiet = cluster();
    quiet.advance(20_000);
    assert_eq!(quiet.resource_version(), 1);
}

/// The cacher sends a watch a bookmark about every minute at the newest version its cache
/// processed, only once that is newer than the watch's start (cacher.go `dispatchEvents`,
/// cache_watcher.go `process`). A quiet collection's cache learns newer versions from
/// etcd's progress notifications (every 10 minutes by default) or when a consistent read
/// asks for progress (progress/watch_progress.go); the caches share one watch stream, so
/// any resource's consistent LIST freshens all of them.
#[test]
fn quiet_collections_get_bookmarks_once_their_cache_learns_newer_versions() {
    let mut c = cluster();
    c.set_control_plane(ControlPlane::LIVE, 0);
    c.create(
        NAMESPACES,
        serde_json::json!({"metadata": {"name": "quiet"}}),
        0,
    )
    .unwrap();
    let rv = list(&mut c, "/api/v1/namespaces", 1)["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    let id = watch(
        &mut c,
        &format!("/api/v1/namespaces?watch=true&allowWatchBookmarks=true&resourceVersion={rv}&timeoutSeconds=3600"),
        1,
    );
    // The leases move the version, but the namespaces cache does not know it yet.
    let lines = pump(&mut c, id, 1, 590_000, 1000);
    assert!(bookmarks(&lines).is_empty(), "{lines:?}");
    // etcd's progress notification at 600 s: from then on a bookmark every minute.
    let lines = pump(&mut c, id, 591_000, 800_000, 1000);
    let b = bookmarks(&lines);
    assert!(b.len() >= 3, "{b:?}");
    assert!(
        b[0].0 >= 600_000 && b[0].1 > rv.parse::<u64>().unwrap(),
        "{b:?}"
    );
    assert!(b.windows(2).all(|w| w[1].0 - w[0].0 == 60_000), "{b:?}");
    // Bookmarks never carry a version the cache has not processed.
    let at_600 = b[0].1;
    assert!(
        b.iter().all(|(t, v)| *t < 1_200_000 && *v == at_600),
        "{b:?}"
    );

    // A consistent LIST of configmaps makes the namespaces cache fresh too.
    let mut c = cluster();
    c.set_control_plane(ControlPlane::LIVE, 0);
    let rv = list(&mut c, "/api/v1/namespaces", 1)["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    let id = watch(
        &mut c,
        &format!("/api/v1/namespaces?watch=true&allowWatchBookmarks=true&resourceVersion={rv}&timeoutSeconds=3600"),
        1,
    );
    assert!(bookmarks(&pump(&mut c, id, 1, 65_000, 1000)).is_empty());
    list(&mut c, "/api/v1/configmaps", 66_000);
    let b = bookmarks(&pump(&mut c, id, 66_000, 130_000, 1000));
    assert_eq!(b.len(), 1, "{b:?}");
    assert!(b[0].1 > rv.parse::<u64>().unwrap());

    // With caches that know every version at once, the minute bookmarks come from the
    // start.
    let mut c = cluster();
    c.set_control_plane(
        ControlPlane {
            progress: CacheProgress::Immediate,
            ..ControlPlane::LIVE
        },
        0,
    );
    let id = watch(
        &mut c,
        "/api/v1/namespaces?watch=true&allowWatchBookmarks=true&resourceVersion=1&timeoutSeconds=3600",
        1,
    );
    let b = bookmarks(&pump(&mut c, id, 1, 200_000, 1000));
    assert_eq!(b.len(), 3, "{b:?}");
    assert!(b.windows(2).all(|w| w[1].1 > w[0].1), "{b:?}");
}

/// The workload's objects hang together as a cluster's do: pods' ownerReferences name
/// their ReplicaSet (uid included), whose owner is the Deployment; every `spec.nodeName`
/// is a Node; every Deployment has a Service and a ConfigMap; events are about pods that
/// exist.
#[test]
fn the_workload_hangs_together() {
    let mut c = cluster();
    let mut w = Workload::new(
        2,
        WorkloadConfig {
            namespaces: 3,
            pods: 120,
            churn_per_sec: 0.0,
        },
    );
    w.populate(&mut c, 0);
    let rs: HashMap<String, Value> = items(&mut c, "/apis/apps/v1/replicasets", 0)
        .into_iter()
        .map(|r| (r["metadata"]["uid"].as_str().unwrap().to_string(), r))
        .collect();
    let deploys: HashMap<String, Value> = items(&mut c, "/apis/apps/v1/deployments", 0)
        .into_iter()
        .map(|d| (d["metadata"]["uid"].as_str().unwrap().to_string(), d))
        .collect();
    let nodes: BTreeSet<String> = items(&mut c, "/api/v1/nodes", 0)
        .iter()
        .map(|n| n["metadata"]["name"].as_str().unwrap().to_string())
        .collect();
    let pods = items(&mut c, "/api/v1/pods", 0);
    assert_eq!(pods.len(), 120);
    assert_eq!(rs.len(), 12);
    for p in &pods {
        let owner = &p["metadata"]["ownerReferences"][0];
        let r = &rs[owner["uid"].as_str().unwrap()];
        assert_eq!(owner["name"], r["metadata"]["name"]);
        assert_eq!(owner["kind"], "ReplicaSet");
        let d = &r["metadata"]["ownerReferences"][0];
        assert_eq!(
            deploys[d["uid"].as_str().unwrap()]["metadata"]["name"],
            d["name"]
        );
        assert!(nodes.contains(p["spec"]["nodeName"].as_str().unwrap()));
    }
    assert!(nodes.contains("control-plane"));
    let svc = items(&mut c, "/api/v1/services", 0);
    let cms = items(&mut c, "/api/v1/configmaps", 0);
    assert_eq!(svc.len(), 12);
    assert_eq!(cms.len(), 12);
    let types: BTreeSet<&str> = svc
        .iter()
        .map(|s| s["spec"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        BTreeSet::from(["ClusterIP", "LoadBalancer", "NodePort"])
    );
    let secrets = items(&mut c, "/api/v1/secrets", 0);
    let types: BTreeSet<&str> = secrets
        .iter()
        .map(|s| s["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, BTreeSet::from(["Opaque", "kubernetes.io/tls"]));
    let crds = items(
        &mut c,
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        0,
    );
    assert_eq!(crds[0]["metadata"]["name"], "widgets.kubelive.dev");
    let pod_uids: BTreeSet<&str> = pods
        .iter()
        .map(|p| p["metadata"]["uid"].as_str().unwrap())
        .collect();
    let events = items(&mut c, "/api/v1/events", 0);
    assert!(events.len() >= 5 * 100, "{}", events.len());
    assert!(events
        .iter()
        .all(|e| pod_uids.contains(e["involvedObject"]["uid"].as_str().unwrap())));
    let reasons: BTreeSet<&str> = events
        .iter()
        .map(|e| e["reason"].as_str().unwrap())
        .collect();
    assert_eq!(
        reasons,
        BTreeSet::from(["Created", "Pulled", "Pulling", "Scheduled", "Started"])
    );
}

/// Churn writes the events kubelet and the scheduler would: a new pod is Scheduled and
/// Pulling, a started one Pulled/Created/Started, a graceful delete Killing, a restart
/// BackOff and a lost readiness Unhealthy; a repeated BackOff or Unhealthy updates its
/// event's count and lastTimestamp (the event correlator) rather than adding one. A
/// related-events watch (`fieldSelector=involvedObject.uid=`) sees them.
#[test]
fn churn_writes_correlated_events() {
    let mut c = cluster();
    let mut w = Workload::new(
        4,
        WorkloadConfig {
            namespaces: 2,
            pods: 30,
            churn_per_sec: 0.0,
        },
    );
    w.populate(&mut c, 0);
    let mut now = 0;
    for _ in 0..3000 {
        now += 200;
        w.step(&mut c, now);
    }
    let events = items(&mut c, "/api/v1/events", now);
    let reasons: BTreeSet<&str> = events
        .iter()
        .map(|e| e["reason"].as_str().unwrap())
        .collect();
    for r in [
        "Scheduled",
        "Pulling",
        "Pulled",
        "Created",
        "Started",
        "Killing",
        "BackOff",
        "Unhealthy",
    ] {
        assert!(reasons.contains(r), "{r} in {reasons:?}");
    }
    let repeated: Vec<&Value> = events
        .iter()
        .filter(|e| e["reason"] == "BackOff" && e["count"].as_u64().unwrap_or(0) > 1)
        .collect();
    assert!(!repeated.is_empty(), "a repeated BackOff is counted");
    assert!(
        repeated
            .iter()
            .any(|e| e["firstTimestamp"] != e["lastTimestamp"]),
        "a later occurrence moves lastTimestamp"
    );
    for e in &repeated {
        let (first, last) = (e["firstTimestamp"].as_str(), e["lastTimestamp"].as_str());
        assert!(first.unwrap() <= last.unwrap(), "{e}");
        assert_eq!(e["type"], "Warning");
    }
    // One event per (pod, reason) for the correlated ones.
    let mut seen = BTreeSet::new();
    for e in events.iter().filter(|e| e["reason"] == "BackOff") {
        assert!(seen.insert(e["involvedObject"]["uid"].as_str().unwrap().to_string()));
    }
    let uid = repeated[0]["involvedObject"]["uid"].as_str().unwrap();
    let ns = repeated[0]["metadata"]["namespace"].as_str().unwrap();
    let related = items(
        &mut c,
        &format!("/api/v1/namespaces/{ns}/events?fieldSelector=involvedObject.uid%3D{uid}"),
        now,
    );
    assert!(related.len() >= 2 && related.iter().all(|e| e["involvedObject"]["uid"] == uid));
}

/// Events expire an hour after their last write (kube-apiserver's `--event-ttl`; an
/// update renews the etcd lease): watchers see them DELETED.
#[test]
fn events_expire_an_hour_after_their_last_write() {
    let mut c = cluster();
    let event = |count: u32, last_ms: u64| {
        kinds::event(&kinds::EventParams {
            id: kinds::Identity {
                name: "web-1.17f0".into(),
                namespace: "shop".into(),
                uid: "e-1".into(),
                resource_version: None,
                created_ms: 0,
            },
            pod_namespace: "shop".into(),
            pod_name: "web-1".into(),
            pod_uid: "p-1".into(),
            pod_resource_version: None,
            field_path: String::new(),
            type_: "Warning",
            reason: "BackOff",
            message: "Back-off restarting failed container".into(),
            reporter: kinds::Reporter::Kubelet {
                node: "node-1".into(),
            },
            first_ms: 0,
            last_ms,
            count,
        })
    };
    c.create_object(EVENTS, &event(1, 0), 0).unwrap();
    c.update_object(EVENTS, &event(2, 1_800_000), 1_800_000)
        .unwrap();
    c.advance(EVENT_TTL_MS + 1);
    assert_eq!(c.count(EVENTS), 1, "renewed by the update");
    let from = c.resource_version();
    let id = watch(
        &mut c,
        &format!("/api/v1/events?watch=true&resourceVersion={from}"),
        EVENT_TTL_MS + 1,
    );
    let lines = pump(
        &mut c,
        id,
        1_800_000 + EVENT_TTL_MS,
        1_800_000 + EVENT_TTL_MS,
        1,
    );
    assert_eq!(c.count(EVENTS), 0);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].1["type"], "DELETED");
    assert_eq!(lines[0].1["object"]["count"], 2);
}

/// However long the churn, the workload keeps at most `MAX_EVENTS` events (the oldest go).
#[test]
fn events_are_bounded() {
    let mut c = cluster();
    let mut w = Workload::new(
        6,
        WorkloadConfig {
            namespaces: 2,
            pods: 20,
            churn_per_sec: 0.0,
        },
    );
    w.populate(&mut c, 0);
    let mut now = 0;
    let mut peak = 0;
    while now < 1_000_000 {
        now += 40;
        w.step(&mut c, now);
        peak = peak.max(c.count(EVENTS));
    }
    assert!(
        peak > workload::MAX_EVENTS / 2,
        "the cap is reached: {peak}"
    );
    assert!(peak <= workload::MAX_EVENTS + 1, "{peak}");
}

/// Each resource's watch cache drops only its own events (`watch_cache.go`,
/// `getAllEventsSinceLocked`: the bound is the cache's oldest event): a quiet collection's
/// watch resumes from its last version however far the control plane's lease writes and
/// compactions moved the version; a resource whose own newer events are gone gets 410.
#[test]
fn a_quiet_collection_resumes_while_others_move() {
    let mut c = Cluster::new(ClusterConfig {
        seed: 11,
        compact_every_ms: 60_000,
        watch_cache_window_ms: 75_000,
        ..ClusterConfig::default()
    });
    c.set_control_plane(ControlPlane::LIVE, 0);
    c.create(
        NAMESPACES,
        serde_json::json!({"metadata": {"name": "quiet"}}),
        0,
    )
    .unwrap();
    let quiet = c.resource_version();
    c.create(
        PODS,
        serde_json::json!({"metadata": {"name": "p", "namespace": "quiet"}}),
        0,
    )
    .unwrap();
    c.modify(PODS, "quiet", "p", 100_000, |v| {
        v["status"]["phase"] = "Running".into()
    })
    .unwrap();
    c.advance(600_000);
    assert!(
        c.compacted_rv() > quiet + 100,
        "leases moved on and were compacted"
    );
    let id = watch(
        &mut c,
        &format!("/api/v1/namespaces?watch=true&resourceVersion={quiet}"),
        600_000,
    );
    assert!(pump(&mut c, id, 600_000, 600_000, 1).is_empty());
    c.create(
        NAMESPACES,
        serde_json::json!({"metadata": {"name": "new"}}),
        601_000,
    )
    .unwrap();
    let lines = pump(&mut c, id, 601_000, 601_000, 1);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].1["type"], "ADDED");
    let id = watch(
        &mut c,
        &format!("/api/v1/pods?watch=true&resourceVersion={quiet}"),
        601_000,
    );
    let lines = pump(&mut c, id, 601_000, 601_000, 1);
    assert_eq!(lines[0].1["type"], "ERROR", "{lines:?}");
    assert_eq!(lines[0].1["object"]["code"], 410);
}
