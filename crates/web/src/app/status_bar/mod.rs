//! The status bar, which tells the truth about the engine (`Engine::status()`), and
//! the polite live region that says its state to screen readers (`announce`).

mod announce;

use super::problem::Blocked;
use crate::status::StatusView;
use yew::prelude::*;

/// The main engine's status as shown, and what the live region says of it.
#[derive(Default)]
pub struct Status {
    pub view: StatusView,
    announcer: announce::Announcer,
    announced: String,
}

impl Status {
    /// A new view: its loading goes without saying.
    pub fn restart(&mut self) {
        self.announcer.restart();
    }

    /// No engine runs for the view.
    pub fn stopped(&mut self) {
        self.view = StatusView {
            phase: "stopped",
            ..StatusView::default()
        };
    }

    pub fn synced(&self) -> bool {
        self.view.synced
    }

    /// Has the live region say the status's state when that is news (`announce`).
    /// True if it says something new.
    pub fn announce(&mut self, now: f64) -> bool {
        match self.announcer.note(&self.view, now) {
            Some(words) => {
                self.announced = words;
                true
            }
            None => false,
        }
    }

    /// The status bar for a view of `resource`; `blocked`: why no engine runs;
    /// `kept`: the rows shown are the first screen this browser kept.
    pub fn view(&self, resource: &str, blocked: Option<&Blocked>, kept: bool) -> Html {
        let instead = match blocked {
            _ if kept => Some("Rows as this browser kept them: catching up…"),
            Some(Blocked::Discovering) => Some("Discovering resources…"),
            Some(_) => Some("Not started: see below"),
            None => None,
        };
        html! {
            <StatusBar status={self.view.clone()} resource={resource.to_string()}
                instead={instead.map(AttrValue::from)} />
        }
    }

    /// The status's news for screen readers: its state, throttled (the status bar's
    /// counters change every second and are not announced).
    pub fn view_announce(&self) -> Html {
        html! {
            <div class="sr-only" id="announce" role="status" aria-live="polite" aria-atomic="true">
                { self.announced.clone() }
            </div>
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct StatusBarProps {
    pub status: StatusView,
    pub resource: String,
    /// Said instead of the engine's headline when no engine runs (the view waits for
    /// discovery, or cannot start).
    #[prop_or_default]
    pub instead: Option<AttrValue>,
}

/// The status bar: the engine's phase and health, from `Engine::status()`.
#[function_component(StatusBar)]
pub fn status_bar(p: &StatusBarProps) -> Html {
    let s = &p.status;
    let tone = s.tone();
    let error = s.last_error.as_ref().filter(|e| {
        s.phase == "backingOff" && s.failed.is_none() && s.backoff_reason.as_ref() != Some(*e)
    });
    html! {
        <div class={classes!("statusbar", tone)} id="status" data-phase={s.phase} data-synced={s.synced.to_string()}
             data-rv={s.resource_version.clone().unwrap_or_default()}
             data-relists={s.relists.to_string()} data-resumes={s.resumes.to_string()}>
            // The dot's colour repeats the headline's words (never alone).
            <span class="dot" aria-hidden="true"></span>
            <span class="headline" id="status-headline">{ p.instead.as_ref().map(|i| i.to_string()).unwrap_or_else(|| s.headline()) }</span>
            if let Some(e) = error {
                <span class="err" title={e.clone()}>{ e.clone() }</span>
            }
            <span class="facts">
                { for s.details().into_iter().map(|d| html! { <span class="fact">{d}</span> }) }
            </span>
        </div>
    }
}
