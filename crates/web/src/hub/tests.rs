use super::*;
use crate::api::options::{parse, Value};

/// The key of a watcher created with `options` (JS-like pairs).
fn key(options: &[(&str, Value)]) -> String {
    let entries = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    view_key(&parse(entries).expect("valid options"))
}

fn s(v: &str) -> Value {
    Value::String(v.into())
}

fn pods() -> String {
    key(&[("path", s("/api/v1/pods")), ("format", s("table"))])
}

#[test]
fn watchers_with_the_same_options_share_a_view() {
    let a = key(&[("path", s("/api/v1/pods")), ("namespace", s("ns-0"))]);
    // The same collection said the other way (namespace in the path), and absent
    // options said as their defaults.
    let b = key(&[
        ("path", s("/api/v1/namespaces/ns-0/pods")),
        ("labelSelector", s("")),
        ("streamingList", Value::Bool(false)),
    ]);
    assert_eq!(a, b);
}

#[test]
fn what_changes_the_engine_separates_views() {
    let base = [("path", s("/api/v1/pods"))];
    let others: Vec<Vec<(&str, Value)>> = vec![
        vec![("path", s("/apis/apps/v1/deployments"))],
        vec![("path", s("/api/v1/pods")), ("namespace", s("ns-1"))],
        vec![
            ("path", s("/api/v1/pods")),
            ("labelSelector", s("tier=web")),
        ],
        vec![
            ("path", s("/api/v1/pods")),
            ("fieldSelector", s("spec.nodeName=n1")),
        ],
        vec![("path", s("/api/v1/pods")), ("format", s("table"))],
        vec![
            ("path", s("/api/v1/pods")),
            ("format", s("table")),
            ("includeObject", s("Object")),
        ],
        vec![
            ("path", s("/api/v1/pods")),
            ("streamingList", Value::Bool(true)),
        ],
        vec![
            ("path", s("/api/v1/pods")),
            ("pageSize", Value::Number(50.0)),
        ],
        vec![
            ("path", s("/api/v1/pods")),
            ("baseUrl", s("https://other.example")),
        ],
        vec![("path", s("/api/v1/pods")), ("metadata", s("identity"))],
        vec![
            ("path", s("/api/v1/pods")),
            ("stripManagedFields", Value::Bool(true)),
        ],
        vec![
            ("path", s("/api/v1/pods")),
            ("retryOnFailure", Value::Bool(true)),
        ],
    ];
    let mut keys = vec![key(&base)];
    for options in &others {
        let k = key(options);
        assert!(!keys.contains(&k), "{options:?} shares a key with another");
        keys.push(k);
    }
}

#[test]
fn two_pages_on_one_view_share_one_engine() {
    let mut hub = Hub::new();
    hub.connect(1, 0.0);
    hub.connect(2, 0.0);
    assert_eq!(hub.open(1, 1, &pods(), 0.0), Ok(Opened::Start));
    assert_eq!(
        hub.open(2, 1, &pods(), 10.0),
        Ok(Opened::Join { idle: false })
    );
    // A second watcher on the first page too.
    assert_eq!(
        hub.open(1, 2, &pods(), 20.0),
        Ok(Opened::Join { idle: false })
    );
    assert_eq!(hub.views(), 1);
    assert_eq!(hub.subscribers(&pods()), vec![(1, 1), (1, 2), (2, 1)]);
    assert_eq!(hub.view_of(2, 1), Some(pods().as_str()));
}

#[test]
fn different_keys_get_their_own_engines() {
    let mut hub = Hub::new();
    hub.connect(1, 0.0);
    let deployments = key(&[("path", s("/apis/apps/v1/deployments"))]);
    assert_eq!(hub.open(1, 1, &pods(), 0.0), Ok(Opened::Start));
    assert_eq!(hub.open(1, 2, &deployments, 0.0), Ok(Opened::Start));
    assert_eq!(hub.views(), 2);
    assert_eq!(hub.subscribers(&deployments), vec![(1, 2)]);
}

#[test]
fn a_view_stops_only_after_its_grace() {
    let mut hub = Hub::new();
    hub.connect(1, 0.0);
    hub.connect(2, 0.0);
    hub.open(1, 1, &pods(), 0.0).unwrap();
    hub.open(2, 1, &pods(), 0.0).unwrap();
    assert_eq!(hub.close(1, 1, 100.0), Some(pods()));
    hub.disconnect(1, 100.0);
    // Still watched by page 2: no grace at all.
    assert_eq!(hub.tick(100.0 + GRACE_MS + 1.0), vec![]);
    hub.heard(2, 100.0 + GRACE_MS + 1.0).unwrap();
    let left = 6_000.0;
    hub.close(2, 1, left);
    assert_eq!(hub.tick(left + GRACE_MS - 1.0), vec![]);
    assert_eq!(hub.views(), 1);
    assert_eq!(hub.tick(left + GRACE_MS), vec![Decision::Stop(pods())]);
    assert_eq!(hub.views(), 0);
    // Opened again afterwards: a new engine.
    hub.heard(2, left + GRACE_MS).unwrap();
    assert_eq!(hub.open(2, 2, &pods(), left + GRACE_MS), Ok(Opened::Start));
}

#[test]
fn a_reload_within_the_grace_reattaches_to_the_running_engine() {
    let mut hub = Hub::new();
    hub.connect(1, 0.0);
    hub.open(1, 1, &pods(), 0.0).unwrap();
    // The tab reloads: its page says goodbye, the new page connects on a new port.
    hub.disconnect(1, 1_000.0);
    assert_eq!(hub.ports(), 0);
    assert_eq!(hub.tick(1_500.0), vec![]);
    hub.connect(2, 1_500.0);
    assert_eq!(
        hub.open(2, 1, &pods(), 1_500.0),
        Ok(Opened::Join { idle: true })
    );
    // Its grace is over: watched again, it never stops.
    assert_eq!(
        hub.tick(1_000.0 + GRACE_MS * 10.0 - 1.0),
        vec![Decision::Drop(2)]
    );
    // (Page 2 sent no heartbeat in that time, so it was dropped, and the grace began.)
    let dropped = 1_000.0 + GRACE_MS * 10.0 - 1.0;
    assert_eq!(hub.tick(dropped + GRACE_MS), vec![Decision::Stop(pods())]);
}

#[test]
fn heartbeats_keep_a_page_and_silence_drops_it() {
    let mut hub = Hub::new();
    hub.connect(1, 0.0);
    hub.connect(2, 0.0);
    hub.open(1, 1, &pods(), 0.0).unwrap();
    hub.open(2, 1, &pods(), 0.0).unwrap();
    // Page 1 beats every HEARTBEAT_MS; page 2 died at 0 without a goodbye.
    let mut now = 0.0;
    let mut dropped = Vec::new();
    while now < 4.0 * SILENT_MS {
        now += HEARTBEAT_MS;
        hub.heard(1, now).unwrap();
        dropped.extend(hub.tick(now));
    }
    assert_eq!(dropped, vec![Decision::Drop(2)]);
    assert_eq!(hub.subscribers(&pods()), vec![(1, 1)]);
    assert_eq!(hub.heard(2, now), Err(HubError::UnknownPort(2)));
    assert_eq!(hub.open(2, 2, &pods(), now), Err(HubError::UnknownPort(2)));
}

#[test]
fn the_last_page_going_silent_starts_the_grace() {
    let mut hub = Hub::new();
    hub.connect(1, 0.0);
    hub.open(1, 1, &pods(), 0.0).unwrap();
    assert_eq!(hub.tick(SILENT_MS - 1.0), vec![]);
    assert_eq!(hub.tick(SILENT_MS), vec![Decision::Drop(1)]);
    assert_eq!(hub.tick(SILENT_MS + GRACE_MS - 1.0), vec![]);
    assert_eq!(hub.tick(SILENT_MS + GRACE_MS), vec![Decision::Stop(pods())]);
}

#[test]
fn one_subscription_id_per_page() {
    let mut hub = Hub::new();
    hub.connect(1, 0.0);
    hub.open(1, 1, &pods(), 0.0).unwrap();
    assert_eq!(hub.open(1, 1, &pods(), 0.0), Err(HubError::Taken(1)));
    assert_eq!(hub.close(1, 9, 0.0), None);
    assert_eq!(hub.close(7, 1, 0.0), None);
}
