//! Permissions as kube-apiserver with `--authorization-mode=RBAC` gives them: request
//! attributes (`RequestInfoFactory`), rule matching, the 403 Status, and the two review
//! APIs a client asks "what may I do" with (`SelfSubjectAccessReview`,
//! `SelfSubjectRulesReview`).
//!
//! The sim has one user (`kubectl proxy` forwards without impersonation). Without a policy
//! it is a cluster admin (everything allowed). With one, the user holds the built-in
//! roles every authenticated user has (`system:basic-user`, `system:discovery`,
//! `system:public-info-viewer`: discovery stays readable, the reviews can be created) and
//! the rules of the `--allow` spec:
//!
//! ```text
//! RULE[;RULE...]         RULE = VERBS:RESOURCES[@NAMESPACES]
//! list,watch:pods@a,b    list and watch pods in namespaces a and b (RoleBindings)
//! get,list,watch:deployments.apps,pods   cluster-wide (a ClusterRoleBinding)
//! *:*@team               everything in namespace team
//! get:/metrics           a non-resource URL
//! ```
//!
//! Sources (kubernetes): `staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go`,
//! `plugin/pkg/auth/authorizer/rbac/rbac.go` and `.../bootstrappolicy/testdata/cluster-roles.yaml`,
//! `pkg/registry/rbac/validation/rule.go` (binding descriptions),
//! `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go`
//! (`ForbiddenStatusError`), `pkg/registry/authorization/selfsubject*review/rest.go`.

use serde::Serialize;
use serde_json::Value;

use crate::status::status_json;
use crate::util::{json_str, url_decode};

/// The attributes of a request the authorizer decides on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Attributes {
    pub verb: String,
    pub resource_request: bool,
    /// The URL path (non-resource requests).
    pub path: String,
    pub group: String,
    pub version: String,
    pub namespace: String,
    pub resource: String,
    pub subresource: String,
    pub name: String,
}

/// `RequestInfoFactory.NewRequestInfo` for the prefixes `api` (groupless) and `apis`.
pub fn request_info(method: &str, path: &str, query: &str) -> Attributes {
    let mut a = Attributes {
        verb: method.to_ascii_lowercase(),
        path: path.to_string(),
        ..Attributes::default()
    };
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    let parts: Vec<&str> = if path.trim_matches('/').is_empty() {
        Vec::new()
    } else {
        parts
    };
    if parts.len() < 3 || (parts[0] != "api" && parts[0] != "apis") {
        return a;
    }
    let mut cur = &parts[1..];
    if parts[0] == "apis" {
        if cur.len() < 3 {
            return a;
        }
        a.group = cur[0].to_string();
        cur = &cur[1..];
    }
    a.resource_request = true;
    a.version = cur[0].to_string();
    cur = &cur[1..];
    let mut special = false;
    if matches!(cur[0], "proxy" | "watch") {
        if cur.len() < 2 {
            return a;
        }
        a.verb = cur[0].to_string();
        cur = &cur[1..];
        special = true;
    } else {
        a.verb = match method {
            "POST" => "create",
            "GET" | "HEAD" => "get",
            "PUT" => "update",
            "PATCH" => "patch",
            "DELETE" => "delete",
            _ => "",
        }
        .to_string();
    }
    if cur[0] == "namespaces" && cur.len() > 1 {
        a.namespace = cur[1].to_string();
        if cur.len() > 2 && !matches!(cur[2], "status" | "finalize") {
            cur = &cur[2..];
        }
    }
    if cur.len() >= 3 && !special {
        a.subresource = cur[2].to_string();
    }
    if cur.len() >= 2 {
        a.name = cur[1].to_string();
    }
    a.resource = cur[0].to_string();
    if a.name.is_empty() && a.verb == "get" {
        let mut watch = false;
        let mut fields = String::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            match k {
                // Convert_Slice_string_To_bool: anything but "0"/"false" is true.
                "watch" if !watch => {
                    let v = url_decode(v);
                    watch = !(v == "0" || v.eq_ignore_ascii_case("false"));
                }
                "fieldSelector" if fields.is_empty() => fields = url_decode(v),
                _ => {}
            }
        }
        a.verb = if watch { "watch" } else { "list" }.to_string();
        // A field selector requiring metadata.name names the object.
        for term in fields.split(',') {
            let (k, v) = match term.split_once("==").or_else(|| term.split_once('=')) {
                Some((k, v)) if !k.ends_with('!') => (k.trim(), v.trim()),
                _ => continue,
            };
            if k == "metadata.name"
                && !v.is_empty()
                && v != "."
                && v != ".."
                && !v.contains('/')
                && !v.contains('%')
            {
                a.name = v.to_string();
            }
        }
    }
    if a.name.is_empty() && a.verb == "delete" {
        a.verb = "deletecollection".into();
    }
    a
}

/// A `PolicyRule`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rule {
    pub verbs: Vec<String>,
    pub api_groups: Vec<String>,
    pub resources: Vec<String>,
    pub resource_names: Vec<String>,
    pub non_resource_urls: Vec<String>,
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

impl Rule {
    fn resources(verbs: &[&str], groups: &[&str], resources: &[&str]) -> Rule {
        Rule {
            verbs: strings(verbs),
            api_groups: strings(groups),
            resources: strings(resources),
            ..Rule::default()
        }
    }
    fn urls(verbs: &[&str], urls: &[&str]) -> Rule {
        Rule {
            verbs: strings(verbs),
            non_resource_urls: strings(urls),
            ..Rule::default()
        }
    }

    /// `RuleAllows` (rbac.go with the helpers of `rbac/v1/evaluation_helpers.go`).
    pub fn allows(&self, a: &Attributes) -> bool {
        let any = |list: &[String], v: &str| list.iter().any(|x| x == "*" || x == v);
        if !any(&self.verbs, &a.verb) {
            return false;
        }
        if !a.resource_request {
            return self.non_resource_urls.iter().any(|u| {
                u == "*"
                    || *u == a.path
                    || u.strip_suffix('*').is_some_and(|p| a.path.starts_with(p))
            });
        }
        let combined = if a.subresource.is_empty() {
            a.resource.clone()
        } else {
            format!("{}/{}", a.resource, a.subresource)
        };
        let resource_ok = self.resources.iter().any(|r| {
            r == "*"
                || *r == combined
                || (!a.subresource.is_empty() && *r == format!("*/{}", a.subresource))
        });
        any(&self.api_groups, &a.group)
            && resource_ok
            && (self.resource_names.is_empty() || self.resource_names.contains(&a.name))
    }
}

/// Where a binding applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    Cluster,
    Namespace(String),
}

/// A (Cluster)RoleBinding of one role to one subject, with the role's rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub scope: Scope,
    pub name: String,
    /// `ClusterRole` or `Role`.
    pub role_kind: &'static str,
    pub role_name: String,
    /// `User` or `Group`, and its name.
    pub subject: (&'static str, String),
    pub rules: Vec<Rule>,
}

impl Binding {
    fn cluster(name: &str, subject: (&'static str, &str), rules: Vec<Rule>) -> Binding {
        Binding {
            scope: Scope::Cluster,
            name: name.to_string(),
            role_kind: "ClusterRole",
            role_name: name.to_string(),
            subject: (subject.0, subject.1.to_string()),
            rules,
        }
    }

    /// The `roleBindingDescriber`/`clusterRoleBindingDescriber` text of an RBAC reason.
    fn describe(&self) -> String {
        let (kind, name) = &self.subject;
        match &self.scope {
            Scope::Cluster => format!(
                "ClusterRoleBinding {} of {} {} to {kind} {}",
                json_str(&self.name),
                self.role_kind,
                json_str(&self.role_name),
                json_str(name)
            ),
            Scope::Namespace(ns) => format!(
                "RoleBinding {} of {} {} to {kind} {}",
                json_str(&format!("{}/{ns}", self.name)),
                self.role_kind,
                json_str(&self.role_name),
                json_str(name)
            ),
        }
    }
}

/// The roles every authenticated user holds (bootstrap policy).
fn builtin_bindings() -> Vec<Binding> {
    let authenticated = ("Group", "system:authenticated");
    vec![
        Binding::cluster(
            "system:basic-user",
            authenticated,
            vec![
                Rule::resources(
                    &["create"],
                    &["authorization.k8s.io"],
                    &["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
                ),
                Rule::resources(
                    &["create"],
                    &["authentication.k8s.io"],
                    &["selfsubjectreviews"],
                ),
            ],
        ),
        Binding::cluster(
            "system:discovery",
            authenticated,
            vec![Rule::urls(
                &["get"],
                &[
                    "/api",
                    "/api/*",
                    "/apis",
                    "/apis/*",
                    "/healthz",
                    "/livez",
                    "/openapi",
                    "/openapi/*",
                    "/readyz",
                    "/version",
                    "/version/",
                ],
            )],
        ),
        Binding::cluster(
            "system:public-info-viewer",
            authenticated,
            vec![Rule::urls(
                &["get"],
                &["/healthz", "/livez", "/readyz", "/version", "/version/"],
            )],
        ),
    ]
}

/// One rule of an `--allow` spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowRule {
    pub rule: Rule,
    /// Empty: cluster-wide.
    pub namespaces: Vec<String>,
}

/// Parses an `--allow` spec (see the module docs).
pub fn parse_allow(spec: &str) -> Result<Vec<AllowRule>, String> {
    let mut out = Vec::new();
    for text in spec.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let bad = |why: &str| {
            format!("--allow {text:?}: {why} (expected VERBS:RESOURCES[@NAMESPACES], e.g. list,watch:pods@a,b)")
        };
        let (verbs, rest) = text.split_once(':').ok_or_else(|| bad("no ':'"))?;
        let (targets, namespaces) = rest.split_once('@').unwrap_or((rest, ""));
        let list = |s: &str| -> Vec<String> {
            s.split(',')
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .map(String::from)
                .collect()
        };
        let verbs = list(verbs);
        let targets = list(targets);
        let namespaces = list(namespaces);
        if verbs.is_empty() {
            return Err(bad("no verbs"));
        }
        if targets.is_empty() {
            return Err(bad("no resources"));
        }
        let (urls, resources): (Vec<String>, Vec<String>) =
            targets.into_iter().partition(|t| t.starts_with('/'));
        if !urls.is_empty() && (!resources.is_empty() || !namespaces.is_empty()) {
            return Err(bad(
                "non-resource URLs go in a rule of their own, without namespaces",
            ));
        }
        let mut rule = Rule {
            verbs,
            non_resource_urls: urls,
            ..Rule::default()
        };
        for r in resources {
            // `deployments.apps`: resource before the first dot, group after it.
            let (res, group) = r.split_once('.').unwrap_or((r.as_str(), ""));
            let group = if res == "*" && group.is_empty() {
                "*"
            } else {
                group
            };
            if !rule.api_groups.iter().any(|g| g == group) {
                rule.api_groups.push(group.to_string());
            }
            if !rule.resources.iter().any(|x| x == res) {
                rule.resources.push(res.to_string());
            }
        }
        out.push(AllowRule { rule, namespaces });
    }
    Ok(out)
}

/// The decision on one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    /// `RBAC: allowed by ...`, or empty.
    pub reason: String,
}

/// Who the client is and what it may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    pub user: String,
    pub groups: Vec<String>,
    /// A member of `system:masters`: everything is allowed before RBAC is asked.
    privileged: bool,
    bindings: Vec<Binding>,
}

/// The user when a policy is given without `--user`.
pub const DEFAULT_USER: &str = "jane@example.com";

impl Default for Policy {
    fn default() -> Self {
        Policy::admin()
    }
}

impl Policy {
    /// A cluster admin (`system:masters`, bound to `cluster-admin`): everything allowed.
    pub fn admin() -> Policy {
        let mut bindings = vec![Binding::cluster(
            "cluster-admin",
            ("Group", "system:masters"),
            vec![
                Rule::resources(&["*"], &["*"], &["*"]),
                Rule::urls(&["*"], &["*"]),
            ],
        )];
        bindings.extend(builtin_bindings());
        Policy {
            user: "kubernetes-admin".into(),
            groups: strings(&["system:masters", "system:authenticated"]),
            privileged: true,
            bindings,
        }
    }

    /// A user with the built-in roles and the given rules (each one a role named
    /// `kubelive-sim:N`, bound cluster-wide or in each of its namespaces).
    pub fn restricted(user: &str, rules: &[AllowRule]) -> Policy {
        let mut bindings = builtin_bindings();
        for (i, r) in rules.iter().enumerate() {
            let name = format!("kubelive-sim:{i}");
            let subject = ("User", user.to_string());
            if r.namespaces.is_empty() {
                bindings.push(Binding {
                    scope: Scope::Cluster,
                    name: name.clone(),
                    role_kind: "ClusterRole",
                    role_name: name,
                    subject,
                    rules: vec![r.rule.clone()],
                });
            } else {
                for ns in &r.namespaces {
                    bindings.push(Binding {
                        scope: Scope::Namespace(ns.clone()),
                        name: name.clone(),
                        role_kind: "ClusterRole",
                        role_name: name.clone(),
                        subject: subject.clone(),
                        rules: vec![r.rule.clone()],
                    });
                }
            }
        }
        Policy {
            user: user.to_string(),
            groups: strings(&["system:authenticated"]),
            privileged: false,
            bindings,
        }
    }

    /// Whether the policy limits anything (an RBAC user rather than the admin).
    pub fn is_restricted(&self) -> bool {
        !self.privileged
    }

    fn applies(&self, b: &Binding) -> bool {
        match b.subject.0 {
            "User" => b.subject.1 == self.user,
            _ => self.groups.contains(&b.subject.1),
        }
    }

    /// The bindings that count for a request in `namespace` ("" = cluster scope), in the
    /// order RBAC visits them: cluster role bindings, then role bindings of the namespace.
    fn visible<'a>(&'a self, namespace: &'a str) -> impl Iterator<Item = &'a Binding> + 'a {
        let cluster = self
            .bindings
            .iter()
            .filter(|b| b.scope == Scope::Cluster && self.applies(b));
        let local = self.bindings.iter().filter(move |b| {
            !namespace.is_empty()
                && b.scope == Scope::Namespace(namespace.to_string())
                && self.applies(b)
        });
        cluster.chain(local)
    }

    /// Authorizes a request (privileged group first, then RBAC; RBAC never denies, it has
    /// no opinion, so `allowed: false` comes with no reason).
    pub fn authorize(&self, a: &Attributes) -> Decision {
        if self.privileged {
            return Decision {
                allowed: true,
                reason: String::new(),
            };
        }
        for b in self.visible(&a.namespace) {
            if b.rules.iter().any(|r| r.allows(a)) {
                return Decision {
                    allowed: true,
                    reason: format!("RBAC: allowed by {}", b.describe()),
                };
            }
        }
        Decision {
            allowed: false,
            reason: String::new(),
        }
    }

    /// `RulesFor(user, namespace)`: every rule that applies in `namespace`.
    pub fn rules_for(&self, namespace: &str) -> Vec<Rule> {
        let mut rules = Vec::new();
        if self.privileged {
            rules.push(Rule::resources(&["*"], &["*"], &["*"]));
            rules.push(Rule::urls(&["*"], &["*"]));
        }
        for b in self.visible(namespace) {
            rules.extend(b.rules.iter().cloned());
        }
        rules
    }
}

/// The 403 body for a denied request (`ForbiddenStatusError`), newline-terminated.
pub fn forbidden(a: &Attributes, user: &str) -> String {
    let who = json_str(user);
    let what = if !a.resource_request {
        format!("User {who} cannot {} path {}", a.verb, json_str(&a.path))
    } else {
        let resource = if a.subresource.is_empty() {
            a.resource.clone()
        } else {
            format!("{}/{}", a.resource, a.subresource)
        };
        let scope = if a.namespace.is_empty() {
            "at the cluster scope".to_string()
        } else {
            format!("in the namespace {}", json_str(&a.namespace))
        };
        format!(
            "User {who} cannot {} resource {} in API group {} {scope}",
            a.verb,
            json_str(&resource),
            json_str(&a.group)
        )
    };
    // The apiserver HTML-escapes the message (`sanitizer` in errors.go).
    let what = what
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let (message, details) = if !a.resource_request {
        (format!("forbidden: {what}"), details(&a.name, "", ""))
    } else {
        let qualified = if a.group.is_empty() {
            a.resource.clone()
        } else {
            format!("{}.{}", a.resource, a.group)
        };
        let message = if a.name.is_empty() {
            format!("{qualified} is forbidden: {what}")
        } else {
            format!("{qualified} {} is forbidden: {what}", json_str(&a.name))
        };
        (message, details(&a.name, &a.group, &a.resource))
    };
    let mut body = status_json(403, "Forbidden", &message, Some(&details));
    body.push('\n');
    body
}

/// `StatusDetails` with Go's omitempty fields (name, group, kind).
fn details(name: &str, group: &str, kind: &str) -> String {
    let mut fields = Vec::new();
    for (k, v) in [("name", name), ("group", group), ("kind", kind)] {
        if !v.is_empty() {
            fields.push(format!("\"{k}\":{}", json_str(v)));
        }
    }
    format!("{{{}}}", fields.join(","))
}

// ---- the review APIs ----

/// A failed review request: status code and Status body.
pub type ReviewError = (u16, String);

fn bad_request(message: &str) -> ReviewError {
    let mut s = status_json(400, "BadRequest", message, None);
    s.push('\n');
    (400, s)
}

/// How a review request body is encoded (its `Content-Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyFormat {
    Json,
    /// `application/vnd.kubernetes.protobuf`: what kubectl sends.
    Protobuf,
}

/// Decodes a review body and checks its kind.
fn decode(body: &[u8], format: BodyFormat, kind: &str) -> Result<Value, ReviewError> {
    let v: Value = match format {
        BodyFormat::Json => serde_json::from_slice(body).map_err(|e| {
            bad_request(&format!("couldn't get version/kind; json parse error: {e}"))
        })?,
        BodyFormat::Protobuf => crate::protobuf::review_as_json(body)
            .map_err(|e| bad_request(&format!("failed to decode protobuf body: {e}")))?,
    };
    if !v.is_object() {
        return Err(bad_request(
            "couldn't get version/kind; json parse error: not an object",
        ));
    }
    match v.get("kind").and_then(Value::as_str) {
        Some(k) if k != kind => Err(bad_request(&format!(
            "{k} in version \"v1\" cannot be handled as a {kind}"
        ))),
        _ => Ok(v),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourceAttributes {
    #[serde(skip_serializing_if = "String::is_empty")]
    namespace: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    verb: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    group: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    version: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    resource: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    subresource: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    field_selector: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    label_selector: Option<Value>,
}

#[derive(Serialize)]
struct NonResourceAttributes {
    #[serde(skip_serializing_if = "String::is_empty")]
    path: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    verb: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AccessReviewSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_attributes: Option<ResourceAttributes>,
    #[serde(skip_serializing_if = "Option::is_none")]
    non_resource_attributes: Option<NonResourceAttributes>,
}

#[derive(Serialize)]
struct AccessReviewStatus {
    allowed: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    denied: bool,
    #[serde(skip_serializing_if = "String::is_empty")]
    reason: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ZeroMeta {
    creation_timestamp: Option<()>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Review<S: Serialize, T: Serialize> {
    kind: &'static str,
    api_version: &'static str,
    metadata: ZeroMeta,
    spec: S,
    status: T,
}

fn text(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

/// `POST .../selfsubjectaccessreviews`: the request with its status filled in (201), or
/// the error.
pub fn access_review(
    policy: &Policy,
    body: &[u8],
    format: BodyFormat,
) -> Result<String, ReviewError> {
    const KIND: &str = "SelfSubjectAccessReview";
    let v = decode(body, format, KIND)?;
    let spec = v.get("spec").cloned().unwrap_or(Value::Null);
    let resource = spec.get("resourceAttributes").filter(|x| x.is_object());
    let non_resource = spec.get("nonResourceAttributes").filter(|x| x.is_object());
    let invalid = |field: &str, value: &str, detail: &str| -> ReviewError {
        let msg = format!("Invalid value: {}: {detail}", json_str(value));
        let details = format!(
            "{{\"name\":\"\",\"group\":\"authorization.k8s.io\",\"kind\":\"{KIND}\",\"causes\":[{{\"reason\":\"FieldValueInvalid\",\"message\":{},\"field\":\"{field}\"}}]}}",
            json_str(&msg)
        );
        // `name` is omitted when empty.
        let details = details.replace("\"name\":\"\",", "");
        let mut s = status_json(
            422,
            "Invalid",
            &format!("{KIND}.authorization.k8s.io \"\" is invalid: {field}: {msg}"),
            Some(&details),
        );
        s.push('\n');
        (422, s)
    };
    let (attrs, spec_out) = match (resource, non_resource) {
        (Some(_), Some(n)) => {
            return Err(invalid(
                "spec.nonResourceAttributes",
                &n.to_string(),
                "cannot be specified in combination with resourceAttributes",
            ))
        }
        (None, None) => {
            return Err(invalid(
                "spec.resourceAttributes",
                "null",
                "exactly one of nonResourceAttributes or resourceAttributes must be specified",
            ))
        }
        (Some(r), None) => {
            let ra = ResourceAttributes {
                namespace: text(r, "namespace"),
                verb: text(r, "verb"),
                group: text(r, "group"),
                version: text(r, "version"),
                resource: text(r, "resource"),
                subresource: text(r, "subresource"),
                name: text(r, "name"),
                field_selector: r.get("fieldSelector").cloned(),
                label_selector: r.get("labelSelector").cloned(),
            };
            let attrs = Attributes {
                verb: ra.verb.clone(),
                resource_request: true,
                group: ra.group.clone(),
                version: if ra.version.is_empty() {
                    "*".into()
                } else {
                    ra.version.clone()
                },
                namespace: ra.namespace.clone(),
                resource: ra.resource.clone(),
                subresource: ra.subresource.clone(),
                name: ra.name.clone(),
                ..Attributes::default()
            };
            (
                attrs,
                AccessReviewSpec {
                    resource_attributes: Some(ra),
                    non_resource_attributes: None,
                },
            )
        }
        (None, Some(n)) => {
            let na = NonResourceAttributes {
                path: text(n, "path"),
                verb: text(n, "verb"),
            };
            let attrs = Attributes {
                verb: na.verb.clone(),
                path: na.path.clone(),
                ..Attributes::default()
            };
            (
                attrs,
                AccessReviewSpec {
                    resource_attributes: None,
                    non_resource_attributes: Some(na),
                },
            )
        }
    };
    let d = policy.authorize(&attrs);
    let review = Review {
        kind: KIND,
        api_version: "authorization.k8s.io/v1",
        metadata: ZeroMeta {
            creation_timestamp: None,
        },
        spec: spec_out,
        status: AccessReviewStatus {
            allowed: d.allowed,
            denied: false,
            reason: d.reason,
        },
    };
    Ok(format!(
        "{}\n",
        serde_json::to_string(&review).unwrap_or_default()
    ))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourceRule {
    verbs: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    api_groups: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    resources: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    resource_names: Vec<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NonResourceRule {
    verbs: Vec<String>,
    #[serde(rename = "nonResourceURLs", skip_serializing_if = "Vec::is_empty")]
    non_resource_urls: Vec<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RulesReviewStatus {
    resource_rules: Vec<ResourceRule>,
    non_resource_rules: Vec<NonResourceRule>,
    incomplete: bool,
}

#[derive(Serialize)]
struct EmptySpec {}

/// `POST .../selfsubjectrulesreviews`: the rules in `spec.namespace` (201), or the error.
pub fn rules_review(
    policy: &Policy,
    body: &[u8],
    format: BodyFormat,
) -> Result<String, ReviewError> {
    let v = decode(body, format, "SelfSubjectRulesReview")?;
    let namespace = v
        .get("spec")
        .map(|s| text(s, "namespace"))
        .unwrap_or_default();
    if namespace.is_empty() {
        return Err(bad_request("no namespace on request"));
    }
    let mut resource_rules = Vec::new();
    let mut non_resource_rules = Vec::new();
    for r in policy.rules_for(&namespace) {
        if !r.resources.is_empty() {
            resource_rules.push(ResourceRule {
                verbs: r.verbs.clone(),
                api_groups: r.api_groups.clone(),
                resources: r.resources.clone(),
                resource_names: r.resource_names.clone(),
            });
        }
        if !r.non_resource_urls.is_empty() {
            non_resource_rules.push(NonResourceRule {
                verbs: r.verbs,
                non_resource_urls: r.non_resource_urls,
            });
        }
    }
    let review = Review {
        kind: "SelfSubjectRulesReview",
        api_version: "authorization.k8s.io/v1",
        metadata: ZeroMeta {
            creation_timestamp: None,
        },
        spec: EmptySpec {},
        status: RulesReviewStatus {
            resource_rules,
            non_resource_rules,
            incomplete: false,
        },
    };
    Ok(format!(
        "{}\n",
        serde_json::to_string(&review).unwrap_or_default()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(method: &str, target: &str) -> Attributes {
        let (p, q) = target.split_once('?').unwrap_or((target, ""));
        request_info(method, p, q)
    }

    #[test]
    fn request_attributes() {
        let a = info("GET", "/api/v1/namespaces/a/pods");
        assert_eq!(
            (
                a.verb.as_str(),
                a.namespace.as_str(),
                a.resource.as_str(),
                a.resource_request
            ),
            ("list", "a", "pods", true)
        );
        assert_eq!(info("GET", "/api/v1/pods?watch=1").verb, "watch");
        assert_eq!(info("GET", "/api/v1/pods?watch").verb, "watch");
        assert_eq!(info("GET", "/api/v1/pods?watch=false").verb, "list");
        let a = info(
            "GET",
            "/api/v1/namespaces/a/pods?watch=true&fieldSelector=metadata.name%3Dweb-1",
        );
        assert_eq!((a.verb.as_str(), a.name.as_str()), ("watch", "web-1"));
        let a = info("GET", "/api/v1/namespaces/a/pods/web-1?watch=true");
        assert_eq!((a.verb.as_str(), a.name.as_str()), ("get", "web-1"));
        let a = info("GET", "/api/v1/namespaces/a");
        assert_eq!(
            (
                a.verb.as_str(),
                a.resource.as_str(),
                a.name.as_str(),
                a.namespace.as_str()
            ),
            ("get", "namespaces", "a", "a")
        );
        let a = info("GET", "/api/v1/namespaces");
        assert_eq!((a.verb.as_str(), a.namespace.as_str()), ("list", ""));
        let a = info("GET", "/apis/apps/v1/namespaces/a/deployments/d/scale");
        assert_eq!(
            (
                a.group.as_str(),
                a.resource.as_str(),
                a.name.as_str(),
                a.subresource.as_str()
            ),
            ("apps", "deployments", "d", "scale")
        );
        assert_eq!(
            info("DELETE", "/api/v1/namespaces/a/pods").verb,
            "deletecollection"
        );
        assert_eq!(
            info(
                "POST",
                "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
            )
            .verb,
            "create"
        );
        for p in [
            "/api",
            "/apis",
            "/api/v1",
            "/apis/apps",
            "/apis/apps/v1",
            "/version",
            "/",
        ] {
            let a = info("GET", p);
            assert!(!a.resource_request, "{p}");
            assert_eq!(a.verb, "get");
        }
    }

    #[test]
    fn forbidden_bodies() {
        let a = info("GET", "/api/v1/pods");
        assert_eq!(
            forbidden(&a, "jane@example.com"),
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"pods is forbidden: User \\\"jane@example.com\\\" cannot list resource \\\"pods\\\" in API group \\\"\\\" at the cluster scope\",\"reason\":\"Forbidden\",\"details\":{\"kind\":\"pods\"},\"code\":403}\n"
        );
        let a = info("GET", "/apis/apps/v1/namespaces/x/deployments/d");
        let v: Value = serde_json::from_str(&forbidden(&a, "jane")).unwrap();
        assert_eq!(v["message"], "deployments.apps \"d\" is forbidden: User \"jane\" cannot get resource \"deployments\" in API group \"apps\" in the namespace \"x\"");
        assert_eq!(
            v["details"],
            serde_json::json!({"name": "d", "group": "apps", "kind": "deployments"})
        );
        let a = info("GET", "/metrics");
        let v: Value = serde_json::from_str(&forbidden(&a, "jane")).unwrap();
        assert_eq!(
            v["message"],
            "forbidden: User \"jane\" cannot get path \"/metrics\""
        );
        assert_eq!(v["details"], serde_json::json!({}));
    }

    #[test]
    fn allow_specs() {
        let rules =
            parse_allow("list,watch:pods@a,b; get:deployments.apps,*.kubelive.dev").unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].namespaces, ["a", "b"]);
        assert_eq!(rules[1].rule.api_groups, ["apps", "kubelive.dev"]);
        assert_eq!(rules[1].rule.resources, ["deployments", "*"]);
        assert!(parse_allow("pods").is_err());
        assert!(parse_allow("list:").is_err());
        assert!(parse_allow("get:/metrics@a").is_err());

        let p = Policy::restricted("jane", &rules);
        let ok = |t: &str| p.authorize(&info("GET", t)).allowed;
        assert!(ok("/api/v1/namespaces/a/pods"));
        assert!(ok("/api/v1/namespaces/b/pods?watch=true"));
        assert!(!ok("/api/v1/namespaces/c/pods"));
        assert!(!ok("/api/v1/pods"));
        assert!(!ok("/api/v1/namespaces"));
        assert!(!ok("/api/v1/namespaces/a/pods/x"), "get was not granted");
        assert!(ok("/apis/apps/v1/namespaces/z/deployments/d"));
        assert!(ok("/apis/kubelive.dev/v1/namespaces/z/widgets/w"));
        assert!(ok("/api") && ok("/apis/apps/v1") && ok("/version"));
        assert!(!ok("/metrics"));
        assert_eq!(
            p.authorize(&info("GET", "/api/v1/namespaces/a/pods")).reason,
            "RBAC: allowed by RoleBinding \"kubelive-sim:0/a\" of ClusterRole \"kubelive-sim:0\" to User \"jane\""
        );
        assert!(
            Policy::admin()
                .authorize(&info("DELETE", "/api/v1/nodes/n"))
                .allowed
        );
    }

    #[test]
    fn reviews() {
        let p = Policy::restricted("jane", &parse_allow("list,watch:pods@a").unwrap());
        let body = br#"{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"creationTimestamp":null},"spec":{"resourceAttributes":{"namespace":"a","verb":"list","resource":"pods"}},"status":{"allowed":false}}"#;
        assert_eq!(
            access_review(&p, body, BodyFormat::Json).unwrap(),
            "{\"kind\":\"SelfSubjectAccessReview\",\"apiVersion\":\"authorization.k8s.io/v1\",\"metadata\":{\"creationTimestamp\":null},\"spec\":{\"resourceAttributes\":{\"namespace\":\"a\",\"verb\":\"list\",\"resource\":\"pods\"}},\"status\":{\"allowed\":true,\"reason\":\"RBAC: allowed by RoleBinding \\\"kubelive-sim:0/a\\\" of ClusterRole \\\"kubelive-sim:0\\\" to User \\\"jane\\\"\"}}\n"
        );
        let denied = access_review(
            &p,
            br#"{"spec":{"resourceAttributes":{"namespace":"b","verb":"list","resource":"pods"}}}"#,
            BodyFormat::Json,
        )
        .unwrap();
        assert!(
            denied.contains(r#""status":{"allowed":false}}"#),
            "{denied}"
        );
        let (code, body) = access_review(&p, br#"{"spec":{}}"#, BodyFormat::Json).unwrap_err();
        assert_eq!(code, 422);
        assert!(
            body.contains(
                "exactly one of nonResourceAttributes or resourceAttributes must be specified"
            ),
            "{body}"
        );
        assert_eq!(
            access_review(&p, b"{", BodyFormat::Json).unwrap_err().0,
            400
        );

        let rules = rules_review(&p, br#"{"spec":{"namespace":"a"}}"#, BodyFormat::Json).unwrap();
        let v: Value = serde_json::from_str(&rules).unwrap();
        assert_eq!(v["spec"], serde_json::json!({}));
        assert_eq!(v["status"]["incomplete"], false);
        let rr = v["status"]["resourceRules"].as_array().unwrap();
        assert!(rr.contains(&serde_json::json!({"verbs": ["list", "watch"], "apiGroups": [""], "resources": ["pods"]})));
        let rules_b = rules_review(&p, br#"{"spec":{"namespace":"b"}}"#, BodyFormat::Json).unwrap();
        assert!(!rules_b.contains("\"pods\""), "{rules_b}");
        assert_eq!(
            rules_review(&p, br#"{"spec":{}}"#, BodyFormat::Json)
                .unwrap_err()
                .0,
            400
        );
    }
}
