//! Request accounting, served at `/metrics` as kube-apiserver serves its own (Prometheus
//! text format): what each client costs the server. The names are kube-apiserver's where
//! it has the figure, with the subset of labels the sim knows:
//!
//! * `apiserver_request_total{verb,resource,code}`: verb as the apiserver's metrics
//!   write it (`LIST`, `WATCH`, `GET`, ...);
//! * `apiserver_storage_list_total{resource}`: LISTs the apiserver would answer from etcd
//!   (a quorum read), `apiserver_cache_list_total{resource}`: LISTs from its watch cache,
//!   by [`list_source`];
//! * `apiserver_longrunning_requests{verb="WATCH",resource}`: watches open now.
//!
//! and the sim's own, for what the apiserver does not count the same way:
//!
//! * `kubelive_sim_sent_bytes_total{verb,resource}`: bytes written to the connection
//!   (headers, chunk framing and body, after gzip), watches included;
//! * `kubelive_sim_watch_events_total{resource}`: watch events sent (one per line);
//! * `kubelive_sim_initial_lists_total{resource,how}`: lists that start from nothing: a
//!   LIST without a continue token (`how="list"`) or a watch with `sendInitialEvents=true`
//!   (`how="streaming"`). A client's relists are these minus its first.
//!
//! Non-resource requests (discovery, `/version`, `/metrics`) count under `resource=""`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;

/// Where kube-apiserver 1.32 reads a LIST from (for every `--kube-version`: the metric
/// does not follow the release).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListSource {
    /// The storage (etcd): a quorum read of the range.
    Etcd,
    /// The apiserver's watch cache.
    WatchCache,
}

/// `shouldDelegateList` of kube-apiserver 1.32 (staging/src/k8s.io/apiserver/pkg/storage/
/// cacher/cacher.go; `delegator.go` from 1.33), with `ConsistentListFromCache` on (its
/// default since 1.31) and an etcd that supports progress requests (3.4.31+, 3.5.13+):
/// `resourceVersionMatch=Exact`, a continue token and the legacy exact match (a limit with
/// a resourceVersion other than "" or "0") go to etcd; everything else, the consistent
/// read (`resourceVersion=""`, paginated or not) included, is served by the watch cache
/// once it has caught up. Earlier versions differ: in 1.31 (`hasLimit`) any paginated
/// LIST but `resourceVersion=0` went to etcd, the first page too, and without
/// `ConsistentListFromCache` so did every consistent read; with `ListFromCacheSnapshot`
/// (1.34) a continue the cache still holds a snapshot for stays in the cache.
pub fn list_source(resource_version: &str, rv_match: &str, limit: u64, cont: &str) -> ListSource {
    match rv_match {
        "NotOlderThan" => ListSource::WatchCache,
        "" if !cont.is_empty() => ListSource::Etcd,
        "" if limit > 0 && !resource_version.is_empty() && resource_version != "0" => {
            ListSource::Etcd
        }
        "" => ListSource::WatchCache,
        // Exact, and anything else (rejected before reaching storage).
        _ => ListSource::Etcd,
    }
}

/// One series: a metric name and its labels, in the order written.
type Series = (&'static str, Vec<(&'static str, String)>);

/// Counters and gauges, behind one lock (a request touches it a few times).
#[derive(Default)]
pub struct Metrics {
    values: Mutex<BTreeMap<Series, i64>>,
}

const HELP: &[(&str, &str, &str)] = &[
    ("apiserver_request_total", "counter", "Counter of apiserver requests broken out for each verb, resource and HTTP response code."),
    ("apiserver_storage_list_total", "counter", "Number of LIST requests served from storage"),
    ("apiserver_cache_list_total", "counter", "Number of LIST requests served from watch cache"),
    ("apiserver_longrunning_requests", "gauge", "Gauge of all active long-running apiserver requests broken out by verb and resource."),
    ("kubelive_sim_sent_bytes_total", "counter", "Bytes written to client connections (headers, framing and body, after compression), by verb and resource."),
    ("kubelive_sim_watch_events_total", "counter", "Watch events sent, by resource."),
    ("kubelive_sim_initial_lists_total", "counter", "Lists from nothing: LIST without a continue token (how=list), watch with sendInitialEvents=true (how=streaming)."),
];

impl Metrics {
    pub fn add(&self, name: &'static str, labels: &[(&'static str, &str)], by: i64) {
        let key = (
            name,
            labels.iter().map(|(k, v)| (*k, v.to_string())).collect(),
        );
        let mut values = self.values.lock().unwrap_or_else(|e| e.into_inner());
        *values.entry(key).or_insert(0) += by;
    }

    /// The value of one series (0 if never touched).
    pub fn get(&self, name: &str, labels: &[(&str, &str)]) -> i64 {
        let values = self.values.lock().unwrap_or_else(|e| e.into_inner());
        values
            .iter()
            .find(|((n, l), _)| {
                *n == name
                    && l.len() == labels.len()
                    && l.iter()
                        .zip(labels)
                        .all(|((a, b), (c, d))| a == c && b == d)
            })
            .map_or(0, |(_, v)| *v)
    }

    /// The Prometheus text exposition format (`# HELP`, `# TYPE`, one line a series).
    pub fn render(&self) -> String {
        let values = self.values.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = String::new();
        for (name, kind, help) in HELP {
            let series: Vec<_> = values.iter().filter(|((n, _), _)| n == name).collect();
            if series.is_empty() {
                continue;
            }
            let _ = writeln!(out, "# HELP {name} [ALPHA] {help}\n# TYPE {name} {kind}");
            for ((_, labels), v) in series {
                let labels: Vec<String> = labels
                    .iter()
                    .map(|(k, v)| format!("{k}=\"{}\"", escape(v)))
                    .collect();
                let _ = writeln!(out, "{name}{{{}}} {v}", labels.join(","));
            }
        }
        out
    }
}

/// A label value as the exposition format writes it.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    // The cases of shouldDelegateList in kube-apiserver 1.32
    // (staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go; delegator.go from 1.33)
    // with ConsistentListFromCache on, and the API concepts page's "semantics for get and
    // list".
    #[test]
    fn lists_read_from_etcd_or_the_watch_cache_as_the_apiserver_decides() {
        use ListSource::*;
        // A consistent read: from the cache once it caught up (ConsistentListFromCache).
        assert_eq!(list_source("", "", 0, ""), WatchCache);
        assert_eq!(list_source("", "", 500, ""), WatchCache);
        // Any version: the cache.
        assert_eq!(list_source("0", "", 0, ""), WatchCache);
        assert_eq!(list_source("0", "", 500, ""), WatchCache);
        assert_eq!(list_source("123", "", 0, ""), WatchCache);
        assert_eq!(list_source("123", "NotOlderThan", 500, ""), WatchCache);
        // A continue token, an exact version, the legacy exact match: etcd.
        assert_eq!(list_source("", "", 500, "eyJ2IjoibWV0YS"), Etcd);
        assert_eq!(list_source("123", "", 500, ""), Etcd);
        assert_eq!(list_source("123", "Exact", 0, ""), Etcd);
    }

    #[test]
    fn renders_the_exposition_format() {
        let m = Metrics::default();
        m.add(
            "apiserver_request_total",
            &[("verb", "LIST"), ("resource", "pods"), ("code", "200")],
            1,
        );
        m.add(
            "apiserver_request_total",
            &[("verb", "LIST"), ("resource", "pods"), ("code", "200")],
            2,
        );
        m.add(
            "kubelive_sim_sent_bytes_total",
            &[("verb", "WATCH"), ("resource", "po\"ds")],
            10,
        );
        let text = m.render();
        assert!(text.contains("# TYPE apiserver_request_total counter\n"));
        assert!(text
            .contains("apiserver_request_total{verb=\"LIST\",resource=\"pods\",code=\"200\"} 3\n"));
        assert!(text
            .contains("kubelive_sim_sent_bytes_total{verb=\"WATCH\",resource=\"po\\\"ds\"} 10\n"));
        assert_eq!(
            m.get(
                "apiserver_request_total",
                &[("verb", "LIST"), ("resource", "pods"), ("code", "200")]
            ),
            3
        );
        assert!(!text.contains("apiserver_cache_list_total"));
    }
}
