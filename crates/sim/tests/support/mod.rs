//! A raw HTTP/1.1 client for the sim's wire tests: it shows the bytes a real client gets
//! (framing, chunk sizes, headers) and keeps a connection across requests.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// One response as it came over the wire.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// The body after de-chunking (still compressed if it was).
    pub body: Vec<u8>,
    /// Sizes of the chunks, when the body was chunked.
    pub chunks: Option<Vec<usize>>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    /// The body, gunzipped when `Content-Encoding: gzip`: every gzip member, as Go's
    /// reader does (1.37 gzips a streaming list one member per flush).
    pub fn decoded(&self) -> Vec<u8> {
        if self.header("content-encoding") == Some("gzip") {
            let mut out = Vec::new();
            flate2::read::MultiGzDecoder::new(&self.body[..])
                .read_to_end(&mut out)
                .expect("valid gzip");
            out
        } else {
            self.body.clone()
        }
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.decoded()).into_owned()
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.decoded())
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
}

/// A keep-alive connection.
pub struct Client {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Client {
    pub fn connect(port: u16) -> Client {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        Client {
            stream,
            buf: Vec::new(),
        }
    }

    /// Sends a request (HTTP/1.1 unless `version` says otherwise in the headers' place).
    pub fn send(&mut self, method: &str, target: &str, headers: &[(&str, &str)], body: &[u8]) {
        self.send_version(method, target, "HTTP/1.1", headers, body);
    }

    pub fn send_version(
        &mut self,
        method: &str,
        target: &str,
        version: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) {
        let mut req = format!("{method} {target} {version}\r\nHost: 127.0.0.1\r\n");
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        if !body.is_empty() {
            req.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        req.push_str("\r\n");
        self.stream.write_all(req.as_bytes()).unwrap();
        self.stream.write_all(body).unwrap();
    }

    /// Reads what came; 0 at the end of the stream or when the read timed out. A read
    /// interrupted by a signal (another test's child process ending) is read again: it
    /// is neither an end nor an error of the server's.
    fn fill(&mut self) -> usize {
        let mut tmp = [0u8; 65536];
        loop {
            match self.stream.read(&mut tmp) {
                Ok(n) => {
                    self.buf.extend_from_slice(&tmp[..n]);
                    return n;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return 0,
            }
        }
    }

    fn line(&mut self) -> String {
        loop {
            if let Some(p) = self.buf.windows(2).position(|w| w == b"\r\n") {
                let l = String::from_utf8_lossy(&self.buf[..p]).into_owned();
                self.buf.drain(..p + 2);
                return l;
            }
            assert!(self.fill() > 0, "connection closed mid-response");
        }
    }

    fn take(&mut self, n: usize) -> Vec<u8> {
        while self.buf.len() < n {
            assert!(self.fill() > 0, "connection closed mid-body");
        }
        self.buf.drain(..n).collect()
    }

    /// Reads one response. `head_request`: no body follows (HEAD).
    pub fn read(&mut self, head_request: bool) -> Reply {
        let status_line = self.line();
        let status: u16 = status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
        let mut headers = Vec::new();
        loop {
            let l = self.line();
            if l.is_empty() {
                break;
            }
            let (k, v) = l.split_once(':').expect("header line");
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
        let mut reply = Reply {
            status,
            headers,
            body: Vec::new(),
            chunks: None,
        };
        if head_request || status == 304 || status < 200 {
            return reply;
        }
        if reply
            .header("transfer-encoding")
            .is_some_and(|t| t.contains("chunked"))
        {
            let mut sizes = Vec::new();
            loop {
                let size = usize::from_str_radix(self.line().trim(), 16).expect("chunk size");
                if size == 0 {
                    assert_eq!(self.line(), "", "no trailers expected");
                    break;
                }
                sizes.push(size);
                let data = self.take(size);
                reply.body.extend_from_slice(&data);
                assert_eq!(self.take(2), b"\r\n");
            }
            reply.chunks = Some(sizes);
        } else if let Some(n) = reply.header("content-length") {
            let n: usize = n.parse().unwrap();
            reply.body = self.take(n);
        } else {
            while self.fill() > 0 {}
            reply.body = std::mem::take(&mut self.buf);
        }
        reply
    }

    pub fn request(&mut self, method: &str, target: &str, headers: &[(&str, &str)]) -> Reply {
        self.send(method, target, headers, b"");
        self.read(method == "HEAD")
    }

    /// Whether the server closed the connection (reads EOF within the timeout).
    pub fn closed(&mut self) -> bool {
        self.stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        self.buf.is_empty() && self.fill() == 0
    }
}

/// A one-off GET on its own connection.
pub fn get(port: u16, target: &str, headers: &[(&str, &str)]) -> Reply {
    Client::connect(port).request("GET", target, headers)
}

/// A table kubectl printed, as cells: kubectl separates columns by at least two spaces.
pub fn grid(out: &str) -> Vec<Vec<String>> {
    out.lines()
        .map(|l| {
            l.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(String::from)
                .collect()
        })
        .collect()
}
