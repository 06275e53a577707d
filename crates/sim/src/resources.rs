//! The resource types the sim serves, and how a request path names one of them.
//! Their discovery documents are in [`crate::discovery`].

use std::sync::OnceLock;

/// A resource type served by the sim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceType {
    /// `""` for the core group.
    pub group: &'static str,
    pub version: &'static str,
    pub plural: &'static str,
    pub singular: &'static str,
    pub kind: &'static str,
    pub list_kind: &'static str,
    pub namespaced: bool,
    pub short_names: &'static [&'static str],
    /// Categories as the real registry declares them (`all` makes `kubectl get all` list it).
    pub categories: &'static [&'static str],
    /// Served by a CustomResourceDefinition (discovery describes those slightly
    /// differently: `responseKind` carries group and version).
    pub custom: bool,
}

impl ResourceType {
    /// `v1` or `apps/v1`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
    /// `/api/v1` or `/apis/apps/v1`.
    pub fn prefix(&self) -> String {
        if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        }
    }
    /// The collection path, cluster-wide (`None`) or in a namespace.
    pub fn collection_path(&self, namespace: Option<&str>) -> String {
        match namespace {
            Some(ns) if self.namespaced => {
                format!("{}/namespaces/{ns}/{}", self.prefix(), self.plural)
            }
            _ => format!("{}/{}", self.prefix(), self.plural),
        }
    }
    /// `pods` or `deployments.apps` (for error messages).
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.plural.to_string()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }
}

/// A core (`/api/v1`) resource type.
const fn core(
    plural: &'static str,
    singular: &'static str,
    kind: &'static str,
    list_kind: &'static str,
    namespaced: bool,
    short_names: &'static [&'static str],
    categories: &'static [&'static str],
) -> ResourceType {
    ResourceType {
        group: "",
        version: "v1",
        plural,
        singular,
        kind,
        list_kind,
        namespaced,
        short_names,
        categories,
        custom: false,
    }
}

/// An `apps/v1` resource type (all of them namespaced and in category `all`).
const fn apps(
    plural: &'static str,
    singular: &'static str,
    kind: &'static str,
    list_kind: &'static str,
    short_names: &'static [&'static str],
) -> ResourceType {
    ResourceType {
        group: "apps",
        version: "v1",
        plural,
        singular,
        kind,
        list_kind,
        namespaced: true,
        short_names,
        categories: &["all"],
        custom: false,
    }
}

// Short names and categories as kube-apiserver 1.32 registers them (pkg/registry/*/rest.go:
// ShortNames(), Categories()).
pub const NAMESPACES: ResourceType = core(
    "namespaces",
    "namespace",
    "Namespace",
    "NamespaceList",
    false,
    &["ns"],
    &[],
);
pub const PODS: ResourceType = core("pods", "pod", "Pod", "PodList", true, &["po"], &["all"]);
pub const CONFIGMAPS: ResourceType = core(
    "configmaps",
    "configmap",
    "ConfigMap",
    "ConfigMapList",
    true,
    &["cm"],
    &[],
);
pub const SERVICES: ResourceType = core(
    "services",
    "service",
    "Service",
    "ServiceList",
    true,
    &["svc"],
    &["all"],
);
pub const NODES: ResourceType = core("nodes", "node", "Node", "NodeList", false, &["no"], &[]);
pub const SECRETS: ResourceType = core("secrets", "secret", "Secret", "SecretList", true, &[], &[]);
pub const EVENTS: ResourceType = core("events", "event", "Event", "EventList", true, &["ev"], &[]);
pub const DEPLOYMENTS: ResourceType = apps(
    "deployments",
    "deployment",
    "Deployment",
    "DeploymentList",
    &["deploy"],
);
pub const REPLICASETS: ResourceType = apps(
    "replicasets",
    "replicaset",
    "ReplicaSet",
    "ReplicaSetList",
    &["rs"],
);
pub const WIDGETS: ResourceType = ResourceType {
    group: "kubelive.dev",
    version: "v1",
    plural: "widgets",
    singular: "widget",
    kind: "Widget",
    list_kind: "WidgetList",
    namespaced: true,
    short_names: &["wg"],
    categories: &[],
    custom: true,
};

/// `coordination.k8s.io/v1` Leases: what the control plane renews every few seconds.
pub const LEASES: ResourceType = ResourceType {
    group: "coordination.k8s.io",
    version: "v1",
    plural: "leases",
    singular: "lease",
    kind: "Lease",
    list_kind: "LeaseList",
    namespaced: true,
    short_names: &[],
    categories: &[],
    custom: false,
};
/// `apiextensions.k8s.io/v1` CustomResourceDefinitions (`kubectl get crd`).
pub const CUSTOMRESOURCEDEFINITIONS: ResourceType = ResourceType {
    group: "apiextensions.k8s.io",
    version: "v1",
    plural: "customresourcedefinitions",
    singular: "customresourcedefinition",
    kind: "CustomResourceDefinition",
    list_kind: "CustomResourceDefinitionList",
    namespaced: false,
    short_names: &["crd", "crds"],
    categories: &["api-extensions"],
    custom: false,
};

/// A `batch/v1` resource type (namespaced, in category `all`).
const fn batch(
    plural: &'static str,
    singular: &'static str,
    kind: &'static str,
    list_kind: &'static str,
    short_names: &'static [&'static str],
) -> ResourceType {
    ResourceType {
        group: "batch",
        version: "v1",
        plural,
        singular,
        kind,
        list_kind,
        namespaced: true,
        short_names,
        categories: &["all"],
        custom: false,
    }
}

/// `batch/v1` Jobs (pkg/registry/batch/job/storage: category `all`, no short names).
pub const JOBS: ResourceType = batch("jobs", "job", "Job", "JobList", &[]);
/// `batch/v1` CronJobs (pkg/registry/batch/cronjob/storage: short name `cj`, category `all`).
pub const CRONJOBS: ResourceType = batch("cronjobs", "cronjob", "CronJob", "CronJobList", &["cj"]);

/// `apps/v1` StatefulSets (pkg/registry/apps/statefulset/storage: short name `sts`,
/// category `all`).
pub const STATEFULSETS: ResourceType = apps(
    "statefulsets",
    "statefulset",
    "StatefulSet",
    "StatefulSetList",
    &["sts"],
);
/// `v1` PersistentVolumeClaims (pkg/registry/core/persistentvolumeclaim/storage: short name
/// `pvc`, no categories).
pub const PERSISTENTVOLUMECLAIMS: ResourceType = core(
    "persistentvolumeclaims",
    "persistentvolumeclaim",
    "PersistentVolumeClaim",
    "PersistentVolumeClaimList",
    true,
    &["pvc"],
    &[],
);

/// The built-in resource types, in a fixed order (the index is the resource's id in the
/// model; new types go at the end). [`all`] adds the extra groups.
pub const ALL: [ResourceType; 16] = [
    NAMESPACES,
    PODS,
    CONFIGMAPS,
    DEPLOYMENTS,
    WIDGETS,
    SERVICES,
    NODES,
    SECRETS,
    EVENTS,
    REPLICASETS,
    LEASES,
    CUSTOMRESOURCEDEFINITIONS,
    JOBS,
    CRONJOBS,
    STATEFULSETS,
    PERSISTENTVOLUMECLAIMS,
];

/// Every resource type served: [`ALL`], then the extra groups' ([`register_extra_groups`]).
static REGISTRY: OnceLock<Vec<ResourceType>> = OnceLock::new();

/// Every resource type this process serves (fixed on first use).
pub fn all() -> &'static [ResourceType] {
    REGISTRY.get_or_init(|| ALL.to_vec())
}

/// The resource type of extra group `i` (`group-NN.extra.kubelive.dev`, one namespaced,
/// listable resource `things` of kind `Thing`, served from a CustomResourceDefinition).
fn extra_group(i: usize) -> ResourceType {
    let group: &'static str =
        Box::leak(format!("group-{i:02}.extra.kubelive.dev").into_boxed_str());
    ResourceType {
        group,
        version: "v1",
        plural: "things",
        singular: "thing",
        kind: "Thing",
        list_kind: "ThingList",
        namespaced: true,
        short_names: &[],
        categories: &[],
        custom: true,
    }
}

/// The extra groups, after the built-in types in [`all`].
pub fn extra_groups() -> &'static [ResourceType] {
    &all()[ALL.len()..]
}

/// Serves `n` more API groups (for discovery at scale: a browser's discovery against a
/// cluster with many groups). Must come before anything reads the registry (the
/// `kubelive-sim` binary does it first); an error if it was fixed with another count.
pub fn register_extra_groups(n: usize) -> Result<(), String> {
    let set = REGISTRY.get_or_init(|| {
        let mut v = ALL.to_vec();
        v.extend((0..n).map(extra_group));
        v
    });
    if set.len() == ALL.len() + n {
        Ok(())
    } else {
        Err(format!(
            "the resource types were fixed with {} extra groups before {n} were asked for",
            set.len() - ALL.len()
        ))
    }
}

/// Index of a resource type in [`all`].
pub fn index_of(rt: &ResourceType) -> usize {
    // Plural and group name a served type (the rest follows from them); the plural is
    // short and differs first.
    all()
        .iter()
        .position(|r| r.plural == rt.plural && r.group == rt.group)
        .unwrap_or(0)
}

/// What a request path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A collection: all namespaces (`namespace == None`) or one namespace.
    Collection {
        rt: ResourceType,
        namespace: Option<String>,
    },
    /// One object.
    Object {
        rt: ResourceType,
        namespace: Option<String>,
        name: String,
    },
    /// A discovery document (`/api`, `/apis`, a group, a group version, `/version`), the
    /// exact JSON the server sends for a plain `Accept`.
    Discovery(String),
}

/// Resolves a request path (no query). `None` for unknown paths.
pub fn resolve(path: &str) -> Option<Target> {
    let path = path.trim_end_matches('/');
    let path = if path.is_empty() { "/" } else { path };
    if let Some(doc) = crate::discovery::legacy_document(path, crate::discovery::DEFAULT_ADDRESS) {
        return Some(Target::Discovery(doc));
    }
    for &rt in all() {
        let prefix = rt.prefix();
        let Some(rest) = path.strip_prefix(prefix.as_str()) else {
            continue;
        };
        let Some(rest) = rest.strip_prefix('/') else {
            continue;
        };
        let segs: Vec<&str> = rest.split('/').collect();
        if segs.iter().any(|s| s.is_empty()) {
            continue;
        }
        match segs.as_slice() {
            [p] if *p == rt.plural => {
                return Some(Target::Collection {
                    rt,
                    namespace: None,
                })
            }
            [p, name] if *p == rt.plural => {
                return Some(Target::Object {
                    rt,
                    namespace: None,
                    name: name.to_string(),
                })
                .filter(|_| !rt.namespaced)
            }
            ["namespaces", ns, p] if *p == rt.plural && rt.namespaced => {
                return Some(Target::Collection {
                    rt,
                    namespace: Some(ns.to_string()),
                })
            }
            ["namespaces", ns, p, name] if *p == rt.plural && rt.namespaced => {
                return Some(Target::Object {
                    rt,
                    namespace: Some(ns.to_string()),
                    name: name.to_string(),
                })
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(
            resolve("/api/v1/pods"),
            Some(Target::Collection {
                rt: PODS,
                namespace: None
            })
        );
        assert_eq!(
            resolve("/api/v1/namespaces/a/pods"),
            Some(Target::Collection {
                rt: PODS,
                namespace: Some("a".into())
            })
        );
        assert_eq!(
            resolve("/api/v1/namespaces/a"),
            Some(Target::Object {
                rt: NAMESPACES,
                namespace: None,
                name: "a".into()
            })
        );
        assert_eq!(
            resolve("/apis/apps/v1/namespaces/a/deployments/d"),
            Some(Target::Object {
                rt: DEPLOYMENTS,
                namespace: Some("a".into()),
                name: "d".into()
            })
        );
        assert_eq!(
            resolve("/apis/kubelive.dev/v1/widgets"),
            Some(Target::Collection {
                rt: WIDGETS,
                namespace: None
            })
        );
        assert!(resolve("/api/v1/namespaces/a/namespaces").is_none());
        assert!(resolve("/api/v1/nothing").is_none());
        assert!(matches!(resolve("/apis"), Some(Target::Discovery(_))));
        assert!(matches!(
            resolve("/apis/kubelive.dev/v1"),
            Some(Target::Discovery(_))
        ));
    }
}
