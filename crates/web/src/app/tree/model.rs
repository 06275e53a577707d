//! What the owner tree shows, read from the core's join ([`Owners`]): the object's
//! owners up to the root, then the object and everything below it, each as one line
//! with its depth, its printed Ready and Status cells and its health rolled up from
//! what it owns; a node that is not there, or a level that cannot be listed, says why.
//! Pure data (no DOM), so that the view renders it and tests build it from fed rows.

use kubelive_core::owners::{built_in, kinds_below, ready_text, status_text, Absence, NodeRef};
use kubelive_core::{Cell, Health, Owners, SourceId, TableColumn};
use std::collections::HashSet;

/// The kinds a tree watches below a built-in `(group, kind)`: [`kinds_below`] but a
/// StatefulSet's or DaemonSet's ControllerRevisions (their own bookkeeping, not what
/// they run). None below a custom resource: whose operator may make any of nine
/// kinds, more watches than a browser's six connections to one server hold beside
/// the view's own; what its objects own is read first ([`super::probe`]).
pub fn watched_below(group: &str, kind: &str) -> Vec<(&'static str, &'static str, &'static str)> {
    if !built_in(group) {
        return Vec::new();
    }
    let mut v = kinds_below(group, kind);
    v.retain(|k| k.1 != "ControllerRevision");
    v
}

/// The resource (plural) of an owner's kind: the built-in owners' own, else the
/// English plural Kubernetes' naming convention gives (`Widget` -> `widgets`,
/// `Policy` -> `policies`).
pub fn plural_of(kind: &str) -> String {
    let known = [
        ("Deployment", "deployments"),
        ("ReplicaSet", "replicasets"),
        ("StatefulSet", "statefulsets"),
        ("DaemonSet", "daemonsets"),
        ("ReplicationController", "replicationcontrollers"),
        ("CronJob", "cronjobs"),
        ("Job", "jobs"),
        ("Node", "nodes"),
        ("Service", "services"),
        ("Endpoints", "endpoints"),
    ];
    if let Some((_, p)) = known.iter().find(|(k, _)| *k == kind) {
        return (*p).to_string();
    }
    let lower = kind.to_ascii_lowercase();
    if let Some(stem) = lower.strip_suffix('y') {
        if !stem.ends_with(['a', 'e', 'i', 'o', 'u']) {
            return format!("{stem}ies");
        }
    }
    if lower.ends_with('s')
        || lower.ends_with("ch")
        || lower.ends_with("sh")
        || lower.ends_with('x')
    {
        return format!("{lower}es");
    }
    format!("{lower}s")
}

/// Kinds whose objects are not in a namespace (an owner of these kinds is looked
/// for cluster-wide).
pub fn cluster_scoped(group: &str, kind: &str) -> bool {
    matches!(
        (group, kind),
        ("", "Node") | ("", "Namespace") | ("", "PersistentVolume")
    )
}

/// What one line of the tree is.
#[derive(Clone, Debug, PartialEq)]
pub enum Line {
    /// An object of the join (or an owner named but not there: `absent` says why).
    Node {
        uid: String,
        kind: String,
        name: String,
        namespace: String,
        /// The printed Ready cell (`2/3`), if its kind prints one.
        ready: Option<String>,
        /// The printed Status cell, if its kind prints one.
        status: Option<String>,
        /// Its own health and the worst below it.
        health: Health,
        rolled: Health,
        /// Why the object is not there; `None` when it is.
        absent: Option<String>,
        /// The object the panel is open on.
        current: bool,
    },
    /// A level below a node that cannot be listed: its kind and why.
    Missing { kind: String, why: String },
}

/// A line of the tree with where it sits.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub line: Line,
    /// 0 for the topmost owner.
    pub depth: usize,
    /// The lines directly below it.
    pub children: usize,
    /// Its place among its siblings (1-based) and how many there are (ARIA's posinset
    /// and setsize).
    pub pos: usize,
    pub of: usize,
    /// A stable key for the DOM: the uid, or the parent's and the missing kind.
    pub key: String,
}

/// The tree: rows in document order (each one's dependents after it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Model {
    pub rows: Vec<Row>,
}

impl Model {
    /// The object with `uid` in `owners`, its owners above it (the controller at each
    /// level) and everything it owns below; `columns` gives a source's printed
    /// columns (none: the object's fallback cells). Empty if the object is not in the
    /// join yet.
    pub fn build<'a>(
        owners: &'a Owners,
        uid: &str,
        columns: impl Fn(SourceId) -> Option<&'a [TableColumn]>,
    ) -> Model {
        let mut rows = Vec::new();
        let Some(me) = owners.get(uid) else {
            return Model { rows };
        };
        let mut chain = me.ancestors();
        chain.reverse();
        for (depth, n) in chain.iter().enumerate() {
            rows.push(Row {
                line: line(*n, &columns, false),
                depth,
                children: 1,
                pos: 1,
                of: 1,
                key: n.uid().to_string(),
            });
        }
        let mut seen = HashSet::new();
        for n in &chain {
            seen.insert(n.uid());
        }
        below(
            me,
            chain.len(),
            (1, 1),
            true,
            &columns,
            &mut seen,
            &mut rows,
        );
        Model { rows }
    }

    /// The object with `uid` (depth 0) and everything below it, as
    /// [`Model::build`] draws them below the open object; empty if it is not in the
    /// join.
    pub fn subtree<'a>(
        owners: &'a Owners,
        uid: &str,
        columns: impl Fn(SourceId) -> Option<&'a [TableColumn]>,
    ) -> Model {
        let mut rows = Vec::new();
        if let Some(n) = owners.get(uid) {
            below(
                n,
                0,
                (1, 1),
                false,
                &columns,
                &mut HashSet::new(),
                &mut rows,
            );
        }
        Model { rows }
    }

    /// The line of the object with `uid` alone (its dependents counted, not drawn).
    pub fn node<'a>(
        owners: &'a Owners,
        uid: &str,
        columns: impl Fn(SourceId) -> Option<&'a [TableColumn]>,
    ) -> Option<Row> {
        let n = owners.get(uid)?;
        Some(Row {
            line: line(n, &columns, false),
            depth: 0,
            children: n.dependents().len() + n.missing_below().len(),
            pos: 1,
            of: 1,
            key: n.uid().to_string(),
        })
    }

    /// Whether the row at `i` (a node with lines below it) is an owner of the open
    /// object, not below it: those are shown as a path, never collapsed.
    pub fn is_owner_row(&self, i: usize) -> bool {
        let current = self
            .rows
            .iter()
            .position(|r| matches!(r.line, Line::Node { current: true, .. }));
        current.is_some_and(|c| i < c)
    }
}

fn below<'a>(
    n: NodeRef<'a>,
    depth: usize,
    (pos, of): (usize, usize),
    current: bool,
    columns: &impl Fn(SourceId) -> Option<&'a [TableColumn]>,
    seen: &mut HashSet<&'a str>,
    rows: &mut Vec<Row>,
) {
    if !seen.insert(n.uid()) {
        return;
    }
    let deps: Vec<NodeRef<'a>> = n
        .dependents()
        .into_iter()
        .filter(|d| !seen.contains(d.uid()))
        .collect();
    let missing = n.missing_below();
    let count = deps.len() + missing.len();
    rows.push(Row {
        line: line(n, columns, current),
        depth,
        children: count,
        pos,
        of,
        key: n.uid().to_string(),
    });
    for (i, d) in deps.into_iter().enumerate() {
        below(d, depth + 1, (i + 1, count), false, columns, seen, rows);
    }
    let base = count - missing.len();
    for (j, m) in missing.iter().enumerate() {
        rows.push(Row {
            line: Line::Missing {
                kind: m.kind.to_string(),
                why: m.why.to_string(),
            },
            depth: depth + 1,
            children: 0,
            pos: base + j + 1,
            of: count,
            key: format!("{}/{}", n.uid(), m.kind),
        });
    }
}

fn line<'a>(
    n: NodeRef<'a>,
    columns: &impl Fn(SourceId) -> Option<&'a [TableColumn]>,
    current: bool,
) -> Line {
    let (ready, status, absent) = match (n.object(), n.absence()) {
        (Some(o), _) => {
            let fallback;
            let (cols, cells): (&[TableColumn], Vec<Cell<'_>>) = match o.cells() {
                Some(c) => (n.source_id().and_then(columns).unwrap_or(&[]), c.collect()),
                None => match o.fallback_cells() {
                    Some(c) => {
                        fallback = c.kind().columns();
                        (&fallback, c.collect())
                    }
                    None => (&[], Vec::new()),
                },
            };
            (ready_text(cols, &cells), status_text(cols, &cells), None)
        }
        (None, absence) => (
            None,
            None,
            Some(match absence {
                Some(Absence::Unavailable(why)) => format!("cannot be listed: {why}"),
                Some(Absence::NotWatched) => "not watched".to_string(),
                _ => "not seen (deleted, or not listed yet)".to_string(),
            }),
        ),
    };
    Line::Node {
        uid: n.uid().to_string(),
        kind: n.kind().to_string(),
        name: n.name().to_string(),
        namespace: n.namespace().to_string(),
        ready,
        status,
        health: n.health(),
        rolled: n.rolled_health(),
        absent,
        current,
    }
}

/// The word for a health, as the tree shows it (colour is never the only sign).
pub fn health_word(h: Health) -> &'static str {
    match h {
        Health::Unknown => "unknown",
        Health::Ok => "ok",
        Health::Progressing => "progressing",
        Health::Bad => "bad",
    }
}
