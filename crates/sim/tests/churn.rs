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

/// `--rollout-every SECS` (`ServerConfig::rollout_every_s`): the served cluster's
/// Deployments roll out one after the other, each to a new ReplicaSet of revision 2.
#[test]
fn rollout_every_rolls_deployments_out_in_the_served_cluster() {
    let server = Server::start(ServerConfig {
        objects: 30,
        churn: 0.0,
        rollout_every_s: Some(0.2),
        ..ServerConfig::default()
    })
    .unwrap();
    let revisions = |server: &Server| -> Vec<String> {
        let list = support::get(server.addr().port(), "/apis/apps/v1/replicasets", &[]).json();
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|rs| {
                rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"]
                    .as_str()
                    .unwrap_or("")
                    .to_string()
            })
            .collect()
    };
    // The bound only turns rollouts that never start into a failure.
    let limit = Instant::now() + Duration::from_secs(30);
    loop {
        let r = revisions(&server);
        if r.iter().filter(|r| *r == "2").count() == 3 {
            assert_eq!(r.iter().filter(|r| *r == "1").count(), 3);
            break;
        }
        assert!(Instant::now() < limit, "no rollouts: {r:?}");
        sleep(Duration::from_millis(200));
    }
}
