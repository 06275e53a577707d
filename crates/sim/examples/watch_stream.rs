//! Writes the bench watch stream (`kubelive_sim::watch_event_stream`) to a file, for
//! the browser bench page: `cargo run --release -p kubelive-sim --example watch_stream -- 20000 out.jsonl [seed]`.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let out = args.get(1).map(String::as_str).unwrap_or("watch.jsonl");
    let seed: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(7);
    let stream = kubelive_sim::watch_event_stream(seed, n);
    if let Err(e) = std::fs::write(out, &stream) {
        eprintln!("cannot write {out}: {e}");
        std::process::exit(1);
    }
    println!("{out}: {n} events, {} bytes", stream.len());
}
