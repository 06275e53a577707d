//! Arbitrary inputs for the decoders and the engine, driven by a byte string: the same
//! functions run under cargo-fuzz (`fuzz/`, the bytes come from libFuzzer) and as
//! seeded property tests in CI (`tests/props.rs`, the bytes come from a seeded RNG).
//!
//! Each function panics (with a message) when a property fails; that is what a fuzzer
//! reports as a crash.

use kubelive_core::decode::{ListDecoder, WatchDecoder, WatchFrame};
use kubelive_core::{
    Collection, Config, Engine, Event, IncludeObject, Instant, Limits, Mode, Object, ParseOptions,
    Phase, Request, RequestId, RequestKind, TransportError,
};
use kubelive_sim::Rng;

/// Reads choices out of the input; past its end every read is 0.
pub struct Input<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Input<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Input { data, pos: 0 }
    }
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }
    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }
    pub fn u16(&mut self) -> u16 {
        u16::from(self.byte()) << 8 | u16::from(self.byte())
    }
    /// Up to `n` raw bytes.
    pub fn bytes(&mut self, n: usize) -> &'a [u8] {
        let start = self.pos.min(self.data.len());
        let end = (start + n).min(self.data.len());
        self.pos = end;
        &self.data[start..end]
    }
    pub fn rest(&mut self) -> &'a [u8] {
        self.bytes(usize::MAX / 2)
    }
}

/// Cuts `body` into chunks at points chosen by `cuts` (each byte: a chunk length 1..=256,
/// 0 = the rest), so the same body can be fed whole and split.
fn chunks<'b>(body: &'b [u8], cuts: &[u8]) -> Vec<&'b [u8]> {
    let mut out = Vec::new();
    let mut rest = body;
    for &c in cuts {
        if rest.is_empty() || c == 0 {
            break;
        }
        let n = (c as usize).min(rest.len());
        out.push(&rest[..n]);
        rest = &rest[n..];
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// What every decoded object (or table row) must be: its JSON valid, a row's cells a
/// JSON array whose elements the cell reader yields one by one.
fn check_object(o: &Object) {
    let json = o.json();
    assert!(
        serde_json::from_slice::<serde::de::IgnoredAny>(&json).is_ok(),
        "an object's JSON is invalid: {}",
        String::from_utf8_lossy(&json)
    );
    assert_eq!(o.json_len(), json.len());
    if let Some(cells) = o.cells_json() {
        let parsed: Vec<serde_json::Value> = serde_json::from_str(&cells)
            .unwrap_or_else(|e| panic!("a row's cells are not a JSON array ({e}): {cells}"));
        assert_eq!(
            o.cells().map_or(0, Iterator::count),
            parsed.len(),
            "{cells}"
        );
    }
}

/// Decoders fed arbitrary bytes: no panic, the buffer never exceeds the document limit,
/// and feeding the body whole or in arbitrary chunks gives the same documents and the
/// same verdict; every object or table row decoded is valid JSON (cells too).
/// Input: `[limit selector][n cuts][cuts...][body...]`.
pub fn decoders(data: &[u8]) {
    let mut input = Input::new(data);
    let max = match input.byte() % 4 {
        0 => 64,
        1 => 512,
        2 => 4096,
        _ => 1 << 20,
    };
    let limits = Limits {
        max_document_bytes: max,
    };
    let opts = ParseOptions {
        metadata: kubelive_core::KeptMetadata::All,
        strip_managed_fields: input.byte().is_multiple_of(2),
        columns: kubelive_core::ColumnKind::for_resource("pods"),
    };
    let ncuts = input.byte() as usize % 64;
    let cuts = input.bytes(ncuts).to_vec();
    let body = input.rest();

    // Watch decoder.
    let watch = |parts: &[&[u8]]| {
        let mut d = WatchDecoder::new(limits, opts);
        let mut frames: Vec<WatchFrame> = Vec::new();
        let mut verdict = Ok(());
        for p in parts {
            verdict = d.feed(p, &mut frames);
            assert!(
                d.buffered() <= max,
                "watch decoder buffers {} > limit {max}",
                d.buffered()
            );
            if verdict.is_err() {
                break;
            }
        }
        if verdict.is_ok() {
            verdict = d.finish(&mut frames);
        }
        // After an error the decoder repeats it.
        if let Err(e) = &verdict {
            let again = d.feed(b"{}\n", &mut Vec::new());
            assert_eq!(
                again.as_ref().err(),
                Some(e),
                "watch decoder forgot its error"
            );
        }
        (frames, verdict)
    };
    let whole = watch(&[body]);
    for f in &whole.0 {
        if let WatchFrame::Added(o) | WatchFrame::Modified(o) | WatchFrame::Deleted(o) = f {
            check_object(o);
        }
    }
    let split = watch(&chunks(body, &cuts));
    assert_eq!(
        whole, split,
        "watch decoder: whole and split feeding differ"
    );
    let bytewise: Vec<&[u8]> = body.chunks(1).take(4096).collect();
    if body.len() <= 4096 {
        assert_eq!(
            whole,
            watch(&bytewise),
            "watch decoder: byte-by-byte differs"
        );
    }

    // List decoder.
    let list = |parts: &[&[u8]]| {
        let mut d = ListDecoder::new(limits, opts);
        let mut items = Vec::new();
        let mut columns = Vec::new();
        let mut verdict = Ok(Default::default());
        for p in parts {
            let fed = d.feed(p, &mut items);
            columns.extend(d.take_columns());
            if let Err(e) = fed {
                verdict = Err(e);
                break;
            }
            assert!(
                d.buffered() <= max + 64,
                "list decoder buffers {} > limit {max}",
                d.buffered()
            );
        }
        if verdict.is_ok() {
            verdict = d.finish();
        }
        (items, columns, verdict)
    };
    let whole = list(&[body]);
    whole.0.iter().for_each(check_object);
    let split = list(&chunks(body, &cuts));
    assert_eq!(whole, split, "list decoder: whole and split feeding differ");
}

/// Body fragments that mean something to the engine, so arbitrary sequences reach deep
/// states (synced, watching, relisting) and not only "not JSON".
fn fragment(i: u8, rv: u64, name: u8) -> String {
    let pod = |rv: u64| {
        format!(
            r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"p{name}","namespace":"ns","uid":"u{}","resourceVersion":"{rv}"}},"status":{{"phase":"Running"}}}}"#,
            name % 3
        )
    };
    // Table mode: the same pods as rows, printed with two columns (or three: an
    // upgraded server).
    let defs = |wide: bool| {
        let extra = if wide {
            r#",{"name":"Node","type":"string","format":"","description":"node","priority":1}"#
        } else {
            ""
        };
        format!(
            r#"[{{"name":"Name","type":"string","format":"name","description":"n","priority":0}},{{"name":"Restarts","type":"integer","format":"","description":"r","priority":0}}{extra}]"#
        )
    };
    let row = |rv: u64| {
        format!(
            r#"{{"cells":["p{name}",{},"n<1>"],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"name":"p{name}","namespace":"ns","uid":"u{}","resourceVersion":"{rv}","managedFields":[{{"manager":"m"}}]}}}}}}"#,
            rv % 7,
            name % 3
        )
    };
    let table = |rv: u64, defs: &str, rows: &str| {
        format!(
            r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"{rv}"}},"columnDefinitions":{defs},"rows":[{rows}]}}"#
        )
    };
    let table_bookmark = |rv: u64, end: bool| {
        let ann = if end {
            r#","annotations":{"k8s.io/initial-events-end":"true"}"#
        } else {
            ""
        };
        let t = table(
            rv,
            "null",
            &format!(
                r#"{{"cells":["",0,""],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"{rv}","creationTimestamp":null{ann}}}}}}}"#
            ),
        );
        format!("{{\"type\":\"BOOKMARK\",\"object\":{t}}}\n")
    };
    match i % 28 {
        16 => format!(
            r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"{rv}"}},"columnDefinitions":{},"rows":[{}]}}"#,
            defs(false),
            row(rv)
        ),
        17 => format!(
            r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"{rv}","continue":"c{rv}","remainingItemCount":1}},"columnDefinitions":{},"rows":[{},{}]}}"#,
            defs(false),
            row(rv),
            row(rv + 1)
        ),
        18 => format!(
            "{{\"type\":\"ADDED\",\"object\":{}}}\n",
            table(rv, &defs(false), &row(rv))
        ),
        19 => format!(
            "{{\"type\":\"MODIFIED\",\"object\":{}}}\n",
            table(rv, "null", &row(rv))
        ),
        20 => format!(
            "{{\"type\":\"DELETED\",\"object\":{}}}\n",
            table(rv, "null", &row(rv))
        ),
        21 => table_bookmark(rv, false),
        22 => table_bookmark(rv, true),
        // An upgraded server: other definitions.
        23 => format!(
            "{{\"type\":\"ADDED\",\"object\":{}}}\n",
            table(rv, &defs(true), &row(rv))
        ),
        24 => format!(
            r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"{rv}"}},"columnDefinitions":{},"rows":[{}]}}"#,
            defs(true),
            row(rv)
        ),
        25 => r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"only the following media types are accepted: application/json","reason":"NotAcceptable","code":406}"#.into(),
        // A Table event without its row, and rows without objects (includeObject=None).
        26 => format!("{{\"type\":\"ADDED\",\"object\":{}}}\n", table(rv, "null", "")),
        27 => table(rv, &defs(false), r#"{"cells":["x",1,""],"object":null}"#),
        0 => format!(
            r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"{rv}"}},"items":[{}]}}"#,
            pod(rv)
        ),
        1 => format!(
            r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"{rv}","continue":"c{rv}","remainingItemCount":3}},"items":[{},{}]}}"#,
            pod(rv),
            pod(rv + 1)
        ),
        2 => format!("{{\"type\":\"ADDED\",\"object\":{}}}\n", pod(rv)),
        3 => format!("{{\"type\":\"MODIFIED\",\"object\":{}}}\n", pod(rv)),
        4 => format!("{{\"type\":\"DELETED\",\"object\":{}}}\n", pod(rv)),
        5 => format!(
            "{{\"type\":\"BOOKMARK\",\"object\":{{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{{\"resourceVersion\":\"{rv}\",\"creationTimestamp\":null}},\"spec\":{{\"containers\":null}}}}}}\n"
        ),
        6 => format!(
            "{{\"type\":\"BOOKMARK\",\"object\":{{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{{\"resourceVersion\":\"{rv}\",\"annotations\":{{\"k8s.io/initial-events-end\":\"true\"}}}}}}}}\n"
        ),
        7 => "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version: 1 (3)\",\"reason\":\"Expired\",\"code\":410}}\n".into(),
        8 => r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 20000, current: 10245","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}"#.into(),
        9 => r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled","reason":"Invalid","code":422}"#.into(),
        10 => "<html><body><h1>502 Bad Gateway</h1></body></html>".into(),
        11 => "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\n".into(),
        12 => "\n".into(),
        13 => "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":504,\"reason\":\"Timeout\",\"details\":{\"causes\":[{\"reason\":\"ResourceVersionTooLarge\"}]}}}\n".into(),
        14 => r#"{"kind":"Status","apiVersion":"v1","metadata":{"continue":"x"},"status":"Failure","message":"The provided continue parameter is too old","reason":"Expired","code":410}"#.into(),
        _ => "Forbidden\n".into(),
    }
}

const STATUSES: [u16; 15] = [
    200, 200, 200, 200, 410, 504, 422, 429, 500, 503, 502, 401, 403, 404, 406,
];

/// The engine fed an arbitrary sequence of responses, bodies, ends, errors and time
/// (object or table mode, Table bodies and plain ones mixed): no panic; the draining
/// rule holds (one request in flight, and at most one more: the next LIST page, asked
/// for only while listing, with a continue token); every backoff respects the 800 ms floor;
/// the store and the status agree; memory stays bounded (the store never holds more
/// objects than distinct names fed); while the engine serves tables its store holds
/// rows only and it asks with the Table Accept header.
pub fn engine(data: &[u8]) {
    let mut input = Input::new(data);
    let mut config = Config::new(Collection::parse("/api/v1/pods").expect("valid"));
    let flags = input.byte();
    config.mode = if flags & 1 == 0 {
        Mode::ListWatch
    } else {
        Mode::StreamingList
    };
    config.page_size = u32::from(flags >> 1 & 3);
    config.initial_list_any_version = flags & 8 != 0;
    config.limits = Limits {
        max_document_bytes: if flags & 16 != 0 { 300 } else { 1 << 20 },
    };
    config.watch_timeout_secs = (5, 20);
    if flags & 32 != 0 {
        let include = if flags & 64 != 0 {
            IncludeObject::Object
        } else {
            IncludeObject::Metadata
        };
        config = config.tables(include);
    }
    config.seed = u64::from(input.u16());
    let mut now = 1_000u64;
    let mut engine = Engine::new(config, Instant::from_millis(now));
    // What the driver has in flight, oldest first.
    let mut in_flight: Vec<Request> = Vec::new();
    let mut stale: Vec<RequestId> = Vec::new();
    let mut rv = 10u64;
    let mut steps = 0;

    let drain = |engine: &mut Engine, now: u64, in_flight: &mut Vec<Request>| {
        while let Some(id) = engine.poll_cancel() {
            in_flight.retain(|r| r.id != id);
        }
        while let Some(ev) = engine.poll_event() {
            match ev {
                Event::BackingOff { until, reason } => assert!(
                    until.as_millis() >= now + 800,
                    "backoff of {} ms < 800 ms: {reason}",
                    until.as_millis() - now
                ),
                Event::Synced { objects, .. } => {
                    assert_eq!(objects, engine.store().len(), "Synced count")
                }
                _ => {}
            }
        }
        let mut n = 0;
        let tables = engine.status().tables;
        if tables {
            assert!(
                engine.store().iter().all(|o| o.is_row()),
                "an object in the store while serving tables"
            );
        } else {
            assert!(engine.columns().is_none(), "columns without tables");
        }
        while let Some(req) = engine.poll_request() {
            n += 1;
            assert!(n == 1, "two requests at once");
            assert_eq!(
                req.accept == kubelive_core::table::TABLE_ACCEPT,
                tables,
                "Accept {} while tables={tables}",
                req.accept
            );
            if let Some(current) = in_flight.first() {
                // Only the next LIST page may be asked for while another is in flight.
                let page_ahead = in_flight.len() == 1
                    && matches!(current.kind, RequestKind::List { .. })
                    && matches!(req.kind, RequestKind::List { .. })
                    && (req.path.contains("?continue=") || req.path.contains("&continue="))
                    && matches!(engine.status().phase, Phase::Listing { .. });
                assert!(
                    page_ahead,
                    "{req} while {:?} is in flight",
                    in_flight.iter().map(|r| r.to_string()).collect::<Vec<_>>()
                );
            }
            in_flight.push(req);
        }
        assert_eq!(engine.status().objects, engine.store().len());
        // Names are p0..p255 in one namespace.
        assert!(engine.store().len() <= 256, "store holds more than was fed");
    };
    drain(&mut engine, now, &mut in_flight);

    while !input.is_empty() && steps < 2_000 {
        steps += 1;
        let op = input.byte();
        // Mostly a request in flight (either, when two are); sometimes a stale or
        // unknown id.
        let id = match (op >> 5, in_flight.as_slice()) {
            (7, _) => stale.last().copied().unwrap_or(RequestId(999)),
            (_, [only]) => only.id,
            (_, [first, second, ..]) => {
                if op & 8 == 0 {
                    first.id
                } else {
                    second.id
                }
            }
            _ => RequestId(u64::from(op)),
        };
        let t = Instant::from_millis(now);
        match op % 8 {
            0 | 1 => {
                let status = STATUSES[input.byte() as usize % STATUSES.len()];
                let ra = input.byte();
                let ra_s = match ra % 4 {
                    0 => None,
                    1 => Some((ra / 4 % 10).to_string()),
                    2 => Some("Wed, 21 Oct 2015 07:28:00 GMT".to_string()),
                    _ => Some(String::from_utf8_lossy(input.bytes(4)).into_owned()),
                };
                let headers: Vec<(&str, &str)> = ra_s
                    .as_deref()
                    .map(|v| vec![("Retry-After", v)])
                    .unwrap_or_default();
                engine.handle_response(id, status, &headers, t);
            }
            2 | 3 => {
                let f = input.byte();
                let step = input.byte();
                rv = if step == 255 {
                    rv.saturating_sub(5)
                } else {
                    rv + u64::from(step % 4)
                };
                let name = input.byte();
                let frag = fragment(f, rv, name);
                let cut = input.byte() as usize;
                let bytes = frag.as_bytes();
                if cut.is_multiple_of(3) && bytes.len() > 1 {
                    let at = 1 + cut % (bytes.len() - 1);
                    engine.handle_body(id, &bytes[..at], t);
                    drain(&mut engine, now, &mut in_flight);
                    engine.handle_body(id, &bytes[at..], t);
                } else {
                    engine.handle_body(id, bytes, t);
                }
            }
            4 => {
                let n = input.byte() as usize % 64;
                engine.handle_body(id, input.bytes(n), t);
            }
            5 => {
                engine.handle_end(id, t);
                if in_flight.iter().any(|r| r.id == id) {
                    stale.push(id);
                    in_flight.retain(|r| r.id != id);
                }
            }
            6 => {
                let e = if input.byte().is_multiple_of(2) {
                    TransportError::Reset("reset".into())
                } else {
                    TransportError::Connect("refused".into())
                };
                engine.handle_error(id, e, t);
                if in_flight.iter().any(|r| r.id == id) {
                    stale.push(id);
                    in_flight.retain(|r| r.id != id);
                }
            }
            _ => {
                let dt = match input.byte() % 4 {
                    0 => 10,
                    1 => 900,
                    2 => 30_000,
                    _ => 120_000,
                };
                now += dt;
                if let Some(deadline) = engine.poll_timeout() {
                    if deadline.as_millis() <= now {
                        engine.handle_timeout(Instant::from_millis(now));
                    }
                }
            }
        }
        drain(&mut engine, now, &mut in_flight);
    }
    if std::env::var("KUBELIVE_PROPS_VERBOSE").is_ok() {
        let st = engine.status();
        let rows = engine.store().iter().filter(|o| o.is_row()).count();
        eprintln!(
            "steps {steps} objects {} rows {rows} tables {} fallback {:?} synced {} relists {} resumes {} errors {}",
            st.objects, st.tables, st.table_fallback, st.synced, st.relists, st.resumes, st.errors
        );
    }
}

/// A seeded input for [`engine`] that mostly follows the protocol (a head, body
/// fragments, an end; time passing) with noise, so the seeded tests reach synced,
/// watching, resumed and relisting states. (libFuzzer finds its own way from the
/// corpus.)
pub fn seeded_engine_input(seed: u64, episodes: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut v = vec![
        rng.below(256) as u8,
        rng.below(256) as u8,
        rng.below(256) as u8,
    ];
    // The engine's flags byte: table mode (see `engine`).
    let tables = v[0] & 32 != 0;
    for _ in 0..episodes {
        let status = if rng.chance(0.75) {
            0
        } else {
            rng.below(STATUSES.len() as u64) as u8
        };
        // Retry-After: none, a number of seconds, or an HTTP date (never the 4 raw bytes).
        let ra = (rng.below(64) as u8) << 2 | rng.below(3) as u8;
        v.extend_from_slice(&[0, status, ra]);
        for _ in 0..rng.range(1, 6) {
            // Mostly fragments of the mode the flags chose (Table ones in table mode),
            // sometimes any: a plain answer in table mode, a 406, other columns.
            let f = match (tables, rng.below(10)) {
                (false, 0..=1) => rng.below(2) as u8,
                (false, 2..=7) => 2 + rng.below(5) as u8,
                (true, 0..=1) => 16 + rng.below(2) as u8,
                (true, 2..=7) => 18 + rng.below(5) as u8,
                (_, 8) => rng.below(16) as u8,
                _ => rng.below(28) as u8,
            };
            let step = if rng.chance(0.05) {
                255
            } else {
                rng.below(4) as u8
            };
            v.extend_from_slice(&[2, f, step, rng.below(6) as u8, rng.below(256) as u8]);
        }
        match rng.below(10) {
            0 => v.extend_from_slice(&[6, rng.below(2) as u8]),
            1 => {}
            2 => v.extend_from_slice(&[4, 5, b'{', b'"', b'x', b'\n', b'\n']),
            _ => v.push(5),
        }
        if rng.chance(0.4) {
            v.extend_from_slice(&[7, rng.below(4) as u8]);
        }
        if rng.chance(0.05) {
            v.push(rng.below(256) as u8);
        }
    }
    v
}

/// `n` pseudo-random inputs for the property tests: raw bytes mixed with runs that
/// steer toward valid fragments.
pub fn seeded_input(seed: u64, max_len: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let len = rng.below(max_len as u64 + 1) as usize;
    let mut v = Vec::with_capacity(len);
    let bias = rng.below(4);
    while v.len() < len {
        match (bias, rng.below(8)) {
            (0, _) | (_, 0) => v.push(rng.below(256) as u8),
            (_, 1) => v.extend_from_slice(b"{\"type\":\"ADDED\",\"object\":{\"metadata\":{"),
            (_, 2) => v.extend_from_slice(b"\"resourceVersion\":\"12\"}}}\n"),
            (_, 3) => v.push(b'\n'),
            (_, 4) => v.extend_from_slice("é\u{1F600}\"\\u00e9".as_bytes()),
            (_, 5) => v.extend_from_slice(
                b"{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"rows\":[{\"cells\":[\"a\",1],\"object\":{\"metadata\":{\"name\":\"a\",",
            ),
            _ => v.push(rng.below(8) as u8 * 32 + rng.below(32) as u8),
        }
    }
    v.truncate(len);
    v
}
