//! What the table examples share: rows decoded from a Table answer by the core's list
//! decoder, as the engine stores them.

use kubelive_core::decode::ListDecoder;
use kubelive_core::{Limits, Object, ParseOptions, TableColumn};
use std::sync::Arc;

/// The `n` rows `row(i)` writes (each a Table row's JSON), under the column
/// definitions `columns` (a JSON array), fed to the list decoder in ~1 MiB chunks.
#[allow(dead_code)] // not every example decodes rows itself
pub fn table_rows(
    columns: &str,
    n: usize,
    mut row: impl FnMut(usize) -> String,
) -> (Vec<TableColumn>, Vec<Arc<Object>>) {
    let mut decoder = ListDecoder::new(Limits::default(), ParseOptions::default());
    let mut rows: Vec<Arc<Object>> = Vec::with_capacity(n);
    let mut out = Vec::new();
    let head = format!(
        r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"9"}},"columnDefinitions":{columns},"rows":["#
    );
    decoder.feed(head.as_bytes(), &mut out).expect("the head");
    let mut chunk = String::new();
    for i in 0..n {
        if i > 0 {
            chunk.push(',');
        }
        chunk.push_str(&row(i));
        if chunk.len() > 1 << 20 {
            decoder.feed(chunk.as_bytes(), &mut out).expect("rows");
            rows.extend(out.drain(..).map(Arc::new));
            chunk.clear();
        }
    }
    chunk.push_str("]}");
    decoder.feed(chunk.as_bytes(), &mut out).expect("rows");
    decoder.finish().expect("a Table");
    rows.extend(out.drain(..).map(Arc::new));
    (decoder.take_columns().expect("columns"), rows)
}

/// A small deterministic generator (xorshift): the same draws on every run.
#[allow(dead_code)] // not every example draws
pub struct Rng(pub u64);

#[allow(dead_code)]
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// `n` letters and digits, as in the names Kubernetes generates.
    pub fn alnum(&mut self, n: usize) -> String {
        const A: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        (0..n)
            .map(|_| A[(self.next() % A.len() as u64) as usize] as char)
            .collect()
    }
}

/// kubectl's pod columns, as the server declares them.
#[allow(dead_code)] // not every example prints pods
pub const POD_COLUMNS: &str = r#"[{"name":"Name","type":"string","format":"name","description":"","priority":0},{"name":"Ready","type":"string","format":"","description":"","priority":0},{"name":"Status","type":"string","format":"","description":"","priority":0},{"name":"Restarts","type":"string","format":"","description":"","priority":0},{"name":"Age","type":"string","format":"","description":"","priority":0},{"name":"IP","type":"string","format":"","description":"","priority":1},{"name":"Node","type":"string","format":"","description":"","priority":1}]"#;

/// Pod `i` as a Table row (metadata only), at `rv` with `restarts`: spread over 20
/// namespaces and 40 nodes, created within ~23 days of 2024-01-01.
#[allow(dead_code)]
pub fn pod_row(i: usize, rv: u64, restarts: u64) -> String {
    let (ns, app) = (i % 20, i % 17);
    let created = 1_704_067_200 + (i as u64 * 7919) % 2_000_000;
    format!(
        r#"{{"cells":["app-{app}-5d8f7c9b-{i:06}","1/1","Running","{restarts}","5d","10.0.{}.{}","node-{}"],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"name":"app-{app}-5d8f7c9b-{i:06}","namespace":"ns-{ns}","uid":"u-{i}","resourceVersion":"{rv}","creationTimestamp":"{}"}}}}}}"#,
        i / 256 % 256,
        i % 256,
        i % 40,
        rfc3339(created)
    )
}

fn rfc3339(secs: u64) -> String {
    let days = secs / 86_400;
    let s = secs % 86_400;
    // 2024-01-01 is day 19723; every row within ~23 days of it, January.
    let day = days - 19_723 + 1;
    format!(
        "2024-01-{day:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// A LIST answer of `rows` pods as a Table (`pod_row(i, i + 1, 0)`), at version `rows`.
#[allow(dead_code)]
pub fn pod_table(rows: usize) -> String {
    let body: Vec<String> = (0..rows).map(|i| pod_row(i, i as u64 + 1, 0)).collect();
    format!(
        r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"{rows}"}},"columnDefinitions":{POD_COLUMNS},"rows":[{}]}}"#,
        body.join(",")
    )
}
