//! API discovery documents as kube-apiserver serves them, read into one model
//! ([`ApiResource`]) whichever document described the type:
//!
//! * aggregated discovery: `GET /api` and `GET /apis` answering an `APIGroupDiscoveryList`
//!   (`apidiscovery.k8s.io` v2, or v2beta1: the same JSON) with every group, version and
//!   resource in one document (k8s.io/api `apidiscovery/v2/types.go`);
//! * the legacy documents: `/api` (`APIVersions`), `/apis` (`APIGroupList`) and each
//!   group version's `APIResourceList` (k8s.io/apimachinery `meta/v1/types.go`).
//!
//! Subresources (`pods/log`, `deployments/scale`) are left out everywhere: nothing lists
//! or watches them. Fields are read as Go's `encoding/json` reads them: a missing one is
//! its zero value, so an older server's shorter document reads the same.

use serde_json::Value;

/// What kubectl sends to ask for aggregated discovery, v2 before v2beta1, plain JSON
/// (the legacy documents) from a server that has neither.
pub const ACCEPT_AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

/// A resource type: what `metav1.APIResource` says, with the group version it is
/// served at.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ApiResource {
    /// `""` for the core group.
    pub group: String,
    pub version: String,
    /// The plural, as in the collection path (`pods`).
    pub resource: String,
    /// `pod`; may be empty (older servers and some aggregated APIs leave it out).
    pub singular: String,
    pub kind: String,
    pub namespaced: bool,
    pub verbs: Vec<String>,
    pub short_names: Vec<String>,
}

impl ApiResource {
    /// Whether discovery lists `verb` (`list`, `watch`, `create`...).
    pub fn can(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }

    /// The group version's path: `/api/v1`, `/apis/apps/v1`.
    pub fn prefix(&self) -> String {
        prefix(&self.group, &self.version)
    }
}

/// A group version's path: `/api/<version>` for the core group (`""`),
/// `/apis/<group>/<version>` for the others.
pub fn prefix(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("/api/{version}")
    } else {
        format!("/apis/{group}/{version}")
    }
}

/// One group version of an aggregated discovery document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupVersion {
    /// `""` for the core group.
    pub group: String,
    pub version: String,
    /// The server could not refresh it (`freshness: Stale`, an aggregated API that did
    /// not answer): its resources, if any, may be out of date.
    pub stale: bool,
    /// In the server's order.
    pub resources: Vec<ApiResource>,
}

impl GroupVersion {
    /// `v1`, `apps/v1`: as `apiVersion` spells it.
    pub fn id(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

/// A group of the legacy `/apis` document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub name: String,
    /// The preferred version first, then the others in the server's order.
    pub versions: Vec<String>,
}

/// Whether a `Content-Type` is an aggregated discovery document
/// (`application/json;g=apidiscovery.k8s.io;v=v2|v2beta1;as=APIGroupDiscoveryList`,
/// parameters in any order, others ignored), as client-go decides which document it got.
pub fn is_aggregated(content_type: &str) -> bool {
    let mut parts = content_type.split(';').map(str::trim);
    if !parts
        .next()
        .is_some_and(|base| base.eq_ignore_ascii_case("application/json"))
    {
        return false;
    }
    let (mut g, mut v, mut as_) = (false, false, false);
    for p in parts {
        let Some((k, val)) = p.split_once('=') else {
            continue;
        };
        let val = val.trim().trim_matches('"');
        match k.trim().to_ascii_lowercase().as_str() {
            "g" => g = val == "apidiscovery.k8s.io",
            "v" => v = val == "v2" || val == "v2beta1",
            "as" => as_ = val == "APIGroupDiscoveryList",
            _ => {}
        }
    }
    g && v && as_
}

/// Whether a JSON document says it is an `APIGroupDiscoveryList` (for a proxy that
/// dropped the `Content-Type`'s parameters).
pub fn is_aggregated_body(body: &str) -> bool {
    serde_json::from_str::<Value>(body)
        .is_ok_and(|doc| doc.get("kind").and_then(Value::as_str) == Some("APIGroupDiscoveryList"))
}

/// Reads the documents' JSON as Go's `encoding/json` fills a struct: a member that is
/// missing or `null` is its zero value, one of another type an error naming the
/// document. Walking a parsed [`Value`] (whose parser the app links anyway) keeps this
/// one small function per document: a serde-derived struct per JSON type made 39 KB of
/// the app's code (twiggy, before wasm-opt), this makes 9 KB.
struct Reader {
    /// `an APIResourceList`: what the document should have been, for errors.
    what: &'static str,
}

impl Reader {
    fn parse(&self, body: &str) -> Result<Value, String> {
        let doc: Value = serde_json::from_str(body).map_err(|e| self.error(&e))?;
        if doc.is_object() {
            Ok(doc)
        } else {
            Err(self.error(&"not an object"))
        }
    }

    fn error(&self, why: &dyn std::fmt::Display) -> String {
        format!("not {}: {why}", self.what)
    }

    fn wrong(&self, key: &str, want: &str) -> String {
        self.error(&format_args!("{key} is not {want}"))
    }

    /// A list member (`[]` if missing).
    fn list<'v>(&self, v: &'v Value, key: &str) -> Result<&'v [Value], String> {
        match v.get(key) {
            None | Some(Value::Null) => Ok(&[]),
            Some(Value::Array(a)) => Ok(a),
            Some(_) => Err(self.wrong(key, "a list")),
        }
    }

    /// An object member, `None` if missing.
    fn object<'v>(&self, v: &'v Value, key: &str) -> Result<Option<&'v Value>, String> {
        match v.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(o @ Value::Object(_)) => Ok(Some(o)),
            Some(_) => Err(self.wrong(key, "an object")),
        }
    }

    /// A string member (`""` if missing).
    fn string(&self, v: &Value, key: &str) -> Result<String, String> {
        match v.get(key) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(self.wrong(key, "a string")),
        }
    }

    /// A string member the document cannot do without.
    fn required(&self, v: &Value, key: &str) -> Result<String, String> {
        match v.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(self.wrong(key, "a string")),
            None => Err(self.error(&format_args!("an entry has no {key}"))),
        }
    }

    fn strings(&self, v: &Value, key: &str) -> Result<Vec<String>, String> {
        self.list(v, key)?
            .iter()
            .map(|s| match s {
                Value::String(s) => Ok(s.clone()),
                _ => Err(self.wrong(key, "a list of strings")),
            })
            .collect()
    }

    fn boolean(&self, v: &Value, key: &str) -> Result<bool, String> {
        match v.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(self.wrong(key, "a boolean")),
        }
    }
}

/// Reads an `APIGroupDiscoveryList`: its group versions in the server's order (each
/// group's preferred version first). A resource without a kind is left out: it only
/// parents subresources (client-go's `convertAPIResource` drops it too).
pub fn parse_aggregated(body: &str) -> Result<Vec<GroupVersion>, String> {
    let r = Reader {
        what: "an APIGroupDiscoveryList",
    };
    let doc = r.parse(body)?;
    let mut out = Vec::new();
    for g in r.list(&doc, "items")? {
        let group = match r.object(g, "metadata")? {
            Some(meta) => r.string(meta, "name")?,
            None => String::new(),
        };
        for v in r.list(g, "versions")? {
            let version = r.required(v, "version")?;
            let mut resources = Vec::new();
            for res in r.list(v, "resources")? {
                let resource = r.required(res, "resource")?;
                let kind = match r.object(res, "responseKind")? {
                    Some(k) => r.string(k, "kind")?,
                    None => String::new(),
                };
                let scope = r.string(res, "scope")?;
                let singular = r.string(res, "singularResource")?;
                let verbs = r.strings(res, "verbs")?;
                let short_names = r.strings(res, "shortNames")?;
                if kind.is_empty() {
                    continue;
                }
                resources.push(ApiResource {
                    group: group.clone(),
                    version: version.clone(),
                    resource,
                    singular,
                    kind,
                    namespaced: scope == "Namespaced",
                    verbs,
                    short_names,
                });
            }
            out.push(GroupVersion {
                group: group.clone(),
                version,
                stale: r.string(v, "freshness")? == "Stale",
                resources,
            });
        }
    }
    Ok(out)
}

/// Reads `/api` (`APIVersions`): the core group's versions, preferred first.
pub fn parse_api_versions(body: &str) -> Result<Vec<String>, String> {
    let r = Reader {
        what: "an APIVersions document",
    };
    r.strings(&r.parse(body)?, "versions")
}

/// Reads `/apis` (`APIGroupList`): each group with its versions, the preferred one
/// first (a group without `preferredVersion` prefers its first).
pub fn parse_group_list(body: &str) -> Result<Vec<Group>, String> {
    let r = Reader {
        what: "an APIGroupList",
    };
    let doc = r.parse(body)?;
    let mut out = Vec::new();
    for g in r.list(&doc, "groups")? {
        let mut versions = Vec::new();
        if let Some(p) = r.object(g, "preferredVersion")? {
            versions.push(r.required(p, "version")?);
        }
        for v in r.list(g, "versions")? {
            let v = r.required(v, "version")?;
            if !versions.contains(&v) {
                versions.push(v);
            }
        }
        out.push(Group {
            name: r.required(g, "name")?,
            versions,
        });
    }
    Ok(out)
}

/// Reads one group version's `APIResourceList` (`/api/v1`, `/apis/<group>/<version>`),
/// in the server's order.
pub fn parse_resource_list(
    body: &str,
    group: &str,
    version: &str,
) -> Result<Vec<ApiResource>, String> {
    let r = Reader {
        what: "an APIResourceList",
    };
    let doc = r.parse(body)?;
    let mut out = Vec::new();
    for res in r.list(&doc, "resources")? {
        let name = r.required(res, "name")?;
        let resource = ApiResource {
            group: group.to_string(),
            version: version.to_string(),
            singular: r.string(res, "singularName")?,
            kind: r.string(res, "kind")?,
            namespaced: r.boolean(res, "namespaced")?,
            verbs: r.strings(res, "verbs")?,
            short_names: r.strings(res, "shortNames")?,
            resource: name,
        };
        if !resource.resource.contains('/') {
            out.push(resource);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_aggregated_discovery_by_its_content_type() {
        for yes in [
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
            "application/json; as=APIGroupDiscoveryList;v=v2beta1;g=apidiscovery.k8s.io",
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;charset=utf-8",
            "Application/JSON;g=\"apidiscovery.k8s.io\";v=v2;as=APIGroupDiscoveryList",
        ] {
            assert!(is_aggregated(yes), "{yes}");
        }
        for no in [
            "application/json",
            "application/json; charset=UTF-8",
            "text/plain;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
            "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList",
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscovery",
            "",
        ] {
            assert!(!is_aggregated(no), "{no}");
        }
    }

    #[test]
    fn tells_aggregated_discovery_by_its_kind() {
        assert!(is_aggregated_body(
            r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[]}"#
        ));
        assert!(!is_aggregated_body(
            r#"{"kind":"APIVersions","versions":["v1"]}"#
        ));
        assert!(!is_aggregated_body(r#"{"versions":["v1"]}"#));
        assert!(!is_aggregated_body("<html>"));
    }

    /// `/apis` as kube-apiserver 1.30+ serves it for `apidiscovery.k8s.io/v2`: a group
    /// with subresources, one whose resources only create, a CRD served at two
    /// versions, a resource without a kind, and an aggregated API that is down.
    const AGGREGATED_APIS: &str = r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[
      {"metadata":{"name":"apps","creationTimestamp":null},"versions":[{"version":"v1","resources":[
        {"resource":"deployments","responseKind":{"group":"","version":"","kind":"Deployment"},"scope":"Namespaced","singularResource":"deployment","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["deploy"],"categories":["all"],
         "subresources":[{"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"},"verbs":["get","patch","update"]},{"subresource":"status","responseKind":{"group":"","version":"","kind":"Deployment"},"verbs":["get","patch","update"]}]},
        {"resource":"controllerrevisions","responseKind":{"group":"","version":"","kind":"ControllerRevision"},"scope":"Namespaced","singularResource":"controllerrevision","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}
      ],"freshness":"Current"}]},
      {"metadata":{"name":"authorization.k8s.io","creationTimestamp":null},"versions":[{"version":"v1","resources":[
        {"resource":"selfsubjectaccessreviews","responseKind":{"group":"","version":"","kind":"SelfSubjectAccessReview"},"scope":"Cluster","singularResource":"selfsubjectaccessreview","verbs":["create"]}
      ],"freshness":"Current"}]},
      {"metadata":{"name":"kubelive.dev","creationTimestamp":null},"versions":[
        {"version":"v2","resources":[{"resource":"widgets","responseKind":{"group":"kubelive.dev","version":"v2","kind":"Widget"},"scope":"Namespaced","singularResource":"widget","verbs":["get","list","watch"],"shortNames":["wg"]}],"freshness":"Current"},
        {"version":"v1","resources":[
          {"resource":"widgets","responseKind":{"group":"kubelive.dev","version":"v1","kind":"Widget"},"scope":"Namespaced","singularResource":"widget","verbs":["get","list","watch"]},
          {"resource":"nokind","scope":"Cluster","verbs":["get","list","watch"]},
          {"resource":"emptykind","responseKind":{"group":"","version":"","kind":""},"scope":"Cluster","verbs":["get"]}
        ],"freshness":"Current"}]},
      {"metadata":{"name":"metrics.k8s.io","creationTimestamp":null},"versions":[{"version":"v1beta1","freshness":"Stale"}]}
    ]}"#;

    #[test]
    fn reads_aggregated_discovery() {
        let gvs = parse_aggregated(AGGREGATED_APIS).unwrap();
        let ids: Vec<String> = gvs.iter().map(GroupVersion::id).collect();
        assert_eq!(
            ids,
            [
                "apps/v1",
                "authorization.k8s.io/v1",
                "kubelive.dev/v2",
                "kubelive.dev/v1",
                "metrics.k8s.io/v1beta1"
            ],
            "the server's order: each group's preferred version first"
        );
        let deploy = &gvs[0].resources[0];
        assert_eq!(
            deploy,
            &ApiResource {
                group: "apps".into(),
                version: "v1".into(),
                resource: "deployments".into(),
                singular: "deployment".into(),
                kind: "Deployment".into(),
                namespaced: true,
                verbs: [
                    "create",
                    "delete",
                    "deletecollection",
                    "get",
                    "list",
                    "patch",
                    "update",
                    "watch"
                ]
                .map(String::from)
                .to_vec(),
                short_names: vec!["deploy".into()],
            }
        );
        assert_eq!(deploy.prefix(), "/apis/apps/v1");
        assert!(deploy.can("watch") && !deploy.can("proxy"));
        assert_eq!(
            gvs[0].resources.len(),
            2,
            "subresources are no resources of their own"
        );
        let review = &gvs[1].resources[0];
        assert!(!review.namespaced, "scope Cluster");
        assert!(review.short_names.is_empty(), "shortNames omitted: none");
        assert_eq!(
            gvs[3]
                .resources
                .iter()
                .map(|r| r.resource.as_str())
                .collect::<Vec<_>>(),
            ["widgets"],
            "no kind (no responseKind, or an empty one): left out"
        );
        assert!(gvs.iter().take(4).all(|gv| !gv.stale));
        assert!(gvs[4].stale && gvs[4].resources.is_empty());
    }

    #[test]
    fn reads_the_core_group_of_aggregated_discovery() {
        // `/api`: the core group has no name (`metadata` may even be absent).
        let core = r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2beta1","metadata":{},"items":[{"versions":[{"version":"v1","resources":[
          {"resource":"pods","responseKind":{"group":"","version":"","kind":"Pod"},"scope":"Namespaced","singularResource":"pod","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["po"],"categories":["all"],"subresources":[{"subresource":"log","responseKind":{"group":"","version":"","kind":"Pod"},"verbs":["get"]}]},
          {"resource":"bindings","responseKind":{"group":"","version":"","kind":"Binding"},"scope":"Namespaced","singularResource":"binding","verbs":["create"]}
        ],"freshness":"Current"}]}]}"#;
        let gvs = parse_aggregated(core).unwrap();
        assert_eq!(gvs.len(), 1);
        assert_eq!(gvs[0].id(), "v1");
        let pods = &gvs[0].resources[0];
        assert_eq!(pods.group, "");
        assert_eq!(pods.prefix(), "/api/v1");
        assert_eq!(pods.short_names, ["po"]);
        assert_eq!(gvs[0].resources[1].verbs, ["create"]);
    }

    #[test]
    fn refuses_what_is_no_aggregated_discovery() {
        for bad in [
            "<html>",
            "",
            r#"{"items":{}}"#,
            r#"{"items":[{"versions":[{}]}]}"#,
        ] {
            let e = parse_aggregated(bad).unwrap_err();
            assert!(
                e.starts_with("not an APIGroupDiscoveryList: "),
                "{bad}: {e}"
            );
        }
        assert_eq!(
            parse_aggregated(r#"{"kind":"APIGroupDiscoveryList"}"#),
            Ok(vec![])
        );
        // Go's zero values: a member missing or null reads as empty, one of another
        // type is an error naming it.
        let sparse = parse_aggregated(
            r#"{"items":[{"metadata":null,"versions":[{"version":"v1","freshness":null,"resources":[{"resource":"pods","responseKind":{"kind":"Pod"},"verbs":null}]}]}]}"#,
        )
        .unwrap();
        assert_eq!(sparse[0].id(), "v1");
        assert!(!sparse[0].stale);
        assert_eq!(sparse[0].resources[0].verbs, Vec::<String>::new());
        assert!(
            !sparse[0].resources[0].namespaced,
            "no scope: not Namespaced"
        );
        assert_eq!(
            parse_aggregated(
                r#"{"items":[{"versions":[{"version":"v1","resources":[{"resource":"pods","responseKind":{"kind":"Pod"},"verbs":"list"}]}]}]}"#
            ),
            Err("not an APIGroupDiscoveryList: verbs is not a list".to_string())
        );
        assert_eq!(
            parse_aggregated(r#"{"items":[{"versions":[{"resources":[]}]}]}"#),
            Err("not an APIGroupDiscoveryList: an entry has no version".to_string())
        );
    }

    #[test]
    fn reads_api_versions() {
        assert_eq!(
            parse_api_versions(
                r#"{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"10.0.0.1:6443"}]}"#
            ),
            Ok(vec!["v1".to_string()])
        );
        assert_eq!(parse_api_versions(r#"{"kind":"APIVersions"}"#), Ok(vec![]));
        assert!(parse_api_versions("not json")
            .unwrap_err()
            .starts_with("not an APIVersions document: "));
    }

    #[test]
    fn reads_group_lists_preferred_version_first() {
        let groups = parse_group_list(
            r#"{"kind":"APIGroupList","apiVersion":"v1","groups":[
              {"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},
              {"name":"autoscaling","versions":[{"groupVersion":"autoscaling/v1","version":"v1"},{"groupVersion":"autoscaling/v2","version":"v2"}],"preferredVersion":{"groupVersion":"autoscaling/v2","version":"v2"}},
              {"name":"kubelive.dev","versions":[{"groupVersion":"kubelive.dev/v2","version":"v2"},{"groupVersion":"kubelive.dev/v1","version":"v1"}]},
              {"name":"empty","versions":[]}]}"#,
        )
        .unwrap();
        let read: Vec<(&str, Vec<&str>)> = groups
            .iter()
            .map(|g| {
                (
                    g.name.as_str(),
                    g.versions.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            read,
            [
                ("apps", vec!["v1"]),
                ("autoscaling", vec!["v2", "v1"]),
                ("kubelive.dev", vec!["v2", "v1"]),
                ("empty", vec![]),
            ]
        );
        assert!(parse_group_list(r#"{"groups":[{"versions":[]}]}"#)
            .unwrap_err()
            .starts_with("not an APIGroupList: "));
    }

    #[test]
    fn reads_resource_lists_without_subresources() {
        let list = parse_resource_list(
            r#"{"kind":"APIResourceList","groupVersion":"v1","resources":[
              {"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["po"],"categories":["all"],"storageVersionHash":"xPOwRZ+Yhw8="},
              {"name":"pods/log","singularName":"","namespaced":true,"kind":"Pod","verbs":["get"]},
              {"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["ns"]},
              {"name":"componentstatuses","namespaced":false,"kind":"ComponentStatus","verbs":["get","list"]}]}"#,
            "",
            "v1",
        )
        .unwrap();
        let names: Vec<&str> = list.iter().map(|r| r.resource.as_str()).collect();
        assert_eq!(names, ["pods", "namespaces", "componentstatuses"]);
        assert_eq!(
            list[0],
            ApiResource {
                group: "".into(),
                version: "v1".into(),
                resource: "pods".into(),
                singular: "pod".into(),
                kind: "Pod".into(),
                namespaced: true,
                verbs: [
                    "create",
                    "delete",
                    "deletecollection",
                    "get",
                    "list",
                    "patch",
                    "update",
                    "watch"
                ]
                .map(String::from)
                .to_vec(),
                short_names: vec!["po".into()],
            }
        );
        assert!(!list[1].namespaced);
        assert_eq!(list[2].singular, "", "singularName omitted");
        let apps = parse_resource_list(
            r#"{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[
              {"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get","list","watch"],"shortNames":["deploy"]}]}"#,
            "apps",
            "v1",
        )
        .unwrap();
        assert_eq!(apps[0].prefix(), "/apis/apps/v1");
        assert!(parse_resource_list("{", "", "v1")
            .unwrap_err()
            .starts_with("not an APIResourceList: "));
        assert!(parse_resource_list(r#"{"resources":[{"kind":"Pod"}]}"#, "", "v1").is_err());
        assert_eq!(
            parse_resource_list(
                r#"{"resources":[{"name":"pods","namespaced":"yes"}]}"#,
                "",
                "v1"
            ),
            Err("not an APIResourceList: namespaced is not a boolean".to_string())
        );
        assert!(
            parse_resource_list("[]", "", "v1").is_err(),
            "not an object"
        );
    }

    #[test]
    fn prefixes() {
        assert_eq!(prefix("", "v1"), "/api/v1");
        assert_eq!(prefix("events.k8s.io", "v1"), "/apis/events.k8s.io/v1");
    }
}
