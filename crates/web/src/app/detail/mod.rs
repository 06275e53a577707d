//! The detail panel of the selected row: the whole object, GET when the panel opens
//! and again when the row's version moves (`object`), written as YAML or JSON with
//! Secret values masked (`yaml`), and its related events from an engine of their own
//! (`related`, `events`), alive while the panel shows that object; and its history
//! (`history`): the versions the view's engine saw of its row, and those a watch of
//! its own delivers while it is open.

pub mod events;
pub mod history;
mod object;
mod related;
mod view;
pub mod yaml;

pub use object::object_path;
pub use view::{
    Detail, DetailProps, Fetched, RelatedEvents, RelatedEventsProps, RelatedState, RelatedView,
};

use crate::app::discovery::ResourceType;
use history::HistoryTarget;
use kubelive_core::{Entry, History, Object};
use kubelive_table::{key_of, Column};
use object::ObjectFetch;
use related::Related;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use yew::prelude::*;

pub enum Msg {
    /// The object's GET answered (its generation).
    Fetched(u64, Result<serde_json::Value, String>),
    /// The related-events engine produced events (its generation).
    Related(u64),
    /// The panel's close button.
    Close,
}

/// What the open panel shows of its object besides the row.
pub struct Panel {
    object: ObjectFetch,
    related: Related,
    send: Callback<Msg>,
    /// Made once, so that the panel's props compare equal across renders.
    on_close: Callback<()>,
    /// What the history watches: the open object in its resource.
    target: Option<Rc<HistoryTarget>>,
    /// The open row's versions from the view's engine, read again only when the row
    /// moves.
    rows: RefCell<Option<RowHistory>>,
}

/// The versions of a row: (object key, its version, deleted, entries).
type RowHistory = (String, String, bool, Rc<Vec<Entry>>);

impl Panel {
    pub fn new(send: Callback<Msg>) -> Panel {
        Panel {
            object: ObjectFetch::default(),
            related: Related::default(),
            on_close: send.reform(|_| Msg::Close),
            send,
            target: None,
            rows: RefCell::default(),
        }
    }

    /// Forgets the object and stops its events (a new view, or the app goes).
    pub fn clear(&mut self) {
        self.related.clear();
        self.object.clear();
        self.target = None;
        self.rows.take();
    }

    /// Follows the open panel's object (`open`: none when the panel is closed), a
    /// `resource` of its kind: fetches it, and watches its events.
    pub fn sync(&mut self, open: Option<&Arc<Object>>, resource: Option<&ResourceType>) {
        self.object.sync(open, resource, &self.send);
        let want = open
            .filter(|o| !o.uid().is_empty())
            .map(|o| (o.uid().to_string(), o.namespace().to_string()));
        self.related.sync(want, &self.send);
        let target = match (open, resource) {
            (Some(o), Some(rt)) => Some(HistoryTarget {
                prefix: if rt.group.is_empty() {
                    format!("/api/{}", rt.version)
                } else {
                    format!("/apis/{}/{}", rt.group, rt.version)
                },
                namespace: if rt.namespaced {
                    o.namespace().to_string()
                } else {
                    String::new()
                },
                plural: rt.plural.clone(),
                name: o.name().to_string(),
                secret: rt.group.is_empty() && rt.plural == "secrets",
            }),
            _ => None,
        };
        if self.target.as_deref() != target.as_ref() {
            self.target = target.map(Rc::new);
        }
    }

    /// The panel's news (all but [`Msg::Close`], which the app handles). True if
    /// the panel shows something new.
    pub fn update(&mut self, msg: Msg) -> bool {
        match msg {
            Msg::Fetched(generation, result) => self.object.fetched(generation, result),
            Msg::Related(generation) => self.related.read(generation),
            Msg::Close => false,
        }
    }

    /// The panel for `object` (`deleted` since); `cols` are the view's columns, of
    /// which the table shows `shown`; `secret`: a Secret's values are masked;
    /// `history`: the view's engine's history of its rows.
    pub fn view(
        &self,
        object: &Arc<Object>,
        deleted: bool,
        cols: &Rc<Vec<Column>>,
        shown: usize,
        secret: bool,
        history: &RefCell<History>,
    ) -> Html {
        let key = key_of(object);
        let rv = object.resource_version();
        let mut rows = self.rows.borrow_mut();
        let fresh = rows
            .as_ref()
            .is_some_and(|(k, v, d, _)| *k == key && v == rv && *d == deleted);
        if !fresh {
            let entries = history
                .borrow()
                .entries(object.namespace(), object.name())
                .cloned()
                .collect();
            *rows = Some((key, rv.to_string(), deleted, Rc::new(entries)));
        }
        let rows = rows.as_ref().map(|r| r.3.clone()).unwrap_or_default();
        html! {
            <Detail key={kubelive_table::key_of(object)} object={object.clone()} {deleted}
                cols={cols.clone()} {shown}
                fetched={self.object.shown()}
                {secret}
                on_close={self.on_close.clone()}
                events={self.related.view.clone()}
                now={crate::time::unix_now().floor()}
                history_target={self.target.clone()}
                history={rows} />
        }
    }
}
