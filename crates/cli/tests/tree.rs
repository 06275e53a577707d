//! `kubelive tree` against the simulated apiserver (in this process, its controllers
//! running: ReplicaSets owned by their Deployment, Pods by their ReplicaSet, rollouts,
//! CronJobs' Jobs and Pods). The tree printed must equal the sim's truth: the objects
//! joined by `ownerReferences` uids, read from the cluster itself.
//!
//! No timing assertions: a live tree is waited for with a generous bound whose only
//! purpose is to turn a hang into a failure.

use kubelive_sim::rbac::{parse_allow, Policy};
use kubelive_sim::resources::{ResourceType, CRONJOBS, JOBS};
use kubelive_sim::server::{Server, ServerConfig};
use kubelive_sim::{Cluster, DEPLOYMENTS, PODS, REPLICASETS};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

fn kubelive(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubelive"));
    cmd.args(args);
    cmd
}

/// One line of the tree: its depth below the root, `Kind/name`, and the line.
type Node = (usize, String);

/// The nodes of a printed tree, in order: depth from the NAME column's indentation
/// (two characters a level, the box-drawing `├─`/`└─` included).
fn nodes(text: &str) -> Vec<Node> {
    let mut lines = text.lines().skip_while(|l| !l.starts_with("NAMESPACE"));
    let head = lines.next().expect("a header line");
    let at = head.find("NAME ").expect("a NAME column");
    lines
        .filter(|l| l.len() > at)
        .map(|l| {
            let name_col: String = l.chars().skip(at).collect();
            let trimmed = name_col.trim_start_matches(['│', '├', '└', '─', ' ']);
            let depth = (name_col.chars().count() - trimmed.chars().count()) / 2;
            let node = trimmed.split_whitespace().next().unwrap_or("").to_string();
            (depth, node)
        })
        .collect()
}

/// The printed tree's table: its header line, then a line per node.
fn table_lines(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.starts_with("NAMESPACE"))
        .collect()
}

fn uid(v: &Value) -> &str {
    v.pointer("/metadata/uid")
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The objects of `rt` in `ns` whose ownerReferences name `owner_uid`, by name.
fn owned(c: &Cluster, rt: ResourceType, ns: &str, owner_uid: &str) -> Vec<Value> {
    let mut out: Vec<Value> = c
        .names(rt)
        .into_iter()
        .filter(|(n, _)| n == ns)
        .filter_map(|(n, name)| c.get_value(rt, &n, &name))
        .filter(|v| {
            v.pointer("/metadata/ownerReferences")
                .and_then(Value::as_array)
                .is_some_and(|refs| {
                    refs.iter()
                        .any(|r| r.get("uid").and_then(Value::as_str) == Some(owner_uid))
                })
        })
        .collect();
    out.sort_by_key(|v| {
        v.pointer("/metadata/name")
            .and_then(Value::as_str)
            .map(String::from)
    });
    out
}

fn name(v: &Value) -> String {
    v.pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// The tree the sim holds below Deployment `ns/name`, as `nodes` reads a printed one.
fn deployment_truth(server: &Server, ns: &str, deployment: &str) -> Vec<Node> {
    server.with_cluster(|c, _| {
        let d = c
            .get_value(DEPLOYMENTS, ns, deployment)
            .expect("the deployment");
        let mut out = vec![(0, format!("Deployment/{deployment}"))];
        for rs in owned(c, REPLICASETS, ns, uid(&d)) {
            out.push((1, format!("ReplicaSet/{}", name(&rs))));
            for p in owned(c, PODS, ns, uid(&rs)) {
                out.push((2, format!("Pod/{}", name(&p))));
            }
        }
        out
    })
}

fn sim(cfg: ServerConfig) -> Server {
    let server = Server::start(cfg).expect("sim");
    // Requests wait for the workload to be populated; the first answer says it is.
    let _ = std::net::TcpStream::connect(server.addr());
    server
}

/// A calm sim of three namespaces, each with one Deployment of ten pods (app-N in
/// ns-N) and a widget that controls it.
fn three_deployments() -> Server {
    sim(ServerConfig {
        objects: 30,
        namespaces: 3,
        churn: 0.0,
        seed: 5,
        ..ServerConfig::default()
    })
}

fn once(server: &Server, args: &[&str]) -> (i32, String, String) {
    let url = server.url();
    let mut all = vec!["tree"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--server", &url, "--once", "--duration", "60"]);
    let out = kubelive(&all).output().expect("run kubelive");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A Deployment's tree, printed once synced, equals the sim's truth: its ReplicaSet
/// and that ReplicaSet's ten Pods, each Running and ready, all healthy.
#[test]
fn deployment_tree_equals_truth() {
    let server = three_deployments();
    let (code, out, err) = once(&server, &["deploy/app-1"]);
    assert_eq!(code, 0, "stderr: {err}\nstdout: {out}");
    let truth = deployment_truth(&server, "ns-1", "app-1");
    assert_eq!(truth.len(), 12, "one ReplicaSet, ten Pods: {truth:?}");
    assert_eq!(nodes(&out), truth, "{out}");
    // Its owner, a custom resource, is named above the tree.
    assert_eq!(
        out.lines().next(),
        Some("owned by Widget/widget-1"),
        "{out}"
    );
    let lines: Vec<&str> = table_lines(&out);
    assert!(
        lines[1].contains("10/10") && lines[1].contains(" ok "),
        "{out}"
    );
    let pod_line = lines.iter().find(|l| l.contains("Pod/")).unwrap();
    assert!(pod_line.contains("└─") || pod_line.contains("├─"), "{out}");
    assert!(pod_line.contains("Running"), "{out}");
    // -n names the namespace; a name that is not there is an error.
    let (code, out2, _) = once(&server, &["deployments.apps/app-1", "-n", "ns-1"]);
    assert_eq!(code, 0);
    assert_eq!(nodes(&out2), truth);
    let (code, _, err) = once(&server, &["deploy/app-1", "-n", "ns-0"]);
    assert_eq!(code, 1);
    assert!(err.contains("not found"), "{err}");
}

/// Below a custom resource, whose operator may make any kind: the sim's widget-1 is
/// the controller of Deployment app-1, and its tree is that Deployment's, one level
/// down, with the widget's own line (its printer columns have no Ready or Status).
#[test]
fn custom_resource_tree_equals_truth() {
    let server = three_deployments();
    let (code, out, err) = once(&server, &["widgets.kubelive.dev/widget-1", "-n", "ns-1"]);
    assert_eq!(code, 0, "stderr: {err}\nstdout: {out}");
    let mut truth = vec![(0, "Widget/widget-1".to_string())];
    truth.extend(
        deployment_truth(&server, "ns-1", "app-1")
            .into_iter()
            .map(|(depth, node)| (depth + 1, node)),
    );
    assert_eq!(truth.len(), 13, "{truth:?}");
    assert_eq!(nodes(&out), truth, "{out}");
}

/// A CronJob's Jobs and their Pods.
#[test]
fn cronjob_tree_equals_truth() {
    let server = sim(ServerConfig {
        objects: 10,
        namespaces: 1,
        churn: 0.0,
        cronjobs: 1,
        seed: 9,
        ..ServerConfig::default()
    });
    // Wait (bounded) for the CronJob's first Job to exist.
    let start = Instant::now();
    while server.with_cluster(|c, _| c.count(JOBS)) == 0 {
        assert!(start.elapsed() < Duration::from_secs(120), "no Job came");
        thread::sleep(Duration::from_millis(100));
    }
    // Jobs and pods move on while the tree is read: compare with the truth read
    // around the run, as often as needed (the CronJob runs every minute).
    for _ in 0..20 {
        let before = cron_truth(&server);
        let (code, out, err) = once(&server, &["cronjob/cron-0"]);
        assert_eq!(code, 0, "stderr: {err}");
        let after = cron_truth(&server);
        if before == after {
            assert_eq!(nodes(&out), after, "{out}");
            assert!(after.iter().any(|(_, n)| n.starts_with("Job/")));
            return;
        }
    }
    panic!("the cluster never held still around a run");
}

fn cron_truth(server: &Server) -> Vec<Node> {
    server.with_cluster(|c, _| {
        let cj = c
            .get_value(CRONJOBS, "ns-0", "cron-0")
            .expect("the cronjob");
        let mut out = vec![(0, "CronJob/cron-0".to_string())];
        for j in owned(c, JOBS, "ns-0", uid(&cj)) {
            out.push((1, format!("Job/{}", name(&j))));
            for p in owned(c, PODS, "ns-0", uid(&j)) {
                out.push((2, format!("Pod/{}", name(&p))));
            }
        }
        out
    })
}

/// Live: a rollout's new ReplicaSet appears under the Deployment with the pods that
/// move to it, and once the sim stops, the last tree printed equals its truth.
#[test]
fn rollout_shows_live() {
    let server = sim(ServerConfig {
        objects: 10,
        namespaces: 1,
        churn: 0.0,
        rollout_every_s: Some(1.0),
        churn_for_s: Some(8.0),
        seed: 3,
        ..ServerConfig::default()
    });
    let url = server.url();
    let mut child = kubelive(&[
        "tree",
        "deploy/app-0",
        "--server",
        &url,
        "--duration",
        "120",
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::null())
    .spawn()
    .expect("spawn");
    // Frames (trees printed into a pipe are separated by a blank line).
    let frames: Arc<Mutex<Vec<String>>> = Arc::default();
    {
        let frames = frames.clone();
        let stdout = child.stdout.take().unwrap();
        thread::spawn(move || {
            let mut cur = String::new();
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if line.is_empty() {
                    frames.lock().unwrap().push(std::mem::take(&mut cur));
                } else {
                    cur.push_str(&line);
                    cur.push('\n');
                }
            }
        });
    }
    let start = Instant::now();
    let mut saw_two = false;
    let result = loop {
        let last = frames.lock().unwrap().last().cloned();
        if let Some(f) = &last {
            let n = nodes(f);
            saw_two |= n
                .iter()
                .filter(|(d, k)| *d == 1 && k.starts_with("ReplicaSet/"))
                .count()
                == 2;
            // After the sim stopped (8 s), the tree must come to equal its truth.
            if saw_two && start.elapsed() > Duration::from_secs(9) {
                let truth = deployment_truth(&server, "ns-0", "app-0");
                if n == truth {
                    break Ok(());
                }
            }
        }
        if start.elapsed() > Duration::from_secs(90) {
            break Err(format!(
                "saw two ReplicaSets: {saw_two}; last frame:\n{}\ntruth: {:?}",
                last.unwrap_or_default(),
                deployment_truth(&server, "ns-0", "app-0")
            ));
        }
        thread::sleep(Duration::from_millis(100));
    };
    let _ = child.kill();
    let _ = child.wait();
    result.unwrap();
}

/// A user who may list Deployments and Pods but not ReplicaSets: the missing level
/// says why (the server's 403 message).
#[test]
fn forbidden_level_says_why() {
    let rules = parse_allow("get,list,watch:deployments.apps,pods").unwrap();
    let server = sim(ServerConfig {
        objects: 10,
        namespaces: 1,
        churn: 0.0,
        policy: Policy::restricted("dev", &rules),
        seed: 4,
        ..ServerConfig::default()
    });
    let (code, out, err) = once(&server, &["deploy/app-0"]);
    assert_eq!(code, 0, "stderr: {err}\nstdout: {out}");
    let lines: Vec<&str> = table_lines(&out);
    assert!(lines[1].contains("Deployment/app-0"), "{out}");
    assert!(
        lines[2].contains("└─ReplicaSet: cannot be listed:")
            && lines[2].contains("forbidden")
            && lines[2].contains("replicasets"),
        "{out}"
    );
    assert_eq!(lines.len(), 3, "{out}");
}

/// `tree`'s arguments: RESOURCE/NAME and its flags; a bad one is a usage error.
#[test]
fn tree_arguments() {
    use kubelive::args::{parse, Command, TreeArgs};
    let args = |a: &[&str]| parse(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    let Ok(Command::Tree(t)) = args(&["tree", "deploy/web", "-n", "shop", "--once"]) else {
        panic!("a tree command")
    };
    assert_eq!(
        t,
        TreeArgs {
            resource: "deploy".into(),
            name: "web".into(),
            server: kubelive::args::DEFAULT_SERVER.into(),
            namespace: Some("shop".into()),
            once: true,
            duration: None,
            verbose: false,
        }
    );
    for bad in [
        &["tree"][..],
        &["tree", "deploy"],
        &["tree", "deploy/"],
        &["tree", "/web"],
        &["tree", "a/b/c"],
        &["tree", "deploy/web", "extra/one"],
        &["tree", "deploy/web", "--once=yes"],
        &["tree", "deploy/web", "-o", "table"],
    ] {
        assert!(args(bad).is_err(), "{bad:?}");
    }
    // Usage errors exit 2 with the message.
    let out = kubelive(&["tree", "deploy"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("RESOURCE/NAME"));
}

/// Requests the sim counted (`apiserver_request_total` at its `/metrics`) for `verb`
/// on `resource`, summed over response codes.
fn requests(server: &Server, verb: &str, resource: &str) -> i64 {
    let base = kubelive::http::BaseUrl::parse(&server.url()).unwrap();
    let pool = kubelive::http::Pool::default();
    let r = kubelive::http::get(&base, &pool, "/metrics", Duration::from_secs(10)).unwrap();
    assert_eq!(r.status, 200);
    let text = String::from_utf8(r.body).unwrap();
    let prefix =
        format!("apiserver_request_total{{verb=\"{verb}\",resource=\"{resource}\",code=\"");
    text.lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .filter_map(|l| l.split_once("\"} "))
        .map(|(_, n)| n.parse::<i64>().unwrap())
        .sum()
}

/// What a tree costs the server: one LIST per kind (the root's kind twice: once to
/// find the object and its kind, once to sync it), at most one WATCH per kind, and no
/// request per node.
#[test]
fn one_list_per_kind_none_per_node() {
    let server = sim(ServerConfig {
        objects: 200,
        namespaces: 2,
        churn: 0.0,
        seed: 8,
        ..ServerConfig::default()
    });
    let (code, out, err) = once(&server, &["deploy/app-3"]);
    assert_eq!(code, 0, "stderr: {err}");
    assert_eq!(nodes(&out).len(), 12, "{out}");
    assert_eq!(requests(&server, "LIST", "deployments"), 2);
    assert_eq!(requests(&server, "LIST", "replicasets"), 1);
    assert_eq!(requests(&server, "LIST", "pods"), 1);
    for resource in ["deployments", "replicasets", "pods"] {
        assert_eq!(requests(&server, "GET", resource), 0, "{resource}");
        assert!(requests(&server, "WATCH", resource) <= 1, "{resource}");
    }
}
