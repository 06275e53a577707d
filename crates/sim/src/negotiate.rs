//! Content negotiation as kube-apiserver does it: which representation an `Accept` header
//! gets, or 406.
//!
//! The facts (kubernetes `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/negotiation/
//! negotiate.go` and goautoneg): the clauses of `Accept` are sorted by `q` (then specific
//! types before wildcards, otherwise in order); each clause is tried against the server's
//! media types in order (`application/json`, `application/yaml`,
//! `application/vnd.kubernetes.protobuf`); the first match whose parameters the endpoint
//! allows wins. `as`/`g`/`v` ask for a conversion (a Table, an aggregated discovery
//! document); an endpoint that cannot convert skips the clause. No `Accept` at all means
//! JSON; no acceptable clause means 406 NotAcceptable.
//!
//! What the sim cannot produce: YAML and protobuf. A clause that the real server would
//! answer with either is skipped, so `application/vnd.kubernetes.protobuf, application/json`
//! (client-go with protobuf preferred) gets JSON, and only a request that accepts nothing
//! but YAML/protobuf gets a 406 (whose message still lists what kube-apiserver offers). A
//! client that asked for protobuf with a JSON fallback decodes by the response's
//! `Content-Type`, so it is served correctly, only not as compactly.

/// The version of `meta.k8s.io` Table a client asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableVersion {
    V1,
    V1Beta1,
}

impl TableVersion {
    /// `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`.
    pub fn api_version(self) -> &'static str {
        match self {
            TableVersion::V1 => "meta.k8s.io/v1",
            TableVersion::V1Beta1 => "meta.k8s.io/v1beta1",
        }
    }
}

/// The representation of a resource response (a list, an object, watch events).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Output {
    /// The objects themselves.
    #[default]
    Json,
    /// Server-side printing (`application/json;as=Table;v=v1;g=meta.k8s.io`), what
    /// `kubectl get` asks for first.
    Table(TableVersion),
}

/// The version of an aggregated discovery document (`apidiscovery.k8s.io`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggregatedVersion {
    V2,
    V2Beta1,
}

impl AggregatedVersion {
    pub fn version(self) -> &'static str {
        match self {
            AggregatedVersion::V2 => "v2",
            AggregatedVersion::V2Beta1 => "v2beta1",
        }
    }
}

/// The representation of `/api` and `/apis`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Discovery {
    /// `APIVersions` / `APIGroupList`.
    Legacy,
    /// `APIGroupDiscoveryList` (one request for everything; kubectl 1.30+ asks for it).
    Aggregated(AggregatedVersion),
}

/// What negotiation decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Negotiated<T> {
    pub what: T,
    /// `pretty=1` in the clause, `?pretty=true`, or a human client (see [`wants_pretty`]).
    pub pretty: bool,
}

/// No clause of `Accept` names something the endpoint can produce: 406.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotAcceptable;

impl std::fmt::Display for NotAcceptable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&not_acceptable_message())
    }
}

impl std::error::Error for NotAcceptable {}

/// Every media type kube-apiserver serves, in its order (the 406 message lists them).
pub const SERVER_MEDIA_TYPES: [&str; 3] = [
    "application/json",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
];

/// The message of the apiserver's 406 (`negotiation.NewNotAcceptableError`).
pub fn not_acceptable_message() -> String {
    format!(
        "only the following media types are accepted: {}",
        SERVER_MEDIA_TYPES.join(", ")
    )
}

/// One clause of an `Accept` header.
#[derive(Debug, Clone, PartialEq)]
pub struct Clause {
    pub main: String,
    pub sub: String,
    pub q: f64,
    /// Parameters other than `q`, in order.
    pub params: Vec<(String, String)>,
}

impl Clause {
    fn param(&self, k: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    }
}

/// goautoneg's ordering: higher `q` first, then concrete types before `*`. It is not a
/// total order; like Go's insertion sort for short slices, equal clauses keep their order.
fn sorts_before(a: &Clause, b: &Clause) -> bool {
    a.q > b.q || (a.main != "*" && b.main == "*") || (a.sub != "*" && b.sub == "*")
}

/// Parses an `Accept` header into sorted clauses (goautoneg's `ParseAccept`): a clause
/// without `/` is skipped unless it is `*`; `q=0` clauses stay (they still match).
pub fn parse_accept(header: &str) -> Vec<Clause> {
    let mut out: Vec<Clause> = Vec::new();
    for part in header.split(',') {
        let mut pieces = part.trim_matches(' ').split(';');
        let range = pieces.next().unwrap_or("");
        let mut sp = range.split('/');
        let main = sp.next().unwrap_or("").trim_matches(' ').to_string();
        let sub = match (sp.next(), sp.next()) {
            (None, _) if main == "*" => "*".to_string(),
            (Some(s), None) => s.trim_matches(' ').to_string(),
            _ => continue,
        };
        let mut clause = Clause {
            main,
            sub,
            q: 1.0,
            params: Vec::new(),
        };
        for param in pieces {
            let Some((k, v)) = param.split_once('=') else {
                continue;
            };
            let k = k.trim_matches(' ');
            if k == "q" {
                // Go's ParseFloat error leaves 0.
                clause.q = v.parse::<f32>().map(f64::from).unwrap_or(0.0);
            } else {
                clause
                    .params
                    .push((k.to_string(), v.trim_matches(' ').to_string()));
            }
        }
        out.push(clause);
    }
    // Insertion sort with goautoneg's comparison (what Go's sort.Sort does for < 12
    // elements, and stable in effect).
    for i in 1..out.len() {
        let mut j = i;
        while j > 0 && sorts_before(&out[j], &out[j - 1]) {
            out.swap(j, j - 1);
            j -= 1;
        }
    }
    out
}

/// A conversion a clause asks for (`as`, `g`, `v`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Convert<'a> {
    kind: &'a str,
    group: &'a str,
    version: &'a str,
}

/// The server media types a clause matches, in the server's order.
fn matching_types(c: &Clause) -> impl Iterator<Item = &'static str> + '_ {
    SERVER_MEDIA_TYPES.into_iter().filter(move |mt| {
        let (main, sub) = mt.split_once('/').unwrap_or((mt, ""));
        (c.main == main && (c.sub == sub || c.sub == "*")) || (c.main == "*" && c.sub == "*")
    })
}

/// Tries each (clause, media type) pair in the apiserver's order; `accept` decides whether
/// the endpoint can serve it (None: skip). `Err(NotAcceptable)` is a 406.
fn negotiate<T>(
    header: Option<&str>,
    default: T,
    mut accept: impl FnMut(&'static str, Option<Convert<'_>>) -> Option<T>,
) -> Result<Negotiated<T>, NotAcceptable> {
    let header = header.unwrap_or("");
    if header.is_empty() {
        return Ok(Negotiated {
            what: default,
            pretty: false,
        });
    }
    for clause in parse_accept(header) {
        for mt in matching_types(&clause) {
            // `stream` must be `watch` (and JSON/protobuf have stream serializers, YAML
            // does not); `sv` names a server version no endpoint here allows.
            if let Some(s) = clause.param("stream") {
                if !s.is_empty() && (s != "watch" || mt == "application/yaml") {
                    continue;
                }
            }
            if clause.param("sv").is_some_and(|v| !v.is_empty()) {
                continue;
            }
            let convert = match (clause.param("as"), clause.param("g"), clause.param("v")) {
                (None, None, None) => None,
                (kind, group, version) => Some(Convert {
                    kind: kind.unwrap_or(""),
                    group: group.unwrap_or(""),
                    version: version.unwrap_or(""),
                }),
            };
            if let Some(what) = accept(mt, convert) {
                return Ok(Negotiated {
                    what,
                    pretty: clause.param("pretty") == Some("1"),
                });
            }
        }
    }
    Err(NotAcceptable)
}

/// Negotiation for a resource endpoint (lists, objects, watches, reviews): JSON or a
/// Table (`RequestScope.AllowsConversion`: Table for `json`/`yaml` subtypes).
/// `PartialObjectMetadata` is allowed by the real server but not produced by the sim: such
/// a clause is skipped like any other the sim cannot serve.
pub fn for_resource(
    header: Option<&str>,
    tables: bool,
) -> Result<Negotiated<Output>, NotAcceptable> {
    negotiate(header, Output::Json, |mt, convert| {
        if mt != "application/json" {
            return None;
        }
        match convert {
            None => Some(Output::Json),
            Some(Convert {
                kind: "Table",
                group: "meta.k8s.io",
                version,
            }) if tables => match version {
                "v1" => Some(Output::Table(TableVersion::V1)),
                "v1beta1" => Some(Output::Table(TableVersion::V1Beta1)),
                _ => None,
            },
            Some(_) => None,
        }
    })
}

/// Negotiation for `/api` and `/apis` (`discovery/aggregated/wrapper.go`: the aggregated
/// document for `g=apidiscovery.k8s.io;v=<a served version>;as=APIGroupDiscoveryList`,
/// else the legacy one). A clause naming a version the release does not serve matches
/// nothing, as `IsAggregatedDiscoveryGVK` does not know it: the wrapper hands the request
/// to the legacy handler, whose negotiation then answers with a later clause or 406.
pub fn for_discovery_root(
    header: Option<&str>,
    served: &[AggregatedVersion],
) -> Result<Negotiated<Discovery>, NotAcceptable> {
    negotiate(header, Discovery::Legacy, |mt, convert| {
        if mt != "application/json" {
            return None;
        }
        match convert {
            None => Some(Discovery::Legacy),
            Some(Convert {
                kind: "APIGroupDiscoveryList",
                group: "apidiscovery.k8s.io",
                version,
            }) => served
                .iter()
                .find(|v| v.version() == version)
                .map(|v| Discovery::Aggregated(*v)),
            Some(_) => None,
        }
    })
}

/// Negotiation for documents that are only JSON (`/api/v1`, `/apis/<g>`, error Status).
pub fn for_plain(header: Option<&str>) -> Result<Negotiated<()>, NotAcceptable> {
    negotiate(header, (), |mt, convert| {
        (mt == "application/json" && convert.is_none()).then_some(())
    })
}

/// `isPrettyPrint`: `?pretty=` (Go's ParseBool; unparsable is false), else a User-Agent
/// of a human client (`curl`, `Wget`, `Mozilla/5.0`: every browser, also through
/// `kubectl proxy`, which forwards the browser's User-Agent).
pub fn wants_pretty(query: &str, user_agent: Option<&str>) -> bool {
    for pair in query.split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if k == "pretty" && !v.is_empty() {
            return matches!(v, "1" | "t" | "T" | "TRUE" | "true" | "True");
        }
    }
    let ua = user_agent.unwrap_or("");
    ua.starts_with("curl") || ua.starts_with("Wget") || ua.starts_with("Mozilla/5.0")
}

#[cfg(test)]
mod tests {
    use super::*;

    const KUBECTL_GET: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
    const KUBECTL_DISCOVERY: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

    fn res(h: &str) -> Result<Output, NotAcceptable> {
        for_resource(Some(h), true).map(|n| n.what)
    }

    #[test]
    fn resource_endpoints() {
        for h in ["", "application/json", "*/*", "application/*", "*"] {
            assert_eq!(res(h), Ok(Output::Json), "{h:?}");
        }
        assert_eq!(for_resource(None, true).map(|n| n.what), Ok(Output::Json));
        assert_eq!(res(KUBECTL_GET), Ok(Output::Table(TableVersion::V1)));
        assert_eq!(
            res("application/json;as=Table;v=v1beta1;g=meta.k8s.io"),
            Ok(Output::Table(TableVersion::V1Beta1))
        );
        // An endpoint without a table convertor skips the Table clauses.
        assert_eq!(
            for_resource(Some(KUBECTL_GET), false).map(|n| n.what),
            Ok(Output::Json)
        );
        // Protobuf first with a JSON fallback: JSON (the sim cannot produce protobuf).
        assert_eq!(
            res("application/vnd.kubernetes.protobuf, application/json"),
            Ok(Output::Json)
        );
        // q orders clauses.
        assert_eq!(
            res("application/json;q=0.5, application/json;as=Table;v=v1;g=meta.k8s.io"),
            Ok(Output::Table(TableVersion::V1))
        );
        assert_eq!(res("application/json;stream=watch"), Ok(Output::Json));
        for h in [
            "text/plain",
            "application/vnd.kubernetes.protobuf",
            "application/yaml",
            "application/json;as=Table;v=v2;g=meta.k8s.io",
            "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
            "application/json;stream=other",
        ] {
            assert_eq!(res(h), Err(NotAcceptable), "{h:?}");
        }
        assert!(
            for_resource(Some("application/json;pretty=1"), true)
                .unwrap()
                .pretty
        );
    }

    #[test]
    fn discovery_roots() {
        let both = [AggregatedVersion::V2, AggregatedVersion::V2Beta1];
        let d = |h: &str| for_discovery_root(Some(h), &both).map(|n| n.what);
        assert_eq!(
            d(KUBECTL_DISCOVERY),
            Ok(Discovery::Aggregated(AggregatedVersion::V2))
        );
        assert_eq!(
            d("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"),
            Ok(Discovery::Aggregated(AggregatedVersion::V2Beta1))
        );
        assert_eq!(d("application/json"), Ok(Discovery::Legacy));
        assert_eq!(
            d("application/json;g=apidiscovery.k8s.io;v=v1;as=APIGroupDiscoveryList"),
            Err(NotAcceptable)
        );
        assert_eq!(for_plain(Some(KUBECTL_DISCOVERY)).map(|n| n.what), Ok(()));
    }

    #[test]
    fn pretty_rules() {
        assert!(wants_pretty("", Some("curl/8.5.0")));
        assert!(wants_pretty("", Some("Mozilla/5.0 (X11; Linux x86_64)")));
        assert!(!wants_pretty("", Some("kubectl/v1.32.4 (linux/amd64)")));
        assert!(!wants_pretty("pretty=false", Some("curl/8.5.0")));
        assert!(wants_pretty("limit=1&pretty=true", None));
        assert!(!wants_pretty("pretty=maybe", Some("curl/8")));
    }
}
