//! What the JS API tells the page besides the changes themselves: its status object
//! (with a `failed` phase and a structured error), the signals (`synced`, `reset`,
//! `error`) an engine event amounts to, and which status changes are worth telling at
//! once rather than a few times a second. Pure, so it is unit-tested natively.

use crate::status::StatusView;
use kubelive_core::{ApiError, Event};
use serde::Serialize;

/// A failure as the page sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorReport {
    /// The HTTP status (or the Status object's `code`); `None` when no server answer
    /// is behind it (the connection broke, the body was unreadable, a deadline passed).
    pub code: Option<u16>,
    /// The Status `reason` (`Forbidden`, `NotFound`, `BadRequest`...), `""` if none.
    pub reason: String,
    /// The server's message, or what went wrong.
    pub message: String,
    /// Whether retrying can help without a change on the server or in the options.
    pub retryable: bool,
}

impl ErrorReport {
    /// A failure retrying cannot fix (401, 403, 404, a rejected selector).
    pub fn permanent(e: &ApiError) -> ErrorReport {
        ErrorReport {
            code: Some(e.code),
            reason: e.reason.clone(),
            message: e.message.clone(),
            retryable: false,
        }
    }

    /// The failure the engine backs off from: the server's answer if there was one.
    pub fn transient(view: &StatusView) -> ErrorReport {
        match &view.last_api_error {
            Some(e) => ErrorReport {
                retryable: true,
                ..ErrorReport::permanent(e)
            },
            None => ErrorReport {
                code: None,
                reason: String::new(),
                message: view
                    .last_error
                    .clone()
                    .or_else(|| view.backoff_reason.clone())
                    .unwrap_or_default(),
                retryable: true,
            },
        }
    }
}

/// The status object `watcher.status()` returns: the driver's status (whose phase is
/// `failed` when a failure retrying cannot fix stopped the watcher) with the error as
/// one more field (set on the JS object: serde's `flatten` costs 3 KB of wasm).
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub view: StatusView,
    /// The last failure, until an attempt makes progress again (or a restart).
    pub error: Option<ErrorReport>,
}

impl Report {
    pub fn new(view: &StatusView, tracker: &Tracker) -> Report {
        let mut view = view.clone();
        if tracker.failed && view.phase == "stopped" {
            view.phase = "failed";
        }
        Report {
            view,
            error: tracker.error.clone(),
        }
    }

    /// The report without what moves with the clock alone.
    fn timeless(&self) -> Report {
        let mut r = self.clone();
        r.view.retry_in_ms = None;
        r.view.last_bookmark_ago_ms = None;
        r.view.last_byte_ago_ms = None;
        r
    }
}

/// How a status change should reach the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Urgency {
    /// Nothing changed but the clock.
    Same,
    /// Counters moved (objects, events, pages, the version): a few times a second is
    /// plenty, and under churn they move with every event.
    Counters,
    /// What the page shows as the state changed (phase, sync, connection, error,
    /// fallback): at once.
    Now,
}

pub fn urgency(before: Option<&Report>, now: &Report) -> Urgency {
    let Some(before) = before else {
        return Urgency::Now;
    };
    let state = |r: &Report| {
        (
            r.view.phase,
            r.view.synced,
            r.view.connected,
            r.view.mode,
            r.error.clone(),
            r.view.fell_back.clone(),
            r.view.backoff_reason.clone(),
        )
    };
    if state(before) != state(now) {
        Urgency::Now
    } else if before.timeless() != now.timeless() {
        Urgency::Counters
    } else {
        Urgency::Same
    }
}

/// What an engine event tells the page beyond a change.
#[derive(Clone, Debug, PartialEq)]
pub enum Signal {
    Synced {
        objects: usize,
        resource_version: String,
    },
    /// The collection is read again from scratch while objects are held: the changes
    /// that follow are the difference (deletes for what vanished), then `Synced`.
    Reset {
        reason: String,
    },
    Error(ErrorReport),
}

/// The failure state the engine's events build up.
#[derive(Debug, Default)]
pub struct Tracker {
    pub error: Option<ErrorReport>,
    /// A permanent failure stopped the watcher (retrying it was not asked for).
    pub failed: bool,
    /// A `Failed` whose `BackingOff` has yet to come (they come together).
    permanent: Option<ApiError>,
}

impl Tracker {
    /// Notes one engine event; `view` is the status after the batch, `held` the
    /// objects held.
    pub fn note(&mut self, event: &Event, view: &StatusView, held: usize) -> Option<Signal> {
        match event {
            Event::Failed { error } => {
                self.permanent = Some(error.clone());
                None
            }
            Event::BackingOff { .. } => {
                let error = match self.permanent.take() {
                    Some(e) => ErrorReport::permanent(&e),
                    None => ErrorReport::transient(view),
                };
                self.error = Some(error.clone());
                Some(Signal::Error(error))
            }
            Event::Synced {
                objects,
                resource_version,
            } => {
                self.error = None;
                Some(Signal::Synced {
                    objects: *objects,
                    resource_version: resource_version.to_string(),
                })
            }
            Event::PageListed { .. } | Event::Resumed { .. } => {
                self.error = None;
                None
            }
            Event::Relisting { reason } if held > 0 => Some(Signal::Reset {
                reason: reason.to_string(),
            }),
            _ => None,
        }
    }

    /// A user's restart: a fresh attempt, nothing failed yet.
    pub fn restarted(&mut self) {
        *self = Tracker::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubelive_core::{ApiErrorKind, Instant, RelistReason};

    fn view() -> StatusView {
        StatusView {
            phase: "watching",
            mode: "listWatch",
            connected: true,
            synced: true,
            resource_version: Some("42".into()),
            objects: 3,
            ..StatusView::default()
        }
    }

    fn forbidden() -> ApiError {
        ApiError {
            kind: ApiErrorKind::Forbidden,
            code: 403,
            reason: "Forbidden".into(),
            message: "pods is forbidden: User \"jane\" cannot list resource \"pods\"".into(),
            retry_after: None,
        }
    }

    fn backing_off() -> Event {
        Event::BackingOff {
            until: Instant::from_millis(10_000),
            reason: "whatever the engine says".into(),
        }
    }

    #[test]
    fn a_permanent_failure_is_reported_with_its_code_and_not_retryable() {
        let mut t = Tracker::default();
        let v = StatusView {
            phase: "backingOff",
            last_api_error: Some(forbidden()),
            ..view()
        };
        assert_eq!(t.note(&Event::Failed { error: forbidden() }, &v, 0), None);
        let Some(Signal::Error(e)) = t.note(&backing_off(), &v, 0) else {
            panic!("an error signal");
        };
        assert_eq!(
            (e.code, e.reason.as_str(), e.retryable),
            (Some(403), "Forbidden", false)
        );
        assert!(e.message.starts_with("pods is forbidden"));
        // Stopped by it, the watcher's phase is `failed`, with the error.
        t.failed = true;
        let r = Report::new(
            &StatusView {
                phase: "stopped",
                ..v.clone()
            },
            &t,
        );
        assert_eq!(r.view.phase, "failed");
        assert_eq!(r.error.as_ref().map(|e| e.retryable), Some(false));
        // Kept retrying, it is backing off.
        assert_eq!(Report::new(&v, &t).view.phase, "backingOff");
    }

    #[test]
    fn a_transient_failure_is_retryable_with_the_servers_code_when_there_is_one() {
        let mut t = Tracker::default();
        let unavailable = ApiError {
            kind: ApiErrorKind::ServerError,
            code: 503,
            reason: "ServiceUnavailable".into(),
            message: "the server is currently unable to handle the request".into(),
            retry_after: None,
        };
        let v = StatusView {
            phase: "backingOff",
            last_api_error: Some(unavailable),
            last_error: Some("the server is currently unable... (503)".into()),
            ..view()
        };
        let Some(Signal::Error(e)) = t.note(&backing_off(), &v, 3) else {
            panic!("an error signal");
        };
        assert_eq!((e.code, e.retryable), (Some(503), true));
        // A broken connection has no code.
        let v = StatusView {
            last_api_error: None,
            last_error: Some("connection lost: network error".into()),
            ..v
        };
        let Some(Signal::Error(e)) = t.note(&backing_off(), &v, 3) else {
            panic!("an error signal");
        };
        assert_eq!(
            (e.code, e.message.as_str(), e.retryable),
            (None, "connection lost: network error", true)
        );
        // Progress clears it.
        assert!(Report::new(&v, &t).error.is_some());
        t.note(
            &Event::Resumed {
                resource_version: kubelive_core::ResourceVersion::new("43"),
            },
            &v,
            3,
        );
        assert_eq!(Report::new(&v, &t).error, None);
    }

    #[test]
    fn the_status_object_has_the_fields_its_type_declares() {
        let mut t = Tracker {
            failed: true,
            ..Tracker::default()
        };
        t.note(&Event::Failed { error: forbidden() }, &view(), 0);
        t.note(&backing_off(), &view(), 0);
        let stopped = StatusView {
            phase: "stopped",
            failed: Some("pods is forbidden (403 Forbidden)".into()),
            ..view()
        };
        let report = Report::new(&stopped, &t);
        // As `api::status_js` builds it.
        let mut json = serde_json::to_value(&report.view).unwrap();
        json["error"] = serde_json::to_value(&report.error).unwrap();
        let mut keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        keys.sort_unstable();
        // `WatcherStatus` in web/npm/index.d.ts, field for field.
        let mut declared = [
            "phase",
            "synced",
            "connected",
            "mode",
            "resourceVersion",
            "objects",
            "page",
            "listed",
            "pagesListed",
            "remainingEstimate",
            "retryInMs",
            "backoffReason",
            "error",
            "added",
            "modified",
            "deleted",
            "bookmarks",
            "lastBookmarkAgoMs",
            "lastByteAgoMs",
            "resumes",
            "renewals",
            "relists",
            "lastRelistReason",
            "errors",
            "lastError",
            "fellBack",
        ];
        declared.sort_unstable();
        assert_eq!(keys, declared);
        assert_eq!(json["phase"], "failed");
        assert_eq!(
            json["error"],
            serde_json::json!({
                "code": 403,
                "reason": "Forbidden",
                "message": "pods is forbidden: User \"jane\" cannot list resource \"pods\"",
                "retryable": false,
            })
        );
    }

    #[test]
    fn a_relist_is_a_reset_only_when_something_is_held() {
        let mut t = Tracker::default();
        let relisting = Event::Relisting {
            reason: RelistReason::Expired {
                message: "too old resource version: 5 (90)".into(),
            },
        };
        assert_eq!(t.note(&relisting, &view(), 0), None);
        assert_eq!(
            t.note(&relisting, &view(), 3),
            Some(Signal::Reset {
                reason: "version expired: too old resource version: 5 (90)".into()
            })
        );
    }

    #[test]
    fn state_changes_are_urgent_counters_are_not_and_the_clock_is_nothing() {
        let t = Tracker::default();
        let base = Report::new(&view(), &t);
        assert_eq!(urgency(None, &base), Urgency::Now);
        let later = Report::new(
            &StatusView {
                last_byte_ago_ms: Some(5_000),
                ..view()
            },
            &t,
        );
        assert_eq!(urgency(Some(&base), &later), Urgency::Same);
        let counted = Report::new(
            &StatusView {
                modified: 1,
                resource_version: Some("43".into()),
                ..view()
            },
            &t,
        );
        assert_eq!(urgency(Some(&base), &counted), Urgency::Counters);
        let reconnecting = Report::new(
            &StatusView {
                connected: false,
                ..view()
            },
            &t,
        );
        assert_eq!(urgency(Some(&base), &reconnecting), Urgency::Now);
    }
}
