//! Just enough of Kubernetes' protobuf encoding to read the review requests kubectl sends
//! (`kubectl auth can-i` posts its SelfSubjectAccessReview / SelfSubjectRulesReview as
//! `application/vnd.kubernetes.protobuf`, accepting JSON back).
//!
//! The envelope (k8s.io/apimachinery `runtime/serializer/protobuf`): the magic bytes
//! `k8s\0`, then a `runtime.Unknown` message {1: typeMeta {1: apiVersion, 2: kind}, 2: raw,
//! 3: contentEncoding, 4: contentType}; `raw` is the object's message. Field numbers of the
//! review types: `staging/src/k8s.io/api/authorization/v1/generated.proto`.

use serde_json::{json, Map, Value};

/// The prefix of every Kubernetes protobuf document.
pub const MAGIC: &[u8] = b"k8s\0";

/// A field of a protobuf message: its number and, for length-delimited fields, the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field<'a> {
    Bytes(u32, &'a [u8]),
    Other(u32),
}

fn varint(data: &[u8], pos: &mut usize) -> Result<u64, String> {
    let mut out = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *data.get(*pos).ok_or("truncated varint")?;
        *pos += 1;
        out |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(out);
        }
    }
    Err("varint too long".into())
}

/// The fields of a message, in order.
fn fields(data: &[u8]) -> Result<Vec<Field<'_>>, String> {
    let mut pos = 0;
    let mut out = Vec::new();
    while pos < data.len() {
        let key = varint(data, &mut pos)?;
        let number = u32::try_from(key >> 3).map_err(|_| "bad field number")?;
        match key & 7 {
            0 => {
                varint(data, &mut pos)?;
                out.push(Field::Other(number));
            }
            1 | 5 => {
                pos += if key & 7 == 1 { 8 } else { 4 };
                if pos > data.len() {
                    return Err("truncated fixed field".into());
                }
                out.push(Field::Other(number));
            }
            2 => {
                let len = usize::try_from(varint(data, &mut pos)?).map_err(|_| "bad length")?;
                let end = pos.checked_add(len).filter(|e| *e <= data.len());
                let end = end.ok_or("truncated length-delimited field")?;
                out.push(Field::Bytes(number, &data[pos..end]));
                pos = end;
            }
            w => return Err(format!("unsupported wire type {w}")),
        }
    }
    Ok(out)
}

/// The last occurrence of a length-delimited field (protobuf's "last one wins").
fn bytes_of<'a>(msg: &[Field<'a>], number: u32) -> Option<&'a [u8]> {
    msg.iter().rev().find_map(|f| match f {
        Field::Bytes(n, b) if *n == number => Some(*b),
        _ => None,
    })
}

/// A message of string fields as a JSON object (`names[i]` is field `i + 1`).
fn strings(data: &[u8], names: &[&str]) -> Result<Value, String> {
    let msg = fields(data)?;
    let mut obj = Map::new();
    for (i, name) in names.iter().enumerate() {
        if let Some(b) = bytes_of(&msg, i as u32 + 1) {
            let s = std::str::from_utf8(b).map_err(|_| format!("{name}: not UTF-8"))?;
            obj.insert(name.to_string(), json!(s));
        }
    }
    Ok(Value::Object(obj))
}

/// Decodes a protobuf review request into the JSON shape the JSON path reads: `kind` and
/// `spec`.
pub fn review_as_json(body: &[u8]) -> Result<Value, String> {
    let envelope = body
        .strip_prefix(MAGIC)
        .ok_or("not a Kubernetes protobuf document (no k8s magic)")?;
    let unknown = fields(envelope)?;
    let kind = match bytes_of(&unknown, 1) {
        Some(type_meta) => {
            let tm = strings(type_meta, &["apiVersion", "kind"])?;
            tm.get("kind")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        }
        None => String::new(),
    };
    let raw = fields(bytes_of(&unknown, 2).unwrap_or(&[]))?;
    let spec_bytes = bytes_of(&raw, 2).unwrap_or(&[]);
    let spec = match kind.as_str() {
        "SelfSubjectAccessReview" => {
            let spec = fields(spec_bytes)?;
            let mut obj = Map::new();
            if let Some(b) = bytes_of(&spec, 1) {
                let names = [
                    "namespace",
                    "verb",
                    "group",
                    "version",
                    "resource",
                    "subresource",
                    "name",
                ];
                obj.insert("resourceAttributes".into(), strings(b, &names)?);
            }
            if let Some(b) = bytes_of(&spec, 2) {
                obj.insert(
                    "nonResourceAttributes".into(),
                    strings(b, &["path", "verb"])?,
                );
            }
            Value::Object(obj)
        }
        "SelfSubjectRulesReview" => strings(spec_bytes, &["namespace"])?,
        other => return Err(format!("unexpected kind {other:?}")),
    };
    Ok(json!({"kind": kind, "spec": spec}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ld(number: u32, data: &[u8]) -> Vec<u8> {
        let mut out = vec![(number << 3 | 2) as u8, data.len() as u8];
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn reads_a_self_subject_access_review() {
        // What kubectl 1.32 sends for `auth can-i list pods -n a` (built by hand from the
        // generated.proto field numbers; the metadata message is empty, status.allowed=false).
        let attrs = [ld(1, b"a"), ld(2, b"list"), ld(5, b"pods")].concat();
        let spec = ld(1, &attrs);
        let raw = [ld(1, b""), ld(2, &spec), ld(3, &[0x08, 0x00])].concat();
        let type_meta = [
            ld(1, b"authorization.k8s.io/v1"),
            ld(2, b"SelfSubjectAccessReview"),
        ]
        .concat();
        let body = [
            MAGIC,
            &ld(1, &type_meta),
            &ld(2, &raw),
            &ld(3, b""),
            &ld(4, b""),
        ]
        .concat();
        assert_eq!(
            review_as_json(&body).unwrap(),
            json!({"kind": "SelfSubjectAccessReview", "spec": {"resourceAttributes": {"namespace": "a", "verb": "list", "resource": "pods"}}})
        );
        assert!(review_as_json(b"{}").is_err());
        assert!(
            review_as_json(&body[..body.len() - 9]).is_err(),
            "truncated"
        );
    }
}
