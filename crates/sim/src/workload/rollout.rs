//! Rollouts: a Deployment's pod template changes, and the deployment controller moves its
//! pods to a new ReplicaSet as a RollingUpdate of maxSurge and maxUnavailable 25 % does.
//!
//! Facts carried over from `pkg/controller/deployment/` (1.27-1.37, unchanged):
//! * the new ReplicaSet is `<deployment>-<pod-template-hash>` (`sync.go`
//!   `getNewReplicaSet`), owned by the Deployment (controller: true, blockOwnerDeletion:
//!   true), its pods labelled `pod-template-hash`; the hash is FNV-32a of the template,
//!   printed in decimal and each digit mapped onto `bcdfghjklmnpqrstvwxz2456789`
//!   (`controller_utils.go` `ComputeHash`, apimachinery `rand.SafeEncodeString`), so it
//!   uses only `4-9`, `b`, `c`, `d`, `f`. The sim hashes its own text of the template (not
//!   Go's dump of the struct): same shape, other values;
//! * its `deployment.kubernetes.io/revision` is the highest old revision + 1, and the
//!   Deployment carries the same; the old ReplicaSet keeps its own and stays, scaled to 0
//!   (revisionHistoryLimit 10);
//! * each sync scales the new ReplicaSet up to at most `desired + maxSurge` pods in all
//!   (`rolling.go` `reconcileNewReplicaSet`, util `NewRSNewReplicas`), then the old one
//!   down: first its unhealthy pods, as far as `all - minAvailable - newUnavailable`
//!   allows, then ready ones while more than `desired - maxUnavailable` stay available
//!   (`reconcileOldReplicaSets`, `cleanupUnhealthyReplicas`,
//!   `scaleDownOldReplicaSetsForRollingUpdate`); fenceposts as `ResolveFenceposts`
//!   ([`crate::kinds::rolling_fenceposts`]);
//! * the ReplicaSet controller deletes not-ready pods before ready ones, newer before older
//!   (`controller_utils.go` `ActivePods` ordering, the parts the sim's pods have).
//!
//! The sim's controllers sync every [`ROLLOUT_STEP_MS`]; a new pod is Running and ready a
//! step after it was made (minReadySeconds 0: ready is available).

use std::collections::BTreeSet;
use std::sync::Arc;

use super::{pod_ref, Workload};
use crate::genpod::{DeployInfo, Phase};
use crate::kinds::{self, Identity, PodEvent, ReplicaSetParams, Rollout};
use crate::model::Cluster;
use crate::resources::{DEPLOYMENTS, REPLICASETS};

/// How often the sim's deployment controller moves a rollout on.
pub const ROLLOUT_STEP_MS: u64 = 2_000;

/// A rollout under way.
#[derive(Debug, Clone)]
pub(super) struct Rolling {
    /// The ReplicaSet being scaled down, as last written.
    old: ReplicaSetParams,
    old_revision: u32,
    /// The Deployment's replicas (its pods when the rollout began).
    desired: u32,
}

/// Rollouts' schedule.
#[derive(Debug, Clone, Default)]
pub(super) struct Rollouts {
    /// (when the next step is due, Deployment index).
    due: BTreeSet<(u64, usize)>,
    /// Start one rollout this often (round robin over the Deployments).
    every_ms: Option<u64>,
    next_start_ms: u64,
    next_deploy: usize,
}

/// `pod-template-hash` of a template whose text is `template` (see the module doc).
pub fn template_hash(template: &str, collision_count: Option<u32>) -> String {
    const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut h: u32 = 0x811c_9dc5;
    let mut eat = |b: u8| {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    };
    template.bytes().for_each(&mut eat);
    if let Some(n) = collision_count {
        // Written as 8 bytes, the count little-endian in the first 4.
        n.to_le_bytes().into_iter().chain([0; 4]).for_each(&mut eat);
    }
    h.to_string()
        .bytes()
        .map(|b| ALPHANUMS[usize::from(b) % ALPHANUMS.len()] as char)
        .collect()
}

/// One of a Deployment's pods, as the rollout sees it.
struct Member {
    name: String,
    ready: bool,
    pending: bool,
    created_ms: u64,
}

impl Workload {
    /// Starts one rollout every `every_ms` (None: never), one Deployment after the other.
    pub fn set_rollout_every(&mut self, every_ms: Option<u64>, now_ms: u64) {
        self.rollouts.every_ms = every_ms;
        self.rollouts.next_start_ms = now_ms + every_ms.unwrap_or(0);
    }

    /// Changes Deployment `namespace/name`'s pod template (a new image) and starts rolling
    /// its pods over to the new ReplicaSet, whose name it returns. The steps happen in
    /// [`Workload::tick`]. Refused while the Deployment is rolling out already.
    pub fn start_rollout(
        &mut self,
        c: &mut Cluster,
        namespace: &str,
        name: &str,
        now_ms: u64,
    ) -> Result<String, String> {
        let d = self
            .deploys
            .iter()
            .position(|x| &*x.info.namespace == namespace && x.deployment.app == name)
            .ok_or_else(|| format!("deployments.apps \"{name}\" not found in {namespace}"))?;
        if self.deploys[d].rolling.is_some() {
            return Err(format!(
                "deployment {namespace}/{name} is rolling out already"
            ));
        }
        let rs_uid = self.rng.uuid();
        let dep = &mut self.deploys[d];
        let revision = dep.revision + 1;
        let image = format!(
            "registry.example.com/{namespace}/{name}:1.{}.0",
            revision - 1
        );
        let template = format!("app={name} image={image}");
        let mut hash = template_hash(&template, None);
        let mut collisions = 0;
        while hash == *dep.info.hash {
            collisions += 1;
            hash = template_hash(&template, Some(collisions));
        }
        let desired = dep.live;
        let new_rs = ReplicaSetParams {
            id: Identity {
                name: format!("{name}-{hash}"),
                namespace: namespace.to_string(),
                uid: rs_uid.clone(),
                resource_version: None,
                created_ms: now_ms,
            },
            app: name.to_string(),
            deployment_uid: dep.deployment.id.uid.clone(),
            template_hash: hash.clone(),
            image: image.clone(),
            replicas: 0,
            ready: 0,
        };
        c.create_object(
            REPLICASETS,
            &kinds::replica_set_at(&new_rs, revision, desired),
            now_ms,
        )
        .map_err(|e| e.to_string())?;
        dep.info = Arc::new(DeployInfo {
            namespace: dep.info.namespace.clone(),
            app: dep.info.app.clone(),
            hash: hash.into_boxed_str(),
            rs_uid: rs_uid.into_boxed_str(),
        });
        let old = std::mem::replace(&mut dep.rs, new_rs);
        dep.rolling = Some(Rolling {
            old,
            old_revision: dep.revision,
            desired,
        });
        dep.revision = revision;
        dep.changed_ms = now_ms;
        dep.deployment.template_hash = dep.rs.template_hash.clone();
        dep.deployment.image = image;
        let rs_name = dep.rs.id.name.clone();
        self.rollout_step(c, d, now_ms);
        Ok(rs_name)
    }

    /// Starts the periodic rollouts due and moves the rollouts under way on.
    pub(super) fn run_rollouts(&mut self, c: &mut Cluster, now_ms: u64) {
        if let Some(every) = self.rollouts.every_ms.filter(|e| *e > 0) {
            while self.rollouts.next_start_ms <= now_ms && !self.deploys.is_empty() {
                let d = self.rollouts.next_deploy % self.deploys.len();
                self.rollouts.next_deploy += 1;
                let at = self.rollouts.next_start_ms;
                self.rollouts.next_start_ms += every;
                let (ns, app) = (
                    self.deploys[d].info.namespace.clone(),
                    self.deploys[d].deployment.app.clone(),
                );
                // One rolling out already is left to finish.
                let _ = self.start_rollout(c, &ns, &app, at.max(self.last_ms));
            }
        }
        while let Some(&(due, d)) = self.rollouts.due.first() {
            if due > now_ms {
                break;
            }
            self.rollouts.due.pop_first();
            self.rollout_step(c, d, due);
        }
    }

    /// One sync of Deployment `d`'s rollout: the kubelet readies the new pods made a step
    /// ago, the controller scales the new ReplicaSet up and the old one down, and the
    /// ReplicaSets and the Deployment report where they are.
    fn rollout_step(&mut self, c: &mut Cluster, d: usize, now_ms: u64) {
        let Some(rolling) = self.deploys[d].rolling.clone() else {
            return;
        };
        let info = self.deploys[d].info.clone();
        let (mut olds, mut news) = (Vec::new(), Vec::new());
        for (name, _) in self.pods.iter().filter(|(_, x)| *x == d) {
            let Some(state) = c.pod_state(&info.namespace, name) else {
                continue;
            };
            let m = Member {
                name: name.clone(),
                ready: state.phase == Phase::Running && state.ready,
                pending: state.phase == Phase::Pending,
                created_ms: state.created_ms,
            };
            if state.deploy.hash == info.hash {
                news.push(m);
            } else {
                olds.push(m);
            }
        }
        // The kubelet: new pods made a step ago have started.
        for m in news.iter_mut() {
            if m.pending && m.created_ms + ROLLOUT_STEP_MS <= now_ms {
                self.start_pod(c, &info.namespace, &m.name, now_ms);
                m.ready = true;
                m.pending = false;
            }
        }
        let desired = rolling.desired as usize;
        let (surge, unavailable) = kinds::rolling_fenceposts(rolling.desired);
        let (surge, unavailable) = (surge as usize, unavailable as usize);
        // Scale the new ReplicaSet up.
        let total = olds.len() + news.len();
        let up = (desired + surge)
            .saturating_sub(total)
            .min(desired.saturating_sub(news.len()));
        for _ in 0..up {
            if let Some((state, rv)) = self.create_pod(c, d, now_ms, false) {
                let name = state.name();
                let pod = pod_ref(&state, &name, Some(rv));
                self.emit(c, &pod, PodEvent::Scheduled, now_ms);
                self.emit(c, &pod, PodEvent::Pulling, now_ms);
                news.push(Member {
                    name,
                    ready: false,
                    pending: true,
                    created_ms: now_ms,
                });
            }
        }
        // Scale the old one down: unhealthy pods first, then while enough stay available.
        let min_available = desired.saturating_sub(unavailable);
        let new_ready = news.iter().filter(|m| m.ready).count();
        let new_unavailable = news.len() - new_ready;
        let all = olds.len() + news.len();
        let unhealthy_budget = all.saturating_sub(min_available + new_unavailable);
        // Deletion order: not ready first, then the newest.
        olds.sort_by_key(|m| (m.ready, std::cmp::Reverse(m.created_ms)));
        let unhealthy = olds
            .iter()
            .take_while(|m| !m.ready)
            .count()
            .min(unhealthy_budget);
        let available = olds.iter().filter(|m| m.ready).count() + new_ready;
        let ready_down = available.saturating_sub(min_available);
        let down = (unhealthy + ready_down).min(olds.len());
        let gone: Vec<Member> = olds.drain(..down).collect();
        for m in &gone {
            if let Some(k) = self.pods.iter().position(|(n, x)| *x == d && *n == m.name) {
                self.remove(c, k, now_ms);
            }
        }
        let old_ready = olds.iter().filter(|m| m.ready).count() as u32;
        let complete = olds.is_empty() && news.len() == desired && new_ready == desired;
        let dep = &mut self.deploys[d];
        let mut old = rolling.old.clone();
        old.replicas = olds.len() as u32;
        old.ready = old_ready;
        dep.rs.replicas = news.len() as u32;
        dep.rs.ready = new_ready as u32;
        dep.deployment.replicas = (olds.len() + news.len()) as u32;
        dep.deployment.ready = old_ready + new_ready as u32;
        let old_text = kinds::replica_set_at(&old, rolling.old_revision, rolling.desired);
        let new_text = kinds::replica_set_at(&dep.rs, dep.revision, rolling.desired);
        if complete {
            dep.changed_ms = now_ms;
        }
        let deployment = kinds::deployment_at(
            &dep.deployment,
            &Rollout {
                revision: dep.revision,
                desired: rolling.desired,
                updated: news.len() as u32,
                complete,
                changed_ms: dep.changed_ms,
            },
        );
        dep.rolling = (!complete).then_some(Rolling { old, ..rolling });
        let _ = c.update_object(REPLICASETS, &old_text, now_ms);
        let _ = c.update_object(REPLICASETS, &new_text, now_ms);
        let _ = c.update_object(DEPLOYMENTS, &deployment, now_ms);
        if !complete {
            self.rollouts.due.insert((now_ms + ROLLOUT_STEP_MS, d));
        }
    }

    /// A new pod's container started and is ready.
    fn start_pod(&mut self, c: &mut Cluster, namespace: &str, name: &str, now_ms: u64) {
        let Ok(r) = c.update_pod(namespace, name, now_ms, |p| {
            p.phase = Phase::Running;
            p.ready = true;
            p.started_ms = now_ms;
            p.transition_ms = now_ms;
        }) else {
            return;
        };
        if let Some(state) = c.pod_state(namespace, name).cloned() {
            let pod = pod_ref(&state, name, Some(r.resource_version));
            let pull_ms = 800 + self.rng.below(4000);
            let image_bytes = 20_000_000 + self.rng.below(60_000_000);
            let pulled = PodEvent::Pulled {
                pull_ms,
                image_bytes,
            };
            for event in [pulled, PodEvent::Created, PodEvent::Started] {
                self.emit(c, &pod, event, now_ms);
            }
        }
    }
}
