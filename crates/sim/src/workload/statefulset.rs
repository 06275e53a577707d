//! StatefulSets with volume claim templates, as kube-controller-manager's statefulset
//! controller (`pkg/controller/statefulset/`) and the PV controller's dynamic provisioning
//! make them.
//!
//! Facts carried over (1.27-1.37):
//! * pods are `<set>-<ordinal>`, owned by the set (controller: true, blockOwnerDeletion:
//!   true), labelled with the template's labels, `controller-revision-hash`,
//!   `statefulset.kubernetes.io/pod-name` and, from 1.28 (the PodIndexLabel gate, beta
//!   then), `apps.kubernetes.io/pod-index`; hostname `<set>-<ordinal>`, subdomain the
//!   set's serviceName (`stateful_set_utils.go` `newVersionedStatefulSetPod`,
//!   `initIdentity`);
//! * OrderedReady: ordinal N+1 is created only once N is Running and Ready;
//! * before its pod, one claim per volumeClaimTemplate, `<template>-<set>-<ordinal>`,
//!   labelled with the set's selector matchLabels (`getPersistentVolumeClaims`); the set
//!   owns a claim (a plain reference: no controller, no blockOwnerDeletion;
//!   `setOwnerRef`) only when `persistentVolumeClaimRetentionPolicy.whenDeleted` is
//!   Delete (StatefulSetAutoDeletePVC, on by default in every served release); with the
//!   default Retain the claims outlive the set;
//! * a dynamically provisioned volume is `pvc-<claim uid>`; the bound claim gets
//!   `spec.volumeName`, `status.capacity` and `status.accessModes`, phase Bound;
//! * status: replicas, readyReplicas, currentReplicas, updatedReplicas,
//!   availableReplicas (minReadySeconds 0), currentRevision = updateRevision =
//!   `<set>-<hash>`, observedGeneration, collisionCount.
//!
//! Not modelled: ControllerRevision objects (the hash is FNV-32a over the template, not
//! over the revision's patch bytes as the controller hashes), the
//! `kubernetes.io/pvc-protection` finalizer and the PV controller's bind annotations,
//! scaling, updates, pod-owned claims (whenScaled: Delete).

use serde_json::{json, Value};

use super::{template_hash, Workload};
use crate::model::Cluster;
use crate::resources::{PERSISTENTVOLUMECLAIMS, PODS, STATEFULSETS};
use crate::util::timestamp;

/// How long after its creation a StatefulSet's pod is running and ready (and its claims
/// bound).
pub const STS_POD_START_MS: u64 = 2_000;

/// What happens to a StatefulSet's claims when the set is deleted
/// (`persistentVolumeClaimRetentionPolicy.whenDeleted`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimRetention {
    /// The default: the claims stay.
    Retain,
    /// The set owns its claims, so the garbage collector deletes them with it.
    Delete,
}

impl ClaimRetention {
    fn as_str(self) -> &'static str {
        match self {
            ClaimRetention::Retain => "Retain",
            ClaimRetention::Delete => "Delete",
        }
    }
}

/// What a StatefulSet the workload makes has: its size, the names of its
/// volumeClaimTemplates, and what becomes of its claims when it is deleted.
#[derive(Debug, Clone, Copy)]
pub struct StatefulSetSpec<'a> {
    pub replicas: u32,
    pub claim_templates: &'a [&'a str],
    pub retention: ClaimRetention,
}

#[derive(Debug, Clone)]
pub(super) struct StatefulSetState {
    namespace: String,
    name: String,
    uid: String,
    replicas: u32,
    templates: Vec<String>,
    retention: ClaimRetention,
    revision: String,
    /// The pod being started (ordinal, created at) or None once all are ready.
    starting: Option<(u32, u64)>,
    /// Pods Running and Ready (ordinals 0..ready).
    ready: u32,
}

impl Workload {
    /// Creates StatefulSet `namespace/name` of `spec.replicas` pods, each with a claim per
    /// name in `spec.claim_templates`; the workload's [`Workload::tick`] runs its
    /// controller. Its uid.
    pub fn add_statefulset(
        &mut self,
        c: &mut Cluster,
        namespace: &str,
        name: &str,
        spec: StatefulSetSpec,
        now_ms: u64,
    ) -> Result<String, String> {
        let StatefulSetSpec {
            replicas,
            claim_templates,
            retention,
        } = spec;
        let image = format!("registry.example.com/{namespace}/{name}:1.0.0");
        let template = pod_template(name, &image, claim_templates);
        let revision = format!("{name}-{}", template_hash(&template.to_string(), Some(0)));
        let claims: Vec<Value> = claim_templates
            .iter()
            .map(|t| {
                json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                    "metadata": {"name": t, "creationTimestamp": null},
                    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                             "volumeMode": "Filesystem"},
                    "status": {"phase": "Pending"}})
            })
            .collect();
        let sts = json!({
            "metadata": {"name": name, "namespace": namespace, "generation": 1},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": {"app": name}},
                "template": template,
                "volumeClaimTemplates": claims,
                "serviceName": name,
                "podManagementPolicy": "OrderedReady",
                "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
                "revisionHistoryLimit": 10,
                "persistentVolumeClaimRetentionPolicy": {
                    "whenDeleted": retention.as_str(), "whenScaled": "Retain"}
            },
            "status": {"replicas": 0, "availableReplicas": 0}
        });
        let r = c
            .create(STATEFULSETS, sts, now_ms)
            .map_err(|e| e.to_string())?;
        self.statefulsets.push(StatefulSetState {
            namespace: namespace.into(),
            name: name.into(),
            uid: r.uid.clone(),
            replicas,
            templates: claim_templates.iter().map(|t| t.to_string()).collect(),
            retention,
            revision,
            starting: None,
            ready: 0,
        });
        let i = self.statefulsets.len() - 1;
        self.start_next_pod(c, i, now_ms);
        Ok(r.uid)
    }

    /// Runs the StatefulSets' controller up to `now_ms`; forgets sets that are gone.
    pub(super) fn run_statefulsets(&mut self, c: &mut Cluster, now_ms: u64) {
        self.statefulsets.retain(|s| {
            c.get_value(STATEFULSETS, &s.namespace, &s.name)
                .is_some_and(|v| v["metadata"]["uid"] == s.uid.as_str())
        });
        for i in 0..self.statefulsets.len() {
            while let Some((ordinal, created)) = self.statefulsets[i].starting {
                let due = created + STS_POD_START_MS;
                if due > now_ms {
                    break;
                }
                self.pod_ready(c, i, ordinal, due);
                self.start_next_pod(c, i, due);
            }
        }
    }

    /// Creates the next ordinal's claims and pod (OrderedReady), if any is left.
    fn start_next_pod(&mut self, c: &mut Cluster, i: usize, at_ms: u64) {
        let s = &self.statefulsets[i];
        let ordinal = s.ready;
        if ordinal >= s.replicas {
            self.statefulsets[i].starting = None;
            let _ = c.update(STATEFULSETS, status(&self.statefulsets[i], c), at_ms);
            return;
        }
        let pod_name = format!("{}-{ordinal}", s.name);
        for t in &s.templates {
            let mut meta = json!({"name": claim_name(t, &s.name, ordinal), "namespace": s.namespace,
                "labels": {"app": s.name}});
            if s.retention == ClaimRetention::Delete {
                meta["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": "StatefulSet",
                    "name": s.name, "uid": s.uid}]);
            }
            let claim = json!({"metadata": meta,
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                         "storageClassName": "standard", "volumeMode": "Filesystem"},
                "status": {"phase": "Pending"}});
            let _ = c.create(PERSISTENTVOLUMECLAIMS, claim, at_ms);
        }
        let mut labels = json!({"app": s.name, "controller-revision-hash": s.revision,
            "statefulset.kubernetes.io/pod-name": pod_name});
        if c.release().minor() >= 28 {
            labels["apps.kubernetes.io/pod-index"] = json!(ordinal.to_string());
        }
        let image = format!("registry.example.com/{}/{}:1.0.0", s.namespace, s.name);
        let volumes: Vec<Value> = s
            .templates
            .iter()
            .map(|t| json!({"name": t, "persistentVolumeClaim": {"claimName": claim_name(t, &s.name, ordinal)}}))
            .collect();
        let pod = json!({
            "metadata": {"name": pod_name, "namespace": s.namespace, "labels": labels,
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": s.name,
                    "uid": s.uid, "controller": true, "blockOwnerDeletion": true}]},
            "spec": {"containers": [container(&s.name, &image, &s.templates)], "volumes": volumes,
                "hostname": pod_name, "subdomain": s.name, "restartPolicy": "Always",
                "terminationGracePeriodSeconds": 30,
                "nodeName": format!("node-{}", ordinal % 3)},
            "status": {"phase": "Pending", "startTime": timestamp(at_ms)}
        });
        let _ = c.create(PODS, pod, at_ms);
        self.statefulsets[i].starting = Some((ordinal, at_ms));
        let _ = c.update(STATEFULSETS, status(&self.statefulsets[i], c), at_ms);
    }

    /// The pod of `ordinal` is running and ready; its claims are bound.
    fn pod_ready(&mut self, c: &mut Cluster, i: usize, ordinal: u32, at_ms: u64) {
        let s = &mut self.statefulsets[i];
        for t in &s.templates {
            let _ = c.modify(
                PERSISTENTVOLUMECLAIMS,
                &s.namespace,
                &claim_name(t, &s.name, ordinal),
                at_ms,
                |v| {
                    let uid = v["metadata"]["uid"].as_str().unwrap_or("").to_string();
                    v["spec"]["volumeName"] = json!(format!("pvc-{uid}"));
                    v["status"] = json!({"phase": "Bound", "accessModes": ["ReadWriteOnce"],
                        "capacity": {"storage": "1Gi"}});
                },
            );
        }
        let name = s.name.clone();
        let _ = c.modify(
            PODS,
            &s.namespace,
            &format!("{}-{ordinal}", s.name),
            at_ms,
            |p| {
                let started = p["status"]["startTime"].clone();
                p["status"] = json!({
                    "phase": "Running",
                    "conditions": [
                        {"type": "Ready", "status": "True", "lastProbeTime": null, "lastTransitionTime": timestamp(at_ms)},
                        {"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": started}
                    ],
                    "startTime": started,
                    "containerStatuses": [{"name": name, "state": {"running": {"startedAt": timestamp(at_ms)}},
                        "ready": true, "restartCount": 0, "image": "", "imageID": "", "started": true}]
                });
            },
        );
        s.ready = ordinal + 1;
        s.starting = None;
    }
}

/// `<template>-<set>-<ordinal>` (`getPersistentVolumeClaimName`).
fn claim_name(template: &str, set: &str, ordinal: u32) -> String {
    format!("{template}-{set}-{ordinal}")
}

fn container(name: &str, image: &str, templates: &[String]) -> Value {
    let mounts: Vec<Value> = templates
        .iter()
        .map(|t| json!({"name": t, "mountPath": format!("/data/{t}")}))
        .collect();
    json!({"name": name, "image": image, "resources": {}, "volumeMounts": mounts,
           "terminationMessagePath": "/dev/termination-log",
           "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"})
}

fn pod_template(name: &str, image: &str, templates: &[&str]) -> Value {
    let templates: Vec<String> = templates.iter().map(|t| t.to_string()).collect();
    json!({"metadata": {"creationTimestamp": null, "labels": {"app": name}},
           "spec": {"containers": [container(name, image, &templates)], "restartPolicy": "Always",
                    "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
                    "schedulerName": "default-scheduler", "securityContext": {}}})
}

/// The set with its status as the controller writes it.
fn status(s: &StatefulSetState, c: &Cluster) -> Value {
    let mut v = c
        .get_value(STATEFULSETS, &s.namespace, &s.name)
        .unwrap_or_else(|| json!({"metadata": {"name": s.name, "namespace": s.namespace}}));
    let created = s.ready + u32::from(s.starting.is_some());
    v["status"] = json!({
        "observedGeneration": 1,
        "replicas": created,
        "readyReplicas": s.ready,
        "currentReplicas": created,
        "updatedReplicas": created,
        "availableReplicas": s.ready,
        "currentRevision": s.revision,
        "updateRevision": s.revision,
        "collisionCount": 0
    });
    // omitempty fields stay out while zero, as the controller's writes leave them.
    if let Some(st) = v["status"].as_object_mut() {
        for k in ["readyReplicas", "currentReplicas", "updatedReplicas"] {
            if st[k] == 0 {
                st.remove(k);
            }
        }
    }
    v
}
