//! Table mode: column definitions arriving, and the fallback to objects when the
//! server does not print tables.

use super::events::{Event, RelistReason};
use super::streaming::StreamKind;
use super::{Engine, Next, State};
use crate::status::ApiError;
use crate::table::TableColumn;
use crate::time::Instant;
use std::sync::Arc;

impl Engine {
    /// A 406 in table mode: the server cannot print this request as a table.
    pub(super) fn tables_refused(
        &mut self,
        error: ApiError,
        resume: Next,
        in_streaming_list: bool,
        now: Instant,
    ) {
        if in_streaming_list {
            let why = format!(
                "the server does not serve streaming lists as tables (406): {}",
                error.message
            );
            self.streaming_lists_not_tables(why, now);
            return;
        }
        // The server (an aggregated API) cannot print this resource: ask for
        // objects instead, at once.
        let why = format!("the server cannot print tables here: {}", error.message);
        if !self.stop_tables(why, false, now) {
            self.proceed(resume, now);
        }
    }

    /// Nothing of the current snapshot was applied yet: page one of a list, or a
    /// streaming list before its first initial event.
    pub(super) fn at_snapshot_start(&self) -> bool {
        self.list_objects == 0
            && match &self.state {
                State::Listing(l) => l.continue_token.is_none(),
                State::Streaming(s) => matches!(s.kind, StreamKind::Initial),
                _ => false,
            }
    }

    /// Column definitions came (a Table list, or a watch's first Table event).
    pub(super) fn columns_arrived(&mut self, columns: Vec<TableColumn>, now: Instant) {
        if !self.tables || self.columns.as_deref() == Some(&columns[..]) {
            return;
        }
        let columns: Arc<[TableColumn]> = columns.into();
        self.columns = Some(columns.clone());
        self.events.push_back(Event::Columns { columns });
        if self.store.is_empty() {
            return;
        }
        // The rows held were printed with other columns: this snapshot (or a new
        // one) replaces them all.
        self.replace_rows = true;
        if !self.at_snapshot_start() {
            self.abandon_current();
            self.relist(RelistReason::ColumnsChanged, now);
        }
    }

    /// An object came where a row was expected: the server does not print tables
    /// for this collection. True if the engine relisted (the current request is gone).
    pub(super) fn objects_arrived(&mut self, now: Instant) -> bool {
        if self.in_streaming_list() {
            self.abandon_current();
            self.streaming_lists_not_tables(
                "the server sent the streaming list as plain objects, not tables".into(),
                now,
            );
            return true;
        }
        let why = match &self.state {
            State::Listing(_) => "the server answered a plain list",
            _ => "the server sent plain watch events",
        };
        self.stop_tables(why.to_string(), true, now)
    }

    /// The server does not serve streaming lists as tables, though its LISTs and
    /// watches may print them: tables stay on, and for the rest of the session every
    /// sync is a Table LIST + WATCH (said once, here).
    pub(super) fn streaming_lists_not_tables(&mut self, why: String, now: Instant) {
        self.server.streaming_lists_not_tables = true;
        self.fall_back(why, now);
    }

    /// Serves objects from now on. Rows held are replaced as objects arrive; unless
    /// the current snapshot has only just begun, that takes a relist (true: done; an
    /// `open` current request is aborted).
    pub(super) fn stop_tables(&mut self, why: String, open: bool, now: Instant) -> bool {
        // A page ahead was asked for tables: the next page is asked for anew.
        self.cancel_ahead();
        self.tables = false;
        self.columns = None;
        self.status.table_fallback = Some(why.clone());
        self.events
            .push_back(Event::TablesUnavailable { why: why.clone() });
        if self.at_snapshot_start() || !self.store.iter().any(|o| o.is_row()) {
            return false;
        }
        if open {
            self.abandon_current();
        }
        self.relist(RelistReason::TablesUnavailable { why }, now);
        true
    }
}
