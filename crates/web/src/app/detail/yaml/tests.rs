use super::*;
use serde_json::json;

fn yaml(v: &Value) -> String {
    plain(&to_yaml(
        v,
        Mask {
            secret: false,
            revealed: &HashSet::new(),
        },
    ))
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn maps_and_lists_print_as_kubectl_does() {
    let v = json!({
        "metadata": {"name": "web-1", "labels": {"app": "web"}, "finalizers": []},
        "apiVersion": "v1",
        "spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}], "args": ["-v", "2"]}],
                 "nodeSelector": {}},
        "status": {"ready": true, "count": 3, "ratio": 0.5, "nothing": null},
    });
    assert_eq!(
        yaml(&v),
        "apiVersion: v1\n\
         metadata:\n  finalizers: []\n  labels:\n    app: web\n  name: web-1\n\
         spec:\n  containers:\n  - args:\n    - '-v'\n    - '2'\n    name: c\n    ports:\n    - containerPort: 80\n  nodeSelector: {}\n\
         status:\n  count: 3\n  nothing: null\n  ratio: 0.5\n  ready: true\n"
    );
    assert_eq!(yaml(&json!({})), "{}\n");
    assert_eq!(yaml(&json!([[1, 2], []])), "- - 1\n  - 2\n- []\n");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn strings_are_quoted_when_yaml_would_read_them_otherwise() {
    for (s, want) in [
        ("web", "web"),
        ("hello world", "hello world"),
        ("", "''"),
        ("true", "'true'"),
        ("No", "'No'"),
        ("on", "'on'"),
        ("null", "'null'"),
        ("~", "'~'"),
        ("123", "'123'"),
        ("1.5e3", "'1.5e3'"),
        ("0x1F", "'0x1F'"),
        ("-1", "'-1'"),
        ("12:30", "'12:30'"),
        ("1.2.3.4", "1.2.3.4"),
        ("10.244.0.5", "10.244.0.5"),
        ("0b101", "'0b101'"),
        ("0o17", "'0o17'"),
        ("1_000", "'1_000'"),
        (".5", "'.5'"),
        ("1e", "1e"),
        ("e3", "e3"),
        ("3.14", "'3.14'"),
        ("1/1", "1/1"),
        ("v1.2", "v1.2"),
        ("a: b", "'a: b'"),
        ("a #b", "'a #b'"),
        ("a#b", "a#b"),
        ("key:", "'key:'"),
        (" lead", "' lead'"),
        ("trail ", "'trail '"),
        ("- item", "'- item'"),
        ("*ref", "'*ref'"),
        ("{x}", "'{x}'"),
        ("it's", "it's"),
        ("'q'", "'''q'''"),
        ("\"q\"", "'\"q\"'"),
        ("tab\there", "\"tab\\there\""),
        ("bell\u{7}", "\"bell\\u0007\""),
        ("<b>html</b>", "<b>html</b>"),
        ("ünïcode", "ünïcode"),
        ("2024-01-01T00:00:00Z", "'2024-01-01T00:00:00Z'"),
        ("2024-01-01", "'2024-01-01'"),
        ("2024-web", "2024-web"),
    ] {
        assert_eq!(quote_scalar(s), want, "{s:?}");
    }
    assert_eq!(yaml(&json!({"true": "yes"})), "'true': 'yes'\n");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn multi_line_strings_are_literal_blocks() {
    assert_eq!(
        yaml(&json!({"a": "line 1\nline 2\n"})),
        "a: |\n  line 1\n  line 2\n"
    );
    assert_eq!(yaml(&json!({"a": "x\ny"})), "a: |-\n  x\n  y\n");
    assert_eq!(yaml(&json!({"a": "x\n\n"})), "a: |+\n  x\n\n");
    // An empty line inside stays empty (no trailing spaces).
    assert_eq!(yaml(&json!({"a": "x\n\ny\n"})), "a: |\n  x\n\n  y\n");
    // A leading space needs an indentation indicator.
    assert_eq!(yaml(&json!({"a": "  x\ny\n"})), "a: |2\n    x\n  y\n");
    // Nested in a list item, the block is indented under the item.
    assert_eq!(
        yaml(&json!({"l": [{"s": "a\nb\n"}]})),
        "l:\n- s: |\n    a\n    b\n"
    );
    assert_eq!(yaml(&json!(["a\nb"])), "- |-\n  a\n  b\n");
    // What a block cannot keep exactly is double-quoted.
    assert_eq!(yaml(&json!({"a": "x \ny"})), "a: \"x \\ny\"\n");
    assert_eq!(yaml(&json!({"a": "x\r\ny"})), "a: \"x\\r\\ny\"\n");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn secret_values_are_masked_until_revealed() {
    let v = json!({"kind": "Secret", "data": {"password": "aHVudGVyMg==", "user": "YWRtaW4="},
                   "stringData": {"token": "t"}, "metadata": {"name": "s", "annotations": {"data": "x"}}});
    let mut revealed = HashSet::new();
    let segs = to_yaml(
        &v,
        Mask {
            secret: true,
            revealed: &revealed,
        },
    );
    let text = plain(&segs);
    assert!(!text.contains("aHVudGVyMg=="), "{text}");
    assert!(!text.contains("YWRtaW4="), "{text}");
    assert!(text.contains("  password: ••••••\n"), "{text}");
    assert!(text.contains("stringData:\n  token: ••••••\n"), "{text}");
    // Only `data` and `stringData` at the top are Secret values.
    assert!(text.contains("annotations:\n    data: x\n"), "{text}");
    let ids: Vec<&str> = segs
        .iter()
        .filter_map(|s| match s {
            Segment::Masked { id } => Some(id.as_str()),
            Segment::Text(_) => None,
        })
        .collect();
    assert_eq!(ids, ["data.password", "data.user", "stringData.token"]);
    for s in &segs {
        if let Segment::Text(t) = s {
            assert!(!t.contains("aHVudGVyMg==") && !t.contains("YWRtaW4="));
        }
    }
    revealed.insert("data.user".to_string());
    let text = plain(&to_yaml(
        &v,
        Mask {
            secret: true,
            revealed: &revealed,
        },
    ));
    assert!(text.contains("  user: YWRtaW4=\n"), "{text}");
    assert!(!text.contains("aHVudGVyMg=="), "{text}");
    // Not a Secret: nothing masked.
    let text = plain(&to_yaml(
        &v,
        Mask {
            secret: false,
            revealed: &HashSet::new(),
        },
    ));
    assert!(text.contains("aHVudGVyMg=="));
    // JSON masks the same values.
    let json = to_json(
        &v,
        Mask {
            secret: true,
            revealed: &HashSet::new(),
        },
    );
    let text = plain(&json);
    assert!(text.contains("\"password\": ••••••,"), "{text}");
    assert!(!text.contains("aHVudGVyMg=="), "{text}");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn json_is_indented_with_sorted_keys() {
    let v = json!({"b": [1, {"c": "x\"y"}], "a": {}, "e": []});
    let text = plain(&to_json(
        &v,
        Mask {
            secret: false,
            revealed: &HashSet::new(),
        },
    ));
    assert_eq!(
        text,
        "{\n  \"a\": {},\n  \"b\": [\n    1,\n    {\n      \"c\": \"x\\\"y\"\n    }\n  ],\n  \"e\": []\n}\n"
    );
    let back: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(back, v);
}
