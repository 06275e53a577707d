//! Saving what a table-mode engine holds, and starting an engine from it: the rows at
//! once, then a watch from their version, as [`Engine::restart`] resumes one.

use super::events::Event;
use super::streaming::{Stream, StreamKind};
use super::{Config, Engine, Next, State};
use crate::rv::ResourceVersion;
use crate::saved::{self, RestoreError, SaveError, SavedView, ViewKey};
use crate::store::Change;
use crate::time::Instant;
use std::sync::Arc;

impl Engine {
    /// The version the store holds the state at, when it holds one: watching (the
    /// last version the watch delivered), backing off to watch again, or stopped from
    /// either. `None` while a list or a streaming list is under way or to come.
    fn held_version(&self) -> Option<&ResourceVersion> {
        match &self.state {
            State::Streaming(Stream {
                kind: StreamKind::Watch { rv, .. },
                ..
            })
            | State::BackingOff {
                next: Next::Watch { rv },
                ..
            }
            | State::Stopped { resume: Some(rv) } => Some(rv),
            _ => None,
        }
    }

    /// The view as [`SavedView::decode`] reads it back: the version the rows are the
    /// state at, the column definitions and each row's identity and cells.
    ///
    /// Only a table view whose rows keep their identity alone is saved (the config's
    /// `tables(IncludeObject::Metadata)` with [`crate::KeptMetadata::Identity`]), and
    /// only while the store is the state at one version (synced and watching, or
    /// stopped or backing off from a watch). Anything else is an error that says why,
    /// and nothing is written: no object, label or annotation ever leaves the store.
    pub fn save_view(&self) -> Result<Vec<u8>, SaveError> {
        let key = ViewKey::of(&self.config);
        if let Some(e) = key.unsavable() {
            return Err(e);
        }
        if !self.tables {
            return Err(SaveError::TablesUnavailable);
        }
        let rv = self.held_version().ok_or(SaveError::NotAtVersion)?;
        let Some(columns) = &self.columns else {
            // Table mode keeps columns from the first Table answer on; without them
            // it holds no rows it could show.
            return Err(SaveError::NotAtVersion);
        };
        saved::encode(
            &key,
            rv,
            columns,
            self.store.len(),
            self.store.iter().map(|o| &**o),
        )
    }

    /// An engine that starts from a saved view: the store holds its rows at once
    /// (`Columns`, an `Added` per row, then [`Event::Restored`]), and the first request
    /// is a watch from the saved version with bookmarks, as [`Engine::restart`]
    /// resumes one: no LIST. If the server no longer has that version (410, or an
    /// ERROR event saying the version is too old), the engine relists as always, and
    /// the list is diffed against the restored rows, so those that vanished come as
    /// `Deleted` before `Synced`.
    ///
    /// A view saved from another collection, namespace, selector or format is refused
    /// ([`RestoreError::OtherView`]); start with [`Engine::new`] then.
    pub fn restore(config: Config, saved: SavedView, now: Instant) -> Result<Engine, RestoreError> {
        saved.check(&config)?;
        let SavedView {
            resource_version,
            columns,
            rows,
            ..
        } = saved;
        let mut engine = Engine::blank(config);
        engine.store.presize(rows.len() as u64);
        engine.columns = Some(columns.clone());
        engine.events.push_back(Event::Columns { columns });
        for row in rows {
            let row = Arc::new(row);
            match engine.store.upsert(row.clone(), engine.epoch, false) {
                Change::Added => engine.events.push_back(Event::Added(row)),
                _ => {
                    return Err(RestoreError::DuplicateRow {
                        namespace: row.namespace().to_string(),
                        name: row.name().to_string(),
                    })
                }
            }
        }
        engine.status.synced = true;
        engine.status.resource_version = Some(resource_version.clone());
        // A streaming relist after a 410 asks for state not older than what was shown.
        engine.not_older_than = Some(resource_version.clone());
        engine.events.push_back(Event::Restored {
            objects: engine.store.len(),
            resource_version: resource_version.clone(),
        });
        engine.state = State::Stopped {
            resume: Some(resource_version),
        };
        engine.restart(now);
        Ok(engine)
    }
}
