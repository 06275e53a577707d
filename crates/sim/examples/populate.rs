//! Times populating a cluster and churning it: `cargo run --release --example populate -- 100000`.
use kubelive_sim::*;
use std::time::Instant;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let t = Instant::now();
    let mut rng = Rng::new(1);
    for i in 0..n.min(10_000) {
        let p = PodParams::random(&mut rng, "ns", "app", "abc", i as u64);
        std::hint::black_box(pod(&p));
    }
    println!(
        "pod(): {:.1} us each",
        t.elapsed().as_secs_f64() * 1e6 / n.min(10_000) as f64
    );
    let t = Instant::now();
    let mut c = Cluster::new(ClusterConfig::default());
    let mut w = Workload::new(
        1,
        WorkloadConfig {
            namespaces: 10,
            pods: n,
            churn_per_sec: 1000.0,
        },
    );
    w.populate(&mut c, 0);
    println!("populate {n}: {:.2} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let k = w.tick(&mut c, 5_000);
    println!(
        "churn {k} changes: {:.1} us each",
        t.elapsed().as_secs_f64() * 1e6 / k as f64
    );
    let t = Instant::now();
    let r = c.handle(&Get::new("/api/v1/pods?limit=500"), 5_000);
    if let Reply::Response(r) = r {
        println!(
            "list 500: {:.1} ms, {} bytes",
            t.elapsed().as_secs_f64() * 1e3,
            r.body.len()
        );
    }
}
