//! What a JS API view (the one `<kubelive-table>` draws) costs a frame under churn
//! (native, release): `cargo run --release -p kubelive-web --no-default-features
//! --features watcher --example view_cost [-- ROWS [SECONDS]]` (100,000 rows, 10 s by
//! default). Pods as the apiserver prints them (metadata rows, kubectl's pod columns)
//! are listed through an engine in table mode; a view sorted by Age reads the first
//! window of 40 rows; then every 16 ms frame gets 1,000 changes/s of watch events (a
//! pod's restarts and resourceVersion), applied to the view, and the window is read
//! again: the time of each frame's view work (apply, window) is printed as median,
//! p99 and max, with the frames over 50 ms (long tasks). Then a header click (sort by
//! Restarts: the first window, then the windows that build the rest in slices) and a
//! filter (first window).

use kubelive_core::{Collection, Config, Engine, Event, IncludeObject, Instant};
use kubelive_web::api::view::{View, ViewOptions};
use std::time::Instant as Clock;

mod common;
use common::pod_row as row;

fn drain(e: &mut Engine) -> Vec<Event> {
    let mut events = Vec::new();
    while let Some(ev) = e.poll_event() {
        events.push(ev);
    }
    events
}

fn main() {
    let mut args = std::env::args().skip(1);
    let rows: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let seconds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let started = Clock::now();
    let ms = move || started.elapsed().as_secs_f64() * 1000.0;
    let wall = 1_706_000_000.0;

    let config = Config::new(Collection::parse("/api/v1/pods").expect("a path"))
        .tables(IncludeObject::Metadata);
    let mut e = Engine::new(config, Instant::ZERO);
    let mut view = View::new(
        kubelive_core::ColumnKind::Pod,
        true,
        None,
        ViewOptions {
            sort: Some("age".into()),
            ..ViewOptions::default()
        },
    );
    // The element reads its first (empty) window before the list comes.
    view.window(e.store(), 0, 40, ms(), wall, &ms);
    let list = e.poll_request().expect("the LIST");
    e.handle_response(list.id, 200, &[], Instant::ZERO);
    let body = common::pod_table(rows);
    e.handle_body(list.id, body.as_bytes(), Instant::ZERO);
    e.handle_end(list.id, Instant::ZERO);
    let events = drain(&mut e);
    for ev in &events {
        if let Event::Columns { columns } = ev {
            view.set_definitions(Some(columns.clone()));
        }
    }
    // Applied in batches as LIST pages come (500 rows, then twice as many each page),
    // a window read after each.
    let (mut at, mut page, mut longest, mut total) = (0, 500, 0.0f64, 0.0);
    let mut w = None;
    while at < events.len() {
        let end = (at + page).min(events.len());
        let t = ms();
        view.apply(&events[at..end], t);
        w = Some(view.window(e.store(), 0, 40, t, wall, &ms));
        longest = longest.max(ms() - t);
        total += ms() - t;
        (at, page) = (end, page * 2);
    }
    let w = w.expect("a window");
    println!(
        "{rows} rows listed, applied a page at a time, a window after each, sorted by Age: {total:.1} ms in all, the longest page {longest:.1} ms; {} rows of {}",
        w.rows.len(),
        w.length
    );
    // Sort keys prepared as idle windows would.
    while view.window(e.store(), 0, 40, ms(), wall, &ms).pending {}

    let watch = loop {
        let r = e.poll_request().expect("the watch");
        if r.path.contains("watch=") {
            break r;
        }
    };
    e.handle_response(watch.id, 200, &[], Instant::ZERO);
    let mut rv = rows as u64;
    let mut restarts = vec![0u64; rows];
    let mut next = 12345usize;
    let mut frames = Vec::new();
    let per_frame = 1000.0 * 16.0 / 1000.0;
    let mut owed = 0.0;
    for _ in 0..seconds * 1000 / 16 {
        owed += per_frame;
        let mut lines = String::new();
        while owed >= 1.0 {
            owed -= 1.0;
            next = (next * 1_103_515_245 + 12_345) % rows;
            rv += 1;
            restarts[next] += 1;
            lines.push_str(&format!(
                r#"{{"type":"MODIFIED","object":{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"{rv}"}},"columnDefinitions":null,"rows":[{}]}}}}"#,
                row(next, rv, restarts[next])
            ));
            lines.push('\n');
        }
        e.handle_body(watch.id, lines.as_bytes(), Instant::ZERO);
        let events = drain(&mut e);
        let t = ms();
        view.apply(&events, t);
        let w = view.window(e.store(), 0, 40, t, wall, &ms);
        frames.push(ms() - t);
        assert_eq!(w.rows.len(), 40);
    }
    frames.sort_by(f64::total_cmp);
    let at = |q: f64| frames[((frames.len() - 1) as f64 * q) as usize];
    println!(
        "{} frames of 1,000 changes/s, sorted by Age: view work per frame median {:.3} ms, p99 {:.3} ms, max {:.3} ms; {} over 50 ms",
        frames.len(),
        at(0.5),
        at(0.99),
        at(1.0),
        frames.iter().filter(|&&f| f > 50.0).count()
    );
    let t = ms();
    view.set(ViewOptions {
        sort: Some("-restarts".into()),
        ..ViewOptions::default()
    });
    let w = view.window(e.store(), 0, 40, ms(), wall, &ms);
    println!(
        "sort by Restarts (a header click), first window: {:.1} ms (first row {} restarts)",
        ms() - t,
        w.rows[0].cells[4]
    );
    // The rest of the sort in slices, a window a frame (until nothing is pending:
    // the churn's rows stop flashing too).
    let (mut slices, mut longest) = (0, 0.0f64);
    loop {
        let t = ms();
        let w = view.window(e.store(), 0, 40, t, wall, &ms);
        longest = longest.max(ms() - t);
        slices += 1;
        if !w.pending {
            break;
        }
    }
    println!("then {slices} windows until nothing is pending, the longest {longest:.1} ms");
    let t = ms();
    view.set(ViewOptions {
        filter: Some("app-7".into()),
        ..ViewOptions::default()
    });
    let w = view.window(e.store(), 0, 40, ms(), wall, &ms);
    println!(
        "filter app-7, first window: {:.1} ms ({} matches so far)",
        ms() - t,
        w.length
    );
}
