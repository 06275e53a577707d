//! Argument parsing, and the binary's exit status on usage errors.

use kubelive::args::{parse, Command, Namespaces, Output};
use std::process::Command as Process;
use std::time::Duration;

fn args(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

fn watch(s: &str) -> kubelive::args::WatchArgs {
    match parse(&args(s)) {
        Ok(Command::Watch(w)) => w,
        other => panic!("{s}: {other:?}"),
    }
}

#[test]
fn defaults() {
    let w = watch("watch pods");
    assert_eq!(w.resource, "pods");
    assert_eq!(w.server, "http://127.0.0.1:8001");
    assert_eq!(w.namespaces, Namespaces::Default);
    assert_eq!(w.output, Output::Events);
    assert_eq!(w.page_size, 500);
    assert_eq!(w.max_page_size, 4000);
    assert_eq!(w.duration, None);
    assert_eq!(w.watch_timeout, None);
    assert!(!w.streaming_list && !w.strip_managed_fields && !w.verbose);
    // The server prints, as for kubectl get.
    assert!(w.server_print && !w.wide);
}

#[test]
fn wide_and_server_print() {
    let w = watch("watch svc -o wide");
    assert_eq!((w.output, w.wide), (Output::Table, true));
    let w = watch("watch svc --output=table");
    assert_eq!((w.output, w.wide), (Output::Table, false));
    assert!(!watch("watch svc --server-print=false").server_print);
    assert!(watch("watch svc --server-print=true").server_print);
    assert!(watch("watch svc --server-print").server_print);
}

#[test]
fn every_option() {
    let w = watch(
        "watch /api/v1/pods --server http://h:1 -n kube-system -l app=web --field-selector=spec.nodeName=n1 \
         --streaming-list --page-size 7 --max-page-size 7 --no-pipeline -o snapshot --duration 2.5 --watch-timeout 20 \
         --strip-managed-fields -v",
    );
    assert!(!w.pipeline_pages);
    assert!(watch("watch pods").pipeline_pages);
    assert_eq!(w.resource, "/api/v1/pods");
    assert_eq!(w.server, "http://h:1");
    assert_eq!(w.namespaces, Namespaces::One("kube-system".into()));
    assert_eq!(w.label_selector.as_deref(), Some("app=web"));
    assert_eq!(w.field_selector.as_deref(), Some("spec.nodeName=n1"));
    assert!(w.streaming_list && w.strip_managed_fields && w.verbose);
    assert_eq!((w.page_size, w.max_page_size), (7, 7));
    assert_eq!(w.output, Output::Snapshot);
    assert_eq!(w.duration, Some(Duration::from_millis(2500)));
    assert_eq!(w.watch_timeout, Some(20));
    assert_eq!(
        watch("watch -A po --output=table").namespaces,
        Namespaces::All
    );
    assert_eq!(watch("watch po --output=table").output, Output::Table);
    assert_eq!(
        watch("watch po --namespace=x").namespaces,
        Namespaces::One("x".into())
    );
}

#[test]
fn help_and_version() {
    assert_eq!(parse(&args("--help")), Ok(Command::Help));
    assert_eq!(parse(&args("watch pods -h")), Ok(Command::Help));
    assert_eq!(parse(&args("version")), Ok(Command::Version));
}

#[test]
fn usage_errors() {
    for bad in [
        "",
        "get pods",
        "watch",
        "watch pods deployments",
        "watch pods -n",
        "watch pods -n a -A",
        "watch pods --output yaml",
        "watch pods --page-size -1",
        "watch pods --page-size many",
        "watch pods --max-page-size -2",
        "watch pods --duration soon",
        "watch pods --duration -3",
        "watch pods --watch-timeout 0",
        "watch pods --watch-timeout 1.5",
        "watch pods --bogus",
        "watch pods -A=1",
        "watch pods -n a/b",
        "watch pods --server-print=no",
        "watch pods -o wider",
    ] {
        assert!(
            parse(&args(bad)).is_err(),
            "{bad:?} should be a usage error"
        );
    }
}

fn exe() -> Process {
    Process::new(env!("CARGO_BIN_EXE_kubelive"))
}

#[test]
fn binary_exits_2_on_usage_errors_with_a_message() {
    for bad in [
        &["watch"][..],
        &["frobnicate"],
        &["watch", "pods", "--output", "yaml"],
        &["watch", "pods", "--server", "https://10.0.0.1:6443"],
        &["watch", "/api/v1/pods/x"],
        &["watch", "/api/v1/namespaces/a/pods", "-n", "b"],
    ] {
        let out = exe().args(bad).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("kubelive: "), "{bad:?}: {err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn binary_help_and_version() {
    let out = exe().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    for word in [
        "--streaming-list",
        "--page-size",
        "--max-page-size",
        "--no-pipeline",
        "--output",
        "wide",
        "--server-print",
        "--duration",
        "--watch-timeout",
        "EXAMPLES",
        "all namespaces",
    ] {
        assert!(help.contains(word), "help lacks {word}");
    }
    let out = exe().arg("version").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("kubelive "));
}
