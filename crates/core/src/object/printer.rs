//! The fallback printer: for servers that print no tables, the columns kubectl
//! prints for pods and deployments (and Name and Age for anything else), as a
//! Table's column definitions ([`ColumnKind::columns`]) and each object's cells
//! under them ([`Object::fallback_cells`]), so that a view treats an object like a
//! row the server printed. What the cells need is extracted while an object is
//! walked, so rendering never parses JSON again.

use super::extract::{key, sat, Extract};
use super::storage::{ColData, NODE, STATUS};
use super::Object;
use crate::json::{JResult, Scanner};
use crate::table::{Cell, ColumnType, TableColumn};
use std::borrow::Cow;
/// Which display columns to extract while decoding (chosen from the resource name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ColumnKind {
    #[default]
    Generic,
    Pod,
    Deployment,
}

impl ColumnKind {
    /// The column set for a resource (plural name as in the API path).
    pub fn for_resource(resource: &str) -> Self {
        match resource {
            "pods" => ColumnKind::Pod,
            "deployments" => ColumnKind::Deployment,
            _ => ColumnKind::Generic,
        }
    }
}

/// What the walk keeps of a deployment (stored in the object).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(super) struct DeploymentColumns {
    /// spec.replicas (default 1).
    pub(super) desired: u32,
    /// status.readyReplicas.
    pub(super) ready: u32,
    /// status.updatedReplicas.
    pub(super) up_to_date: u32,
    /// status.availableReplicas.
    pub(super) available: u32,
}

/// `(name, type, format, description, priority)`: the definitions of
/// `pkg/printers/internalversion/printers.go`, but for NODE, which kubectl prints only
/// with `-o wide`: the fallback has none of the other wide columns (IP, nominated
/// node, readiness gates), and where a pod runs is what a view without the server's
/// table shows by default.
type Def = (&'static str, ColumnType, &'static str, &'static str, i32);

const NAME_DEF: Def = (
    "Name",
    ColumnType::String,
    "name",
    "Name must be unique within a namespace.",
    0,
);
const AGE_DEF: Def = (
    "Age",
    ColumnType::String,
    "",
    "CreationTimestamp is a timestamp representing the server time when this object was created.",
    0,
);

impl ColumnKind {
    /// The fallback printer's columns for this kind, as a Table's definitions:
    /// pods `Name Ready Status Restarts Age Node`, deployments `Name Ready Up-to-date
    /// Available Age`, anything else `Name Age`. Cells are [`Object::fallback_cells`].
    pub fn columns(self) -> Vec<TableColumn> {
        let defs: &[Def] = match self {
            ColumnKind::Pod => &[
                NAME_DEF,
                (
                    "Ready",
                    ColumnType::String,
                    "",
                    "The aggregate readiness state of this pod for accepting traffic.",
                    0,
                ),
                (
                    "Status",
                    ColumnType::String,
                    "",
                    "The aggregate status of the containers in this pod.",
                    0,
                ),
                (
                    "Restarts",
                    ColumnType::String,
                    "",
                    "The number of times the containers in this pod have been restarted.",
                    0,
                ),
                AGE_DEF,
                (
                    "Node",
                    ColumnType::String,
                    "",
                    "NodeName indicates in which node this pod is scheduled.",
                    0,
                ),
            ],
            ColumnKind::Deployment => &[
                NAME_DEF,
                (
                    "Ready",
                    ColumnType::String,
                    "",
                    "Number of the pod with ready state",
                    0,
                ),
                (
                    "Up-to-date",
                    ColumnType::String,
                    "",
                    "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
                    0,
                ),
                (
                    "Available",
                    ColumnType::String,
                    "",
                    "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
                    0,
                ),
                AGE_DEF,
            ],
            ColumnKind::Generic => &[NAME_DEF, AGE_DEF],
        };
        defs.iter()
            .map(
                |(name, column_type, format, description, priority)| TableColumn {
                    name: (*name).into(),
                    column_type: column_type.clone(),
                    format: (*format).into(),
                    description: (*description).into(),
                    priority: *priority,
                },
            )
            .collect()
    }

    /// The index of the Age column in [`ColumnKind::columns`].
    pub fn age_index(self) -> usize {
        match self {
            ColumnKind::Pod | ColumnKind::Deployment => 4,
            ColumnKind::Generic => 1,
        }
    }

    /// How many columns [`ColumnKind::columns`] has.
    pub fn column_count(self) -> usize {
        match self {
            ColumnKind::Pod => 6,
            ColumnKind::Deployment => 5,
            ColumnKind::Generic => 2,
        }
    }
}

/// An object's cells under its kind's fallback columns ([`ColumnKind::columns`]), as
/// kubectl prints them: Ready `1/2`, Status (`Terminating` once deleted, else a
/// waiting or terminated container's reason, else the pod's reason, else its phase),
/// Restarts and counts as integers, Node `<none>` when unscheduled. The Age cell is the
/// creationTimestamp, for a view to count the age on from as it does for a server's
/// Age cell (`<unknown>` without one). Strings borrow from the object.
#[derive(Clone)]
pub struct FallbackCells<'a> {
    o: &'a Object,
    kind: ColumnKind,
    next: usize,
}

impl<'a> FallbackCells<'a> {
    /// The kind whose columns these cells are under.
    pub fn kind(&self) -> ColumnKind {
        self.kind
    }

    /// Cell `i`, without reading the others.
    pub fn get(&self, i: usize) -> Option<Cell<'a>> {
        let o = self.o;
        let age = || Cell::Str(Cow::Borrowed(o.creation_timestamp().unwrap_or("<unknown>")));
        let text = |s: &'a str| Cell::Str(Cow::Borrowed(s));
        Some(match (o.cols, i) {
            (_, 0) => text(o.name()),
            (
                ColData::Pod {
                    ready, containers, ..
                },
                1,
            ) => Cell::Str(Cow::Owned(format!("{ready}/{containers}"))),
            (ColData::Pod { terminating, .. }, 2) => text(if terminating {
                "Terminating"
            } else {
                o.span(o.spans[STATUS]).unwrap_or("")
            }),
            (ColData::Pod { restarts, .. }, 3) => Cell::Int(i64::from(restarts)),
            (ColData::Pod { .. }, 4) => age(),
            (ColData::Pod { .. }, 5) => text(
                o.span(o.spans[NODE])
                    .filter(|n| !n.is_empty())
                    .unwrap_or("<none>"),
            ),
            (ColData::Deployment(d), 1) => {
                Cell::Str(Cow::Owned(format!("{}/{}", d.ready, d.desired)))
            }
            (ColData::Deployment(d), 2) => Cell::Int(i64::from(d.up_to_date)),
            (ColData::Deployment(d), 3) => Cell::Int(i64::from(d.available)),
            (ColData::Deployment(_), 4) => age(),
            (ColData::Generic, 1) => age(),
            _ => return None,
        })
    }
}

impl<'a> Iterator for FallbackCells<'a> {
    type Item = Cell<'a>;

    fn next(&mut self) -> Option<Cell<'a>> {
        let cell = self.get(self.next)?;
        self.next += 1;
        Some(cell)
    }

    fn nth(&mut self, n: usize) -> Option<Cell<'a>> {
        self.next = self.next.saturating_add(n);
        self.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.kind.column_count().saturating_sub(self.next);
        (left, Some(left))
    }
}

impl ExactSizeIterator for FallbackCells<'_> {}

impl Object {
    /// The kind of columns the fallback printer prints this object with; None for a
    /// table row (the server printed it).
    pub fn fallback_kind(&self) -> Option<ColumnKind> {
        match self.cols {
            ColData::Generic => Some(ColumnKind::Generic),
            ColData::Pod { .. } => Some(ColumnKind::Pod),
            ColData::Deployment(_) => Some(ColumnKind::Deployment),
            ColData::Cells { .. } => None,
        }
    }

    /// This object's cells as the fallback printer prints them, under the columns of
    /// its kind ([`Object::fallback_kind`]); None for a table row, whose cells the
    /// server printed ([`Object::cells`]).
    pub fn fallback_cells(&self) -> Option<FallbackCells<'_>> {
        Some(FallbackCells {
            o: self,
            kind: self.fallback_kind()?,
            next: 0,
        })
    }

    /// The cells of this object under a view's columns: the server's, of a table row
    /// (`fallback` false), or the fallback printer's, of an object (`fallback` true);
    /// None when the other printer printed it (the view's columns are not its own).
    pub fn printed_cells(&self, fallback: bool) -> Option<PrintedCells<'_>> {
        if fallback {
            self.fallback_cells().map(PrintedCells::Fallback)
        } else {
            self.cells().map(PrintedCells::Server)
        }
    }
}

/// A row's cells, from whichever printer printed it ([`Object::printed_cells`]).
#[derive(Clone)]
pub enum PrintedCells<'a> {
    Server(crate::table::Cells<'a>),
    Fallback(FallbackCells<'a>),
}

impl<'a> Iterator for PrintedCells<'a> {
    type Item = Cell<'a>;

    fn next(&mut self) -> Option<Cell<'a>> {
        match self {
            PrintedCells::Server(c) => c.next(),
            PrintedCells::Fallback(c) => c.next(),
        }
    }

    fn nth(&mut self, n: usize) -> Option<Cell<'a>> {
        match self {
            PrintedCells::Server(c) => c.nth(n),
            PrintedCells::Fallback(c) => c.nth(n),
        }
    }
}

pub(super) fn pod_spec(sc: &mut Scanner<'_>, ex: &mut Extract) -> JResult<()> {
    if !sc.object_start()? {
        return Ok(());
    }
    let b = sc.b;
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        match key(b, k).as_ref() {
            b"nodeName" => ex.node = sc.opt_string()?,
            b"containers" => {
                let mut n: u16 = 0;
                if sc.array_start()? {
                    let mut first = true;
                    while sc.next_elem(&mut first)? {
                        sc.value()?;
                        n = n.saturating_add(1);
                    }
                }
                ex.containers = n;
            }
            _ => sc.value()?,
        }
    }
    Ok(())
}

pub(super) fn pod_status(sc: &mut Scanner<'_>, ex: &mut Extract) -> JResult<()> {
    if !sc.object_start()? {
        return Ok(());
    }
    let b = sc.b;
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        match key(b, k).as_ref() {
            b"phase" => ex.phase = sc.opt_string()?,
            b"reason" => ex.reason = sc.opt_string()?,
            b"containerStatuses" => {
                ex.ready = 0;
                ex.restarts = 0;
                ex.container_reason = None;
                if sc.array_start()? {
                    let mut first = true;
                    while sc.next_elem(&mut first)? {
                        container_status(sc, ex)?;
                    }
                }
            }
            _ => sc.value()?,
        }
    }
    Ok(())
}

pub(super) fn container_status(sc: &mut Scanner<'_>, ex: &mut Extract) -> JResult<()> {
    if !sc.object_start()? {
        return Ok(());
    }
    let b = sc.b;
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        match key(b, k).as_ref() {
            b"ready" => {
                if sc.boolean()? == Some(true) {
                    ex.ready = ex.ready.saturating_add(1);
                }
            }
            b"restartCount" => {
                let n = sc.uint()?.unwrap_or(0);
                ex.restarts = ex.restarts.saturating_add(sat(n));
            }
            b"state" if sc.object_start()? => {
                let mut first = true;
                while let Some(k) = sc.next_key(&mut first)? {
                    let kb = key(b, k);
                    if matches!(kb.as_ref(), b"waiting" | b"terminated") && sc.object_start()? {
                        let mut first = true;
                        while let Some(k) = sc.next_key(&mut first)? {
                            if key(b, k).as_ref() == b"reason" {
                                let r = sc.opt_string()?;
                                if ex.container_reason.is_none() {
                                    ex.container_reason = r.filter(|r| r.end > r.start);
                                }
                            } else {
                                sc.value()?;
                            }
                        }
                    } else if !matches!(kb.as_ref(), b"waiting" | b"terminated") {
                        sc.value()?;
                    }
                }
            }
            b"state" => {}
            _ => sc.value()?,
        }
    }
    Ok(())
}

pub(super) fn deployment_spec(sc: &mut Scanner<'_>, ex: &mut Extract) -> JResult<()> {
    if !sc.object_start()? {
        return Ok(());
    }
    let b = sc.b;
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        match key(b, k).as_ref() {
            b"replicas" => ex.replicas = sc.uint()?,
            _ => sc.value()?,
        }
    }
    Ok(())
}

pub(super) fn deployment_status(sc: &mut Scanner<'_>, ex: &mut Extract) -> JResult<()> {
    if !sc.object_start()? {
        return Ok(());
    }
    let b = sc.b;
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        match key(b, k).as_ref() {
            b"readyReplicas" => ex.ready_replicas = sc.uint()?.unwrap_or(0),
            b"updatedReplicas" => ex.updated_replicas = sc.uint()?.unwrap_or(0),
            b"availableReplicas" => ex.available_replicas = sc.uint()?.unwrap_or(0),
            _ => sc.value()?,
        }
    }
    Ok(())
}
