//! Resource names to collection paths, through API discovery as kubectl does it:
//! `/api` and `/apis` list the groups (with their preferred versions), `/api/v1` and
//! `/apis/<group>/<version>` list the resources (plural, singular, short names, kind,
//! namespaced, verbs).
//!
//! Resolution order: an exact plural or singular name in any group (core group first,
//! then the groups in the server's order, preferred versions first), then a short name,
//! then a kind. `name.group` and `name.version.group` restrict the group (and version).

use serde_json::Value;
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

/// Fetches a discovery document: `Ok(None)` for 404.
pub type Fetch<'a> = dyn FnMut(&str) -> Result<Option<Value>, DiscoveryError> + 'a;

struct Group {
    name: String,
    /// Versions, the preferred one first.
    versions: Vec<String>,
}

fn groups(fetch: &mut Fetch) -> Result<Vec<Group>, DiscoveryError> {
    let mut out = Vec::new();
    if let Some(api) = fetch("/api")? {
        let mut versions: Vec<String> = api
            .get("versions")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        if versions.is_empty() {
            versions.push("v1".into());
        }
        out.push(Group {
            name: String::new(),
            versions,
        });
    }
    if let Some(apis) = fetch("/apis")? {
        for g in apis
            .get("groups")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(name) = g.get("name").and_then(Value::as_str) else {
                continue;
            };
            let preferred = g
                .pointer("/preferredVersion/version")
                .and_then(Value::as_str);
            let mut versions: Vec<String> = Vec::new();
            if let Some(p) = preferred {
                versions.push(p.to_string());
            }
            for v in g
                .get("versions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(v) = v.get("version").and_then(Value::as_str) {
                    if !versions.iter().any(|x| x == v) {
                        versions.push(v.to_string());
                    }
                }
            }
            out.push(Group {
                name: name.to_string(),
                versions,
            });
        }
    }
    Ok(out)
}

fn prefix(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("/api/{version}")
    } else {
        format!("/apis/{group}/{version}")
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum How {
    Name,
    ShortName,
    Kind,
}

fn matches(r: &Value, query: &str, how: How) -> bool {
    let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("");
    match how {
        How::Name => {
            s("name").eq_ignore_ascii_case(query) || s("singularName").eq_ignore_ascii_case(query)
        }
        How::ShortName => r
            .get("shortNames")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|n| n.as_str().is_some_and(|n| n.eq_ignore_ascii_case(query))),
        How::Kind => s("kind").eq_ignore_ascii_case(query),
    }
}

fn to_resolved(prefix: String, r: &Value) -> Result<Resolved, DiscoveryError> {
    let name = r.get("name").and_then(Value::as_str).unwrap_or_default();
    let verbs: Vec<&str> = r
        .get("verbs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let watchable = verbs.is_empty() || (verbs.contains(&"list") && verbs.contains(&"watch"));
    if !watchable {
        return Err(DiscoveryError::NoSuchResource(format!(
            "{prefix}/{name} cannot be watched (its verbs are {})",
            verbs.join(", ")
        )));
    }
    Ok(Resolved {
        resource: name.to_string(),
        kind: r
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        namespaced: r.get("namespaced").and_then(Value::as_bool).unwrap_or(true),
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
    let mut lists: Vec<(String, Vec<Value>)> = Vec::new();
    let mut fetched: Vec<String> = Vec::new();
    let mut get_list = |p: String,
                        lists: &mut Vec<(String, Vec<Value>)>,
                        fetch: &mut Fetch|
     -> Result<Option<usize>, DiscoveryError> {
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
        let resources: Vec<Value> = doc
            .get("resources")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter(|r| {
                        r.get("name")
                            .and_then(Value::as_str)
                            .is_some_and(|n| !n.contains('/'))
                    })
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        lists.push((p, resources));
        Ok(Some(lists.len() - 1))
    };
    for reading in readings(query) {
        // Preferred versions first (every way of matching), then the others.
        let mut orders: [Vec<String>; 2] = [Vec::new(), Vec::new()];
        for g in &groups {
            if reading
                .group
                .is_some_and(|want| !want.eq_ignore_ascii_case(&g.name))
            {
                continue;
            }
            for (i, v) in g.versions.iter().enumerate() {
                match reading.version {
                    Some(want) if want == v => orders[0].push(prefix(&g.name, v)),
                    Some(_) => {}
                    None => orders[usize::from(i != 0)].push(prefix(&g.name, v)),
                }
            }
        }
        for order in &orders {
            for how in [How::Name, How::ShortName, How::Kind] {
                for p in order {
                    let Some(i) = get_list(p.clone(), &mut lists, fetch)? else {
                        continue;
                    };
                    let (prefix, resources) = &lists[i];
                    if let Some(r) = resources.iter().find(|r| matches(r, reading.name, how)) {
                        return to_resolved(prefix.clone(), r);
                    }
                }
            }
        }
    }
    Err(DiscoveryError::NoSuchResource(format!(
        "the server doesn't have a resource type {query:?}"
    )))
}
