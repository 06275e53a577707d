//! `--churn-for SECS` (`ServerConfig::churn_for_s`): the workload churns, then stops, so
//! that end-to-end tests can compare a client's copy with a truth that holds still.

mod support;

use kubelive_sim::server::{Server, ServerConfig};
use std::thread::sleep;
use std::time::{Duration, Instant};

type Truth = Vec<(String, String, String, String)>;

fn pods(server: &Server) -> Truth {
    server.with_cluster(|c, _| c.truth("/api/v1/pods", "", "").unwrap())
}

#[test]
fn churn_stops_after_churn_for_and_graceful_deletions_still_end() {
    let server = Server::start(ServerConfig {
        objects: 40,
        churn: 200.0,
        churn_for_s: Some(1.0),
        ..ServerConfig::default()
    })
    .unwrap();
    let first = pods(&server);
    sleep(Duration::from_millis(300));
    assert_ne!(pods(&server), first, "the workload churns at first");
    // After the churn stops the pods settle once the last graceful deletions (grace
    // up to 3 s) are over: then nothing changes any more. The bound only turns a
    // churn that never stops into a failure.
    let limit = Instant::now() + Duration::from_secs(30);
    let mut last = pods(&server);
    let mut still = 0;
    while still < 4 {
        assert!(Instant::now() < limit, "the pods never stopped changing");
        sleep(Duration::from_millis(500));
        let now = pods(&server);
        still = if now == last { still + 1 } else { 0 };
        last = now;
    }
    let list = support::get(server.addr().port(), "/api/v1/pods", &[]).json();
    let terminating: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| !p["metadata"]["deletionTimestamp"].is_null())
        .map(|p| p["metadata"]["name"].as_str().unwrap_or(""))
        .collect();
    assert!(terminating.is_empty(), "still terminating: {terminating:?}");
}
