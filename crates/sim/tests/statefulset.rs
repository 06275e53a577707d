//! StatefulSets with volume claim templates as the statefulset controller makes them
//! (`pkg/controller/statefulset/stateful_set_utils.go`: pod and claim names, labels,
//! `setOwnerRef` for claims under `whenDeleted: Delete`), and their printers
//! (`pkg/printers/internalversion/printers.go` printStatefulSet /
//! printPersistentVolumeClaim; the claim's VolumeAttributesClass column from 1.29,
//! kubernetes#121104).

mod controllers;

use controllers::{cells, cluster, table, workload};
use kubelive_sim::*;
use serde_json::Value;

fn column_names(t: &Value) -> Vec<&str> {
    t["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect()
}

fn names(c: &Cluster, rt: ResourceType) -> Vec<String> {
    let mut n: Vec<String> = c.names(rt).into_iter().map(|(_, n)| n).collect();
    n.sort();
    n
}

/// OrderedReady: `web-0` with its claim `data-web-0` first; `web-1` only once `web-0` is
/// Running and Ready, and so on; each pod owned by the set as its controller, labelled
/// with its name; claims bound to `pvc-<claim uid>`; the set's status counts along.
#[test]
fn a_statefulset_makes_its_pods_and_claims_in_order() {
    let mut c = cluster(Release::NEWEST);
    let mut w = workload();
    let uid = w
        .add_statefulset(
            &mut c,
            "db",
            "web",
            StatefulSetSpec {
                replicas: 3,
                claim_templates: &["data"],
                retention: ClaimRetention::Retain,
            },
            0,
        )
        .unwrap();
    assert_eq!(names(&c, PODS), ["web-0"]);
    assert_eq!(names(&c, PERSISTENTVOLUMECLAIMS), ["data-web-0"]);
    let claim = c
        .get_value(PERSISTENTVOLUMECLAIMS, "db", "data-web-0")
        .unwrap();
    assert_eq!(claim["status"]["phase"], "Pending");
    w.tick(&mut c, STS_POD_START_MS - 1);
    assert_eq!(names(&c, PODS), ["web-0"]);

    w.tick(&mut c, STS_POD_START_MS);
    assert_eq!(names(&c, PODS), ["web-0", "web-1"]);
    let claim = c
        .get_value(PERSISTENTVOLUMECLAIMS, "db", "data-web-0")
        .unwrap();
    let claim_uid = claim["metadata"]["uid"].as_str().unwrap();
    assert_eq!(claim["status"]["phase"], "Bound");
    assert_eq!(claim["spec"]["volumeName"], format!("pvc-{claim_uid}"));
    // whenDeleted: Retain: the set does not own its claims.
    assert!(claim["metadata"].get("ownerReferences").is_none());
    assert_eq!(claim["metadata"]["labels"]["app"], "web");

    let pod = c.get_value(PODS, "db", "web-0").unwrap();
    assert_eq!(pod["status"]["phase"], "Running");
    let owner = &pod["metadata"]["ownerReferences"][0];
    assert_eq!(owner["kind"], "StatefulSet");
    assert_eq!(owner["uid"], uid.as_str());
    assert_eq!(owner["controller"], true);
    assert_eq!(owner["blockOwnerDeletion"], true);
    let labels = &pod["metadata"]["labels"];
    assert_eq!(labels["statefulset.kubernetes.io/pod-name"], "web-0");
    assert_eq!(labels["apps.kubernetes.io/pod-index"], "0");
    assert_eq!(
        pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"],
        "data-web-0"
    );

    let sts = c.get_value(STATEFULSETS, "db", "web").unwrap();
    assert_eq!(sts["status"]["replicas"], 2);
    assert_eq!(sts["status"]["readyReplicas"], 1);
    assert_eq!(sts["status"]["availableReplicas"], 1);
    let revision = sts["status"]["updateRevision"].as_str().unwrap();
    assert!(revision.starts_with("web-"), "{revision}");
    assert_eq!(sts["status"]["currentRevision"], revision);
    assert_eq!(labels["controller-revision-hash"], revision);

    w.tick(&mut c, 3 * STS_POD_START_MS);
    assert_eq!(names(&c, PODS), ["web-0", "web-1", "web-2"]);
    assert_eq!(
        names(&c, PERSISTENTVOLUMECLAIMS),
        ["data-web-0", "data-web-1", "data-web-2"]
    );
    let sts = c.get_value(STATEFULSETS, "db", "web").unwrap();
    for k in [
        "replicas",
        "readyReplicas",
        "currentReplicas",
        "updatedReplicas",
        "availableReplicas",
    ] {
        assert_eq!(sts["status"][k], 3, "{k}");
    }
}

/// `apps.kubernetes.io/pod-index` comes with the PodIndexLabel gate, on by default from
/// 1.28 (pkg/features/kube_features.go).
#[test]
fn the_pod_index_label_comes_with_1_28() {
    for (minor, labelled) in [(27, false), (28, true)] {
        let mut c = cluster(Release::new(minor).unwrap());
        let mut w = workload();
        w.add_statefulset(
            &mut c,
            "db",
            "web",
            StatefulSetSpec {
                replicas: 1,
                claim_templates: &[],
                retention: ClaimRetention::Retain,
            },
            0,
        )
        .unwrap();
        let pod = c.get_value(PODS, "db", "web-0").unwrap();
        let labels = &pod["metadata"]["labels"];
        assert_eq!(
            labels.get("apps.kubernetes.io/pod-index").is_some(),
            labelled,
            "1.{minor}: {labels}"
        );
        assert_eq!(labels["statefulset.kubernetes.io/pod-name"], "web-0");
    }
}

/// Deleting the set collects its pods; its claims stay under whenDeleted: Retain (no
/// owner reference) and go with it under whenDeleted: Delete (owned by the set).
#[test]
fn deleting_a_statefulset_collects_its_pods_and_only_claims_it_owns() {
    for (retention, claims_left) in [(ClaimRetention::Retain, 2), (ClaimRetention::Delete, 0)] {
        let mut c = cluster(Release::NEWEST);
        let mut w = workload();
        let uid = w
            .add_statefulset(
                &mut c,
                "db",
                "web",
                StatefulSetSpec {
                    replicas: 2,
                    claim_templates: &["data"],
                    retention,
                },
                0,
            )
            .unwrap();
        w.tick(&mut c, 2 * STS_POD_START_MS);
        assert_eq!(names(&c, PODS).len(), 2);
        assert_eq!(names(&c, PERSISTENTVOLUMECLAIMS).len(), 2);
        if retention == ClaimRetention::Delete {
            let claim = c
                .get_value(PERSISTENTVOLUMECLAIMS, "db", "data-web-1")
                .unwrap();
            let owner = &claim["metadata"]["ownerReferences"][0];
            assert_eq!(owner["uid"], uid.as_str());
            // setOwnerRef: a plain reference, not the claim's controller.
            assert!(owner.get("controller").is_none(), "{owner}");
        }
        let t = 10_000;
        c.delete(STATEFULSETS, "db", "web", t).unwrap();
        c.advance(t + 2 * GC_DELAY_MS + 30_000);
        w.tick(&mut c, t + 2 * GC_DELAY_MS + 30_000);
        assert!(names(&c, PODS).is_empty(), "{retention:?}");
        assert_eq!(
            names(&c, PERSISTENTVOLUMECLAIMS).len(),
            claims_left,
            "{retention:?}"
        );
    }
}

/// printStatefulSet: Ready is readyReplicas/replicas; wide adds Containers and Images.
/// printPersistentVolumeClaim: capacity and access modes of the bound volume,
/// `<unset>` attributes class, volume mode last (wide); 1.28 prints no
/// VolumeAttributesClass column, 1.29 does.
#[test]
fn statefulsets_and_claims_print_as_the_release_does() {
    for (minor, with_vac) in [(28, false), (29, true)] {
        let mut c = cluster(Release::new(minor).unwrap());
        let mut w = workload();
        w.add_statefulset(
            &mut c,
            "db",
            "web",
            StatefulSetSpec {
                replicas: 2,
                claim_templates: &["data"],
                retention: ClaimRetention::Retain,
            },
            0,
        )
        .unwrap();
        w.tick(&mut c, STS_POD_START_MS);

        let t = table(&mut c, "/apis/apps/v1/namespaces/db/statefulsets", 10_000);
        assert_eq!(
            column_names(&t),
            ["Name", "Ready", "Age", "Containers", "Images"]
        );
        let expect: Vec<Value> = vec![
            "web".into(),
            "1/2".into(),
            "10s".into(),
            "web".into(),
            "registry.example.com/db/web:1.0.0".into(),
        ];
        assert_eq!(cells(&t)[0], expect);

        let t = table(
            &mut c,
            "/api/v1/namespaces/db/persistentvolumeclaims",
            10_000,
        );
        let mut want = vec![
            "Name",
            "Status",
            "Volume",
            "Capacity",
            "Access Modes",
            "StorageClass",
            "Age",
            "VolumeMode",
        ];
        if with_vac {
            want.insert(6, "VolumeAttributesClass");
        }
        assert_eq!(column_names(&t), want, "1.{minor}");
        let uid = |name: &str| {
            c.get_value(PERSISTENTVOLUMECLAIMS, "db", name).unwrap()["metadata"]["uid"]
                .as_str()
                .unwrap()
                .to_string()
        };
        let volume = format!("pvc-{}", uid("data-web-0"));
        let mut bound: Vec<Value> = vec![
            "data-web-0".into(),
            "Bound".into(),
            volume.as_str().into(),
            "1Gi".into(),
            "RWO".into(),
            "standard".into(),
            "10s".into(),
            "Filesystem".into(),
        ];
        // Not yet bound: no volume, so neither capacity nor access modes.
        let mut pending: Vec<Value> = vec![
            "data-web-1".into(),
            "Pending".into(),
            "".into(),
            "".into(),
            "".into(),
            "standard".into(),
            "8s".into(),
            "Filesystem".into(),
        ];
        if with_vac {
            bound.insert(6, "<unset>".into());
            pending.insert(6, "<unset>".into());
        }
        let rows = cells(&t);
        assert_eq!(rows[0], bound, "1.{minor}");
        assert_eq!(rows[1], pending, "1.{minor}");
    }
}

/// printPersistentVolumeClaim through helper.GetAccessModesAsString (each mode once, RWO
/// ROX RWX RWOP order) and GetPersistentVolumeClaimClass (the beta
/// `volume.beta.kubernetes.io/storage-class` annotation over spec.storageClassName);
/// a set attributes class and volume mode print as they are.
#[test]
fn a_claim_prints_its_modes_in_order_and_the_annotated_class() {
    let mut c = cluster(Release::NEWEST);
    let claim = serde_json::json!({
        "metadata": {"name": "shared", "namespace": "db",
            "annotations": {"volume.beta.kubernetes.io/storage-class": "legacy"}},
        "spec": {"storageClassName": "standard", "volumeName": "pv-7",
            "volumeAttributesClassName": "gold", "volumeMode": "Block"},
        "status": {"phase": "Bound", "capacity": {"storage": "10Gi"},
            "accessModes": ["ReadWriteOncePod", "ReadWriteMany", "ReadWriteOnce", "ReadWriteMany"]}
    });
    c.create(PERSISTENTVOLUMECLAIMS, claim, 0).unwrap();
    let t = table(
        &mut c,
        "/api/v1/namespaces/db/persistentvolumeclaims",
        60_000,
    );
    let expect: Vec<Value> = vec![
        "shared".into(),
        "Bound".into(),
        "pv-7".into(),
        "10Gi".into(),
        "RWO,RWX,RWOP".into(),
        "legacy".into(),
        "gold".into(),
        "60s".into(),
        "Block".into(),
    ];
    assert_eq!(cells(&t)[0], expect);
}
