//! What one request costs: read and write units by item size and consistency, and the item sizes a workload
//! reads and writes (one size, or the sizes measured from the data).
//!
//! From "Provisioned capacity mode" in the AWS DynamoDB developer guide: a strongly consistent read of up to
//! 4 KB is one read unit, eventually consistent half of that, transactional double; a write of up to 1 KB is
//! one write unit, transactional double.

use serde::{Deserialize, Serialize};

use super::{CapacityError, MAX_ITEM_BYTES, READ_UNIT_BYTES, WRITE_UNIT_BYTES};
use crate::model::fmt::grouped;
use crate::model::keyset::{SizeGroup, SizeProfile};

/// How reads are made; transactional applies to writes too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Consistency {
    /// Strongly consistent reads, standard writes.
    #[default]
    Strong,
    /// Eventually consistent reads (half a strongly consistent read), standard writes.
    Eventual,
    /// Transactional reads and writes (double).
    Transactional,
}

impl Consistency {
    pub const ALL: [Self; 3] = [Self::Strong, Self::Eventual, Self::Transactional];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Strong => "strong",
            Self::Eventual => "eventual",
            Self::Transactional => "transactional",
        }
    }
}

/// Read units of one read of an item of `bytes` bytes: ⌈bytes / 4 KB⌉ strongly consistent (at least 1, also
/// for a missing item), half of that eventually consistent, double transactional. ("Provisioned capacity mode".)
pub fn read_units(bytes: u64, consistency: Consistency) -> f64 {
    let strong = bytes.div_ceil(READ_UNIT_BYTES).max(1) as f64;
    match consistency {
        Consistency::Strong => strong,
        Consistency::Eventual => strong / 2.0,
        Consistency::Transactional => strong * 2.0,
    }
}

/// Write units of one write of an item of `bytes` bytes: ⌈bytes / 1 KB⌉ (at least 1), double transactional.
/// ("Provisioned capacity mode".) Eventual consistency does not apply to writes.
pub fn write_units(bytes: u64, consistency: Consistency) -> f64 {
    let standard = bytes.div_ceil(WRITE_UNIT_BYTES).max(1) as f64;
    match consistency {
        Consistency::Strong | Consistency::Eventual => standard,
        Consistency::Transactional => standard * 2.0,
    }
}

/// The size of the items read and written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[derive(Default)]
pub enum ItemSize {
    /// Every item has this many bytes.
    Bytes(u64),
    /// Sizes measured from the data, grouped by whole KB: each request touches one of these items, in
    /// proportion to the items of each size, and each is rounded up on its own (as GetItem/PutItem and
    /// BatchGetItem round per item). Measured from JSON, which runs larger than DynamoDB's own item size, a
    /// group over 400 KB counts as 400 KB.
    Measured(SizeProfile),
    /// The loaded items' measured sizes when the input carried them (DynamoDB JSON and Ion exports, scan output), else
    /// 1 KB: turned into [`Self::Measured`] or [`Self::Bytes`] by [`super::Workload::resolve`].
    #[default]
    FromData,
}

/// The size a [`ItemSize::FromData`] workload assumes when the data has no item sizes.
pub const ASSUMED_ITEM_BYTES: u64 = WRITE_UNIT_BYTES;

impl ItemSize {
    /// (size in whole KB, items, bytes) groups; an unresolved [`Self::FromData`] is 1 KB.
    pub(super) fn groups(&self) -> Vec<SizeGroup> {
        match self {
            Self::Bytes(b) => SizeProfile::uniform(*b, 1).groups,
            Self::FromData => SizeProfile::uniform(ASSUMED_ITEM_BYTES, 1).groups,
            Self::Measured(p) => p
                .groups
                .iter()
                .map(|g| SizeGroup {
                    kb: g.kb.min(MAX_ITEM_BYTES / 1024),
                    ..*g
                })
                .collect(),
        }
    }

    pub(super) fn check(&self) -> Result<(), CapacityError> {
        match self {
            Self::Bytes(bytes) if *bytes > MAX_ITEM_BYTES => {
                Err(CapacityError::ItemTooLarge { bytes: *bytes })
            }
            Self::Measured(p) if p.items() == 0 => Err(CapacityError::NoItemSizes),
            _ => Ok(()),
        }
    }

    /// Mean item size in bytes (0 with no sizes).
    pub fn mean_bytes(&self) -> f64 {
        let groups = self.groups();
        let items: u64 = groups.iter().map(|g| g.items).sum();
        if items == 0 {
            return 0.0;
        }
        groups.iter().map(|g| g.bytes as f64).sum::<f64>() / items as f64
    }

    /// Mean read units of one read.
    pub fn read_units(&self, consistency: Consistency) -> f64 {
        mean(&self.groups(), |b| read_units(b, consistency))
    }

    /// Mean write units of one write.
    pub fn write_units(&self, consistency: Consistency) -> f64 {
        mean(&self.groups(), |b| write_units(b, consistency))
    }

    /// What the size is, for people: "1,024 bytes", "measured: mean 212 bytes over 2,000,000 items".
    pub fn describe(&self) -> String {
        match self {
            Self::Bytes(b) => format!("{} bytes", grouped(*b)),
            Self::FromData => format!(
                "from the data (none measured: {} bytes)",
                grouped(ASSUMED_ITEM_BYTES)
            ),
            Self::Measured(p) => format!(
                "measured: mean {} bytes over {}",
                grouped(p.mean()),
                crate::model::fmt::plural(p.items(), "item")
            ),
        }
    }
}

/// The mean of `units` over size groups, weighted by their items; each group's size is its whole-KB bound,
/// which gives the same units as each item's own size.
fn mean(groups: &[SizeGroup], units: impl Fn(u64) -> f64) -> f64 {
    let items: u64 = groups.iter().map(|g| g.items).sum();
    if items == 0 {
        return 0.0;
    }
    groups
        .iter()
        .map(|g| units(g.kb * 1024) * g.items as f64)
        .sum::<f64>()
        / items as f64
}
