//! JSON text exactly as Go's `encoding/json` writes it (what kube-apiserver sends), plus a
//! small scanner that finds a top-level field's raw value without parsing the document.
//!
//! Go differs from serde_json in three visible ways: `<`, `>` and `&` are escaped as
//! `\u003c`, `\u003e`, `\u0026` (HTML-safe escaping is on by default), U+2028 and U+2029 are
//! escaped, and floats switch to exponent form below 1e-6 and from 1e21 (`1e+21`).

use std::fmt::Write as _;

use serde_json::Value;

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `s` as a JSON string literal the way Go's `encoding/json` does (Go 1.22+:
/// `\b` and `\f` short escapes, HTML escaping, U+2028/U+2029 escaped).
pub fn write_str(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let escape: Option<&str> = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            '\u{2028}' => Some("\\u2028"),
            '\u{2029}' => Some("\\u2029"),
            _ => None,
        };
        let needs_hex = matches!(c, '\0'..='\u{1f}' | '<' | '>' | '&');
        if escape.is_none() && !needs_hex {
            continue;
        }
        out.push_str(&s[start..i]);
        match escape {
            Some(e) => out.push_str(e),
            None => {
                let b = c as u8;
                out.push_str("\\u00");
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 0xf) as usize] as char);
            }
        }
        start = i + c.len_utf8();
    }
    out.push_str(std::str::from_utf8(&bytes[start..]).unwrap_or_default());
    out.push('"');
}

/// `s` as a Go JSON string literal.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_str(&mut out, s);
    out
}

/// Appends a float64 the way Go's `encoding/json` does: shortest round-trip digits, plain
/// decimal in [1e-6, 1e21), exponent form (`1e+21`, `1.5e-7`) outside it.
pub fn write_f64(out: &mut String, f: f64) {
    if !f.is_finite() {
        // Go refuses to encode these; never produced from parsed JSON.
        out.push_str("null");
        return;
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let e = format!("{f:e}");
        let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
        let (sign, digits) = match exp.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exp),
        };
        out.push_str(mantissa);
        out.push('e');
        out.push(sign);
        // Go prints at least two exponent digits, then trims "e-0X" to "e-X".
        if digits.len() < 2 && sign == '+' {
            out.push('0');
        }
        out.push_str(digits);
    } else {
        let _ = write!(out, "{f}");
    }
}

/// A float as Go's `fmt.Sprint` prints it (`%v`: shortest digits, `%e` form when the
/// exponent is below -4 or at least 21... for shortest output Go uses 6, so `1e+08`).
pub fn fmt_v_float(f: f64) -> String {
    if !f.is_finite() {
        return if f.is_nan() {
            "NaN".into()
        } else if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if f == 0.0 {
        return "0".into();
    }
    let e = format!("{f:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    } else {
        format!("{f}")
    }
}

/// Appends a decoded JSON value as Go encodes a `map[string]interface{}` tree: object keys
/// in sorted order (a `serde_json::Map` without `preserve_order` iterates sorted), Go string
/// escaping, Go number formatting.
pub fn write_value(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                let _ = write!(out, "{i}");
            } else if let Some(u) = n.as_u64() {
                let _ = write!(out, "{u}");
            } else {
                write_f64(out, n.as_f64().unwrap_or(0.0));
            }
        }
        Value::String(s) => write_str(out, s),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, x);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(out, k);
                out.push(':');
                write_value(out, x);
            }
            out.push('}');
        }
    }
}

/// Why a document could not be scanned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanError(pub &'static str);

impl std::fmt::Display for ScanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for ScanError {}

/// The raw text of the value of top-level field `key` in the JSON object `json`, if present.
/// Scans without building a tree (the value is skipped by bracket and string tracking), and
/// stops at the field.
pub fn top_level_field<'a>(json: &'a str, key: &str) -> Result<Option<&'a str>, ScanError> {
    // Field names with escapes never match the plain keys we look for.
    for field in Fields::new(json)? {
        let (name, value) = field?;
        if name == key {
            return Ok(Some(&json[value]));
        }
    }
    Ok(None)
}

/// The fields of the JSON object `json`, in order: (raw key without quotes, the value's
/// byte range in `json`). Scans without building a tree.
pub fn object_fields(json: &str) -> Result<Vec<(&str, std::ops::Range<usize>)>, ScanError> {
    Fields::new(json)?.collect()
}

/// The fields of a JSON object, one at a time: (raw key, the value's byte range).
struct Fields<'a> {
    json: &'a str,
    /// Where the next field's name starts; `None` once the object ended (or failed).
    at: Option<usize>,
}

impl<'a> Fields<'a> {
    fn new(json: &'a str) -> Result<Self, ScanError> {
        let b = json.as_bytes();
        let i = skip_ws(b, 0);
        if b.get(i) != Some(&b'{') {
            return Err(ScanError("the object is not a JSON object"));
        }
        let i = skip_ws(b, i + 1);
        let at = (b.get(i) != Some(&b'}')).then_some(i);
        Ok(Fields { json, at })
    }

    fn field(&mut self, i: usize) -> Result<(&'a str, std::ops::Range<usize>), ScanError> {
        let b = self.json.as_bytes();
        if b.get(i) != Some(&b'"') {
            return Err(ScanError("expected a field name"));
        }
        let name_end = skip_string(b, i)?;
        let name = &self.json[i + 1..name_end - 1];
        let colon = skip_ws(b, name_end);
        if b.get(colon) != Some(&b':') {
            return Err(ScanError("expected ':'"));
        }
        let v_start = skip_ws(b, colon + 1);
        let v_end = skip_value(b, v_start)?;
        let next = skip_ws(b, v_end);
        self.at = match b.get(next) {
            Some(b',') => Some(skip_ws(b, next + 1)),
            Some(b'}') => None,
            _ => return Err(ScanError("expected ',' or '}'")),
        };
        Ok((name, v_start..v_end))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(&'a str, std::ops::Range<usize>), ScanError>;

    fn next(&mut self) -> Option<Self::Item> {
        let i = self.at.take()?;
        Some(self.field(i))
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\n' | b'\r' | b'\t')) {
        i += 1;
    }
    i
}

/// `b[i]` is `"`; returns the index after the closing quote.
fn skip_string(b: &[u8], i: usize) -> Result<usize, ScanError> {
    let mut j = i + 1;
    loop {
        // Only a quote or a backslash matter inside a string.
        match b[j.min(b.len())..]
            .iter()
            .position(|&c| c == b'"' || c == b'\\')
        {
            Some(k) if b[j + k] == b'"' => return Ok(j + k + 1),
            Some(k) => j += k + 2,
            None => return Err(ScanError("unterminated string")),
        }
    }
}

/// Returns the index after the value starting at `i`.
fn skip_value(b: &[u8], i: usize) -> Result<usize, ScanError> {
    match b.get(i) {
        Some(b'"') => skip_string(b, i),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Ok(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            Err(ScanError("unterminated object or array"))
        }
        Some(_) => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
            {
                j += 1;
            }
            if j == i {
                Err(ScanError("expected a value"))
            } else {
                Ok(j)
            }
        }
        None => Err(ScanError("unexpected end of document")),
    }
}

/// The string value of top-level field `key` of `json`, unescaped (`None` when absent or not
/// a string).
pub fn top_level_str(json: &str, key: &str) -> Result<Option<String>, ScanError> {
    match top_level_field(json, key)? {
        Some(raw) if raw.starts_with('"') => Ok(serde_json::from_str::<String>(raw).ok()),
        _ => Ok(None),
    }
}

/// Appends `meta` (a decoded `metadata` object) as Go serializes a typed `metav1.ObjectMeta`:
/// fields in struct order, `creationTimestamp` always present (`null` when unset), maps with
/// sorted keys. This is what `PartialObjectMetadata` carries for objects that are not stored as
/// typed Go structs (custom resources), and for bookmarks.
pub fn write_object_meta(out: &mut String, meta: &Value) {
    const ORDER: [&str; 15] = [
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
    out.push('{');
    let mut first = true;
    for key in ORDER {
        let v = meta.get(key);
        let present = match v {
            None | Some(Value::Null) => key == "creationTimestamp",
            Some(Value::String(s)) => !s.is_empty(),
            // generation is an omitempty int64; deletionGracePeriodSeconds a pointer.
            Some(Value::Number(n)) => key != "generation" || n.as_f64() != Some(0.0),
            Some(Value::Array(a)) => !a.is_empty(),
            Some(Value::Object(m)) => !m.is_empty(),
            Some(Value::Bool(_)) => true,
        };
        if !present {
            continue;
        }
        write_key(out, &mut first, key);
        match (key, v) {
            ("creationTimestamp", None | Some(Value::Null)) => out.push_str("null"),
            ("ownerReferences", Some(Value::Array(refs))) => write_list(out, refs, &OWNER_REF),
            ("managedFields", Some(Value::Array(entries))) => {
                write_list(out, entries, &MANAGED_FIELDS)
            }
            (_, Some(v)) => write_value(out, v),
            (_, None) => out.push_str("null"),
        }
    }
    out.push('}');
}

/// Field order of `metav1.OwnerReference`.
const OWNER_REF: [&str; 6] = [
    "apiVersion",
    "kind",
    "name",
    "uid",
    "controller",
    "blockOwnerDeletion",
];
/// Field order of `metav1.ManagedFieldsEntry`.
const MANAGED_FIELDS: [&str; 7] = [
    "manager",
    "operation",
    "apiVersion",
    "time",
    "fieldsType",
    "fieldsV1",
    "subresource",
];

/// `,"key":` (no comma before the first field).
fn write_key(out: &mut String, first: &mut bool, key: &str) {
    if !*first {
        out.push(',');
    }
    *first = false;
    write_str(out, key);
    out.push(':');
}

fn write_list(out: &mut String, items: &[Value], order: &[&str]) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('{');
        let mut first = true;
        for key in order {
            let Some(v) = item.get(*key).filter(|v| !v.is_null()) else {
                continue;
            };
            write_key(out, &mut first, key);
            write_value(out, v);
        }
        out.push('}');
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_escape_like_go() {
        // encoding/json: HTMLEscape on by default, \b \f short escapes since Go 1.22.
        assert_eq!(quote("<none>"), r#""\u003cnone\u003e""#);
        assert_eq!(quote("a&b"), r#""a\u0026b""#);
        assert_eq!(quote("q\"\\\n\t\r\u{8}\u{c}"), r#""q\"\\\n\t\r\b\f""#);
        assert_eq!(quote("\u{1}\u{1f}"), r#""\u0001\u001f""#);
        assert_eq!(quote("\u{2028}x\u{2029}é"), "\"\\u2028x\\u2029é\"");
        assert_eq!(quote("\u{7f}"), "\"\u{7f}\"");
    }

    #[test]
    fn floats_format_like_go() {
        let f = |x: f64| {
            let mut s = String::new();
            write_f64(&mut s, x);
            s
        };
        assert_eq!(f(3.0), "3");
        assert_eq!(f(1.5), "1.5");
        assert_eq!(f(-0.25), "-0.25");
        assert_eq!(f(1e21), "1e+21");
        assert_eq!(f(1.5e-7), "1.5e-7");
        assert_eq!(f(1e-10), "1e-10");
        assert_eq!(f(123456789.0), "123456789");
        assert_eq!(f(1e20), "100000000000000000000");
        assert_eq!(f(0.0), "0");
        assert_eq!(fmt_v_float(1e8), "1e+08");
        assert_eq!(fmt_v_float(123456.0), "123456");
        assert_eq!(fmt_v_float(1.5), "1.5");
        assert_eq!(fmt_v_float(0.00001), "1e-05");
    }

    #[test]
    fn finds_top_level_fields_without_parsing() {
        let doc = r#"{"kind":"Pod", "metadata" : {"name":"a","x":"}\"]"} ,"spec":[1,{"metadata":2}],"n":-1.5e3}"#;
        assert_eq!(
            top_level_field(doc, "metadata").unwrap(),
            Some(r#"{"name":"a","x":"}\"]"}"#)
        );
        assert_eq!(top_level_field(doc, "n").unwrap(), Some("-1.5e3"));
        assert_eq!(top_level_field(doc, "status").unwrap(), None);
        assert_eq!(top_level_str(doc, "kind").unwrap().as_deref(), Some("Pod"));
        assert!(top_level_field("[1]", "a").is_err());
        assert!(top_level_field(r#"{"a":"#, "a").is_err());
        assert!(top_level_field(r#"{"a":{"b":1}"#, "b").is_err());
        assert_eq!(top_level_field("{}", "a").unwrap(), None);
    }

    #[test]
    fn object_meta_in_struct_order() {
        let meta: Value = serde_json::from_str(
            r#"{"uid":"u","name":"w","labels":{"b":"2","a":"1"},"resourceVersion":"7","namespace":"ns",
                "generation":0,"deletionGracePeriodSeconds":0,"managedFields":[{"time":"t","manager":"m","fieldsV1":{"f:spec":{}},"operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1"}]}"#,
        )
        .unwrap();
        let mut out = String::new();
        write_object_meta(&mut out, &meta);
        assert_eq!(
            out,
            r#"{"name":"w","namespace":"ns","uid":"u","resourceVersion":"7","creationTimestamp":null,"deletionGracePeriodSeconds":0,"labels":{"a":"1","b":"2"},"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","time":"t","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}]}"#
        );
    }
}
