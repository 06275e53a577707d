//! What the user sees: event lines, progress lines, the live table, the snapshot.

use kubelive_core::{Cell, ColumnKind, Event, Object, Phase, Status, Store, TableColumn};
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

/// An event as a stdout line (object changes) or a stderr line (progress).
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Out(String),
    Err(String),
}

/// How an engine event is shown in `--output events`, without a clock: as
/// [`event_line_in`], but no age.
pub fn event_line(event: &Event, now: kubelive_core::Instant) -> Line {
    line_of(event, now, None, None)
}

/// How an engine event is shown in `--output events`: `ADDED     ns/name  rv=N` and
/// the row's default cells but its name, `name=value` (`ready=1/1 status=Running
/// restarts=0 age=5m`): a table row's under the server's `columns`, an object's under
/// the fallback printer's. Age counts on from creationTimestamp to `wall_now`.
pub fn event_line_in(
    event: &Event,
    now: kubelive_core::Instant,
    columns: Option<&[TableColumn]>,
    wall_now: i64,
) -> Line {
    line_of(event, now, columns, Some(wall_now))
}

fn line_of(
    event: &Event,
    now: kubelive_core::Instant,
    columns: Option<&[TableColumn]>,
    wall_now: Option<i64>,
) -> Line {
    let line = |verb: &str, o: &Object| {
        format!(
            "{verb:<9} {}  rv={}{}",
            key(o),
            o.resource_version(),
            row_summary(o, columns, wall_now)
        )
    };
    match event {
        Event::Added(o) => Line::Out(line("ADDED", o)),
        Event::Modified { new, .. } => Line::Out(line("MODIFIED", new)),
        Event::Deleted(o) => Line::Out(line("DELETED", o)),
        other => Line::Err(progress(other, now).unwrap_or_default()),
    }
}

/// A row's default cells but its name, as `  ready=1/1 status=Running age=5m` (no Age
/// without `wall_now`): a table row's under the server's `columns`, an object's under
/// the fallback printer's; empty when there is none to show.
fn row_summary(o: &Object, columns: Option<&[TableColumn]>, wall_now: Option<i64>) -> String {
    let fallback;
    let (columns, cells) = match (columns, o.fallback_kind()) {
        (Some(columns), None) => (columns, o.printed_cells(false)),
        (_, Some(kind)) => {
            fallback = kind.columns();
            (&fallback[..], o.printed_cells(true))
        }
        (None, None) => return String::new(),
    };
    let Some(cells) = cells else {
        return String::new();
    };
    let mut s = String::new();
    for (col, cell) in columns.iter().zip(cells) {
        if col.priority > 0 || col.is_name() || (col.is_age() && wall_now.is_none()) {
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
        let value = cell_text(o, col, cell, wall_now.unwrap_or(0));
        if value.is_empty() || value.contains(char::is_whitespace) || value.contains('"') {
            let _ = write!(s, " {key}={value:?}");
        } else {
            let _ = write!(s, " {key}={value}");
        }
    }
    if !s.is_empty() {
        s.insert(0, ' ');
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

/// The table of the current state, like `kubectl get`: the server's `columns` and
/// cells while it prints tables, else (None) the fallback printer's for the objects'
/// kind; every column with `wide` (`-o wide`), else those of priority 0; NAMESPACE
/// first when the objects span namespaces. Headers are upper-cased as kubectl does;
/// Age counts on from creationTimestamp.
pub fn table(
    store: &Store,
    columns: Option<&[TableColumn]>,
    wall_now: i64,
    with_namespace: bool,
    wide: bool,
    rows_shown: Shown,
) -> String {
    let objects = rows_shown.objects(store);
    let fallback_columns;
    let (columns, fallback) = match columns {
        Some(columns) => (columns, false),
        None => {
            let kind = objects
                .first()
                .and_then(|o| o.fallback_kind())
                .unwrap_or(ColumnKind::Generic);
            fallback_columns = kind.columns();
            (&fallback_columns[..], true)
        }
    };
    let shown: Vec<usize> = (0..columns.len())
        .filter(|&i| wide || columns[i].priority == 0)
        .collect();
    let mut rows: Vec<Vec<String>> = Vec::with_capacity(objects.len() + 1);
    let mut header: Vec<String> = Vec::with_capacity(shown.len() + 1);
    if with_namespace {
        header.push("NAMESPACE".into());
    }
    header.extend(shown.iter().map(|&i| columns[i].name.to_uppercase()));
    rows.push(header);
    for o in objects {
        let mut r: Vec<String> = Vec::with_capacity(shown.len() + 1);
        if with_namespace {
            r.push(o.namespace().to_string());
        }
        let cells: Vec<Cell<'_>> = o
            .printed_cells(fallback)
            .map(Iterator::collect)
            .unwrap_or_default();
        for &i in &shown {
            let col = &columns[i];
            r.push(match cells.get(i) {
                Some(cell) => cell_text(o, col, cell.clone(), wall_now),
                // Printed by the other printer (the server started or stopped printing
                // tables, and the rows are being replaced): its name at least.
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
