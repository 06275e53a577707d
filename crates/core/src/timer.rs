//! The engine's deadlines: one enum of named timers and a table of when each fires.
//! [`crate::Engine::poll_timeout`] is the earliest armed one; each expiry is handled by
//! name. (The shape follows quinn-proto's connection timers.)

use crate::time::Instant;
use core::time::Duration;

/// A named deadline of the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Timer {
    /// A backoff ends: the next attempt starts.
    Retry,
    /// The current request's response head has not come.
    Head,
    /// A LIST body, or a streaming list's initial events, stopped making progress.
    Stall,
    /// A watch outlived its `timeoutSeconds` plus a grace: the server would have ended it.
    WatchEnd,
    /// A watch has been silent longer than a server that sends bookmarks usually is:
    /// it is renewed.
    Idle,
    /// A streaming list sent live events or a bookmark but not yet its
    /// initial-events-end bookmark, which a server that serves streaming lists sends
    /// soon after.
    EndBookmark,
}

impl Timer {
    /// Every timer, in the order expiries are handled at one instant.
    pub(crate) const ALL: [Timer; 6] = [
        Timer::Retry,
        Timer::Head,
        Timer::Stall,
        Timer::WatchEnd,
        Timer::Idle,
        Timer::EndBookmark,
    ];

    fn slot(self) -> usize {
        self as usize
    }
}

/// When each [`Timer`] fires, if armed.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TimerTable {
    at: [Option<Instant>; Timer::ALL.len()],
}

impl TimerTable {
    pub(crate) fn set(&mut self, timer: Timer, at: Instant) {
        self.at[timer.slot()] = Some(at);
    }

    pub(crate) fn stop(&mut self, timer: Timer) {
        self.at[timer.slot()] = None;
    }

    pub(crate) fn is_armed(&self, timer: Timer) -> bool {
        self.at[timer.slot()].is_some()
    }

    #[cfg(test)]
    pub(crate) fn get(&self, timer: Timer) -> Option<Instant> {
        self.at[timer.slot()]
    }

    /// Disarms every timer (a new request, a new state).
    pub(crate) fn clear(&mut self) {
        self.at = [None; Timer::ALL.len()];
    }

    pub(crate) fn next(&self) -> Option<Instant> {
        self.at.iter().flatten().min().copied()
    }

    pub(crate) fn expired(&self, timer: Timer, now: Instant) -> bool {
        self.at[timer.slot()].is_some_and(|t| t <= now)
    }
}

/// How long the engine waits for each part of a request before it gives up on the
/// connection, cancels the request and resumes from its last version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadlines {
    /// From sending a watch (or streaming list) to its response head. The apiserver
    /// writes a watch's head as soon as it starts serving it (at most ~3 s later, for a
    /// version its cache has not reached).
    pub watch_head: Duration,
    /// From sending a LIST to its response head. The apiserver ends every non-watch
    /// request at its 60 s `--request-timeout` (with a 504), so a head later than that
    /// plus a grace is never coming.
    pub list_head: Duration,
    /// A LIST body (or a streaming list's initial events) that brings no byte (no
    /// initial event) for this long has stalled. Progress, not total time: a big list
    /// over a slow link may take minutes, but its bytes keep coming.
    pub stall: Duration,
    /// A watch still open this long after its `timeoutSeconds` (counted from its head)
    /// was lost: the server ends every watch at its timeout.
    pub watch_grace: Duration,
    /// Once the server has sent a bookmark (it sends one per watch about every minute,
    /// from the watch cache, while its cache learns newer versions), a watch silent
    /// this long is renewed from its version: a quiet collection, or a dead connection
    /// (the renewal's head deadline tells). 2.5 bookmark periods: one late or lost
    /// bookmark is tolerated.
    pub idle: Duration,
    /// From a streaming list's first live event (MODIFIED, DELETED) or plain bookmark
    /// to its initial-events-end bookmark. Before 1.32 (kubernetes #127012) the end
    /// bookmark came from the watch cache's bookmark timer about a second after the
    /// watch caught up, and live events could precede it; a server that never sends it
    /// ignores `sendInitialEvents` (it serves a plain watch), and the sync lists.
    pub end_bookmark: Duration,
}

impl Default for Deadlines {
    fn default() -> Self {
        Deadlines {
            watch_head: Duration::from_secs(30),
            list_head: Duration::from_secs(75),
            stall: Duration::from_secs(30),
            watch_grace: Duration::from_secs(30),
            idle: Duration::from_secs(150),
            end_bookmark: Duration::from_secs(10),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_is_the_earliest_armed_and_expiry_is_by_name() {
        let mut t = TimerTable::default();
        assert_eq!(t.next(), None);
        t.set(Timer::Idle, Instant::from_millis(900));
        t.set(Timer::Head, Instant::from_millis(300));
        assert_eq!(t.next(), Some(Instant::from_millis(300)));
        assert!(t.expired(Timer::Head, Instant::from_millis(300)));
        assert!(!t.expired(Timer::Idle, Instant::from_millis(300)));
        t.stop(Timer::Head);
        assert_eq!(t.next(), Some(Instant::from_millis(900)));
        t.clear();
        assert_eq!(t.get(Timer::Idle), None);
    }
}
