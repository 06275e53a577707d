//! Server-side tables (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`): the
//! server prints each object as kubectl shows it, and the engine keeps each row as an
//! [`Object`](crate::Object) whose stored buffer holds the row's object (its metadata,
//! or the whole object) followed by the row's cells.
//!
//! Facts (protocol.md section 9; kubernetes `staging/src/k8s.io/apiserver/pkg/endpoints/
//! handlers/response.go` and `watch.go`): a LIST answer is one `Table` with
//! `columnDefinitions` then `rows` (`{"cells":[..],"conditions":[..],"object":{..}}`); a
//! watch event's object is a Table of one row whose definitions come with the first
//! event of each watch only (`null` afterwards); bookmarks are converted too; ERROR
//! events stay plain `Status` objects.

use crate::json::{unescape, unescape_into, JResult, Scanner};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// What the engine asks the server for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// The objects themselves (kubectl's `-o json`).
    #[default]
    Objects,
    /// Server-side printing, with what each row carries.
    Table(IncludeObject),
}

impl Format {
    pub fn is_table(self) -> bool {
        matches!(self, Format::Table(_))
    }
}

/// The `includeObject` query parameter of a Table request: what each row carries
/// besides its cells.
///
/// `None` (rows with cells only) is deliberately not offered: a row without its
/// object has no namespace, uid or resourceVersion, so rows could not be keyed
/// across namespaces, a recreated object could not be told from a modified one, and
/// a relist could not tell unchanged rows from changed ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IncludeObject {
    /// A `PartialObjectMetadata`: the object's metadata (the server's default).
    #[default]
    Metadata,
    /// The whole object.
    Object,
}

/// The `Accept` header of a Table request, as kubectl sends it
/// (`staging/src/k8s.io/kubectl/pkg/cmd/get/get.go`): Table v1, then v1beta1, then
/// the plain JSON a server without tables answers with.
pub const TABLE_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

/// The `Accept` header of an object request.
pub const JSON_ACCEPT: &str = "application/json";

/// A column's declared type (`columnDefinitions[].type`, an OpenAPI type).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ColumnType {
    String,
    Integer,
    Number,
    Boolean,
    /// A time; the built-in printers send it as a string (RFC 3339 for the default
    /// convertor's `Created At`, a human duration such as `5m` for a CRD's date column).
    Date,
    /// A type this version does not know, as the server named it.
    Other(String),
}

impl ColumnType {
    fn from_name(name: &str) -> ColumnType {
        match name {
            "string" => ColumnType::String,
            "integer" => ColumnType::Integer,
            "number" => ColumnType::Number,
            "boolean" => ColumnType::Boolean,
            "date" => ColumnType::Date,
            other => ColumnType::Other(other.to_string()),
        }
    }

    /// Whether cells of this column sort as numbers.
    pub fn is_numeric(&self) -> bool {
        matches!(self, ColumnType::Integer | ColumnType::Number)
    }
}

/// One column as the server declares it (`columnDefinitions[]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableColumn {
    pub name: String,
    pub column_type: ColumnType,
    /// `name` for the object's name column; others (`date`, ...) as the server says.
    pub format: String,
    pub description: String,
    /// 0: shown by default; higher: only with `-o wide`.
    pub priority: i32,
}

impl TableColumn {
    /// The `Age` column, whose text the server rendered when it printed the row: a
    /// live view recomputes it from the row's `metadata.creationTimestamp`.
    pub fn is_age(&self) -> bool {
        self.name == "Age"
    }

    /// The column holding the object's name (`format: name`).
    pub fn is_name(&self) -> bool {
        self.format == "name"
    }
}

/// Parses a `columnDefinitions` value; `null` gives `None` (a watch event after the
/// first).
pub(crate) fn parse_columns(json: &[u8]) -> Result<Option<Vec<TableColumn>>, &'static str> {
    const NOT_COLUMNS: &str = "columnDefinitions is not a list of columns";
    // Read from a `Value` rather than a derived `Deserialize` struct, which would cost
    // the wasm its own copy of serde_json's struct reader. As strict: a field of the
    // wrong type (`null` included) rejects the list; an absent one is empty.
    let cols = match serde_json::from_slice::<Value>(json).map_err(|_| NOT_COLUMNS)? {
        Value::Null => return Ok(None),
        Value::Array(cols) => cols,
        _ => return Err(NOT_COLUMNS),
    };
    let column = |c: &Value| -> Option<TableColumn> {
        let c = c.as_object()?;
        let text = |key| match c.get(key) {
            None => Some(String::new()),
            Some(v) => v.as_str().map(str::to_string),
        };
        let priority = match c.get("priority") {
            None => 0,
            Some(p) => p.as_i64()?,
        };
        Some(TableColumn {
            column_type: ColumnType::from_name(&text("type")?),
            name: text("name")?,
            format: text("format")?,
            description: text("description")?,
            priority: priority.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32,
        })
    };
    cols.iter()
        .map(column)
        .collect::<Option<_>>()
        .map(Some)
        .ok_or(NOT_COLUMNS)
}

/// One cell of a row, typed by its JSON value (the column's [`ColumnType`] says how
/// to sort it). Strings borrow from the stored row unless they had escapes.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell<'a> {
    Null,
    Bool(bool),
    /// A number without fraction or exponent that fits in an i64.
    Int(i64),
    Number(f64),
    Str(Cow<'a, str>),
    /// An array or object (no built-in printer sends one), as JSON.
    Json(&'a str),
}

impl Cell<'_> {
    /// The cell as a sort key for numeric columns: numbers as themselves, numeric
    /// strings parsed, anything else `None`.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Cell::Int(i) => Some(*i as f64),
            Cell::Number(f) => Some(*f),
            Cell::Str(s) => s.trim().parse().ok(),
            _ => None,
        }
    }
}

/// As kubectl prints a cell: strings unquoted, `null` as `<none>`.
impl fmt::Display for Cell<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Null => f.write_str("<none>"),
            Cell::Bool(b) => write!(f, "{b}"),
            Cell::Int(i) => write!(f, "{i}"),
            Cell::Number(n) => write!(f, "{n}"),
            Cell::Str(s) => f.write_str(s),
            Cell::Json(j) => f.write_str(j),
        }
    }
}

/// How a row's cells are stored: one entry per cell, decoded (strings without their
/// quotes and escapes), so that reading a cell scans no JSON and a row holds no JSON
/// punctuation. Every header byte is ASCII, so the whole encoding is valid UTF-8 and
/// cells are sliced out of it as `&str` without another check.
///
/// An entry is a header byte, then:
/// * `0..=0x5F`: a string of that many bytes, which follow;
/// * [`STR`]: a longer string: its length ([`put_len`]), then its bytes;
/// * [`NULL`], [`TRUE`], [`FALSE`]: nothing;
/// * [`NAME`]: nothing: the string is the object's `metadata.name` (the first cell of
///   every built-in printer and CRD table), stored once;
/// * [`NUM`], [`JSON`]: a length, then a number's or a nested value's JSON text as sent.
pub(crate) mod enc {
    /// Header bytes below this are the lengths of short strings.
    pub const SHORT: u8 = 0x60;
    /// The first tag: a string of `SHORT` bytes or more.
    pub const STR: u8 = SHORT;
    pub const NULL: u8 = 0x61;
    pub const TRUE: u8 = 0x62;
    pub const FALSE: u8 = 0x63;
    pub const NAME: u8 = 0x64;
    pub const NUM: u8 = 0x65;
    pub const JSON: u8 = 0x66;
    /// A length byte at or past this is followed by the length in five 7-bit ASCII
    /// digits (35 bits; documents are capped far below).
    const LONG: u8 = 0x7F;

    pub fn put_len(out: &mut Vec<u8>, len: usize) {
        if len < usize::from(LONG) {
            out.push(len as u8);
        } else {
            out.push(LONG);
            for shift in [28, 21, 14, 7, 0] {
                out.push(((len >> shift) & 0x7F) as u8);
            }
        }
    }

    /// Reads a length at `*i`, advancing past it.
    pub fn get_len(b: &[u8], i: &mut usize) -> Option<usize> {
        let h = *b.get(*i)?;
        *i += 1;
        if h < LONG {
            return Some(usize::from(h));
        }
        let digits = b.get(*i..*i + 5)?;
        *i += 5;
        Some(digits.iter().fold(0, |n, &d| (n << 7) | usize::from(d)))
    }

    /// Appends a string cell.
    pub fn put_str(out: &mut Vec<u8>, s: &[u8]) {
        if s.len() < usize::from(SHORT) {
            out.push(s.len() as u8);
        } else {
            out.push(STR);
            put_len(out, s.len());
        }
        out.extend_from_slice(s);
    }

    /// Appends a cell with a tag and text ([`NUM`], [`JSON`]).
    pub fn put_text(out: &mut Vec<u8>, tag: u8, text: &[u8]) {
        out.push(tag);
        put_len(out, text.len());
        out.extend_from_slice(text);
    }

    /// The length of the entry at the start of `enc` if it is the string `s`.
    pub fn str_entry_len(enc: &[u8], s: &[u8]) -> Option<usize> {
        let mut i = 0;
        let len = match *enc.first()? {
            h if h < SHORT => {
                i = 1;
                usize::from(h)
            }
            STR => {
                i += 1;
                get_len(enc, &mut i)?
            }
            _ => return None,
        };
        (len == s.len() && enc.get(i..i + len)? == s).then_some(i + len)
    }
}

/// One stored cell as it was sent (numbers and nested values as their JSON text).
#[derive(Clone, Copy)]
enum RawCell<'a> {
    Str(&'a str),
    Null,
    Bool(bool),
    Num(&'a str),
    Json(&'a str),
}

/// The cells of a row, in column order, read from their stored encoding ([`enc`]).
#[derive(Clone)]
pub struct Cells<'a> {
    enc: &'a str,
    /// What a [`enc::NAME`] entry stands for.
    name: &'a str,
    i: usize,
}

impl<'a> Cells<'a> {
    pub(crate) fn new(enc: &'a str, name: &'a str) -> Cells<'a> {
        Cells { enc, name, i: 0 }
    }

    fn next_raw(&mut self) -> Option<RawCell<'a>> {
        let b = self.enc.as_bytes();
        let h = *b.get(self.i)?;
        self.i += 1;
        let text = |i: &mut usize, len: usize| {
            let t = self.enc.get(*i..*i + len);
            *i += len;
            t
        };
        let cell = match h {
            h if h < enc::SHORT => RawCell::Str(text(&mut self.i, usize::from(h))?),
            enc::STR => {
                let len = enc::get_len(b, &mut self.i)?;
                RawCell::Str(text(&mut self.i, len)?)
            }
            enc::NULL => RawCell::Null,
            enc::TRUE => RawCell::Bool(true),
            enc::FALSE => RawCell::Bool(false),
            enc::NAME => RawCell::Str(self.name),
            enc::NUM | enc::JSON => {
                let len = enc::get_len(b, &mut self.i)?;
                let t = text(&mut self.i, len)?;
                if h == enc::NUM {
                    RawCell::Num(t)
                } else {
                    RawCell::Json(t)
                }
            }
            _ => None?,
        };
        Some(cell)
    }

    /// The cells as a JSON array (compact; strings escaped as JSON requires, so
    /// `<`, `>` and `&`, which Go's encoder sends as `\u003c`.., come back plain).
    pub(crate) fn into_json(mut self) -> String {
        let mut out = String::with_capacity(self.enc.len() + self.name.len() + 16);
        out.push('[');
        let mut first = true;
        while let Some(c) = self.next_raw() {
            if !first {
                out.push(',');
            }
            first = false;
            match c {
                RawCell::Str(s) => write_json_string(&mut out, s),
                RawCell::Null => out.push_str("null"),
                RawCell::Bool(b) => out.push_str(if b { "true" } else { "false" }),
                RawCell::Num(t) | RawCell::Json(t) => out.push_str(t),
            }
        }
        out.push(']');
        out
    }
}

/// Appends `s` as a JSON string.
pub(crate) fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    let mut from = 0;
    for (i, c) in s.bytes().enumerate() {
        let esc = match c {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1F => "",
            _ => continue,
        };
        out.push_str(&s[from..i]);
        if esc.is_empty() {
            out.push_str(&format!("\\u{c:04x}"));
        } else {
            out.push_str(esc);
        }
        from = i + 1;
    }
    out.push_str(&s[from..]);
    out.push('"');
}

/// The length of [`write_json_string`]'s output for `s`.
pub(crate) fn json_string_len(s: &str) -> usize {
    2 + s
        .bytes()
        .map(|c| match c {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' => 2,
            0..=0x1F => 6,
            _ => 1,
        })
        .sum::<usize>()
}

impl<'a> Iterator for Cells<'a> {
    type Item = Cell<'a>;

    fn next(&mut self) -> Option<Cell<'a>> {
        Some(match self.next_raw()? {
            RawCell::Str(s) => Cell::Str(Cow::Borrowed(s)),
            RawCell::Null => Cell::Null,
            RawCell::Bool(b) => Cell::Bool(b),
            RawCell::Json(t) => Cell::Json(t),
            RawCell::Num(t) => {
                let integral = !t.bytes().any(|c| matches!(c, b'.' | b'e' | b'E'));
                match (integral, t.parse::<i64>()) {
                    (true, Ok(i)) => Cell::Int(i),
                    _ => Cell::Number(t.parse().unwrap_or(f64::NAN)),
                }
            }
        })
    }
}

/// Encodes the cells array at `sc.i` (validating it) into `out` ([`enc`]).
pub(crate) fn encode_cells(sc: &mut Scanner<'_>, out: &mut Vec<u8>) -> JResult<()> {
    out.clear();
    let b = sc.b;
    if !sc.array_start()? {
        return Err(sc.err("a row's cells must be an array"));
    }
    let mut first = true;
    while sc.next_elem(&mut first)? {
        let at = sc.ws();
        let start = sc.i;
        match at {
            b'"' => {
                let s = sc.string()?;
                let raw = &b[s.start..s.end];
                if !s.escaped {
                    enc::put_str(out, raw);
                } else if raw.len() < usize::from(enc::SHORT) {
                    // Decoded in place: never longer than escaped, so short too.
                    let at = out.len();
                    out.push(0);
                    unescape_into(raw, out);
                    let len = out.len() - at - 1;
                    if let Some(h) = out.get_mut(at) {
                        *h = len as u8;
                    }
                } else {
                    enc::put_str(out, unescape(raw).as_bytes());
                }
            }
            b'n' | b't' | b'f' => {
                sc.value_dropped()?;
                out.push(match at {
                    b'n' => enc::NULL,
                    b't' => enc::TRUE,
                    _ => enc::FALSE,
                });
            }
            b'{' | b'[' => {
                sc.value_dropped()?;
                enc::put_text(out, enc::JSON, &b[start..sc.i]);
            }
            _ => {
                sc.value_dropped()?;
                enc::put_text(out, enc::NUM, &b[start..sc.i]);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `json`'s cells as a row stores them.
    fn stored(json: &str) -> String {
        let mut sc = Scanner::new(json.as_bytes());
        let mut out = Vec::new();
        encode_cells(&mut sc, &mut out).expect("valid cells");
        String::from_utf8(out).expect("the encoding is UTF-8")
    }

    /// `json`'s cells stored and read back, and written back as JSON.
    fn cells(stored: &str) -> (Vec<Cell<'_>>, String) {
        (
            Cells::new(stored, "").collect(),
            Cells::new(stored, "").into_json(),
        )
    }

    #[test]
    fn cells_are_typed_values() {
        let s = stored(
            r#"["web-1","1/1",0,2.5,true,null,"a\"b",[1, 2],-3,1e3,12345678901234567890,false]"#,
        );
        let (read, json) = cells(&s);
        assert_eq!(
            read,
            vec![
                Cell::Str("web-1".into()),
                Cell::Str("1/1".into()),
                Cell::Int(0),
                Cell::Number(2.5),
                Cell::Bool(true),
                Cell::Null,
                Cell::Str("a\"b".into()),
                Cell::Json("[1, 2]"),
                Cell::Int(-3),
                Cell::Number(1000.0),
                Cell::Number(12345678901234567890.0),
                Cell::Bool(false),
            ]
        );
        // Numbers and nested values come back as sent; strings escaped as JSON needs.
        assert_eq!(
            json,
            r#"["web-1","1/1",0,2.5,true,null,"a\"b",[1, 2],-3,1e3,12345678901234567890,false]"#
        );
        assert_eq!(read[5].to_string(), "<none>");
        assert_eq!(read[6].to_string(), "a\"b");
        assert_eq!(read[2].as_f64(), Some(0.0));
        assert_eq!(cells(&stored("[]")).0.len(), 0);
        assert_eq!(cells(&stored("[ ]")).1, "[]");
        // Multi-byte text comes back as sent, escaped or not; Go's HTML escapes and
        // control characters are decoded and written back as JSON requires.
        let s = stored(
            r#"["größe","\u00e9t\u00e9 ü",1,"\u003cnone\u003e","a\u0026b","tab\there\u0001\\"]"#,
        );
        let (read, json) = cells(&s);
        assert_eq!(
            read,
            vec![
                Cell::Str("größe".into()),
                Cell::Str("été ü".into()),
                Cell::Int(1),
                Cell::Str("<none>".into()),
                Cell::Str("a&b".into()),
                Cell::Str("tab\there\u{1}\\".into()),
            ]
        );
        assert_eq!(
            json,
            r#"["größe","été ü",1,"<none>","a&b","tab\there\u0001\\"]"#
        );
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value[5], "tab\there\u{1}\\");
    }

    #[test]
    fn long_cells_and_every_length_round_trip() {
        for len in [0, 1, 0x5E, 0x5F, 0x60, 0x7E, 0x7F, 0x80, 300, 70_000] {
            let text = "x".repeat(len);
            let number = "1".repeat(len.max(1));
            let json = format!(r#"["{text}",{number},"{text}"]"#);
            let s = stored(&json);
            let (read, back) = cells(&s);
            assert_eq!(back, json, "length {len}");
            assert_eq!(read[0], Cell::Str(text.clone().into()));
            assert_eq!(read[2], Cell::Str(text.into()));
        }
    }

    #[test]
    fn a_name_cell_reads_as_the_name() {
        let mut sc = Scanner::new(br#"["web-1","Running"]"#);
        let mut stored = vec![enc::NAME];
        let mut out = Vec::new();
        encode_cells(&mut sc, &mut out).unwrap();
        let first = enc::str_entry_len(&out, b"web-1").expect("the first cell is the name");
        assert_eq!(enc::str_entry_len(&out, b"web-2"), None);
        assert_eq!(enc::str_entry_len(&out, b"web-"), None);
        stored.extend_from_slice(&out[first..]);
        let stored = String::from_utf8(stored).unwrap();
        let read: Vec<Cell> = Cells::new(&stored, "web-1").collect();
        assert_eq!(
            read,
            vec![Cell::Str("web-1".into()), Cell::Str("Running".into())]
        );
        assert_eq!(
            Cells::new(&stored, "web-1").into_json(),
            r#"["web-1","Running"]"#
        );
    }

    #[test]
    fn malformed_cells_are_errors() {
        for bad in [
            r#"["a""#,
            r#"["a",]"#,
            r#"[tru]"#,
            r#"[01]"#,
            r#"{"a":1}"#,
            r#"["\x"]"#,
        ] {
            let mut sc = Scanner::new(bad.as_bytes());
            assert!(encode_cells(&mut sc, &mut Vec::new()).is_err(), "{bad}");
        }
    }

    #[test]
    fn column_definitions_parse_with_their_types() {
        let json = br#"[{"name":"Name","type":"string","format":"name","description":"Name must be unique","priority":0},
            {"name":"Restarts","type":"integer","format":"","description":"","priority":0},
            {"name":"IP","type":"string","format":"","description":"","priority":1},
            {"name":"Weird","type":"money"}]"#;
        let cols = parse_columns(json).unwrap().unwrap();
        assert_eq!(cols.len(), 4);
        assert!(cols[0].is_name());
        assert_eq!(cols[1].column_type, ColumnType::Integer);
        assert_eq!(cols[2].priority, 1);
        assert_eq!(cols[3].column_type, ColumnType::Other("money".into()));
        assert_eq!(parse_columns(b"null").unwrap(), None);
        assert!(parse_columns(b"{}").is_err());
        let far = parse_columns(br#"[{"priority":9000000000},{}]"#)
            .unwrap()
            .unwrap();
        assert_eq!((far[0].priority, far[1].priority), (i32::MAX, 0));
        assert_eq!(far[1].name, "");
        for bad in [
            r#"1"#,
            r#"[1]"#,
            r#"[null]"#,
            r#"[{"name":null}]"#,
            r#"[{"type":1}]"#,
            r#"[{"priority":1.5}]"#,
            r#"[{"priority":"1"}]"#,
            r#"[{"priority":10000000000000000000}]"#,
        ] {
            assert!(parse_columns(bad.as_bytes()).is_err(), "{bad}");
        }
    }
}
