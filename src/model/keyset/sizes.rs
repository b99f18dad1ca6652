//! Item sizes per key and over the whole set, when the input carried whole items (sized by DynamoDB's rules,
//! [`crate::model::item_size`]): the size of each key's item collection and the items grouped by whole KB,
//! which fixes read and write units.

use super::KeySet;

/// The measured size of one key's items, when the input carried whole items: each item's size as DynamoDB
/// counts it ([`crate::model::item_size`]), without the per-item storage overhead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KeyBytes {
    /// Items (writes) measured.
    pub items: u64,
    /// Their bytes together: for an export, the size of the key's item collection.
    pub bytes: u64,
    /// The largest one.
    pub max: u64,
}

impl KeyBytes {
    /// Mean bytes per item (0 with none).
    pub fn mean(&self) -> u64 {
        self.bytes.checked_div(self.items).unwrap_or(0)
    }
}

/// Items grouped by size in whole KB, rounded up. Read and write units depend on an item's size only through
/// its size in whole KB (1 KB a write unit, 4 KB a read unit), so the groups give exact unit counts; at most
/// 401 of them for DynamoDB's 400 KB items.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct SizeProfile {
    pub groups: Vec<SizeGroup>,
}

/// The keys of the largest items and the largest item collection ([`KeySet::largest`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Largest {
    /// As [`KeySet::largest_items`]: (key, its largest item's size), largest first.
    pub items: Vec<(u32, u64)>,
    /// As [`KeySet::largest_collection`].
    pub collection: Option<(u32, KeyBytes)>,
}

/// Items whose size rounds up to `kb` KB, and their bytes together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct SizeGroup {
    pub kb: u64,
    pub items: u64,
    pub bytes: u64,
}

impl SizeProfile {
    /// One group of `items` items of `bytes` bytes each.
    pub fn uniform(bytes: u64, items: u64) -> Self {
        Self {
            groups: vec![SizeGroup {
                kb: bytes.div_ceil(1024),
                items,
                bytes: bytes * items,
            }],
        }
    }

    pub fn items(&self) -> u64 {
        self.groups.iter().map(|g| g.items).sum()
    }

    pub fn bytes(&self) -> u64 {
        self.groups.iter().map(|g| g.bytes).sum()
    }

    /// Mean bytes per item (0 with none).
    pub fn mean(&self) -> u64 {
        self.bytes().checked_div(self.items()).unwrap_or(0)
    }

    /// The largest size group's upper bound in bytes (0 with none).
    pub fn max_bytes_bound(&self) -> u64 {
        self.groups.iter().map(|g| g.kb * 1024).max().unwrap_or(0)
    }
}

/// Item-size bookkeeping, allocated only when some record carried its size.
#[derive(Debug, Clone, Default)]
pub(super) struct ItemSizes {
    /// Indexed by key.
    pub(super) per_key: Vec<KeyBytes>,
    /// `by_kb[k]`: (items, bytes) of the sizes in (k-1, k] KB; index 0 holds empty items.
    pub(super) by_kb: Vec<(u64, u64)>,
    /// Items (writes) among them whose size is an estimate: an attribute that is not a key was not the typed
    /// value it should be, and was sized from what could be read (`source::json::size::ItemSize`).
    pub(super) estimated: u64,
}

impl ItemSizes {
    pub(super) fn note(&mut self, idx: usize, bytes: u64, count: u64) {
        if self.per_key.len() <= idx {
            self.per_key.resize(idx + 1, KeyBytes::default());
        }
        let k = &mut self.per_key[idx];
        k.items += count;
        k.bytes += bytes * count;
        k.max = k.max.max(bytes);
        let kb = bytes.div_ceil(1024) as usize;
        if self.by_kb.len() <= kb {
            self.by_kb.resize(kb + 1, (0, 0));
        }
        self.by_kb[kb].0 += count;
        self.by_kb[kb].1 += bytes * count;
    }

    /// Adds another set's sizes; `mapped[i]` is the index here of the other set's key `i`.
    pub(super) fn merge(&mut self, other: &ItemSizes, mapped: &[u32]) {
        for (i, k) in other.per_key.iter().enumerate() {
            let Some(&idx) = mapped.get(i).filter(|_| k.items > 0) else {
                continue;
            };
            let idx = idx as usize;
            if self.per_key.len() <= idx {
                self.per_key.resize(idx + 1, KeyBytes::default());
            }
            let m = &mut self.per_key[idx];
            m.items += k.items;
            m.bytes += k.bytes;
            m.max = m.max.max(k.max);
        }
        if self.by_kb.len() < other.by_kb.len() {
            self.by_kb.resize(other.by_kb.len(), (0, 0));
        }
        for (m, t) in self.by_kb.iter_mut().zip(&other.by_kb) {
            m.0 += t.0;
            m.1 += t.1;
        }
        self.estimated += other.estimated;
    }
}

impl KeySet {
    /// Records that `count` writes of key `idx` carried an item of `bytes` bytes.
    pub fn note_item_bytes(&mut self, idx: u32, bytes: u64, count: u64) {
        self.sizes
            .get_or_insert_with(ItemSizes::default)
            .note(idx as usize, bytes, count);
    }

    /// Records that `count` of the writes whose sizes were noted carried an estimated size (an attribute that is
    /// not a key could not be read as typed).
    pub fn note_estimated_sizes(&mut self, count: u64) {
        self.sizes.get_or_insert_with(ItemSizes::default).estimated += count;
    }

    /// Items (writes) whose size is an estimate ([`Self::note_estimated_sizes`]).
    pub fn estimated_sizes(&self) -> u64 {
        self.sizes.as_ref().map_or(0, |s| s.estimated)
    }

    /// Every key whose items were measured, in index order, with their sizes: what [`Self::item_bytes`] gives
    /// for each key, in one pass over the sizes. The health report's passes over 1.9 million keys asked key by
    /// key through [`Self::iter`], which reads each key's bytes too: its storage pass took 23 ms, now 11–19 ms.
    pub fn measured(&self) -> impl Iterator<Item = (u32, KeyBytes)> + '_ {
        self.sizes
            .iter()
            .flat_map(|s| s.per_key.iter().enumerate())
            .filter(|(_, k)| k.items > 0)
            .map(|(i, k)| (i as u32, *k))
    }

    /// The measured size of key `idx`'s items, when the input carried item sizes.
    pub fn item_bytes(&self, idx: u32) -> Option<KeyBytes> {
        let k = *self.sizes.as_ref()?.per_key.get(idx as usize)?;
        (k.items > 0).then_some(k)
    }

    /// Item sizes over the whole set, when the input carried them.
    pub fn size_profile(&self) -> Option<SizeProfile> {
        let sizes = self.sizes.as_ref()?;
        let groups: Vec<SizeGroup> = sizes
            .by_kb
            .iter()
            .enumerate()
            .filter(|(_, (items, _))| *items > 0)
            .map(|(kb, &(items, bytes))| SizeGroup {
                kb: kb as u64,
                items,
                bytes,
            })
            .collect();
        (!groups.is_empty()).then_some(SizeProfile { groups })
    }

    /// The `n` keys with the largest items, largest first: (key, its largest item's size).
    pub fn largest_items(&self, n: usize) -> Vec<(u32, u64)> {
        let sized = self.measured().map(|(i, k)| (i, k.max));
        super::first_n_of(sized, n, |a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)))
    }

    /// The key whose measured items take the most bytes together (for an export: the largest item
    /// collection), with its sizes.
    pub fn largest_collection(&self) -> Option<(u32, KeyBytes)> {
        self.measured()
            .max_by_key(|(i, k)| (k.bytes, std::cmp::Reverse(*i)))
    }

    /// [`Self::largest_items`] and [`Self::largest_collection`] in one pass over the sizes: each pass over 1.9
    /// million keys' sizes (46 MB) was 8–9 ms of `analyze --key-expr`'s report (`perf record`).
    pub fn largest(&self, n: usize) -> Largest {
        if n == 0 {
            // `first_n_of` reads nothing for none.
            return Largest {
                items: Vec::new(),
                collection: self.largest_collection(),
            };
        }
        let mut collection: Option<(u32, KeyBytes)> = None;
        let sized = self.measured().map(|(i, k)| {
            // The first key of the most bytes, as `max_by_key` with the index reversed keeps it.
            if collection.is_none_or(|(_, l)| k.bytes > l.bytes) {
                collection = Some((i, k));
            }
            (i, k.max)
        });
        let items = super::first_n_of(sized, n, |a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        Largest { items, collection }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KeyType;

    #[test]
    fn one_pass_finds_the_largest_items_and_collection_as_two_do() {
        let mut a = KeySet::new(KeyType::S);
        // Ties on the collection's bytes and on the items' sizes: the first key wins each.
        for (key, sizes) in [
            ("A", &[300u64, 100][..]),
            ("B", &[400]),
            ("C", &[]),
            ("D", &[200, 200]),
            ("E", &[400]),
        ] {
            let k = a.add(key.as_bytes(), 1);
            for &b in sizes {
                a.note_item_bytes(k, b, 1);
            }
        }
        for n in 0..6 {
            let both = a.largest(n);
            assert_eq!(
                (both.items, both.collection),
                (a.largest_items(n), a.largest_collection())
            );
        }
        let largest = a.largest(2).collection;
        assert_eq!(
            largest.map(|(k, _)| a.display(k).into_owned()),
            Some("A".to_owned())
        );
    }

    #[test]
    fn item_sizes_per_key_and_by_kb_survive_a_merge() {
        let mut a = KeySet::new(KeyType::S);
        let k = a.add(b"K", 1);
        a.note_item_bytes(k, 100, 1);
        a.note_item_bytes(k, 1024, 1);
        let j = a.add(b"J", 2);
        a.note_item_bytes(j, 5000, 2);
        assert_eq!(
            a.item_bytes(k),
            Some(KeyBytes {
                items: 2,
                bytes: 1124,
                max: 1024
            })
        );
        assert_eq!(a.item_bytes(k).unwrap().mean(), 562);
        let plain = a.add(b"plain", 1);
        assert_eq!(a.item_bytes(plain), None, "a key written without a size");
        let p = a.size_profile().unwrap();
        let kb: Vec<(u64, u64, u64)> = p.groups.iter().map(|g| (g.kb, g.items, g.bytes)).collect();
        assert_eq!(kb, [(1, 2, 1124), (5, 2, 10000)]);
        assert_eq!((p.items(), p.bytes(), p.mean()), (4, 11124, 2781));
        assert_eq!(a.largest_collection(), Some((j, a.item_bytes(j).unwrap())));

        let mut b = KeySet::new(KeyType::S);
        let j2 = b.add(b"J", 1);
        b.note_item_bytes(j2, 7000, 1);
        let n = b.add(b"N", 1);
        b.note_item_bytes(n, 1, 1);
        a.merge(&b);
        let j = a.find(b"J").unwrap();
        assert_eq!(a.item_bytes(j).unwrap().bytes, 17000);
        assert_eq!(a.item_bytes(j).unwrap().max, 7000);
        assert_eq!(a.item_bytes(a.find(b"N").unwrap()).unwrap().items, 1);
        assert_eq!(a.size_profile().unwrap().items(), 6);
        assert_eq!(KeySet::new(KeyType::S).size_profile(), None);
    }
}
