//! The workload's pods as compact typed state (~100 bytes a pod instead of a ~4 KB
//! document), written out as JSON on demand in the field order of `k8s.io/api/core/v1`
//! `types.go`: the same bytes every time for the same state and version, so the history
//! stays exact. The content is that of [`crate::workload::pod`] (a test checks they agree).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

use crate::printers::{Cell, Completion, Row};
use crate::util::{timestamp, unix_ms, write_timestamp, write_uuid, Rng};
use crate::workload::{pod, PodParams};

/// The internal IP of worker node `node-<index>` (what its pods' `hostIP` is): the node
/// network 192.168.0.0/16, `.10` being the control plane.
pub fn node_ip(index: u32) -> String {
    let n = index + 1;
    format!("192.168.{}.{}", n / 240, 10 + n % 240)
}

/// A pod's lifecycle phase; it only moves forward (Pending -> Running -> Succeeded/Failed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    Pending,
    Running,
    Succeeded,
    Failed,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Pending => "Pending",
            Phase::Running => "Running",
            Phase::Succeeded => "Succeeded",
            Phase::Failed => "Failed",
        }
    }
    pub fn parse(s: &str) -> Phase {
        match s {
            "Running" => Phase::Running,
            "Succeeded" => Phase::Succeeded,
            "Failed" => Phase::Failed,
            _ => Phase::Pending,
        }
    }
}

/// What the pods of one Deployment share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeployInfo {
    pub namespace: Arc<str>,
    pub app: Box<str>,
    pub hash: Box<str>,
    pub rs_uid: Box<str>,
}

/// The state of a generated pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodState {
    pub deploy: Arc<DeployInfo>,
    pub suffix: [u8; 5],
    /// The uid's two halves as [`Rng::uuid`] draws them.
    pub uid: (u64, u64),
    pub node: u16,
    pub ip: [u8; 3],
    pub image: (u8, u8),
    pub created_ms: u64,
    pub phase: Phase,
    pub ready: bool,
    pub restarts: u32,
    /// When the container (last) started.
    pub started_ms: u64,
    /// When Ready/ContainersReady last changed.
    pub transition_ms: u64,
    /// When the container ended (the pod completed or failed).
    pub finished_ms: Option<u64>,
    /// When the container was last OOMKilled (before its latest restart).
    pub oom_ms: Option<u64>,
    /// `track=canary`, `tier=frontend` instead of `tier=backend`.
    pub canary: bool,
    /// Graceful deletion under way: (deletionTimestamp in ms, grace seconds).
    pub deletion: Option<(u64, u32)>,
}

impl PodState {
    /// A new pod of `deploy` on one of `nodes` worker nodes, drawn from `rng` (Running and
    /// ready when `settled`, as in a cluster that has been up a while; Pending otherwise).
    pub fn random(
        rng: &mut Rng,
        deploy: &Arc<DeployInfo>,
        nodes: u16,
        now_ms: u64,
        settled: bool,
    ) -> Self {
        let mut suffix = [0u8; 5];
        suffix.copy_from_slice(rng.alnum(5).as_bytes());
        let node = rng.below(u64::from(nodes.max(1))) as u16;
        let ip = [
            (244 + rng.below(4)) as u8,
            rng.below(256) as u8,
            (2 + rng.below(250)) as u8,
        ];
        let uid = (rng.next_u64(), rng.next_u64());
        let image = (rng.below(30) as u8, rng.below(10) as u8);
        PodState {
            deploy: deploy.clone(),
            suffix,
            uid,
            node,
            ip,
            image,
            created_ms: now_ms,
            phase: if settled {
                Phase::Running
            } else {
                Phase::Pending
            },
            ready: settled,
            restarts: 0,
            started_ms: now_ms + 2000,
            transition_ms: now_ms + 2000,
            finished_ms: None,
            oom_ms: None,
            canary: false,
            deletion: None,
        }
    }

    /// The state [`pod`] describes for `p` (for checking that both agree).
    pub fn from_params(p: &PodParams, uid: (u64, u64)) -> Self {
        let mut suffix = [b'0'; 5];
        for (d, s) in suffix.iter_mut().zip(p.suffix.bytes()) {
            *d = s;
        }
        let octets: Vec<u8> = p.pod_ip.split('.').filter_map(|x| x.parse().ok()).collect();
        let (maj, min) = p.image_tag.split_once('.').map_or((1, 0), |(_, r)| {
            let (a, b) = r.split_once('.').unwrap_or((r, "0"));
            (a.parse().unwrap_or(0), b.parse().unwrap_or(0))
        });
        PodState {
            deploy: Arc::new(DeployInfo {
                namespace: p.namespace.as_str().into(),
                app: p.app.as_str().into(),
                hash: p.template_hash.as_str().into(),
                rs_uid: p.replicaset_uid.as_str().into(),
            }),
            suffix,
            uid,
            node: p.node.trim_start_matches("node-").parse().unwrap_or(0),
            ip: [
                octets.get(1).copied().unwrap_or(244),
                octets.get(2).copied().unwrap_or(0),
                octets.get(3).copied().unwrap_or(2),
            ],
            image: (maj, min),
            created_ms: p.created_ms,
            phase: Phase::parse(&p.phase),
            ready: p.ready,
            restarts: p.restarts,
            started_ms: p.created_ms + 2000,
            transition_ms: p.created_ms + 2000,
            finished_ms: None,
            oom_ms: None,
            canary: false,
            deletion: None,
        }
    }

    pub fn name(&self) -> String {
        let d = &self.deploy;
        format!(
            "{}-{}-{}",
            d.app,
            d.hash,
            std::str::from_utf8(&self.suffix).unwrap_or("xxxxx")
        )
    }

    pub fn uid_string(&self) -> String {
        let mut s = String::with_capacity(36);
        write_uuid(&mut s, self.uid.0, self.uid.1);
        s
    }

    pub fn created(&self) -> String {
        timestamp(self.created_ms)
    }

    pub fn label(&self, k: &str) -> Option<&str> {
        match k {
            "app" => Some(&self.deploy.app),
            "pod-template-hash" => Some(&self.deploy.hash),
            "tier" => Some(if self.canary { "frontend" } else { "backend" }),
            "track" if self.canary => Some("canary"),
            _ => None,
        }
    }

    pub(crate) fn pod_ip(&self) -> String {
        format!("10.{}.{}.{}", self.ip[0], self.ip[1], self.ip[2])
    }

    /// The value of a pod's selectable field ([`crate::fields`]).
    pub fn field(&self, path: &str) -> Cow<'_, str> {
        match path {
            "spec.nodeName" => Cow::Owned(format!("node-{}", self.node)),
            "spec.restartPolicy" => Cow::Borrowed("Always"),
            "spec.schedulerName" => Cow::Borrowed("default-scheduler"),
            "spec.serviceAccountName" => Cow::Borrowed("default"),
            "spec.hostNetwork" => Cow::Borrowed("false"),
            "status.phase" => Cow::Borrowed(self.phase.as_str()),
            "status.podIP" => Cow::Owned(self.pod_ip()),
            _ => Cow::Borrowed(""),
        }
    }

    pub(crate) fn image(&self) -> String {
        let d = &self.deploy;
        format!(
            "registry.example.com/{}/{}:1.{}.{}",
            d.namespace, d.app, self.image.0, self.image.1
        )
    }

    /// The pod as the pod printer prints the document [`PodState::write_fields`] writes
    /// (`printPod` of `pkg/printers/internalversion/printers.go`), read from the typed state:
    /// one container whose state follows the phase, its restarts and last OOM kill.
    pub fn row(&self, name: &str) -> Row {
        let since = |ms: u64| Cell::Since {
            unix_ms: unix_ms(ms),
        };
        let mut ready = 0;
        let status = match self.phase {
            Phase::Pending => "ContainerCreating",
            Phase::Running => {
                if self.ready {
                    ready = 1;
                }
                "Running"
            }
            Phase::Succeeded => "Completed",
            Phase::Failed => "Error",
        };
        let status = match (self.deletion, self.phase) {
            (Some(_), Phase::Pending | Phase::Running) => "Terminating",
            _ => status,
        };
        let restarts = match self.oom_ms {
            Some(t) if self.restarts != 0 => Cell::RestartsSince {
                count: i64::from(self.restarts),
                unix_ms: unix_ms(t),
            },
            _ => Cell::Str(self.restarts.to_string().into()),
        };
        Row {
            cells: vec![
                Cell::Str(name.into()),
                Cell::Str(format!("{ready}/1").into()),
                Cell::Str(status.into()),
                restarts,
                since(self.created_ms),
                Cell::Str(self.pod_ip().into()),
                Cell::Str(format!("node-{}", self.node).into()),
                Cell::Str("<none>".into()),
                Cell::Str("<none>".into()),
            ],
            completed: match self.phase {
                Phase::Succeeded => Some(Completion::Succeeded),
                Phase::Failed => Some(Completion::Failed),
                _ => None,
            },
        }
    }

    /// Writes the pod's `metadata` object alone (`{...}`), as [`PodState::write_fields`]
    /// writes it.
    pub fn write_metadata(&self, out: &mut String, name: &str, rv: u64) {
        let t = template();
        let cx = Ctx {
            created: timestamp(self.created_ms),
            trans: String::new(),
            ip: self.pod_ip(),
            image: String::new(),
        };
        let (last, end) = t.metadata_end;
        for (i, seg) in t.segs.iter().enumerate() {
            match seg {
                Seg::Lit(s) => {
                    let s = if i == last { &s[..end] } else { s };
                    let s = if i == 0 {
                        s.strip_prefix("\"metadata\":").unwrap_or(s)
                    } else {
                        s
                    };
                    out.push_str(s);
                    if i == last {
                        return;
                    }
                }
                Seg::Var(v) => self.write_var(out, *v, name, rv, t, &cx),
            }
        }
    }

    /// Writes the pod's fields (everything between the braces, after `kind`/`apiVersion`).
    pub fn write_fields(&self, out: &mut String, name: &str, rv: u64) {
        let t = template();
        // What appears more than once is formatted once.
        let cx = Ctx {
            created: timestamp(self.created_ms),
            trans: timestamp(self.transition_ms),
            ip: self.pod_ip(),
            image: self.image(),
        };
        out.reserve(4400);
        for seg in &t.segs {
            match seg {
                Seg::Lit(s) => out.push_str(s),
                Seg::Var(v) => self.write_var(out, *v, name, rv, t, &cx),
            }
        }
    }

    fn write_var(&self, out: &mut String, v: Var, name: &str, rv: u64, t: &Template, cx: &Ctx) {
        let d = &self.deploy;
        let suffix = std::str::from_utf8(&self.suffix).unwrap_or("xxxxx");
        let _ = match v {
            Var::Name => {
                out.push_str(name);
                Ok(())
            }
            Var::Rs => write!(out, "{}-{}", d.app, d.hash),
            Var::Ns => {
                out.push_str(&d.namespace);
                Ok(())
            }
            Var::Uid => {
                write_uuid(out, self.uid.0, self.uid.1);
                Ok(())
            }
            Var::Rv => write!(out, "{rv}"),
            Var::Created => {
                out.push_str(&cx.created);
                Ok(())
            }
            Var::Started0 => {
                write_timestamp(out, self.created_ms + 2000);
                Ok(())
            }
            Var::Deletion => match self.deletion {
                Some((at, grace)) => write!(
                    out,
                    ",\"deletionTimestamp\":\"{}\",\"deletionGracePeriodSeconds\":{grace}",
                    timestamp(at)
                ),
                None => Ok(()),
            },
            Var::Labels => write!(
                out,
                "\"app\":\"{}\",\"pod-template-hash\":\"{}\",\"tier\":\"{}\"{}",
                d.app,
                d.hash,
                if self.canary { "frontend" } else { "backend" },
                if self.canary {
                    ",\"track\":\"canary\""
                } else {
                    ""
                }
            ),
            Var::RsUid => {
                out.push_str(&d.rs_uid);
                Ok(())
            }
            Var::Fv1 => {
                t.fv1.write(out, &[&d.app, &d.rs_uid]);
                Ok(())
            }
            Var::Fv2 => {
                t.fv2.write(out, &[&cx.ip]);
                Ok(())
            }
            Var::App => {
                out.push_str(&d.app);
                Ok(())
            }
            Var::Image => {
                out.push_str(&cx.image);
                Ok(())
            }
            Var::Node => write!(out, "node-{}", self.node),
            Var::Phase => {
                out.push_str(self.phase.as_str());
                Ok(())
            }
            Var::Ready => {
                out.push_str(if self.ready { "True" } else { "False" });
                Ok(())
            }
            Var::ReadyBool => {
                out.push_str(if self.ready { "true" } else { "false" });
                Ok(())
            }
            Var::Trans => {
                out.push_str(&cx.trans);
                Ok(())
            }
            Var::HostIp => {
                out.push_str(&node_ip(u32::from(self.node)));
                Ok(())
            }
            Var::Ip => {
                out.push_str(&cx.ip);
                Ok(())
            }
            Var::State => self.write_state(out, suffix),
            Var::Last => match self.oom_ms {
                Some(f) => write!(
                    out,
                    "{{\"terminated\":{{\"exitCode\":137,\"reason\":\"OOMKilled\",\"finishedAt\":\"{}\"}}}}",
                    timestamp(f)
                ),
                _ => {
                    out.push_str("{}");
                    Ok(())
                }
            },
            Var::Restarts => write!(out, "{}", self.restarts),
            Var::ImageId => write!(
                out,
                "registry.example.com/{}/{}@sha256:{:0>64}",
                d.namespace, d.app, d.hash
            ),
            Var::Cid => write!(out, "{suffix:0>64}"),
            Var::StartedBool => {
                out.push_str(if self.phase == Phase::Running {
                    "true"
                } else {
                    "false"
                });
                Ok(())
            }
        };
    }

    fn write_state(&self, out: &mut String, suffix: &str) -> std::fmt::Result {
        match self.phase {
            Phase::Pending => write!(out, "{{\"waiting\":{{\"reason\":\"ContainerCreating\"}}}}"),
            Phase::Running => write!(
                out,
                "{{\"running\":{{\"startedAt\":\"{}\"}}}}",
                timestamp(self.started_ms)
            ),
            Phase::Succeeded | Phase::Failed => {
                let (code, reason) = if self.phase == Phase::Failed {
                    (1, "Error")
                } else {
                    (0, "Completed")
                };
                write!(
                    out,
                    "{{\"terminated\":{{\"exitCode\":{code},\"reason\":\"{reason}\",\"startedAt\":\"{}\",\"finishedAt\":\"{}\",\"containerID\":\"containerd://{suffix:0>64}\"}}}}",
                    timestamp(self.started_ms),
                    timestamp(self.finished_ms.unwrap_or(self.transition_ms))
                )
            }
        }
    }
}

/// Values a pod's document repeats, formatted once per write.
struct Ctx {
    created: String,
    trans: String,
    ip: String,
    image: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Var {
    Name,
    Rs,
    Ns,
    Uid,
    Rv,
    Created,
    Started0,
    Deletion,
    Labels,
    RsUid,
    Fv1,
    Fv2,
    App,
    Image,
    Node,
    Phase,
    Ready,
    ReadyBool,
    Trans,
    HostIp,
    Ip,
    State,
    Last,
    Restarts,
    ImageId,
    Cid,
    StartedBool,
}

#[derive(Debug)]
enum Seg {
    Lit(&'static str),
    Var(Var),
}

/// A literal text with holes filled in order of their sentinel index.
#[derive(Debug)]
struct Holes {
    lits: Vec<String>,
    holes: Vec<usize>,
}

impl Holes {
    fn new(text: &str, sentinels: &[&str]) -> Holes {
        let mut lits = Vec::new();
        let mut holes = Vec::new();
        let mut rest = text;
        loop {
            let next = sentinels
                .iter()
                .enumerate()
                .filter_map(|(i, s)| rest.find(s).map(|p| (p, i, s.len())))
                .min();
            match next {
                Some((p, i, n)) => {
                    lits.push(rest[..p].to_string());
                    holes.push(i);
                    rest = &rest[p + n..];
                }
                None => {
                    lits.push(rest.to_string());
                    break;
                }
            }
        }
        Holes { lits, holes }
    }
    fn write(&self, out: &mut String, values: &[&str]) {
        for (i, lit) in self.lits.iter().enumerate() {
            out.push_str(lit);
            if let Some(h) = self.holes.get(i) {
                out.push_str(values.get(*h).copied().unwrap_or(""));
            }
        }
    }
}

#[derive(Debug)]
struct Template {
    segs: Vec<Seg>,
    /// Where `metadata` ends: the literal segment holding `,"spec":{` and the offset of
    /// that in it (found once, not per pod written).
    metadata_end: (usize, usize),
    fv1: Holes,
    fv2: Holes,
}

/// The pod document in `types.go` order, with `$var$` holes.
const POD_TEMPLATE: &str = concat!(
    r#""metadata":{"name":"$name$","generateName":"$rs$-","namespace":"$ns$","uid":"$uid$","resourceVersion":"$rv$","creationTimestamp":"$created$"$deletion$,"#,
    r#""labels":{$labels$},"annotations":{"kubectl.kubernetes.io/restartedAt":"$created$"},"#,
    r#""ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"$rs$","uid":"$rsuid$","controller":true,"blockOwnerDeletion":true}],"#,
    r#""managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"$created$","fieldsType":"FieldsV1","fieldsV1":$fv1$},"#,
    r#"{"manager":"kubelet","operation":"Update","apiVersion":"v1","time":"$started0$","fieldsType":"FieldsV1","fieldsV1":$fv2$,"subresource":"status"}]},"#,
    r#""spec":{"volumes":[{"name":"config","configMap":{"name":"$app$-config","defaultMode":420}},"#,
    r#"{"name":"kube-api-access","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},"#,
    r#"{"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},"#,
    r#"{"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}],"defaultMode":420}}],"#,
    r#""containers":[{"name":"$app$","image":"$image$","ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}],"#,
    r#""env":[{"name":"LOG_LEVEL","value":"info"},{"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],"#,
    r#""resources":{"limits":{"memory":"256Mi"},"requests":{"cpu":"100m","memory":"128Mi"}},"#,
    r#""volumeMounts":[{"name":"config","mountPath":"/etc/config"},{"name":"kube-api-access","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],"#,
    r#""livenessProbe":{"httpGet":{"path":"/healthz","port":8080,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},"#,
    r#""readinessProbe":{"httpGet":{"path":"/ready","port":8080,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":5,"successThreshold":1,"failureThreshold":3},"#,
    r#""terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"#,
    r#""restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","serviceAccount":"default","#,
    r#""nodeName":"$node$","securityContext":{},"schedulerName":"default-scheduler","#,
    r#""tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},"#,
    r#"{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"#,
    r#""priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},"#,
    r#""status":{"phase":"$phase$","conditions":[{"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":"$created$"},"#,
    r#"{"type":"Ready","status":"$ready$","lastProbeTime":null,"lastTransitionTime":"$trans$"},"#,
    r#"{"type":"ContainersReady","status":"$ready$","lastProbeTime":null,"lastTransitionTime":"$trans$"},"#,
    r#"{"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"$created$"}],"#,
    r#""hostIP":"$hostip$","hostIPs":[{"ip":"$hostip$"}],"podIP":"$ip$","podIPs":[{"ip":"$ip$"}],"startTime":"$created$","#,
    r#""containerStatuses":[{"name":"$app$","state":$state$,"lastState":$last$,"ready":$readyb$,"restartCount":$restarts$,"#,
    r#""image":"$image$","imageID":"$imageid$","containerID":"containerd://$cid$","started":$startedb$}],"qosClass":"Burstable"}"#,
);

fn template() -> &'static Template {
    static T: OnceLock<Template> = OnceLock::new();
    T.get_or_init(|| {
        let mut segs = Vec::new();
        let mut parts = POD_TEMPLATE.split('$');
        let mut is_var = false;
        for part in parts.by_ref() {
            if is_var {
                let v = match part {
                    "name" => Var::Name,
                    "rs" => Var::Rs,
                    "ns" => Var::Ns,
                    "uid" => Var::Uid,
                    "rv" => Var::Rv,
                    "created" => Var::Created,
                    "started0" => Var::Started0,
                    "deletion" => Var::Deletion,
                    "labels" => Var::Labels,
                    "rsuid" => Var::RsUid,
                    "fv1" => Var::Fv1,
                    "fv2" => Var::Fv2,
                    "app" => Var::App,
                    "image" => Var::Image,
                    "node" => Var::Node,
                    "phase" => Var::Phase,
                    "ready" => Var::Ready,
                    "readyb" => Var::ReadyBool,
                    "trans" => Var::Trans,
                    "hostip" => Var::HostIp,
                    "ip" => Var::Ip,
                    "state" => Var::State,
                    "last" => Var::Last,
                    "restarts" => Var::Restarts,
                    "imageid" => Var::ImageId,
                    "cid" => Var::Cid,
                    _ => Var::StartedBool,
                };
                segs.push(Seg::Var(v));
            } else if !part.is_empty() {
                segs.push(Seg::Lit(part));
            }
            is_var = !is_var;
        }
        // The managed fields' sets, exactly as `pod()` has them (sorted keys, as the
        // apiserver stores them), with holes for what varies per pod.
        let p = PodParams {
            namespace: "ns".into(),
            app: "\u{1}APP\u{1}".into(),
            template_hash: "h".into(),
            suffix: "s".into(),
            node: "node-0".into(),
            pod_ip: "\u{1}IP\u{1}".into(),
            phase: "Running".into(),
            ready: true,
            restarts: 0,
            created_ms: 0,
            replicaset_uid: "\u{1}RSUID\u{1}".into(),
            image_tag: "1.0.0".into(),
        };
        let v = pod(&p);
        let mf = &v["metadata"]["managedFields"];
        let esc = |s: &str| crate::util::json_str(s).trim_matches('"').to_string();
        let (app, rsuid, ip) = (
            esc("\u{1}APP\u{1}"),
            esc("\u{1}RSUID\u{1}"),
            esc("\u{1}IP\u{1}"),
        );
        let metadata_end = segs
            .iter()
            .enumerate()
            .find_map(|(i, seg)| match seg {
                Seg::Lit(s) => s.find(",\"spec\":{").map(|at| (i, at)),
                Seg::Var(_) => None,
            })
            .expect("the pod template has a spec after its metadata");
        Template {
            segs,
            metadata_end,
            fv1: Holes::new(&mf[0]["fieldsV1"].to_string(), &[&app, &rsuid]),
            fv2: Holes::new(&mf[1]["fieldsV1"].to_string(), &[&ip]),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// The compact pod writes out what `pod()` describes, field for field.
    #[test]
    fn agrees_with_the_value_form() {
        let mut rng = Rng::new(5);
        let mut p = PodParams::random(&mut rng, "shop", "web", "5d8f7c9b", 3_600_000);
        p.replicaset_uid = "rs-uid-1".into();
        let s = PodState::from_params(&p, (1, 2));
        let name = s.name();
        assert_eq!(name, p.name());
        let mut text = String::from("{");
        s.write_fields(&mut text, &name, 77);
        text.push('}');
        let got: Value = serde_json::from_str(&text).unwrap();
        let mut want = pod(&p);
        let m = want.as_object_mut().unwrap();
        m.remove("kind");
        m.remove("apiVersion");
        want["metadata"]["uid"] = json!(s.uid_string());
        want["metadata"]["resourceVersion"] = json!("77");
        assert_eq!(got, want);
        // Go field order: metadata's name first, spec before status.
        assert!(text.starts_with(r#"{"metadata":{"name":""#));
        assert!(text.find("\"spec\":").unwrap() < text.find("\"status\":").unwrap());
    }
}
