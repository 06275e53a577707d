//! What the bench pages (`web/bench/`) time: the core's decode + apply in wasm, on a
//! watch stream it holds (copied in once, so the timed call copies nothing); and
//! [`BenchSync`], the browser driver and its store syncing a collection from a server
//! without the app (`web/bench/sync.html`).

use crate::driver::Driver;
use kubelive_core::table::IncludeObject;
use kubelive_core::{Collection, Config, Engine, Event, Instant, KeptMetadata, Mode, RequestId};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// A watch stream (`{"type":..,"object":..}` lines) held in wasm memory.
#[wasm_bindgen]
pub struct BenchStream {
    bytes: Vec<u8>,
    held: usize,
}

/// A pods engine in Watching state (synced from an empty list), its watch response
/// head in; returns it and the watch request.
fn watching_engine() -> (Engine, RequestId) {
    let config = Config::new(Collection::new("/api/v1", None, "pods"));
    let mut engine = Engine::new(config, Instant::ZERO);
    let mut id = None;
    let step = |engine: &mut Engine, id: &mut Option<RequestId>| {
        while engine.poll_cancel().is_some() {}
        while let Some(r) = engine.poll_request() {
            *id = Some(r.id);
        }
        while engine.poll_event().is_some() {}
    };
    step(&mut engine, &mut id);
    let list = id.take().expect("the engine asks for its list");
    engine.handle_response(list, 200, &[], Instant::ZERO);
    let empty =
        br#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"999"},"items":[]}"#;
    engine.handle_body(list, empty, Instant::ZERO);
    engine.handle_end(list, Instant::ZERO);
    step(&mut engine, &mut id);
    let watch = id.expect("the engine asks for its watch");
    engine.handle_response(watch, 200, &[], Instant::ZERO);
    step(&mut engine, &mut id);
    (engine, watch)
}

#[wasm_bindgen]
impl BenchStream {
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8]) -> BenchStream {
        BenchStream {
            bytes: bytes.to_vec(),
            held: 0,
        }
    }

    /// Bytes of the stream.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.bytes.len()
    }

    /// Objects the engine of the last run held at its end.
    #[wasm_bindgen(getter)]
    pub fn held(&self) -> usize {
        self.held
    }

    /// Feeds the stream in `chunk`-byte pieces to a new engine in Watching state,
    /// draining after every piece (decode + apply + events). Returns the changes
    /// (ADDED/MODIFIED/DELETED events) drained.
    #[wasm_bindgen(js_name = decodeApply)]
    pub fn decode_apply(&mut self, chunk: usize) -> f64 {
        let (mut engine, watch) = watching_engine();
        let mut changes = 0usize;
        for piece in self.bytes.chunks(chunk.max(1)) {
            engine.handle_body(watch, piece, Instant::ZERO);
            while engine.poll_cancel().is_some() {}
            while engine.poll_request().is_some() {}
            while let Some(e) = engine.poll_event() {
                match e {
                    Event::Added(_) | Event::Modified { .. } | Event::Deleted(_) => changes += 1,
                    Event::Failed { error } => wasm_bindgen::throw_str(&error.to_string()),
                    _ => {}
                }
            }
        }
        self.held = engine.store().len();
        changes as f64
    }
}

/// What a [`BenchSync`] saw, shared with its driver's sink.
#[derive(Default)]
struct SyncSeen {
    /// `performance.now()` at the first `Synced`.
    synced_ms: Option<f64>,
    objects: usize,
    changes: u64,
    /// Heap bytes the store held at the first `Synced` ([`kubelive_core::Store::heap_bytes`]).
    store_bytes: usize,
    error: Option<String>,
}

/// The browser driver and its store, syncing `path` from `base_url` as the app would
/// (object mode with managedFields stripped, or table mode with the rows' metadata),
/// with no UI: what holding a collection costs the tab.
#[wasm_bindgen]
pub struct BenchSync {
    driver: Driver,
    seen: Rc<RefCell<SyncSeen>>,
}

#[wasm_bindgen]
impl BenchSync {
    /// `path`: a collection path (`/api/v1/pods`); `streaming`: a streaming list
    /// instead of pages of 500; `tables`: server-side tables (`includeObject=Metadata`,
    /// identity metadata only).
    #[wasm_bindgen(constructor)]
    pub fn new(
        base_url: &str,
        path: &str,
        streaming: bool,
        tables: bool,
    ) -> Result<BenchSync, JsError> {
        let collection = Collection::parse(path).map_err(|e| JsError::new(&e.to_string()))?;
        let mut config = Config::new(collection);
        config.strip_managed_fields = true;
        if streaming {
            config.mode = Mode::StreamingList;
        }
        if tables {
            // As the app: the rows keep identity metadata only.
            config = config.tables(IncludeObject::Metadata);
            config.metadata = KeptMetadata::Identity;
        }
        let seen = Rc::new(RefCell::new(SyncSeen::default()));
        let sink_seen = seen.clone();
        let driver = Driver::start(
            config,
            base_url,
            Box::new(move |driver, events| {
                let mut seen = sink_seen.borrow_mut();
                for e in events {
                    match e {
                        Event::Added(_) | Event::Modified { .. } | Event::Deleted(_) => {
                            seen.changes += 1
                        }
                        Event::Synced { objects, .. } if seen.synced_ms.is_none() => {
                            seen.synced_ms = Some(crate::time::now_ms());
                            seen.objects = objects;
                            seen.store_bytes = driver.with_store(|s| s.heap_bytes());
                        }
                        Event::Failed { error } => seen.error = Some(error.to_string()),
                        _ => {}
                    }
                }
            }),
        );
        Ok(BenchSync { driver, seen })
    }

    /// `performance.now()` when the first sync completed, or `undefined`.
    #[wasm_bindgen(getter, js_name = syncedMs)]
    pub fn synced_ms(&self) -> Option<f64> {
        self.seen.borrow().synced_ms
    }

    /// Objects held at the first sync.
    #[wasm_bindgen(getter)]
    pub fn objects(&self) -> usize {
        self.seen.borrow().objects
    }

    /// Changes (added, modified, deleted) told so far.
    #[wasm_bindgen(getter)]
    pub fn changes(&self) -> f64 {
        self.seen.borrow().changes as f64
    }

    /// Heap bytes the store held at the first sync.
    #[wasm_bindgen(getter, js_name = storeBytes)]
    pub fn store_bytes(&self) -> usize {
        self.seen.borrow().store_bytes
    }

    /// Heap bytes the store holds now.
    #[wasm_bindgen(js_name = storeBytesNow)]
    pub fn store_bytes_now(&self) -> usize {
        self.driver.with_store(|s| s.heap_bytes())
    }

    /// The last error the engine reported, if any.
    #[wasm_bindgen(getter)]
    pub fn error(&self) -> Option<String> {
        self.seen.borrow().error.clone()
    }

    pub fn stop(&self) {
        self.driver.stop();
    }
}
