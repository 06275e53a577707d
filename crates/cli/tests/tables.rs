//! `--output table`, `-o wide` and `--output events` with the server's columns, against
//! a local responder that answers as kube-apiserver does: Table bytes written by the
//! sim's printers (`kubelive_sim::printers`, pinned to `pkg/printers/internalversion/
//! printers.go` and the handlers' `response.go`/`watch.go`) when the request's Accept
//! asks for `as=Table`, the plain list otherwise; or a server without tables (plain
//! answers whatever is asked), or one that answers 406 to a Table request.
//!
//! No timing assertions: `--duration` ends each run; the watch event comes at once.

use kubelive::output::human_age;
use kubelive_sim::printers::{
    IncludeObject, ListMeta, TableConvertor, TableFormat, TableListWriter, TableVersion,
    WatchTableEncoder,
};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// Created 2024-03-01T12:00:00Z: the server's Age text ("5m", printed for another
/// instant) must not be what the CLI shows.
const CREATED: &str = "2024-03-01T12:00:00Z";
const CREATED_SECS: i64 = 1_709_294_400;

fn pod(ns: &str, name: &str, rv: u64, phase: &str, restarts: u32) -> String {
    format!(
        r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"{ns}","uid":"u-{name}","resourceVersion":"{rv}","creationTimestamp":"{CREATED}","labels":{{"app":"web"}}}},"spec":{{"nodeName":"node-7","containers":[{{"name":"c","image":"nginx"}}]}},"status":{{"phase":"{phase}","podIP":"10.0.0.{rv}","podIPs":[{{"ip":"10.0.0.{rv}"}}],"containerStatuses":[{{"name":"c","ready":true,"restartCount":{restarts},"state":{{"running":{{"startedAt":"{CREATED}"}}}}}}]}}}}"#
    )
}

#[derive(Clone, Copy, PartialEq)]
enum Server {
    /// kube-apiserver: tables when asked.
    Tables,
    /// A server (or aggregated API) without tables: plain answers whatever is asked.
    Plain,
    /// An aggregated API that cannot print: 406 to a Table request.
    NotAcceptable,
}

fn now_ms() -> i64 {
    kubelive_sim::printers::parse_rfc3339_ms("2024-03-01T12:05:00Z").unwrap_or(0)
}

fn format() -> TableFormat {
    TableFormat {
        version: TableVersion::V1,
        include: IncludeObject::Metadata,
    }
}

fn table_list(pods: &[String]) -> String {
    let conv = TableConvertor::for_kind("", "Pod");
    let mut out = String::new();
    let meta = ListMeta {
        resource_version: "10",
        ..ListMeta::default()
    };
    let mut w = TableListWriter::begin(&mut out, &conv, format(), &meta);
    for p in pods {
        let row = conv.row_from_json(p).unwrap();
        w.push_row(&mut out, &row, p, now_ms()).unwrap();
    }
    w.finish(&mut out);
    out
}

fn table_event(p: &str) -> String {
    let conv = TableConvertor::for_kind("", "Pod");
    let mut enc = WatchTableEncoder::new(format());
    let mut out = String::new();
    let row = conv.row_from_json(p).unwrap();
    enc.write_event(&mut out, &conv, "ADDED", &row, p, now_ms())
        .unwrap();
    out
}

/// Reads one request head: its target and Accept header; `None` at EOF.
fn read_head(r: &mut BufReader<TcpStream>) -> Option<(String, String)> {
    let mut line = String::new();
    if r.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let target = line.split(' ').nth(1)?.to_string();
    let mut accept = String::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).ok()? == 0 {
            return None;
        }
        if h == "\r\n" {
            return Some((target, accept));
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("accept") {
                accept = v.trim().to_string();
            }
        }
    }
}

fn respond(w: &mut TcpStream, status: &str, content_type: &str, body: &str) {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    w.write_all(head.as_bytes()).unwrap();
    w.write_all(body.as_bytes()).unwrap();
    w.flush().unwrap();
}

const TABLE_TYPE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io";

fn serve(conn: TcpStream, server: Server, accepts: Arc<Mutex<Vec<String>>>) {
    let mut w = conn.try_clone().unwrap();
    let mut r = BufReader::new(conn);
    let all = [
        pod("default", "web-1", 5, "Running", 0),
        pod("tools", "job-2", 6, "Succeeded", 3),
    ];
    while let Some((target, accept)) = read_head(&mut r) {
        accepts.lock().unwrap().push(accept.clone());
        let pods: Vec<String> = all
            .iter()
            .filter(|p| !target.contains("/namespaces/default/") || p.contains("\"default\""))
            .cloned()
            .collect();
        let tables = accept.contains("as=Table") && server == Server::Tables;
        if accept.contains("as=Table") && server == Server::NotAcceptable {
            // Written indented, as the apiserver's WriteRawJSON does.
            let body = "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {},\n  \"status\": \"Failure\",\n  \"message\": \"only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf\",\n  \"reason\": \"NotAcceptable\",\n  \"code\": 406\n}";
            respond(&mut w, "406 Not Acceptable", "application/json", body);
            continue;
        }
        if target.contains("watch=true") {
            let new = pod("default", "web-3", 11, "Running", 1);
            let (ct, line) = if tables {
                (TABLE_TYPE, table_event(&new))
            } else {
                (
                    "application/json",
                    format!("{{\"type\":\"ADDED\",\"object\":{new}}}\n"),
                )
            };
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {ct}\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{line}\r\n",
                line.len()
            );
            w.write_all(head.as_bytes()).unwrap();
            w.flush().unwrap();
            // Open until the client goes away.
            let mut sink = [0u8; 64];
            let _ = r.read(&mut sink);
            return;
        }
        if tables {
            respond(&mut w, "200 OK", TABLE_TYPE, &table_list(&pods));
        } else {
            let body = format!(
                r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"10"}},"items":[{}]}}"#,
                pods.join(",")
            );
            respond(&mut w, "200 OK", "application/json", &body);
        }
    }
}

struct Run {
    stdout: String,
    stderr: String,
    accepts: Vec<String>,
    /// The ages the CLI may have shown for CREATED (before and after the run).
    ages: [String; 2],
}

fn run(server: Server, args: &[&str]) -> Run {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepts = Arc::new(Mutex::new(Vec::new()));
    {
        let accepts = accepts.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { break };
                let accepts = accepts.clone();
                std::thread::spawn(move || serve(conn, server, accepts));
            }
        });
    }
    let age = || {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        human_age(now - CREATED_SECS)
    };
    let before = age();
    let url = format!("http://127.0.0.1:{port}");
    let out = Command::new(env!("CARGO_BIN_EXE_kubelive"))
        .args([
            "watch",
            "/api/v1/pods",
            "--server",
            &url,
            "--duration",
            "1.5",
        ])
        .args(args)
        .output()
        .unwrap();
    let after = age();
    assert_eq!(out.status.code(), Some(0));
    let accepts = accepts.lock().unwrap().clone();
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        accepts,
        ages: [before, after],
    }
}

/// The table's lines with runs of spaces made one (kubectl pads with at least three).
fn cells(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .map(|l| {
            l.split("   ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect()
}

#[test]
fn table_shows_the_servers_columns_with_a_live_age() {
    let r = run(Server::Tables, &["-o", "table"]);
    let table = r.accepts.iter().all(|a| {
        a == "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
    });
    assert!(table, "{:?}", r.accepts);
    let lines = cells(&r.stdout);
    assert_eq!(
        lines[0], "NAMESPACE | NAME | READY | STATUS | RESTARTS | AGE",
        "{}",
        r.stdout
    );
    let age = &r.ages;
    let rows: Vec<&String> = lines[1..].iter().collect();
    assert_eq!(rows.len(), 3, "{}", r.stdout);
    for (row, want) in rows.iter().zip([
        "default | web-1 | 1/1 | Running | 0",
        "default | web-3 | 1/1 | Running | 1",
        "tools | job-2 | 1/1 | Succeeded | 3",
    ]) {
        assert!(
            age.iter().any(|a| **row == format!("{want} | {a}")),
            "{row:?} is not {want} | {age:?}\n{}",
            r.stdout
        );
    }
    assert!(r.stderr.contains("columns: Name, Ready, Status, Restarts, Age, IP, Node, Nominated Node, Readiness Gates"), "{}", r.stderr);
}

#[test]
fn wide_adds_the_columns_of_higher_priority() {
    let r = run(Server::Tables, &["-o", "wide", "-n", "default"]);
    let lines = cells(&r.stdout);
    assert_eq!(
        lines[0],
        "NAME | READY | STATUS | RESTARTS | AGE | IP | NODE | NOMINATED NODE | READINESS GATES",
        "{}",
        r.stdout
    );
    assert!(
        lines[1].starts_with("web-1 | 1/1 | Running | 0 | ")
            && lines[1].ends_with(" | 10.0.0.5 | node-7 | <none> | <none>"),
        "{}",
        r.stdout
    );
}

#[test]
fn events_show_the_cells() {
    let r = run(Server::Tables, &["-o", "events"]);
    let added: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(added.len(), 3, "{}", r.stdout);
    let want = "ADDED     default/web-3  rv=11  ready=1/1 status=Running restarts=1 age=";
    let line = added
        .iter()
        .find(|l| l.contains("web-3"))
        .expect("the watch event");
    assert!(
        r.ages.iter().any(|a| *line == format!("{want}{a}")),
        "{line}"
    );
    assert!(r
        .stdout
        .contains("tools/job-2  rv=6  ready=1/1 status=Succeeded restarts=3 age="));
}

#[test]
fn a_server_without_tables_is_shown_with_kubelives_own_columns() {
    for server in [Server::Plain, Server::NotAcceptable] {
        let r = run(server, &["-o", "table"]);
        let lines = cells(&r.stdout);
        assert_eq!(
            lines[0], "NAMESPACE | NAME | READY | STATUS | RESTARTS | AGE | NODE",
            "{}",
            r.stdout
        );
        assert_eq!(lines.len(), 4, "{}", r.stdout);
        assert!(
            lines[1].starts_with("default | web-1 | 1/1 | Running | 0 | "),
            "{}",
            r.stdout
        );
        assert!(lines[3].ends_with(" | node-7"), "{}", r.stdout);
        assert!(
            r.stderr.contains("the server prints no tables here"),
            "{}",
            r.stderr
        );
        // Once the server has said it, objects are asked for.
        assert!(
            r.accepts.last().is_some_and(|a| a == "application/json"),
            "{:?}",
            r.accepts
        );
    }
}

#[test]
fn server_print_false_and_snapshots_ask_for_objects() {
    for args in [
        &["-o", "table", "--server-print=false"][..],
        &["-o", "snapshot"],
    ] {
        let r = run(Server::Tables, args);
        assert!(
            r.accepts.iter().all(|a| a == "application/json"),
            "{args:?}: {:?}",
            r.accepts
        );
        assert!(!r.stderr.contains("columns:"), "{}", r.stderr);
    }
}
