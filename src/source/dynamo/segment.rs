//! One segment of the parallel scan (`scan.rs`): its own pagination, the read-capacity limiter's share,
//! backoff after throttling and the retries of transient errors; pages go to the merging task as messages.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::mpsc;

use super::error::DynamoError;
use super::pace::{Backoff, Jitter, RcuLimiter};
use super::scan::{PageRequest, PageSource};
use crate::model::keyexpr::Value;

/// Each item's partition key and sort key bytes.
pub(super) type PageKeys = Vec<(Vec<u8>, Option<Vec<u8>>)>;
/// A page's [`super::scan::ItemFacts`] and the TTL attribute they read.
pub(super) type PageFacts = (Vec<super::scan::ItemFacts>, Option<std::sync::Arc<str>>);

pub(super) enum SegmentMsg {
    Page {
        segment: u32,
        page_keys: PageKeys,
        values: Vec<Option<Value>>,
        facts: PageFacts,
        scanned: u64,
        skipped: u64,
        rcu: f64,
        last: bool,
    },
    Retry {
        segment: u32,
        attempt: u32,
    },
    Resumed {
        segment: u32,
    },
    Failed {
        segment: u32,
        error: DynamoError,
    },
}

/// Transient server errors, timeouts and broken connections are retried this often in a row per page before
/// the scan gives up (as the AWS SDKs' standard retry mode, three attempts); throttling is retried without a
/// limit (the scan can be cancelled).
pub(super) const TRANSIENT_RETRIES: u32 = 3;

pub(super) struct SegmentTask {
    pub(super) segment: u32,
    pub(super) total: u32,
    pub(super) page_size: Option<u32>,
    pub(super) limiter: Option<Arc<RcuLimiter>>,
    pub(super) backoff: Backoff,
    pub(super) stop: Arc<AtomicBool>,
    pub(super) tx: mpsc::Sender<SegmentMsg>,
}

impl SegmentTask {
    pub(super) async fn run<P: PageSource>(self, source: Arc<P>) {
        let mut cursor: Option<P::Cursor> = None;
        // Expected cost of the next page: the previous page's cost (one unit before the first).
        let mut expected = 1.0_f64;
        let mut page_size = self.page_size;
        let mut attempt = 0u32;
        let mut transient = 0u32;
        let mut jitter = Jitter::new(u64::from(self.segment) + 1);
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            if let Some(l) = &self.limiter {
                // With a cap and no page size chosen, start small and size pages to about a tenth of a
                // second of this segment's share, so the cap is held smoothly rather than in big gulps.
                if self.page_size.is_none() && page_size.is_none() {
                    page_size = Some(100);
                }
                l.acquire(expected).await;
            }
            let request = PageRequest {
                segment: self.segment,
                total_segments: self.total,
                start: cursor.clone(),
                limit: page_size,
            };
            match source.page(request).await {
                Ok(page) => {
                    if let Some(l) = &self.limiter {
                        l.settle(expected, page.consumed_rcu);
                        if self.page_size.is_none() && page.scanned > 0 && page.consumed_rcu > 0.0 {
                            let per_item = page.consumed_rcu / page.scanned as f64;
                            let target = (l.rate() / f64::from(self.total) / 10.0).max(1.0);
                            page_size = Some((target / per_item).clamp(10.0, 10_000.0) as u32);
                        }
                    }
                    expected = page.consumed_rcu.max(0.5);
                    if attempt > 0 {
                        let _ = self
                            .tx
                            .send(SegmentMsg::Resumed {
                                segment: self.segment,
                            })
                            .await;
                    }
                    attempt = 0;
                    transient = 0;
                    let last = page.next.is_none();
                    let msg = SegmentMsg::Page {
                        segment: self.segment,
                        page_keys: page.keys,
                        values: page.values,
                        facts: (page.facts, page.ttl_attr),
                        scanned: page.scanned,
                        skipped: page.skipped,
                        rcu: page.consumed_rcu,
                        last,
                    };
                    if self.tx.send(msg).await.is_err() || last {
                        return;
                    }
                    cursor = page.next;
                }
                Err(error) => {
                    if let Some(l) = &self.limiter {
                        l.settle(expected, 0.0);
                    }
                    if !self
                        .retry(error, &mut attempt, &mut transient, &mut jitter)
                        .await
                    {
                        return;
                    }
                }
            }
        }
    }

    /// After a failed page: waits out a backoff and returns `true` to try again (throttling, or a transient
    /// error up to [`TRANSIENT_RETRIES`] in a row), or reports the failure and returns `false`.
    async fn retry(
        &self,
        error: DynamoError,
        attempt: &mut u32,
        transient: &mut u32,
        jitter: &mut Jitter,
    ) -> bool {
        // Throttling is retried without a limit; server errors, timeouts and broken connections (a
        // connection dropped mid-response, a server too slow to answer) a few times in a row.
        let retry = error.is_throttling()
            || ((error.is_transient()
                || matches!(
                    error,
                    DynamoError::Timeout { .. } | DynamoError::Connect { .. }
                ))
                && {
                    *transient += 1;
                    *transient <= TRANSIENT_RETRIES
                });
        if !retry {
            let _ = self
                .tx
                .send(SegmentMsg::Failed {
                    segment: self.segment,
                    error,
                })
                .await;
            return false;
        }
        *attempt += 1;
        if self
            .tx
            .send(SegmentMsg::Retry {
                segment: self.segment,
                attempt: *attempt,
            })
            .await
            .is_err()
        {
            return false;
        }
        tokio::time::sleep(self.backoff.delay(*attempt, jitter.next())).await;
        true
    }
}
