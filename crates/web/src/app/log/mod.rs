//! The event log: the view's changes and the engine's news, newest first, as a
//! snapshot of its newest lines refreshed at most every 250 ms (`buffer`); under the
//! pointer it holds still.

mod buffer;

use buffer::Lines;
use kubelive_core::Event as CoreEvent;
use kubelive_table::key_of;
use std::rc::Rc;
use yew::prelude::*;

pub enum Msg {
    /// The pointer entered (true) or left the log.
    Hold(bool),
}

/// The log's lines and whether object changes are news yet.
pub struct Log {
    lines: Lines,
    /// Synced: object changes are news (the initial list is not).
    live: bool,
    /// Made once, so that the log's props compare equal across renders.
    on_hold: Callback<bool>,
}

impl Log {
    pub fn new(send: Callback<Msg>) -> Log {
        Log {
            lines: Lines::default(),
            live: false,
            on_hold: send.reform(Msg::Hold),
        }
    }

    /// A new view: its initial list is not news.
    pub fn restart(&mut self) {
        self.live = false;
    }

    pub fn push(
        &mut self,
        kind: &'static str,
        object: String,
        version: String,
        tone: &'static str,
    ) {
        let d = js_sys::Date::new_0();
        let at = format!(
            "{:02}:{:02}:{:02}",
            d.get_hours(),
            d.get_minutes(),
            d.get_seconds()
        );
        self.lines.push(kind, object, version, at, tone);
    }

    pub fn note_events(&mut self, events: &[CoreEvent]) {
        for e in events {
            match e {
                // Object changes only once synced: the initial list is not news.
                CoreEvent::Added(o)
                | CoreEvent::Modified { new: o, .. }
                | CoreEvent::Deleted(o)
                    if self.live =>
                {
                    let kind = match e {
                        CoreEvent::Added(_) => "ADDED",
                        CoreEvent::Modified { .. } => "MODIFIED",
                        _ => "DELETED",
                    };
                    let tone = match kind {
                        "ADDED" => "added",
                        "DELETED" => "deleted",
                        _ => "modified",
                    };
                    self.push(kind, key_of(o), o.resource_version().to_string(), tone);
                }
                CoreEvent::Synced {
                    objects,
                    resource_version,
                } => {
                    self.live = true;
                    self.push(
                        "SYNCED",
                        format!("{objects} objects"),
                        resource_version.to_string(),
                        "ok",
                    )
                }
                CoreEvent::Resumed { resource_version } => self.push(
                    "RESUMED",
                    "watch".into(),
                    resource_version.to_string(),
                    "ok",
                ),
                CoreEvent::Relisting { reason } => {
                    self.push("RELIST", reason.to_string(), String::new(), "warn")
                }
                CoreEvent::BackingOff { reason, .. } => {
                    self.push("BACKOFF", reason.clone(), String::new(), "warn")
                }
                CoreEvent::Failed { error } => {
                    self.push("FAILED", error.to_string(), String::new(), "error")
                }
                _ => {}
            }
        }
    }

    /// Brings what is shown up to date (at most every 250 ms).
    pub fn refresh(&mut self, now: f64) {
        self.lines.refresh(now);
    }

    /// Whether lines wait to be shown (a later frame must refresh).
    pub fn behind(&self) -> bool {
        self.lines.behind()
    }

    /// The pointer entered (true) or left the log: it holds still, or shows what
    /// came meanwhile. True if lines still wait (a later frame must refresh).
    pub fn hold(&mut self, held: bool, now: f64) -> bool {
        self.lines.hold(held);
        if held {
            return false;
        }
        self.lines.refresh(now);
        self.lines.behind()
    }

    pub fn view(&self) -> Html {
        let held = self.lines.held();
        html! {
            <EventLog entries={self.lines.shown()} {held}
                unseen={if held { self.lines.unseen() } else { 0 }}
                on_hold={self.on_hold.clone()} />
        }
    }
}

/// One line of the event log.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LogEntry {
    pub seq: u64,
    /// ADDED, MODIFIED, DELETED, SYNCED, RELIST, BACKOFF, FAILED, RESUMED, VIEW.
    pub kind: &'static str,
    pub object: String,
    pub version: String,
    /// Wall-clock time, HH:MM:SS.
    pub at: String,
    /// CSS tone: added, modified, deleted, ok, warn, error, note.
    pub tone: &'static str,
}

#[derive(Properties, PartialEq)]
pub struct EventLogProps {
    pub entries: Rc<Vec<LogEntry>>,
    /// Held still while the pointer is over it.
    pub held: bool,
    /// Entries recorded but not shown yet.
    pub unseen: u64,
    pub on_hold: Callback<bool>,
}

/// The last changes, newest first.
#[function_component(EventLog)]
pub fn event_log(p: &EventLogProps) -> Html {
    let enter = p.on_hold.reform(|_: MouseEvent| true);
    let leave = p.on_hold.reform(|_: MouseEvent| false);
    html! {
        <footer class="log" id="log" onmouseenter={enter} onmouseleave={leave} data-held={p.held.to_string()}>
            <div class="log-title">
                {"Recent changes"}
                if p.held {
                    <span class="log-held" id="log-held">
                        { if p.unseen == 0 { "paused".to_string() } else { format!("paused · {} new", p.unseen) } }
                    </span>
                }
            </div>
            <LogList entries={p.entries.clone()} />
        </footer>
    }
}

#[derive(Properties, PartialEq)]
struct LogListProps {
    entries: Rc<Vec<LogEntry>>,
}

/// The lines: re-rendered only when a new snapshot of them is shown.
#[function_component(LogList)]
fn log_list(p: &LogListProps) -> Html {
    html! {
        // Focusable: it scrolls, and a keyboard must be able to scroll it.
        <ol class="log-list" tabindex="0" aria-label="Recent changes, newest first">
            { for p.entries.iter().map(|e| html! {
                <li key={e.seq} class={classes!("log-entry", e.tone)} data-kind={e.kind}>
                    <span class="log-at">{ e.at.clone() }</span>
                    <span class="log-kind">{ e.kind }</span>
                    <span class="log-obj">{ e.object.clone() }</span>
                    <span class="log-rv">{ if e.version.is_empty() { String::new() } else { format!("rv {}", e.version) } }</span>
                </li>
            }) }
        </ol>
    }
}
