//! Throughput and scaling: decode + apply of the watch stream for every contender,
//! initial sync and relist cost from 1,000 to 100,000 pods.
//!
//! `peers-speed [--events 100000] [--runs 7] [--scale 1000,10000,100000]`
//! Prints `RESULT` lines (see the crate docs); progress goes to stderr.

use kubelive_peers::*;
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let events: usize = arg(&args, "--events", 100_000);
    let runs: usize = arg(&args, "--runs", 7).max(1);
    let scale: String = arg(&args, "--scale", "1000,3000,10000,30000,100000".to_string());
    let only: String = arg(&args, "--only", "all".to_string());

    if only == "all" || only == "peers" {
        peers(events, runs);
    }
    if only == "all" || only == "scaling" {
        let sizes: Vec<usize> = scale.split(',').filter_map(|s| s.parse().ok()).collect();
        scaling(&sizes, runs);
    }
}

fn peers(events: usize, runs: usize) {
    let t = Instant::now();
    let stream = watch_stream(events);
    let mb = stream.len() as f64 / 1e6;
    eprintln!(
        "watch stream: {events} events, {:.1} MB ({} bytes/event), made in {:.1?}",
        mb,
        stream.len() / events,
        t.elapsed()
    );
    // Warm up every contender once, then interleave the runs so that noise from
    // other work on the machine falls on all of them alike.
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); CONTENDERS.len()];
    let mut held = vec![0usize; CONTENDERS.len()];
    for round in 0..=runs {
        for (i, c) in CONTENDERS.iter().enumerate() {
            let t = Instant::now();
            let (_, live) = black_box((c.run)(black_box(&stream)));
            let s = t.elapsed().as_secs_f64();
            held[i] = live;
            if round > 0 {
                times[i].push(s);
            }
            eprintln!("  round {round} {:<52} {:>8.3} s", c.name, s);
        }
    }
    let medians: Vec<f64> = times.iter_mut().map(|t| median(t)).collect();
    let kubelive = medians[0];
    for (i, c) in CONTENDERS.iter().enumerate() {
        let s = medians[i];
        let (lo, hi) = times[i]
            .iter()
            .fold((f64::MAX, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        result(
            "throughput",
            c.name,
            &[
                ("MB/s", format!("{:.0}", mb / s)),
                ("events/s", format!("{:.0}", events as f64 / s)),
                ("median ms", format!("{:.0}", s * 1e3)),
                ("spread ms", format!("{:.0}..{:.0}", lo * 1e3, hi * 1e3)),
                ("kubelive speedup", format!("{:.1}x", s / kubelive)),
                ("objects held", held[i].to_string()),
            ],
        );
    }
    result(
        "throughput-input",
        "watch stream",
        &[
            ("events", events.to_string()),
            ("bytes", stream.len().to_string()),
            ("runs", runs.to_string()),
        ],
    );
}

fn scaling(sizes: &[usize], runs: usize) {
    for &n in sizes {
        let docs = pod_docs(n);
        let body = list_body(&docs, 5_000_000);
        let (changed, n_changed) = one_percent_changed(&docs);
        let changed_body = list_body(&changed, 6_000_000);
        let raw: usize = docs.iter().map(String::len).sum();

        // Initial sync: a fresh engine fed one list page of n pods.
        let mut sync = Vec::new();
        for round in 0..=runs {
            let t = Instant::now();
            let (engine, _, d) = synced_engine(black_box(&body));
            let s = t.elapsed().as_secs_f64();
            assert_eq!(d.added, engine.store().len());
            drop(engine);
            if round > 0 {
                sync.push(s);
            }
        }
        // Relist: the synced engine gets a 410, then the same n pods with ~1% changed
        // (alternating between the two lists, so every relist changes ~1%).
        let (mut engine, mut watch, _) = synced_engine(&body);
        let mut relists = Vec::new();
        let mut announced = 0;
        for round in 0..=runs {
            let next = if round % 2 == 0 { &changed_body } else { &body };
            let t = Instant::now();
            let (w, d) = relist(&mut engine, watch, black_box(next));
            let s = t.elapsed().as_secs_f64();
            watch = w;
            announced = d.changes();
            assert_eq!(d.modified, n_changed, "relist announces the changed pods");
            if round > 0 {
                relists.push(s);
            }
        }
        let sync = median(&mut sync);
        let relist_s = median(&mut relists);
        eprintln!(
            "  {n} pods: sync {:.1} ms, relist {:.1} ms",
            sync * 1e3,
            relist_s * 1e3
        );
        result(
            "scaling",
            &n.to_string(),
            &[
                ("raw MB", format!("{:.1}", raw as f64 / 1e6)),
                ("sync ms", format!("{:.1}", sync * 1e3)),
                ("sync ns/object", format!("{:.0}", sync * 1e9 / n as f64)),
                ("sync MB/s", format!("{:.0}", raw as f64 / 1e6 / sync)),
                ("relist ms", format!("{:.1}", relist_s * 1e3)),
                (
                    "relist ns/object",
                    format!("{:.0}", relist_s * 1e9 / n as f64),
                ),
                ("relist events", announced.to_string()),
                ("objects", engine.store().len().to_string()),
            ],
        );
    }
}
