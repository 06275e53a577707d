//! A generator of realistic Kubernetes Pod JSON (about 4 KB each, with
//! managedFields, ownerReferences, probes, conditions and containerStatuses) and of
//! watch streams over them. Shared by the decode benches and tests (`#[path]`).
#![allow(dead_code)]

use serde_json::{json, Value};

/// xorshift64*: small, seeded, good enough for test data.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    pub fn hex(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b"0123456789abcdef"[self.below(16) as usize]))
            .collect()
    }
    pub fn uuid(&mut self) -> String {
        format!(
            "{}-{}-{}-{}-{}",
            self.hex(8),
            self.hex(4),
            self.hex(4),
            self.hex(4),
            self.hex(12)
        )
    }
}

const APPS: &[&str] = &[
    "checkout", "payments", "frontend", "search", "catalog", "auth",
];
const NAMESPACES: &[&str] = &["default", "shop", "platform", "kube-system"];

fn ts(rng: &mut Rng) -> String {
    format!(
        "2025-0{}-1{}T0{}:{}{}:{}{}Z",
        1 + rng.below(9),
        rng.below(10),
        rng.below(10),
        rng.below(6),
        rng.below(10),
        rng.below(6),
        rng.below(10)
    )
}

/// One realistic pod as a JSON value. `i` makes the name unique.
pub fn pod(rng: &mut Rng, i: usize, rv: u64) -> Value {
    let app = APPS[rng.below(APPS.len() as u64) as usize];
    let ns = NAMESPACES[rng.below(NAMESPACES.len() as u64) as usize];
    let hash = rng.hex(10);
    let name = format!("{app}-{hash}-{}{}", rng.hex(5), i);
    let created = ts(rng);
    let node = format!("ip-10-0-{}-{}.ec2.internal", rng.below(255), rng.below(255));
    let restarts = if rng.below(5) == 0 { rng.below(30) } else { 0 };
    let crash = restarts > 20;
    let state = if crash {
        json!({"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container"}})
    } else {
        json!({"running": {"startedAt": created}})
    };
    let container = |cname: &str, port: u64| {
        json!({
            "name": cname,
            "image": format!("registry.example.com/{app}/{cname}:v1.{}.{}", port % 7, port % 13),
            "ports": [{"name": "http", "containerPort": port, "protocol": "TCP"}],
            "env": [
                {"name": "APP_NAME", "value": app},
                {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}
            ],
            "resources": {"limits": {"cpu": "500m", "memory": "512Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
            "livenessProbe": {"httpGet": {"path": "/healthz", "port": port, "scheme": "HTTP"}, "initialDelaySeconds": 10, "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
            "readinessProbe": {"httpGet": {"path": "/ready", "port": port, "scheme": "HTTP"}, "timeoutSeconds": 1, "periodSeconds": 5, "successThreshold": 1, "failureThreshold": 3},
            "volumeMounts": [{"name": "kube-api-access", "readOnly": true, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
            "imagePullPolicy": "IfNotPresent"
        })
    };
    let cstatus = |cname: &str, ready: bool| {
        json!({
            "name": cname,
            "state": state,
            "lastState": {},
            "ready": ready,
            "restartCount": restarts,
            "image": format!("registry.example.com/{app}/{cname}:v1"),
            "imageID": format!("registry.example.com/{app}/{cname}@sha256:{}", "ab12".repeat(16)),
            "containerID": format!("containerd://{}", "9f8e".repeat(16)),
            "started": ready
        })
    };
    let fields = json!({
        "f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}},
            "f:ownerReferences": {".": {}, format!("k:{{\"uid\":\"{}\"}}", rng.uuid()): {}}},
        "f:spec": {"f:containers": {"k:{\"name\":\"main\"}": {".": {}, "f:image": {}, "f:imagePullPolicy": {}, "f:name": {},
            "f:ports": {".": {}, "k:{\"containerPort\":8080,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}, "f:name": {}, "f:protocol": {}}},
            "f:resources": {".": {}, "f:limits": {".": {}, "f:cpu": {}, "f:memory": {}}, "f:requests": {".": {}, "f:cpu": {}, "f:memory": {}}},
            "f:terminationMessagePath": {}, "f:terminationMessagePolicy": {}}},
            "f:dnsPolicy": {}, "f:restartPolicy": {}, "f:schedulerName": {}}
    });
    let status_fields = json!({
        "f:status": {"f:conditions": {"k:{\"type\":\"ContainersReady\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}},
            "k:{\"type\":\"Initialized\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}},
            "k:{\"type\":\"Ready\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}},
            "f:containerStatuses": {}, "f:hostIP": {}, "f:phase": {}, "f:podIP": {}, "f:podIPs": {".": {}, "k:{\"ip\":\"10.1.2.3\"}": {".": {}, "f:ip": {}}}, "f:startTime": {}}
    });
    let ready = !crash;
    let cond = |t: &str, s: bool| json!({"type": t, "status": if s {"True"} else {"False"}, "lastProbeTime": null, "lastTransitionTime": created});
    json!({
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": {
            "name": name,
            "generateName": format!("{app}-{hash}-"),
            "namespace": ns,
            "uid": rng.uuid(),
            "resourceVersion": rv.to_string(),
            "creationTimestamp": created,
            "labels": {"app": app, "pod-template-hash": hash, "tier": "backend"},
            "annotations": {"prometheus.io/scrape": "true"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("{app}-{hash}"), "uid": rng.uuid(), "controller": true, "blockOwnerDeletion": true}],
            "managedFields": [
                {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1", "time": created, "fieldsType": "FieldsV1", "fieldsV1": fields},
                {"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": created, "fieldsType": "FieldsV1", "fieldsV1": status_fields, "subresource": "status"}
            ]
        },
        "spec": {
            "volumes": [{"name": "kube-api-access", "projected": {"sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}], "defaultMode": 420}}],
            "containers": [container("main", 8080), json!({"name": "sidecar", "image": format!("registry.example.com/{app}/sidecar:v2"), "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}, "imagePullPolicy": "IfNotPresent"})],
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst",
            "serviceAccountName": "default",
            "nodeName": node,
            "securityContext": {},
            "schedulerName": "default-scheduler",
            "priority": 0,
            "enableServiceLinks": true,
            "preemptionPolicy": "PreemptLowerPriority"
        },
        "status": {
            "phase": "Running",
            "conditions": [cond("Initialized", true), cond("Ready", ready), cond("ContainersReady", ready), cond("PodScheduled", true)],
            "hostIP": "10.0.1.23",
            "podIP": format!("10.1.{}.{}", rng.below(255), rng.below(255)),
            "podIPs": [{"ip": "10.1.2.3"}],
            "startTime": created,
            "containerStatuses": [cstatus("main", ready), cstatus("sidecar", true)],
            "qosClass": "Burstable"
        }
    })
}

/// A watch stream of about `target_bytes`: ADDED for new pods, MODIFIED and DELETED
/// of known ones, and a BOOKMARK now and then. Returns the stream and the event count.
pub fn watch_stream(seed: u64, target_bytes: usize) -> (Vec<u8>, usize) {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(target_bytes + 8192);
    let mut live: Vec<Value> = Vec::new();
    let mut rv = 1000u64;
    let mut n = 0;
    while out.len() < target_bytes {
        rv += 1;
        let roll = rng.below(100);
        let (ty, obj) = if roll < 2 {
            (
                "BOOKMARK",
                json!({"kind": "Pod", "apiVersion": "v1", "metadata": {"resourceVersion": rv.to_string(), "creationTimestamp": null}, "spec": {"containers": null}, "status": {}}),
            )
        } else if live.len() < 50 || roll < 40 {
            let p = pod(&mut rng, n, rv);
            live.push(p.clone());
            ("ADDED", p)
        } else if roll < 90 {
            let k = rng.below(live.len() as u64) as usize;
            let mut p = live[k].clone();
            p["metadata"]["resourceVersion"] = json!(rv.to_string());
            p["status"]["containerStatuses"][0]["restartCount"] = json!(rng.below(9));
            live[k] = p.clone();
            ("MODIFIED", p)
        } else {
            let k = rng.below(live.len() as u64) as usize;
            let mut p = live.swap_remove(k);
            p["metadata"]["resourceVersion"] = json!(rv.to_string());
            ("DELETED", p)
        };
        // The apiserver's key order: "type" first.
        out.extend_from_slice(format!("{{\"type\":\"{ty}\",\"object\":").as_bytes());
        serde_json::to_writer(&mut out, &obj).expect("serialize");
        out.extend_from_slice(b"}\n");
        n += 1;
    }
    (out, n)
}
