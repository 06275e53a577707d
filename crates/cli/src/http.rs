//! A small HTTP/1.1 client over `std::net`: one GET per connection (`Connection: close`),
//! a sans-io response parser (head, `Content-Length`, chunked, read-until-close) and the
//! blocking helpers the driver's I/O threads and discovery use.
//!
//! The parser is fed bytes split anywhere and yields [`Part`]s. A body that ends before
//! its framing says it should (EOF inside a chunk, before the terminating `0` chunk, or
//! short of `Content-Length`) is an error, never a clean end: a watch cut by a dying
//! proxy must not look like a server-side timeout.

use std::fmt;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// Longest response head accepted.
const MAX_HEAD: usize = 64 * 1024;
/// Longest chunk-size line or trailer line accepted.
const MAX_LINE: usize = 4 * 1024;

/// An `http://host:port[/prefix]` base URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaseUrl {
    pub host: String,
    pub port: u16,
    /// Path prefix without trailing slash (`""` or e.g. `/k8s`).
    pub prefix: String,
}

impl BaseUrl {
    pub fn parse(s: &str) -> Result<BaseUrl, String> {
        let rest = if let Some(r) = s.strip_prefix("http://") {
            r
        } else if s.starts_with("https://") {
            return Err(format!(
                "{s}: https is not supported; run `kubectl proxy` and use its http://127.0.0.1:8001"
            ));
        } else if s.contains("://") {
            return Err(format!("{s}: only http:// URLs are supported"));
        } else {
            s
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        if authority.is_empty() {
            return Err(format!("{s}: no host"));
        }
        let (host, port) = if let Some(inner) = authority.strip_prefix('[') {
            // [::1]:8001
            let end = inner
                .find(']')
                .ok_or_else(|| format!("{s}: unterminated IPv6 address"))?;
            let host = &inner[..end];
            let after = &inner[end + 1..];
            let port = match after.strip_prefix(':') {
                Some(p) => p.parse().map_err(|_| format!("{s}: bad port {p:?}"))?,
                None if after.is_empty() => 80,
                None => return Err(format!("{s}: bad authority")),
            };
            (host.to_string(), port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (
                    h.to_string(),
                    p.parse().map_err(|_| format!("{s}: bad port {p:?}"))?,
                ),
                None => (authority.to_string(), 80),
            }
        };
        if host.is_empty() {
            return Err(format!("{s}: no host"));
        }
        if path.contains(['?', '#']) {
            return Err(format!("{s}: the server URL must not have a query"));
        }
        Ok(BaseUrl {
            host,
            port,
            prefix: path.trim_end_matches('/').to_string(),
        })
    }

    /// The `Host` header value.
    pub fn host_header(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

impl fmt::Display for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "http://{}{}", self.host_header(), self.prefix)
    }
}

/// The GET request bytes for `path` (path and query, starting with `/`).
pub fn request_bytes(base: &BaseUrl, path: &str) -> Vec<u8> {
    format!(
        "GET {}{} HTTP/1.1\r\nHost: {}\r\nUser-Agent: kubelive/{}\r\nAccept: application/json\r\nConnection: close\r\n\r\n",
        base.prefix,
        path,
        base.host_header(),
        env!("CARGO_PKG_VERSION"),
    )
    .into_bytes()
}

/// What the parser found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    Head {
        status: u16,
        headers: Vec<(String, String)>,
    },
    Body(Vec<u8>),
    /// The body ended as its framing says it should.
    End,
}

/// The response broke its framing or ended early.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HttpError {
    Malformed(String),
    /// EOF before the response (head or body) was complete.
    UnexpectedEof(String),
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HttpError::Malformed(m) => write!(f, "malformed HTTP response: {m}"),
            HttpError::UnexpectedEof(m) => write!(f, "unexpected EOF {m}"),
        }
    }
}

impl std::error::Error for HttpError {}

#[derive(Debug)]
enum Chunked {
    /// Reading the `size[;ext]\r\n` line.
    Size,
    Data(u64),
    /// The `\r\n` after a chunk's data.
    DataEnd,
    /// Trailer lines after the `0` chunk, until an empty line.
    Trailers,
}

#[derive(Debug)]
enum State {
    Head,
    Chunked(Chunked),
    Length(u64),
    UntilClose,
    Done,
    Failed,
}

/// A sans-io HTTP/1.1 response parser.
#[derive(Debug)]
pub struct ResponseParser {
    state: State,
    /// Unconsumed bytes of the head or of a chunk line.
    buf: Vec<u8>,
}

impl Default for ResponseParser {
    fn default() -> Self {
        Self::new()
    }
}

impl ResponseParser {
    pub fn new() -> Self {
        ResponseParser {
            state: State::Head,
            buf: Vec::new(),
        }
    }

    /// Whether the response is complete (nothing more to read).
    pub fn is_done(&self) -> bool {
        matches!(self.state, State::Done)
    }

    /// Feeds bytes (split anywhere); appends what they complete to `out`.
    pub fn feed(&mut self, mut bytes: &[u8], out: &mut Vec<Part>) -> Result<(), HttpError> {
        let r = self.feed_inner(&mut bytes, out);
        if r.is_err() {
            self.state = State::Failed;
        }
        r
    }

    fn feed_inner(&mut self, bytes: &mut &[u8], out: &mut Vec<Part>) -> Result<(), HttpError> {
        while !bytes.is_empty() {
            match &mut self.state {
                State::Head => {
                    // Look for the blank line, also across the previous buffer's end.
                    let start = self.buf.len().saturating_sub(3);
                    self.buf.extend_from_slice(bytes);
                    *bytes = &[];
                    let Some(pos) = find(&self.buf[start..], b"\r\n\r\n") else {
                        if self.buf.len() > MAX_HEAD {
                            return Err(HttpError::Malformed("response head too long".into()));
                        }
                        continue;
                    };
                    let end = start + pos + 4;
                    let rest = self.buf.split_off(end);
                    let head = std::mem::take(&mut self.buf);
                    let (status, headers) = parse_head(&head)?;
                    if (100..200).contains(&status) {
                        // 100 Continue and friends: another head follows.
                        let mut slice: &[u8] = &rest;
                        return self.feed_inner(&mut slice, out);
                    }
                    self.state = body_framing(status, &headers)?;
                    out.push(Part::Head { status, headers });
                    if matches!(self.state, State::Done) {
                        out.push(Part::End);
                        return Ok(());
                    }
                    let mut slice: &[u8] = &rest;
                    return self.feed_inner(&mut slice, out);
                }
                State::Length(remaining) => {
                    let n = (*remaining).min(bytes.len() as u64) as usize;
                    out.push(Part::Body(bytes[..n].to_vec()));
                    *remaining -= n as u64;
                    *bytes = &bytes[n..];
                    if *remaining == 0 {
                        self.state = State::Done;
                        out.push(Part::End);
                    }
                }
                State::UntilClose => {
                    out.push(Part::Body(bytes.to_vec()));
                    *bytes = &[];
                }
                State::Chunked(c) => match c {
                    Chunked::Size => {
                        let Some(line) = take_line(&mut self.buf, bytes)? else {
                            continue;
                        };
                        let size = parse_chunk_size(&line)?;
                        *c = if size == 0 {
                            Chunked::Trailers
                        } else {
                            Chunked::Data(size)
                        };
                    }
                    Chunked::Data(remaining) => {
                        let n = (*remaining).min(bytes.len() as u64) as usize;
                        out.push(Part::Body(bytes[..n].to_vec()));
                        *remaining -= n as u64;
                        *bytes = &bytes[n..];
                        if *remaining == 0 {
                            *c = Chunked::DataEnd;
                        }
                    }
                    Chunked::DataEnd => {
                        let Some(line) = take_line(&mut self.buf, bytes)? else {
                            continue;
                        };
                        if !line.is_empty() {
                            return Err(HttpError::Malformed(
                                "chunk data longer than its size".into(),
                            ));
                        }
                        *c = Chunked::Size;
                    }
                    Chunked::Trailers => {
                        let Some(line) = take_line(&mut self.buf, bytes)? else {
                            continue;
                        };
                        if line.is_empty() {
                            self.state = State::Done;
                            out.push(Part::End);
                        }
                    }
                },
                State::Done => {
                    // Bytes after the response: ignore (Connection: close).
                    *bytes = &[];
                }
                State::Failed => {
                    return Err(HttpError::Malformed("parser already failed".into()));
                }
            }
        }
        Ok(())
    }

    /// The connection reached EOF. A response read until close ends here; any other
    /// framing that is not complete is an [`HttpError::UnexpectedEof`].
    pub fn eof(&mut self, out: &mut Vec<Part>) -> Result<(), HttpError> {
        let r = match &self.state {
            State::UntilClose => {
                out.push(Part::End);
                self.state = State::Done;
                Ok(())
            }
            State::Done => Ok(()),
            State::Head => Err(HttpError::UnexpectedEof(if self.buf.is_empty() {
                "before the response head (connection closed)".into()
            } else {
                "inside the response head".into()
            })),
            State::Length(n) => Err(HttpError::UnexpectedEof(format!(
                "with {n} body bytes still expected"
            ))),
            State::Chunked(Chunked::Data(n)) => Err(HttpError::UnexpectedEof(format!(
                "inside a chunk ({n} bytes missing)"
            ))),
            State::Chunked(_) => Err(HttpError::UnexpectedEof(
                "before the terminating chunk".into(),
            )),
            State::Failed => Err(HttpError::Malformed("parser already failed".into())),
        };
        if r.is_err() {
            self.state = State::Failed;
        }
        r
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Takes one CRLF-terminated line (without the CRLF) from `buf` + `bytes`, consuming
/// from `bytes` only what the line needs.
fn take_line(buf: &mut Vec<u8>, bytes: &mut &[u8]) -> Result<Option<Vec<u8>>, HttpError> {
    match bytes.iter().position(|&b| b == b'\n') {
        Some(i) => {
            buf.extend_from_slice(&bytes[..=i]);
            *bytes = &bytes[i + 1..];
            let mut line = std::mem::take(buf);
            line.pop(); // \n
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if line.len() > MAX_LINE {
                return Err(HttpError::Malformed("chunk line too long".into()));
            }
            Ok(Some(line))
        }
        None => {
            buf.extend_from_slice(bytes);
            *bytes = &[];
            if buf.len() > MAX_LINE {
                return Err(HttpError::Malformed("chunk line too long".into()));
            }
            Ok(None)
        }
    }
}

fn parse_chunk_size(line: &[u8]) -> Result<u64, HttpError> {
    let text = std::str::from_utf8(line)
        .map_err(|_| HttpError::Malformed("chunk size is not text".into()))?;
    let hex = text.split(';').next().unwrap_or("").trim();
    if hex.is_empty() || hex.len() > 15 {
        return Err(HttpError::Malformed(format!("bad chunk size {text:?}")));
    }
    u64::from_str_radix(hex, 16)
        .map_err(|_| HttpError::Malformed(format!("bad chunk size {text:?}")))
}

type Head = (u16, Vec<(String, String)>);

fn parse_head(head: &[u8]) -> Result<Head, HttpError> {
    let text = String::from_utf8_lossy(head);
    let mut lines = text.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let mut words = status_line.splitn(3, ' ');
    let version = words.next().unwrap_or("");
    if !version.starts_with("HTTP/1.") {
        let shown: String = status_line.chars().take(60).collect();
        return Err(HttpError::Malformed(format!(
            "not an HTTP/1.x status line: {shown:?}"
        )));
    }
    let status: u16 = words
        .next()
        .and_then(|s| s.parse().ok())
        .filter(|s| (100..1000).contains(s))
        .ok_or_else(|| HttpError::Malformed(format!("bad status line {status_line:?}")))?;
    let mut headers = Vec::new();
    for line in lines {
        if line.is_empty() {
            continue;
        }
        let (k, v) = line
            .split_once(':')
            .ok_or_else(|| HttpError::Malformed(format!("bad header line {line:?}")))?;
        headers.push((k.trim().to_string(), v.trim().to_string()));
    }
    Ok((status, headers))
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn body_framing(status: u16, headers: &[(String, String)]) -> Result<State, HttpError> {
    if status == 204 || status == 304 {
        return Ok(State::Done);
    }
    if let Some(te) = header(headers, "transfer-encoding") {
        let last = te.rsplit(',').next().unwrap_or("").trim();
        if last.eq_ignore_ascii_case("chunked") {
            return Ok(State::Chunked(Chunked::Size));
        }
        return Ok(State::UntilClose);
    }
    if let Some(cl) = header(headers, "content-length") {
        let n: u64 = cl
            .trim()
            .parse()
            .map_err(|_| HttpError::Malformed(format!("bad Content-Length {cl:?}")))?;
        return Ok(if n == 0 {
            State::Done
        } else {
            State::Length(n)
        });
    }
    Ok(State::UntilClose)
}

/// Connects to `base` with a timeout on connecting only.
pub fn connect(base: &BaseUrl, timeout: Duration) -> Result<TcpStream, String> {
    let addrs: Vec<_> = (base.host.as_str(), base.port)
        .to_socket_addrs()
        .map_err(|e| format!("{}: {e}", base.host_header()))?
        .collect();
    let mut last = format!("{}: no address", base.host_header());
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(s) => {
                let _ = s.set_nodelay(true);
                return Ok(s);
            }
            Err(e) => last = format!("{addr}: {e}"),
        }
    }
    Err(last)
}

/// A whole response, read by [`get`].
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }
}

/// Why [`get`] failed below HTTP.
#[derive(Debug)]
pub enum GetError {
    Connect(String),
    Io(String),
}

impl fmt::Display for GetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GetError::Connect(m) => write!(f, "cannot connect: {m}"),
            GetError::Io(m) => write!(f, "connection lost: {m}"),
        }
    }
}

/// A blocking GET of a small document (discovery), with connect and read timeouts.
pub fn get(base: &BaseUrl, path: &str, timeout: Duration) -> Result<Response, GetError> {
    let mut stream = connect(base, timeout).map_err(GetError::Connect)?;
    let io = |e: std::io::Error| GetError::Io(e.to_string());
    stream.set_read_timeout(Some(timeout)).map_err(io)?;
    stream.set_write_timeout(Some(timeout)).map_err(io)?;
    stream.write_all(&request_bytes(base, path)).map_err(io)?;
    let mut parser = ResponseParser::new();
    let mut parts = Vec::new();
    let mut buf = vec![0u8; 16 * 1024];
    let mut response = Response {
        status: 0,
        headers: Vec::new(),
        body: Vec::new(),
    };
    loop {
        let n = stream.read(&mut buf).map_err(io)?;
        let fed = if n == 0 {
            parser.eof(&mut parts)
        } else {
            parser.feed(&buf[..n], &mut parts)
        };
        for part in parts.drain(..) {
            match part {
                Part::Head { status, headers } => {
                    response.status = status;
                    response.headers = headers;
                }
                Part::Body(b) => {
                    if response.body.len() + b.len() > 64 * 1024 * 1024 {
                        return Err(GetError::Io("response larger than 64 MiB".into()));
                    }
                    response.body.extend_from_slice(&b);
                }
                Part::End => {
                    let _ = stream.shutdown(Shutdown::Both);
                    return Ok(response);
                }
            }
        }
        fed.map_err(|e| GetError::Io(e.to_string()))?;
        if n == 0 {
            return Err(GetError::Io("connection closed".into()));
        }
    }
}
