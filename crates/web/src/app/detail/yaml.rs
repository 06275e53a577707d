//! The detail panel's text of an object: YAML (as `kubectl get -o yaml` prints it:
//! keys sorted, two-space indent, lists not indented under their key) or indented
//! JSON, written as segments so that Secret values can stay out of the text (and
//! out of the DOM) until the user reveals them one by one.

use serde_json::Value;
use std::collections::HashSet;

/// A piece of the rendered text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    Text(String),
    /// A masked Secret value: `id` is its path (`data.password`), to reveal it.
    Masked {
        id: String,
    },
}

/// Which values are masked: the values of a Secret's `data` and `stringData`, except
/// those revealed (by id).
#[derive(Clone, Copy)]
pub struct Mask<'a> {
    pub secret: bool,
    pub revealed: &'a HashSet<String>,
}

impl Mask<'_> {
    /// The id of the value at `path` if it is masked now.
    fn masked(&self, path: &[&str]) -> Option<String> {
        match path {
            [field @ ("data" | "stringData"), key] if self.secret => {
                let id = format!("{field}.{key}");
                (!self.revealed.contains(&id)).then_some(id)
            }
            _ => None,
        }
    }
}

/// What the masked value shows instead of itself.
pub const MASK: &str = "••••••";

/// Collects text and masked values, merging adjacent text.
#[derive(Default)]
struct Out {
    segments: Vec<Segment>,
    text: String,
}

impl Out {
    fn push(&mut self, s: &str) {
        self.text.push_str(s);
    }

    fn masked(&mut self, id: String) {
        if !self.text.is_empty() {
            self.segments
                .push(Segment::Text(std::mem::take(&mut self.text)));
        }
        self.segments.push(Segment::Masked { id });
    }

    fn finish(mut self) -> Vec<Segment> {
        if !self.text.is_empty() {
            self.segments.push(Segment::Text(self.text));
        }
        self.segments
    }
}

/// The segments as plain text, masked values as [`MASK`] (for copying).
pub fn plain(segments: &[Segment]) -> String {
    segments
        .iter()
        .map(|s| match s {
            Segment::Text(t) => t.as_str(),
            Segment::Masked { .. } => MASK,
        })
        .collect()
}

/// `value` as a YAML document.
pub fn to_yaml(value: &Value, mask: Mask<'_>) -> Vec<Segment> {
    let mut out = Out::default();
    let mut path = Vec::new();
    match value {
        Value::Object(m) if !m.is_empty() => yaml_map(m, 0, &mut path, mask, &mut out),
        Value::Array(a) if !a.is_empty() => yaml_list(a, 0, &mut path, mask, &mut out),
        scalar => {
            yaml_scalar(scalar, 0, &mut out);
            out.push("\n");
        }
    }
    out.finish()
}

fn indent(out: &mut Out, n: usize) {
    for _ in 0..n {
        out.push(" ");
    }
}

fn sorted_keys(m: &serde_json::Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut keys: Vec<(&String, &Value)> = m.iter().collect();
    keys.sort_by(|a, b| a.0.cmp(b.0));
    keys
}

/// A map's entries at `level` spaces (the first entry's indent is the caller's when
/// it follows a `- `).
fn yaml_map<'a>(
    m: &'a serde_json::Map<String, Value>,
    level: usize,
    path: &mut Vec<&'a str>,
    mask: Mask<'_>,
    out: &mut Out,
) {
    for (i, (k, v)) in sorted_keys(m).into_iter().enumerate() {
        if i > 0 {
            indent(out, level);
        }
        out.push(&quote_scalar(k));
        out.push(":");
        path.push(k);
        if let Some(id) = mask.masked(path) {
            out.push(" ");
            out.masked(id);
            out.push("\n");
        } else {
            yaml_value_after_key(v, level, path, mask, out);
        }
        path.pop();
    }
}

/// What follows `key:`: a nested block on the next lines, or ` scalar`.
fn yaml_value_after_key<'a>(
    v: &'a Value,
    level: usize,
    path: &mut Vec<&'a str>,
    mask: Mask<'_>,
    out: &mut Out,
) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push("\n");
            indent(out, level + 2);
            yaml_map(m, level + 2, path, mask, out);
        }
        // Lists sit at their key's indent, as kubectl (sigs.k8s.io/yaml) prints them.
        Value::Array(a) if !a.is_empty() => {
            out.push("\n");
            indent(out, level);
            yaml_list(a, level, path, mask, out);
        }
        scalar => {
            out.push(" ");
            yaml_scalar(scalar, level + 2, out);
            out.push("\n");
        }
    }
}

fn yaml_list<'a>(
    a: &'a [Value],
    level: usize,
    path: &mut Vec<&'a str>,
    mask: Mask<'_>,
    out: &mut Out,
) {
    for (i, v) in a.iter().enumerate() {
        if i > 0 {
            indent(out, level);
        }
        out.push("-");
        // Items are not on a masked path (only `data.<key>` is), so the index is "".
        path.push("");
        match v {
            Value::Object(m) if !m.is_empty() => {
                out.push(" ");
                yaml_map(m, level + 2, path, mask, out);
            }
            Value::Array(inner) if !inner.is_empty() => {
                out.push(" ");
                yaml_list(inner, level + 2, path, mask, out);
            }
            scalar => {
                out.push(" ");
                yaml_scalar(scalar, level + 2, out);
                out.push("\n");
            }
        }
        path.pop();
    }
}

/// A scalar (or an empty map or list) in flow position; multi-line strings become
/// literal block scalars indented to `level`.
fn yaml_scalar(v: &Value, level: usize, out: &mut Out) {
    match v {
        Value::Null => out.push("null"),
        Value::Bool(b) => out.push(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push(&n.to_string()),
        Value::Object(_) => out.push("{}"),
        Value::Array(_) => out.push("[]"),
        Value::String(s) if is_block(s) => block_scalar(s, level, out),
        Value::String(s) => out.push(&quote_scalar(s)),
    }
}

/// Multi-line text that a literal block keeps exactly: printable, no tabs or
/// carriage returns, and no line ending in spaces.
fn is_block(s: &str) -> bool {
    s.contains('\n')
        && s.chars().all(|c| c == '\n' || !needs_escape(c))
        && !s.contains('\t')
        && s.split('\n').all(|l| !l.ends_with(' '))
}

fn block_scalar(s: &str, level: usize, out: &mut Out) {
    out.push("|");
    // An indentation indicator when the first line starts with a space (else the
    // parser would take that space as the block's indent).
    if s.starts_with(' ') {
        out.push("2");
    }
    let body = s.trim_end_matches('\n');
    let trailing = s.len() - body.len();
    out.push(match trailing {
        0 => "-",
        1 => "",
        _ => "+",
    });
    out.push("\n");
    let lines: Vec<&str> = if trailing > 1 {
        // Keep: every line break is content.
        s[..s.len() - 1].split('\n').collect()
    } else {
        body.split('\n').collect()
    };
    for line in lines {
        if !line.is_empty() {
            indent(out, level);
            out.push(line);
        }
        out.push("\n");
    }
    // The caller adds the line break after a scalar: drop ours.
    if out.text.ends_with('\n') {
        out.text.pop();
    }
}

/// Characters a plain or single-quoted scalar cannot hold.
fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{feff}' | '\u{2028}' | '\u{2029}' | '\u{85}')
}

/// A string as a YAML scalar: plain when YAML would read it back as the same string,
/// single-quoted when that is enough, double-quoted (JSON escapes, which YAML
/// reads) when it holds control characters.
pub fn quote_scalar(s: &str) -> String {
    if s.chars().any(needs_escape) {
        return serde_json::to_string(s).unwrap_or_default();
    }
    if is_plain_safe(s) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "''"))
    }
}

fn is_plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if s.starts_with(' ') || s.ends_with(' ') || s.ends_with(':') {
        return false;
    }
    // Indicators that start something else.
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        // `-x`, `?x`, `:x` are plain in YAML 1.2 but not to every reader: quote.
        return false;
    }
    if s.contains(": ") || s.contains(" #") || s.contains('\n') {
        return false;
    }
    !reads_as_other(s)
}

/// Whether a plain scalar would be read as something else than a string (YAML 1.1
/// as well as 1.2 resolvers: kubectl's reader is YAML 1.1 for booleans).
fn reads_as_other(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "null"
            | "~"
            | "true"
            | "false"
            | "yes"
            | "no"
            | "on"
            | "off"
            | "y"
            | "n"
            | ".inf"
            | "-.inf"
            | "+.inf"
            | ".nan"
            | "<<"
            | "="
    ) {
        return true;
    }
    // YAML 1.1 timestamps (`2024-01-01`, `2024-01-01T00:00:00Z`): read as times by
    // such readers, so quoted, as kubectl does.
    let b = s.as_bytes();
    if b.len() >= 8
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5].is_ascii_digit()
    {
        return true;
    }
    // Numbers of any base or form (`1`, `-1.5e3`, `0x1F`, `0o17`, `0b101`, `1_000`,
    // YAML 1.1's sexagesimal `12:30`); `10.0.0.1` or `1.2.3` are strings.
    let body = lower.trim_start_matches(['+', '-']);
    let digits =
        |s: &str, radix: u32| !s.is_empty() && s.chars().all(|c| c == '_' || c.is_digit(radix));
    if let Some(hex) = body.strip_prefix("0x") {
        return digits(hex, 16);
    }
    if let Some(oct) = body.strip_prefix("0o") {
        return digits(oct, 8);
    }
    if let Some(bin) = body.strip_prefix("0b") {
        return digits(bin, 2);
    }
    if body.contains(':') {
        return body.split(':').all(|part| digits(part, 10));
    }
    let plain: String = body.chars().filter(|&c| c != '_').collect();
    plain.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && plain
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '+' | '-'))
        && plain.parse::<f64>().is_ok()
}

/// `value` as indented JSON (two spaces, keys sorted as in the YAML), masked values
/// as segments.
pub fn to_json(value: &Value, mask: Mask<'_>) -> Vec<Segment> {
    let mut out = Out::default();
    let mut path = Vec::new();
    json_value(value, 0, &mut path, mask, &mut out);
    out.push("\n");
    out.finish()
}

fn json_value<'a>(
    v: &'a Value,
    level: usize,
    path: &mut Vec<&'a str>,
    mask: Mask<'_>,
    out: &mut Out,
) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push("{\n");
            let keys = sorted_keys(m);
            let n = keys.len();
            for (i, (k, v)) in keys.into_iter().enumerate() {
                indent(out, level + 2);
                out.push(&serde_json::to_string(k).unwrap_or_default());
                out.push(": ");
                path.push(k);
                match mask.masked(path) {
                    Some(id) => out.masked(id),
                    None => json_value(v, level + 2, path, mask, out),
                }
                path.pop();
                out.push(if i + 1 < n { ",\n" } else { "\n" });
            }
            indent(out, level);
            out.push("}");
        }
        Value::Array(a) if !a.is_empty() => {
            out.push("[\n");
            for (i, v) in a.iter().enumerate() {
                indent(out, level + 2);
                path.push("");
                json_value(v, level + 2, path, mask, out);
                path.pop();
                out.push(if i + 1 < a.len() { ",\n" } else { "\n" });
            }
            indent(out, level);
            out.push("]");
        }
        other => out.push(&serde_json::to_string(other).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests;
