//! The engine's status as the browser shows it (and as the JS API returns it).
//!
//! Everything here comes from `Engine::status()` plus the few facts only the event
//! stream carries (why the engine backs off, the server's message on a failure), so
//! the status bar never guesses.

use kubelive_core::{ApiError, Event, Instant, Mode, Phase, Status};
use serde::Serialize;

/// Facts the driver keeps from the event stream.
#[derive(Clone, Debug, Default)]
pub struct DriverNotes {
    /// Objects in the list being fetched (from the last `PageListed`).
    pub listed: usize,
    pub backoff_reason: Option<String>,
    /// The server's message of the last `Failed`, until something succeeds again.
    pub failed: Option<String>,
    pub synced_at: Option<Instant>,
}

impl DriverNotes {
    pub fn note(&mut self, event: &Event, now: Instant) {
        match event {
            Event::PageListed { objects, .. } => {
                self.listed = *objects;
                self.failed = None;
            }
            Event::Synced { .. } => {
                self.failed = None;
                self.synced_at = Some(now);
            }
            Event::Resumed { .. } | Event::Restored { .. } => self.failed = None,
            Event::Relisting { .. } => self.listed = 0,
            Event::BackingOff { reason, .. } => self.backoff_reason = Some(reason.clone()),
            Event::Failed { error } => self.failed = Some(error.to_string()),
            Event::Added(_)
            | Event::Modified { .. }
            | Event::Deleted(_)
            | Event::Columns { .. }
            | Event::TablesUnavailable { .. } => {}
        }
    }
}

/// A plain snapshot of where the engine stands (serialized, it is most of the JS
/// API's status object): the engine's [`Status`] in the shape a page reads (phases and
/// reasons as words, instants as milliseconds ago, so nothing depends on the driver's
/// clock) with the facts only the driver keeps (`listed`, `backoff_reason`, `failed`).
/// [`StatusView::new`] names every field of `Status`, so none is left behind unseen.
#[derive(Clone, Debug, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct StatusView {
    /// `listing`, `initialEvents`, `watching`, `backingOff` or `stopped`.
    pub phase: &'static str,
    /// The LIST page being fetched (while listing).
    pub page: Option<u32>,
    /// Milliseconds until the next attempt (while backing off).
    pub retry_in_ms: Option<u64>,
    /// Why the engine backs off (while backing off).
    pub backoff_reason: Option<String>,
    /// `listWatch` or `streamingList`.
    pub mode: &'static str,
    /// The current request has its response head.
    pub connected: bool,
    pub synced: bool,
    pub resource_version: Option<String>,
    pub objects: usize,
    /// Objects received by the list in progress.
    pub listed: usize,
    pub pages_listed: u64,
    pub remaining_estimate: Option<u64>,
    pub added: u64,
    pub modified: u64,
    pub deleted: u64,
    pub bookmarks: u64,
    pub last_bookmark_ago_ms: Option<u64>,
    /// Since the current request last received anything (head or body bytes): a
    /// silent connection shows here before the engine's deadline gives up on it.
    pub last_byte_ago_ms: Option<u64>,
    pub resumes: u64,
    /// Quiet watches renewed from their version after the idle deadline: no error.
    pub renewals: u64,
    pub relists: u64,
    pub last_relist_reason: Option<String>,
    pub errors: u64,
    pub last_error: Option<String>,
    /// The server's message when it refused in a way retrying will not fix (the JS
    /// API reports its `error` object instead).
    #[serde(skip)]
    pub failed: Option<String>,
    pub fell_back: Option<String>,
    /// The server's answer behind `last_error`, when it was one (the JS API reports
    /// its code and reason).
    #[serde(skip)]
    pub last_api_error: Option<ApiError>,
}

impl StatusView {
    /// The view of `s` at `now`. Every field of [`Status`] is named here (the pattern
    /// has no `..`), so a field the engine gains does not compile until the view
    /// shows it or says why not.
    pub fn new(s: &Status, notes: &DriverNotes, now: Instant) -> StatusView {
        let Status {
            phase,
            mode,
            connected,
            synced,
            resource_version,
            objects,
            pages_listed,
            remaining_estimate,
            added,
            modified,
            deleted,
            bookmarks,
            last_bookmark_at,
            resumes,
            renewals,
            relists,
            last_relist_reason,
            errors,
            last_error,
            fell_back,
            last_byte_at,
            // Told apart, when the engine's `TablesUnavailable` event comes: the JS
            // API's `tablesUnavailable`, the app's table note.
            tables: _,
            table_fallback: _,
            last_api_error,
        } = s;
        let ago = |t: &Option<Instant>| t.map(|t| now.as_millis().saturating_sub(t.as_millis()));
        let (phase, page, retry_in_ms) = match phase {
            Phase::Listing { page } => ("listing", Some(*page), None),
            Phase::InitialEvents => ("initialEvents", None, None),
            Phase::Watching => ("watching", None, None),
            Phase::BackingOff { until } => (
                "backingOff",
                None,
                Some(until.as_millis().saturating_sub(now.as_millis())),
            ),
            Phase::Stopped => ("stopped", None, None),
        };
        StatusView {
            phase,
            page,
            retry_in_ms,
            backoff_reason: retry_in_ms.and(notes.backoff_reason.clone()),
            mode: match mode {
                Mode::ListWatch => "listWatch",
                Mode::StreamingList => "streamingList",
            },
            connected: *connected,
            synced: *synced,
            resource_version: resource_version.as_ref().map(|v| v.to_string()),
            objects: *objects,
            listed: notes.listed,
            pages_listed: *pages_listed,
            remaining_estimate: *remaining_estimate,
            added: *added,
            modified: *modified,
            deleted: *deleted,
            bookmarks: *bookmarks,
            last_bookmark_ago_ms: ago(last_bookmark_at),
            last_byte_ago_ms: ago(last_byte_at),
            resumes: *resumes,
            renewals: *renewals,
            relists: *relists,
            last_relist_reason: last_relist_reason.as_ref().map(|r| r.to_string()),
            errors: *errors,
            last_error: last_error.clone(),
            failed: notes.failed.clone(),
            fell_back: fell_back.clone(),
            last_api_error: last_api_error.clone(),
        }
    }

    /// How bad things are, for colouring: `ok`, `busy`, `warn` or `error`.
    pub fn tone(&self) -> &'static str {
        if self.failed.is_some() {
            "error"
        } else if self.phase == "backingOff" {
            "warn"
        } else if self.synced && self.phase == "watching" {
            "ok"
        } else {
            "busy"
        }
    }

    /// The headline: what the engine is doing now, in words.
    pub fn headline(&self) -> String {
        let secs = |ms: u64| format!("{:.1} s", ms as f64 / 1000.0);
        if let Some(failed) = &self.failed {
            let retry = self
                .retry_in_ms
                .map(|ms| format!(" (retrying in {})", secs(ms)));
            return format!("Failed: {failed}{}", retry.unwrap_or_default());
        }
        match self.phase {
            "listing" => {
                let page = self.page.unwrap_or(1);
                let remaining = self
                    .remaining_estimate
                    .map(|r| format!(", ~{r} remaining"))
                    .unwrap_or_default();
                let conn = if self.connected { "" } else { " (connecting)" };
                format!(
                    "Listing page {page}{conn} ({} objects{remaining})",
                    self.listed
                )
            }
            "initialEvents" => format!("Receiving initial events ({} objects)", self.objects),
            "watching" if !self.connected && self.synced => format!(
                "Synced · connecting watch from rv {}",
                self.resource_version.as_deref().unwrap_or("?")
            ),
            "watching" if !self.connected => "Connecting watch…".to_string(),
            "watching" if self.synced => format!(
                "Synced · watching from rv {}",
                self.resource_version.as_deref().unwrap_or("?")
            ),
            "watching" => "Watching".to_string(),
            "backingOff" => format!(
                "Backing off: retry in {} — {}",
                secs(self.retry_in_ms.unwrap_or(0)),
                self.backoff_reason.as_deref().unwrap_or("error")
            ),
            _ => "Stopped".to_string(),
        }
    }

    /// Secondary facts: bookmarks, resumes, relists and why.
    pub fn details(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(ms) = self.last_byte_ago_ms {
            out.push(format!("last byte {} s ago", ms / 1000));
        }
        out.push(match self.last_bookmark_ago_ms {
            Some(ms) => format!("last bookmark {} s ago", ms / 1000),
            None => "no bookmark yet".to_string(),
        });
        out.push(format!("resumes {}", self.resumes));
        if self.renewals > 0 {
            // A quiet collection's watch renewed: normal, and said as such.
            out.push(format!("quiet watch renewed {}", self.renewals));
        }
        match &self.last_relist_reason {
            // A fallback from the streaming list is said once, below.
            Some(why)
                if !self
                    .fell_back
                    .as_ref()
                    .is_some_and(|f| why.ends_with(f.as_str())) =>
            {
                out.push(format!("relists {} (last: {why})", self.relists))
            }
            _ => out.push(format!("relists {}", self.relists)),
        }
        if self.errors > 0 {
            out.push(format!("errors {}", self.errors));
        }
        if let Some(why) = &self.fell_back {
            out.push(format!("streaming list off: {why}"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> StatusView {
        StatusView {
            phase: "watching",
            connected: true,
            synced: true,
            resource_version: Some("42".into()),
            ..StatusView::default()
        }
    }

    #[test]
    fn headlines_tell_each_phase() {
        assert_eq!(base().headline(), "Synced · watching from rv 42");
        let listing = StatusView {
            phase: "listing",
            page: Some(3),
            listed: 1000,
            remaining_estimate: Some(2500),
            ..base()
        };
        assert_eq!(
            listing.headline(),
            "Listing page 3 (1000 objects, ~2500 remaining)"
        );
        let backoff = StatusView {
            phase: "backingOff",
            retry_in_ms: Some(2300),
            backoff_reason: Some("connection lost: network error".into()),
            ..base()
        };
        assert_eq!(
            backoff.headline(),
            "Backing off: retry in 2.3 s — connection lost: network error"
        );
        assert_eq!(backoff.tone(), "warn");
        let failed = StatusView {
            failed: Some("pods is forbidden (403 Forbidden)".into()),
            ..backoff
        };
        assert!(failed.headline().starts_with("Failed: pods is forbidden"));
        assert_eq!(failed.tone(), "error");
    }

    #[test]
    fn a_streaming_list_fallback_is_said_once() {
        let why = "the server gzips streaming lists (a gzip member per flush) and this HTTP client reads only the first member";
        let fell = StatusView {
            relists: 1,
            last_relist_reason: Some(format!(
                "streaming list unavailable, using LIST+WATCH: {why}"
            )),
            fell_back: Some(why.to_string()),
            ..base()
        };
        let details = fell.details();
        assert_eq!(
            details.iter().filter(|d| d.contains(why)).count(),
            1,
            "{details:?}"
        );
        assert!(details.contains(&"relists 1".to_string()), "{details:?}");
        assert!(
            details.contains(&format!("streaming list off: {why}")),
            "{details:?}"
        );
    }

    #[test]
    fn a_renewed_quiet_watch_is_said_as_such_and_is_no_error() {
        assert!(!base().details().iter().any(|d| d.contains("renewed")));
        let renewed = StatusView {
            renewals: 2,
            resumes: 2,
            ..base()
        };
        let details = renewed.details();
        assert!(
            details.contains(&"quiet watch renewed 2".to_string()),
            "{details:?}"
        );
        assert!(!details.iter().any(|d| d.starts_with("errors")));
    }

    #[test]
    fn details_tell_how_long_since_the_last_byte() {
        let quiet = StatusView {
            last_byte_ago_ms: Some(42_900),
            ..base()
        };
        assert_eq!(quiet.details()[0], "last byte 42 s ago");
        // While connecting there is no byte to speak of.
        assert!(!base().details().iter().any(|d| d.starts_with("last byte")));
    }
}
