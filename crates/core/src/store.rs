//! The cache: each object once, keyed by namespace/name.
//!
//! Relists are diffed in place: every object the new list brings is marked with the
//! relist's epoch as it arrives (page by page, so no second full copy is ever held),
//! and at the end the objects left unmarked are the ones that vanished.

use crate::object::Object;
use hashbrown::HashTable;
use std::hash::Hasher;
use std::sync::Arc;

struct Entry {
    object: Arc<Object>,
    /// The epoch of the list (or streaming list) that last confirmed this object.
    epoch: u32,
}

/// What storing an object changed.
#[derive(Debug)]
pub(crate) enum Change {
    Added,
    Modified {
        old: Arc<Object>,
    },
    /// Same name, new uid: the old object was deleted and a new one created.
    Recreated {
        old: Arc<Object>,
    },
    /// Same uid and resourceVersion: nothing to tell anyone.
    Unchanged,
}

/// The most objects [`Store::presize`] makes room for ahead of their arrival.
const MAX_PRESIZE: u64 = 1 << 22;

/// The live copy of the collection.
#[derive(Default)]
pub struct Store {
    table: HashTable<Entry>,
}

/// FNV-1a over namespace, a separator and name: deterministic across runs (so
/// simulations replay) and fast on short keys. Keys come from the apiserver, which
/// we trust as much as the data itself, so flooding resistance buys nothing here.
/// Other tables keyed by an object's name use it too (the web table's held rows).
pub fn key_hash(namespace: &str, name: &str) -> u64 {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    h.write(namespace.as_bytes());
    h.write(&[0xff]);
    h.write(name.as_bytes());
    h.finish()
}

struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        // Mix the high bits down: hashbrown takes its control byte from the top.
        let h = self.0;
        h ^ (h >> 29) ^ (h << 17)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

fn entry_hash(e: &Entry) -> u64 {
    key_hash(e.object.namespace(), e.object.name())
}

impl Store {
    pub fn new() -> Self {
        Store::default()
    }

    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// The object at namespace/name (`""` namespace for cluster-scoped objects).
    pub fn get(&self, namespace: &str, name: &str) -> Option<&Arc<Object>> {
        self.table
            .find(key_hash(namespace, name), |e| {
                e.object.name() == name && e.object.namespace() == namespace
            })
            .map(|e| &e.object)
    }

    /// Every object, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Object>> {
        self.table.iter().map(|e| &e.object)
    }

    /// Every object sorted by namespace, then name.
    pub fn sorted(&self) -> Vec<&Arc<Object>> {
        self.first_sorted(usize::MAX)
    }

    /// The first `n` objects by namespace and name, sorted: a screenful of a large
    /// collection without sorting the rest (O(len) to select, then O(n log n)). Each
    /// object's key is read once (reading it checks its UTF-8), not once a comparison.
    pub fn first_sorted(&self, n: usize) -> Vec<&Arc<Object>> {
        let mut keyed: Vec<((&str, &str), &Arc<Object>)> = self
            .iter()
            .map(|o| ((o.namespace(), o.name()), o))
            .collect();
        if n < keyed.len() {
            keyed.select_nth_unstable_by(n, |a, b| a.0.cmp(&b.0));
            keyed.truncate(n);
        }
        keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        keyed.into_iter().map(|(_, o)| o).collect()
    }

    /// Heap bytes held by the store, as allocated: the table's one allocation, and
    /// per object its `Arc` (two counters and the struct) and its buffer.
    pub fn heap_bytes(&self) -> usize {
        let arc = 2 * std::mem::size_of::<usize>();
        let objects: usize = self.iter().map(|o| arc + o.heap_bytes()).sum();
        self.table.allocation_size() + objects
    }

    /// Makes room for `total` objects in all, so that a list whose size the server
    /// told (`remainingItemCount`) fills the table without growing it page after page:
    /// each growth moves every entry, a long task at a million. Never more than
    /// [`MAX_PRESIZE`] (the count is the server's word), and a failed allocation is
    /// left to the inserts.
    pub(crate) fn presize(&mut self, total: u64) {
        let total = usize::try_from(total.min(MAX_PRESIZE)).unwrap_or(0);
        let _ = self
            .table
            .try_reserve(total.saturating_sub(self.table.len()), entry_hash);
    }

    /// Objects the table has room for without growing.
    pub fn capacity(&self) -> usize {
        self.table.capacity()
    }

    /// Stores `object`, marking it confirmed by `epoch`. An object held at the same
    /// uid and resourceVersion is kept (`Unchanged`) unless `replace` is set or one is
    /// a table row and the other is not.
    pub(crate) fn upsert(&mut self, object: Arc<Object>, epoch: u32, replace: bool) -> Change {
        let hash = key_hash(object.namespace(), object.name());
        // One probe for both outcomes (a find, then an insert on a miss, is two).
        let entry = self.table.entry(
            hash,
            |e| e.object.name() == object.name() && e.object.namespace() == object.namespace(),
            entry_hash,
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(mut held) => {
                let entry = held.get_mut();
                entry.epoch = epoch;
                if entry.object.uid() != object.uid() {
                    let old = std::mem::replace(&mut entry.object, object);
                    Change::Recreated { old }
                } else if entry.object.resource_version() == object.resource_version()
                    && !replace
                    && entry.object.is_row() == object.is_row()
                {
                    Change::Unchanged
                } else {
                    let old = std::mem::replace(&mut entry.object, object);
                    Change::Modified { old }
                }
            }
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(Entry { object, epoch });
                Change::Added
            }
        }
    }

    /// Removes the object at namespace/name, returning what was held.
    pub(crate) fn remove(&mut self, namespace: &str, name: &str) -> Option<Arc<Object>> {
        self.table
            .find_entry(key_hash(namespace, name), |e| {
                e.object.name() == name && e.object.namespace() == namespace
            })
            .ok()
            .map(|occupied| occupied.remove().0.object)
    }

    /// Removes every object not confirmed by `epoch`, sorted by namespace/name.
    pub(crate) fn sweep(&mut self, epoch: u32) -> Vec<Arc<Object>> {
        let mut gone = Vec::new();
        self.table.retain(|e| {
            if e.epoch == epoch {
                true
            } else {
                gone.push(e.object.clone());
                false
            }
        });
        gone.sort_unstable_by(|a, b| (a.namespace(), a.name()).cmp(&(b.namespace(), b.name())));
        gone
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ParseOptions;

    fn pod(ns: &str, name: &str) -> Arc<Object> {
        let json = format!(
            r#"{{"metadata":{{"namespace":"{ns}","name":"{name}","resourceVersion":"1"}}}}"#
        );
        Arc::new(Object::parse(json.as_bytes(), &ParseOptions::default()).unwrap())
    }

    #[test]
    fn first_sorted_is_the_head_of_sorted() {
        let mut store = Store::new();
        // A scrambled order, over two namespaces.
        for i in 0..200u32 {
            let k = (i * 73) % 200;
            store.upsert(
                pod(&format!("ns-{}", k % 2), &format!("p-{k:03}")),
                0,
                false,
            );
        }
        let keys = |v: Vec<&Arc<Object>>| -> Vec<String> {
            v.iter()
                .map(|o| format!("{}/{}", o.namespace(), o.name()))
                .collect()
        };
        let all = keys(store.sorted());
        assert_eq!(all.len(), 200);
        assert!(all.windows(2).all(|w| w[0] < w[1]), "sorted: {all:?}");
        for n in [0, 1, 7, 100, 199, 200, 1000] {
            assert_eq!(keys(store.first_sorted(n)), all[..n.min(200)], "n = {n}");
        }
    }
}
