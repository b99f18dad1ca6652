//! Pacing a scan: exponential backoff with jitter after throttling ([`Backoff`], and a small per-segment
//! random source for its jitter) and the token bucket that keeps all segments under a read-capacity rate
//! ([`RcuLimiter`]).

use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// Exponential backoff with full jitter: attempt `n` waits a random time in `[0, min(max, base × 2ⁿ)]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    pub base: Duration,
    pub max: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Self {
            base: Duration::from_millis(50),
            max: Duration::from_secs(20),
        }
    }
}

impl Backoff {
    /// The ceiling of attempt `attempt` (1-based), before jitter.
    pub fn ceiling(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.min(30));
        self.base.saturating_mul(factor).min(self.max)
    }

    /// The wait before retry `attempt`, `jitter` in `[0, 1)`; never shorter than a millisecond.
    pub fn delay(&self, attempt: u32, jitter: f64) -> Duration {
        self.ceiling(attempt)
            .mul_f64(jitter.clamp(0.0, 1.0))
            .max(Duration::from_millis(1))
    }
}

/// A token bucket of read units shared by all segments.
///
/// Before a request a segment reserves the units it expects the page to cost (the cost of its previous
/// page); when the answer arrives (`ReturnConsumedCapacity=TOTAL`) the reservation is corrected to what was
/// really consumed. The balance may go negative, so an expensive page makes the next requests wait: over
/// any long stretch the consumed units stay at the rate. The bucket holds at most one second of units.
#[derive(Debug)]
pub struct RcuLimiter {
    rate: f64,
    state: Mutex<(f64, Instant)>,
}

impl RcuLimiter {
    /// A limiter of `rate` read units per second, starting empty.
    pub fn new(rate: f64) -> Self {
        Self {
            rate: rate.max(f64::MIN_POSITIVE),
            state: Mutex::new((0.0, Instant::now())),
        }
    }

    pub fn rate(&self) -> f64 {
        self.rate
    }

    fn with_state<T>(&self, f: impl FnOnce(&mut f64) -> T) -> T {
        // A poisoned lock only means another segment panicked mid-update; the balance is still a number.
        let mut guard = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (tokens, last) = &mut *guard;
        let now = Instant::now();
        *tokens = (*tokens + now.duration_since(*last).as_secs_f64() * self.rate).min(self.rate);
        *last = now;
        f(tokens)
    }

    /// Waits until `units` can be reserved (at most one second's worth is waited for), then reserves them.
    pub async fn acquire(&self, units: f64) {
        loop {
            let need = units.min(self.rate);
            let wait = self.with_state(|tokens| {
                if *tokens >= need {
                    *tokens -= units;
                    None
                } else {
                    Some(Duration::from_secs_f64((need - *tokens) / self.rate))
                }
            });
            match wait {
                None => return,
                Some(w) => tokio::time::sleep(w.max(Duration::from_millis(1))).await,
            }
        }
    }

    /// Corrects a reservation of `reserved` units to the `consumed` ones.
    pub fn settle(&self, reserved: f64, consumed: f64) {
        self.with_state(|tokens| *tokens += reserved - consumed);
    }
}

/// A small SplitMix64 for backoff jitter: different per segment, no shared state.
pub(super) struct Jitter(u64);

impl Jitter {
    pub(super) fn new(seed: u64) -> Self {
        let time = web_time::SystemTime::now()
            .duration_since(web_time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(time))
    }

    /// A number in `[0, 1)`.
    pub(super) fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}
