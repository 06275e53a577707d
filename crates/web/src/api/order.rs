//! The snapshot's order, kept from one snapshot to the next: after a few changes the
//! next snapshot is the last one patched (a value replaced, inserted or removed where
//! an object changed, appeared or vanished) instead of the whole collection sorted
//! and rebuilt. Pure: the store is reached through closures, so it is unit-tested.

use kubelive_core::Object;
use std::cmp::Ordering;
use std::sync::Arc;

/// One step from the last snapshot's array to the next, applied in order; each index
/// is into the array as the steps before it left it.
#[derive(Clone, Debug)]
pub enum Op {
    /// The object at this index changed.
    Set(usize, Arc<Object>),
    Insert(usize, Arc<Object>),
    Remove(usize),
}

/// How to make the next snapshot.
#[derive(Debug)]
pub enum Plan {
    /// Build it whole: every object in order, with the index it had in the last
    /// snapshot when it is the very same object (its JS value can be reused).
    Whole(Vec<(Arc<Object>, Option<usize>)>),
    /// Patch the last one.
    Patch(Vec<Op>),
}

/// The objects of the last snapshot in order, and what changed since.
#[derive(Default)]
pub struct Order {
    objects: Vec<Arc<Object>>,
    touched: Vec<Arc<Object>>,
    /// So much changed (or no snapshot was taken yet) that a whole rebuild is cheaper.
    whole: bool,
    taken: bool,
}

fn by_key(a: &Object, b: &Object) -> Ordering {
    (a.namespace(), a.name()).cmp(&(b.namespace(), b.name()))
}

impl Order {
    /// An object was added, modified or deleted (any version of it: only its key is
    /// used).
    pub fn touch(&mut self, object: &Arc<Object>) {
        if self.whole || !self.taken {
            return;
        }
        self.touched.push(object.clone());
        // Patching costs a binary search and an array splice per change: past a
        // quarter of the collection, sorting it again is cheaper (and the touched
        // objects are not kept alive for a snapshot nobody asks for).
        if self.touched.len() > self.objects.len() / 4 + 64 {
            self.touched = Vec::new();
            self.whole = true;
        }
    }

    /// The next plan is a whole rebuild (the last snapshot is gone).
    pub fn forget(&mut self) {
        self.touched = Vec::new();
        self.whole = true;
    }

    /// Where the object `namespace/name` sits in the last snapshot, if it is there.
    pub fn position(&self, namespace: &str, name: &str) -> Option<(usize, &Arc<Object>)> {
        let i = self
            .objects
            .binary_search_by(|o| (o.namespace(), o.name()).cmp(&(namespace, name)))
            .ok()?;
        Some((i, &self.objects[i]))
    }

    /// The next snapshot's plan; `current` reads the store, `sorted` lists it in order.
    pub fn plan(
        &mut self,
        current: impl Fn(&str, &str) -> Option<Arc<Object>>,
        sorted: impl FnOnce() -> Vec<Arc<Object>>,
    ) -> Plan {
        let touched = std::mem::take(&mut self.touched);
        if self.whole || !self.taken {
            self.whole = false;
            self.taken = true;
            let new = sorted();
            let plan = reuse(&self.objects, &new);
            self.objects = new;
            return Plan::Whole(plan);
        }
        let mut touched = touched;
        touched.sort_by(|a, b| by_key(a, b));
        touched.dedup_by(|a, b| by_key(a, b) == Ordering::Equal);
        let mut ops = Vec::with_capacity(touched.len());
        // Patched as the array will be, so each search gives the index as the steps
        // before it left the array.
        let mut objects = std::mem::take(&mut self.objects);
        for t in &touched {
            let (ns, name) = (t.namespace(), t.name());
            let now = current(ns, name);
            let found = objects.binary_search_by(|o| (o.namespace(), o.name()).cmp(&(ns, name)));
            match (found, now) {
                (Ok(i), Some(now)) => {
                    if !Arc::ptr_eq(&objects[i], &now) {
                        ops.push(Op::Set(i, now.clone()));
                        objects[i] = now;
                    }
                }
                (Ok(i), None) => {
                    ops.push(Op::Remove(i));
                    objects.remove(i);
                }
                (Err(i), Some(now)) => {
                    ops.push(Op::Insert(i, now.clone()));
                    objects.insert(i, now);
                }
                (Err(_), None) => {}
            }
        }
        self.objects = objects;
        Plan::Patch(ops)
    }
}

/// For each object of `new`, its index in `old` when it is the same object.
fn reuse(old: &[Arc<Object>], new: &[Arc<Object>]) -> Vec<(Arc<Object>, Option<usize>)> {
    let mut out = Vec::with_capacity(new.len());
    let mut i = 0;
    for o in new {
        while i < old.len() && by_key(&old[i], o) == Ordering::Less {
            i += 1;
        }
        let same = (i < old.len() && Arc::ptr_eq(&old[i], o)).then_some(i);
        out.push((o.clone(), same));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubelive_core::ParseOptions;
    use std::collections::BTreeMap;

    fn pod(ns: &str, name: &str, rv: u32) -> Arc<Object> {
        let json = format!(
            r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"{ns}","uid":"{ns}-{name}","resourceVersion":"{rv}"}}}}"#
        );
        Arc::new(Object::parse(json.as_bytes(), &ParseOptions::default()).unwrap())
    }

    /// A store, and the snapshot array a caller keeps by following the plans.
    #[derive(Default)]
    struct World {
        store: BTreeMap<(String, String), Arc<Object>>,
        array: Vec<Arc<Object>>,
        order: Order,
    }

    impl World {
        fn put(&mut self, o: Arc<Object>) {
            self.order.touch(&o);
            self.store
                .insert((o.namespace().into(), o.name().into()), o);
        }

        fn delete(&mut self, ns: &str, name: &str) {
            let o = self.store.remove(&(ns.into(), name.into())).unwrap();
            self.order.touch(&o);
        }

        /// Takes a snapshot; how it was made.
        fn snapshot(&mut self) -> &'static str {
            let store = &self.store;
            let plan = self.order.plan(
                |ns, name| store.get(&(ns.into(), name.into())).cloned(),
                || store.values().cloned().collect(),
            );
            let how = match plan {
                Plan::Whole(list) => {
                    for (o, at) in &list {
                        if let Some(i) = at {
                            assert!(Arc::ptr_eq(&self.array[*i], o), "reused index");
                        }
                    }
                    self.array = list.into_iter().map(|(o, _)| o).collect();
                    "whole"
                }
                Plan::Patch(ops) => {
                    for op in ops {
                        match op {
                            Op::Set(i, o) => self.array[i] = o,
                            Op::Insert(i, o) => self.array.insert(i, o),
                            Op::Remove(i) => {
                                self.array.remove(i);
                            }
                        }
                    }
                    "patch"
                }
            };
            let truth: Vec<&Arc<Object>> = self.store.values().collect();
            assert_eq!(self.array.len(), truth.len());
            for (a, b) in self.array.iter().zip(truth) {
                assert!(Arc::ptr_eq(a, b), "{} != {}", a.name(), b.name());
            }
            how
        }
    }

    #[test]
    fn the_first_snapshot_is_whole_then_changes_patch_it() {
        let mut w = World::default();
        for i in 0..300 {
            w.put(pod(&format!("ns-{}", i % 3), &format!("p{i:03}"), 1));
        }
        assert_eq!(w.snapshot(), "whole");
        // Modified, added at the front, in the middle and at the end, deleted, added
        // then deleted, modified twice, deleted then recreated.
        w.put(pod("ns-1", "p004", 2));
        w.put(pod("ns-0", "a", 2));
        w.put(pod("ns-1", "p100x", 2));
        w.put(pod("ns-9", "z", 2));
        w.delete("ns-2", "p002");
        w.put(pod("ns-5", "brief", 2));
        w.delete("ns-5", "brief");
        w.put(pod("ns-0", "p000", 2));
        w.put(pod("ns-0", "p000", 3));
        w.delete("ns-0", "p003");
        w.put(pod("ns-0", "p003", 4));
        assert_eq!(w.snapshot(), "patch");
        // Nothing changed: an empty patch.
        assert_eq!(w.snapshot(), "patch");
        w.delete("ns-9", "z");
        w.delete("ns-0", "a");
        assert_eq!(w.snapshot(), "patch");
    }

    #[test]
    fn many_changes_rebuild_it_reusing_what_did_not_change() {
        let mut w = World::default();
        for i in 0..100 {
            w.put(pod("ns", &format!("p{i:03}"), 1));
        }
        w.snapshot();
        let kept = w.array[50].clone();
        for i in 0..100 {
            if i != 50 {
                w.put(pod("ns", &format!("p{i:03}"), 2));
            }
        }
        let store = &w.store;
        let Plan::Whole(list) = w.order.plan(
            |ns, name| store.get(&(ns.into(), name.into())).cloned(),
            || store.values().cloned().collect(),
        ) else {
            panic!("a whole rebuild");
        };
        assert_eq!(
            list[50].1,
            Some(50),
            "the unchanged object's value is reused"
        );
        assert!(Arc::ptr_eq(&list[50].0, &kept));
        assert_eq!(list[49].1, None);
        assert_eq!(list[95].1, None);
    }

    #[test]
    fn positions_find_objects_of_the_last_snapshot() {
        let mut w = World::default();
        w.put(pod("a", "x", 1));
        w.put(pod("b", "y", 1));
        assert!(w.order.position("a", "x").is_none(), "no snapshot yet");
        w.snapshot();
        assert_eq!(w.order.position("b", "y").map(|(i, _)| i), Some(1));
        assert!(w.order.position("b", "z").is_none());
    }
}
