//! The deterministic simulation as a test: the CI budget of seeds, and replay of one.
//!
//! * `dst_seeds`: seeds `0..N` on every core, N = `KUBELIVE_DST_SEEDS` or 10 000 in
//!   release (60 in debug builds, where it is ~30x slower). Run it in release:
//!   `cargo test --release -p kubelive-tests --test dst`.
//! * `replay`: `KUBELIVE_DST_SEED=S [KUBELIVE_DST_WITHOUT=a,b] [KUBELIVE_DST_WORKLOAD_MS=N]`
//!   runs that one scenario with a trace (what a failure report prints).

use kubelive_tests::driver::{run_many, Options};

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

#[test]
fn dst_seeds() {
    let default = if cfg!(debug_assertions) { 60 } else { 10_000 };
    let opts = Options {
        seeds: env_u64("KUBELIVE_DST_SEEDS").unwrap_or(default),
        start: env_u64("KUBELIVE_DST_START").unwrap_or(0),
        ..Options::default()
    };
    match run_many(&opts) {
        Ok(summary) => println!("dst: {}", summary.line()),
        Err(f) => panic!("\n{}", f.report()),
    }
}

#[test]
fn replay() {
    let Some(seed) = env_u64("KUBELIVE_DST_SEED") else {
        return;
    };
    let opts = Options {
        seed: Some(seed),
        without: std::env::var("KUBELIVE_DST_WITHOUT")
            .map(|v| {
                v.split(',')
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default(),
        workload_ms: env_u64("KUBELIVE_DST_WORKLOAD_MS"),
        ..Options::default()
    };
    match run_many(&opts) {
        Ok(summary) => println!("dst: seed {seed} ok: {}", summary.line()),
        Err(f) => panic!("\n{}", f.report()),
    }
}
