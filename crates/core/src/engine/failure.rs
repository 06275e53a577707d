//! What a failure of the current request means: resume, back off, relist or fall
//! back, decided by the kind of failure.

use super::events::{Event, RelistReason, TransportError};
use super::streaming::StreamKind;
use super::{Engine, Next, State};
use crate::error::DecodeError;
use crate::status::{ApiError, ApiErrorKind};
use crate::time::Instant;
use crate::timer::Timer;
use core::time::Duration;
use std::fmt;

/// An attempt that breaks this soon after it was sent, having delivered nothing, is a
/// failure that backs off (and escalates), so a server or proxy that ends every
/// request at once causes no storm. One that lived longer, or made progress, is
/// resumed at once: the rate of attempts is bounded by their own length. Counted from
/// the send, as client-go counts its "very short watch" (some proxies hold the head
/// until the first event).
pub(super) const SUSPICIOUS: Duration = Duration::from_secs(1);

/// How far the current attempt got, for deciding what its failure means.
pub(super) struct Attempt {
    pub(super) sent_at: Instant,
    pub(super) progressed: bool,
}

/// What is known of the failed request when deciding what its failure means.
struct FailedRequest {
    /// The step to take again.
    resume: Next,
    /// The failure as the status and a backoff event word it.
    message: String,
    in_streaming_list: bool,
}

pub(super) enum Failure {
    Api(ApiError),
    Decode(DecodeError),
    Transport(TransportError),
    /// A watch that ended at once with nothing in it.
    EmptyWatch,
    /// A deadline passed: the connection went silent.
    Deadline(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Api(e) => e.fmt(f),
            Failure::Decode(e) => write!(f, "bad response: {e}"),
            Failure::Transport(e) => e.fmt(f),
            Failure::EmptyWatch => f.write_str("the watch ended at once without events"),
            Failure::Deadline(why) => f.write_str(why),
        }
    }
}

/// Whether an attempt broke so soon after it was sent that retrying at once could be
/// a storm.
pub(super) fn quick(sent_at: Instant, now: Instant) -> bool {
    now.saturating_since(sent_at) < SUSPICIOUS
}

pub(super) fn unreadable(status: &[u8]) -> ApiError {
    ApiError {
        kind: ApiErrorKind::ServerError,
        code: 500,
        reason: String::new(),
        message: format!(
            "an ERROR event without a readable Status: {}",
            String::from_utf8_lossy(&status[..status.len().min(200)])
        ),
        retry_after: None,
    }
}

impl Engine {
    pub(super) fn back_off(
        &mut self,
        next: Next,
        reason: String,
        needs_user: bool,
        at_least: Option<Duration>,
        now: Instant,
    ) {
        let delay = self
            .backoff
            .next_delay(now, needs_user, at_least, &mut self.rng);
        let until = now + delay;
        self.cancel_ahead();
        self.timers.clear();
        self.timers.set(Timer::Retry, until);
        self.status.last_byte_at = None;
        self.state = State::BackingOff { until, next };
        self.events.push_back(Event::BackingOff { until, reason });
    }

    /// Decides what a failure of the current request means. `open`: the request is
    /// still streaming and must be aborted.
    pub(super) fn fail(&mut self, failure: Failure, open: bool, now: Instant) {
        if let State::Listing(l) = &self.state {
            // The page is fetched again whole: what it counted so far is taken back.
            (self.list_objects, self.list_bytes) = l.counted_before;
        }
        let Some((resume, attempt)) = self.failed_attempt() else {
            return;
        };
        let in_streaming_list = self.in_streaming_list();
        if in_streaming_list {
            self.streaming_list_failed();
        }
        let message = failure.to_string();
        // A server that does not serve streaming lists (its WatchList gate is off, or
        // not as tables) says so with a 422 or a 406: a capability, which
        // `Status::fell_back` tells, not an error.
        let streaming_refused = in_streaming_list
            && matches!(&failure, Failure::Api(e)
                if e.kind == ApiErrorKind::Invalid || (e.code == 406 && self.tables));
        if !streaming_refused {
            self.count_failure(&failure, &message);
        }
        if open {
            self.abandon_current();
        }
        let failed = FailedRequest {
            resume,
            message,
            in_streaming_list,
        };
        match failure {
            Failure::Api(error) => self.api_failed(error, failed, now),
            // The connection broke, the body was unreadable (HTML, a truncated line), a
            // deadline passed, or a watch closed at once with nothing.
            _ => self.connection_failed(attempt, failed, now),
        }
    }

    /// What the current request was doing: the step to take again and how far it
    /// got. `None` when no request is current.
    fn failed_attempt(&self) -> Option<(Next, Attempt)> {
        match &self.state {
            State::Listing(l) => Some((
                Next::ListPage {
                    page: l.page,
                    continue_token: l.continue_token.clone(),
                },
                // Items of an unfinished page are not progress: the page is fetched again.
                Attempt {
                    sent_at: l.sent_at,
                    progressed: false,
                },
            )),
            State::Streaming(s) => Some((
                match &s.kind {
                    StreamKind::Watch { rv, .. } => Next::Watch { rv: rv.clone() },
                    StreamKind::Initial => Next::Fresh,
                },
                Attempt {
                    sent_at: s.sent_at,
                    progressed: s.progressed,
                },
            )),
            State::BackingOff { .. } | State::Stopped { .. } => None,
        }
    }

    fn count_failure(&mut self, failure: &Failure, message: &str) {
        self.status.errors += 1;
        self.status.last_error = Some(message.to_string());
        self.status.last_api_error = match failure {
            Failure::Api(e) => Some(e.clone()),
            _ => None,
        };
    }

    /// A failure without an answer from the server: resumed at once when the attempt
    /// got somewhere, else retried after a backoff.
    fn connection_failed(&mut self, attempt: Attempt, failed: FailedRequest, now: Instant) {
        if attempt.progressed || !quick(attempt.sent_at, now) {
            // Not a storm: the attempt delivered something (its version is still
            // good) or lasted a while. Resume at once, as client-go does.
            if failed.in_streaming_list {
                self.initial_events_interrupted(now);
            } else {
                self.proceed(failed.resume, now);
            }
            return;
        }
        // Nothing came of it: retry the same step after a backoff that grows
        // while the failures repeat at the same place.
        self.back_off(failed.resume, failed.message, false, None, now);
    }

    /// The server answered with an error (a status, or an ERROR event).
    fn api_failed(&mut self, error: ApiError, failed: FailedRequest, now: Instant) {
        if error.code == 406 && self.tables {
            return self.tables_refused(error, failed.resume, failed.in_streaming_list, now);
        }
        match error.kind {
            ApiErrorKind::Expired => self.expired(error, failed, now),
            ApiErrorKind::TooLargeResourceVersion => self.too_large(error, failed, now),
            ApiErrorKind::Invalid if failed.in_streaming_list => self.fall_back(error.message, now),
            kind if kind.needs_user() || kind == ApiErrorKind::Invalid => {
                let retry_after = error.retry_after;
                self.events.push_back(Event::Failed { error });
                self.back_off(failed.resume, failed.message, true, retry_after, now);
            }
            _ => self.back_off(failed.resume, failed.message, false, error.retry_after, now),
        }
    }

    /// 410 Gone: the version (or the continue token) left the server's history.
    fn expired(&mut self, error: ApiError, failed: FailedRequest, now: Instant) {
        if failed.in_streaming_list {
            // A streaming list asks for state "not older than" a version, which never
            // expires: a 410 means the server ignored sendInitialEvents and took it for
            // a plain watch from that version.
            let why = format!(
                "the server took the streaming list for a plain watch ({})",
                error.message
            );
            return self.fall_back(why, now);
        }
        let reason = match &failed.resume {
            Next::ListPage {
                continue_token: Some(_),
                ..
            } => RelistReason::ContinueExpired {
                message: error.message,
            },
            _ => RelistReason::Expired {
                message: error.message,
            },
        };
        self.relist(reason, now);
    }

    /// "Too large resource version": the server is behind the version asked for. It
    /// may catch up, so the same step is retried a few times before relisting.
    fn too_large(&mut self, error: ApiError, failed: FailedRequest, now: Instant) {
        self.too_large_attempts += 1;
        if self.too_large_attempts > self.config.too_large_retries {
            self.too_large_attempts = 0;
            let reason = RelistReason::TooLargeResourceVersion {
                message: error.message,
            };
            self.relist(reason, now);
        } else {
            self.back_off(failed.resume, failed.message, false, error.retry_after, now);
        }
    }
}
