//! One Kubernetes object as the store keeps it: its compact JSON bytes, once, plus
//! the few fields the engine and the UIs need, extracted without building a DOM.

use crate::decode::DecodeError;
use crate::json::{unescape, JResult, JsonError, Scanner, StrSpan};
use std::borrow::Cow;
use std::fmt;

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

/// How objects are decoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Drop `metadata.managedFields` on the way in (saves ~30% of a typical pod).
    pub strip_managed_fields: bool,
    pub columns: ColumnKind,
}

/// Display columns, extracted at decode time so rendering never re-parses JSON.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Columns {
    #[default]
    Generic,
    Pod(PodColumns),
    Deployment(DeploymentColumns),
}

/// `kubectl get pods` columns.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PodColumns {
    /// Ready containers.
    pub ready: u16,
    /// All containers (spec.containers).
    pub containers: u16,
    /// Sum of containerStatuses[].restartCount.
    pub restarts: u32,
    /// What kubectl shows as STATUS: "Terminating" when deletionTimestamp is set, else a
    /// waiting/terminated container reason if any, else status.reason, else status.phase.
    pub status: Box<str>,
    /// spec.nodeName, empty when unscheduled.
    pub node: Box<str>,
}

/// `kubectl get deployments` columns.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
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

/// A span of the object's storage: `off..off+len`; `len == u32::MAX` means absent.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Span {
    off: u32,
    len: u32,
}

impl Span {
    const NONE: Span = Span {
        off: 0,
        len: u32::MAX,
    };
}

/// A decoded object. Immutable once built; shared between the store and events.
///
/// Holds one exact-size allocation: the object's JSON (compact as received, minus
/// `metadata.managedFields` if asked), followed by decoded copies of the rare
/// metadata strings that contained escapes. Metadata fields are spans into it.
#[derive(Clone, PartialEq, Eq)]
pub struct Object {
    buf: Box<str>,
    json_len: u32,
    name: Span,
    namespace: Span,
    uid: Span,
    resource_version: Span,
    creation_timestamp: Span,
    deletion_timestamp: Span,
    columns: Columns,
}

impl fmt::Debug for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Object")
            .field("namespace", &self.namespace())
            .field("name", &self.name())
            .field("uid", &self.uid())
            .field("resource_version", &self.resource_version())
            .field("creation_timestamp", &self.creation_timestamp())
            .field("deletion_timestamp", &self.deletion_timestamp())
            .field("columns", &self.columns)
            .field("json_bytes", &self.json_len)
            .finish()
    }
}

impl Object {
    /// Decodes one object from its JSON bytes (the value of `object` in a watch event,
    /// or one element of a list's `items`), copying (and, if asked, stripping) into
    /// owned compact storage. Requires metadata.name and metadata.resourceVersion.
    pub fn parse(json: &[u8], opts: &ParseOptions) -> Result<Object, DecodeError> {
        let doc = utf8(json)?;
        let mut sc = Scanner::new(json);
        if sc.ws() != b'{' {
            return Err(sc.err("expected an object").into());
        }
        let obj = parse_object(doc, &mut sc, opts)?;
        sc.end()?;
        Ok(obj)
    }

    #[inline]
    fn span(&self, s: Span) -> Option<&str> {
        if s.len == u32::MAX {
            None
        } else {
            let a = s.off as usize;
            self.buf.get(a..a + s.len as usize)
        }
    }

    /// metadata.namespace, "" for cluster-scoped objects.
    pub fn namespace(&self) -> &str {
        self.span(self.namespace).unwrap_or("")
    }
    pub fn name(&self) -> &str {
        self.span(self.name).unwrap_or("")
    }
    /// metadata.uid, "" if absent.
    pub fn uid(&self) -> &str {
        self.span(self.uid).unwrap_or("")
    }
    pub fn resource_version(&self) -> &str {
        self.span(self.resource_version).unwrap_or("")
    }
    pub fn creation_timestamp(&self) -> Option<&str> {
        self.span(self.creation_timestamp)
    }
    pub fn deletion_timestamp(&self) -> Option<&str> {
        self.span(self.deletion_timestamp)
    }
    /// metadata.labels, decoded on demand from the stored bytes (not on the hot path).
    pub fn labels(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let _ = self.map_in_metadata(b"labels", &mut out);
        out
    }
    /// metadata.annotations, decoded on demand from the stored bytes.
    pub fn annotations(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let _ = self.map_in_metadata(b"annotations", &mut out);
        out
    }

    fn map_in_metadata(&self, field: &[u8], out: &mut Vec<(String, String)>) -> JResult<()> {
        let b = self.json();
        let mut sc = Scanner::new(b);
        if !sc.object_start()? {
            return Ok(());
        }
        let mut first = true;
        while let Some(k) = sc.next_key(&mut first)? {
            if key(b, k).as_ref() != b"metadata" {
                sc.value()?;
                continue;
            }
            if !sc.object_start()? {
                continue;
            }
            let mut first = true;
            while let Some(k) = sc.next_key(&mut first)? {
                if key(b, k).as_ref() != field {
                    sc.value()?;
                    continue;
                }
                if !sc.object_start()? {
                    continue;
                }
                out.clear();
                let mut first = true;
                while let Some(k) = sc.next_key(&mut first)? {
                    if let Some(v) = sc.opt_string()? {
                        out.push((
                            unescape(&b[k.start..k.end]).into_owned(),
                            unescape(&b[v.start..v.end]).into_owned(),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The compact JSON the store keeps.
    pub fn json(&self) -> &[u8] {
        &self.buf.as_bytes()[..self.json_len as usize]
    }
    /// [`Object::json`] as text (always valid UTF-8).
    pub fn json_str(&self) -> &str {
        self.buf.get(..self.json_len as usize).unwrap_or("")
    }
    pub fn columns(&self) -> &Columns {
        &self.columns
    }
    /// Heap bytes this object holds (for memory accounting in status and benches).
    /// The struct itself (`size_of::<Object>()`) lives wherever its owner keeps it.
    pub fn heap_bytes(&self) -> usize {
        self.buf.len()
            + match &self.columns {
                Columns::Pod(p) => p.status.len() + p.node.len(),
                _ => 0,
            }
    }
}

impl From<JsonError> for DecodeError {
    fn from(e: JsonError) -> Self {
        DecodeError::Malformed {
            offset: e.offset,
            reason: e.reason,
        }
    }
}

/// Validates UTF-8 of a whole document.
pub(crate) fn utf8(b: &[u8]) -> Result<&str, DecodeError> {
    std::str::from_utf8(b).map_err(|e| DecodeError::Malformed {
        offset: e.valid_up_to(),
        reason: "invalid UTF-8",
    })
}

/// A key's bytes, decoded only if it has escapes.
#[inline]
pub(crate) fn key(b: &[u8], k: StrSpan) -> Cow<'_, [u8]> {
    let raw = &b[k.start..k.end];
    if k.escaped {
        match unescape(raw) {
            Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        }
    } else {
        Cow::Borrowed(raw)
    }
}

/// What the walk over one object collects (absolute positions in the document).
#[derive(Default)]
struct Extract {
    name: Option<StrSpan>,
    namespace: Option<StrSpan>,
    uid: Option<StrSpan>,
    resource_version: Option<StrSpan>,
    creation_timestamp: Option<StrSpan>,
    deletion_timestamp: Option<StrSpan>,
    /// Byte ranges to drop from the stored copy (managedFields), in order.
    cuts: Vec<(usize, usize)>,
    // Pod columns.
    containers: u16,
    ready: u16,
    restarts: u32,
    node: Option<StrSpan>,
    phase: Option<StrSpan>,
    reason: Option<StrSpan>,
    container_reason: Option<StrSpan>,
    // Deployment columns.
    replicas: Option<u64>,
    ready_replicas: u64,
    updated_replicas: u64,
    available_replicas: u64,
}

/// Parses the object whose `{` is at `sc.i` (after whitespace); `doc` is the
/// validated text of `sc.b`. Leaves `sc` after the closing `}`.
pub(crate) fn parse_object(
    doc: &str,
    sc: &mut Scanner<'_>,
    opts: &ParseOptions,
) -> Result<Object, DecodeError> {
    let start = sc.i;
    let mut ex = Extract::default();
    if !sc.object_start()? {
        return Err(JsonError {
            offset: start,
            reason: "expected an object",
        }
        .into());
    }
    let b = sc.b;
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        match (key(b, k).as_ref(), opts.columns) {
            (b"metadata", _) => metadata(sc, &mut ex, opts.strip_managed_fields)?,
            (b"spec", ColumnKind::Pod) => pod_spec(sc, &mut ex)?,
            (b"status", ColumnKind::Pod) => pod_status(sc, &mut ex)?,
            (b"spec", ColumnKind::Deployment) => deployment_spec(sc, &mut ex)?,
            (b"status", ColumnKind::Deployment) => deployment_status(sc, &mut ex)?,
            _ => sc.value()?,
        }
    }
    let end = sc.i;
    if ex.name.is_none() {
        return Err(DecodeError::MissingField {
            field: "metadata.name",
        });
    }
    if ex.resource_version.is_none() {
        return Err(DecodeError::MissingField {
            field: "metadata.resourceVersion",
        });
    }
    build(doc, start, end, &ex, opts.columns)
}

fn build(
    doc: &str,
    start: usize,
    end: usize,
    ex: &Extract,
    kind: ColumnKind,
) -> Result<Object, DecodeError> {
    let cut_total: usize = ex.cuts.iter().map(|(a, b)| b - a).sum();
    let json_len = end - start - cut_total;
    let fields = [
        ex.name,
        ex.namespace,
        ex.uid,
        ex.resource_version,
        ex.creation_timestamp,
        ex.deletion_timestamp,
    ];
    let mut extra = 0usize;
    let mut decoded: [Option<Cow<'_, str>>; 6] = Default::default();
    for (f, d) in fields.iter().zip(decoded.iter_mut()) {
        if let Some(s) = f {
            if s.escaped {
                let v = unescape(&doc.as_bytes()[s.start..s.end]);
                extra += v.len();
                *d = Some(v);
            }
        }
    }
    let total = json_len + extra;
    if total > u32::MAX as usize - 1 {
        return Err(DecodeError::TooLarge {
            limit: u32::MAX as usize - 1,
        });
    }
    let mut s = String::with_capacity(total);
    let mut at = start;
    for &(a, b) in &ex.cuts {
        s.push_str(doc.get(at..a).unwrap_or(""));
        at = b;
    }
    s.push_str(doc.get(at..end).unwrap_or(""));
    let mut spans = [Span::NONE; 6];
    for ((f, d), sp) in fields.iter().zip(decoded.iter()).zip(spans.iter_mut()) {
        let Some(f) = f else { continue };
        if let Some(d) = d {
            *sp = Span {
                off: s.len() as u32,
                len: d.len() as u32,
            };
            s.push_str(d);
        } else {
            let shift: usize = ex
                .cuts
                .iter()
                .filter(|(_, b)| *b <= f.start)
                .map(|(a, b)| b - a)
                .sum();
            *sp = Span {
                off: (f.start - start - shift) as u32,
                len: (f.end - f.start) as u32,
            };
        }
    }
    debug_assert_eq!(s.len(), total);
    let text = |s: Option<StrSpan>| -> Option<Cow<'_, str>> {
        s.map(|s| unescape(&doc.as_bytes()[s.start..s.end]))
            .filter(|v| !v.is_empty())
    };
    let columns = match kind {
        ColumnKind::Generic => Columns::Generic,
        ColumnKind::Pod => {
            let status: Box<str> = if ex.deletion_timestamp.is_some() {
                "Terminating".into()
            } else {
                text(ex.container_reason)
                    .or_else(|| text(ex.reason))
                    .or_else(|| text(ex.phase))
                    .unwrap_or_default()
                    .into()
            };
            Columns::Pod(PodColumns {
                ready: ex.ready,
                containers: ex.containers,
                restarts: ex.restarts,
                status,
                node: text(ex.node).unwrap_or_default().into(),
            })
        }
        ColumnKind::Deployment => Columns::Deployment(DeploymentColumns {
            desired: sat(ex.replicas.unwrap_or(1)),
            ready: sat(ex.ready_replicas),
            up_to_date: sat(ex.updated_replicas),
            available: sat(ex.available_replicas),
        }),
    };
    Ok(Object {
        buf: s.into_boxed_str(),
        json_len: json_len as u32,
        name: spans[0],
        namespace: spans[1],
        uid: spans[2],
        resource_version: spans[3],
        creation_timestamp: spans[4],
        deletion_timestamp: spans[5],
        columns,
    })
}

fn sat(v: u64) -> u32 {
    v.min(u64::from(u32::MAX)) as u32
}

/// A pending managedFields cut: where its key starts, where its value ends, and
/// where the previous member's value ended (None if it is the first member).
struct PendingCut {
    key_start: usize,
    value_end: usize,
    prev_end: Option<usize>,
}

fn metadata(sc: &mut Scanner<'_>, ex: &mut Extract, strip: bool) -> JResult<()> {
    if !sc.object_start()? {
        return Ok(());
    }
    let b = sc.b;
    let mut first = true;
    let mut prev_end: Option<usize> = None;
    let mut pending: Option<PendingCut> = None;
    while let Some(k) = sc.next_key(&mut first)? {
        let key_start = k.start - 1;
        let kb = key(b, k);
        let is_mf = strip && kb.as_ref() == b"managedFields";
        if let Some(p) = pending.take() {
            if is_mf {
                pending = Some(p);
            } else {
                ex.cuts.push((p.key_start, key_start));
            }
        }
        let slot = match kb.as_ref() {
            b"name" => Some(&mut ex.name),
            b"namespace" => Some(&mut ex.namespace),
            b"uid" => Some(&mut ex.uid),
            b"resourceVersion" => Some(&mut ex.resource_version),
            b"creationTimestamp" => Some(&mut ex.creation_timestamp),
            b"deletionTimestamp" => Some(&mut ex.deletion_timestamp),
            _ => None,
        };
        match slot {
            Some(slot) => *slot = sc.opt_string()?,
            None => sc.value()?,
        }
        if is_mf {
            match &mut pending {
                Some(p) => p.value_end = sc.i,
                None => {
                    pending = Some(PendingCut {
                        key_start,
                        value_end: sc.i,
                        prev_end,
                    })
                }
            }
        }
        prev_end = Some(sc.i);
    }
    if let Some(p) = pending {
        match p.prev_end {
            Some(pe) => ex.cuts.push((pe, p.value_end)),
            None => ex.cuts.push((p.key_start, p.value_end)),
        }
    }
    Ok(())
}

fn pod_spec(sc: &mut Scanner<'_>, ex: &mut Extract) -> JResult<()> {
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

fn pod_status(sc: &mut Scanner<'_>, ex: &mut Extract) -> JResult<()> {
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

fn container_status(sc: &mut Scanner<'_>, ex: &mut Extract) -> JResult<()> {
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

fn deployment_spec(sc: &mut Scanner<'_>, ex: &mut Extract) -> JResult<()> {
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

fn deployment_status(sc: &mut Scanner<'_>, ex: &mut Extract) -> JResult<()> {
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

/// A BOOKMARK's object: `metadata.resourceVersion` and the initial-events-end mark.
pub(crate) fn parse_bookmark(sc: &mut Scanner<'_>) -> Result<(String, bool), DecodeError> {
    let b = sc.b;
    let mut rv = None;
    let mut end_mark = false;
    if sc.object_start()? {
        let mut first = true;
        while let Some(k) = sc.next_key(&mut first)? {
            if key(b, k).as_ref() != b"metadata" {
                sc.value()?;
                continue;
            }
            if !sc.object_start()? {
                continue;
            }
            let mut first = true;
            while let Some(k) = sc.next_key(&mut first)? {
                match key(b, k).as_ref() {
                    b"resourceVersion" => {
                        rv = sc
                            .opt_string()?
                            .map(|s| unescape(&b[s.start..s.end]).into_owned())
                    }
                    b"annotations" if sc.object_start()? => {
                        let mut first = true;
                        while let Some(k) = sc.next_key(&mut first)? {
                            if key(b, k).as_ref() == b"k8s.io/initial-events-end" {
                                end_mark = match sc.opt_string()? {
                                    Some(v) => &b[v.start..v.end] == b"true",
                                    None => false,
                                };
                            } else {
                                sc.value()?;
                            }
                        }
                    }
                    b"annotations" => {}
                    _ => sc.value()?,
                }
            }
        }
    }
    match rv {
        Some(rv) => Ok((rv, end_mark)),
        None => Err(DecodeError::MissingField {
            field: "metadata.resourceVersion",
        }),
    }
}
