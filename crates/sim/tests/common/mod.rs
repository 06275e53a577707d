//! Helpers shared by the model's integration tests.

use kubelive_sim::*;
use serde_json::Value;

/// A fresh cluster with the default configuration and seed 7.
pub fn cluster() -> Cluster {
    Cluster::new(ClusterConfig {
        seed: 7,
        ..ClusterConfig::default()
    })
}

/// A request that must be answered at once.
pub fn get(c: &mut Cluster, path: &str, now: u64) -> Response {
    match c.handle(&Get::new(path), now) {
        Reply::Response(r) => r,
        other => panic!("expected a response for {path}, got {other:?}"),
    }
}

pub fn json_of(r: &Response) -> Value {
    serde_json::from_slice(&r.body).unwrap_or_else(|e| panic!("{e}: {}", r.text()))
}

/// A request that must open a watch.
pub fn watch(c: &mut Cluster, path: &str, now: u64) -> WatchId {
    match c.handle(&Get::new(path), now) {
        Reply::Watch(id) => id,
        other => panic!("expected a watch for {path}, got {other:?}"),
    }
}
