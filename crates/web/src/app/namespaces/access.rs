//! What the user may list, asked of the server before trying: SelfSubjectAccessReview
//! (one verb on one resource, in one namespace or all) and SelfSubjectRulesReview (all
//! the rules that apply in one namespace). Pure: the bodies to POST, their answers,
//! the cache of verdicts, and which questions are worth a POST (a small number, each
//! asked once a session).
//!
//! Shapes: `authorization.k8s.io/v1` (`SelfSubjectAccessReviewSpec.resourceAttributes`:
//! an empty namespace means all namespaces; `SelfSubjectRulesReviewSpec.namespace` is
//! required — the apiserver answers 400 "no namespace on request" without it,
//! `pkg/registry/authorization/selfsubjectrulesreview/rest.go`). Rule matching follows
//! RBAC (`rbac/v1/evaluation_helpers.go`): `*` matches any verb, group or resource; a
//! rule naming `resourceNames` never allows a list.

use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// May the user list (and watch) a resource in a scope?
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    /// With the server's reason when it gave one.
    Denied(String),
    /// Not asked yet, not answerable (no reviews on this server, an incomplete rule
    /// list), or the question failed.
    Unknown,
}

impl Verdict {
    pub fn is_denied(&self) -> bool {
        matches!(self, Verdict::Denied(_))
    }
}

/// Where: one namespace, or the whole cluster (all namespaces).
pub type Scope = Option<String>;

/// The resource a question is about.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// `""` for the core group.
    pub group: String,
    pub plural: String,
}

/// One POST worth making.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Question {
    /// SelfSubjectAccessReview: `list` on `target` in `scope`.
    CanList { target: Target, scope: Scope },
    /// SelfSubjectRulesReview of one namespace.
    Rules { namespace: String },
}

impl Question {
    /// The collection to POST to (under `/apis/authorization.k8s.io/v1`).
    pub fn path(&self) -> &'static str {
        match self {
            Question::CanList { .. } => "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            Question::Rules { .. } => "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
        }
    }

    /// The JSON body of the review.
    pub fn body(&self) -> String {
        let s = |v: &str| serde_json::to_string(v).unwrap_or_default();
        match self {
            Question::CanList { target, scope } => format!(
                r#"{{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","spec":{{"resourceAttributes":{{"namespace":{},"verb":"list","group":{},"resource":{}}}}}}}"#,
                s(scope.as_deref().unwrap_or("")),
                s(&target.group),
                s(&target.plural),
            ),
            Question::Rules { namespace } => format!(
                r#"{{"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1","spec":{{"namespace":{}}}}}"#,
                s(namespace)
            ),
        }
    }
}

/// One RBAC rule as a rules review reports it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceRule {
    pub verbs: Vec<String>,
    pub api_groups: Vec<String>,
    pub resources: Vec<String>,
    pub resource_names: Vec<String>,
}

impl ResourceRule {
    fn allows(&self, verb: &str, target: &Target) -> bool {
        let any = |list: &[String], want: &str| list.iter().any(|x| x == "*" || x == want);
        self.resource_names.is_empty()
            && any(&self.verbs, verb)
            && any(&self.api_groups, &target.group)
            && any(&self.resources, &target.plural)
    }
}

/// The rules that apply to the user in one namespace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rules {
    pub rules: Vec<ResourceRule>,
    /// Some authorizer could not list its rules: what is not allowed here may still be.
    pub incomplete: bool,
}

impl Rules {
    /// List and watch: the app needs both.
    pub fn verdict(&self, target: &Target) -> Verdict {
        let can = |verb| self.rules.iter().any(|r| r.allows(verb, target));
        match (can("list"), can("watch")) {
            (true, true) => Verdict::Allowed,
            _ if self.incomplete => Verdict::Unknown,
            (false, _) => Verdict::Denied(format!("no rule allows list on {}", target.plural)),
            (true, false) => Verdict::Denied(format!("no rule allows watch on {}", target.plural)),
        }
    }
}

/// Reads a SelfSubjectAccessReview answer.
pub fn parse_access_review(json: &str) -> Result<Verdict, String> {
    let status = review_status(json).ok_or("not a SelfSubjectAccessReview")?;
    let shape = || -> Option<_> {
        Some((
            flag(&status, "allowed")?,
            text(&status, "reason")?,
            text(&status, "evaluationError")?,
        ))
    };
    let (allowed, reason, evaluation_error) = shape().ok_or("not a SelfSubjectAccessReview")?;
    Ok(if allowed {
        Verdict::Allowed
    } else if !evaluation_error.is_empty() && reason.is_empty() {
        // The authorizer failed to decide: not a "no".
        Verdict::Unknown
    } else {
        Verdict::Denied(reason)
    })
}

/// Reads a SelfSubjectRulesReview answer.
pub fn parse_rules_review(json: &str) -> Result<Rules, String> {
    let status = review_status(json).ok_or("not a SelfSubjectRulesReview")?;
    let shape = || -> Option<_> {
        let rules = match status.get("resourceRules") {
            None => Vec::new(),
            Some(Value::Array(rules)) => rules
                .iter()
                .map(|r| {
                    let r = r.as_object()?;
                    Some(ResourceRule {
                        verbs: texts(r, "verbs")?,
                        api_groups: texts(r, "apiGroups")?,
                        resources: texts(r, "resources")?,
                        resource_names: texts(r, "resourceNames")?,
                    })
                })
                .collect::<Option<_>>()?,
            Some(_) => return None,
        };
        let incomplete =
            flag(&status, "incomplete")? || !text(&status, "evaluationError")?.is_empty();
        Some(Rules { rules, incomplete })
    };
    shape().ok_or_else(|| "not a SelfSubjectRulesReview".into())
}

// The answers are read from a `Value` rather than through derived `Deserialize`
// structs: each of those costs the wasm its own copy of serde_json's struct reader,
// and the app parses `Value`s already. As strict: a field of the wrong type (`null`
// included) rejects the answer; an absent one is empty.

/// A review's `status` object (empty when it has none or `null`); `None` when the
/// body is not a JSON object or its status not an object.
fn review_status(json: &str) -> Option<Map<String, Value>> {
    match serde_json::from_str::<Value>(json).ok()? {
        Value::Object(mut review) => match review.remove("status") {
            None | Some(Value::Null) => Some(Map::new()),
            Some(Value::Object(status)) => Some(status),
            Some(_) => None,
        },
        _ => None,
    }
}

fn flag(o: &Map<String, Value>, key: &str) -> Option<bool> {
    match o.get(key) {
        None => Some(false),
        Some(v) => v.as_bool(),
    }
}

fn text(o: &Map<String, Value>, key: &str) -> Option<String> {
    match o.get(key) {
        None => Some(String::new()),
        Some(v) => v.as_str().map(str::to_string),
    }
}

fn texts(o: &Map<String, Value>, key: &str) -> Option<Vec<String>> {
    match o.get(key) {
        None => Some(Vec::new()),
        Some(v) => v
            .as_array()?
            .iter()
            .map(|s| s.as_str().map(str::to_string))
            .collect(),
    }
}

/// How many rules reviews (one per namespace) a session may ask for by itself;
/// namespaces the user types are always asked about.
pub const RULES_BUDGET: usize = 16;
/// How many access reviews a session may ask for by itself.
pub const ACCESS_BUDGET: usize = 48;
/// Reviews in flight at once.
pub const IN_FLIGHT: usize = 4;

/// Everything learnt this session, and what is being asked.
#[derive(Debug, Default)]
pub struct Access {
    /// Discovery lists the review resources.
    offered: bool,
    /// A review was answered 404/405/415: this server (or a proxy) does not take them.
    refused: bool,
    answers: HashMap<(Target, Scope), Verdict>,
    rules: HashMap<String, Rules>,
    asked: HashSet<Question>,
    in_flight: usize,
    rules_asked: usize,
    access_asked: usize,
}

impl Access {
    pub fn new(offered: bool) -> Access {
        Access {
            offered,
            ..Access::default()
        }
    }

    /// Discovery found the review resources (in either half).
    pub fn offer(&mut self) {
        self.offered = true;
    }

    /// Reviews may be asked.
    pub fn supported(&self) -> bool {
        self.offered && !self.refused
    }

    /// What is known of listing `target` in `scope`: an access review's answer first,
    /// else the namespace's rules.
    pub fn verdict(&self, target: &Target, scope: &Scope) -> Verdict {
        if let Some(v) = self.answers.get(&(target.clone(), scope.clone())) {
            return v.clone();
        }
        match scope {
            Some(ns) => self
                .rules
                .get(ns)
                .map(|r| r.verdict(target))
                .unwrap_or(Verdict::Unknown),
            None => Verdict::Unknown,
        }
    }

    /// Asked, answered or in flight.
    pub fn asked(&self, q: &Question) -> bool {
        self.asked.contains(q)
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Picks the next questions to ask (marks them asked), within the budgets and
    /// the in-flight bound. `wanted` comes in priority order; `typed` namespaces are
    /// asked about even past the budget (the user asked).
    pub fn next(&mut self, wanted: &[Question], typed: &[String]) -> Vec<Question> {
        let mut out = Vec::new();
        if !self.supported() {
            return out;
        }
        for q in wanted {
            if self.in_flight >= IN_FLIGHT {
                break;
            }
            if self.asked.contains(q) {
                continue;
            }
            let within = match q {
                Question::Rules { namespace } => {
                    self.rules_asked < RULES_BUDGET || typed.contains(namespace)
                }
                Question::CanList { .. } => self.access_asked < ACCESS_BUDGET,
            };
            if !within {
                continue;
            }
            match q {
                Question::Rules { .. } => self.rules_asked += 1,
                Question::CanList { .. } => self.access_asked += 1,
            }
            self.asked.insert(q.clone());
            self.in_flight += 1;
            out.push(q.clone());
        }
        out
    }

    /// Records the answer to `q`: the HTTP status and body of its POST, or a
    /// transport error. Returns whether anything new was learnt.
    pub fn answer(&mut self, q: &Question, reply: Result<(u16, String), String>) -> bool {
        self.in_flight = self.in_flight.saturating_sub(1);
        let (status, body) = match reply {
            Ok(r) => r,
            Err(_) => return false,
        };
        if matches!(status, 404 | 405 | 415) {
            // The server (or a proxy) does not take reviews: stop asking.
            self.refused = true;
            return false;
        }
        if !(200..300).contains(&status) {
            return false;
        }
        match q {
            Question::CanList { target, scope } => match parse_access_review(&body) {
                Ok(v) => {
                    self.answers.insert((target.clone(), scope.clone()), v);
                    true
                }
                Err(_) => false,
            },
            Question::Rules { namespace } => match parse_rules_review(&body) {
                Ok(r) => {
                    self.rules.insert(namespace.clone(), r);
                    true
                }
                Err(_) => false,
            },
        }
    }
}

/// The namespaces worth offering or asking about, best first and without repeats:
/// the current one, those the user typed before (newest first), then the cluster's.
pub fn candidates(current: Option<&str>, remembered: &[String], known: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for ns in current
        .into_iter()
        .chain(remembered.iter().map(String::as_str))
        .chain(known.iter().map(String::as_str))
    {
        if !ns.is_empty() && !out.iter().any(|o| o == ns) {
            out.push(ns.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pods() -> Target {
        Target {
            group: String::new(),
            plural: "pods".into(),
        }
    }

    fn deployments() -> Target {
        Target {
            group: "apps".into(),
            plural: "deployments".into(),
        }
    }

    #[test]
    fn review_bodies_are_the_api_shapes() {
        let q = Question::CanList {
            target: deployments(),
            scope: None,
        };
        let v: serde_json::Value = serde_json::from_str(&q.body()).unwrap();
        assert_eq!(v["kind"], "SelfSubjectAccessReview");
        assert_eq!(v["apiVersion"], "authorization.k8s.io/v1");
        let attrs = &v["spec"]["resourceAttributes"];
        assert_eq!(attrs["namespace"], "", "all namespaces");
        assert_eq!(attrs["verb"], "list");
        assert_eq!(attrs["group"], "apps");
        assert_eq!(attrs["resource"], "deployments");
        assert_eq!(
            q.path(),
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
        );
        let q = Question::Rules {
            namespace: "team-\"a".into(),
        };
        let v: serde_json::Value = serde_json::from_str(&q.body()).unwrap();
        assert_eq!(v["kind"], "SelfSubjectRulesReview");
        assert_eq!(v["spec"]["namespace"], "team-\"a");
    }

    #[test]
    fn access_review_answers() {
        let allowed = r#"{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{},"spec":{"resourceAttributes":{"verb":"list","resource":"pods"}},"status":{"allowed":true,"reason":"RBAC: allowed by RoleBinding \"dev/team-a\""}}"#;
        assert_eq!(parse_access_review(allowed), Ok(Verdict::Allowed));
        // RBAC has no deny: "no opinion" with allowed=false means the user may not.
        let no = r#"{"status":{"allowed":false}}"#;
        assert_eq!(parse_access_review(no), Ok(Verdict::Denied(String::new())));
        let failed = r#"{"status":{"allowed":false,"evaluationError":"webhook down"}}"#;
        assert_eq!(parse_access_review(failed), Ok(Verdict::Unknown));
        assert!(parse_access_review("<html>").is_err());
    }

    #[test]
    fn answers_of_another_shape_are_not_read() {
        for json in [
            r#"{}"#,
            r#"{"status":null}"#,
            r#"{"status":{"resourceRules":[]}}"#,
        ] {
            assert_eq!(
                parse_access_review(json),
                Ok(Verdict::Denied(String::new())),
                "{json}"
            );
            assert_eq!(parse_rules_review(json), Ok(Rules::default()), "{json}");
        }
        for json in [
            r#"[]"#,
            r#"{"status":"x"}"#,
            r#"{"status":{"allowed":"true"}}"#,
            r#"{"status":{"allowed":null}}"#,
            r#"{"status":{"reason":1}}"#,
            r#"{"status":{"evaluationError":false}}"#,
        ] {
            assert!(parse_access_review(json).is_err(), "{json}");
        }
        for json in [
            r#"{"status":{"resourceRules":null}}"#,
            r#"{"status":{"resourceRules":[1]}}"#,
            r#"{"status":{"resourceRules":[{"verbs":"list"}]}}"#,
            r#"{"status":{"resourceRules":[{"verbs":["list",1]}]}}"#,
            r#"{"status":{"incomplete":"yes"}}"#,
        ] {
            assert!(parse_rules_review(json).is_err(), "{json}");
        }
    }

    #[test]
    fn rules_decide_list_and_watch() {
        let json = r#"{"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1","spec":{"namespace":"team-a"},"status":{"resourceRules":[
            {"verbs":["get","list","watch"],"apiGroups":[""],"resources":["pods","pods/log"]},
            {"verbs":["list"],"apiGroups":["apps"],"resources":["deployments"]},
            {"verbs":["*"],"apiGroups":["kubelive.dev"],"resources":["*"]},
            {"verbs":["list","watch"],"apiGroups":[""],"resources":["configmaps"],"resourceNames":["one"]},
            {"verbs":["create"],"apiGroups":["authorization.k8s.io"],"resources":["selfsubjectaccessreviews","selfsubjectrulesreviews"]}
          ],"nonResourceRules":[{"verbs":["get"],"nonResourceURLs":["/api","/api/*"]}],"incomplete":false}}"#;
        let rules = parse_rules_review(json).unwrap();
        assert_eq!(rules.verdict(&pods()), Verdict::Allowed);
        assert!(
            rules.verdict(&deployments()).is_denied(),
            "list without watch"
        );
        let widgets = Target {
            group: "kubelive.dev".into(),
            plural: "widgets".into(),
        };
        assert_eq!(rules.verdict(&widgets), Verdict::Allowed, "wildcards");
        let cms = Target {
            group: String::new(),
            plural: "configmaps".into(),
        };
        assert!(
            rules.verdict(&cms).is_denied(),
            "resourceNames never allow a list"
        );
        let secrets = Target {
            group: String::new(),
            plural: "secrets".into(),
        };
        assert!(rules.verdict(&secrets).is_denied());
        let incomplete = Rules {
            incomplete: true,
            ..rules
        };
        assert_eq!(incomplete.verdict(&secrets), Verdict::Unknown);
        assert_eq!(incomplete.verdict(&pods()), Verdict::Allowed);
    }

    #[test]
    fn questions_are_asked_once_within_budgets() {
        let mut a = Access::new(true);
        let ns = |n: usize| Question::Rules {
            namespace: format!("ns-{n}"),
        };
        let wanted: Vec<Question> = (0..40).map(ns).collect();
        let first = a.next(&wanted, &[]);
        assert_eq!(first.len(), IN_FLIGHT, "bounded in flight");
        assert!(a.next(&wanted, &[]).is_empty());
        let mut total = first.len();
        for q in first {
            a.answer(&q, Ok((201, r#"{"status":{"resourceRules":[]}}"#.into())));
        }
        while a.in_flight() == 0 {
            let more = a.next(&wanted, &[]);
            if more.is_empty() {
                break;
            }
            total += more.len();
            for q in more {
                a.answer(&q, Err("network".into()));
            }
        }
        assert_eq!(total, RULES_BUDGET, "never more than the budget by itself");
        // A namespace the user typed is asked about past the budget, once.
        let typed = vec!["ns-39".to_string()];
        assert_eq!(a.next(&wanted, &typed), vec![ns(39)]);
        a.answer(&ns(39), Ok((201, "{}".into())));
        assert!(a.next(&wanted, &typed).is_empty());
        // Answers feed verdicts.
        assert!(a.verdict(&pods(), &Some("ns-0".into())).is_denied());
        assert_eq!(a.verdict(&pods(), &Some("ns-20".into())), Verdict::Unknown);
        assert_eq!(a.verdict(&pods(), &None), Verdict::Unknown);
    }

    #[test]
    fn an_access_review_answer_wins_over_rules() {
        let mut a = Access::new(true);
        let q = Question::Rules {
            namespace: "team-a".into(),
        };
        assert_eq!(a.next(std::slice::from_ref(&q), &[]), vec![q.clone()]);
        a.answer(&q, Ok((201, r#"{"status":{"resourceRules":[]}}"#.into())));
        let scope = Some("team-a".to_string());
        assert!(a.verdict(&pods(), &scope).is_denied());
        let q = Question::CanList {
            target: pods(),
            scope: scope.clone(),
        };
        a.next(std::slice::from_ref(&q), &[]);
        a.answer(&q, Ok((201, r#"{"status":{"allowed":true}}"#.into())));
        assert_eq!(a.verdict(&pods(), &scope), Verdict::Allowed);
    }

    #[test]
    fn a_server_without_reviews_is_not_asked_again() {
        let mut a = Access::new(true);
        let q = Question::CanList {
            target: pods(),
            scope: None,
        };
        a.next(std::slice::from_ref(&q), &[]);
        a.answer(&q, Ok((405, "method not allowed".into())));
        assert!(!a.supported());
        a.offer();
        assert!(!a.supported(), "refused stays refused");
        let q2 = Question::Rules {
            namespace: "x".into(),
        };
        assert!(a.next(&[q2], &["x".into()]).is_empty());
        assert!(Access::new(false).next(&[q], &[]).is_empty());
    }

    #[test]
    fn candidates_put_the_current_and_typed_namespaces_first() {
        let got = candidates(
            Some("b"),
            &["c".into(), "b".into()],
            &["a".into(), "b".into(), "c".into(), "d".into()],
        );
        assert_eq!(got, ["b", "c", "a", "d"]);
        assert_eq!(candidates(None, &[], &[]), Vec::<String>::new());
    }
}
