//! The owner join ([`kubelive_core::Owners`]) fed by real engines, one per kind, in
//! table mode as a view runs them: each kind's LIST and WATCH answers are written by
//! the sim's printers (kube-apiserver's Table bytes), every event the engines emit goes
//! to the join, and the tree below a root is compared as text.

mod support;

use kubelive_core::owners::{Absence, NodeRef};
use kubelive_core::{
    Collection, Config, Engine, Event, IncludeObject, Instant, Owners, RequestId, SourceId,
};
use kubelive_sim::printers::{IncludeObject as Rows, WatchTableEncoder};
use std::fmt::Write;
use support::Printer;

const T: Instant = Instant::ZERO;
const CREATED: &str = "2026-11-29T10:00:00Z";

/// One kind: its engine, its printer and the watch it holds open.
struct Kind {
    engine: Engine,
    source: SourceId,
    printer: Printer,
    watch: Option<(RequestId, WatchTableEncoder)>,
    list: Option<RequestId>,
}

struct Cluster {
    kinds: Vec<Kind>,
    owners: Owners,
}

const DEPLOY: usize = 0;
const RS: usize = 1;
const POD: usize = 2;
const CRONJOB: usize = 3;
const JOB: usize = 4;
const STS: usize = 5;
const PVC: usize = 6;

impl Cluster {
    fn new() -> Cluster {
        let mut owners = Owners::new();
        let kinds = [
            ("apps", "Deployment", "/apis/apps/v1/deployments"),
            ("apps", "ReplicaSet", "/apis/apps/v1/replicasets"),
            ("", "Pod", "/api/v1/pods"),
            ("batch", "CronJob", "/apis/batch/v1/cronjobs"),
            ("batch", "Job", "/apis/batch/v1/jobs"),
            ("apps", "StatefulSet", "/apis/apps/v1/statefulsets"),
            (
                "",
                "PersistentVolumeClaim",
                "/api/v1/persistentvolumeclaims",
            ),
        ]
        .into_iter()
        .map(|(group, kind, path)| {
            let mut config =
                Config::new(Collection::parse(path).unwrap()).tables(IncludeObject::Metadata);
            config.seed = 1;
            config.pipeline_pages = false;
            Kind {
                engine: Engine::new(config, T),
                source: owners.add_source(group, kind),
                printer: Printer::new(group, kind, Rows::Metadata),
                watch: None,
                list: None,
            }
        })
        .collect();
        let mut c = Cluster { kinds, owners };
        for k in 0..c.kinds.len() {
            c.drain(k);
        }
        c
    }

    /// The draining rule, with every event given to the join.
    fn drain(&mut self, k: usize) {
        let kind = &mut self.kinds[k];
        while kind.engine.poll_cancel().is_some() {}
        while let Some(ev) = kind.engine.poll_event() {
            if let Event::Failed { error } = &ev {
                self.owners
                    .set_unavailable(kind.source, Some(error.message.as_str()));
            }
            self.owners.apply(kind.source, &ev);
        }
        while let Some(req) = kind.engine.poll_request() {
            if req.path.contains("watch=") {
                kind.watch = Some((req.id, WatchTableEncoder::new(kind.printer.format)));
            } else {
                kind.list = Some(req.id);
            }
        }
    }

    /// Answers kind `k`'s LIST with `objects` at `rv`; its watch starts.
    fn list(&mut self, k: usize, rv: u64, objects: &[String]) {
        let id = self.kinds[k].list.take().expect("a LIST asked for");
        let body = self.kinds[k].printer.list(rv, "", None, objects);
        let e = &mut self.kinds[k].engine;
        e.handle_response(id, 200, &[("Content-Type", "application/json")], T);
        e.handle_body(id, body.as_bytes(), T);
        e.handle_end(id, T);
        self.drain(k);
        let (id, _) = self.kinds[k]
            .watch
            .as_ref()
            .expect("a watch after the list");
        let id = *id;
        self.kinds[k]
            .engine
            .handle_response(id, 200, &[("Content-Type", "application/json")], T);
        self.drain(k);
    }

    /// Kind `k`'s LIST is refused (403): the engine fails and the join is told.
    fn forbid(&mut self, k: usize, resource: &str) {
        let id = self.kinds[k].list.take().expect("a LIST asked for");
        let body = format!(
            r#"{{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":"{resource} is forbidden: User \"dev\" cannot list resource \"{resource}\" in API group \"apps\" at the cluster scope","reason":"Forbidden","details":{{"kind":"{resource}"}},"code":403}}"#
        );
        let e = &mut self.kinds[k].engine;
        e.handle_response(id, 403, &[("Content-Type", "application/json")], T);
        e.handle_body(id, body.as_bytes(), T);
        e.handle_end(id, T);
        self.drain(k);
    }

    /// One watch event of kind `k`.
    fn event(&mut self, k: usize, event_type: &str, object: &str) {
        let kind = &mut self.kinds[k];
        let (id, enc) = kind.watch.as_mut().expect("a watch");
        let conv = &kind.printer.convertor;
        let row = conv.row_from_json(object).unwrap();
        let mut line = String::new();
        enc.write_event(&mut line, conv, event_type, &row, object, support::now_ms())
            .unwrap();
        let id = *id;
        kind.engine.handle_body(id, line.as_bytes(), T);
        self.drain(k);
    }

    /// Kind `k`'s watch is too old (410): the engine lists again.
    fn expire(&mut self, k: usize) {
        let kind = &mut self.kinds[k];
        let (id, enc) = kind.watch.as_mut().expect("a watch");
        let mut line = String::new();
        enc.write_error(
            &mut line,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (50)","reason":"Expired","code":410}"#,
        );
        let id = *id;
        kind.engine.handle_body(id, line.as_bytes(), T);
        self.drain(k);
    }

    /// The tree below the object `uid` as text: one line per node, indented by depth:
    /// `Kind/name own>rolled`, an absent one with why, a missing level with why.
    fn tree(&self, uid: &str) -> String {
        let Some(root) = self.owners.get(uid) else {
            return format!("no node {uid}\n");
        };
        let mut out = String::new();
        root.walk(|n: NodeRef<'_>, depth| {
            let pad = "  ".repeat(depth);
            match n.absence() {
                Some(a) => writeln!(out, "{pad}{}/{} absent: {a:?}", n.kind(), n.name()),
                None => writeln!(
                    out,
                    "{pad}{}/{} {:?}>{:?}",
                    n.kind(),
                    n.name(),
                    n.health(),
                    n.rolled_health()
                ),
            }
            .unwrap();
            for m in n.missing_below() {
                writeln!(out, "{pad}  {} missing: {}", m.kind, m.why).unwrap();
            }
        });
        out
    }
}

fn owner_ref(api_version: &str, kind: &str, name: &str, uid: &str) -> String {
    format!(
        r#"[{{"apiVersion":"{api_version}","kind":"{kind}","name":"{name}","uid":"{uid}","controller":true,"blockOwnerDeletion":true}}]"#
    )
}

fn meta(name: &str, uid: &str, rv: u64, owners: Option<String>) -> String {
    let owners = owners
        .map(|o| format!(r#","ownerReferences":{o}"#))
        .unwrap_or_default();
    format!(
        r#""metadata":{{"name":"{name}","namespace":"ns","uid":"{uid}","resourceVersion":"{rv}","creationTimestamp":"{CREATED}"{owners}}}"#
    )
}

fn deployment(name: &str, uid: &str, rv: u64, replicas: u32, ready: u32) -> String {
    format!(
        r#"{{"kind":"Deployment","apiVersion":"apps/v1",{},"spec":{{"replicas":{replicas},"selector":{{"matchLabels":{{"app":"{name}"}}}},"template":{{"metadata":{{"labels":{{"app":"{name}"}}}},"spec":{{"containers":[{{"name":"c","image":"nginx"}}]}}}}}},"status":{{"replicas":{replicas},"readyReplicas":{ready},"updatedReplicas":{replicas},"availableReplicas":{ready}}}}}"#,
        meta(name, uid, rv, None)
    )
}

fn replica_set(
    name: &str,
    uid: &str,
    rv: u64,
    owner: (&str, &str),
    replicas: u32,
    ready: u32,
) -> String {
    format!(
        r#"{{"kind":"ReplicaSet","apiVersion":"apps/v1",{},"spec":{{"replicas":{replicas},"selector":{{"matchLabels":{{"app":"web"}}}},"template":{{"metadata":{{"labels":{{"app":"web"}}}},"spec":{{"containers":[{{"name":"c","image":"nginx"}}]}}}}}},"status":{{"replicas":{replicas},"readyReplicas":{ready},"availableReplicas":{ready}}}}}"#,
        meta(
            name,
            uid,
            rv,
            Some(owner_ref("apps/v1", "Deployment", owner.0, owner.1))
        )
    )
}

/// A pod owned by `owner` (api version, kind, name, uid); `state`: `running`,
/// `crash` (CrashLoopBackOff), `pending`, `done` (Succeeded).
fn pod(name: &str, uid: &str, rv: u64, owner: (&str, &str, &str, &str), state: &str) -> String {
    let status = match state {
        "running" => {
            r#"{"phase":"Running","containerStatuses":[{"name":"c","ready":true,"restartCount":0,"state":{"running":{"startedAt":"2026-11-29T10:00:00Z"}}}]}"#
        }
        "crash" => {
            r#"{"phase":"Running","containerStatuses":[{"name":"c","ready":false,"restartCount":5,"state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}"#
        }
        "done" => {
            r#"{"phase":"Succeeded","containerStatuses":[{"name":"c","ready":false,"restartCount":0,"state":{"terminated":{"reason":"Completed","exitCode":0}}}]}"#
        }
        _ => r#"{"phase":"Pending"}"#,
    };
    format!(
        r#"{{"kind":"Pod","apiVersion":"v1",{},"spec":{{"nodeName":"node-1","containers":[{{"name":"c","image":"nginx"}}]}},"status":{status}}}"#,
        meta(
            name,
            uid,
            rv,
            Some(owner_ref(owner.0, owner.1, owner.2, owner.3))
        )
    )
}

fn cronjob(name: &str, uid: &str, rv: u64) -> String {
    format!(
        r#"{{"kind":"CronJob","apiVersion":"batch/v1",{},"spec":{{"schedule":"* * * * *","jobTemplate":{{"spec":{{"template":{{"spec":{{"containers":[{{"name":"c","image":"busybox"}}]}}}}}}}}}},"status":{{}}}}"#,
        meta(name, uid, rv, None)
    )
}

fn job(name: &str, uid: &str, rv: u64, owner: (&str, &str), done: bool) -> String {
    let status = if done {
        r#"{"succeeded":1,"startTime":"2026-11-29T10:00:00Z","completionTime":"2026-11-29T10:00:10Z","conditions":[{"type":"Complete","status":"True"}]}"#
    } else {
        r#"{"active":1,"startTime":"2026-11-29T10:00:00Z"}"#
    };
    format!(
        r#"{{"kind":"Job","apiVersion":"batch/v1",{},"spec":{{"completions":1,"parallelism":1,"template":{{"spec":{{"containers":[{{"name":"c","image":"busybox"}}]}}}}}},"status":{status}}}"#,
        meta(
            name,
            uid,
            rv,
            Some(owner_ref("batch/v1", "CronJob", owner.0, owner.1))
        )
    )
}

fn statefulset(name: &str, uid: &str, rv: u64, replicas: u32, ready: u32) -> String {
    format!(
        r#"{{"kind":"StatefulSet","apiVersion":"apps/v1",{},"spec":{{"replicas":{replicas},"serviceName":"{name}","selector":{{"matchLabels":{{"app":"{name}"}}}},"template":{{"spec":{{"containers":[{{"name":"c","image":"nginx"}}]}}}}}},"status":{{"replicas":{replicas},"readyReplicas":{ready}}}}}"#,
        meta(name, uid, rv, None)
    )
}

fn claim(name: &str, uid: &str, rv: u64, owner: (&str, &str)) -> String {
    format!(
        r#"{{"kind":"PersistentVolumeClaim","apiVersion":"v1",{},"spec":{{"accessModes":["ReadWriteOnce"],"resources":{{"requests":{{"storage":"1Gi"}}}},"volumeName":"pvc-{uid}"}},"status":{{"phase":"Bound","accessModes":["ReadWriteOnce"],"capacity":{{"storage":"1Gi"}}}}}}"#,
        meta(
            name,
            uid,
            rv,
            Some(owner_ref("apps/v1", "StatefulSet", owner.0, owner.1))
        )
    )
}

const RS_OWNER: (&str, &str, &str, &str) = ("apps/v1", "ReplicaSet", "web-1", "rs-1");

/// Deployment -> ReplicaSet -> Pods, listed in any order; one pod crash-loops and the
/// Deployment rolls up Bad; when it runs again, Ok.
#[test]
fn deployment_replicaset_pods_and_roll_up() {
    let mut c = Cluster::new();
    // Pods first: their ReplicaSet is awaited until its kind is listed.
    c.list(
        POD,
        10,
        &[
            pod("web-1-a", "p-a", 3, RS_OWNER, "running"),
            pod("web-1-b", "p-b", 4, RS_OWNER, "running"),
        ],
    );
    assert_eq!(
        c.tree("rs-1"),
        "ReplicaSet/web-1 absent: NotSeen\n  Pod/web-1-a Ok>Ok\n  Pod/web-1-b Ok>Ok\n"
    );
    c.list(
        RS,
        10,
        &[replica_set("web-1", "rs-1", 2, ("web", "d-1"), 2, 2)],
    );
    c.list(DEPLOY, 10, &[deployment("web", "d-1", 1, 2, 2)]);
    assert_eq!(
        c.tree("d-1"),
        "Deployment/web Ok>Ok\n  ReplicaSet/web-1 Ok>Ok\n    Pod/web-1-a Ok>Ok\n    Pod/web-1-b Ok>Ok\n"
    );
    c.event(
        POD,
        "MODIFIED",
        &pod("web-1-b", "p-b", 11, RS_OWNER, "crash"),
    );
    assert_eq!(
        c.tree("d-1"),
        "Deployment/web Ok>Bad\n  ReplicaSet/web-1 Ok>Bad\n    Pod/web-1-a Ok>Ok\n    Pod/web-1-b Bad>Bad\n"
    );
    c.event(
        RS,
        "MODIFIED",
        &replica_set("web-1", "rs-1", 12, ("web", "d-1"), 2, 1),
    );
    c.event(DEPLOY, "MODIFIED", &deployment("web", "d-1", 13, 2, 1));
    assert_eq!(
        c.tree("d-1"),
        "Deployment/web Progressing>Bad\n  ReplicaSet/web-1 Progressing>Bad\n    Pod/web-1-a Ok>Ok\n    Pod/web-1-b Bad>Bad\n"
    );
    c.event(
        POD,
        "MODIFIED",
        &pod("web-1-b", "p-b", 14, RS_OWNER, "running"),
    );
    c.event(
        RS,
        "MODIFIED",
        &replica_set("web-1", "rs-1", 15, ("web", "d-1"), 2, 2),
    );
    c.event(DEPLOY, "MODIFIED", &deployment("web", "d-1", 16, 2, 2));
    assert_eq!(
        c.tree("d-1"),
        "Deployment/web Ok>Ok\n  ReplicaSet/web-1 Ok>Ok\n    Pod/web-1-a Ok>Ok\n    Pod/web-1-b Ok>Ok\n"
    );
    let pod_b = c.owners.get("p-b").unwrap();
    let up: Vec<String> = pod_b
        .ancestors()
        .iter()
        .map(|n| format!("{}/{}", n.kind(), n.name()))
        .collect();
    assert_eq!(up, ["ReplicaSet/web-1", "Deployment/web"]);
    let roots: Vec<&str> = c
        .owners
        .roots(c.kinds[DEPLOY].source)
        .map(|n| n.name())
        .collect();
    assert_eq!(roots, ["web"]);
    assert_eq!(c.owners.len(), 4);
}

/// A rollout: a new ReplicaSet comes, pods move to it (the old ones deleted, new ones
/// made) and the old ReplicaSet stays, scaled to zero. A pod adopted by another owner
/// (ownerReferences changed in place) moves in the tree.
#[test]
fn rollout_and_re_parenting() {
    let mut c = Cluster::new();
    c.list(DEPLOY, 10, &[deployment("web", "d-1", 1, 1, 1)]);
    c.list(
        RS,
        10,
        &[replica_set("web-1", "rs-1", 2, ("web", "d-1"), 1, 1)],
    );
    c.list(POD, 10, &[pod("web-1-a", "p-a", 3, RS_OWNER, "running")]);
    c.event(
        RS,
        "ADDED",
        &replica_set("web-2", "rs-2", 11, ("web", "d-1"), 1, 0),
    );
    let rs2 = ("apps/v1", "ReplicaSet", "web-2", "rs-2");
    c.event(POD, "ADDED", &pod("web-2-x", "p-x", 12, rs2, "pending"));
    assert_eq!(
        c.tree("d-1"),
        "Deployment/web Ok>Progressing\n  ReplicaSet/web-1 Ok>Ok\n    Pod/web-1-a Ok>Ok\n  ReplicaSet/web-2 Progressing>Progressing\n    Pod/web-2-x Progressing>Progressing\n"
    );
    c.event(POD, "MODIFIED", &pod("web-2-x", "p-x", 13, rs2, "running"));
    c.event(
        RS,
        "MODIFIED",
        &replica_set("web-2", "rs-2", 14, ("web", "d-1"), 1, 1),
    );
    c.event(
        RS,
        "MODIFIED",
        &replica_set("web-1", "rs-1", 15, ("web", "d-1"), 0, 0),
    );
    c.event(
        POD,
        "DELETED",
        &pod("web-1-a", "p-a", 16, RS_OWNER, "running"),
    );
    assert_eq!(
        c.tree("d-1"),
        "Deployment/web Ok>Ok\n  ReplicaSet/web-1 Ok>Ok\n  ReplicaSet/web-2 Ok>Ok\n    Pod/web-2-x Ok>Ok\n"
    );
    // The same pod now names the old ReplicaSet (re-parented in place).
    c.event(
        POD,
        "MODIFIED",
        &pod("web-2-x", "p-x", 17, RS_OWNER, "crash"),
    );
    assert_eq!(
        c.tree("d-1"),
        "Deployment/web Ok>Bad\n  ReplicaSet/web-1 Ok>Bad\n    Pod/web-2-x Bad>Bad\n  ReplicaSet/web-2 Ok>Ok\n"
    );
}

/// CronJob -> Job -> Pod; a finished pod (0/1 ready, Completed) is Ok, and so is its Job.
#[test]
fn cronjob_job_pods() {
    let mut c = Cluster::new();
    c.list(CRONJOB, 10, &[cronjob("nightly", "cj-1", 1)]);
    c.list(
        JOB,
        10,
        &[
            job("nightly-100", "j-1", 2, ("nightly", "cj-1"), true),
            job("nightly-101", "j-2", 3, ("nightly", "cj-1"), false),
        ],
    );
    c.list(
        POD,
        10,
        &[
            pod(
                "nightly-100-a",
                "p-1",
                4,
                ("batch/v1", "Job", "nightly-100", "j-1"),
                "done",
            ),
            pod(
                "nightly-101-a",
                "p-2",
                5,
                ("batch/v1", "Job", "nightly-101", "j-2"),
                "running",
            ),
        ],
    );
    assert_eq!(
        c.tree("cj-1"),
        "CronJob/nightly Unknown>Ok\n  Job/nightly-100 Ok>Ok\n    Pod/nightly-100-a Ok>Ok\n  Job/nightly-101 Ok>Ok\n    Pod/nightly-101-a Ok>Ok\n"
    );
}

/// StatefulSet -> Pods and PVCs; the set deleted, its claims (retained: no owner
/// reference in the sim's default, but here owned) wait for it as an absent owner.
#[test]
fn statefulset_pods_and_claims_then_owner_deleted() {
    let mut c = Cluster::new();
    let sts = ("apps/v1", "StatefulSet", "db", "s-1");
    c.list(STS, 10, &[statefulset("db", "s-1", 1, 2, 1)]);
    c.list(
        POD,
        10,
        &[
            pod("db-0", "p-0", 2, sts, "running"),
            pod("db-1", "p-1", 3, sts, "pending"),
        ],
    );
    c.list(
        PVC,
        10,
        &[
            claim("data-db-0", "c-0", 4, ("db", "s-1")),
            claim("data-db-1", "c-1", 5, ("db", "s-1")),
        ],
    );
    assert_eq!(
        c.tree("s-1"),
        "StatefulSet/db Progressing>Progressing\n  PersistentVolumeClaim/data-db-0 Ok>Ok\n  PersistentVolumeClaim/data-db-1 Ok>Ok\n  Pod/db-0 Ok>Ok\n  Pod/db-1 Progressing>Progressing\n"
    );
    c.event(STS, "DELETED", &statefulset("db", "s-1", 11, 2, 1));
    assert_eq!(
        c.tree("s-1"),
        "StatefulSet/db absent: NotSeen\n  PersistentVolumeClaim/data-db-0 Ok>Ok\n  PersistentVolumeClaim/data-db-1 Ok>Ok\n  Pod/db-0 Ok>Ok\n  Pod/db-1 Progressing>Progressing\n"
    );
    // The garbage collector deletes the dependents: the absent owner goes with the last.
    for (k, o) in [
        (POD, pod("db-0", "p-0", 12, sts, "running")),
        (POD, pod("db-1", "p-1", 13, sts, "pending")),
        (PVC, claim("data-db-0", "c-0", 14, ("db", "s-1"))),
        (PVC, claim("data-db-1", "c-1", 15, ("db", "s-1"))),
    ] {
        c.event(k, "DELETED", &o);
    }
    assert_eq!(c.tree("s-1"), "no node s-1\n");
    assert!(c.owners.is_empty());
}

/// A relist (410) that no longer holds a pod deletes it from the join (the engine's
/// synthesized DELETED), and one that brings a pod with another owner moves it.
#[test]
fn relist_deletes_and_moves() {
    let mut c = Cluster::new();
    c.list(DEPLOY, 10, &[deployment("web", "d-1", 1, 2, 2)]);
    c.list(
        RS,
        10,
        &[replica_set("web-1", "rs-1", 2, ("web", "d-1"), 2, 2)],
    );
    c.list(
        POD,
        10,
        &[
            pod("web-1-a", "p-a", 3, RS_OWNER, "running"),
            pod("web-1-b", "p-b", 4, RS_OWNER, "running"),
        ],
    );
    c.event(
        RS,
        "ADDED",
        &replica_set("web-2", "rs-2", 11, ("web", "d-1"), 1, 1),
    );
    c.expire(POD);
    let rs2 = ("apps/v1", "ReplicaSet", "web-2", "rs-2");
    c.list(
        POD,
        20,
        &[
            pod("web-1-b", "p-b", 19, rs2, "running"),
            pod("web-2-c", "p-c", 18, rs2, "crash"),
        ],
    );
    assert_eq!(
        c.tree("d-1"),
        "Deployment/web Ok>Bad\n  ReplicaSet/web-1 Ok>Ok\n  ReplicaSet/web-2 Ok>Bad\n    Pod/web-1-b Ok>Ok\n    Pod/web-2-c Bad>Bad\n"
    );
    assert!(c.owners.get("p-a").is_none(), "the relist deleted it");
}

/// A kind the user may not list: the level below its owner says why, and the pods'
/// owners are absent for the same reason.
#[test]
fn forbidden_kind_is_a_missing_level() {
    let mut c = Cluster::new();
    c.list(DEPLOY, 10, &[deployment("web", "d-1", 1, 1, 1)]);
    c.forbid(RS, "replicasets");
    c.list(POD, 10, &[pod("web-1-a", "p-a", 3, RS_OWNER, "running")]);
    assert_eq!(
        c.tree("d-1"),
        "Deployment/web Ok>Ok\n  ReplicaSet missing: replicasets is forbidden: User \"dev\" cannot list resource \"replicasets\" in API group \"apps\" at the cluster scope\n"
    );
    let rs = c.owners.get("rs-1").unwrap();
    assert!(matches!(rs.absence(), Some(Absence::Unavailable(why)) if why.contains("forbidden")));
}

/// Owner references that form a cycle, or name the object itself, neither hang nor
/// repeat a node.
#[test]
fn cycles_end() {
    let mut c = Cluster::new();
    c.list(RS, 10, &[]);
    let a = format!(
        r#"{{"kind":"Pod","apiVersion":"v1",{},"spec":{{"containers":[]}},"status":{{"phase":"Failed"}}}}"#,
        meta("a", "u-a", 1, Some(r#"[{"apiVersion":"v1","kind":"Pod","name":"b","uid":"u-b"},{"apiVersion":"v1","kind":"Pod","name":"a","uid":"u-a"}]"#.into()))
    );
    let b = format!(
        r#"{{"kind":"Pod","apiVersion":"v1",{},"spec":{{"containers":[]}},"status":{{"phase":"Running"}}}}"#,
        meta(
            "b",
            "u-b",
            2,
            Some(r#"[{"apiVersion":"v1","kind":"Pod","name":"a","uid":"u-a"}]"#.into())
        )
    );
    c.list(POD, 10, &[a, b]);
    assert_eq!(c.tree("u-a"), "Pod/a Bad>Bad\n  Pod/b Ok>Bad\n");
    assert_eq!(c.owners.get("u-a").unwrap().ancestors().len(), 1);
}

/// What the join costs per object, beyond the objects it shares with the stores:
/// 10,000 pods under 1,000 ReplicaSets.
#[test]
fn bytes_per_object() {
    let mut owners = Owners::new();
    let rs = owners.add_source("apps", "ReplicaSet");
    let pods = owners.add_source("", "Pod");
    let opts = kubelive_core::ParseOptions::default();
    for r in 0..1_000 {
        let o = kubelive_core::Object::parse(
            replica_set(
                &format!("rs-{r}"),
                &format!("rs-uid-{r:032}"),
                1,
                ("d", "d-uid"),
                10,
                10,
            )
            .as_bytes(),
            &opts,
        )
        .unwrap();
        owners.apply(rs, &Event::Added(o.into()));
        for p in 0..10 {
            let owner = format!("rs-uid-{r:032}");
            let o = kubelive_core::Object::parse(
                pod(
                    &format!("p-{r}-{p}"),
                    &format!("pod-uid-{r}-{p:028}"),
                    1,
                    ("apps/v1", "ReplicaSet", "rs", &owner),
                    "running",
                )
                .as_bytes(),
                &opts,
            )
            .unwrap();
            owners.apply(pods, &Event::Added(o.into()));
        }
    }
    assert_eq!(owners.len(), 11_000);
    // 11,000 objects and the Deployment they wait for; the slab and the table as
    // allocated (grown by doubling), the edges and the awaited owner's reference.
    let per_object = owners.heap_bytes() / 11_001;
    println!(
        "owner join: {per_object} bytes per object ({} in all; a node {} bytes)",
        owners.heap_bytes(),
        kubelive_core::owners::NODE_BYTES
    );
    assert!(per_object < 160, "{per_object} bytes per object");
}

/// Objects (a server that prints no tables): health from the fallback printer's
/// cells, so a crash-looping pod still rolls its owner up `Bad`.
#[test]
fn objects_have_fallback_health() {
    let mut owners = Owners::new();
    let rs = owners.add_source("apps", "ReplicaSet");
    let pods = owners.add_source("", "Pod");
    let pod_opts = kubelive_core::ParseOptions {
        columns: kubelive_core::ColumnKind::Pod,
        ..Default::default()
    };
    let parse = |json: String, opts: &kubelive_core::ParseOptions| {
        std::sync::Arc::new(kubelive_core::Object::parse(json.as_bytes(), opts).unwrap())
    };
    owners.apply(
        rs,
        &Event::Added(parse(
            replica_set("web-1", "rs-1", 1, ("web", "d-1"), 1, 0),
            &Default::default(),
        )),
    );
    owners.apply(
        pods,
        &Event::Added(parse(
            pod("web-1-a", "p-a", 2, RS_OWNER, "crash"),
            &pod_opts,
        )),
    );
    let p = owners.get("p-a").unwrap();
    assert_eq!(p.health(), kubelive_core::Health::Bad);
    assert_eq!(
        owners.get("rs-1").unwrap().rolled_health(),
        kubelive_core::Health::Bad
    );
}

/// `KeptMetadata::Owners` keeps a row's identity members and its ownerReferences, and
/// nothing else of its metadata: what the join reads, at a fraction of a row's bytes.
#[test]
fn owners_metadata_keeps_owner_references_only() {
    use kubelive_core::decode::ListDecoder;
    use kubelive_core::{KeptMetadata, Limits, ParseOptions};
    let docs: Vec<String> = (0..200).map(|i| kubelive_sim::pod_json(42, i)).collect();
    let body = Printer::new("", "Pod", Rows::Metadata).list(10, "", None, &docs);
    let rows = |metadata| {
        let mut d = ListDecoder::new(
            Limits::default(),
            ParseOptions {
                metadata,
                strip_managed_fields: true,
                ..Default::default()
            },
        );
        let mut items = Vec::new();
        d.feed(body.as_bytes(), &mut items).unwrap();
        items
    };
    let (all, owners, identity) = (
        rows(KeptMetadata::All),
        rows(KeptMetadata::Owners),
        rows(KeptMetadata::Identity),
    );
    assert_eq!(owners.len(), 200);
    for (a, o) in all.iter().zip(&owners) {
        assert_eq!(
            kubelive_core::owners::owner_references(a),
            kubelive_core::owners::owner_references(o)
        );
        assert!(!kubelive_core::owners::owner_references(o).is_empty());
        assert_eq!(a.cells_json(), o.cells_json());
        assert_eq!(
            (a.uid(), a.name(), a.resource_version()),
            (o.uid(), o.name(), o.resource_version())
        );
        let v: serde_json::Value = serde_json::from_slice(&o.json()).unwrap();
        let mut keys: Vec<&str> = v["metadata"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "creationTimestamp",
                "name",
                "namespace",
                "ownerReferences",
                "resourceVersion",
                "uid"
            ]
        );
    }
    let bytes =
        |v: &[kubelive_core::Object]| v.iter().map(|o| o.heap_bytes()).sum::<usize>() / v.len();
    println!(
        "a pod row held: {} bytes with all metadata, {} with owners, {} with identity",
        bytes(&all),
        bytes(&owners),
        bytes(&identity)
    );
    assert!(bytes(&owners) < bytes(&all));
}

/// What a tree watches below a root: each kind its controller makes, and theirs, once;
/// never the root's own kind; below a custom resource, what operators usually make.
#[test]
fn the_kinds_below_a_root_are_its_controllers_kinds_and_theirs() {
    use kubelive_core::owners::{built_in, kinds_below, ANY_OWNER_MAKES};
    assert_eq!(
        kinds_below("apps", "Deployment"),
        vec![("", "Pod", "pods"), ("apps", "ReplicaSet", "replicasets")]
    );
    assert_eq!(
        kinds_below("batch", "CronJob"),
        vec![("", "Pod", "pods"), ("batch", "Job", "jobs")]
    );
    assert!(kinds_below("", "Pod").is_empty());
    assert!(built_in("networking.k8s.io") && !built_in("example.com"));
    let custom = kinds_below("example.com", "Widget");
    for k in ANY_OWNER_MAKES {
        assert!(custom.contains(k), "{k:?} in {custom:?}");
    }
    assert!(custom.contains(&("apps", "ReplicaSet", "replicasets")));
    assert!(custom.windows(2).all(|w| w[0] < w[1]), "sorted, each once");
}

/// The Ready and Status a tree's line shows, from the server's printed cells.
#[test]
fn a_lines_ready_and_status_come_from_the_printed_cells() {
    use kubelive_core::owners::{ready_text, status_text};
    use kubelive_core::{Cell, ColumnType, TableColumn};
    let col = |name: &str| TableColumn {
        name: name.into(),
        column_type: ColumnType::String,
        format: String::new(),
        description: String::new(),
        priority: 0,
    };
    let pod = [col("Name"), col("Ready"), col("Status")];
    let cells = [
        Cell::Str("web-1".into()),
        Cell::Str("1/2".into()),
        Cell::Str("Running".into()),
    ];
    assert_eq!(ready_text(&pod, &cells).as_deref(), Some("1/2"));
    assert_eq!(status_text(&pod, &cells).as_deref(), Some("Running"));
    let rs = [col("Name"), col("Desired"), col("Current"), col("Ready")];
    let cells = [
        Cell::Str("web-abc".into()),
        Cell::Int(3),
        Cell::Int(3),
        Cell::Int(2),
    ];
    assert_eq!(ready_text(&rs, &cells).as_deref(), Some("2/3"));
    assert_eq!(status_text(&rs, &cells), None);
}

/// Below a custom resource, whose operator may make any kind: the Deployment it
/// controls is its dependent, and a kind operators make that the user may not list
/// is a missing level with the server's words; a kind no operator makes is not.
#[test]
fn a_custom_resources_missing_levels_are_the_kinds_operators_make() {
    let mut owners = Owners::new();
    let widgets = owners.add_source("kubelive.dev", "Widget");
    let deployments = owners.add_source("apps", "Deployment");
    let configmaps = owners.add_source("", "ConfigMap");
    let leases = owners.add_source("coordination.k8s.io", "Lease");
    let opts = kubelive_core::ParseOptions::default();
    let parse = |json: String| kubelive_core::Object::parse(json.as_bytes(), &opts).unwrap();
    let widget = format!(
        r#"{{"kind":"Widget","apiVersion":"kubelive.dev/v1",{},"spec":{{}}}}"#,
        meta("w", "w-1", 1, None)
    );
    owners.apply(widgets, &Event::Added(parse(widget).into()));
    let d = format!(
        r#"{{"kind":"Deployment","apiVersion":"apps/v1",{},"spec":{{"replicas":1}},"status":{{}}}}"#,
        meta(
            "web",
            "d-1",
            2,
            Some(owner_ref("kubelive.dev/v1", "Widget", "w", "w-1"))
        )
    );
    owners.apply(deployments, &Event::Added(parse(d).into()));
    owners.set_unavailable(configmaps, Some("configmaps is forbidden"));
    owners.set_unavailable(leases, Some("leases is forbidden"));
    let root = owners.get("w-1").unwrap();
    let below: Vec<String> = root
        .dependents()
        .iter()
        .map(|n| format!("{}/{}", n.kind(), n.name()))
        .collect();
    assert_eq!(below, ["Deployment/web"]);
    let missing: Vec<(String, String)> = root
        .missing_below()
        .iter()
        .map(|m| (m.kind.to_string(), m.why.to_string()))
        .collect();
    assert_eq!(
        missing,
        [(
            "ConfigMap".to_string(),
            "configmaps is forbidden".to_string()
        )]
    );
    // A built-in kind's levels stay its controller's: a Deployment makes no ConfigMaps.
    assert!(owners.get("d-1").unwrap().missing_below().is_empty());
}
