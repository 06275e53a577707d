//! What the engine asks the driver to fetch: one GET at a time, path and query built
//! here so no driver ever decides a protocol parameter.

use std::fmt;

/// Identifies one request; feeds for an id the engine has moved past are ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub u64);

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestKind {
    /// One page of a LIST (1-based).
    List { page: u32 },
    /// A WATCH from a version the engine holds the state of.
    Watch,
    /// A streaming list: initial state as ADDED events, then live changes.
    StreamingList,
}

/// A GET for the driver to carry out against its base URL (e.g. `http://127.0.0.1:8001`).
/// Bodies of watches and streaming lists are long-lived: no read timeout on them.
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
pub struct Request {
    pub id: RequestId,
    pub kind: RequestKind,
    /// Path and query, e.g. `/api/v1/pods?limit=500`.
    pub path: String,
    /// The `Accept` header to send: [`crate::table::TABLE_ACCEPT`] while the engine
    /// asks for tables, else `application/json`.
    pub accept: &'static str,
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GET {}", self.path)
    }
}

/// A Kubernetes collection: `/api/v1/pods`, `/api/v1/namespaces/x/pods`,
/// `/apis/apps/v1/deployments`, `/apis/<group>/<version>/[namespaces/x/]<plural>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collection {
    /// `/api/v1` or `/apis/<group>/<version>`.
    prefix: String,
    namespace: Option<String>,
    resource: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectionError {
    pub path: String,
    pub why: &'static str,
}

impl fmt::Display for CollectionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} is not a collection path: {}", self.path, self.why)
    }
}

impl std::error::Error for CollectionError {}

impl Collection {
    pub fn parse(path: &str) -> Result<Collection, CollectionError> {
        let err = |why| CollectionError {
            path: path.to_string(),
            why,
        };
        let trimmed = path.trim_end_matches('/');
        if trimmed.contains(['?', '#', ' ']) {
            return Err(err("it must be a path without query or spaces"));
        }
        let parts: Vec<&str> = trimmed.split('/').collect();
        // parts[0] is "" (leading slash).
        let (prefix_len, rest) = match parts.as_slice() {
            ["", "api", v, rest @ ..] if !v.is_empty() => (3, rest),
            ["", "apis", g, v, rest @ ..] if !g.is_empty() && !v.is_empty() => (4, rest),
            _ => {
                return Err(err(
                    "expected /api/<version>/... or /apis/<group>/<version>/...",
                ))
            }
        };
        if rest.iter().any(|p| p.is_empty()) {
            return Err(err("it has an empty segment"));
        }
        let prefix = parts[..prefix_len].join("/");
        match rest {
            [resource] => Ok(Collection {
                prefix,
                namespace: None,
                resource: resource.to_string(),
            }),
            ["namespaces", ns, resource] => Ok(Collection {
                prefix,
                namespace: Some(ns.to_string()),
                resource: resource.to_string(),
            }),
            [] => Err(err("it names an API version, not a resource")),
            _ => Err(err("it names a single object or a subresource")),
        }
    }

    /// Builds a collection from its parts (prefix `/api/v1` or `/apis/g/v`).
    pub fn new(prefix: &str, namespace: Option<&str>, resource: &str) -> Collection {
        Collection {
            prefix: prefix.trim_end_matches('/').to_string(),
            namespace: namespace.map(str::to_string),
            resource: resource.to_string(),
        }
    }

    /// The same resource in one namespace (`Some`) or across all (`None`).
    pub fn with_namespace(mut self, namespace: Option<&str>) -> Collection {
        self.namespace = namespace.map(str::to_string);
        self
    }

    pub fn resource(&self) -> &str {
        &self.resource
    }

    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The collection's path, without query.
    pub fn path(&self) -> String {
        match &self.namespace {
            Some(ns) => format!(
                "{}/namespaces/{}/{}",
                self.prefix,
                encode_path_segment(ns),
                self.resource
            ),
            None => format!("{}/{}", self.prefix, self.resource),
        }
    }
}

impl fmt::Display for Collection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path())
    }
}

/// A query string under construction; values are percent-encoded.
pub(crate) struct Query(String);

impl Query {
    pub(crate) fn new(path: String) -> Query {
        Query(path)
    }

    pub(crate) fn param(mut self, key: &str, value: &str) -> Query {
        self.0.push(if self.0.contains('?') { '&' } else { '?' });
        self.0.push_str(key);
        self.0.push('=');
        encode_into(value, &mut self.0);
        self
    }

    pub(crate) fn opt(self, key: &str, value: Option<&str>) -> Query {
        match value {
            Some(v) => self.param(key, v),
            None => self,
        }
    }

    pub(crate) fn finish(self) -> String {
        self.0
    }
}

fn encode_into(value: &str, out: &mut String) {
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

fn encode_path_segment(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    encode_into(value, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_core_group_and_namespaced_paths() {
        let c = Collection::parse("/api/v1/pods").unwrap();
        assert_eq!(
            (c.prefix(), c.namespace(), c.resource()),
            ("/api/v1", None, "pods")
        );
        let c = Collection::parse("/apis/apps/v1/namespaces/x/deployments/").unwrap();
        assert_eq!(
            (c.prefix(), c.namespace(), c.resource()),
            ("/apis/apps/v1", Some("x"), "deployments")
        );
        assert_eq!(c.path(), "/apis/apps/v1/namespaces/x/deployments");
        let c = Collection::parse("/api/v1/namespaces").unwrap();
        assert_eq!(c.resource(), "namespaces");
        let crd = Collection::parse("/apis/kubelive.dev/v1/widgets")
            .unwrap()
            .with_namespace(Some("team-a"));
        assert_eq!(
            crd.path(),
            "/apis/kubelive.dev/v1/namespaces/team-a/widgets"
        );
    }

    #[test]
    fn rejects_what_is_not_a_collection() {
        for bad in [
            "pods",
            "/api/v1",
            "/api/v1/namespaces/x",
            "/api/v1/namespaces/x/pods/p",
            "/api/v1/pods?watch=1",
            "/apis/apps",
            "/api//pods",
        ] {
            assert!(Collection::parse(bad).is_err(), "{bad} should be rejected");
        }
    }

    #[test]
    fn query_values_are_percent_encoded() {
        let q = Query::new("/api/v1/pods".into())
            .param("labelSelector", "app in (a,b),!tier")
            .param("fieldSelector", "status.phase=Running")
            .finish();
        assert_eq!(
            q,
            "/api/v1/pods?labelSelector=app%20in%20%28a%2Cb%29%2C%21tier&fieldSelector=status.phase%3DRunning"
        );
    }
}
