//! Resource discovery: what the server can list and watch (core, apps, any group,
//! CRDs), as kubectl 1.30+ reads it.
//!
//! Aggregated discovery first: one `GET /api` and one `GET /apis`, each asking for an
//! `APIGroupDiscoveryList` (`apidiscovery.k8s.io` v2, then v2beta1) and accepting plain
//! JSON. The response's `Content-Type` says which it is (client-go
//! `discovery/discovery_client.go`, `downloadLegacy`/`downloadAPIs`, `ContentTypeIsGVK`);
//! a server without aggregated discovery answers the legacy documents, and then the
//! core version's resources and each group's preferred version are fetched, the
//! groups in parallel, each with a deadline. A version marked `Stale` in an aggregated
//! answer, or a group document that fails, is reported by name
//! (`discovery/aggregated_discovery.go`, `SplitGroupsAndResources`).
//!
//! The two halves (`/api`, `/apis`) are independent: the core group's resources are
//! known (and a view of pods can start) without waiting for slow aggregated APIs.

use crate::app::fetch::{fetch, Reply};
use crate::app::problem::Blocked;
use crate::app::url::{check_resource, ViewState};
use kubelive_kube::discovery::{self as docs, ApiResource, ACCEPT_AGGREGATED};

/// How long a discovery document may take.
const TIMEOUT_MS: i32 = 8000;

/// A resource type the picker offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceType {
    /// `""` for the core group.
    pub group: String,
    pub version: String,
    pub plural: String,
    pub kind: String,
    pub namespaced: bool,
}

impl ResourceType {
    /// The id used in the URL: `v1/pods`, `apps/v1/deployments`.
    pub fn id(&self) -> String {
        if self.group.is_empty() {
            format!("{}/{}", self.version, self.plural)
        } else {
            format!("{}/{}/{}", self.group, self.version, self.plural)
        }
    }

    /// The resource a valid link `view` names, before discovery says what it is:
    /// group, version and plural from its id, assumed namespaced (as most are), kind
    /// unknown. None for a link the app would not start.
    pub fn guessed(view: &ViewState) -> Option<ResourceType> {
        check_resource(&view.resource).ok()?;
        if view.namespace_problem().is_some() || view.query.check().is_err() {
            return None;
        }
        let (group, version, plural) = match *view.resource.split('/').collect::<Vec<_>>() {
            [version, plural] => ("", version, plural),
            [group, version, plural] => (group, version, plural),
            _ => return None,
        };
        Some(ResourceType {
            group: group.to_string(),
            version: version.to_string(),
            plural: plural.to_string(),
            kind: String::new(),
            namespaced: true,
        })
    }

    /// What the picker shows: `pods`, `deployments.apps`.
    pub fn label(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    pub fn target(&self) -> crate::app::namespaces::access::Target {
        crate::app::namespaces::access::Target {
            group: self.group.clone(),
            plural: self.plural.clone(),
        }
    }
}

/// What one half of discovery found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// Resources with both the `list` and `watch` verbs, one version each.
    pub resources: Vec<ResourceType>,
    /// Group versions that could not be read: (`group/version`, why).
    pub failed: Vec<(String, String)>,
    /// The server takes SelfSubjectAccessReviews and SelfSubjectRulesReviews.
    pub reviews: bool,
    /// Whether the answer was aggregated discovery.
    pub aggregated: bool,
    /// Requests it took.
    pub requests: u32,
}

impl Found {
    pub fn merge(&mut self, other: Found) {
        for r in other.resources {
            if !self
                .resources
                .iter()
                .any(|x| x.group == r.group && x.plural == r.plural)
            {
                self.resources.push(r);
            }
        }
        self.failed.extend(other.failed);
        self.reviews |= other.reviews;
        self.requests += other.requests;
        sort(&mut self.resources);
    }

    /// Adds one resource as discovery describes it (a resource without list or watch,
    /// or a second version of one already known, is left out).
    fn add(&mut self, r: ApiResource) {
        if r.group == "authorization.k8s.io"
            && r.resource == "selfsubjectaccessreviews"
            && r.can("create")
        {
            self.reviews = true;
        }
        if !r.can("list") || !r.can("watch") {
            return;
        }
        if self
            .resources
            .iter()
            .any(|x| x.group == r.group && x.plural == r.resource)
        {
            return;
        }
        self.resources.push(ResourceType {
            group: r.group,
            version: r.version,
            plural: r.resource,
            kind: r.kind,
            namespaced: r.namespaced,
        });
    }
}

/// Reads an `APIGroupDiscoveryList` (v2 or v2beta1: the same JSON). Versions come in
/// preference order; the first version that is not stale wins for each resource.
pub fn parse_aggregated(body: &str) -> Result<Found, String> {
    let mut found = Found {
        aggregated: true,
        ..Found::default()
    };
    for gv in docs::parse_aggregated(body)? {
        if gv.stale {
            found
                .failed
                .push((gv.id(), "stale: the server could not refresh it".into()));
            continue;
        }
        for r in gv.resources {
            found.add(r);
        }
    }
    sort(&mut found.resources);
    Ok(found)
}

/// Reads `/api` (`APIVersions`): the core versions, preferred first.
pub fn parse_api_versions(body: &str) -> Result<Vec<String>, String> {
    docs::parse_api_versions(body)
}

/// Reads `/apis` (`APIGroupList`): each group and its preferred version.
pub fn parse_group_list(body: &str) -> Result<Vec<(String, String)>, String> {
    Ok(docs::parse_group_list(body)?
        .into_iter()
        .filter_map(|g| Some((g.name, g.versions.into_iter().next()?)))
        .collect())
}

/// Reads one group version's `APIResourceList` into `found`.
pub fn parse_resource_list(
    body: &str,
    group: &str,
    version: &str,
    found: &mut Found,
) -> Result<(), String> {
    for r in docs::parse_resource_list(body, group, version)? {
        found.add(r);
    }
    Ok(())
}

/// Whether a reply is aggregated discovery: by its `Content-Type`, as client-go
/// decides, or (a proxy that dropped the parameters) by its `kind`.
fn aggregated_reply(r: &Reply) -> bool {
    docs::is_aggregated(&r.content_type) || docs::is_aggregated_body(&r.body)
}

async fn get(path: &str, accept: &str) -> Result<Reply, String> {
    let r = fetch(path, accept, None, TIMEOUT_MS)
        .await
        .map_err(|e| format!("GET {path}: {e}"))?;
    if r.ok() {
        Ok(r)
    } else {
        Err(format!("GET {path}: {}", r.problem()))
    }
}

/// The core group, from `/api`.
pub async fn discover_core() -> Result<Found, String> {
    let r = get("/api", ACCEPT_AGGREGATED).await?;
    if aggregated_reply(&r) {
        let mut found = parse_aggregated(&r.body).map_err(|e| format!("GET /api: {e}"))?;
        found.requests = 1;
        return Ok(found);
    }
    let versions = parse_api_versions(&r.body).map_err(|e| format!("GET /api: {e}"))?;
    let version = versions.first().cloned().unwrap_or_else(|| "v1".into());
    let path = format!("/api/{version}");
    let r = get(&path, "application/json").await?;
    let mut found = Found {
        requests: 2,
        ..Found::default()
    };
    parse_resource_list(&r.body, "", &version, &mut found)
        .map_err(|e| format!("GET {path}: {e}"))?;
    sort(&mut found.resources);
    Ok(found)
}

/// The named groups, from `/apis` (and, without aggregated discovery, each group's
/// preferred version in parallel).
pub async fn discover_groups() -> Result<Found, String> {
    let r = get("/apis", ACCEPT_AGGREGATED).await?;
    if aggregated_reply(&r) {
        let mut found = parse_aggregated(&r.body).map_err(|e| format!("GET /apis: {e}"))?;
        found.requests = 1;
        return Ok(found);
    }
    let groups = parse_group_list(&r.body).map_err(|e| format!("GET /apis: {e}"))?;
    let fetches = groups.iter().map(|(g, v)| async move {
        let path = format!("/apis/{g}/{v}");
        let body = get(&path, "application/json").await.map(|r| r.body);
        (g.clone(), v.clone(), body)
    });
    let mut found = Found {
        requests: 1 + groups.len() as u32,
        ..Found::default()
    };
    for (g, v, body) in futures::future::join_all(fetches).await {
        let read = body.and_then(|b| parse_resource_list(&b, &g, &v, &mut found));
        if let Err(e) = read {
            found.failed.push((format!("{g}/{v}"), e));
        }
    }
    sort(&mut found.resources);
    Ok(found)
}

pub fn sort(types: &mut [ResourceType]) {
    let rank = |r: &ResourceType| match r.group.as_str() {
        "" => 0,
        "apps" => 1,
        g if g.ends_with(".k8s.io") || !g.contains('.') => 2,
        _ => 3,
    };
    types.sort_by(|a, b| (rank(a), &a.group, &a.plural).cmp(&(rank(b), &b.group, &b.plural)));
}

/// One half of discovery (`/api` or `/apis`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Half {
    Pending,
    Done,
    Failed(String),
}

pub enum Msg {
    /// Discovery of the core group (`/api`) answered.
    CoreFound(Result<Found, String>),
    /// Discovery of the named groups (`/apis`) answered.
    GroupsFound(Result<Found, String>),
    /// The problem panel's button: ask again.
    Retry,
}

/// What discovery has found so far.
pub struct Discovery {
    core: Half,
    groups: Half,
    pub found: Found,
    send: yew::Callback<Msg>,
}

impl Discovery {
    pub fn new(send: yew::Callback<Msg>) -> Discovery {
        Discovery {
            core: Half::Pending,
            groups: Half::Pending,
            found: Found::default(),
            send,
        }
    }

    /// Asks for the halves not found yet.
    pub fn discover(&mut self) {
        if self.core != Half::Done {
            self.core = Half::Pending;
            let send = self.send.clone();
            wasm_bindgen_futures::spawn_local(async move {
                send.emit(Msg::CoreFound(discover_core().await));
            });
        }
        if self.groups != Half::Done {
            self.groups = Half::Pending;
            let send = self.send.clone();
            wasm_bindgen_futures::spawn_local(async move {
                send.emit(Msg::GroupsFound(discover_groups().await));
            });
        }
    }

    /// One half answered (`core`: `/api`).
    pub fn answered(&mut self, core: bool, result: Result<Found, String>) {
        let half = match result {
            Ok(found) => {
                self.found.merge(found);
                Half::Done
            }
            Err(e) => Half::Failed(e),
        };
        if core {
            self.core = half;
        } else {
            self.groups = half;
        }
    }

    /// The half that knows about `id` (`v1/pods`: core; `apps/v1/deployments`: groups).
    fn half_of(&self, id: &str) -> &Half {
        if id.split('/').count() == 2 {
            &self.core
        } else {
            &self.groups
        }
    }

    /// The resource type `id` (`v1/pods`), once found.
    pub fn find(&self, id: &str) -> Option<&ResourceType> {
        self.found.resources.iter().find(|r| r.id() == id)
    }

    /// Whether `id` has namespaces (taken to until it is found).
    pub fn namespaced(&self, id: &str) -> bool {
        self.find(id).map(|r| r.namespaced).unwrap_or(true)
    }

    /// The namespace `view` is in (None: all namespaces, or a cluster-scoped resource).
    pub fn scope(&self, view: &ViewState) -> Option<String> {
        if self.namespaced(&view.resource) {
            view.namespace.clone()
        } else {
            None
        }
    }

    /// What failed, for the picker's note.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (what, half) in [("/api", &self.core), ("/apis", &self.groups)] {
            if let Half::Failed(e) = half {
                out.push(format!("{what}: {e}"));
            }
        }
        for (gv, why) in &self.found.failed {
            out.push(format!("{gv}: {why}"));
        }
        out
    }

    /// Whether `view` can run, and what it runs on: a view starts only once its
    /// resource is found here (a link cannot make the app request an arbitrary path).
    pub fn check(&self, view: &ViewState) -> Result<ResourceType, Blocked> {
        check_resource(&view.resource).map_err(Blocked::BadLink)?;
        if let Some(why) = view.namespace_problem() {
            return Err(Blocked::BadLink(why));
        }
        view.query
            .check()
            .map_err(|e| Blocked::BadSelector(e.to_string()))?;
        if let Some(rt) = self.find(&view.resource) {
            return Ok(rt.clone());
        }
        let id = &view.resource;
        match self.half_of(id) {
            Half::Pending => Err(Blocked::Discovering),
            Half::Failed(e) => Err(Blocked::DiscoveryFailed(e.clone())),
            Half::Done => {
                let gv = id.rsplit_once('/').map(|(gv, _)| gv).unwrap_or(id);
                let failed = self.found.failed.iter().find(|(g, _)| g == gv);
                Err(Blocked::NotOffered(match failed {
                    Some((_, why)) => format!(
                        "The server could not describe {gv} ({why}): {id} cannot be checked."
                    ),
                    None => format!(
                        "The server offers no resource {id} that can be listed and watched."
                    ),
                }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(f: &Found) -> Vec<String> {
        f.resources.iter().map(|r| r.id()).collect()
    }

    /// The shape of `apidiscovery.k8s.io/v2` `APIGroupDiscoveryList` as the apiserver
    /// serves `/apis` (k8s.io/api `apidiscovery/v2/types.go`).
    const AGGREGATED_APIS: &str = r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[
      {"metadata":{"name":"apps","creationTimestamp":null},"versions":[{"version":"v1","resources":[
        {"resource":"deployments","responseKind":{"group":"","version":"","kind":"Deployment"},"scope":"Namespaced","singularResource":"deployment","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["deploy"],"categories":["all"],
         "subresources":[{"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"},"verbs":["get","patch","update"]},{"subresource":"status","responseKind":{"group":"","version":"","kind":"Deployment"},"verbs":["get","patch","update"]}]},
        {"resource":"controllerrevisions","responseKind":{"group":"","version":"","kind":"ControllerRevision"},"scope":"Namespaced","singularResource":"controllerrevision","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}
      ],"freshness":"Current"}]},
      {"metadata":{"name":"authorization.k8s.io","creationTimestamp":null},"versions":[{"version":"v1","resources":[
        {"resource":"selfsubjectaccessreviews","responseKind":{"group":"","version":"","kind":"SelfSubjectAccessReview"},"scope":"Cluster","singularResource":"selfsubjectaccessreview","verbs":["create"]},
        {"resource":"selfsubjectrulesreviews","responseKind":{"group":"","version":"","kind":"SelfSubjectRulesReview"},"scope":"Cluster","singularResource":"selfsubjectrulesreview","verbs":["create"]}
      ],"freshness":"Current"}]},
      {"metadata":{"name":"kubelive.dev","creationTimestamp":null},"versions":[
        {"version":"v2","resources":[{"resource":"widgets","responseKind":{"group":"kubelive.dev","version":"v2","kind":"Widget"},"scope":"Namespaced","singularResource":"widget","verbs":["get","list","watch"]}],"freshness":"Current"},
        {"version":"v1","resources":[
          {"resource":"widgets","responseKind":{"group":"kubelive.dev","version":"v1","kind":"Widget"},"scope":"Namespaced","singularResource":"widget","verbs":["get","list","watch"]},
          {"resource":"gadgets","responseKind":{"group":"kubelive.dev","version":"v1","kind":"Gadget"},"scope":"Cluster","singularResource":"gadget","verbs":["get","list","watch"]},
          {"resource":"nokind","scope":"Cluster","verbs":["get","list","watch"]}
        ],"freshness":"Current"}]},
      {"metadata":{"name":"metrics.k8s.io","creationTimestamp":null},"versions":[{"version":"v1beta1","freshness":"Stale"}]}
    ]}"#;

    #[test]
    fn reads_aggregated_discovery() {
        let f = parse_aggregated(AGGREGATED_APIS).unwrap();
        assert!(f.aggregated);
        assert_eq!(
            ids(&f),
            [
                "apps/v1/controllerrevisions",
                "apps/v1/deployments",
                "kubelive.dev/v1/gadgets",
                "kubelive.dev/v2/widgets",
            ],
            "list+watch only, no subresources, the preferred (first) version"
        );
        let deploy = &f.resources[1];
        assert_eq!(deploy.kind, "Deployment");
        assert!(deploy.namespaced);
        assert!(!f.resources[2].namespaced, "scope Cluster");
        assert!(f.reviews);
        assert_eq!(
            f.failed,
            [(
                "metrics.k8s.io/v1beta1".to_string(),
                "stale: the server could not refresh it".to_string()
            )]
        );
        // `/api`: the core group's name is empty.
        let core = r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{"creationTimestamp":null},"versions":[{"version":"v1","resources":[
          {"resource":"pods","responseKind":{"group":"","version":"","kind":"Pod"},"scope":"Namespaced","singularResource":"pod","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["po"],"categories":["all"],"subresources":[{"subresource":"log","responseKind":{"group":"","version":"","kind":"Pod"},"verbs":["get"]}]},
          {"resource":"namespaces","responseKind":{"group":"","version":"","kind":"Namespace"},"scope":"Cluster","singularResource":"namespace","verbs":["create","delete","get","list","patch","update","watch"]},
          {"resource":"bindings","responseKind":{"group":"","version":"","kind":"Binding"},"scope":"Namespaced","singularResource":"binding","verbs":["create"]}
        ],"freshness":"Current"}]}]}"#;
        let f = parse_aggregated(core).unwrap();
        assert_eq!(ids(&f), ["v1/namespaces", "v1/pods"]);
        assert!(!f.reviews);
        assert!(parse_aggregated("<html>").is_err());
    }

    #[test]
    fn reads_legacy_discovery() {
        assert_eq!(
            parse_api_versions(
                r#"{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[]}"#
            ),
            Ok(vec!["v1".to_string()])
        );
        let groups = parse_group_list(
            r#"{"kind":"APIGroupList","apiVersion":"v1","groups":[
              {"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},
              {"name":"kubelive.dev","versions":[{"groupVersion":"kubelive.dev/v2","version":"v2"},{"groupVersion":"kubelive.dev/v1","version":"v1"}]},
              {"name":"empty","versions":[]}]}"#,
        )
        .unwrap();
        assert_eq!(
            groups,
            [
                ("apps".to_string(), "v1".to_string()),
                ("kubelive.dev".to_string(), "v2".to_string())
            ]
        );
        let mut f = Found::default();
        parse_resource_list(
            r#"{"kind":"APIResourceList","groupVersion":"v1","resources":[
              {"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["po"]},
              {"name":"pods/log","singularName":"","namespaced":true,"kind":"Pod","verbs":["get"]},
              {"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["get","list","watch"]},
              {"name":"componentstatuses","namespaced":false,"kind":"ComponentStatus","verbs":["get","list"]}]}"#,
            "",
            "v1",
            &mut f,
        )
        .unwrap();
        parse_resource_list(
            r#"{"kind":"APIResourceList","groupVersion":"authorization.k8s.io/v1","resources":[
              {"name":"selfsubjectaccessreviews","namespaced":false,"kind":"SelfSubjectAccessReview","verbs":["create"]}]}"#,
            "authorization.k8s.io",
            "v1",
            &mut f,
        )
        .unwrap();
        sort(&mut f.resources);
        assert_eq!(ids(&f), ["v1/namespaces", "v1/pods"]);
        assert!(f.reviews);
        assert!(!f.aggregated);
        assert!(parse_resource_list("{", "", "v1", &mut f).is_err());
    }

    #[test]
    fn halves_merge_in_picker_order() {
        let mut core = parse_aggregated(
            r#"{"items":[{"metadata":{"name":""},"versions":[{"version":"v1","resources":[{"resource":"pods","responseKind":{"kind":"Pod"},"scope":"Namespaced","verbs":["list","watch"]}]}]}]}"#,
        )
        .unwrap();
        core.requests = 1;
        let mut groups = parse_aggregated(AGGREGATED_APIS).unwrap();
        groups.requests = 1;
        core.merge(groups);
        assert_eq!(core.resources[0].id(), "v1/pods");
        assert_eq!(core.resources[1].id(), "apps/v1/controllerrevisions");
        assert_eq!(core.requests, 2);
        assert!(core.reviews);
        assert_eq!(core.failed.len(), 1);
    }
}
