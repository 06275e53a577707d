//! Clocks: the engine's monotonic time and wall-clock time for ages.

use kubelive_core::Instant;

thread_local! {
    /// The global scope's `performance` (a page's or a worker's), looked up once: the
    /// clock is read several times a frame and per body chunk, and the lookup is two
    /// more calls into JS each time.
    static PERFORMANCE: Option<web_sys::Performance> =
        crate::scope::global().and_then(|g| g.performance());
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

pub use kubelive_table::ages::{human_duration, parse_rfc3339};
