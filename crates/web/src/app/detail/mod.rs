//! The detail panel of the selected row: the whole object, GET when the panel opens
//! and again when the row's version moves (`object`), written as YAML or JSON with
//! Secret values masked (`yaml`), and its related events from an engine of their own
//! (`related`, `events`), alive while the panel shows that object.

pub mod events;
mod object;
mod related;
mod view;
pub mod yaml;

pub use object::object_path;
pub use view::{
    Detail, DetailProps, Fetched, RelatedEvents, RelatedEventsProps, RelatedState, RelatedView,
};

use crate::app::discovery::ResourceType;
use crate::table::Column;
use kubelive_core::Object;
use object::ObjectFetch;
use related::Related;
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
}

impl Panel {
    pub fn new(send: Callback<Msg>) -> Panel {
        Panel {
            object: ObjectFetch::default(),
            related: Related::default(),
            on_close: send.reform(|_| Msg::Close),
            send,
        }
    }

    /// Forgets the object and stops its events (a new view, or the app goes).
    pub fn clear(&mut self) {
        self.related.clear();
        self.object.clear();
    }

    /// Follows the open panel's object (`open`: none when the panel is closed), a
    /// `resource` of its kind: fetches it, and watches its events.
    pub fn sync(&mut self, open: Option<&Arc<Object>>, resource: Option<&ResourceType>) {
        self.object.sync(open, resource, &self.send);
        let want = open
            .filter(|o| !o.uid().is_empty())
            .map(|o| (o.uid().to_string(), o.namespace().to_string()));
        self.related.sync(want, &self.send);
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
    /// which the table shows `shown`; `secret`: a Secret's values are masked.
    pub fn view(
        &self,
        object: &Arc<Object>,
        deleted: bool,
        cols: &Rc<Vec<Column>>,
        shown: usize,
        secret: bool,
    ) -> Html {
        html! {
            <Detail key={crate::table::key_of(object)} object={object.clone()} {deleted}
                cols={cols.clone()} {shown}
                fetched={self.object.shown()}
                {secret}
                on_close={self.on_close.clone()}
                events={self.related.view.clone()}
                now={crate::time::unix_now().floor()} />
        }
    }
}
