//! The detail panel's object: a row holds only the object's metadata, so the panel
//! GETs the whole object through the proxy when it opens on a row, and again when
//! the row's resourceVersion moves (the last answer stays shown meanwhile).

use super::discovery::ResourceType;
use super::parts::Fetched;
use super::{App, Msg};
use crate::table::key_of;
use gloo_net::http::Request;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::AbortController;
use yew::prelude::*;

/// How long the GET may take before the panel says so.
const TIMEOUT_MS: i32 = 15_000;

/// The object the panel shows and the version last asked for.
pub(super) struct DetailFetch {
    key: String,
    rv: String,
    generation: u64,
    pub(super) shown: Fetched,
}

/// `/api/v1/namespaces/<ns>/pods/<name>`, `/apis/<group>/<version>/<plural>/<name>`.
pub fn object_path(rt: &ResourceType, namespace: &str, name: &str) -> String {
    let enc = |s: &str| String::from(js_sys::encode_uri_component(s));
    let prefix = if rt.group.is_empty() {
        format!("/api/{}", rt.version)
    } else {
        format!("/apis/{}/{}", rt.group, rt.version)
    };
    if rt.namespaced && !namespace.is_empty() {
        format!(
            "{prefix}/namespaces/{}/{}/{}",
            enc(namespace),
            rt.plural,
            enc(name)
        )
    } else {
        format!("{prefix}/{}/{}", rt.plural, enc(name))
    }
}

/// GETs one object as JSON, giving up after [`TIMEOUT_MS`].
async fn get_object(path: String) -> Result<serde_json::Value, String> {
    let controller = AbortController::new().map_err(|_| "no AbortController".to_string())?;
    let abort = {
        let controller = controller.clone();
        Closure::once_into_js(move || controller.abort())
    };
    let timer = web_sys::window().and_then(|w| {
        w.set_timeout_with_callback_and_timeout_and_arguments_0(abort.unchecked_ref(), TIMEOUT_MS)
            .ok()
    });
    let signal = controller.signal();
    let result = async {
        let reply = Request::get(&path)
            .header("Accept", "application/json")
            .abort_signal(Some(&signal))
            .send()
            .await
            .map_err(|e| {
                if signal.aborted() {
                    format!("no answer in {} s", TIMEOUT_MS / 1000)
                } else {
                    format!("network error: {e}")
                }
            })?;
        let status = reply.status();
        let body = reply
            .text()
            .await
            .map_err(|e| format!("reading the answer: {e}"))?;
        let reply = crate::app::fetch::Reply {
            status,
            content_type: String::new(),
            body,
        };
        if !reply.ok() {
            return Err(reply.problem());
        }
        serde_json::from_str(&reply.body).map_err(|e| format!("the answer is not JSON: {e}"))
    }
    .await;
    if let (Some(w), Some(t)) = (web_sys::window(), timer) {
        w.clear_timeout_with_handle(t);
    }
    result
}

impl App {
    /// Fetches the open panel's object when it opens on another row or the row's
    /// version moves; forgets it when the panel closes.
    pub(super) fn sync_detail(&mut self, ctx: &Context<Self>) {
        let want = self
            .view
            .open
            .then_some(self.selected_obj.as_ref())
            .flatten();
        let Some(o) = want else {
            self.detail = None;
            return;
        };
        let key = key_of(o);
        let rv = o.resource_version().to_string();
        if self
            .detail
            .as_ref()
            .is_some_and(|d| d.key == key && d.rv == rv)
        {
            return;
        }
        let Some(rt) = self.resource() else {
            return;
        };
        let path = object_path(rt, o.namespace(), o.name());
        self.detail_generation += 1;
        let generation = self.detail_generation;
        let shown = match self.detail.take() {
            Some(d) if d.key == key => d.shown,
            _ => Fetched::Loading,
        };
        self.detail = Some(DetailFetch {
            key,
            rv,
            generation,
            shown,
        });
        let link = ctx.link().clone();
        wasm_bindgen_futures::spawn_local(async move {
            let result = get_object(path).await;
            link.send_message(Msg::DetailFetched(generation, result));
        });
    }

    /// The GET answered: shown if it is still the one wanted.
    pub(super) fn detail_fetched(
        &mut self,
        generation: u64,
        result: Result<serde_json::Value, String>,
    ) -> bool {
        let Some(d) = self.detail.as_mut().filter(|d| d.generation == generation) else {
            return false;
        };
        d.shown = match result {
            Ok(v) => Fetched::Loaded(Rc::new(v)),
            Err(why) => Fetched::Failed(why),
        };
        true
    }
}
