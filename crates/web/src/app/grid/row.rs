//! One row of the table in a pooled element, and its cells. Object data is only ever
//! rendered as text (Yew escapes text nodes and attribute values); nothing here sets
//! inner HTML.

use super::cells::{cell_text_width, CellLook};
use super::scroller::ROW_HEIGHT;
use kubelive_core::Object;
use kubelive_table::{row_texts, status_class, tone, Column, RowState};
use std::rc::Rc;
use std::sync::Arc;
use yew::prelude::*;
use yew::virtual_dom::{AttributeOrProperty, Attributes, VTag, VText};

/// A cell's text as its tooltip (it may be cut off), set when the pointer enters the
/// cell rather than kept on every cell: a cell that scrolls into view then changes
/// its text alone, not also an attribute. Numbers are never cut off.
pub(super) fn show_title(e: MouseEvent) {
    let Some(cell) = e
        .target_dyn_into::<web_sys::Element>()
        .and_then(|t| t.closest(".td:not(.num)").ok().flatten())
    else {
        return;
    };
    let text = cell.text_content().unwrap_or_default();
    if cell.get_attribute("title").as_deref() != Some(&text) {
        let _ = cell.set_attribute("title", &text);
    }
}

#[derive(Properties, PartialEq)]
pub struct RowProps {
    /// Compared by pointer first: the table shares the store's `Arc`s, so an
    /// unchanged row costs a pointer comparison.
    pub object: Arc<Object>,
    /// `namespace/name`.
    pub id: Rc<str>,
    pub state: RowState,
    /// When `state` began (ms).
    pub since: f64,
    pub selected: bool,
    /// The row's index in the table.
    pub index: usize,
    /// Where in the window: rows from its origin.
    pub place: i64,
    pub cols: Rc<Vec<Column>>,
    pub looks: Rc<Vec<CellLook>>,
    pub now: f64,
    pub on_select: Callback<String>,
    pub on_open: Callback<String>,
}

/// What a pooled row element animates: a flash or a fade belongs to an object's
/// change, not to the element, which shows other objects as the table scrolls.
#[derive(Debug, Default)]
pub struct Animation {
    /// The look being animated: the key, the state and when it began (bits).
    shown: Option<(Rc<str>, RowState, u64)>,
    /// Which of the two keyframe sets (`-a`/`-b`) it uses: they take turns, so
    /// that a new look restarts the animation even in the same state class.
    alt: bool,
    /// Its `animation-delay` (ms, <= 0): how far into the animation it starts.
    delay: f64,
}

impl Animation {
    /// For an element now showing `key` in `state`, begun at `since` (`now()` the
    /// clock, read only when needed): the keyframe set and the delay. A look the
    /// element already shows keeps both (its animation runs on undisturbed); a new
    /// one (another object scrolled into the element, or the same object changed
    /// again) gets the other set and starts at the phase it has reached, so a flash
    /// neither moves to another row nor restarts on a row that merely scrolled in.
    pub fn look(
        &mut self,
        key: &Rc<str>,
        state: RowState,
        since: f64,
        now: impl FnOnce() -> f64,
    ) -> (bool, f64) {
        if state == RowState::Normal {
            self.shown = None;
            return (self.alt, 0.0);
        }
        let id = (key.clone(), state, since.to_bits());
        if self.shown.as_ref() != Some(&id) {
            self.alt = !self.alt;
            self.delay = (since - now()).min(0.0);
            self.shown = Some(id);
        }
        (self.alt, self.delay)
    }
}

/// One row of the table, in a pooled element ([`super::scroller::Rows`]).
#[function_component(Row)]
pub fn row(p: &RowProps) -> Html {
    let o = &p.object;
    let animation = use_mut_ref(Animation::default);
    let (alt, delay) = animation
        .borrow_mut()
        .look(&p.id, p.state, p.since, crate::time::now_ms);
    let pick = |a: &'static str, b: &'static str| if alt { b } else { a };
    let class = classes!(
        "row",
        // Stripes by place in the window, which a row keeps while it stays in view
        // (and a pooled element always, the pool being even).
        (p.place.rem_euclid(2) == 1).then_some("odd"),
        p.selected.then_some("selected"),
        match p.state {
            RowState::Normal => None,
            RowState::Gone => Some("gone"),
            RowState::Changed { added: true, .. } => Some(pick("added-a", "added-b")),
            RowState::Changed { added: false, .. } => Some(pick("mod-a", "mod-b")),
        },
        (p.state == RowState::Gone && alt).then_some("gone-b"),
    );
    let select = {
        let key = p.id.clone();
        p.on_select.reform(move |_: MouseEvent| key.to_string())
    };
    let open = {
        let key = p.id.clone();
        p.on_open.reform(move |_: MouseEvent| key.to_string())
    };
    let top = p.place as f64 * ROW_HEIGHT;
    let style = if p.state == RowState::Normal {
        format!("transform:translateY({top}px)")
    } else {
        format!("transform:translateY({top}px);animation-delay:{delay:.0}ms")
    };
    html! {
        // The header is the grid's row 1. Focusable by the app (not by Tab): the
        // selected row takes the focus while the table has it.
        <div class={class} data-key={AttrValue::from(p.id.clone())} {style}
             aria-rowindex={(p.index + 2).to_string()} aria-selected={p.selected.then_some("true")}
             tabindex="-1" onclick={select} ondblclick={open} role="row">
            <Cells object={o.clone()} cols={p.cols.clone()} looks={p.looks.clone()} now={p.now} />
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct CellsProps {
    object: Arc<Object>,
    cols: Rc<Vec<Column>>,
    looks: Rc<Vec<CellLook>>,
    now: f64,
}

/// A row's cells: rendered again only when its object (or the clock, for ages)
/// changes, not when the row's place or state does (rows come and go above it).
/// A cell's attributes are its column's (shared strings) except a status-like
/// cell's classes, which say its words.
#[function_component(Cells)]
fn cells(p: &CellsProps) -> Html {
    p.looks
        .iter()
        .zip(row_texts(&p.cols, &p.object, p.now))
        .map(|(look, text)| {
            let base = if look.may_overflow(&text, cell_text_width) {
                &look.cut_class
            } else {
                &look.class
            };
            let class = if look.status_like {
                let words = status_class(&text)
                    .into_iter()
                    .chain(tone(&text).map(|t| t.class().to_string()));
                let mut class = base.to_string();
                for w in words {
                    class.push(' ');
                    class.push_str(&w);
                }
                AttrValue::from(class)
            } else {
                base.clone()
            };
            cell(class, look, text)
        })
        .collect()
}

/// `<span class={class} data-col role="gridcell" aria-colindex>{text}</span>`, built
/// without `html!`, which makes every `class` a `Classes` (split at spaces, hashed
/// into a set, joined again): a cell's classes are its column's shared string, given
/// as they are, and its other attributes its column's.
fn cell(class: AttrValue, look: &CellLook, text: String) -> Html {
    let mut span = VTag::new("span");
    span.set_attributes(Attributes::Dynamic {
        keys: &["class", "data-col", "role", "aria-colindex"],
        values: Box::new([
            Some(AttributeOrProperty::Attribute(class)),
            Some(AttributeOrProperty::Attribute(look.id.clone())),
            Some(AttributeOrProperty::Attribute(AttrValue::Static(
                "gridcell",
            ))),
            Some(AttributeOrProperty::Attribute(look.colindex.clone())),
        ]),
    });
    span.add_child(VText::new(text).into());
    span.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flash_keeps_its_phase_and_restarts_only_for_a_new_change() {
        let a: Rc<str> = "ns/a".into();
        let b: Rc<str> = "ns/b".into();
        let flash = |generation| RowState::Changed {
            added: false,
            generation,
        };
        let mut el = Animation::default();
        // `a` changed at 1,000 and is shown at once: the animation starts from its
        // beginning.
        let (first, delay) = el.look(&a, flash(1), 1000.0, || 1004.0);
        assert_eq!(delay, -4.0);
        // Re-rendered later (its age cell moved): the same look, untouched, and the
        // clock is not read.
        assert_eq!(
            el.look(&a, flash(1), 1000.0, || unreachable!()),
            (first, -4.0)
        );
        // `b`, which changed 700 ms ago, scrolls into this element: the other keyframe
        // set (the animation restarts) at its phase, not from the beginning.
        let (second, delay) = el.look(&b, flash(2), 1100.0, || 1800.0);
        assert_ne!(second, first);
        assert_eq!(delay, -700.0);
        // `b` changes again: a new flash, from its beginning.
        let (third, delay) = el.look(&b, flash(3), 1900.0, || 1900.0);
        assert_ne!(third, second);
        assert_eq!(delay, 0.0);
        // A normal row scrolls in: no animation (the class goes, so nothing moves
        // over); then a deleted one fading since 400 ms.
        assert_eq!(el.look(&a, RowState::Normal, 0.0, || unreachable!()).1, 0.0);
        let (_, delay) = el.look(&a, RowState::Gone, 2000.0, || 2400.0);
        assert_eq!(delay, -400.0);
        // The same object deleted again later (re-added meanwhile) is a new fade.
        let (alt, _) = el.look(&a, RowState::Gone, 2000.0, || unreachable!());
        assert_ne!(el.look(&a, RowState::Gone, 3000.0, || 3000.0).0, alt);
    }
}
