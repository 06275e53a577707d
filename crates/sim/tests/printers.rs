//! Server-side printing against the real apiserver's behaviour: the cells of
//! `pkg/printers/internalversion/printers_test.go` (kubernetes v1.32) for the same objects,
//! written as JSON; the Table documents of `staging/src/k8s.io/apiserver/pkg/endpoints/
//! handlers/response.go` (`asTable`) and `watch.go`; the CRD convertor; and the real
//! `kubectl` reading those documents from a local responder.

use serde_json::{json, Value};

use kubelive_sim::kinds::{self, Identity, PodRef, PodStory, ServiceKind};
use kubelive_sim::printers::{
    format_rfc3339, parse_rfc3339_ms, write_object_table, Cell, IncludeObject, ListMeta,
    TableConvertor, TableFormat, TableListWriter, TableVersion, WatchTableEncoder,
};
use kubelive_sim::Rng;

mod support;

/// "Now" for every test: 2025-01-01T01:00:00Z.
const NOW: i64 = 1_735_689_600_000 + 3_600_000;

fn ago(ms: i64) -> String {
    format_rfc3339(NOW - ms)
}

const S: i64 = 1000;
const MIN: i64 = 60 * S;
const DAY: i64 = 24 * 60 * MIN;

fn cells(group: &str, kind: &str, obj: &Value) -> Vec<String> {
    TableConvertor::for_kind(group, kind).row(obj).texts(NOW)
}

/// The first five (non-wide) cells of a pod.
fn pod_cells(obj: Value) -> Vec<String> {
    cells("", "Pod", &obj)[..5].to_vec()
}

fn containers(n: usize) -> Value {
    Value::Array((0..n).map(|_| json!({})).collect())
}

fn running(ready: bool, restarts: i64) -> Value {
    json!({"ready": ready, "restartCount": restarts, "state": {"running": {}}})
}

// ---------------------------------------------------------------- pods

/// TestPrintPod in printers_test.go: the same pods, the same cells.
#[test]
fn pod_cells_match_print_pod() {
    let cases: Vec<(Value, [&str; 5])> = vec![
        // Name, number of containers, restarts, container ready status.
        (
            json!({"metadata": {"name": "test1"}, "spec": {"containers": containers(2)},
                   "status": {"phase": "podPhase", "containerStatuses": [running(true, 3), {"restartCount": 3}]}}),
            ["test1", "1/2", "podPhase", "6", "<unknown>"],
        ),
        // A container's waiting reason overrides the phase.
        (
            json!({"metadata": {"name": "test2"}, "spec": {"containers": containers(2)},
                   "status": {"phase": "podPhase", "containerStatuses": [running(true, 3),
                       {"state": {"waiting": {"reason": "ContainerWaitingReason"}}, "restartCount": 3}]}}),
            ["test2", "1/2", "ContainerWaitingReason", "6", "<unknown>"],
        ),
        // Statuses are read last to first: the first container's reason wins.
        (
            json!({"metadata": {"name": "test3"}, "spec": {"containers": containers(2)},
                   "status": {"phase": "podPhase", "containerStatuses": [
                       {"state": {"waiting": {"reason": "ContainerWaitingReason"}}, "restartCount": 3},
                       {"state": {"terminated": {"reason": "ContainerTerminatedReason"}}, "restartCount": 3}]}}),
            ["test3", "0/2", "ContainerWaitingReason", "6", "<unknown>"],
        ),
        // Ready without a running state does not count.
        (
            json!({"metadata": {"name": "test4"}, "spec": {"containers": containers(2)},
                   "status": {"phase": "podPhase", "containerStatuses": [running(true, 3), {"ready": true, "restartCount": 3}]}}),
            ["test4", "1/2", "podPhase", "6", "<unknown>"],
        ),
        // status.reason overrides the phase.
        (
            json!({"metadata": {"name": "test5"}, "spec": {"containers": containers(2)},
                   "status": {"reason": "podReason", "phase": "podPhase", "containerStatuses": [running(true, 3), {"ready": true, "restartCount": 3}]}}),
            ["test5", "1/2", "podReason", "6", "<unknown>"],
        ),
        // One container completed, one running, no Ready condition: NotReady.
        (
            json!({"metadata": {"name": "test6"}, "spec": {"containers": containers(2)},
                   "status": {"phase": "Running", "containerStatuses": [
                       {"ready": true, "restartCount": 3, "state": {"terminated": {"reason": "Completed", "exitCode": 0}}},
                       running(true, 3)]}}),
            ["test6", "1/2", "NotReady", "6", "<unknown>"],
        ),
        // ... with the Ready condition: Running.
        (
            json!({"metadata": {"name": "test6"}, "spec": {"containers": containers(2)},
                   "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}], "containerStatuses": [
                       {"ready": true, "restartCount": 3, "state": {"terminated": {"reason": "Completed", "exitCode": 0}}},
                       running(true, 3)]}}),
            ["test6", "1/2", "Running", "6", "<unknown>"],
        ),
        // An init container restarting: Init:0/1 and the time of its last restart.
        (
            json!({"metadata": {"name": "test7"}, "spec": {"initContainers": containers(1), "containers": containers(1)},
                   "status": {"phase": "podPhase",
                       "initContainerStatuses": [{"ready": false, "restartCount": 3, "state": {"running": {}},
                           "lastState": {"terminated": {"finishedAt": ago(10 * S)}}}],
                       "containerStatuses": [{"ready": false, "restartCount": 0, "state": {"waiting": {}}}]}}),
            ["test7", "0/1", "Init:0/1", "3 (10s ago)", "<unknown>"],
        ),
        (
            json!({"metadata": {"name": "test8"}, "spec": {"initContainers": containers(2), "containers": containers(1)},
                   "status": {"phase": "podPhase",
                       "initContainerStatuses": [
                           {"ready": false, "restartCount": 3, "state": {"running": {}}, "lastState": {"terminated": {"finishedAt": ago(10 * S)}}},
                           {"ready": false, "state": {"waiting": {}}}],
                       "containerStatuses": [{"ready": false, "state": {"waiting": {}}}]}}),
            ["test8", "0/1", "Init:0/2", "3 (10s ago)", "<unknown>"],
        ),
        (
            json!({"metadata": {"name": "test9"}, "spec": {"initContainers": containers(2), "containers": containers(1)},
                   "status": {"phase": "podPhase",
                       "initContainerStatuses": [
                           {"ready": false, "state": {"terminated": {}}},
                           {"ready": false, "restartCount": 3, "state": {"running": {}}, "lastState": {"terminated": {"finishedAt": ago(10 * S)}}}],
                       "containerStatuses": [{"ready": false, "state": {"waiting": {}}}]}}),
            ["test9", "0/1", "Init:1/2", "3 (10s ago)", "<unknown>"],
        ),
        (
            json!({"metadata": {"name": "test10"}, "spec": {"initContainers": containers(2), "containers": containers(1)},
                   "status": {"phase": "podPhase",
                       "initContainerStatuses": [
                           {"ready": false, "restartCount": 2, "state": {"terminated": {}}, "lastState": {"terminated": {"finishedAt": ago(2 * MIN)}}},
                           {"ready": false, "restartCount": 3, "state": {"running": {}}, "lastState": {"terminated": {"finishedAt": ago(10 * S)}}}],
                       "containerStatuses": [{"ready": false, "state": {"waiting": {}}}]}}),
            ["test10", "0/1", "Init:1/2", "5 (10s ago)", "<unknown>"],
        ),
        // Init done: only the containers' restarts count.
        (
            json!({"metadata": {"name": "test11"}, "spec": {"initContainers": containers(1), "containers": containers(1)},
                   "status": {"phase": "Running",
                       "initContainerStatuses": [{"ready": false, "restartCount": 2, "state": {"terminated": {}}, "lastState": {"terminated": {"finishedAt": ago(2 * MIN)}}}],
                       "containerStatuses": [{"ready": false, "restartCount": 4, "state": {"running": {}}, "lastState": {"terminated": {"finishedAt": ago(20 * S)}}}]}}),
            ["test11", "0/1", "Running", "4 (20s ago)", "<unknown>"],
        ),
        (
            json!({"metadata": {"name": "test12"}, "spec": {"containers": containers(1)},
                   "status": {"phase": "Running", "containerStatuses": [{"ready": true, "restartCount": 3, "state": {"running": {}},
                       "lastState": {"terminated": {"finishedAt": ago(5 * DAY)}}}]}}),
            ["test12", "1/1", "Running", "3 (5d ago)", "<unknown>"],
        ),
        (
            json!({"metadata": {"name": "test13"}, "spec": {"containers": containers(2)},
                   "status": {"phase": "Running", "containerStatuses": [running(true, 0),
                       {"ready": true, "restartCount": 3, "state": {"running": {}}, "lastState": {"terminated": {"finishedAt": ago(10 * DAY)}}}]}}),
            ["test13", "2/2", "Running", "3 (10d ago)", "<unknown>"],
        ),
        // The most recent restart of all containers.
        (
            json!({"metadata": {"name": "test14"}, "spec": {"containers": containers(2)},
                   "status": {"phase": "Running", "containerStatuses": [
                       {"ready": true, "restartCount": 6, "state": {"running": {}}, "lastState": {"terminated": {"finishedAt": ago(5 * DAY)}}},
                       {"ready": true, "restartCount": 3, "state": {"running": {}}, "lastState": {"terminated": {"finishedAt": ago(20 * DAY)}}}]}}),
            ["test14", "2/2", "Running", "9 (5d ago)", "<unknown>"],
        ),
        (
            json!({"metadata": {"name": "test15"}, "spec": {"containers": containers(2)},
                   "status": {"phase": "podPhase", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]}}),
            ["test15", "0/2", "SchedulingGated", "0", "<unknown>"],
        ),
        (
            json!({"metadata": {"name": "test16"}, "spec": {"containers": containers(1)},
                   "status": {"phase": "Succeeded", "containerStatuses": [{"ready": false, "restartCount": 0,
                       "state": {"terminated": {"reason": "Completed", "exitCode": 0}}}]}}),
            ["test16", "0/1", "Completed", "0", "<unknown>"],
        ),
        (
            json!({"metadata": {"name": "test17"}, "spec": {"containers": containers(1)},
                   "status": {"phase": "Failed", "containerStatuses": [{"ready": false, "restartCount": 0,
                       "state": {"terminated": {"reason": "Error", "exitCode": 1}}}]}}),
            ["test17", "0/1", "Error", "0", "<unknown>"],
        ),
        // Deleted but already finished: not Terminating.
        (
            json!({"metadata": {"name": "test18", "deletionTimestamp": ago(10 * S)}, "spec": {"containers": containers(1)},
                   "status": {"phase": "Succeeded", "containerStatuses": [{"ready": false, "restartCount": 0,
                       "state": {"terminated": {"reason": "Completed", "exitCode": 0}}}]}}),
            ["test18", "0/1", "Completed", "0", "<unknown>"],
        ),
        (
            json!({"metadata": {"name": "test19", "deletionTimestamp": ago(10 * S)}, "spec": {"containers": containers(1)},
                   "status": {"phase": "Running", "containerStatuses": [running(false, 0)]}}),
            ["test19", "0/1", "Terminating", "0", "<unknown>"],
        ),
        (
            json!({"metadata": {"name": "test20", "deletionTimestamp": ago(10 * S)}, "spec": {"containers": containers(1)},
                   "status": {"phase": "Pending"}}),
            ["test20", "0/1", "Terminating", "0", "<unknown>"],
        ),
        // Not in printers_test.go: a deleted pod on an unreachable node (node.NodeUnreachablePodReason).
        (
            json!({"metadata": {"name": "lost", "deletionTimestamp": ago(10 * S)}, "spec": {"containers": containers(1)},
                   "status": {"phase": "Running", "reason": "NodeLost", "containerStatuses": [running(true, 0)]}}),
            ["lost", "1/1", "Unknown", "0", "<unknown>"],
        ),
        // Terminated without a reason: ExitCode / Signal.
        (
            json!({"metadata": {"name": "exit"}, "spec": {"containers": containers(2)},
                   "status": {"phase": "Running", "containerStatuses": [
                       {"state": {"terminated": {"exitCode": 137, "signal": 9}}},
                       {"state": {"terminated": {"exitCode": 2}}}]}}),
            ["exit", "0/2", "Signal:9", "0", "<unknown>"],
        ),
        // A failing init container.
        (
            json!({"metadata": {"name": "initfail"}, "spec": {"initContainers": containers(1), "containers": containers(1)},
                   "status": {"phase": "Pending", "initContainerStatuses": [
                       {"restartCount": 1, "state": {"waiting": {"reason": "CrashLoopBackOff"}}, "lastState": {"terminated": {"exitCode": 1, "finishedAt": ago(90 * S)}}}]}}),
            [
                "initfail",
                "0/1",
                "Init:CrashLoopBackOff",
                "1 (90s ago)",
                "<unknown>",
            ],
        ),
    ];
    for (pod, want) in cases {
        assert_eq!(pod_cells(pod.clone()), want, "{pod}");
    }
}

/// TestPrintPodWithRestartableInitContainer: sidecars count as containers.
#[test]
fn pod_cells_with_restartable_init_containers() {
    let sidecars = json!([{"name": "restartable-init-1", "restartPolicy": "Always"},
                          {"name": "restartable-init-2", "restartPolicy": "Always"}]);
    let cases: Vec<(Value, [&str; 5])> = vec![
        (
            json!({"metadata": {"name": "test1"}, "spec": {"initContainers": sidecars, "containers": containers(1)},
                "status": {"phase": "Pending", "conditions": [{"type": "Initialized", "status": "False"}],
                    "initContainerStatuses": [
                        {"name": "restartable-init-1", "ready": false, "restartCount": 3, "state": {"running": {}}, "started": false,
                         "lastState": {"terminated": {"finishedAt": ago(10 * S)}}},
                        {"name": "restartable-init-2", "ready": false, "state": {"waiting": {}}, "started": false}],
                    "containerStatuses": [{"ready": false, "restartCount": 0, "state": {"waiting": {}}}]}}),
            ["test1", "0/3", "Init:0/2", "3 (10s ago)", "<unknown>"],
        ),
        (
            json!({"metadata": {"name": "test1"}, "spec": {"initContainers": sidecars, "containers": containers(1)},
                "status": {"phase": "Pending", "conditions": [{"type": "Initialized", "status": "False"}],
                    "initContainerStatuses": [
                        {"name": "restartable-init-1", "ready": false, "restartCount": 3, "state": {"running": {}}, "started": true,
                         "lastState": {"terminated": {"finishedAt": ago(10 * S)}}},
                        {"name": "restartable-init-2", "ready": false, "state": {"running": {}}, "started": false}],
                    "containerStatuses": [{"ready": false, "restartCount": 0, "state": {"waiting": {}}}]}}),
            ["test1", "0/3", "Init:1/2", "3 (10s ago)", "<unknown>"],
        ),
        (
            json!({"metadata": {"name": "test2"}, "spec": {"initContainers": sidecars, "containers": containers(1)},
                "status": {"phase": "Running", "conditions": [{"type": "Initialized", "status": "True"}],
                    "initContainerStatuses": [
                        {"name": "restartable-init-1", "ready": false, "restartCount": 3, "state": {"running": {}}, "started": true,
                         "lastState": {"terminated": {"finishedAt": ago(10 * S)}}},
                        {"name": "restartable-init-2", "ready": false, "state": {"running": {}}, "started": true}],
                    "containerStatuses": [{"ready": true, "restartCount": 4, "state": {"running": {}},
                        "lastState": {"terminated": {"finishedAt": ago(20 * S)}}}]}}),
            ["test2", "1/3", "Running", "7 (10s ago)", "<unknown>"],
        ),
        (
            json!({"metadata": {"name": "test3"}, "spec": {"initContainers": sidecars, "containers": containers(1)},
                "status": {"phase": "Succeeded", "conditions": [{"type": "Initialized", "status": "True"}],
                    "initContainerStatuses": [
                        {"name": "restartable-init-1", "ready": false, "restartCount": 3, "state": {"terminated": {"reason": "Error", "exitCode": 137}},
                         "started": false, "lastState": {"terminated": {"finishedAt": ago(10 * S)}}},
                        {"name": "restartable-init-2", "ready": false, "state": {"terminated": {"reason": "Error", "exitCode": 137}}, "started": false}],
                    "containerStatuses": [{"ready": false, "restartCount": 4, "state": {"terminated": {"reason": "Completed", "exitCode": 0}},
                        "lastState": {"terminated": {"finishedAt": ago(20 * S)}}}]}}),
            ["test3", "0/3", "Completed", "7 (10s ago)", "<unknown>"],
        ),
        // Statuses of containers the spec does not have.
        (
            json!({"metadata": {"name": "test4"},
                "spec": {"initContainers": [{"name": "init1", "image": "initimage"}, {"name": "sidecar1", "image": "sidecarimage", "restartPolicy": "Always"}],
                         "containers": [{"name": "container1", "image": "containerimage"}]},
                "status": {"phase": "Running",
                    "initContainerStatuses": [{"name": "initinvalid"}, {"name": "init1"}, {"name": "sidecar1"}],
                    "containerStatuses": [{"name": "containerinvalid"}, {"name": "container1"}]}}),
            ["test4", "0/2", "Init:0/2", "0", "<unknown>"],
        ),
    ];
    for (pod, want) in cases {
        assert_eq!(pod_cells(pod.clone()), want, "{pod}");
    }
}

/// TestPrintPodwide: IP (the first of podIPs), Node, Nominated Node, Readiness Gates.
#[test]
fn pod_wide_cells() {
    let pod = json!({"metadata": {"name": "test1"},
        "spec": {"containers": containers(2), "nodeName": "test1",
                 "readinessGates": [{"conditionType": "condition1"}, {"conditionType": "condition2"}, {"conditionType": "condition3"}]},
        "status": {"phase": "podPhase", "podIP": "1.1.1.1", "podIPs": [{"ip": "1.1.1.1"}, {"ip": "2001:db8::"}],
                   "conditions": [{"type": "condition1", "status": "False"}, {"type": "condition2", "status": "True"}],
                   "containerStatuses": [running(true, 3), {"restartCount": 3}], "nominatedNodeName": "node1"}});
    assert_eq!(
        cells("", "Pod", &pod),
        [
            "test1",
            "1/2",
            "podPhase",
            "6",
            "<unknown>",
            "1.1.1.1",
            "test1",
            "node1",
            "1/3"
        ]
    );
    let bare = json!({"metadata": {"name": "test2"}, "spec": {"containers": containers(2)},
        "status": {"phase": "podPhase", "containerStatuses": [running(true, 3),
            {"state": {"waiting": {"reason": "ContainerWaitingReason"}}, "restartCount": 3}]}});
    assert_eq!(
        cells("", "Pod", &bare),
        [
            "test2",
            "1/2",
            "ContainerWaitingReason",
            "6",
            "<unknown>",
            "<none>",
            "<none>",
            "<none>",
            "<none>"
        ]
    );
}

/// The pod columns of AddHandlers (v1.32: Restarts is a string, "3 (5m ago)").
#[test]
fn pod_columns_are_the_printers() {
    let conv = TableConvertor::for_kind("", "Pod");
    let cols: Vec<(&str, &str, &str, i32)> = conv
        .columns()
        .iter()
        .map(|c| {
            (
                c.name.as_str(),
                c.type_.as_str(),
                c.format.as_str(),
                c.priority,
            )
        })
        .collect();
    assert_eq!(
        cols,
        [
            ("Name", "string", "name", 0),
            ("Ready", "string", "", 0),
            ("Status", "string", "", 0),
            ("Restarts", "string", "", 0),
            ("Age", "string", "", 0),
            ("IP", "string", "", 1),
            ("Node", "string", "", 1),
            ("Nominated Node", "string", "", 1),
            ("Readiness Gates", "string", "", 1),
        ]
    );
    // As a real v1.32 server sends them (kubectl -v8 of `get pods`).
    assert!(conv.columns()[0].description.starts_with(
        "Name must be unique within a namespace. Is required when creating resources"
    ));
    assert!(conv.columns()[4]
        .description
        .contains("in UTC.\n\nPopulated by the system. Read-only. Null for lists."));
    assert_eq!(
        conv.columns()[3].description,
        "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."
    );
}

/// printPod's row conditions for finished pods (TestPrintPodConditions).
#[test]
fn finished_pods_carry_the_completed_condition() {
    let conv = TableConvertor::for_kind("", "Pod");
    let pod = |phase: &str| json!({"metadata": {"name": "p"}, "spec": {"containers": containers(1)}, "status": {"phase": phase}});
    let mut out = String::new();
    let mut list = TableListWriter::begin(
        &mut out,
        &conv,
        TableFormat {
            version: TableVersion::V1,
            include: IncludeObject::None,
        },
        &ListMeta::default(),
    );
    for phase in ["Succeeded", "Failed", "Running"] {
        let obj = pod(phase);
        list.push_row(&mut out, &conv.row(&obj), &obj.to_string(), NOW)
            .unwrap();
    }
    list.finish(&mut out);
    let rows = &out[out.find(",\"rows\":").unwrap()..];
    assert_eq!(
        rows,
        concat!(
            r#","rows":[{"cells":["p","0/1","Succeeded","0","\u003cunknown\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e"],"#,
            r#""conditions":[{"type":"Completed","status":"True","reason":"Succeeded","message":"The pod has completed successfully."}],"object":null},"#,
            r#"{"cells":["p","0/1","Failed","0","\u003cunknown\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e"],"#,
            r#""conditions":[{"type":"Completed","status":"True","reason":"Failed","message":"The pod failed."}],"object":null},"#,
            r#"{"cells":["p","0/1","Running","0","\u003cunknown\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e"],"object":null}]}"#
        )
    );
}

// ---------------------------------------------------------------- other built-in kinds

/// TestPrintServiceLoadBalancer, as the server prints it (wide: the LB list is not clipped).
#[test]
fn service_cells() {
    let svc = |name: &str, spec: Value, status: Value| json!({"metadata": {"name": name}, "spec": spec, "status": status});
    let lb = |ips: Value| json!({"loadBalancer": {"ingress": ips}});
    let cases: Vec<(Value, [&str; 7])> = vec![
        (
            svc(
                "service1",
                json!({"clusterIPs": ["1.2.3.4"], "type": "LoadBalancer", "ports": [{"port": 80, "protocol": "TCP"}]}),
                lb(json!([{"ip": "2.3.4.5"}, {"ip": "3.4.5.6"}])),
            ),
            [
                "service1",
                "LoadBalancer",
                "1.2.3.4",
                "2.3.4.5,3.4.5.6",
                "80/TCP",
                "<unknown>",
                "<none>",
            ],
        ),
        (
            svc(
                "service2",
                json!({"clusterIPs": ["1.3.4.5"], "type": "LoadBalancer", "ports": [
                {"port": 80, "protocol": "TCP"}, {"port": 8090, "protocol": "UDP"}, {"port": 8000, "protocol": "TCP"}, {"port": 7777, "protocol": "SCTP"}]}),
                json!({}),
            ),
            [
                "service2",
                "LoadBalancer",
                "1.3.4.5",
                "<pending>",
                "80/TCP,8090/UDP,8000/TCP,7777/SCTP",
                "<unknown>",
                "<none>",
            ],
        ),
        (
            svc(
                "service4",
                json!({"clusterIPs": ["1.5.6.7"], "type": "LoadBalancer", "selector": {"foo": "bar"},
                "ports": [{"port": 80, "protocol": "TCP"}, {"port": 8090, "protocol": "UDP"}, {"port": 8000, "protocol": "TCP"}]}),
                lb(
                    json!([{"ip": "2.3.4.5"}, {"ip": "3.4.5.6"}, {"ip": "5.6.7.8", "hostname": "host5678"}]),
                ),
            ),
            [
                "service4",
                "LoadBalancer",
                "1.5.6.7",
                "2.3.4.5,3.4.5.6,5.6.7.8",
                "80/TCP,8090/UDP,8000/TCP",
                "<unknown>",
                "foo=bar",
            ],
        ),
        // Not in printers_test.go: the other types.
        (
            svc(
                "np",
                json!({"clusterIPs": ["10.96.0.9"], "type": "NodePort", "selector": {"b": "2", "a": "1"},
                "ports": [{"port": 80, "nodePort": 30080, "protocol": "TCP"}]}),
                json!({}),
            ),
            [
                "np",
                "NodePort",
                "10.96.0.9",
                "<none>",
                "80:30080/TCP",
                "<unknown>",
                "a=1,b=2",
            ],
        ),
        (
            svc(
                "ext",
                json!({"type": "ExternalName", "externalName": "db.example.com"}),
                json!({}),
            ),
            [
                "ext",
                "ExternalName",
                "<none>",
                "db.example.com",
                "<none>",
                "<unknown>",
                "<none>",
            ],
        ),
        (
            svc(
                "lb-ext",
                json!({"clusterIPs": ["10.0.0.1"], "type": "LoadBalancer", "externalIPs": ["9.9.9.9"], "ports": [{"port": 443, "protocol": "TCP"}]}),
                lb(json!([{"hostname": "lb.example.com"}])),
            ),
            [
                "lb-ext",
                "LoadBalancer",
                "10.0.0.1",
                "lb.example.com,9.9.9.9",
                "443/TCP",
                "<unknown>",
                "<none>",
            ],
        ),
    ];
    for (svc, want) in cases {
        assert_eq!(cells("", "Service", &svc), want, "{svc}");
    }
}

/// TestPrintNodeStatus, TestPrintNodeRole, TestPrintNode{OSImage,ExternalIP,InternalIP}.
#[test]
fn node_cells() {
    let node = |name: &str, extra: Value| {
        let mut n = json!({"metadata": {"name": name}});
        for (k, v) in extra.as_object().unwrap() {
            n[k] = v.clone();
        }
        n
    };
    let ready = |s: &str| json!({"conditions": [{"type": "Ready", "status": s}]});
    let cases: Vec<(Value, [&str; 5])> = vec![
        (
            node("foo1", json!({"status": ready("True")})),
            ["foo1", "Ready", "<none>", "<unknown>", ""],
        ),
        (
            node(
                "foo2",
                json!({"spec": {"unschedulable": true}, "status": ready("True")}),
            ),
            [
                "foo2",
                "Ready,SchedulingDisabled",
                "<none>",
                "<unknown>",
                "",
            ],
        ),
        (
            node("foo4", json!({"status": ready("False")})),
            ["foo4", "NotReady", "<none>", "<unknown>", ""],
        ),
        (
            node(
                "foo5",
                json!({"spec": {"unschedulable": true}, "status": ready("False")}),
            ),
            [
                "foo5",
                "NotReady,SchedulingDisabled",
                "<none>",
                "<unknown>",
                "",
            ],
        ),
        (
            node(
                "foo6",
                json!({"status": {"conditions": [{"type": "InvalidValue", "status": "True"}]}}),
            ),
            ["foo6", "Unknown", "<none>", "<unknown>", ""],
        ),
        (
            node("foo7", json!({"status": {"conditions": [{}]}})),
            ["foo7", "Unknown", "<none>", "<unknown>", ""],
        ),
        (
            node(
                "foo9",
                json!({"spec": {"unschedulable": true}, "status": {"conditions": [{}]}}),
            ),
            [
                "foo9",
                "Unknown,SchedulingDisabled",
                "<none>",
                "<unknown>",
                "",
            ],
        ),
        (
            node(
                "foo10",
                json!({"metadata": {"name": "foo10", "labels": {"node-role.kubernetes.io/master": "", "node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/proxy": "", "kubernetes.io/role": "node"}}}),
            ),
            [
                "foo10",
                "Unknown",
                "control-plane,master,node,proxy",
                "<unknown>",
                "",
            ],
        ),
        (
            node(
                "foo11",
                json!({"metadata": {"name": "foo11", "labels": {"kubernetes.io/role": "node"}}}),
            ),
            ["foo11", "Unknown", "node", "<unknown>", ""],
        ),
    ];
    for (n, want) in cases {
        assert_eq!(cells("", "Node", &n)[..5], want, "{n}");
    }
    let wide = node(
        "foo3",
        json!({"status": {"nodeInfo": {"osImage": "fake-os-image"}, "addresses": [
        {"type": "ExternalIP", "address": "2.2.2.2"}, {"type": "InternalIP", "address": "3.3.3.3"}, {"type": "ExternalIP", "address": "4.4.4.4"}]}}),
    );
    assert_eq!(
        cells("", "Node", &wide),
        [
            "foo3",
            "Unknown",
            "<none>",
            "<unknown>",
            "",
            "3.3.3.3",
            "2.2.2.2",
            "fake-os-image",
            "<unknown>",
            "<unknown>"
        ]
    );
}

/// TestPrintEvent (wide columns included: Last Seen, Type, Reason, Object, Subobject,
/// Source, Message, First Seen, Count, Name).
#[test]
fn event_cells() {
    let base = json!({
        "metadata": {"name": "event2"},
        "involvedObject": {"kind": "Deployment", "name": "Deployment Name", "fieldPath": "spec.containers{foo}"},
        "reason": "Event Reason", "message": "Message Data", "type": "Warning",
        "source": {"component": "kubelet", "host": "Node1"},
    });
    let with = |extra: Value| {
        let mut e = base.clone();
        for (k, v) in extra.as_object().unwrap() {
            e[k] = v.clone();
        }
        e
    };
    let row = |e: Value| cells("", "Event", &e);
    fn want(last: &str, first: &str, count: &str, source: &str) -> Vec<String> {
        [
            last,
            "Warning",
            "Event Reason",
            "deployment/Deployment Name",
            "spec.containers{foo}",
            source,
            "Message Data",
            first,
            count,
            "event2",
        ]
        .map(String::from)
        .to_vec()
    }
    assert_eq!(
        row(with(
            json!({"firstTimestamp": ago(3 * DAY), "lastTimestamp": ago(2 * DAY), "count": 6})
        )),
        want("2d", "3d", "6", "kubelet, Node1")
    );
    // No firstTimestamp: eventTime.
    assert_eq!(
        row(with(
            json!({"eventTime": ago(3 * DAY), "lastTimestamp": ago(3 * DAY), "count": 1})
        )),
        want("3d", "3d", "1", "kubelet, Node1")
    );
    // No lastTimestamp: the first.
    assert_eq!(
        row(with(
            json!({"eventTime": ago(3 * DAY), "firstTimestamp": ago(3 * DAY), "count": 1})
        )),
        want("3d", "3d", "1", "kubelet, Node1")
    );
    // A series: its last observation and count.
    assert_eq!(
        row(with(
            json!({"eventTime": ago(3 * DAY), "series": {"count": 2, "lastObservedTime": ago(2 * DAY)}})
        )),
        want("2d", "3d", "2", "kubelet, Node1")
    );
    // A singleton of the new API: count 1.
    assert_eq!(
        row(with(json!({"eventTime": ago(3 * DAY)}))),
        want("3d", "3d", "1", "kubelet, Node1")
    );
    // Empty source: reportingController and reportingInstance.
    let mut e = with(
        json!({"firstTimestamp": ago(3 * DAY), "lastTimestamp": ago(2 * DAY), "count": 6,
        "reportingComponent": "kubelet", "reportingInstance": "test"}),
    );
    e["source"] = json!({});
    assert_eq!(row(e), want("2d", "3d", "6", "kubelet, test"));
    // The Count cell is an integer although the column says string.
    let conv = TableConvertor::for_kind("", "Event");
    assert_eq!(conv.columns()[8].type_, "string");
    assert_eq!(conv.row(&with(json!({"count": 6}))).cells[8], Cell::Int(6));
    let cols: Vec<(&str, i32)> = conv
        .columns()
        .iter()
        .map(|c| (c.name.as_str(), c.priority))
        .collect();
    assert_eq!(
        cols,
        [
            ("Last Seen", 0),
            ("Type", 0),
            ("Reason", 0),
            ("Object", 0),
            ("Subobject", 1),
            ("Source", 1),
            ("Message", 0),
            ("First Seen", 1),
            ("Count", 1),
            ("Name", 1)
        ]
    );
}

/// TestPrintNamespace, TestPrintSecret, printConfigMap: the future creation time
/// (now + 1.9 s) prints as "0s".
#[test]
fn namespace_secret_configmap_cells() {
    let soon = format_rfc3339(NOW + 1900);
    assert_eq!(
        cells(
            "",
            "Namespace",
            &json!({"metadata": {"name": "namespace1", "creationTimestamp": soon}, "status": {"phase": "FooStatus"}})
        ),
        ["namespace1", "FooStatus", "0s"]
    );
    assert_eq!(
        cells(
            "",
            "Namespace",
            &json!({"metadata": {"name": "namespace2"}})
        ),
        ["namespace2", "", "<unknown>"]
    );
    let secret = json!({"metadata": {"name": "secret1", "creationTimestamp": format_rfc3339(NOW - 5 * MIN)},
        "type": "kubernetes.io/service-account-token", "data": {"token": "c2VjcmV0IGRhdGE="}});
    assert_eq!(
        cells("", "Secret", &secret),
        ["secret1", "kubernetes.io/service-account-token", "1", "5m"]
    );
    let conv = TableConvertor::for_kind("", "Secret");
    assert_eq!(conv.row(&secret).cells[2], Cell::Int(1));
    let cm = json!({"metadata": {"name": "cm"}, "data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}});
    assert_eq!(cells("", "ConfigMap", &cm), ["cm", "3", "<unknown>"]);
}

/// printDeployment and printReplicaSet, wide cells included.
#[test]
fn deployment_and_replicaset_cells() {
    let template = json!({"spec": {"containers": [{"name": "fake-container1", "image": "fake-image1"}, {"name": "fake-container2", "image": "fake-image2"}]}});
    let deploy = json!({"metadata": {"name": "test1", "creationTimestamp": format_rfc3339(NOW - 10 * 365 * DAY)},
        "spec": {"replicas": 5, "template": template, "selector": {"matchLabels": {"foo": "bar"},
            "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "dev"]}, {"key": "canary", "operator": "DoesNotExist"}]}},
        "status": {"replicas": 10, "updatedReplicas": 2, "availableReplicas": 1, "readyReplicas": 1, "unavailableReplicas": 4}});
    assert_eq!(
        cells("apps", "Deployment", &deploy),
        [
            "test1",
            "1/5",
            "2",
            "1",
            "10y",
            "fake-container1,fake-container2",
            "fake-image1,fake-image2",
            "!canary,env in (dev,prod),foo=bar"
        ]
    );
    // Up-to-date and Available are integers in columns declared "string".
    let conv = TableConvertor::for_kind("apps", "Deployment");
    assert_eq!(conv.row(&deploy).cells[2], Cell::Int(2));
    let rs = json!({"metadata": {"name": "web-5d8f7c9b", "creationTimestamp": format_rfc3339(NOW - 3 * MIN - 10 * S)},
        "spec": {"replicas": 3, "template": template, "selector": {"matchLabels": {"app": "web", "pod-template-hash": "5d8f7c9b"}}},
        "status": {"replicas": 3, "readyReplicas": 2}});
    assert_eq!(
        cells("apps", "ReplicaSet", &rs),
        [
            "web-5d8f7c9b",
            "3",
            "3",
            "2",
            "3m10s",
            "fake-container1,fake-container2",
            "fake-image1,fake-image2",
            "app=web,pod-template-hash=5d8f7c9b"
        ]
    );
    // An empty selector: <none> for a ReplicaSet, "" for a Deployment; a bad one: <error>/<invalid>.
    assert_eq!(
        cells("apps", "ReplicaSet", &json!({"spec": {"selector": {}}}))[7],
        "<none>"
    );
    assert_eq!(
        cells("apps", "Deployment", &json!({"spec": {"selector": {}}}))[7],
        ""
    );
    let bad =
        json!({"spec": {"selector": {"matchExpressions": [{"key": "a", "operator": "Near"}]}}});
    assert_eq!(cells("apps", "ReplicaSet", &bad)[7], "<error>");
    assert_eq!(cells("apps", "Deployment", &bad)[7], "<invalid>");
}

/// The default convertor (rest/table.go): Name and an RFC 3339 Created At, for anything
/// without a printer.
#[test]
fn default_convertor() {
    let conv = TableConvertor::for_kind("storage.example.com", "Bucket");
    let cols: Vec<(&str, &str, &str)> = conv
        .columns()
        .iter()
        .map(|c| (c.name.as_str(), c.type_.as_str(), c.format.as_str()))
        .collect();
    assert_eq!(
        cols,
        [("Name", "string", "name"), ("Created At", "date", "")]
    );
    let obj = json!({"metadata": {"name": "b", "creationTimestamp": "2025-01-01T02:00:00+02:00"}});
    assert_eq!(conv.row(&obj).texts(NOW), ["b", "2025-01-01T00:00:00Z"]);
    assert_eq!(
        conv.row(&json!({})).texts(NOW),
        ["", "0001-01-01T00:00:00Z"]
    );
}

// ---------------------------------------------------------------- CRD columns

/// tableconvertor.go + serveDefaultColumnsIfEmpty: Name first, then the declared columns
/// (Age only when none are declared), cells typed by column.
#[test]
fn crd_columns_and_cells() {
    let crd: Value = serde_json::from_str(&kinds::widget_crd("crd-uid", Some(5), 0)).unwrap();
    let conv = TableConvertor::for_crd(&crd, "v1").unwrap();
    let cols: Vec<(&str, &str, i32)> = conv
        .columns()
        .iter()
        .map(|c| (c.name.as_str(), c.type_.as_str(), c.priority))
        .collect();
    assert_eq!(
        cols,
        [
            ("Name", "string", 0),
            ("Color", "string", 0),
            ("Size", "integer", 0),
            ("Ready", "string", 0),
            ("Last Synced", "date", 0),
            ("Age", "date", 0),
            ("Owner", "string", 1)
        ]
    );
    assert_eq!(
        conv.columns()[1].description,
        "Custom resource definition column (in JSONPath format): .spec.color"
    );
    assert_eq!(conv.columns()[2].description, "How big the widget is.");
    let widget = json!({"apiVersion": "kubelive.dev/v1", "kind": "Widget",
        "metadata": {"name": "w1", "namespace": "ns-0", "creationTimestamp": format_rfc3339(NOW - 5 * MIN)},
        "spec": {"color": "blue", "owner": "team-a", "size": 3},
        "status": {"conditions": [{"type": "Ready", "status": "True"}], "lastSyncTime": format_rfc3339(NOW - 4 * MIN)}});
    let row = conv.row(&widget);
    assert_eq!(
        row.texts(NOW),
        ["w1", "blue", "3", "True", "4m", "5m", "team-a"]
    );
    assert_eq!(row.cells[2], Cell::Int(3));
    // Missing fields are null cells.
    let bare = conv.row(&json!({"metadata": {"name": "w2"}}));
    assert_eq!(
        bare.cells[1..],
        [
            Cell::Null,
            Cell::Null,
            Cell::Null,
            Cell::Null,
            Cell::Null,
            Cell::Null
        ]
    );
    // No declared columns: Name and Age.
    let mut plain = crd.clone();
    plain["spec"]["versions"][0]
        .as_object_mut()
        .unwrap()
        .remove("additionalPrinterColumns");
    let conv = TableConvertor::for_crd(&plain, "v1").unwrap();
    let cols: Vec<(&str, &str)> = conv
        .columns()
        .iter()
        .map(|c| (c.name.as_str(), c.type_.as_str()))
        .collect();
    assert_eq!(cols, [("Name", "string"), ("Age", "date")]);
    assert_eq!(conv.row(&widget).texts(NOW), ["w1", "5m"]);
    // A version it does not have, a path outside the subset.
    assert!(TableConvertor::for_crd(&crd, "v2").is_err());
    let mut bad = crd;
    bad["spec"]["versions"][0]["additionalPrinterColumns"][0]["jsonPath"] = json!("..spec");
    assert_eq!(
        TableConvertor::for_crd(&bad, "v1").unwrap_err().to_string(),
        "unrecognized column definition \"..spec\""
    );
}

// ---------------------------------------------------------------- Table documents

/// A small pod in wire order (kind, apiVersion, metadata, spec, status).
const POD: &str = r#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"default","uid":"u-1","resourceVersion":"42","creationTimestamp":"2025-01-01T00:55:00Z","labels":{"app":"web"},"managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1","time":"2025-01-01T00:55:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}]},"spec":{"containers":[{"name":"web","image":"nginx"}],"nodeName":"node-1"},"status":{"phase":"Running","containerStatuses":[{"name":"web","ready":true,"restartCount":2,"state":{"running":{}},"lastState":{"terminated":{"exitCode":1,"finishedAt":"2025-01-01T00:57:00Z"}}}],"podIPs":[{"ip":"10.244.1.5"}]}}"#;
const POD_META: &str = r#"{"name":"web-1","namespace":"default","uid":"u-1","resourceVersion":"42","creationTimestamp":"2025-01-01T00:55:00Z","labels":{"app":"web"},"managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1","time":"2025-01-01T00:55:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}]}"#;
const POD_CELLS: &str = r#"["web-1","1/1","Running","2 (3m ago)","5m","10.244.1.5","node-1","\u003cnone\u003e","\u003cnone\u003e"]"#;

fn pods() -> TableConvertor {
    TableConvertor::for_kind("", "Pod")
}

fn format(include: IncludeObject) -> TableFormat {
    TableFormat {
        version: TableVersion::V1,
        include,
    }
}

fn list_doc(conv: &TableConvertor, fmt: TableFormat, meta: &ListMeta, objects: &[&str]) -> String {
    let mut out = String::new();
    let mut w = TableListWriter::begin(&mut out, conv, fmt, meta);
    for o in objects {
        let row = conv.row_from_json(o).unwrap();
        w.push_row(&mut out, &row, o, NOW).unwrap();
    }
    w.finish(&mut out);
    out
}

/// A LIST answer (response.go asTable + tablegenerator.go): kind, apiVersion, the list's
/// metadata (resourceVersion, continue, remainingItemCount), every column, then rows whose
/// `object` is a PartialObjectMetadata with the whole metadata (managedFields included).
#[test]
fn list_table_with_metadata_rows() {
    let meta = ListMeta {
        resource_version: "100",
        continue_token: "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ",
        remaining_item_count: Some(3),
    };
    let doc = list_doc(&pods(), format(IncludeObject::Metadata), &meta, &[POD]);
    assert!(
        doc.starts_with(r#"{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"100","continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ","remainingItemCount":3},"columnDefinitions":[{"name":"Name","type":"string","format":"name","description":"Name must be unique within a namespace."#),
        "{doc}"
    );
    assert!(doc.contains(r#"{"name":"Restarts","type":"string","format":"","description":"The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.","priority":0}"#));
    assert!(doc.contains(
        r#"It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system."#
    ));
    let expected_rows = format!(
        r#"],"rows":[{{"cells":{POD_CELLS},"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{POD_META}}}}}]}}"#
    );
    assert!(doc.ends_with(&expected_rows), "{doc}");
    // The document is JSON a client decodes, with the nine pod columns.
    let v: Value = serde_json::from_str(&doc).unwrap();
    assert_eq!(v["columnDefinitions"].as_array().unwrap().len(), 9);
    assert_eq!(v["rows"][0]["cells"][7], "<none>");
}

/// includeObject=None: `"object":null` (a RawExtension is a struct: omitempty never omits
/// it, and its MarshalJSON writes null). includeObject=Object: the object itself.
#[test]
fn list_table_include_none_and_object() {
    let none = list_doc(
        &pods(),
        format(IncludeObject::None),
        &ListMeta {
            resource_version: "7",
            ..Default::default()
        },
        &[POD],
    );
    assert!(
        none.ends_with(&format!(
            r#"],"rows":[{{"cells":{POD_CELLS},"object":null}}]}}"#
        )),
        "{none}"
    );
    assert!(none.starts_with(
        r#"{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"7"},"#
    ));
    let obj = list_doc(
        &pods(),
        format(IncludeObject::Object),
        &ListMeta::default(),
        &[POD, POD],
    );
    assert!(
        obj.starts_with(r#"{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"#),
        "{obj}"
    );
    assert!(
        obj.ends_with(&format!(r#"],"rows":[{{"cells":{POD_CELLS},"object":{POD}}},{{"cells":{POD_CELLS},"object":{POD}}}]}}"#)),
        "{obj}"
    );
}

/// meta.k8s.io/v1beta1 (kubectl's second choice): the same shape, both kinds in v1beta1.
#[test]
fn v1beta1_tables() {
    let doc = list_doc(
        &pods(),
        TableFormat {
            version: TableVersion::V1Beta1,
            include: IncludeObject::Metadata,
        },
        &ListMeta::default(),
        &[POD],
    );
    assert!(doc.starts_with(r#"{"kind":"Table","apiVersion":"meta.k8s.io/v1beta1","metadata":{},"#));
    assert!(doc.contains(r#""object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1beta1","metadata":{"name":"web-1""#));
}

/// Empty lists: the printers make a non-nil slice (`"rows":[]`), the default convertor
/// appends to a nil one (`"rows":null`); CRDs go through MetaToTableRow (`[]`).
#[test]
fn empty_lists() {
    let meta = ListMeta {
        resource_version: "9",
        ..Default::default()
    };
    assert!(
        list_doc(&pods(), format(IncludeObject::Metadata), &meta, &[]).ends_with(r#"],"rows":[]}"#)
    );
    assert!(list_doc(
        &TableConvertor::default_convertor(),
        format(IncludeObject::Metadata),
        &meta,
        &[]
    )
    .ends_with(r#"],"rows":null}"#));
    let crd: Value = serde_json::from_str(&kinds::widget_crd("u", None, 0)).unwrap();
    let conv = TableConvertor::for_crd(&crd, "v1").unwrap();
    assert!(
        list_doc(&conv, format(IncludeObject::Metadata), &meta, &[]).ends_with(r#"],"rows":[]}"#)
    );
}

/// A row that is not a JSON object: a clear error and nothing written; the list goes on.
#[test]
fn malformed_objects_are_refused_without_damage() {
    let conv = pods();
    let mut out = String::new();
    let mut w = TableListWriter::begin(
        &mut out,
        &conv,
        format(IncludeObject::Metadata),
        &ListMeta::default(),
    );
    let row = conv.row_from_json(POD).unwrap();
    let before = out.clone();
    assert!(w
        .push_row(&mut out, &row, r#"{"metadata":{"name":"x""#, NOW)
        .is_err());
    assert!(w.push_row(&mut out, &row, "[1,2]", NOW).is_err());
    assert_eq!(out, before);
    w.push_row(&mut out, &row, POD, NOW).unwrap();
    w.finish(&mut out);
    serde_json::from_str::<Value>(&out).unwrap();
    assert!(conv.row_from_json("nope").is_err());
    let mut enc = WatchTableEncoder::new(format(IncludeObject::Metadata));
    let mut line = String::new();
    assert!(enc
        .write_event(&mut line, &conv, "ADDED", &row, "{", NOW)
        .is_err());
    assert!(line.is_empty() && !enc.headers_sent());
}

/// A WATCH with the Table Accept (watch.go, response.go watchEmbeddedEncoder): each event's
/// object is a one-row Table whose resourceVersion is the object's; the column definitions
/// go with the first event only, later tables carry `"columnDefinitions":null`.
#[test]
fn watch_tables_carry_headers_once() {
    let conv = pods();
    let mut enc = WatchTableEncoder::new(format(IncludeObject::Metadata));
    let row = conv.row_from_json(POD).unwrap();
    let mut out = String::new();
    enc.write_event(&mut out, &conv, "ADDED", &row, POD, NOW)
        .unwrap();
    enc.write_event(&mut out, &conv, "MODIFIED", &row, POD, NOW)
        .unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(out.ends_with('\n'));
    assert!(lines[0].starts_with(r#"{"type":"ADDED","object":{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"42"},"columnDefinitions":[{"name":"Name","#));
    assert_eq!(
        lines[1],
        format!(
            r#"{{"type":"MODIFIED","object":{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"42"}},"columnDefinitions":null,"rows":[{{"cells":{POD_CELLS},"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{POD_META}}}}}]}}}}"#
        )
    );
    let first: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(
        first["object"]["columnDefinitions"]
            .as_array()
            .unwrap()
            .len(),
        9
    );
}

/// BOOKMARKs are converted like any object (the cacher's bookmark is an empty object of the
/// kind): empty-object cells, a PartialObjectMetadata with resourceVersion,
/// `creationTimestamp: null` (a typed ObjectMeta) and, at the end of a streaming list, the
/// `k8s.io/initial-events-end` annotation. ERROR events stay plain Status objects, and
/// whatever event comes first takes the headers.
#[test]
fn watch_bookmarks_and_errors() {
    let conv = pods();
    let mut enc = WatchTableEncoder::new(format(IncludeObject::Metadata));
    let mut out = String::new();
    enc.write_bookmark(
        &mut out,
        &conv,
        r#"{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"77","annotations":{"k8s.io/initial-events-end":"true"}}}"#,
        NOW,
    )
    .unwrap();
    assert!(out.starts_with(r#"{"type":"BOOKMARK","object":{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"77"},"columnDefinitions":[{"#));
    assert!(
        out.ends_with(concat!(
            r#"],"rows":[{"cells":["","0/0","","0","\u003cunknown\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e"],"#,
            r#""object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"77","creationTimestamp":null,"annotations":{"k8s.io/initial-events-end":"true"}}}}]}}"#,
            "\n"
        )),
        "{out}"
    );
    out.clear();
    enc.write_bookmark(
        &mut out,
        &conv,
        r#"{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"80","creationTimestamp":null},"spec":{"containers":null},"status":{}}"#,
        NOW,
    )
    .unwrap();
    assert!(out.contains(r#""metadata":{"resourceVersion":"80"},"columnDefinitions":null,"rows":[{"cells":["","0/0","#), "{out}");
    assert!(
        out.contains(r#""metadata":{"resourceVersion":"80","creationTimestamp":null}}}]}}"#),
        "{out}"
    );

    // Object mode embeds the bookmark object as sent; None embeds null.
    let mut enc = WatchTableEncoder::new(format(IncludeObject::Object));
    out.clear();
    let bm = r#"{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"81","creationTimestamp":null},"spec":{"containers":null},"status":{}}"#;
    enc.write_bookmark(&mut out, &conv, bm, NOW).unwrap();
    assert!(out.ends_with(&format!("\"object\":{bm}}}]}}}}\n")), "{out}");

    let mut enc = WatchTableEncoder::new(format(IncludeObject::Metadata));
    out.clear();
    let status = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}"#;
    enc.write_error(&mut out, status);
    assert_eq!(out, format!("{{\"type\":\"ERROR\",\"object\":{status}}}\n"));
    out.clear();
    enc.write_event(
        &mut out,
        &conv,
        "ADDED",
        &conv.row_from_json(POD).unwrap(),
        POD,
        NOW,
    )
    .unwrap();
    assert!(
        out.contains(r#""columnDefinitions":null"#),
        "the error took the headers: {out}"
    );
}

/// Custom resources are unstructured: their PartialObjectMetadata is the metadata
/// re-encoded as a typed ObjectMeta (struct order, creationTimestamp kept); a single-object
/// GET as Table has all columns and the object's resourceVersion.
#[test]
fn custom_resource_rows_and_single_object_tables() {
    let crd: Value = serde_json::from_str(&kinds::widget_crd("u", None, 0)).unwrap();
    let conv = TableConvertor::for_crd(&crd, "v1").unwrap();
    let mut rng = Rng::new(3);
    let mut p = kinds::WidgetParams::random(&mut rng, "ns-0", "w1", 0);
    p.id.resource_version = Some(12);
    let w = kinds::widget(&p);
    assert!(
        w.starts_with(
            r#"{"apiVersion":"kubelive.dev/v1","kind":"Widget","metadata":{"creationTimestamp":"#
        ),
        "{w}"
    );
    let row = conv.row_from_json(&w).unwrap();
    let mut out = String::new();
    write_object_table(
        &mut out,
        &conv,
        format(IncludeObject::Metadata),
        &row,
        &w,
        NOW,
    )
    .unwrap();
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["metadata"]["resourceVersion"], "12");
    assert_eq!(v["columnDefinitions"].as_array().unwrap().len(), 7);
    let meta = &out[out.find(r#""kind":"PartialObjectMetadata""#).unwrap()..];
    assert!(
        meta.starts_with(&format!(
            r#""kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"name":"w1","namespace":"ns-0","uid":"{}","resourceVersion":"12","generation":1,"creationTimestamp":"2025-01-01T00:00:00Z","labels":{{"color":"#,
            p.id.uid
        )),
        "{meta}"
    );
    assert!(meta.contains(r#""managedFields":[{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"kubelive.dev/v1","time":"#), "{meta}");
}

#[test]
fn include_object_query_values() {
    assert_eq!(IncludeObject::from_query(None), Ok(IncludeObject::Metadata));
    assert_eq!(
        IncludeObject::from_query(Some("")),
        Ok(IncludeObject::Metadata)
    );
    assert_eq!(
        IncludeObject::from_query(Some("None")),
        Ok(IncludeObject::None)
    );
    assert_eq!(
        IncludeObject::from_query(Some("Object")),
        Ok(IncludeObject::Object)
    );
    // ValidateTableOptions: field.NotSupported, wrapped by optionsForTransform.
    assert_eq!(
        IncludeObject::from_query(Some("all")).unwrap_err(),
        r#"Unable to convert to Table as requested: includeObject: Unsupported value: "all": supported values: "Metadata", "None", "Object""#
    );
}

/// A row is computed once; its time-dependent cells follow `now` when written.
#[test]
fn rows_render_against_now() {
    let row = pods().row_from_json(POD).unwrap();
    let at = |now: i64| {
        let mut s = String::new();
        row.write_cells_json(now, &mut s);
        s
    };
    assert_eq!(at(NOW), POD_CELLS);
    assert!(at(NOW + 2 * DAY).starts_with(r#"["web-1","1/1","Running","2 (2d ago)","2d"#));
    assert_eq!(
        parse_rfc3339_ms("2025-01-01T00:55:00Z"),
        Some(NOW - 5 * MIN)
    );
}

// ---------------------------------------------------------------- generated objects

fn keys(json: &str) -> Vec<String> {
    // serde_json sorts keys, so read the order off the text: top-level keys in sequence.
    let v: Value = serde_json::from_str(json).unwrap();
    let mut found: Vec<(usize, String)> = v
        .as_object()
        .unwrap()
        .keys()
        .map(|k| (json.find(&format!("\"{k}\":")).unwrap(), k.clone()))
        .collect();
    found.sort();
    found.into_iter().map(|(_, k)| k).collect()
}

fn meta_keys(json: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(json).unwrap();
    let meta = v["metadata"].to_string();
    // Re-read the metadata text as written in the document.
    let start = json.find("\"metadata\":").unwrap() + 11;
    let text = &json[start
        ..start
            + json[start..]
                .find(",\"managedFields\"")
                .unwrap_or(meta.len())];
    let mut found: Vec<(usize, String)> = v["metadata"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| *k != "managedFields")
        .map(|k| (text.find(&format!("\"{k}\":")).unwrap(), k.clone()))
        .collect();
    found.sort();
    found.into_iter().map(|(_, k)| k).collect()
}

#[test]
fn generated_services_print_like_kubectl() {
    let mut rng = Rng::new(11);
    let now_sim = 3_600_000; // the sim clock of NOW
    let mut row = |kind: ServiceKind| {
        let p = kinds::ServiceParams::random(&mut rng, "shop", "web", kind, now_sim - 5 * 60_000);
        let json = kinds::service(&p);
        assert_eq!(
            keys(&json),
            ["kind", "apiVersion", "metadata", "spec", "status"]
        );
        assert_eq!(
            meta_keys(&json),
            ["name", "namespace", "uid", "creationTimestamp", "labels"]
        );
        let v: Value = serde_json::from_str(&json).unwrap();
        (p, v.clone(), cells("", "Service", &v))
    };
    let (p, v, c) = row(ServiceKind::ClusterIP);
    assert_eq!(
        c,
        [
            "web",
            "ClusterIP",
            p.cluster_ip.as_str(),
            "<none>",
            "80/TCP",
            "5m",
            "app=web"
        ]
    );
    assert_eq!(v["spec"]["sessionAffinity"], "None");
    let (p, _, c) = row(ServiceKind::NodePort);
    let np = p.ports[0].node_port.unwrap();
    assert_eq!(
        c[1..5],
        [
            "NodePort".to_string(),
            p.cluster_ip.clone(),
            "<none>".into(),
            format!("80:{np}/TCP")
        ]
    );
    let (p, v, c) = row(ServiceKind::LoadBalancer);
    let ip = p.ingress_ip.clone().unwrap();
    assert_eq!(c[3], ip);
    assert_eq!(
        c[4],
        format!(
            "80:{}/TCP,443:{}/TCP",
            p.ports[0].node_port.unwrap(),
            p.ports[1].node_port.unwrap()
        )
    );
    assert_eq!(v["status"]["loadBalancer"]["ingress"][0]["ipMode"], "VIP");
    let (_, _, c) = row(ServiceKind::Headless);
    assert_eq!(c[1..4], ["ClusterIP", "None", "<none>"]);
}

#[test]
fn generated_nodes_print_like_kubectl() {
    let mut rng = Rng::new(2);
    let cp = kinds::NodeParams::random(&mut rng, 0, 0);
    let mut worker = kinds::NodeParams::random(&mut rng, 1, 0);
    let json = kinds::node(&cp);
    assert_eq!(
        keys(&json),
        ["kind", "apiVersion", "metadata", "spec", "status"]
    );
    let v: Value = serde_json::from_str(&json).unwrap();
    let c = cells("", "Node", &v);
    assert_eq!(
        c[..5],
        ["control-plane", "Ready", "control-plane", "60m", "v1.32.0"]
    );
    assert_eq!(c[5], "192.168.0.10");
    assert_eq!(c[6], "<none>");
    assert_eq!(c[9], "containerd://1.7.24");
    worker.unschedulable = true;
    let c = cells(
        "",
        "Node",
        &serde_json::from_str(&kinds::node(&worker)).unwrap(),
    );
    assert_eq!(c[..3], ["node-1", "Ready,SchedulingDisabled", "<none>"]);
    worker.unschedulable = false;
    worker.ready = "Unknown";
    let v: Value = serde_json::from_str(&kinds::node(&worker)).unwrap();
    assert_eq!(cells("", "Node", &v)[1], "NotReady");
    assert_eq!(
        v["spec"]["taints"][0]["key"],
        "node.kubernetes.io/unreachable"
    );
    assert_eq!(
        v["status"]["nodeInfo"]["kernelVersion"],
        worker.kernel_version
    );
}

#[test]
fn generated_namespaces_configmaps_secrets() {
    let mut rng = Rng::new(4);
    let id = Identity::new(&mut rng, "", "shop", 0);
    let ns = kinds::namespace(&id, false);
    assert_eq!(
        cells("", "Namespace", &serde_json::from_str(&ns).unwrap()),
        ["shop", "Active", "60m"]
    );
    let gone: Value = serde_json::from_str(&kinds::namespace(&id, true)).unwrap();
    assert_eq!(cells("", "Namespace", &gone)[1], "Terminating");
    assert!(gone["metadata"]["deletionTimestamp"].is_string());

    let cm_id = Identity::new(&mut rng, "shop", "web-config", 0);
    let cm = kinds::config_map(
        &cm_id,
        "web",
        &[("config.yaml", "listen: :8080\n"), ("LOG_LEVEL", "info")],
    );
    assert_eq!(keys(&cm), ["kind", "apiVersion", "metadata", "data"]);
    assert!(
        cm.contains(r#""data":{"LOG_LEVEL":"info","config.yaml":"listen: :8080\n"}"#),
        "{cm}"
    );
    assert_eq!(
        cells("", "ConfigMap", &serde_json::from_str(&cm).unwrap()),
        ["web-config", "2", "60m"]
    );

    let s_id = Identity::new(&mut rng, "shop", "db-password", 0);
    let opaque = kinds::secret_opaque(&s_id, &[("password", b"hunter2")]);
    assert_eq!(
        keys(&opaque),
        ["kind", "apiVersion", "metadata", "data", "type"]
    );
    assert!(
        opaque.contains(r#""data":{"password":"aHVudGVyMg=="},"type":"Opaque""#),
        "{opaque}"
    );
    assert_eq!(
        cells("", "Secret", &serde_json::from_str(&opaque).unwrap()),
        ["db-password", "Opaque", "1", "60m"]
    );
    let tls_id = Identity::new(&mut rng, "shop", "web-tls", 0);
    let tls: Value = serde_json::from_str(&kinds::secret_tls(&mut rng, &tls_id)).unwrap();
    assert_eq!(
        cells("", "Secret", &tls),
        ["web-tls", "kubernetes.io/tls", "2", "60m"]
    );
    let crt = tls["data"]["tls.crt"].as_str().unwrap();
    assert!(
        crt.starts_with("LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t"),
        "base64 of -----BEGIN CERTIFICATE-----: {crt}"
    );
}

#[test]
fn generated_replicasets() {
    let mut rng = Rng::new(5);
    let p = kinds::ReplicaSetParams {
        id: Identity::new(&mut rng, "shop", "web-5d8f7c9b7", 3_600_000 - 90_000),
        app: "web".into(),
        deployment_uid: rng.uuid(),
        template_hash: "5d8f7c9b7".into(),
        image: "nginx:1.27".into(),
        replicas: 3,
        ready: 2,
    };
    let json = kinds::replica_set(&p);
    assert_eq!(
        keys(&json),
        ["kind", "apiVersion", "metadata", "spec", "status"]
    );
    assert_eq!(
        meta_keys(&json),
        [
            "name",
            "namespace",
            "uid",
            "generation",
            "creationTimestamp",
            "labels",
            "annotations",
            "ownerReferences"
        ]
    );
    assert!(json.contains(r#""template":{"metadata":{"creationTimestamp":null,"labels":{"app":"web","pod-template-hash":"5d8f7c9b7"}}"#));
    assert_eq!(
        cells("apps", "ReplicaSet", &serde_json::from_str(&json).unwrap()),
        [
            "web-5d8f7c9b7",
            "3",
            "3",
            "2",
            "90s",
            "web",
            "nginx:1.27",
            "app=web,pod-template-hash=5d8f7c9b7"
        ]
    );
}

/// The events of a pod's life, as `kubectl get events` shows them.
#[test]
fn generated_pod_events() {
    let mut rng = Rng::new(6);
    let pod = PodRef {
        namespace: "shop".into(),
        name: "web-5d8f7c9b7-x2x4z".into(),
        uid: "0b1c6c0e-6f1f-4a86-9a0e-2d4a3c1f8a11".into(),
        resource_version: Some(1234),
        node: "node-1".into(),
        container: "web".into(),
        image: "nginx:1.27".into(),
        pod_ip: "10.244.1.7".into(),
    };
    let conv = TableConvertor::for_kind("", "Event");
    let print = |story: PodStory, rng: &mut Rng| -> Vec<Vec<String>> {
        kinds::pod_events(rng, &pod, story, 0)
            .iter()
            .map(|e| {
                let json = kinds::event(e);
                assert_eq!(
                    keys(&json)[..6],
                    [
                        "kind",
                        "apiVersion",
                        "metadata",
                        "involvedObject",
                        "reason",
                        "message"
                    ]
                );
                conv.row_from_json(&json).unwrap().texts(NOW)
            })
            .collect()
    };
    let rows = print(PodStory::CrashLoop, &mut rng);
    let reasons: Vec<&str> = rows.iter().map(|r| r[2].as_str()).collect();
    assert_eq!(
        reasons,
        [
            "Scheduled",
            "Pulling",
            "Pulled",
            "Created",
            "Started",
            "BackOff"
        ]
    );
    // Last Seen, Type, Reason, Object, Subobject, Source, Message, First Seen, Count, Name.
    assert_eq!(
        rows[0][..7],
        [
            "60m",
            "Normal",
            "Scheduled",
            "pod/web-5d8f7c9b7-x2x4z",
            "",
            "default-scheduler, default-scheduler-control-plane",
            "Successfully assigned shop/web-5d8f7c9b7-x2x4z to node-1"
        ]
    );
    assert_eq!(rows[0][8], "1");
    assert_eq!(
        rows[1][4..7],
        [
            "spec.containers{web}",
            "kubelet, node-1",
            "Pulling image \"nginx:1.27\""
        ]
    );
    assert!(
        rows[2][6].starts_with("Successfully pulled image \"nginx:1.27\" in "),
        "{}",
        rows[2][6]
    );
    assert!(
        rows[2][6].contains(" including waiting). Image size: ") && rows[2][6].ends_with(" bytes.")
    );
    assert_eq!(rows[3][6], "Created container: web");
    assert_eq!(rows[4][6], "Started container web");
    assert_eq!(rows[5][1], "Warning");
    assert_eq!(rows[5][6], "Back-off restarting failed container web in pod web-5d8f7c9b7-x2x4z_shop(0b1c6c0e-6f1f-4a86-9a0e-2d4a3c1f8a11)");
    assert_ne!(rows[5][8], "1", "repeated: a count");
    let unhealthy = print(PodStory::Unhealthy, &mut rng);
    assert_eq!(unhealthy[5][6], "Readiness probe failed: Get \"http://10.244.1.7:8080/ready\": dial tcp 10.244.1.7:8080: connect: connection refused");
    let killed = print(PodStory::Killed, &mut rng);
    assert_eq!(
        killed[5][2..],
        [
            "Killing".to_string(),
            "pod/web-5d8f7c9b7-x2x4z".into(),
            "spec.containers{web}".into(),
            "kubelet, node-1".into(),
            "Stopping container web".into(),
            killed[5][7].clone(),
            "1".into(),
            killed[5][9].clone()
        ]
    );
    assert_eq!(print(PodStory::Started, &mut rng).len(), 5);
    let pulling = kinds::event(&kinds::pod_events(&mut rng, &pod, PodStory::Started, 0)[1]);
    assert!(
        pulling.contains(r#""involvedObject":{"kind":"Pod","namespace":"shop","name":"web-5d8f7c9b7-x2x4z","uid":"0b1c6c0e-6f1f-4a86-9a0e-2d4a3c1f8a11","apiVersion":"v1","resourceVersion":"1234","fieldPath":"spec.containers{web}"},"reason":"Pulling","message":"Pulling image \"nginx:1.27\"","source":{"component":"kubelet","host":"node-1"},"firstTimestamp":"#),
        "{pulling}"
    );
    assert!(pulling.ends_with(r#","count":1,"type":"Normal","eventTime":null,"reportingComponent":"kubelet","reportingInstance":"node-1"}"#), "{pulling}");
}

#[test]
fn generators_are_deterministic() {
    let gen = |seed: u64| {
        let mut rng = Rng::new(seed);
        let svc = kinds::service(&kinds::ServiceParams::random(
            &mut rng,
            "a",
            "b",
            ServiceKind::LoadBalancer,
            0,
        ));
        let node = kinds::node(&kinds::NodeParams::random(&mut rng, 3, 0));
        let w = kinds::widget(&kinds::WidgetParams::random(&mut rng, "a", "w", 0));
        (svc, node, w)
    };
    assert_eq!(gen(7), gen(7));
    assert_ne!(gen(7), gen(8));
}

// ---------------------------------------------------------------- the real kubectl

mod kubectl {
    //! A local responder serving discovery and the Table documents above to the real
    //! `kubectl`, which prints them. Skipped (with a message) when kubectl is not installed.

    use std::collections::HashMap;
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;
    use std::path::{Path, PathBuf};
    use std::process::{Command, Stdio};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use serde_json::{json, Value};

    /// What a path answers.
    pub enum Route {
        Json(String),
        /// A list, and for `watch=true` these event lines as chunks, then the end of the body.
        ListWatch(String, Vec<String>),
    }

    pub struct Responder {
        pub port: u16,
        /// (path with query, Accept) of every request.
        pub requests: Arc<Mutex<Vec<(String, String)>>>,
    }

    fn discovery() -> HashMap<String, String> {
        let res = |name: &str, kind: &str, namespaced: bool, short: &[&str]| {
            json!({"name": name, "singularName": kind.to_lowercase(), "namespaced": namespaced, "kind": kind,
                   "verbs": ["get", "list", "watch"], "shortNames": short})
        };
        let group = |g: &str| {
            json!({"name": g, "versions": [{"groupVersion": format!("{g}/v1"), "version": "v1"}],
                                     "preferredVersion": {"groupVersion": format!("{g}/v1"), "version": "v1"}})
        };
        let list = |gv: &str, resources: Vec<Value>| {
            json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}).to_string()
        };
        HashMap::from([
            ("/api".to_string(), json!({"kind": "APIVersions", "versions": ["v1"],
                "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:6443"}]}).to_string()),
            ("/apis".to_string(), json!({"kind": "APIGroupList", "apiVersion": "v1",
                "groups": [group("apps"), group("kubelive.dev")]}).to_string()),
            ("/api/v1".to_string(), list("v1", vec![
                res("pods", "Pod", true, &["po"]), res("services", "Service", true, &["svc"]),
                res("nodes", "Node", false, &["no"]), res("events", "Event", true, &["ev"]),
                res("namespaces", "Namespace", false, &["ns"]), res("secrets", "Secret", true, &[]),
                res("configmaps", "ConfigMap", true, &["cm"])])),
            ("/apis/apps/v1".to_string(), list("apps/v1", vec![res("replicasets", "ReplicaSet", true, &["rs"])])),
            ("/apis/kubelive.dev/v1".to_string(), list("kubelive.dev/v1", vec![res("widgets", "Widget", true, &["wg"])])),
        ])
    }

    pub fn serve(routes: HashMap<String, Route>) -> Responder {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = requests.clone();
        let routes = Arc::new(routes);
        let docs = Arc::new(discovery());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let (log, routes, docs) = (log.clone(), routes.clone(), docs.clone());
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut line = String::new();
                    if reader.read_line(&mut line).is_err() {
                        return;
                    }
                    let target = line.split_whitespace().nth(1).unwrap_or("/").to_string();
                    let mut accept = String::new();
                    loop {
                        let mut h = String::new();
                        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                            break;
                        }
                        if let Some(v) = h.to_ascii_lowercase().strip_prefix("accept:") {
                            accept = v.trim().to_string();
                        }
                    }
                    log.lock().unwrap().push((target.clone(), accept));
                    let path = target.split('?').next().unwrap_or("");
                    let watch = target.contains("watch=true");
                    let body = |s: &mut std::net::TcpStream, status: &str, b: &str| {
                        let _ = write!(s, "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{b}", b.len());
                    };
                    match (routes.get(path), docs.get(path)) {
                        (Some(Route::ListWatch(_, lines)), _) if watch => {
                            let _ = write!(stream, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
                            for l in lines.iter() {
                                let _ = write!(stream, "{:x}\r\n{l}\r\n", l.len());
                                let _ = stream.flush();
                                std::thread::sleep(Duration::from_millis(50));
                            }
                            let _ = write!(stream, "0\r\n\r\n");
                        }
                        (Some(Route::Json(doc) | Route::ListWatch(doc, _)), _) if !watch => {
                            body(&mut stream, "200 OK", doc)
                        }
                        (_, Some(doc)) => body(&mut stream, "200 OK", doc),
                        _ => body(
                            &mut stream,
                            "404 Not Found",
                            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"not found","reason":"NotFound","code":404}"#,
                        ),
                    }
                });
            }
        });
        Responder { port, requests }
    }

    pub fn path() -> Option<PathBuf> {
        ["/usr/bin/kubectl", "/usr/local/bin/kubectl"]
            .iter()
            .map(PathBuf::from)
            .find(|p| p.exists())
    }

    /// Runs kubectl (bounded to 20 s), returning its stdout whatever the exit status.
    pub fn run(kubectl: &Path, port: u16, args: &[&str]) -> String {
        let dir =
            std::env::temp_dir().join(format!("kubelive-printers-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let child = Command::new(kubectl)
            .args(args)
            .arg(format!("--server=http://127.0.0.1:{port}"))
            .arg(format!("--cache-dir={}", dir.display()))
            .env("KUBECONFIG", dir.join("none"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait_with_output());
        });
        let Ok(out) = rx.recv_timeout(Duration::from_secs(20)) else {
            let _ = Command::new("kill").arg(pid.to_string()).status();
            panic!("kubectl {args:?} timed out");
        };
        let _ = std::fs::remove_dir_all(&dir);
        let out = out.unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        if stdout.is_empty() {
            panic!(
                "kubectl {args:?} printed nothing: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        stdout
    }
}

fn table_list(conv: &TableConvertor, objects: &[String]) -> String {
    let refs: Vec<&str> = objects.iter().map(String::as_str).collect();
    list_doc(
        conv,
        format(IncludeObject::Metadata),
        &ListMeta {
            resource_version: "500",
            ..Default::default()
        },
        &refs,
    )
}

/// `kubectl get` of pods (plain, wide, watch), services, nodes, events and widgets reading
/// the documents these writers produce: kubectl prints the server's headers and cells.
#[test]
fn kubectl_prints_the_tables() {
    use kubectl::{run, serve, Route};
    use support::grid;
    let Some(k) = kubectl::path() else {
        eprintln!("kubectl not installed: skipped");
        return;
    };
    let mut rng = Rng::new(21);
    let sim_now = 3_600_000; // sim time of NOW
    let pod_conv = pods();

    let svc = kinds::service(&kinds::ServiceParams::random(
        &mut rng,
        "shop",
        "web",
        ServiceKind::LoadBalancer,
        sim_now - 7 * 60_000,
    ));
    let nodes: Vec<String> = (0..2)
        .map(|i| kinds::node(&kinds::NodeParams::random(&mut rng, i, 0)))
        .collect();
    let pod_ref = PodRef {
        namespace: "shop".into(),
        name: "web-1".into(),
        uid: "u-1".into(),
        resource_version: None,
        node: "node-1".into(),
        container: "web".into(),
        image: "nginx:1.27".into(),
        pod_ip: "10.244.1.5".into(),
    };
    let events: Vec<String> =
        kinds::pod_events(&mut rng, &pod_ref, PodStory::Killed, sim_now - 30 * 60_000)
            .iter()
            .map(kinds::event)
            .collect();
    let crd: Value = serde_json::from_str(&kinds::widget_crd("crd-uid", None, 0)).unwrap();
    let widget_conv = TableConvertor::for_crd(&crd, "v1").unwrap();
    let mut wp = kinds::WidgetParams::random(&mut rng, "shop", "gizmo", sim_now - 9 * 60_000);
    wp.ready = Some(true);
    let widget = kinds::widget(&wp);

    let server = serve(std::collections::HashMap::from([
        (
            "/api/v1/namespaces/shop/pods".to_string(),
            Route::Json(table_list(&pod_conv, &[POD.to_string()])),
        ),
        (
            "/api/v1/namespaces/shop/services".to_string(),
            Route::Json(table_list(
                &TableConvertor::for_kind("", "Service"),
                std::slice::from_ref(&svc),
            )),
        ),
        (
            "/api/v1/nodes".to_string(),
            Route::Json(table_list(&TableConvertor::for_kind("", "Node"), &nodes)),
        ),
        (
            "/api/v1/namespaces/shop/events".to_string(),
            Route::Json(table_list(&TableConvertor::for_kind("", "Event"), &events)),
        ),
        (
            "/apis/kubelive.dev/v1/namespaces/shop/widgets".to_string(),
            Route::Json(table_list(&widget_conv, &[widget])),
        ),
    ]));
    let port = server.port;

    let g = grid(&run(&k, port, &["get", "pods", "-n", "shop"]));
    assert_eq!(
        g,
        [
            ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
            ["web-1", "1/1", "Running", "2 (3m ago)", "5m"]
        ]
    );
    let g = grid(&run(&k, port, &["get", "pods", "-n", "shop", "-o", "wide"]));
    assert_eq!(
        g,
        [
            [
                "NAME",
                "READY",
                "STATUS",
                "RESTARTS",
                "AGE",
                "IP",
                "NODE",
                "NOMINATED NODE",
                "READINESS GATES"
            ],
            [
                "web-1",
                "1/1",
                "Running",
                "2 (3m ago)",
                "5m",
                "10.244.1.5",
                "node-1",
                "<none>",
                "<none>"
            ]
        ]
    );
    // kubectl asked for a Table (the header is lowercased by the responder).
    let accept_seen = server
        .requests
        .lock()
        .unwrap()
        .iter()
        .find(|(p, _)| p.starts_with("/api/v1/namespaces/shop/pods"))
        .map(|(_, accept)| accept.clone())
        .unwrap();
    assert!(
        accept_seen.starts_with("application/json;as=table;v=v1;g=meta.k8s.io,application/json;as=table;v=v1beta1;g=meta.k8s.io"),
        "{accept_seen}"
    );

    let svc_v: Value = serde_json::from_str(&svc).unwrap();
    let g = grid(&run(&k, port, &["get", "svc", "-n", "shop"]));
    assert_eq!(
        g[0],
        [
            "NAME",
            "TYPE",
            "CLUSTER-IP",
            "EXTERNAL-IP",
            "PORT(S)",
            "AGE"
        ]
    );
    assert_eq!(
        g[1],
        [
            "web".to_string(),
            "LoadBalancer".into(),
            svc_v["spec"]["clusterIP"].as_str().unwrap().into(),
            svc_v["status"]["loadBalancer"]["ingress"][0]["ip"]
                .as_str()
                .unwrap()
                .into(),
            format!(
                "80:{}/TCP,443:{}/TCP",
                svc_v["spec"]["ports"][0]["nodePort"], svc_v["spec"]["ports"][1]["nodePort"]
            ),
            "7m".into()
        ]
    );

    let g = grid(&run(&k, port, &["get", "nodes", "-o", "wide"]));
    assert_eq!(
        g[0],
        [
            "NAME",
            "STATUS",
            "ROLES",
            "AGE",
            "VERSION",
            "INTERNAL-IP",
            "EXTERNAL-IP",
            "OS-IMAGE",
            "KERNEL-VERSION",
            "CONTAINER-RUNTIME"
        ]
    );
    assert_eq!(
        g[1][..7],
        [
            "control-plane",
            "Ready",
            "control-plane",
            "60m",
            "v1.32.0",
            "192.168.0.10",
            "<none>"
        ]
    );
    assert_eq!(g[2][..3], ["node-1", "Ready", "<none>"]);

    let g = grid(&run(&k, port, &["get", "events", "-n", "shop"]));
    assert_eq!(g[0], ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]);
    assert_eq!(
        g[1],
        [
            "30m",
            "Normal",
            "Scheduled",
            "pod/web-1",
            "Successfully assigned shop/web-1 to node-1"
        ]
    );
    assert_eq!(g[2][..4], ["30m", "Normal", "Pulling", "pod/web-1"]);
    assert_eq!(g[2][4], "Pulling image \"nginx:1.27\"");
    assert_eq!(
        g.last().unwrap()[2..],
        ["Killing", "pod/web-1", "Stopping container web"]
    );

    let g = grid(&run(&k, port, &["get", "widgets", "-n", "shop"]));
    assert_eq!(
        g[0],
        ["NAME", "COLOR", "SIZE", "READY", "LAST SYNCED", "AGE"]
    );
    assert_eq!(g[1][0], "gizmo");
    assert_eq!(g[1][2], wp.size.to_string());
    assert_eq!(g[1][3], "True");
    assert_eq!(g[1][5], "9m");
    let g = grid(&run(
        &k,
        port,
        &["get", "widgets", "-n", "shop", "-o", "wide"],
    ));
    assert_eq!(g[0].last().unwrap(), "OWNER");
    assert_eq!(g[1].last().unwrap(), &wp.owner);
}

/// `kubectl get pods -w`: the list, then watch events whose tables carry the column
/// definitions once; kubectl prints a row per event under the list's header.
#[test]
fn kubectl_watches_tables() {
    use kubectl::{run, serve, Route};
    use support::grid;
    let Some(k) = kubectl::path() else {
        eprintln!("kubectl not installed: skipped");
        return;
    };
    let conv = pods();
    let mut enc = WatchTableEncoder::new(format(IncludeObject::Metadata));
    let mut watch = String::new();
    let modified = POD
        .replace(r#""restartCount":2"#, r#""restartCount":3"#)
        .replace(r#""resourceVersion":"42""#, r#""resourceVersion":"43""#);
    let row = conv.row_from_json(&modified).unwrap();
    enc.write_event(&mut watch, &conv, "MODIFIED", &row, &modified, NOW)
        .unwrap();
    enc.write_event(&mut watch, &conv, "DELETED", &row, &modified, NOW)
        .unwrap();
    let list = table_list(&conv, &[POD.to_string()]);
    let server = serve(std::collections::HashMap::from([(
        "/api/v1/namespaces/shop/pods".to_string(),
        Route::ListWatch(list, watch.lines().map(String::from).collect()),
    )]));
    // kubectl ends (with "watch closed") when the server ends the watch body.
    let out = run(
        &k,
        server.port,
        &["get", "pods", "-n", "shop", "-w", "--output-watch-events"],
    );
    let g = grid(&out);
    assert_eq!(
        g[0],
        ["EVENT", "NAME", "READY", "STATUS", "RESTARTS", "AGE"],
        "{out}"
    );
    assert_eq!(
        g[1],
        ["ADDED", "web-1", "1/1", "Running", "2 (3m ago)", "5m"],
        "{out}"
    );
    assert_eq!(
        g[2],
        ["MODIFIED", "web-1", "1/1", "Running", "3 (3m ago)", "5m"],
        "{out}"
    );
    assert_eq!(
        g[3],
        ["DELETED", "web-1", "1/1", "Running", "3 (3m ago)", "5m"],
        "{out}"
    );
    assert_eq!(g.len(), 4, "{out}");
    let reqs = server.requests.lock().unwrap();
    let (target, accept) = reqs.iter().find(|(p, _)| p.contains("watch=true")).unwrap();
    assert!(accept.contains("as=table"), "{target} {accept}");
    // kubectl get -w does not ask for bookmarks (a server sends it none).
    assert!(!target.contains("allowWatchBookmarks"), "{target}");
}
