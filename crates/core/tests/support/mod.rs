//! Table bytes for the tests, written by the sim's printers (`kubelive_sim::printers`,
//! which pin kube-apiserver's own bytes): list answers and watch events in table mode.

#![allow(dead_code)]

use kubelive_sim::printers::{
    parse_rfc3339_ms, IncludeObject, ListMeta, TableConvertor, TableFormat, TableListWriter,
    TableVersion, WatchTableEncoder,
};

/// The instant the printers render Age cells for.
pub fn now_ms() -> i64 {
    parse_rfc3339_ms("2026-11-29T10:05:00Z").unwrap_or(0)
}

/// Prints one resource's objects as kube-apiserver answers `kubectl get`.
pub struct Printer {
    pub convertor: TableConvertor,
    pub format: TableFormat,
}

impl Printer {
    pub fn new(group: &str, kind: &str, include: IncludeObject) -> Printer {
        Printer {
            convertor: TableConvertor::for_kind(group, kind),
            format: TableFormat {
                version: TableVersion::V1,
                include,
            },
        }
    }

    pub fn pods(include: IncludeObject) -> Printer {
        Printer::new("", "Pod", include)
    }

    /// A Table list answer holding `objects` (JSON texts).
    pub fn list(&self, rv: u64, cont: &str, remaining: Option<i64>, objects: &[String]) -> String {
        let rv = rv.to_string();
        let mut out = String::new();
        let meta = ListMeta {
            resource_version: &rv,
            continue_token: cont,
            remaining_item_count: remaining,
        };
        let mut w = TableListWriter::begin(&mut out, &self.convertor, self.format, &meta);
        for o in objects {
            let row = self.convertor.row_from_json(o).expect("an object");
            w.push_row(&mut out, &row, o, now_ms()).expect("a row");
        }
        w.finish(&mut out);
        out
    }

    /// The printer of one watch: definitions go with its first event only.
    pub fn watch(&self) -> WatchPrinter<'_> {
        WatchPrinter {
            printer: self,
            encoder: WatchTableEncoder::new(self.format),
        }
    }
}

pub struct WatchPrinter<'p> {
    printer: &'p Printer,
    encoder: WatchTableEncoder,
}

impl WatchPrinter<'_> {
    /// One event line (`ADDED`, `MODIFIED`, `DELETED`) for the object `json`.
    pub fn event(&mut self, event_type: &str, json: &str) -> String {
        let conv = &self.printer.convertor;
        let row = conv.row_from_json(json).expect("an object");
        let mut out = String::new();
        self.encoder
            .write_event(&mut out, conv, event_type, &row, json, now_ms())
            .expect("an event");
        out
    }

    /// A converted BOOKMARK at `rv` (with the initial-events-end annotation if `end`).
    pub fn bookmark(&mut self, kind: &str, rv: u64, end: bool) -> String {
        let annotations = if end {
            r#","annotations":{"k8s.io/initial-events-end":"true"}"#
        } else {
            ""
        };
        let object = format!(
            r#"{{"kind":"{kind}","apiVersion":"v1","metadata":{{"resourceVersion":"{rv}","creationTimestamp":null{annotations}}},"spec":{{"containers":null}},"status":{{}}}}"#
        );
        let mut out = String::new();
        self.encoder
            .write_bookmark(&mut out, &self.printer.convertor, &object, now_ms())
            .expect("a bookmark");
        out
    }

    /// An ERROR event (a plain Status, as the apiserver passes it through).
    pub fn error(&mut self, status: &str) -> String {
        let mut out = String::new();
        self.encoder.write_error(&mut out, status);
        out
    }
}
