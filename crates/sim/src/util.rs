//! Small helpers: the seeded generator, timestamps of simulated time, URL coding.

/// The seeded generator every kubelive crate shares.
pub use kubelive_kube::rng::{write_uuid, Rng};

/// Default simulated time zero: 2025-01-01T00:00:00Z in Unix seconds.
pub const EPOCH_UNIX_S: u64 = 1_735_689_600;

static EPOCH: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(EPOCH_UNIX_S);

/// Sets the wall-clock date of simulated time zero for timestamps in objects (the binary
/// sets it to its start so `kubectl` shows sensible ages). Tests keep the fixed default.
pub fn set_epoch_unix_s(secs: u64) {
    EPOCH.store(secs, std::sync::atomic::Ordering::Relaxed);
}

/// The wall-clock date of simulated time zero, in Unix seconds.
pub fn epoch_unix_s() -> u64 {
    EPOCH.load(std::sync::atomic::Ordering::Relaxed)
}

/// Unix milliseconds of the second a simulated time falls in: the instant its
/// [`timestamp`] (seconds precision) names. Printed ages are computed against it.
pub fn unix_ms(now_ms: u64) -> i64 {
    ((epoch_unix_s() + now_ms / 1000) * 1000) as i64
}

/// Unix milliseconds of a simulated time, to the millisecond ("now" for printed ages).
pub fn unix_ms_exact(now_ms: u64) -> i64 {
    (epoch_unix_s() * 1000 + now_ms) as i64
}

/// RFC 3339 timestamp (seconds precision, `Z`) for a simulated time in ms.
pub fn timestamp(now_ms: u64) -> String {
    let mut s = String::with_capacity(20);
    write_timestamp(&mut s, now_ms);
    s
}

/// Appends [`timestamp`]`(now_ms)` to `out` (no allocation of its own).
pub fn write_timestamp(out: &mut String, now_ms: u64) {
    kubelive_kube::time::write_rfc3339(out, (epoch_unix_s() + now_ms / 1000) as i64);
}

/// Percent-decoding for query strings (`+` is a space).
pub fn url_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                let h = std::str::from_utf8(&b[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match h {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encoding of a query value.
pub fn url_encode(s: &str) -> String {
    let mut out = String::new();
    for c in s.bytes() {
        if c.is_ascii_alphanumeric() || b"-_.~".contains(&c) {
            out.push(c as char);
        } else {
            out.push_str(&format!("%{c:02X}"));
        }
    }
    out
}

/// A JSON string literal (with quotes).
pub fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        if EPOCH.load(std::sync::atomic::Ordering::Relaxed) == EPOCH_UNIX_S {
            assert_eq!(timestamp(0), "2025-01-01T00:00:00Z");
            assert_eq!(
                timestamp(86_400_000 * 59 + 3_661_000),
                "2025-03-01T01:01:01Z"
            );
        }
    }

    #[test]
    fn url() {
        assert_eq!(url_decode("a%3Db%2Cc+d%"), "a=b,c d%");
        assert_eq!(url_decode(&url_encode("app in (a,b)")), "app in (a,b)");
    }
}
