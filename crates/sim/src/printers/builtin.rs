//! The built-in printers of `pkg/printers/internalversion/printers.go` (kubernetes v1.32),
//! reading objects as JSON: column definitions (`AddHandlers`) and the `print*` functions.
//! Descriptions are the API types' swagger docs the printers reference
//! (`metav1.ObjectMeta{}.SwaggerDoc()["name"]` ...), checked against k8s.io/api v1.32.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{parse_rfc3339_ms, Cell, Column, Completion, Row};

// metav1.ObjectMeta{}.SwaggerDoc()
const NAME: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
pub(super) const CREATION_TIMESTAMP: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
// Literal descriptions in printers.go.
const CONTAINERS: &str = "Names of each container in the template.";
const IMAGES: &str = "Images referenced by each container in the template.";

/// `(name, type, format, description, priority)`.
type Def = (&'static str, &'static str, &'static str, &'static str, i32);

const POD: &[Def] = &[
    ("Name", "string", "name", NAME, 0),
    ("Ready", "string", "", "The aggregate readiness state of this pod for accepting traffic.", 0),
    ("Status", "string", "", "The aggregate status of the containers in this pod.", 0),
    ("Restarts", "string", "", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.", 0),
    ("Age", "string", "", CREATION_TIMESTAMP, 0),
    // apiv1.PodStatus{}.SwaggerDoc()["podIP"]
    ("IP", "string", "", "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.", 1),
    // apiv1.PodSpec{}.SwaggerDoc()["nodeName"]
    ("Node", "string", "", "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename", 1),
    // apiv1.PodStatus{}.SwaggerDoc()["nominatedNodeName"]
    ("Nominated Node", "string", "", "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.", 1),
    // apiv1.PodSpec{}.SwaggerDoc()["readinessGates"]
    ("Readiness Gates", "string", "", "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to \"True\" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates", 1),
];

const DEPLOYMENT: &[Def] = &[
    ("Name", "string", "name", NAME, 0),
    ("Ready", "string", "", "Number of the pod with ready state", 0),
    // extensionsv1beta1.DeploymentStatus{}.SwaggerDoc()
    ("Up-to-date", "string", "", "Total number of non-terminated pods targeted by this deployment that have the desired template spec.", 0),
    ("Available", "string", "", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.", 0),
    ("Age", "string", "", CREATION_TIMESTAMP, 0),
    ("Containers", "string", "", CONTAINERS, 1),
    ("Images", "string", "", IMAGES, 1),
    // extensionsv1beta1.DeploymentSpec{}.SwaggerDoc()["selector"]
    ("Selector", "string", "", "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.", 1),
];

const REPLICA_SET: &[Def] = &[
    ("Name", "string", "name", NAME, 0),
    // extensionsv1beta1.ReplicaSetSpec / ReplicaSetStatus SwaggerDoc()
    ("Desired", "integer", "", "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller", 0),
    ("Current", "integer", "", "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller", 0),
    ("Ready", "integer", "", "The number of ready replicas for this replica set.", 0),
    ("Age", "string", "", CREATION_TIMESTAMP, 0),
    ("Containers", "string", "", CONTAINERS, 1),
    ("Images", "string", "", IMAGES, 1),
    ("Selector", "string", "", "Selector is a label query over pods that should match the replica count. If the selector is empty, it is defaulted to the labels present on the pod template. Label keys and values that must match in order to be controlled by this replica set. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", 1),
];

const SERVICE: &[Def] = &[
    ("Name", "string", "name", NAME, 0),
    // apiv1.ServiceSpec{}.SwaggerDoc()
    ("Type", "string", "", "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. \"ClusterIP\" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is \"None\", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. \"NodePort\" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. \"LoadBalancer\" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. \"ExternalName\" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types", 0),
    ("Cluster-IP", "string", "", "clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are \"None\", empty string (\"\"), or a valid IP address. Setting this to \"None\" makes a \"headless service\" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies", 0),
    ("External-IP", "string", "", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.", 0),
    ("Port(s)", "string", "", "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies", 0),
    ("Age", "string", "", CREATION_TIMESTAMP, 0),
    ("Selector", "string", "", "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/", 1),
];

// apiv1.NodeStatus{}.SwaggerDoc()["addresses"]
const NODE_ADDRESSES: &str = "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).";

const NODE: &[Def] = &[
    ("Name", "string", "name", NAME, 0),
    ("Status", "string", "", "The status of the node", 0),
    ("Roles", "string", "", "The roles of the node", 0),
    ("Age", "string", "", CREATION_TIMESTAMP, 0),
    // apiv1.NodeSystemInfo{}.SwaggerDoc()
    ("Version", "string", "", "Kubelet Version reported by the node.", 0),
    ("Internal-IP", "string", "", NODE_ADDRESSES, 1),
    ("External-IP", "string", "", NODE_ADDRESSES, 1),
    ("OS-Image", "string", "", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1),
    ("Kernel-Version", "string", "", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
    ("Container-Runtime", "string", "", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", 1),
];

const NAMESPACE: &[Def] = &[
    ("Name", "string", "name", NAME, 0),
    ("Status", "string", "", "The status of the namespace", 0),
    ("Age", "string", "", CREATION_TIMESTAMP, 0),
];

const CONFIG_MAP: &[Def] = &[
    ("Name", "string", "name", NAME, 0),
    // apiv1.ConfigMap{}.SwaggerDoc()["data"]
    ("Data", "string", "", "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.", 0),
    ("Age", "string", "", CREATION_TIMESTAMP, 0),
];

const SECRET: &[Def] = &[
    ("Name", "string", "name", NAME, 0),
    // apiv1.Secret{}.SwaggerDoc()
    ("Type", "string", "", "Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types", 0),
    ("Data", "string", "", "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4", 0),
    ("Age", "string", "", CREATION_TIMESTAMP, 0),
];

// The event printer's column order changed in 1.23 (kubectl get events shows Last Seen first).
const EVENT: &[Def] = &[
    // apiv1.Event{}.SwaggerDoc()
    ("Last Seen", "string", "", "The time at which the most recent occurrence of this event was recorded.", 0),
    ("Type", "string", "", "Type of this event (Normal, Warning), new types could be added in the future", 0),
    ("Reason", "string", "", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.", 0),
    ("Object", "string", "", "The object that this event is about.", 0),
    // apiv1.Event{}.InvolvedObject.SwaggerDoc()["fieldPath"]
    ("Subobject", "string", "", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: \"spec.containers{name}\" (where \"name\" refers to the name of the container that triggered the event) or if no container name is specified \"spec.containers[2]\" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.", 1),
    ("Source", "string", "", "The component reporting this event. Should be a short machine understandable string.", 1),
    ("Message", "string", "", "A human-readable description of the status of this operation.", 0),
    ("First Seen", "string", "", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", 1),
    // The printer declares "string" and fills it with an int64.
    ("Count", "string", "", "The number of times this event has occurred.", 1),
    ("Name", "string", "name", NAME, 1),
];

const LEASE: &[Def] = &[
    ("Name", "string", "name", NAME, 0),
    // coordinationv1.LeaseSpec{}.SwaggerDoc()["holderIdentity"] (v1.32)
    ("Holder", "string", "", "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.", 0),
    ("Age", "string", "", CREATION_TIMESTAMP, 0),
];

// batchv1.JobStatus{}.SwaggerDoc()["succeeded"], batchv1.JobSpec{}.SwaggerDoc()["selector"]
// (k8s.io/api batch/v1 types.go).
const JOB_SUCCEEDED: &str = "The number of pods which reached phase Succeeded.";
const JOB_SELECTOR: &str = "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors";

// The Status column came in 1.30 (kubernetes#123226).
const JOB: &[Def] = &[
    ("Name", "string", "name", NAME, 0),
    ("Status", "string", "", "Status of the job.", 0),
    ("Completions", "string", "", JOB_SUCCEEDED, 0),
    (
        "Duration",
        "string",
        "",
        "Time required to complete the job.",
        0,
    ),
    ("Age", "string", "", CREATION_TIMESTAMP, 0),
    ("Containers", "string", "", CONTAINERS, 1),
    ("Images", "string", "", IMAGES, 1),
    ("Selector", "string", "", JOB_SELECTOR, 1),
];

const STATEFUL_SET: &[Def] = &[
    ("Name", "string", "name", NAME, 0),
    (
        "Ready",
        "string",
        "",
        "Number of the pod with ready state",
        0,
    ),
    ("Age", "string", "", CREATION_TIMESTAMP, 0),
    ("Containers", "string", "", CONTAINERS, 1),
    ("Images", "string", "", IMAGES, 1),
];

// apiv1.PersistentVolumeClaimStatus / PersistentVolumeClaimSpec SwaggerDoc()
const PVC_PHASE: &str = "phase represents the current phase of PersistentVolumeClaim.";
const PVC_VOLUME_NAME: &str =
    "volumeName is the binding reference to the PersistentVolume backing this claim.";
const PVC_CAPACITY: &str = "capacity represents the actual resources of the underlying volume.";
const PVC_ACCESS_MODES: &str = "accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1";
const PVC_VOLUME_MODE: &str = "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.";

/// 1.29+ (the VolumeAttributesClass API, kubernetes#121104): VolumeAttributesClass
/// before Age.
const PVC: &[Def] = &[
    ("Name", "string", "name", NAME, 0),
    ("Status", "string", "", PVC_PHASE, 0),
    ("Volume", "string", "", PVC_VOLUME_NAME, 0),
    ("Capacity", "string", "", PVC_CAPACITY, 0),
    ("Access Modes", "string", "", PVC_ACCESS_MODES, 0),
    ("StorageClass", "string", "", "StorageClass of the pvc", 0),
    (
        "VolumeAttributesClass",
        "string",
        "",
        "VolumeAttributesClass of the pvc",
        0,
    ),
    ("Age", "string", "", CREATION_TIMESTAMP, 0),
    ("VolumeMode", "string", "", PVC_VOLUME_MODE, 1),
];

const CRON_JOB: &[Def] = &[
    ("Name", "string", "name", NAME, 0),
    // batch CronJobSpec / CronJobStatus SwaggerDoc()
    ("Schedule", "string", "", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.", 0),
    ("Timezone", "string", "", "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones", 0),
    ("Suspend", "boolean", "", "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.", 0),
    ("Active", "integer", "", "A list of pointers to currently running jobs.", 0),
    ("Last Schedule", "string", "", "Information when was the last time the job was successfully scheduled.", 0),
    ("Age", "string", "", CREATION_TIMESTAMP, 0),
    ("Containers", "string", "", CONTAINERS, 1),
    ("Images", "string", "", IMAGES, 1),
    ("Selector", "string", "", JOB_SELECTOR, 1),
];

const DEFAULT: &[Def] = &[
    ("Name", "string", "name", NAME, 0),
    ("Created At", "date", "", CREATION_TIMESTAMP, 0),
];

fn columns(defs: &[Def]) -> Vec<Column> {
    defs.iter()
        .map(|&(name, type_, format, description, priority)| Column {
            name: name.into(),
            type_: type_.into(),
            format: format.into(),
            description: description.into(),
            priority,
        })
        .collect()
}

pub(super) fn default_columns() -> Vec<Column> {
    columns(DEFAULT)
}

pub(super) fn name_column() -> Column {
    columns(&DEFAULT[..1]).remove(0)
}

/// The kinds with a built-in printer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Pod,
    Deployment,
    ReplicaSet,
    Service,
    Node,
    Namespace,
    ConfigMap,
    Secret,
    Event,
    Lease,
    Job(JobStatusColumn),
    CronJob,
    StatefulSet,
    /// Whether the release prints the VolumeAttributesClass column.
    PersistentVolumeClaim {
        volume_attributes_class: bool,
    },
}

/// Whether a release's PVC printer has the VolumeAttributesClass column (1.29+, with the
/// VolumeAttributesClass API, kubernetes#121104; printed whatever the feature gate says).
pub(super) fn pvc_prints_volume_attributes_class(release: crate::release::Release) -> bool {
    release.minor() >= 29
}

/// What a release's Job printer shows as Status (`printJob`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum JobStatusColumn {
    /// 1.27-1.29: no Status column.
    Absent,
    /// 1.30-1.33 (kubernetes#123226): Complete, Failed, Terminating, Suspended,
    /// FailureTarget, else Running.
    Conditions,
    /// 1.34+ (kubernetes#132832): SuccessCriteriaMet as well, after FailureTarget.
    WithSuccessCriteriaMet,
}

impl JobStatusColumn {
    pub(super) fn of(release: crate::release::Release) -> JobStatusColumn {
        match release.minor() {
            ..=29 => JobStatusColumn::Absent,
            30..=33 => JobStatusColumn::Conditions,
            _ => JobStatusColumn::WithSuccessCriteriaMet,
        }
    }
}

impl Kind {
    pub(super) fn of(group: &str, kind: &str) -> Option<Kind> {
        Some(match (group, kind) {
            ("", "Pod") => Kind::Pod,
            ("apps", "Deployment") => Kind::Deployment,
            ("apps", "ReplicaSet") => Kind::ReplicaSet,
            ("", "Service") => Kind::Service,
            ("", "Node") => Kind::Node,
            ("", "Namespace") => Kind::Namespace,
            ("", "ConfigMap") => Kind::ConfigMap,
            ("", "Secret") => Kind::Secret,
            ("", "Event") => Kind::Event,
            ("coordination.k8s.io", "Lease") => Kind::Lease,
            ("batch", "Job") => Kind::Job(JobStatusColumn::WithSuccessCriteriaMet),
            ("batch", "CronJob") => Kind::CronJob,
            ("apps", "StatefulSet") => Kind::StatefulSet,
            ("", "PersistentVolumeClaim") => Kind::PersistentVolumeClaim {
                volume_attributes_class: true,
            },
            _ => return None,
        })
    }

    /// The kind as release `release` prints it, where its columns changed.
    pub(super) fn in_release(self, release: crate::release::Release) -> Kind {
        match self {
            Kind::Job(_) => Kind::Job(JobStatusColumn::of(release)),
            Kind::PersistentVolumeClaim { .. } => Kind::PersistentVolumeClaim {
                volume_attributes_class: pvc_prints_volume_attributes_class(release),
            },
            other => other,
        }
    }

    pub(super) fn columns(self) -> Vec<Column> {
        // A column older releases do not print (their printers have one column less).
        let absent = match self {
            Kind::Job(JobStatusColumn::Absent) => Some("Status"),
            Kind::PersistentVolumeClaim {
                volume_attributes_class: false,
            } => Some("VolumeAttributesClass"),
            _ => None,
        };
        let mut out = columns(match self {
            Kind::Pod => POD,
            Kind::Deployment => DEPLOYMENT,
            Kind::ReplicaSet => REPLICA_SET,
            Kind::Service => SERVICE,
            Kind::Node => NODE,
            Kind::Namespace => NAMESPACE,
            Kind::ConfigMap => CONFIG_MAP,
            Kind::Secret => SECRET,
            Kind::Event => EVENT,
            Kind::Lease => LEASE,
            Kind::Job(_) => JOB,
            Kind::CronJob => CRON_JOB,
            Kind::StatefulSet => STATEFUL_SET,
            Kind::PersistentVolumeClaim { .. } => PVC,
        });
        out.retain(|c| Some(c.name.as_str()) != absent);
        out
    }

    pub(super) fn row(self, o: &Value) -> Row {
        let cells = match self {
            Kind::Pod => return pod(o),
            Kind::Deployment => deployment(o),
            Kind::ReplicaSet => replica_set(o),
            Kind::Service => service(o),
            Kind::Node => node(o),
            Kind::Namespace => vec![name(o), Cell::str(text(o, &["status", "phase"])), age(o)],
            Kind::ConfigMap => vec![
                name(o),
                Cell::Int(map_len(o, &["data"]) + map_len(o, &["binaryData"])),
                age(o),
            ],
            Kind::Secret => vec![
                name(o),
                Cell::str(text(o, &["type"])),
                Cell::Int(map_len(o, &["data"])),
                age(o),
            ],
            Kind::Event => event(o),
            Kind::Job(status) => job(o, status),
            Kind::CronJob => cron_job(o),
            Kind::StatefulSet => stateful_set(o),
            Kind::PersistentVolumeClaim {
                volume_attributes_class,
            } => pvc(o, volume_attributes_class),
            // printLease: an unset holderIdentity prints as "".
            Kind::Lease => vec![
                name(o),
                Cell::str(text(o, &["spec", "holderIdentity"])),
                age(o),
            ],
        };
        Row {
            cells,
            completed: None,
        }
    }
}

/// Name and Created At (UTC RFC 3339, zero time for an unset timestamp).
pub(super) fn default_row(o: &Value) -> Row {
    let created = time(o, &["metadata", "creationTimestamp"]).unwrap_or(ZERO_TIME_MS);
    Row {
        cells: vec![name(o), Cell::str(super::format_rfc3339(created))],
        completed: None,
    }
}

/// Go's zero `time.Time` (0001-01-01T00:00:00Z) in Unix ms.
const ZERO_TIME_MS: i64 = -62_135_596_800_000;

// ---- JSON access with Go zero values for anything missing or of the wrong type ----

fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(*k))
}

fn text<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    at(v, path).and_then(Value::as_str).unwrap_or("")
}

fn int(v: &Value, path: &[&str]) -> i64 {
    at(v, path)
        .and_then(|n| n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)))
        .unwrap_or(0)
}

fn flag(v: &Value, path: &[&str]) -> bool {
    at(v, path).and_then(Value::as_bool).unwrap_or(false)
}

fn list<'a>(v: &'a Value, path: &[&str]) -> &'a [Value] {
    at(v, path)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

fn map_len(v: &Value, path: &[&str]) -> i64 {
    at(v, path)
        .and_then(Value::as_object)
        .map_or(0, |m| m.len() as i64)
}

/// A timestamp field; `None` when unset (Go's zero time) or unparsable.
fn time(v: &Value, path: &[&str]) -> Option<i64> {
    at(v, path)
        .and_then(Value::as_str)
        .and_then(parse_rfc3339_ms)
}

/// Whether an optional (pointer) field is set.
fn present(v: &Value, path: &[&str]) -> bool {
    at(v, path).is_some_and(|x| !x.is_null())
}

fn name(o: &Value) -> Cell {
    Cell::str(text(o, &["metadata", "name"]))
}

fn age(o: &Value) -> Cell {
    Cell::since(time(o, &["metadata", "creationTimestamp"]))
}

fn or_none(s: &str) -> Cell {
    Cell::str(if s.is_empty() { "<none>" } else { s })
}

/// `labels.FormatLabels`: `k=v` sorted by key, comma-joined; `<none>` when empty.
fn format_labels(v: Option<&Value>) -> String {
    let pairs: Vec<String> = v
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
                .collect()
        })
        .unwrap_or_default();
    if pairs.is_empty() {
        "<none>".into()
    } else {
        pairs.join(",")
    }
}

/// `metav1.LabelSelectorAsSelector(sel).String()`: requirements sorted by key, `k=v`,
/// `k in (a,b)`, `k notin (a,b)`, `k`, `!k`; `""` for a nil or empty selector. `Err` for an
/// unknown operator (the printers then show `<invalid>` / `<error>`).
fn label_selector(sel: Option<&Value>) -> Result<String, ()> {
    let Some(sel) = sel.filter(|s| !s.is_null()) else {
        return Ok(String::new());
    };
    let mut reqs: Vec<(String, String)> = Vec::new();
    if let Some(m) = sel.get("matchLabels").and_then(Value::as_object) {
        for (k, v) in m {
            reqs.push((k.clone(), format!("{k}={}", v.as_str().unwrap_or(""))));
        }
    }
    for e in list(sel, &["matchExpressions"]) {
        let key = text(e, &["key"]);
        let mut values: Vec<&str> = list(e, &["values"])
            .iter()
            .filter_map(Value::as_str)
            .collect();
        values.sort_unstable();
        let r = match text(e, &["operator"]) {
            "In" if !values.is_empty() => format!("{key} in ({})", values.join(",")),
            "NotIn" if !values.is_empty() => format!("{key} notin ({})", values.join(",")),
            "Exists" if values.is_empty() => key.to_string(),
            "DoesNotExist" if values.is_empty() => format!("!{key}"),
            _ => return Err(()),
        };
        reqs.push((key.to_string(), r));
    }
    reqs.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(reqs
        .into_iter()
        .map(|(_, r)| r)
        .collect::<Vec<_>>()
        .join(","))
}

/// `metav1.FormatLabelSelector`: `<error>` for an invalid selector, `<none>` for an empty one.
fn format_label_selector(sel: Option<&Value>) -> String {
    match label_selector(sel) {
        Err(()) => "<error>".into(),
        Ok(s) if s.is_empty() => "<none>".into(),
        Ok(s) => s,
    }
}

/// `layoutContainerCells`: container names and images, comma-joined.
fn container_cells(o: &Value, spec: &[&str]) -> (Cell, Cell) {
    let containers = at(o, spec).map_or(&[][..], |s| list(s, &["containers"]));
    let names: Vec<&str> = containers.iter().map(|c| text(c, &["name"])).collect();
    let images: Vec<&str> = containers.iter().map(|c| text(c, &["image"])).collect();
    (Cell::str(names.join(",")), Cell::str(images.join(",")))
}

// ---- printPod ----

/// Whether a container status's state has a `key` (waiting/running/terminated) set.
fn state<'a>(cs: &'a Value, key: &str) -> Option<&'a Value> {
    at(cs, &["state", key]).filter(|s| !s.is_null())
}

fn last_terminated_at(cs: &Value) -> Option<i64> {
    at(cs, &["lastState", "terminated"])
        .filter(|t| !t.is_null())
        .and_then(|t| time(t, &["finishedAt"]))
}

/// `Signal:N` / `ExitCode:N` for a terminated state without a reason.
fn exit_text(terminated: &Value) -> String {
    let signal = int(terminated, &["signal"]);
    if signal != 0 {
        format!("Signal:{signal}")
    } else {
        format!("ExitCode:{}", int(terminated, &["exitCode"]))
    }
}

fn pod(o: &Value) -> Row {
    let spec_containers = list(o, &["spec", "containers"]);
    let init_containers = list(o, &["spec", "initContainers"]);
    let status = o.get("status").unwrap_or(&Value::Null);
    let conditions = list(status, &["conditions"]);

    let mut restarts = 0i64;
    let mut restartable_init_restarts = 0i64;
    let mut total = spec_containers.len() as i64;
    let mut ready = 0i64;
    let mut last_restart: Option<i64> = None;
    let mut last_restartable_init_restart: Option<i64> = None;

    let phase = text(status, &["phase"]);
    let mut reason = match text(status, &["reason"]) {
        "" => phase.to_string(),
        r => r.to_string(),
    };
    if conditions
        .iter()
        .any(|c| text(c, &["type"]) == "PodScheduled" && text(c, &["reason"]) == "SchedulingGated")
    {
        reason = "SchedulingGated".into();
    }
    let completed = match phase {
        "Succeeded" => Some(Completion::Succeeded),
        "Failed" => Some(Completion::Failed),
        _ => None,
    };

    // Sidecars (init containers with restartPolicy Always) count as containers.
    let restartable = |name: &str| {
        init_containers
            .iter()
            .any(|c| text(c, &["name"]) == name && text(c, &["restartPolicy"]) == "Always")
    };
    total += init_containers
        .iter()
        .filter(|c| text(c, &["restartPolicy"]) == "Always")
        .count() as i64;

    let mut initializing = false;
    for (i, cs) in list(status, &["initContainerStatuses"]).iter().enumerate() {
        restarts += int(cs, &["restartCount"]);
        if let Some(t) = last_terminated_at(cs) {
            last_restart = last_restart.max(Some(t));
        }
        let is_sidecar = restartable(text(cs, &["name"]));
        if is_sidecar {
            restartable_init_restarts += int(cs, &["restartCount"]);
            if let Some(t) = last_terminated_at(cs) {
                last_restartable_init_restart = last_restartable_init_restart.max(Some(t));
            }
        }
        let terminated = state(cs, "terminated");
        let waiting = state(cs, "waiting");
        if terminated.is_some_and(|t| int(t, &["exitCode"]) == 0) {
            continue;
        }
        if is_sidecar && flag(cs, &["started"]) {
            if flag(cs, &["ready"]) {
                ready += 1;
            }
            continue;
        }
        if let Some(t) = terminated {
            reason = match text(t, &["reason"]) {
                "" => format!("Init:{}", exit_text(t)),
                r => format!("Init:{r}"),
            };
        } else if let Some(w) = waiting
            .map(|w| text(w, &["reason"]))
            .filter(|r| !r.is_empty() && *r != "PodInitializing")
        {
            reason = format!("Init:{w}");
        } else {
            reason = format!("Init:{i}/{}", init_containers.len());
        }
        initializing = true;
        break;
    }

    let initialized = conditions
        .iter()
        .find(|c| text(c, &["type"]) == "Initialized")
        .is_some_and(|c| text(c, &["status"]) == "True");
    if !initializing || initialized {
        restarts = restartable_init_restarts;
        last_restart = last_restartable_init_restart;
        let mut has_running = false;
        for cs in list(status, &["containerStatuses"]).iter().rev() {
            restarts += int(cs, &["restartCount"]);
            if let Some(t) = last_terminated_at(cs) {
                last_restart = last_restart.max(Some(t));
            }
            let waiting_reason = state(cs, "waiting").map(|w| text(w, &["reason"]));
            let terminated = state(cs, "terminated");
            if let Some(r) = waiting_reason.filter(|r| !r.is_empty()) {
                reason = r.to_string();
            } else if let Some(t) = terminated {
                reason = match text(t, &["reason"]) {
                    "" => exit_text(t),
                    r => r.to_string(),
                };
            } else if flag(cs, &["ready"]) && state(cs, "running").is_some() {
                has_running = true;
                ready += 1;
            }
        }
        // A completed container next to a running one: the pod is still Running.
        if reason == "Completed" && has_running {
            let pod_ready = conditions
                .iter()
                .any(|c| text(c, &["type"]) == "Ready" && text(c, &["status"]) == "True");
            reason = if pod_ready { "Running" } else { "NotReady" }.into();
        }
    }

    if present(o, &["metadata", "deletionTimestamp"]) {
        if text(status, &["reason"]) == "NodeLost" {
            reason = "Unknown".into();
        } else if phase != "Failed" && phase != "Succeeded" {
            reason = "Terminating".into();
        }
    }

    let restarts_cell = match last_restart {
        Some(unix_ms) if restarts != 0 => Cell::RestartsSince {
            count: restarts,
            unix_ms,
        },
        _ => Cell::str(restarts.to_string()),
    };

    let pod_ip = list(status, &["podIPs"])
        .first()
        .map_or("", |ip| text(ip, &["ip"]));
    let gates = list(o, &["spec", "readinessGates"]);
    let readiness_gates = if gates.is_empty() {
        "<none>".to_string()
    } else {
        let true_conditions = gates
            .iter()
            .filter(|g| {
                let ty = text(g, &["conditionType"]);
                conditions
                    .iter()
                    .find(|c| text(c, &["type"]) == ty)
                    .is_some_and(|c| text(c, &["status"]) == "True")
            })
            .count();
        format!("{true_conditions}/{}", gates.len())
    };

    Row {
        cells: vec![
            name(o),
            Cell::str(format!("{ready}/{total}")),
            Cell::str(reason),
            restarts_cell,
            age(o),
            or_none(pod_ip),
            or_none(text(o, &["spec", "nodeName"])),
            or_none(text(status, &["nominatedNodeName"])),
            Cell::str(readiness_gates),
        ],
        completed,
    }
}

// ---- printDeployment, printReplicaSet ----

fn deployment(o: &Value) -> Vec<Cell> {
    let (containers, images) = container_cells(o, &["spec", "template", "spec"]);
    let selector =
        label_selector(at(o, &["spec", "selector"])).unwrap_or_else(|()| "<invalid>".into());
    vec![
        name(o),
        Cell::str(format!(
            "{}/{}",
            int(o, &["status", "readyReplicas"]),
            int(o, &["spec", "replicas"])
        )),
        Cell::Int(int(o, &["status", "updatedReplicas"])),
        Cell::Int(int(o, &["status", "availableReplicas"])),
        age(o),
        containers,
        images,
        Cell::str(selector),
    ]
}

fn replica_set(o: &Value) -> Vec<Cell> {
    let (containers, images) = container_cells(o, &["spec", "template", "spec"]);
    vec![
        name(o),
        Cell::Int(int(o, &["spec", "replicas"])),
        Cell::Int(int(o, &["status", "replicas"])),
        Cell::Int(int(o, &["status", "readyReplicas"])),
        age(o),
        containers,
        images,
        Cell::str(format_label_selector(at(o, &["spec", "selector"]))),
    ]
}

// ---- printJob, printCronJob ----

fn has_condition(o: &Value, ty: &str) -> bool {
    list(o, &["status", "conditions"])
        .iter()
        .any(|c| text(c, &["type"]) == ty && text(c, &["status"]) == "True")
}

fn job(o: &Value, status_column: JobStatusColumn) -> Vec<Cell> {
    let succeeded = int(o, &["status", "succeeded"]);
    let completions = match at(o, &["spec", "completions"]).and_then(Value::as_i64) {
        Some(n) => format!("{succeeded}/{n}"),
        None => match int(o, &["spec", "parallelism"]) {
            p if p > 1 => format!("{succeeded}/1 of {p}"),
            _ => format!("{succeeded}/1"),
        },
    };
    let start = time(o, &["status", "startTime"]);
    let duration = match (start, time(o, &["status", "completionTime"])) {
        (None, _) => Cell::str(""),
        (Some(s), None) => Cell::Since { unix_ms: s },
        (Some(s), Some(c)) => Cell::str(super::clock::human_duration(c - s)),
    };
    let status = if has_condition(o, "Complete") {
        "Complete"
    } else if has_condition(o, "Failed") {
        "Failed"
    } else if present(o, &["metadata", "deletionTimestamp"]) {
        "Terminating"
    } else if has_condition(o, "Suspended") {
        "Suspended"
    } else if has_condition(o, "FailureTarget") {
        "FailureTarget"
    } else if status_column == JobStatusColumn::WithSuccessCriteriaMet
        && has_condition(o, "SuccessCriteriaMet")
    {
        "SuccessCriteriaMet"
    } else {
        "Running"
    };
    let (containers, images) = container_cells(o, &["spec", "template", "spec"]);
    let mut cells = vec![name(o)];
    if status_column != JobStatusColumn::Absent {
        cells.push(Cell::str(status));
    }
    cells.extend([
        Cell::str(completions),
        duration,
        age(o),
        containers,
        images,
        Cell::str(format_label_selector(at(o, &["spec", "selector"]))),
    ]);
    cells
}

/// printStatefulSet: Ready is readyReplicas/spec.replicas.
fn stateful_set(o: &Value) -> Vec<Cell> {
    let (containers, images) = container_cells(o, &["spec", "template", "spec"]);
    vec![
        name(o),
        Cell::str(format!(
            "{}/{}",
            int(o, &["status", "readyReplicas"]),
            int(o, &["spec", "replicas"])
        )),
        age(o),
        containers,
        images,
    ]
}

/// printPersistentVolumeClaim: Terminating once deleted; capacity and access modes only
/// for a bound claim (spec.volumeName set); `<unset>` for an unset volume mode or
/// attributes class.
fn pvc(o: &Value, volume_attributes_class: bool) -> Vec<Cell> {
    let phase = if present(o, &["metadata", "deletionTimestamp"]) {
        "Terminating"
    } else {
        text(o, &["status", "phase"])
    };
    let volume = text(o, &["spec", "volumeName"]);
    let (capacity, modes) = if volume.is_empty() {
        (String::new(), String::new())
    } else {
        (
            text(o, &["status", "capacity", "storage"]).to_string(),
            access_modes(list(o, &["status", "accessModes"])),
        )
    };
    let unset_or = |path: &[&str]| match at(o, path).and_then(Value::as_str) {
        Some(s) => s.to_string(),
        None => "<unset>".to_string(),
    };
    let mut cells = vec![
        name(o),
        Cell::str(phase),
        Cell::str(volume),
        Cell::str(capacity),
        Cell::str(modes),
        Cell::str(pvc_class(o)),
    ];
    if volume_attributes_class {
        cells.push(Cell::str(unset_or(&["spec", "volumeAttributesClassName"])));
    }
    cells.push(age(o));
    cells.push(Cell::str(unset_or(&["spec", "volumeMode"])));
    cells
}

/// helper.GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName.
fn pvc_class(o: &Value) -> &str {
    at(
        o,
        &[
            "metadata",
            "annotations",
            "volume.beta.kubernetes.io/storage-class",
        ],
    )
    .and_then(Value::as_str)
    .unwrap_or_else(|| text(o, &["spec", "storageClassName"]))
}

/// helper.GetAccessModesAsString: each mode once, in the order RWO, ROX, RWX, RWOP.
fn access_modes(modes: &[Value]) -> String {
    let has = |m: &str| modes.iter().any(|v| v.as_str() == Some(m));
    [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ]
    .iter()
    .filter(|(mode, _)| has(mode))
    .map(|(_, short)| *short)
    .collect::<Vec<_>>()
    .join(",")
}

fn cron_job(o: &Value) -> Vec<Cell> {
    let last = match time(o, &["status", "lastScheduleTime"]) {
        Some(t) => Cell::Since { unix_ms: t },
        None => Cell::str("<none>"),
    };
    let zone = at(o, &["spec", "timeZone"])
        .and_then(Value::as_str)
        .unwrap_or("<none>");
    // printBoolPtr: "<unset>" for a nil pointer.
    let suspend = match at(o, &["spec", "suspend"]).and_then(Value::as_bool) {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    };
    let template = &["spec", "jobTemplate", "spec", "template", "spec"];
    let (containers, images) = container_cells(o, template);
    vec![
        name(o),
        Cell::str(text(o, &["spec", "schedule"])),
        Cell::str(zone),
        Cell::str(suspend),
        Cell::Int(list(o, &["status", "active"]).len() as i64),
        last,
        age(o),
        containers,
        images,
        Cell::str(format_label_selector(at(
            o,
            &["spec", "jobTemplate", "spec", "selector"],
        ))),
    ]
}

// ---- printService ----

fn service(o: &Value) -> Vec<Cell> {
    let spec = o.get("spec").unwrap_or(&Value::Null);
    let cluster_ip = list(spec, &["clusterIPs"])
        .first()
        .and_then(Value::as_str)
        .unwrap_or("<none>");
    let ports: Vec<String> = list(spec, &["ports"])
        .iter()
        .map(|p| {
            let (port, proto) = (int(p, &["port"]), text(p, &["protocol"]));
            match int(p, &["nodePort"]) {
                n if n > 0 => format!("{port}:{n}/{proto}"),
                _ => format!("{port}/{proto}"),
            }
        })
        .collect();
    let ports = if ports.is_empty() {
        "<none>".into()
    } else {
        ports.join(",")
    };
    vec![
        name(o),
        Cell::str(text(spec, &["type"])),
        Cell::str(cluster_ip),
        Cell::str(service_external_ip(o)),
        Cell::str(ports),
        age(o),
        Cell::str(format_labels(spec.get("selector"))),
    ]
}

/// `getServiceExternalIP` with `wide` true (the server always prints wide: no `...` clipping).
fn service_external_ip(o: &Value) -> String {
    let external: Vec<&str> = list(o, &["spec", "externalIPs"])
        .iter()
        .filter_map(Value::as_str)
        .collect();
    match text(o, &["spec", "type"]) {
        "ClusterIP" | "NodePort" if external.is_empty() => "<none>".into(),
        "ClusterIP" | "NodePort" => external.join(","),
        "LoadBalancer" => {
            // loadBalancerStatusStringer: a sorted set of ingress IPs (or hostnames).
            let lb: BTreeSet<&str> = list(o, &["status", "loadBalancer", "ingress"])
                .iter()
                .filter_map(|i| match (text(i, &["ip"]), text(i, &["hostname"])) {
                    ("", "") => None,
                    ("", host) => Some(host),
                    (ip, _) => Some(ip),
                })
                .collect();
            let mut all: Vec<&str> = lb.into_iter().collect();
            if all.is_empty() && external.is_empty() {
                return "<pending>".into();
            }
            all.extend(external);
            all.join(",")
        }
        "ExternalName" => text(o, &["spec", "externalName"]).into(),
        _ => "<unknown>".into(),
    }
}

// ---- printNode ----

fn node(o: &Value) -> Vec<Cell> {
    let status = o.get("status").unwrap_or(&Value::Null);
    // conditionMap: the last Ready condition wins.
    let ready = list(status, &["conditions"])
        .iter()
        .rfind(|c| text(c, &["type"]) == "Ready");
    let mut state = match ready {
        Some(c) if text(c, &["status"]) == "True" => "Ready".to_string(),
        Some(_) => "NotReady".to_string(),
        None => "Unknown".to_string(),
    };
    if flag(o, &["spec", "unschedulable"]) {
        state.push_str(",SchedulingDisabled");
    }
    let mut roles = BTreeSet::new();
    if let Some(labels) = at(o, &["metadata", "labels"]).and_then(Value::as_object) {
        for (k, v) in labels {
            if let Some(role) = k.strip_prefix("node-role.kubernetes.io/") {
                if !role.is_empty() {
                    roles.insert(role.to_string());
                }
            } else if k == "kubernetes.io/role" {
                if let Some(v) = v.as_str().filter(|v| !v.is_empty()) {
                    roles.insert(v.to_string());
                }
            }
        }
    }
    let roles = roles.into_iter().collect::<Vec<_>>().join(",");
    let address = |ty: &str| {
        list(status, &["addresses"])
            .iter()
            .find(|a| text(a, &["type"]) == ty)
            .map_or("<none>", |a| text(a, &["address"]))
    };
    let info = |k: &str| match text(status, &["nodeInfo", k]) {
        "" => "<unknown>",
        v => v,
    };
    vec![
        name(o),
        Cell::str(state),
        or_none(&roles),
        age(o),
        Cell::str(text(status, &["nodeInfo", "kubeletVersion"])),
        Cell::str(address("InternalIP")),
        Cell::str(address("ExternalIP")),
        Cell::str(info("osImage")),
        Cell::str(info("kernelVersion")),
        Cell::str(info("containerRuntimeVersion")),
    ]
}

// ---- printEvent ----

fn event(o: &Value) -> Vec<Cell> {
    let first = match time(o, &["firstTimestamp"]) {
        Some(t) => Cell::Since { unix_ms: t },
        None => Cell::since(time(o, &["eventTime"])),
    };
    let mut last = match time(o, &["lastTimestamp"]) {
        Some(t) => Cell::Since { unix_ms: t },
        None => first.clone(),
    };
    let mut count = int(o, &["count"]);
    if present(o, &["series"]) {
        last = Cell::since(time(o, &["series", "lastObservedTime"]));
        count = int(o, &["series", "count"]);
    } else if count == 0 {
        // Singleton events of the events.k8s.io API have no count.
        count = 1;
    }
    let kind = text(o, &["involvedObject", "kind"]).to_lowercase();
    let target = match text(o, &["involvedObject", "name"]) {
        "" => kind,
        n => format!("{kind}/{n}"),
    };
    let pick = |a: &'_ str, b: &'_ str| {
        if a.is_empty() {
            b.to_string()
        } else {
            a.to_string()
        }
    };
    let component = pick(
        text(o, &["source", "component"]),
        text(o, &["reportingComponent"]),
    );
    let instance = pick(
        text(o, &["source", "host"]),
        text(o, &["reportingInstance"]),
    );
    let source = if instance.is_empty() {
        component
    } else {
        format!("{component}, {instance}")
    };
    vec![
        last,
        Cell::str(text(o, &["type"])),
        Cell::str(text(o, &["reason"])),
        Cell::str(target),
        Cell::str(text(o, &["involvedObject", "fieldPath"])),
        Cell::str(source),
        Cell::str(text(o, &["message"]).trim()),
        first,
        Cell::Int(count),
        name(o),
    ]
}
