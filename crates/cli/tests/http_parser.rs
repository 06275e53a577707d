//! The HTTP response parser: framing split anywhere, EOF handling.

use kubelive::http::{BaseUrl, HttpError, Part, ResponseParser};

/// Feeds `input` in pieces cut at `cuts`, then EOF if `eof`; returns head status, the
/// body, whether it ended, and the error if any.
fn run(input: &[u8], cuts: &[usize], eof: bool) -> (Option<u16>, Vec<u8>, bool, Option<HttpError>) {
    let mut p = ResponseParser::new();
    let mut parts = Vec::new();
    let mut status = None;
    let mut body = Vec::new();
    let mut ended = false;
    let mut last = 0;
    let mut points: Vec<usize> = cuts.iter().copied().filter(|&c| c <= input.len()).collect();
    points.push(input.len());
    let mut error = None;
    for &c in &points {
        if c < last {
            continue;
        }
        if let Err(e) = p.feed(&input[last..c], &mut parts) {
            error = Some(e);
            break;
        }
        last = c;
    }
    if error.is_none() && eof {
        if let Err(e) = p.eof(&mut parts) {
            error = Some(e);
        }
    }
    for part in parts {
        match part {
            Part::Head { status: s, .. } => status = Some(s),
            Part::Body(b) => {
                assert!(!ended, "body after end");
                body.extend_from_slice(&b)
            }
            Part::End => ended = true,
        }
    }
    (status, body, ended, error)
}

const CHUNKED: &[u8] =
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n\
1a\r\n{\"type\":\"ADDED\",\"x\":\"\xc3\xa9\"}\n\r\n\
5;ext=1\r\nhello\r\n\
0\r\nX-Trailer: 1\r\n\r\n";
const CHUNKED_BODY: &[u8] = b"{\"type\":\"ADDED\",\"x\":\"\xc3\xa9\"}\nhello";

#[test]
fn chunked_whole() {
    let (s, body, ended, err) = run(CHUNKED, &[], false);
    assert_eq!((s, ended, err), (Some(200), true, None));
    assert_eq!(body, CHUNKED_BODY);
}

#[test]
fn chunked_split_at_every_point_and_byte_by_byte() {
    for i in 0..=CHUNKED.len() {
        for j in [i, i + 1, i + 7, CHUNKED.len()] {
            let (s, body, ended, err) = run(CHUNKED, &[i, j], false);
            assert_eq!((s, ended, &err), (Some(200), true, &None), "cut at {i},{j}");
            assert_eq!(body, CHUNKED_BODY, "cut at {i},{j}");
        }
    }
    let every: Vec<usize> = (0..CHUNKED.len()).collect();
    let (_, body, ended, err) = run(CHUNKED, &every, false);
    assert!(ended && err.is_none());
    assert_eq!(body, CHUNKED_BODY);
}

#[test]
fn eof_anywhere_before_the_terminating_chunk_is_unexpected() {
    let end = CHUNKED.len() - b"0\r\nX-Trailer: 1\r\n\r\n".len();
    let head_end = CHUNKED.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    for cut in 0..CHUNKED.len() {
        let (_, body, ended, err) = run(&CHUNKED[..cut], &[], true);
        assert!(!ended, "EOF at {cut} must not be a clean end");
        assert!(
            matches!(err, Some(HttpError::UnexpectedEof(_))),
            "EOF at {cut}: {err:?}"
        );
        if cut >= end {
            assert_eq!(body, CHUNKED_BODY);
        }
        if cut <= head_end {
            assert!(body.is_empty());
        }
    }
}

#[test]
fn eof_mid_chunk_says_how_much_is_missing() {
    let cut = CHUNKED.windows(5).position(|w| w == b"ADDED").unwrap();
    let (_, _, _, err) = run(&CHUNKED[..cut], &[], true);
    let Some(HttpError::UnexpectedEof(m)) = err else {
        panic!("{err:?}")
    };
    assert!(m.contains("inside a chunk"), "{m}");
}

#[test]
fn content_length() {
    let r = b"HTTP/1.1 404 Not Found\r\nContent-Length: 11\r\nContent-Type: application/json\r\n\r\n{\"a\":\"bcd\"}trailing garbage";
    for cut in 0..r.len() {
        let (s, body, ended, err) = run(r, &[cut], false);
        assert_eq!((s, ended, err), (Some(404), true, None));
        assert_eq!(body, b"{\"a\":\"bcd\"}");
    }
    let (_, _, ended, err) = run(&r[..r.len() - 20], &[], true);
    assert!(!ended);
    assert!(matches!(err, Some(HttpError::UnexpectedEof(_))));
    let (s, body, ended, err) = run(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", &[], false);
    assert_eq!((s, body.len(), ended, err), (Some(200), 0, true, None));
}

#[test]
fn body_until_close_ends_at_eof() {
    let r = b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nForbidden\n";
    let (s, body, ended, err) = run(r, &[20, 50], true);
    assert_eq!((s, ended, err), (Some(200), true, None));
    assert_eq!(body, b"Forbidden\n");
}

#[test]
fn informational_heads_are_skipped() {
    let r = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    for cut in 0..r.len() {
        let (s, body, ended, err) = run(r, &[cut], false);
        assert_eq!(
            (s, body.as_slice(), ended, err),
            (Some(200), &b"ok"[..], true, None)
        );
    }
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    for bad in [
        &b"<html><body>502 Bad Gateway</body></html>\r\n\r\n"[..],
        b"HTTP/1.1 abc OK\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
    ] {
        let (_, _, ended, err) = run(bad, &[], true);
        assert!(!ended, "{:?}", String::from_utf8_lossy(bad));
        assert!(
            matches!(err, Some(HttpError::Malformed(_))),
            "{:?}: {err:?}",
            String::from_utf8_lossy(bad)
        );
    }
    // A head that never ends is bounded.
    let mut p = ResponseParser::new();
    let mut parts = Vec::new();
    let junk = vec![b'a'; 70 * 1024];
    assert!(p.feed(&junk, &mut parts).is_err());
}

#[test]
fn base_urls() {
    let u = BaseUrl::parse("http://127.0.0.1:8001").unwrap();
    assert_eq!(
        (u.host.as_str(), u.port, u.prefix.as_str()),
        ("127.0.0.1", 8001, "")
    );
    let u = BaseUrl::parse("localhost:9000/k8s/").unwrap();
    assert_eq!(
        (u.host.as_str(), u.port, u.prefix.as_str()),
        ("localhost", 9000, "/k8s")
    );
    assert_eq!(u.to_string(), "http://localhost:9000/k8s");
    let u = BaseUrl::parse("http://[::1]:8001").unwrap();
    assert_eq!((u.host.as_str(), u.port), ("::1", 8001));
    assert_eq!(u.host_header(), "[::1]:8001");
    assert_eq!(BaseUrl::parse("http://example.com").unwrap().port, 80);
    for bad in [
        "https://k8s:6443",
        "ftp://x",
        "http://",
        "http://h:notaport",
        "http://h:1/?q",
    ] {
        assert!(BaseUrl::parse(bad).is_err(), "{bad}");
    }
    let req = kubelive::http::request_bytes(
        &BaseUrl::parse("http://h:1/p").unwrap(),
        "/api/v1/pods?watch=true",
        kubelive_core::table::TABLE_ACCEPT,
    );
    let req = String::from_utf8(req).unwrap();
    // The engine's Accept, as kubectl get sends it for tables.
    assert!(
        req.contains("\r\nAccept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json\r\n"),
        "{req}"
    );
    assert!(
        req.starts_with("GET /p/api/v1/pods?watch=true HTTP/1.1\r\nHost: h:1\r\n"),
        "{req}"
    );
    // Kept alive (HTTP/1.1's default), gzip welcome.
    assert!(!req.contains("Connection: close"), "{req}");
    assert!(req.contains("Accept-Encoding: gzip\r\n") && req.ends_with("\r\n\r\n"));
}

#[test]
fn reuse_only_after_a_response_its_framing_ended() {
    use kubelive::http::{Part, ResponseParser};
    let reusable = |resp: &[u8]| {
        let mut p = ResponseParser::new();
        let mut parts: Vec<Part> = Vec::new();
        p.feed(resp, &mut parts).unwrap();
        p.reusable()
    };
    assert!(reusable(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
    assert!(reusable(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"
    ));
    // Not yet complete, closed by the server, HTTP/1.0, or followed by stray bytes.
    assert!(!reusable(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\no"));
    assert!(!reusable(
        b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"
    ));
    assert!(!reusable(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"));
    assert!(!reusable(
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokXX"
    ));
    // Read until close: the end is the connection's.
    let mut p = ResponseParser::new();
    let mut parts = Vec::new();
    p.feed(b"HTTP/1.1 200 OK\r\n\r\nok", &mut parts).unwrap();
    p.eof(&mut parts).unwrap();
    assert!(p.is_done() && !p.reusable());
}
