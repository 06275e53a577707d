//! kubelive-sim: a simulated kube-apiserver for proving kubelive without a cluster.
//!
//! * [`Cluster`]: the pure model (no I/O, no clock; time is a `now_ms` argument). A
//!   deterministic harness drives it in-process: `handle(&Get, now_ms) -> Reply`,
//!   `poll_watch(id, now_ms) -> WatchOutput`, mutations, `truth(..)`.
//! * [`FaultPlan`]: seeded, scriptable faults, parsed from the `--faults SPEC` syntax.
//! * [`workload`]: realistic ~4 KB pods, Deployments, seeded churn, bench byte streams.
//! * [`server`]: the HTTP/1.1 server used by the `kubelive-sim` binary: keep-alive, gzip,
//!   Accept negotiation ([`negotiate`]), discovery ([`discovery`]), permissions ([`rbac`]).
//! * [`printers`]: server-side printing (`as=Table`): the real printers' columns and cells,
//!   CRD columns, and the Table documents of lists and watches.
//! * [`kinds`]: realistic objects of the kinds users look at first (services, nodes, events,
//!   secrets, ...), as compact JSON in the apiserver's field order.
//!
//! * Controllers' effects: the garbage collector removes what an owner owned once the
//!   owner is gone (by `ownerReferences` uid, background propagation, level by level;
//!   `model/gc.rs`); the deployment controller rolls a Deployment out to a new ReplicaSet
//!   ([`Workload::start_rollout`], periodically with `serve --rollout-every SECS`;
//!   `workload/rollout.rs`); CronJobs make Jobs that make pods that complete
//!   ([`Workload::add_cronjob`], `serve --cronjobs N`; `workload/batch.rs`). Jobs and
//!   CronJobs print as `printers.go` does, the Job's Status column from 1.30.
//!   StatefulSets make their pods `<set>-N` one after the other (OrderedReady) and a
//!   claim `<template>-<set>-N` per volumeClaimTemplate, bound to a provisioned volume;
//!   the set owns its claims only under `persistentVolumeClaimRetentionPolicy.whenDeleted:
//!   Delete`, so with the default Retain deleting it leaves them
//!   ([`Workload::add_statefulset`], `serve --statefulsets N`; `workload/statefulset.rs`;
//!   pods labelled `apps.kubernetes.io/pod-index` from 1.28). StatefulSets and
//!   PersistentVolumeClaims print as `printers.go` does, the claim's
//!   VolumeAttributesClass column from 1.29.
//!
//! Each protocol fact it follows cites the kube-apiserver source it was read from, in
//! the code and in the fidelity test that pins it (`tests/fidelity.rs`).
//!
//! # Releases
//!
//! The sim answers as one kube-apiserver release, 1.27 to 1.37 ([`Release`]; default the
//! newest; `kubelive-sim serve --kube-version 1.NN`, `ClusterConfig::release`). What a
//! list/watch client sees differ between them, each row read from the apiserver's sources
//! and pinned by a test in `tests/releases.rs`:
//!
//! | behaviour | 1.27-1.28 | 1.29-1.31 | 1.32 | 1.33 | 1.34-1.36 | 1.37 | source |
//! |---|---|---|---|---|---|---|---|
//! | `WatchList` gate (streaming lists), by default | off: 422 | off: 422 | on | off: 422 | on | on | website `feature-gates/WatchList.md`; #131359, #132704 |
//! | watch from `""`/`"0"` without `sendInitialEvents` | plain | plain | streaming list | plain | streaming list | streaming list | `SetListOptionsDefaults` (internalversion/defaults.go), get.go |
//! | `sendInitialEvents` without `allowWatchBookmarks` (gate on) | 422 | initial events, no end bookmark | same | same | same | same | validation.go (`watch-sendInitialEvents-no-allowWatchBookmark`) |
//! | initial-events-end bookmark | next bookmark tick (1 s), changes made meanwhile first | same | right after the initial events | same | same | same | cacher.go `dispatchEvents`, cache_watcher.go; #127012 |
//! | plain bookmark before the end bookmark | never | never | never | never | never | never | cache_watcher.go `nonblockingAdd`, `convertToWatchEvent` |
//! | streaming list `as=Table` (gate on) | Tables | Tables | 406 | 406 | Tables | Tables | get.go `watchListEndpointRestrictions` (#126996), #132817 |
//! | streaming list gzipped (`WatchListCompression`, `Accept-Encoding: gzip`) | no | no | no | no | no | one member per flush | watch.go `perFlushGzipWriter`; #139308, #140140 |
//! | aggregated discovery | v2beta1 | v2beta1 (+v2 from 1.30) | v2, v2beta1 | v2 | v2 | v2 | wrapper.go; `AggregatedDiscoveryRemoveBetaType` |
//! | `/version` `minor`, `gitVersion` | `27`.. | .. | `32`, `v1.32.0-kubelive-sim` | .. | .. | `37` | version.Info |
//!
//! Where the `WatchList` gate is off the sim answers 422 unless it is turned on
//! (`--feature-gates WatchList=true`, `StreamingLists::Supported`): then the release's
//! end-bookmark timing and Table answer apply. The bookmark timer's tick is
//! [`BOOKMARK_TICK_MS`] (the real one is jittered by up to 25%). With compression each
//! batch a watch hands over ([`WatchOutput::Chunks`]) is one flush, so one gzip member,
//! and the end bookmark always ends a batch; [`Cluster::watch_head`] carries
//! `Content-Encoding: gzip` and `Vary: Accept-Encoding` for such a watch. Only streaming
//! lists with `allowWatchBookmarks=true` (`isListWatchRequest`, defaulted ones included)
//! are compressed, whatever `--no-compression` (`APIResponseCompression`) says: watch.go
//! asks only the `WatchListCompression` gate. The 1.37 get.go was not in the searchable
//! sources; that defaulted streaming lists count is read from the `isWatchListRequest`
//! argument of watch.go's `serveWatchHandler` and 1.32's get.go.
//!
//! Not modelled: WebSocket watches; the watch cache's history window (`max(75 s,
//! --request-timeout + 15 s)` from 1.33, the same 75 s at the default timeout); where
//! LISTs are read from (`ConsistentListFromCache`, `ListFromCacheSnapshot`: same answers);
//! the 429 `storage is (re)initializing` while a watch cache initializes
//! (`ResilientWatchCacheInitialization`, 1.31+): the sim's caches never re-initialize.

pub mod discovery;
pub mod faults;
pub mod fields;
pub mod genpod;
pub mod http;
pub mod indent;
pub mod kinds;
pub mod metrics;
pub mod model;
pub mod negotiate;
pub mod object;
pub mod printers;
pub mod protobuf;
pub mod rbac;
pub mod release;
pub mod resources;
pub mod selector;
pub mod server;
pub mod status;
pub mod tree;
pub mod util;
pub mod workload;

pub use faults::{Action, CutStyle, FaultPlan};
pub use genpod::{DeployInfo, Phase, PodState};
pub use model::{
    watch_response_head, CacheProgress, Cluster, ClusterConfig, ControlPlane, Get, MutationError,
    ObjRef, Reply, Response, StreamingLists, WatchId, WatchOutput, BOOKMARK_TICK_MS, EVENT_TTL_MS,
    GC_DELAY_MS,
};
pub use negotiate::{AggregatedVersion, Output, TableVersion};
pub use object::{Obj, OwnerRef};
pub use release::Release;
pub use resources::{
    ResourceType, CONFIGMAPS, CRONJOBS, CUSTOMRESOURCEDEFINITIONS, DEPLOYMENTS, EVENTS, JOBS,
    LEASES, NAMESPACES, NODES, PERSISTENTVOLUMECLAIMS, PODS, REPLICASETS, SECRETS, SERVICES,
    STATEFULSETS, WIDGETS,
};
pub use util::Rng;
pub use workload::{
    pod, pod_json, template_hash, watch_event_stream, ClaimRetention, PodParams, StatefulSetSpec,
    Workload, WorkloadConfig, JOB_POD_START_MS, JOB_RUN_MS, ROLLOUT_STEP_MS, STS_POD_START_MS,
};
