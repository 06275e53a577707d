//! Saved views at 100,000 pods: saving what an engine holds
//! (`Engine::save_view`), reading it back (`SavedView::decode`) and restoring an
//! engine from it (`Engine::restore`, the store filled and its events drained),
//! each against decoding the same rows from the server's Table JSON (the LIST answer
//! kube-apiserver prints for `kubectl get pods`, `kubelive_sim::printers`; one
//! response fed in 1 MiB chunks through a real Engine, as the app keeps rows:
//! `KeptMetadata::Identity`). All in one run, so the ratios compare like with like.
//!
//! `cargo bench -p kubelive-core --bench saved [-- PODS [RUNS]]` (defaults 100000, 7)

#[path = "common/tables.rs"]
mod tables;

use kubelive_core::{Collection, Config, Engine, IncludeObject, Instant, KeptMetadata, SavedView};
use kubelive_sim::printers::IncludeObject as Rows;
use std::hint::black_box;
use std::time::{Duration, Instant as Clock};

const CHUNK: usize = 1 << 20;

fn config() -> Config {
    let mut c =
        Config::new(Collection::parse("/api/v1/pods").unwrap()).tables(IncludeObject::Metadata);
    c.metadata = KeptMetadata::Identity;
    c.page_size = 0;
    c
}

/// An engine that listed `body` (one Table answer) and is watching: the store is the
/// state at the list's version.
fn listed(body: &[u8]) -> Engine {
    let now = Instant::ZERO;
    let mut engine = Engine::new(config(), now);
    let list = engine.poll_request().expect("a LIST");
    engine.handle_response(list.id, 200, &[], now);
    for chunk in body.chunks(CHUNK) {
        engine.handle_body(list.id, chunk, now);
        while engine.poll_event().is_some() {}
    }
    engine.handle_end(list.id, now);
    while engine.poll_event().is_some() {}
    let watch = engine.poll_request().expect("a WATCH");
    engine.handle_response(watch.id, 200, &[], now);
    engine
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn time<R>(runs: usize, mut f: impl FnMut() -> R) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let t = Clock::now();
                black_box(f());
                t.elapsed()
            })
            .collect(),
    )
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let pods = args.first().copied().unwrap_or(100_000);
    let runs = args.get(1).copied().unwrap_or(7) as usize;
    eprintln!("printing {pods} pods as a Table ...");
    let body = {
        let pods = tables::pods(11, pods);
        tables::table_list(&pods, Rows::Metadata)
    };
    let engine = listed(&body);
    // The generator repeats a few names (a recreated pod): count what the store holds.
    let rows = engine.store().len();
    let saved = engine.save_view().expect("a view at one version");

    let decode_json = time(runs, || listed(&body).store().len());
    let save = time(runs, || engine.save_view().map(|b| b.len()));
    let load = time(runs, || SavedView::decode(&saved).map(|v| v.rows().len()));
    let restore = time(runs, || {
        let view = SavedView::decode(&saved).expect("a saved view");
        let mut engine = Engine::restore(config(), view, Instant::ZERO).expect("restored");
        let mut events = 0;
        while engine.poll_event().is_some() {
            events += 1;
        }
        events
    });

    println!("saved views, {pods} pods printed ({rows} rows held), median of {runs} runs:");
    println!(
        "  Table JSON   {:>8.1} MB  decoded into an engine  {:>8.1} ms  (1.00x)",
        body.len() as f64 / 1e6,
        ms(decode_json)
    );
    println!(
        "  saved view   {:>8.1} MB  ({:.1}x smaller, {} B a pod)",
        saved.len() as f64 / 1e6,
        body.len() as f64 / saved.len() as f64,
        saved.len() / rows.max(1)
    );
    for (what, d) in [
        ("save_view", save),
        ("SavedView::decode", load),
        ("decode + Engine::restore + events drained", restore),
    ] {
        println!(
            "  {what:<44} {:>8.1} ms  ({:.3}x the JSON decode, {:.0}x faster)",
            ms(d),
            d.as_secs_f64() / decode_json.as_secs_f64(),
            decode_json.as_secs_f64() / d.as_secs_f64()
        );
    }
}
