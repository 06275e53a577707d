//! Why a view shows no rows, in words a user acts on: a link that names nothing the
//! server offers, a selector that is not valid, a failed discovery, or the server's
//! refusal (403, 404, 401, a rejected selector). Pure: the app renders it in the
//! table area with `parts::Problem`.

use kubelive_core::{ApiError, ApiErrorKind};

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
