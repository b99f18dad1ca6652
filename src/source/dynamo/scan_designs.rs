//! A scan's key designs ([`super::ScanOptions::design`]): each page's items keyed by every candidate and GSI
//! as they arrive, the whole scan's keys beside them, and the items the design could not key.

use crate::model::KeyType;
use crate::model::design::{Design, DesignError, DesignKeys, Designer, item_identity};
use crate::model::keyexpr::Value;
use crate::model::shard::ShardBy;

/// The design's keys so far, and the items it could not key.
pub(super) struct Designs {
    pub(super) designer: Designer,
    /// Values per item in a page ([`Design::roots`]).
    pub(super) width: usize,
    pub(super) roots: Vec<String>,
    pub(super) skipped: u64,
    pub(super) first_error: Option<DesignError>,
}

impl Designs {
    pub(super) fn new(design: &Design, strict: usize) -> Self {
        let roots = design.roots();
        Self {
            designer: Designer::new(design)
                .skipping_bad(true)
                .strict_first(strict),
            width: roots.len(),
            roots,
            skipped: 0,
            first_error: None,
        }
    }

    /// A designer for one page's keys, to send with the page.
    pub(super) fn for_page(&self) -> Designer {
        Designer::new(self.designer.design()).skipping_bad(true)
    }

    /// Adds item `i` of a page (its values are row `i` of `values`) to the scan's designs and the page's;
    /// an item the design cannot key is left out of both and counted.
    pub(super) fn add(
        &mut self,
        page: &mut Designer,
        values: &[Option<Value>],
        i: usize,
        item: ItemKeys<'_>,
    ) {
        let row = values
            .get(i * self.width..(i + 1) * self.width)
            .unwrap_or(&[]);
        let attrs = crate::model::design::RootValues {
            roots: &self.roots,
            values: row,
        };
        let identity = item_identity(item.pk, item.raw_sk);
        match self.designer.prepare(&attrs, item.sk, 1, identity) {
            Ok(prepared) => {
                page.commit(prepared.clone(), item.page_key);
                self.designer.commit(prepared, item.key);
            }
            Err(e) => {
                self.skipped += 1;
                self.first_error.get_or_insert(e);
            }
        }
    }

    pub(super) fn finish(self) -> Finished {
        let not_keyed = self
            .designer
            .not_keyed()
            .iter()
            .filter_map(|(n, e)| e.clone().map(|e| (*n, e)))
            .collect();
        let (designs, shard_by) = self.designer.finish();
        Finished {
            designs,
            shard_by,
            skipped: self.skipped,
            first_error: self.first_error,
            not_keyed,
        }
    }
}

/// What [`Designs::finish`] gives (see the fields of the same names in [`Scanned`]).
#[derive(Default)]
pub(super) struct Finished {
    pub(super) designs: Vec<DesignKeys>,
    pub(super) shard_by: Option<ShardBy>,
    /// Items left out of every design, and the first reason.
    pub(super) skipped: u64,
    pub(super) first_error: Option<DesignError>,
    /// Per candidate that could not key some items: how many, and the first reason.
    pub(super) not_keyed: Vec<(u64, DesignError)>,
}

/// One item's keys as [`Designs::add`] needs them.
#[derive(Clone, Copy)]
pub(super) struct ItemKeys<'a> {
    pub(super) pk: &'a [u8],
    /// The sort key as read (for the item's identity), even when the scan's keys do not keep it.
    pub(super) raw_sk: Option<&'a [u8]>,
    /// The sort key the scan's keys keep.
    pub(super) sk: Option<(&'a [u8], KeyType)>,
    pub(super) key: u32,
    pub(super) page_key: u32,
}
