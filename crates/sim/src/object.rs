//! Stored objects, kept compact: an object made from JSON keeps its document as text in the
//! apiserver's wire order (with a slot for its resourceVersion, so a DELETED event's copy at
//! a new version shares everything) and its printed row; a pod of the workload keeps only
//! its typed state ([`crate::genpod::PodState`]) and is written out, and printed, on demand:
//! the same bytes every time for the same version.
//!
//! Field order: the apiserver serialises typed kinds as Go structs, so `kind`, `apiVersion`,
//! `metadata` come first, then the type's own fields (`spec`, `status`, or e.g. a ConfigMap's
//! `immutable`, `data`, `binaryData`), and `metadata` in `ObjectMeta`'s order
//! (`k8s.io/apimachinery/pkg/apis/meta/v1/types.go`). Maps (labels, data) are sorted by key,
//! as Go's encoding/json sorts map keys. Custom resources are unstructured on the server
//! (`map[string]interface{}`): their keys are sorted at every level, `apiVersion` before
//! `kind` (`unstructured.go`, `UnstructuredJSONScheme` encodes with `json.Marshal`).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::fields;
use crate::genpod::PodState;
use crate::printers::gojson::{object_fields, write_str, write_value};
use crate::printers::{Row, RowObject, TableError};
use crate::resources::ResourceType;
use crate::tree::{Key, Keyed};

/// A stored object at one version.
#[derive(Debug, Clone, PartialEq)]
pub struct Obj {
    /// Interned: every object of a namespace shares one string.
    pub namespace: Arc<str>,
    pub name: Box<str>,
    pub rv: u64,
    pub(crate) body: Body,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Body {
    Json(Arc<JsonBody>),
    Pod(Arc<PodState>),
}

/// An object made from JSON.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JsonBody {
    pub uid: Box<str>,
    pub created: Box<str>,
    pub labels: Box<[(Box<str>, Box<str>)]>,
    /// The values of the kind's selectable fields (other than name and namespace).
    pub fields: Box<[(&'static str, Box<str>)]>,
    pub deleting: bool,
    /// `metadata.ownerReferences` (what the garbage collector follows).
    pub owners: Box<[OwnerRef]>,
    /// The document with the resourceVersion's digits left out at `rv_at`: the item form
    /// (no `kind`/`apiVersion`) of a typed kind, the whole document of a custom resource.
    pub text: Box<str>,
    pub rv_at: u32,
    /// `text[meta.0..meta.1]` is the `metadata` object (the resourceVersion slot inside).
    pub meta: (u32, u32),
    /// `text` carries `kind` and `apiVersion` (an unstructured custom resource).
    pub whole: bool,
    /// The object as its resource's printer prints it, computed once when it was written.
    pub row: Row,
}

/// One entry of `metadata.ownerReferences`: what the garbage collector needs of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerRef {
    pub api_version: Box<str>,
    pub kind: Box<str>,
    pub name: Box<str>,
    pub uid: Box<str>,
}

impl OwnerRef {
    fn of(v: &Value) -> Option<OwnerRef> {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(Box::from);
        Some(OwnerRef {
            api_version: s("apiVersion")?,
            kind: s("kind")?,
            name: s("name")?,
            uid: s("uid")?,
        })
    }
}

impl Keyed for Obj {
    fn key(&self) -> Key<'_> {
        Key::new(&self.namespace, &self.name)
    }
}

impl Obj {
    pub fn uid(&self) -> Cow<'_, str> {
        match &self.body {
            Body::Json(j) => Cow::Borrowed(&j.uid),
            Body::Pod(p) => Cow::Owned(p.uid_string()),
        }
    }

    /// `metadata.creationTimestamp`.
    pub fn created(&self) -> String {
        match &self.body {
            Body::Json(j) => j.created.to_string(),
            Body::Pod(p) => p.created(),
        }
    }

    /// The value of label `k`.
    pub fn label(&self, k: &str) -> Option<&str> {
        match &self.body {
            Body::Json(j) => j
                .labels
                .iter()
                .find(|(lk, _)| &**lk == k)
                .map(|(_, v)| &**v),
            Body::Pod(p) => p.label(k),
        }
    }

    /// The value of a selectable field (`metadata.name`, `spec.nodeName`, ...).
    pub fn field(&self, path: &str) -> Cow<'_, str> {
        match path {
            "metadata.name" => Cow::Borrowed(&self.name),
            "metadata.namespace" => Cow::Borrowed(&self.namespace),
            _ => match &self.body {
                Body::Json(j) => j
                    .fields
                    .iter()
                    .find(|(f, _)| *f == path)
                    .map_or(Cow::Borrowed(""), |(_, v)| Cow::Borrowed(&**v)),
                Body::Pod(p) => p.field(path),
            },
        }
    }

    /// Its `metadata.ownerReferences`.
    pub fn owners(&self) -> Cow<'_, [OwnerRef]> {
        match &self.body {
            Body::Json(j) => Cow::Borrowed(&j.owners),
            Body::Pod(p) => Cow::Owned(vec![OwnerRef {
                api_version: "apps/v1".into(),
                kind: "ReplicaSet".into(),
                name: format!("{}-{}", p.deploy.app, p.deploy.hash).into(),
                uid: p.deploy.rs_uid.clone(),
            }]),
        }
    }

    /// Whether one of its `metadata.ownerReferences` has uid `uid`.
    pub fn owned_by(&self, uid: &str) -> bool {
        match &self.body {
            Body::Json(j) => j.owners.iter().any(|o| &*o.uid == uid),
            Body::Pod(p) => &*p.deploy.rs_uid == uid,
        }
    }

    /// Whether the object carries a `deletionTimestamp` (graceful deletion under way).
    pub fn deleting(&self) -> bool {
        match &self.body {
            Body::Json(j) => j.deleting,
            Body::Pod(p) => p.deletion.is_some(),
        }
    }

    /// The same object at another resourceVersion (a DELETED event's copy).
    pub fn at_rv(&self, rv: u64) -> Obj {
        Obj { rv, ..self.clone() }
    }

    /// Bytes the stored row holds (none for a generated pod: it prints from its state).
    pub fn row_heap_bytes(&self) -> usize {
        match &self.body {
            Body::Json(j) => std::mem::size_of::<Row>() + j.row.heap_bytes(),
            Body::Pod(_) => 0,
        }
    }

    /// The object's printed row: the stored one, or a generated pod's, printed from its
    /// typed state.
    pub fn row(&self) -> Cow<'_, Row> {
        match &self.body {
            Body::Json(j) => Cow::Borrowed(&j.row),
            Body::Pod(p) => Cow::Owned(p.row(&self.name)),
        }
    }

    /// Appends the document: item form (as in a list), or with `kind`/`apiVersion` first
    /// when `typed` (a watch event, a GET, a custom resource's list item). A custom
    /// resource is always whole (its keys sorted, `apiVersion` first).
    pub fn write_json(&self, out: &mut String, typed: Option<&ResourceType>) {
        match &self.body {
            Body::Json(j) => {
                let (head, tail) = j.text.split_at(j.rv_at as usize);
                match typed {
                    Some(rt) if !j.whole => {
                        write_type(out, rt);
                        out.push(',');
                        out.push_str(&head[1..]);
                    }
                    _ => out.push_str(head),
                }
                let _ = write!(out, "{}", self.rv);
                out.push_str(tail);
            }
            Body::Pod(p) => {
                out.push('{');
                if let Some(rt) = typed {
                    write_type_fields(out, rt);
                    out.push(',');
                }
                p.write_fields(out, &self.name, self.rv);
                out.push('}');
            }
        }
    }

    /// The document as a string (see [`Obj::write_json`]).
    pub fn to_json(&self, typed: Option<&ResourceType>) -> String {
        let mut s = String::with_capacity(512);
        self.write_json(&mut s, typed);
        s
    }

    /// Appends the `metadata` object alone, as the document carries it.
    pub fn write_metadata(&self, out: &mut String) {
        match &self.body {
            Body::Json(j) => {
                let (at, end, rv_at) = (j.meta.0 as usize, j.meta.1 as usize, j.rv_at as usize);
                out.push_str(&j.text[at..rv_at]);
                let _ = write!(out, "{}", self.rv);
                out.push_str(&j.text[rv_at..end]);
            }
            Body::Pod(p) => p.write_metadata(out, &self.name, self.rv),
        }
    }
}

/// A stored object as the Table writers read it: its metadata for `PartialObjectMetadata`
/// rows, the object with `kind`/`apiVersion` for `includeObject=Object`.
#[derive(Debug, Clone, Copy)]
pub struct Printed<'a> {
    pub obj: &'a Obj,
    pub rt: &'a ResourceType,
}

impl RowObject for Printed<'_> {
    fn write_metadata(&self, out: &mut String) -> Result<bool, TableError> {
        self.obj.write_metadata(out);
        Ok(true)
    }
    fn write_object(&self, out: &mut String) -> Result<(), TableError> {
        self.obj.write_json(out, Some(self.rt));
        Ok(())
    }
    fn resource_version(&self) -> Result<Option<String>, TableError> {
        Ok(Some(self.obj.rv.to_string()))
    }
}

fn write_type_fields(out: &mut String, rt: &ResourceType) {
    out.push_str("\"kind\":\"");
    out.push_str(rt.kind);
    out.push_str("\",\"apiVersion\":\"");
    out.push_str(&rt.api_version());
    out.push('"');
}

fn write_type(out: &mut String, rt: &ResourceType) {
    out.push('{');
    write_type_fields(out, rt);
}

/// `ObjectMeta`'s JSON field order.
const META_ORDER: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

/// The type's own top-level fields in Go order (after `metadata`); keys not named here
/// follow in sorted order.
fn top_order(kind: &str) -> &'static [&'static str] {
    match kind {
        "ConfigMap" => &["immutable", "data", "binaryData"],
        "Secret" => &["immutable", "data", "stringData", "type"],
        "Event" => &[
            "involvedObject",
            "reason",
            "message",
            "source",
            "firstTimestamp",
            "lastTimestamp",
            "count",
            "type",
            "eventTime",
            "series",
            "action",
            "related",
            "reportingComponent",
            "reportingInstance",
        ],
        _ => &["spec", "status"],
    }
}

/// Field order of nested structs the sim's own objects use, by the key that holds them.
fn nested_order(parent: &str) -> &'static [&'static str] {
    match parent {
        "spec" => &[
            "volumes",
            "initContainers",
            "containers",
            "restartPolicy",
            "terminationGracePeriodSeconds",
            "dnsPolicy",
            "nodeSelector",
            "serviceAccountName",
            "serviceAccount",
            "nodeName",
            "hostNetwork",
            "securityContext",
            "schedulerName",
            "tolerations",
            "priority",
            "enableServiceLinks",
            "preemptionPolicy",
            "finalizers",
            "replicas",
            "selector",
            "template",
            "strategy",
            "revisionHistoryLimit",
            "progressDeadlineSeconds",
        ],
        "status" => &[
            "phase",
            "conditions",
            "message",
            "reason",
            "nominatedNodeName",
            "hostIP",
            "hostIPs",
            "podIP",
            "podIPs",
            "startTime",
            "containerStatuses",
            "qosClass",
            "observedGeneration",
            "replicas",
            "updatedReplicas",
            "readyReplicas",
            "availableReplicas",
        ],
        _ => &[],
    }
}

fn write_ordered(out: &mut String, m: &Map<String, Value>, order: &[&str], nested: bool) {
    let mut first = true;
    let mut field = |out: &mut String, k: &str, v: &Value| {
        if !first {
            out.push(',');
        }
        first = false;
        write_str(out, k);
        out.push(':');
        match v {
            Value::Object(m) if nested => {
                out.push('{');
                write_ordered(out, m, nested_order(k), k == "spec");
                out.push('}');
            }
            _ => write_value(out, v),
        }
    };
    for k in order {
        if let Some(v) = m.get(*k) {
            field(out, k, v);
        }
    }
    for (k, v) in m {
        if !order.contains(&k.as_str()) {
            field(out, k, v);
        }
    }
}

/// Appends the resourceVersion field with an empty value; returns where its digits go.
fn put_rv_slot(text: &mut String) -> u32 {
    text.push_str("\"resourceVersion\":\"");
    let at = text.len() as u32;
    text.push('"');
    at
}

/// What every stored JSON object keeps besides its text.
struct Parts {
    uid: Box<str>,
    created: Box<str>,
    labels: Box<[(Box<str>, Box<str>)]>,
    fields: Box<[(&'static str, Box<str>)]>,
    deleting: bool,
    owners: Box<[OwnerRef]>,
}

impl Parts {
    fn of(rt: &ResourceType, v: &Value) -> Parts {
        let meta = &v["metadata"];
        let labels = meta
            .get("labels")
            .and_then(Value::as_object)
            .map(|l| {
                l.iter()
                    .map(|(k, v)| (k.as_str().into(), v.as_str().unwrap_or("").into()))
                    .collect()
            })
            .unwrap_or_default();
        let fields = fields::selectable(rt)
            .iter()
            .filter(|f| !f.starts_with("metadata."))
            .map(|f| (*f, fields::extract(v, f).into_boxed_str()))
            .collect();
        Parts {
            uid: meta["uid"].as_str().unwrap_or("").into(),
            created: meta["creationTimestamp"].as_str().unwrap_or("").into(),
            labels,
            fields,
            deleting: meta.get("deletionTimestamp").is_some_and(|d| !d.is_null()),
            owners: meta
                .get("ownerReferences")
                .and_then(Value::as_array)
                .map(|refs| refs.iter().filter_map(OwnerRef::of).collect())
                .unwrap_or_default(),
        }
    }

    fn body(self, text: String, rv_at: u32, meta: (u32, u32), whole: bool, row: Row) -> JsonBody {
        JsonBody {
            uid: self.uid,
            created: self.created,
            labels: self.labels,
            fields: self.fields,
            deleting: self.deleting,
            owners: self.owners,
            text: text.into_boxed_str(),
            rv_at,
            meta,
            whole,
            row,
        }
    }
}

/// Builds a JSON body from `v`, the item (no kind/apiVersion) with its metadata complete
/// except `resourceVersion`, which is left as a slot: typed kinds in Go struct order as far
/// as the sim knows it, custom resources whole with sorted keys.
pub(crate) fn json_body(rt: &ResourceType, v: &Value, row: Row) -> JsonBody {
    let parts = Parts::of(rt, v);
    if rt.custom {
        return unstructured_body(rt, v, parts, row);
    }
    let m = v.as_object().cloned().unwrap_or_default();
    let meta = m
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut text = String::with_capacity(256);
    text.push_str("{\"metadata\":");
    let meta_at = text.len() as u32;
    text.push('{');
    let mut rv_at = 0u32;
    let mut first = true;
    let mut comma = |text: &mut String| {
        if !first {
            text.push(',');
        }
        first = false;
    };
    for k in META_ORDER {
        if *k == "resourceVersion" {
            comma(&mut text);
            rv_at = put_rv_slot(&mut text);
        } else if let Some(val) = meta.get(*k) {
            comma(&mut text);
            write_str(&mut text, k);
            text.push(':');
            write_value(&mut text, val);
        }
    }
    for (k, val) in &meta {
        if !META_ORDER.contains(&k.as_str()) {
            comma(&mut text);
            write_str(&mut text, k);
            text.push(':');
            write_value(&mut text, val);
        }
    }
    text.push('}');
    let meta_end = text.len() as u32;
    let rest: Map<String, Value> = m.into_iter().filter(|(k, _)| k != "metadata").collect();
    if !rest.is_empty() {
        text.push(',');
        write_ordered(&mut text, &rest, top_order(rt.kind), true);
    }
    text.push('}');
    parts.body(text, rv_at, (meta_at, meta_end), false, row)
}

/// A custom resource as the apiserver stores it: unstructured, every key sorted, the whole
/// document (`apiVersion` and `kind` included).
fn unstructured_body(rt: &ResourceType, v: &Value, parts: Parts, row: Row) -> JsonBody {
    let mut m = v.as_object().cloned().unwrap_or_default();
    m.insert("apiVersion".into(), Value::String(rt.api_version()));
    m.insert("kind".into(), Value::String(rt.kind.into()));
    let mut text = String::with_capacity(512);
    let (mut rv_at, mut meta) = (0u32, (0u32, 0u32));
    text.push('{');
    for (i, (k, val)) in m.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        write_str(&mut text, k);
        text.push(':');
        match (k.as_str(), val) {
            ("metadata", Value::Object(md)) => {
                meta.0 = text.len() as u32;
                text.push('{');
                let mut slot_done = false;
                let mut first = true;
                for (mk, mv) in md.iter().filter(|(mk, _)| *mk != "resourceVersion") {
                    if !first {
                        text.push(',');
                    }
                    first = false;
                    if !slot_done && mk.as_str() > "resourceVersion" {
                        rv_at = put_rv_slot(&mut text);
                        text.push(',');
                        slot_done = true;
                    }
                    write_str(&mut text, mk);
                    text.push(':');
                    write_value(&mut text, mv);
                }
                if !slot_done {
                    if !first {
                        text.push(',');
                    }
                    rv_at = put_rv_slot(&mut text);
                }
                text.push('}');
                meta.1 = text.len() as u32;
            }
            _ => write_value(&mut text, val),
        }
    }
    text.push('}');
    parts.body(text, rv_at, meta, true, row)
}

/// Builds a JSON body from an object's wire text (a typed kind: `kind`, `apiVersion` and
/// the rest in Go order, as the generators of [`crate::kinds`] write it) and its decoded
/// form `v`; the text's order is kept, its resourceVersion (if any) becomes the slot.
/// Custom resources are rebuilt unstructured (sorted) from `v`.
pub(crate) fn json_body_from_text(
    rt: &ResourceType,
    text: &str,
    v: &Value,
    row: Row,
) -> Result<JsonBody, String> {
    let parts = Parts::of(rt, v);
    if rt.custom {
        let mut item = v.clone();
        if let Some(m) = item.as_object_mut() {
            m.remove("kind");
            m.remove("apiVersion");
        }
        return Ok(unstructured_body(rt, &item, parts, row));
    }
    let top = object_fields(text).map_err(|e| e.to_string())?;
    let mut out = String::with_capacity(text.len() + 24);
    out.push('{');
    let (mut rv_at, mut meta) = (None, (0u32, 0u32));
    let mut first = true;
    for (key, range) in top
        .iter()
        .filter(|(k, _)| !matches!(*k, "kind" | "apiVersion"))
    {
        if !first {
            out.push(',');
        }
        first = false;
        out.push('"');
        out.push_str(key);
        out.push_str("\":");
        if *key != "metadata" {
            out.push_str(&text[range.clone()]);
            continue;
        }
        let md = &text[range.clone()];
        meta.0 = out.len() as u32;
        out.push('{');
        let mut mfirst = true;
        for (mk, mr) in object_fields(md)
            .map_err(|e| e.to_string())?
            .into_iter()
            .filter(|(mk, _)| *mk != "resourceVersion")
        {
            // The slot goes where ObjectMeta has it: after name, namespace, selfLink, uid.
            let before = META_ORDER
                .iter()
                .position(|k| *k == mk)
                .unwrap_or(usize::MAX);
            if rv_at.is_none() && before > 5 {
                if !mfirst {
                    out.push(',');
                }
                rv_at = Some(put_rv_slot(&mut out));
                mfirst = false;
            }
            if !mfirst {
                out.push(',');
            }
            mfirst = false;
            out.push('"');
            out.push_str(mk);
            out.push_str("\":");
            out.push_str(&md[mr]);
        }
        if rv_at.is_none() {
            if !mfirst {
                out.push(',');
            }
            rv_at = Some(put_rv_slot(&mut out));
        }
        out.push('}');
        meta.1 = out.len() as u32;
    }
    out.push('}');
    let rv_at = rv_at.ok_or("the object has no metadata")?;
    Ok(parts.body(out, rv_at, meta, false, row))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::{CONFIGMAPS, PODS, SERVICES, WIDGETS};
    use serde_json::json;

    fn row() -> Row {
        Row {
            cells: Vec::new(),
            completed: None,
        }
    }

    fn obj(body: JsonBody, rv: u64) -> Obj {
        Obj {
            namespace: "ns".into(),
            name: "p".into(),
            rv,
            body: Body::Json(Arc::new(body)),
        }
    }

    #[test]
    fn go_field_order_and_rv_slot() {
        let v = json!({"status": {"phase": "Running"}, "spec": {"nodeName": "n", "containers": []},
            "metadata": {"labels": {"b": "2", "a": "1"}, "namespace": "ns", "name": "p", "uid": "u", "creationTimestamp": "t"}});
        let o = obj(json_body(&PODS, &v, row()), 42);
        assert_eq!(
            o.to_json(Some(&PODS)),
            r#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns","uid":"u","resourceVersion":"42","creationTimestamp":"t","labels":{"a":"1","b":"2"}},"spec":{"containers":[],"nodeName":"n"},"status":{"phase":"Running"}}"#
        );
        assert_eq!(
            o.at_rv(43).to_json(None),
            r#"{"metadata":{"name":"p","namespace":"ns","uid":"u","resourceVersion":"43","creationTimestamp":"t","labels":{"a":"1","b":"2"}},"spec":{"containers":[],"nodeName":"n"},"status":{"phase":"Running"}}"#
        );
        let mut meta = String::new();
        o.write_metadata(&mut meta);
        assert_eq!(
            meta,
            r#"{"name":"p","namespace":"ns","uid":"u","resourceVersion":"42","creationTimestamp":"t","labels":{"a":"1","b":"2"}}"#
        );
        assert_eq!(o.field("spec.nodeName"), "n");
        assert_eq!(o.field("status.phase"), "Running");
        let cm = json!({"data": {"k": "<v>"}, "immutable": true, "metadata": {"name": "c"}});
        let b = json_body(&CONFIGMAPS, &cm, row());
        assert!(b
            .text
            .starts_with(r#"{"metadata":{"name":"c","resourceVersion":""}"#));
        // Go's encoder escapes <, > and & in strings.
        assert!(
            b.text
                .ends_with(r#""immutable":true,"data":{"k":"\u003cv\u003e"}}"#),
            "{}",
            b.text
        );
    }

    /// Custom resources are unstructured: keys sorted at every level, `apiVersion` first,
    /// the resourceVersion in its sorted place (`UnstructuredJSONScheme`).
    #[test]
    fn custom_resources_are_sorted() {
        let v = json!({"spec": {"size": 2, "color": "blue"}, "metadata": {"name": "w", "namespace": "ns", "uid": "u", "creationTimestamp": "t", "labels": {"x": "1"}}});
        let o = obj(json_body(&WIDGETS, &v, row()), 9);
        let want = r#"{"apiVersion":"kubelive.dev/v1","kind":"Widget","metadata":{"creationTimestamp":"t","labels":{"x":"1"},"name":"w","namespace":"ns","resourceVersion":"9","uid":"u"},"spec":{"color":"blue","size":2}}"#;
        assert_eq!(o.to_json(None), want);
        assert_eq!(o.to_json(Some(&WIDGETS)), want);
        let mut meta = String::new();
        o.write_metadata(&mut meta);
        assert_eq!(
            meta,
            r#"{"creationTimestamp":"t","labels":{"x":"1"},"name":"w","namespace":"ns","resourceVersion":"9","uid":"u"}"#
        );
    }

    /// Wire text keeps its order; the resourceVersion slot goes after the uid.
    #[test]
    fn wire_text_keeps_its_order() {
        let text = r#"{"kind":"Service","apiVersion":"v1","metadata":{"name":"web","namespace":"ns","uid":"u","creationTimestamp":"t"},"spec":{"ports":[],"selector":{"app":"web"},"clusterIP":"10.96.0.9","type":"ClusterIP"},"status":{"loadBalancer":{}}}"#;
        let v: Value = serde_json::from_str(text).unwrap();
        let o = obj(json_body_from_text(&SERVICES, text, &v, row()).unwrap(), 7);
        assert_eq!(
            o.to_json(Some(&SERVICES)),
            text.replace(r#""uid":"u","#, r#""uid":"u","resourceVersion":"7","#)
        );
        // An explicit resourceVersion is replaced by the slot.
        let with_rv = text.replace(r#""uid":"u","#, r#""uid":"u","resourceVersion":"3","#);
        let o = obj(
            json_body_from_text(&SERVICES, &with_rv, &v, row()).unwrap(),
            8,
        );
        assert_eq!(o.to_json(None).matches("resourceVersion").count(), 1);
        assert!(o.to_json(None).contains(r#""resourceVersion":"8""#));
    }
}
