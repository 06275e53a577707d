//! The owner tree of the detail panel's object, live: its owners up to the root (by
//! `ownerReferences`, the controller at each level) and everything it owns down to
//! the leaves (Deployment -> ReplicaSets -> Pods, CronJob -> Jobs -> Pods, ...).
//!
//! Each kind involved is one engine ([`Driver`], table mode, rows kept with
//! [`KeptMetadata::Owners`]), all joined by uid in one core [`Owners`]:
//!
//! * the object's own kind, watched by its name;
//! * the kinds its controller makes ([`model::kinds_below`]), each one LIST and WATCH
//!   of the object's namespace;
//! * each owner's kind as the join finds the owner named but not watched, by the
//!   owner's name (its `ownerReferences` entry gives the apiVersion and kind), then
//!   that owner's owner, up to the root.
//!
//! Every event of every engine goes to the join, so adds, deletes and re-parenting (a
//! rollout's new ReplicaSet taking the pods) redraw the tree as they come; health rolls
//! up in the join. A kind the user may not list (403) marks its source unavailable:
//! its level says why. A kind the server does not serve (404) is stopped: nothing of
//! it can be in the tree. The engines stop when the panel shows another object or
//! closes (the component is dropped with its drivers).

pub mod model;
pub mod view;

pub use model::Model;
pub use view::{TreeState, TreeView, TreeViewProps};

use crate::driver::{Driver, DriverRef};
use kubelive_core::owners::{api_group, owner_references, Absence};
use kubelive_core::{
    ApiErrorKind, Collection, Config, Event, IncludeObject, KeptMetadata, Owners, SourceId,
    TableColumn,
};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use yew::prelude::*;

/// At most this many kinds are watched for one tree (owners found one level at a
/// time; a chain longer than this is cut).
const MAX_KINDS: usize = 16;

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

impl TreeTarget {
    fn prefix(&self) -> String {
        prefix(&self.group, &self.version)
    }
}

fn prefix(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("/api/{version}")
    } else {
        format!("/apis/{group}/{version}")
    }
}

fn config(collection: Collection, name: Option<&str>) -> Config {
    let mut c = Config::new(collection).tables(IncludeObject::Metadata);
    c.field_selector = name.map(|n| format!("metadata.name={n}"));
    // The join reads ownerReferences; the rest of a row's metadata is not shown.
    c.metadata = KeptMetadata::Owners;
    c.strip_managed_fields = true;
    c
}

/// Where one kind's engine stands.
#[derive(Default)]
struct KindState {
    synced: bool,
    /// The server does not serve it (404): stopped.
    gone: bool,
    /// Refused (403, say): the server's words.
    refused: Option<String>,
    columns: Option<Arc<[TableColumn]>>,
}

/// The join and what each engine said, written by the engines' sinks.
#[derive(Default)]
struct Join {
    owners: Owners,
    /// By source index.
    kinds: Vec<KindState>,
}

impl Join {
    fn apply(&mut self, i: usize, source: SourceId, events: &[Event], driver: &DriverRef<'_>) {
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
                    driver.stop();
                }
                Event::Failed { error } if k.refused.is_none() => {
                    k.refused = Some(error.message.clone());
                    self.owners.set_unavailable(source, Some(&error.message));
                }
                _ => {}
            }
        }
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
    /// The object; none: nothing is shown or watched.
    #[prop_or_default]
    pub target: Option<Rc<TreeTarget>>,
}

pub enum Msg {
    /// An engine produced events (the tree's generation).
    Events(u64),
}

/// The detail panel's owner tree (see the module documentation).
pub struct OwnerTree {
    join: Rc<RefCell<Join>>,
    /// One per kind, in source order; dropped with the component.
    drivers: Vec<Driver>,
    generation: u64,
    /// `performance.now()` when the engines started, and how long until every kind
    /// had answered (the tree complete).
    started: f64,
    took_ms: Option<f64>,
}

impl OwnerTree {
    fn start(&mut self, ctx: &Context<Self>) {
        self.drivers.clear();
        self.join = Rc::default();
        self.generation += 1;
        self.took_ms = None;
        self.started = crate::time::now_ms();
        let Some(t) = ctx.props().target.clone() else {
            return;
        };
        let ns = (!t.namespace.is_empty()).then_some(t.namespace.as_str());
        self.add(
            ctx,
            &t.group,
            &t.kind,
            Collection::new(&t.prefix(), ns, &t.plural),
            Some(&t.name),
        );
        for (group, kind, resource) in model::kinds_below(&t.group, &t.kind) {
            self.add(
                ctx,
                group,
                kind,
                Collection::new(&prefix(group, "v1"), ns, resource),
                None,
            );
        }
    }

    /// Starts an engine for a kind, fed to the join as a new source.
    fn add(
        &mut self,
        ctx: &Context<Self>,
        group: &str,
        kind: &str,
        collection: Collection,
        name: Option<&str>,
    ) {
        let i = self.drivers.len();
        let source = {
            let mut j = self.join.borrow_mut();
            j.kinds.push(KindState::default());
            j.owners.add_source(group, kind)
        };
        let join = self.join.clone();
        let link = ctx.link().clone();
        let generation = self.generation;
        let sink = Box::new(move |d: &DriverRef<'_>, events: Vec<Event>| {
            join.borrow_mut().apply(i, source, &events, d);
            link.send_message(Msg::Events(generation));
        });
        self.drivers
            .push(Driver::start(config(collection, name), "", sink));
    }

    fn state(&self) -> TreeState {
        let j = self.join.borrow();
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
            join: Rc::default(),
            drivers: Vec::new(),
            generation: 0,
            started: 0.0,
            took_ms: None,
        };
        me.start(ctx);
        me
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &OwnerTreeProps) -> bool {
        if ctx.props().target != old.target {
            self.start(ctx);
        }
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        let Msg::Events(generation) = msg;
        if generation != self.generation {
            return false;
        }
        let Some(t) = ctx.props().target.clone() else {
            return false;
        };
        // The owners above, one level at a time as each is found.
        if self.drivers.len() < MAX_KINDS {
            let next = self.join.borrow().owner_to_watch(&t.uid);
            if let Some((api_version, kind, ns, name)) = next {
                let group = api_group(&api_version).to_string();
                let version = api_version.rsplit('/').next().unwrap_or("v1").to_string();
                let ns = (!ns.is_empty()).then_some(ns.as_str());
                let c = Collection::new(&prefix(&group, &version), ns, &model::plural_of(&kind));
                self.add(ctx, &group, &kind, c, Some(&name));
            }
        }
        if self.took_ms.is_none() && self.state() == TreeState::Live {
            self.took_ms = Some(crate::time::now_ms() - self.started);
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let Some(t) = ctx.props().target.as_ref() else {
            return html! {};
        };
        let model = {
            let j = self.join.borrow();
            Model::build(&j.owners, &t.uid, |s| {
                j.kinds
                    .get(usize::from(s.0))
                    .and_then(|k| k.columns.as_deref())
            })
        };
        html! {
            <div class="owner-tree-host" data-took-ms={self.took_ms.map(|ms| format!("{ms:.0}"))}
                data-kinds={self.drivers.len().to_string()}>
                <TreeView model={Rc::new(model)} state={self.state()} />
            </div>
        }
    }
}
