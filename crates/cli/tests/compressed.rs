//! The CLI's gzip bodies: the decoder on its own (a body of several gzip members, as
//! kube-apiserver 1.37 sends a streaming list, split anywhere), and the HTTP client
//! against a local responder that gzips everything: a gzipped, paginated LIST and a
//! gzipped, chunked watch whose events must reach the engine while the stream is still
//! open, all over one kept-alive connection.
//!
//! No timing assertions: each wait has a generous bound that only turns a hang into a
//! failure.

use flate2::write::GzEncoder;
use flate2::Compression;
use kubelive::http::{BodyDecoding, MAX_PIECE};
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

/// Three watch events, each compressed as its own gzip member, as 1.37's
/// `perFlushGzipWriter` closes the gzip stream on every flush
/// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go, release-1.37).
/// Returns the events and the body (the members one after another).
fn three_members() -> (Vec<String>, Vec<u8>) {
    let events: Vec<String> = (1..=3)
        .map(|i| {
            format!(
                "{{\"type\":\"ADDED\",\"object\":{}}}\n",
                pod(&format!("p-{i}"), i)
            )
        })
        .collect();
    let body = events.iter().flat_map(|e| gzip(e.as_bytes())).collect();
    (events, body)
}

fn gzip_decoding() -> BodyDecoding {
    let headers = [("Content-Encoding".to_string(), "gzip".to_string())];
    BodyDecoding::for_headers(&headers).unwrap()
}

/// Decodes `body` fed in the pieces that `cuts` (ascending) make, then ends it.
fn decode_cut(body: &[u8], cuts: &[usize]) -> Result<String, String> {
    let mut d = gzip_decoding();
    let mut out = Vec::new();
    let mut last = 0;
    for &c in cuts.iter().chain([&body.len()]) {
        out.extend(d.feed(body[last..c].to_vec())?.concat());
        last = c;
    }
    out.extend(d.finish()?.concat());
    Ok(String::from_utf8_lossy(&out).into_owned())
}

#[test]
fn every_gzip_member_is_decoded_wherever_the_body_is_split() {
    let (events, body) = three_members();
    let whole = events.concat();
    for cut in 0..=body.len() {
        assert_eq!(
            decode_cut(&body, &[cut]),
            Ok(whole.clone()),
            "split at byte {cut} of {}",
            body.len()
        );
    }
    let every_byte: Vec<usize> = (1..body.len()).collect();
    assert_eq!(decode_cut(&body, &every_byte), Ok(whole));
}

#[test]
fn each_members_event_is_out_as_soon_as_its_last_byte_is_in() {
    // A watch event in its own member must reach the engine without waiting for the
    // next one: on a quiet collection the next may come minutes later.
    let (events, body) = three_members();
    let mut d = gzip_decoding();
    let mut out = Vec::new();
    let mut member_end = 0;
    for (k, event) in events.iter().enumerate() {
        let start = member_end;
        member_end += gzip(event.as_bytes()).len();
        for b in &body[start..member_end] {
            out.extend(d.feed(vec![*b]).unwrap().concat());
        }
        assert_eq!(
            String::from_utf8_lossy(&out),
            events[..=k].concat(),
            "after the last byte of member {}",
            k + 1
        );
    }
    assert_eq!(d.finish(), Ok(Vec::new()));
}

#[test]
fn decoded_bytes_come_in_pieces_of_at_most_64_kib_however_much_a_read_inflates() {
    // What a reader thread queues for the engine is bounded in pieces: 64 KiB read off
    // the network must not become one piece of megabytes. 4.7 MB of pods gzip to about
    // 160 KB: a read decodes to some 2 MB.
    let text: String = (0..20_000).map(|i| pod(&format!("p-{i}"), i)).collect();
    let gz = gzip(text.as_bytes());
    assert!(
        text.len() > 4 << 20 && gz.len() < 256 << 10,
        "{} {}",
        text.len(),
        gz.len()
    );
    let mut d = gzip_decoding();
    let mut pieces = Vec::new();
    for read in gz.chunks(64 * 1024) {
        pieces.extend(d.feed(read.to_vec()).unwrap());
    }
    pieces.extend(d.finish().unwrap());
    let biggest = pieces.iter().map(Vec::len).max().unwrap_or(0);
    assert!(
        biggest <= MAX_PIECE && MAX_PIECE == 64 * 1024,
        "a piece of {biggest} bytes"
    );
    assert!(pieces.iter().all(|p| !p.is_empty()));
    assert!(
        pieces.concat() == text.as_bytes(),
        "the pieces are the body"
    );
    // Not gzipped: a read's bytes as they are.
    let mut plain = BodyDecoding::for_headers(&[]).unwrap();
    assert_eq!(plain.feed(b"abc".to_vec()), Ok(vec![b"abc".to_vec()]));
    assert_eq!(plain.feed(Vec::new()), Ok(Vec::<Vec<u8>>::new()));
}

#[test]
fn a_body_that_ends_inside_a_member_is_an_error_and_at_a_members_end_is_not() {
    let (events, body) = three_members();
    let ends: Vec<usize> = events
        .iter()
        .scan(0, |at, e| {
            *at += gzip(e.as_bytes()).len();
            Some(*at)
        })
        .collect();
    for cut in 1..body.len() {
        let got = decode_cut(&body[..cut], &[]);
        match ends.iter().position(|&end| end == cut) {
            Some(k) => assert_eq!(got, Ok(events[..=k].concat()), "cut at {cut}"),
            None => {
                let e = got.expect_err(&format!("a body cut at byte {cut} decoded"));
                assert!(
                    e.contains("ends inside a gzip member") || e.contains("cut short"),
                    "cut at {cut}: {e}"
                );
            }
        }
    }
    // Bytes after a member that do not start another one.
    let mut trailing = body.clone();
    trailing.extend_from_slice(b"not gzip");
    let e = decode_cut(&trailing, &[]).expect_err("garbage after the members decoded");
    assert!(e.contains("gzip"), "{e}");
}

#[test]
fn an_empty_gzip_body_is_an_empty_body() {
    // Go's transport reads an empty gzip body as empty (gzip.NewReader's io.EOF).
    assert_eq!(decode_cut(&[], &[]), Ok(String::new()));
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

/// How the responder answers the watch.
#[derive(Clone, Copy)]
enum Watch {
    /// Event p-4 in one gzip stream that stays open.
    OneMember,
    /// Events p-4 and p-5, each its own gzip member.
    MemberPerEvent,
}

fn watch_event(name: &str, rv: u64) -> Vec<u8> {
    format!("{{\"type\":\"ADDED\",\"object\":{}}}\n", pod(name, rv)).into_bytes()
}

fn serve(conn: TcpStream, seen: Arc<Mutex<Seen>>, close_after_each: bool, watch: Watch) {
    let mut w = conn.try_clone().unwrap();
    let mut r = BufReader::new(conn);
    while let Some((target, gz)) = read_head(&mut r) {
        {
            let mut s = seen.lock().unwrap();
            s.requests.push(target.clone());
            s.gzip_asked += usize::from(gz);
        }
        if target.contains("watch=true") {
            // Chunked and gzipped, one flushed chunk per event; stays open.
            w.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n").unwrap();
            let events = match watch {
                // One gzip stream, sync-flushed after the event.
                Watch::OneMember => {
                    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
                    enc.write_all(&watch_event("p-4", 11)).unwrap();
                    enc.flush().unwrap();
                    vec![std::mem::take(enc.get_mut())]
                }
                // A whole gzip member per event, as 1.37 sends a streaming list.
                Watch::MemberPerEvent => {
                    vec![gzip(&watch_event("p-4", 11)), gzip(&watch_event("p-5", 12))]
                }
            };
            for chunk in events {
                w.write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
                    .unwrap();
                w.write_all(&chunk).unwrap();
                w.write_all(b"\r\n").unwrap();
                w.flush().unwrap();
            }
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

/// Runs `kubelive watch` against the responder until the watch's last event arrives,
/// then SIGINT; returns the snapshot's pod names, stderr and what the responder saw.
fn run_against(close_after_each: bool, watch: Watch) -> (Vec<String>, String, Arc<Mutex<Seen>>) {
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
                std::thread::spawn(move || serve(conn, seen, close_after_each, watch));
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
    let last = match watch {
        Watch::OneMember => "p-4",
        Watch::MemberPerEvent => "p-5",
    };
    let limit = Instant::now() + Duration::from_secs(30);
    while !lines.lock().unwrap().iter().any(|l| l.contains(last)) {
        let err = lines.lock().unwrap().join("\n");
        assert!(
            Instant::now() < limit && !err.contains("gzip"),
            "the gzipped watch's {last} never arrived while the stream was open:\n{err}",
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
    let (names, err, seen) = run_against(false, Watch::OneMember);
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
    let (names, err, seen) = run_against(true, Watch::OneMember);
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

#[test]
fn a_watch_of_one_gzip_member_per_event_delivers_every_event_on_one_request() {
    let (names, err, seen) = run_against(false, Watch::MemberPerEvent);
    assert_eq!(names, ["p-1", "p-2", "p-3", "p-4", "p-5"], "{err}");
    let s = seen.lock().unwrap();
    assert_eq!(
        s.requests.len(),
        4,
        "three pages and one watch, never cut and renewed: {:?}",
        s.requests
    );
    assert!(err.contains(" 0 errors"), "{err}");
}
