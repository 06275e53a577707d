//! Saved views: an engine restored from one shows its rows at once and watches from
//! its version (no LIST); a 410 relists and the list is diffed against the restored
//! rows. Saving is refused for anything but identity rows at one version; restoring
//! is refused for another view, and damaged bytes are an error, never a panic.
//! The Table bytes come from the sim's printers (`support`), as kube-apiserver writes
//! them.

mod support;

use kubelive_core::{
    Collection, Config, Engine, Event, IncludeObject, Instant, KeptMetadata, Mode, Request,
    RestoreError, SaveError, SavedView,
};
use kubelive_sim::printers::IncludeObject as Rows;
use support::Printer;

fn pod(ns: &str, name: &str, uid: &str, rv: u64) -> String {
    format!(
        r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"{ns}","uid":"{uid}","resourceVersion":"{rv}","creationTimestamp":"2026-11-29T10:00:00Z","labels":{{"tier":"lbl-frontend"}},"annotations":{{"secret":"s3cr3t"}}}},"spec":{{"nodeName":"node-1","containers":[{{"name":"c","image":"nginx"}}]}},"status":{{"phase":"Running","podIP":"10.0.0.1","containerStatuses":[{{"name":"c","ready":true,"restartCount":0}}]}}}}"#
    )
}

fn table_config(mode: Mode) -> Config {
    let mut c =
        Config::new(Collection::parse("/api/v1/pods").unwrap()).tables(IncludeObject::Metadata);
    c.metadata = KeptMetadata::Identity;
    c.mode = mode;
    c.seed = 1;
    c.pipeline_pages = false;
    c
}

const GONE_EVENT: &str = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 12 (90)","reason":"Expired","code":410}"#;

/// One engine and a server that answers its requests, with what it said.
struct Server {
    engine: Engine,
    now: Instant,
    in_flight: Option<Request>,
    requests: Vec<String>,
    events: Vec<String>,
    printer: Printer,
}

impl Server {
    fn with(engine: Engine) -> Server {
        let mut s = Server {
            engine,
            now: Instant::ZERO,
            in_flight: None,
            requests: Vec::new(),
            events: Vec::new(),
            printer: Printer::pods(Rows::Metadata),
        };
        s.drain();
        s
    }

    fn drain(&mut self) {
        while let Some(id) = self.engine.poll_cancel() {
            if self.in_flight.as_ref().is_some_and(|r| r.id == id) {
                self.in_flight = None;
            }
        }
        while let Some(e) = self.engine.poll_event() {
            self.events.push(match e {
                Event::Added(o) => format!("Added {}", o.name()),
                Event::Modified { new, .. } => format!("Modified {}", new.name()),
                Event::Deleted(o) => format!("Deleted {}", o.name()),
                Event::Synced {
                    objects,
                    resource_version,
                } => format!("Synced {objects} at {resource_version}"),
                Event::Restored {
                    objects,
                    resource_version,
                } => format!("Restored {objects} at {resource_version}"),
                Event::Resumed { resource_version } => format!("Resumed {resource_version}"),
                Event::Relisting { reason } => format!("Relisting: {reason}"),
                Event::PageListed { page, .. } => format!("Page {page}"),
                Event::BackingOff { reason, .. } => format!("BackingOff: {reason}"),
                Event::Failed { error } => format!("Failed {}", error.code),
                Event::Columns { columns } => format!("Columns {}", columns.len()),
                Event::TablesUnavailable { .. } => "TablesUnavailable".into(),
            });
        }
        while let Some(r) = self.engine.poll_request() {
            // The watch timeout is random: keep the transcript stable.
            let path = match r.path.find("&timeoutSeconds=") {
                Some(i) => r.path[..i].to_string(),
                None => r.path.clone(),
            };
            let kind = if r.accept == kubelive_core::table::TABLE_ACCEPT {
                "[as=Table] "
            } else {
                ""
            };
            self.requests.push(format!("{kind}{path}"));
            self.in_flight = Some(r);
        }
    }

    fn id(&self) -> kubelive_core::RequestId {
        self.in_flight.as_ref().expect("a request in flight").id
    }

    fn respond(&mut self, status: u16, body: &str, end: bool) {
        let (id, now) = (self.id(), self.now);
        self.engine.handle_response(id, status, &[], now);
        self.drain();
        self.engine.handle_body(id, body.as_bytes(), now);
        self.drain();
        if end && self.in_flight.as_ref().is_some_and(|r| r.id == id) {
            self.in_flight = None;
            self.engine.handle_end(id, now);
            self.drain();
        }
    }

    fn take(&mut self) -> (Vec<String>, Vec<String>) {
        (
            std::mem::take(&mut self.requests),
            std::mem::take(&mut self.events),
        )
    }
}

/// An engine of `config` synced at 10 with p1..p3, then watching: p2 modified at 11,
/// p4 added at 12.
fn watching(config: Config) -> Server {
    let mut s = Server::with(Engine::new(config, Instant::ZERO));
    let list = s.printer.list(
        10,
        "",
        None,
        &[
            pod("a", "p1", "u1", 5),
            pod("a", "p2", "u2", 6),
            pod("b", "p3", "u3", 7),
        ],
    );
    s.respond(200, &list, true);
    let mut w = s.printer.watch();
    let events = w.event("MODIFIED", &pod("a", "p2", "u2", 11))
        + &w.event("ADDED", &pod("b", "p4", "u4", 12));
    s.respond(200, &events, false);
    s.take();
    s
}

/// Sorted, so that transcripts do not depend on the store's order.
fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn saved(config: Config) -> Vec<u8> {
    watching(config)
        .engine
        .save_view()
        .expect("a table view at one version saves")
}

#[test]
fn a_saved_view_holds_the_rows_exactly_and_nothing_but_identity_and_cells() {
    let s = watching(table_config(Mode::ListWatch));
    let bytes = s.engine.save_view().unwrap();
    let view = SavedView::decode(&bytes).unwrap();
    assert_eq!(view.resource_version().as_str(), "12");
    assert_eq!(Some(view.columns()), s.engine.columns());
    assert_eq!(view.rows().len(), 4);
    for row in view.rows() {
        let held = s.engine.store().get(row.namespace(), row.name()).unwrap();
        assert_eq!(row, &**held, "restored exactly as decoded");
        assert_eq!(row.cells_json(), held.cells_json());
        assert_eq!(row.json(), held.json());
    }
    // Labels and annotations were never kept, so never saved.
    for needle in [&b"s3cr3t"[..], b"lbl-frontend", b"nginx", b"Running"] {
        if needle == b"Running" {
            // The printed Status cell is kept: cells are what a row shows.
            assert!(bytes.windows(needle.len()).any(|w| w == needle));
            continue;
        }
        assert!(
            !bytes.windows(needle.len()).any(|w| w == needle),
            "{} in the saved bytes",
            String::from_utf8_lossy(needle)
        );
    }
    // Saved again from the decoded view: the same bytes.
    let again = view.encode().unwrap();
    assert_eq!(
        SavedView::decode(&again).unwrap().rows().len(),
        view.rows().len()
    );
}

#[test]
fn a_first_screen_holds_the_rows_given_in_their_order_and_refuses_what_a_view_refuses() {
    let s = watching(table_config(Mode::ListWatch));
    let key = kubelive_core::ViewKey::of(&table_config(Mode::ListWatch));
    let rv = kubelive_core::ResourceVersion::new("12");
    let columns = s.engine.columns().unwrap().clone();
    let mut rows: Vec<_> = s.engine.store().iter().cloned().collect();
    rows.sort_by(|a, b| b.name().cmp(a.name()));
    let first: Vec<_> = rows[..2].to_vec();
    let bytes = SavedView::encode_rows(&key, &rv, &columns, &first).unwrap();
    let view = SavedView::decode(&bytes).unwrap();
    assert_eq!(view.key(), &key);
    assert_eq!(view.resource_version().as_str(), "12");
    assert_eq!(view.columns(), &columns);
    let names: Vec<&str> = view.rows().iter().map(|o| o.name()).collect();
    let wanted: Vec<&str> = first.iter().map(|o| o.name()).collect();
    assert_eq!(names, wanted, "the rows as given, in their order");
    for (row, held) in view.rows().iter().zip(&first) {
        assert_eq!(row.cells_json(), held.cells_json());
    }
    let mut objects = key.clone();
    objects.format = kubelive_core::Format::Objects;
    assert_eq!(
        SavedView::encode_rows(&objects, &rv, &columns, &first),
        Err(SaveError::NotTables)
    );
}

#[test]
fn a_restored_engine_shows_the_rows_at_once_and_watches_from_their_version_without_listing() {
    let config = table_config(Mode::ListWatch);
    let view = SavedView::decode(&saved(config.clone())).unwrap();
    let engine = Engine::restore(config, view, Instant::ZERO).unwrap();
    let mut s = Server::with(engine);
    let (requests, events) = s.take();
    assert_eq!(
        requests,
        ["[as=Table] /api/v1/pods?watch=true&resourceVersion=12&allowWatchBookmarks=true"]
    );
    assert_eq!(events.first().map(String::as_str), Some("Columns 9"));
    assert_eq!(events.last().map(String::as_str), Some("Restored 4 at 12"));
    assert_eq!(
        sorted(events[1..events.len() - 1].to_vec()),
        ["Added p1", "Added p2", "Added p3", "Added p4"]
    );
    assert_eq!(s.engine.store().len(), 4);
    let status = s.engine.status();
    assert!(status.synced);
    assert_eq!(status.resource_version.unwrap().as_str(), "12");
    assert_eq!((status.pages_listed, status.relists), (0, 0));

    // The watch answers: a change and a delete since the save.
    let mut w = s.printer.watch();
    let events = w.event("MODIFIED", &pod("a", "p1", "u1", 13))
        + &w.event("DELETED", &pod("b", "p3", "u3", 14))
        + &w.bookmark("Pod", 15, false);
    s.respond(200, &events, false);
    let (requests, events) = s.take();
    assert!(requests.is_empty());
    assert_eq!(events, ["Resumed 12", "Modified p1", "Deleted p3"]);
    assert_eq!(s.engine.store().len(), 3);
    assert_eq!(s.engine.status().resource_version.unwrap().as_str(), "15");
}

#[test]
fn a_restored_view_whose_version_expired_relists_and_deletes_the_rows_that_vanished() {
    let config = table_config(Mode::ListWatch);
    let view = SavedView::decode(&saved(config.clone())).unwrap();
    let mut s = Server::with(Engine::restore(config, view, Instant::ZERO).unwrap());
    s.take();
    // kube-apiserver answers a watch from a compacted version with a 200 and an
    // ERROR event: "too old resource version".
    let error = s.printer.watch().error(GONE_EVENT);
    s.respond(200, &error, true);
    // Since the save: p1 unchanged, p2 modified, p3 and p4 gone, p5 new.
    let list = s.printer.list(
        90,
        "",
        None,
        &[
            pod("a", "p1", "u1", 5),
            pod("a", "p2", "u2", 40),
            pod("c", "p5", "u5", 80),
        ],
    );
    s.respond(200, &list, true);
    let (requests, events) = s.take();
    assert_eq!(
        requests,
        [
            "[as=Table] /api/v1/pods?limit=500",
            "[as=Table] /api/v1/pods?watch=true&resourceVersion=90&allowWatchBookmarks=true",
        ]
    );
    assert_eq!(
        events,
        [
            "Resumed 12",
            "Relisting: version expired: too old resource version: 12 (90)",
            // The same columns: only what changed is told.
            "Modified p2",
            "Added p5",
            "Page 1",
            "Deleted p3",
            "Deleted p4",
            "Synced 3 at 90",
        ]
    );
    assert_eq!(s.engine.store().len(), 3);
}

#[test]
fn a_410_head_on_the_restored_watch_relists_too() {
    let config = table_config(Mode::ListWatch);
    let view = SavedView::decode(&saved(config.clone())).unwrap();
    let mut s = Server::with(Engine::restore(config, view, Instant::ZERO).unwrap());
    s.take();
    s.respond(410, GONE_EVENT, true);
    let list = s.printer.list(90, "", None, &[pod("a", "p1", "u1", 5)]);
    s.respond(200, &list, true);
    let (requests, events) = s.take();
    assert_eq!(requests[0], "[as=Table] /api/v1/pods?limit=500");
    assert_eq!(
        events,
        [
            "Relisting: version expired: too old resource version: 12 (90)",
            "Page 1",
            "Deleted p2",
            "Deleted p3",
            "Deleted p4",
            "Synced 1 at 90",
        ]
    );
}

#[test]
fn a_restored_streaming_view_watches_and_streams_from_no_older_than_its_version_after_a_410() {
    let config = table_config(Mode::StreamingList);
    // Saved from a list-then-watch engine: the mode is how a view syncs, not what it is.
    let view = SavedView::decode(&saved(table_config(Mode::ListWatch))).unwrap();
    let mut s = Server::with(Engine::restore(config, view, Instant::ZERO).unwrap());
    let (requests, _) = s.take();
    assert_eq!(
        requests,
        ["[as=Table] /api/v1/pods?watch=true&resourceVersion=12&allowWatchBookmarks=true"]
    );
    let error = s.printer.watch().error(GONE_EVENT);
    s.respond(200, &error, true);
    let mut w = s.printer.watch();
    let initial = w.event("ADDED", &pod("a", "p1", "u1", 5))
        + &w.event("ADDED", &pod("a", "p2", "u2", 11))
        + &w.bookmark("Pod", 95, true);
    s.respond(200, &initial, false);
    let (requests, events) = s.take();
    assert_eq!(
        requests,
        ["[as=Table] /api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=12&allowWatchBookmarks=true"]
    );
    assert_eq!(
        events,
        [
            "Resumed 12",
            "Relisting: version expired: too old resource version: 12 (90)",
            "Deleted p3",
            "Deleted p4",
            "Synced 2 at 95",
        ]
    );
}

#[test]
fn a_view_saved_of_something_else_is_refused() {
    let bytes = saved(table_config(Mode::ListWatch));
    let other = |f: &dyn Fn(&mut Config)| {
        let mut c = table_config(Mode::ListWatch);
        f(&mut c);
        let view = SavedView::decode(&bytes).unwrap();
        match Engine::restore(c, view, Instant::ZERO) {
            Err(e) => e,
            Ok(_) => panic!("restored into another view"),
        }
    };
    let e = other(&|c| c.collection = Collection::parse("/api/v1/namespaces/a/pods").unwrap());
    assert_eq!(
        e.to_string(),
        "the saved view's collection is \"/api/v1/pods\", not this view's \"/api/v1/namespaces/a/pods\""
    );
    let e = other(&|c| c.label_selector = Some("app=web".into()));
    assert!(
        matches!(
            e,
            RestoreError::OtherView {
                what: "label selector",
                ..
            }
        ),
        "{e}"
    );
    let e = other(&|c| c.field_selector = Some("spec.nodeName=n1".into()));
    assert!(
        matches!(
            e,
            RestoreError::OtherView {
                what: "field selector",
                ..
            }
        ),
        "{e}"
    );
    let e = other(&|c| c.metadata = KeptMetadata::All);
    assert_eq!(
        e.to_string(),
        "the saved view's format is \"rows\", not this view's \"rows+meta\""
    );
    let e = other(&|c| *c = Config::new(c.collection.clone()));
    assert!(
        matches!(e, RestoreError::OtherView { what: "format", .. }),
        "{e}"
    );
    // An empty selector is no selector.
    let mut c = table_config(Mode::ListWatch);
    c.label_selector = Some(String::new());
    assert!(Engine::restore(c, SavedView::decode(&bytes).unwrap(), Instant::ZERO).is_ok());
}

#[test]
fn only_identity_rows_at_one_version_are_saved() {
    let refused = |config: Config| watching(config).engine.save_view().unwrap_err();
    let mut objects = table_config(Mode::ListWatch);
    objects.format = kubelive_core::Format::Objects;
    let engine = Engine::new(objects, Instant::ZERO);
    assert_eq!(engine.save_view(), Err(SaveError::NotTables));
    let mut all = table_config(Mode::ListWatch);
    all.metadata = KeptMetadata::All;
    assert_eq!(refused(all.clone()), SaveError::AllMetadata);
    assert!(refused(all).to_string().contains("may hold secrets"));
    let mut owners = table_config(Mode::ListWatch);
    owners.metadata = KeptMetadata::Owners;
    let engine = Engine::new(owners, Instant::ZERO);
    assert_eq!(engine.save_view(), Err(SaveError::OwnerReferences));
    let whole = table_config(Mode::ListWatch).tables(IncludeObject::Object);
    assert_eq!(refused(whole), SaveError::WholeObjects);

    // While listing: the rows are not the state at one version.
    let mut s = Server::with(Engine::new(table_config(Mode::ListWatch), Instant::ZERO));
    assert_eq!(s.engine.save_view(), Err(SaveError::NotAtVersion));
    let page = s
        .printer
        .list(10, "next", Some(5), &[pod("a", "p1", "u1", 5)]);
    s.respond(200, &page, true);
    assert_eq!(s.engine.save_view(), Err(SaveError::NotAtVersion));

    // Stopped while watching, it still holds the state at its version.
    let mut s = watching(table_config(Mode::ListWatch));
    s.engine.stop();
    let view = SavedView::decode(&s.engine.save_view().unwrap()).unwrap();
    assert_eq!(view.resource_version().as_str(), "12");
}

#[test]
fn a_row_that_holds_an_object_is_never_saved() {
    // The server sent whole objects in rows although metadata was asked for: such
    // rows keep their object, and the view is not saved.
    let mut s = Server::with(Engine::new(table_config(Mode::ListWatch), Instant::ZERO));
    let whole = Printer::pods(Rows::Object);
    s.respond(
        200,
        &whole.list(10, "", None, &[pod("a", "p1", "u1", 5)]),
        true,
    );
    s.respond(200, "", false);
    assert_eq!(
        s.engine.save_view(),
        Err(SaveError::RowNotSavable {
            namespace: "a".into(),
            name: "p1".into()
        })
    );
}

#[test]
fn damaged_cut_or_foreign_bytes_are_errors_never_panics() {
    let bytes = saved(table_config(Mode::ListWatch));
    // Every truncation.
    for n in 0..bytes.len() {
        let e = SavedView::decode(&bytes[..n]).unwrap_err();
        let expected = match n {
            0..=3 => RestoreError::NotASavedView,
            _ => RestoreError::Damaged,
        };
        assert_eq!(e, expected, "cut at {n}");
    }
    // Every byte flipped, one at a time.
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x5A;
        assert!(SavedView::decode(&b).is_err(), "flipped byte {i}");
    }
    // Bytes appended.
    let mut longer = bytes.clone();
    longer.extend_from_slice(b"xx");
    assert_eq!(
        SavedView::decode(&longer).unwrap_err(),
        RestoreError::Damaged
    );
    // Another format version, another file.
    let mut next = bytes.clone();
    next[4] = 2;
    let e = SavedView::decode(&next).unwrap_err();
    assert_eq!(
        e,
        RestoreError::OtherVersion {
            found: 2,
            supported: 1
        }
    );
    assert_eq!(
        e.to_string(),
        "a saved view of format version 2; this version reads 1"
    );
    assert_eq!(
        SavedView::decode(b"{\"kind\":\"Table\"}").unwrap_err(),
        RestoreError::NotASavedView
    );
    assert_eq!(
        RestoreError::Damaged.to_string(),
        "the saved view is damaged or cut short (its checksum does not match)"
    );
}
