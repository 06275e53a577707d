//! The engines of the kinds the trees watch, one per collection for the whole page:
//! the detail panel's tree and the tree view that both need a namespace's ReplicaSets
//! and Pods share one LIST and one WATCH of each. An engine starts with its first
//! listener and stops when the last one goes. A listener that comes to a running
//! engine is first given what it holds (its columns, its rows, then its sync or its
//! failure), so that its join is the same as if it had been there from the start.

use crate::driver::{Driver, DriverRef};
use kubelive_core::{Config, Event, TableColumn};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use std::sync::Arc;

/// Takes a batch of the kind's events; true: the engine should stop (the kind is not
/// served, for every listener alike).
pub type Listener = Box<dyn Fn(&[Event]) -> bool>;

/// What an engine said that a listener coming later needs.
#[derive(Default)]
struct Said {
    columns: Option<Arc<[TableColumn]>>,
    /// The last `Synced`, until a relist.
    synced: Option<Event>,
    /// The last `Failed`, until a sync.
    failed: Option<Event>,
}

#[derive(Default)]
struct Listeners {
    by_id: RefCell<Vec<(u64, Rc<Listener>)>>,
    said: RefCell<Said>,
}

impl Listeners {
    /// Hands a batch to every listener; whether one asked to stop.
    fn dispatch(&self, events: &[Event]) -> bool {
        {
            let mut said = self.said.borrow_mut();
            for e in events {
                match e {
                    Event::Columns { columns } => said.columns = Some(columns.clone()),
                    Event::TablesUnavailable { .. } => said.columns = None,
                    Event::Synced { .. } => {
                        said.synced = Some(e.clone());
                        said.failed = None;
                    }
                    Event::Relisting { .. } => said.synced = None,
                    Event::Failed { .. } => said.failed = Some(e.clone()),
                    _ => {}
                }
            }
        }
        // A listener may add or drop listeners as it runs: call a copy.
        let all: Vec<Rc<Listener>> = self.by_id.borrow().iter().map(|l| l.1.clone()).collect();
        let mut stop = false;
        for l in all {
            stop |= l(events);
        }
        stop
    }
}

/// One collection's engine and its listeners.
struct Running {
    driver: Driver,
    listeners: Rc<Listeners>,
}

thread_local! {
    static RUNNING: RefCell<HashMap<String, Weak<Running>>> = RefCell::new(HashMap::new());
    static NEXT_ID: Cell<u64> = const { Cell::new(0) };
}

/// A listener's hold on an engine: dropping it removes the listener, and the last one
/// dropped stops the engine.
pub struct Subscription {
    running: Rc<Running>,
    id: u64,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.running
            .listeners
            .by_id
            .borrow_mut()
            .retain(|(id, _)| *id != self.id);
    }
}

/// Listens to the engine of `config`'s collection, started if none runs: `listener`
/// gets what the engine holds at once, then each batch.
pub fn subscribe(config: Config, listener: Listener) -> Subscription {
    let key = config.collection.path();
    let id = NEXT_ID.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    let listener = Rc::new(listener);
    let existing = RUNNING.with(|r| {
        let mut r = r.borrow_mut();
        r.retain(|_, w| w.strong_count() > 0);
        r.get(&key).and_then(Weak::upgrade)
    });
    let running = match existing {
        Some(running) => {
            let events = replay(&running);
            if !events.is_empty() && listener(&events) {
                running.driver.stop();
            }
            running
        }
        None => {
            let listeners: Rc<Listeners> = Rc::default();
            let sink_listeners = Rc::downgrade(&listeners);
            let sink = Box::new(move |d: &DriverRef<'_>, events: Vec<Event>| {
                if let Some(l) = sink_listeners.upgrade() {
                    if l.dispatch(&events) {
                        d.stop();
                    }
                }
            });
            let running = Rc::new(Running {
                driver: Driver::start(config, "", sink),
                listeners,
            });
            RUNNING.with(|r| r.borrow_mut().insert(key, Rc::downgrade(&running)));
            running
        }
    };
    running.listeners.by_id.borrow_mut().push((id, listener));
    Subscription { running, id }
}

/// What a listener coming to a running engine is given first.
fn replay(running: &Running) -> Vec<Event> {
    let said = running.listeners.said.borrow();
    let mut events = Vec::new();
    if let Some(columns) = &said.columns {
        events.push(Event::Columns {
            columns: columns.clone(),
        });
    }
    running.driver.with_store(|s| {
        events.extend(s.iter().map(|o| Event::Added(o.clone())));
    });
    events.extend(said.synced.iter().cloned());
    events.extend(said.failed.iter().cloned());
    events
}
