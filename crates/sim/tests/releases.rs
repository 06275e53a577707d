//! The sim as a chosen Kubernetes release (`--kube-version`, `Release`): one test per row
//! of the release table in the crate docs, each citing the apiserver source it follows.
//! Model tests run on the virtual clock; wire tests run the server in this process.

use std::io::Read;

use kubelive_sim::server::{Server, ServerConfig};
use kubelive_sim::*;
use serde_json::{json, Value};

mod support;

fn release(s: &str) -> Release {
    s.parse().unwrap()
}

fn cluster_as(r: &str, gate: StreamingLists) -> Cluster {
    Cluster::new(ClusterConfig {
        seed: 7,
        release: release(r),
        streaming_lists: gate,
        ..ClusterConfig::default()
    })
}

fn mk_pod(c: &mut Cluster, name: &str, now: u64) -> u64 {
    c.create(
        PODS,
        json!({"metadata": {"name": name, "namespace": "ns", "labels": {"app": "a"}}, "spec": {"nodeName": "n1", "containers": []}, "status": {"phase": "Running"}}),
        now,
    )
    .unwrap()
    .resource_version
}

fn ask(c: &mut Cluster, get: Get, now: u64) -> Reply {
    c.handle(&get, now)
}

fn open(c: &mut Cluster, path: &str, now: u64) -> WatchId {
    match ask(c, Get::new(path), now) {
        Reply::Watch(id) => id,
        other => panic!("expected a watch for {path}, got {other:?}"),
    }
}

/// The lines due at `now` (polling until the watch waits), and when it wants polling next.
fn lines_at(c: &mut Cluster, id: WatchId, now: u64) -> (Vec<Value>, u64) {
    let mut bytes = Vec::new();
    for _ in 0..10_000 {
        match c.poll_watch(id, now) {
            WatchOutput::Chunks(ch) => ch.iter().for_each(|x| bytes.extend_from_slice(x)),
            WatchOutput::Pending { wake_at_ms } if wake_at_ms > now => {
                let lines = String::from_utf8(bytes)
                    .unwrap()
                    .lines()
                    .map(|l| serde_json::from_str(l).unwrap())
                    .collect();
                return (lines, wake_at_ms);
            }
            WatchOutput::Pending { .. } => {}
            other => panic!("watch ended: {other:?}"),
        }
    }
    panic!("the watch never waits");
}

/// `TYPE name-or-rv[!]`: an event's type and object name, a bookmark's version (`!` for
/// the initial-events-end one).
fn summary(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(|l| {
            let ty = l["type"].as_str().unwrap();
            let meta = &l["object"]["metadata"];
            if ty == "BOOKMARK" {
                let end = meta["annotations"]["k8s.io/initial-events-end"] == "true";
                format!(
                    "BOOKMARK {}{}",
                    meta["resourceVersion"].as_str().unwrap(),
                    if end { "!" } else { "" }
                )
            } else {
                format!("{ty} {}", meta["name"].as_str().unwrap())
            }
        })
        .collect()
}

const STREAM: &str = "/api/v1/namespaces/ns/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true";

const WATCH_LIST_OFF: &str = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"ListOptions.meta.k8s.io \\\"\\\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled\",\"reason\":\"Invalid\",\"details\":{\"group\":\"meta.k8s.io\",\"kind\":\"ListOptions\",\"causes\":[{\"reason\":\"FieldValueForbidden\",\"message\":\"Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled\",\"field\":\"sendInitialEvents\"}]},\"code\":422}\n";

/// The WatchList gate's default per release (kubernetes/website feature-gates/WatchList.md:
/// alpha off 1.27-1.31, beta on 1.32, off 1.33, on from 1.34), the 422 from
/// `validateWatchOptions` (staging/src/k8s.io/apimachinery/pkg/apis/meta/internalversion/
/// validation/validation.go) where it is off.
#[test]
fn streaming_lists_are_refused_where_the_watch_list_gate_is_off() {
    for r in Release::all() {
        let mut c = cluster_as(&r.to_string(), StreamingLists::ByRelease);
        mk_pod(&mut c, "a", 0);
        let served = matches!(r.minor(), 32 | 34..);
        match ask(&mut c, Get::new(STREAM), 0) {
            Reply::Watch(id) if served => {
                let (lines, _) = lines_at(&mut c, id, 0);
                assert_eq!(summary(&lines), ["ADDED a", "BOOKMARK 2!"], "{r}");
            }
            Reply::Response(resp) if !served => {
                assert_eq!(resp.status, 422, "{r}");
                assert_eq!(resp.text(), WATCH_LIST_OFF, "{r}");
            }
            other => panic!("{r}: {other:?}"),
        }
    }
    // The gate turned on (`--feature-gates WatchList=true`) serves them on 1.27 too.
    let mut c = cluster_as("1.27", StreamingLists::Supported);
    mk_pod(&mut c, "a", 0);
    assert!(matches!(ask(&mut c, Get::new(STREAM), 0), Reply::Watch(_)));
}

/// `SetListOptionsDefaults` (staging/src/k8s.io/apimachinery/pkg/apis/meta/internalversion/
/// defaults.go), called by get.go's `ListResource` with the WatchList gate: where it is on
/// (1.32, 1.34+), a watch from "" or "0" naming neither sendInitialEvents nor
/// resourceVersionMatch is a streaming list; with bookmarks it gets the end bookmark
/// (`isListWatchRequest`, cacher.go), without them only the initial events. A watch from
/// a list's version is untouched; where the gate is off (1.33) nothing is defaulted.
#[test]
fn watches_from_zero_are_defaulted_into_streaming_lists_where_the_gate_is_on() {
    let base = "/api/v1/namespaces/ns/pods?watch=true";
    for rv in ["", "&resourceVersion=0", "&resourceVersion="] {
        let mut on = cluster_as("1.34", StreamingLists::ByRelease);
        mk_pod(&mut on, "a", 0);
        let id = open(&mut on, &format!("{base}{rv}&allowWatchBookmarks=true"), 0);
        assert_eq!(
            summary(&lines_at(&mut on, id, 0).0),
            ["ADDED a", "BOOKMARK 2!"],
            "1.34 {rv:?}"
        );
        let id = open(&mut on, &format!("{base}{rv}"), 0);
        assert_eq!(summary(&lines_at(&mut on, id, 0).0), ["ADDED a"], "{rv:?}");

        let mut off = cluster_as("1.33", StreamingLists::ByRelease);
        mk_pod(&mut off, "a", 0);
        let id = open(&mut off, &format!("{base}{rv}&allowWatchBookmarks=true"), 0);
        assert_eq!(
            summary(&lines_at(&mut off, id, 0).0),
            ["ADDED a"],
            "1.33 {rv:?}"
        );
    }
    let mut on = cluster_as("1.37", StreamingLists::ByRelease);
    let rv = mk_pod(&mut on, "a", 0);
    let id = open(
        &mut on,
        &format!("{base}&resourceVersion={rv}&allowWatchBookmarks=true"),
        0,
    );
    mk_pod(&mut on, "b", 1);
    assert_eq!(summary(&lines_at(&mut on, id, 1).0), ["ADDED b"]);
}

/// From 1.29 `validateWatchOptions` (validation.go; its test case
/// `watch-sendInitialEvents-no-allowWatchBookmark`) no longer requires
/// `allowWatchBookmarks` with sendInitialEvents: the initial events come, and no end
/// bookmark (a watch without bookmarks gets none, cacher.go `isListWatchRequest`).
/// Up to 1.28 it is the 422 of tests/fidelity.rs.
#[test]
fn initial_events_without_bookmarks_are_served_from_1_29() {
    let path = "/api/v1/namespaces/ns/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan";
    for r in ["1.29", "1.32", "1.37"] {
        let mut c = cluster_as(r, StreamingLists::Supported);
        mk_pod(&mut c, "a", 0);
        let id = open(&mut c, path, 0);
        assert_eq!(summary(&lines_at(&mut c, id, 0).0), ["ADDED a"], "{r}");
        mk_pod(&mut c, "b", 1);
        assert_eq!(summary(&lines_at(&mut c, id, 1).0), ["ADDED b"], "{r}");
    }
    let mut c = cluster_as("1.28", StreamingLists::Supported);
    match ask(&mut c, Get::new(path), 0) {
        Reply::Response(r) => assert_eq!(r.status, 422),
        other => panic!("{other:?}"),
    }
}

/// From 1.32 (kubernetes #127012) `processInterval` (staging/src/k8s.io/apiserver/pkg/
/// storage/cacher/cache_watcher.go) sends the end bookmark right after the initial
/// events, at the list's version, before any change made since.
#[test]
fn the_end_bookmark_follows_the_initial_events_from_1_32() {
    for r in ["1.32", "1.37"] {
        let mut c = cluster_as(r, StreamingLists::ByRelease);
        mk_pod(&mut c, "a", 0);
        let listed = c.resource_version();
        let id = open(&mut c, STREAM, 500);
        mk_pod(&mut c, "b", 500);
        let (lines, _) = lines_at(&mut c, id, 500);
        assert_eq!(
            summary(&lines),
            [
                "ADDED a".to_string(),
                format!("BOOKMARK {listed}!"),
                "ADDED b".into()
            ],
            "{r}"
        );
    }
}

/// Before 1.32 the end bookmark was the first bookmark the cacher's timer handed the
/// watcher (`dispatchEvents` in staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go,
/// a tick about every second; `nextBookmarkTime` in cache_watcher.go schedules a watcher
/// still waiting for `bookmarkAfterResourceVersion` at once). It queues behind the
/// changes dispatched before the tick, so those reach the client first; it carries the
/// cacher's newest version; changes after the tick follow it. Shown on 1.31 with the
/// WatchList gate turned on (it is off by default there).
#[test]
fn before_1_32_changes_made_before_the_bookmark_tick_come_first() {
    let mut c = cluster_as("1.31", StreamingLists::Supported);
    mk_pod(&mut c, "a", 0);
    let id = open(&mut c, STREAM, 1_500);
    let (lines, wake) = lines_at(&mut c, id, 1_500);
    assert_eq!(summary(&lines), ["ADDED a"]);
    assert_eq!(wake, 2_000, "the next tick of the bookmark timer");
    let b = mk_pod(&mut c, "b", 1_600);
    let (lines, _) = lines_at(&mut c, id, 1_600);
    assert_eq!(
        summary(&lines),
        ["ADDED b"],
        "a change before the end bookmark"
    );
    mk_pod(&mut c, "c", 2_100);
    let (lines, _) = lines_at(&mut c, id, 2_200);
    assert_eq!(
        summary(&lines),
        [format!("BOOKMARK {b}!"), "ADDED c".to_string()]
    );
}

/// No release sends a plain bookmark to a streaming list before its end bookmark: the
/// cacher drops bookmarks older than `bookmarkAfterResourceVersion` (`nonblockingAdd`)
/// and annotates the first one it sends (`convertToWatchEvent`, cache_watcher.go), and
/// from 1.32 that is the interval's `initialEventsEndBookmark`. Periodic bookmarks come
/// after it only.
#[test]
fn no_plain_bookmark_precedes_the_end_bookmark() {
    for r in ["1.27", "1.31", "1.32", "1.37"] {
        let mut c = Cluster::new(ClusterConfig {
            seed: 7,
            release: release(r),
            streaming_lists: StreamingLists::Supported,
            bookmark_every_ms: 100,
            ..ClusterConfig::default()
        });
        mk_pod(&mut c, "a", 0);
        let id = open(&mut c, STREAM, 10);
        let mut seen = Vec::new();
        for (i, now) in (10..5_000).step_by(50).enumerate() {
            mk_pod(&mut c, &format!("p{i}"), now);
            seen.extend(summary(&lines_at(&mut c, id, now).0));
        }
        let bookmarks: Vec<&String> = seen.iter().filter(|s| s.starts_with("BOOKMARK")).collect();
        assert!(bookmarks.len() > 2, "{r}: {seen:?}");
        assert!(bookmarks[0].ends_with('!'), "{r}: {bookmarks:?}");
        assert!(bookmarks[1..].iter().all(|b| !b.ends_with('!')), "{r}");
    }
}

/// The 406 of content negotiation, written raw and indented (`WriteRawJSON`).
const NOT_ACCEPTABLE: &str = "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {},\n  \"status\": \"Failure\",\n  \"message\": \"only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf\",\n  \"reason\": \"NotAcceptable\",\n  \"code\": 406\n}";

/// A streaming list asked as a Table: 1.32 and 1.33 refuse it with 406
/// (`watchListEndpointRestrictions` in staging/src/k8s.io/apiserver/pkg/endpoints/handlers/
/// get.go, kubernetes #126996), also one defaulted into a streaming list; before (no
/// restriction) and from 1.34 (#132817) it is served as one-row Tables, the end bookmark
/// converted too.
#[test]
fn streaming_lists_as_tables_per_release() {
    let table = Output::Table(TableVersion::V1);
    for r in Release::all() {
        let defaulted =
            "/api/v1/namespaces/ns/pods?watch=true&resourceVersion=0&allowWatchBookmarks=true";
        for path in [STREAM, defaulted] {
            let mut c = cluster_as(&r.to_string(), StreamingLists::Supported);
            mk_pod(&mut c, "a", 0);
            match ask(&mut c, Get::new(path).with_output(table), 0) {
                Reply::Response(resp) if matches!(r.minor(), 32 | 33) => {
                    assert_eq!(resp.status, 406, "{r}");
                    assert_eq!(resp.text(), NOT_ACCEPTABLE, "{r}");
                }
                Reply::Watch(id) if !matches!(r.minor(), 32 | 33) => {
                    // Before 1.32 the end bookmark waits for the bookmark timer's tick.
                    let (mut lines, _) = lines_at(&mut c, id, 0);
                    lines.extend(lines_at(&mut c, id, BOOKMARK_TICK_MS).0);
                    assert_eq!(lines.len(), 2, "{r} {path}: {lines:?}");
                    for l in &lines {
                        assert_eq!(l["object"]["kind"], "Table", "{r}");
                    }
                    assert_eq!(
                        lines[1]["object"]["rows"][0]["object"]["metadata"]["annotations"]
                            ["k8s.io/initial-events-end"],
                        "true",
                        "{r}"
                    );
                }
                other => panic!("{r} {path}: {other:?}"),
            }
        }
        // A Table watch from a list's version is no streaming list: always served.
        let mut c = cluster_as(&r.to_string(), StreamingLists::Supported);
        let rv = mk_pod(&mut c, "a", 0);
        let plain = format!(
            "/api/v1/namespaces/ns/pods?watch=true&resourceVersion={rv}&allowWatchBookmarks=true"
        );
        assert!(matches!(
            ask(&mut c, Get::new(plain).with_output(table), 0),
            Reply::Watch(_)
        ));
    }
}

/// Each gzip member of a body, decoded on its own.
fn members(mut body: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    while !body.is_empty() {
        let mut d = flate2::bufread::GzDecoder::new(body);
        let mut text = String::new();
        d.read_to_string(&mut text).expect("a whole gzip member");
        body = d.into_inner();
        out.push(text);
    }
    out
}

fn sim_as(r: &str, objects: usize) -> Server {
    Server::start(ServerConfig {
        port: 0,
        objects,
        namespaces: 1,
        churn: 0.0,
        release: release(r),
        ..ServerConfig::default()
    })
    .expect("sim starts")
}

/// The watch ends at its `timeoutSeconds`, initial events or not: 5 s leaves a loaded
/// machine time to send all of them (with 1 s a test once got only the first batch).
const WIRE_STREAM: &str = "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=5";

/// `WatchListCompression` (beta, on from 1.37): a streaming list asked with
/// `Accept-Encoding: gzip` is gzipped with no size threshold, `Content-Encoding: gzip` and
/// `Vary: Accept-Encoding` (`watchResponseWriter.BeginStream`), and `perFlushGzipWriter`
/// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go) closes the gzip stream
/// on every flush: the body is a series of gzip members, one per flush (here one per
/// chunk), and the flush after the initial-events-end bookmark ends a member. A reader of
/// the first member only (flate2's `GzDecoder`, a browser) gets the first flush.
#[test]
fn streaming_lists_are_gzipped_one_member_per_flush_from_1_37() {
    let s = sim_as("1.37", 600);
    let r = support::get(s.addr().port(), WIRE_STREAM, &[("Accept-Encoding", "gzip")]);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-encoding"), Some("gzip"));
    assert_eq!(r.header("vary"), Some("Accept-Encoding"));
    assert_eq!(r.header("transfer-encoding"), Some("chunked"));
    let members = members(&r.body);
    assert!(members.len() >= 3, "{}", members.len());
    assert_eq!(
        r.chunks.as_ref().map(Vec::len),
        Some(members.len()),
        "a chunk a flush"
    );
    // The sim flushes once per batch of at most 256 events.
    assert_eq!(members[0].lines().count(), 256);
    let mut all = String::new();
    flate2::read::MultiGzDecoder::new(&r.body[..])
        .read_to_string(&mut all)
        .unwrap();
    assert_eq!(all, members.concat());
    let mut first = String::new();
    flate2::read::GzDecoder::new(&r.body[..])
        .read_to_string(&mut first)
        .unwrap();
    assert_eq!(
        first, members[0],
        "the first member is the first flush only"
    );
    let added = all
        .lines()
        .filter(|l| l.starts_with("{\"type\":\"ADDED\""))
        .count();
    assert_eq!(added, 600);
    let end = members
        .iter()
        .position(|m| m.contains("k8s.io/initial-events-end"))
        .expect("an end bookmark");
    let last_line = members[end].lines().last().unwrap();
    assert!(
        last_line.contains("\"BOOKMARK\"") && last_line.contains("initial-events-end"),
        "the end bookmark ends its member: {last_line}"
    );
}

/// What stays uncompressed on 1.37 (watch.go compresses only `isWatchListRequest`
/// responses and asks only the `WatchListCompression` gate): a streaming list without
/// `Accept-Encoding: gzip`, a plain watch from a list's version, and every release before
/// 1.37; a small LIST keeps the 128 KiB threshold (responsewriters/writers.go).
#[test]
fn only_streaming_lists_are_gzipped_and_only_from_1_37() {
    let s = sim_as("1.37", 5);
    let p = s.addr().port();
    let plain = support::get(p, WIRE_STREAM, &[]);
    assert_eq!(plain.header("content-encoding"), None);
    assert!(plain.text().contains("initial-events-end"));
    let list = support::get(p, "/api/v1/pods", &[("Accept-Encoding", "gzip")]);
    assert_eq!(list.header("content-encoding"), None);
    let rv = list.json()["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    let watch = support::get(
        p,
        &format!("/api/v1/pods?watch=true&resourceVersion={rv}&allowWatchBookmarks=true&timeoutSeconds=1"),
        &[("Accept-Encoding", "gzip")],
    );
    assert_eq!(watch.status, 200);
    assert_eq!(watch.header("content-encoding"), None);
    let older = sim_as("1.36", 5);
    let r = support::get(
        older.addr().port(),
        WIRE_STREAM,
        &[("Accept-Encoding", "gzip")],
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-encoding"), None);
    assert_eq!(r.header("vary"), None);
    assert!(r.text().contains("initial-events-end"));
}

/// The in-process model answers the same: `watch_head` carries the gzip headers, each
/// batch is one member, and changes after the end bookmark stay gzipped, a member each.
#[test]
fn the_model_gzips_streaming_lists_as_1_37_does() {
    let mut c = cluster_as("1.37", StreamingLists::ByRelease);
    mk_pod(&mut c, "a", 0);
    let get = Get::new(STREAM).with_header("Accept-Encoding", "gzip, deflate");
    let Reply::Watch(id) = ask(&mut c, get, 0) else {
        panic!("a watch");
    };
    let head = c.watch_head(id);
    assert_eq!(head.header("content-encoding"), Some("gzip"));
    assert_eq!(head.header("vary"), Some("Accept-Encoding"));
    let batch = |c: &mut Cluster, now| match c.poll_watch(id, now) {
        WatchOutput::Chunks(ch) => ch.concat(),
        other => panic!("{other:?}"),
    };
    let first = members(&batch(&mut c, 0));
    assert_eq!(first.len(), 1);
    assert!(first[0]
        .lines()
        .last()
        .unwrap()
        .contains("initial-events-end"));
    mk_pod(&mut c, "b", 5);
    let live = members(&batch(&mut c, 5));
    assert_eq!(live.len(), 1);
    assert!(live[0].starts_with("{\"type\":\"ADDED\""), "{live:?}");
    // `WatchListCompression=false` turns it off.
    let mut off = Cluster::new(ClusterConfig {
        watch_list_compression: Some(false),
        ..ClusterConfig::default()
    });
    let get = Get::new(STREAM).with_header("Accept-Encoding", "gzip");
    let Reply::Watch(id) = ask(&mut off, get, 0) else {
        panic!("a watch");
    };
    assert_eq!(off.watch_head(id).header("content-encoding"), None);
}

const AGG: &str = "application/json;g=apidiscovery.k8s.io;v={V};as=APIGroupDiscoveryList";

/// Aggregated discovery per release (`discovery/aggregated/wrapper.go`): v2beta1 to 1.32,
/// v2 from 1.30, v2beta1 gone from 1.33 (`AggregatedDiscoveryRemoveBetaType`). kubectl's
/// Accept (v2, v2beta1, then plain JSON) gets the newest served; a clause naming only an
/// unserved version falls to the legacy handler: a later plain clause, else 406.
#[test]
fn aggregated_discovery_versions_per_release() {
    let kubectl = format!(
        "{},{},application/json",
        AGG.replace("{V}", "v2"),
        AGG.replace("{V}", "v2beta1")
    );
    for (r, newest, served) in [
        ("1.27", "v2beta1", vec!["v2beta1"]),
        ("1.29", "v2beta1", vec!["v2beta1"]),
        ("1.30", "v2", vec!["v2", "v2beta1"]),
        ("1.32", "v2", vec!["v2", "v2beta1"]),
        ("1.33", "v2", vec!["v2"]),
        ("1.37", "v2", vec!["v2"]),
    ] {
        let s = sim_as(r, 1);
        let p = s.addr().port();
        let got = support::get(p, "/apis", &[("Accept", &kubectl)]);
        assert_eq!(
            got.header("content-type"),
            Some(AGG.replace("{V}", newest).as_str()),
            "{r}"
        );
        for v in ["v2", "v2beta1"] {
            let only = support::get(p, "/apis", &[("Accept", &AGG.replace("{V}", v))]);
            if served.contains(&v) {
                assert_eq!(only.status, 200, "{r} {v}");
                assert_eq!(
                    only.json()["apiVersion"],
                    format!("apidiscovery.k8s.io/{v}"),
                    "{r}"
                );
            } else {
                assert_eq!(only.status, 406, "{r} {v}");
                assert_eq!(only.text(), NOT_ACCEPTABLE, "{r} {v}");
                let fallback = format!("{},application/json", AGG.replace("{V}", v));
                let legacy = support::get(p, "/apis", &[("Accept", &fallback)]);
                assert_eq!(legacy.json()["kind"], "APIGroupList", "{r} {v}");
            }
        }
    }
}

/// `/version` answers the release (`version.Info`, written raw and indented).
#[test]
fn version_answers_the_release() {
    for (r, minor) in [("1.27", "27"), ("v1.31.4", "31"), ("1.37", "37")] {
        let s = sim_as(r, 1);
        let got = support::get(s.addr().port(), "/version", &[]);
        assert_eq!(
            got.text(),
            format!("{{\n  \"major\": \"1\",\n  \"minor\": \"{minor}\",\n  \"gitVersion\": \"v1.{minor}.0-kubelive-sim\",\n  \"gitCommit\": \"0000000000000000000000000000000000000000\",\n  \"gitTreeState\": \"clean\",\n  \"buildDate\": \"2025-01-01T00:00:00Z\",\n  \"goVersion\": \"go1.23.0\",\n  \"compiler\": \"gc\",\n  \"platform\": \"linux/amd64\"\n}}")
        );
    }
    let mut c = cluster_as("1.29", StreamingLists::ByRelease);
    let Reply::Response(v) = ask(&mut c, Get::new("/version"), 0) else {
        panic!("a response");
    };
    assert_eq!(
        serde_json::from_slice::<Value>(&v.body).unwrap()["minor"],
        "29"
    );
}

/// `kubelive-sim serve --kube-version` takes 1.27 to 1.37 in the forms users write and
/// refuses anything else with a clear error (exit 2, no panic).
#[test]
fn kube_version_flag_refuses_other_releases() {
    let bin = env!("CARGO_BIN_EXE_kubelive-sim");
    for bad in ["1.26", "1.38", "2.0", "latest", ""] {
        let out = std::process::Command::new(bin)
            .args(["serve", "--kube-version", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("kubelive-sim: --kube-version: ") && err.contains("1.27 to 1.37"),
            "{bad:?}: {err}"
        );
    }
    let out = std::process::Command::new(bin)
        .args(["serve", "--feature-gates", "WatchList=maybe"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
