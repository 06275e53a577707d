//! `watcher.history(namespace, name)`: what changed in one object, version by version,
//! as plain data (it crosses a `postMessage` as it is):
//!
//! ```text
//! [{ kind: 'added' | 'modified' | 'deleted', resourceVersion, uid, time,
//!    changes: [{ path, before, after }] }]
//! ```
//!
//! newest first; `time` is when the watcher got the version (milliseconds since the
//! epoch, as `Date.now()`); `before` and `after` are the values as `JSON.parse` reads
//! them, absent (the member did not exist) where there was none. The changes are the
//! core's [`kubelive_core::history`] diffs: `managedFields`, `resourceVersion` and
//! `generation` left out, a Secret's `data`, `stringData` and last-applied annotation
//! `"(hidden)"`.
//!
//! Kept from the watcher's sync on: the initial list is not history (an object nobody
//! changed costs nothing), nor is a row printed again at the same version. Bounded as
//! the core bounds it: 64 versions per object, 8 MiB in all, the oldest going first.

use super::WatcherCore;
use kubelive_core::{Config, Entry, EntryKind, Event, History, HistoryConfig, Instant};
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;

/// A watcher's histories of its objects.
#[derive(Default)]
pub(super) struct Histories {
    /// Made at the first batch, for the watcher's collection.
    history: RefCell<Option<History>>,
    /// The watcher has synced (or restored a saved view) at least once.
    synced: Cell<bool>,
}

impl Histories {
    /// Takes a batch of the watcher's events (of `config`'s collection) at `at_ms`.
    pub(super) fn record(&self, config: &Config, events: &[Event], at_ms: f64) {
        let mut history = self.history.borrow_mut();
        let history = history.get_or_insert_with(|| {
            History::new(HistoryConfig {
                secret: config.collection.resource() == "secrets",
                ..HistoryConfig::default()
            })
        });
        let at = Instant::from_millis(at_ms.max(0.0) as u64);
        for e in events {
            match e {
                Event::Synced { .. } | Event::Restored { .. } => self.synced.set(true),
                Event::Added(_) if !self.synced.get() => {}
                Event::Modified { old, new }
                    if old.resource_version() == new.resource_version() => {}
                e => history.apply(e, at),
            }
        }
    }

    /// The entries of `namespace/name`, newest first.
    pub(super) fn entries(&self, namespace: &str, name: &str) -> Vec<Entry> {
        let history = self.history.borrow();
        let mut out: Vec<Entry> = history
            .iter()
            .flat_map(|h| h.entries(namespace, name).cloned())
            .collect();
        out.reverse();
        out
    }
}

/// `added`, `modified`, `deleted`.
pub(super) fn kind_name(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Added => "added",
        EntryKind::Modified => "modified",
        EntryKind::Deleted => "deleted",
    }
}

fn set(o: &js_sys::Object, key: &str, value: &JsValue) {
    let _ = js_sys::Reflect::set(o, &JsValue::from_str(key), value);
}

/// Entries as the plain data of the module's documentation.
pub(super) fn to_js(entries: &[Entry]) -> js_sys::Array {
    let parse = |json: &str| js_sys::JSON::parse(json).unwrap_or_else(|_| JsValue::from_str(json));
    entries
        .iter()
        .map(|e| {
            let o = js_sys::Object::new();
            set(&o, "kind", &JsValue::from_str(kind_name(e.kind)));
            set(
                &o,
                "resourceVersion",
                &JsValue::from_str(&e.resource_version),
            );
            set(&o, "uid", &JsValue::from_str(&e.uid));
            set(&o, "time", &JsValue::from_f64(e.at.as_millis() as f64));
            let changes: js_sys::Array = e
                .changes
                .iter()
                .map(|c| {
                    let change = js_sys::Object::new();
                    set(&change, "path", &JsValue::from_str(&c.path));
                    if let Some(before) = &c.before {
                        set(&change, "before", &parse(before));
                    }
                    if let Some(after) = &c.after {
                        set(&change, "after", &parse(after));
                    }
                    JsValue::from(change)
                })
                .collect();
            set(&o, "changes", &changes);
            JsValue::from(o)
        })
        .collect()
}

#[wasm_bindgen]
impl WatcherCore {
    /// What changed in `namespace/name` (`""` namespace for a cluster-scoped object)
    /// since the watcher synced: see [`self`](crate::api::history). An object with no
    /// change since: `[]`.
    pub fn history(&self, namespace: &str, name: &str) -> js_sys::Array {
        to_js(&self.shared.history.entries(namespace, name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubelive_core::{Collection, Object, ParseOptions, ResourceVersion};
    use std::sync::Arc;

    fn obj(json: &str) -> Arc<Object> {
        Arc::new(Object::parse(json.as_bytes(), &ParseOptions::default()).expect("an object"))
    }

    fn secret(rv: u32, value: &str) -> Arc<Object> {
        obj(&format!(
            r#"{{"kind":"Secret","apiVersion":"v1","metadata":{{"name":"db","namespace":"ns","uid":"u1","resourceVersion":"{rv}"}},"data":{{"password":"{value}"}}}}"#
        ))
    }

    #[test]
    fn kept_from_the_sync_on_newest_first_secrets_masked() {
        let config = Config::new(Collection::new("/api/v1", Some("ns"), "secrets"));
        let h = Histories::default();
        let (v1, v2, v3) = (secret(1, "YQ=="), secret(2, "Yg=="), secret(3, "Yw=="));
        let synced = Event::Synced {
            objects: 1,
            resource_version: ResourceVersion::new("1"),
        };
        // The initial list is not history.
        h.record(&config, &[Event::Added(v1.clone()), synced], 1_000.0);
        assert!(h.entries("ns", "db").is_empty());
        h.record(
            &config,
            &[Event::Modified {
                old: v1,
                new: v2.clone(),
            }],
            2_000.0,
        );
        // A row printed again at its version is not a version.
        h.record(
            &config,
            &[Event::Modified {
                old: v2.clone(),
                new: v2.clone(),
            }],
            2_500.0,
        );
        h.record(
            &config,
            &[Event::Modified {
                old: v2,
                new: v3.clone(),
            }],
            3_000.0,
        );
        h.record(&config, &[Event::Deleted(v3)], 4_000.0);
        let entries = h.entries("ns", "db");
        let got: Vec<(&str, &str, u64, Vec<String>)> = entries
            .iter()
            .map(|e| {
                (
                    kind_name(e.kind),
                    e.resource_version.as_str(),
                    e.at.as_millis(),
                    e.changes
                        .iter()
                        .map(|c| {
                            format!(
                                "{} {} -> {}",
                                c.path,
                                c.before.as_deref().unwrap_or("-"),
                                c.after.as_deref().unwrap_or("-")
                            )
                        })
                        .collect(),
                )
            })
            .collect();
        let hidden = r#"data.password "(hidden)" -> "(hidden)""#.to_string();
        assert_eq!(
            got,
            [
                ("deleted", "3", 4_000, vec![]),
                ("modified", "3", 3_000, vec![hidden.clone()]),
                ("modified", "2", 2_000, vec![hidden]),
            ]
        );
        assert!(h.entries("ns", "other").is_empty());
    }

    #[cfg(target_arch = "wasm32")]
    #[wasm_bindgen_test::wasm_bindgen_test]
    fn as_plain_data() {
        let entries = [
            Entry {
                kind: EntryKind::Modified,
                resource_version: "7".into(),
                uid: "u1".into(),
                at: Instant::from_millis(1_780_000_000_123),
                changes: vec![
                    kubelive_core::Change {
                        path: "spec.replicas".into(),
                        before: Some("2".into()),
                        after: Some("3".into()),
                    },
                    kubelive_core::Change {
                        path: r#"metadata.labels["app.kubernetes.io/name"]"#.into(),
                        before: None,
                        after: Some(r#""web""#.into()),
                    },
                ],
            },
            Entry {
                kind: EntryKind::Added,
                resource_version: "5".into(),
                uid: "u1".into(),
                at: Instant::from_millis(1_780_000_000_000),
                changes: Vec::new(),
            },
        ];
        let json = js_sys::JSON::stringify(&to_js(&entries)).expect("plain data");
        assert_eq!(
            String::from(json),
            r#"[{"kind":"modified","resourceVersion":"7","uid":"u1","time":1780000000123,"changes":[{"path":"spec.replicas","before":2,"after":3},{"path":"metadata.labels[\"app.kubernetes.io/name\"]","after":"web"}]},{"kind":"added","resourceVersion":"5","uid":"u1","time":1780000000000,"changes":[]}]"#
        );
    }
}
