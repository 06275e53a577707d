//! A workload generator: realistic objects (pods of Deployments, ~4 KB each like
//! `kubectl get pod -o json`), seeded churn, and a watch-event byte stream for benches.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::genpod::{DeployInfo, Phase, PodState};
use crate::kinds::{
    self, DeploymentParams, EventParams, Identity, NodeParams, PodEvent, PodRef, ReplicaSetParams,
    ServiceKind, ServiceParams, WidgetParams,
};
use crate::model::Cluster;
use crate::resources::{
    self, CONFIGMAPS, CUSTOMRESOURCEDEFINITIONS, DEPLOYMENTS, EVENTS, NAMESPACES, NODES, PODS,
    REPLICASETS, SECRETS, SERVICES, WIDGETS,
};
use crate::util::{timestamp, Rng};

mod batch;
mod rollout;
mod statefulset;
pub use batch::{JOB_POD_START_MS, JOB_RUN_MS};
pub use rollout::{template_hash, ROLLOUT_STEP_MS};
pub use statefulset::{ClaimRetention, StatefulSetSpec, STS_POD_START_MS};

/// Everything that varies between generated pods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodParams {
    pub namespace: String,
    /// The Deployment's name; also the `app` label.
    pub app: String,
    pub template_hash: String,
    /// The 5-character suffix of the generated name.
    pub suffix: String,
    pub node: String,
    pub pod_ip: String,
    /// `Pending`, `Running`, `Succeeded`, `Failed`.
    pub phase: String,
    pub ready: bool,
    pub restarts: u32,
    pub created_ms: u64,
    pub replicaset_uid: String,
    pub image_tag: String,
}

impl PodParams {
    /// Random parameters for a pod of Deployment `app` in `namespace`.
    pub fn random(
        rng: &mut Rng,
        namespace: &str,
        app: &str,
        template_hash: &str,
        now_ms: u64,
    ) -> Self {
        PodParams {
            namespace: namespace.into(),
            app: app.into(),
            template_hash: template_hash.into(),
            suffix: rng.alnum(5),
            node: format!("node-{}", rng.below(50)),
            pod_ip: format!(
                "10.{}.{}.{}",
                244 + rng.below(4),
                rng.below(256),
                2 + rng.below(250)
            ),
            phase: "Running".into(),
            ready: true,
            restarts: 0,
            created_ms: now_ms,
            replicaset_uid: rng.uuid(),
            image_tag: format!("1.{}.{}", rng.below(30), rng.below(10)),
        }
    }

    /// The pod's name: `<app>-<hash>-<suffix>`.
    pub fn name(&self) -> String {
        format!("{}-{}-{}", self.app, self.template_hash, self.suffix)
    }
}

/// A realistic pod of a Deployment (no uid/resourceVersion: the cluster sets them),
/// including `kind` and `apiVersion`.
pub fn pod(p: &PodParams) -> Value {
    let created = timestamp(p.created_ms);
    let started = timestamp(p.created_ms + 2000);
    let rs = format!("{}-{}", p.app, p.template_hash);
    let host_ip = crate::genpod::node_ip(
        p.node
            .trim_start_matches("node-")
            .parse()
            .unwrap_or_default(),
    );
    let running = p.phase == "Running";
    let ready = if p.ready { "True" } else { "False" };
    let state = if running {
        json!({"running": {"startedAt": started}})
    } else {
        json!({"waiting": {"reason": if p.phase == "Pending" { "ContainerCreating" } else { "CrashLoopBackOff" }}})
    };
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "annotations": {"kubectl.kubernetes.io/restartedAt": created},
            "creationTimestamp": created,
            "generateName": format!("{rs}-"),
            "labels": {"app": p.app, "pod-template-hash": p.template_hash, "tier": "backend"},
            "managedFields": [
                {
                    "apiVersion": "v1", "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/restartedAt": {}},
                        "f:generateName": {}, "f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}, "f:tier": {}},
                        "f:ownerReferences": {".": {}, format!("k:{{\"uid\":\"{}\"}}", p.replicaset_uid): {}}},
                        "f:spec": {"f:containers": {format!("k:{{\"name\":\"{}\"}}", p.app): {".": {}, "f:env": {".": {},
                            "k:{\"name\":\"LOG_LEVEL\"}": {".": {}, "f:name": {}, "f:value": {}},
                            "k:{\"name\":\"POD_NAME\"}": {".": {}, "f:name": {}, "f:valueFrom": {".": {}, "f:fieldRef": {}}}},
                            "f:image": {}, "f:imagePullPolicy": {}, "f:livenessProbe": {".": {}, "f:failureThreshold": {}, "f:httpGet": {".": {}, "f:path": {}, "f:port": {}, "f:scheme": {}}},
                            "f:name": {}, "f:ports": {".": {}, "k:{\"containerPort\":8080,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}, "f:name": {}, "f:protocol": {}}},
                            "f:readinessProbe": {".": {}, "f:httpGet": {".": {}, "f:path": {}, "f:port": {}}}, "f:resources": {".": {}, "f:limits": {".": {}, "f:memory": {}}, "f:requests": {".": {}, "f:cpu": {}, "f:memory": {}}},
                            "f:volumeMounts": {".": {}, "k:{\"mountPath\":\"/etc/config\"}": {".": {}, "f:mountPath": {}, "f:name": {}}}}},
                        "f:dnsPolicy": {}, "f:enableServiceLinks": {}, "f:restartPolicy": {}, "f:schedulerName": {}, "f:securityContext": {}, "f:terminationGracePeriodSeconds": {},
                        "f:volumes": {".": {}, "k:{\"name\":\"config\"}": {".": {}, "f:configMap": {".": {}, "f:defaultMode": {}, "f:name": {}}, "f:name": {}}}}},
                    "manager": "kube-controller-manager", "operation": "Update", "time": created
                },
                {
                    "apiVersion": "v1", "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:status": {"f:conditions": {"k:{\"type\":\"ContainersReady\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}},
                        "k:{\"type\":\"Initialized\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}},
                        "k:{\"type\":\"Ready\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}},
                        "f:containerStatuses": {}, "f:hostIP": {}, "f:hostIPs": {}, "f:phase": {}, "f:podIP": {}, "f:podIPs": {".": {}, format!("k:{{\"ip\":\"{}\"}}", p.pod_ip): {".": {}, "f:ip": {}}}, "f:startTime": {}}},
                    "manager": "kubelet", "operation": "Update", "subresource": "status", "time": started
                }
            ],
            "name": p.name(),
            "namespace": p.namespace,
            "ownerReferences": [{"apiVersion": "apps/v1", "blockOwnerDeletion": true, "controller": true, "kind": "ReplicaSet", "name": rs, "uid": p.replicaset_uid}]
        },
        "spec": {
            "containers": [{
                "env": [{"name": "LOG_LEVEL", "value": "info"}, {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}],
                "image": format!("registry.example.com/{}/{}:{}", p.namespace, p.app, p.image_tag),
                "imagePullPolicy": "IfNotPresent",
                "livenessProbe": {"failureThreshold": 3, "httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"}, "periodSeconds": 10, "successThreshold": 1, "timeoutSeconds": 1},
                "name": p.app,
                "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
                "readinessProbe": {"failureThreshold": 3, "httpGet": {"path": "/ready", "port": 8080, "scheme": "HTTP"}, "periodSeconds": 5, "successThreshold": 1, "timeoutSeconds": 1},
                "resources": {"limits": {"memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "volumeMounts": [{"mountPath": "/etc/config", "name": "config"}, {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access", "readOnly": true}]
            }],
            "dnsPolicy": "ClusterFirst",
            "enableServiceLinks": true,
            "nodeName": p.node,
            "preemptionPolicy": "PreemptLowerPriority",
            "priority": 0,
            "restartPolicy": "Always",
            "schedulerName": "default-scheduler",
            "securityContext": {},
            "serviceAccount": "default",
            "serviceAccountName": "default",
            "terminationGracePeriodSeconds": 30,
            "tolerations": [
                {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
                {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300}
            ],
            "volumes": [
                {"configMap": {"defaultMode": 420, "name": format!("{}-config", p.app)}, "name": "config"},
                {"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [
                    {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                    {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
                    {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}, "path": "namespace"}]}}
                ]}}
            ]
        },
        "status": {
            "conditions": [
                {"lastProbeTime": null, "lastTransitionTime": created, "status": "True", "type": "Initialized"},
                {"lastProbeTime": null, "lastTransitionTime": started, "status": ready, "type": "Ready"},
                {"lastProbeTime": null, "lastTransitionTime": started, "status": ready, "type": "ContainersReady"},
                {"lastProbeTime": null, "lastTransitionTime": created, "status": "True", "type": "PodScheduled"}
            ],
            "containerStatuses": [{
                "containerID": format!("containerd://{:0>64}", p.suffix),
                "image": format!("registry.example.com/{}/{}:{}", p.namespace, p.app, p.image_tag),
                "imageID": format!("registry.example.com/{}/{}@sha256:{:0>64}", p.namespace, p.app, p.template_hash),
                "lastState": {},
                "name": p.app,
                "ready": p.ready,
                "restartCount": p.restarts,
                "started": running,
                "state": state
            }],
            "hostIP": host_ip,
            "hostIPs": [{"ip": host_ip}],
            "phase": p.phase,
            "podIP": p.pod_ip,
            "podIPs": [{"ip": p.pod_ip}],
            "qosClass": "Burstable",
            "startTime": created
        }
    })
}

/// A realistic Deployment (no uid/resourceVersion), including `kind` and `apiVersion`.
pub fn deployment(
    namespace: &str,
    name: &str,
    replicas: u32,
    template_hash: &str,
    now_ms: u64,
) -> Value {
    let created = timestamp(now_ms);
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "annotations": {"deployment.kubernetes.io/revision": "1"},
            "generation": 1,
            "labels": {"app": name},
            "managedFields": [
                {"apiVersion": "apps/v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}, "f:selector": {}, "f:template": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}}}},
                 "manager": "kubectl-client-side-apply", "operation": "Update", "time": created},
                {"apiVersion": "apps/v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {"f:availableReplicas": {}, "f:conditions": {}, "f:observedGeneration": {}, "f:readyReplicas": {}, "f:replicas": {}, "f:updatedReplicas": {}}},
                 "manager": "kube-controller-manager", "operation": "Update", "subresource": "status", "time": created}
            ],
            "name": name,
            "namespace": namespace
        },
        "spec": {
            "progressDeadlineSeconds": 600,
            "replicas": replicas,
            "revisionHistoryLimit": 10,
            "selector": {"matchLabels": {"app": name}},
            "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}, "type": "RollingUpdate"},
            "template": {
                "metadata": {"creationTimestamp": null, "labels": {"app": name, "pod-template-hash": template_hash}},
                "spec": {"containers": [{"image": format!("registry.example.com/{namespace}/{name}:1.0.0"), "name": name,
                    "ports": [{"containerPort": 8080, "protocol": "TCP"}], "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}],
                    "dnsPolicy": "ClusterFirst", "restartPolicy": "Always", "terminationGracePeriodSeconds": 30}
            }
        },
        "status": {
            "availableReplicas": replicas, "observedGeneration": 1, "readyReplicas": replicas, "replicas": replicas, "updatedReplicas": replicas,
            "conditions": [
                {"lastTransitionTime": created, "lastUpdateTime": created, "message": "Deployment has minimum availability.", "reason": "MinimumReplicasAvailable", "status": "True", "type": "Available"},
                {"lastTransitionTime": created, "lastUpdateTime": created, "message": format!("ReplicaSet \"{name}-{template_hash}\" has successfully progressed."), "reason": "NewReplicaSetAvailable", "status": "True", "type": "Progressing"}
            ]
        }
    })
}

/// A complete pod document (with kind, apiVersion, uid, resourceVersion) as compact JSON,
/// ~4 KB, deterministic in `(seed, index)`. For benches.
pub fn pod_json(seed: u64, index: u64) -> String {
    let mut rng = Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(index));
    let app = format!("app-{}", index % 17);
    let hash = format!("{:x}", 0x5d8f_7c9b00u64 + index % 17);
    let mut p = PodParams::random(
        &mut rng,
        &format!("ns-{}", index % 7),
        &app,
        &hash[..10.min(hash.len())],
        index * 10,
    );
    p.suffix = format!("{}{}", rng.alnum(3), index % 100);
    let mut v = pod(&p);
    v["metadata"]["uid"] = json!(rng.uuid());
    v["metadata"]["resourceVersion"] = json!((1000 + index).to_string());
    v.to_string()
}

/// A watch-event byte stream of `n` lines (ADDED/MODIFIED/DELETED of ~4 KB pods and
/// some BOOKMARKs), each `{"type":..,"object":..}\n`, deterministic in `seed`. For benches.
pub fn watch_event_stream(seed: u64, n: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(n * 4300);
    let mut live: Vec<u64> = Vec::new();
    let mut next = 0u64;
    for i in 0..n {
        let rv = 1000 + i as u64;
        let roll = rng.below(100);
        let (ty, idx) = if live.is_empty() || roll < 30 {
            next += 1;
            live.push(next);
            ("ADDED", next)
        } else if roll < 85 {
            ("MODIFIED", *rng.pick(&live))
        } else if roll < 95 {
            let k = rng.below(live.len() as u64) as usize;
            ("DELETED", live.swap_remove(k))
        } else {
            ("BOOKMARK", 0)
        };
        if ty == "BOOKMARK" {
            out.extend_from_slice(
                format!("{{\"type\":\"BOOKMARK\",\"object\":{{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{{\"resourceVersion\":\"{rv}\",\"creationTimestamp\":null}},\"spec\":{{\"containers\":null}},\"status\":{{}}}}}}\n").as_bytes(),
            );
            continue;
        }
        let mut v: Value = serde_json::from_str(&pod_json(seed, idx)).unwrap_or(Value::Null);
        v["metadata"]["resourceVersion"] = json!(rv.to_string());
        out.extend_from_slice(format!("{{\"type\":\"{ty}\",\"object\":{v}}}\n").as_bytes());
    }
    out
}

/// Shape of a generated workload.
#[derive(Debug, Clone)]
pub struct WorkloadConfig {
    pub namespaces: usize,
    /// Total pods to create initially (spread over Deployments of ~10 replicas; at most
    /// 20,000 Deployments, so larger clusters have larger Deployments).
    pub pods: usize,
    /// Changes per second of simulated time applied by [`Workload::tick`].
    pub churn_per_sec: f64,
}

impl Default for WorkloadConfig {
    fn default() -> Self {
        WorkloadConfig {
            namespaces: 3,
            pods: 100,
            churn_per_sec: 10.0,
        }
    }
}

/// A Deployment of the workload and what its objects share.
#[derive(Debug, Clone)]
struct Deploy {
    info: Arc<DeployInfo>,
    /// The Deployment as last written.
    deployment: DeploymentParams,
    /// Its ReplicaSet as last written (owned by the Deployment).
    rs: ReplicaSetParams,
    /// A change of its replicas waits to be reported (see [`REPORT_EVERY_MS`]).
    unreported: bool,
    /// When its ReplicaSet and Deployment last reported their replicas.
    reported_ms: u64,
    /// Pods of it alive (not being deleted): the replicas its objects report.
    live: u32,
    /// Its `deployment.kubernetes.io/revision` (1 until a rollout).
    revision: u32,
    /// When its conditions last changed (its creation, then each rollout's end).
    changed_ms: u64,
    /// The rollout under way, if any.
    rolling: Option<rollout::Rolling>,
}

/// The Events the workload has written, kept as the kubelet's event correlator and the
/// apiserver's storage would: a repeated probe failure or back-off updates its event
/// (count, lastTimestamp), and the oldest go when there are more than [`MAX_EVENTS`]
/// (the apiserver itself expires each an hour after its last write).
#[derive(Debug, Clone, Default)]
struct EventLog {
    /// (namespace, name) of each event written, oldest first (some may have expired).
    order: VecDeque<(Arc<str>, String)>,
    /// The event a repeated occurrence updates: (pod namespace/name, reason) -> event.
    repeated: HashMap<(String, &'static str), EventParams>,
    /// Events that may still be written now ([`EVENTS_PER_SEC`], [`EVENT_BURST`]).
    tokens: f64,
    /// When `tokens` was last refilled.
    refilled_ms: u64,
}

impl EventLog {
    /// Takes a token if there is one (refilled at [`EVENTS_PER_SEC`] up to [`EVENT_BURST`]).
    fn admit(&mut self, now_ms: u64) -> bool {
        if self.tokens.is_infinite() {
            return true;
        }
        let dt = now_ms.saturating_sub(self.refilled_ms) as f64 / 1000.0;
        self.refilled_ms = self.refilled_ms.max(now_ms);
        self.tokens = (self.tokens + dt * EVENTS_PER_SEC).min(EVENT_BURST);
        if self.tokens < 1.0 {
            return false;
        }
        self.tokens -= 1.0;
        true
    }
}

/// Events the workload writes at most per second of churn, with bursts of
/// [`EVENT_BURST`]: kubelets drop events beyond their spam filter and the apiserver's
/// EventRateLimit admission refuses them, so a cluster changing 1,000 pods a second does
/// not write every event it could (and the history the sim keeps stays small).
pub const EVENTS_PER_SEC: f64 = 50.0;
/// The burst [`EVENTS_PER_SEC`] allows.
pub const EVENT_BURST: f64 = 200.0;

/// Most events the workload keeps (about 1.6 KB each with their row): at 1,000 changes a
/// second a cluster writes far more events than anyone reads, and an hour of them would
/// be gigabytes.
pub const MAX_EVENTS: usize = 20_000;

/// Pods whose start (Scheduled .. Started) is in the events when the workload is populated.
const INITIAL_EVENT_PODS: usize = 400;

/// Seeded churn over a [`Cluster`], as a cluster's controllers and kubelets make it: new
/// pods start Pending and become Running; readiness flips; containers restart (the phase
/// stays); some pods complete or fail; label changes move pods in and out of selectors;
/// pods are deleted gracefully (Terminating for a few seconds, then gone) and their
/// Deployment replaces them with a new name; Deployments scale up and down (their
/// ReplicaSet and Deployment report it); a node goes NotReady or is cordoned now and then.
/// Every pod's life is in core/v1 Events as the scheduler and the kubelet record it.
/// Phases only move forward.
#[derive(Debug, Clone)]
pub struct Workload {
    rng: Rng,
    cfg: WorkloadConfig,
    deploys: Vec<Deploy>,
    /// (name, deployment index) of live pods (not being deleted).
    pods: Vec<(String, usize)>,
    /// The worker nodes (`node-0` ..), as last written.
    nodes: Vec<NodeParams>,
    events: EventLog,
    /// Deployments whose scale waits to be reported: (when, index).
    reports: BTreeSet<(u64, usize)>,
    /// Rollouts and when their next step is due.
    rollouts: rollout::Rollouts,
    /// CronJobs the workload runs ([`Workload::add_cronjob`]).
    cronjobs: Vec<batch::CronJobState>,
    /// StatefulSets the workload runs ([`Workload::add_statefulset`]).
    statefulsets: Vec<statefulset::StatefulSetState>,
    /// The uid of the `kube-system` Namespace: from its own generator, so that adding it
    /// left every other object a seed generates as it was.
    system_uid: String,
    last_ms: u64,
    carry: f64,
}

/// Most Deployments a workload has: a million pods make 20,000 Deployments of 50, not
/// 100,000 of 10 (each brings a ReplicaSet, a Service and a ConfigMap).
const MAX_DEPLOYMENTS: usize = 20_000;

/// A Deployment's scale is reported by its ReplicaSet and itself at most this often.
const REPORT_EVERY_MS: u64 = 10_000;

/// Grace period of the workload's pod deletions: short, so churn keeps moving.
const MAX_GRACE_S: u64 = 3;

/// Worker nodes for `pods` pods: about 50 a node, at least 3, at most 10,000.
fn node_count(pods: usize) -> u16 {
    pods.div_ceil(50).clamp(3, 10_000) as u16
}

/// What the events of a generated pod name.
fn pod_ref(state: &PodState, name: &str, rv: Option<u64>) -> PodRef {
    PodRef {
        namespace: state.deploy.namespace.to_string(),
        name: name.to_string(),
        uid: state.uid_string(),
        resource_version: rv,
        node: format!("node-{}", state.node),
        container: state.deploy.app.to_string(),
        image: state.image(),
        pod_ip: state.pod_ip(),
    }
}

impl Workload {
    pub fn new(seed: u64, cfg: WorkloadConfig) -> Self {
        Workload {
            rng: Rng::new(seed ^ 0x5151),
            cfg,
            deploys: Vec::new(),
            pods: Vec::new(),
            nodes: Vec::new(),
            events: EventLog::default(),
            reports: BTreeSet::new(),
            rollouts: rollout::Rollouts::default(),
            cronjobs: Vec::new(),
            statefulsets: Vec::new(),
            system_uid: Rng::new(seed ^ 0x6b75_6265_2d73_7973).uuid(),
            last_ms: 0,
            carry: 0.0,
        }
    }

    pub fn config(&self) -> &WorkloadConfig {
        &self.cfg
    }

    /// Creates what a cluster of this size holds: namespaces, the CustomResourceDefinitions
    /// (widgets and the extra groups'), a control-plane node and the worker nodes the pods
    /// run on, two Secrets per namespace (Opaque, TLS), per Deployment its ReplicaSet
    /// (the owner of its pods), a Service and a ConfigMap, the pods, a few widgets (each the
    /// controller of its namespace's first Deployment), and
    /// the events of the first pods' start. The pods are compact ([`PodState`]): a million
    /// fit in well under 2 GB.
    pub fn populate(&mut self, c: &mut Cluster, now_ms: u64) {
        self.last_ms = now_ms;
        let nss: Vec<String> = (0..self.cfg.namespaces.max(1))
            .map(|i| format!("ns-{i}"))
            .collect();
        for ns in &nss {
            let id = Identity::new(&mut self.rng, "", ns, now_ms);
            let _ = c.create_object(NAMESPACES, &kinds::namespace(&id, false), now_ms);
        }
        let uid = self.rng.uuid();
        let _ = c.create_object(
            CUSTOMRESOURCEDEFINITIONS,
            &kinds::widget_crd(&uid, None, now_ms),
            now_ms,
        );
        for rt in resources::extra_groups() {
            let uid = self.rng.uuid();
            let _ = c.create_object(
                CUSTOMRESOURCEDEFINITIONS,
                &kinds::simple_crd(rt, &uid, now_ms),
                now_ms,
            );
        }
        let control_plane = NodeParams::random(&mut self.rng, 0, now_ms);
        let _ = c.create_object(NODES, &kinds::node(&control_plane), now_ms);
        for i in 0..u32::from(node_count(self.cfg.pods)) {
            let p = NodeParams::worker(&mut self.rng, i, now_ms);
            let _ = c.create_object(NODES, &kinds::node(&p), now_ms);
            self.nodes.push(p);
        }
        for ns in &nss {
            let id = Identity::new(&mut self.rng, ns, "db-credentials", now_ms);
            let creds =
                kinds::secret_opaque(&id, &[("password", b"s3cr3t-p4ss"), ("username", b"app")]);
            let _ = c.create_object(SECRETS, &creds, now_ms);
            let id = Identity::new(&mut self.rng, ns, "web-tls", now_ms);
            let tls = kinds::secret_tls(&mut self.rng, &id);
            let _ = c.create_object(SECRETS, &tls, now_ms);
        }
        let ns_arcs: Vec<Arc<str>> = nss.iter().map(|n| Arc::from(n.as_str())).collect();
        let n_deploys = self.cfg.pods.div_ceil(10).clamp(1, MAX_DEPLOYMENTS);
        // Pod i belongs to Deployment (i / 10) % n: blocks of ten, round robin.
        let mut replicas_of = vec![0u32; n_deploys];
        for i in 0..self.cfg.pods {
            replicas_of[i / 10 % n_deploys] += 1;
        }
        for d in 0..n_deploys {
            let ns = &nss[d % nss.len()];
            let name = format!("app-{d}");
            let hash = format!("{:x}", 0x006c_4f9b_0000_u64 + self.rng.below(0xffff));
            let replicas = replicas_of[d];
            let dp = DeploymentParams {
                id: Identity::new(&mut self.rng, ns, &name, now_ms),
                controller: None,
                app: name.clone(),
                template_hash: hash.clone(),
                image: format!("registry.example.com/{ns}/{name}:1.0.0"),
                replicas,
                ready: replicas,
            };
            let _ = c.create_object(DEPLOYMENTS, &kinds::deployment(&dp), now_ms);
            let uid = dp.id.uid.clone();
            let _ = c.create(CONFIGMAPS, json!({"metadata": {"name": format!("{name}-config"), "namespace": ns, "labels": {"app": name}}, "data": {"LOG_LEVEL": "info", "config.yaml": "listen: :8080\n"}}), now_ms);
            let info = Arc::new(DeployInfo {
                namespace: ns_arcs[d % nss.len()].clone(),
                app: name.clone().into_boxed_str(),
                hash: hash.clone().into_boxed_str(),
                rs_uid: self.rng.uuid().into_boxed_str(),
            });
            let rs = ReplicaSetParams {
                id: Identity {
                    name: format!("{name}-{hash}"),
                    namespace: ns.clone(),
                    uid: info.rs_uid.to_string(),
                    resource_version: None,
                    created_ms: now_ms,
                },
                app: name.clone(),
                deployment_uid: uid,
                template_hash: hash,
                image: format!("registry.example.com/{ns}/{name}:1.0.0"),
                replicas,
                ready: replicas,
            };
            let _ = c.create_object(REPLICASETS, &kinds::replica_set(&rs), now_ms);
            let kind = match d % 25 {
                3 => ServiceKind::LoadBalancer,
                7 | 17 => ServiceKind::Headless,
                _ if d % 10 == 1 => ServiceKind::NodePort,
                _ => ServiceKind::ClusterIP,
            };
            let svc = ServiceParams::random(&mut self.rng, ns, &name, kind, now_ms);
            let _ = c.create_object(SERVICES, &kinds::service(&svc), now_ms);
            self.deploys.push(Deploy {
                info,
                deployment: dp,
                rs,
                live: 0,
                unreported: false,
                reported_ms: now_ms,
                revision: 1,
                changed_ms: now_ms,
                rolling: None,
            });
        }
        self.pods.reserve(self.cfg.pods);
        // The first pods' start is history the cluster already has: no budget for it.
        self.events.tokens = f64::INFINITY;
        for i in 0..self.cfg.pods {
            let d = i / 10 % self.deploys.len();
            let created = self.create_pod(c, d, now_ms, true);
            if let (Some((state, rv)), true) = (created, i < INITIAL_EVENT_PODS) {
                let name = state.name();
                let pod = pod_ref(&state, &name, Some(rv));
                let pull_ms = 800 + self.rng.below(4000);
                let image_bytes = 20_000_000 + self.rng.below(60_000_000);
                for event in [
                    PodEvent::Scheduled,
                    PodEvent::Pulling,
                    PodEvent::Pulled {
                        pull_ms,
                        image_bytes,
                    },
                    PodEvent::Created,
                    PodEvent::Started,
                ] {
                    self.emit(c, &pod, event, now_ms);
                }
            }
        }
        self.events.tokens = EVENT_BURST;
        self.events.refilled_ms = now_ms;
        for (i, ns) in nss.iter().enumerate().take(3) {
            let mut p = WidgetParams::random(&mut self.rng, ns, &format!("widget-{i}"), now_ms);
            p.synced_ms = now_ms;
            let _ = c.create_object(WIDGETS, &kinds::widget(&p), now_ms);
            // The widget's operator adopts its namespace's first Deployment, as a
            // controller adopts an orphan that matches it: a custom resource that owns
            // a Deployment, its ReplicaSets and their Pods.
            if let Some(dep) = self
                .deploys
                .get_mut(i)
                .filter(|d| *d.info.namespace == **ns)
            {
                dep.deployment.controller = Some(kinds::ControllerRef {
                    api_version: "kubelive.dev/v1".into(),
                    kind: "Widget".into(),
                    name: p.id.name.clone(),
                    uid: p.id.uid.clone(),
                });
                let _ = c.update_object(DEPLOYMENTS, &kinds::deployment(&dep.deployment), now_ms);
            }
        }
        // The namespace kube-apiserver makes for the control plane (its leases live
        // there), written last so that every object above keeps its resourceVersion.
        let id = Identity {
            name: "kube-system".into(),
            namespace: String::new(),
            uid: self.system_uid.clone(),
            resource_version: None,
            created_ms: now_ms,
        };
        let _ = c.create_object(NAMESPACES, &kinds::system_namespace(&id), now_ms);
    }

    /// Creates a pod of Deployment `d`; its state and resourceVersion.
    fn create_pod(
        &mut self,
        c: &mut Cluster,
        d: usize,
        now_ms: u64,
        settled: bool,
    ) -> Option<(PodState, u64)> {
        let nodes = self.nodes.len().max(1) as u16;
        let state = PodState::random(&mut self.rng, &self.deploys[d].info, nodes, now_ms, settled);
        let r = c.create_pod(state.clone(), now_ms).ok()?;
        self.pods.push((r.name, d));
        self.deploys[d].live += 1;
        Some((state, r.resource_version))
    }

    /// Writes event `event` about `pod` (a repeated probe failure or back-off updates the
    /// pod's event of that reason, as the kubelet's event correlator does), keeping at
    /// most [`MAX_EVENTS`].
    fn emit(&mut self, c: &mut Cluster, pod: &PodRef, event: PodEvent, now_ms: u64) {
        if !self.events.admit(now_ms) {
            return;
        }
        let repeats = matches!(event, PodEvent::Unhealthy | PodEvent::BackOff);
        let key = |reason| (format!("{}/{}", pod.namespace, pod.name), reason);
        if repeats {
            let reason = if event == PodEvent::Unhealthy {
                "Unhealthy"
            } else {
                "BackOff"
            };
            if let Some(e) = self.events.repeated.get_mut(&key(reason)) {
                e.count += 1;
                e.last_ms = now_ms;
                if c.update_object(EVENTS, &kinds::event(e), now_ms).is_ok() {
                    return;
                }
                // Expired or dropped: a new event.
                self.events.repeated.remove(&key(reason));
            }
        }
        let e = kinds::pod_event(&mut self.rng, pod, event, now_ms);
        let Ok(r) = c.create_object(EVENTS, &kinds::event(&e), now_ms) else {
            return;
        };
        self.events
            .order
            .push_back((Arc::from(r.namespace.as_str()), r.name));
        if repeats {
            self.events.repeated.insert(key(e.reason), e);
        }
        while self.events.order.len() > MAX_EVENTS {
            if let Some((ns, name)) = self.events.order.pop_front() {
                let _ = c.delete(EVENTS, &ns, &name, now_ms);
            }
        }
    }

    /// Moves the churn clock to `now_ms` without making changes (e.g. after a slow populate).
    pub fn skip_to(&mut self, now_ms: u64) {
        self.last_ms = self.last_ms.max(now_ms);
    }

    /// Applies the churn due since the last call (`churn_per_sec` × elapsed). Returns the
    /// number of changes made.
    pub fn tick(&mut self, c: &mut Cluster, now_ms: u64) -> usize {
        self.run_rollouts(c, now_ms);
        self.run_cronjobs(c, now_ms);
        self.run_statefulsets(c, now_ms);
        let dt = now_ms.saturating_sub(self.last_ms) as f64 / 1000.0;
        self.last_ms = self.last_ms.max(now_ms);
        self.carry += dt * self.cfg.churn_per_sec;
        let n = self.carry.floor() as usize;
        self.carry -= n as f64;
        for _ in 0..n {
            self.step(c, now_ms);
        }
        n
    }

    /// Deployment `d` scaled: its ReplicaSet and Deployment report the live pods, at most
    /// every [`REPORT_EVERY_MS`] (the controllers' status writes, batched: at 1,000
    /// changes a second one write per pod would be most of the cluster's writes).
    fn scaled(&mut self, c: &mut Cluster, d: usize, now_ms: u64) {
        let due = self.deploys[d].reported_ms + REPORT_EVERY_MS;
        if now_ms >= due {
            self.report_replicas(c, d, now_ms);
        } else if !self.deploys[d].unreported {
            self.deploys[d].unreported = true;
            self.reports.insert((due, d));
        }
    }

    /// The ReplicaSet and the Deployment of `d` report its live pods.
    fn report_replicas(&mut self, c: &mut Cluster, d: usize, now_ms: u64) {
        let dep = &mut self.deploys[d];
        dep.unreported = false;
        dep.reported_ms = now_ms;
        if dep.rolling.is_some() {
            // The rollout's steps write its ReplicaSets and Deployment.
            return;
        }
        dep.rs.replicas = dep.live;
        dep.rs.ready = dep.live;
        dep.deployment.replicas = dep.live;
        dep.deployment.ready = dep.live;
        let rs = kinds::replica_set_at(&dep.rs, dep.revision, dep.live);
        let _ = c.update_object(REPLICASETS, &rs, now_ms);
        let rollout = kinds::Rollout {
            revision: dep.revision,
            desired: dep.live,
            updated: dep.live,
            complete: true,
            changed_ms: dep.changed_ms,
        };
        let deployment = kinds::deployment_at(&dep.deployment, &rollout);
        let _ = c.update_object(DEPLOYMENTS, &deployment, now_ms);
    }

    /// Reports the Deployments whose scale waited long enough.
    fn report_due(&mut self, c: &mut Cluster, now_ms: u64) {
        while let Some(&(due, d)) = self.reports.first() {
            if due > now_ms {
                break;
            }
            self.reports.pop_first();
            self.report_replicas(c, d, now_ms);
        }
    }

    /// Deletes pod `k` gracefully; its Deployment makes a new one.
    fn replace(&mut self, c: &mut Cluster, k: usize, now_ms: u64) {
        let d = self.remove(c, k, now_ms);
        if let Some((state, rv)) = self.create_pod(c, d, now_ms, false) {
            let pod = pod_ref(&state, &state.name(), Some(rv));
            self.emit(c, &pod, PodEvent::Scheduled, now_ms);
            self.emit(c, &pod, PodEvent::Pulling, now_ms);
        }
    }

    /// Deletes pod `k` gracefully (the kubelet stops its container); its Deployment's index.
    fn remove(&mut self, c: &mut Cluster, k: usize, now_ms: u64) -> usize {
        let (name, d) = self.pods.swap_remove(k);
        self.deploys[d].live = self.deploys[d].live.saturating_sub(1);
        let grace = 1 + self.rng.below(MAX_GRACE_S);
        let ns = self.deploys[d].info.namespace.clone();
        let state = c.pod_state(&ns, &name).cloned();
        if let Ok(r) = c.delete_graceful(PODS, &ns, &name, grace, now_ms) {
            if let Some(state) = state {
                let pod = pod_ref(&state, &name, Some(r.resource_version));
                self.emit(c, &pod, PodEvent::Killing, now_ms);
            }
        }
        let key = format!("{ns}/{name}");
        self.events.repeated.retain(|(pod, _), _| *pod != key);
        d
    }

    /// A node goes NotReady (or Ready again), or is cordoned (or uncordoned).
    fn node_step(&mut self, c: &mut Cluster, now_ms: u64) {
        if self.nodes.is_empty() {
            return;
        }
        let i = self.rng.below(self.nodes.len() as u64) as usize;
        let cordon = self.rng.chance(0.5);
        let n = &mut self.nodes[i];
        if cordon {
            n.unschedulable = !n.unschedulable;
        } else {
            n.ready = if n.ready == "True" { "False" } else { "True" };
        }
        let _ = c.update_object(NODES, &kinds::node(n), now_ms);
    }

    /// One random change.
    pub fn step(&mut self, c: &mut Cluster, now_ms: u64) {
        if self.deploys.is_empty() {
            return;
        }
        self.report_due(c, now_ms);
        let roll = self.rng.below(100);
        if self.pods.is_empty() || roll < 5 {
            // A Deployment scales up.
            let d = self.rng.below(self.deploys.len() as u64) as usize;
            if let Some((state, rv)) = self.create_pod(c, d, now_ms, false) {
                let pod = pod_ref(&state, &state.name(), Some(rv));
                self.emit(c, &pod, PodEvent::Scheduled, now_ms);
                self.emit(c, &pod, PodEvent::Pulling, now_ms);
            }
            self.scaled(c, d, now_ms);
            return;
        }
        let k = self.rng.below(self.pods.len() as u64) as usize;
        if roll < 10 {
            // A Deployment scales down: as many as scale up, so the pod count stays put.
            let d = self.remove(c, k, now_ms);
            self.scaled(c, d, now_ms);
            return;
        }
        if roll == 99 && self.rng.chance(0.2) {
            self.node_step(c, now_ms);
            return;
        }
        let (name, d) = self.pods[k].clone();
        let ns = self.deploys[d].info.namespace.clone();
        let Some(state) = c.pod_state(&ns, &name).cloned() else {
            // Gone or changed by someone else as JSON: no longer the workload's to drive.
            self.pods.swap_remove(k);
            self.deploys[d].live = self.deploys[d].live.saturating_sub(1);
            return;
        };
        let phase = state.phase;
        match roll {
            10..=23 => self.replace(c, k, now_ms),
            24..=33 => {
                // Label change: moves the pod in or out of the `tier=backend` and `canary`
                // selectors (a change every time: an update that changes nothing is no
                // label change).
                let _ = c.update_pod(&ns, &name, now_ms, |p| p.canary = !p.canary);
            }
            34..=43 if phase == Phase::Running => {
                // The container restarts (OOMKilled); the pod stays Running.
                if let Ok(r) = c.update_pod(&ns, &name, now_ms, |p| {
                    p.restarts += 1;
                    p.oom_ms = Some(now_ms);
                    p.started_ms = now_ms;
                }) {
                    let pod = pod_ref(&state, &name, Some(r.resource_version));
                    self.emit(c, &pod, PodEvent::BackOff, now_ms);
                }
            }
            _ => match phase {
                Phase::Pending => {
                    let ready = self.rng.chance(0.8);
                    if let Ok(r) = c.update_pod(&ns, &name, now_ms, |p| {
                        p.phase = Phase::Running;
                        p.ready = ready;
                        p.started_ms = now_ms;
                        p.transition_ms = now_ms;
                    }) {
                        let pod = pod_ref(&state, &name, Some(r.resource_version));
                        let pull_ms = 800 + self.rng.below(4000);
                        let image_bytes = 20_000_000 + self.rng.below(60_000_000);
                        let pulled = PodEvent::Pulled {
                            pull_ms,
                            image_bytes,
                        };
                        for event in [pulled, PodEvent::Created, PodEvent::Started] {
                            self.emit(c, &pod, event, now_ms);
                        }
                    }
                }
                Phase::Running => {
                    let end = match self.rng.below(10) {
                        0 => Some(Phase::Succeeded),
                        1 => Some(Phase::Failed),
                        _ => None,
                    };
                    let unready = end.is_none() && state.ready;
                    if let Ok(r) = c.update_pod(&ns, &name, now_ms, |p| {
                        match end {
                            Some(e) => {
                                p.phase = e;
                                p.ready = false;
                                p.finished_ms = Some(now_ms);
                            }
                            None => p.ready = !p.ready,
                        }
                        p.transition_ms = now_ms;
                    }) {
                        if unready {
                            // Readiness lost: the kubelet's probe failed.
                            let pod = pod_ref(&state, &name, Some(r.resource_version));
                            self.emit(c, &pod, PodEvent::Unhealthy, now_ms);
                        }
                    }
                }
                Phase::Succeeded | Phase::Failed => self.replace(c, k, now_ms),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pod_is_about_4kb() {
        let s = pod_json(1, 42);
        assert!((3000..6000).contains(&s.len()), "{}", s.len());
        let v: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["kind"], "Pod");
        assert_eq!(pod_json(1, 42), s);
    }

    #[test]
    fn event_stream_lines_parse() {
        let b = watch_event_stream(7, 200);
        let lines: Vec<&[u8]> = b.split(|c| *c == b'\n').filter(|l| !l.is_empty()).collect();
        assert_eq!(lines.len(), 200);
        for l in lines {
            let v: Value = serde_json::from_slice(l).unwrap();
            assert!(
                ["ADDED", "MODIFIED", "DELETED", "BOOKMARK"].contains(&v["type"].as_str().unwrap())
            );
        }
    }
}
