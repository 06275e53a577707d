//! kubelive-sim: a simulated kube-apiserver for proving kubelive without a cluster.
//!
//! * [`Cluster`]: the pure model (no I/O, no clock; time is a `now_ms` argument). A
//!   deterministic harness drives it in-process: `handle(&Get, now_ms) -> Reply`,
//!   `poll_watch(id, now_ms) -> WatchOutput`, mutations, `truth(..)`.
//! * [`FaultPlan`]: seeded, scriptable faults, parsed from the `--faults SPEC` syntax.
//! * [`workload`]: realistic ~4 KB pods, Deployments, seeded churn, bench byte streams.
//! * [`server`]: the HTTP/1.1 server used by the `kubelive-sim` binary: keep-alive, gzip,
//!   Accept negotiation ([`negotiate`]), discovery ([`discovery`]), permissions ([`rbac`]).
//!
//! The protocol facts it follows are in `docs/protocol.md`.

pub mod discovery;
pub mod faults;
pub mod http;
pub mod indent;
pub mod model;
pub mod negotiate;
pub mod protobuf;
pub mod rbac;
pub mod resources;
pub mod selector;
pub mod server;
pub mod status;
pub mod util;
pub mod workload;

pub use faults::{Action, FaultPlan};
pub use model::{
    watch_response_head, Cluster, ClusterConfig, Get, MutationError, Obj, ObjRef, Reply, Response,
    StreamingLists, WatchId, WatchOutput,
};
pub use negotiate::{Output, TableVersion};
pub use resources::{
    ResourceType, CONFIGMAPS, DEPLOYMENTS, EVENTS, NAMESPACES, NODES, PODS, REPLICASETS, SECRETS,
    SERVICES, WIDGETS,
};
pub use util::Rng;
pub use workload::{pod, pod_json, watch_event_stream, PodParams, Workload, WorkloadConfig};
