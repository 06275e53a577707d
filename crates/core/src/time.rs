//! Time as the driver tells it. The engine never reads a clock: every feed call
//! carries `now`, an [`Instant`] on the driver's own monotonic timeline.

use core::time::Duration;

/// A point on the driver's monotonic timeline, in milliseconds since an epoch the
/// driver chooses (process start, page load, the simulation's zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Instant(u64);

impl Instant {
    pub const ZERO: Instant = Instant(0);

    pub const fn from_millis(ms: u64) -> Self {
        Instant(ms)
    }

    pub const fn as_millis(self) -> u64 {
        self.0
    }

    /// Time from `earlier` to `self`, zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Instant) -> Duration {
        Duration::from_millis(self.0.saturating_sub(earlier.0))
    }
}

impl core::ops::Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, d: Duration) -> Instant {
        Instant(
            self.0
                .saturating_add(d.as_millis().min(u64::MAX as u128) as u64),
        )
    }
}

pub use kubelive_kube::human_duration;
/// Calendar dates (RFC 3339, HTTP dates) and kubectl's durations, shared with the sim,
/// the CLI and the browser app.
pub use kubelive_kube::time::{days_from_civil, parse_http_date, parse_rfc3339_ms};
