//! Paginated LISTs: sending pages, sizing them, and asking for the next page while
//! the current one still streams (the page ahead).

use super::events::{Event, TransportError};
use super::failure::{unreadable, Failure};
use super::{Body, Engine, State};
use crate::decode::{Limits, ListDecoder};
use crate::error::DecodeError;
use crate::request::{RequestId, RequestKind};
use crate::rv::ResourceVersion;
use crate::status::ApiError;
use crate::time::Instant;
use core::time::Duration;

pub(super) struct Listing {
    pub(super) request: RequestId,
    pub(super) page: u32,
    pub(super) continue_token: Option<String>,
    pub(super) body: Body<ListDecoder>,
    pub(super) sent_at: Instant,
    /// `list_objects` and `list_bytes` when this page began: a failed page is fetched
    /// again whole, so what it counted before failing is taken back.
    pub(super) counted_before: (usize, u64),
    /// The next page, asked for before this one ended (boxed: rare next to the
    /// decoder, and it keeps `State` small).
    pub(super) ahead: Option<Box<Ahead>>,
}

/// The next LIST page, asked for while the current page still streams. What it
/// answers is held, untouched, and replayed in order when the current page ends
/// (its turn): the engine then handles it exactly as if it had been sent at that
/// moment (its `sent_at` and deadlines start then; bytes already held count as
/// progress, so the stall deadline starts then too). If the current page fails, it
/// is cancelled and dropped. Until its turn no deadline watches it: the current
/// page's deadlines already do the waiting.
pub(super) struct Ahead {
    pub(super) request: RequestId,
    pub(super) continue_token: String,
    /// The response head: status and Retry-After.
    pub(super) head: Option<(u16, Option<Duration>)>,
    pub(super) body: Vec<u8>,
    pub(super) end: Option<AheadEnd>,
}

pub(super) enum AheadEnd {
    Clean,
    Error(TransportError),
    /// It sent more than its bound (`Ahead::max_bytes`): the engine cancelled it and dropped
    /// what it held; the page is asked for again in its turn (and then streams).
    Dropped,
}

impl Ahead {
    /// Most bytes held for a page ahead: one document's limit (pages grow only to half
    /// of it at the bytes per item seen, [`Engine::page_limit`]). Memory stays bounded;
    /// a bigger page is simply fetched again when its turn comes.
    fn max_bytes(limits: &Limits) -> usize {
        limits.max_document_bytes
    }
}

impl Engine {
    /// The page ahead, if `id` is it.
    pub(super) fn ahead_mut(&mut self, id: RequestId) -> Option<&mut Ahead> {
        match &mut self.state {
            State::Listing(Listing { ahead: Some(a), .. }) if a.request == id => Some(a),
            _ => None,
        }
    }

    /// Cancels and drops the page ahead, if any (the current page failed, the list
    /// restarts, the Accept changed, the engine stops). One that already ended is
    /// cancelled too: the driver forgets it (a no-op for most), and every page ahead
    /// ends either in its turn or in a cancel.
    pub(super) fn cancel_ahead(&mut self) {
        let State::Listing(l) = &mut self.state else {
            return;
        };
        if let Some(ahead) = l.ahead.take() {
            if !matches!(ahead.end, Some(AheadEnd::Dropped)) {
                self.cancel(ahead.request);
            }
        }
    }

    /// Holds body bytes of the page ahead, up to its bound; past it the request is
    /// cancelled and the page will be asked for again in its turn.
    pub(super) fn hold_ahead_body(&mut self, bytes: &[u8]) {
        let max = Ahead::max_bytes(&self.config.limits);
        let State::Listing(Listing {
            ahead: Some(ahead), ..
        }) = &mut self.state
        else {
            return;
        };
        if ahead.end.is_some() || ahead.head.is_none() {
            return;
        }
        if ahead.body.len() + bytes.len() <= max {
            ahead.body.extend_from_slice(bytes);
            return;
        }
        ahead.body = Vec::new();
        ahead.end = Some(AheadEnd::Dropped);
        let id = ahead.request;
        self.cancel(id);
    }

    /// While listing, once the current page's continue token is read: asks for the
    /// next page now (one ahead at most).
    pub(super) fn ask_ahead(&mut self) {
        if !self.config.pipeline_pages {
            return;
        }
        let State::Listing(l) = &self.state else {
            return;
        };
        let Body::Open(decoder) = &l.body else {
            return;
        };
        if l.ahead.is_some() {
            return;
        }
        let Some(token) = decoder.continue_token() else {
            return;
        };
        let token = token.to_string();
        let page = l.page + 1;
        let path = self.list_path(page, Some(&token));
        let request = self.queue_request(RequestKind::List { page }, path);
        if let State::Listing(l) = &mut self.state {
            l.ahead = Some(Box::new(Ahead {
                request,
                continue_token: token,
                head: None,
                body: Vec::new(),
                end: None,
            }));
        }
    }

    /// The page ahead's turn: it becomes the current request as if sent now, and
    /// what it already answered is replayed in order.
    pub(super) fn promote(&mut self, page: u32, ahead: Ahead, now: Instant) {
        let Ahead {
            request,
            continue_token,
            head,
            body,
            end,
        } = ahead;
        if matches!(end, Some(AheadEnd::Dropped)) {
            self.send_list_page(page, Some(continue_token), now);
            return;
        }
        self.start_timers(self.config.deadlines.list_head, now);
        self.state = State::Listing(Listing {
            request,
            page,
            continue_token: Some(continue_token),
            body: Body::Awaiting,
            sent_at: now,
            counted_before: (self.list_objects, self.list_bytes),
            ahead: None,
        });
        if let Some((status, retry_after)) = head {
            self.response_head(request, status, retry_after, now);
        }
        if !body.is_empty() {
            self.handle_body(request, &body, now);
        }
        match end {
            Some(AheadEnd::Clean) => self.handle_end(request, now),
            Some(AheadEnd::Error(e)) => self.handle_error(request, e, now),
            Some(AheadEnd::Dropped) | None => {}
        }
    }

    pub(super) fn send_list_page(
        &mut self,
        page: u32,
        continue_token: Option<String>,
        now: Instant,
    ) {
        if continue_token.is_none() {
            self.begin_snapshot();
        }
        let path = self.list_path(page, continue_token.as_deref());
        let request = self.new_request(RequestKind::List { page }, path, now);
        self.state = State::Listing(Listing {
            request,
            page,
            continue_token,
            body: Body::Awaiting,
            sent_at: now,
            counted_before: (self.list_objects, self.list_bytes),
            ahead: None,
        });
    }

    pub(super) fn list_path(&self, page: u32, continue_token: Option<&str>) -> String {
        let first_page = continue_token.is_none();
        let mut q = self.selectors();
        if self.config.page_size > 0 && !self.whole_list_next {
            q = q.param("limit", &self.page_limit(page).to_string());
        }
        q = q.opt("continue", continue_token);
        // "0" ("any", possibly stale) only when asked, and only until consumers have
        // been shown anything a stale answer could take back; never for a relist.
        let nothing_shown =
            self.status.added == 0 && self.status.relists == 0 && self.status.pages_listed == 0;
        if first_page && self.config.initial_list_any_version && nothing_shown {
            q = q.param("resourceVersion", "0");
        }
        q.finish()
    }

    /// Items to ask for on page `page` (from 1) of a list ([`Config::max_page_size`]):
    /// the configured size doubled per page, within the maximum and within half the
    /// document limit at the bytes per item seen so far (so a page ahead is held whole,
    /// and big objects keep pages small); never below the configured size.
    pub(super) fn page_limit(&self, page: u32) -> u32 {
        let first = self.config.page_size;
        let max = self.config.max_page_size;
        if page <= 1 || max <= first || self.list_objects == 0 {
            return first;
        }
        let doubled = first.saturating_mul(1 << (page - 1).min(16));
        let per_item = (self.list_bytes / self.list_objects as u64).max(1);
        let fits = self.config.limits.max_document_bytes as u64 / 2 / per_item;
        doubled
            .min(max)
            .min(fits.min(u64::from(u32::MAX)) as u32)
            .max(first)
    }

    pub(super) fn list_page_done(
        &mut self,
        page: u32,
        meta: crate::decode::ListMeta,
        now: Instant,
    ) {
        if let Some(body) = &meta.status {
            // A Status answered with a 200: the error it is (a 410 relists).
            let error = ApiError::from_status_json(body).unwrap_or_else(|| unreadable(body));
            self.fail(Failure::Api(error), false, now);
            return;
        }
        if self.tables && !meta.table && self.objects_arrived(now) {
            return;
        }
        // A page is progress: whatever failed before it is forgiven.
        self.backoff.reset();
        self.status.pages_listed += 1;
        self.status.remaining_estimate = meta.remaining_item_count;
        if let Some(remaining) = meta.remaining_item_count {
            self.store
                .presize((self.list_objects as u64).saturating_add(remaining));
        }
        self.events.push_back(Event::PageListed {
            page,
            objects: self.list_objects,
            remaining: meta.remaining_item_count,
        });
        if let Some(token) = meta.continue_token {
            let ahead = match &mut self.state {
                State::Listing(l) => l.ahead.take_if(|a| a.continue_token == token),
                _ => None,
            };
            match ahead {
                Some(ahead) => self.promote(page + 1, *ahead, now),
                None => self.send_list_page(page + 1, Some(token), now),
            }
            return;
        }
        let Some(rv) = meta.resource_version.filter(|v| !v.is_empty()) else {
            self.fail(
                Failure::Decode(DecodeError::MissingField {
                    field: "metadata.resourceVersion",
                }),
                false,
                now,
            );
            return;
        };
        self.finish_sync(ResourceVersion::new(&rv), false);
        self.send_watch(ResourceVersion::new(&rv), false, now);
    }
}
