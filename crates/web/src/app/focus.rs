//! Where the focus goes: into the help and the detail sheet when they open (both
//! modal: Tab stays in them) and back when they close; onto the selected row while
//! the table has the focus, as rows move under it.

use super::page::window;
use wasm_bindgen::JsCast;
use web_sys::HtmlElement;
use yew::prelude::*;

/// Where the focus goes once the page has rendered.
#[derive(Clone, Debug, PartialEq)]
pub enum FocusBack {
    /// Back to an element (where it was when the help opened).
    Element(HtmlElement),
    /// The help's close button (the help opened).
    Help,
    /// The `?` button (the help closed).
    HelpButton,
    /// The detail panel's close button (it opened as a sheet over the table).
    Detail,
    /// The selected row, or the table (the detail panel closed).
    Table,
}

/// Where the detail panel is a sheet over the table (style.css says the same width).
const SHEET_MEDIA: &str = "(max-width: 720px)";

/// Whether the focus is in the element `selector` names.
pub fn focus_within(selector: &str) -> bool {
    window()
        .document()
        .and_then(|d| d.active_element())
        .is_some_and(|a| a.closest(selector).ok().flatten().is_some())
}

/// Whether the window is narrow enough for the detail panel to be a sheet over the table.
pub fn detail_is_sheet() -> bool {
    window()
        .match_media(SHEET_MEDIA)
        .ok()
        .flatten()
        .is_some_and(|m| m.matches())
}

/// Keeps Tab inside the modal element `selector`: from its last control Tab goes to its
/// first, from its first Shift+Tab goes to its last, and from outside to its first. True
/// when it moved the focus (the browser's own move must then be prevented).
pub fn cycle_focus_within(selector: &str, backwards: bool) -> bool {
    let Some(doc) = window().document() else {
        return false;
    };
    let Some(container) = doc.query_selector(selector).ok().flatten() else {
        return false;
    };
    let Ok(list) = container.query_selector_all(
        "button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), \
         textarea:not([disabled]), summary, [tabindex]:not([tabindex='-1'])",
    ) else {
        return false;
    };
    // Shown controls only (a collapsed section's have no layout box).
    let controls: Vec<HtmlElement> = (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<HtmlElement>().ok())
        .filter(|el| el.offset_parent().is_some())
        .collect();
    let (Some(first), Some(last)) = (controls.first(), controls.last()) else {
        return false;
    };
    let active = doc.active_element();
    let is = |el: &HtmlElement| {
        active
            .as_ref()
            .is_some_and(|a| a == el.unchecked_ref::<web_sys::Element>())
    };
    let to = if !focus_within(selector) {
        if backwards {
            last
        } else {
            first
        }
    } else if backwards && is(first) {
        last
    } else if !backwards && is(last) {
        first
    } else {
        return false;
    };
    let _ = to.focus();
    true
}

/// What the app knows of the focus.
#[derive(Default)]
pub struct Focus {
    /// The focus was in the table (a row or the scroller) when it last moved: it is
    /// kept on the selected row as rows move, or put back if its element went.
    pub table: bool,
    /// Where the focus goes after the help or the detail panel closes.
    back: Option<FocusBack>,
    /// Where the focus was when the help opened.
    help_opener: Option<FocusBack>,
    /// The user moved the selection (keys, a click): the focus goes to its row.
    pub to_row: bool,
    /// The help is shown.
    pub help_open: bool,
}

impl Focus {
    /// Where the focus goes at the next render.
    pub fn back_to(&mut self, to: FocusBack) {
        self.back = Some(to);
    }

    /// The detail panel opened: where it is a sheet over the table (a narrow
    /// window), the focus goes into it.
    pub fn detail_opened(&mut self) {
        if detail_is_sheet() {
            self.back = Some(FocusBack::Detail);
        }
    }

    /// The detail panel closed: the focus, if it was in it, goes back to the table.
    pub fn detail_closed(&mut self) {
        if focus_within("#detail") {
            self.back = Some(FocusBack::Table);
        }
    }

    /// Opens or closes the help; the focus goes into it, and back after to where it
    /// was (the table, if it was on a row or the table).
    pub fn toggle_help(&mut self) {
        self.help_open = !self.help_open;
        if self.help_open {
            let active = window().document().and_then(|d| d.active_element());
            self.help_opener = match active {
                Some(a) if a.closest("#scroller").ok().flatten().is_some() => {
                    Some(FocusBack::Table)
                }
                Some(a) if a.id() == "help-button" => Some(FocusBack::HelpButton),
                Some(a) => a
                    .dyn_into::<HtmlElement>()
                    .ok()
                    .filter(|a| a.tag_name() != "BODY")
                    .map(FocusBack::Element),
                None => None,
            };
            self.back = Some(FocusBack::Help);
        } else {
            self.back = self.help_opener.take();
        }
    }

    /// Keeps the focus where the user expects it after a render: on the element
    /// `back` says, and while the table has it, on the selected row's element
    /// (rows move: the element that showed it may show another row now), or on the
    /// table when that row is out of view or its element went.
    pub fn place(&mut self, selected: Option<&str>, scroller: &NodeRef) {
        let Some(doc) = window().document() else {
            return;
        };
        let by_id = |id: &str| {
            doc.get_element_by_id(id)
                .and_then(|e| e.dyn_into::<HtmlElement>().ok())
        };
        let focus = |el: &HtmlElement| {
            let opts = web_sys::FocusOptions::new();
            opts.set_prevent_scroll(true);
            let _ = el.focus_with_options(&opts);
        };
        match self.back.take() {
            Some(FocusBack::Element(el)) if el.is_connected() => focus(&el),
            Some(FocusBack::Help) => by_id("close-help").iter().for_each(focus),
            Some(FocusBack::HelpButton) => by_id("help-button").iter().for_each(focus),
            Some(FocusBack::Detail) => by_id("close-detail").iter().for_each(focus),
            Some(FocusBack::Table) => {
                self.table = true;
                self.to_row = true;
            }
            // Gone meanwhile (the view changed under the help).
            Some(FocusBack::Element(_)) | None => {}
        }
        let to_row = std::mem::take(&mut self.to_row);
        if !self.table && !to_row {
            return;
        }
        let active = doc.active_element();
        // A row has it (which may show another row now), or its element went.
        let on_row = active
            .as_ref()
            .is_some_and(|a| a.matches(".row").unwrap_or(false));
        let lost = active.as_ref().is_none_or(|a| a.tag_name() == "BODY");
        let in_table = active
            .as_ref()
            .is_some_and(|a| a.closest("#scroller").ok().flatten().is_some());
        // The user's selection moves the focus from the table (Tab put it on the
        // scroller) to the row; from elsewhere only a click on a row does.
        if !(on_row || (lost && self.table) || (to_row && (in_table || lost))) {
            return;
        }
        if on_row
            && active
                .as_ref()
                .and_then(|a| a.get_attribute("data-key"))
                .as_deref()
                == selected
        {
            return;
        }
        let Some(scroller) = scroller.cast::<HtmlElement>() else {
            return;
        };
        let row = selected.and_then(|key| {
            let rows = scroller.query_selector_all(".row").ok()?;
            (0..rows.length())
                .filter_map(|i| rows.get(i)?.dyn_into::<HtmlElement>().ok())
                .find(|r| r.get_attribute("data-key").as_deref() == Some(key))
        });
        let target = row.unwrap_or(scroller);
        if active.as_ref() != Some(target.as_ref()) {
            focus(&target);
        }
    }
}
