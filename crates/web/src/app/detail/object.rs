//! The detail panel's object: a row holds only the object's metadata, so the panel
//! GETs the whole object through the proxy when it opens on a row, and again when
//! the row's resourceVersion moves (the last answer stays shown meanwhile).

use super::view::Fetched;
use super::Msg;
use crate::app::discovery::ResourceType;
use gloo_net::http::Request;
use kubelive_core::Object;
use kubelive_table::key_of;
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use web_sys::AbortController;
use yew::prelude::*;

/// How long the GET may take before the panel says so.
const TIMEOUT_MS: i32 = 15_000;

/// The object the panel shows and the version last asked for.
struct DetailFetch {
    key: String,
    rv: String,
    generation: u64,
    shown: Fetched,
}

/// The panel's object, fetched or being fetched.
#[derive(Default)]
pub(super) struct ObjectFetch {
    current: Option<DetailFetch>,
    /// Bumped by every GET: an answer to an older one is dropped.
    generation: u64,
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

impl ObjectFetch {
    /// Forgets the object (a new view, or the app goes).
    pub(super) fn clear(&mut self) {
        self.current = None;
    }

    /// What the panel shows of the object.
    pub(super) fn shown(&self) -> Fetched {
        self.current
            .as_ref()
            .map(|d| d.shown.clone())
            .unwrap_or(Fetched::Loading)
    }

    /// Fetches the open panel's object (`want`, a resource `rt`) when it opens on
    /// another row or the row's version moves; forgets it when the panel closes.
    pub(super) fn sync(
        &mut self,
        want: Option<&Arc<Object>>,
        rt: Option<&ResourceType>,
        send: &Callback<Msg>,
    ) {
        let Some(o) = want else {
            self.current = None;
            return;
        };
        let key = key_of(o);
        let rv = o.resource_version().to_string();
        if self
            .current
            .as_ref()
            .is_some_and(|d| d.key == key && d.rv == rv)
        {
            return;
        }
        let Some(rt) = rt else {
            return;
        };
        let path = object_path(rt, o.namespace(), o.name());
        self.generation += 1;
        let generation = self.generation;
        let shown = match self.current.take() {
            Some(d) if d.key == key => d.shown,
            _ => Fetched::Loading,
        };
        self.current = Some(DetailFetch {
            key,
            rv,
            generation,
            shown,
        });
        let send = send.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let result = get_object(path).await;
            send.emit(Msg::Fetched(generation, result));
        });
    }

    /// The GET answered: shown if it is still the one wanted.
    pub(super) fn fetched(
        &mut self,
        generation: u64,
        result: Result<serde_json::Value, String>,
    ) -> bool {
        let Some(d) = self.current.as_mut().filter(|d| d.generation == generation) else {
            return false;
        };
        d.shown = match result {
            Ok(v) => Fetched::Loaded(Rc::new(v)),
            Err(why) => Fetched::Failed(why),
        };
        true
    }
}
