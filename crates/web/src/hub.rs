//! The shared engine's bookkeeping: which views (engines) run, who watches each, and
//! when one stops. Pure: times are passed in (milliseconds on one monotonic clock),
//! decisions are returned; the worker (`worker.rs`, `web/npm/worker.js`) carries
//! them out.
//!
//! * A **view** is one engine: watchers whose options ask the engine for the same
//!   thing ([`view_key`]: server, collection, selectors, format and the options that
//!   change what is fetched or kept) share it. What one watcher shows of it (sort,
//!   filter, wide) is its own and no part of the key.
//! * A **port** is one page (a tab, or the page's dedicated worker connection); it
//!   holds **subscriptions**, one per watcher on that page, each on one view.
//! * A view nobody subscribes to any more stops after [`GRACE_MS`]: a reload opens
//!   the same view again within it and finds the engine running, synced.
//! * A SharedWorker is not told when a tab dies: each page says it is alive every
//!   [`HEARTBEAT_MS`]; a port silent for [`SILENT_MS`] is dropped with its
//!   subscriptions.

use crate::api::options::Settings;
use std::collections::{BTreeMap, BTreeSet};

/// How long a view with no subscriber keeps running.
pub const GRACE_MS: f64 = 5_000.0;
/// How often a page says it is alive.
pub const HEARTBEAT_MS: f64 = 2_000.0;
/// A port not heard from for this long (three heartbeats) is gone.
pub const SILENT_MS: f64 = 3.0 * HEARTBEAT_MS;

/// A page's connection, numbered by the worker.
pub type PortId = u32;
/// A watcher on a page, numbered by that page.
pub type SubId = u32;

/// What makes two watchers the same view: every option that changes what the engine
/// requests, keeps or delivers. Plain text, unambiguous (a JSON array).
pub fn view_key(settings: &Settings) -> String {
    let c = &settings.config;
    let parts: [String; 12] = [
        settings.base_url.clone(),
        c.collection.path(),
        c.label_selector.clone().unwrap_or_default(),
        c.field_selector.clone().unwrap_or_default(),
        format!("{:?}", c.mode),
        c.page_size.to_string(),
        c.max_page_size.to_string(),
        format!("{:?}", settings.format),
        c.strip_managed_fields.to_string(),
        format!("{:?}", c.metadata),
        settings.retry_on_failure.to_string(),
        // A watcher that asked not to be kept must not share an engine that saves.
        settings.persist.to_string(),
    ];
    serde_json::to_string(&parts).unwrap_or_default()
}

/// What `open` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opened {
    /// No engine for this view: start one.
    Start,
    /// The view's engine runs (`idle`: it had no subscriber and was in its grace).
    Join { idle: bool },
}

/// What the worker must do after [`Hub::tick`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// This port was silent too long: forget it (its subscriptions are gone).
    Drop(PortId),
    /// This view's grace ended with no subscriber: stop and free its engine.
    Stop(String),
}

#[derive(Debug)]
struct Port {
    heard: f64,
    subs: BTreeMap<SubId, String>,
}

#[derive(Debug, Default)]
struct ViewState {
    subs: BTreeSet<(PortId, SubId)>,
    /// Since when it has had no subscriber.
    idle_since: Option<f64>,
}

/// The registry of views and ports.
#[derive(Debug, Default)]
pub struct Hub {
    ports: BTreeMap<PortId, Port>,
    views: BTreeMap<String, ViewState>,
}

/// Why a message could not be carried out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HubError {
    /// The port is not connected (never, or dropped as silent).
    UnknownPort(PortId),
    /// The page already has a subscription by this id.
    Taken(SubId),
}

impl std::fmt::Display for HubError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HubError::UnknownPort(p) => write!(
                f,
                "kubelive worker: port {p} is not connected (dropped after {} s without a \
                 heartbeat?)",
                SILENT_MS / 1000.0
            ),
            HubError::Taken(s) => write!(f, "kubelive worker: subscription {s} is open already"),
        }
    }
}

impl Hub {
    pub fn new() -> Hub {
        Hub::default()
    }

    /// A page connected.
    pub fn connect(&mut self, port: PortId, now: f64) {
        self.ports.entry(port).or_insert(Port {
            heard: now,
            subs: BTreeMap::new(),
        });
    }

    /// A message (any, a heartbeat or another) came from `port`.
    pub fn heard(&mut self, port: PortId, now: f64) -> Result<(), HubError> {
        let p = self
            .ports
            .get_mut(&port)
            .ok_or(HubError::UnknownPort(port))?;
        p.heard = p.heard.max(now);
        Ok(())
    }

    /// Watcher `sub` of `port` watches view `key`.
    pub fn open(
        &mut self,
        port: PortId,
        sub: SubId,
        key: &str,
        now: f64,
    ) -> Result<Opened, HubError> {
        self.heard(port, now)?;
        let p = self
            .ports
            .get_mut(&port)
            .ok_or(HubError::UnknownPort(port))?;
        if p.subs.contains_key(&sub) {
            return Err(HubError::Taken(sub));
        }
        p.subs.insert(sub, key.to_string());
        let opened = match self.views.get_mut(key) {
            Some(view) => Opened::Join {
                idle: view.idle_since.take().is_some(),
            },
            None => {
                self.views.insert(key.to_string(), ViewState::default());
                Opened::Start
            }
        };
        if let Some(view) = self.views.get_mut(key) {
            view.subs.insert((port, sub));
        }
        Ok(opened)
    }

    /// Watcher `sub` of `port` is done; its view, if nobody else watches it, starts
    /// its grace. The view's key, if the subscription was open.
    pub fn close(&mut self, port: PortId, sub: SubId, now: f64) -> Option<String> {
        let key = self.ports.get_mut(&port)?.subs.remove(&sub)?;
        self.leave(&key, port, sub, now);
        Some(key)
    }

    /// The page said goodbye (or was dropped): every subscription it held closes.
    pub fn disconnect(&mut self, port: PortId, now: f64) {
        let Some(p) = self.ports.remove(&port) else {
            return;
        };
        for (sub, key) in p.subs {
            self.leave(&key, port, sub, now);
        }
    }

    fn leave(&mut self, key: &str, port: PortId, sub: SubId, now: f64) {
        if let Some(view) = self.views.get_mut(key) {
            view.subs.remove(&(port, sub));
            if view.subs.is_empty() && view.idle_since.is_none() {
                view.idle_since = Some(now);
            }
        }
    }

    /// Drops ports silent since `now - SILENT_MS`, then stops views idle since
    /// `now - GRACE_MS`. Ports first: a dropped page's views start their grace now.
    pub fn tick(&mut self, now: f64) -> Vec<Decision> {
        let silent: Vec<PortId> = self
            .ports
            .iter()
            .filter(|(_, p)| now - p.heard >= SILENT_MS)
            .map(|(id, _)| *id)
            .collect();
        let mut decisions = Vec::new();
        for port in silent {
            self.disconnect(port, now);
            decisions.push(Decision::Drop(port));
        }
        let ended: Vec<String> = self
            .views
            .iter()
            .filter(|(_, v)| v.idle_since.is_some_and(|t| now - t >= GRACE_MS))
            .map(|(k, _)| k.clone())
            .collect();
        for key in ended {
            self.views.remove(&key);
            decisions.push(Decision::Stop(key));
        }
        decisions
    }

    /// The subscriptions watching view `key`, by port.
    pub fn subscribers(&self, key: &str) -> Vec<(PortId, SubId)> {
        self.views
            .get(key)
            .map(|v| v.subs.iter().copied().collect())
            .unwrap_or_default()
    }

    /// The view subscription `sub` of `port` watches.
    pub fn view_of(&self, port: PortId, sub: SubId) -> Option<&str> {
        self.ports.get(&port)?.subs.get(&sub).map(String::as_str)
    }

    /// Views with an engine (watched, or in their grace).
    pub fn views(&self) -> usize {
        self.views.len()
    }

    /// Connected ports.
    pub fn ports(&self) -> usize {
        self.ports.len()
    }
}

#[cfg(test)]
mod tests;
