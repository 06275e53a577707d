//! The garbage collector: removing an owner collects its dependents by ownerReferences
//! uid, in the background, level by level (kube-controller-manager's
//! `pkg/controller/garbagecollector/garbagecollector.go`, 1.27-1.37; pods' grace from
//! `pkg/registry/core/pod/strategy.go` `CheckGracefulDelete`).

mod common;

use common::{cluster, get, json_of, watch};
use kubelive_sim::*;
use serde_json::{json, Value};

/// The events a watch has delivered by `now`.
fn events(c: &mut Cluster, id: WatchId, now: u64) -> Vec<Value> {
    let mut bytes = Vec::new();
    for _ in 0..10_000 {
        match c.poll_watch(id, now) {
            WatchOutput::Chunks(ch) => ch.iter().for_each(|c| bytes.extend_from_slice(c)),
            WatchOutput::Pending { wake_at_ms } if wake_at_ms > now => break,
            WatchOutput::Pending { .. } => {}
            other => panic!("watch ended: {other:?}"),
        }
    }
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

/// (type, name, resourceVersion, has deletionTimestamp) of each event.
fn summary(events: &[Value]) -> Vec<(String, String, u64, bool)> {
    events
        .iter()
        .map(|e| {
            let m = &e["object"]["metadata"];
            (
                e["type"].as_str().unwrap().to_string(),
                m["name"].as_str().unwrap().to_string(),
                m["resourceVersion"].as_str().unwrap().parse().unwrap(),
                m.get("deletionTimestamp").is_some(),
            )
        })
        .collect()
}

fn owner(kind: &str, r: &ObjRef) -> Value {
    let api_version = if kind == "Pod" || kind == "ConfigMap" {
        "v1"
    } else {
        "apps/v1"
    };
    json!({"apiVersion": api_version, "kind": kind, "name": r.name, "uid": r.uid,
           "controller": true, "blockOwnerDeletion": true})
}

fn deployment(c: &mut Cluster, name: &str) -> ObjRef {
    c.create(
        DEPLOYMENTS,
        json!({"metadata": {"name": name, "namespace": "ns"}, "spec": {"replicas": 2}}),
        0,
    )
    .unwrap()
}

fn owned(c: &mut Cluster, rt: ResourceType, name: &str, owners: Vec<Value>, spec: Value) -> ObjRef {
    c.create(
        rt,
        json!({"metadata": {"name": name, "namespace": "ns", "ownerReferences": owners},
               "spec": spec, "status": {"phase": "Running"}}),
        0,
    )
    .unwrap()
}

/// Deleting a Deployment (background, as `kubectl delete` does): the Deployment is
/// DELETED at once, its ReplicaSet a moment later, then the ReplicaSet's pods: a scheduled
/// one gets its terminationGracePeriodSeconds (MODIFIED with deletionTimestamp, DELETED when
/// it is over), an unscheduled one is DELETED at once. Each event's version is the
/// object's resourceVersion, in the order the writes happened.
#[test]
fn deleting_a_deployment_collects_its_replicaset_then_its_pods() {
    let mut c = cluster();
    let d = deployment(&mut c, "web");
    let rs = owned(
        &mut c,
        REPLICASETS,
        "web-5d8f",
        vec![owner("Deployment", &d)],
        json!({}),
    );
    let spec = json!({"nodeName": "node-1", "terminationGracePeriodSeconds": 20});
    owned(
        &mut c,
        PODS,
        "web-5d8f-a",
        vec![owner("ReplicaSet", &rs)],
        spec,
    );
    owned(
        &mut c,
        PODS,
        "web-5d8f-b",
        vec![owner("ReplicaSet", &rs)],
        json!({}),
    );
    let other = deployment(&mut c, "api");
    owned(
        &mut c,
        REPLICASETS,
        "api-77c4",
        vec![owner("Deployment", &other)],
        json!({}),
    );
    let rv = c.resource_version();
    let from = format!("?watch=true&resourceVersion={rv}");
    let deploys = watch(&mut c, &format!("/apis/apps/v1/deployments{from}"), 0);
    let sets = watch(&mut c, &format!("/apis/apps/v1/replicasets{from}"), 0);
    let pods = watch(&mut c, &format!("/api/v1/pods{from}"), 0);

    let gone = c.delete(DEPLOYMENTS, "ns", "web", 1_000).unwrap();
    assert_eq!(
        summary(&events(&mut c, deploys, 1_000)),
        [("DELETED".into(), "web".into(), gone.resource_version, false)]
    );
    // The collector acts on the owner's removal a moment later, not in the same write.
    assert!(events(&mut c, sets, 1_000 + GC_DELAY_MS - 1).is_empty());
    assert_eq!(c.names(REPLICASETS).len(), 2);

    let t = 1_000 + GC_DELAY_MS;
    assert_eq!(
        summary(&events(&mut c, sets, t)),
        [(
            "DELETED".into(),
            "web-5d8f".into(),
            gone.resource_version + 1,
            false
        )]
    );
    assert!(
        events(&mut c, pods, t).is_empty(),
        "pods wait for their own owner's removal"
    );

    let t = t + GC_DELAY_MS;
    assert_eq!(
        summary(&events(&mut c, pods, t)),
        [
            (
                "MODIFIED".into(),
                "web-5d8f-a".into(),
                gone.resource_version + 2,
                true
            ),
            (
                "DELETED".into(),
                "web-5d8f-b".into(),
                gone.resource_version + 3,
                false
            ),
        ]
    );
    let terminating = c.get_value(PODS, "ns", "web-5d8f-a").unwrap();
    assert_eq!(terminating["metadata"]["deletionGracePeriodSeconds"], 20);

    assert!(events(&mut c, pods, t + 19_999).is_empty());
    assert_eq!(
        summary(&events(&mut c, pods, t + 20_000)),
        [(
            "DELETED".into(),
            "web-5d8f-a".into(),
            gone.resource_version + 4,
            true
        )]
    );
    // What the other Deployment owns stays.
    assert_eq!(c.names(REPLICASETS), [("ns".into(), "api-77c4".into())]);
    assert_eq!(c.names(DEPLOYMENTS), [("ns".into(), "api".into())]);
}

/// A dependent with an owner that still exists is not deleted: the reference to the owner
/// that went is removed from it (MODIFIED). When its last owner goes, it is deleted.
#[test]
fn a_dependent_with_another_owner_loses_only_the_dangling_reference() {
    let mut c = cluster();
    let a = deployment(&mut c, "a");
    let b = deployment(&mut c, "b");
    owned(
        &mut c,
        CONFIGMAPS,
        "shared",
        vec![owner("Deployment", &a), owner("Deployment", &b)],
        json!({}),
    );
    c.delete(DEPLOYMENTS, "ns", "a", 10).unwrap();
    c.advance(10 + GC_DELAY_MS);
    let cm = c.get_value(CONFIGMAPS, "ns", "shared").unwrap();
    let refs = cm["metadata"]["ownerReferences"].as_array().unwrap();
    assert_eq!(refs.len(), 1);
    assert_eq!(refs[0]["uid"], b.uid.as_str());

    c.delete(DEPLOYMENTS, "ns", "b", 1_000).unwrap();
    c.advance(1_000 + GC_DELAY_MS);
    assert!(c.get_value(CONFIGMAPS, "ns", "shared").is_none());
}

/// Owners are matched by uid: an owner deleted and created again under its name is a
/// different object, so what the old one owned is collected.
#[test]
fn a_recreated_owner_does_not_keep_the_old_ones_dependents() {
    let mut c = cluster();
    let d = deployment(&mut c, "web");
    owned(
        &mut c,
        REPLICASETS,
        "web-1",
        vec![owner("Deployment", &d)],
        json!({}),
    );
    let again = c.recreate(DEPLOYMENTS, "ns", "web", 10).unwrap();
    assert_ne!(again.uid, d.uid);
    c.advance(10 + GC_DELAY_MS);
    let list = json_of(&get(&mut c, "/apis/apps/v1/namespaces/ns/replicasets", 200));
    assert_eq!(list["items"], json!([]));
    assert!(c.get_value(DEPLOYMENTS, "ns", "web").is_some());
}

/// An object nobody owns, or whose owners all stay, is never touched.
#[test]
fn deleting_what_owns_nothing_changes_nothing_else() {
    let mut c = cluster();
    let d = deployment(&mut c, "web");
    owned(
        &mut c,
        REPLICASETS,
        "web-1",
        vec![owner("Deployment", &d)],
        json!({}),
    );
    owned(&mut c, PODS, "loner", vec![], json!({"nodeName": "node-1"}));
    let rv = c.resource_version();
    c.delete(PODS, "ns", "loner", 10).unwrap();
    c.advance(10_000);
    assert_eq!(c.resource_version(), rv + 1);
}

/// The workload's pods (compact ones) are collected with their ReplicaSet, and the
/// Deployment's deletion reaches them through it; the other Deployments' pods stay.
#[test]
fn the_workloads_pods_are_collected_with_their_deployment() {
    let mut c = cluster();
    let mut w = Workload::new(
        3,
        WorkloadConfig {
            namespaces: 1,
            pods: 30,
            churn_per_sec: 0.0,
        },
    );
    w.populate(&mut c, 0);
    let of = |c: &Cluster, app: &str| {
        c.names(PODS)
            .into_iter()
            .filter(|(_, n)| n.starts_with(&format!("{app}-")))
            .count()
    };
    assert_eq!((of(&c, "app-0"), of(&c, "app-1")), (10, 10));
    c.delete(DEPLOYMENTS, "ns-0", "app-0", 1_000).unwrap();
    c.advance(1_000 + 2 * GC_DELAY_MS);
    let rs: Vec<_> = c.names(REPLICASETS).into_iter().map(|(_, n)| n).collect();
    assert_eq!(rs.len(), 2);
    assert!(rs.iter().all(|n| !n.starts_with("app-0-")));
    let names = c.names(PODS);
    let terminating = names
        .iter()
        .filter(|(ns, n)| {
            c.get_value(PODS, ns, n).unwrap()["metadata"]["deletionTimestamp"].is_string()
        })
        .count();
    assert_eq!(terminating, 10);
    c.advance(1_000 + 2 * GC_DELAY_MS + 30_000);
    assert_eq!(
        (of(&c, "app-0"), of(&c, "app-1"), of(&c, "app-2")),
        (0, 10, 10)
    );
}

/// A custom resource that owns built-in kinds: each of the workload's widgets is the
/// controller of its namespace's first Deployment (uid, controller and
/// blockOwnerDeletion, as an operator sets them), and deleting the widget collects the
/// Deployment, then its ReplicaSet and pods, while a Deployment no widget owns stays.
#[test]
fn a_widgets_deployment_and_its_pods_are_collected_with_the_widget() {
    let mut c = cluster();
    let mut w = Workload::new(
        3,
        WorkloadConfig {
            namespaces: 2,
            pods: 40,
            churn_per_sec: 0.0,
        },
    );
    w.populate(&mut c, 0);
    let widget = c.get_value(WIDGETS, "ns-0", "widget-0").unwrap();
    let app0 = c.get_value(DEPLOYMENTS, "ns-0", "app-0").unwrap();
    assert_eq!(
        app0["metadata"]["ownerReferences"],
        json!([{"apiVersion": "kubelive.dev/v1", "kind": "Widget", "name": "widget-0",
                "uid": widget["metadata"]["uid"], "controller": true, "blockOwnerDeletion": true}])
    );
    assert_eq!(
        app0["metadata"]["managedFields"][0]["manager"],
        "widget-operator"
    );
    // app-2 is the namespace's second Deployment: nobody's.
    let app2 = c.get_value(DEPLOYMENTS, "ns-0", "app-2").unwrap();
    assert!(app2["metadata"].get("ownerReferences").is_none());
    let pods_of = |c: &Cluster, app: &str| {
        c.names(PODS)
            .into_iter()
            .filter(|(_, n)| n.starts_with(&format!("{app}-")))
            .count()
    };
    assert_eq!(pods_of(&c, "app-0"), 10);
    c.delete(WIDGETS, "ns-0", "widget-0", 1_000).unwrap();
    c.advance(1_000 + 3 * GC_DELAY_MS + 30_000);
    assert!(c.get_value(DEPLOYMENTS, "ns-0", "app-0").is_none());
    assert!(c
        .names(REPLICASETS)
        .iter()
        .all(|(_, n)| !n.starts_with("app-0-")));
    assert_eq!((pods_of(&c, "app-0"), pods_of(&c, "app-2")), (0, 10));
    assert!(c.get_value(DEPLOYMENTS, "ns-0", "app-2").is_some());
}
