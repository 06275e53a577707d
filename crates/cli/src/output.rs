//! What the user sees: event lines, progress lines, the live table, the snapshot.

use kubelive_core::{Cell, Columns, Event, Object, Phase, Status, Store, TableColumn};
use std::fmt::Write as _;
use std::sync::Arc;

/// `ns/name`, or `name` for cluster-scoped objects.
pub fn key(o: &Object) -> String {
    if o.namespace().is_empty() {
        o.name().to_string()
    } else {
        format!("{}/{}", o.namespace(), o.name())
    }
}

/// A few columns for an event line (`status=Running ready=1/1 ...`), empty for
/// generic resources.
fn summary(o: &Object) -> String {
    match o.columns() {
        Columns::Pod(p) => {
            let mut s = format!(
                "  status={} ready={}/{} restarts={}",
                p.status, p.ready, p.containers, p.restarts
            );
            if !p.node.is_empty() {
                let _ = write!(s, " node={}", p.node);
            }
            s
        }
        Columns::Deployment(d) => format!(
            "  ready={}/{} up-to-date={} available={}",
            d.ready, d.desired, d.up_to_date, d.available
        ),
        Columns::Generic => String::new(),
    }
}

fn change_line(verb: &str, o: &Object) -> String {
    format!(
        "{verb:<9} {}  rv={}{}",
        key(o),
        o.resource_version(),
        summary(o)
    )
}

/// An event as a stdout line (object changes) or a stderr line (progress).
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Out(String),
    Err(String),
}

/// How an engine event is shown in `--output events` (objects: kubelive's own columns).
pub fn event_line(event: &Event, now: kubelive_core::Instant) -> Line {
    event_line_in(event, now, None, 0)
}

/// How an engine event is shown in `--output events`: a table row (with the server's
/// `columns`) shows its default cells, `name=value`, Age counted to `wall_now`.
pub fn event_line_in(
    event: &Event,
    now: kubelive_core::Instant,
    columns: Option<&[TableColumn]>,
    wall_now: i64,
) -> Line {
    let line = |verb: &str, o: &Object| match columns {
        Some(columns) if o.is_row() => format!(
            "{verb:<9} {}  rv={}{}",
            key(o),
            o.resource_version(),
            row_summary(o, columns, wall_now)
        ),
        _ => change_line(verb, o),
    };
    match event {
        Event::Added(o) => Line::Out(line("ADDED", o)),
        Event::Modified { new, .. } => Line::Out(line("MODIFIED", new)),
        Event::Deleted(o) => Line::Out(line("DELETED", o)),
        other => Line::Err(progress(other, now).unwrap_or_default()),
    }
}

/// A row's default cells but its name, as `  ready=1/1 status=Running age=5m`.
fn row_summary(o: &Object, columns: &[TableColumn], wall_now: i64) -> String {
    let mut s = String::from(" ");
    let Some(cells) = o.cells() else {
        return String::new();
    };
    for (col, cell) in columns.iter().zip(cells) {
        if col.priority > 0 || col.is_name() {
            continue;
        }
        let key: String = col
            .name
            .chars()
            .map(|c| {
                if c.is_whitespace() {
                    '-'
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect();
        let value = cell_text(o, col, cell, wall_now);
        if value.is_empty() || value.contains(char::is_whitespace) || value.contains('"') {
            let _ = write!(s, " {key}={value:?}");
        } else {
            let _ = write!(s, " {key}={value}");
        }
    }
    s
}

/// A cell as kubectl prints it; the `Age` column counts on from the row's
/// creationTimestamp (the server's text is as old as the row).
fn cell_text(o: &Object, col: &TableColumn, cell: Cell<'_>, wall_now: i64) -> String {
    if col.is_age() {
        if let Some(t) = o.creation_timestamp().and_then(parse_timestamp) {
            return human_age(wall_now - t);
        }
    }
    cell.to_string()
}

/// A progress message for stderr, `None` for object changes.
pub fn progress(event: &Event, now: kubelive_core::Instant) -> Option<String> {
    Some(match event {
        Event::Added(_) | Event::Modified { .. } | Event::Deleted(_) => return None,
        Event::PageListed {
            page,
            objects,
            remaining,
        } => match remaining {
            Some(r) => format!("listed page {page} ({objects} objects so far, ~{r} remaining)"),
            None => format!("listed page {page} ({objects} objects so far)"),
        },
        Event::Synced {
            objects,
            resource_version,
        } => format!("synced {objects} objects at rv {resource_version}"),
        Event::Resumed { resource_version } => {
            format!("resumed watch at rv {resource_version}")
        }
        Event::Restored {
            objects,
            resource_version,
        } => format!("restored {objects} saved objects at rv {resource_version}"),
        Event::Relisting { reason } => format!("relisting because {reason}"),
        Event::BackingOff { until, reason } => {
            let ms = until.as_millis().saturating_sub(now.as_millis());
            format!(
                "backing off {}.{}s because {reason}",
                ms / 1000,
                (ms % 1000) / 100
            )
        }
        Event::Failed { error } => format!("failed: {error}"),
        Event::Columns { columns } => format!(
            "columns: {}",
            columns
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Event::TablesUnavailable { why } => {
            format!("the server prints no tables here ({why}): showing objects")
        }
    })
}

/// The snapshot: one compact JSON object per line, sorted by namespace then name.
pub fn snapshot(store: &Store) -> String {
    let mut out = String::new();
    for o in store.sorted() {
        out.push_str(&o.json_str());
        out.push('\n');
    }
    out
}

/// Unix seconds of a timestamp as the apiserver writes them (RFC 3339:
/// `2024-05-01T12:34:56Z`, fractions and offsets accepted).
pub fn parse_timestamp(s: &str) -> Option<i64> {
    kubelive_core::time::parse_rfc3339_ms(s).map(|ms| ms.div_euclid(1000))
}

/// An age the way kubectl prints it (`45s`, `3m12s`, `25m`, `5h3m`, `2d4h`, `90d`,
/// `3y20d`). A creation a few seconds in the future (this machine's clock trails the
/// server's) reads `0s`, not kubectl's `<invalid>`.
pub fn human_age(secs: i64) -> String {
    kubelive_core::time::human_duration(secs.max(0).saturating_mul(1000))
}

fn age(o: &Object, wall_now: i64) -> String {
    match o.creation_timestamp().and_then(parse_timestamp) {
        Some(t) => human_age(wall_now - t),
        None => "<unknown>".into(),
    }
}

/// Lays rows out in columns separated by three spaces, like kubectl.
fn layout(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; cols];
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (i, c) in r.iter().enumerate() {
            if i + 1 == r.len() {
                line.push_str(c);
            } else {
                let _ = write!(line, "{c:<w$}   ", w = widths[i]);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Which rows a table shows: every one (a pipe, the last table), or the first that fit
/// a terminal (a live redraw formats a screenful, not the whole collection).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    All,
    First(usize),
}

impl Shown {
    fn objects(self, store: &Store) -> Vec<&Arc<Object>> {
        match self {
            Shown::All => store.sorted(),
            Shown::First(n) => store.first_sorted(n),
        }
    }

    /// The line that says what was left out, if anything was.
    fn footer(self, store: &Store, out: &mut String) {
        if let Shown::First(n) = self {
            if store.len() > n {
                let _ = writeln!(
                    out,
                    "... and {} more (the first {n} by namespace and name; a pipe or -o events shows every row)",
                    store.len() - n
                );
            }
        }
    }
}

/// The table of the current state, like `kubectl get` (with NAMESPACE when the
/// objects span namespaces).
pub fn table(store: &Store, wall_now: i64, with_namespace: bool, shown: Shown) -> String {
    let objects = shown.objects(store);
    let kind = objects.first().map(|o| o.columns());
    let ns = |o: &Object| -> Vec<String> {
        if with_namespace {
            vec![o.namespace().to_string()]
        } else {
            Vec::new()
        }
    };
    let mut rows: Vec<Vec<String>> = Vec::with_capacity(objects.len() + 1);
    let mut header: Vec<String> = Vec::new();
    if with_namespace {
        header.push("NAMESPACE".into());
    }
    match kind {
        Some(Columns::Pod(_)) => {
            header.extend(["NAME", "READY", "STATUS", "RESTARTS", "AGE", "NODE"].map(String::from));
            rows.push(header);
            for o in objects {
                let mut r = ns(o);
                r.push(o.name().to_string());
                match o.columns() {
                    Columns::Pod(p) => r.extend([
                        format!("{}/{}", p.ready, p.containers),
                        p.status.to_string(),
                        p.restarts.to_string(),
                        age(o, wall_now),
                        if p.node.is_empty() {
                            "<none>".into()
                        } else {
                            p.node.to_string()
                        },
                    ]),
                    _ => r.extend(["", "", "", ""].map(String::from)),
                }
                rows.push(r);
            }
        }
        Some(Columns::Deployment(_)) => {
            header.extend(["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"].map(String::from));
            rows.push(header);
            for o in objects {
                let mut r = ns(o);
                r.push(o.name().to_string());
                match o.columns() {
                    Columns::Deployment(d) => r.extend([
                        format!("{}/{}", d.ready, d.desired),
                        d.up_to_date.to_string(),
                        d.available.to_string(),
                        age(o, wall_now),
                    ]),
                    _ => r.extend(["", "", "", ""].map(String::from)),
                }
                rows.push(r);
            }
        }
        _ => {
            header.extend(["NAME", "AGE"].map(String::from));
            rows.push(header);
            for o in objects {
                let mut r = ns(o);
                r.push(o.name().to_string());
                r.push(age(o, wall_now));
                rows.push(r);
            }
        }
    }
    let mut out = layout(&rows);
    shown.footer(store, &mut out);
    out
}

/// The table of the current state as the server prints it (`columns`: the Table's
/// definitions), like `kubectl get` (`wide`: every column, as `-o wide`), with
/// NAMESPACE first when the objects span namespaces. Headers are upper-cased as kubectl
/// does; Age counts on from creationTimestamp.
pub fn server_table(
    store: &Store,
    columns: &[TableColumn],
    wall_now: i64,
    with_namespace: bool,
    wide: bool,
    rows_shown: Shown,
) -> String {
    let shown: Vec<usize> = (0..columns.len())
        .filter(|&i| wide || columns[i].priority == 0)
        .collect();
    let mut rows: Vec<Vec<String>> = Vec::with_capacity(store.len() + 1);
    let mut header: Vec<String> = Vec::with_capacity(shown.len() + 1);
    if with_namespace {
        header.push("NAMESPACE".into());
    }
    header.extend(shown.iter().map(|&i| columns[i].name.to_uppercase()));
    rows.push(header);
    for o in rows_shown.objects(store) {
        let mut r: Vec<String> = Vec::with_capacity(shown.len() + 1);
        if with_namespace {
            r.push(o.namespace().to_string());
        }
        let cells: Vec<Cell<'_>> = o.cells().map(Iterator::collect).unwrap_or_default();
        for &i in &shown {
            let col = &columns[i];
            r.push(match cells.get(i) {
                Some(cell) => cell_text(o, col, cell.clone(), wall_now),
                // Not a row (the server stopped printing): its name at least.
                None if col.is_name() => o.name().to_string(),
                None => String::new(),
            });
        }
        rows.push(r);
    }
    let mut out = layout(&rows);
    rows_shown.footer(store, &mut out);
    out
}

/// One line saying where the engine stands.
pub fn status_line(s: &Status, now: kubelive_core::Instant) -> String {
    let phase = match &s.phase {
        Phase::Listing { page } => format!("listing page {page}"),
        Phase::InitialEvents => "receiving initial events".into(),
        Phase::Watching if s.connected => "watching".into(),
        Phase::Watching => "connecting".into(),
        Phase::BackingOff { until } => {
            let ms = until.as_millis().saturating_sub(now.as_millis());
            format!("backing off ({}.{}s)", ms / 1000, (ms % 1000) / 100)
        }
        Phase::Stopped => "stopped".into(),
    };
    let mut line = format!(
        "{phase} | {} objects | rv {} | {} | +{} ~{} -{} | resumes {} renewed {} relists {} errors {}",
        s.objects,
        s.resource_version.as_ref().map_or("-", |v| v.as_str()),
        if s.synced { "synced" } else { "not synced" },
        s.added,
        s.modified,
        s.deleted,
        s.resumes,
        s.renewals,
        s.relists,
        s.errors,
    );
    if let Some(t) = s.last_byte_at {
        // How fresh the connection is: a silent one shows here before its deadline.
        let secs = now.as_millis().saturating_sub(t.as_millis()) / 1000;
        let _ = write!(line, " | last byte {secs}s ago");
    }
    if let Some(e) = &s.last_error {
        let e: String = e.chars().take(120).collect();
        let _ = write!(line, " | last error: {e}");
    }
    line
}
