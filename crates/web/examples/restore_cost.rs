//! What a kept view's restore costs the engine that shows it (native, release):
//! `cargo run --release -p kubelive-web --no-default-features --features watcher
//! --example restore_cost [-- ROWS]` (100,000 by default). Pods as the apiserver
//! prints them are listed into an engine in table mode and saved
//! (`Engine::save_view`); then, timed: the saved bytes decoded and an engine
//! restored from them with its events drained, those events applied to a JS API view
//! (the one `<kubelive-table>` draws, default order) that had drawn its first (empty)
//! window before, as a page's does while the view is read, and the view's first window
//! of 50 rows.

use kubelive_core::{Collection, Config, Engine, Event, IncludeObject, Instant, SavedView};
use kubelive_web::api::view::{View, ViewOptions};
use std::time::Instant as Clock;

mod common;

fn drain(e: &mut Engine) -> Vec<Event> {
    std::iter::from_fn(|| e.poll_event()).collect()
}

fn main() {
    let rows: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    let config = || {
        let mut c = Config::new(Collection::parse("/api/v1/pods").expect("a path"))
            .tables(IncludeObject::Metadata);
        c.metadata = kubelive_core::KeptMetadata::Identity;
        c
    };
    let mut e = Engine::new(config(), Instant::ZERO);
    let list = e.poll_request().expect("the LIST");
    e.handle_response(list.id, 200, &[], Instant::ZERO);
    e.handle_body(list.id, common::pod_table(rows).as_bytes(), Instant::ZERO);
    e.handle_end(list.id, Instant::ZERO);
    drain(&mut e);
    let saved = e.save_view().expect("a saved view");
    let started = Clock::now();
    let ms = move || started.elapsed().as_secs_f64() * 1000.0;
    let wall = 1_706_000_000.0;

    let t = ms();
    let view = SavedView::decode(&saved).expect("decoded");
    let decoded = ms() - t;
    let t = ms();
    let mut restored = Engine::restore(config(), view, Instant::ZERO).expect("restored");
    let events = drain(&mut restored);
    let engine = ms() - t;
    let mut v = View::new(
        kubelive_core::ColumnKind::Pod,
        true,
        None,
        ViewOptions::default(),
    );
    v.window(&kubelive_core::Store::new(), 0, 50, ms(), wall, &ms);
    let t = ms();
    for ev in &events {
        if let Event::Columns { columns } = ev {
            v.set_definitions(Some(columns.clone()));
        }
    }
    v.apply(&events, t);
    let applied = ms() - t;
    let t = ms();
    let w = v.window(restored.store(), 0, 50, t, wall, &ms);
    let window = ms() - t;
    println!(
        "{rows} rows, saved view {:.1} MB: decode {decoded:.1} ms, engine restored and drained {engine:.1} ms ({} events), view apply {applied:.1} ms, first window {window:.1} ms ({} of {} rows)",
        saved.len() as f64 / 1e6,
        events.len(),
        w.rows.len(),
        w.length
    );
}
