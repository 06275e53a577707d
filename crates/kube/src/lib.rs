//! What Kubernetes and kubectl define that the engine, the simulated apiserver, the CLI
//! and the browser app all read or print, written once:
//!
//! * [`time`]: calendar arithmetic, RFC 3339 timestamps as the apiserver writes them, and
//!   HTTP dates (`Date`, `Retry-After`);
//! * [`duration`]: the text of every Age column, Go's `duration.HumanDuration`, which
//!   kube-apiserver's printers and kubectl share;
//! * [`rng`]: the one seeded generator, so a seed replays the same everywhere;
//! * [`discovery`]: the API discovery documents (aggregated, and the legacy `/api`,
//!   `/apis` and resource lists) read into one model of resource types.
//!
//! Pure functions: no clock (time is always an argument), no I/O, so the sans-io core
//! and the wasm build can use it as they are. serde_json (which every user already
//! links) reads the discovery documents; nothing else is a dependency.

pub mod discovery;
pub mod duration;
pub mod rng;
pub mod time;

pub use duration::human_duration;
