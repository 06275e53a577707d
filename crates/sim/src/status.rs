//! `Status` documents exactly as the apiserver writes them (see protocol.md §3).

use crate::util::json_str;

/// A compact `Status` JSON document with the given fields.
pub fn status_json(code: u16, reason: &str, message: &str, details: Option<&str>) -> String {
    let mut s = format!(
        "{{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{{}},\"status\":\"Failure\",\"message\":{},\"reason\":\"{reason}\"",
        json_str(message)
    );
    if let Some(d) = details {
        s.push_str(",\"details\":");
        s.push_str(d);
    }
    s.push_str(&format!(",\"code\":{code}}}"));
    s
}

/// Watch too old (served on a 200 as an ERROR event).
pub fn too_old_watch(rv: u64, oldest: u64) -> String {
    status_json(
        410,
        "Expired",
        &format!("too old resource version: {rv} ({oldest})"),
        None,
    )
}

/// Too-large resourceVersion (HTTP 504 with `Retry-After: 1`, or an in-stream ERROR).
pub fn too_large(rv: u64, current: u64) -> String {
    status_json(
        504,
        "Timeout",
        &format!("Timeout: Too large resource version: {rv}, current: {current}"),
        Some(
            r#"{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1}"#,
        ),
    )
}

/// The message of a 410 for an expired continue token.
pub const CONTINUE_EXPIRED: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/// 410 for an expired continue token, carrying a fresh (inconsistent) continue token.
pub fn continue_expired(new_continue: &str) -> String {
    format!(
        "{{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{{\"continue\":{}}},\"status\":\"Failure\",\"message\":{},\"reason\":\"Expired\",\"code\":410}}",
        json_str(new_continue),
        json_str(CONTINUE_EXPIRED)
    )
}

/// 410 for a list at an exact resourceVersion that was compacted.
pub fn list_too_old() -> String {
    status_json(
        410,
        "Expired",
        "The resourceVersion for the provided list is too old.",
        None,
    )
}

/// 400 BadRequest.
pub fn bad_request(message: &str) -> String {
    status_json(400, "BadRequest", message, None)
}

/// 404 NotFound for a path (no resource type there).
pub fn not_found_path() -> String {
    status_json(
        404,
        "NotFound",
        "the server could not find the requested resource",
        Some(r#"{}"#),
    )
}

/// 404 NotFound for one object. `StatusDetails.group` is `omitempty`
/// (`NewNotFound`, staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go): no
/// `"group"` for the core group.
pub fn not_found_object(qualified: &str, group: &str, kind_plural: &str, name: &str) -> String {
    let group = if group.is_empty() {
        String::new()
    } else {
        format!(",\"group\":{}", json_str(group))
    };
    status_json(
        404,
        "NotFound",
        &format!("{qualified} {} not found", json_str(name)),
        Some(&format!(
            "{{\"name\":{}{group},\"kind\":{}}}",
            json_str(name),
            json_str(kind_plural)
        )),
    )
}

/// The body of the priority-and-fairness / max-in-flight filter's 429 (plain text, Go's
/// `http.Error` adds the newline).
pub const TOO_MANY_REQUESTS_TEXT: &str = "Too many requests, please try again later.\n";

/// 405 for verbs the sim does not serve (`NewGenericServerResponse`: empty details).
pub fn method_not_allowed() -> String {
    status_json(
        405,
        "MethodNotAllowed",
        "the server does not allow this method on the requested resource",
        Some("{}"),
    )
}

/// A field error of a 422 Invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: &'static str,
    /// `FieldValueForbidden` or `FieldValueNotSupported`.
    pub reason: &'static str,
    /// e.g. `Forbidden: sendInitialEvents is forbidden for list`.
    pub detail: String,
}

impl FieldError {
    pub fn forbidden(field: &'static str, msg: &str) -> Self {
        FieldError {
            field,
            reason: "FieldValueForbidden",
            detail: format!("Forbidden: {msg}"),
        }
    }
    pub fn not_supported(field: &'static str, value: &str, supported: &[&str]) -> Self {
        let list: Vec<String> = supported.iter().map(|s| json_str(s)).collect();
        FieldError {
            field,
            reason: "FieldValueNotSupported",
            detail: format!(
                "Unsupported value: {}: supported values: {}",
                json_str(value),
                list.join(", ")
            ),
        }
    }
}

/// 422 Invalid for ListOptions, with the apiserver's message layout.
pub fn invalid_list_options(errs: &[FieldError]) -> String {
    let parts: Vec<String> = errs
        .iter()
        .map(|e| format!("{}: {}", e.field, e.detail))
        .collect();
    let joined = if parts.len() == 1 {
        parts[0].clone()
    } else {
        format!("[{}]", parts.join(", "))
    };
    let msg = format!("ListOptions.meta.k8s.io \"\" is invalid: {joined}");
    let causes: Vec<String> = errs
        .iter()
        .map(|e| {
            format!(
                "{{\"reason\":\"{}\",\"message\":{},\"field\":\"{}\"}}",
                e.reason,
                json_str(&e.detail),
                e.field
            )
        })
        .collect();
    let details = format!(
        "{{\"group\":\"meta.k8s.io\",\"kind\":\"ListOptions\",\"causes\":[{}]}}",
        causes.join(",")
    );
    status_json(422, "Invalid", &msg, Some(&details))
}

/// 429 TooManyRequests.
pub fn too_many_requests(retry_after: u64) -> String {
    status_json(
        429,
        "TooManyRequests",
        "The server has received too many requests and has asked us to try again later",
        Some(&format!("{{\"retryAfterSeconds\":{retry_after}}}")),
    )
}

/// 500 InternalError.
pub fn internal_error(retry_after: u64) -> String {
    status_json(
        500,
        "InternalError",
        "Internal error occurred: simulated failure",
        Some(&format!("{{\"causes\":[{{\"message\":\"simulated failure\"}}],\"retryAfterSeconds\":{retry_after}}}")),
    )
}

/// 500 InternalError for a failure of the server itself (`errors.NewInternalError`).
pub fn internal_message(message: &str) -> String {
    status_json(
        500,
        "InternalError",
        &format!("Internal error occurred: {message}"),
        Some(&format!(
            "{{\"causes\":[{{\"message\":{}}}]}}",
            crate::util::json_str(message)
        )),
    )
}

/// 503 ServiceUnavailable.
pub fn service_unavailable(retry_after: u64) -> String {
    status_json(
        503,
        "ServiceUnavailable",
        "The server is currently unable to handle the request",
        Some(&format!("{{\"retryAfterSeconds\":{retry_after}}}")),
    )
}

/// An HTML error page like a load balancer's.
pub const HTML_ERROR_PAGE: &str = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_texts() {
        assert_eq!(
            too_old_watch(1, 3171407),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (3171407)","reason":"Expired","code":410}"#
        );
        assert_eq!(
            too_large(20000, 10245),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 20000, current: 10245","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}"#
        );
        let v: serde_json::Value =
            serde_json::from_str(&invalid_list_options(&[FieldError::forbidden(
                "resourceVersionMatch",
                "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
            )]))
            .unwrap();
        assert_eq!(v["message"], "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan");
        assert_eq!(v["code"], 422);
        assert_eq!(v["reason"], "Invalid");
    }
}
