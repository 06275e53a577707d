//! Resource names to collection paths, through API discovery as kubectl does it:
//! `/api` and `/apis` list the groups (with their preferred versions), `/api/v1` and
//! `/apis/<group>/<version>` list the resources (plural, singular, short names, kind,
//! namespaced, verbs).
//!
//! Resolution order: an exact plural or singular name in any group (core group first,
//! then the groups in the server's order, preferred versions first), then a short name,
//! then a kind. `name.group` and `name.version.group` restrict the group (and version).
//!
//! The documents are read by [`kubelive_kube::discovery`], as the browser app reads them.

use kubelive_kube::discovery::{self as docs, ApiResource};
use std::fmt;

/// A resource type found by discovery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// `/api/v1` or `/apis/<group>/<version>`.
    pub prefix: String,
    /// The plural, as in the collection path.
    pub resource: String,
    pub kind: String,
    pub namespaced: bool,
}

/// Why discovery failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiscoveryError {
    /// The server has no such resource type (exit 1).
    NoSuchResource(String),
    /// The server refused or sent something unusable (exit 1 after retries).
    Permanent(String),
    /// Worth retrying: cannot connect, 5xx, 429.
    Transient(String),
}

impl fmt::Display for DiscoveryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiscoveryError::NoSuchResource(m)
            | DiscoveryError::Permanent(m)
            | DiscoveryError::Transient(m) => f.write_str(m),
        }
    }
}

/// Fetches a discovery document's JSON text: `Ok(None)` for 404.
pub type Fetch<'a> = dyn FnMut(&str) -> Result<Option<String>, DiscoveryError> + 'a;

/// A document that is JSON but not the one asked for: the server is not a kube-apiserver
/// (or a proxy answered for it), which retrying does not change.
fn unreadable(path: &str, e: String) -> DiscoveryError {
    DiscoveryError::Permanent(format!("GET {path}: {e}"))
}

/// The groups with their versions, preferred first: the core group (`""`) first, then
/// the others in the server's order.
fn groups(fetch: &mut Fetch) -> Result<Vec<docs::Group>, DiscoveryError> {
    let mut out = Vec::new();
    if let Some(api) = fetch("/api")? {
        let mut versions = docs::parse_api_versions(&api).map_err(|e| unreadable("/api", e))?;
        if versions.is_empty() {
            versions.push("v1".into());
        }
        out.push(docs::Group {
            name: String::new(),
            versions,
        });
    }
    if let Some(apis) = fetch("/apis")? {
        out.extend(docs::parse_group_list(&apis).map_err(|e| unreadable("/apis", e))?);
    }
    Ok(out)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum How {
    Name,
    ShortName,
    Kind,
}

fn matches(r: &ApiResource, query: &str, how: How) -> bool {
    match how {
        How::Name => {
            r.resource.eq_ignore_ascii_case(query) || r.singular.eq_ignore_ascii_case(query)
        }
        How::ShortName => r.short_names.iter().any(|n| n.eq_ignore_ascii_case(query)),
        How::Kind => r.kind.eq_ignore_ascii_case(query),
    }
}

fn to_resolved(r: &ApiResource) -> Result<Resolved, DiscoveryError> {
    let prefix = r.prefix();
    // A resource list without verbs (servers before 1.6, some aggregated APIs) says
    // nothing against watching.
    let watchable = r.verbs.is_empty() || (r.can("list") && r.can("watch"));
    if !watchable {
        return Err(DiscoveryError::NoSuchResource(format!(
            "{prefix}/{} cannot be watched (its verbs are {})",
            r.resource,
            r.verbs.join(", ")
        )));
    }
    Ok(Resolved {
        resource: r.resource.clone(),
        kind: r.kind.clone(),
        namespaced: r.namespaced,
        prefix,
    })
}

/// One way to read the user's words: resource name, optional group, optional version.
struct Reading<'a> {
    name: &'a str,
    group: Option<&'a str>,
    version: Option<&'a str>,
}

fn readings(query: &str) -> Vec<Reading<'_>> {
    let mut out = Vec::new();
    match query.split_once('.') {
        None => out.push(Reading {
            name: query,
            group: None,
            version: None,
        }),
        Some((name, rest)) => {
            // deployments.v1.apps (resource.version.group), then deployments.apps.
            if let Some((version, group)) = rest.split_once('.') {
                if version.starts_with('v')
                    && version[1..].starts_with(|c: char| c.is_ascii_digit())
                {
                    out.push(Reading {
                        name,
                        group: Some(group),
                        version: Some(version),
                    });
                }
            }
            out.push(Reading {
                name,
                group: Some(rest),
                version: None,
            });
            // "v1" alone after the dot is the core group's version: pods.v1
            if rest.starts_with('v') && !rest.contains('.') {
                out.push(Reading {
                    name,
                    group: Some(""),
                    version: Some(rest),
                });
            }
        }
    }
    out
}

/// Resolves `query` (e.g. `po`, `deployments.apps`, `widgets`) to a resource type.
pub fn resolve(query: &str, fetch: &mut Fetch) -> Result<Resolved, DiscoveryError> {
    if query.is_empty() || query.contains(['/', '?', ' ']) {
        return Err(DiscoveryError::NoSuchResource(format!(
            "{query:?} is not a resource name"
        )));
    }
    let groups = groups(fetch)?;
    // Resource lists fetched so far, in search order: (prefix, resources).
    let mut lists: Vec<(String, Vec<ApiResource>)> = Vec::new();
    let mut fetched: Vec<String> = Vec::new();
    let mut get_list = |group: &str,
                        version: &str,
                        lists: &mut Vec<(String, Vec<ApiResource>)>,
                        fetch: &mut Fetch|
     -> Result<Option<usize>, DiscoveryError> {
        let p = docs::prefix(group, version);
        if let Some(i) = lists.iter().position(|(q, _)| *q == p) {
            return Ok(Some(i));
        }
        if fetched.contains(&p) {
            return Ok(None);
        }
        fetched.push(p.clone());
        let Some(doc) = fetch(&p)? else {
            return Ok(None);
        };
        let resources =
            docs::parse_resource_list(&doc, group, version).map_err(|e| unreadable(&p, e))?;
        lists.push((p, resources));
        Ok(Some(lists.len() - 1))
    };
    for reading in readings(query) {
        // Preferred versions first (every way of matching), then the others:
        // (group, version).
        let mut orders: [Vec<(&str, &str)>; 2] = [Vec::new(), Vec::new()];
        for g in &groups {
            if reading
                .group
                .is_some_and(|want| !want.eq_ignore_ascii_case(&g.name))
            {
                continue;
            }
            for (i, v) in g.versions.iter().enumerate() {
                let gv = (g.name.as_str(), v.as_str());
                match reading.version {
                    Some(want) if want == v => orders[0].push(gv),
                    Some(_) => {}
                    None => orders[usize::from(i != 0)].push(gv),
                }
            }
        }
        for order in &orders {
            for how in [How::Name, How::ShortName, How::Kind] {
                for &(group, version) in order {
                    let Some(i) = get_list(group, version, &mut lists, fetch)? else {
                        continue;
                    };
                    if let Some(r) = lists[i].1.iter().find(|r| matches(r, reading.name, how)) {
                        return to_resolved(r);
                    }
                }
            }
        }
    }
    Err(DiscoveryError::NoSuchResource(format!(
        "the server doesn't have a resource type {query:?}"
    )))
}
