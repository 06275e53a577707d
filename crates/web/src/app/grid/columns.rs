//! The table's columns: the server's (or the app's own) for the view, wide or not,
//! those the table has room for (`fit`), and how wide their cells are, measured from
//! the header's cells by a `ResizeObserver` (read after layout, never forced).

use super::cells::{cell_looks, set_cell_font, CellLook, Rooms};
use super::fit;
use crate::app::page::{next_frame, window};
use kubelive_core::{ColumnKind, Event as CoreEvent, TableColumn};
use kubelive_table::{has_wide, view_columns, Column};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlElement;
use yew::prelude::*;

pub struct Columns {
    kind: ColumnKind,
    /// The server's columns for the view (None: not printed, or not yet).
    server: Option<Arc<[TableColumn]>>,
    /// The last columns each resource was printed with: a view of it starts with
    /// them (no flash of other columns before the first page).
    printed: HashMap<String, Arc<[TableColumn]>>,
    /// The view spans namespaces of a namespaced kind: a NAMESPACE column.
    with_namespace: bool,
    /// Every column of the view.
    pub all: Rc<Vec<Column>>,
    /// The columns the table has room for (`fit`): the others are in the detail panel.
    pub shown: Rc<Vec<Column>>,
    /// What the cells of `shown` carry besides their text.
    pub looks: Rc<Vec<CellLook>>,
    /// The width a row has for its cells (px) and the columns' floors, as last
    /// measured, and the room the note of hidden columns takes; none before the
    /// table is laid out (every column shows).
    room: Option<(f64, fit::Floors, f64)>,
    /// The scroller's scrollbar width (px): the header leaves it free, so that its
    /// cells are as wide as the rows' in every engine.
    pub gutter: f64,
    /// How the cells' text is laid out, as last measured.
    rooms: Rooms,
    /// The cells' font as last measured (a CSS `font` value).
    cell_font: String,
    /// Watches the header's cells for a change of size (the window, the detail
    /// panel, the wide toggle) and says when.
    observer: Option<(web_sys::ResizeObserver, Closure<dyn FnMut()>)>,
    /// The columns whose header cells it watches.
    observed: Option<Rc<Vec<Column>>>,
    /// The header row (`.thead`).
    pub header: NodeRef,
}

impl Default for Columns {
    fn default() -> Columns {
        Columns {
            kind: ColumnKind::Generic,
            server: None,
            printed: HashMap::new(),
            with_namespace: false,
            all: Rc::default(),
            shown: Rc::default(),
            looks: Rc::default(),
            room: None,
            gutter: 0.0,
            rooms: Rooms::default(),
            cell_font: String::new(),
            observer: None,
            observed: None,
            header: NodeRef::default(),
        }
    }
}

impl Columns {
    /// A new view of `resource` (`plural`): the columns it was last printed with.
    pub fn for_view(&mut self, resource: &str, plural: &str, with_namespace: bool) {
        self.kind = ColumnKind::for_resource(plural);
        // The namespace column only when it varies.
        self.with_namespace = with_namespace;
        self.server = self.printed.get(resource).cloned();
    }

    /// Recomputes the view's columns (server's or the app's, wide or not) and those
    /// shown. True if they changed.
    pub fn set(&mut self, wide: bool) -> bool {
        let cols = view_columns(self.server.as_deref(), self.kind, self.with_namespace, wide);
        if *self.all == cols {
            return false;
        }
        self.all = Rc::new(cols);
        self.fit(true);
        true
    }

    /// The server's columns for the view, if it prints them.
    pub fn server(&self) -> Option<Arc<[TableColumn]>> {
        self.server.clone()
    }

    /// Whether the server prints more columns than priority 0 ones.
    pub fn has_wide(&self) -> bool {
        has_wide(self.server.as_deref())
    }

    /// The titles of the columns the table has no room for.
    pub fn hidden(&self) -> Vec<&str> {
        self.all
            .iter()
            .filter(|c| !self.shown.iter().any(|s| s.id == c.id))
            .map(|c| c.title.as_str())
            .collect()
    }

    /// Picks the columns the table has room for; `force`: the columns changed. True
    /// if the shown ones did.
    fn fit(&mut self, force: bool) -> bool {
        let shown: Vec<Column> = match &self.room {
            Some((room, floors, marker)) => {
                let fits = fit::fit_columns(&self.all, floors, *room, *marker);
                self.all
                    .iter()
                    .zip(fits)
                    .filter(|(_, shown)| *shown)
                    .map(|(c, _)| c.clone())
                    .collect()
            }
            None => self.all.to_vec(),
        };
        if !force && *self.shown == shown {
            return false;
        }
        self.shown = Rc::new(shown);
        // Their widths are measured once their header is laid out.
        self.rooms.widths.clear();
        self.looks = Rc::new(cell_looks(&self.shown, &self.all, &self.rooms));
        true
    }

    /// The engine said which columns the server prints for `resource`, or that it
    /// does not print: whether the columns are to be set anew, and why the server's
    /// are not used, for the log.
    pub fn note(&mut self, events: &[CoreEvent], resource: &str) -> (bool, Vec<String>) {
        let mut changed = false;
        let mut own = Vec::new();
        for e in events {
            match e {
                CoreEvent::Columns { columns } => {
                    self.printed.insert(resource.to_string(), columns.clone());
                    self.server = Some(columns.clone());
                    changed = true;
                }
                CoreEvent::TablesUnavailable { why } => {
                    self.printed.remove(resource);
                    self.server = None;
                    changed = true;
                    own.push(why.to_string());
                }
                _ => {}
            }
        }
        (changed, own)
    }

    /// Has the header's cells of the current columns watched for their size: the
    /// observer reports each once it is laid out (no layout forced here, after a
    /// render), then whenever its size changes (`measured` is told at the next frame).
    pub fn observe(&mut self, scroller: &NodeRef, measured: &Callback<()>) {
        if self
            .observed
            .as_ref()
            .is_some_and(|c| Rc::ptr_eq(c, &self.shown))
        {
            return;
        }
        let Some(cells) = self.header_cells() else {
            return;
        };
        if self.observer.is_none() {
            let measured = measured.clone();
            // Measured at the next frame, not in the observer's callback: what the
            // measure changes (the columns shown, the header's gutter) resizes what it
            // observes, which within the callback is a ResizeObserver loop.
            let said = Closure::<dyn FnMut()>::new(move || {
                let measured = measured.clone();
                next_frame(move || measured.emit(()));
            });
            match web_sys::ResizeObserver::new(said.as_ref().unchecked_ref()) {
                Ok(observer) => self.observer = Some((observer, said)),
                // No observer: every cell keeps its ellipsis.
                Err(_) => return,
            }
        }
        let Some((observer, _)) = &self.observer else {
            return;
        };
        observer.disconnect();
        // The scroller's width says which columns fit.
        if let Some(scroller) = scroller.cast::<web_sys::Element>() {
            observer.observe(&scroller);
        }
        for i in 0..cells.length() {
            if let Some(cell) = cells
                .get(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            {
                observer.observe(&cell);
            }
        }
        self.observed = Some(self.shown.clone());
    }

    /// Stops watching the header.
    pub fn disconnect(&mut self) {
        if let Some((observer, _)) = self.observer.take() {
            observer.disconnect();
        }
    }

    /// The header's cells, once there is one for each current column.
    fn header_cells(&self) -> Option<web_sys::NodeList> {
        let cells = self
            .header
            .cast::<web_sys::Element>()?
            .query_selector_all(".th")
            .ok()?;
        (cells.length() as usize == self.shown.len()).then_some(cells)
    }

    /// Reads how wide the header's cells are (the observer calls after layout): the
    /// rows' cells are as wide ([`CellLook::may_overflow`]). True if that changed
    /// what the cells carry.
    pub fn measure(&mut self, scroller: &NodeRef) -> bool {
        let (Some(cells), Some(scroller)) =
            (self.header_cells(), scroller.cast::<web_sys::Element>())
        else {
            return false;
        };
        let style = |el: &web_sys::Element| window().get_computed_style(el).ok().flatten();
        let px = |s: &web_sys::CssStyleDeclaration, name: &str| {
            s.get_property_value(name)
                .ok()
                .and_then(|v| v.trim().trim_end_matches("px").parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        let gutter = self.gutter;
        // The room the rows have: their width less their padding (style.css, `.row`).
        let scroller_el = scroller.clone().dyn_into::<HtmlElement>().ok();
        if let (Some(el), Some(s)) = (&scroller_el, style(&scroller)) {
            let width = f64::from(el.client_width());
            let floors = fit::Floors {
                name: px(&s, "--floor-name"),
                mid: px(&s, "--floor-mid"),
                num: px(&s, "--floor-num"),
                text: px(&s, "--floor-text"),
            };
            let marker = px(&s, "--more-cols");
            let room = width - px(&s, "--row-pad") * 2.0;
            self.gutter = f64::from(el.offset_width() - el.client_width()).max(0.0);
            if width > 0.0 && floors.name > 0.0 {
                let next = Some((room, floors, marker));
                if next != self.room {
                    self.room = next;
                    if self.fit(false) {
                        // The header's new cells are measured once laid out.
                        return true;
                    }
                }
            }
        }
        let mut widths = Vec::with_capacity(self.shown.len());
        for i in 0..cells.length() {
            let Some(cell) = cells.get(i).and_then(|n| n.dyn_into::<HtmlElement>().ok()) else {
                return false;
            };
            // A header cell's button is as wide as its column's cells' text (style.css:
            // .thc and .td are padded alike; the button's own padding is vertical).
            let padding = style(&cell)
                .map(|s| px(&s, "padding-left") + px(&s, "padding-right"))
                .unwrap_or(0.0);
            widths.push((f64::from(cell.client_width()) - padding).max(0.0));
        }
        // The cells take the scroller's font (the header's is its own).
        let mut em = 0.0;
        if let Some(s) = style(&scroller) {
            em = px(&s, "font-size");
            let get = |name: &str| s.get_property_value(name).unwrap_or_default();
            let font = format!(
                "{} {} {} {}",
                get("font-style"),
                get("font-weight"),
                get("font-size"),
                get("font-family")
            );
            if font != self.cell_font {
                set_cell_font(&font);
                self.cell_font = font;
            }
        }
        let rooms = Rooms { widths, em };
        if rooms == self.rooms {
            return gutter != self.gutter;
        }
        self.rooms = rooms;
        self.looks = Rc::new(cell_looks(&self.shown, &self.all, &self.rooms));
        true
    }
}
