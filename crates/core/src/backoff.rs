//! Retry delays: exponential with jitter, from a seed the driver gives.

use crate::time::Instant;
use core::time::Duration;

/// How retries after failures are spaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackoffConfig {
    /// First delay, and the floor of every delay.
    pub initial: Duration,
    /// Delays double up to this.
    pub max: Duration,
    /// A failure this long after the previous one starts again from `initial`.
    pub reset_after: Duration,
    /// Errors the user must fix (401/403/404) are retried no faster than this.
    pub needs_user_floor: Duration,
    /// A server's `Retry-After` is honoured up to this: a live view that waits longer
    /// is broken for its user (`Retry-After: 86400` would stall it for a day), and a
    /// server still overloaded then simply asks again.
    pub max_retry_after: Duration,
}

impl Default for BackoffConfig {
    fn default() -> Self {
        BackoffConfig {
            initial: Duration::from_millis(800),
            max: Duration::from_secs(30),
            reset_after: Duration::from_secs(120),
            needs_user_floor: Duration::from_secs(10),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

/// The engine's only randomness (jitter, watch timeouts): the generator every kubelive
/// crate shares, seeded by the driver (`Rng::from_state(Config::seed)`) so that
/// simulations replay exactly.
pub use kubelive_kube::rng::Rng;

/// Exponential backoff state: how many failures in a row, and when the last was.
#[derive(Clone, Debug)]
pub struct Backoff {
    config: BackoffConfig,
    failures: u32,
    last_failure: Option<Instant>,
}

impl Backoff {
    pub fn new(config: BackoffConfig) -> Self {
        Backoff {
            config,
            failures: 0,
            last_failure: None,
        }
    }

    /// The delay before the next retry after a failure at `now`. `at_least` is a
    /// server's Retry-After, honoured as a lower bound.
    pub fn next_delay(
        &mut self,
        now: Instant,
        needs_user: bool,
        at_least: Option<Duration>,
        rng: &mut Rng,
    ) -> Duration {
        if self
            .last_failure
            .is_some_and(|t| now.saturating_since(t) >= self.config.reset_after)
        {
            self.failures = 0;
        }
        self.last_failure = Some(now);
        let step = self.failures.min(16);
        self.failures = self.failures.saturating_add(1);
        let base = self
            .config
            .initial
            .saturating_mul(1 << step)
            .min(self.config.max);
        // Jitter upwards only (up to +25%), so the floor is never undercut and many
        // clients restarted together spread out.
        let jitter_ms = base.as_millis() as u64 / 4;
        let jittered = base + Duration::from_millis(rng.range(0, jitter_ms));
        let mut delay = jittered.min(self.config.max.max(self.config.initial));
        if needs_user {
            delay = delay.max(self.config.needs_user_floor);
        }
        if let Some(server) = at_least {
            delay = delay.max(server.min(self.config.max_retry_after));
        }
        delay
    }

    /// The attempt made progress: the next failure starts from `initial` again.
    pub fn reset(&mut self) {
        self.failures = 0;
    }

    /// Consecutive failures so far.
    pub fn failures(&self) -> u32 {
        self.failures
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_from_800ms_to_30s_never_below_floor() {
        let mut b = Backoff::new(BackoffConfig::default());
        let mut rng = Rng::from_state(7);
        let mut now = Instant::from_millis(0);
        let mut seen = vec![];
        for _ in 0..10 {
            let d = b.next_delay(now, false, None, &mut rng);
            seen.push(d);
            now = now + d;
        }
        for (i, d) in seen.iter().enumerate() {
            let base = Duration::from_millis(800)
                .saturating_mul(1 << i)
                .min(Duration::from_secs(30));
            assert!(*d >= base, "step {i}: {d:?} < {base:?}");
            assert!(
                *d <= Duration::from_secs(30),
                "step {i}: {d:?} over the cap"
            );
            assert!(*d <= base + base / 4);
        }
        assert_eq!(seen[9], Duration::from_secs(30));
    }

    #[test]
    fn resets_after_two_quiet_minutes_and_honours_retry_after() {
        let mut b = Backoff::new(BackoffConfig::default());
        let mut rng = Rng::from_state(1);
        for _ in 0..5 {
            b.next_delay(Instant::from_millis(0), false, None, &mut rng);
        }
        let later = Instant::from_millis(121_000);
        let d = b.next_delay(later, false, None, &mut rng);
        assert!(d < Duration::from_millis(1001), "{d:?}");
        let d = b.next_delay(later, false, Some(Duration::from_secs(9)), &mut rng);
        assert!(d >= Duration::from_secs(9));
        let d = b.next_delay(later, true, None, &mut rng);
        assert!(d >= Duration::from_secs(10));
        // Retry-After is capped: a day becomes a minute.
        let d = b.next_delay(later, false, Some(Duration::from_secs(86_400)), &mut rng);
        assert_eq!(d, Duration::from_secs(60));
    }

    #[test]
    fn progress_resets_the_streak() {
        let mut b = Backoff::new(BackoffConfig::default());
        let mut rng = Rng::from_state(3);
        let t = Instant::from_millis(0);
        for _ in 0..5 {
            b.next_delay(t, false, None, &mut rng);
        }
        assert!(b.next_delay(t, false, None, &mut rng) >= Duration::from_secs(25));
        b.reset();
        assert!(b.next_delay(t, false, None, &mut rng) <= Duration::from_millis(1000));
    }

    #[test]
    fn rng_is_deterministic_per_seed() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::from_state(42);
                move |_| r.range(300, 600)
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::from_state(42);
                move |_| r.range(300, 600)
            })
            .collect();
        assert_eq!(a, b);
        assert!(a.iter().all(|t| (300..=600).contains(t)));
    }
}
