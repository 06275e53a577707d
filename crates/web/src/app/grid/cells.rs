//! What a column's cells carry besides their text, and how wide their text may be
//! before it is cut off with an ellipsis.

use kubelive_table::Column;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// What a column's cells (and its header) carry that does not depend on the row,
/// made once per set of columns so that a cell's render allocates only its text.
#[derive(Clone, Debug, PartialEq)]
pub struct CellLook {
    /// `data-col`.
    pub id: AttrValue,
    /// `aria-colindex`: the column's place among all the view's columns (some may
    /// be hidden), from 1.
    pub colindex: AttrValue,
    /// `td` and the column's kind classes: its width (`w-*`, see style.css), `num`,
    /// `name`.
    pub class: AttrValue,
    /// The kind classes alone (the header's `th` carries them too).
    pub kind: AttrValue,
    /// Status-like: the cell's classes also say its words (`st-*`, `tone-*`).
    pub status_like: bool,
    /// `class` and `cut`: a text that may not fit ends in an ellipsis.
    pub cut_class: AttrValue,
    /// The width its cells have for their text (px), once measured.
    pub room: Option<f64>,
    /// How many bytes of text surely fit that width: at most 1em a byte.
    sure_bytes: usize,
}

impl CellLook {
    /// Whether `text` may not fit its cell, so that the cell ends it in an ellipsis:
    /// a cell with `text-overflow: ellipsis` costs the browser more to lay out and
    /// paint whether or not it overflows (scrolling frames: see BENCHMARKS.md), and
    /// most cells' texts fit. `width` measures a text (px); none: it may not fit.
    pub fn may_overflow(&self, text: &str, width: impl FnOnce(&str) -> Option<f64>) -> bool {
        let Some(room) = self.room else {
            return true;
        };
        if text.len() <= self.sure_bytes {
            return false;
        }
        width(text).is_none_or(|w| w > room - TEXT_SLACK_PX)
    }
}

/// How the cells' text is laid out, as the app last measured it: each column's width
/// for its cells' text and the cells' font size (px); no widths before the header is
/// laid out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rooms {
    pub widths: Vec<f64>,
    pub em: f64,
}

/// What a measured text may differ by from the page's own layout of it (px).
const TEXT_SLACK_PX: f64 = 2.0;

/// Measures texts in the cells' font on a canvas of its own: no layout of the page.
pub struct TextMeasure {
    ctx: web_sys::CanvasRenderingContext2d,
}

impl TextMeasure {
    /// A canvas set to `font` (a CSS `font` value); none where there is no 2D canvas.
    pub fn new(font: &str) -> Option<TextMeasure> {
        let canvas: web_sys::HtmlCanvasElement = web_sys::window()?
            .document()?
            .create_element("canvas")
            .ok()?
            .dyn_into()
            .ok()?;
        let ctx: web_sys::CanvasRenderingContext2d =
            canvas.get_context("2d").ok()??.dyn_into().ok()?;
        ctx.set_font(font);
        Some(TextMeasure { ctx })
    }

    pub fn width(&self, text: &str) -> Option<f64> {
        self.ctx.measure_text(text).ok().map(|m| m.width())
    }
}

thread_local! {
    /// The cells' [`TextMeasure`], set when the app measures its columns.
    static CELL_TEXT: std::cell::RefCell<Option<TextMeasure>> = const { std::cell::RefCell::new(None) };
}

/// Sets the font the cells' texts are measured in.
pub fn set_cell_font(font: &str) {
    CELL_TEXT.with(|m| *m.borrow_mut() = TextMeasure::new(font));
}

/// `text`'s width in the cells' font (px), where it can be measured.
pub(super) fn cell_text_width(text: &str) -> Option<f64> {
    CELL_TEXT.with(|m| m.borrow().as_ref().and_then(|m| m.width(text)))
}

/// The [`CellLook`]s of `cols` (the shown ones of `all`), in order, for cells laid out
/// as `rooms` says.
pub fn cell_looks(cols: &[Column], all: &[Column], rooms: &Rooms) -> Vec<CellLook> {
    cols.iter()
        .enumerate()
        .map(|(i, c)| {
            let kind = format!(
                "{}{}{}",
                c.width_class(),
                if c.numeric { " num" } else { "" },
                if c.is_name { " name" } else { "" },
            );
            let room = rooms.widths.get(i).copied();
            // No glyph of the page's fonts is wider than 1em a byte of its UTF-8.
            let sure_bytes = match room {
                Some(room) if rooms.em > 0.0 => (room / rooms.em) as usize,
                _ => 0,
            };
            let place = all.iter().position(|a| a.id == c.id).unwrap_or(i);
            CellLook {
                id: AttrValue::from(c.id.clone()),
                colindex: AttrValue::from((place + 1).to_string()),
                class: AttrValue::from(format!("td {kind}")),
                cut_class: AttrValue::from(format!("td {kind} cut")),
                kind: AttrValue::from(kind),
                status_like: c.status_like,
                room,
                sure_bytes,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_text_that_may_not_fit_its_cell_gets_an_ellipsis() {
        let cols = kubelive_table::view_columns(None, kubelive_core::ColumnKind::Pod, true, false);
        let unmeasured = cell_looks(&cols, &cols, &Rooms::default());
        let rooms = Rooms {
            widths: vec![100.0; cols.len()],
            em: 13.0,
        };
        let measured = cell_looks(&cols, &cols, &rooms);
        let never = |_: &str| -> Option<f64> { panic!("measured a text that surely fits") };
        // Before the header is measured, every text may not fit.
        assert!(unmeasured[0].may_overflow("a", never));
        assert!(unmeasured[0].cut_class.ends_with(" cut"));
        assert!(!unmeasured[0].class.contains("cut"));
        // Up to 1em a byte fits without measuring: 7 bytes in 100 px at 13 px.
        assert!(!measured[0].may_overflow("Running", never));
        assert!(!measured[0].may_overflow("", never));
        // Longer: measured, with a little slack for the page's own layout of it.
        let text = "a-pod-name-of-forty-bytes-more-or-less-x";
        assert!(!measured[0].may_overflow(text, |t| Some(t.len() as f64 * 2.0)));
        assert!(measured[0].may_overflow(text, |_| Some(99.0)));
        assert!(measured[0].may_overflow(text, |_| Some(140.0)));
        // A multi-byte text is counted in bytes: never under its width.
        assert!(!measured[0].may_overflow("ééé", never));
        // Where nothing can measure it, it may not fit.
        assert!(measured[0].may_overflow(text, |_| None));
    }
}
