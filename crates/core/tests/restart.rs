//! Stopping and restarting an engine: a restart resumes watching from the version the
//! store holds (no relist) when there is one, and otherwise relists with the store
//! diffed, so consumers get deletes for what vanished while it was stopped.

use kubelive_core::{
    ApiErrorKind, Collection, Config, Engine, Event, Instant, Phase, Request, Restart,
    TransportError,
};

struct Server {
    engine: Engine,
    now: Instant,
    in_flight: Option<Request>,
    requests: Vec<String>,
    events: Vec<String>,
}

fn pod(name: &str, uid: &str, rv: u64) -> String {
    format!(
        r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"a","uid":"{uid}","resourceVersion":"{rv}"}},"spec":{{}},"status":{{"phase":"Running"}}}}"#
    )
}

fn list(rv: u64, cont: &str, items: &[String]) -> String {
    format!(
        r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"{rv}","continue":"{cont}"}},"items":[{}]}}"#,
        items.join(",")
    )
}

fn event(kind: &str, object: &str) -> String {
    format!("{{\"type\":\"{kind}\",\"object\":{object}}}\n")
}

const GONE: &str = r#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (90)","reason":"Expired","code":410}}
"#;

impl Server {
    fn new() -> Server {
        let mut config = Config::new(Collection::parse("/api/v1/pods").unwrap());
        config.seed = 1;
        let mut s = Server {
            engine: Engine::new(config, Instant::ZERO),
            now: Instant::ZERO,
            in_flight: None,
            requests: Vec::new(),
            events: Vec::new(),
        };
        s.drain();
        s
    }

    fn drain(&mut self) {
        while let Some(id) = self.engine.poll_cancel() {
            if self.in_flight.as_ref().is_some_and(|r| r.id == id) {
                self.in_flight = None;
            }
        }
        while let Some(e) = self.engine.poll_event() {
            self.events.push(match e {
                Event::Added(o) => format!("Added {}", o.name()),
                Event::Modified { new, .. } => format!("Modified {}", new.name()),
                Event::Deleted(o) => format!("Deleted {}", o.name()),
                Event::Synced {
                    resource_version, ..
                } => format!("Synced {resource_version}"),
                Event::Resumed { resource_version } => format!("Resumed {resource_version}"),
                Event::Restored {
                    resource_version, ..
                } => format!("Restored {resource_version}"),
                Event::Relisting { .. } => "Relisting".into(),
                Event::PageListed { page, .. } => format!("Page {page}"),
                Event::BackingOff { .. } => "BackingOff".into(),
                Event::Failed { error } => format!("Failed {}", error.code),
                Event::Columns { columns } => format!("Columns {}", columns.len()),
                Event::TablesUnavailable { .. } => "TablesUnavailable".into(),
            });
        }
        while let Some(r) = self.engine.poll_request() {
            // The watch timeout is random: keep the transcript stable.
            let path = match r.path.find("&timeoutSeconds=") {
                Some(i) => r.path[..i].to_string(),
                None => r.path.clone(),
            };
            self.requests.push(path);
            self.in_flight = Some(r);
        }
    }

    fn id(&self) -> kubelive_core::RequestId {
        self.in_flight.as_ref().expect("a request in flight").id
    }

    fn respond(&mut self, status: u16, body: &str, end: bool) {
        let (id, now) = (self.id(), self.now);
        self.engine.handle_response(id, status, &[], now);
        self.drain();
        self.engine.handle_body(id, body.as_bytes(), now);
        self.drain();
        if end && self.in_flight.as_ref().is_some_and(|r| r.id == id) {
            self.in_flight = None;
            self.engine.handle_end(id, now);
            self.drain();
        }
    }

    /// A watch head and these events; the stream stays open.
    fn watch(&mut self, events: &str) {
        self.respond(200, events, false);
    }

    fn stop(&mut self) {
        self.engine.stop();
        self.in_flight = None;
        self.drain();
    }

    fn restart(&mut self) -> Restart {
        self.now = Instant::from_millis(self.now.as_millis() + 5_000);
        let r = self.engine.restart(self.now);
        self.drain();
        r
    }

    fn take(&mut self) -> (Vec<String>, Vec<String>) {
        (
            std::mem::take(&mut self.requests),
            std::mem::take(&mut self.events),
        )
    }
}

/// Synced at 10 with p1 and p2; watching, p2 modified at 11 and p3 added at 12.
fn watching() -> Server {
    let mut s = Server::new();
    s.respond(
        200,
        &list(10, "", &[pod("p1", "u1", 5), pod("p2", "u2", 6)]),
        true,
    );
    s.watch(&(event("MODIFIED", &pod("p2", "u2", 11)) + &event("ADDED", &pod("p3", "u3", 12))));
    s.take();
    s
}

#[test]
fn a_restart_watches_from_the_last_version_seen_without_relisting() {
    let mut s = watching();
    s.stop();
    assert_eq!(s.engine.status().phase, Phase::Stopped);
    // The status tells the version it would resume from (the last event's, 12).
    assert_eq!(
        s.engine.status().resource_version.map(|v| v.to_string()),
        Some("12".into())
    );
    assert_eq!(
        s.restart(),
        Restart::Watch {
            resource_version: kubelive_core::ResourceVersion::new("12")
        }
    );
    s.watch(&event("DELETED", &pod("p1", "u1", 13)));
    let (requests, events) = s.take();
    assert_eq!(
        requests,
        ["/api/v1/pods?watch=true&resourceVersion=12&allowWatchBookmarks=true"]
    );
    assert_eq!(events, ["Resumed 12", "Deleted p1"]);
    assert_eq!(s.engine.store().len(), 2);
    assert_eq!(s.engine.status().resumes, 1);
    assert_eq!(s.engine.status().relists, 0);
}

#[test]
fn a_restart_whose_version_expired_relists_and_deletes_what_vanished() {
    let mut s = watching();
    s.stop();
    s.restart();
    s.respond(200, GONE, true);
    // p1 and p3 vanished while stopped, p4 appeared, p2 is unchanged.
    s.respond(
        200,
        &list(40, "", &[pod("p2", "u2", 11), pod("p4", "u4", 30)]),
        true,
    );
    let (requests, events) = s.take();
    assert_eq!(
        requests,
        [
            "/api/v1/pods?watch=true&resourceVersion=12&allowWatchBookmarks=true",
            "/api/v1/pods?limit=500",
            "/api/v1/pods?watch=true&resourceVersion=40&allowWatchBookmarks=true",
        ]
    );
    assert_eq!(
        events,
        [
            // The apiserver answers an expired watch with a 200 and an ERROR event.
            "Resumed 12",
            "Relisting",
            "Added p4",
            "Page 1",
            "Deleted p1",
            "Deleted p3",
            "Synced 40"
        ]
    );
    assert_eq!(s.engine.store().len(), 2);
}

#[test]
fn stopped_before_a_sync_a_restart_relists_and_sweeps_the_partial_list() {
    let mut s = Server::new();
    s.respond(200, &list(10, "next", &[pod("p1", "u1", 5)]), true);
    s.take();
    s.stop();
    assert_eq!(s.restart(), Restart::Relist);
    s.respond(200, &list(20, "", &[pod("p2", "u2", 15)]), true);
    let (requests, events) = s.take();
    assert_eq!(
        requests,
        [
            "/api/v1/pods?limit=500",
            "/api/v1/pods?watch=true&resourceVersion=20&allowWatchBookmarks=true"
        ]
    );
    assert_eq!(events, ["Added p2", "Page 1", "Deleted p1", "Synced 20"]);
}

#[test]
fn a_watch_stopped_while_it_backed_off_resumes_from_its_version() {
    let mut s = watching();
    let id = s.id();
    let now = s.now;
    s.engine
        .handle_error(id, TransportError::Reset("reset".into()), now);
    s.in_flight = None;
    s.drain();
    s.take();
    s.stop();
    // Stopping twice keeps the resume point.
    s.stop();
    assert!(matches!(s.restart(), Restart::Watch { .. }));
    let (requests, _) = s.take();
    assert_eq!(
        requests,
        ["/api/v1/pods?watch=true&resourceVersion=12&allowWatchBookmarks=true"]
    );
}

#[test]
fn a_running_engine_is_not_restarted() {
    let mut s = watching();
    assert_eq!(s.restart(), Restart::Running);
    assert_eq!(s.take(), (vec![], vec![]));
}

#[test]
fn the_status_keeps_the_servers_answer_behind_the_last_error() {
    let mut s = Server::new();
    let forbidden = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods is forbidden","reason":"Forbidden","details":{"kind":"pods"},"code":403}"#;
    s.respond(403, forbidden, true);
    let status = s.engine.status();
    let error = status.last_api_error.expect("the 403");
    assert_eq!(
        (error.code, error.reason.as_str(), error.kind),
        (403, "Forbidden", ApiErrorKind::Forbidden)
    );
    assert_eq!(error.message, "pods is forbidden");
    // After the backoff, a broken connection has no server answer behind it.
    s.now = s.engine.poll_timeout().unwrap();
    let now = s.now;
    s.engine.handle_timeout(now);
    s.drain();
    let id = s.id();
    s.engine
        .handle_error(id, TransportError::Connect("refused".into()), now);
    s.drain();
    assert_eq!(s.engine.status().last_api_error, None);
    assert_eq!(
        s.engine.status().last_error.as_deref(),
        Some("cannot connect: refused")
    );
}
