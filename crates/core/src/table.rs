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

use crate::json::{unescape, Scanner, Scratch};
use serde::Deserialize;
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

#[derive(Deserialize)]
struct RawColumn {
    #[serde(default)]
    name: String,
    #[serde(default, rename = "type")]
    type_: String,
    #[serde(default)]
    format: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    priority: i64,
}

/// Parses a `columnDefinitions` value; `null` gives `None` (a watch event after the
/// first).
pub(crate) fn parse_columns(json: &[u8]) -> Result<Option<Vec<TableColumn>>, &'static str> {
    let raw: Option<Vec<RawColumn>> =
        serde_json::from_slice(json).map_err(|_| "columnDefinitions is not a list of columns")?;
    Ok(raw.map(|cols| {
        cols.into_iter()
            .map(|c| TableColumn {
                column_type: ColumnType::from_name(&c.type_),
                name: c.name,
                format: c.format,
                description: c.description,
                priority: c.priority.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32,
            })
            .collect()
    }))
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

/// The cells of a row, in column order, read from the stored JSON array without a DOM.
#[derive(Clone)]
pub struct Cells<'a> {
    json: &'a str,
    i: usize,
    first: bool,
    done: bool,
}

impl<'a> Cells<'a> {
    /// `json` is a validated JSON array (the stored copy of a row's `cells`). Cells
    /// are slices of it: split at ASCII delimiters, they need no UTF-8 check again.
    pub(crate) fn new(json: &'a str) -> Cells<'a> {
        let mut sc = Scanner::at(json.as_bytes(), 0, Scratch::default());
        let done = !matches!(sc.array_start(), Ok(true));
        Cells {
            json,
            i: sc.i,
            first: true,
            done,
        }
    }
}

impl<'a> Iterator for Cells<'a> {
    type Item = Cell<'a>;

    fn next(&mut self) -> Option<Cell<'a>> {
        if self.done {
            return None;
        }
        let b = self.json.as_bytes();
        let mut sc = Scanner::at(b, self.i, Scratch::default());
        if !matches!(sc.next_elem(&mut self.first), Ok(true)) {
            self.done = true;
            return None;
        }
        sc.ws();
        let start = sc.i;
        let c = sc.peek();
        if sc.value().is_err() {
            self.done = true;
            return None;
        }
        self.i = sc.i;
        let text = self.json.get(start..sc.i)?;
        let raw = text.as_bytes();
        Some(match c {
            b'"' => {
                let content = text.get(1..text.len().saturating_sub(1))?;
                if content.as_bytes().contains(&b'\\') {
                    Cell::Str(unescape(content.as_bytes()))
                } else {
                    Cell::Str(Cow::Borrowed(content))
                }
            }
            b't' => Cell::Bool(true),
            b'f' => Cell::Bool(false),
            b'n' => Cell::Null,
            b'{' | b'[' => Cell::Json(text),
            _ => {
                let integral = !raw.iter().any(|c| matches!(c, b'.' | b'e' | b'E'));
                match (integral, text.parse::<i64>()) {
                    (true, Ok(i)) => Cell::Int(i),
                    _ => Cell::Number(text.parse().unwrap_or(f64::NAN)),
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_typed_values() {
        let cells: Vec<Cell> =
            Cells::new(r#"["web-1","1/1",0,2.5,true,null,"a\"b",[1],-3,1e3,12345678901234567890]"#)
                .collect();
        assert_eq!(
            cells,
            vec![
                Cell::Str("web-1".into()),
                Cell::Str("1/1".into()),
                Cell::Int(0),
                Cell::Number(2.5),
                Cell::Bool(true),
                Cell::Null,
                Cell::Str("a\"b".into()),
                Cell::Json("[1]"),
                Cell::Int(-3),
                Cell::Number(1000.0),
                Cell::Number(12345678901234567890.0),
            ]
        );
        assert_eq!(cells[5].to_string(), "<none>");
        assert_eq!(cells[6].to_string(), "a\"b");
        assert_eq!(cells[2].as_f64(), Some(0.0));
        assert_eq!(Cells::new("[]").count(), 0);
        assert_eq!(Cells::new("null").count(), 0);
        // Multi-byte text comes back as sliced, escaped or not.
        let cells: Vec<Cell> = Cells::new(r#"["größe","\u00e9t\u00e9 ü",1]"#).collect();
        assert_eq!(
            cells,
            vec![
                Cell::Str("größe".into()),
                Cell::Str("été ü".into()),
                Cell::Int(1)
            ]
        );
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
    }
}
