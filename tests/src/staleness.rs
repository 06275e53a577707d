//! Staleness as a number: for every change the server makes to the engine's query, the
//! simulated time until the engine's store shows it or a newer state of that object.
//!
//! [`Tracker`] holds the changes not shown yet, per key; [`Histogram`] keeps the
//! delays (log-linear buckets, ±3 %, exact maximum) so 10 000 seeds' worth of changes
//! aggregate in a few kilobytes per fault class.

use kubelive_core::Store;
use std::collections::{BTreeMap, HashMap, VecDeque};

/// Values below this are exact; above, 32 buckets per power of two.
const LINEAR: u64 = 128;
const SUB: u64 = 32;
const BUCKETS: usize = 128 + 58 * 32;

/// A distribution of delays in milliseconds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Histogram {
    counts: Vec<u64>,
    count: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: vec![0; BUCKETS],
            count: 0,
            max: 0,
        }
    }
}

fn bucket(v: u64) -> usize {
    if v < LINEAR {
        return v as usize;
    }
    let e = 63 - u64::from(v.leading_zeros()); // >= 7
    let sub = (v >> (e - 5)) & (SUB - 1);
    (LINEAR + (e - 7) * SUB + sub) as usize
}

/// The smallest value that falls in bucket `i`.
fn lower(i: usize) -> u64 {
    let i = i as u64;
    if i < LINEAR {
        return i;
    }
    let e = 7 + (i - LINEAR) / SUB;
    let sub = (i - LINEAR) % SUB;
    (1 << e) | (sub << (e - 5))
}

impl Histogram {
    pub fn record(&mut self, ms: u64) {
        self.counts[bucket(ms).min(BUCKETS - 1)] += 1;
        self.count += 1;
        self.max = self.max.max(ms);
    }

    pub fn add(&mut self, o: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += b;
        }
        self.count += o.count;
        self.max = self.max.max(o.max);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn max(&self) -> u64 {
        self.max
    }

    /// The `q` quantile (0..=1), as the lower bound of its bucket (never above `max`).
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return lower(i).min(self.max);
            }
        }
        self.max
    }
}

/// Delays per fault class (a seed counts towards every fault it has, or `none`).
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub classes: BTreeMap<String, Histogram>,
}

impl Table {
    pub fn add(&mut self, faults: &[&str], h: &Histogram) {
        self.classes.entry("(all)".into()).or_default().add(h);
        if faults.is_empty() {
            self.classes.entry("(none)".into()).or_default().add(h);
        }
        for f in faults {
            self.classes.entry((*f).into()).or_default().add(h);
        }
    }

    pub fn merge(&mut self, o: &Table) {
        for (k, h) in &o.classes {
            self.classes.entry(k.clone()).or_default().add(h);
        }
    }

    /// A Markdown table: class, changes, p50, p99, p99.9, max (seconds of simulated time).
    pub fn render(&self) -> String {
        let s = |ms: u64| format!("{:.2}", ms as f64 / 1000.0);
        let mut out = String::from(
            "| fault class | changes | p50 s | p99 s | p99.9 s | max s |\n|---|---:|---:|---:|---:|---:|\n",
        );
        for (k, h) in &self.classes {
            out.push_str(&format!(
                "| {k} | {} | {} | {} | {} | {} |\n",
                h.count(),
                s(h.quantile(0.5)),
                s(h.quantile(0.99)),
                s(h.quantile(0.999)),
                s(h.max())
            ));
        }
        out
    }
}

/// One change not yet shown: made at `at`, to version `rv`; `gone` when it removed
/// the object from the query's result.
#[derive(Clone, Copy, Debug)]
pub struct Pending {
    pub at: u64,
    pub rv: u64,
    pub gone: bool,
}

/// The changes each key still waits for.
#[derive(Debug, Default)]
pub struct Tracker {
    pending: HashMap<(String, String), VecDeque<Pending>>,
}

/// A change shown: when it was made and when the store first showed it (or newer).
#[derive(Clone, Copy, Debug)]
pub struct Shown {
    pub at: u64,
    pub shown: u64,
}

impl Tracker {
    pub fn push(&mut self, ns: &str, name: &str, p: Pending) {
        self.pending
            .entry((ns.to_string(), name.to_string()))
            .or_default()
            .push_back(p);
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The oldest change still waiting, if any.
    pub fn oldest(&self) -> Option<u64> {
        self.pending
            .values()
            .filter_map(|q| q.front().map(|p| p.at))
            .min()
    }

    /// Settles every change the store now shows (or a newer state of), calling `f` for
    /// each. An object the store holds at version `r` shows every change up to `r`; an
    /// object it lacks shows every change up to the last that removed it.
    pub fn settle(&mut self, store: &Store, now: u64, mut f: impl FnMut(Shown)) {
        self.pending.retain(|(ns, name), q| {
            let upto = match store.get(ns, name) {
                Some(o) => {
                    let r: u64 = o.resource_version().parse().unwrap_or(0);
                    q.iter().take_while(|p| p.rv <= r).count()
                }
                None => q.iter().rposition(|p| p.gone).map_or(0, |i| i + 1),
            };
            for p in q.drain(..upto) {
                f(Shown {
                    at: p.at,
                    shown: now,
                });
            }
            !q.is_empty()
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotonic_and_tight() {
        let mut prev = 0;
        for v in [
            0u64,
            1,
            127,
            128,
            129,
            200,
            1_000,
            4_095,
            4_096,
            65_000,
            1 << 40,
        ] {
            let b = bucket(v);
            assert!(b >= prev);
            prev = b;
            let lo = lower(b);
            assert!(lo <= v, "{v}: lower {lo}");
            assert!(v - lo <= v / 32 + 1, "{v}: lower {lo} too far");
        }
    }

    #[test]
    fn quantiles() {
        let mut h = Histogram::default();
        for v in 1..=1000 {
            h.record(v);
        }
        assert_eq!(h.count(), 1000);
        assert_eq!(h.max(), 1000);
        let p50 = h.quantile(0.5);
        assert!((480..=500).contains(&p50), "{p50}");
        let p99 = h.quantile(0.99);
        assert!((960..=990).contains(&p99), "{p99}");
        assert_eq!(Histogram::default().quantile(0.5), 0);
    }
}
