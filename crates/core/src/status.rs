//! Errors the server reports: Kubernetes `Status` objects (as an HTTP body or an
//! in-stream ERROR event) and the non-JSON bodies proxies send (plain text, HTML).

use crate::time::parse_http_date as http_date;
use core::time::Duration;
use serde_json::{Map, Value};
use std::fmt;

/// What kind of failure a server error is; the engine decides on this alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApiErrorKind {
    /// 410 Expired/Gone: the version or continue token is outside retained history.
    Expired,
    /// 504 "Too large resource version": the server (a lagging replica) has not
    /// reached the version asked for.
    TooLargeResourceVersion,
    /// 422 Invalid or 400 BadRequest: the request's options were rejected.
    Invalid,
    /// 401: credentials are missing or wrong.
    Unauthorized,
    /// 403: RBAC or a proxy's path filter forbids it.
    Forbidden,
    /// 404 (or 405): no such resource type on this server.
    NotFound,
    /// 429: throttled.
    TooManyRequests,
    /// 5xx and anything else unexpected: retry with backoff.
    ServerError,
}

impl ApiErrorKind {
    /// Errors that retrying fast will not fix: the user must act.
    pub fn needs_user(self) -> bool {
        matches!(
            self,
            ApiErrorKind::Unauthorized | ApiErrorKind::Forbidden | ApiErrorKind::NotFound
        )
    }
}

/// A server error with the server's own words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    pub kind: ApiErrorKind,
    /// HTTP status or the Status object's `code`.
    pub code: u16,
    /// The Status `reason` ("Expired", "Timeout", "Forbidden"...), empty if none.
    pub reason: String,
    /// The server's message, or the start of a non-JSON body.
    pub message: String,
    /// From the `Retry-After` header or `details.retryAfterSeconds`.
    pub retry_after: Option<Duration>,
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.reason.is_empty() {
            write!(f, "{} ({})", self.message, self.code)
        } else {
            write!(f, "{} ({} {})", self.message, self.code, self.reason)
        }
    }
}

impl std::error::Error for ApiError {}

/// A field that may be absent or `null` (`Some(None)`), else must be what `read`
/// takes (`None` rejects the document). Status bodies are read from a `Value`, not
/// through derived `Deserialize` structs, each of which would cost the wasm its own
/// copy of serde_json's struct reader.
fn optional<'a, T>(
    o: &'a Map<String, Value>,
    key: &str,
    read: impl FnOnce(&'a Value) -> Option<T>,
) -> Option<Option<T>> {
    match o.get(key) {
        None | Some(Value::Null) => Some(None),
        Some(v) => read(v).map(Some),
    }
}

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

/// Longest piece of a non-JSON body quoted in a message.
const SNIPPET_CHARS: usize = 200;

impl ApiError {
    /// Parses a `Status` object (an in-stream ERROR's object). `None` if it is not one.
    pub fn from_status_json(json: &[u8]) -> Option<ApiError> {
        let doc = serde_json::from_slice::<Value>(json).ok()?;
        let doc = doc.as_object()?;
        let kind = optional(doc, "kind", Value::as_str)?;
        if kind.is_some_and(|k| k != "Status") {
            return None;
        }
        let code = optional(doc, "code", |v| u16::try_from(v.as_u64()?).ok())?.unwrap_or(500);
        let reason = optional(doc, "reason", text)?.unwrap_or_default();
        let message = optional(doc, "message", text)?.unwrap_or_default();
        let details = optional(doc, "details", |d| {
            let d = d.as_object()?;
            let retry_after = optional(d, "retryAfterSeconds", Value::as_u64)?;
            // Absent causes are none; `null` is not a list.
            let causes = match d.get("causes") {
                None => &[][..],
                Some(c) => c.as_array()?,
            };
            let mut too_large = false;
            for cause in causes {
                let reason = optional(cause.as_object()?, "reason", Value::as_str)?;
                too_large |= reason == Some("ResourceVersionTooLarge");
            }
            Some((retry_after.map(Duration::from_secs), too_large))
        })?;
        let (retry_after, too_large_cause) = details.unwrap_or((None, false));
        let too_large = too_large_cause || message.contains("Too large resource version");
        Some(ApiError {
            kind: classify(code, &reason, too_large),
            code,
            reason,
            message,
            retry_after,
        })
    }

    /// Builds the error for a non-2xx HTTP response from its status, the delay its
    /// `Retry-After` header asks for ([`retry_after`]) and its body (a Status, plain
    /// text or an HTML page).
    pub fn from_http(status: u16, header_delay: Option<Duration>, body: &[u8]) -> ApiError {
        if let Some(mut e) = Self::from_status_json(body) {
            // The HTTP status is the truth for the decision; keep the Status words.
            if e.code != status {
                e.code = status;
                e.kind = classify(
                    status,
                    &e.reason,
                    e.kind == ApiErrorKind::TooLargeResourceVersion,
                );
            }
            e.retry_after = header_delay.or(e.retry_after);
            return e;
        }
        let message = describe_body(status, body);
        ApiError {
            kind: classify(status, "", false),
            code: status,
            reason: String::new(),
            message,
            retry_after: header_delay,
        }
    }
}

/// The delay a response's `Retry-After` header asks for: delta-seconds, or an
/// HTTP-date. The engine reads no clock, so a date is taken relative to the same
/// response's `Date` header (which every HTTP/1.1 origin server with a clock sends,
/// the apiserver and kubectl proxy included); a date without a `Date` header is
/// ignored (the engine's own backoff applies). A date in the past is no wait.
pub fn retry_after(headers: &[(&str, &str)]) -> Option<Duration> {
    let find = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim())
    };
    let value = find("retry-after")?;
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Huge values saturate (the engine caps every wait anyway).
        return Some(Duration::from_secs(value.parse().unwrap_or(u64::MAX)));
    }
    let until = http_date(value)?;
    let date = http_date(find("date")?)?;
    Some(Duration::from_secs(until.saturating_sub(date).max(0) as u64))
}

fn classify(code: u16, reason: &str, too_large: bool) -> ApiErrorKind {
    match code {
        410 => ApiErrorKind::Expired,
        _ if reason == "Expired" || reason == "Gone" => ApiErrorKind::Expired,
        504 if too_large => ApiErrorKind::TooLargeResourceVersion,
        _ if too_large => ApiErrorKind::TooLargeResourceVersion,
        400 | 422 => ApiErrorKind::Invalid,
        401 => ApiErrorKind::Unauthorized,
        403 => ApiErrorKind::Forbidden,
        404 | 405 => ApiErrorKind::NotFound,
        429 => ApiErrorKind::TooManyRequests,
        _ => ApiErrorKind::ServerError,
    }
}

/// A clear message for a body that is not a Status: the HTML title, or the first
/// line of text, never the whole page.
fn describe_body(status: u16, body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(16 * 1024)]);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return format!("HTTP {status} with an empty body");
    }
    let lower = trimmed.to_ascii_lowercase();
    if lower.starts_with("<!doctype html") || lower.starts_with("<html") || lower.contains("<body")
    {
        let title = lower
            .find("<title>")
            .and_then(|start| {
                let from = start + "<title>".len();
                lower[from..]
                    .find("</title>")
                    .map(|end| trimmed[from..from + end].trim())
            })
            .filter(|t| !t.is_empty());
        return match title {
            Some(t) => format!(
                "HTTP {status}: the server sent an HTML page ({})",
                snippet(t)
            ),
            None => format!("HTTP {status}: the server sent an HTML page, not a Kubernetes Status"),
        };
    }
    let first_line = trimmed.lines().next().unwrap_or("");
    format!("HTTP {status}: {}", snippet(first_line))
}

fn snippet(s: &str) -> String {
    let mut out: String = s.chars().take(SNIPPET_CHARS).collect();
    if s.chars().count() > SNIPPET_CHARS {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_of_another_shape_is_not_one() {
        let ok = |json: &str| ApiError::from_status_json(json.as_bytes());
        let e =
            ok(r#"{"code":null,"reason":null,"details":{"causes":[{}],"retryAfterSeconds":null}}"#)
                .unwrap();
        assert_eq!((e.code, e.retry_after), (500, None));
        assert!(ok(r#"{"kind":null,"details":null}"#).is_some());
        for json in [
            r#"[]"#,
            r#"{"kind":"Pod"}"#,
            r#"{"kind":1}"#,
            r#"{"code":"410"}"#,
            r#"{"code":410.0}"#,
            r#"{"code":70000}"#,
            r#"{"code":-1}"#,
            r#"{"message":{}}"#,
            r#"{"details":[]}"#,
            r#"{"details":{"retryAfterSeconds":-1}}"#,
            r#"{"details":{"causes":null}}"#,
            r#"{"details":{"causes":[1]}}"#,
            r#"{"details":{"causes":[{"reason":2}]}}"#,
        ] {
            assert!(ok(json).is_none(), "{json}");
        }
    }

    #[test]
    fn too_old_watch_error_is_expired() {
        let e = ApiError::from_status_json(br#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (3171407)","reason":"Expired","code":410}"#).unwrap();
        assert_eq!(e.kind, ApiErrorKind::Expired);
        assert_eq!(e.code, 410);
        assert_eq!(e.message, "too old resource version: 1 (3171407)");
        let gone = ApiError::from_status_json(
            br#"{"kind":"Status","status":"Failure","message":"x","reason":"Gone","code":410}"#,
        )
        .unwrap();
        assert_eq!(gone.kind, ApiErrorKind::Expired);
    }

    #[test]
    fn too_large_504_uses_header_then_details() {
        let body = br#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 20000, current: 10245","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}"#;
        let e = ApiError::from_http(504, Some(Duration::from_secs(2)), body);
        assert_eq!(e.kind, ApiErrorKind::TooLargeResourceVersion);
        assert_eq!(e.retry_after, Some(Duration::from_secs(2)));
        let e = ApiError::from_http(504, None, body);
        assert_eq!(e.retry_after, Some(Duration::from_secs(1)));
        let plain_timeout = ApiError::from_http(504, None, b"{\"kind\":\"Status\",\"code\":504,\"reason\":\"Timeout\",\"message\":\"request timed out\"}");
        assert_eq!(plain_timeout.kind, ApiErrorKind::ServerError);
    }

    #[test]
    fn proxy_plain_text_and_html_bodies_are_clear() {
        let e = ApiError::from_http(
            500,
            None,
            b"dial tcp 127.0.0.1:6443: connect: connection refused\n",
        );
        assert_eq!(e.kind, ApiErrorKind::ServerError);
        assert_eq!(
            e.message,
            "HTTP 500: dial tcp 127.0.0.1:6443: connect: connection refused"
        );
        let e = ApiError::from_http(403, None, b"Forbidden\n");
        assert_eq!(e.kind, ApiErrorKind::Forbidden);
        assert!(e.kind.needs_user());
        let e = ApiError::from_http(
            502,
            None,
            b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
        );
        assert_eq!(
            e.message,
            "HTTP 502: the server sent an HTML page (502 Bad Gateway)"
        );
        let e = ApiError::from_http(503, Some(Duration::from_secs(7)), b"");
        assert_eq!(e.message, "HTTP 503 with an empty body");
        assert_eq!(e.retry_after, Some(Duration::from_secs(7)));
    }

    #[test]
    fn invalid_and_continue_expiry() {
        let e = ApiError::from_http(422, None, br#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan","reason":"Invalid","code":422}"#);
        assert_eq!(e.kind, ApiErrorKind::Invalid);
        let e = ApiError::from_http(410, None, br#"{"kind":"Status","apiVersion":"v1","metadata":{"continue":"abc"},"status":"Failure","message":"The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.","reason":"Expired","code":410}"#);
        assert_eq!(e.kind, ApiErrorKind::Expired);
        assert!(e
            .to_string()
            .starts_with("The provided continue parameter is too old"));
    }

    #[test]
    fn retry_after_seconds_or_a_date_against_the_response_date() {
        let h = |ra: &'static str, date: Option<&'static str>| {
            let mut v = vec![("Retry-After", ra)];
            if let Some(d) = date {
                v.push(("Date", d));
            }
            retry_after(&v)
        };
        assert_eq!(h("7", None), Some(Duration::from_secs(7)));
        assert_eq!(h(" 0 ", None), Some(Duration::ZERO));
        let date = Some("Wed, 21 Oct 2015 07:28:00 GMT");
        assert_eq!(
            h("Wed, 21 Oct 2015 07:29:30 GMT", date),
            Some(Duration::from_secs(90))
        );
        // The obsolete forms, a day later (and across a month end).
        assert_eq!(
            h("Thursday, 22-Oct-15 07:28:00 GMT", date),
            Some(Duration::from_secs(86_400))
        );
        assert_eq!(
            h(
                "Sat Oct 31 23:59:59 2015",
                Some("Sun, 01 Nov 2015 00:00:00 GMT")
            ),
            Some(Duration::ZERO),
            "a date in the past is no wait"
        );
        assert_eq!(
            h(
                "Sun Nov  1 00:00:30 2015",
                Some("Sat, 31 Oct 2015 23:59:59 GMT")
            ),
            Some(Duration::from_secs(31))
        );
        // Without the response's own Date there is no clock to read it against.
        assert_eq!(h("Wed, 21 Oct 2015 07:29:30 GMT", None), None);
        assert_eq!(h("soon", date), None);
        assert_eq!(retry_after(&[("Date", "x")]), None);
        assert_eq!(http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(
            http_date("Tue, 29 Feb 2000 12:00:00 GMT"),
            Some(951_825_600)
        );
        assert_eq!(http_date("Tue, 29 Feb 2000 24:00:00 GMT"), None);
        assert_eq!(http_date("Tue, 29 Feb 2000 12:00:00 UTC"), None);
    }

    #[test]
    fn a_non_status_json_body_is_not_a_status() {
        assert!(ApiError::from_status_json(br#"{"kind":"PodList","items":[]}"#).is_none());
        assert!(ApiError::from_status_json(b"not json").is_none());
    }
}
