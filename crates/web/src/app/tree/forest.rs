//! The tree view (`#view=tree&r=apps/v1/deployments&ns=shop`): every row of the view
//! as the root of its owner tree, closed; opening one shows what it owns down to the
//! leaves (its ReplicaSets and their Pods), live.
//!
//! The roots are the view's own rows, in the table's order and under its filter: the
//! view's engine feeds them, so switching between the table and the tree lists
//! nothing again. Each kind the view's kind makes ([`model::watched_below`]) is one
//! more engine of the view's namespace (a Deployment's ReplicaSets and Pods: two;
//! below a custom resource, the kinds a read of the namespace finds its objects
//! control, [`probe`]), whatever the number of roots or of lines opened; all are joined by uid in one core
//! [`kubelive_core::Owners`]. A root's line shows the Ready and Status the server
//! printed for its row and its health rolled up from everything below it, so a
//! Deployment whose pods crash-loop is red while closed. A level the user may not
//! list says why under each node it would be in.
//!
//! Lines are virtualised as the table's rows are: whatever the number of roots, only
//! the window's lines are drawn, each at its place in a box as tall as them all.
//! Keys follow WAI-ARIA's tree pattern (Up/Down, Right opens or goes in, Left closes
//! or goes to the owner, Home/End, Page Up/Down, Enter/Space open or close); a
//! line's name is a link to its object in a table with its detail panel open.

use super::model::{self, Line, Model, Row};
use super::probe::{self, Kind};
use super::view::{focus_line, line_body, line_class, shown};
use super::{prefix, refused_kind, row_cells, watch_kind, Join, KindState, Subscription};
use crate::app::grid::ROW_HEIGHT;
use crate::app::url::ViewState;
use crate::driver::Driver;
use kubelive_core::owners::built_in;
use kubelive_core::{Collection, Event, SourceId, TableColumn};
use kubelive_table::{Column, TableModel};
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;
use std::sync::Arc;
use yew::prelude::*;

/// Lines drawn beyond each end of the window (a fast scroll shows lines, not gaps).
const OVERSCAN: usize = 10;

pub enum Msg {
    /// An engine below the roots applied a batch (the forest's generation).
    Events(u64),
    Scroll,
    /// Open or close the lines below a node (its uid).
    Toggle(String),
    /// A click on a line: it takes the tab stop.
    Focus(String),
    /// What the roots' custom resource kind owns, read (the forest's generation).
    Probed(u64, probe::Found),
}

/// Where a line of the forest comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The view's row at this index.
    Root(usize),
    /// The `j`th line below the `k`th opened root.
    Below(usize, usize),
}

/// The forest's lines: every root, and below each opened one its shown lines. Pure
/// arithmetic over the opened roots, so a window of a million roots costs what the
/// opened ones hold.
#[derive(Debug, Default, PartialEq)]
pub struct Layout {
    roots: usize,
    /// (root index, lines below it), by root index.
    opened: Vec<(usize, usize)>,
}

impl Layout {
    /// `opened`: each opened root's index and how many lines it shows below it.
    pub fn new(roots: usize, mut opened: Vec<(usize, usize)>) -> Layout {
        opened.retain(|&(i, _)| i < roots);
        opened.sort_unstable();
        opened.dedup_by_key(|o| o.0);
        Layout { roots, opened }
    }

    /// Lines in all.
    pub fn len(&self) -> usize {
        self.roots + self.opened.iter().map(|o| o.1).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.roots == 0
    }

    /// What line `line` is.
    pub fn at(&self, line: usize) -> Option<Place> {
        let mut before = 0;
        for (k, &(root, below)) in self.opened.iter().enumerate() {
            let at = root + before;
            if line <= at {
                break;
            }
            if line <= at + below {
                return Some(Place::Below(k, line - at - 1));
            }
            before += below;
        }
        (line < self.len()).then(|| Place::Root(line - before))
    }

    /// The line of `place`.
    pub fn line_of(&self, place: Place) -> Option<usize> {
        match place {
            Place::Root(i) if i < self.roots => Some(
                i + self
                    .opened
                    .iter()
                    .take_while(|o| o.0 < i)
                    .map(|o| o.1)
                    .sum::<usize>(),
            ),
            Place::Below(k, j) => {
                let (root, below) = *self.opened.get(k)?;
                (j < below).then(|| self.line_of(Place::Root(root)).map(|l| l + 1 + j))?
            }
            Place::Root(_) => None,
        }
    }
}

/// The resource id of a built-in kind's objects (`apps/v1/replicasets`), for a link.
fn resource_id(group: &str, kind: &str) -> String {
    let plural = model::plural_of(kind);
    if group.is_empty() {
        format!("v1/{plural}")
    } else {
        format!("{group}/v1/{plural}")
    }
}

/// A link to an object in the table of its resource, selected, its panel open.
fn link_to(resource: String, namespace: &str, name: &str, tree: bool) -> String {
    let selected = if namespace.is_empty() {
        format!("/{name}")
    } else {
        format!("{namespace}/{name}")
    };
    ViewState {
        resource,
        namespace: (!namespace.is_empty()).then(|| namespace.to_string()),
        selected: Some(selected),
        open: true,
        tree,
        ..ViewState::default()
    }
    .to_hash()
}

/// What the forest is of.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Of {
    group: String,
    kind: String,
    resource: String,
    namespace: Option<String>,
}

/// The tree view's state: its engines, the join, what is open and the scroll.
pub struct Forest {
    join: Rc<RefCell<Join>>,
    /// The engines of the kinds below (shared with the panel's tree).
    drivers: Vec<Subscription>,
    /// The kinds below, in the join's source order (from source 1).
    below: Vec<Kind>,
    /// What a custom resource owns is being read ([`probe`]).
    probing: bool,
    /// Kinds the read left unread (too many objects).
    unread: Vec<Kind>,
    of: Option<Of>,
    /// The view's rows are in the join (they are given once, then their events).
    seeded: bool,
    generation: u64,
    /// Roots opened, by uid.
    open: HashSet<String>,
    /// Nodes below an opened root that are closed, by key.
    closed: HashSet<String>,
    /// The line with the tab stop (its key), and whether the DOM focus goes to it
    /// after the next render (a key moved it).
    focus: Option<String>,
    move_focus: bool,
    /// The scroll box (`#forest`), its scroll offset and height as last read.
    pub node: NodeRef,
    top: f64,
    height: f64,
    send: Callback<Msg>,
}

impl Forest {
    pub fn new(send: Callback<Msg>) -> Forest {
        Forest {
            join: Rc::default(),
            drivers: Vec::new(),
            below: Vec::new(),
            probing: false,
            unread: Vec::new(),
            of: None,
            seeded: false,
            generation: 0,
            open: HashSet::new(),
            closed: HashSet::new(),
            focus: None,
            move_focus: false,
            node: NodeRef::default(),
            top: 0.0,
            height: 0.0,
            send,
        }
    }

    /// Whether a tree of `(group, kind)` has anything below its roots.
    /// A custom resource's may: its operator's kinds are read when it starts.
    pub fn offered(group: &str, kind: &str) -> bool {
        !built_in(group) || !model::watched_below(group, kind).is_empty()
    }

    /// Stops the engines below and forgets the join (the view changed or the table
    /// is shown again).
    pub fn stop(&mut self) {
        self.drivers.clear();
        self.below.clear();
        self.probing = false;
        self.unread.clear();
        *self.join.borrow_mut() = Join::default();
        self.of = None;
        self.seeded = false;
        self.generation += 1;
    }

    /// Shows the forest of the view's `(group, kind)` rows (`resource` is the view's
    /// id) in `namespace` (None: all): the engines of the kinds below start, unless
    /// they already run for it.
    pub fn start(&mut self, group: &str, kind: &str, resource: &str, namespace: Option<&str>) {
        let of = Of {
            group: group.to_string(),
            kind: kind.to_string(),
            resource: resource.to_string(),
            namespace: namespace.map(str::to_string),
        };
        if self.of.as_ref() == Some(&of) {
            return;
        }
        // Dropped once the new ones listen: an engine both need goes on.
        let _old = std::mem::take(&mut self.drivers);
        self.stop();
        self.open.clear();
        self.closed.clear();
        self.focus = None;
        // Another forest starts at its top.
        self.top = 0.0;
        if let Some(el) = self.node.cast::<web_sys::Element>() {
            el.set_scroll_top(0);
        }
        {
            // Source 0: the view's rows.
            let mut j = self.join.borrow_mut();
            j.kinds.push(KindState::default());
            j.owners.add_source(group, kind);
        }
        let send = self.send.clone();
        let generation = self.generation;
        match probe::below(group, kind, namespace, move |found| {
            send.emit(Msg::Probed(generation, found))
        }) {
            Some(found) => self.watch_below(found, namespace),
            None => self.probing = true,
        }
        self.of = Some(of);
    }

    /// Starts the engines of the kinds below in `namespace`, each a source of the
    /// join; a kind the user may not list is a source that says why.
    fn watch_below(&mut self, found: probe::Found, namespace: Option<&str>) {
        for &(g, k, plural) in &found.watched {
            let send = self.send.clone();
            let generation = self.generation;
            let c = Collection::new(&prefix(g, "v1"), namespace, plural);
            self.drivers.push(watch_kind(&self.join, g, k, c, move || {
                send.emit(Msg::Events(generation))
            }));
            self.below.push((g, k, plural));
        }
        for (k, why) in &found.refused {
            refused_kind(&self.join, k.0, k.1, why);
            self.below.push(*k);
        }
        self.unread = found.unread;
    }

    /// The view's engine starts again (new selectors, say): its rows are given anew;
    /// the engines below go on.
    pub fn restart_roots(&mut self) {
        if self.of.is_some() && self.seeded {
            let mut j = self.join.borrow_mut();
            j.owners.clear(SourceId(0));
            j.kinds[0] = KindState::default();
        }
        self.seeded = false;
    }

    /// The view's engine's events of a frame (`driver` its engine, `columns` the
    /// server's columns): the roots move. The first time, the engine's rows are given
    /// whole.
    pub fn roots(
        &mut self,
        events: &[Event],
        driver: &Driver,
        columns: Option<Arc<[TableColumn]>>,
    ) {
        if self.of.is_none() {
            return;
        }
        let mut j = self.join.borrow_mut();
        if !self.seeded {
            self.seeded = true;
            j.owners.set_columns(SourceId(0), columns.clone());
            j.kinds[0].columns = columns;
            driver.with_store(|s| {
                for o in s.iter() {
                    j.owners.apply(SourceId(0), &Event::Added(o.clone()));
                }
            });
            j.kinds[0].synced = driver.status().synced;
            return;
        }
        for e in events {
            j.owners.apply(SourceId(0), e);
            match e {
                Event::Columns { columns } => j.kinds[0].columns = Some(columns.clone()),
                Event::Synced { .. } => j.kinds[0].synced = true,
                Event::Relisting { .. } => j.kinds[0].synced = false,
                _ => {}
            }
        }
    }

    /// Whether the forest shows something new (for `Events`: whether they are this
    /// forest's, which the app draws with its next frame).
    pub fn update(&mut self, msg: Msg) -> bool {
        match msg {
            Msg::Events(generation) => generation == self.generation && self.of.is_some(),
            Msg::Probed(generation, found) => {
                if generation != self.generation || self.of.is_none() {
                    return false;
                }
                self.probing = false;
                let namespace = self.of.as_ref().and_then(|o| o.namespace.clone());
                self.watch_below(found, namespace.as_deref());
                true
            }
            Msg::Scroll => self.read_scroll(),
            Msg::Toggle(uid) => {
                self.toggle(&uid);
                true
            }
            Msg::Focus(key) => {
                self.focus = Some(key);
                true
            }
        }
    }

    /// Reads the scroll box's offset and height; whether they changed.
    fn read_scroll(&mut self) -> bool {
        let Some(el) = self.node.cast::<web_sys::Element>() else {
            return false;
        };
        let (top, height) = (el.scroll_top() as f64, el.client_height() as f64);
        let changed = (top - self.top).abs() >= 1.0 || (height - self.height).abs() >= 1.0;
        self.top = top;
        self.height = height;
        changed
    }

    fn toggle(&mut self, key: &str) {
        let is_root = self
            .join
            .borrow()
            .owners
            .get(key)
            .and_then(|n| n.source_id())
            == Some(SourceId(0));
        let set = if is_root {
            &mut self.open
        } else {
            &mut self.closed
        };
        if !set.remove(key) {
            set.insert(key.to_string());
        }
    }

    /// The lines below each opened root, by root index (only opened roots in the
    /// view's rows), and the layout of all the lines.
    fn lay_out(&self, model: &TableModel) -> (Layout, Vec<(usize, Vec<Row>)>) {
        let j = self.join.borrow();
        let columns = |s: SourceId| {
            j.kinds
                .get(usize::from(s.0))
                .and_then(|k| k.columns.as_deref())
        };
        let mut opened: Vec<(usize, Vec<Row>)> = self
            .open
            .iter()
            .filter_map(|uid| {
                let node = j.owners.get(uid)?;
                let index = model.find(node.object()?)?;
                let sub = Model::subtree(&j.owners, uid, columns).rows;
                let rows = shown(&sub, &self.closed)
                    .into_iter()
                    .skip(1)
                    .map(|i| sub[i].clone())
                    .collect();
                Some((index, rows))
            })
            .collect();
        opened.sort_by_key(|o| o.0);
        let layout = Layout::new(
            model.len(),
            opened.iter().map(|(i, rows)| (*i, rows.len())).collect(),
        );
        (layout, opened)
    }

    /// A key pressed while the forest is shown (not in a field). Whether it was the
    /// forest's.
    pub fn key(&mut self, key: &str, model: &TableModel) -> bool {
        let (layout, opened) = self.lay_out(model);
        if layout.is_empty() {
            return false;
        }
        let here = self
            .focus
            .as_ref()
            .and_then(|k| self.line_of_key(k, model, &layout, &opened))
            .unwrap_or(0)
            .min(layout.len() - 1);
        let page = ((self.height / ROW_HEIGHT) as usize).max(1);
        let last = layout.len() - 1;
        let info = self.line_info(here, &layout, &opened, model);
        let Some((line_key, depth, children, is_open)) = info else {
            return false;
        };
        let go = match key {
            "ArrowDown" | "j" => Some((here + 1).min(last)),
            "ArrowUp" | "k" => Some(here.saturating_sub(1)),
            "PageDown" => Some((here + page).min(last)),
            "PageUp" => Some(here.saturating_sub(page)),
            "Home" => Some(0),
            "End" => Some(last),
            "ArrowRight" if children > 0 && !is_open => {
                self.toggle(&line_key);
                None
            }
            "ArrowRight" if is_open => Some((here + 1).min(last)),
            "ArrowLeft" if is_open && children > 0 => {
                self.toggle(&line_key);
                None
            }
            "ArrowLeft" if depth > 0 => (0..here).rev().find(|&l| {
                self.line_info(l, &layout, &opened, model)
                    .is_some_and(|(_, d, _, _)| d + 1 == depth)
            }),
            "Enter" | " " if children > 0 => {
                self.toggle(&line_key);
                None
            }
            "ArrowRight" | "ArrowLeft" | "Enter" | " " => None,
            _ => return false,
        };
        let target = go.unwrap_or(here);
        if let Some((k, ..)) = self.line_info(target, &layout, &opened, model) {
            self.focus = Some(k);
        }
        self.move_focus = true;
        self.keep_in_view(target);
        true
    }

    /// Scrolls so that line `line` is in the window.
    fn keep_in_view(&mut self, line: usize) {
        let top = line as f64 * ROW_HEIGHT;
        let Some(el) = self.node.cast::<web_sys::Element>() else {
            return;
        };
        if top < self.top {
            self.top = top;
        } else if top + ROW_HEIGHT > self.top + self.height {
            self.top = top + ROW_HEIGHT - self.height;
        } else {
            return;
        }
        el.set_scroll_top(self.top as i32);
    }

    /// (key, depth, lines below, open) of line `line`.
    fn line_info(
        &self,
        line: usize,
        layout: &Layout,
        opened: &[(usize, Vec<Row>)],
        model: &TableModel,
    ) -> Option<(String, usize, usize, bool)> {
        match layout.at(line)? {
            Place::Root(i) => {
                let uid = model.get(i)?.uid().to_string();
                let children = self
                    .join
                    .borrow()
                    .owners
                    .get(&uid)
                    .map(|n| n.dependents().len() + n.missing_below().len())
                    .unwrap_or(0);
                let open = self.open.contains(&uid);
                Some((uid, 0, children, open))
            }
            Place::Below(k, j) => {
                let r = opened.get(k)?.1.get(j)?;
                let open = r.children > 0 && !self.closed.contains(&r.key);
                Some((r.key.clone(), r.depth, r.children, open))
            }
        }
    }

    fn line_of_key(
        &self,
        key: &str,
        model: &TableModel,
        layout: &Layout,
        opened: &[(usize, Vec<Row>)],
    ) -> Option<usize> {
        for (k, (_, rows)) in opened.iter().enumerate() {
            if let Some(j) = rows.iter().position(|r| r.key == key) {
                return layout.line_of(Place::Below(k, j));
            }
        }
        let j = self.join.borrow();
        let index = model.find(j.owners.get(key)?.object()?)?;
        layout.line_of(Place::Root(index))
    }

    /// After a render: the DOM focus follows the tab stop if a key moved it; the
    /// box's height is read once it is laid out.
    pub fn rendered(&mut self) {
        if self.height == 0.0 {
            self.read_scroll();
        }
        if !std::mem::take(&mut self.move_focus) {
            return;
        }
        let (Some(el), Some(key)) = (self.node.cast::<web_sys::Element>(), &self.focus) else {
            return;
        };
        focus_line(&el, key);
    }

    /// The forest of the view's rows (`model`, shown under `cols`), `label` its
    /// resource as the user knows it.
    pub fn view(&self, model: &TableModel, cols: &[Column], label: &str) -> Html {
        let Some(of) = &self.of else {
            return html! {};
        };
        let (layout, opened) = self.lay_out(model);
        let total = layout.len();
        let height = if self.height > 0.0 {
            self.height
        } else {
            800.0
        };
        let first = ((self.top / ROW_HEIGHT) as usize).saturating_sub(OVERSCAN);
        let end = (((self.top + height) / ROW_HEIGHT).ceil() as usize + OVERSCAN).min(total);
        let stop = self
            .focus
            .as_ref()
            .and_then(|k| self.line_of_key(k, model, &layout, &opened))
            .unwrap_or(0);
        let j = self.join.borrow();
        let columns = |s: SourceId| {
            j.kinds
                .get(usize::from(s.0))
                .and_then(|k| k.columns.as_deref())
        };
        let roots = model.len();
        let lines = (first..end).filter_map(|line| {
            let (row, link) = match layout.at(line)? {
                Place::Root(i) => {
                    let o = model.get(i)?;
                    let mut row = Model::node(&j.owners, o.uid(), columns).unwrap_or_else(|| Row {
                        line: Line::Node {
                            uid: o.uid().to_string(),
                            kind: of.kind.clone(),
                            name: o.name().to_string(),
                            namespace: o.namespace().to_string(),
                            ready: None,
                            status: None,
                            health: kubelive_core::Health::Unknown,
                            rolled: kubelive_core::Health::Unknown,
                            absent: None,
                            current: false,
                        },
                        ..dummy_row()
                    });
                    // The row's cells as the table prints them (the server's columns).
                    let (ready, status) = row_cells(o, cols);
                    if let Line::Node {
                        ready: r,
                        status: s,
                        ..
                    } = &mut row.line
                    {
                        *r = ready.or(r.take());
                        *s = status.or(s.take());
                    }
                    row.pos = i + 1;
                    row.of = roots;
                    let link = link_to(of.resource.clone(), o.namespace(), o.name(), true);
                    (row, Some(link))
                }
                Place::Below(k, jj) => {
                    let r = opened.get(k)?.1.get(jj)?.clone();
                    let link = match &r.line {
                        Line::Node {
                            kind,
                            name,
                            namespace,
                            absent: None,
                            ..
                        } => {
                            let group = j
                                .owners
                                .get(&r.key)
                                .map(|n| n.group().to_string())
                                .unwrap_or_default();
                            Some(link_to(resource_id(&group, kind), namespace, name, false))
                        }
                        _ => None,
                    };
                    (r, link)
                }
            };
            Some(self.line_html(line, &row, link, line == stop))
        });
        let states: Vec<Html> = self
            .below
            .iter()
            .zip(j.kinds.iter().skip(1))
            .map(|((_, _, plural), k)| {
                let (word, title) = if let Some(why) = &k.refused {
                    ("cannot be listed", why.clone())
                } else if k.gone {
                    ("not served", String::new())
                } else if k.synced {
                    ("live", String::new())
                } else {
                    ("loading", String::new())
                };
                html! {
                    <span class="forest-kind" data-resource={*plural} data-state={word} title={title}>
                        { format!("{plural}: {word}") }
                    </span>
                }
            })
            .collect();
        let on_scroll = self.send.reform(|_: web_sys::Event| Msg::Scroll);
        html! {
            <section class="forest-host" id="forest-host" data-roots={roots.to_string()}
                data-lines={total.to_string()} data-open={self.open.len().to_string()}>
                <div class="forest-head" id="forest-head">
                    <span>{ format!("{label} over what they own · watched below:") }</span>
                    if self.probing {
                        <span class="forest-kind" id="forest-probing" data-state="probing">
                            {"finding the kinds they own…"}</span>
                    } else if states.is_empty() {
                        <span class="forest-kind">{"nothing (none of them controls an object of a kind operators make)"}</span>
                    }
                    { for states }
                    if let Some(note) = probe::unread_note(&self.unread) {
                        <span class="forest-kind" data-state="unread">{ note }</span>
                    }
                </div>
                <div class="forest" id="forest" ref={self.node.clone()} onscroll={on_scroll}
                    role="tree" aria-label={format!("{label} and what they own")}>
                    <div class="forest-space" style={format!("height:{}px", total as f64 * ROW_HEIGHT)}>
                        { for lines }
                    </div>
                </div>
            </section>
        }
    }

    fn line_html(&self, line: usize, r: &Row, link: Option<String>, stop: bool) -> Html {
        let expandable = r.children > 0;
        let open = expandable
            && if r.depth == 0 {
                self.open.contains(&r.key)
            } else {
                !self.closed.contains(&r.key)
            };
        let key = r.key.clone();
        let on_twisty = self.send.reform(move |e: MouseEvent| {
            e.stop_propagation();
            Msg::Toggle(key.clone())
        });
        let key = r.key.clone();
        let on_click = self
            .send
            .reform(move |_: MouseEvent| Msg::Focus(key.clone()));
        let twisty = if expandable {
            html! { <span class="tree-twisty" aria-hidden="true" onclick={on_twisty}>{ if open { "▾" } else { "▸" } }</span> }
        } else {
            html! { <span class="tree-twisty" aria-hidden="true"></span> }
        };
        let (name, before_name, after_cells) = match &r.line {
            Line::Node {
                name, namespace, ..
            } => (
                match link {
                    Some(href) => {
                        html! { <a class="tree-name" href={href} tabindex="-1">{ name.clone() }</a> }
                    }
                    None => html! { <span class="tree-name">{ name.clone() }</span> },
                },
                if r.depth == 0 && !namespace.is_empty() {
                    html! { <><span class="tree-ns">{ format!("{namespace}/") }</span>{" "}</> }
                } else {
                    html! {}
                },
                if r.depth == 0 && expandable && !open {
                    html! { <><span class="tree-count">{ format!("{} below", r.children) }</span>{" "}</> }
                } else {
                    html! {}
                },
            ),
            Line::Missing { .. } => (html! {}, html! {}, html! {}),
        };
        let body = line_body(&r.line, name, before_name, after_cells);
        let class = classes!(line_class(&r.line), "forest-line");
        html! {
            <div key={r.key.clone()} role="treeitem" class={class}
                data-key={r.key.clone()} data-depth={r.depth.to_string()} data-line={line.to_string()}
                aria-level={(r.depth + 1).to_string()} aria-posinset={r.pos.to_string()}
                aria-setsize={r.of.to_string()}
                aria-expanded={expandable.then(|| open.to_string())}
                tabindex={if stop { "0" } else { "-1" }}
                style={format!("--depth:{};top:{}px", r.depth, line as f64 * ROW_HEIGHT)}
                onclick={on_click}>
                { twisty }{ body }
            </div>
        }
    }
}

fn dummy_row() -> Row {
    Row {
        line: Line::Missing {
            kind: String::new(),
            why: String::new(),
        },
        depth: 0,
        children: 0,
        pos: 1,
        of: 1,
        key: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_forest_is_its_roots() {
        let l = Layout::new(3, vec![]);
        assert_eq!(l.len(), 3);
        assert_eq!(
            (0..4).map(|i| l.at(i)).collect::<Vec<_>>(),
            [
                Some(Place::Root(0)),
                Some(Place::Root(1)),
                Some(Place::Root(2)),
                None
            ]
        );
        assert_eq!(l.line_of(Place::Root(2)), Some(2));
        assert_eq!(l.line_of(Place::Root(3)), None);
        assert!(Layout::new(0, vec![(0, 2)]).is_empty());
    }

    #[test]
    fn opened_roots_put_their_lines_after_them() {
        // Roots 0..5; root 1 shows 2 lines below it, root 3 shows 1 (given unsorted,
        // an opened root not among the rows left out).
        let l = Layout::new(5, vec![(3, 1), (1, 2), (9, 4)]);
        assert_eq!(l.len(), 8);
        let lines: Vec<Place> = (0..l.len()).map(|i| l.at(i).unwrap()).collect();
        assert_eq!(
            lines,
            [
                Place::Root(0),
                Place::Root(1),
                Place::Below(0, 0),
                Place::Below(0, 1),
                Place::Root(2),
                Place::Root(3),
                Place::Below(1, 0),
                Place::Root(4),
            ]
        );
        assert_eq!(l.at(8), None);
        // line_of is at's inverse.
        for (i, p) in lines.iter().enumerate() {
            assert_eq!(l.line_of(*p), Some(i), "{p:?}");
        }
        assert_eq!(l.line_of(Place::Below(0, 2)), None);
        assert_eq!(l.line_of(Place::Below(2, 0)), None);
    }

    #[test]
    fn a_million_roots_cost_what_the_opened_ones_hold() {
        let l = Layout::new(1_000_000, vec![(999_998, 3), (0, 1)]);
        assert_eq!(l.len(), 1_000_004);
        assert_eq!(l.at(1), Some(Place::Below(0, 0)));
        assert_eq!(l.at(999_999), Some(Place::Root(999_998)));
        assert_eq!(l.at(1_000_000), Some(Place::Below(1, 0)));
        assert_eq!(l.at(1_000_003), Some(Place::Root(999_999)));
    }

    #[test]
    fn links_open_the_object_in_its_table() {
        assert_eq!(
            link_to(resource_id("apps", "ReplicaSet"), "shop", "web-1", false),
            "#r=apps/v1/replicasets&ns=shop&sel=shop/web-1&open=1"
        );
        assert_eq!(
            link_to(resource_id("", "Pod"), "shop", "web-1-x", false),
            "#r=v1/pods&ns=shop&sel=shop/web-1-x&open=1"
        );
        assert_eq!(
            link_to("apps/v1/deployments".into(), "shop", "web", true),
            "#r=apps/v1/deployments&ns=shop&view=tree&sel=shop/web&open=1"
        );
        assert_eq!(
            link_to(resource_id("", "PersistentVolume"), "", "pv-1", false),
            "#r=v1/persistentvolumes&sel=/pv-1&open=1"
        );
    }
}
