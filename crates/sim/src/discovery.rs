//! Discovery documents as kube-apiserver 1.32 serves them: the legacy documents (`/api`,
//! `/apis`, `/apis/<group>`, `/api/v1`, `/apis/<group>/<version>`), the aggregated ones
//! (`APIGroupDiscoveryList`, `apidiscovery.k8s.io/v2` and `v2beta1`: which of them a release
//! serves is [`crate::Release::aggregated_discovery`]) and `/version`.
//!
//! Honest: each resource lists the verbs the sim serves (`get`, `list`, `watch`; `create`
//! for the review resources) and no subresources, because the sim serves none. Listing
//! `pods/log` or `deployments/scale` without serving them would send clients (`kubectl
//! logs`, `kubectl scale`) into 404s that a real server never gives.
//!
//! Facts, from kubernetes `staging/src/k8s.io/apiserver/pkg/endpoints/`: resources of a
//! group version are sorted by name (`installer.go` registers sorted paths); groups are
//! ordered by their APIService priority, custom resources (priority 1000) last;
//! `storageVersionHash` is the first 8 bytes of sha256(`group/version/kind`) of the storage
//! version, base64 (`discovery/storageversionhash.go`), for CRDs too; the aggregated
//! `responseKind` of a built-in resource has empty group and version
//! (`ConvertGroupVersionIntoToDiscovery` copies the `APIResource`'s, which only
//! GroupVersionKindProvider storages set), a CRD's carries both; the aggregated ETag is the
//! upper-case hex sha512 of the v2 list's JSON (`discovery/aggregated/etag.go`).

use base64::Engine;
use serde::Serialize;
use sha2::{Digest, Sha256, Sha512};

use crate::negotiate::AggregatedVersion;
use crate::resources::{self, ResourceType};

/// The `serverAddress` of `/api` when the caller has no better one.
pub const DEFAULT_ADDRESS: &str = "127.0.0.1:6443";

/// The verbs the sim serves on stored resources.
const READ_VERBS: &[&str] = &["get", "list", "watch"];

/// A resource as discovery lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub group: &'static str,
    pub version: &'static str,
    pub plural: &'static str,
    pub singular: &'static str,
    pub kind: &'static str,
    pub namespaced: bool,
    pub verbs: &'static [&'static str],
    pub short_names: &'static [&'static str],
    pub categories: &'static [&'static str],
    /// Stored (has a storage version, hence a `storageVersionHash`).
    pub stored: bool,
    pub custom: bool,
}

impl Entry {
    const fn stored(rt: ResourceType) -> Entry {
        Entry {
            group: rt.group,
            version: rt.version,
            plural: rt.plural,
            singular: rt.singular,
            kind: rt.kind,
            namespaced: rt.namespaced,
            verbs: READ_VERBS,
            short_names: rt.short_names,
            categories: rt.categories,
            stored: true,
            custom: rt.custom,
        }
    }

    const fn review(plural: &'static str, singular: &'static str, kind: &'static str) -> Entry {
        Entry {
            group: "authorization.k8s.io",
            version: "v1",
            plural,
            singular,
            kind,
            namespaced: false,
            verbs: &["create"],
            short_names: &[],
            categories: &[],
            stored: false,
            custom: false,
        }
    }

    /// `v1` or `apps/v1`.
    pub fn group_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

/// The review resources (served by [`crate::rbac`], never stored).
pub const SELF_SUBJECT_ACCESS_REVIEWS: Entry = Entry::review(
    "selfsubjectaccessreviews",
    "selfsubjectaccessreview",
    "SelfSubjectAccessReview",
);
pub const SELF_SUBJECT_RULES_REVIEWS: Entry = Entry::review(
    "selfsubjectrulesreviews",
    "selfsubjectrulesreview",
    "SelfSubjectRulesReview",
);

/// Every resource discovery lists.
pub fn entries() -> Vec<Entry> {
    let mut all: Vec<Entry> = resources::all()
        .iter()
        .map(|rt| Entry::stored(*rt))
        .collect();
    all.push(SELF_SUBJECT_ACCESS_REVIEWS);
    all.push(SELF_SUBJECT_RULES_REVIEWS);
    all
}

/// `storageVersionHash` of a group/version/kind.
pub fn storage_version_hash(group: &str, version: &str, kind: &str) -> String {
    let digest = Sha256::digest(format!("{group}/{version}/{kind}").as_bytes());
    base64::engine::general_purpose::STANDARD.encode(&digest[..8])
}

/// The APIService priority of a group (kube-aggregator's `apiVersionPriorities`; custom
/// resource groups get 1000).
fn group_priority(group: &str) -> u32 {
    match group {
        "apps" => 17800,
        "authorization.k8s.io" => 17600,
        "batch" => 17400,
        "apiextensions.k8s.io" => 16700,
        "coordination.k8s.io" => 16500,
        _ => 1000,
    }
}

/// API groups (not the core group), in discovery order.
fn groups() -> Vec<&'static str> {
    let mut groups: Vec<&'static str> = Vec::new();
    for e in entries() {
        if !e.group.is_empty() && !groups.contains(&e.group) {
            groups.push(e.group);
        }
    }
    groups.sort_by(|a, b| {
        group_priority(b)
            .cmp(&group_priority(a))
            .then_with(|| a.cmp(b))
    });
    groups
}

/// Resources of one group version, sorted by name.
fn resources_of(group: &str, version: &str) -> Vec<Entry> {
    let mut list: Vec<Entry> = entries()
        .into_iter()
        .filter(|e| e.group == group && e.version == version)
        .collect();
    list.sort_by_key(|e| e.plural);
    list
}

// ---- legacy documents (metav1 types, fields in Go struct order) ----

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GroupVersionForDiscovery {
    group_version: String,
    version: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiGroup {
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    api_version: Option<&'static str>,
    name: &'static str,
    versions: Vec<GroupVersionForDiscovery>,
    preferred_version: GroupVersionForDiscovery,
}

fn api_group(name: &'static str, typed: bool) -> ApiGroup {
    let gv = || GroupVersionForDiscovery {
        group_version: format!("{name}/v1"),
        version: "v1",
    };
    ApiGroup {
        kind: typed.then_some("APIGroup"),
        api_version: typed.then_some("v1"),
        name,
        versions: vec![gv()],
        preferred_version: gv(),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiResource {
    name: &'static str,
    singular_name: &'static str,
    namespaced: bool,
    kind: &'static str,
    verbs: &'static [&'static str],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    short_names: &'static [&'static str],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    categories: &'static [&'static str],
    #[serde(skip_serializing_if = "String::is_empty")]
    storage_version_hash: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiResourceList {
    kind: &'static str,
    /// Absent on `/api/v1` (the core group's handler encodes it without), present on groups.
    #[serde(skip_serializing_if = "Option::is_none")]
    api_version: Option<&'static str>,
    group_version: String,
    resources: Vec<ApiResource>,
}

fn api_resource(e: &Entry) -> ApiResource {
    ApiResource {
        name: e.plural,
        singular_name: e.singular,
        namespaced: e.namespaced,
        kind: e.kind,
        verbs: e.verbs,
        short_names: e.short_names,
        categories: e.categories,
        storage_version_hash: if e.stored {
            storage_version_hash(e.group, e.version, e.kind)
        } else {
            String::new()
        },
    }
}

/// The kube serializer's compact JSON: one document and a newline.
fn encode(v: &impl Serialize) -> String {
    let mut s = serde_json::to_string(v).unwrap_or_default();
    s.push('\n');
    s
}

/// The legacy discovery document at `path` (no trailing slash), as sent for a plain
/// `Accept`; `server_address` goes into `/api`'s `serverAddressByClientCIDRs`.
pub fn legacy_document(path: &str, server_address: &str) -> Option<String> {
    match path {
        "/api" => Some(encode(&serde_json::json!({
            "kind": "APIVersions",
            "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
        }))),
        "/apis" => {
            #[derive(Serialize)]
            #[serde(rename_all = "camelCase")]
            struct ApiGroupList {
                kind: &'static str,
                api_version: &'static str,
                groups: Vec<ApiGroup>,
            }
            Some(encode(&ApiGroupList {
                kind: "APIGroupList",
                api_version: "v1",
                groups: groups().into_iter().map(|g| api_group(g, false)).collect(),
            }))
        }
        "/version" => Some(version_document(crate::release::Release::default())),
        "/api/v1" => Some(encode(&ApiResourceList {
            kind: "APIResourceList",
            api_version: None,
            group_version: "v1".into(),
            resources: resources_of("", "v1").iter().map(api_resource).collect(),
        })),
        _ => {
            let rest = path.strip_prefix("/apis/")?;
            match rest.split_once('/') {
                None => groups()
                    .into_iter()
                    .find(|g| *g == rest)
                    .map(|g| encode(&api_group(g, true))),
                Some((group, version)) => {
                    let list = resources_of(group, version);
                    (!list.is_empty() && !group.is_empty()).then(|| {
                        encode(&ApiResourceList {
                            kind: "APIResourceList",
                            api_version: Some("v1"),
                            group_version: format!("{group}/{version}"),
                            resources: list.iter().map(api_resource).collect(),
                        })
                    })
                }
            }
        }
    }
}

/// `/version` of `release`: written by `WriteRawJSON`, i.e. indented and without a
/// trailing newline, whatever the client accepts.
pub fn version_document(release: crate::release::Release) -> String {
    let compact = serde_json::json!({
        "major": "1",
        "minor": release.minor().to_string(),
        "gitVersion": release.git_version(),
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2025-01-01T00:00:00Z",
        "goVersion": "go1.23.0",
        "compiler": "gc",
        "platform": "linux/amd64",
    });
    // serde_json orders keys alphabetically; version.Info's order is the one above.
    let ordered: Vec<String> = [
        "major",
        "minor",
        "gitVersion",
        "gitCommit",
        "gitTreeState",
        "buildDate",
        "goVersion",
        "compiler",
        "platform",
    ]
    .iter()
    .map(|k| format!("{}:{}", serde_json::json!(k), compact[k]))
    .collect();
    let doc = format!("{{{}}}", ordered.join(","));
    String::from_utf8(crate::indent::indent(doc.as_bytes())).unwrap_or_default()
}

// ---- aggregated documents (apidiscovery.k8s.io) ----

#[derive(Serialize)]
struct GroupVersionKind {
    group: &'static str,
    version: &'static str,
    kind: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourceDiscovery {
    resource: &'static str,
    response_kind: GroupVersionKind,
    scope: &'static str,
    singular_resource: &'static str,
    verbs: &'static [&'static str],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    short_names: &'static [&'static str],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    categories: &'static [&'static str],
}

#[derive(Serialize)]
struct VersionDiscovery {
    version: &'static str,
    resources: Vec<ResourceDiscovery>,
    freshness: &'static str,
}

/// ObjectMeta with only a name; Go writes the zero `creationTimestamp` as `null`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NameOnlyMeta {
    #[serde(skip_serializing_if = "str::is_empty")]
    name: &'static str,
    creation_timestamp: Option<&'static str>,
}

#[derive(Serialize)]
struct GroupDiscovery {
    metadata: NameOnlyMeta,
    versions: Vec<VersionDiscovery>,
}

#[derive(Serialize)]
struct EmptyMeta {}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GroupDiscoveryList {
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    api_version: Option<String>,
    metadata: EmptyMeta,
    items: Vec<GroupDiscovery>,
}

fn group_discovery(group: &'static str) -> GroupDiscovery {
    let resources = resources_of(group, "v1")
        .iter()
        .map(|e| ResourceDiscovery {
            resource: e.plural,
            response_kind: GroupVersionKind {
                group: if e.custom { e.group } else { "" },
                version: if e.custom { e.version } else { "" },
                kind: e.kind,
            },
            scope: if e.namespaced {
                "Namespaced"
            } else {
                "Cluster"
            },
            singular_resource: e.singular,
            verbs: e.verbs,
            short_names: e.short_names,
            categories: e.categories,
        })
        .collect();
    GroupDiscovery {
        metadata: NameOnlyMeta {
            name: group,
            creation_timestamp: None,
        },
        versions: vec![VersionDiscovery {
            version: "v1",
            resources,
            freshness: "Current",
        }],
    }
}

/// An aggregated discovery response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aggregated {
    /// The document (compact, newline-terminated).
    pub body: String,
    /// The ETag value (unquoted): the same for v2 and v2beta1.
    pub etag: String,
    /// `application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`.
    pub content_type: String,
}

/// The aggregated document of `/api` (`core`) or `/apis`.
pub fn aggregated(core: bool, version: AggregatedVersion) -> Aggregated {
    let items = || -> Vec<GroupDiscovery> {
        if core {
            vec![group_discovery("")]
        } else {
            groups().into_iter().map(group_discovery).collect()
        }
    };
    // The cached response the ETag is computed from carries no kind/apiVersion.
    let untyped = GroupDiscoveryList {
        kind: None,
        api_version: None,
        metadata: EmptyMeta {},
        items: items(),
    };
    let digest = Sha512::digest(serde_json::to_vec(&untyped).unwrap_or_default());
    let etag: String = digest.iter().map(|b| format!("{b:02X}")).collect();
    let body = encode(&GroupDiscoveryList {
        kind: Some("APIGroupDiscoveryList"),
        api_version: Some(format!("apidiscovery.k8s.io/{}", version.version())),
        metadata: EmptyMeta {},
        items: items(),
    });
    Aggregated {
        body,
        etag,
        content_type: format!(
            "application/json;g=apidiscovery.k8s.io;v={};as=APIGroupDiscoveryList",
            version.version()
        ),
    }
}

/// Whether `path` is a discovery path (`/api`, `/apis`, `/api/v1`, `/apis/<g>`,
/// `/apis/<g>/<v>`; these are non-resource requests for authorization).
pub fn is_discovery_path(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    let segs: Vec<&str> = path.split('/').skip(1).collect();
    matches!(
        segs.as_slice(),
        ["api"] | ["api", _] | ["apis"] | ["apis", _] | ["apis", _, _]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_version_hashes_match_real_clusters() {
        // Values every 1.2x+ cluster shows in `kubectl get --raw /api/v1` / `/apis/apps/v1`.
        assert_eq!(storage_version_hash("", "v1", "Pod"), "xPOwRZ+Yhw8=");
        assert_eq!(
            storage_version_hash("apps", "v1", "Deployment"),
            "8aSe+NMegvE="
        );
        assert_eq!(storage_version_hash("", "v1", "Namespace"), "Q3oi5N2YM8M=");
        assert_eq!(storage_version_hash("", "v1", "ConfigMap"), "qFsyl6wFWjQ=");
    }

    #[test]
    fn documents() {
        let v1 = legacy_document("/api/v1", DEFAULT_ADDRESS).unwrap();
        assert!(v1.starts_with(r#"{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch"],"shortNames":["cm"],"storageVersionHash":"qFsyl6wFWjQ="}"#), "{v1}");
        assert!(v1.ends_with("]}\n"));
        let apps = legacy_document("/apis/apps/v1", DEFAULT_ADDRESS).unwrap();
        assert!(apps.starts_with(r#"{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get","list","watch"],"shortNames":["deploy"],"categories":["all"],"storageVersionHash":"8aSe+NMegvE="}"#), "{apps}");
        let apis = legacy_document("/apis", DEFAULT_ADDRESS).unwrap();
        assert!(apis.starts_with(r#"{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},{"name":"authorization.k8s.io""#), "{apis}");
        assert!(legacy_document("/apis/nothing", DEFAULT_ADDRESS).is_none());
        assert!(legacy_document("/apis/apps/v2", DEFAULT_ADDRESS).is_none());
        let agg = aggregated(true, AggregatedVersion::V2);
        assert!(agg.body.starts_with(r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{"creationTimestamp":null},"versions":[{"version":"v1","resources":[{"resource":"configmaps","responseKind":{"group":"","version":"","kind":"ConfigMap"},"scope":"Namespaced","singularResource":"configmap","verbs":["get","list","watch"],"shortNames":["cm"]}"#), "{}", agg.body);
        assert_eq!(agg.etag.len(), 128);
        assert_eq!(aggregated(true, AggregatedVersion::V2Beta1).etag, agg.etag);
        assert_ne!(aggregated(false, AggregatedVersion::V2).etag, agg.etag);
        assert!(is_discovery_path("/apis/apps/v1"));
        assert!(!is_discovery_path("/api/v1/pods"));
    }
}
