//! JSON re-indented the way Go's `json.MarshalIndent(v, "", "  ")` writes it: the apiserver's
//! pretty serializer (curl, browsers, `?pretty=true`) and `WriteRawJSON` (`/version`, a 406).
//! Streaming: compact JSON in, indented JSON out, no document held twice.
//!
//! Layout rules (Go's `encoding/json` indent): a newline and one more level after `{`/`[`,
//! `,` ends a line, `": "` after a key, closing brackets on their own line, and empty
//! `{}`/`[]` stay on one line. Whitespace of the input outside strings is dropped.

use std::io::{self, Write};

/// A writer that indents the compact JSON written through it.
pub struct IndentWriter<W: Write> {
    out: W,
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// An opening bracket was written and its line break is held back until we know
    /// whether the container is empty.
    open_pending: bool,
    buf: Vec<u8>,
}

impl<W: Write> IndentWriter<W> {
    pub fn new(out: W) -> Self {
        IndentWriter {
            out,
            depth: 0,
            in_string: false,
            escaped: false,
            open_pending: false,
            buf: Vec::with_capacity(8192),
        }
    }

    fn newline(&mut self) {
        self.buf.push(b'\n');
        for _ in 0..self.depth {
            self.buf.extend_from_slice(b"  ");
        }
    }

    /// Flushes what is pending and returns the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        Ok(self.out)
    }

    fn byte(&mut self, b: u8) {
        if self.in_string {
            self.buf.push(b);
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
            }
            return;
        }
        if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            return;
        }
        if self.open_pending {
            self.open_pending = false;
            if b == b']' || b == b'}' {
                // Empty container: `{}` / `[]`.
                self.depth -= 1;
                self.buf.push(b);
                return;
            }
            self.newline();
        }
        match b {
            b'{' | b'[' => {
                self.buf.push(b);
                self.depth += 1;
                self.open_pending = true;
            }
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                self.newline();
                self.buf.push(b);
            }
            b',' => {
                self.buf.push(b);
                self.newline();
            }
            b':' => self.buf.extend_from_slice(b": "),
            b'"' => {
                self.buf.push(b);
                self.in_string = true;
            }
            _ => self.buf.push(b),
        }
    }
}

impl<W: Write> Write for IndentWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        for &b in data {
            self.byte(b);
        }
        if self.buf.len() >= 8192 {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(data.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()
    }
}

/// Indents a whole document (a trailing newline of the input is dropped, as
/// `MarshalIndent` writes none).
pub fn indent(compact: &[u8]) -> Vec<u8> {
    let mut w = IndentWriter::new(Vec::with_capacity(compact.len() * 3 / 2));
    // Writing to a Vec cannot fail.
    let _ = w.write_all(compact);
    w.finish().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_go_marshal_indent() {
        // json.MarshalIndent(map/struct, "", "  ") of the same values.
        let got = indent(br#"{"kind":"Status","apiVersion":"v1","metadata":{},"items":[],"a":[1,{"b":"x,{}:\"y"}],"code":406}"#);
        let want = "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {},\n  \"items\": [],\n  \"a\": [\n    1,\n    {\n      \"b\": \"x,{}:\\\"y\"\n    }\n  ],\n  \"code\": 406\n}";
        assert_eq!(String::from_utf8(got).unwrap(), want);
        assert_eq!(indent(b"{\"a\":1}\n"), b"{\n  \"a\": 1\n}");
        // Split anywhere (mid-string, mid-escape) gives the same bytes.
        let doc = br#"{"a":["x\\\"]",{"k":[]}],"b":{"c":null}}"#;
        let whole = indent(doc);
        for cut in 0..doc.len() {
            let mut w = IndentWriter::new(Vec::new());
            w.write_all(&doc[..cut]).unwrap();
            w.write_all(&doc[cut..]).unwrap();
            assert_eq!(w.finish().unwrap(), whole, "cut at {cut}");
        }
    }
}
