//! The owner tree of the detail panel's object, live: its owners up to the root (by
//! `ownerReferences`, the controller at each level) and everything it owns down to
//! the leaves (Deployment -> ReplicaSets -> Pods, CronJob -> Jobs -> Pods, ...).
//!
//! Everything is joined by uid in one core [`Owners`], one source per kind:
//!
//! * the object itself is the panel's own copy (the GET it makes on opening and again
//!   whenever the view's row moves), so the tree costs no watch of it; its `kind` and
//!   `apiVersion` say what is watched below it, so the tree starts when it comes;
//! * each kind its controller makes ([`model::watched_below`]) is one engine
//!   ([`Driver`], table mode, rows kept with [`KeptMetadata::Owners`]): one LIST and
//!   WATCH of the object's namespace; below a custom resource, the kinds a read of
//!   the namespace finds its kind's objects control ([`probe`]) and theirs;
//! * each owner above, as the join finds it named but not there, is one GET by name
//!   (its `ownerReferences` entry gives the apiVersion and kind), then that owner's
//!   owner, up to the root. Owners are read once a panel: what a controller owns
//!   changes, who owns it does not.
//!
//! Every event of every engine goes to the join, so adds, deletes and re-parenting (a
//! rollout's new ReplicaSet taking the pods) redraw the tree as they come; health rolls
//! up in the join. A kind the user may not list (403) marks its source unavailable:
//! its level says why. A kind the server does not serve (404) is stopped: nothing of
//! it can be in the tree. The engines stop when the tree is hidden, or the panel
//! shows another object or closes (the component is dropped with its drivers).
//!
//! The tree is shown on demand (the choice kept for the page's other panels): a
//! browser holds at most six connections to a server over HTTP/1.1 (kubectl proxy),
//! and the view, the namespaces, the panel's events and history already hold four
//! watches; a Deployment's tree adds two, a StatefulSet's two.

pub mod forest;
pub mod kinds;
pub mod model;
pub mod probe;
pub mod view;

pub use kinds::Subscription;
pub use model::Model;
pub use view::{TreeState, TreeView, TreeViewProps};

use crate::app::detail::history::HistoryTarget;
use crate::app::detail::Fetched;
use crate::app::fetch::{fetch, Reply};
use kubelive_core::owners::{api_group, owner_references, Absence};
use kubelive_core::{
    ApiErrorKind, Collection, ColumnKind, Config, Event, IncludeObject, KeptMetadata, Object,
    Owners, ParseOptions, SourceId, TableColumn,
};
use kubelive_table::{row_texts, Column};
use model::Line;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use yew::prelude::*;

/// At most this many kinds are watched for one tree (owners found one level at a
/// time; a chain longer than this is cut).
const MAX_KINDS: usize = 16;
/// An owner's GET gives up after this long.
const GET_TIMEOUT_MS: i32 = 15_000;

thread_local! {
    /// The tree is shown: the user's last choice, for the page's next panels.
    static SHOWN: Cell<bool> = const { Cell::new(false) };
}

/// An object as the join keeps it: identity and ownerReferences, the fallback
/// printer's cells for `plural`.
fn parse_object(json: &[u8], plural: &str) -> Option<Arc<Object>> {
    let opts = ParseOptions {
        strip_managed_fields: true,
        columns: ColumnKind::for_resource(plural),
        metadata: KeptMetadata::Owners,
    };
    Object::parse(json, &opts).ok().map(Arc::new)
}

/// The object whose tree is shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeTarget {
    /// `""` for the core group.
    pub group: String,
    pub version: String,
    pub kind: String,
    /// `deployments`.
    pub plural: String,
    /// Empty for a cluster-scoped object.
    pub namespace: String,
    pub name: String,
    pub uid: String,
}

fn prefix(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("/api/{version}")
    } else {
        format!("/apis/{group}/{version}")
    }
}

fn config(collection: Collection) -> Config {
    let mut c = Config::new(collection).tables(IncludeObject::Metadata);
    // The join reads ownerReferences; the rest of a row's metadata is not shown.
    c.metadata = KeptMetadata::Owners;
    c.strip_managed_fields = true;
    c
}

/// Where one kind's engine stands.
#[derive(Default)]
pub(crate) struct KindState {
    synced: bool,
    /// The server does not serve it (404): stopped.
    gone: bool,
    /// Refused (403, say): the server's words.
    refused: Option<String>,
    columns: Option<Arc<[TableColumn]>>,
}

/// The join and what each engine said, written by the engines' sinks.
#[derive(Default)]
pub(crate) struct Join {
    owners: Owners,
    /// By source index.
    kinds: Vec<KindState>,
}

/// A kind below that the user may not list (found so by a probe): a source with no
/// engine, whose level says why.
fn refused_kind(join: &Rc<RefCell<Join>>, group: &str, kind: &str, why: &str) {
    let mut j = join.borrow_mut();
    let source = j.owners.add_source(group, kind);
    j.owners.set_unavailable(source, Some(why));
    j.kinds.push(KindState {
        refused: Some(why.to_string()),
        ..KindState::default()
    });
}

/// Listens to the engine of one kind below (its namespace's `collection`, shared
/// with the page's other trees: [`kinds`]), fed to the join as a new source; `wake`
/// runs after each batch it applied.
fn watch_kind(
    join: &Rc<RefCell<Join>>,
    group: &str,
    kind: &str,
    collection: Collection,
    wake: impl Fn() + 'static,
) -> Subscription {
    let (i, source) = {
        let mut j = join.borrow_mut();
        j.kinds.push(KindState::default());
        (j.kinds.len() - 1, j.owners.add_source(group, kind))
    };
    // Weak: the join belongs to its tree, not to the engine it listens to.
    let join = Rc::downgrade(join);
    kinds::subscribe(
        config(collection),
        Box::new(move |events: &[Event]| {
            let Some(join) = join.upgrade() else {
                return false;
            };
            let stop = join.borrow_mut().apply(i, source, events);
            wake();
            stop
        }),
    )
}

impl Join {
    /// Takes a batch of source `i`'s engine; true: the kind is not served (404), its
    /// engine should stop.
    fn apply(&mut self, i: usize, source: SourceId, events: &[Event]) -> bool {
        let mut stop = false;
        for event in events {
            self.owners.apply(source, event);
            let k = &mut self.kinds[i];
            match event {
                Event::Columns { columns } => k.columns = Some(columns.clone()),
                Event::TablesUnavailable { .. } => k.columns = None,
                Event::Synced { .. } => {
                    k.synced = true;
                    if k.refused.take().is_some() {
                        self.owners.set_unavailable(source, None);
                    }
                }
                Event::Relisting { .. } => k.synced = false,
                Event::Failed { error } if error.kind == ApiErrorKind::NotFound && i > 0 => {
                    k.gone = true;
                    stop = true;
                }
                Event::Failed { error } if k.refused.is_none() => {
                    k.refused = Some(error.message.clone());
                    self.owners.set_unavailable(source, Some(&error.message));
                }
                _ => {}
            }
        }
        stop
    }

    /// The nearest owner on the open object's chain that the join knows by name only,
    /// its kind not watched: (apiVersion, kind, namespace, name).
    fn owner_to_watch(&self, uid: &str) -> Option<(String, String, String, String)> {
        let mut at = self.owners.get(uid)?;
        for _ in 0..MAX_KINDS {
            let (up, _) = at.owners().into_iter().next()?;
            if up.object().is_some() {
                at = up;
                continue;
            }
            if up.absence() != Some(Absence::NotWatched) {
                return None;
            }
            let r = owner_references(at.object()?)
                .into_iter()
                .find(|r| r.uid == up.uid())?;
            let ns = if model::cluster_scoped(api_group(&r.api_version), &r.kind) {
                String::new()
            } else {
                at.namespace().to_string()
            };
            return Some((r.api_version, r.kind, ns, r.name));
        }
        None
    }
}

#[derive(Properties, PartialEq)]
pub struct OwnerTreeProps {
    /// The object's collection and name, as the panel's history watches it; none:
    /// nothing is shown or watched.
    #[prop_or_default]
    pub history: Option<Rc<HistoryTarget>>,
    /// The panel's copy of the whole object: its kind and apiVersion say what is
    /// watched below it, its ownerReferences start the way up.
    #[prop_or(Fetched::Loading)]
    pub fetched: Fetched,
    /// The object's uid (its node in the join).
    #[prop_or_default]
    pub uid: String,
    /// The view's row of the object and the view's columns: its line shows the Ready
    /// and Status the server printed for the row (the panel's copy has only the
    /// fallback printer's, which few kinds have).
    #[prop_or_default]
    pub row: Option<Arc<Object>>,
    #[prop_or_default]
    pub cols: Rc<Vec<Column>>,
}

/// The row's Ready and Status texts under the view's columns, if it has them.
pub(crate) fn row_cells(row: &Object, cols: &[Column]) -> (Option<String>, Option<String>) {
    let texts = row_texts(cols, row, 0.0);
    let find = |title: &str| {
        cols.iter()
            .zip(&texts)
            .find(|(c, t)| c.title.eq_ignore_ascii_case(title) && !t.is_empty())
            .map(|(_, t)| t.clone())
    };
    (find("ready"), find("status"))
}

/// The object of the tree, once the panel's copy says its kind.
fn target_of(p: &OwnerTreeProps) -> Option<TreeTarget> {
    let h = p.history.as_ref()?;
    let Fetched::Loaded(v) = &p.fetched else {
        return None;
    };
    let api_version = v.get("apiVersion")?.as_str()?;
    let kind = v.get("kind")?.as_str()?;
    if p.uid.is_empty() || kind.is_empty() {
        return None;
    }
    Some(TreeTarget {
        group: api_group(api_version).to_string(),
        version: api_version.rsplit('/').next().unwrap_or("v1").to_string(),
        kind: kind.to_string(),
        plural: h.plural.clone(),
        namespace: h.namespace.clone(),
        name: h.name.clone(),
        uid: p.uid.clone(),
    })
}

pub enum Msg {
    /// An engine produced events (the tree's generation).
    Events(u64),
    /// What the custom resource's kind owns, read (the tree's generation).
    Probed(u64, probe::Found),
    /// An owner's GET answered: (generation, source index, its resource, the reply).
    Owner(u64, usize, String, Result<Reply, String>),
    /// The heading's show/hide button.
    Toggle,
}

/// The detail panel's owner tree (see the module documentation).
pub struct OwnerTree {
    /// What the tree is of: known once the panel's copy of the object came.
    target: Option<Rc<TreeTarget>>,
    join: Rc<RefCell<Join>>,
    /// The engines of the kinds below; dropped with the component.
    drivers: Vec<Subscription>,
    /// What a custom resource owns is being read ([`probe`]).
    probing: bool,
    /// Kinds the read left unread (too many objects).
    unread: Vec<probe::Kind>,
    generation: u64,
    shown: bool,
    /// The object as last given to the join.
    root: Option<Arc<Object>>,
    /// `performance.now()` when the tree started, and how long until every kind had
    /// answered (the tree complete).
    started: f64,
    took_ms: Option<f64>,
}

impl OwnerTree {
    fn start(&mut self, ctx: &Context<Self>) {
        // Dropped once the new ones listen: an engine both need goes on.
        let _old = std::mem::take(&mut self.drivers);
        self.join = Rc::default();
        self.root = None;
        self.generation += 1;
        self.took_ms = None;
        self.probing = false;
        self.unread.clear();
        self.started = crate::time::now_ms();
        let Some(t) = self.target.clone().filter(|_| self.shown) else {
            return;
        };
        // Source 0: the object itself, from the panel's copy.
        self.source(&t.group, &t.kind);
        let link = ctx.link().clone();
        let generation = self.generation;
        let ns = (!t.namespace.is_empty()).then_some(t.namespace.as_str());
        match probe::below(&t.group, &t.kind, ns, move |found| {
            link.send_message(Msg::Probed(generation, found))
        }) {
            Some(found) => self.watch_below(ctx, found),
            None => self.probing = true,
        }
        self.fetched(ctx);
    }

    /// Starts the engines of the kinds below the object, in its namespace; a kind the
    /// user may not list is a source that says why.
    fn watch_below(&mut self, ctx: &Context<Self>, found: probe::Found) {
        let Some(t) = self.target.clone() else {
            return;
        };
        let ns = (!t.namespace.is_empty()).then_some(t.namespace.as_str());
        for &(group, kind, resource) in &found.watched {
            let c = Collection::new(&prefix(group, "v1"), ns, resource);
            self.add(ctx, group, kind, c);
        }
        for ((group, kind, _), why) in &found.refused {
            refused_kind(&self.join, group, kind, why);
        }
        self.unread = found.unread;
    }

    /// A new source of the join; its index.
    fn source(&mut self, group: &str, kind: &str) -> (usize, SourceId) {
        let mut j = self.join.borrow_mut();
        j.kinds.push(KindState::default());
        (j.kinds.len() - 1, j.owners.add_source(group, kind))
    }

    /// Starts an engine for a kind, fed to the join as a new source.
    fn add(&mut self, ctx: &Context<Self>, group: &str, kind: &str, collection: Collection) {
        let link = ctx.link().clone();
        let generation = self.generation;
        self.drivers
            .push(watch_kind(&self.join, group, kind, collection, move || {
                link.send_message(Msg::Events(generation))
            }));
    }

    /// Gives the join the panel's copy of the object (added, or a new version).
    fn fetched(&mut self, ctx: &Context<Self>) {
        let Some(t) = self.target.clone().filter(|_| self.shown) else {
            return;
        };
        match &ctx.props().fetched {
            Fetched::Loaded(v) => {
                let Some(new) = serde_json::to_vec(&**v)
                    .ok()
                    .and_then(|b| parse_object(&b, &t.plural))
                    .filter(|o| o.uid() == t.uid)
                else {
                    return;
                };
                let event = match self.root.take() {
                    Some(old) => Event::Modified {
                        old,
                        new: new.clone(),
                    },
                    None => Event::Added(new.clone()),
                };
                self.root = Some(new);
                let mut j = self.join.borrow_mut();
                j.owners.apply(SourceId(0), &event);
                j.kinds[0].synced = true;
                j.kinds[0].refused = None;
            }
            Fetched::Failed(why) => self.join.borrow_mut().kinds[0].refused = Some(why.clone()),
            Fetched::Loading => {}
        }
        self.ask_owner(ctx);
    }

    /// GETs the nearest owner above the object that the join knows by name only.
    fn ask_owner(&mut self, ctx: &Context<Self>) {
        let Some(t) = self.target.clone() else {
            return;
        };
        if self.join.borrow().kinds.len() >= MAX_KINDS {
            return;
        }
        let next = self.join.borrow().owner_to_watch(&t.uid);
        let Some((api_version, kind, ns, name)) = next else {
            return;
        };
        let group = api_group(&api_version).to_string();
        let (i, _) = self.source(&group, &kind);
        let plural = model::plural_of(&kind);
        let base = if group.is_empty() {
            format!("/api/{api_version}")
        } else {
            format!("/apis/{api_version}")
        };
        let path = if ns.is_empty() {
            format!("{base}/{plural}/{name}")
        } else {
            format!("{base}/namespaces/{ns}/{plural}/{name}")
        };
        let link = ctx.link().clone();
        let generation = self.generation;
        wasm_bindgen_futures::spawn_local(async move {
            let reply = fetch(&path, "application/json", None, GET_TIMEOUT_MS).await;
            link.send_message(Msg::Owner(generation, i, plural, reply));
        });
    }

    fn state(&self) -> TreeState {
        let j = self.join.borrow();
        if self.probing {
            return TreeState::Loading;
        }
        if let Some(why) = j.kinds.first().and_then(|k| k.refused.clone()) {
            return TreeState::Failed(why);
        }
        if !j.kinds.is_empty()
            && j.kinds
                .iter()
                .all(|k| k.synced || k.gone || k.refused.is_some())
        {
            TreeState::Live
        } else {
            TreeState::Loading
        }
    }
}

impl Component for OwnerTree {
    type Message = Msg;
    type Properties = OwnerTreeProps;

    fn create(ctx: &Context<Self>) -> Self {
        let mut me = OwnerTree {
            target: target_of(ctx.props()).map(Rc::new),
            join: Rc::default(),
            drivers: Vec::new(),
            probing: false,
            unread: Vec::new(),
            generation: 0,
            shown: SHOWN.with(Cell::get),
            root: None,
            started: 0.0,
            took_ms: None,
        };
        me.start(ctx);
        me
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &OwnerTreeProps) -> bool {
        let p = ctx.props();
        if p.history != old.history || p.uid != old.uid {
            self.target = None;
        }
        // A copy being fetched again (Loading) keeps the target it had.
        let new = target_of(p).map(Rc::new);
        if new.is_some() && new != self.target {
            self.target = new;
            self.start(ctx);
        } else if self.target.is_none() {
            self.start(ctx);
        } else if p.fetched != old.fetched {
            self.fetched(ctx);
        }
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Toggle => {
                self.shown = !self.shown;
                SHOWN.with(|s| s.set(self.shown));
                self.start(ctx);
                return true;
            }
            Msg::Events(generation) if generation != self.generation => return false,
            Msg::Events(_) => {}
            Msg::Probed(generation, _) if generation != self.generation => return false,
            Msg::Probed(_, found) => {
                self.probing = false;
                self.watch_below(ctx, found);
            }
            Msg::Owner(generation, _, _, _) if generation != self.generation => return false,
            Msg::Owner(_, i, plural, reply) => {
                let source = SourceId(i as u16);
                let mut j = self.join.borrow_mut();
                match reply {
                    Ok(r) if r.ok() => {
                        if let Some(o) = parse_object(r.body.as_bytes(), &plural) {
                            j.owners.apply(source, &Event::Added(o));
                        }
                        j.kinds[i].synced = true;
                    }
                    // Not there (deleted before its dependents): the owner is a name.
                    Ok(r) if r.status == 404 => j.kinds[i].gone = true,
                    Ok(r) => {
                        let why = r.problem();
                        j.owners.set_unavailable(source, Some(&why));
                        j.kinds[i].refused = Some(why);
                    }
                    Err(why) => {
                        j.owners.set_unavailable(source, Some(&why));
                        j.kinds[i].refused = Some(why);
                    }
                }
                drop(j);
                self.ask_owner(ctx);
            }
        }
        if self.took_ms.is_none() && self.state() == TreeState::Live {
            self.took_ms = Some(crate::time::now_ms() - self.started);
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        if ctx.props().history.is_none() {
            return html! {};
        }
        let mut model = match self.target.as_ref().filter(|_| self.shown) {
            Some(t) => {
                let j = self.join.borrow();
                Model::build(&j.owners, &t.uid, |s| {
                    j.kinds
                        .get(usize::from(s.0))
                        .and_then(|k| k.columns.as_deref())
                })
            }
            None => Model::default(),
        };
        if let Some(row) = &ctx.props().row {
            let (ready, status) = row_cells(row, &ctx.props().cols);
            for r in &mut model.rows {
                if let Line::Node {
                    current: true,
                    ready: rr,
                    status: rs,
                    ..
                } = &mut r.line
                {
                    *rr = ready.clone().or(rr.take());
                    *rs = status.clone().or(rs.take());
                }
            }
        }
        let state = match (&self.target, &ctx.props().fetched) {
            (None, Fetched::Failed(why)) => TreeState::Failed(why.clone()),
            _ => self.state(),
        };
        html! {
            <div class="owner-tree-host" data-took-ms={self.took_ms.map(|ms| format!("{ms:.0}"))}
                data-kinds={self.drivers.len().to_string()}>
                <TreeView model={Rc::new(model)} {state} open={self.shown}
                    on_toggle={ctx.link().callback(|_| Msg::Toggle)} note={probe::unread_note(&self.unread)} />
            </div>
        }
    }
}
