//! The garbage collector (kube-controller-manager's): when an owner is removed, its
//! dependents (objects naming its uid in `metadata.ownerReferences`) are collected.
//!
//! Facts carried over from `pkg/controller/garbagecollector/garbagecollector.go`
//! (`attemptToDeleteItem`, `classifyReferences`), the same from 1.27 to 1.37:
//! * a dependent already being deleted (`deletionTimestamp` set) is left alone: its own
//!   dependents are looked at once it is gone;
//! * a dependent with an owner that still exists (same kind, namespace, name and uid) is
//!   not deleted; the references to owners that are gone are removed from it (a patch:
//!   MODIFIED);
//! * a dependent with no existing owner is deleted with background propagation (the
//!   delete `kubectl delete` asks for by default), so its own dependents go the same way
//!   afterwards, level by level;
//! * the delete carries no grace period, so a pod gets its
//!   `spec.terminationGracePeriodSeconds` (Terminating, then gone), or 0 when it is not
//!   scheduled or has Succeeded/Failed (`CheckGracefulDelete`,
//!   `pkg/registry/core/pod/strategy.go`).
//!
//! The real collector reacts to the owner's DELETED event through its informers and work
//! queue; the sim acts [`GC_DELAY_MS`] after the owner is removed.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde_json::Value;

use super::{Cluster, MutationError};
use crate::object::{Body, Obj, OwnerRef};
use crate::resources::{self, PODS};
use crate::tree::Key;

/// How long after an owner is removed the sim's garbage collector collects its
/// dependents (the real one's latency: a watch event and a work queue).
pub const GC_DELAY_MS: u64 = 100;

/// A pod's `terminationGracePeriodSeconds` when its spec does not say (the API default).
const DEFAULT_POD_GRACE_S: u64 = 30;

#[derive(Debug, Default)]
pub(super) struct Collector {
    /// How many stored objects name each uid as an owner.
    refs: HashMap<Box<str>, u32>,
    /// Owners removed while objects named them: (when to collect, sequence) -> owner uid.
    due: BTreeMap<(u64, u64), Box<str>>,
    next: u64,
}

impl Collector {
    /// `new` is stored (replacing `old`, if any): counts the owners it names.
    pub(super) fn referenced(&mut self, new: &Obj, old: Option<&Obj>) {
        if let Some(old) = old {
            if same_owners(old, new) {
                return;
            }
            old.for_each_owner_uid(|uid| self.release(uid));
        }
        new.for_each_owner_uid(|uid| match self.refs.get_mut(uid) {
            Some(n) => *n += 1,
            None => {
                self.refs.insert(uid.into(), 1);
            }
        });
    }

    /// `gone` was removed at `at_ms`: it no longer names its owners, and if objects name it
    /// they are collected a little later.
    pub(super) fn removed(&mut self, gone: &Obj, at_ms: u64) {
        gone.for_each_owner_uid(|uid| self.release(uid));
        let uid = gone.uid();
        if self.refs.contains_key(&*uid) {
            self.next += 1;
            self.due
                .insert((at_ms + GC_DELAY_MS, self.next), uid.as_ref().into());
        }
    }

    fn release(&mut self, uid: &str) {
        if let Some(n) = self.refs.get_mut(uid) {
            *n -= 1;
            if *n == 0 {
                self.refs.remove(uid);
            }
        }
    }
}

fn same_owners(a: &Obj, b: &Obj) -> bool {
    match (&a.body, &b.body) {
        (Body::Pod(x), Body::Pod(y)) => x.deploy.rs_uid == y.deploy.rs_uid,
        (Body::Json(x), Body::Json(y)) => x.owners == y.owners,
        _ => false,
    }
}

impl Obj {
    /// Calls `f` with the uid of each owner it names.
    fn for_each_owner_uid(&self, mut f: impl FnMut(&str)) {
        match &self.body {
            Body::Json(j) => j.owners.iter().for_each(|o| f(&o.uid)),
            Body::Pod(p) => f(&p.deploy.rs_uid),
        }
    }
}

impl Cluster {
    /// Collects the dependents of every owner removed at least [`GC_DELAY_MS`] before
    /// `now_ms`, and theirs when their time comes.
    pub(super) fn collect_garbage(&mut self, now_ms: u64) {
        while let Some(entry) = self.gc.due.first_entry() {
            if entry.key().0 > now_ms {
                break;
            }
            let ((at_ms, _), owner) = entry.remove_entry();
            self.collect_dependents(&owner, at_ms);
        }
    }

    fn collect_dependents(&mut self, owner: &str, at_ms: u64) {
        if !self.gc.refs.contains_key(owner) {
            return;
        }
        let mut dependents = Vec::new();
        for (res, store) in self.stores.iter().enumerate() {
            dependents.extend(
                store
                    .iter()
                    .filter(|o| o.owned_by(owner) && !o.deleting())
                    .map(|o| (res, o.clone())),
            );
        }
        for (res, dep) in dependents {
            let owners = dep.owners();
            let dangling: Vec<&str> = owners
                .iter()
                .filter(|r| !self.owner_exists(r, &dep.namespace))
                .map(|r| &*r.uid)
                .collect();
            // Failures are the object having changed or gone meanwhile: nothing to do.
            let _ = if dangling.len() < owners.len() {
                self.drop_owner_refs(res, &dep, &dangling, at_ms)
            } else {
                self.collect(res, &dep, at_ms)
            };
        }
    }

    /// Whether the owner `r` of an object in `namespace` exists. An owner of a kind the
    /// sim does not serve counts as existing: the real collector cannot resolve it and
    /// retries rather than deleting.
    fn owner_exists(&self, r: &OwnerRef, namespace: &str) -> bool {
        let Some(rt) = resources::all()
            .iter()
            .find(|rt| *rt.kind == *r.kind && rt.api_version() == *r.api_version)
        else {
            return true;
        };
        let ns = if rt.namespaced { namespace } else { "" };
        self.stores[resources::index_of(rt)]
            .get(Key::new(ns, &r.name))
            .is_some_and(|o| *o.uid() == *r.uid)
    }

    /// Removes the references to owners that are gone (uids `dangling`) from `dep`.
    fn drop_owner_refs(
        &mut self,
        res: usize,
        dep: &Arc<Obj>,
        dangling: &[&str],
        at_ms: u64,
    ) -> Result<(), MutationError> {
        let rt = resources::all()[res];
        let mut v: Value = serde_json::from_str(&dep.to_json(None))
            .map_err(|e| MutationError::Invalid(e.to_string()))?;
        if let Some(refs) = v["metadata"]["ownerReferences"].as_array_mut() {
            refs.retain(|r| !r["uid"].as_str().is_some_and(|u| dangling.contains(&u)));
        }
        let o = self.build_obj(&rt, v, self.rv + 1, Some(dep), at_ms)?;
        self.replace(res, o, at_ms);
        Ok(())
    }

    /// Deletes `dep` as the collector's DELETE (background propagation, default grace) does.
    fn collect(&mut self, res: usize, dep: &Obj, at_ms: u64) -> Result<(), MutationError> {
        let grace_s = if res == resources::index_of(&PODS) {
            pod_grace_s(dep)
        } else {
            0
        };
        if grace_s == 0 {
            self.delete_now(res, &dep.namespace, &dep.name, at_ms)?;
        } else {
            let rt = resources::all()[res];
            self.begin_graceful_deletion(rt, &dep.namespace, &dep.name, grace_s, at_ms)?;
        }
        Ok(())
    }
}

/// The grace period a pod's delete without one gets (`CheckGracefulDelete`).
fn pod_grace_s(pod: &Obj) -> u64 {
    let done = matches!(&*pod.field("status.phase"), "Succeeded" | "Failed");
    if done || pod.field("spec.nodeName").is_empty() {
        return 0;
    }
    match &pod.body {
        Body::Pod(_) => DEFAULT_POD_GRACE_S,
        Body::Json(_) => pod
            .to_json(None)
            .parse::<Value>()
            .ok()
            .and_then(|v| v["spec"]["terminationGracePeriodSeconds"].as_u64())
            .unwrap_or(DEFAULT_POD_GRACE_S),
    }
}
