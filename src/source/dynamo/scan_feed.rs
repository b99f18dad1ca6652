//! A scan's pages merged as they arrive ([`ScanFeed`]): the keys so far, each design's keys so far and the
//! newest progress, taken as a [`ScanSnapshot`] whenever the caller wants to show them (the app's scan task
//! forwards one a few times a second). The finished [`super::Scanned`] stays the authority: merging pages
//! cannot tell whether a sort key kept increasing across pages.

use std::sync::Arc;

use super::ScanProgress;
use crate::model::KeySet;
use crate::model::design::DesignKeys;

/// The scan so far, as a snapshot: copies, so the scan goes on while they are shown.
#[derive(Debug, Clone)]
pub struct ScanSnapshot {
    pub keys: Arc<KeySet>,
    /// The keys of the scan's designs (GSIs: see [`super::ScanOptions::design`]); `None` without a design.
    pub designs: Option<Arc<[DesignKeys]>>,
    pub progress: ScanProgress,
}

/// A scan's pages ([`super::ScanEvent::Page`]) merged as they come.
#[derive(Debug, Default)]
pub struct ScanFeed {
    keys: KeySet,
    designs: Vec<DesignKeys>,
    /// Pages (and the newest progress) not in a snapshot yet.
    unsent: Option<ScanProgress>,
}

impl ScanFeed {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a page: its keys, its designs' keys (the same designs in the same order on every page) and the
    /// progress after it.
    pub fn add(&mut self, keys: &KeySet, designs: Vec<DesignKeys>, progress: ScanProgress) {
        if self.keys.is_empty() {
            self.keys = KeySet::new(keys.key_type());
        }
        self.keys.merge(keys);
        merge_designs(&mut self.designs, designs);
        self.unsent = Some(progress);
    }

    /// Whether pages came since the last snapshot.
    pub fn has_unsent(&self) -> bool {
        self.unsent.is_some()
    }

    /// Every page so far, when pages came since the last snapshot.
    pub fn snapshot(&mut self) -> Option<ScanSnapshot> {
        let progress = self.unsent.take()?;
        let designs = (!self.designs.is_empty()).then(|| self.designs.as_slice().into());
        Some(ScanSnapshot {
            keys: Arc::new(self.keys.clone()),
            designs,
            progress,
        })
    }
}

/// Adds a page's design keys to the ones read so far (the same designs, in the same order).
fn merge_designs(live: &mut Vec<DesignKeys>, page: Vec<DesignKeys>) {
    if live.is_empty() {
        *live = page;
        return;
    }
    for (mine, theirs) in live.iter_mut().zip(page) {
        mine.keys.merge(&theirs.keys);
        mine.absent += theirs.absent;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::model::KeyType;
    use crate::model::design::DesignKind;

    fn keys(key_type: KeyType, pairs: &[(&str, u64)]) -> KeySet {
        let mut set = KeySet::new(key_type);
        for (k, n) in pairs {
            set.add(k.as_bytes(), *n);
        }
        set
    }

    fn design(pairs: &[(&str, u64)], absent: u64) -> DesignKeys {
        DesignKeys {
            kind: DesignKind::Current,
            expr: "status".into(),
            fan_out: 1,
            keys: keys(KeyType::S, pairs),
            absent,
            projection: None,
        }
    }

    fn progress(items: u64) -> ScanProgress {
        ScanProgress {
            items,
            ..ScanProgress::default()
        }
    }

    #[test]
    fn pages_merge_into_one_snapshot_of_keys_designs_and_the_newest_progress() {
        let mut feed = ScanFeed::new();
        assert!(!feed.has_unsent());
        assert!(feed.snapshot().is_none(), "no page, no snapshot");
        feed.add(
            &keys(KeyType::N, &[("1", 2), ("2", 1)]),
            vec![design(&[("open", 3)], 0)],
            progress(3),
        );
        feed.add(
            &keys(KeyType::N, &[("2", 4)]),
            vec![design(&[("shut", 2)], 2)],
            progress(7),
        );
        assert!(feed.has_unsent());
        let s = feed.snapshot().unwrap();
        assert_eq!(s.keys.key_type(), KeyType::N, "the pages' key type");
        assert_eq!(s.keys.total(), 7);
        assert_eq!(s.keys.count(s.keys.find(b"2").unwrap()), 5);
        assert_eq!(s.progress.items, 7, "the newest progress");
        let designs = s.designs.unwrap();
        assert_eq!(designs.len(), 1);
        assert_eq!(designs[0].keys.total(), 5);
        assert_eq!(designs[0].absent, 2);
        assert!(
            !feed.has_unsent() && feed.snapshot().is_none(),
            "taken once"
        );
        feed.add(&keys(KeyType::N, &[("3", 1)]), Vec::new(), progress(8));
        let s = feed.snapshot().unwrap();
        assert_eq!(s.keys.total(), 8, "the snapshot holds every page so far");
    }

    #[test]
    fn a_scan_without_a_design_has_no_design_keys() {
        let mut feed = ScanFeed::new();
        feed.add(&keys(KeyType::S, &[("a", 1)]), Vec::new(), progress(1));
        assert!(feed.snapshot().unwrap().designs.is_none());
    }
}
