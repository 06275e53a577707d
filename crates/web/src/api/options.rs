//! The Watcher's options, checked the way a JS API should check them: every key
//! known, every value of the right type and range, each error naming the option
//! (`TypeError` for a wrong or missing type or an unknown key, `RangeError` for a value
//! of the right type that is not allowed). Pure, so its messages are unit-tested.

use kubelive_core::{Collection, Config, IncludeObject, KeptMetadata, Mode};

/// A JS value as far as option checking cares.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `undefined` or `null`: the option is not given.
    Absent,
    Bool(bool),
    Number(f64),
    String(String),
    /// Anything else, by the name a message uses: `object`, `array`, `function`...
    Other(&'static str),
}

impl Value {
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Absent => "undefined",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Other(name) => name,
        }
    }
}

/// Which JS error an option problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    Type,
    Range,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError {
    pub kind: ErrorKind,
    pub message: String,
}

fn type_error(message: String) -> OptionError {
    OptionError {
        kind: ErrorKind::Type,
        message,
    }
}

fn range_error(message: String) -> OptionError {
    OptionError {
        kind: ErrorKind::Range,
        message,
    }
}

/// What a Watcher delivers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Objects,
    /// Rows as the server prints them (its columns, kubectl's), each with its
    /// metadata, or its whole object (`includeObject: 'Object'`).
    Table(IncludeObject),
}

/// The options, checked.
#[derive(Clone, Debug)]
pub struct Settings {
    pub config: Config,
    pub base_url: String,
    /// Keep retrying (no faster than every 10 s) after a failure retrying cannot fix.
    pub retry_on_failure: bool,
    pub format: Format,
    /// Keep the view's rows in IndexedDB and start from them ([`crate::persist`]).
    pub persist: bool,
}

/// Every option, in the order messages list them.
pub const OPTIONS: [&str; 14] = [
    "path",
    "namespace",
    "labelSelector",
    "fieldSelector",
    "streamingList",
    "pageSize",
    "maxPageSize",
    "baseUrl",
    "retryOnFailure",
    "stripManagedFields",
    "format",
    "includeObject",
    "metadata",
    "persist",
];

/// Checks `entries` (an options object's own keys and values).
pub fn parse(entries: Vec<(String, Value)>) -> Result<Settings, OptionError> {
    let mut given: Vec<(&'static str, Value)> = Vec::new();
    for (key, value) in entries {
        let Some(known) = OPTIONS.iter().find(|k| **k == key) else {
            return Err(type_error(unknown(&key)));
        };
        if value != Value::Absent {
            given.push((known, value));
        }
    }
    let get = |name: &str| given.iter().find(|(k, _)| *k == name).map(|(_, v)| v);

    let path = match get("path") {
        Some(v) => string("path", v)?,
        None => {
            return Err(type_error(
                "missing option path: the collection to watch, such as '/api/v1/pods' or \
                 '/apis/apps/v1/deployments'"
                    .into(),
            ))
        }
    };
    let mut collection =
        Collection::parse(&path).map_err(|e| range_error(format!("option path: {e}")))?;
    if let Some(ns) = get("namespace")
        .map(|v| string("namespace", v))
        .transpose()?
    {
        if !ns.is_empty() {
            if !is_dns_label(&ns) {
                return Err(range_error(format!(
                    "option namespace must be a namespace name (lowercase letters, digits and \
                     '-', at most 63), got {ns:?}"
                )));
            }
            if let Some(in_path) = collection.namespace().filter(|p| *p != ns) {
                return Err(range_error(format!(
                    "option namespace {ns:?} contradicts the namespace {in_path:?} in option path"
                )));
            }
            collection = collection.with_namespace(Some(&ns));
        }
    }
    let mut config = Config::new(collection);
    config.label_selector = get("labelSelector")
        .map(|v| string("labelSelector", v))
        .transpose()?
        .filter(|s| !s.is_empty());
    config.field_selector = get("fieldSelector")
        .map(|v| string("fieldSelector", v))
        .transpose()?
        .filter(|s| !s.is_empty());
    if flag(&get, "streamingList")? {
        config.mode = Mode::StreamingList;
    }
    if let Some(v) = get("pageSize") {
        config.page_size = page_size("pageSize", v)?;
    }
    if let Some(v) = get("maxPageSize") {
        config.max_page_size = page_size("maxPageSize", v)?;
    }
    let base_url = match get("baseUrl") {
        Some(v) => base_url(&string("baseUrl", v)?)?,
        None => String::new(),
    };
    let format = match get("format") {
        None => Format::Objects,
        Some(v) => match string("format", v)?.as_str() {
            "objects" => Format::Objects,
            "table" => Format::Table(IncludeObject::Metadata),
            other => {
                return Err(range_error(format!(
                    "option format must be 'objects' or 'table', got {other:?}"
                )))
            }
        },
    };
    let format = match (format, get("includeObject")) {
        (_, None) => format,
        (Format::Objects, Some(_)) => {
            return Err(type_error(
                "option includeObject needs format: 'table' (objects are always whole)".into(),
            ))
        }
        (Format::Table(_), Some(v)) => match string("includeObject", v)?.as_str() {
            "Metadata" => Format::Table(IncludeObject::Metadata),
            "Object" => Format::Table(IncludeObject::Object),
            other => {
                return Err(range_error(format!(
                    "option includeObject must be 'Metadata' or 'Object', got {other:?}"
                )))
            }
        },
    };
    if let Format::Table(include) = format {
        config = config.tables(include);
    }
    // Table mode drops managedFields unless asked to keep them (no row shows them).
    if get("stripManagedFields").is_some() {
        config.strip_managed_fields = flag(&get, "stripManagedFields")?;
    }
    if let Some(v) = get("metadata") {
        config.metadata = match string("metadata", v)?.as_str() {
            "all" => KeptMetadata::All,
            "identity" => KeptMetadata::Identity,
            other => {
                return Err(range_error(format!(
                    "option metadata must be 'all' or 'identity', got {other:?}"
                )))
            }
        };
    }
    let persist = flag(&get, "persist")?;
    if persist {
        match format {
            Format::Objects => {
                return Err(type_error(
                    "option persist needs format: 'table' (only table rows are kept, never \
                     whole objects)"
                        .into(),
                ))
            }
            Format::Table(IncludeObject::Object) => {
                return Err(type_error(
                    "option persist keeps rows, never whole objects: it cannot be used with \
                     includeObject: 'Object'"
                        .into(),
                ))
            }
            Format::Table(IncludeObject::Metadata) => {}
        }
        match config.metadata {
            _ if get("metadata").is_none() => config.metadata = KeptMetadata::Identity,
            KeptMetadata::Identity => {}
            _ => {
                return Err(range_error(
                    "option persist keeps only each row's identity metadata: metadata must be \
                     'identity' or left out"
                        .into(),
                ))
            }
        }
    }
    Ok(Settings {
        config,
        base_url,
        retry_on_failure: flag(&get, "retryOnFailure")?,
        format,
        persist,
    })
}

fn string(name: &str, v: &Value) -> Result<String, OptionError> {
    match v {
        Value::String(s) => Ok(s.clone()),
        other => Err(type_error(format!(
            "option {name} must be a string, got {}",
            other.type_name()
        ))),
    }
}

fn flag<'a>(get: &impl Fn(&str) -> Option<&'a Value>, name: &str) -> Result<bool, OptionError> {
    match get(name) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(type_error(format!(
            "option {name} must be a boolean, got {}",
            other.type_name()
        ))),
    }
}

/// `pageSize` (0: one unpaginated list) or `maxPageSize` (at most `pageSize`: pages
/// keep that size).
fn page_size(option: &str, v: &Value) -> Result<u32, OptionError> {
    let Value::Number(n) = v else {
        return Err(type_error(format!(
            "option {option} must be a number, got {}",
            v.type_name()
        )));
    };
    if n.fract() != 0.0 || !(0.0..=f64::from(u32::MAX)).contains(n) {
        let zero = if option == "pageSize" {
            "0 (one unpaginated list)"
        } else {
            "0"
        };
        return Err(range_error(format!(
            "option {option} must be a whole number from {zero} to {}, got {n}",
            u32::MAX
        )));
    }
    Ok(*n as u32)
}

/// `""` (the page's origin), a path (`/k8s`: the API under a prefix of the page's
/// origin) or an http(s) URL; without a trailing slash.
fn base_url(s: &str) -> Result<String, OptionError> {
    let lower = s.to_ascii_lowercase();
    let ok = s.is_empty()
        || (s.starts_with('/') && !s.starts_with("//"))
        || lower.starts_with("http://")
        || lower.starts_with("https://");
    if !ok || s.contains(['?', '#', ' ']) {
        return Err(range_error(format!(
            "option baseUrl must be an http(s) URL or a path starting with '/', without query, \
             got {s:?}"
        )));
    }
    Ok(s.trim_end_matches('/').to_string())
}

fn is_dns_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// "unknown option x", with the option it probably meant.
fn unknown(key: &str) -> String {
    let closest = OPTIONS
        .iter()
        .map(|k| {
            (
                distance(&key.to_ascii_lowercase(), &k.to_ascii_lowercase()),
                *k,
            )
        })
        .min();
    match closest {
        Some((d, k)) if d <= 2.max(key.len() / 4) => {
            format!("unknown option {key}; did you mean {k}?")
        }
        _ => format!(
            "unknown option {key}; the options are {}",
            OPTIONS.join(", ")
        ),
    }
}

/// Levenshtein distance (short strings only).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1)
                .min(row[j] + 1)
                .min(prev + usize::from(ca != *cb));
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Value {
        Value::String(v.into())
    }

    fn check(entries: &[(&str, Value)]) -> Result<Settings, OptionError> {
        parse(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    fn err(entries: &[(&str, Value)]) -> (ErrorKind, String) {
        let e = check(entries).expect_err("rejected");
        (e.kind, e.message)
    }

    #[test]
    fn good_options_make_the_config() {
        let o = check(&[
            ("path", s("/api/v1/pods")),
            ("namespace", s("web")),
            ("labelSelector", s("app=web")),
            ("fieldSelector", s("")),
            ("streamingList", Value::Bool(true)),
            ("pageSize", Value::Number(100.0)),
            ("maxPageSize", Value::Number(100.0)),
            ("baseUrl", s("http://127.0.0.1:8001/")),
            ("retryOnFailure", Value::Bool(true)),
            ("stripManagedFields", Value::Bool(true)),
            ("format", s("objects")),
        ])
        .unwrap();
        assert_eq!(o.config.collection.path(), "/api/v1/namespaces/web/pods");
        assert_eq!(o.config.label_selector.as_deref(), Some("app=web"));
        assert_eq!(o.config.field_selector, None);
        assert_eq!(o.config.mode, Mode::StreamingList);
        assert_eq!((o.config.page_size, o.config.max_page_size), (100, 100));
        assert!(o.config.strip_managed_fields);
        assert_eq!(o.base_url, "http://127.0.0.1:8001");
        assert!(o.retry_on_failure);
        assert_eq!(o.format, Format::Objects);
    }

    #[test]
    fn defaults_and_absent_values() {
        let o = check(&[
            ("path", s("/apis/apps/v1/deployments")),
            ("namespace", Value::Absent),
            ("pageSize", Value::Absent),
        ])
        .unwrap();
        assert_eq!(o.config.collection.path(), "/apis/apps/v1/deployments");
        assert_eq!((o.config.page_size, o.config.max_page_size), (500, 4000));
        assert_eq!(o.config.mode, Mode::ListWatch);
        assert!(!o.retry_on_failure);
        assert_eq!(o.base_url, "");
    }

    #[test]
    fn unknown_options_are_named_with_what_was_meant() {
        let path = ("path", s("/api/v1/pods"));
        assert_eq!(
            err(&[path.clone(), ("labelselector", s("app=web"))]),
            (
                ErrorKind::Type,
                "unknown option labelselector; did you mean labelSelector?".into()
            )
        );
        assert_eq!(
            err(&[path.clone(), ("namepsace", s("a"))]).1,
            "unknown option namepsace; did you mean namespace?"
        );
        assert_eq!(
            err(&[path.clone(), ("page_size", Value::Number(5.0))]).1,
            "unknown option page_size; did you mean pageSize?"
        );
        assert_eq!(
            err(&[path, ("colour", s("red"))]).1,
            "unknown option colour; the options are path, namespace, labelSelector, \
             fieldSelector, streamingList, pageSize, maxPageSize, baseUrl, retryOnFailure, \
             stripManagedFields, format, includeObject, metadata, persist"
        );
    }

    #[test]
    fn wrong_types_and_ranges_name_the_option() {
        let path = ("path", s("/api/v1/pods"));
        assert_eq!(
            err(&[path.clone(), ("pageSize", Value::Number(-1.0))]),
            (
                ErrorKind::Range,
                "option pageSize must be a whole number from 0 (one unpaginated list) to \
                 4294967295, got -1"
                    .into()
            )
        );
        assert_eq!(
            err(&[path.clone(), ("pageSize", Value::Number(2.5))]).0,
            ErrorKind::Range
        );
        assert_eq!(
            err(&[path.clone(), ("pageSize", s("100"))]),
            (
                ErrorKind::Type,
                "option pageSize must be a number, got string".into()
            )
        );
        assert_eq!(
            err(&[path.clone(), ("maxPageSize", Value::Number(0.5))]),
            (
                ErrorKind::Range,
                "option maxPageSize must be a whole number from 0 to 4294967295, got 0.5".into()
            )
        );
        assert_eq!(
            err(&[path.clone(), ("streamingList", s("yes"))]).1,
            "option streamingList must be a boolean, got string"
        );
        assert_eq!(
            err(&[path.clone(), ("labelSelector", Value::Other("array"))]).1,
            "option labelSelector must be a string, got array"
        );
        assert_eq!(
            err(&[path.clone(), ("namespace", s("Not_A_Namespace"))]).0,
            ErrorKind::Range
        );
        assert_eq!(
            err(&[path.clone(), ("baseUrl", s("ftp://x"))]).0,
            ErrorKind::Range
        );
        assert_eq!(
            err(&[
                ("path", s("/api/v1/namespaces/a/pods")),
                ("namespace", s("b"))
            ])
            .1,
            "option namespace \"b\" contradicts the namespace \"a\" in option path"
        );
    }

    #[test]
    fn a_missing_or_bad_path_is_said() {
        assert_eq!(
            err(&[("namespace", s("a"))]),
            (
                ErrorKind::Type,
                "missing option path: the collection to watch, such as '/api/v1/pods' or \
                 '/apis/apps/v1/deployments'"
                    .into()
            )
        );
        assert_eq!(err(&[("path", Value::Absent)]).0, ErrorKind::Type);
        let (kind, message) = err(&[("path", s("/api/v1/namespaces/a/pods/p1"))]);
        assert_eq!(kind, ErrorKind::Range);
        assert!(message.starts_with("option path: "), "{message}");
    }

    #[test]
    fn table_format_and_what_rows_include() {
        let path = ("path", s("/api/v1/pods"));
        let o = check(&[path.clone(), ("format", s("table"))]).unwrap();
        assert_eq!(o.format, Format::Table(IncludeObject::Metadata));
        assert_eq!(
            o.config.format,
            kubelive_core::Format::Table(IncludeObject::Metadata)
        );
        assert!(
            o.config.strip_managed_fields,
            "rows drop managedFields by default"
        );
        let o = check(&[
            path.clone(),
            ("format", s("table")),
            ("includeObject", s("Object")),
            ("stripManagedFields", Value::Bool(false)),
        ])
        .unwrap();
        assert_eq!(o.format, Format::Table(IncludeObject::Object));
        assert!(!o.config.strip_managed_fields, "kept when asked");
        assert_eq!(
            err(&[path.clone(), ("format", s("yaml"))]).1,
            "option format must be 'objects' or 'table', got \"yaml\""
        );
        assert_eq!(
            err(&[path.clone(), ("includeObject", s("Object"))]),
            (
                ErrorKind::Type,
                "option includeObject needs format: 'table' (objects are always whole)".into()
            )
        );
        assert_eq!(
            err(&[
                path.clone(),
                ("format", s("table")),
                ("includeObject", s("None"))
            ]),
            (
                ErrorKind::Range,
                "option includeObject must be 'Metadata' or 'Object', got \"None\"".into()
            )
        );
        assert_eq!(
            err(&[
                path,
                ("format", s("table")),
                ("includeObject", Value::Bool(true))
            ])
            .1,
            "option includeObject must be a string, got boolean"
        );
    }

    #[test]
    fn metadata_keeps_all_or_identity_members() {
        let path = ("path", s("/api/v1/pods"));
        let o = check(std::slice::from_ref(&path)).unwrap();
        assert_eq!(o.config.metadata, KeptMetadata::All, "all by default");
        for format in ["objects", "table"] {
            let o = check(&[
                path.clone(),
                ("format", s(format)),
                ("metadata", s("identity")),
            ])
            .unwrap();
            assert_eq!(o.config.metadata, KeptMetadata::Identity);
        }
        assert_eq!(
            err(&[path.clone(), ("metadata", s("labels"))]),
            (
                ErrorKind::Range,
                "option metadata must be 'all' or 'identity', got \"labels\"".into()
            )
        );
        assert_eq!(
            err(&[path, ("metadata", Value::Bool(true))]).1,
            "option metadata must be a string, got boolean"
        );
    }

    #[test]
    fn persist_keeps_table_rows_of_identity_metadata_only() {
        let path = ("path", s("/api/v1/pods"));
        let table = ("format", s("table"));
        let o = check(&[path.clone(), table.clone()]).unwrap();
        assert!(
            !o.persist,
            "off unless asked (the package turns it on when shared)"
        );
        let o = check(&[path.clone(), table.clone(), ("persist", Value::Bool(true))]).unwrap();
        assert!(o.persist);
        assert_eq!(
            o.config.metadata,
            KeptMetadata::Identity,
            "identity metadata when not given: what a saved view may hold"
        );
        let o = check(&[
            path.clone(),
            table.clone(),
            ("persist", Value::Bool(true)),
            ("metadata", s("identity")),
        ])
        .unwrap();
        assert_eq!(o.config.metadata, KeptMetadata::Identity);
        let o = check(&[path.clone(), table.clone(), ("persist", Value::Bool(false))]).unwrap();
        assert_eq!((o.persist, o.config.metadata), (false, KeptMetadata::All));
        assert_eq!(
            err(&[path.clone(), ("persist", Value::Bool(true))]),
            (
                ErrorKind::Type,
                "option persist needs format: 'table' (only table rows are kept, never whole \
                 objects)"
                    .into()
            )
        );
        assert_eq!(
            err(&[
                path.clone(),
                table.clone(),
                ("includeObject", s("Object")),
                ("persist", Value::Bool(true))
            ])
            .0,
            ErrorKind::Type
        );
        assert_eq!(
            err(&[
                path.clone(),
                table.clone(),
                ("metadata", s("all")),
                ("persist", Value::Bool(true))
            ]),
            (
                ErrorKind::Range,
                "option persist keeps only each row's identity metadata: metadata must be \
                 'identity' or left out"
                    .into()
            )
        );
        assert_eq!(
            err(&[path, table, ("persist", s("yes"))]).1,
            "option persist must be a boolean, got string"
        );
    }
}
