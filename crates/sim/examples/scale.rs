//! The simulated apiserver at scale, in process (a bench program, not a test):
//!
//! `cargo run --release -p kubelive-sim --example scale -- [PODS...]`
//!
//! For each pod count: the workload's populate time and resident memory, then LIST pages
//! of 500 (`/api/v1/pods?limit=500`: the first page, pages deep into the list through
//! continue tokens, a namespace's first page), each with and without 1,000 changes a second
//! of churn between pages (a page's version is kept as a snapshot), a continue whose
//! snapshot is gone (answered from the history), and the cost of one change fanned out to
//! 100 open watches, and the resident memory after 60 s (simulated) of that churn with a
//! paginated list started every second (each keeps a snapshot the churn diverges from).
//! Prints a Markdown table row per count.

use std::time::Instant;

use kubelive_sim::{
    Cluster, ClusterConfig, Get, Output, Reply, TableVersion, Workload, WorkloadConfig,
};

fn rss_kb(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn page(c: &mut Cluster, path: &str, now: u64) -> (f64, Option<String>) {
    let (ms, cont, _) = page_as(c, path, Output::Json, now);
    (ms, cont)
}

/// A page in `output`: (ms, continue token, body bytes).
fn page_as(c: &mut Cluster, path: &str, output: Output, now: u64) -> (f64, Option<String>, usize) {
    let t = Instant::now();
    let r = match c.handle(&Get::new(path).with_output(output), now) {
        Reply::Response(r) => r,
        other => panic!("{path}: {other:?}"),
    };
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(r.status, 200, "{path}: {}", r.text());
    let body = r.text();
    let cont = body.find("\"continue\":\"").map(|i| {
        let rest = &body[i + 12..];
        rest[..rest.find('"').unwrap_or(0)].to_string()
    });
    (ms, cont, r.body.len())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let counts: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let counts = if counts.is_empty() {
        vec![10_000, 100_000]
    } else {
        counts
    };
    println!("| pods | populate | RSS after populate | first page | page 100 deep | page under churn | namespace page | continue without snapshot | one change to 100 watches | RSS after 60 s of churn and lists |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut tables = Vec::new();
    for n in counts {
        let mut c = Cluster::new(ClusterConfig {
            compact_every_ms: 0,
            watch_cache_window_ms: 0,
            ..ClusterConfig::default()
        });
        let mut w = Workload::new(
            1,
            WorkloadConfig {
                namespaces: 10,
                pods: n,
                churn_per_sec: 1000.0,
            },
        );
        let t = Instant::now();
        w.populate(&mut c, 0);
        let populate_s = t.elapsed().as_secs_f64();
        let rss_mb = rss_kb("VmRSS:") / 1024;
        let mut now = 1000;
        w.skip_to(now);
        // First pages, and walking 100 pages deep (or to the end).
        let firsts: Vec<f64> = (0..5)
            .map(|_| page(&mut c, "/api/v1/pods?limit=500", now).0)
            .collect();
        // The same page as a Table (kubectl's Accept; includeObject Metadata, then None).
        let table = Output::Table(TableVersion::V1);
        let json_bytes = page_as(&mut c, "/api/v1/pods?limit=500", Output::Json, now).2;
        let mut table_bytes = 0;
        let table_ms: Vec<f64> = (0..5)
            .map(|_| {
                let (ms, _, bytes) = page_as(&mut c, "/api/v1/pods?limit=500", table, now);
                table_bytes = bytes;
                ms
            })
            .collect();
        let mut none_bytes = 0;
        let none_ms: Vec<f64> = (0..5)
            .map(|_| {
                let (ms, _, bytes) = page_as(
                    &mut c,
                    "/api/v1/pods?limit=500&includeObject=None",
                    table,
                    now,
                );
                none_bytes = bytes;
                ms
            })
            .collect();
        tables.push(format!(
            "| {n} | {:.2} ms, {:.2} MB | {:.2} ms, {:.2} MB | {:.2} ms, {:.3} MB | {:.1} MB |",
            median(firsts.clone()),
            json_bytes as f64 / 1e6,
            median(table_ms),
            table_bytes as f64 / 1e6,
            median(none_ms),
            none_bytes as f64 / 1e6,
            c.row_bytes() as f64 / 1e6,
        ));
        let (_, mut cont) = page(&mut c, "/api/v1/pods?limit=500", now);
        let mut deep = Vec::new();
        for _ in 0..100 {
            let Some(tok) = cont.take() else { break };
            let (ms, next) = page(
                &mut c,
                &format!("/api/v1/pods?limit=500&continue={tok}"),
                now,
            );
            deep.push(ms);
            cont = next;
        }
        // Pages while the workload makes 1,000 changes a second (20 ms of churn between pages).
        let (_, mut cont) = page(&mut c, "/api/v1/pods?limit=500", now);
        let mut churned = Vec::new();
        for _ in 0..50 {
            now += 20;
            w.tick(&mut c, now);
            let Some(tok) = cont.take() else { break };
            let (ms, next) = page(
                &mut c,
                &format!("/api/v1/pods?limit=500&continue={tok}"),
                now,
            );
            churned.push(ms);
            cont = next;
        }
        let ns: Vec<f64> = (0..5)
            .map(|_| page(&mut c, "/api/v1/namespaces/ns-3/pods?limit=500", now).0)
            .collect();
        // A continue token from 2 s of churn ago, with no snapshot left (slow path).
        let (_, tok) = page(&mut c, "/api/v1/pods?limit=500", now);
        for _ in 0..100 {
            now += 20;
            w.tick(&mut c, now);
        }
        for _ in 0..80 {
            // Newer lists push the old snapshot out.
            now += 1;
            w.tick(&mut c, now);
            page(&mut c, "/api/v1/pods?limit=1", now);
        }
        let slow = tok
            .map(|t| page(&mut c, &format!("/api/v1/pods?limit=500&continue={t}"), now).0)
            .unwrap_or(0.0);
        // One change fanned out to 100 caught-up watches.
        let ids: Vec<_> = (0..100)
            .map(|_| {
                match c.handle(
                    &Get::new(
                        "/api/v1/pods?watch=true&resourceVersion=".to_string()
                            + &c.resource_version().to_string(),
                    ),
                    now,
                ) {
                    Reply::Watch(id) => id,
                    other => panic!("{other:?}"),
                }
            })
            .collect();
        for id in &ids {
            c.poll_watch(*id, now);
        }
        now += 1;
        w.step(&mut c, now);
        let t = Instant::now();
        for id in &ids {
            c.poll_watch(*id, now);
        }
        let fan_ms = t.elapsed().as_secs_f64() * 1000.0;
        for id in ids {
            c.close_watch(id);
        }
        for _ in 0..60 {
            for _ in 0..50 {
                now += 20;
                w.tick(&mut c, now);
            }
            page(&mut c, "/api/v1/pods?limit=500", now);
        }
        let churned_rss_mb = rss_kb("VmRSS:") / 1024;
        println!(
            "| {n} | {populate_s:.2} s | {rss_mb} MB | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {slow:.1} ms | {fan_ms:.2} ms | {churned_rss_mb} MB |",
            median(firsts),
            median(deep),
            median(churned),
            median(ns),
        );
    }
    println!(
        "\n| pods | JSON page of 500 | Table page (Metadata) | Table page (None) | stored rows |"
    );
    println!("|---|---|---|---|---|");
    for t in tables {
        println!("{t}");
    }
    println!("\npeak RSS of the process: {} MB", rss_kb("VmHWM:") / 1024);
}
