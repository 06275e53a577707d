//! `kubelive-sim serve --port P [--kube-version 1.NN] [--feature-gates G=BOOL,...] [--objects N] [--churn PER_SEC] [--churn-for SECS] [--rollout-every SECS] [--cronjobs N] [--statefulsets N] [--compact-every SECS] [--faults SPEC] [--seed S] [--allow RULES] [--user NAME] [--extra-groups N] [--no-leases] [--progress-notify-every SECS] [--no-compression]`

use std::io::Write;

use kubelive_sim::rbac::{self, Policy};
use kubelive_sim::server::{Server, ServerConfig};
use kubelive_sim::{CacheProgress, FaultPlan, Release, StreamingLists};

const USAGE: &str = "usage: kubelive-sim serve [--port P] [--address A] [--kube-version 1.NN]
                          [--feature-gates WatchList=BOOL,WatchListCompression=BOOL]
                          [--objects N] [--namespaces K]
                          [--churn PER_SEC] [--churn-for SECS] [--rollout-every SECS] [--cronjobs N]
                          [--statefulsets N]
                          [--compact-every SECS] [--watch-cache-window SECS]
                          [--bookmark-every SECS] [--faults SPEC] [--seed S]
                          [--no-streaming-lists | --ignore-streaming-lists]
                          [--allow RULES]... [--user NAME] [--extra-groups N]
                          [--no-leases] [--progress-notify-every SECS]
                          [--no-compression] [--verbose]

  --port 0 picks a free port. The first stdout line is `kubelive-sim listening on <url>`.
  --kube-version 1.27 ... 1.37 (also v1.27, 1.27.3; default 1.37): answer as that
    kube-apiserver release: /version, the aggregated discovery versions (v2beta1 to 1.32,
    v2 from 1.30), streaming lists (WatchList on by default in 1.32 and from 1.34, else
    the 422; the end bookmark from the 1 s bookmark timer before 1.32, changes made
    meanwhile first; as=Table answered 406 in 1.32-1.33), and from 1.37 streaming lists
    gzipped, one gzip member per flush, for clients sending Accept-Encoding: gzip.
  --feature-gates: turn the release's WatchList / WatchListCompression gates on or off
    (e.g. --kube-version 1.31 --feature-gates WatchList=true). --no-streaming-lists is
    WatchList=false; --ignore-streaming-lists answers as a server before 1.27.
  --churn-for SECS: the churn stops SECS after the start (graceful deletions still end).
  --rollout-every SECS: every SECS one Deployment (one after the other) gets a new pod
    template and rolls its pods over to a new ReplicaSet (RollingUpdate, 25%/25%, a step
    every 2 s); rollouts stop with the churn. Deleting an owner has its dependents
    garbage-collected, always.
  --cronjobs N: N CronJobs (cron-0 .. in ns-0 ..) run every minute (wall clock): each run
    a Job and its pod, which succeeds 20 s later; 3 finished Jobs are kept. They stop
    with the churn.
  --statefulsets N: N StatefulSets (web-0 .. in ns-0 ..) of 3 pods, made one after the
    other (OrderedReady, 2 s each), each with a bound 1Gi claim data-web-I-N; the claims
    are retained (whenDeleted: Retain), so deleting a set leaves them. They stop with
    the churn.
  --faults SPEC, comma-separated: cut=P abort=P cut-within=BYTES split=P nobookmarks[=P]
    lag=N lag-chance=P 429=P 500=P 503=P retry-after=S html=P malformed=P drip=BYTES/MS
    proxy-cut-every=MS silent=P silent-within=MS compact@SECS restart@SECS silent@SECS
    (e.g. --faults cut=0.2,split=0.5,429=0.05,compact@30)

  Permissions (RBAC as kube-apiserver answers it; `kubectl auth can-i` works against it):
  without --allow and --user the client is a cluster admin. With them it is NAME
  (default jane@example.com) holding the roles every authenticated user has (discovery,
  the self-subject reviews) and the rules given, repeatable or `;`-separated:
    --allow VERBS:RESOURCES[@NAMESPACES]   e.g. --allow 'list,watch:pods@a,b'
    RESOURCES: pods, deployments.apps, widgets.kubelive.dev, * (any), /path (non-resource)
    no @NAMESPACES: cluster-wide. Everything else gets the apiserver's 403.

  A live control plane: kube-apiserver renews its identity lease every 10 s, the
  controller-manager and the scheduler their leader leases every 2 s (Leases in
  kube-system), so the resourceVersion moves while nothing a user watches changes.
  --no-leases turns that off. A watch of a quiet collection gets a bookmark about every
  minute once its watch cache learned a newer version: from etcd's progress
  notifications, every --progress-notify-every SECS (etcd's default: 600; 0: at once,
  as in a cluster whose clients' consistent LISTs keep asking for progress), or from any
  consistent LIST or streaming list.
  --extra-groups N serves N more API groups (group-NN.extra.kubelive.dev, one resource
  `things` each) with their CustomResourceDefinitions, for discovery at scale.
  Responses over 128 KiB are gzipped for clients that accept it (kube-apiserver's
  APIResponseCompression); --no-compression turns that off, for benchmarks.";

fn parse(args: &[String]) -> Result<ServerConfig, String> {
    let mut cfg = ServerConfig::default();
    let mut allow: Vec<rbac::AllowRule> = Vec::new();
    let mut user: Option<String> = None;
    let mut it = args.iter();
    match it.next().map(String::as_str) {
        Some("serve") => {}
        Some("-h" | "--help" | "help") | None => return Err(String::new()),
        Some(other) => return Err(format!("unknown command {other:?}")),
    }
    while let Some(flag) = it.next() {
        let (flag, inline) = match flag.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (flag.as_str(), None),
        };
        let mut val = |name: &str| -> Result<String, String> {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or(format!("{name} needs a value"))
        };
        fn num<T: std::str::FromStr>(name: &str, v: String) -> Result<T, String> {
            v.parse().map_err(|_| format!("{name}: bad value {v:?}"))
        }
        match flag {
            "--port" => cfg.port = num(flag, val(flag)?)?,
            "--address" => cfg.address = val(flag)?,
            "--objects" => cfg.objects = num(flag, val(flag)?)?,
            "--namespaces" => cfg.namespaces = num(flag, val(flag)?)?,
            "--churn" => cfg.churn = num(flag, val(flag)?)?,
            "--churn-for" => cfg.churn_for_s = Some(num(flag, val(flag)?)?),
            "--cronjobs" => cfg.cronjobs = num(flag, val(flag)?)?,
            "--statefulsets" => cfg.statefulsets = num(flag, val(flag)?)?,
            "--rollout-every" => {
                let secs: f64 = num(flag, val(flag)?)?;
                if !secs.is_finite() || secs <= 0.0 {
                    return Err("--rollout-every needs a number of seconds above 0".into());
                }
                cfg.rollout_every_s = Some(secs);
            }
            "--compact-every" => cfg.compact_every_s = num(flag, val(flag)?)?,
            "--watch-cache-window" => cfg.watch_cache_window_s = num(flag, val(flag)?)?,
            "--bookmark-every" => cfg.bookmark_every_s = num(flag, val(flag)?)?,
            "--seed" => cfg.seed = num(flag, val(flag)?)?,
            "--faults" => cfg.faults = FaultPlan::parse(&val(flag)?)?,
            "--kube-version" => {
                cfg.release = val(flag)?
                    .parse::<Release>()
                    .map_err(|e| format!("--kube-version: {e}"))?
            }
            "--feature-gates" => {
                for gate in val(flag)?.split(',').filter(|g| !g.trim().is_empty()) {
                    let (name, on) = gate
                        .split_once('=')
                        .ok_or(format!("--feature-gates: {gate:?} is not NAME=true|false"))?;
                    let on = match on.trim() {
                        "true" => true,
                        "false" => false,
                        v => {
                            return Err(format!(
                                "--feature-gates: {name}={v:?} is not true or false"
                            ))
                        }
                    };
                    match name.trim() {
                        "WatchList" => {
                            cfg.streaming_lists = if on {
                                StreamingLists::Supported
                            } else {
                                StreamingLists::Rejected
                            }
                        }
                        "WatchListCompression" => cfg.watch_list_compression = Some(on),
                        other => {
                            return Err(format!(
                                "--feature-gates: the sim models WatchList and WatchListCompression, not {other:?}"
                            ))
                        }
                    }
                }
            }
            "--no-streaming-lists" => cfg.streaming_lists = StreamingLists::Rejected,
            "--ignore-streaming-lists" => cfg.streaming_lists = StreamingLists::Ignored,
            "--allow" => allow.extend(rbac::parse_allow(&val(flag)?)?),
            "--user" => {
                let name = val(flag)?;
                if name.is_empty() {
                    return Err("--user needs a name".into());
                }
                user = Some(name);
            }
            "--extra-groups" => cfg.extra_groups = num(flag, val(flag)?)?,
            "--no-leases" => {
                cfg.control_plane.identity_renew_ms = 0;
                cfg.control_plane.leader_renew_ms = 0;
            }
            "--progress-notify-every" => {
                let secs: f64 = num(flag, val(flag)?)?;
                if !(secs >= 0.0 && secs.is_finite()) {
                    return Err(format!("{flag}: bad value {secs}"));
                }
                cfg.control_plane.progress = match (secs * 1000.0) as u64 {
                    0 => CacheProgress::Immediate,
                    ms => CacheProgress::Every(ms),
                };
            }
            "--no-compression" => cfg.compression = false,
            "--verbose" | "-v" => cfg.verbose = true,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown flag {other:?}")),
        }
    }
    if user.is_some() || !allow.is_empty() {
        let name = user.unwrap_or_else(|| rbac::DEFAULT_USER.to_string());
        cfg.policy = Policy::restricted(&name, &allow);
    }
    Ok(cfg)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cfg = match parse(&args) {
        Ok(c) => c,
        Err(e) => {
            if e.is_empty() {
                println!("{USAGE}");
                return;
            }
            eprintln!("kubelive-sim: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    // Objects are stamped relative to the real start time, so kubectl shows sensible ages.
    if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        kubelive_sim::util::set_epoch_unix_s(d.as_secs());
    }
    let server = match Server::start(cfg) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("kubelive-sim: cannot listen: {e}");
            std::process::exit(1);
        }
    };
    let mut out = std::io::stdout();
    let _ = writeln!(out, "kubelive-sim listening on {}", server.url());
    let _ = out.flush();
    loop {
        std::thread::park();
    }
}
