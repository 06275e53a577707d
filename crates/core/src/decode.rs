//! Decoders: bytes in, split anywhere; complete documents out.

pub use crate::error::DecodeError;
use crate::json::{self, is_json_ws, unescape, Boundary, Scanner, Scratch, StrSpan};
use crate::object::{key, parse_bookmark, parse_object, parse_row, utf8, Object, ParseOptions};
use crate::table::{parse_columns, TableColumn};

/// Bounds on what a decoder may buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest single document (one watch event, one list item). Default 16 MiB.
    pub max_document_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_document_bytes: 16 << 20,
        }
    }
}

/// One document of a watch stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WatchFrame {
    Added(Object),
    Modified(Object),
    Deleted(Object),
    /// Advances the version only. `initial_events_end` is the streaming-list sync mark
    /// (annotation `k8s.io/initial-events-end: "true"`).
    Bookmark {
        resource_version: String,
        initial_events_end: bool,
    },
    /// An ERROR event: the raw bytes of its Status object.
    Error {
        status: Box<[u8]>,
    },
    /// The column definitions a Table event carried (the first event of a watch in
    /// table mode), just before that event's own frame.
    Columns(Vec<TableColumn>),
}

/// Longest start of a body quoted in [`DecodeError::NotJson`].
const SNIPPET_BYTES: usize = 80;

/// A buffer whose capacity grew past this is released once it is empty again.
const KEEP_CAPACITY: usize = 256 << 10;

fn snippet(a: &[u8], b: &[u8], max: usize) -> String {
    let mut v: Vec<u8> = a.iter().chain(b.iter()).take(max).copied().collect();
    if let Some(nl) = memchr::memchr(b'\n', &v) {
        v.truncate(nl);
    }
    // Do not end on half a character.
    if let Err(e) = std::str::from_utf8(&v) {
        if e.error_len().is_none() {
            v.truncate(e.valid_up_to());
        }
    }
    String::from_utf8_lossy(&v).trim_end().to_string()
}

/// Checks a document start (`a` then `b`, at least one byte, first not whitespace)
/// before it is buffered or parsed: not JSON, or too large. The verdict depends only
/// on the bytes, never on where chunks were split.
fn check_start(a: &[u8], b: &[u8], complete: bool, limits: &Limits) -> Result<(), DecodeError> {
    let total = a.len() + b.len();
    let first = a.first().or(b.first()).copied();
    if first.is_some_and(|c| c != b'{') {
        let snip = SNIPPET_BYTES.min(limits.max_document_bytes).max(1);
        let newline = memchr::memchr(b'\n', a).is_some() || memchr::memchr(b'\n', b).is_some();
        if complete || newline || total >= snip {
            return Err(DecodeError::NotJson {
                snippet: snippet(a, b, snip),
            });
        }
    }
    if total > limits.max_document_bytes {
        return Err(DecodeError::TooLarge {
            limit: limits.max_document_bytes,
        });
    }
    Ok(())
}

/// Adds `base` to a Malformed offset.
/// The longest prefix of `b` that is valid UTF-8 (a chunk may end inside a character).
fn valid_prefix(b: &[u8]) -> &str {
    match std::str::from_utf8(b) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&b[..e.valid_up_to()]).unwrap_or_default(),
    }
}

fn shift(e: DecodeError, base: usize) -> DecodeError {
    match e {
        DecodeError::Malformed { offset, reason } => DecodeError::Malformed {
            offset: offset + base,
            reason,
        },
        e => e,
    }
}

enum EventType {
    Added,
    Modified,
    Deleted,
    Bookmark,
    Error,
    Unknown(String),
}

impl EventType {
    fn from_key(k: &[u8]) -> EventType {
        match k {
            b"ADDED" => EventType::Added,
            b"MODIFIED" => EventType::Modified,
            b"DELETED" => EventType::Deleted,
            b"BOOKMARK" => EventType::Bookmark,
            b"ERROR" => EventType::Error,
            other => EventType::Unknown(String::from_utf8_lossy(other).into_owned()),
        }
    }
}

/// Parses the `object` value at `sc.i` for an event of type `ty`; a Table's column
/// definitions go to `columns`.
fn event_object(
    ty: &EventType,
    doc: &str,
    sc: &mut Scanner<'_>,
    opts: &ParseOptions,
    columns: &mut Option<Vec<TableColumn>>,
) -> Result<Option<WatchFrame>, DecodeError> {
    Ok(Some(match ty {
        EventType::Added => WatchFrame::Added(parse_object(doc, sc, opts, columns)?),
        EventType::Modified => WatchFrame::Modified(parse_object(doc, sc, opts, columns)?),
        EventType::Deleted => WatchFrame::Deleted(parse_object(doc, sc, opts, columns)?),
        EventType::Bookmark => {
            let (resource_version, initial_events_end) = parse_bookmark(sc, columns)?;
            WatchFrame::Bookmark {
                resource_version,
                initial_events_end,
            }
        }
        EventType::Error => {
            sc.ws();
            let start = sc.i;
            sc.value()?;
            WatchFrame::Error {
                status: sc.b[start..sc.i].into(),
            }
        }
        EventType::Unknown(_) => {
            sc.value()?;
            return Ok(None);
        }
    }))
}

/// Parses one complete watch document (`{"type":..,"object":..}`, keys in any order)
/// into `out`: its frame, after a [`WatchFrame::Columns`] if it carried column
/// definitions. `scratch` holds buffers kept between calls.
pub(crate) fn parse_event(
    line: &[u8],
    opts: &ParseOptions,
    scratch: &mut Scratch,
    out: &mut Vec<WatchFrame>,
) -> Result<(), DecodeError> {
    let mut sc = Scanner::at(line, 0, std::mem::take(scratch));
    sc.hits.clear();
    let mut columns = None;
    let r = parse_event_with(line, opts, &mut sc, &mut columns);
    *scratch = sc.take_scratch();
    let frame = r?;
    if let Some(c) = columns {
        out.push(WatchFrame::Columns(c));
    }
    out.push(frame);
    Ok(())
}

fn parse_event_with(
    line: &[u8],
    opts: &ParseOptions,
    sc: &mut Scanner<'_>,
    columns: &mut Option<Vec<TableColumn>>,
) -> Result<WatchFrame, DecodeError> {
    let doc = utf8(line)?;
    if !sc.object_start()? {
        return Err(DecodeError::Malformed {
            offset: 0,
            reason: "expected an object",
        });
    }
    let mut ty: Option<EventType> = None;
    let mut frame: Option<WatchFrame> = None;
    let mut deferred: Option<usize> = None;
    let mut optimistic: Option<Object> = None;
    let mut is_status = false;
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        match key(line, k).as_ref() {
            b"type" => ty = sc.opt_string()?.map(|s| EventType::from_key(&key(line, s))),
            // A bare Status instead of an event (`{"kind":"Status",...}`): the server's
            // error, to be read as one.
            b"kind" => {
                is_status = sc
                    .opt_string()?
                    .is_some_and(|s| &line[s.start..s.end] == b"Status")
            }
            b"object" => {
                sc.ws();
                match &ty {
                    Some(t) => {
                        frame = event_object(t, doc, sc, opts, columns)?;
                        deferred = None;
                    }
                    None => {
                        // The type is not known yet (keys in any order): most events
                        // carry objects, so try that in one pass; re-parse if not.
                        deferred = Some(sc.i);
                        let mark = sc.hits.len();
                        let mut probe = Scanner::at(line, sc.i, sc.take_scratch());
                        let r = parse_object(doc, &mut probe, opts, columns);
                        sc.put_scratch(probe.take_scratch());
                        match r {
                            Ok(o) => {
                                optimistic = Some(o);
                                sc.i = probe.i;
                            }
                            Err(_) => {
                                sc.hits.truncate(mark);
                                optimistic = None;
                                *columns = None;
                                sc.value()?;
                            }
                        }
                    }
                }
            }
            _ => sc.value()?,
        }
    }
    sc.end()?;
    let Some(ty) = ty else {
        if is_status {
            return Ok(WatchFrame::Error {
                status: line.into(),
            });
        }
        return Err(DecodeError::MissingField { field: "type" });
    };
    if let EventType::Unknown(event_type) = ty {
        return Err(DecodeError::UnknownEventType { event_type });
    }
    if let Some(at) = deferred {
        // "object" came before "type".
        frame = match (&ty, optimistic) {
            (EventType::Added, Some(o)) => Some(WatchFrame::Added(o)),
            (EventType::Modified, Some(o)) => Some(WatchFrame::Modified(o)),
            (EventType::Deleted, Some(o)) => Some(WatchFrame::Deleted(o)),
            _ => {
                let mut again = Scanner::at(line, at, sc.take_scratch());
                again.hits.clear();
                let r = event_object(&ty, doc, &mut again, opts, columns);
                sc.put_scratch(again.take_scratch());
                r?
            }
        };
    }
    frame.ok_or(DecodeError::MissingField { field: "object" })
}

/// Newline-framed watch stream decoder.
///
/// A document that lies entirely in one chunk is parsed in place; only the tail of
/// a chunk (an incomplete document) is copied and carried to the next one, so
/// [`WatchDecoder::buffered`] never exceeds [`Limits::max_document_bytes`].
pub struct WatchDecoder {
    limits: Limits,
    opts: ParseOptions,
    /// The incomplete document so far (starts at its first non-whitespace byte).
    buf: Vec<u8>,
    failed: Option<DecodeError>,
    /// The scanner's buffers (dictionary-key positions, object assembly), reused
    /// between documents.
    scratch: Scratch,
}

impl WatchDecoder {
    pub fn new(limits: Limits, opts: ParseOptions) -> Self {
        WatchDecoder {
            limits,
            opts,
            buf: Vec::new(),
            failed: None,
            scratch: Scratch::default(),
        }
    }
    /// Feeds one chunk, appending every complete document to `out` in order. On error
    /// the documents before it are in `out` and the decoder must not be fed again
    /// (if it is, it repeats the error).
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<WatchFrame>) -> Result<(), DecodeError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let r = self.feed_inner(chunk, out);
        if let Err(e) = &r {
            self.fail(e.clone());
        }
        r
    }

    fn fail(&mut self, e: DecodeError) {
        self.failed = Some(e);
        self.buf = Vec::new();
    }

    fn feed_inner(&mut self, chunk: &[u8], out: &mut Vec<WatchFrame>) -> Result<(), DecodeError> {
        let mut rest = chunk;
        if !self.buf.is_empty() {
            match memchr::memchr(b'\n', rest) {
                None => {
                    check_start(&self.buf, rest, false, &self.limits)?;
                    self.buf.extend_from_slice(rest);
                    return Ok(());
                }
                Some(p) => {
                    check_start(&self.buf, &rest[..p], true, &self.limits)?;
                    self.buf.extend_from_slice(&rest[..p]);
                    parse_event(&self.buf, &self.opts, &mut self.scratch, out)?;
                    self.clear_buf();
                    rest = &rest[p + 1..];
                }
            }
        }
        loop {
            let Some(s) = rest.iter().position(|&c| !is_json_ws(c)) else {
                return Ok(());
            };
            rest = &rest[s..];
            match memchr::memchr(b'\n', rest) {
                Some(p) => {
                    let line = &rest[..p];
                    check_start(line, &[], true, &self.limits)?;
                    parse_event(line, &self.opts, &mut self.scratch, out)?;
                    rest = &rest[p + 1..];
                }
                None => {
                    check_start(rest, &[], false, &self.limits)?;
                    self.buf.extend_from_slice(rest);
                    return Ok(());
                }
            }
        }
    }

    fn clear_buf(&mut self) {
        if self.buf.capacity() > KEEP_CAPACITY {
            self.buf = Vec::new();
        } else {
            self.buf.clear();
        }
    }

    /// The body ended. A complete last document without its newline is still emitted;
    /// a partial one is `Truncated`.
    pub fn finish(&mut self, out: &mut Vec<WatchFrame>) -> Result<(), DecodeError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.buf.is_empty() {
            return Ok(());
        }
        let r = check_start(&self.buf, &[], true, &self.limits).and_then(|_| {
            match parse_event(&self.buf, &self.opts, &mut self.scratch, out) {
                Ok(()) => Ok(()),
                Err(DecodeError::Malformed { reason, .. }) if reason == json::EOF => {
                    Err(DecodeError::Truncated {
                        buffered: self.buf.len(),
                    })
                }
                Err(e) => Err(e),
            }
        });
        match &r {
            Ok(()) => self.clear_buf(),
            Err(e) => self.fail(e.clone()),
        }
        r
    }
    /// Bytes held for an incomplete document.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }
}

/// What a list body says about itself besides its items.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListMeta {
    /// The whole body, when it is a `Status` object rather than a list (an error
    /// answered with a 200, e.g. by a proxy).
    pub status: Option<Box<[u8]>>,
    pub resource_version: Option<String>,
    /// `metadata.continue`; `None` when absent or empty.
    pub continue_token: Option<String>,
    pub remaining_item_count: Option<u64>,
    /// The body was a `meta.k8s.io` Table (rows), not a plain list (items).
    pub table: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Kind,
    Metadata,
    Items,
    /// A Table's `rows`: items that are rows.
    Rows,
    ColumnDefinitions,
    Other,
}

/// Longest body kept in case it turns out to be a `Status` (they are small).
const MAX_STATUS_BODY: usize = 64 * 1024;

/// Where the list decoder stands in `{"k":v,...,"items":[...]}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ListState {
    Start,
    FirstKey,
    Key,
    Colon(Field),
    Value(Field),
    ItemsStart,
    ItemsFirst,
    Item,
    ItemsAfter,
    AfterMember,
    Done,
}

/// Streaming decoder of one LIST response body (`{"kind":..,"metadata":{..},"items":[..]}`,
/// or a Table: `{"kind":"Table",..,"columnDefinitions":[..],"rows":[..]}`): yields items
/// (or rows) as soon as each is complete, so a page is never held twice.
pub struct ListDecoder {
    limits: Limits,
    opts: ParseOptions,
    /// Unconsumed bytes: the start of an incomplete token or value.
    buf: Vec<u8>,
    /// Offset in the body of the first unconsumed byte.
    base: usize,
    state: ListState,
    boundary: Boundary,
    meta: ListMeta,
    failed: Option<DecodeError>,
    /// The body so far, kept only until its top-level `kind` is known (or items
    /// start): a `Status` body must be read whole.
    maybe_status: Option<Vec<u8>>,
    /// The top-level `kind`, once seen: whether it is `Status`.
    kind_is_status: Option<bool>,
    /// The array being read is a Table's `rows`.
    rows: bool,
    /// Column definitions read and not yet taken.
    columns: Option<Vec<TableColumn>>,
    /// The scanner's buffers (dictionary-key positions, object assembly), reused
    /// between items.
    scratch: Scratch,
}

impl ListDecoder {
    pub fn new(limits: Limits, opts: ParseOptions) -> Self {
        ListDecoder {
            limits,
            opts,
            buf: Vec::new(),
            base: 0,
            state: ListState::Start,
            boundary: Boundary::default(),
            meta: ListMeta::default(),
            failed: None,
            maybe_status: Some(Vec::new()),
            kind_is_status: None,
            rows: false,
            columns: None,
            scratch: Scratch::default(),
        }
    }

    /// The column definitions of a Table body, once read (they come before its rows):
    /// taken once, after the feed that completed them.
    pub fn take_columns(&mut self) -> Option<Vec<TableColumn>> {
        self.columns.take()
    }

    /// Feeds one chunk, appending each completed item (or row) to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<Object>) -> Result<(), DecodeError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let r = if self.buf.is_empty() {
            self.process(chunk, out).map(|n| {
                self.base += n;
                self.buf.extend_from_slice(&chunk[n..]);
            })
        } else {
            // Only the carried value's rest joins it where it ends in this chunk; the
            // chunk after it is read in place (joining whole chunks copied every byte
            // of a list once more).
            let joined = self.join_carried(chunk);
            let mut input = std::mem::take(&mut self.buf);
            self.process(&input, out).and_then(|n| {
                self.base += n;
                input.drain(..n);
                let rest = &chunk[joined..];
                if input.is_empty() {
                    self.buf = input;
                    return self.process(rest, out).map(|n| {
                        self.base += n;
                        self.buf.extend_from_slice(&rest[n..]);
                    });
                }
                // The carried value goes on past this chunk (all of it joined: read
                // again, the same bytes would give no more); or, never expected when
                // it ended here, bytes left over.
                if !rest.is_empty() {
                    input.extend_from_slice(rest);
                    let n = self.process(&input, out)?;
                    self.base += n;
                    input.drain(..n);
                }
                if input.capacity() > KEEP_CAPACITY && input.len() < KEEP_CAPACITY / 4 {
                    input.shrink_to(KEEP_CAPACITY / 4);
                }
                self.buf = input;
                Ok(())
            })
        };
        if let Err(e) = &r {
            self.failed = Some(e.clone());
            self.buf = Vec::new();
        }
        // Keep the body while it may still be a Status: a list says its kind first
        // (or starts its items), after which nothing more is copied.
        let undecided = self.kind_is_status != Some(false)
            && !matches!(
                self.state,
                ListState::ItemsStart
                    | ListState::ItemsFirst
                    | ListState::Item
                    | ListState::ItemsAfter
            );
        match &mut self.maybe_status {
            Some(body) if undecided && body.len() + chunk.len() <= MAX_STATUS_BODY => {
                body.extend_from_slice(chunk)
            }
            Some(_) => self.maybe_status = None,
            None => {}
        }
        r
    }

    /// Appends to the carried bytes (`buf`) as much of `chunk` as completes the value
    /// they start (a cut item, key or member value) when it ends in `chunk`, found by
    /// a copy of its boundary scan (the scan proper then reads it as before); else all
    /// of `chunk`. Returns how many bytes of `chunk` joined.
    fn join_carried(&mut self, chunk: &[u8]) -> usize {
        if !matches!(
            self.state,
            ListState::Item | ListState::Key | ListState::Value(_)
        ) || self.boundary.is_fresh()
        {
            self.buf.extend_from_slice(chunk);
            return chunk.len();
        }
        let carried = self.buf.len();
        let mut probe = self.boundary;
        // In growing steps: an item takes a few KiB of the next chunk.
        let mut step = 8 << 10;
        let mut joined = 0;
        while joined < chunk.len() {
            let more = step.min(chunk.len() - joined);
            self.buf.extend_from_slice(&chunk[joined..joined + more]);
            joined += more;
            if let Some(n) = probe.advance(&self.buf) {
                let end = n.max(carried);
                self.buf.truncate(end);
                return end - carried;
            }
            step *= 2;
        }
        joined
    }

    /// Runs the state machine over `input` (whose first byte is at body offset
    /// `self.base`); returns how many bytes were consumed.
    fn process(&mut self, input: &[u8], out: &mut Vec<Object>) -> Result<usize, DecodeError> {
        let mut i = 0;
        let limit = self.limits.max_document_bytes;
        // The input's valid UTF-8 from the first item parsed in place on (where it
        // starts, its text), checked once for every item after it (`item_in_place`);
        // what comes before (a carried-over item, the list's head) was checked already.
        let mut valid: Option<(usize, &str)> = None;
        loop {
            while i < input.len() && is_json_ws(input[i]) {
                i += 1;
            }
            let Some(&c) = input.get(i) else {
                return Ok(i);
            };
            let at = self.base + i;
            let bad = |reason: &'static str| DecodeError::Malformed { offset: at, reason };
            match self.state {
                ListState::Start => {
                    if c != b'{' {
                        check_start(&input[i..], &[], false, &self.limits)?;
                        return Ok(i);
                    }
                    i += 1;
                    self.state = ListState::FirstKey;
                }
                ListState::FirstKey | ListState::AfterMember => {
                    let first = self.state == ListState::FirstKey;
                    match c {
                        b'}' => self.state = ListState::Done,
                        b',' if !first => self.state = ListState::Key,
                        b'"' if first => {
                            self.state = ListState::Key;
                            continue;
                        }
                        _ if first => return Err(bad("expected a key string")),
                        _ => return Err(bad("expected ',' or '}' in an object")),
                    }
                    i += 1;
                }
                ListState::Key | ListState::Value(_) | ListState::Item => {
                    if self.state == ListState::Key && c != b'"' {
                        return Err(bad("expected a key string"));
                    }
                    if self.state == ListState::Item && self.boundary.is_fresh() {
                        let (from, text) =
                            *valid.get_or_insert_with(|| (i, valid_prefix(&input[i..])));
                        let text = text.get(i - from..).unwrap_or("");
                        if let Some(n) = self.item_in_place(text, out) {
                            if n > limit {
                                out.pop();
                                return Err(DecodeError::TooLarge { limit });
                            }
                            self.state = ListState::ItemsAfter;
                            i += n;
                            continue;
                        }
                    }
                    let v = &input[i..];
                    let Some(n) = self.boundary.advance(v) else {
                        if v.len() > limit {
                            return Err(DecodeError::TooLarge { limit });
                        }
                        return Ok(i);
                    };
                    self.boundary = Boundary::default();
                    if n > limit {
                        return Err(DecodeError::TooLarge { limit });
                    }
                    let v = &v[..n];
                    self.complete_value(v, out).map_err(|e| shift(e, at))?;
                    i += n;
                }
                ListState::Colon(f) => {
                    if c != b':' {
                        return Err(bad("expected ':' after a key"));
                    }
                    i += 1;
                    self.state = match f {
                        Field::Items | Field::Rows => {
                            self.rows = f == Field::Rows;
                            self.meta.table |= self.rows;
                            ListState::ItemsStart
                        }
                        f => ListState::Value(f),
                    };
                }
                ListState::ItemsStart => match c {
                    b'[' => {
                        i += 1;
                        self.state = ListState::ItemsFirst;
                    }
                    b'n' => {
                        let rest = &input[i..];
                        if rest.len() < 4 && b"null".starts_with(rest) {
                            return Ok(i);
                        }
                        if !rest.starts_with(b"null") {
                            return Err(bad("bad literal"));
                        }
                        i += 4;
                        self.state = ListState::AfterMember;
                    }
                    _ => return Err(bad("expected an array")),
                },
                ListState::ItemsFirst => {
                    if c == b']' {
                        i += 1;
                        self.state = ListState::AfterMember;
                    } else {
                        self.state = ListState::Item;
                    }
                }
                ListState::ItemsAfter => {
                    match c {
                        b',' => self.state = ListState::Item,
                        b']' => self.state = ListState::AfterMember,
                        _ => return Err(bad("expected ',' or ']' in an array")),
                    }
                    i += 1;
                }
                ListState::Done => return Err(bad("trailing characters after the document")),
            }
        }
    }

    /// Parses an item straight from the input, without first finding its end (a
    /// second pass over its bytes) or checking its UTF-8 alone: `text` starts at the
    /// item and runs to the end of the input's valid UTF-8. Gives the item's length
    /// when it parsed, `None` when it did not (it is cut off by the end of the input,
    /// or malformed): then the item takes the usual way, which reports errors.
    fn item_in_place(&mut self, text: &str, out: &mut Vec<Object>) -> Option<usize> {
        let b = text.as_bytes();
        if b.first() != Some(&b'{') {
            return None;
        }
        let mut sc = Scanner::at(b, 0, std::mem::take(&mut self.scratch));
        sc.hits.clear();
        let parsed = if self.rows {
            parse_row(text, &mut sc, &self.opts)
        } else {
            parse_object(text, &mut sc, &self.opts, &mut None)
        };
        let end = sc.i;
        self.scratch = sc.take_scratch();
        out.push(parsed.ok()?);
        Some(end)
    }

    /// Handles a complete key, member value or item (offsets relative to `v`).
    fn complete_value(&mut self, v: &[u8], out: &mut Vec<Object>) -> Result<(), DecodeError> {
        let doc = utf8(v)?;
        let mut sc = Scanner::at(v, 0, std::mem::take(&mut self.scratch));
        sc.hits.clear();
        let r = self.complete_value_with(doc, &mut sc, out);
        self.scratch = sc.take_scratch();
        r
    }

    fn complete_value_with(
        &mut self,
        doc: &str,
        sc: &mut Scanner<'_>,
        out: &mut Vec<Object>,
    ) -> Result<(), DecodeError> {
        let v = sc.b;
        match self.state {
            ListState::Key => {
                let k = sc.string()?;
                sc.end()?;
                let field = match key(v, k).as_ref() {
                    b"kind" => Field::Kind,
                    b"metadata" => Field::Metadata,
                    b"items" => Field::Items,
                    b"rows" => Field::Rows,
                    b"columnDefinitions" => Field::ColumnDefinitions,
                    _ => Field::Other,
                };
                self.state = ListState::Colon(field);
            }
            ListState::Value(Field::Metadata) => {
                parse_list_meta(sc, &mut self.meta)?;
                sc.end()?;
                self.state = ListState::AfterMember;
            }
            ListState::Value(Field::Kind) => {
                let kind = sc.opt_string()?;
                sc.end()?;
                let kind = kind.map_or(&b""[..], |k| &v[k.start..k.end]);
                self.kind_is_status = Some(kind == b"Status");
                self.meta.table |= kind == b"Table";
                self.state = ListState::AfterMember;
            }
            ListState::Value(Field::ColumnDefinitions) => {
                sc.value()?;
                sc.end()?;
                self.columns = parse_columns(v)
                    .map_err(|reason| DecodeError::Malformed { offset: 0, reason })?;
                self.meta.table = true;
                self.state = ListState::AfterMember;
            }
            ListState::Value(_) => {
                sc.value()?;
                sc.end()?;
                self.state = ListState::AfterMember;
            }
            _ => {
                if sc.peek() != b'{' {
                    return Err(sc.err("expected an object").into());
                }
                let obj = if self.rows {
                    parse_row(doc, sc, &self.opts)?
                } else {
                    parse_object(doc, sc, &self.opts, &mut None)?
                };
                sc.end()?;
                out.push(obj);
                self.state = ListState::ItemsAfter;
            }
        }
        Ok(())
    }

    /// The body ended: the top-level object must be complete.
    pub fn finish(&mut self) -> Result<ListMeta, DecodeError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let r = match self.state {
            ListState::Done => {
                let mut meta = std::mem::take(&mut self.meta);
                if self.kind_is_status == Some(true) {
                    meta.status = self.maybe_status.take().map(Vec::into_boxed_slice);
                }
                Ok(meta)
            }
            ListState::Start if !self.buf.is_empty() => {
                check_start(&self.buf, &[], true, &self.limits).and(Err(DecodeError::Truncated {
                    buffered: self.buf.len(),
                }))
            }
            _ => Err(DecodeError::Truncated {
                buffered: self.buf.len(),
            }),
        };
        if let Err(e) = &r {
            self.failed = Some(e.clone());
            self.buf = Vec::new();
        }
        r
    }
    /// Bytes held for an incomplete item or top-level field.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// `metadata.continue`, as soon as the list's metadata was read: the apiserver
    /// writes it before the items (or rows), so the next page can be asked for while
    /// this one streams. `None` before that, for a last page, a `Status` body, and
    /// after [`ListDecoder::finish`].
    pub fn continue_token(&self) -> Option<&str> {
        if self.kind_is_status == Some(true) {
            return None;
        }
        self.meta.continue_token.as_deref()
    }
}

fn parse_list_meta(sc: &mut Scanner<'_>, meta: &mut ListMeta) -> Result<(), DecodeError> {
    if !sc.object_start()? {
        return Ok(());
    }
    let b = sc.b;
    let text = |s: Option<StrSpan>| s.map(|s| unescape(&b[s.start..s.end]).into_owned());
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        match key(b, k).as_ref() {
            b"resourceVersion" => meta.resource_version = text(sc.opt_string()?),
            b"continue" => meta.continue_token = text(sc.opt_string()?).filter(|c| !c.is_empty()),
            b"remainingItemCount" => meta.remaining_item_count = sc.uint()?,
            _ => sc.value()?,
        }
    }
    Ok(())
}
