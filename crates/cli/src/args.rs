//! The command line, parsed by hand (no clap: compile time matters here).

use std::fmt;
use std::time::Duration;

pub const DEFAULT_SERVER: &str = "http://127.0.0.1:8001";

/// What to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    Events,
    Table,
    Snapshot,
}

/// Which namespaces to watch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Namespaces {
    /// Neither `-n` nor `-A`: all namespaces (there is no kubeconfig context here), or
    /// the namespace in a collection path.
    Default,
    One(String),
    All,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WatchArgs {
    pub resource: String,
    pub server: String,
    pub namespaces: Namespaces,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    pub streaming_list: bool,
    pub page_size: u32,
    pub max_page_size: u32,
    /// Ask for the next LIST page while the current one streams (on by default;
    /// `--no-pipeline` turns it off, for comparing).
    pub pipeline_pages: bool,
    pub output: Output,
    /// `-o wide`: the table with every column the server prints (priority > 0 too).
    pub wide: bool,
    /// Ask the server to print (kubectl's `--server-print`, on by default): tables
    /// for `-o table`/`wide`/`events`; `-o snapshot` always keeps objects.
    pub server_print: bool,
    pub duration: Option<Duration>,
    /// `timeoutSeconds` of every watch (None: 300-600 s at random, as client-go).
    pub watch_timeout: Option<u32>,
    pub strip_managed_fields: bool,
    pub verbose: bool,
}

/// `kubelive tree <resource>/<name>`: an object and what it owns, live.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeArgs {
    /// The root's resource as discovery resolves it (`deploy`, `cronjobs.batch`).
    pub resource: String,
    pub name: String,
    pub server: String,
    /// `-n`: the root's namespace (otherwise it is looked for in every namespace).
    pub namespace: Option<String>,
    /// Print the tree once every kind involved is synced, then exit.
    pub once: bool,
    pub duration: Option<Duration>,
    pub verbose: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Watch(WatchArgs),
    Tree(TreeArgs),
    Help,
    Version,
}

/// A usage error: exit status 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

pub const HELP: &str = "\
kubelive: kubectl get -w that never loses its place.

Keeps a live, correct copy of a Kubernetes collection (LIST, then WATCH from the
list's version; resumes after dropped connections without relisting, relists only
when the server says the version expired) and prints every change.

USAGE:
    kubelive watch <RESOURCE> [OPTIONS]
    kubelive tree <RESOURCE>/<NAME> [--server URL] [-n NS] [--once] [--duration SECS] [-v]
    kubelive version
    kubelive --help

RESOURCE:
    A collection path        /api/v1/pods, /apis/apps/v1/deployments,
                             /api/v1/namespaces/kube-system/pods
    or a resource name       pods, po, pod, deploy, deployments.apps, widgets
                             (resolved through discovery like kubectl: plural,
                             singular, short name or kind; the group's preferred
                             version)

OPTIONS:
    --server URL             API server or kubectl proxy [default: http://127.0.0.1:8001,
                             the address `kubectl proxy` listens on]. Plain http only:
                             kubectl proxy adds the credentials.
    -n, --namespace NS       Watch one namespace.
    -A, --all-namespaces     Watch all namespaces. This is the default: kubelive reads no
                             kubeconfig, so it has no context namespace to fall back to,
                             and a watcher usually wants to see everything it may see.
    -l, --selector SEL       Label selector (e.g. app=web,tier!=db).
    --field-selector SEL     Field selector (e.g. spec.nodeName=node-1).
    --streaming-list         Fetch the initial state with a streaming list (watch with
                             sendInitialEvents=true); falls back to LIST+WATCH if the
                             server cannot do it.
    --page-size N            Items on the first LIST page [default: 500]; 0 lists in one
                             response.
    --max-page-size N        Later pages double up to N items [default: 4000], as far as
                             half the document limit holds; N <= --page-size keeps every
                             page at --page-size.
    --no-pipeline            Ask for each LIST page only after the previous one ended
                             (by default the next page is asked for as soon as the
                             current page's continue token is read).
    -o, --output FORMAT      events   one line per change on stdout (default), with the
                                      server's cells; progress on stderr
                             table    a live table of the server's columns (as
                                      kubectl get prints them), redrawn in place on a
                                      terminal; Age counts on from creationTimestamp
                             wide     the table with every column (kubectl's -o wide)
                             snapshot on exit, the cache as compact JSON, one object per
                                      line, sorted by namespace then name
    --server-print=false     Do not ask the server to print (server-side tables, as
                             kubectl does): kubelive's own columns for pods and
                             deployments, name and age for the rest. A server that
                             cannot print is served that way by itself.
    --duration SECS          Stop after SECS seconds (default: run until SIGINT/SIGTERM).
    --watch-timeout SECS     Ask the server to end each watch after SECS (timeoutSeconds;
                             kubelive then resumes at once). A watch still silent 30 s
                             after that is given up as a lost connection, so a short
                             value notices a half-open connection sooner [default: 300
                             to 600 at random, as client-go's informers].
    --strip-managed-fields   Drop metadata.managedFields from the cache.
    -v, --verbose            Print every request and response status on stderr (and,
                             with -o snapshot, every change).
    -h, --help               This help.

TREE:
    kubelive tree deploy/web -n shop   an object and what it owns, live, as `kubectl tree`
                             prints it: its ReplicaSets and their Pods; a CronJob's Jobs
                             and their Pods; a StatefulSet's Pods and claims. One LIST and
                             WATCH per kind involved (the object's kind and the kinds its
                             controller makes, in its namespace), joined by uid through
                             ownerReferences. Each line: the node's Ready and Status as the
                             server prints them, its HEALTH rolled up from what it owns
                             (bad when a Pod below crash-loops, progressing while one is
                             not ready), its age. A kind the user may not list shows as a
                             line saying why. Redrawn in place on a terminal; into a pipe,
                             the tree again each time it changes.
    --once                   Print the tree once every kind is synced, then exit.
    Without -n the object is looked for in every namespace (it must be in one).

EXIT STATUS:
    0  stopped by --duration, SIGINT or SIGTERM
    1  a permanent failure (no such resource, forbidden after retries, bad selector);
       the server's own message is printed
    2  usage error

EXAMPLES:
    kubectl proxy &                                   # then, in another shell:
    kubelive watch pods                               # every pod change, all namespaces
    kubelive watch po -n kube-system -o table         # a live table
    kubelive watch svc -o wide                        # every column the server prints
    kubelive watch deploy -l app=web                  # deployments by label
    kubelive watch /apis/apps/v1/namespaces/x/replicasets
    kubelive watch widgets.example.com --streaming-list
    kubelive watch pods --duration 60 -o snapshot > pods.jsonl
    kubelive tree deploy/app-0 -n ns-0                # a Deployment, its ReplicaSets, Pods
    kubelive tree cronjob/cron-0 --once               # print when synced, then exit
";

fn usage(msg: impl Into<String>) -> UsageError {
    UsageError(msg.into())
}

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Command, UsageError> {
    let Some(first) = args.first() else {
        return Err(usage("no command given (try `kubelive watch pods`)"));
    };
    match first.as_str() {
        "-h" | "--help" | "help" => return Ok(Command::Help),
        "version" | "--version" | "-V" => return Ok(Command::Version),
        "watch" => {}
        "tree" => return parse_tree(&args[1..]),
        other => {
            return Err(usage(format!(
                "unknown command {other:?} (commands: watch, tree, version)"
            )))
        }
    }
    let mut w = WatchArgs {
        resource: String::new(),
        server: DEFAULT_SERVER.to_string(),
        namespaces: Namespaces::Default,
        label_selector: None,
        field_selector: None,
        streaming_list: false,
        page_size: 500,
        max_page_size: 4000,
        pipeline_pages: true,
        output: Output::Events,
        wide: false,
        server_print: true,
        duration: None,
        watch_timeout: None,
        strip_managed_fields: false,
        verbose: false,
    };
    let mut resource: Option<String> = None;
    let mut namespace: Option<String> = None;
    let mut all = false;
    let mut i = 1;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        // --flag=value or --flag value
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v.to_string())),
            _ => (arg, None),
        };
        let mut value = |name: &str| -> Result<String, UsageError> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            match args.get(i) {
                Some(v) => {
                    i += 1;
                    Ok(v.clone())
                }
                None => Err(usage(format!("{name} needs a value"))),
            }
        };
        let no_value = |inline: &Option<String>| -> Result<(), UsageError> {
            match inline {
                Some(_) => Err(usage(format!("{flag} takes no value"))),
                None => Ok(()),
            }
        };
        match flag {
            "-h" | "--help" => return Ok(Command::Help),
            "--server" | "-s" => w.server = value(flag)?,
            "-n" | "--namespace" => {
                let ns = value(flag)?;
                if ns.is_empty() || ns.contains(['/', '?', '#', ' ']) {
                    return Err(usage(format!("{ns:?} is not a namespace name")));
                }
                namespace = Some(ns);
            }
            "-A" | "--all-namespaces" => {
                no_value(&inline)?;
                all = true;
            }
            "-l" | "--selector" => w.label_selector = Some(value(flag)?),
            "--field-selector" => w.field_selector = Some(value(flag)?),
            "--streaming-list" => {
                no_value(&inline)?;
                w.streaming_list = true;
            }
            "--no-pipeline" => {
                no_value(&inline)?;
                w.pipeline_pages = false;
            }
            "--page-size" => {
                let v = value(flag)?;
                w.page_size = v
                    .parse()
                    .map_err(|_| usage(format!("--page-size: {v:?} is not a whole number >= 0")))?;
            }
            "--max-page-size" => {
                let v = value(flag)?;
                w.max_page_size = v.parse().map_err(|_| {
                    usage(format!("--max-page-size: {v:?} is not a whole number >= 0"))
                })?;
            }
            "-o" | "--output" => {
                let v = value(flag)?;
                (w.output, w.wide) = match v.as_str() {
                    "events" => (Output::Events, false),
                    "table" => (Output::Table, false),
                    "wide" => (Output::Table, true),
                    "snapshot" => (Output::Snapshot, false),
                    _ => {
                        return Err(usage(format!(
                            "--output: {v:?} is not one of events, table, wide, snapshot"
                        )))
                    }
                };
            }
            "--server-print" => {
                w.server_print = match inline.as_deref() {
                    None | Some("true") => true,
                    Some("false") => false,
                    Some(v) => {
                        return Err(usage(format!("--server-print: {v:?} is not true or false")))
                    }
                };
            }
            "--duration" => {
                let v = value(flag)?;
                let secs: f64 = v
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s >= 0.0 && *s < 1e9)
                    .ok_or_else(|| {
                        usage(format!("--duration: {v:?} is not a number of seconds"))
                    })?;
                w.duration = Some(Duration::from_secs_f64(secs));
            }
            "--watch-timeout" => {
                let v = value(flag)?;
                let secs = v.parse().ok().filter(|s: &u32| *s >= 1).ok_or_else(|| {
                    usage(format!(
                        "--watch-timeout: {v:?} is not a whole number of seconds >= 1"
                    ))
                })?;
                w.watch_timeout = Some(secs);
            }
            "--strip-managed-fields" => {
                no_value(&inline)?;
                w.strip_managed_fields = true;
            }
            "-v" | "--verbose" => {
                no_value(&inline)?;
                w.verbose = true;
            }
            _ if flag.starts_with('-') && flag.len() > 1 => {
                return Err(usage(format!("unknown option {flag}")))
            }
            _ => {
                if resource.is_some() {
                    return Err(usage(format!(
                        "unexpected argument {arg:?}: watch takes one RESOURCE"
                    )));
                }
                resource = Some(arg.to_string());
            }
        }
    }
    w.resource = resource.ok_or_else(|| usage("watch needs a RESOURCE (e.g. pods)"))?;
    if w.resource.is_empty() {
        return Err(usage("RESOURCE is empty"));
    }
    w.namespaces = match (namespace, all) {
        (Some(_), true) => return Err(usage("-n and -A cannot be used together")),
        (Some(ns), false) => Namespaces::One(ns),
        (None, true) => Namespaces::All,
        (None, false) => Namespaces::Default,
    };
    Ok(Command::Watch(w))
}

/// Parses `tree`'s arguments (after the command).
fn parse_tree(args: &[String]) -> Result<Command, UsageError> {
    let mut t = TreeArgs {
        resource: String::new(),
        name: String::new(),
        server: DEFAULT_SERVER.to_string(),
        namespace: None,
        once: false,
        duration: None,
        verbose: false,
    };
    let mut target: Option<String> = None;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v.to_string())),
            _ => (arg, None),
        };
        let mut value = |name: &str| -> Result<String, UsageError> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            match args.get(i) {
                Some(v) => {
                    i += 1;
                    Ok(v.clone())
                }
                None => Err(usage(format!("{name} needs a value"))),
            }
        };
        let no_value = |inline: &Option<String>| -> Result<(), UsageError> {
            match inline {
                Some(_) => Err(usage(format!("{flag} takes no value"))),
                None => Ok(()),
            }
        };
        match flag {
            "-h" | "--help" => return Ok(Command::Help),
            "--server" | "-s" => t.server = value(flag)?,
            "-n" | "--namespace" => {
                let ns = value(flag)?;
                if ns.is_empty() || ns.contains(['/', '?', '#', ' ']) {
                    return Err(usage(format!("{ns:?} is not a namespace name")));
                }
                t.namespace = Some(ns);
            }
            "--once" => {
                no_value(&inline)?;
                t.once = true;
            }
            "--duration" => {
                let v = value(flag)?;
                let secs: f64 = v
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s >= 0.0 && *s < 1e9)
                    .ok_or_else(|| {
                        usage(format!("--duration: {v:?} is not a number of seconds"))
                    })?;
                t.duration = Some(Duration::from_secs_f64(secs));
            }
            "-v" | "--verbose" => {
                no_value(&inline)?;
                t.verbose = true;
            }
            _ if flag.starts_with('-') && flag.len() > 1 => {
                return Err(usage(format!("unknown option {flag}")))
            }
            _ => {
                if target.is_some() {
                    return Err(usage(format!(
                        "unexpected argument {arg:?}: tree takes one RESOURCE/NAME"
                    )));
                }
                target = Some(arg.to_string());
            }
        }
    }
    let target = target.ok_or_else(|| usage("tree needs a RESOURCE/NAME (e.g. deploy/web)"))?;
    match target.split_once('/') {
        Some((r, n)) if !r.is_empty() && !n.is_empty() && !n.contains('/') => {
            t.resource = r.to_string();
            t.name = n.to_string();
        }
        _ => {
            return Err(usage(format!(
                "{target:?} is not RESOURCE/NAME (e.g. deploy/web, cronjobs.batch/nightly)"
            )))
        }
    }
    Ok(Command::Tree(t))
}
