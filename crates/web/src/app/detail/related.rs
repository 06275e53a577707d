//! The detail panel's related events: a second engine of its own, watching
//! `/api/v1/namespaces/<ns>/events?fieldSelector=involvedObject.uid=<uid>` (all
//! namespaces for a cluster-scoped object), started when the panel opens on an object
//! and stopped when it closes or shows another.

use super::view::{RelatedState, RelatedView};
use super::Msg;
use crate::app::detail::events::{newest_first, selector_for, EventRow};
use crate::driver::{Driver, DriverRef};
use kubelive_core::{Collection, Config, Event as CoreEvent};
use std::rc::Rc;
use yew::prelude::*;

/// The running events engine and the object it is about.
struct RelatedFeed {
    driver: Driver,
    uid: String,
    generation: u64,
}

/// The panel's related events: the engine that watches them and what it shows.
#[derive(Default)]
pub(super) struct Related {
    feed: Option<RelatedFeed>,
    /// Bumped by every engine started: news of an older one is dropped.
    generation: u64,
    pub(super) view: Rc<RelatedView>,
}

impl Related {
    /// Stops the engine (a new view, or the app goes).
    pub(super) fn clear(&mut self) {
        self.feed = None;
        self.view = Rc::default();
    }

    /// Starts, restarts or stops the events engine to follow the open panel's
    /// object (`want`: its uid and namespace).
    pub(super) fn sync(&mut self, want: Option<(String, String)>, send: &Callback<Msg>) {
        let Some((uid, ns)) = want else {
            if self.feed.take().is_some() {
                self.view = Rc::default();
            }
            return;
        };
        if self.feed.as_ref().is_some_and(|f| f.uid == uid) {
            return;
        }
        self.feed = None;
        self.generation += 1;
        let generation = self.generation;
        let ns = (!ns.is_empty()).then_some(ns);
        let mut config = Config::new(Collection::new("/api/v1", ns.as_deref(), "events"));
        config.field_selector = Some(selector_for(&uid));
        config.strip_managed_fields = true;
        let send = send.clone();
        let sink = Box::new(move |_: &DriverRef<'_>, events: Vec<CoreEvent>| {
            if !events.is_empty() {
                send.emit(Msg::Related(generation));
            }
        });
        self.feed = Some(RelatedFeed {
            driver: Driver::start(config, "", sink),
            uid,
            generation,
        });
        self.view = Rc::new(RelatedView {
            rows: Vec::new(),
            state: RelatedState::Loading,
        });
    }

    /// Reads the events engine's store into the panel's rows, newest first.
    pub(super) fn read(&mut self, generation: u64) -> bool {
        let Some(feed) = self.feed.as_ref().filter(|f| f.generation == generation) else {
            return false;
        };
        let mut rows: Vec<EventRow> = feed.driver.with_store(|s| {
            s.iter()
                .filter_map(|o| EventRow::from_json(&o.json_str()))
                .collect()
        });
        newest_first(&mut rows);
        let status = feed.driver.status();
        let state = match status.failed {
            Some(why) => RelatedState::Failed(why),
            None if status.synced => RelatedState::Live,
            None => RelatedState::Loading,
        };
        self.view = Rc::new(RelatedView { rows, state });
        true
    }
}
