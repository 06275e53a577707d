//! Watches and streaming lists: sending them, applying what they deliver, and the
//! end bookmark that turns a streaming list's initial events into a watch.

use super::events::{Event, RelistReason};
use super::failure::{quick, unreadable, Failure};
use super::{Body, Engine, State};
use crate::decode::{WatchDecoder, WatchFrame};
use crate::request::{RequestId, RequestKind};
use crate::rv::ResourceVersion;
use crate::status::ApiError;
use crate::time::Instant;
use crate::timer::Timer;
use core::time::Duration;
use std::sync::Arc;

/// Streaming lists of one sync that may end before their end bookmark before that
/// sync lists instead.
pub(super) const MAX_INTERRUPTED_STREAMS: u32 = 3;

pub(super) enum StreamKind {
    /// Watching from a version whose state the store holds; `rv` is the last seen.
    Watch { rv: ResourceVersion, resumed: bool },
    /// A streaming list before its initial-events-end bookmark.
    Initial,
}

pub(super) struct Stream {
    pub(super) request: RequestId,
    pub(super) kind: StreamKind,
    pub(super) body: Body<WatchDecoder>,
    /// The `timeoutSeconds` asked for: the server ends the stream then.
    pub(super) timeout: Duration,
    pub(super) sent_at: Instant,
    /// It delivered an event or a bookmark: its version was good.
    pub(super) progressed: bool,
}

/// Whether a response head says its body is gzipped (`Content-Encoding` lists gzip).
pub(super) fn gzipped(headers: &[(&str, &str)]) -> bool {
    headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("content-encoding"))
        .flat_map(|(_, v)| v.split(','))
        .any(|coding| {
            let coding = coding.trim();
            coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip")
        })
}

pub(super) fn set_rv(stream: &mut Stream, rv: &str) {
    if let StreamKind::Watch { rv: current, .. } = &mut stream.kind {
        if current.as_str() != rv && !rv.is_empty() {
            *current = ResourceVersion::new(rv);
        }
    }
}

impl Engine {
    /// Starts a streaming list: the initial events of the most recent state not older
    /// than what consumers were shown, then the watch.
    pub(super) fn send_streaming_list(&mut self, now: Instant) {
        self.begin_snapshot();
        let timeout = self.watch_timeout();
        let path = self
            .selectors()
            .param("watch", "true")
            .param("sendInitialEvents", "true")
            .param("resourceVersionMatch", "NotOlderThan")
            .param(
                "resourceVersion",
                self.not_older_than.as_ref().map_or("", |rv| rv.as_str()),
            )
            .param("allowWatchBookmarks", "true")
            .param("timeoutSeconds", &timeout.to_string())
            .finish();
        let request = self.new_request(RequestKind::StreamingList, path, now);
        self.state = State::Streaming(Stream {
            request,
            kind: StreamKind::Initial,
            body: Body::Awaiting,
            timeout: Duration::from_secs(timeout),
            sent_at: now,
            progressed: false,
        });
    }

    /// Whether this sync streams (in streaming mode): nothing this sync or this session
    /// said streaming cannot work.
    pub(super) fn streams_this_sync(&self) -> bool {
        let not_tables = self.tables && self.server.streaming_lists_not_tables;
        let unreadable =
            self.config.reads_first_gzip_member_only && self.server.gzips_streaming_lists;
        !(self.list_this_sync || not_tables || unreadable)
    }

    pub(super) fn send_watch(&mut self, rv: ResourceVersion, resumed: bool, now: Instant) {
        let timeout = self.watch_timeout();
        let path = self
            .selectors()
            .param("watch", "true")
            .param("resourceVersion", rv.as_str())
            .param("allowWatchBookmarks", "true")
            .param("timeoutSeconds", &timeout.to_string())
            .finish();
        let request = self.new_request(RequestKind::Watch, path, now);
        self.status.resource_version = Some(rv.clone());
        self.state = State::Streaming(Stream {
            request,
            kind: StreamKind::Watch { rv, resumed },
            body: Body::Awaiting,
            timeout: Duration::from_secs(timeout),
            sent_at: now,
            progressed: false,
        });
    }

    pub(super) fn stream_ended_cleanly(&mut self, now: Instant) {
        let State::Streaming(s) = &self.state else {
            return;
        };
        if !s.progressed && quick(s.sent_at, now) {
            self.fail(Failure::EmptyWatch, false, now);
            return;
        }
        match &s.kind {
            StreamKind::Watch { rv, .. } => {
                let rv = rv.clone();
                self.send_watch(rv, true, now);
            }
            StreamKind::Initial => self.initial_events_interrupted(now),
        }
    }

    /// A streaming list failed before its end bookmark. It is streamed again (after a
    /// backoff when nothing came of it), as client-go's reflector does, unless
    /// consumers were shown part of its snapshot: streaming again could show them older
    /// state (a server that ignores sendInitialEvents replays its watch cache from "",
    /// or the events after the version asked; another apiserver's cache may lag behind
    /// this one's). Then this sync lists: a consistent read of the most recent state.
    /// Nothing shown, asking again for state not older than the last sync's version
    /// (what `not_older_than` holds) shows nothing older than consumers saw.
    pub(super) fn streaming_list_failed(&mut self) {
        if self.list_objects > 0 {
            self.list_this_sync = true;
        }
    }

    /// A streaming list ended (cleanly or not) before its end bookmark, having lived or
    /// delivered something: stream again at once. Several in a row in one sync make it
    /// a LIST: a server that ignores sendInitialEvents may end each plain watch before
    /// the stall or end-bookmark deadline could tell.
    pub(super) fn initial_events_interrupted(&mut self, now: Instant) {
        self.streaming_list_failed();
        self.interrupted_streams += 1;
        if self.interrupted_streams >= MAX_INTERRUPTED_STREAMS {
            self.list_this_sync = true;
            self.status.fell_back = Some(format!(
                "{} streaming lists in a row ended before their initial-events-end bookmark",
                self.interrupted_streams
            ));
        }
        self.relist(RelistReason::InitialEventsInterrupted, now);
    }

    /// This sync cannot use a streaming list: it lists instead; the next sync streams
    /// again (a server may gain the feature, a stalled stream may have been bad luck).
    pub(super) fn fall_back(&mut self, why: String, now: Instant) {
        self.list_this_sync = true;
        self.status.fell_back = Some(why.clone());
        self.relist(RelistReason::StreamingListFallback { why }, now);
    }

    /// Applies the frames request `id` delivered, as long as it is the current
    /// request: an ERROR (or a decoding failure) moves the engine on, possibly to a new
    /// stream at once, and what followed on the old one is not the new one's to apply.
    pub(super) fn apply_frames(
        &mut self,
        id: RequestId,
        frames: &mut Vec<WatchFrame>,
        now: Instant,
    ) {
        for frame in frames.drain(..) {
            if !self.is_current(id) {
                continue;
            }
            self.apply_frame(frame, now);
        }
    }

    pub(super) fn apply_frame(&mut self, frame: WatchFrame, now: Instant) {
        let frame = match frame {
            WatchFrame::Columns(columns) => return self.columns_arrived(columns, now),
            WatchFrame::Added(o) | WatchFrame::Modified(o) | WatchFrame::Deleted(o)
                if self.tables && !o.is_row() && self.objects_arrived(now) =>
            {
                return;
            }
            frame => frame,
        };
        let State::Streaming(stream) = &mut self.state else {
            return;
        };
        let initial = matches!(stream.kind, StreamKind::Initial);
        if !matches!(frame, WatchFrame::Error { .. }) {
            stream.progressed = true;
            // Progress: the failure streak is over.
            self.backoff.reset();
            if !initial {
                // The watch delivered something real: its version was good.
                self.relists_in_a_row = 0;
            }
        }
        let live_or_plain_bookmark = match &frame {
            WatchFrame::Modified(_) | WatchFrame::Deleted(_) => true,
            WatchFrame::Bookmark {
                initial_events_end, ..
            } => !initial_events_end,
            _ => false,
        };
        if initial && live_or_plain_bookmark && !self.timers.is_armed(Timer::EndBookmark) {
            // Before 1.32 these could legally precede the end bookmark, which came
            // soon after; a server that ignores sendInitialEvents never sends it.
            self.timers
                .set(Timer::EndBookmark, now + self.config.deadlines.end_bookmark);
        }
        match frame {
            WatchFrame::Added(object) if initial => self.apply_listed(object),
            WatchFrame::Added(object) | WatchFrame::Modified(object) => {
                if !initial {
                    set_rv(stream, object.resource_version());
                }
                // A live event before the end bookmark changes the list being built
                // (it carries this snapshot's epoch); it never advances the version:
                // only the end bookmark does.
                let object = Arc::new(object);
                let change = self
                    .store
                    .upsert(object.clone(), self.epoch, self.replace_rows);
                self.announce(change, object);
            }
            WatchFrame::Deleted(object) => {
                if !initial {
                    set_rv(stream, object.resource_version());
                }
                if self
                    .store
                    .remove(object.namespace(), object.name())
                    .is_some()
                {
                    self.status.deleted += 1;
                    self.events.push_back(Event::Deleted(Arc::new(object)));
                }
            }
            WatchFrame::Bookmark {
                resource_version,
                initial_events_end,
            } => {
                self.status.bookmarks += 1;
                self.status.last_bookmark_at = Some(now);
                if !initial_events_end && !self.server.sends_bookmarks {
                    self.server.sends_bookmarks = true;
                    if !initial {
                        self.timers
                            .set(Timer::Idle, now + self.config.deadlines.idle);
                    }
                }
                if !initial {
                    set_rv(stream, &resource_version);
                } else if initial_events_end && !resource_version.is_empty() {
                    let rv = ResourceVersion::new(&resource_version);
                    stream.kind = StreamKind::Watch {
                        rv: rv.clone(),
                        resumed: false,
                    };
                    self.timers.stop(Timer::Stall);
                    self.timers.stop(Timer::EndBookmark);
                    if self.server.sends_bookmarks {
                        self.timers
                            .set(Timer::Idle, now + self.config.deadlines.idle);
                    }
                    self.finish_sync(rv, true);
                }
            }
            WatchFrame::Error { status } => {
                let error =
                    ApiError::from_status_json(&status).unwrap_or_else(|| unreadable(&status));
                self.fail(Failure::Api(error), true, now);
            }
            // Handled above, before the stream was borrowed.
            WatchFrame::Columns(_) => {}
        }
    }
}
