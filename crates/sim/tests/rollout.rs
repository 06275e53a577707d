//! A Deployment's rollout as the deployment controller makes it (RollingUpdate, maxSurge
//! and maxUnavailable 25 %): `pkg/controller/deployment/` rolling.go, sync.go,
//! util/deployment_util.go; `pkg/controller/controller_utils.go` ComputeHash (1.27-1.37).

use kubelive_sim::*;
use serde_json::Value;

fn setup() -> (Cluster, Workload) {
    let mut c = Cluster::new(ClusterConfig {
        seed: 7,
        ..ClusterConfig::default()
    });
    let mut w = Workload::new(
        5,
        WorkloadConfig {
            namespaces: 1,
            pods: 20,
            churn_per_sec: 0.0,
        },
    );
    w.populate(&mut c, 0);
    (c, w)
}

/// The pods of ReplicaSet `rs` (by their controller ownerReference) and how many are
/// ready and not being deleted.
fn pods_of(c: &Cluster, rs: &Value) -> (usize, usize) {
    let uid = rs["metadata"]["uid"].as_str().unwrap();
    let mut all = 0;
    let mut ready = 0;
    for (ns, name) in c.names(PODS) {
        let p = c.get_value(PODS, &ns, &name).unwrap();
        let owner = &p["metadata"]["ownerReferences"][0];
        if owner["uid"] != uid || p["metadata"]["deletionTimestamp"].is_string() {
            continue;
        }
        assert_eq!(owner["controller"], true);
        assert_eq!(
            p["metadata"]["labels"]["pod-template-hash"],
            rs["metadata"]["labels"]["pod-template-hash"]
        );
        all += 1;
        let conditions = p["status"]["conditions"].as_array().unwrap();
        if conditions
            .iter()
            .any(|c| c["type"] == "Ready" && c["status"] == "True")
        {
            ready += 1;
        }
    }
    (all, ready)
}

/// A rollout of a Deployment of 10 makes a new ReplicaSet `<deployment>-<hash>` (the
/// hash in rand's alphabet, from decimal digits: only 4-9, b, c, d, f), owned by the
/// Deployment, revision 2; then moves the pods over step by step, never more than 13
/// pods (10 + 25 % surge, rounded up) nor fewer than 8 available (10 - 25 %, rounded
/// down): new +3 old -2, then +2 -3, +3 -2, +2 -3, then the last new pods get ready.
#[test]
fn a_rollout_moves_the_pods_to_a_new_replicaset_within_surge_and_unavailable() {
    let (mut c, mut w) = setup();
    let old = c
        .get_value(REPLICASETS, "ns-0", &c.names(REPLICASETS)[0].1)
        .unwrap();
    let app = old["metadata"]["ownerReferences"][0]["name"]
        .as_str()
        .unwrap()
        .to_string();
    let deployment = c.get_value(DEPLOYMENTS, "ns-0", &app).unwrap();
    assert_eq!(pods_of(&c, &old), (10, 10));

    let new_name = w.start_rollout(&mut c, "ns-0", &app, 1_000).unwrap();
    let hash = new_name.strip_prefix(&format!("{app}-")).unwrap();
    assert!(
        !hash.is_empty() && hash.chars().all(|ch| "456789bcdf".contains(ch)),
        "{hash}"
    );
    let new = c.get_value(REPLICASETS, "ns-0", &new_name).unwrap();
    let owner = &new["metadata"]["ownerReferences"][0];
    assert_eq!(owner["kind"], "Deployment");
    assert_eq!(owner["uid"], deployment["metadata"]["uid"]);
    assert_eq!(
        (
            owner["controller"].clone(),
            owner["blockOwnerDeletion"].clone()
        ),
        (true.into(), true.into())
    );
    assert_eq!(new["metadata"]["labels"]["pod-template-hash"], hash);
    assert_eq!(
        new["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "2"
    );
    assert_eq!(
        new["spec"]["template"]["metadata"]["labels"]["pod-template-hash"],
        hash
    );

    let mut seen = Vec::new();
    let mut t = 1_000;
    for _ in 0..6 {
        let (old_all, old_ready) = pods_of(&c, &old);
        let (new_all, new_ready) = pods_of(&c, &new);
        assert!(
            old_all + new_all <= 13,
            "surge exceeded: {old_all} + {new_all}"
        );
        assert!(
            old_ready + new_ready >= 8,
            "too few available: {old_ready} + {new_ready}"
        );
        seen.push((old_all, new_all, new_ready));
        t += ROLLOUT_STEP_MS;
        w.tick(&mut c, t);
    }
    assert_eq!(
        seen,
        [
            (8, 3, 0),
            (5, 5, 3),
            (3, 8, 5),
            (0, 10, 8),
            (0, 10, 10),
            (0, 10, 10)
        ]
    );

    // The ReplicaSets and the Deployment say where it ended.
    let old_now = c
        .get_value(
            REPLICASETS,
            "ns-0",
            old["metadata"]["name"].as_str().unwrap(),
        )
        .unwrap();
    assert_eq!(old_now["spec"]["replicas"], 0);
    assert_eq!(
        old_now["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "1"
    );
    let new_now = c.get_value(REPLICASETS, "ns-0", &new_name).unwrap();
    assert_eq!(new_now["spec"]["replicas"], 10);
    assert_eq!(new_now["status"]["readyReplicas"], 10);
    let d = c.get_value(DEPLOYMENTS, "ns-0", &app).unwrap();
    assert_eq!(
        d["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "2"
    );
    assert_eq!(d["metadata"]["generation"], 2);
    assert_eq!(d["status"]["observedGeneration"], 2);
    assert_eq!(d["status"]["updatedReplicas"], 10);
    assert_eq!(d["status"]["availableReplicas"], 10);
    let progressing = &d["status"]["conditions"][1];
    assert_eq!(progressing["reason"], "NewReplicaSetAvailable");
    assert_eq!(
        progressing["message"],
        format!("ReplicaSet \"{new_name}\" has successfully progressed.")
    );
    assert!(d["spec"]["template"]["spec"]["containers"][0]["image"]
        .as_str()
        .unwrap()
        .ends_with(":1.1.0"));
}

/// Mid-rollout the Deployment reports the rollout under way: updatedReplicas the new
/// ReplicaSet's pods, Progressing with reason ReplicaSetUpdated; a second rollout of it
/// is refused until the first ends, and a rollout of a Deployment that is not there is
/// an error.
#[test]
fn a_rollout_under_way_shows_in_the_deployment_and_is_not_restarted() {
    let (mut c, mut w) = setup();
    let app = c.names(DEPLOYMENTS)[0].1.clone();
    let new_name = w.start_rollout(&mut c, "ns-0", &app, 1_000).unwrap();
    let d = c.get_value(DEPLOYMENTS, "ns-0", &app).unwrap();
    assert_eq!(d["status"]["updatedReplicas"], 3);
    assert_eq!(d["status"]["replicas"], 11);
    assert_eq!(d["status"]["conditions"][1]["reason"], "ReplicaSetUpdated");
    assert_eq!(
        d["status"]["conditions"][1]["message"],
        format!("ReplicaSet \"{new_name}\" is progressing.")
    );
    assert!(w.start_rollout(&mut c, "ns-0", &app, 1_500).is_err());
    assert!(w.start_rollout(&mut c, "ns-0", "nope", 1_500).is_err());
    w.tick(&mut c, 1_000 + 5 * ROLLOUT_STEP_MS);
    let third = w.start_rollout(&mut c, "ns-0", &app, 12_000).unwrap();
    assert_ne!(third, new_name);
    let rs = c.get_value(REPLICASETS, "ns-0", &third).unwrap();
    assert_eq!(
        rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "3"
    );
}

/// Periodic rollouts (`--rollout-every`) go round the Deployments; deleting a
/// Deployment after its rollout collects both its ReplicaSets and all their pods.
#[test]
fn periodic_rollouts_go_round_and_the_collector_takes_all_revisions() {
    let (mut c, mut w) = setup();
    w.set_rollout_every(Some(5_000), 0);
    let before = c.names(REPLICASETS).len();
    w.tick(&mut c, 5_000);
    w.tick(&mut c, 10_000);
    assert_eq!(c.names(REPLICASETS).len(), before + 2);
    w.set_rollout_every(None, 10_000);
    for t in 1..=10 {
        w.tick(&mut c, 10_000 + t * ROLLOUT_STEP_MS);
    }
    let app = c.names(DEPLOYMENTS)[0].1.clone();
    c.delete(DEPLOYMENTS, "ns-0", &app, 40_000).unwrap();
    c.advance(40_000 + 2 * GC_DELAY_MS + 30_000);
    let prefix = format!("{app}-");
    assert!(c
        .names(REPLICASETS)
        .iter()
        .all(|(_, n)| !n.starts_with(&prefix)));
    assert!(c.names(PODS).iter().all(|(_, n)| !n.starts_with(&prefix)));
}

/// The hash's encoding: FNV-32a's decimal digits through rand.SafeEncodeString
/// ('0'..'9' become "456789bcdf"), and a collision count changes it.
#[test]
fn template_hashes_are_safe_encoded_decimal_fnv32a() {
    // FNV-32a("") is the offset basis 2166136261.
    assert_eq!(template_hash("", None), "65bb57b6b5");
    assert_ne!(template_hash("x", None), template_hash("x", Some(1)));
}
