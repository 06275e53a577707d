//! Helpers shared by the tests of the sim's controllers (CronJobs, StatefulSets).

use kubelive_sim::*;
use serde_json::Value;

/// A fresh cluster answering as `release`, seed 7.
pub fn cluster(release: Release) -> Cluster {
    Cluster::new(ClusterConfig {
        seed: 7,
        release,
        ..ClusterConfig::default()
    })
}

/// A workload of one namespace, no pods and no churn: the tests add what they need.
pub fn workload() -> Workload {
    Workload::new(
        1,
        WorkloadConfig {
            namespaces: 1,
            pods: 0,
            churn_per_sec: 0.0,
        },
    )
}

/// The collection at `path` printed as a Table.
pub fn table(c: &mut Cluster, path: &str, now: u64) -> Value {
    let req = Get::new(path).with_output(Output::Table(TableVersion::V1));
    match c.handle(&req, now) {
        Reply::Response(r) => serde_json::from_slice(&r.body).unwrap(),
        other => panic!("{other:?}"),
    }
}

/// A Table's rows' cells.
pub fn cells(t: &Value) -> Vec<Vec<Value>> {
    t["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["cells"].as_array().unwrap().clone())
        .collect()
}
