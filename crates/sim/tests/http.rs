//! The sim's HTTP layer against what kube-apiserver sends, one test per row of issue 15's
//! HTTP differences and issue 13's permissions, pinned at the byte/header level. The
//! server runs in this process (`Server`), so a test can pick its policy and objects.

use std::collections::HashSet;

use kubelive_sim::discovery::storage_version_hash;
use kubelive_sim::rbac::{parse_allow, Policy};
use kubelive_sim::server::{Server, ServerConfig};
use serde_json::{json, Value};

mod support;
use support::{get, Client};

fn sim(objects: usize, policy: Policy) -> Server {
    Server::start(ServerConfig {
        port: 0,
        objects,
        namespaces: 3,
        churn: 0.0,
        policy,
        ..ServerConfig::default()
    })
    .expect("sim starts")
}

fn port(s: &Server) -> u16 {
    s.addr().port()
}

fn is_uuid(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.iter().map(|p| p.len()).collect::<Vec<_>>() == [8, 4, 4, 4, 12]
        && s.chars().all(|c| c == '-' || c.is_ascii_hexdigit())
}

const KUBECTL_GET: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
const KUBECTL_DISCOVERY: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

/// Compression. kubernetes `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/
/// responsewriters/writers.go` (`deferredResponseWriter`: gzip only when the client's
/// `Accept-Encoding` has the token `gzip` and the body is over `defaultGzipThresholdBytes`
/// = 128 KiB, then `Content-Encoding: gzip` + `Vary: Accept-Encoding`), `compression.go`
/// (the bare token only: `gzip;q=1` does not count), `handlers/watch.go` (watch frames are
/// written straight to the connection: never gzipped).
#[test]
fn gzip_as_the_apiserver_decides_it() {
    let s = sim(200, Policy::admin());
    let p = port(&s);
    let plain = get(p, "/api/v1/pods", &[]);
    assert_eq!(plain.status, 200);
    assert!(plain.body.len() > 128 * 1024, "a list of 200 pods is large");
    assert_eq!(plain.header("content-encoding"), None);

    let gz = get(p, "/api/v1/pods", &[("Accept-Encoding", "gzip")]);
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    assert_eq!(gz.header("vary"), Some("Accept-Encoding"));
    assert_eq!(gz.header("transfer-encoding"), Some("chunked"));
    assert!(
        gz.body.len() * 4 < plain.body.len(),
        "compressed: {} of {}",
        gz.body.len(),
        plain.body.len()
    );
    assert_eq!(gz.decoded(), plain.body, "the same document");

    // A browser's list of encodings counts; a token with parameters does not.
    let browser = get(
        p,
        "/api/v1/pods",
        &[("Accept-Encoding", "gzip, deflate, br, zstd")],
    );
    assert_eq!(browser.header("content-encoding"), Some("gzip"));
    let q = get(p, "/api/v1/pods", &[("Accept-Encoding", "gzip;q=1.0")]);
    assert_eq!(q.header("content-encoding"), None);

    // Small bodies stay plain, with a Content-Length.
    let small = get(p, "/api/v1/namespaces", &[("Accept-Encoding", "gzip")]);
    assert!(small.body.len() < 128 * 1024);
    assert_eq!(small.header("content-encoding"), None);
    assert_eq!(small.header("vary"), None);

    // Watches are never compressed.
    let rv = plain.json()["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    let w = get(
        p,
        &format!("/api/v1/pods?watch=true&resourceVersion=0&timeoutSeconds=1&x={rv}"),
        &[("Accept-Encoding", "gzip")],
    );
    assert_eq!(w.status, 200);
    assert_eq!(w.header("content-encoding"), None);
    assert_eq!(w.text().lines().count(), 200, "200 ADDED events, plain");
}

/// `--no-compression` is kube-apiserver with `--feature-gates=APIResponseCompression=false`
/// (`genericapiserver` wraps the handler in `WithCompression` only when the gate is on):
/// the same list, plain, whatever the client accepts.
#[test]
fn no_compression_serves_plain_bodies_to_gzip_clients() {
    let s = Server::start(ServerConfig {
        port: 0,
        objects: 200,
        churn: 0.0,
        compression: false,
        ..ServerConfig::default()
    })
    .expect("sim starts");
    let r = get(port(&s), "/api/v1/pods", &[("Accept-Encoding", "gzip")]);
    assert_eq!(r.status, 200);
    assert!(
        r.body.len() > 128 * 1024,
        "large enough to be gzipped otherwise"
    );
    assert_eq!(r.header("content-encoding"), None);
    assert_eq!(r.json()["items"].as_array().map(Vec::len), Some(200));
}

/// Connections. Go's `net/http` server (keep-alive for HTTP/1.1, `Connection: close`
/// honoured, HTTP/1.0 closes, a body up to 2 KiB gets `Content-Length`, more is chunked,
/// and the apiserver writes an encoded list in one write: one chunk); the headers of the
/// apiserver's filter chain on every response (`filters/audit_init.go`: `Audit-Id`, a
/// UUID; `filters/cachecontrol.go`: `Cache-Control: no-cache, private`;
/// `server/filters/priority-and-fairness.go`: `X-Kubernetes-Pf-Flowschema-Uid` and
/// `X-Kubernetes-Pf-Prioritylevel-Uid`; Go adds `Date`).
#[test]
fn keep_alive_and_the_headers_of_every_response() {
    let s = sim(20, Policy::admin());
    let p = port(&s);
    let mut c = Client::connect(p);
    let mut audit_ids = HashSet::new();
    let mut check = |r: &support::Reply, what: &str| {
        let id = r
            .header("audit-id")
            .unwrap_or_else(|| panic!("{what}: no Audit-Id"));
        assert!(is_uuid(id), "{what}: {id}");
        assert!(audit_ids.insert(id.to_string()), "{what}: Audit-Id reused");
        assert_eq!(
            r.header("cache-control"),
            Some("no-cache, private"),
            "{what}"
        );
        for h in [
            "x-kubernetes-pf-flowschema-uid",
            "x-kubernetes-pf-prioritylevel-uid",
        ] {
            assert!(r.header(h).is_some_and(is_uuid), "{what}: {h}");
        }
        assert!(
            r.header("date").is_some_and(|d| d.ends_with(" GMT")),
            "{what}"
        );
        assert!(r.header("content-type").is_some(), "{what}");
        assert_eq!(r.header("connection"), None, "{what}: kept alive");
    };
    let r = c.request("GET", "/api/v1/namespaces/ns-0/pods?limit=1", &[]);
    assert_eq!(r.status, 200);
    check(&r, "list");
    assert!(r.body.len() > 2048);
    assert_eq!(r.chunks.as_deref(), Some(&[r.body.len()][..]), "one chunk");
    let r = c.request("GET", "/api/v1/nothing", &[]);
    assert_eq!(r.status, 404);
    check(&r, "404");
    assert_eq!(
        r.header("content-length"),
        Some(r.body.len().to_string().as_str())
    );
    // A watch that ends cleanly (timeoutSeconds) leaves the connection usable.
    let r = c.request(
        "GET",
        "/api/v1/namespaces/ns-0/pods?watch=true&timeoutSeconds=1",
        &[],
    );
    assert_eq!(r.status, 200);
    check(&r, "watch");
    assert_eq!(r.header("transfer-encoding"), Some("chunked"));
    let r = c.request("GET", "/version", &[]);
    assert_eq!(r.status, 200);
    check(&r, "after the watch");
    let r = c.request("GET", "/healthz", &[]);
    assert_eq!((r.status, r.body.as_slice()), (200, &b"ok"[..]));
    assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
    check(&r, "healthz");

    // `Connection: close` is honoured.
    let r = c.request("GET", "/api", &[("Connection", "close")]);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("connection"), Some("close"));
    assert!(c.closed());
    // HTTP/1.0 without keep-alive: one response, then the server closes.
    let mut c = Client::connect(p);
    c.send_version("GET", "/api/v1/namespaces", "HTTP/1.0", &[], b"");
    let r = c.read(false);
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["kind"], "NamespaceList");
    assert!(c.closed());
}

/// Accept. kubernetes `handlers/negotiation/negotiate.go` (clauses sorted by q, each tried
/// against json/yaml/protobuf; `as=Table` allowed on resources; no match: 406) and
/// `errors.go` (`only the following media types are accepted: ...`); a failed negotiation
/// writes the Status with `WriteRawJSON` (writers.go): indented, no trailing newline.
#[test]
fn accept_negotiation() {
    let s = sim(5, Policy::admin());
    let p = port(&s);
    for accept in [
        None,
        Some("application/json"),
        Some("*/*"),
        Some("application/*"),
        Some("application/json, */*"),
        // client-go preferring protobuf: the sim answers with the JSON it also accepts.
        Some("application/vnd.kubernetes.protobuf, application/json"),
    ] {
        let headers: Vec<(&str, &str)> = accept.iter().map(|a| ("Accept", *a)).collect();
        let r = get(p, "/api/v1/pods", &headers);
        assert_eq!(r.status, 200, "{accept:?}");
        assert_eq!(
            r.header("content-type"),
            Some("application/json"),
            "{accept:?}"
        );
        assert_eq!(r.json()["kind"], "PodList", "{accept:?}");
    }
    // kubectl get's Table Accept is acceptable (the Table is the model's to print).
    let r = get(p, "/api/v1/pods", &[("Accept", KUBECTL_GET)]);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));

    let want = "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {},\n  \"status\": \"Failure\",\n  \"message\": \"only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf\",\n  \"reason\": \"NotAcceptable\",\n  \"code\": 406\n}";
    for (path, accept) in [
        ("/api/v1/pods", "text/plain"),
        ("/api/v1/pods", "application/vnd.kubernetes.protobuf"),
        ("/api/v1/pods", "application/yaml"),
        ("/api/v1/pods?watch=true", "text/html"),
        ("/api", "text/plain"),
        ("/api/v1", "application/json;as=Table;v=v1;g=meta.k8s.io"),
    ] {
        let r = get(p, path, &[("Accept", accept)]);
        assert_eq!(r.status, 406, "{path} {accept}");
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(r.text(), want, "{path} {accept}");
    }
    // Any error Status for a client that accepts no JSON is written raw, indented.
    let r = get(p, "/api/v1/nothing", &[("Accept", "text/plain")]);
    assert_eq!(r.status, 404);
    assert!(
        r.text().starts_with("{\n  \"kind\": \"Status\""),
        "{}",
        r.text()
    );

    // Pretty output (negotiate.go isPrettyPrint): curl and browsers get indented JSON.
    let r = get(p, "/api/v1/namespaces", &[("User-Agent", "curl/8.5.0")]);
    assert!(
        r.text()
            .starts_with("{\n  \"kind\": \"NamespaceList\",\n  \"apiVersion\": \"v1\",\n"),
        "{}",
        r.text()
    );
    let r = get(
        p,
        "/api/v1/namespaces?pretty=false",
        &[("User-Agent", "curl/8.5.0")],
    );
    assert!(
        r.text().starts_with("{\"kind\":\"NamespaceList\""),
        "{}",
        r.text()
    );
    let r = get(p, "/api/v1/namespaces?pretty=true", &[]);
    assert!(r.text().starts_with("{\n"), "{}", r.text());
}

/// Methods: a verb the sim does not serve is a 405 with the Status of
/// `apierrors.NewGenericServerResponse` (empty `details`), after authorization.
#[test]
fn methods_the_sim_does_not_serve() {
    let s = sim(5, Policy::admin());
    let p = port(&s);
    let want = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"the server does not allow this method on the requested resource\",\"reason\":\"MethodNotAllowed\",\"details\":{},\"code\":405}\n";
    for (method, path) in [
        ("POST", "/api/v1/namespaces/ns-0/pods"),
        ("DELETE", "/api/v1/namespaces/ns-0/pods"),
        ("PUT", "/api/v1/namespaces/ns-0/pods/x"),
        ("PATCH", "/apis/apps/v1/namespaces/ns-0/deployments/x"),
        ("POST", "/api"),
        (
            "GET",
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        ),
    ] {
        let mut c = Client::connect(p);
        c.send(method, path, &[], b"{}");
        let r = c.read(false);
        assert_eq!(r.status, 405, "{method} {path}");
        assert_eq!(r.text(), want, "{method} {path}");
    }
}

/// Discovery. Legacy documents (`discovery/version.go`, `group.go`, kube-aggregator's
/// `handler_apis.go`), aggregated ones (`discovery/aggregated/handler.go`, `etag.go`:
/// `ETag` = quoted upper-case sha512, `Vary: Accept`, `Cache-Control: public`, 304 on
/// `If-None-Match`; `wrapper.go`/`negotiation.go`: v2 and v2beta1; `writers.go`
/// `generateMediaTypeWithGVK` for the Content-Type), honest verbs, categories,
/// `storageVersionHash` (`discovery/storageversionhash.go`).
#[test]
fn discovery_documents() {
    // 1.32 serves both aggregated versions (`Release::aggregated_discovery`).
    let s = Server::start(ServerConfig {
        port: 0,
        objects: 5,
        namespaces: 3,
        churn: 0.0,
        release: "1.32".parse().unwrap(),
        ..ServerConfig::default()
    })
    .expect("sim starts");
    let p = port(&s);
    let core = get(p, "/api/v1", &[]).json();
    assert_eq!(core["kind"], "APIResourceList");
    assert!(
        core.get("apiVersion").is_none(),
        "the core list has no apiVersion"
    );
    let names: Vec<&str> = core["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "configmaps",
            "events",
            "namespaces",
            "nodes",
            "persistentvolumeclaims",
            "pods",
            "secrets",
            "services"
        ]
    );
    // The storageVersionHash a real cluster shows for PersistentVolumeClaim.
    assert_eq!(
        core["resources"][4],
        json!({"name": "persistentvolumeclaims", "singularName": "persistentvolumeclaim",
                "namespaced": true, "kind": "PersistentVolumeClaim", "verbs": ["get", "list", "watch"],
                "shortNames": ["pvc"], "storageVersionHash": "QWTyNDq0dC4="})
    );
    let pods = &core["resources"][5];
    assert_eq!(
        pods,
        &json!({"name": "pods", "singularName": "pod", "namespaced": true, "kind": "Pod",
                "verbs": ["get", "list", "watch"], "shortNames": ["po"], "categories": ["all"],
                "storageVersionHash": "xPOwRZ+Yhw8="})
    );
    let apps = get(p, "/apis/apps/v1", &[]).json();
    assert_eq!(apps["apiVersion"], "v1");
    assert_eq!(apps["resources"][1]["name"], "replicasets");
    assert_eq!(apps["resources"][1]["shortNames"], json!(["rs"]));
    assert_eq!(apps["resources"][1]["categories"], json!(["all"]));
    assert_eq!(
        apps["resources"][2],
        json!({"name": "statefulsets", "singularName": "statefulset", "namespaced": true,
                "kind": "StatefulSet", "verbs": ["get", "list", "watch"], "shortNames": ["sts"],
                "categories": ["all"], "storageVersionHash": "H+vl74LkKdo="})
    );
    let crd = get(p, "/apis/kubelive.dev/v1", &[]).json();
    assert_eq!(
        crd["resources"][0]["storageVersionHash"],
        storage_version_hash("kubelive.dev", "v1", "Widget")
    );
    let authz = get(p, "/apis/authorization.k8s.io/v1", &[]).json();
    assert_eq!(
        authz["resources"],
        json!([
            {"name": "selfsubjectaccessreviews", "singularName": "selfsubjectaccessreview", "namespaced": false, "kind": "SelfSubjectAccessReview", "verbs": ["create"]},
            {"name": "selfsubjectrulesreviews", "singularName": "selfsubjectrulesreview", "namespaced": false, "kind": "SelfSubjectRulesReview", "verbs": ["create"]}
        ])
    );
    let groups = get(p, "/apis", &[]).json();
    let group_names: Vec<&str> = groups["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        group_names,
        [
            "apps",
            "authorization.k8s.io",
            // kube-aggregator's apiVersionPriorities: batch 17400, after authorization.
            "batch",
            "apiextensions.k8s.io",
            "coordination.k8s.io",
            "kubelive.dev"
        ]
    );
    assert_eq!(get(p, "/apis/apps", &[]).json()["kind"], "APIGroup");

    // Aggregated, as kubectl asks for it.
    let agg = get(p, "/apis", &[("Accept", KUBECTL_DISCOVERY)]);
    assert_eq!(agg.status, 200);
    assert_eq!(
        agg.header("content-type"),
        Some("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
    );
    assert_eq!(agg.header("vary"), Some("Accept"));
    assert_eq!(agg.header("cache-control"), Some("public"));
    let etag = agg.header("etag").unwrap().to_string();
    assert!(
        etag.len() == 130 && etag.starts_with('"') && etag.ends_with('"'),
        "{etag}"
    );
    let v = agg.json();
    assert_eq!(v["apiVersion"], "apidiscovery.k8s.io/v2");
    assert_eq!(v["metadata"], json!({}));
    let items = v["items"].as_array().unwrap();
    assert_eq!(
        items[0]["metadata"],
        json!({"name": "apps", "creationTimestamp": null})
    );
    assert_eq!(
        items[0]["versions"][0]["resources"][0],
        json!({"resource": "deployments", "responseKind": {"group": "", "version": "", "kind": "Deployment"},
               "scope": "Namespaced", "singularResource": "deployment", "verbs": ["get", "list", "watch"],
               "shortNames": ["deploy"], "categories": ["all"]})
    );
    assert_eq!(items[0]["versions"][0]["freshness"], "Current");
    assert_eq!(
        items[5]["versions"][0]["resources"][0]["responseKind"],
        json!({"group": "kubelive.dev", "version": "v1", "kind": "Widget"})
    );
    let not_modified = get(
        p,
        "/apis",
        &[("Accept", KUBECTL_DISCOVERY), ("If-None-Match", &etag)],
    );
    assert_eq!(not_modified.status, 304);
    assert!(not_modified.body.is_empty());
    let beta = get(
        p,
        "/api",
        &[(
            "Accept",
            "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
        )],
    );
    assert_eq!(
        beta.header("content-type"),
        Some("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList")
    );
    let beta = beta.json();
    assert_eq!(beta["apiVersion"], "apidiscovery.k8s.io/v2beta1");
    assert_eq!(beta["items"].as_array().unwrap().len(), 1);
    assert_eq!(
        beta["items"][0]["metadata"],
        json!({"creationTimestamp": null})
    );

    // Honest: everything discovery says can be listed and watched, can be.
    for item in get(p, "/api", &[("Accept", KUBECTL_DISCOVERY)]).json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .chain(items)
    {
        let group = item["metadata"]["name"].as_str().unwrap_or("");
        for r in item["versions"][0]["resources"].as_array().unwrap() {
            if !r["verbs"].as_array().unwrap().contains(&json!("list")) {
                continue;
            }
            let prefix = if group.is_empty() {
                "/api/v1".to_string()
            } else {
                format!("/apis/{group}/v1")
            };
            let path = format!("{prefix}/{}", r["resource"].as_str().unwrap());
            let list = get(p, &path, &[]);
            assert_eq!(list.status, 200, "{path}");
            let w = get(p, &format!("{path}?watch=true&timeoutSeconds=1"), &[]);
            assert_eq!(w.status, 200, "{path} watch");
        }
    }
}

/// Permissions. `responsewriters/errors.go` (`ForbiddenStatusError`, `forbiddenMessage`),
/// `apierrors.NewForbidden` (details without empty fields), RBAC evaluation
/// (`plugin/pkg/auth/authorizer/rbac`), the bootstrap roles (discovery readable), and the
/// review APIs (`pkg/registry/authorization/selfsubject*review/rest.go`: 201, the request
/// echoed with a status).
#[test]
fn rbac_mode() {
    let rules = parse_allow("list,watch:pods@ns-0,ns-1").unwrap();
    let s = sim(30, Policy::restricted("jane@example.com", &rules));
    let p = port(&s);
    assert_eq!(get(p, "/api/v1/namespaces/ns-0/pods", &[]).status, 200);
    assert_eq!(
        get(
            p,
            "/api/v1/namespaces/ns-1/pods?watch=true&timeoutSeconds=1",
            &[]
        )
        .status,
        200
    );
    let forbidden = |path: &str| {
        let r = get(p, path, &[]);
        assert_eq!(r.status, 403, "{path}");
        assert!(
            r.header("audit-id").is_some() && r.header("x-kubernetes-pf-flowschema-uid").is_some()
        );
        r.text()
    };
    assert_eq!(
        forbidden("/api/v1/namespaces/ns-2/pods"),
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"pods is forbidden: User \\\"jane@example.com\\\" cannot list resource \\\"pods\\\" in API group \\\"\\\" in the namespace \\\"ns-2\\\"\",\"reason\":\"Forbidden\",\"details\":{\"kind\":\"pods\"},\"code\":403}\n"
    );
    assert_eq!(
        forbidden("/api/v1/pods"),
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"pods is forbidden: User \\\"jane@example.com\\\" cannot list resource \\\"pods\\\" in API group \\\"\\\" at the cluster scope\",\"reason\":\"Forbidden\",\"details\":{\"kind\":\"pods\"},\"code\":403}\n"
    );
    let v: Value = serde_json::from_str(&forbidden("/api/v1/namespaces")).unwrap();
    assert_eq!(v["message"], "namespaces is forbidden: User \"jane@example.com\" cannot list resource \"namespaces\" in API group \"\" at the cluster scope");
    let v: Value =
        serde_json::from_str(&forbidden("/api/v1/namespaces/ns-2/pods?watch=1")).unwrap();
    assert_eq!(v["message"], "pods is forbidden: User \"jane@example.com\" cannot watch resource \"pods\" in API group \"\" in the namespace \"ns-2\"");
    let v: Value = serde_json::from_str(&forbidden("/api/v1/namespaces/ns-0/pods/web-1")).unwrap();
    assert_eq!(v["message"], "pods \"web-1\" is forbidden: User \"jane@example.com\" cannot get resource \"pods\" in API group \"\" in the namespace \"ns-0\"");
    assert_eq!(v["details"], json!({"name": "web-1", "kind": "pods"}));
    let v: Value = serde_json::from_str(&forbidden("/apis/apps/v1/deployments")).unwrap();
    assert_eq!(
        v["details"],
        json!({"group": "apps", "kind": "deployments"})
    );
    // Unknown resources are forbidden before they are unknown, as on a real cluster.
    let v: Value = serde_json::from_str(&forbidden("/api/v1/nothing")).unwrap();
    assert_eq!(v["reason"], "Forbidden");
    let v: Value = serde_json::from_str(&forbidden("/metrics")).unwrap();
    assert_eq!(
        v["message"],
        "forbidden: User \"jane@example.com\" cannot get path \"/metrics\""
    );
    // Discovery stays readable (system:discovery).
    for path in [
        "/api",
        "/apis",
        "/api/v1",
        "/apis/apps",
        "/apis/apps/v1",
        "/version",
        "/healthz",
    ] {
        assert_eq!(get(p, path, &[]).status, 200, "{path}");
    }
    assert_eq!(
        get(p, "/apis", &[("Accept", KUBECTL_DISCOVERY)]).status,
        200
    );

    let review = |path: &str, body: &str| {
        let mut c = Client::connect(p);
        c.send(
            "POST",
            path,
            &[("Content-Type", "application/json")],
            body.as_bytes(),
        );
        c.read(false)
    };
    let ssar = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
    let r = review(
        ssar,
        r#"{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"creationTimestamp":null},"spec":{"resourceAttributes":{"namespace":"ns-0","verb":"watch","resource":"pods"}},"status":{"allowed":false}}"#,
    );
    assert_eq!(r.status, 201);
    assert_eq!(
        r.json()["status"],
        json!({"allowed": true, "reason": "RBAC: allowed by RoleBinding \"kubelive-sim:0/ns-0\" of ClusterRole \"kubelive-sim:0\" to User \"jane@example.com\""})
    );
    let r = review(
        ssar,
        r#"{"spec":{"resourceAttributes":{"verb":"list","resource":"namespaces"}}}"#,
    );
    assert_eq!(
        (r.status, r.json()["status"].clone()),
        (201, json!({"allowed": false}))
    );
    let r = review(
        ssar,
        r#"{"spec":{"nonResourceAttributes":{"path":"/api","verb":"get"}}}"#,
    );
    assert_eq!(r.json()["status"]["allowed"], true);
    let r = review(ssar, r#"{"spec":{}}"#);
    assert_eq!(r.status, 422);
    let r = review(ssar, "not json");
    assert_eq!(r.status, 400);
    let r = review(
        "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
        r#"{"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1","spec":{"namespace":"ns-1"}}"#,
    );
    assert_eq!(r.status, 201);
    let v = r.json();
    assert_eq!(v["kind"], "SelfSubjectRulesReview");
    assert!(v["status"]["resourceRules"]
        .as_array()
        .unwrap()
        .contains(&json!({"verbs": ["list", "watch"], "apiGroups": [""], "resources": ["pods"]})));
    assert!(v["status"]["nonResourceRules"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["nonResourceURLs"]
            .as_array()
            .unwrap()
            .contains(&json!("/apis/*"))));
    assert_eq!(v["status"]["incomplete"], false);
}

/// `/metrics`: what each client cost, in kube-apiserver's metric names where it has them
/// (`apiserver_request_total`, `apiserver_storage_list_total` for LISTs from etcd,
/// `apiserver_cache_list_total` for LISTs from the watch cache, as `shouldDelegateList` in
/// staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go (1.32; delegator.go from
/// 1.33) decides with ConsistentListFromCache on) and the sim's own for bytes, watch events and lists from
/// nothing. The bill bench (`cargo xtask bench --only bill`) reads these.
#[test]
fn metrics_count_requests_reads_and_bytes() {
    let s = sim(30, Policy::admin());
    let p = port(&s);
    let first = get(p, "/api/v1/pods?limit=10", &[]);
    assert_eq!(first.status, 200);
    let token = first.json()["metadata"]["continue"]
        .as_str()
        .expect("more pods")
        .to_string();
    let next = get(p, &format!("/api/v1/pods?limit=10&continue={token}"), &[]);
    assert_eq!(next.status, 200);
    assert_eq!(get(p, "/api/v1/pods?resourceVersion=0", &[]).status, 200);
    assert_eq!(get(p, "/api/v1/pods?limit=x", &[]).status, 400);
    let mut watch = Client::connect(p);
    watch.send(
        "GET",
        "/api/v1/pods?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1",
        &[],
        b"",
    );
    let streamed = watch.read(false);
    assert_eq!(streamed.status, 200);
    let events = streamed.body.iter().filter(|b| **b == b'\n').count();
    let metrics = get(p, "/metrics", &[]);
    assert_eq!(metrics.status, 200);
    assert_eq!(
        metrics.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    let text = metrics.text();
    let value = |series: &str| -> i64 {
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("no {series} in\n{text}"))
    };
    assert_eq!(
        value(r#"apiserver_request_total{verb="LIST",resource="pods",code="200"}"#),
        3
    );
    assert_eq!(
        value(r#"apiserver_request_total{verb="LIST",resource="pods",code="400"}"#),
        1
    );
    assert_eq!(
        value(r#"apiserver_request_total{verb="WATCH",resource="pods",code="200"}"#),
        1
    );
    // The continue page from etcd; the first page (a consistent read) and rv=0 from the cache.
    assert_eq!(value(r#"apiserver_storage_list_total{resource="pods"}"#), 1);
    assert_eq!(value(r#"apiserver_cache_list_total{resource="pods"}"#), 2);
    assert_eq!(
        value(r#"kubelive_sim_initial_lists_total{resource="pods",how="list"}"#),
        2
    );
    assert_eq!(
        value(r#"kubelive_sim_initial_lists_total{resource="pods",how="streaming"}"#),
        1
    );
    assert_eq!(
        value(r#"kubelive_sim_watch_events_total{resource="pods"}"#),
        events as i64
    );
    assert!(events > 30, "the initial events and a bookmark: {events}");
    let list_bytes = (first.body.len() + next.body.len()) as i64;
    let sent = value(r#"kubelive_sim_sent_bytes_total{verb="LIST",resource="pods"}"#);
    assert!(
        sent > list_bytes,
        "headers and bodies: {sent} > {list_bytes}"
    );
    let watch_sent = value(r#"kubelive_sim_sent_bytes_total{verb="WATCH",resource="pods"}"#);
    assert!(watch_sent > streamed.body.len() as i64);
}
