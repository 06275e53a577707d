//! One-shot requests with a deadline (discovery documents, access reviews): the whole
//! body read as text. Watches and lists go through the engine's [`crate::driver`].
//!
//! Same origin only, as the driver: through `kubectl proxy` a POST is carried like a
//! GET, with the proxy's credentials; the browser adds none of its own elsewhere.

use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, RequestCredentials, RequestInit};

/// A complete response.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    /// The `Content-Type` header (aggregated discovery is told apart by it).
    pub content_type: String,
    pub body: String,
}

impl Reply {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The server's words for a failed response: a Status message, else the start of
    /// the body.
    pub fn problem(&self) -> String {
        let message = kubelive_core::ApiError::from_status_json(self.body.as_bytes())
            .map(|e| e.message)
            .unwrap_or_else(|| self.body.trim().chars().take(160).collect());
        if message.is_empty() {
            format!("HTTP {}", self.status)
        } else {
            format!("HTTP {}: {message}", self.status)
        }
    }
}

/// GET (`body` None) or POST (`body` Some, JSON) `path` with `Accept: accept`;
/// gives up after `timeout_ms`.
pub async fn fetch(
    path: &str,
    accept: &str,
    body: Option<&str>,
    timeout_ms: i32,
) -> Result<Reply, String> {
    let window = web_sys::window().ok_or("no window")?;
    let controller = AbortController::new().map_err(|_| "no AbortController")?;
    let init = RequestInit::new();
    init.set_method(if body.is_some() { "POST" } else { "GET" });
    init.set_signal(Some(&controller.signal()));
    init.set_credentials(RequestCredentials::SameOrigin);
    let headers = web_sys::Headers::new().map_err(|_| "no Headers")?;
    let _ = headers.set("Accept", accept);
    if let Some(body) = body {
        let _ = headers.set("Content-Type", "application/json");
        init.set_body(&JsValue::from_str(body));
    }
    init.set_headers(&headers);
    let timed_out = Rc::new(Cell::new(false));
    let abort = {
        let controller = controller.clone();
        let timed_out = timed_out.clone();
        Closure::once_into_js(move || {
            timed_out.set(true);
            controller.abort();
        })
    };
    let timer = window
        .set_timeout_with_callback_and_timeout_and_arguments_0(abort.unchecked_ref(), timeout_ms)
        .ok();
    let result = async {
        let response: web_sys::Response =
            JsFuture::from(window.fetch_with_str_and_init(path, &init))
                .await
                .and_then(|r| r.dyn_into())
                .map_err(|e| js_message(&e))?;
        let content_type = response
            .headers()
            .get("content-type")
            .ok()
            .flatten()
            .unwrap_or_default();
        let text = response.text().map_err(|e| js_message(&e))?;
        let body = JsFuture::from(text)
            .await
            .map_err(|e| js_message(&e))?
            .as_string()
            .unwrap_or_default();
        Ok(Reply {
            status: response.status(),
            content_type,
            body,
        })
    }
    .await;
    if let Some(t) = timer {
        window.clear_timeout_with_handle(t);
    }
    result.map_err(|e: String| {
        if timed_out.get() {
            format!("no answer within {} s", timeout_ms / 1000)
        } else {
            e
        }
    })
}

fn js_message(e: &JsValue) -> String {
    if let Some(err) = e.dyn_ref::<js_sys::Error>() {
        return String::from(err.message());
    }
    e.as_string().unwrap_or_else(|| format!("{e:?}"))
}
