//! The fallback printer: `kubectl get pods` and `kubectl get deployments` columns
//! for servers that print no tables, extracted while an object is walked, so
//! rendering never parses JSON again.

use super::extract::{key, sat, Extract};
use crate::json::{JResult, Scanner};

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

/// Display columns, extracted at decode time so rendering never re-parses JSON.
/// Strings borrow from the object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Columns<'a> {
    #[default]
    Generic,
    Pod(PodColumns<'a>),
    Deployment(DeploymentColumns),
}

/// `kubectl get pods` columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PodColumns<'a> {
    /// Ready containers.
    pub ready: u16,
    /// All containers (spec.containers).
    pub containers: u16,
    /// Sum of containerStatuses[].restartCount.
    pub restarts: u32,
    /// What kubectl shows as STATUS: "Terminating" when deletionTimestamp is set, else a
    /// waiting/terminated container reason if any, else status.reason, else status.phase.
    pub status: &'a str,
    /// spec.nodeName, empty when unscheduled.
    pub node: &'a str,
}

/// `kubectl get deployments` columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct DeploymentColumns {
    /// spec.replicas (default 1).
    pub desired: u32,
    /// status.readyReplicas.
    pub ready: u32,
    /// status.updatedReplicas.
    pub up_to_date: u32,
    /// status.availableReplicas.
    pub available: u32,
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
