//! Who owns what: objects of several collections (each its own [`crate::Engine`]:
//! pods, replicasets, deployments, jobs, any custom resource) joined by uid through
//! `metadata.ownerReferences`, kept up to date from each engine's [`Event`]s.
//!
//! * **Sources.** Each collection fed to the index is a [`SourceId`]
//!   ([`Owners::add_source`], with the kind its objects are). A source the user may not
//!   list is marked [`Owners::set_unavailable`] with why: the level it would fill is
//!   then missing, and the tree says why ([`NodeRef::missing_below`],
//!   [`NodeRef::absence`]).
//! * **Events.** [`Owners::apply`] takes every event of a source's engine. `Added`,
//!   `Modified` and `Deleted` change the join (a relist's vanished objects come as
//!   `Deleted`, a recreated name as `Deleted` then `Added`, so relists need nothing
//!   else); `Columns` and `TablesUnavailable` say how the source's rows are printed,
//!   which the health is read from. [`Owners::clear`] forgets a source's objects (an
//!   engine replaced by one that starts from nothing).
//! * **Nodes.** Every object is a node keyed by its uid; an owner that a dependent
//!   names but that has not been seen (not listed yet, not watched, not listable, or
//!   deleted before its dependents) is an *awaited* node holding the reference's kind
//!   and name, until the owner comes (it then takes the awaited node's place: the
//!   dependents are already linked) or its last dependent leaves. Changed
//!   `ownerReferences` (an object adopted, orphaned or moved) move the edges. An object
//!   without a uid cannot be joined and is left out.
//! * **Health** ([`Health`]): each node's own, read from its printed cells (the
//!   server's table row, or for an object the fallback printer's,
//!   [`Object::fallback_cells`]), and its roll-up: the worst of its
//!   own and its dependents' roll-ups, so a Deployment whose pods crash-loop rolls up
//!   `Bad` through its ReplicaSet. Kept incrementally: each node counts its dependents
//!   by roll-up, and a change walks up only while a roll-up changes.
//!
//! Memory: a node is [`NODE_BYTES`] bytes in a slab plus its slot in the uid table
//! (4 bytes and a control byte, at most 8/7 of that for the load factor), and the
//! `Arc` of the object it shares with the store. An owner's list of dependents adds a
//! 24-byte header and 4 bytes per dependent; an object with one owner keeps it inline.
//! Objects are not copied: the uid is read from the shared object. At 100,000 pods in
//! 5,000 Deployments that is about 82 bytes per object (`cargo bench --bench owners`).
//!
//! Owner references may form a cycle (the garbage collector resolves those; nothing
//! prevents a client writing one): walks here stop at a node already seen, and a
//! roll-up inside a cycle may keep the worst health one of its members once had.

use crate::engine::Event;
use crate::json::{unescape, JResult};
use crate::object::{in_metadata, key, ColumnKind, Object};
use crate::store::key_hash;
use crate::table::{Cell, TableColumn};
use hashbrown::HashTable;
use std::borrow::Cow;
use std::sync::Arc;

/// One entry of `metadata.ownerReferences`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerReference {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub uid: String,
    /// The owner is the object's managing controller (at most one is).
    pub controller: bool,
}

/// Reads `metadata.ownerReferences` from the object's stored JSON (not on the
/// decoder's path: only views that join owners pay for it). Entries without a uid
/// are left out; an object kept with [`crate::KeptMetadata::Identity`] has none.
pub fn owner_references(o: &Object) -> Vec<OwnerReference> {
    let json = o.json();
    let mut views = Vec::new();
    // The stored copy was validated when decoded: an error here leaves what was read.
    let _ = read_owner_references(&json, &mut views);
    views
        .into_iter()
        .map(|r| OwnerReference {
            api_version: r.api_version.into_owned(),
            kind: r.kind.into_owned(),
            name: r.name.into_owned(),
            uid: r.uid.into_owned(),
            controller: r.controller,
        })
        .collect()
}

/// An owner reference borrowed from an object's JSON (decoded only if escaped).
struct RefView<'b> {
    api_version: Cow<'b, str>,
    kind: Cow<'b, str>,
    name: Cow<'b, str>,
    uid: Cow<'b, str>,
    controller: bool,
}

fn read_owner_references<'b>(b: &'b [u8], out: &mut Vec<RefView<'b>>) -> JResult<()> {
    let text = |s: crate::json::StrSpan| -> Cow<'b, str> {
        let raw = &b[s.start..s.end];
        if s.escaped {
            Cow::Owned(unescape(raw).into_owned())
        } else {
            Cow::Borrowed(std::str::from_utf8(raw).unwrap_or(""))
        }
    };
    in_metadata(b, b"ownerReferences", |sc| {
        out.clear();
        if !sc.array_start()? {
            return Ok(());
        }
        let mut first = true;
        while sc.next_elem(&mut first)? {
            if !sc.object_start()? {
                continue;
            }
            let mut r = RefView {
                api_version: Cow::Borrowed(""),
                kind: Cow::Borrowed(""),
                name: Cow::Borrowed(""),
                uid: Cow::Borrowed(""),
                controller: false,
            };
            let mut first = true;
            while let Some(k) = sc.next_key(&mut first)? {
                let slot = match key(b, k).as_ref() {
                    b"apiVersion" => &mut r.api_version,
                    b"kind" => &mut r.kind,
                    b"name" => &mut r.name,
                    b"uid" => &mut r.uid,
                    b"controller" => {
                        r.controller = sc.boolean()? == Some(true);
                        continue;
                    }
                    _ => {
                        sc.value_dropped()?;
                        continue;
                    }
                };
                if let Some(s) = sc.opt_string()? {
                    *slot = text(s);
                }
            }
            if !r.uid.is_empty() {
                out.push(r);
            }
        }
        Ok(())
    })
}

/// How healthy an object looks, worst last (a roll-up is a maximum).
///
/// An object's own health is read from its printed cells, by column name as
/// kube-apiserver's printers name them:
///
/// * `Status` (pods, jobs, claims, nodes, ...): `Bad` for a failure
///   (`CrashLoopBackOff`, `Error`, `Failed`, `ImagePullBackOff`, `ErrImagePull`,
///   `OOMKilled`, `Evicted`, `Unknown`, `Lost`, `NotReady`, any `Err...`/`...Error`,
///   also after `Init:`); `Progressing` for a state on its way (`Pending`,
///   `ContainerCreating`, `PodInitializing`, `Init:1/2`, `Terminating`, `Suspended`);
///   `Ok` for a good one (`Running`, `Completed`, `Succeeded`, `Complete`, `Bound`,
///   `Active`, `Ready`, `Available`);
/// * readiness: `Ready` as `n/m` (pods, deployments, statefulsets) or a `Ready` count
///   under a `Desired` one (replicasets, daemonsets): fewer ready than wanted is
///   `Progressing`, all of them `Ok`; a finished pod (`Completed`, `Succeeded`) is not
///   ready and is `Ok`.
///
/// The worse of the two; `Unknown` when neither column says anything (a CronJob, a
/// ConfigMap). A node's roll-up is the worst of its own health and its dependents'
/// roll-ups, `Unknown` counting as nothing: a Deployment whose pods crash-loop is `Bad`,
/// one whose pods are being created `Progressing`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Health {
    #[default]
    Unknown,
    Ok,
    Progressing,
    Bad,
}

impl Health {
    /// The health a `Status` cell's text says, `None` for a word it does not know.
    /// A node's `Ready,SchedulingDisabled` is read by its first word.
    pub fn of_status(status: &str) -> Option<Health> {
        let s = status.trim();
        let s = s.strip_prefix("Init:").unwrap_or(s);
        let s = s.split(',').next().unwrap_or(s);
        if s.is_empty() {
            return None;
        }
        // Init:1/3: init containers on their way.
        if s.contains('/') && s.bytes().all(|b| b.is_ascii_digit() || b == b'/') {
            return Some(Health::Progressing);
        }
        Some(match s {
            "Running" | "Completed" | "Succeeded" | "Complete" | "Bound" | "Active" | "Ready"
            | "Available" | "SuccessCriteriaMet" => Health::Ok,
            "Pending" | "ContainerCreating" | "PodInitializing" | "Terminating" | "Suspended"
            | "SchedulingGated" | "Waiting" => Health::Progressing,
            "CrashLoopBackOff"
            | "Error"
            | "Failed"
            | "ImagePullBackOff"
            | "ErrImagePull"
            | "InvalidImageName"
            | "OOMKilled"
            | "Evicted"
            | "Unknown"
            | "Lost"
            | "NotReady"
            | "NodeLost"
            | "DeadlineExceeded"
            | "BackoffLimitExceeded"
            | "FailureTarget"
            | "ContainerStatusUnknown" => Health::Bad,
            _ if s.starts_with("Err") || s.ends_with("Error") || s.ends_with("BackOff") => {
                Health::Bad
            }
            _ => return None,
        })
    }

    /// The health a row's cells say under `columns` (see [`Health`]).
    pub fn of_cells<'a>(
        columns: &[TableColumn],
        cells: impl IntoIterator<Item = Cell<'a>>,
    ) -> Health {
        let mut status: Option<Health> = None;
        let mut finished = false;
        let mut ready: Option<(i64, i64)> = None;
        let mut ready_count: Option<i64> = None;
        let mut desired: Option<i64> = None;
        for (column, cell) in columns.iter().zip(cells) {
            let name = column.name.as_str();
            if name.eq_ignore_ascii_case("status") {
                if let Cell::Str(s) = &cell {
                    status = Health::of_status(s);
                    finished = matches!(s.trim(), "Completed" | "Succeeded" | "Complete");
                }
            } else if name.eq_ignore_ascii_case("ready") {
                match &cell {
                    Cell::Str(s) => {
                        if let Some((a, b)) = s.trim().split_once('/') {
                            if let (Ok(a), Ok(b)) = (a.parse(), b.parse()) {
                                ready = Some((a, b));
                            }
                        } else {
                            ready_count = s.trim().parse().ok();
                        }
                    }
                    Cell::Int(n) => ready_count = Some(*n),
                    _ => {}
                }
            } else if name.eq_ignore_ascii_case("desired") {
                desired = cell.as_f64().map(|f| f as i64);
            }
        }
        let ready = ready.or(match (ready_count, desired) {
            (Some(r), Some(d)) => Some((r, d)),
            _ => None,
        });
        let readiness = match ready {
            _ if finished => None,
            Some((a, b)) if a < b => Some(Health::Progressing),
            Some(_) => Some(Health::Ok),
            None => None,
        };
        status.max(readiness).unwrap_or(Health::Unknown)
    }
}

/// A collection fed to [`Owners`] (its index in the order added).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceId(pub u16);

/// What a source holds, and whether its level can be shown.
struct Source {
    group: Box<str>,
    kind: Box<str>,
    columns: Option<Arc<[TableColumn]>>,
    unavailable: Option<Box<str>>,
}

/// The built-in controllers' dependents: for an owner kind (group, kind), the kinds
/// whose objects its controller makes and sets itself as their controller, as
/// (group, kind, resource).
pub fn dependent_kinds(
    group: &str,
    kind: &str,
) -> &'static [(&'static str, &'static str, &'static str)] {
    match (group, kind) {
        ("apps", "Deployment") => &[("apps", "ReplicaSet", "replicasets")],
        ("apps", "ReplicaSet") => &[("", "Pod", "pods")],
        ("apps", "StatefulSet") => &[
            ("", "Pod", "pods"),
            ("", "PersistentVolumeClaim", "persistentvolumeclaims"),
            ("apps", "ControllerRevision", "controllerrevisions"),
        ],
        ("apps", "DaemonSet") => &[
            ("", "Pod", "pods"),
            ("apps", "ControllerRevision", "controllerrevisions"),
        ],
        ("batch", "CronJob") => &[("batch", "Job", "jobs")],
        ("batch", "Job") => &[("", "Pod", "pods")],
        ("", "ReplicationController") => &[("", "Pod", "pods")],
        ("", "Service") => &[("discovery.k8s.io", "EndpointSlice", "endpointslices")],
        _ => &[],
    }
}

/// The kinds operators usually make: watched below a custom resource, whose
/// controller's kinds are not known.
pub const ANY_OWNER_MAKES: &[(&str, &str, &str)] = &[
    ("apps", "Deployment", "deployments"),
    ("apps", "StatefulSet", "statefulsets"),
    ("apps", "DaemonSet", "daemonsets"),
    ("batch", "CronJob", "cronjobs"),
    ("batch", "Job", "jobs"),
    ("", "Pod", "pods"),
    ("", "Service", "services"),
    ("", "ConfigMap", "configmaps"),
    ("", "PersistentVolumeClaim", "persistentvolumeclaims"),
];

/// Whether `group` is one of Kubernetes' own (whose kinds' dependents, if any, are
/// [`dependent_kinds`]'s), not a custom resource's.
pub fn built_in(group: &str) -> bool {
    matches!(group, "" | "apps" | "batch" | "autoscaling" | "policy") || group.ends_with(".k8s.io")
}

/// The kinds to watch below `(group, kind)`, as (group, kind, resource): its
/// controller's kinds, theirs, and so on, each once, sorted; for a custom resource,
/// [`ANY_OWNER_MAKES`] and theirs.
pub fn kinds_below(group: &str, kind: &str) -> Vec<(&'static str, &'static str, &'static str)> {
    let mut out: Vec<(&str, &str, &str)> = Vec::new();
    let mut queue: Vec<(&str, &str, &str)> = if built_in(group) {
        dependent_kinds(group, kind).to_vec()
    } else {
        ANY_OWNER_MAKES.to_vec()
    };
    while let Some(k) = queue.pop() {
        if out.contains(&k) || (k.0 == group && k.1 == kind) {
            continue;
        }
        out.push(k);
        queue.extend(dependent_kinds(k.0, k.1).iter().copied());
    }
    out.sort();
    out
}

/// A row's Ready cell as `n/m` (pods, deployments and statefulsets print it so;
/// replicasets and daemonsets print Ready and Desired counts).
pub fn ready_text(columns: &[TableColumn], cells: &[Cell<'_>]) -> Option<String> {
    let find = |name: &str| {
        columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
            .and_then(|i| cells.get(i))
    };
    match find("ready")? {
        Cell::Str(s) if s.contains('/') => Some(s.to_string()),
        c => {
            let ready = c.as_f64()?;
            let desired = find("desired")?.as_f64()?;
            Some(format!("{ready}/{desired}"))
        }
    }
}

/// A row's Status cell, if it has one and it is not empty.
pub fn status_text(columns: &[TableColumn], cells: &[Cell<'_>]) -> Option<String> {
    let i = columns
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case("status"))?;
    Some(cells.get(i)?.to_string()).filter(|s| !s.is_empty())
}

/// The group of an `apiVersion` (`apps/v1` is `apps`, `v1` the core group `""`).
pub fn api_group(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

/// A node's owner edges: most objects have none or one, stored inline. Each `u32` is a
/// node index with [`CONTROLLER`] set for the controller reference.
#[derive(Clone, Debug, Default)]
enum Edges {
    #[default]
    None,
    One(u32),
    /// Boxed twice so that the enum stays two words: several owners are rare.
    Many(Box<Box<[u32]>>),
}

const CONTROLLER: u32 = 1 << 31;
const INDEX: u32 = !CONTROLLER;

impl Edges {
    fn as_slice(&self) -> &[u32] {
        match self {
            Edges::None => &[],
            Edges::One(e) => std::slice::from_ref(e),
            Edges::Many(es) => es,
        }
    }

    fn from_vec(mut v: Vec<u32>) -> Edges {
        match v.len() {
            0 => Edges::None,
            1 => Edges::One(v[0]),
            _ => {
                v.shrink_to_fit();
                Edges::Many(Box::new(v.into_boxed_slice()))
            }
        }
    }
}

/// A node's dependents: none for most objects (a pod), so one word until the first.
// The box is the point: one word in every node, the Vec's three only in owners'.
#[allow(clippy::box_collection)]
#[derive(Debug, Default)]
struct Deps(Option<Box<Vec<u32>>>);

impl Deps {
    fn as_slice(&self) -> &[u32] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }

    fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }

    fn push(&mut self, id: u32) {
        self.0.get_or_insert_with(Default::default).push(id);
    }

    fn remove(&mut self, id: u32) {
        if let Some(v) = &mut self.0 {
            if let Some(p) = v.iter().position(|&d| d == id) {
                v.swap_remove(p);
            }
            if v.is_empty() {
                self.0 = None;
            }
        }
    }

    fn heap_bytes(&self) -> usize {
        self.0.as_ref().map_or(0, |v| 24 + v.capacity() * 4)
    }
}

/// An owner named by a dependent but not seen (yet, or any more).
#[derive(Debug)]
struct Awaited {
    uid: Box<str>,
    group: Box<str>,
    kind: Box<str>,
    name: Box<str>,
    namespace: Box<str>,
}

#[derive(Debug)]
enum Body {
    Seen {
        object: Arc<Object>,
        source: u16,
    },
    Awaited(Box<Awaited>),
    /// A free slab slot.
    Free,
}

#[derive(Debug)]
struct Node {
    body: Body,
    owners: Edges,
    dependents: Deps,
    /// Dependents whose roll-up is `Ok` / `Progressing` / `Bad`.
    ok: u32,
    progressing: u32,
    bad: u32,
    own: Health,
    rolled: Health,
}

/// Bytes of one node in the slab.
pub const NODE_BYTES: usize = std::mem::size_of::<Node>();

impl Node {
    fn uid(&self) -> &str {
        match &self.body {
            Body::Seen { object, .. } => object.uid(),
            Body::Awaited(a) => &a.uid,
            Body::Free => "",
        }
    }

    fn roll(&self) -> Health {
        let deps = if self.bad > 0 {
            Health::Bad
        } else if self.progressing > 0 {
            Health::Progressing
        } else if self.ok > 0 {
            Health::Ok
        } else {
            Health::Unknown
        };
        self.own.max(deps)
    }
}

/// The join: see the module documentation.
#[derive(Default)]
pub struct Owners {
    sources: Vec<Source>,
    nodes: Vec<Node>,
    free: Vec<u32>,
    by_uid: HashTable<u32>,
    seen: usize,
}

fn uid_hash(uid: &str) -> u64 {
    key_hash("", uid)
}

impl Owners {
    pub fn new() -> Self {
        Owners::default()
    }

    /// Adds a collection whose objects are of `kind` in API group `group` (`""` for
    /// the core group).
    pub fn add_source(&mut self, group: &str, kind: &str) -> SourceId {
        self.sources.push(Source {
            group: group.into(),
            kind: kind.into(),
            columns: None,
            unavailable: None,
        });
        SourceId((self.sources.len() - 1) as u16)
    }

    /// Marks a source the user may not list (`Some(why)`, e.g. the server's 403
    /// message) or listable again (`None`).
    pub fn set_unavailable(&mut self, source: SourceId, why: Option<&str>) {
        if let Some(s) = self.sources.get_mut(usize::from(source.0)) {
            s.unavailable = why.map(Into::into);
        }
    }

    /// Why a source cannot be listed, if it cannot.
    pub fn unavailable(&self, source: SourceId) -> Option<&str> {
        self.sources
            .get(usize::from(source.0))?
            .unavailable
            .as_deref()
    }

    /// The source's kind and group.
    pub fn source_kind(&self, source: SourceId) -> Option<(&str, &str)> {
        let s = self.sources.get(usize::from(source.0))?;
        Some((&s.group, &s.kind))
    }

    /// The column definitions a source's cells are read under (an engine's
    /// [`crate::Engine::columns`]); `Event::Columns` sets them too. Healths are read
    /// again.
    pub fn set_columns(&mut self, source: SourceId, columns: Option<Arc<[TableColumn]>>) {
        let Some(s) = self.sources.get_mut(usize::from(source.0)) else {
            return;
        };
        s.columns = columns;
        let ids: Vec<u32> = self
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| matches!(n.body, Body::Seen { source: s, .. } if s == source.0))
            .map(|(i, _)| i as u32)
            .collect();
        for id in ids {
            let own = self.health_of(id);
            self.set_own(id, own);
        }
    }

    /// Objects seen (awaited owners not counted).
    pub fn len(&self) -> usize {
        self.seen
    }

    pub fn is_empty(&self) -> bool {
        self.seen == 0
    }

    /// Takes one event of `source`'s engine. Returns whether the join changed.
    pub fn apply(&mut self, source: SourceId, event: &Event) -> bool {
        match event {
            Event::Added(o) => self.upsert(source, o),
            Event::Modified { old, new } => {
                if old.uid() != new.uid() {
                    self.remove(source, old);
                }
                self.upsert(source, new)
            }
            Event::Deleted(o) => self.remove(source, o),
            Event::Columns { columns } => {
                self.set_columns(source, Some(columns.clone()));
                true
            }
            Event::TablesUnavailable { .. } => {
                self.set_columns(source, None);
                true
            }
            _ => false,
        }
    }

    /// Forgets every object of `source` (its engine starts again from nothing).
    pub fn clear(&mut self, source: SourceId) {
        let objects: Vec<Arc<Object>> = self
            .nodes
            .iter()
            .filter_map(|n| match &n.body {
                Body::Seen { object, source: s } if *s == source.0 => Some(object.clone()),
                _ => None,
            })
            .collect();
        for o in objects {
            self.remove(source, &o);
        }
    }

    fn find(&self, uid: &str) -> Option<u32> {
        let nodes = &self.nodes;
        self.by_uid
            .find(uid_hash(uid), |&i| nodes[i as usize].uid() == uid)
            .copied()
    }

    fn alloc(&mut self, node: Node) -> u32 {
        let uid_h = uid_hash(node.uid());
        let id = match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = node;
                id
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
        let nodes = &self.nodes;
        self.by_uid
            .insert_unique(uid_h, id, |&i| uid_hash(nodes[i as usize].uid()));
        id
    }

    fn release(&mut self, id: u32) {
        let uid_h = uid_hash(self.nodes[id as usize].uid());
        if let Ok(e) = self.by_uid.find_entry(uid_h, |&i| i == id) {
            e.remove();
        }
        let n = &mut self.nodes[id as usize];
        n.body = Body::Free;
        n.owners = Edges::None;
        n.dependents = Deps::default();
        n.ok = 0;
        n.progressing = 0;
        n.bad = 0;
        n.own = Health::Unknown;
        n.rolled = Health::Unknown;
        self.free.push(id);
    }

    fn health_of(&self, id: u32) -> Health {
        let Body::Seen { object, source } = &self.nodes[id as usize].body else {
            return Health::Unknown;
        };
        if let Some(cells) = object.cells() {
            return match self
                .sources
                .get(usize::from(*source))
                .and_then(|s| s.columns.as_ref())
            {
                Some(columns) => Health::of_cells(columns, cells),
                None => Health::Unknown,
            };
        }
        // An object (a server that prints no tables): the fallback printer's cells.
        match object.fallback_cells() {
            Some(cells) if cells.kind() != ColumnKind::Generic => {
                Health::of_cells(&cells.kind().columns(), cells)
            }
            _ => Health::Unknown,
        }
    }

    fn upsert(&mut self, source: SourceId, o: &Arc<Object>) -> bool {
        let uid = o.uid();
        if uid.is_empty() {
            return false;
        }
        let json = o.json();
        let mut refs = Vec::new();
        // The stored copy was validated when decoded: an error leaves what was read.
        let _ = read_owner_references(&json, &mut refs);
        let id = match self.find(uid) {
            Some(id) => {
                let n = &mut self.nodes[id as usize];
                if matches!(n.body, Body::Awaited(_)) {
                    self.seen += 1;
                }
                n.body = Body::Seen {
                    object: o.clone(),
                    source: source.0,
                };
                id
            }
            None => {
                self.seen += 1;
                self.alloc(Node {
                    body: Body::Seen {
                        object: o.clone(),
                        source: source.0,
                    },
                    owners: Edges::None,
                    dependents: Deps::default(),
                    ok: 0,
                    progressing: 0,
                    bad: 0,
                    own: Health::Unknown,
                    rolled: Health::Unknown,
                })
            }
        };
        // The new owner edges, each owner once, never the object itself.
        let mut edges: Vec<u32> = Vec::with_capacity(refs.len());
        for r in &refs {
            if r.uid == uid {
                continue;
            }
            let owner = match self.find(&r.uid) {
                Some(owner) => owner,
                None => self.alloc(Node {
                    body: Body::Awaited(Box::new(Awaited {
                        uid: r.uid.as_ref().into(),
                        group: api_group(&r.api_version).into(),
                        kind: r.kind.as_ref().into(),
                        name: r.name.as_ref().into(),
                        namespace: o.namespace().into(),
                    })),
                    owners: Edges::None,
                    dependents: Deps::default(),
                    ok: 0,
                    progressing: 0,
                    bad: 0,
                    own: Health::Unknown,
                    rolled: Health::Unknown,
                }),
            };
            match edges.iter_mut().find(|e| **e & INDEX == owner) {
                Some(e) => *e |= if r.controller { CONTROLLER } else { 0 },
                None => edges.push(owner | if r.controller { CONTROLLER } else { 0 }),
            }
        }
        self.set_owners(id, edges);
        let own = self.health_of(id);
        self.set_own(id, own);
        true
    }

    fn remove(&mut self, source: SourceId, o: &Object) -> bool {
        let Some(id) = self.find(o.uid()) else {
            return false;
        };
        match &self.nodes[id as usize].body {
            Body::Seen { source: s, .. } if *s == source.0 => {}
            _ => return false,
        }
        self.seen -= 1;
        self.set_owners(id, Vec::new());
        self.set_own(id, Health::Unknown);
        let n = &mut self.nodes[id as usize];
        if n.dependents.is_empty() {
            self.release(id);
        } else {
            // Dependents still name it (the garbage collector has not reached them, or
            // they were orphaned): it waits as their owner.
            let Body::Seen { object, .. } = &n.body else {
                return true;
            };
            let (group, kind) = self
                .sources
                .get(usize::from(source.0))
                .map_or((Box::from(""), Box::from("")), |s| {
                    (s.group.clone(), s.kind.clone())
                });
            n.body = Body::Awaited(Box::new(Awaited {
                uid: object.uid().into(),
                group,
                kind,
                name: object.name().into(),
                namespace: object.namespace().into(),
            }));
        }
        true
    }

    /// Replaces node `id`'s owner edges, keeping the owners' dependents lists and
    /// roll-up counts in step; owners left awaited with no dependents are dropped.
    fn set_owners(&mut self, id: u32, new: Vec<u32>) {
        let old = std::mem::take(&mut self.nodes[id as usize].owners);
        let rolled = self.nodes[id as usize].rolled;
        for &e in old.as_slice() {
            let owner = e & INDEX;
            if new.iter().any(|&n| n & INDEX == owner) {
                continue;
            }
            let on = &mut self.nodes[owner as usize];
            on.dependents.remove(id);
            self.count(owner, rolled, -1);
            if matches!(self.nodes[owner as usize].body, Body::Awaited(_))
                && self.nodes[owner as usize].dependents.is_empty()
            {
                let grand = std::mem::take(&mut self.nodes[owner as usize].owners);
                debug_assert!(grand.as_slice().is_empty());
                self.release(owner);
            }
        }
        for &e in &new {
            let owner = e & INDEX;
            if old.as_slice().iter().any(|&o| o & INDEX == owner) {
                continue;
            }
            self.nodes[owner as usize].dependents.push(id);
            self.count(owner, rolled, 1);
        }
        self.nodes[id as usize].owners = Edges::from_vec(new);
    }

    /// Adds (`delta` 1) or takes away (-1) a dependent's roll-up from `owner`'s
    /// counts, and carries a changed roll-up up.
    fn count(&mut self, owner: u32, rolled: Health, delta: i32) {
        let n = &mut self.nodes[owner as usize];
        let slot = match rolled {
            Health::Bad => &mut n.bad,
            Health::Progressing => &mut n.progressing,
            Health::Ok => &mut n.ok,
            Health::Unknown => return,
        };
        *slot = slot.saturating_add_signed(delta);
        self.propagate(owner);
    }

    fn set_own(&mut self, id: u32, own: Health) {
        self.nodes[id as usize].own = own;
        self.propagate(id);
    }

    /// Recomputes node `id`'s roll-up and, while one changes, its owners'. Bounded by
    /// the number of nodes, so a cycle of owner references cannot loop.
    fn propagate(&mut self, id: u32) {
        // Nearly always a short chain (pod, ReplicaSet, Deployment): walked without
        // allocating, from one owner to the next; a node with several owners queues
        // the others.
        let mut more: Vec<u32> = Vec::new();
        let mut next = Some(id);
        let mut budget = self.nodes.len() * 2 + 8;
        while let Some(id) = next.take().or_else(|| more.pop()) {
            if budget == 0 {
                break;
            }
            budget -= 1;
            let n = &mut self.nodes[id as usize];
            let new = n.roll();
            let old = std::mem::replace(&mut n.rolled, new);
            if old == new {
                continue;
            }
            for j in 0..self.nodes[id as usize].owners.as_slice().len() {
                let owner = self.nodes[id as usize].owners.as_slice()[j] & INDEX;
                let on = &mut self.nodes[owner as usize];
                for (h, d) in [(old, -1i32), (new, 1)] {
                    let slot = match h {
                        Health::Bad => &mut on.bad,
                        Health::Progressing => &mut on.progressing,
                        Health::Ok => &mut on.ok,
                        Health::Unknown => continue,
                    };
                    *slot = slot.saturating_add_signed(d);
                }
                if next.is_none() {
                    next = Some(owner);
                } else {
                    more.push(owner);
                }
            }
        }
    }

    /// The node of the object (or awaited owner) with this uid.
    pub fn get(&self, uid: &str) -> Option<NodeRef<'_>> {
        self.find(uid).map(|id| NodeRef { owners: self, id })
    }

    /// The objects of `source` that no seen object owns (the tops of its trees),
    /// in no particular order.
    pub fn roots(&self, source: SourceId) -> impl Iterator<Item = NodeRef<'_>> {
        self.nodes
            .iter()
            .enumerate()
            .filter(move |(_, n)| {
                matches!(n.body, Body::Seen { source: s, .. } if s == source.0)
                    && n.owners.as_slice().iter().all(|&e| {
                        !matches!(self.nodes[(e & INDEX) as usize].body, Body::Seen { .. })
                    })
            })
            .map(move |(i, _)| NodeRef {
                owners: self,
                id: i as u32,
            })
    }

    /// Bytes the join holds beyond the objects it shares with the stores: the slab,
    /// the uid table, the edges and the awaited owners' references.
    pub fn heap_bytes(&self) -> usize {
        let mut bytes = self.nodes.capacity() * NODE_BYTES
            + self.free.capacity() * 4
            + self.by_uid.capacity() * (4 + 1)
            + self.sources.capacity() * std::mem::size_of::<Source>();
        for n in &self.nodes {
            bytes += n.dependents.heap_bytes();
            if let Edges::Many(es) = &n.owners {
                bytes += 16 + es.len() * 4;
            }
            if let Body::Awaited(a) = &n.body {
                bytes += std::mem::size_of::<Awaited>()
                    + a.uid.len()
                    + a.group.len()
                    + a.kind.len()
                    + a.name.len()
                    + a.namespace.len();
            }
        }
        bytes
    }
}

/// Why a node's object is not there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Absence<'a> {
    /// Its kind is watched but it has not come (not listed yet, or deleted while its
    /// dependents remain).
    NotSeen,
    /// Its kind cannot be listed: the reason.
    Unavailable(&'a str),
    /// No source holds its kind.
    NotWatched,
}

/// A level missing below a node: dependents of `kind` its controller makes cannot be
/// listed, for `why`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MissingLevel<'a> {
    pub group: &'a str,
    pub kind: &'a str,
    pub why: &'a str,
}

/// A node of the join, borrowed.
#[derive(Clone, Copy)]
pub struct NodeRef<'a> {
    owners: &'a Owners,
    id: u32,
}

impl std::fmt::Debug for NodeRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{} ({})", self.kind(), self.name(), self.uid())
    }
}

impl PartialEq for NodeRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.owners, other.owners) && self.id == other.id
    }
}

impl<'a> NodeRef<'a> {
    fn node(&self) -> &'a Node {
        &self.owners.nodes[self.id as usize]
    }

    fn source(&self) -> Option<&'a Source> {
        match &self.node().body {
            Body::Seen { source, .. } => self.owners.sources.get(usize::from(*source)),
            _ => None,
        }
    }

    pub fn uid(&self) -> &'a str {
        self.node().uid()
    }

    /// The object, `None` for an awaited owner ([`NodeRef::absence`] says why).
    pub fn object(&self) -> Option<&'a Arc<Object>> {
        match &self.node().body {
            Body::Seen { object, .. } => Some(object),
            _ => None,
        }
    }

    /// The source holding the object.
    pub fn source_id(&self) -> Option<SourceId> {
        match &self.node().body {
            Body::Seen { source, .. } => Some(SourceId(*source)),
            _ => None,
        }
    }

    pub fn kind(&self) -> &'a str {
        match &self.node().body {
            Body::Awaited(a) => &a.kind,
            _ => self.source().map_or("", |s| &s.kind),
        }
    }

    pub fn group(&self) -> &'a str {
        match &self.node().body {
            Body::Awaited(a) => &a.group,
            _ => self.source().map_or("", |s| &s.group),
        }
    }

    pub fn name(&self) -> &'a str {
        match &self.node().body {
            Body::Seen { object, .. } => object.name(),
            Body::Awaited(a) => &a.name,
            Body::Free => "",
        }
    }

    pub fn namespace(&self) -> &'a str {
        match &self.node().body {
            Body::Seen { object, .. } => object.namespace(),
            Body::Awaited(a) => &a.namespace,
            Body::Free => "",
        }
    }

    /// Why the object is not there; `None` when it is.
    pub fn absence(&self) -> Option<Absence<'a>> {
        let Body::Awaited(a) = &self.node().body else {
            return None;
        };
        let mut watched = false;
        for s in &self.owners.sources {
            if *s.kind == *a.kind && *s.group == *a.group {
                match &s.unavailable {
                    Some(why) => return Some(Absence::Unavailable(why)),
                    None => watched = true,
                }
            }
        }
        Some(if watched {
            Absence::NotSeen
        } else {
            Absence::NotWatched
        })
    }

    /// Its own health, from its cells.
    pub fn health(&self) -> Health {
        self.node().own
    }

    /// The worst of its own health and its dependents' roll-ups.
    pub fn rolled_health(&self) -> Health {
        self.node().rolled
    }

    /// Its owners, each with whether it is the controller, the controller first.
    pub fn owners(&self) -> Vec<(NodeRef<'a>, bool)> {
        let mut v: Vec<(NodeRef<'a>, bool)> = self
            .node()
            .owners
            .as_slice()
            .iter()
            .map(|&e| {
                (
                    NodeRef {
                        owners: self.owners,
                        id: e & INDEX,
                    },
                    e & CONTROLLER != 0,
                )
            })
            .collect();
        v.sort_by_key(|(_, controller)| !controller);
        v
    }

    /// The chain of owners up to the root, the nearest first: at each level the
    /// controller (else the first owner). Stops at a node already on the chain.
    pub fn ancestors(&self) -> Vec<NodeRef<'a>> {
        let mut out: Vec<NodeRef<'a>> = Vec::new();
        let mut at = *self;
        while let Some((up, _)) = at.owners().into_iter().next() {
            if up == *self || out.contains(&up) {
                break;
            }
            out.push(up);
            at = up;
        }
        out
    }

    /// Its dependents, sorted by kind, namespace and name (a stable order to show).
    pub fn dependents(&self) -> Vec<NodeRef<'a>> {
        let mut v: Vec<NodeRef<'a>> = self
            .node()
            .dependents
            .as_slice()
            .iter()
            .map(|&id| NodeRef {
                owners: self.owners,
                id,
            })
            .collect();
        v.sort_by(|a, b| {
            (a.kind(), a.namespace(), a.name()).cmp(&(b.kind(), b.namespace(), b.name()))
        });
        v
    }

    /// The levels below it that cannot be shown: kinds its controller makes
    /// ([`dependent_kinds`]; for a custom resource, [`ANY_OWNER_MAKES`]) whose sources
    /// cannot be listed.
    pub fn missing_below(&self) -> Vec<MissingLevel<'a>> {
        let kinds = if built_in(self.group()) {
            dependent_kinds(self.group(), self.kind())
        } else {
            ANY_OWNER_MAKES
        };
        self.owners
            .sources
            .iter()
            .filter_map(|s| {
                let why = s.unavailable.as_deref()?;
                kinds
                    .iter()
                    .any(|(g, k, _)| *g == &*s.group && *k == &*s.kind)
                    .then_some(MissingLevel {
                        group: &s.group,
                        kind: &s.kind,
                        why,
                    })
            })
            .collect()
    }

    /// Visits the subtree below it depth first (itself at depth 0), dependents in
    /// [`NodeRef::dependents`] order; a node reached again (a cycle, or a second
    /// owner) is visited once.
    pub fn walk(&self, mut visit: impl FnMut(NodeRef<'a>, usize)) {
        let mut seen = hashbrown::HashSet::new();
        let mut stack = vec![(*self, 0usize)];
        while let Some((n, depth)) = stack.pop() {
            if !seen.insert(n.id) {
                continue;
            }
            visit(n, depth);
            for d in n.dependents().into_iter().rev() {
                stack.push((d, depth + 1));
            }
        }
    }
}
