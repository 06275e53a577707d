//! Stored objects, kept compact: an object made from arbitrary JSON keeps its document as
//! text in Go struct field order (with a slot for its resourceVersion, so a DELETED event's
//! copy at a new version shares nothing it need not), and a pod of the workload keeps only
//! its typed state ([`crate::genpod::PodState`]) and is written out on demand, the same
//! bytes every time for the same version.
//!
//! Field order: the apiserver serialises Go structs, so `kind`, `apiVersion`, `metadata`
//! come first, then the type's own fields (`spec`, `status`, or e.g. a ConfigMap's
//! `immutable`, `data`, `binaryData`), and `metadata` in `ObjectMeta`'s order
//! (`k8s.io/apimachinery/pkg/apis/meta/v1/types.go`). Maps (labels, data) are sorted by key,
//! as Go's encoding/json sorts map keys.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::fields;
use crate::genpod::PodState;
use crate::resources::ResourceType;
use crate::tree::{Key, Keyed};

/// A stored object at one version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Obj {
    /// Interned: every object of a namespace shares one string.
    pub namespace: Arc<str>,
    pub name: Box<str>,
    pub rv: u64,
    pub(crate) body: Body,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Body {
    Json(Box<JsonBody>),
    Pod(Arc<PodState>),
}

/// An object made from arbitrary JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonBody {
    pub uid: Box<str>,
    pub created: Box<str>,
    pub labels: Box<[(Box<str>, Box<str>)]>,
    /// The values of the kind's selectable fields (other than name and namespace).
    pub fields: Box<[(&'static str, Box<str>)]>,
    pub deleting: bool,
    /// The item document (no `kind`/`apiVersion`), with the resourceVersion's digits left
    /// out at `rv_at`.
    pub text: Box<str>,
    pub rv_at: u32,
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

    /// Appends the document: item form (as in a list), or with `kind`/`apiVersion` first
    /// when `typed` (a watch event, a GET, a CRD's list item).
    pub fn write_json(&self, out: &mut String, typed: Option<&ResourceType>) {
        match &self.body {
            Body::Json(j) => {
                let (head, tail) = j.text.split_at(j.rv_at as usize);
                match typed {
                    Some(rt) => {
                        write_type(out, rt);
                        out.push(',');
                        out.push_str(&head[1..]);
                    }
                    None => out.push_str(head),
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
        out.push_str(&crate::util::json_str(k));
        out.push(':');
        write_value(out, k, v, nested);
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

fn write_value(out: &mut String, key: &str, v: &Value, nested: bool) {
    match v {
        Value::Object(m) if nested => {
            out.push('{');
            write_ordered(out, m, nested_order(key), key == "spec");
            out.push('}');
        }
        _ => out.push_str(&v.to_string()),
    }
}

/// Builds a JSON body: `v` is the item (no kind/apiVersion) with its metadata complete
/// except `resourceVersion`, which is left as a slot.
pub(crate) fn json_body(rt: &ResourceType, v: &Value, uid: &str, created: &str) -> JsonBody {
    let m = v.as_object().cloned().unwrap_or_default();
    let meta = m
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut text = String::with_capacity(256);
    text.push_str("{\"metadata\":{");
    let mut rv_at = 0u32;
    let mut first = true;
    let mut put = |text: &mut String, k: &str, val: Option<&Value>| {
        if !first {
            text.push(',');
        }
        first = false;
        text.push_str(&crate::util::json_str(k));
        text.push(':');
        if let Some(val) = val {
            text.push_str(&val.to_string());
        }
    };
    for k in META_ORDER {
        if *k == "resourceVersion" {
            put(&mut text, k, None);
            text.push('"');
            rv_at = text.len() as u32;
            text.push('"');
        } else if let Some(val) = meta.get(*k) {
            put(&mut text, k, Some(val));
        }
    }
    for (k, val) in &meta {
        if !META_ORDER.contains(&k.as_str()) {
            put(&mut text, k, Some(val));
        }
    }
    text.push('}');
    let rest: Map<String, Value> = m.into_iter().filter(|(k, _)| k != "metadata").collect();
    if !rest.is_empty() {
        text.push(',');
        write_ordered(&mut text, &rest, top_order(rt.kind), true);
    }
    text.push('}');
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
    JsonBody {
        uid: uid.into(),
        created: created.into(),
        labels,
        fields,
        deleting: meta.get("deletionTimestamp").is_some_and(|d| !d.is_null()),
        text: text.into_boxed_str(),
        rv_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::{CONFIGMAPS, PODS};
    use serde_json::json;

    #[test]
    fn go_field_order_and_rv_slot() {
        let v = json!({"status": {"phase": "Running"}, "spec": {"nodeName": "n", "containers": []},
            "metadata": {"labels": {"b": "2", "a": "1"}, "namespace": "ns", "name": "p", "uid": "u", "creationTimestamp": "t"}});
        let b = json_body(&PODS, &v, "u", "t");
        let o = Obj {
            namespace: "ns".into(),
            name: "p".into(),
            rv: 42,
            body: Body::Json(Box::new(b)),
        };
        assert_eq!(
            o.to_json(Some(&PODS)),
            r#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns","uid":"u","resourceVersion":"42","creationTimestamp":"t","labels":{"a":"1","b":"2"}},"spec":{"containers":[],"nodeName":"n"},"status":{"phase":"Running"}}"#
        );
        assert_eq!(
            o.at_rv(43).to_json(None),
            r#"{"metadata":{"name":"p","namespace":"ns","uid":"u","resourceVersion":"43","creationTimestamp":"t","labels":{"a":"1","b":"2"}},"spec":{"containers":[],"nodeName":"n"},"status":{"phase":"Running"}}"#
        );
        assert_eq!(o.field("spec.nodeName"), "n");
        assert_eq!(o.field("status.phase"), "Running");
        let cm = json!({"data": {"k": "v"}, "immutable": true, "metadata": {"name": "c"}});
        let b = json_body(&CONFIGMAPS, &cm, "u", "t");
        assert!(b
            .text
            .starts_with(r#"{"metadata":{"name":"c","resourceVersion":""}"#));
        assert!(
            b.text.ends_with(r#""immutable":true,"data":{"k":"v"}}"#),
            "{}",
            b.text
        );
    }
}
