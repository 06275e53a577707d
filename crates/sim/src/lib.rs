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
//! The protocol facts it follows are in `docs/protocol.md`.

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
};
pub use negotiate::{AggregatedVersion, Output, TableVersion};
pub use object::Obj;
pub use release::Release;
pub use resources::{
    ResourceType, CONFIGMAPS, CUSTOMRESOURCEDEFINITIONS, DEPLOYMENTS, EVENTS, LEASES, NAMESPACES,
    NODES, PODS, REPLICASETS, SECRETS, SERVICES, WIDGETS,
};
pub use util::Rng;
pub use workload::{pod, pod_json, watch_event_stream, PodParams, Workload, WorkloadConfig};
