//! Go's `k8s.io/apimachinery/pkg/util/duration.HumanDuration`: how long ago, as every Age
//! column (kube-apiserver's printers) and kubectl print it.

/// `HumanDuration` of a duration in milliseconds: `"70s"`, `"3m10s"`, `"70m"`, `"2d1h"`,
/// `"2y1d"`; `"<invalid>"` below -1 s (a clock ahead of the viewer's), `"0s"` up to it.
pub fn human_duration(d_ms: i64) -> String {
    // Go's int(d.Seconds()) truncates toward zero, as Rust's integer division does.
    let seconds = d_ms / 1000;
    if seconds < -1 {
        return "<invalid>".into();
    } else if seconds < 0 {
        return "0s".into();
    } else if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = d_ms / 60_000;
    if minutes < 10 {
        let s = seconds % 60;
        if s == 0 {
            return format!("{minutes}m");
        }
        return format!("{minutes}m{s}s");
    } else if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = d_ms / 3_600_000;
    if hours < 8 {
        let m = minutes % 60;
        if m == 0 {
            return format!("{hours}h");
        }
        format!("{hours}h{m}m")
    } else if hours < 48 {
        format!("{hours}h")
    } else if hours < 24 * 8 {
        let h = hours % 24;
        if h == 0 {
            return format!("{}d", hours / 24);
        }
        format!("{}d{h}h", hours / 24)
    } else if hours < 24 * 365 * 2 {
        format!("{}d", hours / 24)
    } else if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        if dy == 0 {
            return format!("{}y", hours / 24 / 365);
        }
        format!("{}y{dy}d", hours / 24 / 365)
    } else {
        format!("{}y", hours / 24 / 365)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1000;
    const MIN: i64 = 60 * S;
    const H: i64 = 60 * MIN;
    const D: i64 = 24 * H;

    /// The table of k8s.io/apimachinery/pkg/util/duration/duration_test.go
    /// (TestHumanDuration and TestHumanDurationBoundaries), at millisecond resolution.
    #[test]
    fn human_duration_matches_apimachinery() {
        let cases: &[(i64, &str)] = &[
            (S, "1s"),
            (70 * S, "70s"),
            (190 * S, "3m10s"),
            (70 * MIN, "70m"),
            (47 * H, "47h"),
            (49 * H, "2d1h"),
            ((8 * 24 + 2) * H, "8d"),
            (367 * D, "367d"),
            ((365 * 2 * 24 + 25) * H, "2y1d"),
            ((365 * 8 * 24 + 2) * H, "8y"),
            (-2 * S, "<invalid>"),
            (-2 * S + 1, "0s"),
            (0, "0s"),
            (S - 1, "0s"),
            (2 * MIN - 1, "119s"),
            (2 * MIN, "2m"),
            (2 * MIN + S, "2m1s"),
            (10 * MIN - 1, "9m59s"),
            (10 * MIN, "10m"),
            (10 * MIN + S, "10m"),
            (3 * H - 1, "179m"),
            (3 * H, "3h"),
            (3 * H + MIN, "3h1m"),
            (8 * H - 1, "7h59m"),
            (8 * H, "8h"),
            (8 * H + 59 * MIN, "8h"),
            (2 * D - 1, "47h"),
            (2 * D, "2d"),
            (2 * D + H, "2d1h"),
            (8 * D - 1, "7d23h"),
            (8 * D, "8d"),
            (8 * D + 23 * H, "8d"),
            (2 * 365 * D - 1, "729d"),
            (2 * 365 * D, "2y"),
            (2 * 365 * D + 23 * H, "2y"),
            (2 * 365 * D + 24 * H - 1, "2y"),
            (2 * 365 * D + 24 * H, "2y1d"),
            (3 * 365 * D, "3y"),
            (8 * 365 * D - 1, "7y364d"),
            (8 * 365 * D, "8y"),
            (8 * 365 * D + 364 * D, "8y"),
            (9 * 365 * D, "9y"),
        ];
        for (d, want) in cases {
            assert_eq!(human_duration(*d), *want, "{d} ms");
        }
    }
}
