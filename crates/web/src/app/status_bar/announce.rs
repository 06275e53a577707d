//! What a screen reader hears of the status: the engine's state in a word when it
//! changes (synced, reconnecting, failed), not its counters, which move every second.
//! A state must hold a moment before it is said (a watch that reconnects at once is
//! not news), and announcements come at most one per [`GAP_MS`]: under churn or a
//! flaky connection the live region says the latest state, not every one.

use crate::status::StatusView;

/// The least time between two announcements (ms).
pub const GAP_MS: f64 = 5000.0;
/// How long a state must hold before it is announced (ms).
pub const SETTLE_MS: f64 = 1000.0;

/// The states worth announcing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Said {
    Loading,
    Synced,
    Reconnecting,
    Failed,
}

impl Said {
    pub fn of(s: &StatusView) -> Said {
        if s.failed.is_some() {
            Said::Failed
        } else if s.phase == "backingOff" || (s.synced && !s.connected) {
            Said::Reconnecting
        } else if s.synced && s.phase == "watching" {
            Said::Synced
        } else {
            Said::Loading
        }
    }

    /// The words, from the status as it is when they are said.
    pub fn words(self, s: &StatusView) -> String {
        match self {
            Said::Loading => "Loading".to_string(),
            Said::Synced => format!("Synced: {} objects", s.objects),
            Said::Reconnecting => "Connection lost: reconnecting".to_string(),
            Said::Failed => format!("Failed: {}", s.failed.as_deref().unwrap_or("error")),
        }
    }
}

/// The live region's text over time.
#[derive(Debug)]
pub struct Announcer {
    /// The state last announced (the first, loading, goes without saying).
    said: Said,
    /// When it was announced (ms).
    said_at: f64,
    /// The state now, and since when (ms).
    now: Said,
    since: f64,
}

impl Default for Announcer {
    fn default() -> Self {
        Announcer {
            said: Said::Loading,
            said_at: f64::NEG_INFINITY,
            now: Said::Loading,
            since: 0.0,
        }
    }
}

impl Announcer {
    /// The status at `at` (ms); what to announce now, if anything.
    pub fn note(&mut self, status: &StatusView, at: f64) -> Option<String> {
        let state = Said::of(status);
        if state != self.now {
            self.now = state;
            self.since = at;
        }
        let due =
            self.now != self.said && at - self.since >= SETTLE_MS && at - self.said_at >= GAP_MS;
        due.then(|| {
            self.said = self.now;
            self.said_at = at;
            self.now.words(status)
        })
    }

    /// A new view: its loading goes without saying.
    pub fn restart(&mut self) {
        self.said = Said::Loading;
        self.now = Said::Loading;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn synced() -> StatusView {
        StatusView {
            phase: "watching",
            connected: true,
            synced: true,
            objects: 60,
            ..StatusView::default()
        }
    }

    fn reconnecting() -> StatusView {
        StatusView {
            connected: false,
            ..synced()
        }
    }

    /// Notes `status` every 250 ms (a frame under churn) from `from` to `to`; what was said.
    fn run(a: &mut Announcer, status: &StatusView, from: f64, to: f64) -> Vec<(f64, String)> {
        let mut said = Vec::new();
        let mut at = from;
        while at < to {
            if let Some(words) = a.note(status, at) {
                said.push((at, words));
            }
            at += 250.0;
        }
        said
    }

    #[test]
    fn the_sync_is_said_once_and_the_counters_moving_say_nothing() {
        let mut a = Announcer::default();
        let loading = StatusView {
            phase: "listing",
            ..StatusView::default()
        };
        assert!(run(&mut a, &loading, 0.0, 3000.0).is_empty());
        let said = run(&mut a, &synced(), 3000.0, 10_000.0);
        assert_eq!(said, [(4000.0, "Synced: 60 objects".to_string())]);
        // Churn: the objects' count and the counters change, the state does not.
        for n in 0..40 {
            let s = StatusView {
                objects: 60 + n,
                relists: n as u64,
                ..synced()
            };
            assert_eq!(a.note(&s, 10_000.0 + n as f64 * 250.0), None);
        }
    }

    #[test]
    fn a_flaky_connection_does_not_flood_and_a_lasting_loss_is_said() {
        let mut a = Announcer::default();
        run(&mut a, &synced(), 0.0, 2000.0);
        // The watch drops and resumes within half a second, again and again.
        let mut said = Vec::new();
        for i in 0..40 {
            let at = 2000.0 + i as f64 * 1000.0;
            said.extend(a.note(&reconnecting(), at));
            said.extend(a.note(&synced(), at + 500.0));
        }
        assert!(said.is_empty(), "{said:?}");
        // A loss that lasts is said, once, and the recovery after the gap.
        let lost = run(&mut a, &reconnecting(), 50_000.0, 53_000.0);
        assert_eq!(
            lost,
            [(51_000.0, "Connection lost: reconnecting".to_string())]
        );
        let back = run(&mut a, &synced(), 53_000.0, 60_000.0);
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].0, 56_000.0, "at least {GAP_MS} ms after the last");
    }

    #[test]
    fn announcements_keep_their_distance_and_say_the_latest_state() {
        let mut a = Announcer::default();
        assert_eq!(run(&mut a, &synced(), 0.0, 10_000.0).len(), 1);
        let failed = StatusView {
            failed: Some("forbidden".into()),
            ..synced()
        };
        // Failed, then reconnecting, then synced again, for 2 s each.
        let mut said = run(&mut a, &failed, 10_000.0, 12_000.0);
        said.extend(run(&mut a, &reconnecting(), 12_000.0, 14_000.0));
        said.extend(run(&mut a, &synced(), 14_000.0, 20_000.0));
        // The reconnecting passed within the gap after the failure: what is said
        // then is the state the gap ends in.
        assert_eq!(
            said,
            [
                (11_000.0, "Failed: forbidden".to_string()),
                (16_000.0, "Synced: 60 objects".to_string())
            ]
        );
    }
}
