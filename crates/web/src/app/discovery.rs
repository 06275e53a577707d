//! Resource discovery: what the server can list and watch (core, apps, any group,
//! CRDs), read from `/api`, `/api/v1`, `/apis` and `/apis/<group>/<version>`.

use gloo_net::http::Request;
use serde::Deserialize;

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

    /// What the picker shows: `pods`, `deployments.apps`.
    pub fn label(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }
}

#[derive(Deserialize)]
struct ApiVersions {
    #[serde(default)]
    versions: Vec<String>,
}

#[derive(Deserialize)]
struct GroupList {
    #[serde(default)]
    groups: Vec<Group>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Group {
    name: String,
    #[serde(default)]
    versions: Vec<GroupVersion>,
    preferred_version: Option<GroupVersion>,
}

#[derive(Deserialize, Clone)]
struct GroupVersion {
    version: String,
}

#[derive(Deserialize)]
struct ResourceList {
    #[serde(default)]
    resources: Vec<ApiResource>,
}

#[derive(Deserialize)]
struct ApiResource {
    name: String,
    #[serde(default)]
    namespaced: bool,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    verbs: Vec<String>,
}

async fn get<T: for<'de> Deserialize<'de>>(path: &str) -> Result<T, String> {
    let response = Request::get(path)
        .header("Accept", "application/json")
        .send()
        .await
        .map_err(|e| format!("GET {path}: {e}"))?;
    if !response.ok() {
        let text = response.text().await.unwrap_or_default();
        let text: String = text.chars().take(200).collect();
        return Err(format!("GET {path}: {} {}", response.status(), text.trim()));
    }
    response
        .json::<T>()
        .await
        .map_err(|e| format!("GET {path}: {e}"))
}

fn watchable(list: ResourceList, group: &str, version: &str, out: &mut Vec<ResourceType>) {
    for r in list.resources {
        let can = |v: &str| r.verbs.iter().any(|x| x == v);
        // Subresources (pods/log) are not collections.
        if r.name.contains('/') || !can("list") || !can("watch") {
            continue;
        }
        out.push(ResourceType {
            group: group.to_string(),
            version: version.to_string(),
            plural: r.name,
            kind: r.kind,
            namespaced: r.namespaced,
        });
    }
}

/// Everything listable and watchable, core group first, then by group and name.
/// A group that fails to answer is skipped (aggregated APIs do go down); only a
/// failure of the core group is an error.
pub async fn discover() -> Result<Vec<ResourceType>, String> {
    let mut out = Vec::new();
    let versions: ApiVersions = get("/api").await?;
    let core = versions
        .versions
        .first()
        .cloned()
        .unwrap_or_else(|| "v1".into());
    let list: ResourceList = get(&format!("/api/{core}")).await?;
    watchable(list, "", &core, &mut out);
    if let Ok(groups) = get::<GroupList>("/apis").await {
        for g in groups.groups {
            let Some(v) = g.preferred_version.or_else(|| g.versions.first().cloned()) else {
                continue;
            };
            if let Ok(list) = get::<ResourceList>(&format!("/apis/{}/{}", g.name, v.version)).await
            {
                watchable(list, &g.name, &v.version, &mut out);
            }
        }
    }
    sort(&mut out);
    Ok(out)
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

/// What the picker offers before discovery answers (or if it fails).
pub fn fallback() -> Vec<ResourceType> {
    let t = |group: &str, plural: &str, kind: &str, namespaced: bool| ResourceType {
        group: group.into(),
        version: "v1".into(),
        plural: plural.into(),
        kind: kind.into(),
        namespaced,
    };
    vec![
        t("", "pods", "Pod", true),
        t("", "namespaces", "Namespace", false),
        t("", "configmaps", "ConfigMap", true),
        t("apps", "deployments", "Deployment", true),
    ]
}
