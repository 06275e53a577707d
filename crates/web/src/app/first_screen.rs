//! The view's kept first screen: the rows a page showed at the top of its table, kept
//! beside the kept view ([`crate::persist`]) so that a reload draws them as soon as the
//! app runs, before discovery has answered and before the whole view is read and
//! restored (hundreds of milliseconds at 100,000 rows). They are shown as kept (the
//! app says so) until the engine's first rows replace them.
//!
//! The screen is kept as a saved view of its rows alone
//! ([`SavedView::encode_rows`]): identity and cells, never objects, as the view is. It
//! is read for the view the page opened with, from its link, as the app's wasm starts
//! ([`read_ahead`]: its requests go out before the app's first render).

use super::discovery::ResourceType;
use super::engine::{self, Keeper};
use super::url::ViewState;
use crate::persist::{server_identity_within, Limits, Persist};
use kubelive_core::{Object, ResourceVersion, SavedView, TableColumn, ViewKey};
use std::cell::RefCell;
use std::sync::Arc;
use yew::Callback;

thread_local! {
    /// The screen [`read_ahead`] reads, until the app takes it ([`take_early`]).
    static EARLY: RefCell<Early> = RefCell::default();
}

#[derive(Default)]
enum Early {
    /// Nothing read ahead (or already taken).
    #[default]
    None,
    /// Being read; the app's callback, once it asked.
    Reading(Option<Callback<Read>>),
    /// Read before the app asked.
    Done(Read),
}

/// The fewest and most rows a screen keeps (a phone's; a tall monitor's at the
/// app's row height).
const ROWS: (usize, usize) = (20, 120);
/// A synced view's screen is kept this long after its sync (the view's save has been
/// written by then), then at most this often while it changes. Not when the page goes:
/// a write begun then may be frozen with a page the browser caches (WebKitGTK does),
/// holding the store's lock until the page comes back.
const FIRST_KEEP_MS: f64 = 2_000.0;
const KEEP_EVERY_MS: f64 = 10_000.0;

/// A kept screen read for the view of `key`.
pub struct Read {
    key: ViewKey,
    saved: SavedView,
}

/// A kept screen's columns and rows, in the order they were kept.
pub struct KeptRows {
    pub columns: Arc<[TableColumn]>,
    pub rows: Vec<Arc<Object>>,
}

#[derive(Default)]
pub struct FirstScreen {
    /// The screen read, while it is shown (until the engine's first rows).
    shown: Option<Read>,
    /// When the view synced (ms), and when its screen was last kept.
    synced_at: Option<f64>,
    kept_at: Option<f64>,
    /// A hash of the screen last kept: the same screen is not written again.
    kept_hash: u64,
}

/// The key of the view `view` shows, as far as its link says (discovery has not said
/// whether its resource is namespaced: assumed so, as most are).
fn key_of(view: &ViewState) -> Option<ViewKey> {
    let rt = ResourceType::guessed(view)?;
    let config = engine::config(&rt, view.namespace.as_deref(), view);
    engine::keepable(&config).then(|| ViewKey::of(&config))
}

/// How the app shows a view, as a kept screen's id has it: the sort, the words of the
/// filter, the wide columns (`app`: the JS API's screens are other windows).
fn shown(view: &ViewState) -> String {
    format!(
        "app\n{}\n{}\n{}",
        view.sort,
        view.query.words.join(" "),
        view.wide
    )
}

/// Bytes as a string of one char per byte (IndexedDB keeps a screen as text).
fn to_text(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

fn from_text(text: &str) -> Option<Vec<u8>> {
    text.chars().map(|c| u8::try_from(c).ok()).collect()
}

/// Starts reading the screen kept for the view of the page's link (the server's
/// identity with it), before the app renders: its requests go out first.
pub fn read_ahead(view: &ViewState) {
    if view.tree {
        return;
    }
    let Some(key) = key_of(view) else {
        return;
    };
    let shown = shown(view);
    let namespace = view.namespace.clone();
    EARLY.with(|e| *e.borrow_mut() = Early::Reading(None));
    wasm_bindgen_futures::spawn_local(async move {
        let read = read(key, &shown, namespace.as_deref()).await;
        let waiting = EARLY.with(|e| {
            let mut e = e.borrow_mut();
            match (std::mem::take(&mut *e), read) {
                (Early::Reading(Some(done)), Some(read)) => Some((done, read)),
                (Early::Reading(None), Some(read)) => {
                    *e = Early::Done(read);
                    None
                }
                _ => None,
            }
        });
        if let Some((done, read)) = waiting {
            done.emit(read);
        }
    });
}

/// Sends the screen [`read_ahead`] reads to `done` once it is read (now if it was).
pub fn take_early(done: Callback<Read>) {
    let read = EARLY.with(|e| {
        let mut e = e.borrow_mut();
        match std::mem::take(&mut *e) {
            Early::Done(read) => Some(read),
            Early::Reading(_) => {
                *e = Early::Reading(Some(done.clone()));
                None
            }
            Early::None => None,
        }
    });
    if let Some(read) = read {
        done.emit(read);
    }
}

/// The screen kept for the view of `key` shown as `shown`, if the server's identity is
/// the one it was kept under. The identity is read only if this browser keeps such a
/// screen: a link alone makes no request before discovery has checked what it names.
async fn read(key: ViewKey, shown: &str, namespace: Option<&str>) -> Option<Read> {
    let persist = Persist::open(Limits::default()).await.ok()?;
    let kept = persist.read_screen("", &key, shown).await.ok()?;
    if !kept.held() {
        return None;
    }
    let identity = server_identity_within("", namespace).await?;
    let text = kept.window(&identity, js_sys::Date::now())?;
    let saved = SavedView::decode(&from_text(&text)?).ok()?;
    (saved.key() == &key).then_some(Read { key, saved })
}

impl FirstScreen {
    /// Takes a screen read for the view `view` shows now. Its rows to show, if it is
    /// still the view's and nothing else is shown yet.
    pub fn show(&mut self, read: Read, view: &ViewState, empty: bool) -> Option<KeptRows> {
        if !empty || key_of(view).as_ref() != Some(&read.key) {
            return None;
        }
        self.shown = Some(read);
        self.rows(view)
    }

    /// The screen's rows again for a view that starts anew (discovery answered): None,
    /// and the screen is dropped, if it is not that view's.
    pub fn rows(&mut self, view: &ViewState) -> Option<KeptRows> {
        let read = self.shown.as_ref()?;
        if key_of(view).as_ref() != Some(&read.key) {
            self.shown = None;
            return None;
        }
        Some(KeptRows {
            columns: read.saved.columns().clone(),
            rows: read.saved.rows().iter().cloned().map(Arc::new).collect(),
        })
    }

    /// Whether a kept screen is shown (no row from the engine yet).
    pub fn is_shown(&self) -> bool {
        self.shown.is_some()
    }

    /// The engine's rows came: the kept screen goes.
    pub fn replaced(&mut self) {
        self.shown = None;
    }

    /// A new view: nothing kept of it yet.
    pub fn restart(&mut self) {
        self.synced_at = None;
        self.kept_at = None;
        self.kept_hash = 0;
    }

    /// Whether the view's screen is due to be kept at `now`.
    pub fn due(&mut self, synced: bool, now: f64) -> bool {
        if !synced {
            self.synced_at = None;
            return false;
        }
        let synced_at = *self.synced_at.get_or_insert(now);
        match self.kept_at {
            None => now - synced_at >= FIRST_KEEP_MS,
            Some(at) => now - at >= KEEP_EVERY_MS,
        }
    }

    /// Keeps `rows` (the table's first, of `columns`, at `version`) as the screen of
    /// the view `view` shows, where `keeper` keeps it.
    pub fn keep(
        &mut self,
        keeper: Keeper,
        view: &ViewState,
        version: &str,
        columns: &[TableColumn],
        rows: &[Arc<Object>],
        now: f64,
    ) {
        self.kept_at = Some(now);
        // The rows alone: a moved version with the same rows is the same screen.
        let mut hash = std::hash::DefaultHasher::new();
        for o in rows {
            std::hash::Hash::hash(&(o.namespace(), o.name(), o.cells_json()), &mut hash);
        }
        let hash = std::hash::Hasher::finish(&hash);
        if hash == self.kept_hash {
            return;
        }
        let version = ResourceVersion::new(version);
        let Ok(bytes) = SavedView::encode_rows(&keeper.key, &version, columns, rows) else {
            return;
        };
        self.kept_hash = hash;
        let shown = shown(view);
        wasm_bindgen_futures::spawn_local(async move {
            // A screen that cannot be kept (quota, the view no longer kept) is not
            // drawn next time: the restored view is.
            let _ = keeper
                .persist
                .save_screen("", &keeper.identity, &keeper.key, &shown, &to_text(&bytes))
                .await;
        });
    }
}

/// How many rows a screen of a window `height` px tall holds.
pub fn rows_for(height: f64) -> usize {
    let rows = (height / super::grid::ROW_HEIGHT).ceil() as usize + 1;
    rows.clamp(ROWS.0, ROWS.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_go_through_text_and_back_unchanged() {
        let bytes: Vec<u8> = (0..=255).chain([0, 255, 10, 34, 92]).collect();
        assert_eq!(from_text(&to_text(&bytes)), Some(bytes));
        assert_eq!(from_text("ā"), None, "a char past one byte is not ours");
    }

    #[test]
    fn a_screen_is_told_apart_by_sort_words_and_wide_columns() {
        let view = |hash: &str| ViewState::from_hash(hash);
        let base = shown(&view("#r=v1/pods"));
        assert_ne!(base, shown(&view("#r=v1/pods&sort=-age")));
        assert_ne!(base, shown(&view("#r=v1/pods&q=web")));
        assert_ne!(base, shown(&view("#r=v1/pods&wide=1")));
        assert!(base.starts_with("app\n"), "apart from the JS API's screens");
    }

    #[test]
    fn a_screen_is_due_after_the_sync_then_every_ten_seconds() {
        let mut s = FirstScreen::default();
        assert!(!s.due(false, 0.0), "never before the sync");
        assert!(!s.due(true, 1_000.0));
        assert!(s.due(true, 3_000.0));
        s.kept_at = Some(3_000.0);
        assert!(!s.due(true, 12_000.0));
        assert!(s.due(true, 13_000.0));
        assert!(!s.due(false, 14_000.0), "not while listing again");
    }
}
