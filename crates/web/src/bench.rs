//! What the bench page (`web/bench/`) times: the core's decode + apply in wasm, on a
//! watch stream it holds (copied in once, so the timed call copies nothing).

use kubelive_core::{Collection, Config, Engine, Event, Instant, RequestId};
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
