//! kubelive-core over real HTTP from a `peers-serve` (or `kubelive-sim serve`) server:
//! time from the first request to `Synced`, list-then-watch (pages of 500) and
//! streaming list. The counterpart of `benches/node/listwatch.mjs`.
//!
//! `peers-e2e --server 127.0.0.1:18080 --pods 50000 [--runs 5]`

use kubelive_core::{Collection, Config, Engine, Instant as At, Mode, RequestId};
use kubelive_peers::{arg, drain, median, result, Drained, CHUNK};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let server: String = arg(&args, "--server", "127.0.0.1:18080".to_string());
    let pods: usize = arg(&args, "--pods", 50_000);
    let runs: usize = arg(&args, "--runs", 5).max(1);
    for (mode, page, label) in [
        (
            Mode::ListWatch,
            500,
            "kubelive-core Engine, native, list-then-watch (page 500)",
        ),
        (Mode::ListWatch, 0, "kubelive-core Engine, native, one LIST"),
        (
            Mode::StreamingList,
            500,
            "kubelive-core Engine, native, streaming list",
        ),
    ] {
        let mut times = Vec::new();
        for round in 0..=runs {
            let (s, n) = sync_once(&server, mode, page);
            assert_eq!(n, pods, "synced with every pod");
            eprintln!("  round {round} {label} {s:.3} s");
            if round > 0 {
                times.push(s);
            }
        }
        let (lo, hi) = times
            .iter()
            .fold((f64::MAX, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        let m = median(&mut times);
        result(
            "sync",
            label,
            &[
                ("pods", pods.to_string()),
                ("median ms", format!("{:.0}", m * 1e3)),
                ("objects/s", format!("{:.0}", pods as f64 / m)),
                ("spread ms", format!("{:.0}..{:.0}", lo * 1e3, hi * 1e3)),
            ],
        );
    }
}

fn sync_once(server: &str, mode: Mode, page: u32) -> (f64, usize) {
    let t = Instant::now();
    let mut config = Config::new(Collection::parse("/api/v1/pods").expect("collection"));
    config.mode = mode;
    config.page_size = page;
    let mut engine = Engine::new(config, At::ZERO);
    let mut d = Drained::default();
    let mut next = drain_paths(&mut engine, &mut d);
    while !d.synced {
        let id = next.expect("a request to send");
        next = request(server, &mut engine, id, &mut d);
    }
    (t.elapsed().as_secs_f64(), engine.store().len())
}

/// Sends the engine's request `id` and feeds the response until it ends or the
/// engine is synced. Returns the next request.
fn request(server: &str, engine: &mut Engine, id: RequestId, d: &mut Drained) -> Option<RequestId> {
    let path = PATHS
        .with(|p| p.borrow_mut().remove(&id.0))
        .expect("path of request");
    let now = At::ZERO;
    let mut conn = TcpStream::connect(server).expect("connect");
    conn.set_nodelay(true).ok();
    write!(
        conn,
        "GET {path} HTTP/1.1\r\nHost: sim\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut r = BufReader::with_capacity(CHUNK, conn);
    let mut line = String::new();
    r.read_line(&mut line).expect("status line");
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let (mut chunked, mut len) = (false, None);
    loop {
        line.clear();
        r.read_line(&mut line).expect("header");
        let h = line.trim_end();
        if h.is_empty() {
            break;
        }
        let lower = h.to_ascii_lowercase();
        if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
            chunked = true;
        } else if let Some(v) = lower.strip_prefix("content-length:") {
            len = v.trim().parse::<usize>().ok();
        }
    }
    engine.handle_response(id, status, &[], now);
    let mut next = drain_paths(engine, d);
    let mut buf = vec![0u8; CHUNK];
    if chunked {
        loop {
            line.clear();
            if r.read_line(&mut line).expect("chunk size") == 0 {
                break;
            }
            let size = usize::from_str_radix(line.trim(), 16).unwrap_or(0);
            if size == 0 {
                break;
            }
            let mut chunk = vec![0u8; size];
            r.read_exact(&mut chunk).expect("chunk");
            let mut crlf = [0u8; 2];
            r.read_exact(&mut crlf).expect("chunk end");
            engine.handle_body(id, &chunk, now);
            next = drain_paths(engine, d).or(next);
            if d.synced {
                return next; // a streaming list is synced; the watch goes on
            }
        }
    } else {
        let mut left = len.unwrap_or(usize::MAX);
        while left > 0 {
            let n = r.read(&mut buf[..left.min(CHUNK)]).expect("body");
            if n == 0 {
                break;
            }
            left = left.saturating_sub(n);
            engine.handle_body(id, &buf[..n], now);
            next = drain_paths(engine, d).or(next);
        }
    }
    engine.handle_end(id, now);
    drain_paths(engine, d).or(next)
}

thread_local! {
    static PATHS: std::cell::RefCell<std::collections::HashMap<u64, String>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// [`drain`], remembering the paths of the requests asked for.
fn drain_paths(engine: &mut Engine, d: &mut Drained) -> Option<RequestId> {
    while engine.poll_cancel().is_some() {}
    let mut next = None;
    while let Some(req) = engine.poll_request() {
        PATHS.with(|p| p.borrow_mut().insert(req.id.0, req.path.clone()));
        next = Some(req.id);
    }
    let rest = drain(engine, d);
    next.or(rest)
}
