//! HTTP/1.1 wire handling the way kube-apiserver's Go `net/http` server does it: keep-alive
//! connections, request bodies (`Content-Length` or chunked, `Expect: 100-continue`), and
//! response bodies framed like Go frames them (`Content-Length` up to 2 KiB, chunked above,
//! read-until-close for HTTP/1.0 clients), gzip (level 1) when the apiserver would compress.

use std::io::{self, BufWriter, Read, Write};
use std::net::TcpStream;
use std::time::{SystemTime, UNIX_EPOCH};

use flate2::write::GzEncoder;
use flate2::Compression;

use crate::indent::IndentWriter;

/// `defaultGzipThresholdBytes` (responsewriters/writers.go): a body is gzipped only when
/// larger than this.
pub const GZIP_THRESHOLD: usize = 128 * 1024;
/// Go's `bufferBeforeChunkingSize`: a handler that writes at most this much gets a
/// `Content-Length`; more and the response is chunked.
pub const CHUNKING_THRESHOLD: usize = 2048;
/// Largest request head and body the sim reads (the apiserver's body limit is 3 MiB).
const MAX_HEAD: usize = 1 << 20;
const MAX_BODY: usize = 3 << 20;

/// A parsed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// Path and query, as sent.
    pub target: String,
    /// An HTTP/1.0 request (no chunked responses, closes unless keep-alive).
    pub http10: bool,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The first value of a header (Go's `Header.Get`).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn path(&self) -> &str {
        self.target.split_once('?').map_or(&self.target, |(p, _)| p)
    }
    pub fn query(&self) -> &str {
        self.target.split_once('?').map_or("", |(_, q)| q)
    }
    /// Whether the connection ends after this response (Go's `wantsClose` / HTTP/1.0).
    pub fn wants_close(&self) -> bool {
        let conn = self.header("connection").unwrap_or("");
        let has = |t: &str| conn.split(',').any(|v| v.trim().eq_ignore_ascii_case(t));
        if self.http10 {
            !has("keep-alive")
        } else {
            has("close")
        }
    }
}

/// Why a request could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The peer closed (or went idle past the timeout) between requests.
    Closed,
    /// Malformed or too large: answer 400 and close.
    Bad(&'static str),
    Io(io::Error),
}

/// The reading side of a connection, keeping bytes that arrived past one request.
pub struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    pub fn new(stream: TcpStream) -> Conn {
        Conn {
            stream,
            buf: Vec::new(),
        }
    }

    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }

    fn fill(&mut self) -> Result<usize, ReadError> {
        let mut tmp = [0u8; 8192];
        let read = loop {
            match self.stream.read(&mut tmp) {
                // A signal (a child process ending) interrupted the read: nothing was
                // read, read again, as Go's runtime does.
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                read => break read,
            }
        };
        match read {
            Ok(n) => {
                self.buf.extend_from_slice(&tmp[..n]);
                Ok(n)
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::ConnectionReset
                ) =>
            {
                Err(ReadError::Closed)
            }
            Err(e) => Err(ReadError::Io(e)),
        }
    }

    /// Reads the next request (answering `Expect: 100-continue` on the way).
    pub fn read_request(&mut self) -> Result<Request, ReadError> {
        let head_end = loop {
            if let Some(p) = find(&self.buf, b"\r\n\r\n") {
                break p;
            }
            if self.buf.len() > MAX_HEAD {
                return Err(ReadError::Bad("request head too large"));
            }
            if self.fill()? == 0 {
                return Err(ReadError::Closed);
            }
        };
        let head = String::from_utf8_lossy(&self.buf[..head_end]).into_owned();
        self.buf.drain(..head_end + 4);
        let mut lines = head.split("\r\n");
        let first = lines.next().unwrap_or("");
        let mut parts = first.split(' ');
        let (Some(method), Some(target), Some(version)) =
            (parts.next(), parts.next(), parts.next())
        else {
            return Err(ReadError::Bad("malformed request line"));
        };
        if !version.starts_with("HTTP/1.") || method.is_empty() || !target.starts_with('/') {
            return Err(ReadError::Bad("malformed request line"));
        }
        let mut headers = Vec::new();
        for line in lines {
            let Some((k, v)) = line.split_once(':') else {
                return Err(ReadError::Bad("malformed header line"));
            };
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
        let mut req = Request {
            method: method.to_string(),
            target: target.to_string(),
            http10: version == "HTTP/1.0",
            headers,
            body: Vec::new(),
        };
        let chunked = req
            .header("transfer-encoding")
            .is_some_and(|te| te.to_ascii_lowercase().contains("chunked"));
        let length = match req.header("content-length") {
            Some(v) => Some(
                v.parse::<usize>()
                    .map_err(|_| ReadError::Bad("bad Content-Length"))?,
            ),
            None => None,
        };
        if (chunked || length.is_some_and(|n| n > 0))
            && req
                .header("expect")
                .is_some_and(|e| e.eq_ignore_ascii_case("100-continue"))
        {
            let _ = (&self.stream).write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
        }
        if chunked {
            req.body = self.read_chunked_body()?;
        } else if let Some(n) = length {
            if n > MAX_BODY {
                return Err(ReadError::Bad("request body too large"));
            }
            while self.buf.len() < n {
                if self.fill()? == 0 {
                    return Err(ReadError::Bad("request body cut short"));
                }
            }
            req.body = self.buf.drain(..n).collect();
        }
        Ok(req)
    }

    fn read_chunked_body(&mut self) -> Result<Vec<u8>, ReadError> {
        let mut body = Vec::new();
        loop {
            let line_end = loop {
                if let Some(p) = find(&self.buf, b"\r\n") {
                    break p;
                }
                if self.fill()? == 0 {
                    return Err(ReadError::Bad("chunked body cut short"));
                }
            };
            let line = String::from_utf8_lossy(&self.buf[..line_end]).into_owned();
            self.buf.drain(..line_end + 2);
            let size_text = line.split(';').next().unwrap_or("").trim();
            let size = usize::from_str_radix(size_text, 16)
                .map_err(|_| ReadError::Bad("bad chunk size"))?;
            if body.len() + size > MAX_BODY {
                return Err(ReadError::Bad("request body too large"));
            }
            if size == 0 {
                // Trailers (ignored) up to the empty line.
                loop {
                    let end = loop {
                        if let Some(p) = find(&self.buf, b"\r\n") {
                            break p;
                        }
                        if self.fill()? == 0 {
                            return Err(ReadError::Bad("chunked body cut short"));
                        }
                    };
                    self.buf.drain(..end + 2);
                    if end == 0 {
                        return Ok(body);
                    }
                }
            }
            while self.buf.len() < size + 2 {
                if self.fill()? == 0 {
                    return Err(ReadError::Bad("chunked body cut short"));
                }
            }
            body.extend_from_slice(&self.buf[..size]);
            self.buf.drain(..size + 2);
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The reason phrase Go writes for a status code.
pub fn reason(code: u16) -> &'static str {
    match code {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        304 => "Not Modified",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        410 => "Gone",
        413 => "Request Entity Too Large",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

/// `Date` as Go writes it (IMF-fixdate, RFC 9110).
pub fn http_date(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    kubelive_kube::time::http_date(secs as i64)
}

/// How a body leaves: as is, or re-indented (the pretty serializer), and whether the client
/// accepts gzip (`Accept-Encoding` has a `gzip` token: `ContentEncodingSupported`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BodyOptions {
    pub pretty: bool,
    pub gzip_ok: bool,
}

/// Whether `Accept-Encoding` names gzip the way the apiserver checks it: a comma-separated
/// token exactly `gzip` (so `gzip;q=0` does not count, as there).
pub fn accepts_gzip(accept_encoding: Option<&str>) -> bool {
    accept_encoding.is_some_and(|v| v.split(',').any(|t| t.trim() == "gzip"))
}

/// A response head: status and headers (without framing, which the writer adds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

impl Head {
    /// The head on the wire: status line, headers sorted by name (as Go writes them), then
    /// `Date`, the framing and `Connection: close`.
    pub fn render(&self, framing: &Framing, close: bool) -> String {
        let mut headers: Vec<&(String, String)> = self.headers.iter().collect();
        headers.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = format!("HTTP/1.1 {} {}\r\n", self.status, reason(self.status));
        for (k, v) in headers {
            out.push_str(&format!("{k}: {v}\r\n"));
        }
        out.push_str(&format!("Date: {}\r\n", http_date(SystemTime::now())));
        if let Framing::Length(n) = framing {
            out.push_str(&format!("Content-Length: {n}\r\n"));
        }
        if close {
            out.push_str("Connection: close\r\n");
        }
        if let Framing::Chunked = framing {
            out.push_str("Transfer-Encoding: chunked\r\n");
        }
        out.push_str("\r\n");
        out
    }
}

/// How a body is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    Length(usize),
    Chunked,
    /// HTTP/1.0: the body ends when the connection closes.
    UntilClose,
}

/// Writes each `write` as one HTTP chunk; `finish` writes the terminating chunk.
pub struct ChunkedWriter<W: Write> {
    out: W,
}

impl<W: Write> ChunkedWriter<W> {
    pub fn new(out: W) -> Self {
        ChunkedWriter { out }
    }
    pub fn finish(mut self) -> io::Result<W> {
        self.out.write_all(b"0\r\n\r\n")?;
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<W: Write> Write for ChunkedWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if data.is_empty() {
            return Ok(0);
        }
        write!(self.out, "{:x}\r\n", data.len())?;
        self.out.write_all(data)?;
        self.out.write_all(b"\r\n")?;
        Ok(data.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// What a response body turns into on the wire.
struct Plan<'a> {
    /// The bytes to send (already re-indented when small).
    bytes: std::borrow::Cow<'a, [u8]>,
    /// Re-indent while sending (a large pretty body is never held twice).
    indent_stream: bool,
    gzip: bool,
}

fn plan(body: &[u8], opts: BodyOptions) -> Plan<'_> {
    // The apiserver decides on gzip from the size of what its serializer wrote, pretty or
    // not; indenting only grows a body, so a large one is over the threshold either way.
    if opts.pretty && body.len() <= GZIP_THRESHOLD {
        let bytes = crate::indent::indent(body);
        let gzip = opts.gzip_ok && bytes.len() > GZIP_THRESHOLD;
        return Plan {
            bytes: bytes.into(),
            indent_stream: false,
            gzip,
        };
    }
    Plan {
        gzip: opts.gzip_ok && body.len() > GZIP_THRESHOLD,
        indent_stream: opts.pretty,
        bytes: body.into(),
    }
}

fn copy_body(w: &mut dyn Write, bytes: &[u8], indent: bool) -> io::Result<()> {
    if indent {
        let mut iw = IndentWriter::new(w);
        iw.write_all(bytes)?;
        iw.finish()?;
        Ok(())
    } else {
        w.write_all(bytes)
    }
}

fn send_body(w: &mut dyn Write, plan: &Plan<'_>) -> io::Result<()> {
    if plan.gzip {
        // Level 1, as the apiserver's gzip pool (`defaultGzipContentEncodingLevel`).
        let mut gz = GzEncoder::new(w, Compression::new(1));
        copy_body(&mut gz, &plan.bytes, plan.indent_stream)?;
        gz.finish()?;
        Ok(())
    } else {
        copy_body(w, &plan.bytes, plan.indent_stream)
    }
}

/// Writes a whole response. `close`: the connection ends after it (adds
/// `Connection: close`); `omit_body` for HEAD. Head and small bodies go out in one write;
/// a large body is never copied (a list of 100k pods is 570 MB).
pub fn write_response(
    stream: &mut impl Write,
    head: &Head,
    body: &[u8],
    opts: BodyOptions,
    close: bool,
    http10: bool,
    omit_body: bool,
) -> io::Result<()> {
    let plan = plan(body, opts);
    let mut head = head.clone();
    if plan.gzip {
        head.headers
            .push(("Content-Encoding".into(), "gzip".into()));
        head.headers.push(("Vary".into(), "Accept-Encoding".into()));
    }
    let streamed = plan.gzip || plan.indent_stream;
    let framing = if http10 && (streamed || plan.bytes.len() > CHUNKING_THRESHOLD) {
        Framing::UntilClose
    } else if streamed || plan.bytes.len() > CHUNKING_THRESHOLD {
        Framing::Chunked
    } else {
        Framing::Length(plan.bytes.len())
    };
    let close = close || framing == Framing::UntilClose;
    let mut w = BufWriter::with_capacity(64 * 1024, stream);
    w.write_all(head.render(&framing, close).as_bytes())?;
    if omit_body {
        return w.flush();
    }
    match framing {
        Framing::Length(_) | Framing::UntilClose => send_body(&mut w, &plan)?,
        Framing::Chunked => {
            // Go's response buffer (2 KiB) sits in front of its chunk writer: small writes
            // are gathered into 2 KiB chunks, a large write is one chunk.
            let mut chunks =
                BufWriter::with_capacity(CHUNKING_THRESHOLD, ChunkedWriter::new(&mut w));
            send_body(&mut chunks, &plan)?;
            let chunked = chunks.into_inner().map_err(|e| e.into_error())?;
            chunked.finish()?;
        }
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        // 2024-02-29T13:04:05Z, a Thursday.
        let t = UNIX_EPOCH + std::time::Duration::from_secs(1_709_211_845);
        assert_eq!(http_date(t), "Thu, 29 Feb 2024 13:04:05 GMT");
        assert_eq!(http_date(UNIX_EPOCH), "Thu, 01 Jan 1970 00:00:00 GMT");
    }

    #[test]
    fn gzip_tokens() {
        assert!(accepts_gzip(Some("gzip")));
        assert!(accepts_gzip(Some("gzip, deflate, br, zstd")));
        assert!(accepts_gzip(Some("deflate , gzip")));
        assert!(!accepts_gzip(Some("gzip;q=1.0")));
        assert!(!accepts_gzip(Some("deflate")));
        assert!(!accepts_gzip(None));
    }

    #[test]
    fn gzip_threshold_is_strictly_over_128_kib() {
        let on = BodyOptions {
            pretty: false,
            gzip_ok: true,
        };
        assert!(!plan(&vec![b' '; GZIP_THRESHOLD], on).gzip);
        assert!(plan(&vec![b' '; GZIP_THRESHOLD + 1], on).gzip);
        let off = BodyOptions {
            pretty: false,
            gzip_ok: false,
        };
        assert!(!plan(&vec![b' '; GZIP_THRESHOLD + 1], off).gzip);
        // Indenting can carry a body over the threshold: the size that counts is the
        // pretty one, as the apiserver measures what its serializer wrote.
        let compact = format!("[{}1]", "1,".repeat(GZIP_THRESHOLD / 2 - 10));
        assert!(compact.len() <= GZIP_THRESHOLD);
        let pretty = plan(
            compact.as_bytes(),
            BodyOptions {
                pretty: true,
                gzip_ok: true,
            },
        );
        assert!(pretty.gzip && !pretty.indent_stream);
    }

    #[test]
    fn chunks() {
        let mut w = ChunkedWriter::new(Vec::new());
        w.write_all(b"hello").unwrap();
        w.write_all(&[b'x'; 20]).unwrap();
        let out = w.finish().unwrap();
        assert_eq!(
            out,
            [&b"5\r\nhello\r\n14\r\n"[..], &[b'x'; 20], b"\r\n0\r\n\r\n"].concat()
        );
    }
}
