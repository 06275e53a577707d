//! Timestamps and Go's `duration.HumanDuration` (the text of every Age column): kube-
//! apiserver's printers and kubectl share them, and so do the sim and kubelive.

pub use kubelive_kube::human_duration;
pub use kubelive_kube::time::{format_rfc3339, parse_rfc3339_ms};
