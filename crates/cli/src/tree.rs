//! `kubelive tree <resource>/<name>`: an object and what it owns, live.
//!
//! One engine per kind involved (the object's own kind, watched by its name, and the
//! kinds its controller makes, [`kubelive_core::owners::dependent_kinds`], down to the
//! leaves, each watched in the object's namespace), all in table mode as `-o table`
//! runs, and one [`Owners`] join fed by every engine's events. Each engine's requests
//! run on I/O threads as `watch`'s do ([`crate::run`]); their messages reach the main
//! loop tagged with the engine's index.
//!
//! The tree is printed as `kubectl tree` prints it (box-drawing characters under the
//! root), each node with the Ready and Status cells its server printed, its health
//! rolled up from what it owns ([`kubelive_core::Health`]) and its age; a level whose
//! kind cannot be listed is a line saying why.

use crate::args::{Namespaces, Output, TreeArgs, WatchArgs};
use crate::http::{self, BaseUrl, Pool};
use crate::output::human_age;
use crate::run::{self, Clock, Conn, Job, Msg, Terminal, CONNECT_TIMEOUT, MAX_FAILED};
use kubelive_core::owners::{api_group, kinds_below, ready_text, status_text, Absence, NodeRef};
use kubelive_core::time::parse_rfc3339_ms;
use kubelive_core::{
    ApiErrorKind, Cell, Collection, Config, Engine, Event, Health, IncludeObject, Instant,
    KeptMetadata, Owners, Request, RequestId, SourceId, TableColumn, TransportError,
};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::io::{IsTerminal, Write};
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::time::Duration;

/// The tag of signal messages on the main channel.
const SIGNAL: usize = usize::MAX;
/// Redraws at most this often while the tree changes.
const MIN_INTERVAL: Duration = Duration::from_millis(250);
/// And this often for ages.
const REFRESH: Duration = Duration::from_secs(1);

/// One kind's engine and what the tree knows of its state.
struct Kind {
    engine: Engine,
    /// The collection watched (told with -v).
    path: String,
    source: SourceId,
    tx: SyncSender<Msg>,
    inflight: HashMap<RequestId, Arc<Conn>>,
    synced: bool,
    /// The server does not serve this kind (404): nothing of it can exist.
    gone: bool,
    /// Refused (401/403, or another failure retrying will not fix), with the message.
    refused: Option<String>,
    failed_in_a_row: u32,
}

fn prefix_of(group: &str) -> String {
    if group.is_empty() {
        "/api/v1".into()
    } else {
        format!("/apis/{group}/v1")
    }
}

fn config(collection: Collection, field_selector: Option<String>) -> Config {
    let mut c = Config::new(collection).tables(IncludeObject::Metadata);
    c.field_selector = field_selector;
    // The join reads ownerReferences; the rest of a row's metadata is not shown.
    c.metadata = KeptMetadata::Owners;
    c.strip_managed_fields = true;
    c.seed = run::seed();
    c.backoff.needs_user_floor = Duration::from_secs(2);
    c
}

/// What the root's one GET found: its kind and the namespaces holding the name.
struct Found {
    kind: String,
    namespaces: Vec<String>,
}

/// `GET <collection>?fieldSelector=metadata.name=<name>`: the list's kind says the
/// objects' kind (`DeploymentList`), its items where the name is.
fn find_root(base: &BaseUrl, pool: &Pool, c: &Collection, name: &str) -> Result<Found, String> {
    let path = format!(
        "{}?fieldSelector=metadata.name%3D{}",
        c.path(),
        name.replace('%', "%25")
            .replace('&', "%26")
            .replace('#', "%23")
    );
    let r = http::get(base, pool, &path, CONNECT_TIMEOUT)
        .map_err(|e| format!("GET {base}{path}: {e}"))?;
    if !(200..300).contains(&r.status) {
        let headers: Vec<(&str, &str)> = r
            .headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let e = kubelive_core::ApiError::from_http(
            r.status,
            kubelive_core::retry_after(&headers),
            &r.body,
        );
        return Err(e.message);
    }
    let v: Value = serde_json::from_slice(&r.body)
        .map_err(|e| format!("GET {base}{path}: not a list: {e}"))?;
    let kind = v
        .get("kind")
        .and_then(Value::as_str)
        .and_then(|k| k.strip_suffix("List"))
        .unwrap_or("")
        .to_string();
    let mut namespaces: Vec<String> = v
        .get("items")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|o| o.pointer("/metadata/name").and_then(Value::as_str) == Some(name))
        .map(|o| {
            o.pointer("/metadata/namespace")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        })
        .collect();
    namespaces.sort();
    namespaces.dedup();
    Ok(Found { kind, namespaces })
}

/// Runs `kubelive tree`; returns the exit status.
pub fn tree(t: TreeArgs) -> i32 {
    let base = match BaseUrl::parse(&t.server) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("kubelive: --server: {e}");
            return 2;
        }
    };
    let clock = Clock(std::time::Instant::now());
    let end_wall = t.duration.map(|d| clock.0 + d);
    let (sig_tx, sig_rx) = mpsc::sync_channel::<Msg>(4);
    run::start_signals(sig_tx);
    let pool = Arc::new(Pool::default());
    let w = WatchArgs {
        resource: t.resource.clone(),
        server: t.server.clone(),
        namespaces: t
            .namespace
            .clone()
            .map_or(Namespaces::Default, Namespaces::One),
        label_selector: None,
        field_selector: None,
        streaming_list: false,
        page_size: 500,
        max_page_size: 4000,
        pipeline_pages: true,
        output: Output::Table,
        wide: false,
        server_print: true,
        duration: t.duration,
        watch_timeout: None,
        strip_managed_fields: true,
        verbose: t.verbose,
    };
    let root_collection = match run::collection(&w, &base, &pool, &clock, end_wall, &sig_rx) {
        Ok(c) => c,
        Err((0, _)) => return 0,
        Err((code, msg)) => {
            eprintln!("kubelive: error: {msg}");
            return code;
        }
    };
    let found = match find_root(&base, &pool, &root_collection, &t.name) {
        Ok(f) => f,
        Err(msg) => {
            eprintln!("kubelive: error: {msg}");
            return 1;
        }
    };
    let namespace = match found.namespaces.as_slice() {
        [] => {
            let r#where = t
                .namespace
                .as_deref()
                .map(|n| format!(" in namespace {n:?}"))
                .unwrap_or_default();
            eprintln!(
                "kubelive: error: {} {:?} not found{where}",
                root_collection.resource(),
                t.name
            );
            return 1;
        }
        [one] => one.clone(),
        many => {
            eprintln!(
                "kubelive: error: {} {:?} is in several namespaces ({}): pass -n",
                root_collection.resource(),
                t.name,
                many.join(", ")
            );
            return 2;
        }
    };
    let ns = (!namespace.is_empty()).then_some(namespace.as_str());
    // `/apis/apps/v1` is group apps, `/api/v1` the core group.
    let root_group = match root_collection.prefix().strip_prefix("/apis/") {
        Some(gv) => api_group(gv).to_string(),
        None => String::new(),
    };

    let (tx, rx) = mpsc::sync_channel::<(usize, Msg)>(64);
    {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for m in sig_rx {
                if tx.send((SIGNAL, m)).is_err() {
                    break;
                }
            }
        });
    }
    let mut owners = Owners::new();
    let mut kinds: Vec<Kind> = Vec::new();
    let mut add =
        |owners: &mut Owners, group: &str, kind: &str, c: Collection, fs: Option<String>| {
            let (etx, erx) = mpsc::sync_channel::<Msg>(64);
            let idx = kinds.len();
            let main = tx.clone();
            std::thread::spawn(move || {
                for m in erx {
                    if main.send((idx, m)).is_err() {
                        break;
                    }
                }
            });
            kinds.push(Kind {
                path: c.path(),
                engine: Engine::new(config(c, fs), Instant::ZERO),
                source: owners.add_source(group, kind),
                tx: etx,
                inflight: HashMap::new(),
                synced: false,
                gone: false,
                refused: None,
                failed_in_a_row: 0,
            });
        };
    add(
        &mut owners,
        &root_group,
        &found.kind,
        root_collection.clone().with_namespace(ns),
        Some(format!("metadata.name={}", t.name)),
    );
    for (group, kind, resource) in kinds_below(&root_group, &found.kind) {
        let c = Collection::new(&prefix_of(group), ns, resource);
        add(&mut owners, group, kind, c, None);
    }
    drop(tx);
    let tty = std::io::stdout().is_terminal();
    let mut d = Tree {
        kinds,
        owners,
        base,
        pool,
        clock,
        out: std::io::BufWriter::new(std::io::stdout()),
        verbose: t.verbose,
        tty,
        dirty: true,
        last_draw: None,
        last_text: String::new(),
        terminal: Terminal::default(),
        fatal: None,
        title: format!("{}/{}", root_collection.resource(), t.name),
        root_name: t.name.clone(),
        reached: false,
    };
    if t.verbose {
        for k in &d.kinds {
            if let Some((group, kind)) = d.owners.source_kind(k.source) {
                run::note(&d.clock, &format!("watching {kind} ({group}) {}", k.path));
            }
        }
    }
    for i in 0..d.kinds.len() {
        d.drain(i);
    }
    let end_at = t.duration.map(|dur| Instant::from_millis(0) + dur);
    loop {
        if d.fatal.is_some() {
            break;
        }
        let now = d.clock.now();
        if end_at.is_some_and(|e| now >= e) {
            break;
        }
        if t.once && d.all_synced() {
            break;
        }
        let mut deadline: Option<Instant> = end_at;
        let mut consider = |x: Instant| deadline = Some(deadline.map_or(x, |y| y.min(x)));
        for k in &d.kinds {
            if let Some(x) = k.engine.poll_timeout() {
                consider(x);
            }
        }
        if !t.once {
            if let Some(x) = d.next_draw() {
                consider(x);
            }
        }
        let wait = deadline.map_or(Duration::from_secs(3600), |x| {
            Duration::from_millis(x.as_millis().saturating_sub(now.as_millis()))
        });
        match rx.recv_timeout(wait) {
            Ok((SIGNAL, _)) => break,
            Ok((i, msg)) => d.feed(i, msg),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        let now = d.clock.now();
        for i in 0..d.kinds.len() {
            if d.kinds[i].engine.poll_timeout().is_some_and(|x| now >= x) {
                d.kinds[i].engine.handle_timeout(now);
            }
            d.drain(i);
        }
        if !t.once && (d.tty || d.all_synced()) {
            d.maybe_draw(false);
        }
        if d.out.flush().is_err() {
            return 0;
        }
    }
    for k in &mut d.kinds {
        k.engine.stop();
        for (_, conn) in k.inflight.drain() {
            conn.cancel();
        }
    }
    if let Some(msg) = d.fatal.take() {
        let _ = d.out.flush();
        eprintln!("kubelive: error: {msg}");
        return 1;
    }
    if t.once {
        if !d.all_synced() {
            let _ = d.out.flush();
            eprintln!(
                "kubelive: error: stopped before every kind was listed{}",
                if d.reached {
                    ""
                } else {
                    " (the server was never reached)"
                }
            );
            return 1;
        }
        if d.root().is_none() {
            eprintln!("kubelive: error: {} not found", d.title);
            return 1;
        }
        let text = d.render();
        let _ = d.out.write_all(text.as_bytes());
    } else if d.tty {
        d.maybe_draw(true);
    }
    let _ = d.out.flush();
    0
}

struct Tree {
    kinds: Vec<Kind>,
    owners: Owners,
    base: BaseUrl,
    pool: Arc<Pool>,
    clock: Clock,
    out: std::io::BufWriter<std::io::Stdout>,
    verbose: bool,
    tty: bool,
    dirty: bool,
    last_draw: Option<Instant>,
    /// The last tree printed into a pipe (printed again only when it changes).
    last_text: String,
    terminal: Terminal,
    fatal: Option<String>,
    title: String,
    root_name: String,
    /// A response came from the server.
    reached: bool,
}

impl Tree {
    fn feed(&mut self, i: usize, msg: Msg) {
        let now = self.clock.now();
        let verbose = self.verbose;
        let k = &mut self.kinds[i];
        match msg {
            Msg::Head {
                id,
                status,
                headers,
                ..
            } => {
                self.reached = true;
                if verbose {
                    run::note(&self.clock, &format!("< {status} {id} (kind {i})"));
                }
                let h: Vec<(&str, &str)> = headers
                    .iter()
                    .map(|(a, b)| (a.as_str(), b.as_str()))
                    .collect();
                k.engine.handle_response(id, status, &h, now);
            }
            Msg::Body { id, bytes } => k.engine.handle_body(id, &bytes, now),
            Msg::End { id } => {
                k.inflight.remove(&id);
                k.engine.handle_end(id, now);
            }
            Msg::Error { id, error, .. } => {
                k.inflight.remove(&id);
                k.engine.handle_error(id, error, now);
            }
            Msg::Signal(_) => {}
        }
    }

    fn drain(&mut self, i: usize) {
        loop {
            let mut any = false;
            while let Some(id) = self.kinds[i].engine.poll_cancel() {
                any = true;
                if let Some(conn) = self.kinds[i].inflight.remove(&id) {
                    conn.cancel();
                }
            }
            while let Some(req) = self.kinds[i].engine.poll_request() {
                any = true;
                self.spawn(i, req);
            }
            while let Some(event) = self.kinds[i].engine.poll_event() {
                any = true;
                self.event(i, event);
            }
            if !any {
                break;
            }
        }
    }

    fn spawn(&mut self, i: usize, req: Request) {
        if self.verbose {
            run::note(&self.clock, &format!("> {req} ({})", req.id));
        }
        let k = &mut self.kinds[i];
        let conn = Arc::new(Conn::default());
        k.inflight.insert(req.id, conn.clone());
        let Request {
            id, path, accept, ..
        } = req;
        let job = Job {
            base: self.base.clone(),
            pool: self.pool.clone(),
            id,
            path,
            accept,
            conn,
            tx: k.tx.clone(),
        };
        let spawned = std::thread::Builder::new()
            .name(format!("kubelive-tree-{i}-{id}"))
            .spawn(move || job.run());
        if let Err(e) = spawned {
            k.inflight.remove(&id);
            k.engine.handle_error(
                id,
                TransportError::Connect(format!("cannot start a thread: {e}")),
                self.clock.now(),
            );
        }
    }

    fn event(&mut self, i: usize, event: Event) {
        let k = &mut self.kinds[i];
        if self.owners.apply(k.source, &event) {
            self.dirty = true;
        }
        match &event {
            Event::Synced { .. } => {
                k.synced = true;
                k.failed_in_a_row = 0;
                if k.refused.take().is_some() {
                    self.owners.set_unavailable(k.source, None);
                }
                self.dirty = true;
            }
            Event::Resumed { .. } | Event::PageListed { .. } => k.failed_in_a_row = 0,
            Event::Relisting { .. } => k.synced = false,
            Event::Failed { error } => {
                k.failed_in_a_row += 1;
                if i == 0 {
                    // The root's own kind: it was found a moment ago; a refusal that
                    // lasts, or its kind gone, ends the run.
                    if error.kind == ApiErrorKind::NotFound || k.failed_in_a_row >= MAX_FAILED {
                        self.fatal = Some(error.message.clone());
                    }
                } else if error.kind == ApiErrorKind::NotFound {
                    // Not served here: no object of it can be in the tree.
                    k.gone = true;
                    k.engine.stop();
                    for (_, conn) in k.inflight.drain() {
                        conn.cancel();
                    }
                } else if k.refused.is_none() {
                    k.refused = Some(error.message.clone());
                    self.owners.set_unavailable(k.source, Some(&error.message));
                }
                self.dirty = true;
            }
            _ => {}
        }
        if self.verbose {
            if let Some(l) = crate::output::progress(&event, self.clock.now()) {
                run::note(&self.clock, &format!("kind {i}: {l}"));
            }
        }
    }

    fn all_synced(&self) -> bool {
        self.kinds
            .iter()
            .enumerate()
            .all(|(i, k)| k.synced || (i > 0 && (k.gone || k.refused.is_some())))
    }

    /// The root's node (the one object of the root's engine, by name).
    fn root(&self) -> Option<NodeRef<'_>> {
        let o = self.kinds[0]
            .engine
            .store()
            .iter()
            .find(|o| o.name() == self.root_name)?;
        self.owners.get(o.uid())
    }

    fn columns(&self, source: Option<SourceId>) -> Option<&[TableColumn]> {
        let k = self.kinds.iter().find(|k| Some(k.source) == source)?;
        k.engine.columns().map(|c| &c[..])
    }

    fn render(&self) -> String {
        let Some(root) = self.root() else {
            return format!("{} not found (deleted?)\n", self.title);
        };
        render_tree(root, |s| self.columns(s), run::wall_now(), self.tty)
    }

    fn next_draw(&self) -> Option<Instant> {
        Some(match self.last_draw {
            None => self.clock.now(),
            Some(t) if self.dirty => t + MIN_INTERVAL,
            Some(t) => t + REFRESH,
        })
    }

    fn maybe_draw(&mut self, force: bool) {
        let now = self.clock.now();
        if !force && self.next_draw().is_some_and(|t| now < t) {
            return;
        }
        self.last_draw = Some(now);
        self.dirty = false;
        let text = self.render();
        if self.tty {
            let synced = self.kinds.iter().filter(|k| k.synced).count();
            let mut screen = String::from("\x1b[H\x1b[2J");
            let rows = self.terminal.rows(now);
            screen.push_str(&format!(
                "kubelive tree {}: {} objects, {synced}/{} kinds synced\n\n",
                self.title,
                self.owners.len(),
                self.kinds.len()
            ));
            let lines: Vec<&str> = text.lines().collect();
            let fit = match (force, rows) {
                (false, Some(r)) => r.saturating_sub(3).max(1),
                _ => lines.len(),
            };
            for l in lines.iter().take(fit) {
                screen.push_str(l);
                screen.push('\n');
            }
            if lines.len() > fit {
                screen.push_str(&format!("… {} more\n", lines.len() - fit));
            }
            let _ = self.out.write_all(screen.as_bytes());
        } else if text != self.last_text {
            // Into a pipe: the tree again each time it changes, a blank line between.
            let _ = self.out.write_all(text.as_bytes());
            let _ = self.out.write_all(b"\n");
            self.last_text = text;
        }
        let _ = self.out.flush();
    }
}

fn health_word(h: Health) -> &'static str {
    match h {
        Health::Unknown => "-",
        Health::Ok => "ok",
        Health::Progressing => "progressing",
        Health::Bad => "bad",
    }
}

fn colour(h: Health, text: &str) -> String {
    let code = match h {
        Health::Ok => "32",
        Health::Progressing => "33",
        Health::Bad => "31",
        Health::Unknown => return text.to_string(),
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

/// One printed line: cells laid out in columns, or a note spanning the rest.
enum Line {
    Row([String; 6], Health),
    Note(String, String),
}

/// The tree below `root` as `kubectl tree` lays it out: NAMESPACE, NAME (indented with
/// box-drawing characters), READY, STATUS, HEALTH (the roll-up), AGE. `columns` gives a
/// source's column definitions; `now` is the wall clock in seconds; `tty` colours
/// HEALTH.
pub fn render_tree<'a>(
    root: NodeRef<'a>,
    columns: impl Fn(Option<SourceId>) -> Option<&'a [TableColumn]>,
    now: i64,
    tty: bool,
) -> String {
    let mut lines: Vec<Line> = Vec::new();
    let mut seen = HashSet::new();
    let mut header = String::new();
    if let Some((owner, _)) = root.owners().into_iter().next() {
        header = format!("owned by {}/{}\n", owner.kind(), owner.name());
    }
    walk(root, "", "", &columns, now, &mut seen, &mut lines);
    let head = ["NAMESPACE", "NAME", "READY", "STATUS", "HEALTH", "AGE"].map(String::from);
    let mut widths = head.clone().map(|h| h.chars().count());
    for l in &lines {
        if let Line::Row(cells, _) = l {
            for (w, c) in widths.iter_mut().zip(cells) {
                *w = (*w).max(c.chars().count());
            }
        }
    }
    let pad = |s: &str, w: usize| format!("{s}{}", " ".repeat(w.saturating_sub(s.chars().count())));
    let mut out = header;
    let row = |cells: &[String; 6], h: Option<Health>| {
        let mut s = String::new();
        for (i, (c, w)) in cells.iter().zip(widths).enumerate() {
            let text = if i == 5 { c.clone() } else { pad(c, w) };
            match (i, h) {
                (4, Some(h)) if tty => s.push_str(&colour(h, &text)),
                _ => s.push_str(&text),
            }
            if i < 5 {
                s.push_str("   ");
            }
        }
        s.trim_end().to_string()
    };
    out.push_str(&row(&head, None));
    out.push('\n');
    for l in &lines {
        match l {
            Line::Row(cells, h) => out.push_str(&row(cells, Some(*h))),
            Line::Note(ns, text) => {
                out.push_str(&pad(ns, widths[0]));
                out.push_str("   ");
                out.push_str(text);
            }
        }
        out.push('\n');
    }
    out
}

fn walk<'a>(
    n: NodeRef<'a>,
    lead: &str,
    branch: &str,
    columns: &impl Fn(Option<SourceId>) -> Option<&'a [TableColumn]>,
    now: i64,
    seen: &mut HashSet<String>,
    lines: &mut Vec<Line>,
) {
    if !seen.insert(n.uid().to_string()) {
        return;
    }
    let name = format!("{lead}{branch}{}/{}", n.kind(), n.name());
    match (n.object(), n.absence()) {
        (Some(o), _) => {
            // The server's cells, or for an object (a server that prints no tables)
            // the fallback printer's.
            let fallback_columns;
            let (cols, cells): (&[TableColumn], Vec<Cell<'_>>) = match o.cells() {
                Some(c) => (columns(n.source_id()).unwrap_or(&[]), c.collect()),
                None => match o.fallback_cells() {
                    Some(c) => {
                        fallback_columns = c.kind().columns();
                        (&fallback_columns, c.collect())
                    }
                    None => (&[], Vec::new()),
                },
            };
            let age = o
                .creation_timestamp()
                .and_then(parse_rfc3339_ms)
                .map_or_else(|| "<unknown>".to_string(), |ms| human_age(now - ms / 1000));
            lines.push(Line::Row(
                [
                    n.namespace().to_string(),
                    name,
                    ready_text(cols, &cells).unwrap_or_else(|| "-".into()),
                    status_text(cols, &cells).unwrap_or_else(|| "-".into()),
                    health_word(n.rolled_health()).to_string(),
                    age,
                ],
                n.rolled_health(),
            ));
        }
        (None, absence) => {
            let why = match absence {
                Some(Absence::Unavailable(why)) => format!("cannot be listed: {why}"),
                Some(Absence::NotWatched) => "not watched".to_string(),
                _ => "not seen (deleted, or not listed yet)".to_string(),
            };
            lines.push(Line::Note(
                n.namespace().to_string(),
                format!("{name}   ({why})"),
            ));
        }
    }
    let deps = n.dependents();
    let missing = n.missing_below();
    let deps_len = deps.len();
    let count = deps_len + missing.len();
    let child_lead = format!(
        "{lead}{}",
        match branch {
            "" => "",
            "└─" => "  ",
            _ => "│ ",
        }
    );
    for (i, d) in deps.into_iter().enumerate() {
        let b = if i + 1 == count { "└─" } else { "├─" };
        walk(d, &child_lead, b, columns, now, seen, lines);
    }
    for (j, m) in missing.iter().enumerate() {
        let b = if deps_len + j + 1 == count {
            "└─"
        } else {
            "├─"
        };
        lines.push(Line::Note(
            n.namespace().to_string(),
            format!("{child_lead}{b}{}: cannot be listed: {}", m.kind, m.why),
        ));
    }
}
