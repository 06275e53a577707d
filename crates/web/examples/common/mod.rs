//! What the table examples share: rows decoded from a Table answer by the core's list
//! decoder, as the engine stores them.

use kubelive_core::decode::ListDecoder;
use kubelive_core::{Limits, Object, ParseOptions, TableColumn};
use std::sync::Arc;

/// The `n` rows `row(i)` writes (each a Table row's JSON), under the column
/// definitions `columns` (a JSON array), fed to the list decoder in ~1 MiB chunks.
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
