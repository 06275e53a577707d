//! The keys (`?` lists them): the help and the detail sheet keep Tab in them, Esc
//! closes them or clears the filter, `/` goes to the filter, arrows, pages, Home
//! and End move the selection, Enter opens its details.

use super::focus::{cycle_focus_within, detail_is_sheet, FocusBack};
use super::query::Query;
use super::App;
use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;

impl App {
    /// A key pressed anywhere in the page. True if the page shows something new.
    pub(super) fn key(&mut self, e: KeyboardEvent) -> bool {
        let target = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok());
        let in_input = target
            .as_ref()
            .map(|el| matches!(el.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"))
            .unwrap_or(false);
        let in_control = target.as_ref().is_some_and(|el| {
            matches!(el.tag_name().as_str(), "BUTTON" | "A" | "SUMMARY")
                || el.closest("#help, #detail").ok().flatten().is_some()
        });
        // The help is modal: Tab stays in it (its one control is its close button).
        if self.focus.help_open && e.key() == "Tab" {
            e.prevent_default();
            self.focus.back_to(FocusBack::Help);
            self.place_focus();
            return false;
        }
        // The detail panel is modal where it is a sheet over the table: Tab cycles
        // through its controls.
        if self.view.open && e.key() == "Tab" && detail_is_sheet() {
            if cycle_focus_within("#detail", e.shift_key()) {
                e.prevent_default();
            }
            return false;
        }
        if e.ctrl_key() || e.meta_key() || e.alt_key() {
            return false;
        }
        // The namespace field handles its own keys (Esc puts its value back).
        if target.as_ref().is_some_and(|el| el.id() == "namespace") {
            return false;
        }
        // The tree view's lines take the moving keys (WAI-ARIA's tree pattern).
        if self.view.tree && !in_input && !in_control && self.forest.key(&e.key(), &self.grid.model)
        {
            e.prevent_default();
            return true;
        }
        match e.key().as_str() {
            "Escape" => {
                if self.focus.help_open {
                    self.focus.toggle_help();
                } else if self.view.open {
                    self.close_detail();
                } else {
                    self.toolbar.clear();
                    self.apply_query(Query::default());
                }
                true
            }
            _ if in_input => false,
            "/" => {
                e.prevent_default();
                self.toolbar.focus();
                false
            }
            "?" => {
                e.prevent_default();
                self.focus.toggle_help();
                true
            }
            "ArrowDown" | "j" => {
                e.prevent_default();
                self.move_selection(1);
                true
            }
            "ArrowUp" | "k" => {
                e.prevent_default();
                self.move_selection(-1);
                true
            }
            "PageDown" => {
                e.prevent_default();
                self.move_selection(self.grid.scroller.page_rows());
                true
            }
            "PageUp" => {
                e.prevent_default();
                self.move_selection(-self.grid.scroller.page_rows());
                true
            }
            "Home" => {
                e.prevent_default();
                self.focus.to_row = true;
                self.select_index(0);
                true
            }
            "End" => {
                e.prevent_default();
                self.focus.to_row = true;
                self.select_index(self.grid.model.len().saturating_sub(1));
                true
            }
            // A button, a link or the panels' own content takes its Enter (on a
            // header it sorts, it does not also open the selected row).
            "Enter" if self.view.selected.is_some() && !in_control => {
                // The focus may move into the panel at once: the key must not then
                // press the button it lands on.
                e.prevent_default();
                self.open_detail();
                true
            }
            _ => false,
        }
    }
}
