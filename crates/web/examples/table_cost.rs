//! What sorting and filtering the server's rows cost (native, release), on pods as the
//! apiserver prints them (metadata rows, kubectl's pod columns):
//! `cargo run --release -p kubelive-web --example table_cost [-- ROWS]` (200,000 by
//! default). Rows come from a Table answer through the core's list decoder, as the
//! engine stores them.

mod common;

use kubelive_core::ColumnKind;
use kubelive_table::{sorted, view_columns, Filter, Sort};
use std::time::Instant;

const COLUMNS: &str = r#"[{"name":"Name","type":"string","format":"name","description":"","priority":0},{"name":"Ready","type":"string","format":"","description":"","priority":0},{"name":"Status","type":"string","format":"","description":"","priority":0},{"name":"Restarts","type":"integer","format":"","description":"","priority":0},{"name":"Age","type":"string","format":"","description":"","priority":0},{"name":"IP","type":"string","format":"","description":"","priority":1},{"name":"Node","type":"string","format":"","description":"","priority":1}]"#;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let (defs, rows) = common::table_rows(COLUMNS, n, |i| {
        let restarts = if i % 3 == 0 {
            format!("\"{} (5m ago)\"", i % 11)
        } else {
            format!("\"{}\"", i % 11)
        };
        format!(
            r#"{{"cells":["app-{a}-pod-{i}","1/1","{st}",{restarts},"5m","10.0.{b}.{c}","node-{d}"],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"name":"app-{a}-pod-{i}","namespace":"ns-{e}","uid":"u{i}","resourceVersion":"1","creationTimestamp":"2024-01-{day:02}T00:00:{sec:02}Z"}}}}}}"#,
            a = i % 50,
            st = ["Running", "Pending", "CrashLoopBackOff"][i % 3],
            b = i % 250,
            c = i % 200,
            d = i % 40,
            e = i % 20,
            day = 1 + i % 28,
            sec = i % 60,
        )
    });
    let cols = view_columns(Some(&defs), ColumnKind::Generic, true, true);
    println!("{} rows", rows.len());
    for param in ["name", "-restarts", "age", "status", "namespace", "ip"] {
        let sort = Sort::parse(param, &cols).expect("a column");
        let mut best = f64::MAX;
        for _ in 0..3 {
            let t = Instant::now();
            let s = sorted(&rows, &sort);
            best = best.min(t.elapsed().as_secs_f64() * 1000.0);
            assert_eq!(s.len(), rows.len());
        }
        println!("sort by {param:<10} {best:>8.1} ms");
    }
    for words in [
        vec!["crashloop".to_string()],
        vec!["node-3".into(), "ns-1".into()],
    ] {
        let filter = Filter::new(&words, &cols);
        let mut best = f64::MAX;
        let mut matched = 0;
        for _ in 0..3 {
            let t = Instant::now();
            matched = rows.iter().filter(|o| filter.matches(o)).count();
            best = best.min(t.elapsed().as_secs_f64() * 1000.0);
        }
        println!("filter {words:?}: {matched} rows, {best:.1} ms");
    }
}
