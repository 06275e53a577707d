//! Clocks: the engine's monotonic time and wall-clock time for ages.

use kubelive_core::Instant;

thread_local! {
    /// The window's `performance`, looked up once: the clock is read several times a
    /// frame and per body chunk, and the lookup is two more calls into JS each time.
    static PERFORMANCE: Option<web_sys::Performance> =
        web_sys::window().and_then(|w| w.performance());
}

/// Milliseconds since page load, on the monotonic `performance.now()` clock.
pub fn now_ms() -> f64 {
    PERFORMANCE.with(|p| p.as_ref().map(|p| p.now()).unwrap_or(0.0))
}

/// The engine's clock: `performance.now()` in whole milliseconds.
pub fn now() -> Instant {
    Instant::from_millis(now_ms().max(0.0) as u64)
}

/// Wall-clock seconds since the Unix epoch (for object ages).
pub fn unix_now() -> f64 {
    js_sys::Date::now() / 1000.0
}

/// Parses an RFC 3339 UTC timestamp as Kubernetes writes them
/// (`2024-05-01T12:00:00Z`, optionally with fractional seconds) to Unix seconds.
pub fn parse_rfc3339(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((days * 86_400 + h * 3600 + mi * 60 + se) as f64)
}

/// A duration the way kubectl shows ages: `45s`, `3m12s`, `17m`, `5h3m`, `20h`, `3d4h`, `45d`, `2y`.
pub fn human_duration(secs: f64) -> String {
    let s = secs.max(0.0) as u64;
    let (m, h, d) = (s / 60, s / 3600, s / 86_400);
    if s < 120 {
        format!("{s}s")
    } else if m < 10 {
        if s % 60 == 0 {
            format!("{m}m")
        } else {
            format!("{m}m{}s", s % 60)
        }
    } else if h < 3 {
        format!("{m}m")
    } else if h < 8 {
        if m % 60 == 0 {
            format!("{h}h")
        } else {
            format!("{h}h{}m", m % 60)
        }
    } else if h < 48 {
        format!("{h}h")
    } else if d < 8 {
        if h % 24 == 0 {
            format!("{d}d")
        } else {
            format!("{d}d{}h", h % 24)
        }
    } else if d < 365 * 2 {
        format!("{d}d")
    } else {
        format!("{}y", d / 365)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kubernetes_timestamps() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0.0));
        assert_eq!(parse_rfc3339("2024-03-01T00:00:01Z"), Some(1_709_251_201.0));
        assert_eq!(
            parse_rfc3339("2024-03-01T00:00:01.5Z"),
            Some(1_709_251_201.0)
        );
        assert_eq!(parse_rfc3339("nope"), None);
    }

    #[test]
    fn ages_read_like_kubectl() {
        assert_eq!(human_duration(5.0), "5s");
        assert_eq!(human_duration(192.0), "3m12s");
        assert_eq!(human_duration(17.0 * 60.0), "17m");
        assert_eq!(human_duration(5.0 * 3600.0 + 180.0), "5h3m");
        assert_eq!(human_duration(20.0 * 3600.0), "20h");
        assert_eq!(human_duration(3.0 * 86_400.0 + 4.0 * 3600.0), "3d4h");
        assert_eq!(human_duration(45.0 * 86_400.0), "45d");
    }
}
