//! What the free-text filter costs over 100,000 pods (native, release):
//! `cargo run --release -p kubelive-web --example filter_cost [-- name]`
//! (`name`: the name column only, for comparison).

use kubelive_core::{ColumnKind, Object, ParseOptions};
use kubelive_table::{view_columns, Column, Filter};

fn main() {
    let opts = ParseOptions {
        columns: ColumnKind::Pod,
        ..ParseOptions::default()
    };
    let pods: Vec<Object> = (0..100_000)
        .map(|i| {
            let json = format!(
                r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"app-{}-pod-{i}","namespace":"ns-{}","uid":"u{i}","resourceVersion":"1","creationTimestamp":"2024-01-01T00:00:00Z"}},"spec":{{"nodeName":"node-{}","containers":[{{"name":"c"}}]}},"status":{{"phase":"Running","containerStatuses":[{{"name":"c","ready":true,"restartCount":{}}}]}}}}"#,
                i % 50,
                i % 20,
                i % 40,
                i % 7
            );
            Object::parse(json.as_bytes(), &opts).expect("a pod")
        })
        .collect();
    let cols: Vec<Column> = if std::env::args().any(|a| a == "name") {
        vec![Column::name()]
    } else {
        view_columns(None, ColumnKind::Pod, true, false)
    };
    for words in [
        vec!["app-7".to_string()],
        vec!["node-3".into(), "running".into()],
    ] {
        let filter = Filter::new(&words, &cols);
        let mut best = f64::MAX;
        let mut matched = 0;
        for _ in 0..5 {
            let started = std::time::Instant::now();
            matched = pods.iter().filter(|o| filter.matches(o)).count();
            best = best.min(started.elapsed().as_secs_f64() * 1000.0);
        }
        println!("{words:?}: {matched} of 100000 match, best of 5: {best:.1} ms");
    }
}
