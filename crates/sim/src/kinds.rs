//! Realistic objects of the kinds users look at first, deterministic from a seed: Services
//! (ClusterIP, NodePort, LoadBalancer, headless), Nodes, Namespaces, ConfigMaps, Secrets
//! (Opaque, kubernetes.io/tls), core/v1 Events (the ones the scheduler and the kubelet emit
//! over a pod's life, with their real message texts), ReplicaSets, and the
//! `widgets.kubelive.dev` CustomResourceDefinition with widget objects.
//!
//! Every generator returns the object as **compact JSON text in the apiserver's wire order**
//! (Go struct field order: kind, apiVersion, metadata, spec, status; maps with sorted keys;
//! Go string escaping), because the workspace's `serde_json` sorts object keys (no
//! `preserve_order`). Custom resources are unstructured on the server, so a widget's keys are
//! sorted at every level (`kubectl get -o json` sorts every kind's keys alike: it re-encodes).
//! Timestamps use the sim clock ([`crate::util::timestamp`]).

use std::fmt::Write as _;

use serde_json::json;

use crate::printers::gojson::{write_str, write_value};
use crate::printers::parse_rfc3339_ms;
use crate::util::{timestamp, Rng};

/// A JSON value that keeps its fields in the order given.
#[derive(Debug, Clone, PartialEq)]
enum J {
    Null,
    Bool(bool),
    Int(i64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl J {
    fn write(&self, out: &mut String) {
        match self {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Int(i) => {
                let _ = write!(out, "{i}");
            }
            J::Str(s) => write_str(out, s),
            J::Arr(items) => {
                out.push('[');
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    x.write(out);
                }
                out.push(']');
            }
            J::Obj(fields) => {
                out.push('{');
                for (i, (k, x)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(out, k);
                    out.push(':');
                    x.write(out);
                }
                out.push('}');
            }
        }
    }

    fn into_json(self) -> String {
        let mut out = String::with_capacity(1024);
        self.write(&mut out);
        out
    }
}

impl From<&str> for J {
    fn from(s: &str) -> J {
        J::Str(s.to_string())
    }
}
impl From<String> for J {
    fn from(s: String) -> J {
        J::Str(s)
    }
}
impl From<&String> for J {
    fn from(s: &String) -> J {
        J::Str(s.clone())
    }
}
impl From<i64> for J {
    fn from(i: i64) -> J {
        J::Int(i)
    }
}
impl From<u32> for J {
    fn from(i: u32) -> J {
        J::Int(i64::from(i))
    }
}
impl From<bool> for J {
    fn from(b: bool) -> J {
        J::Bool(b)
    }
}
impl From<Vec<J>> for J {
    fn from(a: Vec<J>) -> J {
        J::Arr(a)
    }
}

/// An object with fields in this order.
fn obj<const N: usize>(fields: [(&str, J); N]) -> J {
    J::Obj(
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// An object built field by field, skipping the fields Go omits (`omitempty`).
#[derive(Default)]
struct Fields(Vec<(String, J)>);

impl Fields {
    fn put(mut self, k: &str, v: impl Into<J>) -> Self {
        self.0.push((k.to_string(), v.into()));
        self
    }
    fn put_if(self, cond: bool, k: &str, v: impl Into<J>) -> Self {
        if cond {
            self.put(k, v)
        } else {
            self
        }
    }
    fn done(self) -> J {
        J::Obj(self.0)
    }
}

/// A Go `map[string]string`: keys sorted.
fn string_map(pairs: &[(&str, &str)]) -> J {
    let mut v: Vec<(String, J)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), J::from(*v)))
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    J::Obj(v)
}

/// `f:` field set entries of a managedFields `fieldsV1` (leaves are `{}`).
fn field_set(value: serde_json::Value) -> J {
    fn conv(v: &serde_json::Value) -> J {
        match v {
            serde_json::Value::Object(m) => {
                J::Obj(m.iter().map(|(k, x)| (k.clone(), conv(x))).collect())
            }
            serde_json::Value::String(s) => J::Str(s.clone()),
            _ => J::Null,
        }
    }
    conv(&value)
}

/// What the apiserver assigns to every object: identity, version, creation time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub name: String,
    /// `""` for cluster-scoped kinds.
    pub namespace: String,
    pub uid: String,
    /// `None`: leave `resourceVersion` out (the store sets it).
    pub resource_version: Option<u64>,
    /// Sim time of creation (ms), rendered with [`crate::util::timestamp`].
    pub created_ms: u64,
}

impl Identity {
    /// A new identity with a seeded uid and no resourceVersion.
    pub fn new(rng: &mut Rng, namespace: &str, name: &str, created_ms: u64) -> Identity {
        Identity {
            name: name.to_string(),
            namespace: namespace.to_string(),
            uid: rng.uuid(),
            resource_version: None,
            created_ms,
        }
    }

    fn created(&self) -> String {
        timestamp(self.created_ms)
    }
}

/// ObjectMeta in Go field order: name, generateName, namespace, uid, resourceVersion,
/// generation, creationTimestamp, deletionTimestamp, labels, annotations, ownerReferences,
/// finalizers, managedFields.
struct Meta<'a> {
    id: &'a Identity,
    generate_name: Option<String>,
    generation: Option<i64>,
    deletion_ms: Option<u64>,
    labels: Vec<(&'a str, &'a str)>,
    annotations: Vec<(&'a str, &'a str)>,
    owner: Option<J>,
    finalizers: Vec<&'a str>,
    managed: Vec<J>,
}

impl<'a> Meta<'a> {
    fn new(id: &'a Identity) -> Self {
        Meta {
            id,
            generate_name: None,
            generation: None,
            deletion_ms: None,
            labels: Vec::new(),
            annotations: Vec::new(),
            owner: None,
            finalizers: Vec::new(),
            managed: Vec::new(),
        }
    }

    fn into_j(self) -> J {
        let id = self.id;
        Fields::default()
            .put("name", &id.name)
            .put_if(
                self.generate_name.is_some(),
                "generateName",
                self.generate_name.unwrap_or_default(),
            )
            .put_if(!id.namespace.is_empty(), "namespace", &id.namespace)
            .put("uid", &id.uid)
            .put_if(
                id.resource_version.is_some(),
                "resourceVersion",
                id.resource_version.unwrap_or(0).to_string(),
            )
            .put_if(
                self.generation.is_some(),
                "generation",
                self.generation.unwrap_or(0),
            )
            .put("creationTimestamp", id.created())
            .put_if(
                self.deletion_ms.is_some(),
                "deletionTimestamp",
                timestamp(self.deletion_ms.unwrap_or(0)),
            )
            .put_if(!self.labels.is_empty(), "labels", string_map(&self.labels))
            .put_if(
                !self.annotations.is_empty(),
                "annotations",
                string_map(&self.annotations),
            )
            .put_if(
                self.owner.is_some(),
                "ownerReferences",
                J::Arr(self.owner.into_iter().collect()),
            )
            .put_if(
                !self.finalizers.is_empty(),
                "finalizers",
                J::Arr(self.finalizers.iter().map(|f| J::from(*f)).collect()),
            )
            .put_if(
                !self.managed.is_empty(),
                "managedFields",
                J::Arr(self.managed),
            )
            .done()
    }
}

/// One managedFields entry (Go order: manager, operation, apiVersion, time, fieldsType,
/// fieldsV1, subresource).
fn managed(
    manager: &str,
    api_version: &str,
    at_ms: u64,
    fields: serde_json::Value,
    subresource: Option<&str>,
) -> J {
    Fields::default()
        .put("manager", manager)
        .put("operation", "Update")
        .put("apiVersion", api_version)
        .put("time", timestamp(at_ms))
        .put("fieldsType", "FieldsV1")
        .put("fieldsV1", field_set(fields))
        .put_if(
            subresource.is_some(),
            "subresource",
            subresource.unwrap_or(""),
        )
        .done()
}

fn typed(kind: &str, api_version: &str, rest: Vec<(&str, J)>) -> String {
    let mut fields = vec![
        ("kind".to_string(), J::from(kind)),
        ("apiVersion".to_string(), J::from(api_version)),
    ];
    fields.extend(rest.into_iter().map(|(k, v)| (k.to_string(), v)));
    J::Obj(fields).into_json()
}

// ---------------------------------------------------------------- Service

/// How a Service is exposed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServiceKind {
    ClusterIP,
    NodePort,
    LoadBalancer,
    /// `clusterIP: None`.
    Headless,
}

/// One port of a Service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServicePort {
    pub name: String,
    pub port: u32,
    pub target_port: u32,
    /// Set for NodePort and LoadBalancer services.
    pub node_port: Option<u32>,
}

/// Everything that varies between generated Services.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceParams {
    pub id: Identity,
    pub kind: ServiceKind,
    /// The `app` label selected.
    pub app: String,
    pub cluster_ip: String,
    pub ports: Vec<ServicePort>,
    /// The load balancer's ingress IP (LoadBalancer only; `None`: still `<pending>`).
    pub ingress_ip: Option<String>,
}

impl ServiceParams {
    /// A Service for `app` in `namespace`: http 80→8080 (and https 443→8443 for
    /// LoadBalancers), node ports in 30000-32767, a cluster IP in 10.96.0.0/12.
    pub fn random(
        rng: &mut Rng,
        namespace: &str,
        app: &str,
        kind: ServiceKind,
        created_ms: u64,
    ) -> ServiceParams {
        let id = Identity::new(rng, namespace, app, created_ms);
        let cluster_ip = match kind {
            ServiceKind::Headless => "None".to_string(),
            _ => format!(
                "10.{}.{}.{}",
                96 + rng.below(16),
                rng.below(256),
                1 + rng.below(254)
            ),
        };
        let node_port = |rng: &mut Rng| match kind {
            ServiceKind::NodePort | ServiceKind::LoadBalancer => {
                Some(30000 + rng.below(2768) as u32)
            }
            _ => None,
        };
        let mut ports = vec![ServicePort {
            name: "http".into(),
            port: 80,
            target_port: 8080,
            node_port: node_port(rng),
        }];
        if kind == ServiceKind::LoadBalancer {
            ports.push(ServicePort {
                name: "https".into(),
                port: 443,
                target_port: 8443,
                node_port: node_port(rng),
            });
        }
        let ingress_ip = (kind == ServiceKind::LoadBalancer)
            .then(|| format!("203.0.113.{}", 1 + rng.below(254)));
        ServiceParams {
            id,
            kind,
            app: app.to_string(),
            cluster_ip,
            ports,
            ingress_ip,
        }
    }
}

/// A Service as the apiserver serves it after defaulting (sessionAffinity, ipFamilies,
/// internalTrafficPolicy, ...).
pub fn service(p: &ServiceParams) -> String {
    let external = matches!(p.kind, ServiceKind::NodePort | ServiceKind::LoadBalancer);
    let type_ = match p.kind {
        ServiceKind::ClusterIP | ServiceKind::Headless => "ClusterIP",
        ServiceKind::NodePort => "NodePort",
        ServiceKind::LoadBalancer => "LoadBalancer",
    };
    let mut meta = Meta::new(&p.id);
    meta.labels = vec![("app", &p.app)];
    meta.managed = vec![managed(
        "kubectl-client-side-apply",
        "v1",
        p.id.created_ms,
        json!({"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
               "f:spec": {"f:internalTrafficPolicy": {}, "f:ports": {".": {}}, "f:selector": {}, "f:sessionAffinity": {}, "f:type": {}}}),
        None,
    )];
    if p.ingress_ip.is_some() {
        meta.managed.push(managed(
            "kube-controller-manager",
            "v1",
            p.id.created_ms + 3000,
            json!({"f:status": {"f:loadBalancer": {"f:ingress": {}}}}),
            Some("status"),
        ));
    }
    let ports: Vec<J> = p
        .ports
        .iter()
        .map(|sp| {
            Fields::default()
                .put("name", &sp.name)
                .put("protocol", "TCP")
                .put("port", sp.port)
                .put("targetPort", sp.target_port)
                .put_if(
                    sp.node_port.is_some(),
                    "nodePort",
                    sp.node_port.unwrap_or(0),
                )
                .done()
        })
        .collect();
    let spec = Fields::default()
        .put("ports", ports)
        .put("selector", string_map(&[("app", &p.app)]))
        .put("clusterIP", &p.cluster_ip)
        .put("clusterIPs", vec![J::from(&p.cluster_ip)])
        .put("type", type_)
        .put("sessionAffinity", "None")
        .put_if(external, "externalTrafficPolicy", "Cluster")
        .put("ipFamilies", vec![J::from("IPv4")])
        .put("ipFamilyPolicy", "SingleStack")
        .put_if(
            p.kind == ServiceKind::LoadBalancer,
            "allocateLoadBalancerNodePorts",
            true,
        )
        .put("internalTrafficPolicy", "Cluster")
        .done();
    let lb = match &p.ingress_ip {
        Some(ip) => obj([(
            "ingress",
            vec![obj([("ip", ip.into()), ("ipMode", "VIP".into())])].into(),
        )]),
        None => J::Obj(Vec::new()),
    };
    typed(
        "Service",
        "v1",
        vec![
            ("metadata", meta.into_j()),
            ("spec", spec),
            ("status", obj([("loadBalancer", lb)])),
        ],
    )
}

// ---------------------------------------------------------------- Node

/// Whether a node runs the control plane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeRole {
    ControlPlane,
    Worker,
}

/// Everything that varies between generated Nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeParams {
    pub id: Identity,
    pub role: NodeRole,
    /// The Ready condition's status: `True`, `False` or `Unknown` (kubelet gone).
    pub ready: &'static str,
    /// Cordoned (`kubectl cordon`): `spec.unschedulable` and its taint.
    pub unschedulable: bool,
    pub internal_ip: String,
    pub pod_cidr: String,
    pub kubelet_version: String,
    pub os_image: String,
    pub kernel_version: String,
    pub container_runtime: String,
    pub cpu: u32,
    pub memory_ki: u64,
}

impl NodeParams {
    /// Node `index` of a kubeadm cluster on containerd (index 0 is the control plane).
    pub fn random(rng: &mut Rng, index: u32, created_ms: u64) -> NodeParams {
        let role = if index == 0 {
            NodeRole::ControlPlane
        } else {
            NodeRole::Worker
        };
        let name = match role {
            NodeRole::ControlPlane => "control-plane".to_string(),
            NodeRole::Worker => format!("node-{index}"),
        };
        let kernels = ["6.8.0-51-generic", "6.8.0-49-generic", "5.15.0-127-generic"];
        let images = ["Ubuntu 24.04.1 LTS", "Ubuntu 22.04.5 LTS"];
        NodeParams {
            id: Identity::new(rng, "", &name, created_ms),
            role,
            ready: "True",
            unschedulable: false,
            internal_ip: format!("192.168.0.{}", 10 + index),
            pod_cidr: format!("10.244.{index}.0/24"),
            kubelet_version: "v1.32.0".into(),
            os_image: rng.pick(&images).to_string(),
            kernel_version: rng.pick(&kernels).to_string(),
            container_runtime: "containerd://1.7.24".into(),
            cpu: [4, 8, 16][rng.below(3) as usize],
            memory_ki: [16_365_112, 32_863_244, 65_842_368][rng.below(3) as usize],
        }
    }

    /// Worker node `node-<i>` (the names the pods' `spec.nodeName` use), its internal IP
    /// from [`crate::genpod::node_ip`].
    pub fn worker(rng: &mut Rng, i: u32, created_ms: u64) -> NodeParams {
        let mut p = NodeParams::random(rng, i + 1, created_ms);
        p.id.name = format!("node-{i}");
        p.internal_ip = crate::genpod::node_ip(i);
        let n = i + 1;
        p.pod_cidr = format!("10.{}.{}.0/24", 244 + n / 256, n % 256);
        p
    }
}

/// A Node as the kubelet reports it: capacity, the four conditions, addresses, nodeInfo,
/// a few images.
pub fn node(p: &NodeParams) -> String {
    let created = p.id.created_ms;
    let host = p.id.name.as_str();
    let mut labels = vec![
        ("beta.kubernetes.io/arch", "amd64"),
        ("beta.kubernetes.io/os", "linux"),
        ("kubernetes.io/arch", "amd64"),
        ("kubernetes.io/hostname", host),
        ("kubernetes.io/os", "linux"),
    ];
    if p.role == NodeRole::ControlPlane {
        labels.push(("node-role.kubernetes.io/control-plane", ""));
        labels.push((
            "node.kubernetes.io/exclude-from-external-load-balancers",
            "",
        ));
    }
    let mut meta = Meta::new(&p.id);
    meta.labels = labels;
    meta.annotations = vec![
        (
            "kubeadm.alpha.kubernetes.io/cri-socket",
            "unix:///var/run/containerd/containerd.sock",
        ),
        ("node.alpha.kubernetes.io/ttl", "0"),
        (
            "volumes.kubernetes.io/controller-managed-attach-detach",
            "true",
        ),
    ];
    meta.managed = vec![
        managed(
            "kubelet",
            "v1",
            created,
            json!({"f:metadata": {"f:annotations": {".": {}, "f:volumes.kubernetes.io/controller-managed-attach-detach": {}},
                "f:labels": {".": {}, "f:beta.kubernetes.io/arch": {}, "f:beta.kubernetes.io/os": {}, "f:kubernetes.io/arch": {}, "f:kubernetes.io/hostname": {}, "f:kubernetes.io/os": {}}}}),
            None,
        ),
        managed(
            "kube-controller-manager",
            "v1",
            created + 15_000,
            json!({"f:metadata": {"f:annotations": {"f:node.alpha.kubernetes.io/ttl": {}}}, "f:spec": {"f:podCIDR": {}, "f:podCIDRs": {".": {}}}}),
            None,
        ),
        managed(
            "kubelet",
            "v1",
            created + 20_000,
            json!({"f:status": {"f:conditions": {"k:{\"type\":\"Ready\"}": {"f:lastHeartbeatTime": {}, "f:lastTransitionTime": {}, "f:message": {}, "f:reason": {}, "f:status": {}}}, "f:images": {}, "f:nodeInfo": {"f:bootID": {}}}}),
            Some("status"),
        ),
    ];
    let mut taints = Vec::new();
    if p.role == NodeRole::ControlPlane {
        taints.push(obj([
            ("key", "node-role.kubernetes.io/control-plane".into()),
            ("effect", "NoSchedule".into()),
        ]));
    }
    if p.unschedulable {
        taints.push(obj([
            ("key", "node.kubernetes.io/unschedulable".into()),
            ("effect", "NoSchedule".into()),
            ("timeAdded", timestamp(created + 60_000).into()),
        ]));
    }
    if p.ready != "True" {
        let key = if p.ready == "Unknown" {
            "node.kubernetes.io/unreachable"
        } else {
            "node.kubernetes.io/not-ready"
        };
        for effect in ["NoSchedule", "NoExecute"] {
            taints.push(
                Fields::default()
                    .put("key", key)
                    .put("effect", effect)
                    .put_if(
                        effect == "NoExecute",
                        "timeAdded",
                        timestamp(created + 90_000),
                    )
                    .done(),
            );
        }
    }
    let spec = Fields::default()
        .put("podCIDR", &p.pod_cidr)
        .put("podCIDRs", vec![J::from(&p.pod_cidr)])
        .put_if(p.unschedulable, "unschedulable", true)
        .put_if(!taints.is_empty(), "taints", taints)
        .done();
    let resources = |memory_ki: u64| {
        obj([
            ("cpu", p.cpu.to_string().into()),
            ("ephemeral-storage", "101430960Ki".into()),
            ("hugepages-1Gi", "0".into()),
            ("hugepages-2Mi", "0".into()),
            ("memory", format!("{memory_ki}Ki").into()),
            ("pods", "110".into()),
        ])
    };
    let heartbeat = timestamp(created + 600_000);
    let since = timestamp(created);
    let condition = |ty: &str, status: &str, reason: &str, message: &str, at: &str| {
        obj([
            ("type", ty.into()),
            ("status", status.into()),
            ("lastHeartbeatTime", heartbeat.clone().into()),
            ("lastTransitionTime", at.into()),
            ("reason", reason.into()),
            ("message", message.into()),
        ])
    };
    let ready_since = timestamp(created + 20_000);
    let ready = match p.ready {
        "True" => condition(
            "Ready",
            "True",
            "KubeletReady",
            "kubelet is posting ready status",
            &ready_since,
        ),
        "False" => condition(
            "Ready",
            "False",
            "KubeletNotReady",
            "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized",
            &ready_since,
        ),
        _ => condition(
            "Ready",
            "Unknown",
            "NodeStatusUnknown",
            "Kubelet stopped posting node status.",
            &ready_since,
        ),
    };
    let image = |names: &[&str], size: i64| {
        obj([
            (
                "names",
                names.iter().map(|n| J::from(*n)).collect::<Vec<_>>().into(),
            ),
            ("sizeBytes", size.into()),
        ])
    };
    let status = obj([
        ("capacity", resources(p.memory_ki)),
        ("allocatable", resources(p.memory_ki.saturating_sub(102_400))),
        (
            "conditions",
            vec![
                condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available", &since),
                condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure", &since),
                condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available", &since),
                ready,
            ]
            .into(),
        ),
        (
            "addresses",
            vec![
                obj([("type", "InternalIP".into()), ("address", (&p.internal_ip).into())]),
                obj([("type", "Hostname".into()), ("address", host.into())]),
            ]
            .into(),
        ),
        (
            "daemonEndpoints",
            obj([("kubeletEndpoint", obj([("Port", 10250i64.into())]))]),
        ),
        (
            "nodeInfo",
            obj([
                ("machineID", format!("{:0>32}", p.id.uid.replace('-', "")).into()),
                ("systemUUID", p.id.uid.to_uppercase().into()),
                ("bootID", p.id.uid.chars().rev().collect::<String>().into()),
                ("kernelVersion", (&p.kernel_version).into()),
                ("osImage", (&p.os_image).into()),
                ("containerRuntimeVersion", (&p.container_runtime).into()),
                ("kubeletVersion", (&p.kubelet_version).into()),
                ("kubeProxyVersion", (&p.kubelet_version).into()),
                ("operatingSystem", "linux".into()),
                ("architecture", "amd64".into()),
            ]),
        ),
        (
            "images",
            vec![
                image(&["registry.k8s.io/etcd@sha256:c6a9d11cc5c04b114ccdef39a9265eeef818e3d02f5359be035ae784097fdec5", "registry.k8s.io/etcd:3.5.16-0"], 57_680_541),
                image(&["registry.k8s.io/kube-proxy@sha256:8db2ca0e784c2188157f005aac67afbbb6b0b67f6ae2bfb71ae7f1da5aaf1b1d", "registry.k8s.io/kube-proxy:v1.32.0"], 30_906_462),
                image(&["registry.k8s.io/coredns/coredns@sha256:9caabbf6238b189a65d0d6e6ac138de60d6a1c419e5a341fbbb7c78382559c6e", "registry.k8s.io/coredns/coredns:v1.11.3"], 18_562_039),
                image(&["registry.k8s.io/pause@sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a", "registry.k8s.io/pause:3.10"], 320_368),
            ]
            .into(),
        ),
        (
            "runtimeHandlers",
            vec![
                obj([("name", "".into()), ("features", obj([("recursiveReadOnlyMounts", true.into()), ("userNamespaces", true.into())]))]),
                obj([("name", "runc".into()), ("features", obj([("recursiveReadOnlyMounts", true.into()), ("userNamespaces", true.into())]))]),
            ]
            .into(),
        ),
        ("features", obj([("supplementalGroupsPolicy", true.into())])),
    ]);
    typed(
        "Node",
        "v1",
        vec![
            ("metadata", meta.into_j()),
            ("spec", spec),
            ("status", status),
        ],
    )
}

// ---------------------------------------------------------------- Namespace, ConfigMap, Secret

/// A Namespace; `terminating` adds a deletionTimestamp and the Terminating phase.
pub fn namespace(id: &Identity, terminating: bool) -> String {
    namespace_by(id, terminating, "kubectl-create")
}

/// A namespace kube-apiserver creates itself (`kube-system`: its system namespaces
/// controller, so its managedFields name kube-apiserver).
pub fn system_namespace(id: &Identity) -> String {
    namespace_by(id, false, "kube-apiserver")
}

fn namespace_by(id: &Identity, terminating: bool, manager: &str) -> String {
    let mut meta = Meta::new(id);
    meta.labels = vec![("kubernetes.io/metadata.name", &id.name)];
    meta.deletion_ms = terminating.then_some(id.created_ms + 3_600_000);
    meta.managed = vec![managed(
        manager,
        "v1",
        id.created_ms,
        json!({"f:metadata": {"f:labels": {".": {}, "f:kubernetes.io/metadata.name": {}}}}),
        None,
    )];
    typed(
        "Namespace",
        "v1",
        vec![
            ("metadata", meta.into_j()),
            (
                "spec",
                obj([("finalizers", vec![J::from("kubernetes")].into())]),
            ),
            (
                "status",
                obj([(
                    "phase",
                    if terminating { "Terminating" } else { "Active" }.into(),
                )]),
            ),
        ],
    )
}

/// The managedFields set of a map's keys: `{".":{},"f:<key>":{},...}`.
fn key_set<'a>(keys: impl Iterator<Item = &'a str>) -> serde_json::Value {
    let mut set = serde_json::Map::new();
    set.insert(".".into(), json!({}));
    for k in keys {
        set.insert(format!("f:{k}"), json!({}));
    }
    serde_json::Value::Object(set)
}

/// A ConfigMap with `data` (keys in sorted order, as a Go map).
pub fn config_map(id: &Identity, app: &str, data: &[(&str, &str)]) -> String {
    let mut meta = Meta::new(id);
    meta.labels = vec![("app", app)];
    let data_fields = key_set(data.iter().map(|(k, _)| *k));
    meta.managed = vec![managed(
        "kubectl-client-side-apply",
        "v1",
        id.created_ms,
        json!({"f:data": data_fields, "f:metadata": {"f:labels": {".": {}, "f:app": {}}}}),
        None,
    )];
    typed(
        "ConfigMap",
        "v1",
        vec![("metadata", meta.into_j()), ("data", string_map(data))],
    )
}

/// Standard base64 with padding (Go's `base64.StdEncoding`, how `[]byte` fields encode).
pub fn base64(data: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(data)
}

fn secret(id: &Identity, type_: &str, data: &[(&str, Vec<u8>)]) -> String {
    let mut meta = Meta::new(id);
    let data_fields = key_set(data.iter().map(|(k, _)| *k));
    meta.managed = vec![managed(
        "kubectl-create",
        "v1",
        id.created_ms,
        json!({"f:data": data_fields, "f:type": {}}),
        None,
    )];
    let encoded: Vec<(&str, String)> = data.iter().map(|(k, v)| (*k, base64(v))).collect();
    let pairs: Vec<(&str, &str)> = encoded.iter().map(|(k, v)| (*k, v.as_str())).collect();
    typed(
        "Secret",
        "v1",
        vec![
            ("metadata", meta.into_j()),
            ("data", string_map(&pairs)),
            ("type", type_.into()),
        ],
    )
}

/// An `Opaque` Secret (values base64-encoded as the API shows them).
pub fn secret_opaque(id: &Identity, data: &[(&str, &[u8])]) -> String {
    let data: Vec<(&str, Vec<u8>)> = data.iter().map(|(k, v)| (*k, v.to_vec())).collect();
    secret(id, "Opaque", &data)
}

/// A `kubernetes.io/tls` Secret with a seeded PEM certificate and key (`tls.crt`, `tls.key`).
pub fn secret_tls(rng: &mut Rng, id: &Identity) -> String {
    let pem = |rng: &mut Rng, label: &str, lines: usize| {
        let mut s = format!("-----BEGIN {label}-----\n");
        for _ in 0..lines {
            let bytes: Vec<u8> = (0..48).map(|_| rng.below(256) as u8).collect();
            s.push_str(&base64(&bytes));
            s.push('\n');
        }
        s.push_str(&format!("-----END {label}-----\n"));
        s.into_bytes()
    };
    let crt = pem(rng, "CERTIFICATE", 18);
    let key = pem(rng, "PRIVATE KEY", 25);
    secret(
        id,
        "kubernetes.io/tls",
        &[("tls.crt", crt), ("tls.key", key)],
    )
}

// ---------------------------------------------------------------- pod templates

/// The pod template of a Deployment or ReplicaSet (PodTemplateSpec after defaulting): one
/// container `app` running `image` on port 8080.
fn pod_template(labels: J, app: &str, image: &str) -> J {
    let container = obj([
        ("name", app.into()),
        ("image", image.into()),
        (
            "ports",
            vec![obj([
                ("containerPort", 8080i64.into()),
                ("protocol", "TCP".into()),
            ])]
            .into(),
        ),
        (
            "resources",
            obj([(
                "requests",
                obj([("cpu", "100m".into()), ("memory", "128Mi".into())]),
            )]),
        ),
        ("terminationMessagePath", "/dev/termination-log".into()),
        ("terminationMessagePolicy", "File".into()),
        ("imagePullPolicy", "IfNotPresent".into()),
    ]);
    obj([
        (
            "metadata",
            obj([("creationTimestamp", J::Null), ("labels", labels)]),
        ),
        (
            "spec",
            obj([
                ("containers", vec![container].into()),
                ("restartPolicy", "Always".into()),
                ("terminationGracePeriodSeconds", 30i64.into()),
                ("dnsPolicy", "ClusterFirst".into()),
                ("securityContext", J::Obj(Vec::new())),
                ("schedulerName", "default-scheduler".into()),
            ]),
        ),
    ])
}

// ---------------------------------------------------------------- Deployment

/// Everything that varies between generated Deployments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeploymentParams {
    pub id: Identity,
    /// Its controller, if an operator made it (none: applied by a person).
    pub controller: Option<ControllerRef>,
    /// The `app` label its pods carry (the Deployment's name).
    pub app: String,
    /// Its ReplicaSet's `pod-template-hash` (the ReplicaSet is `<app>-<hash>`).
    pub template_hash: String,
    pub image: String,
    pub replicas: u32,
    /// Ready (and available, up to date) replicas.
    pub ready: u32,
}

/// The `ownerReferences` entry a controller sets on what it makes: `controller` and
/// `blockOwnerDeletion` true, as client-go's `metav1.NewControllerRef` writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerRef {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub uid: String,
}

impl ControllerRef {
    fn to_j(&self) -> J {
        obj([
            ("apiVersion", (&self.api_version).into()),
            ("kind", (&self.kind).into()),
            ("name", (&self.name).into()),
            ("uid", (&self.uid).into()),
            ("controller", true.into()),
            ("blockOwnerDeletion", true.into()),
        ])
    }
}

/// An `apps/v1` Deployment after the controller observed it (DeploymentSpec and
/// DeploymentStatus in Go order; a RollingUpdate strategy of 25 %/25 %; the Available and
/// Progressing conditions).
pub fn deployment(p: &DeploymentParams) -> String {
    deployment_at(
        p,
        &Rollout {
            revision: 1,
            desired: p.replicas,
            updated: p.replicas,
            complete: true,
            changed_ms: p.id.created_ms,
        },
    )
}

/// Where a Deployment's rollout stands, as the deployment controller writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rollout {
    /// `deployment.kubernetes.io/revision`; also the generation (each template change
    /// is one).
    pub revision: u32,
    /// `spec.replicas`.
    pub desired: u32,
    /// Pods of the newest ReplicaSet (`status.updatedReplicas`).
    pub updated: u32,
    /// The newest ReplicaSet has all its pods available (the rollout is over).
    pub complete: bool,
    /// When the conditions last changed.
    pub changed_ms: u64,
}

/// Most pods a rolling update may have unavailable, and above the desired count, with
/// maxUnavailable and maxSurge 25 %: surge rounds up, unavailable down, and both 0 make
/// unavailable 1 (`ResolveFenceposts`, `pkg/controller/deployment/util/deployment_util.go`).
pub fn rolling_fenceposts(desired: u32) -> (u32, u32) {
    let surge = desired.div_ceil(4);
    let unavailable = desired / 4;
    if surge == 0 && unavailable == 0 {
        (0, 1)
    } else {
        (surge, unavailable)
    }
}

/// A Deployment at a point of its rollout: `p.replicas` is the pods of all its
/// ReplicaSets (`status.replicas`), `p.ready` those ready (and available), `p.template_hash`
/// the newest ReplicaSet's.
pub fn deployment_at(p: &DeploymentParams, r: &Rollout) -> String {
    let created = p.id.created_ms;
    let at = timestamp(r.changed_ms);
    let revision = r.revision.to_string();
    let mut meta = Meta::new(&p.id);
    meta.generation = Some(i64::from(r.revision));
    meta.labels = vec![("app", &p.app)];
    meta.annotations = vec![("deployment.kubernetes.io/revision", &revision)];
    meta.owner = p.controller.as_ref().map(ControllerRef::to_j);
    let mut applied = json!({"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                   "f:spec": {"f:progressDeadlineSeconds": {}, "f:replicas": {}, "f:revisionHistoryLimit": {}, "f:selector": {},
                              "f:strategy": {"f:rollingUpdate": {".": {}, "f:maxSurge": {}, "f:maxUnavailable": {}}, "f:type": {}},
                              "f:template": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}, "f:spec": {"f:containers": {}}}}});
    // An operator's Deployment is its manager's, ownerReferences and all.
    let manager = match &p.controller {
        Some(c) => {
            applied["f:metadata"]["f:ownerReferences"] =
                json!({".": {}, format!("k:{{\"uid\":\"{}\"}}", c.uid): {}});
            "widget-operator"
        }
        None => "kubectl-client-side-apply",
    };
    meta.managed = vec![
        managed(manager, "apps/v1", created, applied, None),
        managed(
            "kube-controller-manager",
            "apps/v1",
            created + 5_000,
            json!({"f:metadata": {"f:annotations": {".": {}, "f:deployment.kubernetes.io/revision": {}}},
                   "f:status": {"f:availableReplicas": {}, "f:conditions": {}, "f:observedGeneration": {}, "f:readyReplicas": {}, "f:replicas": {}, "f:updatedReplicas": {}}}),
            Some("status"),
        ),
    ];
    let labels = string_map(&[("app", &p.app)]);
    let spec = obj([
        ("replicas", r.desired.into()),
        ("selector", obj([("matchLabels", labels.clone())])),
        ("template", pod_template(labels, &p.app, &p.image)),
        (
            "strategy",
            obj([
                ("type", "RollingUpdate".into()),
                (
                    "rollingUpdate",
                    obj([("maxUnavailable", "25%".into()), ("maxSurge", "25%".into())]),
                ),
            ]),
        ),
        ("revisionHistoryLimit", 10i64.into()),
        ("progressDeadlineSeconds", 600i64.into()),
    ]);
    let condition = |ty: &str, status: bool, reason: &str, message: String| {
        obj([
            ("type", ty.into()),
            ("status", if status { "True" } else { "False" }.into()),
            ("lastUpdateTime", (&at).into()),
            ("lastTransitionTime", (&at).into()),
            ("reason", reason.into()),
            ("message", message.into()),
        ])
    };
    let (_, max_unavailable) = rolling_fenceposts(r.desired);
    let available = p.ready >= r.desired.saturating_sub(max_unavailable);
    let new_rs = format!("{}-{}", p.app, p.template_hash);
    // Condition reasons and messages: pkg/controller/deployment/util/deployment_util.go
    // (MinimumReplicasAvailable, NewReplicaSetAvailable, ReplicaSetUpdated).
    let available = if available {
        condition(
            "Available",
            true,
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.".into(),
        )
    } else {
        condition(
            "Available",
            false,
            "MinimumReplicasUnavailable",
            "Deployment does not have minimum availability.".into(),
        )
    };
    let progressing = if r.complete {
        condition(
            "Progressing",
            true,
            "NewReplicaSetAvailable",
            format!("ReplicaSet \"{new_rs}\" has successfully progressed."),
        )
    } else {
        condition(
            "Progressing",
            true,
            "ReplicaSetUpdated",
            format!("ReplicaSet \"{new_rs}\" is progressing."),
        )
    };
    let status = Fields::default()
        .put("observedGeneration", i64::from(r.revision))
        .put("replicas", p.replicas)
        .put("updatedReplicas", r.updated)
        .put_if(p.ready > 0, "readyReplicas", p.ready)
        .put_if(p.ready > 0, "availableReplicas", p.ready)
        .put_if(
            r.desired > p.ready,
            "unavailableReplicas",
            r.desired - p.ready.min(r.desired),
        )
        .put("conditions", vec![available, progressing])
        .done();
    typed(
        "Deployment",
        "apps/v1",
        vec![
            ("metadata", meta.into_j()),
            ("spec", spec),
            ("status", status),
        ],
    )
}

// ---------------------------------------------------------------- ReplicaSet

/// Everything that varies between generated ReplicaSets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaSetParams {
    pub id: Identity,
    /// The owning Deployment (name = app) and its uid.
    pub app: String,
    pub deployment_uid: String,
    pub template_hash: String,
    pub image: String,
    pub replicas: u32,
    pub ready: u32,
}

/// A ReplicaSet owned by Deployment `app`, named `<app>-<template_hash>`.
pub fn replica_set(p: &ReplicaSetParams) -> String {
    replica_set_at(p, 1, p.replicas)
}

/// A ReplicaSet of revision `revision` of a Deployment of `desired` replicas
/// (`p.replicas` is its own scale and pods).
pub fn replica_set_at(p: &ReplicaSetParams, revision: u32, desired: u32) -> String {
    let created = p.id.created_ms;
    let replicas = desired.to_string();
    let max = (desired + rolling_fenceposts(desired).0).to_string();
    let revision = revision.to_string();
    let mut meta = Meta::new(&p.id);
    meta.generation = Some(1);
    meta.labels = vec![("app", &p.app), ("pod-template-hash", &p.template_hash)];
    meta.annotations = vec![
        ("deployment.kubernetes.io/desired-replicas", &replicas),
        ("deployment.kubernetes.io/max-replicas", &max),
        ("deployment.kubernetes.io/revision", &revision),
    ];
    meta.owner = Some(
        ControllerRef {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            name: p.app.clone(),
            uid: p.deployment_uid.clone(),
        }
        .to_j(),
    );
    meta.managed = vec![
        managed(
            "kube-controller-manager",
            "apps/v1",
            created,
            json!({"f:metadata": {"f:annotations": {".": {}, "f:deployment.kubernetes.io/desired-replicas": {}, "f:deployment.kubernetes.io/max-replicas": {}, "f:deployment.kubernetes.io/revision": {}},
                "f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}},
                "f:ownerReferences": {".": {}, format!("k:{{\"uid\":\"{}\"}}", p.deployment_uid): {}}},
                "f:spec": {"f:replicas": {}, "f:selector": {}, "f:template": {"f:metadata": {"f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}}}}}}),
            None,
        ),
        managed(
            "kube-controller-manager",
            "apps/v1",
            created + 5_000,
            json!({"f:status": {"f:availableReplicas": {}, "f:fullyLabeledReplicas": {}, "f:observedGeneration": {}, "f:readyReplicas": {}, "f:replicas": {}}}),
            Some("status"),
        ),
    ];
    let selector = string_map(&[("app", &p.app), ("pod-template-hash", &p.template_hash)]);
    let template = pod_template(selector.clone(), &p.app, &p.image);
    let spec = obj([
        ("replicas", p.replicas.into()),
        ("selector", obj([("matchLabels", selector)])),
        ("template", template),
    ]);
    let status = Fields::default()
        .put("replicas", p.replicas)
        .put("fullyLabeledReplicas", p.replicas)
        .put_if(p.ready > 0, "readyReplicas", p.ready)
        .put_if(p.ready > 0, "availableReplicas", p.ready)
        .put("observedGeneration", 1i64)
        .done();
    typed(
        "ReplicaSet",
        "apps/v1",
        vec![
            ("metadata", meta.into_j()),
            ("spec", spec),
            ("status", status),
        ],
    )
}

// ---------------------------------------------------------------- Event

/// Who reported an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reporter {
    /// The kubelet on `node` (core/v1 recorder: source, first/last timestamps, count).
    Kubelet { node: String },
    /// The scheduler (events.k8s.io recorder: eventTime, action, no count, empty source).
    Scheduler,
}

/// Everything that varies between generated core/v1 Events about a pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventParams {
    pub id: Identity,
    pub pod_namespace: String,
    pub pod_name: String,
    pub pod_uid: String,
    /// The pod's resourceVersion when the event was recorded.
    pub pod_resource_version: Option<u64>,
    /// `spec.containers{name}` for container events, `""` for pod events.
    pub field_path: String,
    /// `Normal` or `Warning`.
    pub type_: &'static str,
    pub reason: &'static str,
    pub message: String,
    pub reporter: Reporter,
    /// First and last occurrence (sim ms) and how many times it happened.
    pub first_ms: u64,
    pub last_ms: u64,
    pub count: u32,
}

/// A core/v1 Event as `kubectl get events -o json` shows it.
pub fn event(p: &EventParams) -> String {
    let manager = match p.reporter {
        Reporter::Kubelet { .. } => "kubelet",
        Reporter::Scheduler => "kube-scheduler",
    };
    let mut meta = Meta::new(&p.id);
    let fields = match p.reporter {
        Reporter::Kubelet { .. } => {
            json!({"f:count": {}, "f:firstTimestamp": {}, "f:involvedObject": {}, "f:lastTimestamp": {}, "f:message": {}, "f:reason": {}, "f:reportingComponent": {}, "f:reportingInstance": {}, "f:source": {"f:component": {}, "f:host": {}}, "f:type": {}})
        }
        Reporter::Scheduler => {
            json!({"f:action": {}, "f:eventTime": {}, "f:note": {}, "f:reason": {}, "f:regarding": {}, "f:reportingController": {}, "f:reportingInstance": {}, "f:type": {}})
        }
    };
    let api = match p.reporter {
        Reporter::Kubelet { .. } => "v1",
        Reporter::Scheduler => "events.k8s.io/v1",
    };
    meta.managed = vec![managed(manager, api, p.first_ms, fields, None)];
    let involved = Fields::default()
        .put("kind", "Pod")
        .put("namespace", &p.pod_namespace)
        .put("name", &p.pod_name)
        .put("uid", &p.pod_uid)
        .put("apiVersion", "v1")
        .put_if(
            p.pod_resource_version.is_some(),
            "resourceVersion",
            p.pod_resource_version.unwrap_or(0).to_string(),
        )
        .put_if(!p.field_path.is_empty(), "fieldPath", &p.field_path)
        .done();
    let mut rest = vec![
        ("metadata", meta.into_j()),
        ("involvedObject", involved),
        ("reason", p.reason.into()),
        ("message", (&p.message).into()),
    ];
    match &p.reporter {
        Reporter::Kubelet { node } => {
            rest.extend([
                (
                    "source",
                    obj([("component", "kubelet".into()), ("host", node.into())]),
                ),
                ("firstTimestamp", timestamp(p.first_ms).into()),
                ("lastTimestamp", timestamp(p.last_ms).into()),
                ("count", p.count.into()),
                ("type", p.type_.into()),
                ("eventTime", J::Null),
                ("reportingComponent", "kubelet".into()),
                ("reportingInstance", node.into()),
            ]);
        }
        Reporter::Scheduler => {
            rest.extend([
                ("source", J::Obj(Vec::new())),
                ("firstTimestamp", J::Null),
                ("lastTimestamp", J::Null),
                ("type", p.type_.into()),
                ("eventTime", micro_timestamp(p.first_ms).into()),
                ("action", "Binding".into()),
                ("reportingComponent", "default-scheduler".into()),
                (
                    "reportingInstance",
                    "default-scheduler-control-plane".into(),
                ),
            ]);
        }
    }
    typed("Event", "v1", rest)
}

/// `metav1.MicroTime` text: RFC 3339 with microseconds.
fn micro_timestamp(ms: u64) -> String {
    let base = timestamp(ms);
    format!("{}.{:03}000Z", base.trim_end_matches('Z'), ms % 1000)
}

/// How a generated pod's life went, for [`pod_events`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PodStory {
    /// Scheduled, image pulled, container created and started.
    Started,
    /// Started, then failing readiness probes.
    Unhealthy,
    /// Started, then crashing: back-off restarting.
    CrashLoop,
    /// Started, then deleted: the kubelet stops the container.
    Killed,
}

/// The pod a story is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodRef {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub resource_version: Option<u64>,
    pub node: String,
    pub container: String,
    pub image: String,
    pub pod_ip: String,
}

/// One event of a pod's life, as the scheduler or the kubelet records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PodEvent {
    /// kube-scheduler bound the pod to its node.
    Scheduled,
    Pulling,
    /// The image was pulled in `pull_ms`, `image_bytes` large.
    Pulled {
        pull_ms: u64,
        image_bytes: u64,
    },
    Created,
    Started,
    /// A readiness probe failed.
    Unhealthy,
    /// The container crashed and waits to be restarted.
    BackOff,
    /// The pod is being deleted: the kubelet stops the container.
    Killing,
}

/// Event `event` about `pod` at `at_ms` (count 1), with the real message format:
/// kube-scheduler's `Scheduled` (an events.k8s.io event), the kubelet's `Pulling`,
/// `Pulled`, `Created`, `Started`, `Unhealthy`, `BackOff`, `Killing` (core/v1, with source).
/// Its name is the pod's and the event's Unix time in hex nanoseconds, as client-go names
/// events.
pub fn pod_event(rng: &mut Rng, pod: &PodRef, event: PodEvent, at_ms: u64) -> EventParams {
    let kubelet = || Reporter::Kubelet {
        node: pod.node.clone(),
    };
    let cpath = format!("spec.containers{{{}}}", pod.container);
    let (type_, reason, message, reporter, field_path) = match event {
        PodEvent::Scheduled => (
            "Normal",
            "Scheduled",
            format!(
                "Successfully assigned {}/{} to {}",
                pod.namespace, pod.name, pod.node
            ),
            Reporter::Scheduler,
            String::new(),
        ),
        PodEvent::Pulling => (
            "Normal",
            "Pulling",
            format!("Pulling image {}", go_quote(&pod.image)),
            kubelet(),
            cpath,
        ),
        PodEvent::Pulled {
            pull_ms,
            image_bytes,
        } => (
            "Normal",
            "Pulled",
            format!(
                "Successfully pulled image {} in {} ({} including waiting). Image size: {} bytes.",
                go_quote(&pod.image),
                go_duration_ms(pull_ms),
                go_duration_ms(pull_ms),
                image_bytes
            ),
            kubelet(),
            cpath,
        ),
        PodEvent::Created => (
            "Normal",
            "Created",
            format!("Created container: {}", pod.container),
            kubelet(),
            cpath,
        ),
        PodEvent::Started => (
            "Normal",
            "Started",
            format!("Started container {}", pod.container),
            kubelet(),
            cpath,
        ),
        PodEvent::Unhealthy => (
            "Warning",
            "Unhealthy",
            format!(
                "Readiness probe failed: Get \"http://{}:8080/ready\": dial tcp {}:8080: connect: connection refused",
                pod.pod_ip, pod.pod_ip
            ),
            kubelet(),
            cpath,
        ),
        PodEvent::BackOff => (
            "Warning",
            "BackOff",
            format!(
                "Back-off restarting failed container {} in pod {}_{}({})",
                pod.container, pod.name, pod.namespace, pod.uid
            ),
            kubelet(),
            cpath,
        ),
        PodEvent::Killing => (
            "Normal",
            "Killing",
            format!("Stopping container {}", pod.container),
            kubelet(),
            cpath,
        ),
    };
    let unix_ms = parse_rfc3339_ms(&timestamp(at_ms)).unwrap_or(0).max(0) as u64;
    let name = format!(
        "{}.{:x}",
        pod.name,
        unix_ms * 1_000_000 + rng.below(1_000_000)
    );
    EventParams {
        id: Identity::new(rng, &pod.namespace, &name, at_ms),
        pod_namespace: pod.namespace.clone(),
        pod_name: pod.name.clone(),
        pod_uid: pod.uid.clone(),
        pod_resource_version: pod.resource_version,
        field_path,
        type_,
        reason,
        message,
        reporter,
        first_ms: at_ms,
        last_ms: at_ms,
        count: 1,
    }
}

/// The events the scheduler and the kubelet record for `pod` over `story`, starting at
/// `start_ms` ([`pod_event`]'s; repeated probe failures and back-offs aggregated into one
/// event with a count, as the kubelet's event correlator does).
pub fn pod_events(rng: &mut Rng, pod: &PodRef, story: PodStory, start_ms: u64) -> Vec<EventParams> {
    let mut t = start_ms;
    let mut out = vec![pod_event(rng, pod, PodEvent::Scheduled, t)];
    t += 400 + rng.below(600);
    out.push(pod_event(rng, pod, PodEvent::Pulling, t));
    let pull_ms = 800 + rng.below(4000);
    let image_bytes = 20_000_000 + rng.below(60_000_000);
    t += pull_ms;
    out.push(pod_event(
        rng,
        pod,
        PodEvent::Pulled {
            pull_ms,
            image_bytes,
        },
        t,
    ));
    t += 100 + rng.below(200);
    out.push(pod_event(rng, pod, PodEvent::Created, t));
    t += 50 + rng.below(150);
    out.push(pod_event(rng, pod, PodEvent::Started, t));
    let repeated = |rng: &mut Rng, event, t: u64, n: u32, every_ms: u64| {
        let mut e = pod_event(rng, pod, event, t);
        e.count = n;
        e.last_ms = t + u64::from(n) * every_ms;
        e
    };
    match story {
        PodStory::Started => {}
        PodStory::Unhealthy => {
            t += 10_000;
            let n = 3 + rng.below(20) as u32;
            out.push(repeated(rng, PodEvent::Unhealthy, t, n, 5_000));
        }
        PodStory::CrashLoop => {
            t += 15_000;
            let n = 2 + rng.below(30) as u32;
            out.push(repeated(rng, PodEvent::BackOff, t, n, 20_000));
        }
        PodStory::Killed => {
            t += 60_000 + rng.below(600_000);
            out.push(pod_event(rng, pod, PodEvent::Killing, t));
        }
    }
    out
}

/// Go's `%q` of a string (the kubelet quotes image names that way).
fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `time.Duration.String()` for whole milliseconds: `812ms`, `2.345s`.
fn go_duration_ms(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms}ms")
    } else {
        let s = format!("{}.{:03}", ms / 1000, ms % 1000);
        format!("{}s", s.trim_end_matches('0').trim_end_matches('.'))
    }
}

// ---------------------------------------------------------------- Lease

/// A control-plane Lease as its holder writes it (`k8s.io/client-go/tools/leaderelection`
/// for the controller-manager and scheduler, the apiserver's identity lease controller).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaseParams<'a> {
    pub name: &'a str,
    pub namespace: &'a str,
    pub uid: &'a str,
    /// creationTimestamp (and the leader's acquireTime).
    pub created: &'a str,
    pub holder: &'a str,
    pub duration_s: u32,
    /// Sim time of this renewal.
    pub renew_ms: u64,
    /// kube-apiserver's identity lease (labelled, no acquireTime or transitions).
    pub identity: bool,
}

/// A `coordination.k8s.io/v1` Lease (LeaseSpec order: holderIdentity, leaseDurationSeconds,
/// acquireTime, renewTime, leaseTransitions; the times are MicroTime).
pub fn lease(p: &LeaseParams<'_>) -> String {
    let acquired = parse_rfc3339_ms(p.created).unwrap_or(0) - crate::util::unix_ms(0);
    let acquired = micro_timestamp(acquired.max(0) as u64);
    let manager = if p.identity { "kube-apiserver" } else { p.name };
    let fields = if p.identity {
        json!({"f:metadata": {"f:labels": {".": {}, "f:apiserver.kubernetes.io/identity": {}, "f:kubernetes.io/hostname": {}}},
               "f:spec": {"f:holderIdentity": {}, "f:leaseDurationSeconds": {}, "f:renewTime": {}}})
    } else {
        json!({"f:spec": {"f:acquireTime": {}, "f:holderIdentity": {}, "f:leaseDurationSeconds": {}, "f:leaseTransitions": {}, "f:renewTime": {}}})
    };
    let mut meta = Fields::default()
        .put("name", p.name)
        .put("namespace", p.namespace)
        .put("uid", p.uid)
        .put("creationTimestamp", p.created);
    if p.identity {
        meta = meta.put(
            "labels",
            string_map(&[
                ("apiserver.kubernetes.io/identity", "kube-apiserver"),
                ("kubernetes.io/hostname", "control-plane"),
            ]),
        );
    }
    let meta = meta
        .put(
            "managedFields",
            vec![managed(
                manager,
                "coordination.k8s.io/v1",
                p.renew_ms,
                fields,
                None,
            )],
        )
        .done();
    let spec = Fields::default()
        .put("holderIdentity", p.holder)
        .put("leaseDurationSeconds", p.duration_s)
        .put_if(!p.identity, "acquireTime", acquired)
        .put("renewTime", micro_timestamp(p.renew_ms))
        .put_if(!p.identity, "leaseTransitions", 0i64)
        .done();
    typed(
        "Lease",
        "coordination.k8s.io/v1",
        vec![("metadata", meta), ("spec", spec)],
    )
}

// ---------------------------------------------------------------- the widgets CRD

/// The CRD's name.
pub const WIDGET_CRD_NAME: &str = "widgets.kubelive.dev";

/// The `widgets.kubelive.dev` CustomResourceDefinition (apiextensions.k8s.io/v1, established),
/// whose v1 `additionalPrinterColumns` declare a string, an integer (`Size`), a condition
/// status via a filter, two dates (`Last Synced`, `Age`) and a priority-1 column (`Owner`).
pub fn widget_crd(uid: &str, resource_version: Option<u64>, created_ms: u64) -> String {
    let id = Identity {
        name: WIDGET_CRD_NAME.into(),
        namespace: String::new(),
        uid: uid.into(),
        resource_version,
        created_ms,
    };
    let mut meta = Meta::new(&id);
    meta.generation = Some(1);
    meta.managed = vec![
        managed(
            "kubectl-client-side-apply",
            "apiextensions.k8s.io/v1",
            created_ms,
            json!({"f:spec": {"f:conversion": {".": {}, "f:strategy": {}}, "f:group": {}, "f:names": {"f:kind": {}, "f:listKind": {}, "f:plural": {}, "f:shortNames": {}, "f:singular": {}}, "f:scope": {}, "f:versions": {}}}),
            None,
        ),
        managed(
            "kube-apiserver",
            "apiextensions.k8s.io/v1",
            created_ms,
            json!({"f:status": {"f:acceptedNames": {"f:kind": {}, "f:listKind": {}, "f:plural": {}, "f:shortNames": {}, "f:singular": {}}, "f:conditions": {"k:{\"type\":\"Established\"}": {".": {}, "f:lastTransitionTime": {}, "f:message": {}, "f:reason": {}, "f:status": {}, "f:type": {}}, "k:{\"type\":\"NamesAccepted\"}": {".": {}, "f:lastTransitionTime": {}, "f:message": {}, "f:reason": {}, "f:status": {}, "f:type": {}}}}}),
            Some("status"),
        ),
    ];
    let names = || {
        obj([
            ("plural", "widgets".into()),
            ("singular", "widget".into()),
            ("shortNames", vec![J::from("wg")].into()),
            ("kind", "Widget".into()),
            ("listKind", "WidgetList".into()),
        ])
    };
    let prop = |description: &str, type_: &str| {
        obj([("description", description.into()), ("type", type_.into())])
    };
    let condition = obj([
        ("type", "object".into()),
        ("required", vec![J::from("status"), J::from("type")].into()),
        (
            "properties",
            obj([
                (
                    "lastTransitionTime",
                    Fields::default()
                        .put("type", "string")
                        .put("format", "date-time")
                        .done(),
                ),
                ("message", obj([("type", "string".into())])),
                ("reason", obj([("type", "string".into())])),
                ("status", obj([("type", "string".into())])),
                ("type", obj([("type", "string".into())])),
            ]),
        ),
    ]);
    let schema = obj([(
        "openAPIV3Schema",
        obj([
            (
                "description",
                "A Widget is what kubelive's simulated cluster serves as its custom resource."
                    .into(),
            ),
            ("type", "object".into()),
            (
                "properties",
                obj([
                    ("apiVersion", obj([("type", "string".into())])),
                    ("kind", obj([("type", "string".into())])),
                    ("metadata", obj([("type", "object".into())])),
                    (
                        "spec",
                        obj([
                            ("type", "object".into()),
                            (
                                "properties",
                                obj([
                                    ("color", prop("The widget's color.", "string")),
                                    ("owner", prop("Team that owns the widget.", "string")),
                                    (
                                        "size",
                                        Fields::default()
                                            .put("description", "How big the widget is.")
                                            .put("type", "integer")
                                            .put("minimum", 0i64)
                                            .done(),
                                    ),
                                ]),
                            ),
                        ]),
                    ),
                    (
                        "status",
                        obj([
                            ("type", "object".into()),
                            (
                                "properties",
                                obj([
                                    (
                                        "conditions",
                                        obj([("type", "array".into()), ("items", condition)]),
                                    ),
                                    (
                                        "lastSyncTime",
                                        Fields::default()
                                            .put("type", "string")
                                            .put("format", "date-time")
                                            .done(),
                                    ),
                                    (
                                        "observedGeneration",
                                        Fields::default()
                                            .put("type", "integer")
                                            .put("format", "int64")
                                            .done(),
                                    ),
                                ]),
                            ),
                        ]),
                    ),
                ]),
            ),
        ]),
    )]);
    let column = |name: &str, type_: &str, description: Option<&str>, priority: i64, path: &str| {
        Fields::default()
            .put("name", name)
            .put("type", type_)
            .put_if(
                description.is_some(),
                "description",
                description.unwrap_or(""),
            )
            .put_if(priority != 0, "priority", priority)
            .put("jsonPath", path)
            .done()
    };
    let columns: Vec<J> = vec![
        column("Color", "string", None, 0, ".spec.color"),
        column(
            "Size",
            "integer",
            Some("How big the widget is."),
            0,
            ".spec.size",
        ),
        column(
            "Ready",
            "string",
            None,
            0,
            ".status.conditions[?(@.type==\"Ready\")].status",
        ),
        column("Last Synced", "date", None, 0, ".status.lastSyncTime"),
        column("Age", "date", None, 0, ".metadata.creationTimestamp"),
        column(
            "Owner",
            "string",
            Some("Team that owns the widget."),
            1,
            ".spec.owner",
        ),
    ];
    let version = obj([
        ("name", "v1".into()),
        ("served", true.into()),
        ("storage", true.into()),
        ("schema", schema),
        ("subresources", obj([("status", J::Obj(Vec::new()))])),
        ("additionalPrinterColumns", columns.into()),
    ]);
    let spec = obj([
        ("group", "kubelive.dev".into()),
        ("names", names()),
        ("scope", "Namespaced".into()),
        ("versions", vec![version].into()),
        ("conversion", obj([("strategy", "None".into())])),
    ]);
    let at = timestamp(created_ms);
    let crd_condition = |ty: &str, reason: &str, message: &str| {
        obj([
            ("type", ty.into()),
            ("status", "True".into()),
            ("lastTransitionTime", (&at).into()),
            ("reason", reason.into()),
            ("message", message.into()),
        ])
    };
    let status = obj([
        (
            "conditions",
            vec![
                crd_condition("NamesAccepted", "NoConflicts", "no conflicts found"),
                crd_condition(
                    "Established",
                    "InitialNamesAccepted",
                    "the initial names have been accepted",
                ),
            ]
            .into(),
        ),
        ("acceptedNames", names()),
        ("storedVersions", vec![J::from("v1")].into()),
    ]);
    typed(
        "CustomResourceDefinition",
        "apiextensions.k8s.io/v1",
        vec![
            ("metadata", meta.into_j()),
            ("spec", spec),
            ("status", status),
        ],
    )
}

/// A minimal established CustomResourceDefinition for `plural.group` (one served version,
/// an open schema, no printer columns: clients see Name and Age).
pub fn simple_crd(rt: &crate::resources::ResourceType, uid: &str, created_ms: u64) -> String {
    let id = Identity {
        name: format!("{}.{}", rt.plural, rt.group),
        namespace: String::new(),
        uid: uid.into(),
        resource_version: None,
        created_ms,
    };
    let mut meta = Meta::new(&id);
    meta.generation = Some(1);
    let names = || {
        obj([
            ("plural", rt.plural.into()),
            ("singular", rt.singular.into()),
            ("kind", rt.kind.into()),
            ("listKind", rt.list_kind.into()),
        ])
    };
    let schema = obj([(
        "openAPIV3Schema",
        obj([
            ("type", "object".into()),
            ("x-kubernetes-preserve-unknown-fields", true.into()),
        ]),
    )]);
    let version = obj([
        ("name", rt.version.into()),
        ("served", true.into()),
        ("storage", true.into()),
        ("schema", schema),
    ]);
    let spec = obj([
        ("group", rt.group.into()),
        ("names", names()),
        (
            "scope",
            if rt.namespaced {
                "Namespaced"
            } else {
                "Cluster"
            }
            .into(),
        ),
        ("versions", vec![version].into()),
        ("conversion", obj([("strategy", "None".into())])),
    ]);
    let at = timestamp(created_ms);
    let condition = |ty: &str, reason: &str, message: &str| {
        obj([
            ("type", ty.into()),
            ("status", "True".into()),
            ("lastTransitionTime", (&at).into()),
            ("reason", reason.into()),
            ("message", message.into()),
        ])
    };
    let status = obj([
        (
            "conditions",
            vec![
                condition("NamesAccepted", "NoConflicts", "no conflicts found"),
                condition(
                    "Established",
                    "InitialNamesAccepted",
                    "the initial names have been accepted",
                ),
            ]
            .into(),
        ),
        ("acceptedNames", names()),
        ("storedVersions", vec![J::from(rt.version)].into()),
    ]);
    typed(
        "CustomResourceDefinition",
        "apiextensions.k8s.io/v1",
        vec![
            ("metadata", meta.into_j()),
            ("spec", spec),
            ("status", status),
        ],
    )
}

/// Everything that varies between generated widgets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WidgetParams {
    pub id: Identity,
    pub color: String,
    pub size: u32,
    pub owner: String,
    /// The Ready condition's status (`True`/`False`); `None`: no status yet (never synced).
    pub ready: Option<bool>,
    /// Sim time of the last sync.
    pub synced_ms: u64,
}

impl WidgetParams {
    pub fn random(rng: &mut Rng, namespace: &str, name: &str, created_ms: u64) -> WidgetParams {
        let colors = ["blue", "green", "red", "yellow"];
        let owners = ["team-a", "team-b", "platform"];
        WidgetParams {
            id: Identity::new(rng, namespace, name, created_ms),
            color: rng.pick(&colors).to_string(),
            size: 1 + rng.below(10) as u32,
            owner: rng.pick(&owners).to_string(),
            ready: Some(!rng.chance(0.2)),
            synced_ms: created_ms + 2_000 + rng.below(60_000),
        }
    }
}

/// A widget (unstructured on the server: keys sorted at every level).
pub fn widget(p: &WidgetParams) -> String {
    let id = &p.id;
    let mut meta = json!({
        "creationTimestamp": id.created(),
        "generation": 1,
        "labels": {"color": p.color},
        "managedFields": [{
            "apiVersion": "kubelive.dev/v1", "fieldsType": "FieldsV1",
            "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:color": {}}}, "f:spec": {".": {}, "f:color": {}, "f:owner": {}, "f:size": {}}},
            "manager": "kubectl-client-side-apply", "operation": "Update", "time": id.created()
        }],
        "name": id.name,
        "namespace": id.namespace,
        "uid": id.uid,
    });
    if let Some(rv) = id.resource_version {
        meta["resourceVersion"] = json!(rv.to_string());
    }
    let mut doc = json!({
        "apiVersion": "kubelive.dev/v1",
        "kind": "Widget",
        "metadata": meta,
        "spec": {"color": p.color, "owner": p.owner, "size": p.size},
    });
    if let Some(ready) = p.ready {
        let (status, reason, message) = if ready {
            ("True", "Synced", "the widget is in sync")
        } else {
            ("False", "SyncFailed", "the widget's backend did not answer")
        };
        doc["status"] = json!({
            "conditions": [{"lastTransitionTime": timestamp(p.synced_ms), "message": message, "reason": reason, "status": status, "type": "Ready"}],
            "lastSyncTime": timestamp(p.synced_ms),
            "observedGeneration": 1,
        });
        if let Some(m) = doc["metadata"]["managedFields"].as_array_mut() {
            m.push(json!({
                "apiVersion": "kubelive.dev/v1", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:status": {".": {}, "f:conditions": {}, "f:lastSyncTime": {}, "f:observedGeneration": {}}},
                "manager": "widget-controller", "operation": "Update", "subresource": "status", "time": timestamp(p.synced_ms)
            }));
        }
    }
    let mut out = String::with_capacity(1024);
    write_value(&mut out, &doc);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_std_with_padding() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(&[0xfb, 0xff]), "+/8=");
    }

    #[test]
    fn go_durations_and_quotes() {
        assert_eq!(go_duration_ms(812), "812ms");
        assert_eq!(go_duration_ms(2345), "2.345s");
        assert_eq!(go_duration_ms(2000), "2s");
        assert_eq!(go_duration_ms(2100), "2.1s");
        assert_eq!(go_quote("nginx:1.27"), "\"nginx:1.27\"");
        assert_eq!(micro_timestamp(1234), "2025-01-01T00:00:01.234000Z");
    }
}
