//! A persistent ordered map with subtree counts: the sim's store per resource type.
//!
//! A treap whose nodes are `Arc`-shared: a snapshot is a clone of the root (O(1)), and a
//! change copies only the path from the root to the changed key while a snapshot shares it
//! (`Arc::make_mut`: a node nobody else holds is changed in place). Every node counts its
//! subtree, so the rank of a key (how many keys sort before it) is O(log N): a list page's
//! `remainingItemCount` is a rank difference, not a count of the items left.
//!
//! The same idea as the apiserver's watch cache since 1.33, which serves paginated lists
//! from B-tree snapshots (`staging/src/k8s.io/apiserver/pkg/storage/cacher/store_btree.go`).
//!
//! Keys are etcd's: `namespace/name` (or `name` for cluster-scoped objects) compared as
//! bytes. A value gives its key as two parts, so no key string is stored per object.
//! Priorities are a hash of the key: the shape of the tree depends only on its keys.

use std::cmp::Ordering;
use std::ops::Bound;
use std::sync::Arc;

/// A key: `namespace/name`, or `name` when `namespace` is empty. A raw key string (a
/// continue token's start key) is `Key::raw(s)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
}

impl<'a> Key<'a> {
    pub fn new(namespace: &'a str, name: &'a str) -> Self {
        Key { namespace, name }
    }
    /// A key given as one string (compares as those bytes).
    pub fn raw(key: &'a str) -> Self {
        Key {
            namespace: "",
            name: key,
        }
    }
    fn parts(&self) -> [&'a [u8]; 3] {
        if self.namespace.is_empty() {
            [self.name.as_bytes(), b"", b""]
        } else {
            [self.namespace.as_bytes(), b"/", self.name.as_bytes()]
        }
    }
    /// Byte-wise order of the joined key, without joining it.
    pub fn cmp_key(&self, other: &Key<'_>) -> Ordering {
        let (a, b) = (self.parts(), other.parts());
        let (mut ai, mut ao, mut bi, mut bo) = (0, 0, 0, 0);
        loop {
            while ai < 3 && ao == a[ai].len() {
                ai += 1;
                ao = 0;
            }
            while bi < 3 && bo == b[bi].len() {
                bi += 1;
                bo = 0;
            }
            match (ai == 3, bi == 3) {
                (true, true) => return Ordering::Equal,
                (true, false) => return Ordering::Less,
                (false, true) => return Ordering::Greater,
                _ => {}
            }
            let (x, y) = (&a[ai][ao..], &b[bi][bo..]);
            let n = x.len().min(y.len());
            match x[..n].cmp(&y[..n]) {
                Ordering::Equal => {
                    ao += n;
                    bo += n;
                }
                o => return o,
            }
        }
    }
    /// The treap priority: FNV-1a of the joined key.
    fn priority(&self) -> u32 {
        let mut h: u32 = 0x811c_9dc5;
        for part in self.parts() {
            for &b in part {
                h ^= b as u32;
                h = h.wrapping_mul(0x0100_0193);
            }
        }
        h
    }
    /// The joined key as a string.
    pub fn joined(&self) -> String {
        if self.namespace.is_empty() {
            self.name.to_string()
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }
}

/// A value stored in a [`Tree`]: it knows its own key.
pub trait Keyed {
    fn key(&self) -> Key<'_>;
}

impl<T: Keyed> Keyed for Arc<T> {
    fn key(&self) -> Key<'_> {
        (**self).key()
    }
}

#[derive(Debug, Clone)]
struct Node<V> {
    val: V,
    prio: u32,
    size: u32,
    left: Link<V>,
    right: Link<V>,
}

type Link<V> = Option<Arc<Node<V>>>;

fn size<V>(l: &Link<V>) -> usize {
    l.as_ref().map_or(0, |n| n.size as usize)
}

fn prio<V>(l: &Link<V>) -> u32 {
    l.as_ref().map_or(0, |n| n.prio)
}

impl<V> Node<V> {
    fn fix(&mut self) {
        self.size = (1 + size(&self.left) + size(&self.right)) as u32;
    }
}

/// The persistent ordered map. `clone()` is a snapshot: O(1), unaffected by later changes.
#[derive(Debug)]
pub struct Tree<V> {
    root: Link<V>,
}

impl<V> Clone for Tree<V> {
    fn clone(&self) -> Self {
        Tree {
            root: self.root.clone(),
        }
    }
}

impl<V> Default for Tree<V> {
    fn default() -> Self {
        Tree { root: None }
    }
}

impl<V: Keyed + Clone> Tree<V> {
    pub fn new() -> Self {
        Tree { root: None }
    }

    pub fn len(&self) -> usize {
        size(&self.root)
    }

    pub fn is_empty(&self) -> bool {
        self.root.is_none()
    }

    pub fn get(&self, k: Key<'_>) -> Option<&V> {
        let mut cur = &self.root;
        while let Some(n) = cur {
            match k.cmp_key(&n.val.key()) {
                Ordering::Less => cur = &n.left,
                Ordering::Greater => cur = &n.right,
                Ordering::Equal => return Some(&n.val),
            }
        }
        None
    }

    /// Inserts or replaces; returns the value replaced.
    pub fn insert(&mut self, v: V) -> Option<V> {
        let p = v.key().priority();
        insert(&mut self.root, v, p)
    }

    /// Removes the value at `k`.
    pub fn remove(&mut self, k: Key<'_>) -> Option<V> {
        // Absent keys must not copy a shared path.
        self.get(k)?;
        remove(&mut self.root, k)
    }

    /// How many keys sort before `k` (`inclusive`: before or at `k`).
    pub fn rank(&self, k: Key<'_>, inclusive: bool) -> usize {
        let mut r = 0;
        let mut cur = &self.root;
        while let Some(n) = cur {
            match k.cmp_key(&n.val.key()) {
                Ordering::Less => cur = &n.left,
                Ordering::Equal if !inclusive => cur = &n.left,
                _ => {
                    r += 1 + size(&n.left);
                    cur = &n.right;
                }
            }
        }
        r
    }

    /// Number of keys within `(lower, upper)` bounds, in O(log N).
    pub fn count_range(&self, lower: Bound<Key<'_>>, upper: Bound<Key<'_>>) -> usize {
        let lo = match lower {
            Bound::Unbounded => 0,
            Bound::Included(k) => self.rank(k, false),
            Bound::Excluded(k) => self.rank(k, true),
        };
        let hi = match upper {
            Bound::Unbounded => self.len(),
            Bound::Included(k) => self.rank(k, true),
            Bound::Excluded(k) => self.rank(k, false),
        };
        hi.saturating_sub(lo)
    }

    /// Values in key order from `lower` on: O(log N) to start, O(1) amortised per value.
    pub fn iter_from(&self, lower: Bound<Key<'_>>) -> Iter<'_, V> {
        let mut stack = Vec::with_capacity(64);
        let mut cur = &self.root;
        while let Some(n) = cur {
            let ok = match lower {
                Bound::Unbounded => true,
                Bound::Included(k) => n.val.key().cmp_key(&k) != Ordering::Less,
                Bound::Excluded(k) => n.val.key().cmp_key(&k) == Ordering::Greater,
            };
            if ok {
                stack.push(&**n);
                cur = &n.left;
            } else {
                cur = &n.right;
            }
        }
        Iter { stack }
    }

    pub fn iter(&self) -> Iter<'_, V> {
        self.iter_from(Bound::Unbounded)
    }
}

fn insert<V: Keyed + Clone>(link: &mut Link<V>, v: V, p: u32) -> Option<V> {
    let Some(arc) = link.as_mut() else {
        *link = Some(Arc::new(Node {
            val: v,
            prio: p,
            size: 1,
            left: None,
            right: None,
        }));
        return None;
    };
    let node = Arc::make_mut(arc);
    let (old, rotate) = match v.key().cmp_key(&node.val.key()) {
        Ordering::Equal => return Some(std::mem::replace(&mut node.val, v)),
        Ordering::Less => {
            let old = insert(&mut node.left, v, p);
            node.fix();
            (old, (prio(&node.left) > node.prio).then_some(true))
        }
        Ordering::Greater => {
            let old = insert(&mut node.right, v, p);
            node.fix();
            (old, (prio(&node.right) > node.prio).then_some(false))
        }
    };
    match rotate {
        Some(true) => rotate_right(link),
        Some(false) => rotate_left(link),
        None => {}
    }
    old
}

/// The left child becomes the root of this subtree.
fn rotate_right<V: Clone>(link: &mut Link<V>) {
    let Some(mut n) = link.take() else { return };
    let nm = Arc::make_mut(&mut n);
    let Some(mut l) = nm.left.take() else {
        *link = Some(n);
        return;
    };
    let lm = Arc::make_mut(&mut l);
    nm.left = lm.right.take();
    nm.fix();
    lm.right = Some(n);
    lm.fix();
    *link = Some(l);
}

/// The right child becomes the root of this subtree.
fn rotate_left<V: Clone>(link: &mut Link<V>) {
    let Some(mut n) = link.take() else { return };
    let nm = Arc::make_mut(&mut n);
    let Some(mut r) = nm.right.take() else {
        *link = Some(n);
        return;
    };
    let rm = Arc::make_mut(&mut r);
    nm.right = rm.left.take();
    nm.fix();
    rm.left = Some(n);
    rm.fix();
    *link = Some(r);
}

fn remove<V: Keyed + Clone>(link: &mut Link<V>, k: Key<'_>) -> Option<V> {
    let arc = link.as_mut()?;
    let node = Arc::make_mut(arc);
    match k.cmp_key(&node.val.key()) {
        Ordering::Less => {
            let r = remove(&mut node.left, k);
            node.fix();
            r
        }
        Ordering::Greater => {
            let r = remove(&mut node.right, k);
            node.fix();
            r
        }
        Ordering::Equal => {
            let n = link.take()?;
            let n = Arc::try_unwrap(n).unwrap_or_else(|a| (*a).clone());
            *link = merge(n.left, n.right);
            Some(n.val)
        }
    }
}

/// Joins two treaps, every key of `a` before every key of `b`.
fn merge<V: Clone>(a: Link<V>, b: Link<V>) -> Link<V> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(mut a), Some(mut b)) => {
            if a.prio > b.prio {
                let am = Arc::make_mut(&mut a);
                am.right = merge(am.right.take(), Some(b));
                am.fix();
                Some(a)
            } else {
                let bm = Arc::make_mut(&mut b);
                bm.left = merge(Some(a), bm.left.take());
                bm.fix();
                Some(b)
            }
        }
    }
}

/// In-order iterator.
pub struct Iter<'a, V> {
    stack: Vec<&'a Node<V>>,
}

impl<'a, V> Iterator for Iter<'a, V> {
    type Item = &'a V;
    fn next(&mut self) -> Option<&'a V> {
        let n = self.stack.pop()?;
        let mut cur = &n.right;
        while let Some(c) = cur {
            self.stack.push(c);
            cur = &c.left;
        }
        Some(&n.val)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::Rng;
    use std::collections::BTreeMap;

    #[derive(Debug, Clone, PartialEq)]
    struct Item(String, String, u32);
    impl Keyed for Item {
        fn key(&self) -> Key<'_> {
            Key::new(&self.0, &self.1)
        }
    }

    #[test]
    fn key_order_is_the_joined_strings_order() {
        let pairs = [
            ("a", "b"),
            ("a-x", "c"),
            ("", "a/b"),
            ("a", ""),
            ("ab", "a"),
        ];
        for x in pairs {
            for y in pairs {
                let (kx, ky) = (Key::new(x.0, x.1), Key::new(y.0, y.1));
                assert_eq!(
                    kx.cmp_key(&ky),
                    kx.joined().cmp(&ky.joined()),
                    "{x:?} {y:?}"
                );
            }
        }
    }

    /// Against a BTreeMap: inserts, removes, ranks, iteration from bounds, and snapshots
    /// that do not move when the tree changes after them.
    #[test]
    fn behaves_like_a_btreemap_with_snapshots() {
        let mut rng = Rng::new(3);
        let mut t: Tree<Item> = Tree::new();
        let mut m: BTreeMap<String, Item> = BTreeMap::new();
        let mut snaps: Vec<(Tree<Item>, Vec<Item>)> = Vec::new();
        for step in 0..4000u32 {
            let ns = format!("ns{}", rng.below(4));
            let name = format!("p{}", rng.below(300));
            let it = Item(ns.clone(), name.clone(), step);
            let key = Key::new(&ns, &name).joined();
            if rng.chance(0.3) {
                assert_eq!(t.remove(Key::new(&ns, &name)), m.remove(&key));
            } else {
                assert_eq!(t.insert(it.clone()), m.insert(key, it));
            }
            if step % 500 == 0 {
                snaps.push((t.clone(), m.values().cloned().collect()));
            }
        }
        assert_eq!(t.len(), m.len());
        assert_eq!(
            t.iter().cloned().collect::<Vec<_>>(),
            m.values().cloned().collect::<Vec<_>>()
        );
        for (snap, want) in &snaps {
            assert_eq!(&snap.iter().cloned().collect::<Vec<_>>(), want);
        }
        for probe in ["ns1/p15", "ns2", "ns2/", "ns20", "a", "z"] {
            let k = Key::raw(probe);
            let below = m.keys().filter(|x| x.as_str() < probe).count();
            assert_eq!(t.rank(k, false), below, "{probe}");
            let after: Vec<_> = m
                .range::<str, _>((Bound::Excluded(probe), Bound::Unbounded))
                .map(|(_, v)| v.clone())
                .collect();
            assert_eq!(
                t.iter_from(Bound::Excluded(k)).cloned().collect::<Vec<_>>(),
                after
            );
        }
        assert_eq!(
            t.count_range(
                Bound::Included(Key::raw("ns1/")),
                Bound::Excluded(Key::raw("ns10"))
            ),
            m.keys().filter(|k| k.starts_with("ns1/")).count()
        );
    }
}

#[cfg(test)]
mod stress {
    use super::*;
    use crate::util::Rng;

    #[derive(Debug, Clone, PartialEq)]
    struct Item(String, String);
    impl Keyed for Item {
        fn key(&self) -> Key<'_> {
            Key::new(&self.0, &self.1)
        }
    }

    #[test]
    fn lower_bound_iteration_sees_everything_after_many_snapshots() {
        let mut rng = Rng::new(11);
        let mut t: Tree<Item> = Tree::new();
        let mut snaps = Vec::new();
        let mut live: Vec<(String, String)> = Vec::new();
        for step in 0..20000 {
            if live.len() < 5 || rng.chance(0.5) {
                let ns = format!("ns-{}", rng.below(3));
                let name = format!("app-0-6c4f9b28dd-{}", rng.alnum(5));
                t.insert(Item(ns.clone(), name.clone()));
                live.push((ns, name));
            } else {
                let k = rng.below(live.len() as u64) as usize;
                let (ns, name) = live.swap_remove(k);
                t.remove(Key::new(&ns, &name));
            }
            if step % 7 == 0 {
                snaps.push(t.clone());
                if snaps.len() > 10 {
                    snaps.remove(0);
                }
            }
            let all = t.iter().filter(|i| i.0 == "ns-0").count();
            let from = t
                .iter_from(Bound::Included(Key::raw("ns-0/")))
                .take_while(|i| i.0 == "ns-0")
                .count();
            assert_eq!(all, from, "step {step}");
        }
    }
}
