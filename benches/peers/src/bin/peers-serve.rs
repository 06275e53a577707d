//! A minimal HTTP/1.1 front for kubelive-sim's in-process [`Cluster`] model, so that
//! clients in other processes (Node's client-node, kubelive over TCP) are fed the same
//! list and watch responses. Bench-only: GET only, one thread per connection.
//!
//! `peers-serve --port 18080 --pods 50000` prints `listening on 127.0.0.1:PORT` once
//! the pods are in, then serves until killed.

use kubelive_peers::arg;
use kubelive_sim::{
    watch_response_head, Cluster, ClusterConfig, Get, Reply, Response, WatchOutput, Workload,
    WorkloadConfig,
};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Shared {
    cluster: Mutex<Cluster>,
    start: Instant,
}

impl Shared {
    fn now_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let port: u16 = arg(&args, "--port", 18080);
    let pods: usize = arg(&args, "--pods", 50_000);
    let shared = Arc::new(Shared {
        cluster: Mutex::new(Cluster::new(ClusterConfig::default())),
        start: Instant::now(),
    });
    {
        let mut c = shared.cluster.lock().expect("cluster");
        let mut w = Workload::new(
            1,
            WorkloadConfig {
                namespaces: 7,
                pods,
                churn_per_sec: 0.0,
            },
        );
        w.populate(&mut c, shared.now_ms());
    }
    let listener = TcpListener::bind(("127.0.0.1", port)).expect("bind");
    println!("listening on {}", listener.local_addr().expect("addr"));
    for conn in listener.incoming() {
        let Ok(conn) = conn else { continue };
        let shared = shared.clone();
        std::thread::spawn(move || {
            let _ = serve(conn, &shared);
        });
    }
}

fn head(w: &mut impl Write, r: &Response, chunked: bool, len: usize) -> std::io::Result<()> {
    let mut h = format!("HTTP/1.1 {} X\r\n", r.status);
    for (k, v) in &r.headers {
        if !k.eq_ignore_ascii_case("content-length") && !k.eq_ignore_ascii_case("transfer-encoding")
        {
            h.push_str(&format!("{k}: {v}\r\n"));
        }
    }
    if chunked {
        h.push_str("Transfer-Encoding: chunked\r\n");
    } else {
        h.push_str(&format!("Content-Length: {len}\r\n"));
    }
    h.push_str("\r\n");
    w.write_all(h.as_bytes())
}

fn serve(conn: TcpStream, shared: &Shared) -> std::io::Result<()> {
    conn.set_nodelay(true)?;
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut out = std::io::BufWriter::with_capacity(256 << 10, conn.try_clone()?);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h)? == 0 || h == "\r\n" || h == "\n" {
                break;
            }
        }
        let reply = {
            let mut c = shared.cluster.lock().expect("cluster");
            let now = shared.now_ms();
            c.handle(&Get::new(path), now)
        };
        match reply {
            Reply::Response(r) | Reply::Delayed { response: r, .. } => {
                head(&mut out, &r, false, r.body.len())?;
                out.write_all(&r.body)?;
                out.flush()?;
            }
            Reply::Watch(id) => {
                head(&mut out, &watch_response_head(), true, 0)?;
                out.flush()?;
                let r = pump(&mut out, &conn, shared, id);
                shared.cluster.lock().expect("cluster").close_watch(id);
                return r;
            }
        }
    }
}

fn pump(
    out: &mut impl Write,
    conn: &TcpStream,
    shared: &Shared,
    id: kubelive_sim::WatchId,
) -> std::io::Result<()> {
    loop {
        let polled = {
            let mut c = shared.cluster.lock().expect("cluster");
            c.poll_watch(id, shared.now_ms())
        };
        match polled {
            WatchOutput::Chunks(chunks) => {
                for chunk in chunks {
                    write!(out, "{:x}\r\n", chunk.len())?;
                    out.write_all(&chunk)?;
                    out.write_all(b"\r\n")?;
                }
                out.flush()?;
            }
            WatchOutput::Pending { .. } => {
                // Nothing to send; notice a client that went away.
                conn.set_read_timeout(Some(Duration::from_millis(100)))?;
                let mut b = [0u8; 1];
                match conn.peek(&mut b) {
                    Ok(0) => return Ok(()),
                    Ok(_) => {}
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        ) => {}
                    Err(e) => return Err(e),
                }
            }
            WatchOutput::End => {
                out.write_all(b"0\r\n\r\n")?;
                return out.flush();
            }
            WatchOutput::Abort => return Ok(()),
        }
    }
}
