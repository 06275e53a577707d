//! What a custom resource's objects own. Its operator may make any of
//! [`ANY_OWNER_MAKES`]'s nine kinds: watching them all would take more connections
//! than a browser keeps to one server over HTTP/1.1 (six, to kubectl proxy) beside the
//! view's own. So the namespace is read once, one kind at a time (one connection),
//! a page of metadata at a time, until an object controlled by one of the custom
//! resource's objects is found or the kind is read to its end; only the kinds found
//! owned, and what their controllers make in turn, are watched. What a probe found is
//! kept for the page, per namespace and kind, for [`KEPT_MS`].
//!
//! A kind the user may not list is kept with the server's words, so that the level
//! it would fill says why; a kind the server does not serve owns nothing; a kind with
//! more objects than [`MAX_OBJECTS`] is left unread (the tree says so). A failure
//! that may pass (a 5xx, a 429, no answer) is asked again a few times; one that
//! stays says why in the tree like a refusal, and that read is not kept.

use super::{model, prefix};
use crate::app::fetch::fetch;
use kubelive_core::owners::{api_group, built_in, ANY_OWNER_MAKES};
use kubelive_core::Collection;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;

/// A kind as (group, kind, resource).
pub type Kind = (&'static str, &'static str, &'static str);

/// Objects asked for in one LIST page.
const PAGE: usize = 500;
/// Objects read of one kind at most: past it the kind is left unread, as a namespace
/// of that many is not one whose tree a browser should read whole to draw.
pub const MAX_OBJECTS: usize = 20_000;
/// A page's GET gives up after this long.
const TIMEOUT_MS: i32 = 30_000;
/// The waits before asking again after a failure that may pass (a 5xx, a 429, no
/// answer): a flaky proxy's error is not what the user may list.
const RETRY_MS: [i32; 4] = [250, 500, 1_000, 2_000];
/// How long what a read found is trusted: an operator may start making another kind,
/// and a tree started after this reads again.
const KEPT_MS: f64 = 5.0 * 60_000.0;
/// Metadata only where the server offers it (PartialObjectMetadataList), else a Table
/// (whose rows carry the objects' metadata by default), else the objects.
const ACCEPT: &str = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,\
application/json;as=Table;g=meta.k8s.io;v=v1,application/json";

/// What a probe found below a custom resource's kind in one namespace (or all).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// Kinds an object of the custom resource controls, and what their controllers
    /// make, each once, sorted: what is watched.
    pub watched: Vec<Kind>,
    /// Kinds the user may not list, with the server's words.
    pub refused: Vec<(Kind, String)>,
    /// Kinds with more than [`MAX_OBJECTS`] objects, left unread.
    pub unread: Vec<Kind>,
}

impl Found {
    /// From the kinds found controlled: those, and below each what a tree of it
    /// watches ([`model::watched_below`]: a Deployment's ReplicaSets and their Pods).
    fn from_owned(owned: &[Kind], refused: Vec<(Kind, String)>, unread: Vec<Kind>) -> Found {
        let mut watched: Vec<Kind> = Vec::new();
        for &k in owned {
            for w in std::iter::once(k).chain(model::watched_below(k.0, k.1)) {
                if !watched.contains(&w) {
                    watched.push(w);
                }
            }
        }
        watched.sort();
        // A kind reached from a watched one is watched (its engine says if refused).
        let refused = refused
            .into_iter()
            .filter(|(k, _)| !watched.contains(k))
            .collect();
        Found {
            watched,
            refused,
            unread,
        }
    }
}

/// Whether any object of a LIST page (a list of objects or of metadata, or a Table)
/// names an object of `(group, kind)` as its controller; and the page's continue
/// token (empty: the last page).
pub fn page_names_owner(page: &Value, group: &str, kind: &str) -> (bool, String) {
    let controlled = |metadata: &Value| {
        metadata["ownerReferences"].as_array().is_some_and(|refs| {
            refs.iter().any(|r| {
                r["controller"].as_bool() == Some(true)
                    && r["kind"].as_str() == Some(kind)
                    && r["apiVersion"].as_str().map(api_group) == Some(group)
            })
        })
    };
    let found = match (page["items"].as_array(), page["rows"].as_array()) {
        (Some(items), _) => items.iter().any(|o| controlled(&o["metadata"])),
        (None, Some(rows)) => rows.iter().any(|r| controlled(&r["object"]["metadata"])),
        (None, None) => false,
    };
    let next = page["metadata"]["continue"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    (found, next)
}

/// How one kind's read ended.
enum Read {
    Owned,
    NotOwned,
    /// The server said no (401, 403, 4xx): the user may not list it.
    Refused(String),
    /// Failed past the retries (5xx, no answer): not kept, a later tree reads again.
    Failed(String),
    Unread,
}

/// Reads `k` in `namespace` (None: all) until an object controlled by a
/// `(group, kind)` is found.
async fn read_kind(k: Kind, namespace: Option<&str>, group: &str, kind: &str) -> Read {
    let base = Collection::new(&prefix(k.0, "v1"), namespace, k.2).path();
    let mut next = String::new();
    let mut read = 0;
    // A continue token that expired (410) reads the kind again from the start, once.
    let mut restarts = 1;
    let mut retries = RETRY_MS.iter();
    loop {
        if read >= MAX_OBJECTS {
            return Read::Unread;
        }
        let mut path = format!("{base}?limit={PAGE}");
        if !next.is_empty() {
            path.push_str("&continue=");
            path.push_str(&String::from(js_sys::encode_uri_component(&next)));
        }
        let reply = fetch(&path, ACCEPT, None, TIMEOUT_MS).await;
        let passing = match &reply {
            Ok(r) => r.status == 429 || r.status >= 500,
            Err(_) => true,
        };
        if passing {
            if let Some(&ms) = retries.next() {
                crate::scope::sleep(ms).await;
                continue;
            }
        }
        let reply = match reply {
            Ok(r) => r,
            Err(why) => return Read::Failed(why),
        };
        match reply.status {
            200..=299 => {}
            404 => return Read::NotOwned,
            410 if restarts > 0 && !next.is_empty() => {
                restarts -= 1;
                next.clear();
                read = 0;
                continue;
            }
            429 | 500.. => return Read::Failed(reply.problem()),
            _ => return Read::Refused(reply.problem()),
        }
        let Ok(page) = serde_json::from_str::<Value>(&reply.body) else {
            return Read::Failed(format!(
                "the {} list is not JSON ({} bytes)",
                k.2,
                reply.body.len()
            ));
        };
        let (owned, token) = page_names_owner(&page, group, kind);
        if owned {
            return Read::Owned;
        }
        if token.is_empty() {
            return Read::NotOwned;
        }
        read += PAGE;
        next = token;
    }
}

/// What a tree says of kinds left unread, if any.
pub fn unread_note(unread: &[Kind]) -> Option<yew::AttrValue> {
    (!unread.is_empty()).then(|| {
        let names: Vec<&str> = unread.iter().map(|k| k.2).collect();
        format!(
            "Not looked through for what it owns (more than {},{:03} objects): {}.",
            MAX_OBJECTS / 1000,
            MAX_OBJECTS % 1000,
            names.join(", ")
        )
        .into()
    })
}

/// A probe's question: (namespace, group, kind).
type Asked = (Option<String>, String, String);

thread_local! {
    /// What probes found, and when (`performance.now()`).
    static FOUND: RefCell<HashMap<Asked, (Found, f64)>> = RefCell::new(HashMap::new());
}

/// What a tree watches below `(group, kind)` in `namespace` (None: all): for a
/// built-in kind, its controller's kinds, given at once; for a custom resource,
/// `Found` is read and handed to `later` (None now).
pub fn below(
    group: &str,
    kind: &str,
    namespace: Option<&str>,
    later: impl FnOnce(Found) + 'static,
) -> Option<Found> {
    if built_in(group) {
        return Some(Found {
            watched: model::watched_below(group, kind),
            ..Found::default()
        });
    }
    let (namespace, group, kind) = (
        namespace.map(str::to_string),
        group.to_string(),
        kind.to_string(),
    );
    wasm_bindgen_futures::spawn_local(async move {
        later(below_custom(namespace, group, kind).await);
    });
    None
}

/// What `(group, kind)`'s objects own in `namespace` (None: all), read once a page.
async fn below_custom(namespace: Option<String>, group: String, kind: String) -> Found {
    let key = (namespace.clone(), group.clone(), kind.clone());
    let now = crate::time::now_ms();
    let kept = FOUND.with(|f| f.borrow().get(&key).cloned());
    if let Some((found, _)) = kept.filter(|(_, at)| now - at < KEPT_MS) {
        return found;
    }
    let (mut owned, mut refused, mut unread) = (Vec::new(), Vec::new(), Vec::new());
    let mut failed = false;
    for &k in ANY_OWNER_MAKES {
        match read_kind(k, namespace.as_deref(), &group, &kind).await {
            Read::Owned => owned.push(k),
            Read::NotOwned => {}
            Read::Refused(why) => refused.push((k, why)),
            Read::Failed(why) => {
                failed = true;
                refused.push((k, why));
            }
            Read::Unread => unread.push(k),
        }
    }
    let found = Found::from_owned(&owned, refused, unread);
    if !failed {
        FOUND.with(|f| f.borrow_mut().insert(key, (found.clone(), now)));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn widget_ref(controller: bool) -> Value {
        json!({"apiVersion": "kubelive.dev/v1", "kind": "Widget", "name": "w",
               "uid": "u", "controller": controller})
    }

    /// A list of objects, of metadata and a Table's rows are all read; only a
    /// controller reference of the kind and group counts; the continue token comes back.
    #[test]
    fn a_page_names_its_controllers_in_any_list_shape() {
        let objects = json!({"kind": "DeploymentList", "metadata": {"continue": "abc"},
            "items": [{"metadata": {"name": "a"}},
                      {"metadata": {"name": "b", "ownerReferences": [widget_ref(true)]}}]});
        assert_eq!(
            page_names_owner(&objects, "kubelive.dev", "Widget"),
            (true, "abc".into())
        );
        assert_eq!(
            page_names_owner(&objects, "other.dev", "Widget"),
            (false, "abc".into())
        );
        assert!(!page_names_owner(&objects, "kubelive.dev", "Gadget").0);
        let table = json!({"kind": "Table", "metadata": {},
            "rows": [{"cells": [], "object": {"metadata": {"ownerReferences": [widget_ref(true)]}}}]});
        assert_eq!(
            page_names_owner(&table, "kubelive.dev", "Widget"),
            (true, String::new())
        );
        // Owned but not controlled (a second owner) is not what its operator made.
        let not_controller =
            json!({"items": [{"metadata": {"ownerReferences": [widget_ref(false)]}}]});
        assert!(!page_names_owner(&not_controller, "kubelive.dev", "Widget").0);
        assert_eq!(
            page_names_owner(&json!({"kind": "Status"}), "kubelive.dev", "Widget"),
            (false, String::new())
        );
    }

    /// A custom resource that controls Deployments watches them, their ReplicaSets
    /// and their Pods; a refused kind already watched below another is not listed
    /// twice; ControllerRevisions are not watched.
    #[test]
    fn owned_kinds_bring_what_their_controllers_make() {
        let deployments = ("apps", "Deployment", "deployments");
        let statefulsets = ("apps", "StatefulSet", "statefulsets");
        let pods = ("", "Pod", "pods");
        let configmaps = ("", "ConfigMap", "configmaps");
        let found = Found::from_owned(
            &[deployments, statefulsets],
            vec![(pods, "forbidden".into()), (configmaps, "forbidden".into())],
            vec![],
        );
        assert_eq!(
            found.watched,
            vec![
                ("", "PersistentVolumeClaim", "persistentvolumeclaims"),
                pods,
                deployments,
                ("apps", "ReplicaSet", "replicasets"),
                statefulsets,
            ]
        );
        assert_eq!(found.refused, vec![(configmaps, "forbidden".to_string())]);
        assert_eq!(Found::from_owned(&[], vec![], vec![]), Found::default());
    }
}
