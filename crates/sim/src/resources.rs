//! The resource types the sim serves, and the discovery documents describing them.

use serde_json::{json, Value};

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

pub const NAMESPACES: ResourceType = ResourceType {
    group: "",
    version: "v1",
    plural: "namespaces",
    singular: "namespace",
    kind: "Namespace",
    list_kind: "NamespaceList",
    namespaced: false,
    short_names: &["ns"],
};
pub const PODS: ResourceType = ResourceType {
    group: "",
    version: "v1",
    plural: "pods",
    singular: "pod",
    kind: "Pod",
    list_kind: "PodList",
    namespaced: true,
    short_names: &["po"],
};
pub const CONFIGMAPS: ResourceType = ResourceType {
    group: "",
    version: "v1",
    plural: "configmaps",
    singular: "configmap",
    kind: "ConfigMap",
    list_kind: "ConfigMapList",
    namespaced: true,
    short_names: &["cm"],
};
pub const DEPLOYMENTS: ResourceType = ResourceType {
    group: "apps",
    version: "v1",
    plural: "deployments",
    singular: "deployment",
    kind: "Deployment",
    list_kind: "DeploymentList",
    namespaced: true,
    short_names: &["deploy"],
};
pub const WIDGETS: ResourceType = ResourceType {
    group: "kubelive.dev",
    version: "v1",
    plural: "widgets",
    singular: "widget",
    kind: "Widget",
    list_kind: "WidgetList",
    namespaced: true,
    short_names: &["wg"],
};

/// Every resource type, in a fixed order (the index is the resource's id in the model).
pub const ALL: [ResourceType; 5] = [NAMESPACES, PODS, CONFIGMAPS, DEPLOYMENTS, WIDGETS];

/// Index of a resource type in [`ALL`].
pub fn index_of(rt: &ResourceType) -> usize {
    ALL.iter().position(|r| r == rt).unwrap_or(0)
}

const VERBS: [&str; 8] = [
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

fn resource_entry(rt: &ResourceType) -> Value {
    json!({
        "name": rt.plural,
        "singularName": rt.singular,
        "namespaced": rt.namespaced,
        "kind": rt.kind,
        "verbs": VERBS,
        "shortNames": rt.short_names,
    })
}

/// Discovery documents by path: `/api`, `/api/v1`, `/apis`, `/apis/<g>`, `/apis/<g>/<v>`, `/version`.
pub fn discovery(path: &str) -> Option<Value> {
    let groups: Vec<&str> = {
        let mut g: Vec<&str> = ALL
            .iter()
            .map(|r| r.group)
            .filter(|g| !g.is_empty())
            .collect();
        g.dedup();
        g
    };
    let group_doc = |g: &str| {
        json!({
            "name": g,
            "versions": [{"groupVersion": format!("{g}/v1"), "version": "v1"}],
            "preferredVersion": {"groupVersion": format!("{g}/v1"), "version": "v1"},
        })
    };
    match path {
        "/api" => Some(json!({
            "kind": "APIVersions",
            "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:6443"}],
        })),
        "/apis" => Some(json!({
            "kind": "APIGroupList",
            "apiVersion": "v1",
            "groups": groups.iter().map(|g| group_doc(g)).collect::<Vec<_>>(),
        })),
        "/version" => Some(json!({
            "major": "1",
            "minor": "32",
            "gitVersion": "v1.32.0-kubelive-sim",
            "gitCommit": "0000000000000000000000000000000000000000",
            "gitTreeState": "clean",
            "buildDate": "2025-01-01T00:00:00Z",
            "goVersion": "go1.23.0",
            "compiler": "gc",
            "platform": "linux/amd64",
        })),
        _ => {
            if let Some(g) = path.strip_prefix("/apis/") {
                if groups.contains(&g) {
                    let mut d = group_doc(g);
                    d["kind"] = json!("APIGroup");
                    d["apiVersion"] = json!("v1");
                    return Some(d);
                }
            }
            let resources: Vec<Value> = ALL
                .iter()
                .filter(|r| r.prefix() == path)
                .map(resource_entry)
                .collect();
            if resources.is_empty() {
                return None;
            }
            let gv = path
                .trim_start_matches("/apis/")
                .trim_start_matches("/api/");
            Some(json!({
                "kind": "APIResourceList",
                "apiVersion": "v1",
                "groupVersion": gv,
                "resources": resources,
            }))
        }
    }
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
    /// A discovery document.
    Discovery(Value),
}

/// Resolves a request path (no query). `None` for unknown paths.
pub fn resolve(path: &str) -> Option<Target> {
    let path = path.trim_end_matches('/');
    let path = if path.is_empty() { "/" } else { path };
    if let Some(doc) = discovery(path) {
        return Some(Target::Discovery(doc));
    }
    for rt in ALL {
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
