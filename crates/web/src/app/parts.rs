//! The app's smaller pieces. Object data is only ever rendered as text (Yew escapes
//! text nodes and attribute values); nothing here sets inner HTML.

use crate::app::access::Verdict;
use crate::app::events::EventRow;
use crate::status::StatusView;
use crate::table::{key_of, row_texts, status_class, tone, Column, RowState};
use crate::app::yaml::{plain, to_json, to_yaml, Mask, Segment, MASK};
use kubelive_core::Object;
use std::collections::HashSet;
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;
use yew::virtual_dom::{AttributeOrProperty, Attributes, VTag, VText};

#[derive(Properties, PartialEq)]
pub struct StatusBarProps {
    pub status: StatusView,
    pub resource: String,
    /// Said instead of the engine's headline when no engine runs (the view waits for
    /// discovery, or cannot start).
    #[prop_or_default]
    pub instead: Option<AttrValue>,
}

/// The status bar: the engine's phase and health, from `Engine::status()`.
#[function_component(StatusBar)]
pub fn status_bar(p: &StatusBarProps) -> Html {
    let s = &p.status;
    let tone = s.tone();
    let error = s.last_error.as_ref().filter(|e| {
        s.phase == "backingOff" && s.failed.is_none() && s.backoff_reason.as_ref() != Some(*e)
    });
    html! {
        <div class={classes!("statusbar", tone)} id="status" data-phase={s.phase} data-synced={s.synced.to_string()}
             data-rv={s.resource_version.clone().unwrap_or_default()}
             data-relists={s.relists.to_string()} data-resumes={s.resumes.to_string()}>
            // The dot's colour repeats the headline's words (never alone).
            <span class="dot" aria-hidden="true"></span>
            <span class="headline" id="status-headline">{ p.instead.as_ref().map(|i| i.to_string()).unwrap_or_else(|| s.headline()) }</span>
            if let Some(e) = error {
                <span class="err" title={e.clone()}>{ e.clone() }</span>
            }
            <span class="facts">
                { for s.details().into_iter().map(|d| html! { <span class="fact">{d}</span> }) }
            </span>
        </div>
    }
}

/// A part of the page that is rendered again only when its stamp changes, whatever
/// its content: the parent bumps the stamp when the part may show something new, and
/// a render that only moves the table's rows (a scrolling frame) leaves the header,
/// the status bar and the event log alone (no diff, no DOM write, no repaint).
#[derive(Properties)]
pub struct KeptProps {
    pub stamp: u64,
    pub content: Html,
}

/// Equal by stamp alone: that is the point.
impl PartialEq for KeptProps {
    fn eq(&self, other: &KeptProps) -> bool {
        self.stamp == other.stamp
    }
}

/// See [`KeptProps`].
#[function_component(Kept)]
pub fn kept(p: &KeptProps) -> Html {
    p.content.clone()
}

/// A row to render, with what the table model knows of it (looked up once a render).
#[derive(Clone, Debug, PartialEq)]
pub struct ShownRow {
    pub object: Arc<Object>,
    /// `namespace/name`.
    pub key: Rc<str>,
    pub state: RowState,
    /// When `state` began (ms, [`crate::time::now_ms`]): the change or the deletion.
    pub since: f64,
}

impl ShownRow {
    /// `look`: the row's state and since when, by its key (`TableModel::row_look`).
    pub fn new(object: Arc<Object>, look: impl FnOnce(&str) -> (RowState, f64)) -> ShownRow {
        let key: Rc<str> = key_of(&object).into();
        let (state, since) = look(&key);
        ShownRow {
            object,
            key,
            state,
            since,
        }
    }
}

/// The pooled row element that shows the row `place` rows from the window's origin,
/// out of `pool` elements. A row keeps its element while it stays in the window (the
/// origin moves with the rows that come and go above, as the row's place does); a row
/// scrolling in takes the element of the one that scrolled out.
pub fn slot_of(place: i64, pool: usize) -> usize {
    place.rem_euclid(pool.max(1) as i64) as usize
}

/// The elements a window of `rows` rows needs: even, so that a pooled element's
/// stripe never changes.
pub fn pool_size(rows: usize) -> usize {
    rows.div_ceil(2) * 2
}

#[derive(Properties, PartialEq)]
pub struct RowsProps {
    /// The visible window of rows.
    pub rows: Rc<Vec<ShownRow>>,
    /// Index of the first of them in the whole table.
    pub first: usize,
    /// The row index the window is placed at; rows sit at their index less this.
    pub base: i64,
    /// How many row elements the window keeps (at least the rows it may show; 0: as
    /// many as `rows`, rounded up to even). Constant while the viewport's height is.
    #[prop_or_default]
    pub pool: usize,
    pub cols: Rc<Vec<Column>>,
    /// What each column's cells carry besides their text ([`cell_looks`] of `cols`).
    pub looks: Rc<Vec<CellLook>>,
    pub selected: Option<String>,
    /// Unix seconds, for ages.
    pub now: f64,
    pub on_select: Callback<String>,
    pub on_open: Callback<String>,
}

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
fn cell_text_width(text: &str) -> Option<f64> {
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

/// The rendered window of the virtualized table: a layer placed at row `base`, each
/// row absolutely placed in it, in a fixed pool of row elements keyed by their slot
/// ([`slot_of`]) and kept in slot order in the DOM. Scrolling changes what the
/// elements that change rows show (their text, their place), never which elements
/// there are or their order: no row element is created, styled from scratch or laid
/// out anew while the table scrolls, and the page need not re-layerize for it. Each
/// row is a component of its own, so only rows that change are rendered. The DOM
/// order is not the table's: `aria-rowindex` says each row's place.
#[function_component(Rows)]
pub fn rows(p: &RowsProps) -> Html {
    rows_html(p)
}

/// What [`Rows`] renders, for a parent to render in place: the app does, so that a
/// render that first brings rows creates their elements in the same run of Yew's
/// scheduler. A child component's new props wait in a queue that Yew may leave for a
/// later task once a run has taken 16 ms (it yields to the browser), and the browser
/// would then paint the table without its rows first.
pub fn rows_html(p: &RowsProps) -> Html {
    let origin = p.base as f64 * super::ROW_HEIGHT;
    let pool = if p.pool >= p.rows.len() {
        p.pool
    } else {
        pool_size(p.rows.len())
    };
    let mut slots: Vec<Option<(usize, &ShownRow)>> = vec![None; pool];
    for (i, r) in p.rows.iter().enumerate() {
        let index = p.first + i;
        slots[slot_of(index as i64 - p.base, pool)] = Some((index, r));
    }
    html! {
        <div class="window" style={format!("transform:translateY({origin}px)")} onmouseover={show_title}>
            { for slots.into_iter().enumerate().filter_map(|(slot, shown)| {
                let (index, r) = shown?;
                let selected = p.selected.as_deref() == Some(&*r.key);
                let place = index as i64 - p.base;
                Some(html! {
                    <Row key={slot} id={r.key.clone()} object={r.object.clone()} state={r.state}
                         since={r.since} {selected} {index} {place} cols={p.cols.clone()}
                         looks={p.looks.clone()} now={p.now}
                         on_select={p.on_select.clone()} on_open={p.on_open.clone()} />
                })
            }) }
        </div>
    }
}

/// A cell's text as its tooltip (it may be cut off), set when the pointer enters the
/// cell rather than kept on every cell: a cell that scrolls into view then changes
/// its text alone, not also an attribute. Numbers are never cut off.
fn show_title(e: MouseEvent) {
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

/// One row of the table, in a pooled element ([`Rows`]).
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
    let top = p.place as f64 * super::ROW_HEIGHT;
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

/// The whole object as the detail panel last fetched it (a row holds only metadata).
#[derive(Clone, Debug)]
pub enum Fetched {
    Loading,
    Loaded(Rc<serde_json::Value>),
    /// What went wrong: the server's words (403, 404) or the network's.
    Failed(String),
}

/// Compared by pointer: a fetched object is never changed in place.
impl PartialEq for Fetched {
    fn eq(&self, other: &Fetched) -> bool {
        match (self, other) {
            (Fetched::Loading, Fetched::Loading) => true,
            (Fetched::Loaded(a), Fetched::Loaded(b)) => Rc::ptr_eq(a, b),
            (Fetched::Failed(a), Fetched::Failed(b)) => a == b,
            _ => false,
        }
    }
}

/// `metadata.<field>` of the fetched object as pairs; `None` before it is fetched (a
/// row holds its own labels and annotations only when the view keeps all metadata).
fn meta_pairs(fetched: &Fetched, field: &str) -> Option<Vec<(String, String)>> {
    let Fetched::Loaded(v) = fetched else {
        return None;
    };
    let map = v["metadata"][field].as_object();
    Some(
        map.into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
            .collect(),
    )
}

#[derive(Properties, PartialEq)]
pub struct DetailProps {
    /// The row: its metadata.
    pub object: Arc<Object>,
    pub deleted: bool,
    /// The whole object, fetched on demand.
    pub fetched: Fetched,
    /// The object is a Secret: `data` and `stringData` values are masked.
    #[prop_or_default]
    pub secret: bool,
    pub on_close: Callback<()>,
    /// The object's events, live.
    #[prop_or_default]
    pub events: Rc<RelatedView>,
    /// Unix seconds, for the events' ages.
    #[prop_or_default]
    pub now: f64,
    /// The view's columns: the panel shows every cell of the row, those the table
    /// has no room for too.
    #[prop_or_default]
    pub cols: Rc<Vec<Column>>,
    /// How many of `cols` the table shows.
    #[prop_or_default]
    pub shown: usize,
}

/// The selected object: metadata, labels, annotations, its events, and the whole
/// object as YAML or JSON. Secret values stay masked (and out of the DOM) until the
/// user reveals them one by one; the panel is keyed by object, so a reveal does not
/// carry over to another one.
#[function_component(Detail)]
pub fn detail(p: &DetailProps) -> Html {
    let o = &p.object;
    let yaml = use_state(|| true);
    let revealed = use_state(HashSet::<String>::new);
    let copied = use_state(|| false);
    // The text of the shown version and format only (re-made when they change).
    let segments = use_memo(
        (p.fetched.clone(), *yaml, p.secret, {
            let mut ids: Vec<String> = revealed.iter().cloned().collect();
            ids.sort();
            ids
        }),
        |(fetched, yaml, secret, _)| match fetched {
            Fetched::Loaded(v) => {
                let mask = Mask {
                    secret: *secret,
                    revealed: &revealed,
                };
                if *yaml {
                    to_yaml(v, mask)
                } else {
                    to_json(v, mask)
                }
            }
            _ => Vec::new(),
        },
    );
    let pairs = |list: Vec<(String, String)>| {
        html! {
            <dl class="pairs">
                { for list.into_iter().map(|(k, v)| html! { <><dt>{k}</dt><dd>{v}</dd></> }) }
            </dl>
        }
    };
    let format = |is_yaml: bool| {
        let state = yaml.clone();
        let copied = copied.clone();
        Callback::from(move |_: MouseEvent| {
            state.set(is_yaml);
            copied.set(false);
        })
    };
    let on_copy = {
        let segments = segments.clone();
        let copied = copied.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(w) = web_sys::window() {
                // What is shown: masked values stay masked.
                let _ = w.navigator().clipboard().write_text(&plain(&segments));
                copied.set(true);
            }
        })
    };
    let on_close = p.on_close.reform(|_: MouseEvent| ());
    let body = match &p.fetched {
        Fetched::Loading => {
            html! { <div class="detail-note" id="detail-loading">{"Loading the object…"}</div> }
        }
        Fetched::Failed(why) => html! {
            <div class="detail-note error" id="detail-error" role="alert">{ format!("Cannot show the object: {why}") }</div>
        },
        Fetched::Loaded(_) => html! {
            <pre class="json" id="detail-text" data-format={if *yaml { "yaml" } else { "json" }}
                tabindex="0" aria-label={if *yaml { "The object as YAML" } else { "The object as JSON" }}>
                { for segments.iter().map(|s| match s {
                    Segment::Text(t) => html! { { t.clone() } },
                    Segment::Masked { id } => {
                        let reveal = {
                            let revealed = revealed.clone();
                            let id = id.clone();
                            Callback::from(move |_: MouseEvent| {
                                let mut next = (*revealed).clone();
                                next.insert(id.clone());
                                revealed.set(next);
                            })
                        };
                        html! {
                            <button class="secret-mask" data-secret={id.clone()} title="Reveal this value" onclick={reveal}>{ MASK }</button>
                        }
                    }
                }) }
            </pre>
        },
    };
    html! {
        <aside class="detail" id="detail" aria-label={format!("Details of {}", o.name())}>
            <div class="detail-head">
                <div class="detail-title">
                    <div class="detail-name" id="detail-name">{ o.name() }</div>
                    <div class="detail-sub">
                        { if o.namespace().is_empty() { String::new() } else { format!("{} · ", o.namespace()) } }
                        { format!("rv {}", o.resource_version()) }
                        if p.deleted { <span class="badge gone">{"deleted"}</span> }
                    </div>
                </div>
                <button class="btn" id="copy-text" onclick={on_copy} disabled={segments.is_empty()}
                    title="Copy the object as shown (masked values stay masked)">
                    { if *copied { "Copied" } else if *yaml { "Copy YAML" } else { "Copy JSON" } }
                </button>
                <button class="btn" id="close-detail" onclick={on_close} title="Close (Esc)" aria-label="Close the details">{"×"}</button>
            </div>
            <div class="detail-body">
                if !p.cols.is_empty() {
                    <h4 id="detail-cells-title">{"Columns"}</h4>
                    <dl class="pairs" id="detail-cells" aria-labelledby="detail-cells-title"
                        data-hidden={(p.cols.len() - p.shown.min(p.cols.len())).to_string()}>
                        { for p.cols.iter().zip(row_texts(&p.cols, o, p.now)).map(|(c, text)| html! {
                            <><dt data-col={c.id.clone()}>{ c.title.clone() }</dt><dd data-col={c.id.clone()}>{ text }</dd></>
                        }) }
                    </dl>
                }
                <RelatedEvents view={p.events.clone()} now={p.now} />
                <h4>{"Labels"}</h4>
                { pairs(meta_pairs(&p.fetched, "labels").unwrap_or_else(|| o.labels())) }
                <h4>{"Annotations"}</h4>
                { pairs(meta_pairs(&p.fetched, "annotations").unwrap_or_else(|| o.annotations())) }
                <h4 class="detail-format">
                    {"Object"}
                    <span class="switch" role="group" aria-label="Format">
                        <button class="btn small" id="format-yaml" aria-pressed={(*yaml).to_string()} onclick={format(true)}>{"YAML"}</button>
                        <button class="btn small" id="format-json" aria-pressed={(!*yaml).to_string()} onclick={format(false)}>{"JSON"}</button>
                    </span>
                </h4>
                { body }
            </div>
        </aside>
    }
}

/// One line of the event log.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LogEntry {
    pub seq: u64,
    /// ADDED, MODIFIED, DELETED, SYNCED, RELIST, BACKOFF, FAILED, RESUMED, VIEW.
    pub kind: &'static str,
    pub object: String,
    pub version: String,
    /// Wall-clock time, HH:MM:SS.
    pub at: String,
    /// CSS tone: added, modified, deleted, ok, warn, error, note.
    pub tone: &'static str,
}

#[derive(Properties, PartialEq)]
pub struct EventLogProps {
    pub entries: Rc<Vec<LogEntry>>,
    /// Held still while the pointer is over it.
    pub held: bool,
    /// Entries recorded but not shown yet.
    pub unseen: u64,
    pub on_hold: Callback<bool>,
}

/// The last changes, newest first.
#[function_component(EventLog)]
pub fn event_log(p: &EventLogProps) -> Html {
    let enter = p.on_hold.reform(|_: MouseEvent| true);
    let leave = p.on_hold.reform(|_: MouseEvent| false);
    html! {
        <footer class="log" id="log" onmouseenter={enter} onmouseleave={leave} data-held={p.held.to_string()}>
            <div class="log-title">
                {"Recent changes"}
                if p.held {
                    <span class="log-held" id="log-held">
                        { if p.unseen == 0 { "paused".to_string() } else { format!("paused · {} new", p.unseen) } }
                    </span>
                }
            </div>
            <LogList entries={p.entries.clone()} />
        </footer>
    }
}

#[derive(Properties, PartialEq)]
struct LogListProps {
    entries: Rc<Vec<LogEntry>>,
}

/// The lines: re-rendered only when a new snapshot of them is shown.
#[function_component(LogList)]
fn log_list(p: &LogListProps) -> Html {
    html! {
        // Focusable: it scrolls, and a keyboard must be able to scroll it.
        <ol class="log-list" tabindex="0" aria-label="Recent changes, newest first">
            { for p.entries.iter().map(|e| html! {
                <li key={e.seq} class={classes!("log-entry", e.tone)} data-kind={e.kind}>
                    <span class="log-at">{ e.at.clone() }</span>
                    <span class="log-kind">{ e.kind }</span>
                    <span class="log-obj">{ e.object.clone() }</span>
                    <span class="log-rv">{ if e.version.is_empty() { String::new() } else { format!("rv {}", e.version) } }</span>
                </li>
            }) }
        </ol>
    }
}

/// Where the related-events watch stands.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum RelatedState {
    /// Not watching (no object, or an object without a uid).
    #[default]
    Off,
    Loading,
    Live,
    /// The server refused (the user may not list events, say): its words.
    Failed(String),
}

/// The related events the detail panel shows, newest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RelatedView {
    pub rows: Vec<EventRow>,
    pub state: RelatedState,
}

#[derive(Properties, PartialEq)]
pub struct RelatedEventsProps {
    pub view: Rc<RelatedView>,
    pub now: f64,
}

/// The object's events, as `kubectl describe` lists them (newest first here).
#[function_component(RelatedEvents)]
pub fn related_events(p: &RelatedEventsProps) -> Html {
    let v = &p.view;
    let state = match &v.state {
        RelatedState::Off => return html! {},
        RelatedState::Loading => "loading",
        RelatedState::Live => "live",
        RelatedState::Failed(_) => "failed",
    };
    html! {
        <section class="related" id="related-events" data-state={state} data-count={v.rows.len().to_string()}>
            <h4>{"Events"}</h4>
            if let RelatedState::Failed(why) = &v.state {
                <div class="related-note error">{ format!("Cannot show events: {why}") }</div>
            } else if v.rows.is_empty() {
                <div class="related-note">{ if v.state == RelatedState::Loading { "Loading events…" } else { "No events." } }</div>
            } else {
                <ol class="events">
                    { for v.rows.iter().map(|e| html! {
                        <li key={e.name.clone()} class={classes!("event", e.class())} data-reason={e.reason.clone()}>
                            <span class="ev-type">{ e.kind.clone() }</span>
                            <span class="ev-reason">{ e.reason.clone() }</span>
                            <span class="ev-age">{ e.age(p.now) }</span>
                            <span class="ev-source">{ e.source.clone() }</span>
                            <span class="ev-message">{ e.message.clone() }</span>
                        </li>
                    }) }
                </ol>
            }
        </section>
    }
}

/// A namespace to offer, with what is known of the user's access to the view's
/// resource there.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub name: String,
    pub verdict: Verdict,
}

#[derive(Properties, PartialEq)]
pub struct ProblemProps {
    /// What happened, in words a user acts on.
    pub title: AttrValue,
    /// The server's own message.
    #[prop_or_default]
    pub message: Option<AttrValue>,
    /// What to do next.
    #[prop_or_default]
    pub hint: Option<AttrValue>,
    /// Namespaces to switch to (a button each).
    #[prop_or_default]
    pub choices: Rc<Vec<Choice>>,
    #[prop_or_default]
    pub on_choose: Callback<String>,
    /// A button with its label (retry, say).
    #[prop_or_default]
    pub action: Option<(AttrValue, Callback<()>)>,
    /// `error` or `note`.
    #[prop_or(AttrValue::Static("error"))]
    pub tone: AttrValue,
}

/// Why the table is empty when it is not just loading: a failed view, a link that
/// names no resource, a selector the server refused.
#[function_component(Problem)]
pub fn problem(p: &ProblemProps) -> Html {
    let (usable, denied): (Vec<&Choice>, Vec<&Choice>) =
        p.choices.iter().partition(|c| !c.verdict.is_denied());
    html! {
        <div class={classes!("problem", p.tone.to_string())} id="problem" role="alert">
            <div class="problem-title" id="problem-title">{ p.title.clone() }</div>
            if let Some(m) = &p.message {
                <div class="problem-message" id="problem-message">{ m.clone() }</div>
            }
            if let Some(h) = &p.hint {
                <div class="problem-hint">{ h.clone() }</div>
            }
            if !usable.is_empty() {
                <div class="choices" id="choices">
                    { for usable.iter().map(|c| {
                        let name = c.name.clone();
                        let onclick = p.on_choose.reform(move |_: MouseEvent| name.clone());
                        let (class, title) = match c.verdict {
                            Verdict::Allowed => ("choice allowed", "you may list here"),
                            _ => ("choice unknown", "not checked: try it"),
                        };
                        html! {
                            <button class={class} data-ns={c.name.clone()} {title} {onclick}>{ c.name.clone() }</button>
                        }
                    }) }
                </div>
            }
            if !denied.is_empty() {
                <div class="problem-denied" id="denied">
                    { format!("Not allowed: {}", denied.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")) }
                </div>
            }
            if let Some((label, cb)) = &p.action {
                <button class="btn" id="problem-action" onclick={cb.reform(|_: MouseEvent| ())}>{ label.clone() }</button>
            }
        </div>
    }
}

/// A namespace the field suggests, and what is known of it.
#[derive(Clone, Debug, PartialEq)]
pub struct NsOption {
    pub name: String,
    /// Shown with the suggestion: `cannot list pods here`.
    pub note: Option<String>,
}

#[derive(Properties, PartialEq)]
pub struct NamespaceFieldProps {
    /// The view's namespace (`""`: all namespaces).
    pub value: AttrValue,
    pub options: Rc<Vec<NsOption>>,
    /// The resource is cluster-scoped.
    #[prop_or_default]
    pub disabled: bool,
    /// Why the suggestions may be incomplete (the namespaces watch failed).
    #[prop_or_default]
    pub note: Option<AttrValue>,
    /// What is known of the current namespace (`cannot list pods here`).
    #[prop_or_default]
    pub mark: Option<AttrValue>,
    /// A namespace name (checked), or `""` for all namespaces.
    pub on_apply: Callback<String>,
}

/// The namespace field: type any name (no permission to list namespaces needed) or
/// pick a suggestion; Enter, or picking, applies it; an empty field means all
/// namespaces.
#[function_component(NamespaceField)]
pub fn namespace_field(p: &NamespaceFieldProps) -> Html {
    let text = use_state(|| p.value.to_string());
    let error = use_state(|| None::<String>);
    {
        // The view moved (a link, a choice in the problem panel): show it.
        let text = text.clone();
        let error = error.clone();
        use_effect_with(p.value.clone(), move |v| {
            text.set(v.to_string());
            error.set(None);
        });
    }
    let apply = {
        let on_apply = p.on_apply.clone();
        let error = error.clone();
        move |raw: &str| {
            let name = raw.trim();
            if name.is_empty() || crate::app::query::is_dns_label(name) {
                error.set(None);
                on_apply.emit(name.to_string());
            } else {
                error.set(Some(format!(
                    "{name:?} is not a namespace name: lowercase letters, digits and '-', at most 63"
                )));
            }
        }
    };
    let oninput = {
        let text = text.clone();
        let options = p.options.clone();
        let apply = apply.clone();
        move |e: InputEvent| {
            let value = e.target_unchecked_into::<HtmlInputElement>().value();
            // Picking a suggestion is not typing: it applies at once.
            let kind = js_sys::Reflect::get(&e, &"inputType".into())
                .ok()
                .and_then(|t| t.as_string())
                .unwrap_or_default();
            let typing = kind.starts_with("insert") && kind != "insertReplacementText"
                || kind.starts_with("delete");
            text.set(value.clone());
            if !typing && options.iter().any(|o| o.name == value) {
                apply(&value);
            }
        }
    };
    let onkeydown = {
        let text = text.clone();
        let value = p.value.clone();
        let error = error.clone();
        move |e: KeyboardEvent| match e.key().as_str() {
            "Enter" => {
                e.prevent_default();
                apply(&e.target_unchecked_into::<HtmlInputElement>().value());
            }
            "Escape" => {
                text.set(value.to_string());
                error.set(None);
                let _ = e.target_unchecked_into::<HtmlInputElement>().blur();
            }
            _ => {}
        }
    };
    html! {
        <label class="picker ns-picker">
            <span>{"Namespace"}</span>
            <input id="namespace" class="ns-field" type="text" list="ns-options" value={(*text).clone()}
                placeholder="All namespaces" disabled={p.disabled} autocomplete="off" spellcheck="false"
                title="Type a namespace and press Enter, or pick one; empty: all namespaces"
                {oninput} {onkeydown} aria-invalid={error.is_some().to_string()} />
            <datalist id="ns-options">
                { for p.options.iter().map(|o| html! {
                    <option value={o.name.clone()} label={o.note.clone().map(|n| format!("{} — {n}", o.name))}
                        data-denied={o.note.is_some().to_string()} />
                }) }
            </datalist>
            if let Some(e) = &*error {
                <span class="field-error" id="ns-error" role="alert">{ e.clone() }</span>
            } else if let Some(m) = &p.mark {
                <span class="field-mark" id="ns-mark">{ m.clone() }</span>
            }
            if let Some(n) = &p.note {
                <span class="field-note" id="ns-note" title={n.clone()}>{ n.clone() }</span>
            }
        </label>
    }
}

#[derive(Properties, PartialEq)]
pub struct KeyHelpProps {
    pub on_close: Callback<()>,
}

/// The keys and the filter's syntax (`?`).
#[function_component(KeyHelp)]
pub fn key_help(p: &KeyHelpProps) -> Html {
    let keys: [(&str, &str); 12] = [
        ("/", "filter (free text, label and field selectors)"),
        (
            "Tab  Shift+Tab",
            "move between the controls, the table and the details",
        ),
        ("Enter (in the filter)", "ask the server for the selectors"),
        ("Esc", "close this, the details, or clear the filter"),
        ("↑ ↓  j k", "move the selection"),
        ("PgUp PgDn", "move a page"),
        ("Home End", "first and last row"),
        ("Enter", "open the selected object's details and events"),
        ("?", "this help"),
        (
            "Namespace field",
            "type a name and Enter; empty for all namespaces",
        ),
        ("Column header", "sort; again to reverse"),
        (
            "+N (header's end)",
            "columns hidden for want of room: the details show every column",
        ),
    ];
    let syntax: [(&str, &str); 7] = [
        (
            "web api",
            "rows whose shown cells contain every word (in the browser)",
        ),
        ("app=web,tier!=db", "label selector (sent to the server)"),
        ("env in (a,b)  env notin (c)", "set-based label terms"),
        ("!canary   label:canary", "label absent / present"),
        ("replicas>3", "integer comparison of a label"),
        (
            "field:status.phase=Running",
            "field selector (also != and ==)",
        ),
        (
            "field:spec.nodeName=node-3",
            "fields the resource supports (the server says which)",
        ),
    ];
    let close = p.on_close.reform(|_: MouseEvent| ());
    let row = |(k, v): &(&str, &str)| html! { <><dt><kbd>{ k.to_string() }</kbd></dt><dd>{ v.to_string() }</dd></> };
    html! {
        <div class="help-backdrop" onclick={close.clone()}>
            <div class="help" id="help" role="dialog" aria-modal="true" aria-label="Keys and filter syntax" onclick={|e: MouseEvent| e.stop_propagation()}>
                <div class="help-head">
                    <b>{"Keys"}</b>
                    <button class="btn" id="close-help" onclick={close} title="Close (Esc)" aria-label="Close the help">{"×"}</button>
                </div>
                <dl class="help-keys">{ for keys.iter().map(row) }</dl>
                <b>{"Filter"}</b>
                <dl class="help-keys">{ for syntax.iter().map(row) }</dl>
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_keeps_its_element_while_it_stays_in_the_window() {
        let pool = pool_size(37);
        assert_eq!(pool, 38);
        // Scrolled by one row: the rows that stay keep their slots, the one that
        // enters takes a slot none of them holds (the one that left, or the spare).
        let before: Vec<usize> = (100..137).map(|i| slot_of(i - 5, pool)).collect();
        let after: Vec<usize> = (101..138).map(|i| slot_of(i - 5, pool)).collect();
        assert_eq!(before[1..], after[..36]);
        assert!(!after[..36].contains(&after[36]));
        // A window's rows never share an element.
        let mut slots = after.clone();
        slots.sort();
        slots.dedup();
        assert_eq!(slots.len(), 37);
        // Rows added above move the rows and the window's origin alike: same slots.
        let shifted: Vec<usize> = (104..141).map(|i| slot_of(i - 8, pool)).collect();
        assert_eq!(shifted, after);
        // An even pool: an element's stripe (its place's parity) never changes.
        for place in -50..50i64 {
            let slot = slot_of(place, pool) as i64;
            assert_eq!(place.rem_euclid(2), slot.rem_euclid(2));
        }
    }

    #[test]
    fn only_a_text_that_may_not_fit_its_cell_gets_an_ellipsis() {
        let cols = crate::table::view_columns(None, kubelive_core::ColumnKind::Pod, true, false);
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
