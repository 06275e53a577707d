//! The event log's state: every change is recorded as it comes, but what is shown is
//! a snapshot refreshed a few times a second, of the newest lines only. At a thousand
//! changes a second a log redrawn every frame is unreadable, and each refresh makes
//! every line new, so each shown line costs a layout. While the pointer is over the
//! log it holds still and shows all it kept, to be read and scrolled back.

use super::LogEntry;
use std::collections::VecDeque;
use std::rc::Rc;

/// Entries kept.
const KEEP: usize = 300;
/// Entries shown while the log runs (the newest; a few more than fit in view).
const SHOWN: usize = 16;
/// Least time between two refreshes of what is shown.
pub const REFRESH_MS: f64 = 250.0;

#[derive(Default)]
pub struct Lines {
    entries: VecDeque<LogEntry>,
    seq: u64,
    /// What the view shows: replaced (never mutated) on refresh, so an unchanged
    /// log costs the render a pointer comparison.
    shown: Rc<Vec<LogEntry>>,
    shown_seq: u64,
    shown_at: Option<f64>,
    held: bool,
}

impl Lines {
    pub fn push(
        &mut self,
        kind: &'static str,
        object: String,
        version: String,
        at: String,
        tone: &'static str,
    ) {
        self.seq += 1;
        self.entries.push_front(LogEntry {
            seq: self.seq,
            kind,
            object,
            version,
            at,
            tone,
        });
        self.entries.truncate(KEEP);
    }

    /// Brings what is shown up to date, unless it is held or was refreshed less than
    /// `REFRESH_MS` ago. Returns whether it changed.
    pub fn refresh(&mut self, now_ms: f64) -> bool {
        if self.held || self.shown_seq == self.seq {
            return false;
        }
        if self.shown_at.is_some_and(|t| now_ms - t < REFRESH_MS) {
            return false;
        }
        self.shown = Rc::new(self.entries.iter().take(SHOWN).cloned().collect());
        self.shown_seq = self.seq;
        self.shown_at = Some(now_ms);
        true
    }

    /// Whether entries wait to be shown (a later frame must refresh).
    pub fn behind(&self) -> bool {
        self.shown_seq != self.seq
    }

    /// Entries recorded but not shown yet.
    pub fn unseen(&self) -> u64 {
        self.seq - self.shown_seq
    }

    pub fn shown(&self) -> Rc<Vec<LogEntry>> {
        self.shown.clone()
    }

    /// Holds the log still (the pointer is over it), showing all kept entries up to
    /// the newest shown, or lets it run again.
    pub fn hold(&mut self, held: bool) {
        if held == self.held {
            return;
        }
        self.held = held;
        let upto = self.shown_seq;
        let take = if held { KEEP } else { SHOWN };
        self.shown = Rc::new(
            self.entries
                .iter()
                .filter(|e| e.seq <= upto)
                .take(take)
                .cloned()
                .collect(),
        );
    }

    pub fn held(&self) -> bool {
        self.held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(log: &mut Lines, n: usize) {
        for i in 0..n {
            log.push(
                "MODIFIED",
                format!("ns/p{i}"),
                i.to_string(),
                "12:00:00".into(),
                "modified",
            );
        }
    }

    #[test]
    fn a_quiet_log_shows_each_change_at_once() {
        let mut log = Lines::default();
        push(&mut log, 1);
        assert!(log.refresh(0.0));
        assert_eq!(log.shown().len(), 1);
        push(&mut log, 1);
        assert!(log.refresh(REFRESH_MS));
        assert_eq!(log.shown()[0].object, "ns/p0");
        assert_eq!(log.shown().len(), 2);
    }

    #[test]
    fn a_busy_log_refreshes_at_most_every_refresh_period_and_catches_up() {
        let mut log = Lines::default();
        push(&mut log, 1);
        assert!(log.refresh(1000.0));
        let before = log.shown();
        push(&mut log, 50);
        assert!(!log.refresh(1000.0 + REFRESH_MS / 2.0), "too soon");
        assert!(
            Rc::ptr_eq(&before, &log.shown()),
            "unchanged: the same snapshot"
        );
        assert!(log.behind());
        assert_eq!(log.unseen(), 50);
        assert!(log.refresh(1000.0 + REFRESH_MS));
        assert!(!log.behind());
        assert_eq!(log.shown().len(), SHOWN);
        assert_eq!(log.shown()[0].object, "ns/p49", "newest first");
    }

    #[test]
    fn shows_the_newest_entries_only() {
        let mut log = Lines::default();
        push(&mut log, KEEP + 10);
        assert!(log.refresh(0.0));
        assert_eq!(log.shown().len(), SHOWN);
        assert_eq!(log.shown()[0].seq, (KEEP + 10) as u64);
        assert_eq!(log.entries.len(), KEEP);
    }

    #[test]
    fn a_held_log_stays_still_and_shows_all_it_kept_until_let_go() {
        let mut log = Lines::default();
        push(&mut log, 40);
        assert!(log.refresh(0.0));
        assert_eq!(log.shown().len(), SHOWN);
        log.hold(true);
        assert_eq!(log.shown().len(), 40, "held: the older lines too");
        assert_eq!(log.shown()[0].seq, 40);
        push(&mut log, 5);
        assert!(!log.refresh(10_000.0), "held");
        assert_eq!(log.shown().len(), 40);
        assert_eq!(log.shown()[0].seq, 40, "nothing new while held");
        assert_eq!(log.unseen(), 5);
        log.hold(false);
        assert_eq!(log.shown().len(), SHOWN);
        assert!(log.refresh(10_000.0));
        assert_eq!(log.shown()[0].seq, 45);
        assert_eq!(log.unseen(), 0);
    }
}
