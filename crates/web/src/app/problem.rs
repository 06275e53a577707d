//! Why a view shows no rows, in words a user acts on: a link that names nothing the
//! server offers, a selector that is not valid, a failed discovery, or the server's
//! refusal (403, 404, 401, a rejected selector), with the namespaces the user may use
//! instead. The words are pure functions; [`view`] renders them in the table area.

use super::discovery::Discovery;
use super::namespaces::access::Verdict;
use super::namespaces::Namespaces;
use super::url::ViewState;
use super::{App, Msg};
use kubelive_core::{ApiError, ApiErrorKind};
use std::rc::Rc;
use yew::html::Scope;
use yew::prelude::*;

/// Why the view is not running (nothing was asked of the server for it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Blocked {
    /// Discovery has not said yet whether the resource exists.
    Discovering,
    /// The link's resource or namespace cannot be put in a request.
    BadLink(String),
    /// The selector is not valid (as the apiserver would parse it).
    BadSelector(String),
    /// The server offers no such resource (with list and watch).
    NotOffered(String),
    /// Discovery failed: the resource cannot be checked.
    DiscoveryFailed(String),
}

/// What the table area says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explained {
    pub title: String,
    /// The server's (or the parser's) own words.
    pub message: Option<String>,
    pub hint: Option<String>,
    /// Offer namespaces to switch to.
    pub offer_namespaces: bool,
    /// Offer to retry discovery.
    pub retry: bool,
}

impl Explained {
    fn new(title: impl Into<String>) -> Explained {
        Explained {
            title: title.into(),
            message: None,
            hint: None,
            offer_namespaces: false,
            retry: false,
        }
    }
}

/// A blocked view, or None while discovery is still on its way (the table says
/// "Discovering resources…" then, not a problem).
pub fn explain_block(b: &Blocked) -> Option<Explained> {
    Some(match b {
        Blocked::Discovering => return None,
        Blocked::BadLink(why) => Explained {
            message: Some(why.clone()),
            hint: Some("Pick a resource and a namespace above.".into()),
            ..Explained::new("This link does not name a view kubelive can open.")
        },
        Blocked::BadSelector(why) => Explained {
            message: Some(why.clone()),
            hint: Some("Fix it in the filter box and press Enter (? shows the syntax).".into()),
            ..Explained::new("The selector is not valid: nothing was sent.")
        },
        Blocked::NotOffered(why) => Explained {
            hint: Some("Pick a resource above.".into()),
            ..Explained::new(why.clone())
        },
        Blocked::DiscoveryFailed(why) => Explained {
            message: Some(why.clone()),
            retry: true,
            ..Explained::new("kubelive cannot tell which resources the server offers.")
        },
    })
}

/// The server refused the view.
pub fn explain_failure(
    error: &ApiError,
    plural: &str,
    namespaced: bool,
    namespace: Option<&str>,
    has_selectors: bool,
) -> Explained {
    let message = Some(error.to_string());
    match error.kind {
        ApiErrorKind::Forbidden => match (namespaced, namespace) {
            (true, None) => Explained {
                message,
                offer_namespaces: true,
                ..Explained::new(format!(
                    "You may not list {plural} in all namespaces."
                ))
            },
            (true, Some(ns)) => Explained {
                message,
                offer_namespaces: true,
                ..Explained::new(format!("You may not list {plural} in namespace {ns}."))
            },
            (false, _) => Explained {
                message,
                hint: Some("Ask your cluster's administrators for access, or pick another resource.".into()),
                ..Explained::new(format!("You may not list {plural}."))
            },
        },
        ApiErrorKind::Unauthorized => Explained {
            message,
            hint: Some(
                "The credentials kubectl proxy sends were refused: check its kubeconfig (kubectl get pods must work)."
                    .into(),
            ),
            ..Explained::new("The server does not know who you are.")
        },
        ApiErrorKind::NotFound => Explained {
            message,
            hint: Some("Pick a resource above.".into()),
            ..Explained::new(format!("The server has no {plural}."))
        },
        ApiErrorKind::Invalid if has_selectors => Explained {
            message,
            hint: Some("Fix the selector in the filter box and press Enter.".into()),
            ..Explained::new("The server rejected the selector.")
        },
        _ => Explained {
            message,
            ..Explained::new("The server refused this view.")
        },
    }
}

/// What to say above the namespaces offered.
pub fn choice_hint(allowed: usize, others: usize, checking: bool) -> String {
    if allowed > 0 {
        "Pick a namespace you can use:".into()
    } else if checking {
        "Checking which namespaces you can use…".into()
    } else if others > 0 {
        "Try a namespace (type another in the Namespace field):".into()
    } else {
        "Type the name of a namespace you can use in the Namespace field.".into()
    }
}

/// What the table area says instead of (or above) rows, if anything.
pub fn view(
    link: &Scope<App>,
    blocked: Option<&Blocked>,
    failure: Option<&ApiError>,
    view: &ViewState,
    discovery: &Discovery,
    namespaces: &Namespaces,
) -> Option<Html> {
    let explained = match (blocked, failure) {
        (Some(b), _) => explain_block(b)?,
        (None, Some(f)) => {
            let plural = discovery
                .find(&view.resource)
                .map(|r| r.plural.clone())
                .unwrap_or_default();
            explain_failure(
                f,
                &plural,
                discovery.namespaced(&view.resource),
                discovery.scope(view).as_deref(),
                view.query.has_selectors(),
            )
        }
        (None, None) => return None,
    };
    let choices = if explained.offer_namespaces {
        namespaces.choices(view, discovery)
    } else {
        Vec::new()
    };
    let hint = if explained.offer_namespaces {
        let allowed = choices
            .iter()
            .filter(|c| c.verdict == Verdict::Allowed)
            .count();
        let others = choices.iter().filter(|c| !c.verdict.is_denied()).count() - allowed;
        Some(choice_hint(
            allowed,
            others,
            namespaces.access.in_flight() > 0,
        ))
    } else {
        explained.hint
    };
    let action = explained.retry.then(|| {
        (
            AttrValue::from("Retry discovery"),
            link.callback(|_| Msg::Discovery(super::discovery::Msg::Retry)),
        )
    });
    Some(html! {
        <Problem title={explained.title} message={explained.message.map(AttrValue::from)}
            hint={hint.map(AttrValue::from)} choices={Rc::new(choices)}
            on_choose={link.callback(Msg::SetNamespace)} {action} />
    })
}

/// A namespace to offer, with what is known of the user's access to the view's
/// resource there.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub name: String,
    pub verdict: Verdict,
}

#[derive(Properties, PartialEq)]
pub struct ProblemProps {
    /// What happened, in words a user acts on.
    pub title: AttrValue,
    /// The server's own message.
    #[prop_or_default]
    pub message: Option<AttrValue>,
    /// What to do next.
    #[prop_or_default]
    pub hint: Option<AttrValue>,
    /// Namespaces to switch to (a button each).
    #[prop_or_default]
    pub choices: Rc<Vec<Choice>>,
    #[prop_or_default]
    pub on_choose: Callback<String>,
    /// A button with its label (retry, say).
    #[prop_or_default]
    pub action: Option<(AttrValue, Callback<()>)>,
    /// `error` or `note`.
    #[prop_or(AttrValue::Static("error"))]
    pub tone: AttrValue,
}

/// Why the table is empty when it is not just loading: a failed view, a link that
/// names no resource, a selector the server refused.
#[function_component(Problem)]
pub fn problem(p: &ProblemProps) -> Html {
    let (usable, denied): (Vec<&Choice>, Vec<&Choice>) =
        p.choices.iter().partition(|c| !c.verdict.is_denied());
    html! {
        <div class={classes!("problem", p.tone.to_string())} id="problem" role="alert">
            <div class="problem-title" id="problem-title">{ p.title.clone() }</div>
            if let Some(m) = &p.message {
                <div class="problem-message" id="problem-message">{ m.clone() }</div>
            }
            if let Some(h) = &p.hint {
                <div class="problem-hint">{ h.clone() }</div>
            }
            if !usable.is_empty() {
                <div class="choices" id="choices">
                    { for usable.iter().map(|c| {
                        let name = c.name.clone();
                        let onclick = p.on_choose.reform(move |_: MouseEvent| name.clone());
                        let (class, title) = match c.verdict {
                            Verdict::Allowed => ("choice allowed", "you may list here"),
                            _ => ("choice unknown", "not checked: try it"),
                        };
                        html! {
                            <button class={class} data-ns={c.name.clone()} {title} {onclick}>{ c.name.clone() }</button>
                        }
                    }) }
                </div>
            }
            if !denied.is_empty() {
                <div class="problem-denied" id="denied">
                    { format!("Not allowed: {}", denied.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")) }
                </div>
            }
            if let Some((label, cb)) = &p.action {
                <button class="btn" id="problem-action" onclick={cb.reform(|_: MouseEvent| ())}>{ label.clone() }</button>
            }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(kind: ApiErrorKind, code: u16, message: &str) -> ApiError {
        ApiError {
            kind,
            code,
            reason: String::new(),
            message: message.into(),
            retry_after: None,
        }
    }

    #[test]
    fn a_403_says_what_the_user_may_not_do_and_offers_namespaces() {
        let e = error(
            ApiErrorKind::Forbidden,
            403,
            r#"pods is forbidden: User "dev" cannot list resource "pods" in API group "" at the cluster scope"#,
        );
        let x = explain_failure(&e, "pods", true, None, false);
        assert_eq!(x.title, "You may not list pods in all namespaces.");
        assert!(x.offer_namespaces);
        assert!(
            x.message.unwrap().contains("cannot list resource"),
            "the server's words"
        );
        let x = explain_failure(&e, "pods", true, Some("team-b"), false);
        assert_eq!(x.title, "You may not list pods in namespace team-b.");
        let x = explain_failure(&e, "nodes", false, None, false);
        assert_eq!(x.title, "You may not list nodes.");
        assert!(!x.offer_namespaces);
    }

    #[test]
    fn other_refusals() {
        let e = error(
            ApiErrorKind::Invalid,
            400,
            "field label not supported: spec.nodeName",
        );
        assert_eq!(
            explain_failure(&e, "pods", true, None, true).title,
            "The server rejected the selector."
        );
        assert_eq!(
            explain_failure(&e, "pods", true, None, false).title,
            "The server refused this view."
        );
        let e = error(
            ApiErrorKind::NotFound,
            404,
            "the server could not find the requested resource",
        );
        assert_eq!(
            explain_failure(&e, "widgets", true, None, false).title,
            "The server has no widgets."
        );
        let e = error(ApiErrorKind::Unauthorized, 401, "Unauthorized");
        assert!(explain_failure(&e, "pods", true, None, false)
            .hint
            .unwrap()
            .contains("kubeconfig"));
    }

    #[test]
    fn blocked_views_explain_themselves() {
        assert_eq!(explain_block(&Blocked::Discovering), None);
        let x = explain_block(&Blocked::DiscoveryFailed("GET /api: HTTP 500".into())).unwrap();
        assert!(x.retry);
        let x = explain_block(&Blocked::BadLink("\"../../x\" is not a resource".into())).unwrap();
        assert!(x.message.unwrap().contains("../../x"));
        assert_eq!(choice_hint(1, 3, true), "Pick a namespace you can use:");
        assert_eq!(
            choice_hint(0, 3, true),
            "Checking which namespaces you can use…"
        );
        assert!(choice_hint(0, 0, false).starts_with("Type the name"));
    }
}
