//! The view's state in the URL hash, so views can be bookmarked and shared:
//! `#r=v1/pods&ns=default&l=app%3Dweb&f=status.phase%3DRunning&q=web&sort=-restarts&sel=default/web-1&open=1`
//! (`&stream=1`: streaming list; `&wide=1`: every column the server prints;
//! `&pipeline=0`: each LIST page asked for after the previous one ended, for
//! measuring what pipelined pages save; `&view=tree`: each object over what it owns,
//! the owner tree of every row).
//!
//! `l` and `f` are the label and field selectors sent to the server, `q` the free
//! text filtered in the browser. `q` is read with the filter box's syntax, so an old
//! link with `q=app%3Dweb` still selects server-side.

use crate::app::query::{is_dns_label, is_dns_subdomain, Query};

/// What the user is looking at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewState {
    /// `v1/pods`, `apps/v1/deployments`, `<group>/<version>/<plural>` (checked against
    /// discovery before use).
    pub resource: String,
    /// `None`: all namespaces.
    pub namespace: Option<String>,
    pub query: Query,
    /// `name`, `-restarts` (see `kubelive_table::Sort`).
    pub sort: String,
    /// Sync with a streaming list (`sendInitialEvents`) instead of paginated LIST.
    pub streaming: bool,
    /// LIST pages pipelined (the engine's default); `&pipeline=0` turns it off.
    pub pipeline: bool,
    /// The selected row, `namespace/name` (`/name` when cluster-scoped).
    pub selected: Option<String>,
    /// The detail panel of the selected row is open.
    pub open: bool,
    /// Every column the server prints, not only priority 0 (`kubectl get -o wide`).
    pub wide: bool,
    /// The rows as roots of their owner trees (`view=tree`), not as a table.
    pub tree: bool,
}

impl Default for ViewState {
    fn default() -> Self {
        ViewState {
            resource: "v1/pods".to_string(),
            namespace: None,
            query: Query::default(),
            sort: "name".to_string(),
            streaming: false,
            pipeline: true,
            selected: None,
            open: false,
            wide: false,
            tree: false,
        }
    }
}

/// Joins two selectors with `,` (AND).
fn and(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a},{b}"),
    }
}

impl ViewState {
    /// Reads a hash (with or without the leading `#`); unknown keys are ignored.
    pub fn from_hash(hash: &str) -> ViewState {
        let mut v = ViewState::default();
        let hash = hash.strip_prefix('#').unwrap_or(hash);
        let hash = hash.strip_prefix('/').unwrap_or(hash);
        let hash = hash.strip_prefix('?').unwrap_or(hash);
        let (mut label, mut field, mut text) = (String::new(), String::new(), String::new());
        for pair in hash.split('&').filter(|p| !p.is_empty()) {
            let (k, val) = pair.split_once('=').unwrap_or((pair, ""));
            let val = decode(val);
            match k {
                "r" if !val.is_empty() => v.resource = val,
                "ns" if !val.is_empty() => v.namespace = Some(val),
                "l" => label = val,
                "f" => field = val,
                "q" => text = val,
                "sort" if !val.is_empty() => v.sort = val,
                "stream" => v.streaming = val == "1",
                "pipeline" => v.pipeline = val != "0",
                "sel" if !val.is_empty() => v.selected = Some(val),
                "open" => v.open = val == "1",
                "wide" => v.wide = val == "1",
                "view" => v.tree = val == "tree",
                _ => {}
            }
        }
        let typed = Query::split(&text);
        v.query = Query {
            label: and(&label, &typed.label),
            field: and(&field, &typed.field),
            words: typed.words,
        };
        v
    }

    pub fn to_hash(&self) -> String {
        let mut out = format!("#r={}", encode(&self.resource));
        let mut add = |k: &str, v: &str| {
            out.push('&');
            out.push_str(k);
            out.push('=');
            out.push_str(&encode(v));
        };
        if let Some(ns) = &self.namespace {
            add("ns", ns);
        }
        if !self.query.label.is_empty() {
            add("l", &self.query.label);
        }
        if !self.query.field.is_empty() {
            add("f", &self.query.field);
        }
        if !self.query.words.is_empty() {
            add("q", &self.query.words.join(" "));
        }
        if self.sort != "name" {
            add("sort", &self.sort);
        }
        if self.streaming {
            add("stream", "1");
        }
        if !self.pipeline {
            add("pipeline", "0");
        }
        if self.wide {
            add("wide", "1");
        }
        if self.tree {
            add("view", "tree");
        }
        if let Some(sel) = &self.selected {
            add("sel", sel);
            if self.open {
                add("open", "1");
            }
        }
        out
    }

    /// The API prefix and plural of the resource: (`/api/v1`, `pods`), if the
    /// resource is well formed (see [`check_resource`]).
    pub fn api(&self) -> Option<(String, String)> {
        check_resource(&self.resource).ok()?;
        let parts: Vec<&str> = self.resource.split('/').collect();
        match parts.as_slice() {
            [v, plural] => Some((format!("/api/{v}"), plural.to_string())),
            [g, v, plural] => Some((format!("/apis/{g}/{v}"), plural.to_string())),
            _ => None,
        }
    }

    /// Why the namespace cannot be used in a path, if it cannot.
    pub fn namespace_problem(&self) -> Option<String> {
        let ns = self.namespace.as_deref()?;
        (!is_dns_label(ns)).then(|| {
            format!(
                "{ns:?} is not a namespace name (lowercase letters, digits and '-', at most 63)"
            )
        })
    }
}

/// A resource id is `version/plural` (core) or `group/version/plural`, each part a
/// DNS name: anything else (`..`, `%2F`, an empty part) would put an arbitrary path
/// into a request.
pub fn check_resource(id: &str) -> Result<(), String> {
    let parts: Vec<&str> = id.split('/').collect();
    let ok = match parts.as_slice() {
        [v, plural] => is_dns_label(v) && is_dns_label(plural),
        [g, v, plural] => is_dns_subdomain(g) && is_dns_label(v) && is_dns_label(plural),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{id:?} is not a resource: expected version/plural (v1/pods) or group/version/plural (apps/v1/deployments)"
        ))
    }
}

fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 3 <= b.len() => {
                match u8::from_str_radix(s.get(i + 1..i + 3).unwrap_or(""), 16) {
                    Ok(v) => {
                        out.push(v);
                        i += 3;
                    }
                    Err(_) => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(label: &str, field: &str, words: &[&str]) -> Query {
        Query {
            label: label.into(),
            field: field.into(),
            words: words.iter().map(|w| w.to_string()).collect(),
        }
    }

    #[test]
    fn round_trips_through_the_hash() {
        let v = ViewState {
            resource: "apps/v1/deployments".into(),
            namespace: Some("team-a".into()),
            query: query(
                "env in (a,b),tier!=db",
                "status.phase=Running",
                &["web", "<b>&x"],
            ),
            sort: "-age".into(),
            streaming: true,
            pipeline: false,
            selected: Some("team-a/web-1".into()),
            open: true,
            wide: true,
            tree: true,
        };
        let h = v.to_hash();
        assert_eq!(
            h,
            "#r=apps/v1/deployments&ns=team-a&l=env%20in%20%28a%2Cb%29%2Ctier%21%3Ddb\
             &f=status.phase%3DRunning&q=web%20%3Cb%3E%26x&sort=-age&stream=1\
             &pipeline=0&wide=1&view=tree&sel=team-a/web-1&open=1"
        );
        assert_eq!(ViewState::from_hash(&h), v);
        assert_eq!(ViewState::from_hash(""), ViewState::default());
        assert_eq!(ViewState::from_hash("#q=%zz%4").query.words, ["%zz%4"]);
        // A cluster-scoped selection; no `open` without a selection.
        let v = ViewState {
            selected: Some("/ns-1".into()),
            ..ViewState::default()
        };
        assert_eq!(ViewState::from_hash(&v.to_hash()), v);
        let v = ViewState {
            open: true,
            ..ViewState::default()
        };
        assert_eq!(v.to_hash(), "#r=v1/pods");
        // The table is the default view; an unknown view is the table.
        assert!(!ViewState::from_hash("#r=v1/pods&view=table").tree);
        assert!(!ViewState::from_hash("#r=v1/pods&view=graph").tree);
        assert!(ViewState::from_hash("#view=tree&r=apps/v1/deployments&ns=shop").tree);
    }

    #[test]
    fn the_free_text_key_reads_selector_terms_too() {
        // Links from before `l`/`f` existed: `q=app=web` asked for a label match.
        let v = ViewState::from_hash("#r=v1/pods&q=app%3Dweb%20api&l=tier%3Dbackend");
        assert_eq!(v.query, query("tier=backend,app=web", "", &["api"]));
        let v = ViewState::from_hash("#q=field%3Astatus.phase%3DRunning");
        assert_eq!(v.query, query("", "status.phase=Running", &[]));
        assert_eq!(ViewState::from_hash(&v.to_hash()), v);
    }

    #[test]
    fn resources_map_to_api_prefixes() {
        let mut v = ViewState::default();
        assert_eq!(v.api(), Some(("/api/v1".into(), "pods".into())));
        v.resource = "kubelive.dev/v1/widgets".into();
        assert_eq!(
            v.api(),
            Some(("/apis/kubelive.dev/v1".into(), "widgets".into()))
        );
        v.resource = "bad".into();
        assert_eq!(v.api(), None);
    }

    #[test]
    fn resource_ids_that_would_leave_the_api_are_rejected() {
        for bad in [
            "../../x",
            "v1/../x",
            "v1/pods/x/y",
            "/v1/pods",
            "v1/",
            "apps/v1/deployments?watch=true",
            "apps/v1/a%2Fb",
            "Apps/v1/deployments",
            "v1/pods#x",
        ] {
            assert!(check_resource(bad).is_err(), "{bad}");
            let v = ViewState {
                resource: bad.into(),
                ..ViewState::default()
            };
            assert_eq!(v.api(), None, "{bad}");
        }
        // As it arrives from a hash: `#r=..%2F..%2Fx`.
        let v = ViewState::from_hash("#r=..%2F..%2Fx");
        assert_eq!(v.resource, "../../x");
        assert_eq!(v.api(), None);
        assert!(check_resource("v1/pods").is_ok());
        assert!(check_resource("kubelive.dev/v1alpha1/widgets").is_ok());
    }

    #[test]
    fn namespaces_from_the_hash_are_names() {
        let v = ViewState::from_hash("#ns=..%2Fx");
        assert!(v.namespace_problem().is_some());
        assert!(ViewState::from_hash("#ns=team-a")
            .namespace_problem()
            .is_none());
        assert!(ViewState::default().namespace_problem().is_none());
    }
}
