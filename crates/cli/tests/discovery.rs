//! Resource names resolved through discovery documents recorded in fixtures.

use kubelive::discovery::{resolve, DiscoveryError, Resolved};
use serde_json::Value;
use std::cell::RefCell;

fn fixtures() -> Value {
    serde_json::from_str(include_str!("fixtures/discovery.json")).unwrap()
}

/// Resolves `q` against the fixtures; also returns the paths fetched.
fn res(q: &str) -> (Result<Resolved, DiscoveryError>, Vec<String>) {
    let docs = fixtures();
    let fetched = RefCell::new(Vec::new());
    let mut fetch = |path: &str| -> Result<Option<String>, DiscoveryError> {
        fetched.borrow_mut().push(path.to_string());
        Ok(docs.get(path).map(Value::to_string))
    };
    let r = resolve(q, &mut fetch);
    (r, fetched.into_inner())
}

fn path(q: &str) -> String {
    match res(q).0 {
        Ok(r) => format!("{}/{} ns={}", r.prefix, r.resource, r.namespaced),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn core_names_singular_and_short_names() {
    for q in ["pods", "pod", "po", "Pod", "PODS"] {
        assert_eq!(path(q), "/api/v1/pods ns=true", "{q}");
    }
    assert_eq!(path("ns"), "/api/v1/namespaces ns=false");
    assert_eq!(path("nodes"), "/api/v1/nodes ns=false");
    assert_eq!(path("svc"), "/api/v1/services ns=true");
}

#[test]
fn groups_and_qualified_names() {
    for q in [
        "deploy",
        "deployment",
        "deployments",
        "deployments.apps",
        "deploy.apps",
        "deployments.v1.apps",
        "Deployment",
    ] {
        assert_eq!(path(q), "/apis/apps/v1/deployments ns=true", "{q}");
    }
    // The core group wins an unqualified name, as in kubectl.
    assert_eq!(path("events"), "/api/v1/events ns=true");
    assert_eq!(
        path("events.events.k8s.io"),
        "/apis/events.k8s.io/v1/events ns=true"
    );
    assert_eq!(path("pods.v1"), "/api/v1/pods ns=true");
}

#[test]
fn preferred_version_first_then_others() {
    assert_eq!(
        path("hpa"),
        "/apis/autoscaling/v2/horizontalpodautoscalers ns=true"
    );
    assert_eq!(
        path("horizontalpodautoscalers.v1.autoscaling"),
        "/apis/autoscaling/v1/horizontalpodautoscalers ns=true"
    );
    assert_eq!(path("widgets"), "/apis/example.com/v1beta1/widgets ns=true");
    assert_eq!(path("wg"), "/apis/example.com/v1beta1/widgets ns=true");
    // Only in a non-preferred version.
    assert_eq!(
        path("gadgets"),
        "/apis/example.com/v1alpha1/gadgets ns=false"
    );
}

#[test]
fn short_names_do_not_fetch_every_version() {
    let (r, fetched) = res("po");
    assert!(r.is_ok());
    assert!(
        !fetched.iter().any(|p| p.contains("v1alpha1")),
        "{fetched:?}"
    );
}

#[test]
fn unknown_subresources_and_unwatchable_resources() {
    assert_eq!(
        path("nope"),
        "error: the server doesn't have a resource type \"nope\""
    );
    assert!(path("pods/log").starts_with("error:"));
    assert!(path("log").starts_with("error:"));
    assert!(path("deployments.nosuchgroup").starts_with("error:"));
    let e = path("bindings");
    assert!(e.contains("cannot be watched"), "{e}");
}

#[test]
fn fetch_errors_propagate() {
    let mut fetch = |_: &str| -> Result<Option<String>, DiscoveryError> {
        Err(DiscoveryError::Transient("cannot connect".into()))
    };
    assert_eq!(
        resolve("pods", &mut fetch),
        Err(DiscoveryError::Transient("cannot connect".into()))
    );
}
