//! The view's engine: the `Driver` that lists and watches the view's resource, the
//! events it produced since the last frame, why the view is not running (`Blocked`)
//! and the server's last refusal, and the rows' history (what the detail panel shows
//! of a row's versions from before it opened).
//!
//! The view's rows are kept in IndexedDB ([`crate::persist`]) under the cluster's
//! identity: a reload shows them at once and watches from their version, with no LIST
//! (a relist, diffed, only if the server answers 410).

use super::discovery::ResourceType;
use super::frames::{is_urgent, Wake};
use super::problem::Blocked;
use super::url::ViewState;
use crate::driver::{Driver, DriverRef, Sink};
use crate::persist::{
    keep_saving, kept_later, server_identity_within, Limits, Persist, ServerIdentity,
};
use crate::status::StatusView;
use kubelive_core::{
    ApiError, ApiErrorKind, Collection, Config, Event as CoreEvent, History, HistoryConfig,
    IncludeObject, Instant, KeptMetadata, Object, ViewKey,
};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use yew::prelude::*;

/// Items the first LIST page asks for (later pages double, up to the engine's
/// `max_page_size`): a few screens of rows, which arrive and are decoded sooner than
/// kubectl's 500 (a fifth of the bytes before the first rows are shown), for a few
/// more requests while the pages grow.
const FIRST_PAGE_ITEMS: u32 = 100;

/// A running engine and the events it produced since the last frame.
struct Feed {
    /// None while the kept view is read (a few ms: IndexedDB and one GET).
    driver: Option<Driver>,
    /// Where the driver lands once the kept view is read.
    launched: Rc<RefCell<Option<Driver>>>,
    /// What keeps the view from now on, once the server's identity came late (the
    /// driver may be the app's by then): done at the next batch.
    keep_late: KeepLate,
    /// Where the view is kept, once it is (the first screen is kept beside it).
    keeper: Rc<RefCell<Option<Keeper>>>,
    pending: Rc<RefCell<Vec<CoreEvent>>>,
}

type KeepLate = Rc<RefCell<Option<Box<dyn FnOnce(&Driver)>>>>;

/// Where a kept view is kept: the store, the server's identity, the view's key.
#[derive(Clone)]
pub struct Keeper {
    pub persist: Rc<Persist>,
    pub identity: ServerIdentity,
    pub key: ViewKey,
}

#[derive(Default)]
pub struct Engine {
    main: Option<Feed>,
    /// The versions of the rows that changed since the view synced (entries timed in
    /// Unix milliseconds). The initial list is left out: a row nobody changed costs
    /// nothing, so a view of a million rows pays only for those that move.
    history: Rc<RefCell<History>>,
    /// Bumped by every engine started: a wake from an older one is dropped.
    generation: u64,
    /// The generation running, as a start still reading its kept view sees it.
    current: Rc<Cell<u64>>,
    /// Whether views are kept in this browser.
    keep_views: bool,
    /// Why the view is not running, if it is not.
    pub blocked: Option<Blocked>,
    /// The main engine's last refusal, until it syncs again.
    pub failure: Option<ApiError>,
}

/// The engine's configuration for a view of `rt` in namespace `ns`.
pub fn config(rt: &ResourceType, ns: Option<&str>, view: &ViewState) -> Config {
    let prefix = if rt.group.is_empty() {
        format!("/api/{}", rt.version)
    } else {
        format!("/apis/{}/{}", rt.group, rt.version)
    };
    // The server prints the rows (kubectl's columns for any resource); a server
    // that does not is served as objects, with the app's own columns.
    let mut config =
        Config::new(Collection::new(&prefix, ns, &rt.plural)).tables(IncludeObject::Metadata);
    config.strip_managed_fields = true;
    // A row shows the server's cells; the detail panel GETs the whole object, so
    // labels, annotations and owners need not be held for every row.
    config.metadata = KeptMetadata::Identity;
    let q = &view.query;
    config.label_selector = (!q.label.is_empty()).then(|| q.label.clone());
    config.field_selector = (!q.field.is_empty()).then(|| q.field.clone());
    if view.streaming {
        config.mode = kubelive_core::Mode::StreamingList;
    }
    config.pipeline_pages = view.pipeline;
    config.page_size = FIRST_PAGE_ITEMS;
    config
}

impl Engine {
    /// An engine whose views are kept in this browser (the module's docs say how).
    pub fn keeping_views() -> Engine {
        Engine {
            keep_views: true,
            ..Engine::default()
        }
    }

    /// Stops the engine (a new view starts, or the app goes); its wakes are dropped.
    pub fn stop(&mut self) {
        self.main = None;
        *self.history.borrow_mut() = History::default();
        self.generation += 1;
        self.current.set(self.generation);
        self.failure = None;
    }

    /// Starts an engine on `config`; it wakes the app through `wake` at most once
    /// per frame's worth of batches. Its first status.
    pub fn start(&mut self, config: Config, wake: Callback<Wake>) -> StatusView {
        let pending: Rc<RefCell<Vec<CoreEvent>>> = Rc::default();
        let generation = self.generation;
        let sink_pending = pending.clone();
        *self.history.borrow_mut() = History::new(HistoryConfig {
            secret: config.collection.resource() == "secrets",
            ..HistoryConfig::default()
        });
        let history = self.history.clone();
        let mut synced = false;
        let sink = Box::new(move |_: &DriverRef<'_>, events: Vec<CoreEvent>| {
            record(&mut history.borrow_mut(), &mut synced, &events);
            let urgent = events.iter().any(is_urgent);
            let mut pending = sink_pending.borrow_mut();
            // Pending events not yet taken: a wake is already on its way (one Yew
            // message per frame, not per chunk), unless this batch cannot wait.
            let woken = !pending.is_empty();
            pending.extend(events);
            drop(pending);
            if !woken || urgent {
                wake.emit(Wake { generation, urgent });
            }
        });
        if !self.keep_views || !keepable(&config) {
            let driver = Driver::start(config, "", sink);
            let status = driver.status();
            self.main = Some(Feed {
                driver: Some(driver),
                launched: Rc::default(),
                keep_late: Rc::default(),
                keeper: Rc::default(),
                pending,
            });
            return status;
        }
        let launched: Rc<RefCell<Option<Driver>>> = Rc::default();
        let keep_late: KeepLate = Rc::default();
        let keeper: Rc<RefCell<Option<Keeper>>> = Rc::default();
        // What the driver will say first, while the kept view is read.
        let streaming = config.mode == kubelive_core::Mode::StreamingList;
        let status = StatusView {
            phase: if streaming {
                "initialEvents"
            } else {
                "listing"
            },
            mode: if streaming {
                "streamingList"
            } else {
                "listWatch"
            },
            ..StatusView::default()
        };
        wasm_bindgen_futures::spawn_local(launch_kept(
            config,
            sink,
            launched.clone(),
            keep_late.clone(),
            keeper.clone(),
            self.current.clone(),
            generation,
        ));
        self.main = Some(Feed {
            driver: None,
            launched,
            keep_late,
            keeper,
            pending,
        });
        status
    }

    /// The rows' history (see [`Engine`]'s field): the same one for every view, emptied
    /// when a view starts.
    pub fn history(&self) -> Rc<RefCell<History>> {
        self.history.clone()
    }

    /// Whether a wake comes from the running engine.
    pub fn is_current(&self, generation: u64) -> bool {
        generation == self.generation
    }

    /// Where the running view is kept, if it is.
    pub fn keeper(&self) -> Option<Keeper> {
        self.main.as_ref().and_then(|f| f.keeper.borrow().clone())
    }

    pub fn driver(&self) -> Option<&Driver> {
        self.main.as_ref().and_then(|f| f.driver.as_ref())
    }

    /// Whether events wait for a frame; None when no engine runs.
    pub fn pending(&self) -> Option<bool> {
        self.main.as_ref().map(|f| !f.pending.borrow().is_empty())
    }

    /// The events since the last frame (and the driver, once a kept view was read).
    pub fn take_events(&mut self) -> Vec<CoreEvent> {
        let Some(feed) = self.main.as_mut() else {
            return Vec::new();
        };
        if feed.driver.is_none() {
            feed.driver = feed.launched.borrow_mut().take();
        }
        if let Some(d) = feed.driver.as_ref() {
            if let Some(keep) = feed.keep_late.borrow_mut().take() {
                keep(d);
            }
        }
        std::mem::take(&mut *feed.pending.borrow_mut())
    }

    /// The object `key` (`namespace/name`) as the engine's store has it.
    pub fn get(&self, key: &str) -> Option<Arc<Object>> {
        let driver = self.driver()?;
        let (ns, name) = key.split_once('/')?;
        driver.with_store(|s| s.get(ns, name).cloned())
    }

    /// Whether `o` is no longer in the store (or no engine runs).
    pub fn deleted(&self, o: &Object) -> bool {
        self.driver()
            .map(|d| d.with_store(|s| s.get(o.namespace(), o.name()).is_none()))
            .unwrap_or(true)
    }

    /// Keeps the main engine's last refusal until it gets something again. Returns
    /// whether a refusal arrived.
    pub fn note_failures(&mut self, events: &[CoreEvent]) -> bool {
        let mut failed = false;
        for e in events {
            match e {
                CoreEvent::Failed { error } => {
                    self.failure = Some(error.clone());
                    failed = true;
                }
                CoreEvent::PageListed { .. }
                | CoreEvent::Synced { .. }
                | CoreEvent::Resumed { .. } => self.failure = None,
                _ => {}
            }
        }
        failed
    }

    /// The view was refused for lack of permission.
    pub fn forbidden(&self) -> bool {
        self.failure
            .as_ref()
            .is_some_and(|f| f.kind == ApiErrorKind::Forbidden)
    }

    /// The server refused the selector (400/422 with `selectors` set): its words, to
    /// show next to the box.
    pub fn rejected_selector(&self, selectors: bool) -> Option<String> {
        let f = self.failure.as_ref()?;
        (f.kind == ApiErrorKind::Invalid && selectors)
            .then(|| format!("The server rejected the selector: {}", f.message))
    }
}

/// Takes a batch of the view's events into its history: every change once the view
/// has synced or restored (`synced`), no row of the initial list, and no row printed
/// again at the same version (new columns re-print every row).
pub(crate) fn record(history: &mut History, synced: &mut bool, events: &[CoreEvent]) {
    let at = Instant::from_millis(js_sys::Date::now().max(0.0) as u64);
    for e in events {
        match e {
            CoreEvent::Synced { .. } | CoreEvent::Restored { .. } => *synced = true,
            CoreEvent::Added(_) if !*synced => {}
            CoreEvent::Modified { old, new }
                if old.resource_version() == new.resource_version() => {}
            e => history.apply(e, at),
        }
    }
}

/// Whether a view's rows can be kept: table rows with identity metadata only (never
/// objects, so never a Secret's data).
pub fn keepable(config: &Config) -> bool {
    matches!(
        config.format,
        kubelive_core::Format::Table(IncludeObject::Metadata)
    ) && config.metadata == KeptMetadata::Identity
}

/// Starts the view from its kept rows if the cluster (by its identity) has them, else
/// as any view starts; then keeps saving it. A view started again meanwhile
/// (`current` moved on) starts nothing. Storage that cannot be used (no IndexedDB, a
/// private window, no identity readable) starts the view as any view starts.
async fn launch_kept(
    config: Config,
    sink: Sink,
    launched: Rc<RefCell<Option<Driver>>>,
    keep_late: KeepLate,
    keeper: Rc<RefCell<Option<Keeper>>>,
    current: Rc<Cell<u64>>,
    generation: u64,
) {
    let key = ViewKey::of(&config);
    let namespace = config.collection.namespace().map(str::to_string);
    let (opened, identity) = futures::future::join(
        Persist::open(Limits::default()),
        server_identity_within("", namespace.as_deref()),
    )
    .await;
    // No identity in time: the view starts unkept, and is kept once it is read.
    let late = opened.is_ok() && identity.is_none();
    let kept: Option<(Rc<Persist>, ServerIdentity)> = match (opened, identity) {
        (Ok(p), Some(id)) if p.usable(&id) => Some((Rc::new(p), id)),
        _ => None,
    };
    let saved = match &kept {
        Some((p, id)) => p.load("", id, &key).await.ok().flatten(),
        None => None,
    };
    if current.get() != generation {
        return;
    }
    let driver = match &saved {
        Some(bytes) => {
            let (driver, refused) = Driver::restore(config, bytes, "", sink);
            if let (Some(_), Some((p, _))) = (refused, &kept) {
                // Damaged or of another format: listed again, and saved anew.
                let (p, key) = (p.clone(), key.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    let _ = p.forget("", &key).await;
                });
            }
            driver
        }
        None => Driver::start(config, "", sink),
    };
    if let Some((p, id)) = kept {
        keep_saving(&driver, p.clone(), id.clone(), "", &key);
        *keeper.borrow_mut() = Some(Keeper {
            persist: p,
            identity: id,
            key,
        });
    } else if late {
        // Only while this engine is the app's (not stopped, not another view's).
        let slot = Rc::downgrade(&keep_late);
        let current_view = {
            let slot = slot.clone();
            move || slot.strong_count() > 0 && current.get() == generation
        };
        wasm_bindgen_futures::spawn_local(async move {
            let Some((p, id)) = kept_later("", namespace.as_deref(), &current_view).await else {
                return;
            };
            if let Some(keep_late) = slot.upgrade().filter(|_| current_view()) {
                *keeper.borrow_mut() = Some(Keeper {
                    persist: p.clone(),
                    identity: id.clone(),
                    key: key.clone(),
                });
                *keep_late.borrow_mut() = Some(Box::new(move |d| keep_saving(d, p, id, "", &key)));
            }
        });
    }
    *launched.borrow_mut() = Some(driver);
}
