//! Transcript tests: each scenario plays server responses into the engine and
//! compares the exact sequence of requests and events it produced, as text.

mod support;

use kubelive_core::{
    Collection, Config, Engine, Event, Instant, Mode, Phase, Request, TransportError,
};
use std::fmt::Write;

/// How a harness cuts every body it feeds.
#[derive(Clone, Copy)]
enum Split {
    Whole,
    ByteByByte,
    /// Seeded random cut points.
    Random(u64),
}

/// One engine fed by the harness, with what it said.
struct Run {
    engine: Engine,
    log: String,
    in_flight: Option<Request>,
    split: Split,
}

impl Run {
    /// The draining rule: after every feed, drain everything.
    fn drain(&mut self, now: Instant) {
        while let Some(id) = self.engine.poll_cancel() {
            writeln!(self.log, "cancel {id}").unwrap();
            if self.in_flight.as_ref().is_some_and(|r| r.id == id) {
                self.in_flight = None;
            }
        }
        // Events before requests: the transcript then reads in causal order.
        while let Some(ev) = self.engine.poll_event() {
            writeln!(self.log, "  {}", describe(&ev, now)).unwrap();
        }
        while let Some(req) = self.engine.poll_request() {
            let tables = if req.accept == kubelive_core::table::TABLE_ACCEPT {
                " [as=Table]"
            } else {
                assert_eq!(req.accept, "application/json");
                ""
            };
            writeln!(self.log, "{req}{tables}").unwrap();
            self.in_flight = Some(req);
        }
    }

    fn feed_body(&mut self, id: kubelive_core::RequestId, body: &[u8], now: Instant) {
        match self.split {
            Split::Whole => self.engine.handle_body(id, body, now),
            Split::ByteByByte => {
                for b in body.chunks(1) {
                    self.engine.handle_body(id, b, now);
                }
            }
            Split::Random(seed) => {
                let mut x = seed | 1;
                let mut rest = body;
                while !rest.is_empty() {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let n = (1 + (x % 40) as usize).min(rest.len());
                    self.engine.handle_body(id, &rest[..n], now);
                    rest = &rest[n..];
                }
            }
        }
    }
}

/// Plays the server's side for one engine and records everything it says. Every
/// feed also goes to two mirror engines that get each body byte by byte and at random
/// cut points: their transcripts must be identical to the whole-body one.
struct Harness {
    engine: Engine,
    now: Instant,
    log: String,
    in_flight: Option<Request>,
    mirrors: Vec<Run>,
}

fn pods() -> Collection {
    Collection::parse("/api/v1/pods").unwrap()
}

/// These transcripts have one request in flight: each page is asked for after the
/// previous one ended. Pipelined pages (the default) have their own harness, [`Pipe`].
/// Pages keep the size set (growing pages have their own transcripts).
fn config(mode: Mode) -> Config {
    let mut c = Config::new(pods());
    c.mode = mode;
    c.seed = 1;
    c.pipeline_pages = false;
    c.max_page_size = 0;
    c
}

fn pod(ns: &str, name: &str, uid: &str, rv: u64) -> String {
    format!(
        r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"{ns}","uid":"{uid}","resourceVersion":"{rv}","creationTimestamp":"2026-11-29T10:00:00Z","labels":{{"app":"web"}}}},"spec":{{"nodeName":"node-1","containers":[{{"name":"c","image":"nginx"}}]}},"status":{{"phase":"Running","containerStatuses":[{{"name":"c","ready":true,"restartCount":0}}]}}}}"#
    )
}

fn list(rv: u64, cont: &str, remaining: Option<u64>, items: &[String]) -> String {
    let remaining = remaining
        .map(|r| format!(r#","remainingItemCount":{r}"#))
        .unwrap_or_default();
    format!(
        r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"{rv}","continue":"{cont}"{remaining}}},"items":[{}]}}"#,
        items.join(",")
    )
}

fn event(kind: &str, object: &str) -> String {
    format!("{{\"type\":\"{kind}\",\"object\":{object}}}\n")
}

fn bookmark(rv: u64) -> String {
    event(
        "BOOKMARK",
        &format!(
            r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"resourceVersion":"{rv}","creationTimestamp":null}},"spec":{{"containers":null}},"status":{{}}}}"#
        ),
    )
}

fn end_bookmark(rv: u64) -> String {
    event(
        "BOOKMARK",
        &format!(
            r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"resourceVersion":"{rv}","annotations":{{"k8s.io/initial-events-end":"true"}}}}}}"#
        ),
    )
}

const TOO_OLD: &str = r#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (90)","reason":"Expired","code":410}}
"#;

const TOO_LARGE: &str = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 20000, current: 10245","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}"#;

impl Harness {
    fn new(config: Config) -> Harness {
        let mirrors = [Split::ByteByByte, Split::Random(0x5eed)]
            .into_iter()
            .map(|split| Run {
                engine: Engine::new(config.clone(), Instant::ZERO),
                log: String::new(),
                in_flight: None,
                split,
            })
            .collect();
        let engine = Engine::new(config, Instant::ZERO);
        let mut h = Harness {
            engine,
            now: Instant::ZERO,
            log: String::new(),
            in_flight: None,
            mirrors,
        };
        h.drain();
        h
    }

    /// Runs `f` on the primary engine and every mirror, then drains them all.
    fn each(&mut self, f: impl Fn(&mut Run, Instant)) {
        let mut primary = Run {
            engine: std::mem::replace(
                &mut self.engine,
                Engine::new(Config::new(pods()), Instant::ZERO),
            ),
            log: std::mem::take(&mut self.log),
            in_flight: self.in_flight.take(),
            split: Split::Whole,
        };
        for run in self.mirrors.iter_mut().chain(std::iter::once(&mut primary)) {
            f(run, self.now);
            run.drain(self.now);
        }
        self.engine = primary.engine;
        self.log = primary.log;
        self.in_flight = primary.in_flight;
    }

    fn drain(&mut self) {
        self.each(|_, _| {});
    }

    fn id(&self) -> kubelive_core::RequestId {
        self.in_flight.as_ref().expect("a request in flight").id
    }

    /// A 200 with this body and a clean end.
    fn ok(&mut self, body: &str) {
        self.head(200, &[]);
        self.body(body);
        self.end();
    }

    fn head(&mut self, status: u16, headers: &[(&str, &str)]) {
        self.each(|run, now| {
            let id = run.in_flight.as_ref().expect("a request in flight").id;
            run.engine.handle_response(id, status, headers, now);
        });
    }

    fn body(&mut self, body: &str) {
        self.each(|run, now| {
            let id = run.in_flight.as_ref().expect("a request in flight").id;
            run.feed_body(id, body.as_bytes(), now);
        });
    }

    /// A clean end of the body (nothing, if the engine already gave up on it).
    fn end(&mut self) {
        self.each(|run, now| {
            if let Some(req) = run.in_flight.take() {
                run.engine.handle_end(req.id, now);
            }
        });
    }

    fn reset(&mut self) {
        self.each(|run, now| {
            let req = run.in_flight.take().expect("a request in flight");
            run.engine
                .handle_error(req.id, TransportError::Reset("unexpected EOF".into()), now);
        });
    }

    fn refused(&mut self) {
        self.each(|run, now| {
            let req = run.in_flight.take().expect("a request in flight");
            run.engine.handle_error(
                req.id,
                TransportError::Connect("connection refused".into()),
                now,
            );
        });
    }

    fn error(&mut self, status: u16, headers: &[(&str, &str)], body: &str) {
        self.head(status, headers);
        self.body(body);
        self.end();
    }

    /// Moves time forward to the engine's next deadline (if within `max_ms`).
    fn wait(&mut self, max_ms: u64) {
        if let Some(t) = self.engine.poll_timeout() {
            if t.as_millis() <= self.now.as_millis() + max_ms {
                let waited = t.as_millis() - self.now.as_millis();
                self.each(|run, _| writeln!(run.log, "(wait {waited} ms)").unwrap());
                self.now = t;
                self.each(|run, now| run.engine.handle_timeout(now));
            }
        }
    }

    fn advance(&mut self, ms: u64) {
        self.now = Instant::from_millis(self.now.as_millis() + ms);
    }

    /// The transcript so far; every mirror must have said exactly the same.
    fn take(&mut self) -> String {
        let log = std::mem::take(&mut self.log);
        for m in &mut self.mirrors {
            let mirrored = std::mem::take(&mut m.log);
            assert_eq!(
                mirrored, log,
                "feeding bodies in pieces changed the transcript"
            );
        }
        log
    }
}

fn describe(ev: &Event, now: Instant) -> String {
    let key = |o: &kubelive_core::Object| {
        let cells = match o.cells() {
            Some(cells) => format!(
                " [{}]",
                cells.map(|c| c.to_string()).collect::<Vec<_>>().join("|")
            ),
            None => String::new(),
        };
        format!(
            "{}/{} uid={} rv={}{cells}",
            o.namespace(),
            o.name(),
            o.uid(),
            o.resource_version()
        )
    };
    match ev {
        Event::Added(o) => format!("Added {}", key(o)),
        Event::Modified { old, new } => {
            format!("Modified {} (was rv={})", key(new), old.resource_version())
        }
        Event::Deleted(o) => format!("Deleted {}", key(o)),
        Event::PageListed {
            page,
            objects,
            remaining,
        } => format!("PageListed page={page} objects={objects} remaining={remaining:?}"),
        Event::Synced {
            objects,
            resource_version,
        } => format!("Synced objects={objects} rv={resource_version}"),
        Event::Resumed { resource_version } => format!("Resumed rv={resource_version}"),
        Event::Restored {
            objects,
            resource_version,
        } => format!("Restored objects={objects} rv={resource_version}"),
        Event::Relisting { reason } => format!("Relisting: {reason}"),
        Event::BackingOff { until, reason } => format!(
            "BackingOff {} ms: {reason}",
            until.as_millis() - now.as_millis()
        ),
        Event::Failed { error } => format!("Failed: {error}"),
        Event::Columns { columns } => format!(
            "Columns {}",
            columns
                .iter()
                .map(|c| if c.priority > 0 {
                    format!("{}(wide)", c.name)
                } else {
                    c.name.clone()
                })
                .collect::<Vec<_>>()
                .join(",")
        ),
        Event::TablesUnavailable { why } => format!("TablesUnavailable: {why}"),
    }
}

/// Replaces the random watch timeout so transcripts are stable across seeds.
fn stable(t: &str) -> String {
    let mut out = String::new();
    for line in t.lines() {
        let line = match line.find("timeoutSeconds=") {
            Some(i) => {
                let secs: u32 = line[i + 15..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
                    .parse()
                    .unwrap();
                if !(300..=600).contains(&secs) {
                    // A test that set its own timeout shows it.
                    out.push_str(line);
                    out.push('\n');
                    continue;
                }
                let rest: String = line[i + 15..]
                    .chars()
                    .skip_while(char::is_ascii_digit)
                    .collect();
                format!("{}timeoutSeconds=T{rest}", &line[..i])
            }
            None => line.to_string(),
        };
        // Jittered backoff: show the bucket, not the exact millisecond.
        let line = match line.find("BackingOff ") {
            Some(i) => {
                let ms: u64 = line[i + 11..].split(' ').next().unwrap().parse().unwrap();
                let rest = &line[i + 11..].split_once(" ms").unwrap().1;
                format!(
                    "{}BackingOff ~{}s{rest}",
                    &line[..i],
                    (ms as f64 / 1000.0).round()
                )
            }
            None => line,
        };
        let line = match line.find("(wait ") {
            Some(_) => "(wait)".to_string(),
            None => line,
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn check(h: &mut Harness, expected: &str) {
    let got = stable(&h.take());
    let want: String = expected
        .lines()
        .map(|l| l.strip_prefix("        ").unwrap_or(l))
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(got, want, "\n--- got ---\n{got}--- want ---\n{want}");
}

#[test]
fn list_one_page_then_watch_applies_events() {
    let mut h = Harness::new(config(Mode::ListWatch));
    h.ok(&list(
        10,
        "",
        None,
        &[pod("a", "p1", "u1", 5), pod("b", "p2", "u2", 7)],
    ));
    h.head(200, &[]);
    h.body(&event("MODIFIED", &pod("a", "p1", "u1", 11)));
    h.body(&event("ADDED", &pod("a", "p3", "u3", 12)));
    h.body(&event("DELETED", &pod("b", "p2", "u2", 13)));
    h.body(&bookmark(14));
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500
          Added a/p1 uid=u1 rv=5
          Added b/p2 uid=u2 rv=7
          PageListed page=1 objects=2 remaining=None
          Synced objects=2 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
          Modified a/p1 uid=u1 rv=11 (was rv=5)
          Added a/p3 uid=u3 rv=12
          Deleted b/p2 uid=u2 rv=13
        ",
    );
    let s = h.engine.status();
    assert_eq!(s.phase, Phase::Watching);
    assert!(s.synced && s.connected);
    assert_eq!(s.resource_version.unwrap().as_str(), "14");
    assert_eq!(
        (s.objects, s.added, s.modified, s.deleted, s.bookmarks),
        (2, 3, 1, 1, 1)
    );
    assert_eq!(s.last_bookmark_at, Some(Instant::ZERO));
}

#[test]
fn paginated_list_follows_continue_with_the_same_filters() {
    let mut c = config(Mode::ListWatch);
    c.page_size = 2;
    c.label_selector = Some("app=web,tier!=db".into());
    c.collection = c.collection.clone().with_namespace(Some("a"));
    let mut h = Harness::new(c);
    h.ok(&list(
        20,
        "tok1",
        Some(3),
        &[pod("a", "p1", "u1", 1), pod("a", "p2", "u2", 2)],
    ));
    h.ok(&list(
        20,
        "tok2",
        Some(1),
        &[pod("a", "p3", "u3", 3), pod("a", "p4", "u4", 4)],
    ));
    h.ok(&list(20, "", None, &[pod("a", "p5", "u5", 5)]));
    check(
        &mut h,
        "
        GET /api/v1/namespaces/a/pods?labelSelector=app%3Dweb%2Ctier%21%3Ddb&limit=2
          Added a/p1 uid=u1 rv=1
          Added a/p2 uid=u2 rv=2
          PageListed page=1 objects=2 remaining=Some(3)
        GET /api/v1/namespaces/a/pods?labelSelector=app%3Dweb%2Ctier%21%3Ddb&limit=2&continue=tok1
          Added a/p3 uid=u3 rv=3
          Added a/p4 uid=u4 rv=4
          PageListed page=2 objects=4 remaining=Some(1)
        GET /api/v1/namespaces/a/pods?labelSelector=app%3Dweb%2Ctier%21%3Ddb&limit=2&continue=tok2
          Added a/p5 uid=u5 rv=5
          PageListed page=3 objects=5 remaining=None
          Synced objects=5 rv=20
        GET /api/v1/namespaces/a/pods?labelSelector=app%3Dweb%2Ctier%21%3Ddb&watch=true&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
    assert_eq!(h.engine.status().pages_listed, 3);
}

/// A list in pages of two, its first page applied: it says `remaining` items follow.
fn first_page_saying(remaining: u64) -> Harness {
    let mut c = config(Mode::ListWatch);
    c.page_size = 2;
    let mut h = Harness::new(c);
    h.ok(&list(
        20,
        "tok1",
        Some(remaining),
        &[pod("a", "p1", "u1", 1), pod("a", "p2", "u2", 2)],
    ));
    h
}

#[test]
fn a_list_whose_size_the_server_tells_gets_a_store_made_for_it_at_its_first_page() {
    let mut h = first_page_saying(5_000);
    let room = h.engine.store().capacity();
    assert!(room >= 5_002, "room for {room}");
    // The rest of the list fills it without growing it again.
    h.ok(&list(20, "", None, &[pod("a", "p3", "u3", 3)]));
    assert_eq!(h.engine.store().capacity(), room);
    assert_eq!(h.engine.store().len(), 3);
}

#[test]
fn a_remaining_count_beyond_belief_sizes_the_store_no_further_than_a_bound() {
    let mut h = first_page_saying(u64::MAX);
    let room = h.engine.store().capacity();
    assert!((2..1 << 23).contains(&room), "room for {room}");
    h.ok(&list(20, "", None, &[pod("a", "p3", "u3", 3)]));
    assert!(h.engine.status().synced);
    assert_eq!(h.engine.store().len(), 3);
}

/// The `limit` of each LIST request in the log, in order.
fn list_limits(log: &str) -> Vec<String> {
    log.lines()
        .filter(|l| l.starts_with("GET") && !l.contains("watch=true"))
        .map(|l| {
            let limit = l.split("limit=").nth(1).unwrap_or("-");
            limit.split('&').next().unwrap_or("-").to_string()
        })
        .collect()
}

/// Pages after the first double up to `max_page_size` (the first page stays small for
/// a quick first screen); a relist starts again at the first page's size.
#[test]
fn later_pages_double_up_to_the_maximum_and_a_relist_starts_small_again() {
    let mut c = config(Mode::ListWatch);
    c.page_size = 2;
    c.max_page_size = 6;
    let mut h = Harness::new(c);
    let pods: Vec<String> = (1..=13)
        .map(|i| pod("a", &format!("p{i:02}"), &format!("u{i}"), i))
        .collect();
    h.ok(&list(20, "tok1", None, &pods[0..2]));
    h.ok(&list(20, "tok2", None, &pods[2..6]));
    h.ok(&list(20, "tok3", None, &pods[6..12]));
    h.ok(&list(20, "", None, &pods[12..13]));
    h.error(410, &[], r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old","reason":"Expired","code":410}"#);
    h.ok(&list(40, "tok4", None, &pods[0..2]));
    let log = std::mem::take(&mut h.log);
    assert_eq!(list_limits(&log), ["2", "4", "6", "6", "2", "4"], "\n{log}");
}

/// Pages grow only as far as half a document's limit holds at the bytes per item
/// seen: big objects keep pages at the size set.
#[test]
fn pages_grow_only_as_far_as_the_bytes_per_item_allow() {
    let pods: Vec<String> = (1..=30)
        .map(|i| pod("a", &format!("p{i:02}"), &format!("u{i}"), i))
        .collect();
    // Half of ten pods' bytes holds four pods and the list around them, not five.
    let ten = 10 * pods[0].len();
    for (max_document_bytes, want) in [
        (1 << 20, ["2", "4", "8", "8"]),
        (ten, ["2", "4", "4", "4"]),
        (3 * pods[0].len(), ["2", "2", "2", "2"]),
    ] {
        let mut c = config(Mode::ListWatch);
        c.page_size = 2;
        c.max_page_size = 8;
        c.limits.max_document_bytes = max_document_bytes;
        let mut h = Harness::new(c);
        let mut at = 0;
        for (page, token) in ["tok1", "tok2", "tok3", ""].iter().enumerate() {
            let n = [2, 4, 4, 4][page];
            h.ok(&list(20, token, None, &pods[at..at + n]));
            at += n;
        }
        let log = std::mem::take(&mut h.log);
        assert_eq!(
            list_limits(&log),
            want,
            "document limit {max_document_bytes}\n{log}"
        );
    }
}

#[test]
fn clean_end_resumes_from_last_seen_version_without_relisting() {
    let mut h = Harness::new(config(Mode::ListWatch));
    h.ok(&list(10, "", None, &[pod("a", "p1", "u1", 5)]));
    h.head(200, &[]);
    h.body(&event("MODIFIED", &pod("a", "p1", "u1", 11)));
    h.advance(30_000);
    h.end();
    h.head(200, &[]);
    // No bookmarks at all: the resume point is the last event's version.
    h.advance(30_000);
    h.end();
    h.head(200, &[]);
    h.body(&bookmark(40));
    h.advance(30_000);
    h.end();
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500
          Added a/p1 uid=u1 rv=5
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
          Modified a/p1 uid=u1 rv=11 (was rv=5)
        GET /api/v1/pods?watch=true&resourceVersion=11&allowWatchBookmarks=true&timeoutSeconds=T
          Resumed rv=11
        GET /api/v1/pods?watch=true&resourceVersion=11&allowWatchBookmarks=true&timeoutSeconds=T
          Resumed rv=11
        GET /api/v1/pods?watch=true&resourceVersion=40&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
    let s = h.engine.status();
    assert_eq!((s.resumes, s.relists, s.errors), (2, 0, 0));
}

#[test]
fn expired_watch_relists_from_most_recent_and_diffs_the_store() {
    let mut h = Harness::new(config(Mode::ListWatch));
    h.ok(&list(
        10,
        "",
        None,
        &[
            pod("a", "keep", "u1", 5),
            pod("a", "change", "u2", 6),
            pod("a", "gone", "u3", 7),
            pod("a", "recreated", "u4", 8),
        ],
    ));
    h.head(200, &[]);
    let watch = h.id();
    h.body(TOO_OLD);
    // Whatever follows an ERROR on the same stream is not applied.
    let ghost = event("ADDED", &pod("a", "ghost", "u9", 99));
    h.engine.handle_body(watch, ghost.as_bytes(), h.now);
    h.engine.handle_end(watch, h.now);
    h.drain();
    h.ok(&list(
        90,
        "",
        None,
        &[
            pod("a", "change", "u2", 60),
            pod("a", "keep", "u1", 5),
            pod("a", "new", "u5", 70),
            pod("a", "recreated", "u6", 80),
        ],
    ));
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500
          Added a/keep uid=u1 rv=5
          Added a/change uid=u2 rv=6
          Added a/gone uid=u3 rv=7
          Added a/recreated uid=u4 rv=8
          PageListed page=1 objects=4 remaining=None
          Synced objects=4 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
        cancel #2
          Relisting: version expired: too old resource version: 5 (90)
        GET /api/v1/pods?limit=500
          Modified a/change uid=u2 rv=60 (was rv=6)
          Added a/new uid=u5 rv=70
          Deleted a/recreated uid=u4 rv=8
          Added a/recreated uid=u6 rv=80
          PageListed page=1 objects=4 remaining=None
          Deleted a/gone uid=u3 rv=7
          Synced objects=4 rv=90
        GET /api/v1/pods?watch=true&resourceVersion=90&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
    assert_eq!(h.engine.store().len(), 4);
    assert!(h.engine.store().get("a", "gone").is_none());
    assert_eq!(h.engine.status().relists, 1);
}

#[test]
fn http_410_on_watch_also_relists_and_a_second_410_in_a_row_backs_off() {
    let mut h = Harness::new(config(Mode::ListWatch));
    h.ok(&list(10, "", None, &[]));
    h.error(410, &[], r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"The resourceVersion for the provided watch is too old.","reason":"Expired","code":410}"#);
    h.ok(&list(20, "", None, &[]));
    h.error(
        410,
        &[],
        r#"{"kind":"Status","status":"Failure","message":"too old","reason":"Gone","code":410}"#,
    );
    h.wait(5_000);
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500
          PageListed page=1 objects=0 remaining=None
          Synced objects=0 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
          Relisting: version expired: The resourceVersion for the provided watch is too old.
        GET /api/v1/pods?limit=500
          PageListed page=1 objects=0 remaining=None
          Synced objects=0 rv=20
        GET /api/v1/pods?watch=true&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=T
          Relisting: version expired: too old
          BackingOff ~1s: version expired: too old
        (wait)
        GET /api/v1/pods?limit=500
        ",
    );
}

#[test]
fn expired_continue_token_restarts_with_one_whole_list() {
    let mut c = config(Mode::ListWatch);
    c.page_size = 1;
    let mut h = Harness::new(c);
    h.ok(&list(20, "tok1", Some(1), &[pod("a", "p1", "u1", 1)]));
    h.error(410, &[], r#"{"kind":"Status","apiVersion":"v1","metadata":{"continue":"inconsistent"},"status":"Failure","message":"The provided continue parameter is too old to display a consistent list result.","reason":"Expired","code":410}"#);
    // The paginated list is slower than the history window: the restart is one
    // unpaginated (but still streamed) request, which cannot expire midway.
    h.ok(&list(
        30,
        "",
        None,
        &[pod("a", "p2", "u2", 25), pod("a", "p3", "u3", 26)],
    ));
    // Once synced, later relists paginate again.
    h.head(200, &[]);
    h.body(TOO_OLD);
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=1
          Added a/p1 uid=u1 rv=1
          PageListed page=1 objects=1 remaining=Some(1)
        GET /api/v1/pods?limit=1&continue=tok1
          Relisting: continue token expired: The provided continue parameter is too old to display a consistent list result.
        GET /api/v1/pods
          Added a/p2 uid=u2 rv=25
          Added a/p3 uid=u3 rv=26
          PageListed page=1 objects=2 remaining=None
          Deleted a/p1 uid=u1 rv=1
          Synced objects=2 rv=30
        GET /api/v1/pods?watch=true&resourceVersion=30&allowWatchBookmarks=true&timeoutSeconds=T
        cancel #4
          Relisting: version expired: too old resource version: 5 (90)
          BackingOff ~1s: version expired: too old resource version: 5 (90)
        ",
    );
}

#[test]
fn a_retried_first_page_is_a_new_snapshot() {
    let mut h = Harness::new(config(Mode::ListWatch));
    // Page one is cut after delivering p1; p1 is deleted before the retry.
    h.head(200, &[]);
    let page = list(
        10,
        "",
        None,
        &[pod("a", "p1", "u1", 5), pod("a", "p2", "u2", 6)],
    );
    let cut = page
        .find(r#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p2""#)
        .unwrap()
        + 10;
    h.body(&page[..cut]);
    h.reset();
    h.wait(5_000);
    h.ok(&list(12, "", None, &[pod("a", "p2", "u2", 6)]));
    let t = stable(&h.take());
    assert!(
        t.contains("  Deleted a/p1 uid=u1 rv=5\n  Synced objects=1 rv=12\n"),
        "{t}"
    );
    assert!(h.engine.store().get("a", "p1").is_none());
}

#[test]
fn too_large_version_waits_retry_after_then_relists_after_bounded_tries() {
    let mut c = config(Mode::ListWatch);
    c.page_size = 1;
    c.too_large_retries = 2;
    let mut h = Harness::new(c);
    h.ok(&list(20, "tok1", Some(1), &[pod("a", "p1", "u1", 1)]));
    h.error(504, &[("Retry-After", "1")], TOO_LARGE);
    h.wait(60_000);
    h.error(504, &[("retry-after", "3")], TOO_LARGE);
    h.wait(60_000);
    h.error(504, &[], TOO_LARGE);
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=1
          Added a/p1 uid=u1 rv=1
          PageListed page=1 objects=1 remaining=Some(1)
        GET /api/v1/pods?limit=1&continue=tok1
          BackingOff ~1s: Timeout: Too large resource version: 20000, current: 10245 (504 Timeout)
        (wait)
        GET /api/v1/pods?limit=1&continue=tok1
          BackingOff ~3s: Timeout: Too large resource version: 20000, current: 10245 (504 Timeout)
        (wait)
        GET /api/v1/pods?limit=1&continue=tok1
          Relisting: server behind our version: Timeout: Too large resource version: 20000, current: 10245
        GET /api/v1/pods?limit=1
        ",
    );
}

#[test]
fn streaming_list_syncs_at_the_end_bookmark_and_resumes_with_a_plain_watch() {
    let mut h = Harness::new(config(Mode::StreamingList));
    h.head(200, &[]);
    h.body(&event("ADDED", &pod("a", "p1", "u1", 5)));
    h.body(&event("ADDED", &pod("a", "p2", "u2", 9)));
    // A plain bookmark before the end mark must not be taken as the sync point.
    h.body(&bookmark(9));
    assert_eq!(h.engine.status().phase, Phase::InitialEvents);
    assert!(h.engine.status().resource_version.is_none());
    h.body(&end_bookmark(12));
    h.body(&event("DELETED", &pod("a", "p1", "u1", 13)));
    h.advance(400_000);
    h.end();
    h.head(200, &[]);
    check(
        &mut h,
        "
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T
          Added a/p1 uid=u1 rv=5
          Added a/p2 uid=u2 rv=9
          Synced objects=2 rv=12
          Deleted a/p1 uid=u1 rv=13
        GET /api/v1/pods?watch=true&resourceVersion=13&allowWatchBookmarks=true&timeoutSeconds=T
          Resumed rv=13
        ",
    );
    // The server sent a bookmark, so it sends them: a watch silent for 150 s is on a
    // dead connection (that deadline comes before timeoutSeconds plus its grace).
    assert_eq!(
        h.engine.poll_timeout(),
        Some(Instant::from_millis(400_000 + 150_000))
    );
}

#[test]
fn streaming_list_whose_initial_events_stall_lists_this_sync_and_streams_the_next() {
    let mut h = Harness::new(config(Mode::StreamingList));
    h.head(200, &[]);
    h.advance(20_000);
    h.body(&event("ADDED", &pod("a", "p1", "u1", 5)));
    // The deadline is on progress: 30 s after the last byte, not from the start.
    assert_eq!(h.engine.poll_timeout(), Some(Instant::from_millis(50_000)));
    h.wait(60_000);
    h.ok(&list(20, "", None, &[pod("a", "p1", "u1", 5)]));
    h.head(200, &[]);
    h.body(&bookmark(21));
    h.body(TOO_OLD);
    check(
        &mut h,
        "
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T
          Added a/p1 uid=u1 rv=5
        (wait)
        cancel #1
          Relisting: streaming list unavailable, using LIST+WATCH: the initial events stalled for 30 s
        GET /api/v1/pods?limit=500
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=20
        GET /api/v1/pods?watch=true&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=T
        cancel #3
          Relisting: version expired: too old resource version: 5 (90)
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=21&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
    let s = h.engine.status();
    assert_eq!(s.mode, Mode::StreamingList);
    assert!(s.fell_back.is_some());
    // This sync streams: once it ends, nothing fell back.
    h.head(200, &[]);
    h.body(&end_bookmark(95));
    assert!(h.engine.status().fell_back.is_none());
}

#[test]
fn live_events_before_the_end_bookmark_are_applied_and_the_sync_waits_for_it() {
    // Before 1.32 (kubernetes #127012) the end bookmark came from the cacher's bookmark
    // timer once the watch had caught up: live events could legally come first. They
    // change the list being built; the sync completes at the bookmark.
    let mut h = Harness::new(config(Mode::StreamingList));
    h.head(200, &[]);
    h.body(&event("ADDED", &pod("a", "p1", "u1", 5)));
    h.body(&event("ADDED", &pod("a", "p2", "u2", 6)));
    h.body(&event("MODIFIED", &pod("a", "p1", "u1", 7)));
    h.body(&event("DELETED", &pod("a", "p2", "u2", 8)));
    h.body(&event("ADDED", &pod("a", "p3", "u3", 9)));
    h.body(&event("MODIFIED", &pod("a", "p1", "u1", 10)));
    assert_eq!(h.engine.status().phase, Phase::InitialEvents);
    h.advance(900);
    h.body(&end_bookmark(10));
    h.body(&event("MODIFIED", &pod("a", "p3", "u3", 11)));
    check(
        &mut h,
        "
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T
          Added a/p1 uid=u1 rv=5
          Added a/p2 uid=u2 rv=6
          Modified a/p1 uid=u1 rv=7 (was rv=5)
          Deleted a/p2 uid=u2 rv=8
          Added a/p3 uid=u3 rv=9
          Modified a/p1 uid=u1 rv=10 (was rv=7)
          Synced objects=2 rv=10
          Modified a/p3 uid=u3 rv=11 (was rv=9)
        ",
    );
    let s = h.engine.status();
    assert_eq!(s.phase, Phase::Watching);
    assert_eq!((s.relists, s.fell_back), (0, None));
}

#[test]
fn a_busy_server_that_ignores_send_initial_events_is_caught_10_s_after_its_first_live_event() {
    // It serves a plain watch from "": synthetic ADDED for the current state, then live
    // events, never the end bookmark. Bytes keep coming, so the stall deadline never
    // passes: 10 s after the first live event without an end bookmark, the sync lists.
    let mut h = Harness::new(config(Mode::StreamingList));
    h.head(200, &[]);
    h.body(&event("ADDED", &pod("a", "p1", "u1", 5)));
    h.advance(1_000);
    h.body(&event("MODIFIED", &pod("a", "p1", "u1", 6)));
    for rv in 7..12 {
        h.advance(2_000);
        h.body(&event("MODIFIED", &pod("a", "p1", "u1", rv)));
    }
    assert_eq!(h.engine.poll_timeout(), Some(Instant::from_millis(11_000)));
    h.wait(10_000);
    h.ok(&list(20, "", None, &[pod("a", "p1", "u1", 12)]));
    let t = stable(&h.take());
    assert!(
        t.ends_with(
            "  Modified a/p1 uid=u1 rv=11 (was rv=10)
(wait)
cancel #1
  Relisting: streaming list unavailable, using LIST+WATCH: no initial-events-end bookmark within 10 s of the first live event or bookmark: the server ignores sendInitialEvents
GET /api/v1/pods?limit=500
  Modified a/p1 uid=u1 rv=12 (was rv=11)
  PageListed page=1 objects=1 remaining=None
  Synced objects=1 rv=20
GET /api/v1/pods?watch=true&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=T
"
        ),
        "{t}"
    );
}

#[test]
fn a_plain_bookmark_during_the_initial_events_gives_the_end_bookmark_10_s() {
    // A quiet collection on a server that ignores sendInitialEvents: its watch cache
    // sends plain bookmarks, which keep the stall deadline away. The first one starts
    // the wait for the end bookmark.
    let mut h = Harness::new(config(Mode::StreamingList));
    h.head(200, &[]);
    h.body(&event("ADDED", &pod("a", "p1", "u1", 5)));
    h.advance(20_000);
    h.body(&bookmark(6));
    h.advance(5_000);
    h.body(&bookmark(6));
    assert_eq!(h.engine.poll_timeout(), Some(Instant::from_millis(30_000)));
    h.wait(10_000);
    let t = stable(&h.take());
    assert!(
        t.ends_with("Relisting: streaming list unavailable, using LIST+WATCH: no initial-events-end bookmark within 10 s of the first live event or bookmark: the server ignores sendInitialEvents\nGET /api/v1/pods?limit=500\n"),
        "{t}"
    );
}

#[test]
fn a_streaming_list_refused_because_the_gate_is_off_is_no_error() {
    // 1.27-1.31 and 1.33 refuse streaming lists (the WatchList gate is off by default):
    // that is what the server can do, said in `fell_back`, not an error to count.
    let mut h = Harness::new(config(Mode::StreamingList));
    h.error(422, &[], r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled","reason":"Invalid","code":422}"#);
    let _ = h.take();
    let s = h.engine.status();
    assert_eq!(s.errors, 0, "{s:?}");
    assert_eq!(s.last_error, None);
    assert!(
        s.fell_back
            .as_deref()
            .is_some_and(|w| w.contains("WatchList feature gate")),
        "{s:?}"
    );
}

#[test]
fn streaming_list_rejected_with_422_falls_back_to_list_watch() {
    let mut h = Harness::new(config(Mode::StreamingList));
    h.error(422, &[], r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled","reason":"Invalid","code":422}"#);
    check(
        &mut h,
        "
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T
          Relisting: streaming list unavailable, using LIST+WATCH: ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled
        GET /api/v1/pods?limit=500
        ",
    );
}

#[test]
fn streaming_list_interrupted_before_sync_finishes_with_a_list_then_streams_again() {
    let mut h = Harness::new(config(Mode::StreamingList));
    h.head(200, &[]);
    h.body(&event("ADDED", &pod("a", "p1", "u1", 5)));
    h.body(&event("ADDED", &pod("a", "p2", "u2", 6)));
    h.advance(5_000);
    h.end();
    // Consumers were shown part of that snapshot. A LIST is a consistent read: unlike a
    // restarted streaming list on a server that ignores sendInitialEvents (or on
    // another apiserver whose cache lags), it cannot show older state than they saw.
    h.ok(&list(30, "", None, &[pod("a", "p2", "u2", 6)]));
    h.head(200, &[]);
    h.body(&bookmark(31));
    h.body(TOO_OLD);
    check(
        &mut h,
        "
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T
          Added a/p1 uid=u1 rv=5
          Added a/p2 uid=u2 rv=6
          Relisting: streaming list ended before its initial events were complete
        GET /api/v1/pods?limit=500
          PageListed page=1 objects=1 remaining=None
          Deleted a/p1 uid=u1 rv=5
          Synced objects=1 rv=30
        GET /api/v1/pods?watch=true&resourceVersion=30&allowWatchBookmarks=true&timeoutSeconds=T
        cancel #3
          Relisting: version expired: too old resource version: 5 (90)
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=31&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
    assert_eq!(h.engine.status().mode, Mode::StreamingList);
    // That relist asks for state not older than what consumers saw (rv 31): a server
    // that answers it with a 410 ignored sendInitialEvents (a plain watch from 31).
    h.head(200, &[]);
    h.body(TOO_OLD);
    let t = stable(&h.take());
    assert!(
        t.ends_with("Relisting: streaming list unavailable, using LIST+WATCH: the server took the streaming list for a plain watch (too old resource version: 5 (90))\nGET /api/v1/pods?limit=500\n"),
        "{t}"
    );
    // For this sync only: the next one streams again (client-go's rule).
    assert_eq!(h.engine.status().mode, Mode::StreamingList);
    assert!(h.engine.status().fell_back.is_some());
    h.ok(&list(40, "", None, &[pod("a", "p2", "u2", 6)]));
    h.head(200, &[]);
    h.body(&bookmark(41));
    h.body(TOO_OLD);
    let t = stable(&h.take());
    assert!(
        t.ends_with("GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=41&allowWatchBookmarks=true&timeoutSeconds=T\n"),
        "{t}"
    );
}

#[test]
fn a_streaming_list_broken_before_it_showed_anything_streams_again_at_once() {
    // A connection that breaks before any initial event is no reason for a LIST
    // (client-go's reflector streams again): nothing was shown, and the next attempt
    // asks for state not older than the last sync's, as this one did.
    let mut h = Harness::new(config(Mode::StreamingList));
    h.head(200, &[]);
    h.body(&end_bookmark(30));
    h.body(&bookmark(31));
    h.body(TOO_OLD);
    h.head(200, &[]);
    h.advance(2_000);
    h.reset();
    h.head(200, &[]);
    h.body(&bookmark(32));
    h.end();
    check(
        &mut h,
        "
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T
          Synced objects=0 rv=30
        cancel #1
          Relisting: version expired: too old resource version: 5 (90)
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=31&allowWatchBookmarks=true&timeoutSeconds=T
          Relisting: streaming list ended before its initial events were complete
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=31&allowWatchBookmarks=true&timeoutSeconds=T
          Relisting: streaming list ended before its initial events were complete
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=31&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
    assert_eq!(h.engine.status().fell_back, None);
}

#[test]
fn a_streaming_list_throttled_refused_or_failing_streams_again_after_a_backoff() {
    // 429 (a watch cache initializing answers it with Retry-After), a refused
    // connection, a 5xx: retrying fixes them, and a LIST is the expensive request at
    // the worst moment. Back off (honouring Retry-After) and stream again.
    let mut h = Harness::new(config(Mode::StreamingList));
    h.error(
        429,
        &[("Retry-After", "5")],
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"storage is (re)initializing","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}"#,
    );
    h.wait(60_000);
    h.refused();
    h.wait(60_000);
    h.error(503, &[], "upstream connect error\n");
    h.wait(60_000);
    // Cut right after its head: nothing came of it either.
    h.head(200, &[]);
    h.reset();
    h.wait(60_000);
    h.head(200, &[]);
    h.body(&event("ADDED", &pod("a", "p1", "u1", 5)));
    h.body(&end_bookmark(12));
    check(
        &mut h,
        "
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T
          BackingOff ~5s: storage is (re)initializing (429 TooManyRequests)
        (wait)
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T
          BackingOff ~2s: cannot connect: connection refused
        (wait)
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T
          BackingOff ~3s: HTTP 503: upstream connect error (503)
        (wait)
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T
          BackingOff ~8s: connection lost: unexpected EOF
        (wait)
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T
          Added a/p1 uid=u1 rv=5
          Synced objects=1 rv=12
        ",
    );
    let s = h.engine.status();
    assert_eq!((s.errors, s.relists, s.pages_listed), (4, 0, 0));
    assert_eq!(s.fell_back, None);
}

#[test]
fn selector_transitions_and_recreation_with_a_new_uid() {
    let mut c = config(Mode::ListWatch);
    c.label_selector = Some("app=web".into());
    let mut h = Harness::new(c);
    h.ok(&list(10, "", None, &[pod("a", "p1", "u1", 5)]));
    h.head(200, &[]);
    // Stops matching: DELETED; starts matching again: ADDED.
    h.body(&event("DELETED", &pod("a", "p1", "u1", 11)));
    h.body(&event("ADDED", &pod("a", "p1", "u1", 12)));
    // Same name, new uid, without a DELETED in between (e.g. across a missed window).
    h.body(&event("ADDED", &pod("a", "p1", "u2", 13)));
    // MODIFIED for an object not held is an add; DELETED for one not held is nothing.
    h.body(&event("MODIFIED", &pod("a", "p9", "u9", 14)));
    // A repeat of the held version tells nobody anything.
    h.body(&event("MODIFIED", &pod("a", "p9", "u9", 14)));
    h.body(&event("DELETED", &pod("a", "never", "u8", 15)));
    check(
        &mut h,
        "
        GET /api/v1/pods?labelSelector=app%3Dweb&limit=500
          Added a/p1 uid=u1 rv=5
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=10
        GET /api/v1/pods?labelSelector=app%3Dweb&watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
          Deleted a/p1 uid=u1 rv=11
          Added a/p1 uid=u1 rv=12
          Deleted a/p1 uid=u1 rv=12
          Added a/p1 uid=u2 rv=13
          Added a/p9 uid=u9 rv=14
        ",
    );
    assert_eq!(h.engine.status().resource_version.unwrap().as_str(), "15");
}

#[test]
fn auth_errors_fail_clearly_and_retry_slowly() {
    let mut h = Harness::new(config(Mode::ListWatch));
    h.error(403, &[], r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods is forbidden: User \"system:anonymous\" cannot list resource \"pods\" in API group \"\" at the cluster scope","reason":"Forbidden","details":{"kind":"pods"},"code":403}"#);
    h.wait(60_000);
    h.error(401, &[], r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}"#);
    h.wait(60_000);
    h.error(404, &[], "404 page not found\n");
    check(
        &mut h,
        r#"
        GET /api/v1/pods?limit=500
          Failed: pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" at the cluster scope (403 Forbidden)
          BackingOff ~10s: pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" at the cluster scope (403 Forbidden)
        (wait)
        GET /api/v1/pods?limit=500
          Failed: Unauthorized (401 Unauthorized)
          BackingOff ~10s: Unauthorized (401 Unauthorized)
        (wait)
        GET /api/v1/pods?limit=500
          Failed: HTTP 404: 404 page not found (404)
          BackingOff ~10s: HTTP 404: 404 page not found (404)
        "#,
    );
}

#[test]
fn proxy_errors_html_bodies_and_broken_connections_back_off_exponentially() {
    let mut h = Harness::new(config(Mode::ListWatch));
    // kubectl proxy when the apiserver is unreachable.
    h.error(
        500,
        &[],
        "dial tcp 127.0.0.1:6443: connect: connection refused\n",
    );
    h.wait(60_000);
    h.error(429, &[("Retry-After", "5")], r#"{"kind":"Status","status":"Failure","message":"Too many requests, please try again later.","reason":"TooManyRequests","code":429}"#);
    h.wait(60_000);
    // An HTML page with a 200: a decoding error, not a crash.
    h.ok("<html><body>Login required</body></html>");
    h.wait(60_000);
    // The list succeeds: that progress ends the streak. Then the watch breaks at once,
    // twice at the same version with nothing delivered: the backoff grows again.
    h.ok(&list(10, "", None, &[pod("a", "p1", "u1", 5)]));
    h.head(200, &[]);
    h.body("{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"metad");
    h.reset();
    h.wait(60_000);
    h.head(200, &[]);
    h.body("{\"type\":\"MODIFIED\",\"object\":{oops}}\n");
    h.wait(60_000);
    let id = h.id();
    check(
        &mut h,
        r#"
        GET /api/v1/pods?limit=500
          BackingOff ~1s: HTTP 500: dial tcp 127.0.0.1:6443: connect: connection refused (500)
        (wait)
        GET /api/v1/pods?limit=500
          BackingOff ~5s: Too many requests, please try again later. (429 TooManyRequests)
        (wait)
        GET /api/v1/pods?limit=500
          BackingOff ~3s: bad response: the server sent something that is not JSON: "<html><body>Login required</body></html>"
        (wait)
        GET /api/v1/pods?limit=500
          Added a/p1 uid=u1 rv=5
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
          BackingOff ~1s: connection lost: unexpected EOF
        (wait)
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
          Resumed rv=10
        cancel #6
          BackingOff ~2s: bad response: malformed JSON at byte 29: expected a key string
        (wait)
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
        "#,
    );
    // Late bytes from an abandoned request change nothing.
    h.engine
        .handle_body(kubelive_core::RequestId(5), b"garbage", h.now);
    h.engine.handle_end(kubelive_core::RequestId(5), h.now);
    h.drain();
    assert_eq!(h.take(), "");
    assert_eq!(h.id(), id);
    assert_eq!(h.engine.store().len(), 1);
}

#[test]
fn a_watch_that_closes_at_once_with_nothing_backs_off_instead_of_looping() {
    let mut h = Harness::new(config(Mode::ListWatch));
    h.ok(&list(10, "", None, &[]));
    h.ok("");
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500
          PageListed page=1 objects=0 remaining=None
          Synced objects=0 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
          BackingOff ~1s: the watch ended at once without events
        ",
    );
}

#[test]
fn resource_version_zero_only_when_asked_and_only_for_the_first_list() {
    let mut c = config(Mode::ListWatch);
    c.initial_list_any_version = true;
    let mut h = Harness::new(c);
    h.ok(&list(10, "", None, &[]));
    h.head(200, &[]);
    h.body(TOO_OLD);
    let log = h.take();
    let gets: Vec<&str> = log.lines().filter(|l| l.starts_with("GET")).collect();
    assert_eq!(
        gets,
        [
            "GET /api/v1/pods?limit=500&resourceVersion=0",
            gets[1],
            "GET /api/v1/pods?limit=500"
        ]
    );
    // And never by default.
    let mut h = Harness::new(config(Mode::ListWatch));
    h.ok(&list(10, "", None, &[]));
    assert!(!h.take().contains("resourceVersion=0"));
}

#[test]
fn stop_cancels_and_goes_quiet() {
    let mut h = Harness::new(config(Mode::ListWatch));
    h.each(|run, _| run.engine.stop());
    assert_eq!(h.take(), "GET /api/v1/pods?limit=500\ncancel #1\n");
    assert_eq!(h.engine.status().phase, Phase::Stopped);
    assert_eq!(h.engine.poll_timeout(), None);
}

#[test]
fn status_reports_the_resume_point_while_backing_off() {
    let mut h = Harness::new(config(Mode::ListWatch));
    h.ok(&list(10, "", None, &[]));
    h.head(200, &[]);
    h.body(&event("ADDED", &pod("a", "p1", "u1", 11)));
    // After progress a reset resumes at once; the next watch breaks with nothing.
    h.reset();
    h.head(200, &[]);
    h.reset();
    let s = h.engine.status();
    assert!(matches!(s.phase, Phase::BackingOff { .. }));
    assert_eq!(s.resource_version.unwrap().as_str(), "11");
    assert!(!s.connected);
    assert_eq!(s.last_byte_at, None);
    assert_eq!(s.errors, 2);
    assert_eq!(
        s.last_error.as_deref(),
        Some("connection lost: unexpected EOF")
    );
}

#[test]
fn frames_after_an_in_stream_error_never_reach_the_next_request() {
    // A streaming list syncs p1 and p2; on the watch, one chunk brings an ERROR 410 and,
    // after it on the same stream, a stale event for p1. The 410 starts a new streaming
    // list at once: the stale event belongs to the old request and must not count as an
    // initial event of the new one (it would survive the new list's sweep as a phantom
    // of an object the server deleted).
    let mut h = Harness::new(config(Mode::StreamingList));
    h.head(200, &[]);
    h.body(&event("ADDED", &pod("a", "p1", "u1", 5)));
    h.body(&event("ADDED", &pod("a", "p2", "u2", 6)));
    h.body(&end_bookmark(10));
    h.body(&format!(
        "{TOO_OLD}{}",
        event("MODIFIED", &pod("a", "p1", "u1", 11))
    ));
    h.head(200, &[]);
    h.body(&event("ADDED", &pod("a", "p2", "u2", 6)));
    h.body(&end_bookmark(95));
    check(
        &mut h,
        "
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T
          Added a/p1 uid=u1 rv=5
          Added a/p2 uid=u2 rv=6
          Synced objects=2 rv=10
        cancel #1
          Relisting: version expired: too old resource version: 5 (90)
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
          Deleted a/p1 uid=u1 rv=5
          Synced objects=1 rv=95
        ",
    );
    assert!(h.engine.store().get("a", "p1").is_none(), "a phantom p1");
}

#[test]
fn an_abrupt_end_after_progress_rewatches_at_once_and_only_fruitless_repeats_escalate() {
    // A flaky proxy cuts every watch about once a second, after it delivered events:
    // mid-document, after an HTML error page, after a truncated line. Each of those
    // watches made progress, so each is resumed at once from its last version (as
    // client-go does). Only failures that deliver nothing, at the same version, back
    // off, and their backoff grows; progress ends the streak.
    let mut h = Harness::new(config(Mode::ListWatch));
    h.ok(&list(10, "", None, &[pod("a", "p1", "u1", 5)]));
    h.head(200, &[]);
    h.body(&event("MODIFIED", &pod("a", "p1", "u1", 11)));
    h.body("{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Po");
    h.reset();
    h.head(200, &[]);
    h.body(&event("MODIFIED", &pod("a", "p1", "u1", 12)));
    h.body("<html><head><title>502 Bad Gateway</title></head></html>\n");
    h.head(200, &[]);
    h.body(&bookmark(13));
    h.body("{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Pod\"");
    h.end();
    // Now nothing gets through at version 13: three quick failures in a row.
    h.head(200, &[]);
    h.reset();
    h.wait(60_000);
    h.error(503, &[], "upstream connect error\n");
    h.wait(60_000);
    h.head(200, &[]);
    h.body("<html>");
    h.end();
    h.wait(60_000);
    // Progress again: the streak is over.
    h.head(200, &[]);
    h.body(&event("MODIFIED", &pod("a", "p1", "u1", 14)));
    h.reset();
    h.head(200, &[]);
    h.reset();
    check(
        &mut h,
        r#"
        GET /api/v1/pods?limit=500
          Added a/p1 uid=u1 rv=5
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
          Modified a/p1 uid=u1 rv=11 (was rv=5)
        GET /api/v1/pods?watch=true&resourceVersion=11&allowWatchBookmarks=true&timeoutSeconds=T
          Resumed rv=11
          Modified a/p1 uid=u1 rv=12 (was rv=11)
        cancel #3
        GET /api/v1/pods?watch=true&resourceVersion=12&allowWatchBookmarks=true&timeoutSeconds=T
          Resumed rv=12
        GET /api/v1/pods?watch=true&resourceVersion=13&allowWatchBookmarks=true&timeoutSeconds=T
          Resumed rv=13
          BackingOff ~1s: connection lost: unexpected EOF
        (wait)
        GET /api/v1/pods?watch=true&resourceVersion=13&allowWatchBookmarks=true&timeoutSeconds=T
          BackingOff ~2s: HTTP 503: upstream connect error (503)
        (wait)
        GET /api/v1/pods?watch=true&resourceVersion=13&allowWatchBookmarks=true&timeoutSeconds=T
          Resumed rv=13
          BackingOff ~4s: bad response: the server sent something that is not JSON: "<html>"
        (wait)
        GET /api/v1/pods?watch=true&resourceVersion=13&allowWatchBookmarks=true&timeoutSeconds=T
          Resumed rv=13
          Modified a/p1 uid=u1 rv=14 (was rv=12)
        GET /api/v1/pods?watch=true&resourceVersion=14&allowWatchBookmarks=true&timeoutSeconds=T
          Resumed rv=14
          BackingOff ~1s: connection lost: unexpected EOF
        "#,
    );
    assert_eq!(h.engine.status().errors, 8);
}

#[test]
fn a_watch_that_lived_a_while_resumes_at_once_even_with_nothing_delivered() {
    // Quiet cluster, flaky proxy: the watch had nothing to say for 1.2 s and was cut.
    // Not a storm (its own length bounds the rate): resume at once, no backoff.
    let mut h = Harness::new(config(Mode::ListWatch));
    h.ok(&list(10, "", None, &[]));
    h.head(200, &[]);
    h.advance(1_200);
    h.reset();
    h.head(200, &[]);
    h.advance(999);
    h.reset();
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500
          PageListed page=1 objects=0 remaining=None
          Synced objects=0 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
          Resumed rv=10
          BackingOff ~1s: connection lost: unexpected EOF
        ",
    );
}

#[test]
fn a_head_that_never_comes_is_given_up_after_its_deadline() {
    let mut h = Harness::new(config(Mode::ListWatch));
    // A LIST may take the apiserver up to its 60 s request timeout: 75 s.
    assert_eq!(h.engine.poll_timeout(), Some(Instant::from_millis(75_000)));
    h.wait(75_000);
    // That attempt took 75 s: no storm, retry at once.
    h.ok(&list(10, "", None, &[]));
    // A watch's head comes at once from a live server: 30 s.
    let sent = h.now.as_millis();
    assert_eq!(
        h.engine.poll_timeout(),
        Some(Instant::from_millis(sent + 30_000))
    );
    h.wait(30_000);
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500
        (wait)
        cancel #1
        GET /api/v1/pods?limit=500
          PageListed page=1 objects=0 remaining=None
          Synced objects=0 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
        (wait)
        cancel #3
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
    assert_eq!(
        h.engine.status().last_error.as_deref(),
        Some("no response within 30 s")
    );
}

#[test]
fn a_list_body_that_stalls_is_retried_at_once_after_30_s_without_bytes() {
    let mut c = config(Mode::ListWatch);
    c.page_size = 1;
    let mut h = Harness::new(c);
    h.ok(&list(20, "tok1", Some(1), &[pod("a", "p1", "u1", 1)]));
    h.head(200, &[]);
    let page = list(20, "", None, &[pod("a", "p2", "u2", 2)]);
    h.advance(10_000);
    h.body(&page[..40]);
    assert_eq!(h.engine.status().last_byte_at, Some(h.now));
    // Progress moves the deadline: 30 s after the last byte.
    assert_eq!(h.engine.poll_timeout(), Some(Instant::from_millis(40_000)));
    h.wait(60_000);
    h.ok(&page);
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=1
          Added a/p1 uid=u1 rv=1
          PageListed page=1 objects=1 remaining=Some(1)
        GET /api/v1/pods?limit=1&continue=tok1
        (wait)
        cancel #2
        GET /api/v1/pods?limit=1&continue=tok1
          Added a/p2 uid=u2 rv=2
          PageListed page=2 objects=2 remaining=None
          Synced objects=2 rv=20
        GET /api/v1/pods?watch=true&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
}

#[test]
fn a_silent_watch_is_noticed_at_its_timeout_or_once_bookmarks_are_known_when_idle() {
    let mut c = config(Mode::ListWatch);
    c.watch_timeout_secs = (60, 60);
    let mut h = Harness::new(c);
    h.ok(&list(10, "", None, &[]));
    // No bookmark seen yet: the server might never send any. The watch's own
    // timeout plus 30 s of grace is the bound.
    h.advance(100);
    h.head(200, &[]);
    assert_eq!(h.engine.poll_timeout(), Some(Instant::from_millis(90_100)));
    h.wait(90_100);
    // That watch lived long: resume at once from its version.
    h.head(200, &[]);
    h.body(&bookmark(12));
    // Now the server is known to send bookmarks (about one a minute): 150 s of
    // silence means a dead connection, sooner than the timeout.
    h.advance(50_000);
    h.body(&event("ADDED", &pod("a", "p1", "u1", 13)));
    let last = h.now.as_millis();
    assert_eq!(
        h.engine.poll_timeout(),
        Some(Instant::from_millis(last + 150_000).min(Instant::from_millis(90_100 + 90_000)))
    );
    h.wait(200_000);
    h.head(200, &[]);
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500
          PageListed page=1 objects=0 remaining=None
          Synced objects=0 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=60
        (wait)
        cancel #2
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=60
          Resumed rv=10
          Added a/p1 uid=u1 rv=13
        (wait)
        cancel #3
        GET /api/v1/pods?watch=true&resourceVersion=13&allowWatchBookmarks=true&timeoutSeconds=60
          Resumed rv=13
        ",
    );
    let s = h.engine.status();
    assert_eq!(s.errors, 2);
    assert!(
        s.last_error.unwrap().contains("outlived its timeout"),
        "the 60 s watch's grace (90 s after its head) comes before 150 s idle"
    );
}

#[test]
fn a_quiet_watch_on_a_bookmarking_server_is_renewed_after_150_s_and_that_is_no_error() {
    // The apiserver sends a bookmark only once its cache knows a newer version: a
    // quiet collection may go silent for longer than 150 s on a healthy connection.
    // The watch is renewed from its version at once; errors stay for errors.
    let mut h = Harness::new(config(Mode::ListWatch));
    h.ok(&list(10, "", None, &[]));
    h.head(200, &[]);
    h.body(&bookmark(11));
    h.advance(60_000);
    h.body(&bookmark(12));
    assert_eq!(h.engine.poll_timeout(), Some(Instant::from_millis(210_000)));
    h.wait(150_000);
    let s = h.engine.status();
    assert_eq!((s.errors, s.renewals), (0, 1));
    assert_eq!(s.last_error, None);
    // A renewal on a connection that is truly gone: its head never comes.
    h.wait(30_000);
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500
          PageListed page=1 objects=0 remaining=None
          Synced objects=0 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
        (wait)
        cancel #2
        GET /api/v1/pods?watch=true&resourceVersion=12&allowWatchBookmarks=true&timeoutSeconds=T
        (wait)
        cancel #3
        GET /api/v1/pods?watch=true&resourceVersion=12&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
    let s = h.engine.status();
    assert_eq!((s.errors, s.renewals), (1, 1));
    assert_eq!(s.last_error.as_deref(), Some("no response within 30 s"));
}

#[test]
fn a_status_in_a_200_answer_is_the_error_it_says() {
    // A list answered 200 with a Status 410 (continue expired): relist, as for HTTP 410.
    let mut c = config(Mode::ListWatch);
    c.page_size = 1;
    let mut h = Harness::new(c);
    h.ok(&list(20, "tok1", Some(1), &[pod("a", "p1", "u1", 1)]));
    h.ok(r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"The provided continue parameter is too old to display a consistent list result.","reason":"Expired","code":410}"#);
    h.ok(&list(30, "", None, &[pod("a", "p1", "u1", 1)]));
    // A watch line that is a bare Status (no event envelope): an in-stream error.
    h.head(200, &[]);
    h.body(&bookmark(31));
    h.body("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version: 31 (40)\",\"reason\":\"Expired\",\"code\":410}\n");
    h.ok(&list(40, "", None, &[]));
    // A 200 list that is a Status 500: back off like a 500.
    h.head(200, &[]);
    h.body(&bookmark(41));
    h.body(TOO_OLD);
    h.wait(5_000);
    h.ok(r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcdserver: leader changed","reason":"InternalError","code":500}"#);
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=1
          Added a/p1 uid=u1 rv=1
          PageListed page=1 objects=1 remaining=Some(1)
        GET /api/v1/pods?limit=1&continue=tok1
          Relisting: continue token expired: The provided continue parameter is too old to display a consistent list result.
        GET /api/v1/pods
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=30
        GET /api/v1/pods?watch=true&resourceVersion=30&allowWatchBookmarks=true&timeoutSeconds=T
        cancel #4
          Relisting: version expired: too old resource version: 31 (40)
        GET /api/v1/pods?limit=1
          PageListed page=1 objects=0 remaining=None
          Deleted a/p1 uid=u1 rv=1
          Synced objects=0 rv=40
        GET /api/v1/pods?watch=true&resourceVersion=40&allowWatchBookmarks=true&timeoutSeconds=T
        cancel #6
          Relisting: version expired: too old resource version: 5 (90)
        GET /api/v1/pods?limit=1
          BackingOff ~1s: etcdserver: leader changed (500 InternalError)
        ",
    );
}

#[test]
fn retry_after_as_a_date_is_read_against_the_response_date_and_every_wait_is_capped() {
    let mut h = Harness::new(config(Mode::ListWatch));
    let date = ("Date", "Wed, 21 Oct 2015 07:28:00 GMT");
    h.error(
        503,
        &[("Retry-After", "Wed, 21 Oct 2015 07:28:20 GMT"), date],
        "",
    );
    h.wait(60_000);
    // A plain-text 429 (a proxy's) with Retry-After: the same as the JSON one.
    h.error(429, &[("Retry-After", "7")], "Too Many Requests\n");
    h.wait(60_000);
    h.error(429, &[("Retry-After", "86400")], "Too Many Requests\n");
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500
          BackingOff ~20s: HTTP 503 with an empty body (503)
        (wait)
        GET /api/v1/pods?limit=500
          BackingOff ~7s: HTTP 429: Too Many Requests (429)
        (wait)
        GET /api/v1/pods?limit=500
          BackingOff ~60s: HTTP 429: Too Many Requests (429)
        ",
    );
}

// ---------------------------------------------------------------- table mode
//
// The Table bytes are the sim's printers' (kubelive_sim::printers, pinned to
// kube-apiserver's `response.go` and `watch.go`): definitions with a list and with the
// first event of each watch only, converted bookmarks, ERROR events as plain Status.

use kubelive_core::IncludeObject;
use kubelive_sim::printers::IncludeObject as Rows;
use support::Printer;

fn table_config(mode: Mode) -> Config {
    config(mode).tables(IncludeObject::Metadata)
}

fn pod_printer() -> Printer {
    Printer::pods(Rows::Metadata)
}

#[test]
fn table_list_then_watch_reads_rows_and_the_definitions_of_the_first_event_only() {
    let mut h = Harness::new(table_config(Mode::ListWatch));
    let p = pod_printer();
    h.ok(&p.list(
        10,
        "",
        None,
        &[pod("a", "p1", "u1", 5), pod("b", "p2", "u2", 7)],
    ));
    h.head(200, &[]);
    let mut w = p.watch();
    h.body(&w.event("MODIFIED", &pod("a", "p1", "u1", 11)));
    h.body(&w.event("ADDED", &pod("a", "p3", "u3", 12)));
    h.body(&w.bookmark("Pod", 13, false));
    h.body(&w.event("DELETED", &pod("b", "p2", "u2", 14)));
    // Rows print as kubectl prints them (Ready counts running, ready containers).
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500 [as=Table]
          Columns Name,Ready,Status,Restarts,Age,IP(wide),Node(wide),Nominated Node(wide),Readiness Gates(wide)
          Added a/p1 uid=u1 rv=5 [p1|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          Added b/p2 uid=u2 rv=7 [p2|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          PageListed page=1 objects=2 remaining=None
          Synced objects=2 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
          Modified a/p1 uid=u1 rv=11 [p1|0/1|Running|0|5m|<none>|node-1|<none>|<none>] (was rv=5)
          Added a/p3 uid=u3 rv=12 [p3|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          Deleted b/p2 uid=u2 rv=14 [p2|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
        ",
    );
    let s = h.engine.status();
    assert!(s.tables && s.table_fallback.is_none());
    assert_eq!(s.resource_version.unwrap().as_str(), "14");
    assert_eq!(s.bookmarks, 1);
    let cols = h.engine.columns().expect("the list's definitions");
    assert_eq!(cols.iter().filter(|c| c.priority == 0).count(), 5);
    let p1 = h.engine.store().get("a", "p1").unwrap();
    assert!(p1.is_row());
    // managedFields are dropped in table mode; the row keeps the rest of the metadata.
    assert_eq!(p1.labels(), vec![("app".into(), "web".into())]);
    assert!(p1.json_str().starts_with(
        r#"{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"p1""#
    ));
}

#[test]
fn whole_objects_in_rows_are_asked_with_include_object() {
    let c = config(Mode::ListWatch).tables(IncludeObject::Object);
    let mut h = Harness::new(c);
    let p = Printer::pods(Rows::Object);
    h.ok(&p.list(10, "", None, &[pod("a", "p1", "u1", 5)]));
    check(
        &mut h,
        "
        GET /api/v1/pods?includeObject=Object&limit=500 [as=Table]
          Columns Name,Ready,Status,Restarts,Age,IP(wide),Node(wide),Nominated Node(wide),Readiness Gates(wide)
          Added a/p1 uid=u1 rv=5 [p1|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=10
        GET /api/v1/pods?includeObject=Object&watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
        ",
    );
    let p1 = h.engine.store().get("a", "p1").unwrap();
    assert_eq!(p1.json_str(), pod("a", "p1", "u1", 5));
}

#[test]
fn table_pages_and_a_streaming_list_with_its_converted_end_bookmark() {
    let mut c = table_config(Mode::ListWatch);
    c.page_size = 1;
    let mut h = Harness::new(c);
    let p = pod_printer();
    h.ok(&p.list(20, "tok1", Some(1), &[pod("a", "p1", "u1", 5)]));
    h.ok(&p.list(20, "", None, &[pod("a", "p2", "u2", 6)]));
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=1 [as=Table]
          Columns Name,Ready,Status,Restarts,Age,IP(wide),Node(wide),Nominated Node(wide),Readiness Gates(wide)
          Added a/p1 uid=u1 rv=5 [p1|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          PageListed page=1 objects=1 remaining=Some(1)
        GET /api/v1/pods?limit=1&continue=tok1 [as=Table]
          Added a/p2 uid=u2 rv=6 [p2|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          PageListed page=2 objects=2 remaining=None
          Synced objects=2 rv=20
        GET /api/v1/pods?watch=true&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
        ",
    );

    let mut h = Harness::new(table_config(Mode::StreamingList));
    let mut w = p.watch();
    h.head(200, &[]);
    h.body(&w.event("ADDED", &pod("a", "p1", "u1", 5)));
    h.body(&w.event("ADDED", &pod("a", "p2", "u2", 9)));
    // A plain (converted) bookmark before the end mark is not the sync point.
    h.body(&w.bookmark("Pod", 9, false));
    assert_eq!(h.engine.status().phase, Phase::InitialEvents);
    h.body(&w.bookmark("Pod", 12, true));
    h.body(&w.event("DELETED", &pod("a", "p1", "u1", 13)));
    h.advance(400_000);
    h.end();
    h.head(200, &[]);
    let mut w = p.watch();
    h.body(&w.event("MODIFIED", &pod("a", "p2", "u2", 14)));
    check(
        &mut h,
        "
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
          Columns Name,Ready,Status,Restarts,Age,IP(wide),Node(wide),Nominated Node(wide),Readiness Gates(wide)
          Added a/p1 uid=u1 rv=5 [p1|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          Added a/p2 uid=u2 rv=9 [p2|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          Synced objects=2 rv=12
          Deleted a/p1 uid=u1 rv=13 [p1|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
        GET /api/v1/pods?watch=true&resourceVersion=13&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
          Resumed rv=13
          Modified a/p2 uid=u2 rv=14 [p2|0/1|Running|0|5m|<none>|node-1|<none>|<none>] (was rv=9)
        ",
    );
}

#[test]
fn a_410_in_table_mode_relists_and_unchanged_rows_stay_quiet() {
    let mut h = Harness::new(table_config(Mode::ListWatch));
    let p = pod_printer();
    h.ok(&p.list(
        10,
        "",
        None,
        &[
            pod("a", "keep", "u1", 5),
            pod("a", "change", "u2", 6),
            pod("a", "gone", "u3", 7),
        ],
    ));
    h.head(200, &[]);
    let mut w = p.watch();
    // An ERROR stays a plain Status, even as the first event of a watch.
    h.body(&w.error(r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (90)","reason":"Expired","code":410}"#));
    h.ok(&p.list(
        90,
        "",
        None,
        &[pod("a", "change", "u2", 60), pod("a", "keep", "u1", 5)],
    ));
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500 [as=Table]
          Columns Name,Ready,Status,Restarts,Age,IP(wide),Node(wide),Nominated Node(wide),Readiness Gates(wide)
          Added a/keep uid=u1 rv=5 [keep|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          Added a/change uid=u2 rv=6 [change|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          Added a/gone uid=u3 rv=7 [gone|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          PageListed page=1 objects=3 remaining=None
          Synced objects=3 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
        cancel #2
          Relisting: version expired: too old resource version: 5 (90)
        GET /api/v1/pods?limit=500 [as=Table]
          Modified a/change uid=u2 rv=60 [change|0/1|Running|0|5m|<none>|node-1|<none>|<none>] (was rv=6)
          PageListed page=1 objects=2 remaining=None
          Deleted a/gone uid=u3 rv=7 [gone|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          Synced objects=2 rv=90
        GET /api/v1/pods?watch=true&resourceVersion=90&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
        ",
    );
}

#[test]
fn a_relist_with_other_columns_replaces_every_row() {
    // The first server prints pods with the default convertor (Name, Created At);
    // after a 410 the relist meets an upgraded server with the pod printer.
    let mut h = Harness::new(table_config(Mode::ListWatch));
    let old = Printer::new("example.com", "Pod", Rows::Metadata);
    h.ok(&old.list(
        10,
        "",
        None,
        &[pod("a", "keep", "u1", 5), pod("a", "gone", "u3", 7)],
    ));
    h.error(410, &[], r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old","reason":"Expired","code":410}"#);
    let new = pod_printer();
    h.ok(&new.list(90, "", None, &[pod("a", "keep", "u1", 5)]));
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500 [as=Table]
          Columns Name,Created At
          Added a/keep uid=u1 rv=5 [keep|2026-11-29T10:00:00Z]
          Added a/gone uid=u3 rv=7 [gone|2026-11-29T10:00:00Z]
          PageListed page=1 objects=2 remaining=None
          Synced objects=2 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
          Relisting: version expired: too old
        GET /api/v1/pods?limit=500 [as=Table]
          Columns Name,Ready,Status,Restarts,Age,IP(wide),Node(wide),Nominated Node(wide),Readiness Gates(wide)
          Modified a/keep uid=u1 rv=5 [keep|0/1|Running|0|5m|<none>|node-1|<none>|<none>] (was rv=5)
          PageListed page=1 objects=1 remaining=None
          Deleted a/gone uid=u3 rv=7 [gone|2026-11-29T10:00:00Z]
          Synced objects=1 rv=90
        GET /api/v1/pods?watch=true&resourceVersion=90&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
        ",
    );
    // The next relist, with the same columns, is quiet again for unchanged rows.
    h.head(200, &[]);
    let mut w = new.watch();
    h.body(&w.bookmark("Pod", 91, false));
    h.body(&w.error(r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old","reason":"Expired","code":410}"#));
    h.ok(&new.list(95, "", None, &[pod("a", "keep", "u1", 5)]));
    check(
        &mut h,
        "
        cancel #4
          Relisting: version expired: too old
        GET /api/v1/pods?limit=500 [as=Table]
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=95
        GET /api/v1/pods?watch=true&resourceVersion=95&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
        ",
    );
}

#[test]
fn a_watch_with_other_columns_relists_to_print_every_row_anew() {
    let mut h = Harness::new(table_config(Mode::ListWatch));
    let old = Printer::new("example.com", "Pod", Rows::Metadata);
    h.ok(&old.list(10, "", None, &[pod("a", "p1", "u1", 5)]));
    // The server restarted upgraded: the resumed watch's first event says so.
    h.head(200, &[]);
    let new = pod_printer();
    let mut w = new.watch();
    h.body(&w.event("ADDED", &pod("a", "p2", "u2", 11)));
    h.ok(&new.list(
        12,
        "",
        None,
        &[pod("a", "p1", "u1", 5), pod("a", "p2", "u2", 11)],
    ));
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500 [as=Table]
          Columns Name,Created At
          Added a/p1 uid=u1 rv=5 [p1|2026-11-29T10:00:00Z]
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
        cancel #2
          Columns Name,Ready,Status,Restarts,Age,IP(wide),Node(wide),Nominated Node(wide),Readiness Gates(wide)
          Relisting: the server's columns changed; listing every row again
        GET /api/v1/pods?limit=500 [as=Table]
          Modified a/p1 uid=u1 rv=5 [p1|0/1|Running|0|5m|<none>|node-1|<none>|<none>] (was rv=5)
          Added a/p2 uid=u2 rv=11 [p2|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          PageListed page=1 objects=2 remaining=None
          Synced objects=2 rv=12
        GET /api/v1/pods?watch=true&resourceVersion=12&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
        ",
    );
}

#[test]
fn a_plain_list_answer_is_served_as_objects_with_generic_columns() {
    // A server without tables ignores `as=Table` and takes the trailing
    // application/json: the engine serves objects and says so, once.
    let mut h = Harness::new(table_config(Mode::ListWatch));
    h.ok(&list(10, "", None, &[pod("a", "p1", "u1", 5)]));
    h.head(200, &[]);
    h.body(&event("MODIFIED", &pod("a", "p1", "u1", 11)));
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500 [as=Table]
          TablesUnavailable: the server answered a plain list
          Added a/p1 uid=u1 rv=5
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
          Modified a/p1 uid=u1 rv=11 (was rv=5)
        ",
    );
    let s = h.engine.status();
    assert!(!s.tables);
    assert_eq!(
        s.table_fallback.as_deref(),
        Some("the server answered a plain list")
    );
    assert!(h.engine.columns().is_none());
    // Object mode's own columns (pods: kubectl's, computed from the object).
    let p1 = h.engine.store().get("a", "p1").unwrap();
    assert!(!p1.is_row());
    assert_eq!(p1.fallback_kind(), Some(kubelive_core::ColumnKind::Pod));
    // An empty plain list says so as well.
    let mut h = Harness::new(table_config(Mode::ListWatch));
    h.ok(&list(10, "", None, &[]));
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500 [as=Table]
          TablesUnavailable: the server answered a plain list
          PageListed page=1 objects=0 remaining=None
          Synced objects=0 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
}

const NOT_ACCEPTABLE: &str = r#"{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
  "reason": "NotAcceptable",
  "code": 406
}"#;

#[test]
fn a_406_retries_at_once_as_objects() {
    // An aggregated API that cannot print answers 406 NotAcceptable (written
    // indented, as `WriteRawJSON` does).
    let mut h = Harness::new(table_config(Mode::ListWatch));
    h.error(406, &[], NOT_ACCEPTABLE);
    h.ok(&list(10, "", None, &[pod("a", "p1", "u1", 5)]));
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500 [as=Table]
          TablesUnavailable: the server cannot print tables here: only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf
        GET /api/v1/pods?limit=500
          Added a/p1 uid=u1 rv=5
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
    // In object mode a 406 is an ordinary error: backoff, no loop.
    h.error(406, &[], NOT_ACCEPTABLE);
    check(
        &mut h,
        "
          BackingOff ~1s: only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf (406 NotAcceptable)
        ",
    );
}

#[test]
fn tables_ending_while_rows_are_held_relist_as_objects() {
    // A watch answered 406 (or with plain events) after a Table list: the rows held
    // are listed again as objects.
    let mut h = Harness::new(table_config(Mode::ListWatch));
    let p = pod_printer();
    h.ok(&p.list(10, "", None, &[pod("a", "p1", "u1", 5)]));
    h.error(406, &[], NOT_ACCEPTABLE);
    h.ok(&list(12, "", None, &[pod("a", "p1", "u1", 5)]));
    let mut h2 = Harness::new(table_config(Mode::ListWatch));
    h2.ok(&p.list(10, "", None, &[pod("a", "p1", "u1", 5)]));
    h2.head(200, &[]);
    h2.body(&event("ADDED", &pod("a", "p2", "u2", 11)));
    h2.ok(&list(12, "", None, &[pod("a", "p1", "u1", 5)]));
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=500 [as=Table]
          Columns Name,Ready,Status,Restarts,Age,IP(wide),Node(wide),Nominated Node(wide),Readiness Gates(wide)
          Added a/p1 uid=u1 rv=5 [p1|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
          TablesUnavailable: the server cannot print tables here: only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf
          Relisting: listing objects instead of tables: the server cannot print tables here: only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf
        GET /api/v1/pods?limit=500
          Modified a/p1 uid=u1 rv=5 (was rv=5)
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=12
        GET /api/v1/pods?watch=true&resourceVersion=12&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
    check(
        &mut h2,
        "
        GET /api/v1/pods?limit=500 [as=Table]
          Columns Name,Ready,Status,Restarts,Age,IP(wide),Node(wide),Nominated Node(wide),Readiness Gates(wide)
          Added a/p1 uid=u1 rv=5 [p1|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
        cancel #2
          TablesUnavailable: the server sent plain watch events
          Relisting: listing objects instead of tables: the server sent plain watch events
        GET /api/v1/pods?limit=500
          Modified a/p1 uid=u1 rv=5 (was rv=5)
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=12
        GET /api/v1/pods?watch=true&resourceVersion=12&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
    assert!(h.engine.store().iter().all(|o| !o.is_row()));
}

// ----- pipelined LIST pages: two requests in flight while listing -----

/// Drives one engine with several requests in flight, each named by the order it was
/// sent (`#1`, `#2`, ...), and records what it says as [`Harness`] does.
struct Pipe {
    engine: Engine,
    now: Instant,
    log: String,
    sent: Vec<Request>,
}

impl Pipe {
    fn new(config: Config) -> Pipe {
        let mut p = Pipe {
            engine: Engine::new(config, Instant::ZERO),
            now: Instant::ZERO,
            log: String::new(),
            sent: Vec::new(),
        };
        p.drain();
        p
    }

    fn drain(&mut self) {
        while let Some(id) = self.engine.poll_cancel() {
            writeln!(self.log, "cancel {id}").unwrap();
        }
        while let Some(ev) = self.engine.poll_event() {
            writeln!(self.log, "  {}", describe(&ev, self.now)).unwrap();
        }
        while let Some(req) = self.engine.poll_request() {
            let tables = if req.accept == kubelive_core::table::TABLE_ACCEPT {
                " [as=Table]"
            } else {
                ""
            };
            writeln!(self.log, "{req}{tables}").unwrap();
            self.sent.push(req);
        }
    }

    fn id(&self, n: usize) -> kubelive_core::RequestId {
        self.sent[n - 1].id
    }

    fn head(&mut self, n: usize, status: u16) {
        self.engine
            .handle_response(self.id(n), status, &[], self.now);
        self.drain();
    }

    fn body(&mut self, n: usize, body: &str) {
        self.engine
            .handle_body(self.id(n), body.as_bytes(), self.now);
        self.drain();
    }

    fn end(&mut self, n: usize) {
        self.engine.handle_end(self.id(n), self.now);
        self.drain();
    }

    fn reset(&mut self, n: usize) {
        let e = TransportError::Reset("unexpected EOF".into());
        self.engine.handle_error(self.id(n), e, self.now);
        self.drain();
    }

    fn ok(&mut self, n: usize, body: &str) {
        self.head(n, 200);
        self.body(n, body);
        self.end(n);
    }

    fn advance(&mut self, ms: u64) {
        self.now = Instant::from_millis(self.now.as_millis() + ms);
    }

    /// Moves time to the engine's next deadline and handles it.
    fn wait(&mut self) {
        let t = self.engine.poll_timeout().expect("a deadline");
        let waited = t.as_millis() - self.now.as_millis();
        writeln!(self.log, "(wait {waited} ms)").unwrap();
        self.now = t;
        self.engine.handle_timeout(t);
        self.drain();
    }

    fn check(&mut self, expected: &str) {
        let got = stable(&std::mem::take(&mut self.log));
        let want: String = expected
            .lines()
            .map(|l| l.strip_prefix("        ").unwrap_or(l))
            .filter(|l| !l.trim().is_empty())
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(got, want, "\n--- got ---\n{got}--- want ---\n{want}");
    }

    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .engine
            .store()
            .iter()
            .map(|o| o.name().to_string())
            .collect();
        v.sort();
        v
    }
}

/// A list body cut where its items (or a Table's definitions) begin: the first part
/// holds the metadata with the continue token.
fn at_items(body: &str) -> (&str, &str) {
    let at = [",\"items\"", ",\"columnDefinitions\"", ",\"rows\""]
        .iter()
        .filter_map(|k| body.find(k))
        .min()
        .expect("a list body");
    body.split_at(at)
}

fn pipe_config() -> Config {
    let mut c = Config::new(pods());
    c.seed = 1;
    c.page_size = 2;
    c.max_page_size = 0;
    c
}

#[test]
fn the_next_page_is_asked_for_once_the_continue_token_is_read_and_applied_after_the_current() {
    let mut h = Pipe::new(pipe_config());
    let page1 = list(
        20,
        "tok1",
        Some(1),
        &[pod("a", "p1", "u1", 1), pod("a", "p2", "u2", 2)],
    );
    let (meta, items) = at_items(&page1);
    h.head(1, 200);
    h.body(1, meta);
    // Page two answers in full while page one still streams: held, not applied.
    h.ok(2, &list(20, "", None, &[pod("a", "p3", "u3", 3)]));
    assert!(h.names().is_empty());
    assert_eq!(h.engine.status().phase, Phase::Listing { page: 1 });
    h.body(1, items);
    h.end(1);
    h.check(
        "
        GET /api/v1/pods?limit=2
        GET /api/v1/pods?limit=2&continue=tok1
          Added a/p1 uid=u1 rv=1
          Added a/p2 uid=u2 rv=2
          PageListed page=1 objects=2 remaining=Some(1)
          Added a/p3 uid=u3 rv=3
          PageListed page=2 objects=3 remaining=None
          Synced objects=3 rv=20
        GET /api/v1/pods?watch=true&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
    assert_eq!(h.names(), ["p1", "p2", "p3"]);
    assert_eq!(h.engine.status().pages_listed, 2);
}

#[test]
fn a_page_ahead_still_streaming_becomes_the_current_page_and_asks_for_the_next() {
    let mut h = Pipe::new(pipe_config());
    let page2 = list(
        20,
        "tok2",
        Some(1),
        &[pod("a", "p3", "u3", 3), pod("a", "p4", "u4", 4)],
    );
    // Whole bodies: page one's items are applied before the page ahead is asked for
    // (the same feed read its metadata).
    let (meta2, items2) = at_items(&page2);
    h.head(1, 200);
    h.body(1, &list(20, "tok1", Some(3), &[pod("a", "p1", "u1", 1)]));
    // Page two has sent its head and metadata only when page one ends.
    h.head(2, 200);
    h.body(2, meta2);
    h.end(1);
    // Its turn: what it held was replayed, its continue token is known: page three.
    assert_eq!(h.engine.status().phase, Phase::Listing { page: 2 });
    assert!(h.engine.status().connected);
    h.body(2, items2);
    h.end(2);
    h.ok(3, &list(20, "", None, &[pod("a", "p5", "u5", 5)]));
    h.check(
        "
        GET /api/v1/pods?limit=2
          Added a/p1 uid=u1 rv=1
        GET /api/v1/pods?limit=2&continue=tok1
          PageListed page=1 objects=1 remaining=Some(3)
        GET /api/v1/pods?limit=2&continue=tok2
          Added a/p3 uid=u3 rv=3
          Added a/p4 uid=u4 rv=4
          PageListed page=2 objects=3 remaining=Some(1)
          Added a/p5 uid=u5 rv=5
          PageListed page=3 objects=4 remaining=None
          Synced objects=4 rv=20
        GET /api/v1/pods?watch=true&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
}

#[test]
fn a_failing_current_page_cancels_the_page_ahead_and_what_it_sends_is_ignored() {
    let mut h = Pipe::new(pipe_config());
    let page1 = list(
        20,
        "tok1",
        Some(1),
        &[pod("a", "p1", "u1", 1), pod("a", "p2", "u2", 2)],
    );
    let (meta, _) = at_items(&page1);
    h.head(1, 200);
    h.body(1, meta);
    h.head(2, 200);
    h.reset(1);
    // Late bytes of the cancelled page ahead change nothing.
    h.body(2, &list(20, "", None, &[pod("a", "p9", "u9", 9)]));
    h.end(2);
    assert!(h.names().is_empty());
    h.wait();
    h.check(
        "
        GET /api/v1/pods?limit=2
        GET /api/v1/pods?limit=2&continue=tok1
        cancel #2
          BackingOff ~1s: connection lost: unexpected EOF
        (wait)
        GET /api/v1/pods?limit=2
        ",
    );
}

#[test]
fn an_expired_continue_token_on_the_page_ahead_relists_when_its_turn_comes() {
    let mut h = Pipe::new(pipe_config());
    let page1 = list(20, "tok1", Some(1), &[pod("a", "p1", "u1", 1)]);
    let (meta, items) = at_items(&page1);
    h.head(1, 200);
    h.body(1, meta);
    h.head(2, 410);
    h.body(2, r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"The provided continue parameter is too old to display a consistent list result.","reason":"Expired","code":410}"#);
    h.end(2);
    // Held until page one ends: page one's items are still applied.
    h.body(1, items);
    h.end(1);
    h.ok(
        3,
        &list(
            30,
            "",
            None,
            &[pod("a", "p1", "u1", 1), pod("a", "p2", "u2", 2)],
        ),
    );
    h.check(
        "
        GET /api/v1/pods?limit=2
        GET /api/v1/pods?limit=2&continue=tok1
          Added a/p1 uid=u1 rv=1
          PageListed page=1 objects=1 remaining=Some(1)
          Relisting: continue token expired: The provided continue parameter is too old to display a consistent list result.
        GET /api/v1/pods
          Added a/p2 uid=u2 rv=2
          PageListed page=1 objects=2 remaining=None
          Synced objects=2 rv=30
        GET /api/v1/pods?watch=true&resourceVersion=30&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
}

#[test]
fn a_broken_page_ahead_is_handled_in_its_turn_as_a_fresh_quick_failure() {
    let mut h = Pipe::new(pipe_config());
    let page1 = list(20, "tok1", Some(1), &[pod("a", "p1", "u1", 1)]);
    let (meta, items) = at_items(&page1);
    h.head(1, 200);
    h.body(1, meta);
    h.head(2, 200);
    h.body(2, "{\"kind\":\"PodList\"");
    h.reset(2);
    // Recorded, not handled: page one streams on.
    h.advance(5_000);
    h.body(1, items);
    assert!(!h.log.contains("BackingOff"), "{}", h.log);
    h.end(1);
    // It broke "at once" from its turn on: a backoff, then page two again.
    h.wait();
    h.ok(3, &list(20, "", None, &[pod("a", "p2", "u2", 2)]));
    h.check(
        "
        GET /api/v1/pods?limit=2
        GET /api/v1/pods?limit=2&continue=tok1
          Added a/p1 uid=u1 rv=1
          PageListed page=1 objects=1 remaining=Some(1)
          BackingOff ~1s: connection lost: unexpected EOF
        (wait)
        GET /api/v1/pods?limit=2&continue=tok1
          Added a/p2 uid=u2 rv=2
          PageListed page=2 objects=2 remaining=None
          Synced objects=2 rv=20
        GET /api/v1/pods?watch=true&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
}

#[test]
fn a_silent_page_ahead_gets_its_head_deadline_from_its_turn() {
    let mut h = Pipe::new(pipe_config());
    h.head(1, 200);
    h.advance(20_000);
    h.body(1, &list(20, "tok1", Some(1), &[pod("a", "p1", "u1", 1)]));
    // No deadline watches the page ahead before its turn: page one's (its stall
    // deadline) are the only ones.
    assert_eq!(h.engine.poll_timeout(), Some(Instant::from_millis(50_000)));
    h.advance(20_000);
    h.end(1);
    // Promoted at 40 s with no head: the list head deadline (75 s) runs from then.
    assert_eq!(h.engine.poll_timeout(), Some(Instant::from_millis(115_000)));
    h.wait();
    h.check(
        "
        GET /api/v1/pods?limit=2
          Added a/p1 uid=u1 rv=1
        GET /api/v1/pods?limit=2&continue=tok1
          PageListed page=1 objects=1 remaining=Some(1)
        (wait)
        cancel #2
        GET /api/v1/pods?limit=2&continue=tok1
        ",
    );
}

#[test]
fn stop_and_restart_mid_pipeline_cancel_both_and_list_again() {
    let mut h = Pipe::new(pipe_config());
    let page1 = list(
        20,
        "tok1",
        Some(1),
        &[pod("a", "p1", "u1", 1), pod("a", "p2", "u2", 2)],
    );
    let (meta, items) = at_items(&page1);
    h.head(1, 200);
    h.body(1, meta);
    h.head(2, 200);
    h.engine.stop();
    h.drain();
    assert_eq!(h.engine.status().phase, Phase::Stopped);
    assert_eq!(h.engine.poll_timeout(), None);
    h.body(1, items);
    h.end(1);
    h.body(2, &list(20, "", None, &[pod("a", "p3", "u3", 3)]));
    h.end(2);
    assert!(h.names().is_empty());
    assert_eq!(h.engine.restart(h.now), kubelive_core::Restart::Relist);
    h.drain();
    h.check(
        "
        GET /api/v1/pods?limit=2
        GET /api/v1/pods?limit=2&continue=tok1
        cancel #1
        cancel #2
        GET /api/v1/pods?limit=2
        ",
    );
}

#[test]
fn a_page_ahead_larger_than_the_bound_is_dropped_and_asked_for_again_in_its_turn() {
    let page1 = list(20, "tok1", Some(2), &[pod("a", "p1", "u1", 1)]);
    let (meta, items) = at_items(&page1);
    let page2 = list(
        20,
        "",
        None,
        &[pod("a", "p2", "u2", 2), pod("a", "p3", "u3", 3)],
    );
    // The bound on what a page ahead may hold is one document's limit: here less than
    // page two, more than any of its items.
    let mut c = pipe_config();
    c.limits.max_document_bytes = page2.len() - 1;
    let mut h = Pipe::new(c);
    h.head(1, 200);
    h.body(1, meta);
    h.head(2, 200);
    h.body(2, &page2[..100]);
    h.body(2, &page2[100..]);
    h.body(1, items);
    h.end(1);
    h.ok(3, &page2);
    h.check(
        "
        GET /api/v1/pods?limit=2
        GET /api/v1/pods?limit=2&continue=tok1
        cancel #2
          Added a/p1 uid=u1 rv=1
          PageListed page=1 objects=1 remaining=Some(2)
        GET /api/v1/pods?limit=2&continue=tok1
          Added a/p2 uid=u2 rv=2
          Added a/p3 uid=u3 rv=3
          PageListed page=2 objects=3 remaining=None
          Synced objects=3 rv=20
        GET /api/v1/pods?watch=true&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
}

#[test]
fn table_pages_are_pipelined_with_the_table_accept() {
    let mut c = pipe_config().tables(IncludeObject::Metadata);
    c.page_size = 1;
    let mut h = Pipe::new(c);
    let p = pod_printer();
    let page1 = p.list(20, "tok1", Some(1), &[pod("a", "p1", "u1", 5)]);
    let (meta, rows) = at_items(&page1);
    h.head(1, 200);
    h.body(1, meta);
    h.ok(2, &p.list(20, "", None, &[pod("a", "p2", "u2", 6)]));
    h.body(1, rows);
    h.end(1);
    h.check(
        "
        GET /api/v1/pods?limit=1 [as=Table]
        GET /api/v1/pods?limit=1&continue=tok1 [as=Table]
          Columns Name,Ready,Status,Restarts,Age,IP(wide),Node(wide),Nominated Node(wide),Readiness Gates(wide)
          Added a/p1 uid=u1 rv=5 [p1|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          PageListed page=1 objects=1 remaining=Some(1)
          Added a/p2 uid=u2 rv=6 [p2|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          PageListed page=2 objects=2 remaining=None
          Synced objects=2 rv=20
        GET /api/v1/pods?watch=true&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
        ",
    );
}

#[test]
fn a_plain_list_in_table_mode_cancels_the_table_page_ahead_and_asks_for_objects() {
    let mut c = pipe_config().tables(IncludeObject::Metadata);
    c.page_size = 1;
    let mut h = Pipe::new(c);
    // The server does not print tables: page one is a plain list. The page ahead was
    // asked for tables: it is cancelled and asked for again, as objects.
    let page1 = list(20, "tok1", Some(1), &[pod("a", "p1", "u1", 1)]);
    let (meta, items) = at_items(&page1);
    h.head(1, 200);
    h.body(1, meta);
    h.head(2, 200);
    h.body(1, items);
    h.end(1);
    h.ok(3, &list(20, "", None, &[pod("a", "p2", "u2", 2)]));
    h.check(
        "
        GET /api/v1/pods?limit=1 [as=Table]
        GET /api/v1/pods?limit=1&continue=tok1 [as=Table]
        cancel #2
          TablesUnavailable: the server answered a plain list
          Added a/p1 uid=u1 rv=1
        GET /api/v1/pods?limit=1&continue=tok1
          PageListed page=1 objects=1 remaining=Some(1)
          Added a/p2 uid=u2 rv=2
          PageListed page=2 objects=2 remaining=None
          Synced objects=2 rv=20
        GET /api/v1/pods?watch=true&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
}

#[test]
fn with_pipelining_off_the_next_page_waits_for_the_current_to_end() {
    let mut c = pipe_config();
    c.pipeline_pages = false;
    let mut h = Pipe::new(c);
    let page1 = list(20, "tok1", Some(1), &[pod("a", "p1", "u1", 1)]);
    let (meta, items) = at_items(&page1);
    h.head(1, 200);
    h.body(1, meta);
    assert_eq!(h.sent.len(), 1);
    h.body(1, items);
    h.end(1);
    assert_eq!(h.sent.len(), 2);
}

#[test]
fn a_page_retried_after_a_failure_mid_page_counts_its_items_once() {
    // Page 2 breaks after one of its items; the retry of page 2 brings both again.
    // The list holds 4 objects, not 5: `PageListed.objects` counts each item once, and
    // the store is sized for what the list really holds.
    let mut c = config(Mode::ListWatch);
    c.page_size = 2;
    let mut h = Harness::new(c);
    h.ok(&list(
        10,
        "c1",
        Some(2),
        &[pod("a", "p1", "u1", 5), pod("a", "p2", "u2", 6)],
    ));
    let page2 = list(
        10,
        "",
        None,
        &[pod("a", "p3", "u3", 7), pod("a", "p4", "u4", 8)],
    );
    let second_item = page2
        .find(r#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p4""#)
        .unwrap();
    h.head(200, &[]);
    h.body(&page2[..second_item + 10]);
    h.reset();
    h.wait(60_000);
    h.ok(&page2);
    check(
        &mut h,
        "
        GET /api/v1/pods?limit=2
          Added a/p1 uid=u1 rv=5
          Added a/p2 uid=u2 rv=6
          PageListed page=1 objects=2 remaining=Some(2)
        GET /api/v1/pods?limit=2&continue=c1
          Added a/p3 uid=u3 rv=7
          BackingOff ~1s: connection lost: unexpected EOF
        (wait)
        GET /api/v1/pods?limit=2&continue=c1
          Added a/p4 uid=u4 rv=8
          PageListed page=2 objects=4 remaining=None
          Synced objects=4 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
    let s = h.engine.status();
    assert_eq!((s.added, s.modified, s.deleted, s.objects), (4, 0, 0, 4));
}

#[test]
fn a_streaming_list_refused_as_a_table_syncs_with_a_table_list_and_tables_stay_on() {
    // Kubernetes 1.32+ answers a streaming list asked `as=Table` with 406 (#126996);
    // LISTs and watches still print tables. The session remembers that streaming lists
    // cannot be tables: every sync is a Table LIST + WATCH, said once.
    let p = pod_printer();
    let mut h = Harness::new(table_config(Mode::StreamingList));
    h.error(406, &[], NOT_ACCEPTABLE);
    h.ok(&p.list(10, "", None, &[pod("a", "p1", "u1", 5)]));
    h.head(200, &[]);
    let mut w = p.watch();
    h.body(&w.event("MODIFIED", &pod("a", "p1", "u1", 11)));
    h.body(&w.error(r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 11 (90)","reason":"Expired","code":410}"#));
    h.ok(&p.list(95, "", None, &[pod("a", "p1", "u1", 11)]));
    check(
        &mut h,
        "
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
          Relisting: streaming list unavailable, using LIST+WATCH: the server does not serve streaming lists as tables (406): only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf
        GET /api/v1/pods?limit=500 [as=Table]
          Columns Name,Ready,Status,Restarts,Age,IP(wide),Node(wide),Nominated Node(wide),Readiness Gates(wide)
          Added a/p1 uid=u1 rv=5 [p1|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
          Modified a/p1 uid=u1 rv=11 [p1|0/1|Running|0|5m|<none>|node-1|<none>|<none>] (was rv=5)
        cancel #3
          Relisting: version expired: too old resource version: 11 (90)
        GET /api/v1/pods?limit=500 [as=Table]
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=95
        GET /api/v1/pods?watch=true&resourceVersion=95&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
        ",
    );
    let s = h.engine.status();
    assert!(s.tables);
    assert_eq!(s.table_fallback, None);
    assert!(s.fell_back.unwrap().contains("as tables"));
}

#[test]
fn a_streaming_list_served_as_plain_objects_in_table_mode_syncs_with_a_table_list() {
    // A release that serves the stream as plain objects: the LIST can still print.
    let p = pod_printer();
    let mut h = Harness::new(table_config(Mode::StreamingList));
    h.head(200, &[]);
    h.body(&event("ADDED", &pod("a", "p1", "u1", 5)));
    h.ok(&p.list(10, "", None, &[pod("a", "p1", "u1", 5)]));
    check(
        &mut h,
        "
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
        cancel #1
          Relisting: streaming list unavailable, using LIST+WATCH: the server sent the streaming list as plain objects, not tables
        GET /api/v1/pods?limit=500 [as=Table]
          Columns Name,Ready,Status,Restarts,Age,IP(wide),Node(wide),Nominated Node(wide),Readiness Gates(wide)
          Added a/p1 uid=u1 rv=5 [p1|0/1|Running|0|5m|<none>|node-1|<none>|<none>]
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T [as=Table]
        ",
    );
    assert!(h.engine.status().tables);
}

const GZIP: &[(&str, &str)] = &[
    ("Content-Type", "application/json"),
    ("Content-Encoding", "gzip"),
    ("Vary", "Accept-Encoding"),
];

#[test]
fn a_gzipped_streaming_list_is_given_up_at_its_head_where_only_one_gzip_member_is_read() {
    // Kubernetes 1.37 gzips a streaming list one member per flush
    // (WatchListCompression); a browser reads the first member and silently drops the
    // rest. The head says so before any body byte: list instead, for the session.
    let mut c = config(Mode::StreamingList);
    c.reads_first_gzip_member_only = true;
    let mut h = Harness::new(c);
    h.head(200, GZIP);
    // LISTs and plain watches are one gzip member: they are read whole.
    h.head(200, GZIP);
    h.body(&list(10, "", None, &[pod("a", "p1", "u1", 5)]));
    h.end();
    h.head(200, GZIP);
    h.body(&event("MODIFIED", &pod("a", "p1", "u1", 11)));
    h.body(TOO_OLD);
    h.ok(&list(95, "", None, &[pod("a", "p1", "u1", 11)]));
    check(
        &mut h,
        "
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T
        cancel #1
          Relisting: streaming list unavailable, using LIST+WATCH: the server gzips streaming lists (a gzip member per flush) and this HTTP client reads only the first member
        GET /api/v1/pods?limit=500
          Added a/p1 uid=u1 rv=5
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=10
        GET /api/v1/pods?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=T
          Modified a/p1 uid=u1 rv=11 (was rv=5)
        cancel #3
          Relisting: version expired: too old resource version: 5 (90)
        GET /api/v1/pods?limit=500
          PageListed page=1 objects=1 remaining=None
          Synced objects=1 rv=95
        GET /api/v1/pods?watch=true&resourceVersion=95&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
    let s = h.engine.status();
    assert!(s.fell_back.unwrap().contains("gzip"));
    assert_eq!((s.errors, s.relists), (1, 2));

    // A client that reads every member (the CLI, the default) streams it.
    let mut h = Harness::new(config(Mode::StreamingList));
    h.head(200, GZIP);
    h.body(&event("ADDED", &pod("a", "p1", "u1", 5)));
    h.body(&end_bookmark(10));
    let t = stable(&h.take());
    assert!(t.ends_with("  Synced objects=1 rv=10\n"), "{t}");
}

#[test]
fn three_streaming_lists_in_a_row_ending_before_their_end_bookmark_make_the_sync_a_list() {
    // A server that ignores sendInitialEvents on an empty, quiet collection, behind a
    // proxy that ends every request within seconds: each plain watch ends before the
    // stall or end-bookmark deadline could tell. Streaming again forever never syncs.
    let mut h = Harness::new(config(Mode::StreamingList));
    for _ in 0..3 {
        h.head(200, &[]);
        h.advance(5_000);
        h.end();
    }
    h.ok(&list(20, "", None, &[]));
    check(
        &mut h,
        "
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T
          Relisting: streaming list ended before its initial events were complete
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T
          Relisting: streaming list ended before its initial events were complete
        GET /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true&timeoutSeconds=T
          Relisting: streaming list ended before its initial events were complete
        GET /api/v1/pods?limit=500
          PageListed page=1 objects=0 remaining=None
          Synced objects=0 rv=20
        GET /api/v1/pods?watch=true&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=T
        ",
    );
    assert_eq!(
        h.engine.status().fell_back.as_deref(),
        Some("3 streaming lists in a row ended before their initial-events-end bookmark")
    );
}
