//! Asking the server what the user may list (access reviews, `access`), and
//! what the pickers and the problem panel make of the answers.
//!
//! What is asked, in this order, each question once a session and a few at a time:
//! the view's resource in its scope (SelfSubjectAccessReview); the view's namespace's
//! rules (SelfSubjectRulesReview: marks every resource of the picker for it); when
//! the view is refused (403) or known to be, the rules of the namespaces worth
//! offering; when the resource picker gets the focus, every resource in the scope
//! it would be opened in (within the session's budget).

use super::access::{candidates, Question, Verdict};
use super::field::NsOption;
use super::{Marks, Msg, Namespaces};
use crate::app::discovery::Discovery;
use crate::app::fetch::fetch;
use crate::app::problem::Choice;
use crate::app::url::ViewState;
use std::rc::Rc;
use yew::prelude::*;

/// How long a review may take.
const REVIEW_TIMEOUT_MS: i32 = 8000;
/// Namespaces offered in the problem panel.
const CHOICES: usize = 24;

impl Namespaces {
    /// Namespaces worth offering or asking about, for a view in `namespace`.
    fn candidates(&self, namespace: Option<&str>) -> Vec<String> {
        candidates(namespace, &self.remembered, &self.names)
    }

    /// Sends the questions worth asking now about `view`; `forbidden`: the server
    /// refused it for lack of permission.
    pub fn plan_reviews(&mut self, view: &ViewState, discovery: &Discovery, forbidden: bool) {
        if !self.access.supported() {
            return;
        }
        let Some(rt) = discovery.find(&view.resource).cloned() else {
            return;
        };
        let target = rt.target();
        let scope = discovery.scope(view);
        let mut wanted = vec![Question::CanList {
            target: target.clone(),
            scope: scope.clone(),
        }];
        if let Some(ns) = &scope {
            wanted.push(Question::Rules {
                namespace: ns.clone(),
            });
        }
        let refused = forbidden || self.access.verdict(&target, &scope).is_denied();
        if rt.namespaced && refused {
            wanted.extend(
                self.candidates(view.namespace.as_deref())
                    .into_iter()
                    .map(|namespace| Question::Rules { namespace }),
            );
        }
        if self.picker_focused {
            // Each resource in the scope the picker would open it in: one rules
            // review covers every namespaced resource of a namespace.
            wanted.extend(discovery.found.resources.iter().map(|r| {
                match view.namespace.clone().filter(|_| r.namespaced) {
                    Some(namespace) => Question::Rules { namespace },
                    None => Question::CanList {
                        target: r.target(),
                        scope: None,
                    },
                }
            }));
        }
        for q in self.access.next(&wanted, &self.typed) {
            let send = self.send.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let body = q.body();
                let reply = fetch(q.path(), "application/json", Some(&body), REVIEW_TIMEOUT_MS)
                    .await
                    .map(|r| (r.status, r.body));
                send.emit(Msg::Reviewed(q, reply));
            });
        }
    }

    /// The namespaces the problem panel offers for the view's resource: those the
    /// user may use first, then those not known either way (denied ones are listed
    /// apart). The namespace that failed is not offered again.
    pub fn choices(&self, view: &ViewState, discovery: &Discovery) -> Vec<Choice> {
        let Some(rt) = discovery.find(&view.resource) else {
            return Vec::new();
        };
        let target = rt.target();
        let failed = discovery.scope(view);
        let mut out: Vec<Choice> = self
            .candidates(view.namespace.as_deref())
            .into_iter()
            .filter(|ns| Some(ns) != failed.as_ref())
            .map(|ns| Choice {
                verdict: self.access.verdict(&target, &Some(ns.clone())),
                name: ns,
            })
            .collect();
        let rank = |v: &Verdict| match v {
            Verdict::Allowed => 0,
            Verdict::Unknown => 1,
            Verdict::Denied(_) => 2,
        };
        out.sort_by_key(|c| rank(&c.verdict));
        out.truncate(CHOICES);
        out
    }

    /// Recomputes what the pickers mark (after anything was learnt).
    pub fn refresh_marks(&mut self, view: &ViewState, discovery: &Discovery) {
        let ns = view.namespace.clone();
        let denied = discovery
            .found
            .resources
            .iter()
            .filter(|r| {
                let scope = if r.namespaced { ns.clone() } else { None };
                self.access.verdict(&r.target(), &scope).is_denied()
            })
            .map(|r| r.id())
            .collect();
        let (plural, target) = match discovery.find(&view.resource) {
            Some(rt) if rt.namespaced => (rt.plural.clone(), Some(rt.target())),
            Some(rt) => (rt.plural.clone(), None),
            None => (String::new(), None),
        };
        let ns_options = self
            .candidates(None)
            .into_iter()
            .map(|name| {
                let denied = target
                    .as_ref()
                    .is_some_and(|t| self.access.verdict(t, &Some(name.clone())).is_denied());
                NsOption {
                    note: denied.then(|| format!("cannot list {plural} here")),
                    name,
                }
            })
            .collect();
        let scope_mark = target.as_ref().and_then(|t| {
            let scope = ns.clone();
            self.access.verdict(t, &scope).is_denied().then(|| {
                AttrValue::from(match &scope {
                    Some(_) => format!("cannot list {plural} here"),
                    None => format!("cannot list {plural} in all namespaces"),
                })
            })
        });
        self.marks = Marks {
            denied,
            ns_options: Rc::new(ns_options),
            scope_mark,
        };
    }
}
