//! Writes the bench inputs for the Node scripts, byte for byte what the Rust
//! contenders read: the watch stream and the pods (one compact document per line).
//!
//! `peers-data DIR [--events 100000] [--pods 50000]`

use kubelive_peers::*;
use std::io::Write;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = std::path::PathBuf::from(args.first().cloned().unwrap_or_else(|| ".".into()));
    let events: usize = arg(&args, "--events", 100_000);
    let pods: usize = arg(&args, "--pods", 50_000);
    std::fs::create_dir_all(&dir)?;
    let watch = dir.join(format!("watch-{events}.jsonl"));
    std::fs::write(&watch, watch_stream(events))?;
    let pods_path = dir.join(format!("pods-{pods}.jsonl"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&pods_path)?);
    for d in pod_docs(pods) {
        f.write_all(d.as_bytes())?;
        f.write_all(b"\n")?;
    }
    f.flush()?;
    println!("{}\n{}", watch.display(), pods_path.display());
    Ok(())
}
