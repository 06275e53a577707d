//! A small HTTP/1.1 client over `std::net`: GETs over kept-alive connections (a
//! [`Pool`] of idle ones, retried once on a fresh connection if a pooled one turns out
//! dead), gzip bodies decoded chunk by chunk ([`BodyDecoding`]), TCP keepalive on every
//! socket, a sans-io response parser (head, `Content-Length`, chunked, read-until-close)
//! and the blocking helpers the driver's I/O threads and discovery use.
//!
//! The parser is fed bytes split anywhere and yields [`Part`]s. A body that ends before
//! its framing says it should (EOF inside a chunk, before the terminating `0` chunk, or
//! short of `Content-Length`) is an error, never a clean end: a watch cut by a dying
//! proxy must not look like a server-side timeout.

use flate2::write::MultiGzDecoder;
use std::fmt;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::Mutex;
use std::time::{Duration, Instant};

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

/// The GET request bytes for `path` (path and query, starting with `/`) with
/// `Accept: accept` (the engine's: server-side tables or plain JSON). HTTP/1.1 keeps
/// the connection alive unless a side says otherwise; gzip is welcome.
pub fn request_bytes(base: &BaseUrl, path: &str, accept: &str) -> Vec<u8> {
    format!(
        "GET {}{} HTTP/1.1\r\nHost: {}\r\nUser-Agent: kubelive/{}\r\nAccept: {accept}\r\nAccept-Encoding: gzip\r\n\r\n",
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
    /// The response lets the connection carry another request (HTTP/1.1 without
    /// `Connection: close`, framed by length or chunks).
    keep_alive: bool,
    /// Bytes came after the response: the connection is not clean.
    trailing: bool,
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
            keep_alive: false,
            trailing: false,
        }
    }

    /// Whether the response is complete (nothing more to read).
    pub fn is_done(&self) -> bool {
        matches!(self.state, State::Done)
    }

    /// Whether the connection may carry the next request: the response is complete,
    /// its framing ended it (not the connection's close), nothing followed it, and
    /// neither HTTP version nor `Connection` header closes it.
    pub fn reusable(&self) -> bool {
        self.is_done() && self.keep_alive && !self.trailing
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
                    let close = header(&headers, "connection").is_some_and(|v| {
                        v.split(',').any(|t| t.trim().eq_ignore_ascii_case("close"))
                    });
                    self.keep_alive = head.starts_with(b"HTTP/1.1")
                        && !close
                        && !matches!(self.state, State::UntilClose);
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
                    // Bytes after the response: ignored, and the connection is not reused.
                    self.trailing = true;
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

/// The value of header `name` (case-insensitive), if present.
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
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

/// Why a connection could not be made, for a clear message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConnectError {
    /// Nothing listens there.
    Refused(String),
    TimedOut(String),
    /// The host name does not resolve.
    Unresolved(String),
    Other(String),
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectError::Refused(m)
            | ConnectError::TimedOut(m)
            | ConnectError::Unresolved(m)
            | ConnectError::Other(m) => f.write_str(m),
        }
    }
}

/// Probes for a dead peer on an idle connection (a watch): after 30 s of silence,
/// then every 10 s. The engine's own deadlines decide; this only makes the kernel
/// report a peer that is gone instead of waiting forever.
const KEEPALIVE_IDLE: Duration = Duration::from_secs(30);
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(10);

/// Connects to `base` with a timeout on connecting only, TCP keepalive on.
pub fn connect(base: &BaseUrl, timeout: Duration) -> Result<TcpStream, ConnectError> {
    let addrs: Vec<_> = (base.host.as_str(), base.port)
        .to_socket_addrs()
        .map_err(|e| ConnectError::Unresolved(format!("{}: {e}", base.host_header())))?
        .collect();
    let mut last = ConnectError::Unresolved(format!("{}: no address", base.host_header()));
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(s) => {
                let _ = s.set_nodelay(true);
                let keepalive = socket2::TcpKeepalive::new()
                    .with_time(KEEPALIVE_IDLE)
                    .with_interval(KEEPALIVE_INTERVAL);
                let _ = socket2::SockRef::from(&s).set_tcp_keepalive(&keepalive);
                return Ok(s);
            }
            Err(e) => {
                let m = format!("{addr}: {e}");
                last = match e.kind() {
                    std::io::ErrorKind::ConnectionRefused => ConnectError::Refused(m),
                    std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => {
                        ConnectError::TimedOut(m)
                    }
                    _ => ConnectError::Other(m),
                }
            }
        }
    }
    Err(last)
}

/// What kubectl says when it cannot reach its server, for kubelive's setup: where it
/// tried, and what to check.
pub fn unreachable_hint(base: &BaseUrl, e: &ConnectError) -> String {
    let what = match e {
        ConnectError::Refused(_) => "was refused",
        ConnectError::TimedOut(_) => "timed out",
        ConnectError::Unresolved(_) => "failed: no such host",
        ConnectError::Other(_) => "failed",
    };
    format!(
        "The connection to the server {} {what} - is `kubectl proxy` running (it listens on \
         {} by default)? Start it with `kubectl proxy`, or pass --server URL. ({e})",
        base.host_header(),
        crate::args::DEFAULT_SERVER,
    )
}

/// Idle kept-alive connections to the server, newest last.
#[derive(Debug, Default)]
pub struct Pool {
    idle: Mutex<Vec<(TcpStream, Instant)>>,
}

/// A connection idle longer than this may have been closed by the server (Go's
/// servers and proxies close idle ones after 30-90 s): not worth trying.
const MAX_IDLE: Duration = Duration::from_secs(20);
const MAX_POOLED: usize = 4;

impl Pool {
    /// An idle connection, if one is fresh enough.
    pub fn take(&self) -> Option<TcpStream> {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        idle.retain(|(_, since)| since.elapsed() < MAX_IDLE);
        idle.pop().map(|(s, _)| s)
    }

    /// Keeps a connection whose response ended cleanly for the next request.
    pub fn put(&self, stream: TcpStream) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < MAX_POOLED {
            idle.push((stream, Instant::now()));
        }
    }
}

/// Undoes a response's `Content-Encoding`, chunk by chunk: a compressed watch or list
/// still reaches the engine as its bytes arrive.
pub enum BodyDecoding {
    Identity,
    /// Every gzip member in turn, as Go's reader does: kube-apiserver 1.37 closes the
    /// gzip stream on every flush of a streaming list, so its body is one member per
    /// flush (`perFlushGzipWriter`, staging/src/k8s.io/apiserver/pkg/endpoints/
    /// handlers/watch.go). `None` until the first byte: an empty body is an empty body
    /// (Go's transport reads it so).
    Gzip(Option<Box<MultiGzDecoder<Vec<u8>>>>),
}

impl BodyDecoding {
    pub fn for_headers(headers: &[(String, String)]) -> Result<BodyDecoding, String> {
        match header(headers, "content-encoding").map(str::trim) {
            None | Some("") => Ok(BodyDecoding::Identity),
            Some(e) if e.eq_ignore_ascii_case("identity") => Ok(BodyDecoding::Identity),
            Some(e) if e.eq_ignore_ascii_case("gzip") || e.eq_ignore_ascii_case("x-gzip") => {
                Ok(BodyDecoding::Gzip(None))
            }
            Some(e) => Err(format!("unsupported Content-Encoding {e:?}")),
        }
    }

    /// The decoded bytes of one piece of the body (possibly none yet), in pieces of at
    /// most [`MAX_PIECE`] bytes: 64 KiB of gzip may inflate twentyfold (a thousandfold
    /// at worst), and what a reader queues for the engine is bounded by pieces, not
    /// bytes. Whatever a member's bytes so far decode to comes out at once: a watch
    /// event must not wait for the next one.
    pub fn feed(&mut self, bytes: Vec<u8>) -> Result<Vec<Vec<u8>>, String> {
        let decoder = match self {
            BodyDecoding::Identity => return Ok(pieces(bytes)),
            BodyDecoding::Gzip(decoder) => decoder,
        };
        if bytes.is_empty() {
            return Ok(Vec::new());
        }
        let d = decoder.get_or_insert_with(|| Box::new(MultiGzDecoder::new(Vec::new())));
        d.write_all(&bytes)
            .and_then(|_| d.flush())
            .map_err(|e| format!("bad gzip body: {e}"))?;
        Ok(pieces(std::mem::take(d.get_mut())))
    }

    /// The body ended: whatever the decoder still held, in pieces as [`Self::feed`]'s.
    /// A body that ends inside a member is an error.
    pub fn finish(&mut self) -> Result<Vec<Vec<u8>>, String> {
        match self {
            BodyDecoding::Identity | BodyDecoding::Gzip(None) => Ok(Vec::new()),
            BodyDecoding::Gzip(Some(d)) => {
                d.try_finish().map_err(|e| {
                    if e.kind() == std::io::ErrorKind::UnexpectedEof {
                        "bad gzip body: it ends inside a gzip member".to_string()
                    } else {
                        // flate2 says "checksum" for a trailer cut short, too.
                        format!("bad gzip body: its last member is cut short or corrupt ({e})")
                    }
                })?;
                Ok(pieces(std::mem::take(d.get_mut())))
            }
        }
    }
}

/// The most decoded bytes [`BodyDecoding`] hands over in one piece (a network read's).
pub const MAX_PIECE: usize = 64 * 1024;

fn pieces(bytes: Vec<u8>) -> Vec<Vec<u8>> {
    if bytes.is_empty() {
        Vec::new()
    } else if bytes.len() <= MAX_PIECE {
        vec![bytes]
    } else {
        bytes.chunks(MAX_PIECE).map(<[u8]>::to_vec).collect()
    }
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
    Connect(ConnectError),
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

/// A blocking GET of a small document (discovery), with connect and read timeouts,
/// over a pooled connection when there is one.
pub fn get(
    base: &BaseUrl,
    pool: &Pool,
    path: &str,
    timeout: Duration,
) -> Result<Response, GetError> {
    let io = |e: std::io::Error| GetError::Io(e.to_string());
    loop {
        let pooled = pool.take();
        let fresh = pooled.is_none();
        let mut stream = match pooled {
            Some(s) => s,
            None => connect(base, timeout).map_err(GetError::Connect)?,
        };
        stream.set_read_timeout(Some(timeout)).map_err(io)?;
        stream.set_write_timeout(Some(timeout)).map_err(io)?;
        match get_on(&mut stream, base, path) {
            Ok((response, reusable)) => {
                if reusable {
                    let _ = stream.set_read_timeout(None);
                    pool.put(stream);
                } else {
                    let _ = stream.shutdown(Shutdown::Both);
                }
                return Ok(response);
            }
            // A pooled connection the server had closed: try a fresh one.
            Err(Exchange::Stale) if !fresh => continue,
            Err(Exchange::Stale) => return Err(GetError::Io("connection closed".into())),
            Err(Exchange::Failed(e)) => return Err(GetError::Io(e)),
        }
    }
}

/// How an exchange on one connection failed.
enum Exchange {
    /// Nothing at all came back (a pooled connection the server had closed).
    Stale,
    Failed(String),
}

fn get_on(
    stream: &mut TcpStream,
    base: &BaseUrl,
    path: &str,
) -> Result<(Response, bool), Exchange> {
    if stream
        .write_all(&request_bytes(base, path, "application/json"))
        .is_err()
    {
        return Err(Exchange::Stale);
    }
    let mut parser = ResponseParser::new();
    let mut parts = Vec::new();
    let mut buf = vec![0u8; 16 * 1024];
    let mut response = Response {
        status: 0,
        headers: Vec::new(),
        body: Vec::new(),
    };
    let mut decoding = BodyDecoding::Identity;
    let mut got_any = false;
    loop {
        let n = match stream.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) if !got_any => return Err(Exchange::Stale),
            Err(e) => return Err(Exchange::Failed(e.to_string())),
        };
        if n == 0 && !got_any {
            return Err(Exchange::Stale);
        }
        got_any = true;
        let fed = if n == 0 {
            parser.eof(&mut parts)
        } else {
            parser.feed(&buf[..n], &mut parts)
        };
        for part in parts.drain(..) {
            match part {
                Part::Head { status, headers } => {
                    decoding = BodyDecoding::for_headers(&headers).map_err(Exchange::Failed)?;
                    response.status = status;
                    response.headers = headers;
                }
                Part::Body(b) => {
                    for piece in decoding.feed(b).map_err(Exchange::Failed)? {
                        if response.body.len() + piece.len() > 64 * 1024 * 1024 {
                            return Err(Exchange::Failed("response larger than 64 MiB".into()));
                        }
                        response.body.extend_from_slice(&piece);
                    }
                }
                Part::End => {
                    for piece in decoding.finish().map_err(Exchange::Failed)? {
                        response.body.extend_from_slice(&piece);
                    }
                    return Ok((response, parser.reusable()));
                }
            }
        }
        fed.map_err(|e| Exchange::Failed(e.to_string()))?;
        if n == 0 {
            return Err(Exchange::Failed("connection closed".into()));
        }
    }
}
