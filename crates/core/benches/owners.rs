//! The owner join at the issue's scale: 100,000 pods in 5,000 Deployments (each with
//! its ReplicaSet and one older one scaled to zero), as Table rows kept with
//! `KeptMetadata::Owners`, printed by the sim's printers. Measures the join's cost per
//! event while it is built, the walk of one Deployment's tree (what a view renders),
//! a rollout's events (a new ReplicaSet, its pods added as the old ones go), and the
//! bytes the join holds per object.
//!
//! `cargo bench -p kubelive-core --bench owners`

#[path = "common/tables.rs"]
mod tables;

use kubelive_core::decode::ListDecoder;
use kubelive_core::{Event, KeptMetadata, Limits, Object, Owners, ParseOptions, SourceId};
use kubelive_sim::printers::{
    IncludeObject, ListMeta, TableConvertor, TableFormat, TableListWriter, TableVersion,
};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

const DEPLOYMENTS: usize = 5_000;
const PODS_EACH: usize = 20;
const CREATED: &str = "2026-11-29T10:00:00Z";

fn owner_ref(api: &str, kind: &str, name: &str, uid: &str) -> String {
    format!(
        r#"[{{"apiVersion":"{api}","kind":"{kind}","name":"{name}","uid":"{uid}","controller":true,"blockOwnerDeletion":true}}]"#
    )
}

fn meta(ns: &str, name: &str, uid: &str, owners: Option<String>) -> String {
    let owners = owners
        .map(|o| format!(r#","ownerReferences":{o}"#))
        .unwrap_or_default();
    format!(
        r#""metadata":{{"name":"{name}","namespace":"{ns}","uid":"{uid}","resourceVersion":"7","creationTimestamp":"{CREATED}","labels":{{"app":"{name}"}}{owners}}}"#
    )
}

fn uid(kind: char, d: usize, i: usize) -> String {
    format!("{kind}{d:07x}-0000-4000-8000-{i:012x}")
}

fn deployment(d: usize) -> String {
    format!(
        r#"{{"kind":"Deployment","apiVersion":"apps/v1",{},"spec":{{"replicas":{PODS_EACH}}},"status":{{"replicas":{PODS_EACH},"readyReplicas":{PODS_EACH},"updatedReplicas":{PODS_EACH},"availableReplicas":{PODS_EACH}}}}}"#,
        meta(
            &format!("ns-{}", d % 50),
            &format!("app-{d}"),
            &uid('d', d, 0),
            None
        )
    )
}

fn replica_set(d: usize, r: usize, replicas: usize) -> String {
    format!(
        r#"{{"kind":"ReplicaSet","apiVersion":"apps/v1",{},"spec":{{"replicas":{replicas}}},"status":{{"replicas":{replicas},"readyReplicas":{replicas},"availableReplicas":{replicas}}}}}"#,
        meta(
            &format!("ns-{}", d % 50),
            &format!("app-{d}-{r}"),
            &uid('r', d, r),
            Some(owner_ref(
                "apps/v1",
                "Deployment",
                &format!("app-{d}"),
                &uid('d', d, 0)
            ))
        )
    )
}

fn pod(d: usize, r: usize, p: usize) -> String {
    format!(
        r#"{{"kind":"Pod","apiVersion":"v1",{},"spec":{{"nodeName":"node-1","containers":[{{"name":"c","image":"nginx"}}]}},"status":{{"phase":"Running","containerStatuses":[{{"name":"c","ready":true,"restartCount":0,"state":{{"running":{{"startedAt":"{CREATED}"}}}}}}]}}}}"#,
        meta(
            &format!("ns-{}", d % 50),
            &format!("app-{d}-{r}-{p}"),
            &uid('p', d, r * 1000 + p),
            Some(owner_ref(
                "apps/v1",
                "ReplicaSet",
                &format!("app-{d}-{r}"),
                &uid('r', d, r)
            ))
        )
    )
}

/// The rows of `objects` as a Table list of `kind` decodes them.
fn rows(group: &str, kind: &str, objects: &[String]) -> Vec<Arc<Object>> {
    let conv = TableConvertor::for_kind(group, kind);
    let format = TableFormat {
        version: TableVersion::V1,
        include: IncludeObject::Metadata,
    };
    let mut body = String::new();
    let meta = ListMeta {
        resource_version: "10",
        ..ListMeta::default()
    };
    let mut w = TableListWriter::begin(&mut body, &conv, format, &meta);
    for o in objects {
        let row = conv.row_from_json(o).expect("an object");
        w.push_row(&mut body, &row, o, tables::now_ms())
            .expect("a row");
    }
    w.finish(&mut body);
    let mut d = ListDecoder::new(
        Limits {
            max_document_bytes: usize::MAX >> 1,
        },
        ParseOptions {
            metadata: KeptMetadata::Owners,
            strip_managed_fields: true,
            ..ParseOptions::default()
        },
    );
    let mut items = Vec::new();
    d.feed(body.as_bytes(), &mut items).expect("rows");
    if let Some(columns) = d.take_columns() {
        COLUMNS.with(|c| c.borrow_mut().push((kind.to_string(), columns.into())));
    }
    items.into_iter().map(Arc::new).collect()
}

thread_local! {
    static COLUMNS: std::cell::RefCell<Vec<(String, Arc<[kubelive_core::TableColumn]>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

fn columns(kind: &str) -> Arc<[kubelive_core::TableColumn]> {
    COLUMNS.with(|c| {
        c.borrow()
            .iter()
            .find(|(k, _)| k == kind)
            .map(|(_, c)| c.clone())
            .expect("columns")
    })
}

fn main() {
    let deps = rows(
        "apps",
        "Deployment",
        &(0..DEPLOYMENTS).map(deployment).collect::<Vec<_>>(),
    );
    let rss = rows(
        "apps",
        "ReplicaSet",
        &(0..DEPLOYMENTS)
            .flat_map(|d| [replica_set(d, 0, 0), replica_set(d, 1, PODS_EACH)])
            .collect::<Vec<_>>(),
    );
    let pods = rows(
        "",
        "Pod",
        &(0..DEPLOYMENTS)
            .flat_map(|d| (0..PODS_EACH).map(move |p| pod(d, 1, p)))
            .collect::<Vec<_>>(),
    );
    let t = Instant::now();
    for o in &pods {
        black_box(kubelive_core::owners::owner_references(o));
    }
    println!(
        "ownerReferences read from a row: {:.0} ns",
        t.elapsed().as_secs_f64() * 1e9 / pods.len() as f64
    );
    let t = Instant::now();
    for o in &pods {
        black_box(o.json());
    }
    println!(
        "of which the row's JSON written out: {:.0} ns",
        t.elapsed().as_secs_f64() * 1e9 / pods.len() as f64
    );
    let mut owners = Owners::new();
    let sd = owners.add_source("apps", "Deployment");
    let sr = owners.add_source("apps", "ReplicaSet");
    let sp = owners.add_source("", "Pod");
    for (s, k) in [(sd, "Deployment"), (sr, "ReplicaSet"), (sp, "Pod")] {
        owners.set_columns(s, Some(columns(k)));
    }
    let n = pods.len() + rss.len() + deps.len();
    // Pods first: their owners come after them (the hardest order for the join).
    let t = Instant::now();
    let apply = |owners: &mut Owners, s: SourceId, objects: &[Arc<Object>]| {
        for o in objects {
            owners.apply(s, &Event::Added(o.clone()));
        }
    };
    apply(&mut owners, sp, &pods);
    apply(&mut owners, sr, &rss);
    apply(&mut owners, sd, &deps);
    let build = t.elapsed();
    println!(
        "build: {n} objects in {:.0} ms, {:.0} ns per Added event",
        build.as_secs_f64() * 1e3,
        build.as_secs_f64() * 1e9 / n as f64
    );
    println!(
        "memory: {} bytes per object beyond the stores' objects ({} in all)",
        owners.heap_bytes() / n,
        owners.heap_bytes()
    );
    let t = Instant::now();
    let mut nodes = 0;
    for d in (0..DEPLOYMENTS).step_by(5) {
        let root = owners.get(&uid('d', d, 0)).expect("a deployment");
        root.walk(|node, depth| {
            nodes += 1;
            black_box((
                node.name(),
                node.rolled_health(),
                depth,
                node.object().map(|o| o.cells()),
            ));
        });
    }
    let walks = DEPLOYMENTS / 5;
    println!(
        "walk: one Deployment's tree ({} nodes) in {:.1} µs",
        nodes / walks,
        t.elapsed().as_secs_f64() * 1e6 / walks as f64
    );
    // A rollout of Deployment 7: a new ReplicaSet, then each pod replaced by one of it.
    let d = 7;
    let new_rs = rows("apps", "ReplicaSet", &[replica_set(d, 2, PODS_EACH)]);
    let new_pods = rows(
        "",
        "Pod",
        &(0..PODS_EACH).map(|p| pod(d, 2, p)).collect::<Vec<_>>(),
    );
    let old_pods: Vec<Arc<Object>> = (0..PODS_EACH)
        .map(|p| {
            owners
                .get(&uid('p', d, 1000 + p))
                .and_then(|n| n.object().cloned())
                .expect("a pod")
        })
        .collect();
    let t = Instant::now();
    owners.apply(sr, &Event::Added(new_rs[0].clone()));
    for (old, new) in old_pods.iter().zip(&new_pods) {
        owners.apply(sp, &Event::Added(new.clone()));
        owners.apply(sp, &Event::Deleted(old.clone()));
    }
    let events = 1 + 2 * PODS_EACH;
    println!(
        "rollout: {events} events in {:.1} µs, {:.0} ns each",
        t.elapsed().as_secs_f64() * 1e6,
        t.elapsed().as_secs_f64() * 1e9 / events as f64
    );
    let root = owners.get(&uid('d', d, 0)).expect("the deployment");
    let rs: Vec<usize> = root
        .dependents()
        .iter()
        .map(|r| r.dependents().len())
        .collect();
    assert_eq!(
        rs,
        [0, 0, PODS_EACH],
        "the pods moved to the new ReplicaSet"
    );
}
