use super::*;
use crate::decode::{WatchDecoder, WatchFrame};
use crate::Limits;

fn objects_of(stream: &str, opts: ParseOptions) -> Vec<Object> {
    let mut dec = WatchDecoder::new(Limits::default(), opts);
    let mut frames = Vec::new();
    dec.feed(stream.as_bytes(), &mut frames).unwrap();
    dec.finish(&mut frames).unwrap();
    frames
        .into_iter()
        .map(|f| match f {
            WatchFrame::Added(o) => o,
            f => panic!("{f:?}"),
        })
        .collect()
}

/// `KeptMetadata::Identity` keeps exactly the identity members, wherever the
/// dropped ones stand (first, last, in runs, all of them) and in either strip mode.
#[test]
fn identity_metadata_keeps_only_identity_members_in_any_order() {
    let members = [
        r#""name":"web-1""#,
        r#""namespace":"ns""#,
        r#""uid":"u-1""#,
        r#""resourceVersion":"42""#,
        r#""creationTimestamp":"2026-01-01T00:00:00Z""#,
        r#""deletionTimestamp":"2026-01-02T00:00:00Z""#,
        r#""labels":{"app":"web","tier":"a,b"}"#,
        r#""annotations":{"k8s.io/x":"{\"y\":[1,2]}"}"#,
        r#""ownerReferences":[{"kind":"ReplicaSet","name":"rs"}]"#,
        r#""generateName":"web-""#,
        r#""managedFields":[{"manager":"m","fieldsV1":{"f:a":{}}}]"#,
        r#""finalizers":["x"]"#,
    ];
    let mut seed = 7u64;
    for round in 0..300 {
        let mut order: Vec<usize> = (0..members.len()).collect();
        for i in (1..order.len()).rev() {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            order.swap(i, (seed >> 33) as usize % (i + 1));
        }
        // Some rounds have only some members, down to the two required ones.
        let keep = if round % 3 == 0 {
            order.len()
        } else {
            1 + round % order.len()
        };
        // name and resourceVersion are required of every object.
        let mut kept: Vec<usize> = order[..keep].to_vec();
        for must in [0, 3] {
            if !kept.contains(&must) {
                kept.insert(round % (kept.len() + 1), must);
            }
        }
        let meta: Vec<&str> = kept.iter().map(|&i| members[i]).collect();
        let doc = format!(
            r#"{{"kind":"Pod","metadata":{{{}}},"spec":{{"nodeName":"n1"}}}}"#,
            meta.join(",")
        );
        for strip in [false, true] {
            let opts = ParseOptions {
                metadata: KeptMetadata::Identity,
                strip_managed_fields: strip,
                columns: ColumnKind::Pod,
            };
            let stream = format!("{{\"type\":\"ADDED\",\"object\":{doc}}}\n");
            let o = objects_of(&stream, opts).remove(0);
            let mut want: serde_json::Value = serde_json::from_str(&doc).unwrap();
            want["metadata"].as_object_mut().unwrap().retain(|k, _| {
                matches!(
                    k.as_str(),
                    "name"
                        | "namespace"
                        | "uid"
                        | "resourceVersion"
                        | "creationTimestamp"
                        | "deletionTimestamp"
                )
            });
            let got: serde_json::Value = serde_json::from_slice(&o.json()).unwrap();
            assert_eq!(got, want, "{doc}");
            assert_eq!(o.name(), want["metadata"]["name"].as_str().unwrap_or(""));
            assert_eq!(o.uid(), want["metadata"]["uid"].as_str().unwrap_or(""));
            assert!(o.labels().is_empty() && o.annotations().is_empty());
            let cells = |o: &Object| {
                o.fallback_cells()
                    .map(|c| c.map(|c| c.to_string()).collect::<Vec<_>>())
            };
            assert_eq!(
                cells(&o),
                cells(
                    &Object::parse(
                        doc.as_bytes(),
                        &ParseOptions {
                            metadata: KeptMetadata::All,
                            ..opts
                        }
                    )
                    .unwrap()
                )
            );
        }
    }
}

/// A `PartialObjectMetadata` row kept with identity metadata stores the members'
/// values and the cells only: what it gives back is the same, as JSON values, as
/// what a row kept whole gives, for every subset and order of the members, escaped
/// values, `null` members, both wrapper versions, and a first cell that is the name
/// or is not.
#[test]
fn identity_rows_give_back_what_whole_rows_give() {
    let members = [
        r#""name":"web-1""#,
        r#""namespace":"n\u0073-\"q\"""#,
        r#""uid":"0b1c""#,
        r#""resourceVersion":"42""#,
        r#""creationTimestamp":"2025-01-01T00:00:00Z""#,
        r#""deletionTimestamp":null"#,
        r#""deletionTimestamp":"2025-01-02T00:00:00Z""#,
        r#""labels":{"a":"b"}"#,
        r#""generateName":"web-""#,
    ];
    let cells = [
        r#"["web-1","1/1","\u003cnone\u003e",3,null]"#,
        r#"["web-2","x"]"#,
        r#"[7,"web-1"]"#,
        r#"["web-1"]"#,
        r#"[]"#,
    ];
    let whole = ParseOptions {
        metadata: KeptMetadata::All,
        strip_managed_fields: true,
        columns: ColumnKind::Generic,
    };
    let identity = ParseOptions {
        metadata: KeptMetadata::Identity,
        ..whole
    };
    for round in 0..200usize {
        let mut kept: Vec<&str> = (0..members.len())
            .filter(|i| (round * 7 + i * 3) % 5 != 0 || *i == 0 || *i == 3)
            .map(|i| members[i])
            .collect();
        let n = kept.len();
        kept.rotate_left(round % n);
        if kept
            .iter()
            .filter(|m| m.contains("deletionTimestamp"))
            .count()
            > 1
        {
            kept.retain(|m| !m.contains(r#""deletionTimestamp":null"#));
        }
        let version = if round % 2 == 0 { "v1" } else { "v1beta1" };
        let row = format!(
            r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{}},"columnDefinitions":null,"rows":[{{"cells":{},"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/{version}","metadata":{{{}}}}}}}]}}"#,
            cells[round % cells.len()],
            kept.join(",")
        );
        let stream = format!("{{\"type\":\"ADDED\",\"object\":{row}}}\n");
        let a = objects_of(&stream, whole).remove(0);
        let b = objects_of(&stream, identity).remove(0);
        let mut want: serde_json::Value = serde_json::from_slice(&a.json()).unwrap();
        want["metadata"]
            .as_object_mut()
            .unwrap()
            .retain(|k, v| IDENTITY_KEYS.contains(&k.as_str()) && !v.is_null());
        let got: serde_json::Value = serde_json::from_slice(&b.json()).unwrap();
        assert_eq!(got, want, "{row}");
        assert_eq!(b.json().len(), b.json_len(), "{row}");
        let mut written = Vec::new();
        b.write_json(&mut written);
        assert_eq!(written, b.json().as_ref());
        for (x, y) in [
            (a.name(), b.name()),
            (a.namespace(), b.namespace()),
            (a.uid(), b.uid()),
            (a.resource_version(), b.resource_version()),
        ] {
            assert_eq!(x, y, "{row}");
        }
        assert_eq!(a.creation_timestamp(), b.creation_timestamp());
        assert_eq!(a.deletion_timestamp(), b.deletion_timestamp());
        if kept.iter().any(|m| m.starts_with(r#""namespace""#)) {
            assert_eq!(b.namespace(), "ns-\"q\"");
        }
        let cells_of = |o: &Object| -> serde_json::Value {
            serde_json::from_str(&o.cells_json().unwrap()).unwrap()
        };
        let sent: serde_json::Value = serde_json::from_str(cells[round % cells.len()]).unwrap();
        assert_eq!(cells_of(&a), sent);
        assert_eq!(cells_of(&b), sent);
        assert!(a.cells().unwrap().eq(b.cells().unwrap()));
        assert!(b.heap_bytes() < a.heap_bytes(), "{row}");
    }
}

/// Gaps of every length around the sixteen-byte copy step between dictionary
/// keys (one- and two-byte tokens), between a key and the end, and objects of
/// very different sizes one after the other through the same reused buffer.
#[test]
fn stored_copy_round_trips_at_every_gap() {
    for strip in [false, true] {
        let opts = ParseOptions {
            metadata: crate::object::KeptMetadata::All,
            strip_managed_fields: strip,
            columns: ColumnKind::Pod,
        };
        let mut docs = Vec::new();
        for pad in 0..40 {
            let p = "p".repeat(pad);
            docs.push(format!(
                r#"{{"kind":"{p}","apiVersion":"v1","metadata":{{"name":"n{p}","resourceVersion":"1","managedFields":[{{"manager":"{p}"}}],"uid":"u"}},"x{p}":1,"spec":{{"nodeName":"{p}","allowPrivilegeEscalation":{pad}}},"z":"{p}"}}"#
            ));
        }
        // A large object (past the buffer kept between documents), then small ones.
        let big = "q".repeat(300 << 10);
        docs.insert(
            3,
            format!(
                r#"{{"metadata":{{"name":"big","resourceVersion":"2"}},"data":{{"k":"{big}"}}}}"#
            ),
        );
        let stream: String = docs
            .iter()
            .map(|d| format!("{{\"type\":\"ADDED\",\"object\":{d}}}\n"))
            .collect();
        let objs = objects_of(&stream, opts);
        assert_eq!(objs.len(), docs.len());
        for (o, d) in objs.iter().zip(&docs) {
            let want = if strip {
                let v: serde_json::Value = serde_json::from_str(d).unwrap();
                let mut v = v;
                if let Some(m) = v["metadata"].as_object_mut() {
                    m.remove("managedFields");
                }
                serde_json::to_string(&v).unwrap()
            } else {
                d.clone()
            };
            let got: serde_json::Value = serde_json::from_slice(&o.json()).unwrap();
            let want_v: serde_json::Value = serde_json::from_str(&want).unwrap();
            assert_eq!(got, want_v, "{d}");
            if !strip {
                assert_eq!(o.json().as_ref(), d.as_bytes());
            }
            assert_eq!(o.json_len(), o.json().len());
            assert!(o.name().starts_with('n') || o.name() == "big");
            assert!(o.heap_bytes() < d.len() + 200);
        }
    }
}
