//! The CLI's HTTP client against a local responder that gzips everything (the
//! simulated apiserver does not compress): a gzipped, paginated LIST and a gzipped,
//! chunked watch whose events must reach the engine while the stream is still open,
//! all over one kept-alive connection.
//!
//! No timing assertions: each wait has a generous bound that only turns a hang into a
//! failure.

use flate2::write::GzEncoder;
use flate2::Compression;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn pod(name: &str, rv: u64) -> String {
    format!(
        r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"default","uid":"u-{name}","resourceVersion":"{rv}","creationTimestamp":"2026-01-01T00:00:00Z"}},"spec":{{"containers":[{{"name":"c"}}]}},"status":{{"phase":"Running"}}}}"#
    )
}

fn gzip(b: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

#[derive(Default)]
struct Seen {
    connections: usize,
    requests: Vec<String>,
    gzip_asked: usize,
}

/// Reads one request head; `None` at EOF.
fn read_head(r: &mut BufReader<TcpStream>) -> Option<(String, bool)> {
    let mut line = String::new();
    if r.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let target = line.split(' ').nth(1)?.to_string();
    let mut gzip = false;
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).ok()? == 0 {
            return None;
        }
        if h == "\r\n" {
            return Some((target, gzip));
        }
        let h = h.to_ascii_lowercase();
        if h.starts_with("accept-encoding:") && h.contains("gzip") {
            gzip = true;
        }
    }
}

fn serve(conn: TcpStream, seen: Arc<Mutex<Seen>>, close_after_each: bool) {
    let mut w = conn.try_clone().unwrap();
    let mut r = BufReader::new(conn);
    while let Some((target, gz)) = read_head(&mut r) {
        {
            let mut s = seen.lock().unwrap();
            s.requests.push(target.clone());
            s.gzip_asked += usize::from(gz);
        }
        if target.contains("watch=true") {
            // Chunked and gzipped, one sync-flushed chunk per event; stays open.
            w.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n").unwrap();
            let mut enc = GzEncoder::new(Vec::new(), Compression::default());
            let line = format!("{{\"type\":\"ADDED\",\"object\":{}}}\n", pod("p-4", 11));
            enc.write_all(line.as_bytes()).unwrap();
            enc.flush().unwrap();
            let chunk = std::mem::take(enc.get_mut());
            w.write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
                .unwrap();
            w.write_all(&chunk).unwrap();
            w.write_all(b"\r\n").unwrap();
            w.flush().unwrap();
            // Hold the stream open until the client goes away.
            let mut sink = [0u8; 64];
            let _ = r.read(&mut sink);
            return;
        }
        let (items, cont, rv) = if target.contains("continue=t2") {
            (vec![pod("p-3", 3)], "", 10)
        } else if target.contains("continue=t1") {
            (vec![pod("p-2", 2)], "t2", 10)
        } else {
            (vec![pod("p-1", 1)], "t1", 10)
        };
        let body = format!(
            r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"{rv}","continue":"{cont}"}},"items":[{}]}}"#,
            items.join(",")
        );
        let gz = gzip(body.as_bytes());
        w.write_all(
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
                gz.len()
            )
            .as_bytes(),
        )
        .unwrap();
        w.write_all(&gz).unwrap();
        w.flush().unwrap();
        if close_after_each {
            // Keep-alive was not refused, yet the server drops the idle connection:
            // the client's pooled one is stale.
            let _ = w.shutdown(std::net::Shutdown::Both);
            return;
        }
    }
}

/// Runs `kubelive watch` against the responder until the watch event arrives, then
/// SIGINT; returns the snapshot's pod names, stderr and what the responder saw.
fn run_against(close_after_each: bool) -> (Vec<String>, String, Arc<Mutex<Seen>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Seen::default()));
    {
        let seen = seen.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { break };
                seen.lock().unwrap().connections += 1;
                let seen = seen.clone();
                std::thread::spawn(move || serve(conn, seen, close_after_each));
            }
        });
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubelive"))
        .args([
            "watch",
            "/api/v1/pods",
            "--server",
            &format!("http://127.0.0.1:{port}"),
            "--page-size",
            "1",
            "-o",
            "snapshot",
            "-v",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // With -v and -o snapshot, changes are told on stderr: wait for the watch's event.
    let stderr = child.stderr.take().unwrap();
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    {
        let lines = lines.clone();
        std::thread::spawn(move || {
            for l in BufReader::new(stderr).lines() {
                let Ok(l) = l else { break };
                lines.lock().unwrap().push(l);
            }
        });
    }
    let limit = Instant::now() + Duration::from_secs(30);
    while !lines.lock().unwrap().iter().any(|l| l.contains("p-4")) {
        assert!(
            Instant::now() < limit,
            "the gzipped watch event never arrived while the stream was open:\n{}",
            lines.lock().unwrap().join("\n")
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let ok = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let names: Vec<String> = out
        .lines()
        .map(|l| {
            l.split("\"name\":\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    // The reader thread ends with the process: take what it collected.
    std::thread::sleep(Duration::from_millis(100));
    let err = lines.lock().unwrap().join("\n");
    (names, err, seen)
}

#[test]
fn gzip_bodies_are_decoded_as_they_stream_over_one_kept_alive_connection() {
    let (names, err, seen) = run_against(false);
    assert_eq!(names, ["p-1", "p-2", "p-3", "p-4"], "{err}");
    let s = seen.lock().unwrap();
    assert_eq!(s.requests.len(), 4, "{:?}", s.requests);
    assert_eq!(s.gzip_asked, 4, "every request asks for gzip");
    assert_eq!(
        s.connections, 1,
        "three pages and the watch over one kept-alive connection: {:?}",
        s.requests
    );
}

#[test]
fn a_stale_pooled_connection_is_retried_on_a_fresh_one_without_an_error() {
    let (names, err, seen) = run_against(true);
    assert_eq!(names, ["p-1", "p-2", "p-3", "p-4"], "{err}");
    let s = seen.lock().unwrap();
    assert_eq!(s.requests.len(), 4, "{:?}", s.requests);
    assert_eq!(
        s.connections, 4,
        "each request on its own connection in the end"
    );
    // The engine never heard of the dead pooled connections: no error, no backoff.
    assert!(!err.contains("backing off"), "{err}");
    assert!(err.contains(" 0 errors"), "{err}");
}
