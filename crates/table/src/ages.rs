//! Ages in seconds, as the table's Age cells and sorts read them.

/// Unix seconds of an RFC 3339 timestamp as Kubernetes writes them
/// (`2024-05-01T12:00:00Z`, fractional seconds and offsets accepted).
pub fn parse_rfc3339(s: &str) -> Option<f64> {
    kubelive_core::time::parse_rfc3339_ms(s).map(|ms| ms.div_euclid(1000) as f64)
}

/// A duration the way kubectl shows ages: `45s`, `3m12s`, `17m`, `5h3m`, `20h`, `3d4h`,
/// `45d`, `2y1d`. A creation a few seconds in the future (the browser's clock trails the
/// server's) reads `0s`, not kubectl's `<invalid>`.
pub fn human_duration(secs: f64) -> String {
    kubelive_core::time::human_duration((secs.max(0.0) as i64).saturating_mul(1000))
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
        assert_eq!(human_duration(-3.0), "0s");
    }
}
