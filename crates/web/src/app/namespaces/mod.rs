//! Namespaces and access: the namespaces watch that suggests names, the namespaces
//! this browser remembers (`prefs`), and what the server says the user may list
//! (`access`, asked by `reviews`): the pickers' marks and the namespaces a refused
//! view offers come from it.

pub mod access;
mod field;
pub mod prefs;
mod reviews;

pub use field::{NamespaceField, NamespaceFieldProps, NsOption};

use crate::app::discovery::Discovery;
use crate::app::url::ViewState;
use crate::driver::{Driver, DriverRef};
use access::{Access, Question};
use kubelive_core::{Collection, Config, Event as CoreEvent};
use std::collections::HashSet;
use std::rc::Rc;
use yew::prelude::*;

pub enum Msg {
    /// The namespaces watch's names, sorted.
    Listed(Vec<String>),
    /// The namespaces watch failed (the server's words), or works again (None).
    Failed(Option<String>),
    /// An access review answered: its HTTP status and body, or a transport error.
    Reviewed(Question, Result<(u16, String), String>),
    /// The resource picker got the focus: worth asking what the user may list.
    PickerFocus,
}

/// The marks the pickers show, recomputed when something is learnt (not per frame).
#[derive(Default)]
pub struct Marks {
    /// Resource ids the user may not list in the current scope.
    pub denied: HashSet<String>,
    ns_options: Rc<Vec<NsOption>>,
    /// What is known of the current scope for the current resource.
    scope_mark: Option<AttrValue>,
}

pub struct Namespaces {
    /// The namespaces watch.
    feed: Option<Driver>,
    names: Vec<String>,
    /// The namespaces watch's failure (the server's words).
    failure: Option<String>,
    /// Namespaces this browser remembers (newest first).
    remembered: Vec<String>,
    /// Namespaces the user chose this session (asked about past the review budget).
    typed: Vec<String>,
    pub access: Access,
    /// The resource picker was focused: ask about every resource.
    picker_focused: bool,
    pub marks: Marks,
    send: Callback<Msg>,
    /// Made once, so that the namespace field compares equal across renders.
    on_choose: Callback<String>,
}

impl Namespaces {
    /// `on_choose`: a namespace the user chose (`""`: all namespaces).
    pub fn new(send: Callback<Msg>, on_choose: Callback<String>) -> Namespaces {
        Namespaces {
            feed: None,
            names: Vec::new(),
            failure: None,
            remembered: prefs::remembered(),
            typed: Vec::new(),
            access: Access::default(),
            picker_focused: false,
            marks: Marks::default(),
            send,
            on_choose,
        }
    }

    /// Starts the namespaces watch.
    pub fn start(&mut self) {
        let send = self.send.clone();
        let sink = Box::new(move |d: &DriverRef<'_>, events: Vec<CoreEvent>| {
            for e in &events {
                if let CoreEvent::Failed { error } = e {
                    send.emit(Msg::Failed(Some(error.to_string())));
                }
            }
            let changed = events.iter().any(|e| {
                matches!(
                    e,
                    CoreEvent::Added(_) | CoreEvent::Deleted(_) | CoreEvent::Synced { .. }
                )
            });
            if changed {
                let names =
                    d.with_store(|s| s.sorted().iter().map(|o| o.name().to_string()).collect());
                send.emit(Msg::Listed(names));
            }
        });
        let config = Config::new(Collection::new("/api/v1", None, "namespaces"));
        self.feed = Some(Driver::start(config, "", sink));
    }

    /// Stops the namespaces watch (the app goes).
    pub fn stop(&mut self) {
        self.feed = None;
    }

    /// The user chose namespace `ns`: remembered, and asked about past the budget.
    pub fn chose(&mut self, ns: &str) {
        prefs::remember(ns);
        self.remembered = prefs::remembered();
        if !self.typed.iter().any(|t| t == ns) {
            self.typed.push(ns.to_string());
        }
    }

    /// What was learnt, for a `view` (`forbidden`: the server refused it for lack
    /// of permission). True if the pickers may show something new.
    pub fn update(
        &mut self,
        msg: Msg,
        view: &ViewState,
        discovery: &Discovery,
        forbidden: bool,
    ) -> bool {
        match msg {
            Msg::Listed(names) => {
                self.names = names;
                self.failure = None;
                self.refresh_marks(view, discovery);
                self.plan_reviews(view, discovery, forbidden);
                true
            }
            Msg::Failed(why) => {
                self.failure = why;
                true
            }
            Msg::Reviewed(question, reply) => {
                self.access.answer(&question, reply);
                self.refresh_marks(view, discovery);
                self.plan_reviews(view, discovery, forbidden);
                true
            }
            Msg::PickerFocus => {
                if self.picker_focused {
                    return false;
                }
                self.picker_focused = true;
                self.plan_reviews(view, discovery, forbidden);
                false
            }
        }
    }

    /// The namespace field, showing `value` (`""`: all namespaces); `namespaced`:
    /// the view's resource has namespaces.
    pub fn view_field(&self, value: Option<&String>, namespaced: bool) -> Html {
        html! {
            <NamespaceField
                value={AttrValue::from(value.cloned().unwrap_or_default())}
                options={self.marks.ns_options.clone()}
                disabled={!namespaced}
                note={self.failure.as_ref().map(|e| AttrValue::from(format!("cannot list namespaces ({e}): type a name")))}
                mark={self.marks.scope_mark.clone()}
                on_apply={self.on_choose.clone()} />
        }
    }

    /// The focus handler of the resource picker.
    pub fn on_picker_focus(&self) -> Callback<FocusEvent> {
        self.send.reform(|_: FocusEvent| Msg::PickerFocus)
    }
}
