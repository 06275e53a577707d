//! The detail panel's related events: a second engine of its own, watching
//! `/api/v1/namespaces/<ns>/events?fieldSelector=involvedObject.uid=<uid>` (all
//! namespaces for a cluster-scoped object), started when the panel opens on an object
//! and stopped when it closes or shows another.

use super::parts::{RelatedState, RelatedView};
use super::{App, Msg};
use crate::driver::{Driver, DriverRef};
use crate::app::events::{newest_first, selector_for, EventRow};
use kubelive_core::{Collection, Config, Event as CoreEvent};
use std::rc::Rc;
use yew::prelude::*;

/// The running events engine and the object it is about.
pub(super) struct RelatedFeed {
    driver: Driver,
    uid: String,
    generation: u64,
}

impl App {
    /// Starts, restarts or stops the events engine to follow the open panel (and
    /// fetches the panel's object: see `detail`).
    pub(super) fn sync_related(&mut self, ctx: &Context<Self>) {
        self.sync_detail(ctx);
        let want = self
            .view
            .open
            .then_some(self.selected_obj.as_ref())
            .flatten()
            .filter(|o| !o.uid().is_empty())
            .map(|o| (o.uid().to_string(), o.namespace().to_string()));
        let Some((uid, ns)) = want else {
            if self.related.take().is_some() {
                self.related_view = Rc::default();
            }
            return;
        };
        if self.related.as_ref().is_some_and(|f| f.uid == uid) {
            return;
        }
        self.related = None;
        self.related_generation += 1;
        let generation = self.related_generation;
        let ns = (!ns.is_empty()).then_some(ns);
        let mut config = Config::new(Collection::new("/api/v1", ns.as_deref(), "events"));
        config.field_selector = Some(selector_for(&uid));
        config.strip_managed_fields = true;
        let link = ctx.link().clone();
        let sink = Box::new(move |_: &DriverRef<'_>, events: Vec<CoreEvent>| {
            if !events.is_empty() {
                link.send_message(Msg::Related(generation));
            }
        });
        self.related = Some(RelatedFeed {
            driver: Driver::start(config, "", sink),
            uid,
            generation,
        });
        self.related_view = Rc::new(RelatedView {
            rows: Vec::new(),
            state: RelatedState::Loading,
        });
    }

    /// Reads the events engine's store into the panel's rows, newest first.
    pub(super) fn read_related(&mut self, generation: u64) -> bool {
        let Some(feed) = self.related.as_ref().filter(|f| f.generation == generation) else {
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
        self.related_view = Rc::new(RelatedView { rows, state });
        true
    }
}
