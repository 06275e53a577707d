//! Saved views in IndexedDB, so that a reload shows a view at once and watches on
//! from its version instead of listing again ([`kubelive_core::Engine::save_view`],
//! [`kubelive_core::Engine::restore`], [`crate::driver::Driver::restore`]).
//!
//! One database (`kubelive-views`) with five stores:
//! * `views`: the saved bytes (a `Uint8Array`), by view id;
//! * `screens`: the first screen a page drew of a view, sorted and filtered its way
//!   (JSON: the identity, when saved, the window), by view id and the page's view
//!   options. A page reads it before its engine (in the worker) has restored the view,
//!   so a reload draws rows before the worker has even started (see [`Persist::screen_at`]);
//! * `entries`: per view id what eviction reads without loading the bytes (JSON: the
//!   server, when saved, how many bytes);
//! * `servers`: per server (its base URL) the identity its views were saved under;
//! * `settings`: `enabled` (`"off"` when the user turned saving off).
//!
//! A view id is the server's base URL and [`ViewKey::id`] (collection path, label and
//! field selectors, format). What is kept is bounded ([`Limits`]): a view older than
//! `max_age_ms` is never restored (and is dropped), and after every save the oldest
//! views are evicted until all of them fit `max_bytes`.
//!
//! **The server's identity.** A saved resourceVersion means something only to the
//! cluster that wrote it: watching cluster B from cluster A's version either gets a 410
//! (fine: a relist) or, when B's counter happens to be past it, B's changes applied to
//! A's rows, which stay wrong until the next relist. The base URL does not tell
//! clusters apart (`kubectl proxy` on port 8001 serves whichever context it was
//! started with), and `/version` does not either (two clusters of one release and
//! provider print the same `gitVersion`, `gitCommit`, `buildDate` and `platform`). So
//! [`server_identity`] reads, in order:
//! 1. the `kube-system` namespace's uid: made when the cluster was made, never
//!    changed, never the same twice (tools use it as the cluster's id);
//! 2. for a namespaced view, the cluster CA in that namespace's `kube-root-ca.crt`
//!    ConfigMap (published in every namespace since 1.21; readable by a user who may
//!    read configmaps there, where the kube-system namespace may be forbidden): a
//!    cluster's CA is its own;
//! 3. `/version`, which is [`ServerIdentity::strong`] `false`: views are then neither
//!    saved nor restored unless [`Limits::allow_weak_identity`] says so.
//!
//! A source is passed over for the next only when the server refuses it (403, 404: an
//! answer that will not change); a failure that may pass (5xx, 429, no answer, a
//! proxy's page that is not JSON) asks the same source again until the read's
//! deadline. Otherwise a flaky proxy would make one cluster read as another (its CA,
//! not its uid) and drop its views.
//!
//! When a server's identity differs from the one its views were saved under, all of
//! that server's views are dropped. Every failure (no IndexedDB, a private window's
//! quota, a damaged record) is an error value, never a panic; a view that cannot be
//! restored is simply listed again.

use crate::driver::Driver;
use kubelive_core::ViewKey;
use std::fmt;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbFactory, IdbOpenDbRequest, IdbRequest, IdbTransactionMode};

/// The most bytes of one kept screen (a window of a few dozen rows is ~10 KB).
pub const SCREEN_MAX_BYTES: usize = 256 * 1024;

/// The database saved views live in.
pub const DATABASE: &str = "kubelive-views";
/// 2 added `screens` (the upgrade makes the stores missing, keeping the rest).
const VERSION: u32 = 2;
const VIEWS: &str = "views";
const SCREENS: &str = "screens";
const ENTRIES: &str = "entries";
const SERVERS: &str = "servers";
const SETTINGS: &str = "settings";
const STORES: [&str; 5] = [VIEWS, SCREENS, ENTRIES, SERVERS, SETTINGS];
/// What dropping views empties.
const KEPT: [&str; 4] = [VIEWS, SCREENS, ENTRIES, SERVERS];

/// What is kept, and under which identity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// A view saved longer ago than this is not restored (a watch from a version that
    /// old would mostly get a 410 anyway: kube-apiserver keeps minutes of history).
    pub max_age_ms: f64,
    /// Bytes of saved views in all; the oldest are evicted first.
    pub max_bytes: f64,
    /// Save and restore under an identity read from `/version` alone (see the module
    /// docs for why that is weak).
    pub allow_weak_identity: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_age_ms: 24.0 * 3600.0 * 1000.0,
            max_bytes: 50.0 * 1024.0 * 1024.0,
            allow_weak_identity: false,
        }
    }
}

/// Which cluster a server is, as [`server_identity`] read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerIdentity {
    /// `uid:<kube-system uid>`, `ca:<hash of the cluster CA>` or
    /// `version:<gitVersion> <gitCommit> <buildDate> <platform>`.
    pub value: String,
    /// Whether it names one cluster (the first two), not one release.
    pub strong: bool,
}

/// Why saved views could not be read or written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PersistError {
    /// This context has no IndexedDB (an old browser, some private modes).
    Unavailable(String),
    /// IndexedDB refused or failed a request (quota, a blocked upgrade, ...).
    Storage(String),
}

impl fmt::Display for PersistError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PersistError::Unavailable(why) => write!(f, "saved views unavailable: {why}"),
            PersistError::Storage(why) => write!(f, "saved views: {why}"),
        }
    }
}

impl std::error::Error for PersistError {}

/// What eviction knows of a saved view, kept as JSON (`{"server","saved_at","bytes"}`).
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    server: String,
    saved_at: f64,
    bytes: f64,
}

impl Entry {
    fn to_json(&self) -> String {
        serde_json::json!({
            "server": self.server,
            "saved_at": self.saved_at,
            "bytes": self.bytes,
        })
        .to_string()
    }

    /// None for a record this version cannot read (every member, of its type).
    fn from_json(text: &str) -> Option<Entry> {
        let v: serde_json::Value = serde_json::from_str(text).ok()?;
        Some(Entry {
            server: v.get("server")?.as_str()?.to_string(),
            saved_at: v.get("saved_at")?.as_f64()?,
            bytes: v.get("bytes")?.as_f64()?,
        })
    }
}

/// The saved views of this origin.
pub struct Persist {
    db: IdbDatabase,
    limits: Limits,
}

impl Drop for Persist {
    fn drop(&mut self) {
        self.db.close();
    }
}

fn storage(what: &str, e: JsValue) -> PersistError {
    let detail = e
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"));
    PersistError::Storage(format!("{what}: {detail}"))
}

/// The error an IndexedDB request failed with.
fn request_error(what: &str, request: &IdbRequest) -> PersistError {
    let detail = match request.error() {
        Ok(Some(e)) => format!("{}: {}", e.name(), e.message()),
        _ => "failed".into(),
    };
    PersistError::Storage(format!("{what}: {detail}"))
}

/// Resolves when `request` succeeds, with its result (at once if it already has: its
/// event may have fired while another request of the transaction was awaited).
async fn done(what: &str, request: &IdbRequest) -> Result<JsValue, PersistError> {
    if request.ready_state() == web_sys::IdbRequestReadyState::Done {
        return match request.error() {
            Ok(None) => request.result().map_err(|e| storage(what, e)),
            _ => Err(request_error(what, request)),
        };
    }
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        request.set_onsuccess(Some(&resolve));
        request.set_onerror(Some(&reject));
    });
    let outcome = JsFuture::from(promise).await;
    request.set_onsuccess(None);
    request.set_onerror(None);
    match outcome {
        Ok(_) => request.result().map_err(|e| storage(what, e)),
        Err(_) => Err(request_error(what, request)),
    }
}

/// Resolves when the transaction commits.
async fn committed(what: &str, tx: &web_sys::IdbTransaction) -> Result<(), PersistError> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        tx.set_oncomplete(Some(&resolve));
        tx.set_onerror(Some(&reject));
        tx.set_onabort(Some(&reject));
    });
    let outcome = JsFuture::from(promise).await;
    tx.set_oncomplete(None);
    tx.set_onerror(None);
    tx.set_onabort(None);
    outcome.map(|_| ()).map_err(|_| {
        let detail = tx.error().map_or_else(
            || "aborted".into(),
            |e| format!("{}: {}", e.name(), e.message()),
        );
        PersistError::Storage(format!("{what}: {detail}"))
    })
}

/// The IndexedDB of this context: a window's or a worker's.
fn factory() -> Result<IdbFactory, PersistError> {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("indexedDB"))
        .ok()
        .filter(|f| !f.is_undefined() && !f.is_null())
        .and_then(|f| f.dyn_into::<IdbFactory>().ok())
        .ok_or_else(|| PersistError::Unavailable("this context has no IndexedDB".into()))
}

fn store_names() -> js_sys::Array {
    STORES.iter().map(|s| JsValue::from_str(s)).collect()
}

/// The id a view is saved under: the server and the view's key.
pub fn view_id(server: &str, key: &ViewKey) -> String {
    format!("{}\n{}", server.trim_end_matches('/'), key.id())
}

/// The id a view's screen is saved under: the view's id, then what the page made of
/// it (its sort, filter and columns, as plain text).
fn screen_id(view: &str, shown: &str) -> String {
    format!("{view}\n\n{shown}")
}

/// Every screen id of view `view` (ids are never empty, so `\n\n` then anything).
fn screens_of(view: &str) -> Result<web_sys::IdbKeyRange, PersistError> {
    web_sys::IdbKeyRange::bound(
        &JsValue::from_str(&format!("{view}\n\n")),
        &JsValue::from_str(&format!("{view}\n\n\u{10ffff}")),
    )
    .map_err(|e| storage(SCREENS, e))
}

/// A kept screen, as JSON: `{"identity","saved_at","window"}` (the window as the page
/// drew it, a JSON text). Written by hand as [`Entry`] is: serde's derive for these two
/// records cost the wasm modules 3.5-5 KB gzipped.
#[derive(Clone, Debug, PartialEq)]
struct Screen {
    identity: String,
    saved_at: f64,
    window: String,
}

impl Screen {
    fn to_json(&self) -> String {
        serde_json::json!({
            "identity": self.identity,
            "saved_at": self.saved_at,
            "window": self.window,
        })
        .to_string()
    }

    fn from_json(text: &str) -> Option<Screen> {
        let v: serde_json::Value = serde_json::from_str(text).ok()?;
        Some(Screen {
            identity: v.get("identity")?.as_str()?.to_string(),
            saved_at: v.get("saved_at")?.as_f64()?,
            window: v.get("window")?.as_str()?.to_string(),
        })
    }
}

impl Persist {
    /// Opens (creating on first use) the origin's saved views.
    pub async fn open(limits: Limits) -> Result<Persist, PersistError> {
        Persist::open_named(DATABASE, limits).await
    }

    /// Opens saved views in the database `name` (tests use their own).
    pub async fn open_named(name: &str, limits: Limits) -> Result<Persist, PersistError> {
        let request: IdbOpenDbRequest = factory()?
            .open_with_u32(name, VERSION)
            .map_err(|e| storage("open", e))?;
        let upgrade = {
            let request = request.clone();
            Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
                let Ok(db) = request.result().and_then(|db| db.dyn_into::<IdbDatabase>()) else {
                    return;
                };
                for store in STORES {
                    if !db.object_store_names().contains(store) {
                        // A failure shows as the open's own error.
                        let _ = db.create_object_store(store);
                    }
                }
            })
        };
        request.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
        let opened = done("open", &request).await;
        request.set_onupgradeneeded(None);
        drop(upgrade);
        let db: IdbDatabase = opened?.dyn_into().map_err(|e| storage("open", e))?;
        // Another tab upgrading the database (a newer kubelive) must not wait on us.
        let closing = {
            let db = db.clone();
            Closure::<dyn FnMut(web_sys::Event)>::new(move |_| db.close())
        };
        db.set_onversionchange(Some(closing.as_ref().unchecked_ref()));
        closing.forget();
        Ok(Persist { db, limits })
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    fn transaction(
        &self,
        mode: IdbTransactionMode,
    ) -> Result<web_sys::IdbTransaction, PersistError> {
        self.db
            .transaction_with_str_sequence_and_mode(&store_names(), mode)
            .map_err(|e| storage("transaction", e))
    }

    /// Whether saving is on (the user's setting; on unless turned off).
    pub async fn enabled(&self) -> Result<bool, PersistError> {
        let tx = self.transaction(IdbTransactionMode::Readonly)?;
        let settings = tx
            .object_store(SETTINGS)
            .map_err(|e| storage("settings", e))?;
        let get = settings
            .get(&JsValue::from_str("enabled"))
            .map_err(|e| storage("settings", e))?;
        let value = done("settings", &get).await?;
        Ok(value.as_string().as_deref() != Some("off"))
    }

    /// Turns saving on or off for the origin. Off drops every saved view at once.
    pub async fn set_enabled(&self, on: bool) -> Result<(), PersistError> {
        let tx = self.transaction(IdbTransactionMode::Readwrite)?;
        let store = |name| tx.object_store(name).map_err(|e| storage(name, e));
        if !on {
            for name in KEPT {
                store(name)?.clear().map_err(|e| storage(name, e))?;
            }
        }
        store(SETTINGS)?
            .put_with_key(
                &JsValue::from_str(if on { "on" } else { "off" }),
                &JsValue::from_str("enabled"),
            )
            .map_err(|e| storage(SETTINGS, e))?;
        committed("settings", &tx).await
    }

    /// Drops every saved view (the setting stays).
    pub async fn clear(&self) -> Result<(), PersistError> {
        let tx = self.transaction(IdbTransactionMode::Readwrite)?;
        for name in KEPT {
            tx.object_store(name)
                .and_then(|s| s.clear())
                .map_err(|e| storage(name, e))?;
        }
        committed("clear", &tx).await
    }

    /// The saved view of `key` on `server`, if one was saved under `identity` less
    /// than `max_age_ms` ago and saving is on. A view too old, or saved under another
    /// identity, is dropped on the way (all of that server's views, for an identity).
    pub async fn load(
        &self,
        server: &str,
        identity: &ServerIdentity,
        key: &ViewKey,
    ) -> Result<Option<Vec<u8>>, PersistError> {
        self.load_at(server, identity, key, js_sys::Date::now())
            .await
    }

    /// [`Persist::load`] at the wall-clock time `now_ms` (ms since the Unix epoch).
    pub async fn load_at(
        &self,
        server: &str,
        identity: &ServerIdentity,
        key: &ViewKey,
        now_ms: f64,
    ) -> Result<Option<Vec<u8>>, PersistError> {
        if !self.usable(identity) {
            return Ok(None);
        }
        let server = server.trim_end_matches('/');
        let id = JsValue::from_str(&view_id(server, key));
        let read = self.read(server, Some(&id)).await?;
        if !read.enabled {
            return Ok(None);
        }
        if read
            .identity
            .as_deref()
            .is_some_and(|i| i != identity.value)
        {
            let entries = expire_server(read.entries, server);
            self.write(server, identity, &entries, None, now_ms).await?;
            return Ok(None);
        }
        let fresh = read
            .entry
            .as_ref()
            .is_some_and(|e| fresh(e.saved_at, now_ms, self.limits.max_age_ms));
        match read.bytes {
            Some(bytes) if fresh && read.identity.is_some() => Ok(Some(bytes)),
            Some(_) => {
                // Expired (or left by a failed save): drop it and what else expired.
                self.write(server, identity, &read.entries, None, now_ms)
                    .await?;
                Ok(None)
            }
            None => Ok(None),
        }
    }

    /// Saves `bytes` as the view of `key` on `server` under `identity`, then evicts
    /// what expired and the oldest views until all fit `max_bytes`. Nothing is saved
    /// when saving is off, the identity is weak (unless allowed), or the view alone
    /// exceeds `max_bytes`.
    pub async fn save(
        &self,
        server: &str,
        identity: &ServerIdentity,
        key: &ViewKey,
        bytes: &[u8],
    ) -> Result<(), PersistError> {
        self.save_at(server, identity, key, bytes, js_sys::Date::now())
            .await
    }

    /// [`Persist::save`] at the wall-clock time `now_ms`.
    pub async fn save_at(
        &self,
        server: &str,
        identity: &ServerIdentity,
        key: &ViewKey,
        bytes: &[u8],
        now_ms: f64,
    ) -> Result<(), PersistError> {
        if !self.usable(identity) {
            return Ok(());
        }
        if bytes.len() as f64 > self.limits.max_bytes {
            return Ok(());
        }
        let server = server.trim_end_matches('/');
        let read = self.read(server, None).await?;
        if !read.enabled {
            return Ok(());
        }
        let entries = match &read.identity {
            Some(i) if *i != identity.value => expire_server(read.entries, server),
            _ => read.entries,
        };
        let id = view_id(server, key);
        self.write(server, identity, &entries, Some((&id, bytes)), now_ms)
            .await
    }

    /// Drops the saved view of `key` on `server` (one that did not restore).
    pub async fn forget(&self, server: &str, key: &ViewKey) -> Result<(), PersistError> {
        let view = view_id(server.trim_end_matches('/'), key);
        let id = JsValue::from_str(&view);
        let tx = self.transaction(IdbTransactionMode::Readwrite)?;
        for name in [VIEWS, ENTRIES] {
            tx.object_store(name)
                .and_then(|s| s.delete(&id))
                .map_err(|e| storage(name, e))?;
        }
        let range = screens_of(&view)?;
        tx.object_store(SCREENS)
            .and_then(|s| s.delete(&range.into()))
            .map_err(|e| storage(SCREENS, e))?;
        committed("forget", &tx).await
    }

    /// Keeps `window` (JSON) as the screen a page drew of the view of `key` on
    /// `server`, shown its way (`shown`: its sort, filter and columns). Kept only
    /// beside a view saved under `identity` that is still fresh, so a screen goes when
    /// its view does (evicted, expired, another cluster, saving turned off), and never
    /// over [`SCREEN_MAX_BYTES`].
    pub async fn save_screen(
        &self,
        server: &str,
        identity: &ServerIdentity,
        key: &ViewKey,
        shown: &str,
        window: &str,
    ) -> Result<(), PersistError> {
        self.save_screen_at(server, identity, key, shown, window, js_sys::Date::now())
            .await
    }

    /// [`Persist::save_screen`] at the wall-clock time `now_ms`.
    pub async fn save_screen_at(
        &self,
        server: &str,
        identity: &ServerIdentity,
        key: &ViewKey,
        shown: &str,
        window: &str,
        now_ms: f64,
    ) -> Result<(), PersistError> {
        if window.len() > SCREEN_MAX_BYTES || !self.usable(identity) {
            return Ok(());
        }
        let server = server.trim_end_matches('/');
        let view = view_id(server, key);
        if self
            .screen_read(server, &view, None)
            .await?
            .view_kept(identity, &self.limits, now_ms)
        {
            let screen = Screen {
                identity: identity.value.clone(),
                saved_at: now_ms,
                window: window.to_string(),
            };
            let tx = self.transaction(IdbTransactionMode::Readwrite)?;
            tx.object_store(SCREENS)
                .and_then(|s| {
                    s.put_with_key(
                        &JsValue::from_str(&screen.to_json()),
                        &JsValue::from_str(&screen_id(&view, shown)),
                    )
                })
                .map_err(|e| storage(SCREENS, e))?;
            committed("save screen", &tx).await?;
        }
        Ok(())
    }

    /// The screen kept of the view of `key` on `server` shown as `shown` (see
    /// [`Persist::save_screen`]) at the wall-clock time `now_ms`, if its view is kept
    /// under `identity`, fresh, and saving is on; else None. Reads only: the view's own
    /// load drops what is stale. (A page reads it before it knows the identity:
    /// [`Persist::read_screen`].)
    pub async fn screen_at(
        &self,
        server: &str,
        identity: &ServerIdentity,
        key: &ViewKey,
        shown: &str,
        now_ms: f64,
    ) -> Result<Option<String>, PersistError> {
        let read = self.read_screen(server, key, shown).await?;
        Ok(read.window(identity, now_ms))
    }

    /// What is kept of the screen of the view of `key` on `server` shown as `shown`,
    /// to be judged against the server's identity once it is read
    /// ([`KeptScreen::window`]): a page reads both at once.
    pub async fn read_screen(
        &self,
        server: &str,
        key: &ViewKey,
        shown: &str,
    ) -> Result<KeptScreen, PersistError> {
        let server = server.trim_end_matches('/');
        let view = view_id(server, key);
        let read = self
            .screen_read(server, &view, Some(&screen_id(&view, shown)))
            .await?;
        Ok(KeptScreen {
            read,
            limits: self.limits,
        })
    }

    /// Whether views may be kept under `identity`: a strong one, or a weak one where
    /// [`Limits::allow_weak_identity`] says so.
    pub fn usable(&self, identity: &ServerIdentity) -> bool {
        usable(identity, &self.limits)
    }

    /// One read-only pass for a screen: the setting, `server`'s identity, view
    /// `view`'s entry, and the screen `screen` if asked.
    async fn screen_read(
        &self,
        server: &str,
        view: &str,
        screen: Option<&str>,
    ) -> Result<ScreenRead, PersistError> {
        let tx = self.transaction(IdbTransactionMode::Readonly)?;
        let get = |name: &str, key: &str| {
            tx.object_store(name)
                .and_then(|s| s.get(&JsValue::from_str(key)))
                .map_err(|e| storage(name, e))
        };
        // Every request is made before any is awaited: the transaction stays active.
        let enabled = get(SETTINGS, "enabled")?;
        let identity = get(SERVERS, server)?;
        let entry = get(ENTRIES, view)?;
        let screen = screen.map(|id| get(SCREENS, id)).transpose()?;
        let text = |v: JsValue| v.as_string();
        Ok(ScreenRead {
            enabled: text(done(SETTINGS, &enabled).await?).as_deref() != Some("off"),
            identity: text(done(SERVERS, &identity).await?),
            entry: text(done(ENTRIES, &entry).await?).and_then(|e| Entry::from_json(&e)),
            screen: match screen {
                Some(r) => text(done(SCREENS, &r).await?).and_then(|s| Screen::from_json(&s)),
                None => None,
            },
        })
    }

    /// How many views are saved and their bytes in all.
    pub async fn usage(&self) -> Result<(usize, f64), PersistError> {
        let read = self.read("", None).await?;
        Ok((
            read.entries.len(),
            read.entries.iter().map(|(_, e)| e.bytes).sum(),
        ))
    }

    /// One read-only pass: the setting, `server`'s identity, every entry, and the
    /// entry and bytes of view `id` if asked.
    async fn read(&self, server: &str, id: Option<&JsValue>) -> Result<Read, PersistError> {
        let tx = self.transaction(IdbTransactionMode::Readonly)?;
        let store = |name| tx.object_store(name).map_err(|e| storage(name, e));
        // Every request is made before any is awaited: the transaction stays active.
        let enabled = store(SETTINGS)?
            .get(&JsValue::from_str("enabled"))
            .map_err(|e| storage(SETTINGS, e))?;
        let identity = store(SERVERS)?
            .get(&JsValue::from_str(server))
            .map_err(|e| storage(SERVERS, e))?;
        let index = store(ENTRIES)?;
        let keys = index.get_all_keys().map_err(|e| storage(ENTRIES, e))?;
        let values = index.get_all().map_err(|e| storage(ENTRIES, e))?;
        let bytes = match id {
            Some(id) => Some(store(VIEWS)?.get(id).map_err(|e| storage(VIEWS, e))?),
            None => None,
        };
        let enabled = done(SETTINGS, &enabled).await?.as_string().as_deref() != Some("off");
        let identity = done(SERVERS, &identity).await?.as_string();
        let keys = js_sys::Array::from(&done(ENTRIES, &keys).await?);
        let values = js_sys::Array::from(&done(ENTRIES, &values).await?);
        let mut all = Vec::new();
        // Both in key order, one transaction: the n-th value is the n-th key's.
        for (key, value) in keys.iter().zip(values.iter()) {
            // A record this version cannot read is treated as expired: evicted.
            let entry = value
                .as_string()
                .and_then(|v| Entry::from_json(&v))
                .unwrap_or(Entry {
                    server: String::new(),
                    saved_at: f64::NEG_INFINITY,
                    bytes: 0.0,
                });
            if let Some(key) = key.as_string() {
                all.push((key, entry));
            }
        }
        let bytes = match bytes {
            Some(request) => done(VIEWS, &request)
                .await?
                .dyn_into::<js_sys::Uint8Array>()
                .ok()
                .map(|a| a.to_vec()),
            None => None,
        };
        let entry = id
            .and_then(|id| id.as_string())
            .and_then(|id| all.iter().find(|(k, _)| *k == id).map(|(_, e)| e.clone()));
        Ok(Read {
            enabled,
            identity,
            entries: all,
            entry,
            bytes,
        })
    }

    /// One read-write pass: records `server`'s identity, puts `new` (an id and its
    /// bytes) if any, and deletes what expired and then the oldest views until what
    /// is left fits.
    async fn write(
        &self,
        server: &str,
        identity: &ServerIdentity,
        entries: &[(String, Entry)],
        new: Option<(&str, &[u8])>,
        now_ms: f64,
    ) -> Result<(), PersistError> {
        let mut keep: Vec<&(String, Entry)> = entries
            .iter()
            .filter(|(id, e)| {
                Some(id.as_str()) != new.map(|(n, _)| n)
                    && fresh(e.saved_at, now_ms, self.limits.max_age_ms)
            })
            .collect();
        let mut total: f64 = keep.iter().map(|(_, e)| e.bytes).sum::<f64>()
            + new.map_or(0.0, |(_, b)| b.len() as f64);
        // Newest first: the oldest are evicted from the end.
        keep.sort_by(|a, b| b.1.saved_at.total_cmp(&a.1.saved_at));
        while total > self.limits.max_bytes {
            let Some((_, e)) = keep.pop() else { break };
            total -= e.bytes;
        }
        let tx = self.transaction(IdbTransactionMode::Readwrite)?;
        let store = |name| tx.object_store(name).map_err(|e| storage(name, e));
        let (views, index, screens) = (store(VIEWS)?, store(ENTRIES)?, store(SCREENS)?);
        let saving = new.map(|(id, _)| id);
        // The view saved anew is put back below; its screens stay.
        for (id, _) in entries {
            if Some(id.as_str()) != saving && !keep.iter().any(|(k, _)| k == id) {
                let range = screens_of(id)?;
                let id = JsValue::from_str(id);
                views.delete(&id).map_err(|e| storage(VIEWS, e))?;
                index.delete(&id).map_err(|e| storage(ENTRIES, e))?;
                screens
                    .delete(&range.into())
                    .map_err(|e| storage(SCREENS, e))?;
            }
        }
        store(SERVERS)?
            .put_with_key(
                &JsValue::from_str(&identity.value),
                &JsValue::from_str(server),
            )
            .map_err(|e| storage(SERVERS, e))?;
        if let Some((id, bytes)) = new {
            let entry = Entry {
                server: server.to_string(),
                saved_at: now_ms,
                bytes: bytes.len() as f64,
            };
            let entry = entry.to_json();
            let id = JsValue::from_str(id);
            views
                .put_with_key(&js_sys::Uint8Array::from(bytes), &id)
                .map_err(|e| storage(VIEWS, e))?;
            index
                .put_with_key(&JsValue::from_str(&entry), &id)
                .map_err(|e| storage(ENTRIES, e))?;
        }
        committed("save", &tx).await
    }
}

/// Another cluster answers at `server`'s URL: none of the views saved from it are any
/// good; they are evicted as expired.
fn expire_server(entries: Vec<(String, Entry)>, server: &str) -> Vec<(String, Entry)> {
    entries
        .into_iter()
        .map(|(id, mut e)| {
            if e.server == server {
                e.saved_at = f64::NEG_INFINITY;
            }
            (id, e)
        })
        .collect()
}

/// What one read pass found.
struct Read {
    enabled: bool,
    identity: Option<String>,
    entries: Vec<(String, Entry)>,
    entry: Option<Entry>,
    bytes: Option<Vec<u8>>,
}

/// What one read pass for a screen found.
struct ScreenRead {
    enabled: bool,
    identity: Option<String>,
    entry: Option<Entry>,
    screen: Option<Screen>,
}

impl ScreenRead {
    /// Whether the view itself is kept, under `identity`, and fresh (saving on).
    fn view_kept(&self, identity: &ServerIdentity, limits: &Limits, now_ms: f64) -> bool {
        self.enabled
            && self.identity.as_deref() == Some(identity.value.as_str())
            && self
                .entry
                .as_ref()
                .is_some_and(|e| fresh(e.saved_at, now_ms, limits.max_age_ms))
    }
}

/// A kept screen as read, not yet judged: see [`Persist::read_screen`].
pub struct KeptScreen {
    read: ScreenRead,
    limits: Limits,
}

impl KeptScreen {
    /// Whether a screen is kept beside a kept view (saving on), whatever the server's
    /// identity turns out to be.
    pub fn held(&self) -> bool {
        self.read.enabled && self.read.entry.is_some() && self.read.screen.is_some()
    }

    /// The window kept (JSON), if the view is kept under `identity`, both are fresh at
    /// `now_ms` and saving is on.
    pub fn window(self, identity: &ServerIdentity, now_ms: f64) -> Option<String> {
        if !usable(identity, &self.limits) || !self.read.view_kept(identity, &self.limits, now_ms) {
            return None;
        }
        let max_age_ms = self.limits.max_age_ms;
        self.read
            .screen
            .filter(|s| s.identity == identity.value && fresh(s.saved_at, now_ms, max_age_ms))
            .map(|s| s.window)
    }
}

/// Whether views may be kept under `identity` (a weak one only if allowed).
fn usable(identity: &ServerIdentity, limits: &Limits) -> bool {
    identity.strong || limits.allow_weak_identity
}

/// Whether something saved at `saved_at` is younger than `max_age_ms` at `now_ms` (and
/// not from the future: a clock set back).
fn fresh(saved_at: f64, now_ms: f64, max_age_ms: f64) -> bool {
    now_ms - saved_at <= max_age_ms && saved_at <= now_ms
}

/// Reads which cluster `base_url` serves (see the module docs): the kube-system
/// namespace's uid, else the cluster CA published in `namespace` (a namespaced
/// view's), else `/version` (weak). `None` when none of them could be read.
pub async fn server_identity(base_url: &str, namespace: Option<&str>) -> Option<ServerIdentity> {
    read_identity(base_url, namespace).await.ok().flatten()
}

/// [`server_identity`]: `Ok(None)` when the server refuses every source (asking again
/// would not help), `Err` when a source kept failing (it may answer later).
async fn read_identity(
    base_url: &str,
    namespace: Option<&str>,
) -> Result<Option<ServerIdentity>, Unread> {
    let base = base_url.trim_end_matches('/');
    if let Some(v) = read_json(&format!("{base}/api/v1/namespaces/kube-system")).await? {
        if let Some(uid) = v["metadata"]["uid"].as_str().filter(|u| !u.is_empty()) {
            return Ok(Some(ServerIdentity {
                value: format!("uid:{uid}"),
                strong: true,
            }));
        }
    }
    if let Some(ns) = namespace {
        let ns = js_sys::encode_uri_component(ns);
        let url = format!("{base}/api/v1/namespaces/{ns}/configmaps/kube-root-ca.crt");
        if let Some(v) = read_json(&url).await? {
            if let Some(ca) = v["data"]["ca.crt"].as_str().filter(|c| !c.is_empty()) {
                return Ok(Some(ServerIdentity {
                    value: format!("ca:{:016x}", fnv64(ca.as_bytes())),
                    strong: true,
                }));
            }
        }
    }
    let Some(v) = read_json(&format!("{base}/version")).await? else {
        return Ok(None);
    };
    let field = |k: &str| v[k].as_str().unwrap_or("").to_string();
    Ok(Some(ServerIdentity {
        value: format!(
            "version:{} {} {} {}",
            field("gitVersion"),
            field("gitCommit"),
            field("buildDate"),
            field("platform")
        ),
        strong: false,
    }))
}

/// A 64-bit FNV-1a: a CA certificate's fingerprint for comparison only.
fn fnv64(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325, |h, &c| {
        (h ^ u64::from(c)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// One GET's outcome, as an identity source sees it.
enum Answer {
    Json(serde_json::Value),
    /// The server will not give it (4xx but 408 and 429): the next source may.
    Refused,
    /// It may pass: a 5xx, 408 or 429, no answer, a body that is not JSON.
    Failed,
}

async fn get_json(url: &str) -> Answer {
    let Ok(response) = gloo_net::http::Request::get(url)
        .header("Accept", "application/json")
        .send()
        .await
    else {
        return Answer::Failed;
    };
    let status = response.status();
    if (400..500).contains(&status) && status != 408 && status != 429 {
        return Answer::Refused;
    }
    if !response.ok() {
        return Answer::Failed;
    }
    match response.text().await.map(|t| serde_json::from_str(&t)) {
        Ok(Ok(v)) => Answer::Json(v),
        _ => Answer::Failed,
    }
}

/// `url`'s JSON (None: the server refuses it), asked again after a failure that may
/// pass (100 ms, doubling; the caller's deadline, [`IDENTITY_WITHIN_MS`], bounds the
/// whole read). `Err` when it kept failing: then no identity is read at all, rather
/// than one from the next source.
async fn read_json(url: &str) -> Result<Option<serde_json::Value>, Unread> {
    let mut pause = 100;
    for _ in 0..READ_ATTEMPTS {
        match get_json(url).await {
            Answer::Json(v) => return Ok(Some(v)),
            Answer::Refused => return Ok(None),
            Answer::Failed => {
                crate::scope::sleep(pause).await;
                pause *= 2;
            }
        }
    }
    Err(Unread)
}

/// An identity source that kept failing.
struct Unread;

/// At most this many GETs per identity source: past the deadline's worth (0.1 + 0.2 +
/// 0.4 + 0.8 s of pauses), even where a scope's timers would not wait.
const READ_ATTEMPTS: usize = 5;

/// How long a start waits for the server's identity: a slow or hung read must not hold
/// back the first request, so past it the view starts without a kept view (and keeps
/// nothing).
pub const IDENTITY_WITHIN_MS: i32 = 2_000;

/// [`server_identity`], or None when it has not come within [`IDENTITY_WITHIN_MS`].
pub async fn server_identity_within(
    base_url: &str,
    namespace: Option<&str>,
) -> Option<ServerIdentity> {
    within(IDENTITY_WITHIN_MS, server_identity(base_url, namespace)).await
}

/// How often a kept view is saved while its version moves (and at its sync, and when
/// the page is hidden or left).
pub const SAVE_EVERY_MS: f64 = 30_000.0;

/// Saves the view `d` shows (`key`, on `server`: `""` for the page's origin) under
/// `identity` from now on: at once if it is at a version, then as
/// [`Driver::save_views`] says, at most every [`SAVE_EVERY_MS`].
pub fn keep_saving(
    d: &Driver,
    persist: Rc<Persist>,
    identity: ServerIdentity,
    server: &str,
    key: &ViewKey,
) {
    let (server, key) = (server.to_string(), key.clone());
    let max_bytes = persist.limits().max_bytes as usize;
    d.save_views(
        SAVE_EVERY_MS,
        max_bytes,
        Box::new(move |bytes: Vec<u8>| {
            let (persist, server, identity, key) = (
                persist.clone(),
                server.clone(),
                identity.clone(),
                key.clone(),
            );
            wasm_bindgen_futures::spawn_local(async move {
                // A view that cannot be kept (quota, a private window) is listed again
                // next time: nothing to tell.
                let _ = persist.save(&server, &identity, &key, &bytes).await;
            });
        }),
    );
}

/// How long a view started without the server's identity (its read did not come within
/// [`IDENTITY_WITHIN_MS`]) goes on reading it in the background: found, the view is
/// kept from then on ([`server_identity_later`]).
pub const LATE_IDENTITY_MS: i32 = 60_000;

/// [`server_identity`] for a view that started without it (its read did not come in
/// time, a slow or flaky way to the server), so that it is kept once it is known: read
/// again every 2 s while `wanted()` (the view still runs), until it comes, the server
/// refuses every source, or [`LATE_IDENTITY_MS`] have passed.
async fn server_identity_later(
    base_url: &str,
    namespace: Option<&str>,
    wanted: impl Fn() -> bool,
) -> Option<ServerIdentity> {
    within(LATE_IDENTITY_MS, async {
        loop {
            crate::scope::sleep(2_000).await;
            if !wanted() {
                return None;
            }
            if let Ok(read) = read_identity(base_url, namespace).await {
                return read;
            }
        }
    })
    .await
}

/// Where a view that started without the server's identity is kept once it is read
/// ([`server_identity_later`], while `wanted()`): the store and an identity it may
/// keep views under; None when there is none.
pub async fn kept_later(
    base_url: &str,
    namespace: Option<&str>,
    wanted: impl Fn() -> bool,
) -> Option<(Rc<Persist>, ServerIdentity)> {
    let identity = server_identity_later(base_url, namespace, wanted).await?;
    let persist = Persist::open(Limits::default()).await.ok()?;
    persist
        .usable(&identity)
        .then(|| (Rc::new(persist), identity))
}

/// `f`'s output, or `None` when it has not come within `ms`.
async fn within<T>(ms: i32, f: impl std::future::Future<Output = Option<T>>) -> Option<T> {
    let timer = crate::scope::sleep(ms);
    futures::pin_mut!(f);
    futures::pin_mut!(timer);
    match futures::future::select(f, timer).await {
        futures::future::Either::Left((out, _)) => out,
        futures::future::Either::Right(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::Entry;

    #[test]
    fn an_entry_reads_back_as_written_and_a_damaged_one_not_at_all() {
        let e = Entry {
            server: "https://10.0.0.1:6443".into(),
            saved_at: 1_764_000_000_123.0,
            bytes: 15_234_567.0,
        };
        assert_eq!(Entry::from_json(&e.to_json()), Some(e));
        for bad in [
            r#"{"server":"s","saved_at":"1","bytes":2}"#,
            r#"{"server":"s","bytes":2}"#,
            r#"{"server":null,"saved_at":1,"bytes":2}"#,
            "[]",
            "",
        ] {
            assert_eq!(Entry::from_json(bad), None, "{bad}");
        }
    }
}
