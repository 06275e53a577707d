//! In the browser (wasm-bindgen-test): the detail panel's owner tree, rendered from rows
//! fed to a core `Owners` join as the engines feed it: the open object's owners above
//! it, its dependents below, each with its printed cells and rolled-up health (a
//! Deployment whose pod crash-loops is bad), a level the user may not list saying why,
//! re-parenting on a rollout, and the ARIA tree pattern with its keys.
#![cfg(all(target_arch = "wasm32", feature = "app"))]

mod support;

use kubelive_core::{ColumnKind, Event, Object, Owners, ParseOptions, SourceId};
use kubelive_web::app::tree::model::{Line, Model};
use kubelive_web::app::tree::{TreeState, TreeView, TreeViewProps};
use std::rc::Rc;
use std::sync::Arc;
use support::{mount, sleep};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement, KeyboardEvent, KeyboardEventInit};

wasm_bindgen_test_configure!(run_in_browser);

fn parse(json: String, columns: ColumnKind) -> Arc<Object> {
    let opts = ParseOptions {
        columns,
        ..Default::default()
    };
    Arc::new(Object::parse(json.as_bytes(), &opts).expect("an object"))
}

fn owner_ref(api_version: &str, kind: &str, name: &str, uid: &str) -> String {
    format!(
        r#","ownerReferences":[{{"apiVersion":"{api_version}","kind":"{kind}","name":"{name}","uid":"{uid}","controller":true,"blockOwnerDeletion":true}}]"#
    )
}

fn meta(name: &str, uid: &str, rv: u32, owner: &str) -> String {
    format!(
        r#""metadata":{{"name":"{name}","namespace":"shop","uid":"{uid}","resourceVersion":"{rv}","creationTimestamp":"2026-11-29T10:00:00Z"{owner}}}"#
    )
}

fn deployment(ready: u32) -> Arc<Object> {
    parse(
        format!(
            r#"{{"kind":"Deployment","apiVersion":"apps/v1",{},"spec":{{"replicas":2}},"status":{{"replicas":2,"readyReplicas":{ready},"updatedReplicas":2,"availableReplicas":{ready}}}}}"#,
            meta("web", "d-1", 1, "")
        ),
        ColumnKind::Deployment,
    )
}

fn replica_set(name: &str, uid: &str, rv: u32) -> Arc<Object> {
    parse(
        format!(
            r#"{{"kind":"ReplicaSet","apiVersion":"apps/v1",{},"spec":{{"replicas":2}},"status":{{"replicas":2,"readyReplicas":2}}}}"#,
            meta(
                name,
                uid,
                rv,
                &owner_ref("apps/v1", "Deployment", "web", "d-1")
            )
        ),
        ColumnKind::Generic,
    )
}

/// A pod of ReplicaSet `rs` (name, uid); `crash`: CrashLoopBackOff, else running.
fn pod(name: &str, uid: &str, rv: u32, rs: (&str, &str), crash: bool) -> Arc<Object> {
    let status = if crash {
        r#"{"phase":"Running","containerStatuses":[{"name":"c","ready":false,"restartCount":5,"state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}"#
    } else {
        r#"{"phase":"Running","containerStatuses":[{"name":"c","ready":true,"restartCount":0,"state":{"running":{"startedAt":"2026-11-29T10:00:00Z"}}}]}"#
    };
    parse(
        format!(
            r#"{{"kind":"Pod","apiVersion":"v1",{},"spec":{{"nodeName":"n-1","containers":[{{"name":"c","image":"nginx"}}]}},"status":{status}}}"#,
            meta(
                name,
                uid,
                rv,
                &owner_ref("apps/v1", "ReplicaSet", rs.0, rs.1)
            )
        ),
        ColumnKind::Pod,
    )
}

/// A Deployment `web`, its ReplicaSet `web-a` and two pods, one crash-looping if `crash`.
struct Cluster {
    owners: Owners,
    deploy: SourceId,
    rs: SourceId,
    pods: SourceId,
}

impl Cluster {
    fn new(crash: bool) -> Cluster {
        let mut owners = Owners::new();
        let deploy = owners.add_source("apps", "Deployment");
        let rs = owners.add_source("apps", "ReplicaSet");
        let pods = owners.add_source("", "Pod");
        owners.apply(deploy, &Event::Added(deployment(2)));
        owners.apply(rs, &Event::Added(replica_set("web-a", "rs-a", 2)));
        owners.apply(
            pods,
            &Event::Added(pod("web-a-1", "p-1", 3, ("web-a", "rs-a"), false)),
        );
        owners.apply(
            pods,
            &Event::Added(pod("web-a-2", "p-2", 4, ("web-a", "rs-a"), crash)),
        );
        Cluster {
            owners,
            deploy,
            rs,
            pods,
        }
    }

    fn model(&self, uid: &str) -> Model {
        Model::build(&self.owners, uid, |_| None)
    }
}

async fn render(model: Model, state: TreeState) -> Element {
    render_with(model, state, true, None).await
}

async fn render_with(
    model: Model,
    state: TreeState,
    open: bool,
    on_toggle: Option<yew::Callback<()>>,
) -> Element {
    let root = mount();
    yew::Renderer::<TreeView>::with_root_and_props(
        root.clone(),
        TreeViewProps {
            model: Rc::new(model),
            state,
            open,
            on_toggle,
            note: None,
        },
    )
    .render();
    sleep(30).await;
    root
}

fn all(root: &Element, selector: &str) -> Vec<Element> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<Element>().ok())
        .collect()
}

/// Each shown line as `depth kind/name health`, or `depth kind: why` for a missing level.
fn lines(root: &Element) -> Vec<String> {
    all(root, "li[role=treeitem]")
        .iter()
        .map(|li| {
            let depth = li.get_attribute("aria-level").unwrap_or_default();
            let line = li.query_selector(".tree-line").unwrap().unwrap();
            match line.get_attribute("data-name") {
                Some(name) => format!(
                    "{depth} {}/{name} {}",
                    line.get_attribute("data-kind").unwrap_or_default(),
                    line.get_attribute("data-health").unwrap_or_default()
                ),
                None => format!(
                    "{depth} {}: {}",
                    line.get_attribute("data-kind").unwrap_or_default(),
                    line.text_content().unwrap_or_default()
                ),
            }
        })
        .collect()
}

fn key(target: &Element, key: &str) {
    let init = KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    let e = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    target.dispatch_event(&e).unwrap();
}

fn has_class(e: &Element, class: &str) -> bool {
    e.get_attribute("class")
        .unwrap_or_default()
        .split_whitespace()
        .any(|c| c == class)
}

fn focused_key() -> String {
    web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .active_element()
        .and_then(|e| e.get_attribute("data-key"))
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn the_tree_shows_owners_above_and_dependents_below_with_cells() {
    let c = Cluster::new(false);
    let root = render(c.model("rs-a"), TreeState::Live).await;
    assert_eq!(
        lines(&root),
        [
            "1 Deployment/web ok",
            "2 ReplicaSet/web-a ok",
            "3 Pod/web-a-1 ok",
            "3 Pod/web-a-2 ok",
        ]
    );
    let tree = root.query_selector("[role=tree]").unwrap().expect("a tree");
    assert_eq!(
        tree.get_attribute("aria-labelledby").as_deref(),
        Some("owner-tree-title")
    );
    let items = all(&root, "li[role=treeitem]");
    // The open object takes the tab stop; a node with lines below it says it is open.
    assert!(has_class(&items[1], "current"));
    assert_eq!(items[1].get_attribute("tabindex").as_deref(), Some("0"));
    assert_eq!(items[0].get_attribute("tabindex").as_deref(), Some("-1"));
    assert_eq!(
        items[1].get_attribute("aria-expanded").as_deref(),
        Some("true")
    );
    assert_eq!(items[2].get_attribute("aria-expanded"), None);
    assert_eq!(
        items[3].get_attribute("aria-posinset").as_deref(),
        Some("2")
    );
    assert_eq!(items[3].get_attribute("aria-setsize").as_deref(), Some("2"));
    // The pods' printed Ready and Status, the Deployment's Ready.
    let text = |i: usize, sel: &str| {
        items[i]
            .query_selector(sel)
            .unwrap()
            .and_then(|e| e.text_content())
            .unwrap_or_default()
    };
    assert_eq!(text(2, ".tree-ready"), "1/1");
    assert_eq!(text(2, ".tree-status"), "Running");
    assert_eq!(text(0, ".tree-ready"), "2/2");
    assert_eq!(
        root.query_selector("#owner-tree")
            .unwrap()
            .unwrap()
            .get_attribute("data-state")
            .as_deref(),
        Some("live")
    );
}

#[wasm_bindgen_test]
async fn a_crash_looping_pod_makes_its_deployment_red() {
    let c = Cluster::new(true);
    let root = render(c.model("d-1"), TreeState::Live).await;
    assert_eq!(
        lines(&root),
        [
            "1 Deployment/web bad",
            "2 ReplicaSet/web-a bad",
            "3 Pod/web-a-1 ok",
            "3 Pod/web-a-2 bad",
        ]
    );
    let d = root.query_selector("li.current").unwrap().unwrap();
    assert!(has_class(&d, "health-bad"));
    // Not by colour alone: the word is there, and in the line's name (its text, the
    // parts apart).
    let word = d.query_selector(".tree-health").unwrap().unwrap();
    assert_eq!(word.text_content().as_deref(), Some("bad"));
    assert_eq!(
        d.text_content().unwrap().trim_start_matches('▾'),
        "Deployment web 2/2 bad"
    );
    let crash = &all(&root, "li[role=treeitem]")[3];
    assert_eq!(
        crash
            .query_selector(".tree-status")
            .unwrap()
            .unwrap()
            .text_content()
            .as_deref(),
        Some("CrashLoopBackOff")
    );
}

#[wasm_bindgen_test]
async fn a_level_the_user_may_not_list_says_why() {
    let mut c = Cluster::new(false);
    let why = r#"pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "shop""#;
    // The pods' engine was refused: its objects never came, its level says so.
    c.owners.clear(c.pods);
    c.owners.set_unavailable(c.pods, Some(why));
    let root = render(c.model("d-1"), TreeState::Live).await;
    assert_eq!(
        lines(&root),
        [
            "1 Deployment/web ok".to_string(),
            // Its own cells (a generic row here) say nothing, and nothing below it is seen.
            "2 ReplicaSet/web-a unknown".to_string(),
            format!("3 Pod: Pod cannot be listed: {why}"),
        ]
    );
    let missing = root.query_selector("li.tree-missing").unwrap().unwrap();
    assert!(missing
        .text_content()
        .unwrap()
        .contains("Pod cannot be listed: pods is forbidden"));
    // An owner that cannot be listed: the pod's ReplicaSet is a name with the reason.
    let mut c = Cluster::new(false);
    c.owners.clear(c.rs);
    c.owners.clear(c.deploy);
    c.owners
        .set_unavailable(c.rs, Some("replicasets.apps is forbidden"));
    let root = render(c.model("p-1"), TreeState::Live).await;
    let l = lines(&root);
    // Its health rolls up from the pods that are seen.
    assert_eq!(l[0], "1 ReplicaSet/web-a ok");
    assert_eq!(l[1], "2 Pod/web-a-1 ok");
    let owner = all(&root, "li[role=treeitem]")[0].clone();
    assert!(has_class(&owner, "absent"));
    assert!(owner
        .text_content()
        .unwrap()
        .contains("cannot be listed: replicasets.apps is forbidden"));
}

/// Hidden (the panel's default), the section is its heading and a button that says
/// it would open the tree.
#[wasm_bindgen_test]
async fn a_hidden_tree_is_a_heading_and_a_button() {
    let c = Cluster::new(false);
    let pressed = Rc::new(std::cell::Cell::new(0));
    let on = {
        let pressed = pressed.clone();
        yew::Callback::from(move |_| pressed.set(pressed.get() + 1))
    };
    let root = render_with(c.model("d-1"), TreeState::Loading, false, Some(on)).await;
    assert!(lines(&root).is_empty());
    let section = root.query_selector("#owner-tree").unwrap().unwrap();
    assert_eq!(
        section.get_attribute("data-state").as_deref(),
        Some("closed")
    );
    let button = root
        .query_selector("#owner-tree-toggle")
        .unwrap()
        .expect("a button");
    assert_eq!(
        button.get_attribute("aria-expanded").as_deref(),
        Some("false")
    );
    assert_eq!(
        button.get_attribute("aria-controls").as_deref(),
        Some("owner-tree-body")
    );
    assert!(root.query_selector("#owner-tree-body").unwrap().is_some());
    button.dyn_into::<HtmlElement>().unwrap().click();
    assert_eq!(pressed.get(), 1);
}

/// A rollout: a new ReplicaSet owned by the Deployment, and a pod adopted by it (its
/// ownerReferences moved): the join moves it, the tree shows it under the new one.
#[wasm_bindgen_test]
fn a_rollout_re_parents_pods_in_the_model() {
    let mut c = Cluster::new(false);
    c.owners
        .apply(c.rs, &Event::Added(replica_set("web-b", "rs-b", 9)));
    c.owners.apply(
        c.pods,
        &Event::Modified {
            old: pod("web-a-2", "p-2", 4, ("web-a", "rs-a"), false),
            new: pod("web-a-2", "p-2", 10, ("web-b", "rs-b"), false),
        },
    );
    c.owners.apply(
        c.pods,
        &Event::Added(pod("web-b-3", "p-3", 11, ("web-b", "rs-b"), false)),
    );
    c.owners.apply(
        c.pods,
        &Event::Deleted(pod("web-a-1", "p-1", 12, ("web-a", "rs-a"), false)),
    );
    let m = c.model("d-1");
    let names: Vec<(usize, String)> = m
        .rows
        .iter()
        .map(|r| match &r.line {
            Line::Node { kind, name, .. } => (r.depth, format!("{kind}/{name}")),
            Line::Missing { kind, .. } => (r.depth, kind.clone()),
        })
        .collect();
    assert_eq!(
        names,
        [
            (0, "Deployment/web".to_string()),
            (1, "ReplicaSet/web-a".to_string()),
            (1, "ReplicaSet/web-b".to_string()),
            (2, "Pod/web-a-2".to_string()),
            (2, "Pod/web-b-3".to_string()),
        ]
    );
    assert_eq!(m.rows[1].children, 0);
    assert_eq!(m.rows[2].children, 2);
}

#[wasm_bindgen_test]
async fn the_keys_move_through_the_tree_and_open_and_close_it() {
    let c = Cluster::new(false);
    let root = render(c.model("d-1"), TreeState::Live).await;
    let items = all(&root, "li[role=treeitem]");
    items[0]
        .clone()
        .dyn_into::<HtmlElement>()
        .unwrap()
        .focus()
        .unwrap();
    let tree = root.query_selector("[role=tree]").unwrap().unwrap();
    let press = |k: &str| {
        key(
            &web_sys::window()
                .unwrap()
                .document()
                .unwrap()
                .active_element()
                .unwrap_or(tree.clone()),
            k,
        )
    };
    press("ArrowDown");
    sleep(20).await;
    assert_eq!(focused_key(), "rs-a");
    press("End");
    sleep(20).await;
    assert_eq!(focused_key(), "p-2");
    press("ArrowLeft");
    sleep(20).await;
    assert_eq!(focused_key(), "rs-a");
    // Left on an open node closes it: its pods are no longer shown.
    press("ArrowLeft");
    sleep(20).await;
    assert_eq!(lines(&root).len(), 2);
    let rs = root.query_selector("[data-key=rs-a]").unwrap().unwrap();
    assert_eq!(rs.get_attribute("aria-expanded").as_deref(), Some("false"));
    press("ArrowRight");
    sleep(20).await;
    assert_eq!(lines(&root).len(), 4);
    press("Home");
    sleep(20).await;
    assert_eq!(focused_key(), "d-1");
    // One tab stop, on the focused line.
    let stops: Vec<_> = all(&root, "li[tabindex='0']");
    assert_eq!(stops.len(), 1);
    assert_eq!(stops[0].get_attribute("data-key").as_deref(), Some("d-1"));
}

/// What the panel watches below an object, and where it GETs an owner of a kind.
#[wasm_bindgen_test]
fn the_kinds_watched_below_and_owners_plurals() {
    use kubelive_web::app::tree::model::{plural_of, watched_below};
    let kinds = |g, k| {
        watched_below(g, k)
            .into_iter()
            .map(|(_, k, _)| k)
            .collect::<Vec<_>>()
    };
    assert_eq!(kinds("apps", "Deployment"), ["Pod", "ReplicaSet"]);
    assert_eq!(kinds("batch", "CronJob"), ["Pod", "Job"]);
    assert_eq!(
        kinds("apps", "StatefulSet"),
        ["PersistentVolumeClaim", "Pod"]
    );
    assert!(kinds("", "Pod").is_empty());
    assert!(kinds("kubelive.dev", "Widget").is_empty());
    assert_eq!(plural_of("ReplicaSet"), "replicasets");
    assert_eq!(plural_of("Widget"), "widgets");
    assert_eq!(plural_of("NetworkPolicy"), "networkpolicies");
    assert_eq!(plural_of("Ingress"), "ingresses");
}
