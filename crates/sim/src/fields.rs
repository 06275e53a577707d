//! Which fields a field selector may name, per kind, and how an unsupported one is refused:
//! as the apiserver's field label conversion functions do.
//!
//! * core/v1 kinds with their own conversion (`pkg/apis/core/v1/conversion.go`: Pod, Node,
//!   Namespace, Event, Secret) refuse others with `field label not supported: <field>`;
//!   the pod's list is `ToSelectableFields` of `pkg/registry/core/pod/strategy.go`.
//! * every other kind uses `runtime.DefaultMetaV1FieldSelectorConversion`
//!   (`staging/src/k8s.io/apimachinery/pkg/runtime/conversion.go`):
//!   `"<field>" is not a known field selector: only "metadata.name", "metadata.namespace"`.

use serde_json::Value;

use crate::resources::ResourceType;

const POD: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
];
const NAMESPACE: &[&str] = &["metadata.name", "status.phase"];
const NODE: &[&str] = &["metadata.name", "spec.unschedulable"];
const SECRET: &[&str] = &["metadata.name", "metadata.namespace", "type"];
const EVENT: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
];
const DEFAULT: &[&str] = &["metadata.name", "metadata.namespace"];

/// The fields a selector may use on `rt`.
pub fn selectable(rt: &ResourceType) -> &'static [&'static str] {
    if !rt.group.is_empty() {
        return DEFAULT;
    }
    match rt.kind {
        "Pod" => POD,
        "Namespace" => NAMESPACE,
        "Node" => NODE,
        "Secret" => SECRET,
        "Event" => EVENT,
        _ => DEFAULT,
    }
}

/// `Ok(())` if `field` may be selected on `rt`, else the apiserver's message.
pub fn check(rt: &ResourceType, field: &str) -> Result<(), String> {
    if selectable(rt).contains(&field) {
        return Ok(());
    }
    let own_conversion =
        rt.group.is_empty() && matches!(rt.kind, "Pod" | "Namespace" | "Node" | "Secret" | "Event");
    if own_conversion {
        Err(format!("field label not supported: {field}"))
    } else {
        Err(format!(
            "\"{field}\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\""
        ))
    }
}

/// The selectable value of `field` in a JSON object, as the apiserver's field set has it:
/// strings as they are, booleans as `true`/`false`, absent as empty. `source` of an event
/// is `source.component`; `status.podIP` is the first of `status.podIPs` when set there.
pub fn extract(v: &Value, field: &str) -> String {
    let path: &[&str] = match field {
        "source" => &["source", "component"],
        "spec.hostNetwork" | "spec.unschedulable" => {
            let (a, b) = field.split_once('.').unwrap_or((field, ""));
            return (v[a][b].as_bool() == Some(true)).to_string();
        }
        _ => return dotted(v, field),
    };
    let mut cur = v;
    for p in path {
        cur = &cur[*p];
    }
    cur.as_str().unwrap_or("").to_string()
}

fn dotted(v: &Value, field: &str) -> String {
    let mut cur = v;
    for p in field.split('.') {
        cur = &cur[p];
    }
    match cur {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::{CONFIGMAPS, NAMESPACES, PODS, WIDGETS};
    use serde_json::json;

    #[test]
    fn messages_as_the_apiserver_writes_them() {
        assert_eq!(check(&PODS, "spec.nodeName"), Ok(()));
        assert_eq!(
            check(&PODS, "status.hostIP"),
            Err("field label not supported: status.hostIP".into())
        );
        assert_eq!(
            check(&NAMESPACES, "metadata.namespace"),
            Err("field label not supported: metadata.namespace".into())
        );
        assert_eq!(
            check(&CONFIGMAPS, "data.x"),
            Err(r#""data.x" is not a known field selector: only "metadata.name", "metadata.namespace""#.into())
        );
        assert!(check(&WIDGETS, "spec.color").is_err());
        let p = json!({"spec": {"hostNetwork": true, "nodeName": "n1"}});
        assert_eq!(extract(&p, "spec.hostNetwork"), "true");
        assert_eq!(extract(&json!({}), "spec.hostNetwork"), "false");
        assert_eq!(extract(&p, "spec.nodeName"), "n1");
        assert_eq!(
            extract(&json!({"source": {"component": "kubelet"}}), "source"),
            "kubelet"
        );
    }
}
