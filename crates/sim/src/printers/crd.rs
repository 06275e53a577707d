//! A CRD's `additionalPrinterColumns`
//! (`apiextensions-apiserver/pkg/registry/customresource/tableconvertor/tableconvertor.go`),
//! with the subset of `k8s.io/client-go/util/jsonpath` that printer columns use in practice:
//! `.a.b`, `['a.b']`, `[0]`, `[-1]`, `[*]`, and filters `[?(@.type=="Ready")]` (`==`, `!=`,
//! or a bare `@.path` for existence).

use serde_json::Value;

use super::builtin::{name_column, CREATION_TIMESTAMP};
use super::gojson::{fmt_v_float, write_value};
use super::{parse_rfc3339_ms, Cell, Column, Row};

/// Why a CRD's columns could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CrdColumnError {
    /// The CRD has no version of that name.
    NoSuchVersion(String),
    /// A column's JSONPath is outside the supported subset or malformed; the message is the
    /// apiserver's (`unrecognized column definition "<path>"`).
    Unrecognized(String),
}

impl std::fmt::Display for CrdColumnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CrdColumnError::NoSuchVersion(v) => {
                write!(f, "version {v} not found in CustomResourceDefinition")
            }
            CrdColumnError::Unrecognized(p) => write!(f, "unrecognized column definition {p:?}"),
        }
    }
}

impl std::error::Error for CrdColumnError {}

/// The columns (Name first) and their paths for `version` of the CRD.
pub(super) fn columns_for_version(
    crd: &Value,
    version: &str,
) -> Result<(Vec<Column>, Vec<JsonPath>), CrdColumnError> {
    let versions = crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let v = versions
        .iter()
        .find(|v| v.get("name").and_then(Value::as_str) == Some(version))
        .ok_or_else(|| CrdColumnError::NoSuchVersion(version.to_string()))?;
    let declared = v
        .get("additionalPrinterColumns")
        .and_then(Value::as_array)
        .filter(|a| !a.is_empty());
    let defaulted;
    let declared = match declared {
        Some(d) => d,
        None => {
            // serveDefaultColumnsIfEmpty
            defaulted = vec![serde_json::json!({
                "name": "Age", "type": "date", "description": CREATION_TIMESTAMP,
                "jsonPath": ".metadata.creationTimestamp"
            })];
            &defaulted
        }
    };
    let mut columns = vec![name_column()];
    let mut paths = Vec::with_capacity(declared.len());
    for c in declared {
        let s = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let json_path = s("jsonPath");
        let path = JsonPath::parse(&json_path)
            .ok_or_else(|| CrdColumnError::Unrecognized(json_path.clone()))?;
        let description = match s("description") {
            d if d.is_empty() => {
                format!("Custom resource definition column (in JSONPath format): {json_path}")
            }
            d => d,
        };
        columns.push(Column {
            name: s("name"),
            type_: s("type"),
            format: s("format"),
            description,
            priority: c.get("priority").and_then(Value::as_i64).unwrap_or(0) as i32,
        });
        paths.push(path);
    }
    Ok((columns, paths))
}

/// One row: the name, then each column's first JSONPath result as a cell of its type.
pub(super) fn row(columns: &[Column], paths: &[JsonPath], obj: &Value) -> Row {
    let mut cells = Vec::with_capacity(columns.len());
    cells.push(Cell::str(
        obj.pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or(""),
    ));
    for (col, path) in columns[1..].iter().zip(paths) {
        let cell = match path.first(obj) {
            None => Cell::Null,
            Some(v) => cell_for(&col.type_, v),
        };
        cells.push(cell);
    }
    Row {
        cells,
        completed: None,
    }
}

/// `cellForJSONValue`, plus the `string` case that prints through jsonpath.
fn cell_for(type_: &str, v: &Value) -> Cell {
    match (type_, v) {
        (_, Value::Null) => Cell::Null,
        // PrintResults: strings raw, scalars via fmt.Fprint, maps and lists as JSON.
        ("string", Value::String(s)) => Cell::str(s.as_str()),
        ("string", Value::Bool(b)) => Cell::str(b.to_string()),
        ("string", Value::Number(n)) => Cell::str(match n.as_i64() {
            Some(i) => i.to_string(),
            None => fmt_v_float(n.as_f64().unwrap_or(0.0)),
        }),
        ("string", other) => {
            let mut s = String::new();
            write_value(&mut s, other);
            Cell::str(s)
        }
        ("integer", Value::Number(n)) => Cell::Int(
            n.as_i64()
                .unwrap_or_else(|| n.as_f64().unwrap_or(0.0) as i64),
        ),
        ("number", Value::Number(n)) => Cell::Float(n.as_f64().unwrap_or(0.0)),
        ("boolean", Value::Bool(b)) => Cell::Bool(*b),
        ("date", Value::String(s)) => {
            // metav1.Time.UnmarshalQueryParameter: "" and "null" are the zero time.
            if s.is_empty() || s == "null" {
                Cell::str("<unknown>")
            } else {
                match parse_rfc3339_ms(s) {
                    Some(t) => Cell::Since { unix_ms: t },
                    None => Cell::str("<invalid>"),
                }
            }
        }
        _ => Cell::Null,
    }
}

/// A parsed printer-column JSONPath.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct JsonPath(Vec<Step>);

#[derive(Debug, Clone, PartialEq)]
enum Step {
    Field(String),
    Index(i64),
    All,
    Filter {
        path: Vec<String>,
        test: Option<(bool, Value)>,
    },
}

impl JsonPath {
    /// Parses `.spec.replicas`, `.status.conditions[?(@.type=="Ready")].status`, ... (an
    /// optional `{...}` wrapper and leading `$` are accepted).
    pub(super) fn parse(s: &str) -> Option<JsonPath> {
        let s = s.trim();
        let s = s
            .strip_prefix('{')
            .and_then(|x| x.strip_suffix('}'))
            .unwrap_or(s);
        let s = s.strip_prefix('$').unwrap_or(s);
        let b = s.as_bytes();
        let mut steps = Vec::new();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'.' => {
                    let start = i + 1;
                    let mut j = start;
                    while j < b.len() && b[j] != b'.' && b[j] != b'[' {
                        j += 1;
                    }
                    if j == start {
                        return None; // `..` (recursive descent) or a trailing dot
                    }
                    steps.push(field(&s[start..j])?);
                    i = j;
                }
                b'[' => {
                    let end = find_bracket_end(b, i)?;
                    steps.push(parse_bracket(&s[i + 1..end])?);
                    i = end + 1;
                }
                _ if i == 0 => {
                    // A bare first field name (`spec.replicas`).
                    let mut j = 0;
                    while j < b.len() && b[j] != b'.' && b[j] != b'[' {
                        j += 1;
                    }
                    steps.push(field(&s[..j])?);
                    i = j;
                }
                _ => return None,
            }
        }
        Some(JsonPath(steps))
    }

    /// The first result (`results[0][0]`), `None` when the path finds nothing (missing keys
    /// are allowed, as the convertor sets `AllowMissingKeys(true)`).
    pub(super) fn first<'a>(&self, obj: &'a Value) -> Option<&'a Value> {
        let mut current = vec![obj];
        for step in &self.0 {
            let mut next = Vec::new();
            for v in current {
                match step {
                    Step::Field(k) => {
                        if let Some(x) = v.get(k.as_str()) {
                            next.push(x);
                        }
                    }
                    Step::Index(i) => {
                        if let Some(a) = v.as_array() {
                            let idx = if *i < 0 { a.len() as i64 + i } else { *i };
                            if let Some(x) = usize::try_from(idx).ok().and_then(|i| a.get(i)) {
                                next.push(x);
                            }
                        }
                    }
                    Step::All => match v {
                        Value::Array(a) => next.extend(a.iter()),
                        Value::Object(m) => next.extend(m.values()),
                        _ => {}
                    },
                    Step::Filter { path, test } => {
                        if let Some(a) = v.as_array() {
                            next.extend(a.iter().filter(|x| matches_filter(x, path, test)));
                        }
                    }
                }
            }
            current = next;
        }
        current.into_iter().next()
    }
}

/// A plain field name (no jsonpath syntax in it).
fn field(name: &str) -> Option<Step> {
    let bad = |c: char| c.is_whitespace() || "{}()'\"@?*$".contains(c);
    (!name.is_empty() && !name.contains(bad)).then(|| Step::Field(name.to_string()))
}

fn matches_filter(item: &Value, path: &[String], test: &Option<(bool, Value)>) -> bool {
    let found = path.iter().try_fold(item, |v, k| v.get(k.as_str()));
    match (found, test) {
        (None, _) => false,
        (Some(_), None) => true,
        (Some(v), Some((equal, lit))) => (v == lit) == *equal,
    }
}

fn find_bracket_end(b: &[u8], open: usize) -> Option<usize> {
    let mut quote: Option<u8> = None;
    let mut j = open + 1;
    while j < b.len() {
        match (quote, b[j]) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), b'\\') => j += 1,
            (Some(_), _) => {}
            (None, c @ (b'\'' | b'"')) => quote = Some(c),
            (None, b']') => return Some(j),
            (None, _) => {}
        }
        j += 1;
    }
    None
}

fn unquote(s: &str) -> Option<String> {
    let s = s.trim();
    let inner = s
        .strip_prefix('\'')
        .and_then(|x| x.strip_suffix('\''))
        .or_else(|| s.strip_prefix('"').and_then(|x| x.strip_suffix('"')))?;
    Some(inner.replace("\\'", "'").replace("\\\"", "\""))
}

fn parse_bracket(inner: &str) -> Option<Step> {
    let inner = inner.trim();
    if inner == "*" {
        return Some(Step::All);
    }
    if let Ok(i) = inner.parse::<i64>() {
        return Some(Step::Index(i));
    }
    if let Some(key) = unquote(inner) {
        return Some(Step::Field(key));
    }
    let expr = inner.strip_prefix("?(")?.strip_suffix(')')?.trim();
    let (lhs, test) = match expr.find("==").or_else(|| expr.find("!=")) {
        Some(at) => {
            let equal = &expr[at..at + 2] == "==";
            let lit = expr[at + 2..].trim();
            let lit = match unquote(lit) {
                Some(s) => Value::String(s),
                None => serde_json::from_str(lit).ok()?,
            };
            (expr[..at].trim(), Some((equal, lit)))
        }
        None => (expr, None),
    };
    let path = lhs.strip_prefix("@.")?;
    let path: Vec<String> = path.split('.').map(str::to_string).collect();
    if path.iter().any(String::is_empty) {
        return None;
    }
    Some(Step::Filter { path, test })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_paths_printer_columns_use() {
        let o = json!({"spec": {"size": 3, "a.b": "dotted", "list": [1, 2, 3]},
            "status": {"conditions": [{"type": "Synced", "status": "False"}, {"type": "Ready", "status": "True"}]}});
        let first = |p: &str| JsonPath::parse(p).unwrap().first(&o).cloned();
        assert_eq!(first(".spec.size"), Some(json!(3)));
        assert_eq!(first("{.spec.size}"), Some(json!(3)));
        assert_eq!(first("spec.size"), Some(json!(3)));
        assert_eq!(first(".spec['a.b']"), Some(json!("dotted")));
        assert_eq!(first(".spec.list[-1]"), Some(json!(3)));
        assert_eq!(first(".spec.list[*]"), Some(json!(1)));
        assert_eq!(first(".spec.list[7]"), None);
        assert_eq!(first(".spec.missing.deeper"), None);
        assert_eq!(
            first(r#".status.conditions[?(@.type=="Ready")].status"#),
            Some(json!("True"))
        );
        assert_eq!(
            first(".status.conditions[?(@.type != 'Ready')].type"),
            Some(json!("Synced"))
        );
        assert_eq!(first(".status.conditions[?(@.reason)].type"), None);
        for bad in ["..spec", ".spec.", ".spec[", ".spec[?(x)]", "}"] {
            assert!(JsonPath::parse(bad).is_none(), "{bad}");
        }
    }

    /// cellForJSONValue in tableconvertor.go.
    #[test]
    fn cells_follow_the_column_type() {
        assert_eq!(cell_for("integer", &json!(3.7)), Cell::Int(3));
        assert_eq!(cell_for("integer", &json!("3")), Cell::Null);
        assert_eq!(cell_for("number", &json!(2)), Cell::Float(2.0));
        assert_eq!(cell_for("boolean", &json!(true)), Cell::Bool(true));
        assert_eq!(cell_for("boolean", &json!("true")), Cell::Null);
        assert_eq!(cell_for("string", &json!(5)), Cell::str("5"));
        assert_eq!(cell_for("string", &json!(2.5)), Cell::str("2.5"));
        assert_eq!(
            cell_for("string", &json!({"b": "<x>", "a": 1})),
            Cell::str(r#"{"a":1,"b":"\u003cx\u003e"}"#)
        );
        assert_eq!(cell_for("date", &json!("nope")), Cell::str("<invalid>"));
        assert_eq!(cell_for("date", &json!("")), Cell::str("<unknown>"));
        assert_eq!(
            cell_for("date", &json!("1970-01-01T00:00:10Z")),
            Cell::Since { unix_ms: 10_000 }
        );
        assert_eq!(cell_for("date", &json!(5)), Cell::Null);
        assert_eq!(cell_for("string", &Value::Null), Cell::Null);
    }
}
