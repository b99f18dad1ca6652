//! Threads, the one place that knows whether there are any. On the desktop and in the CLI a load uses the
//! machine's cores; in a page (wasm32-unknown-unknown has no threads) [`cores`] is 1, so the loaders that
//! split a file or a folder between threads take their one-reader path, and [`handed_over`] runs its
//! consumer inline. The results are the same either way: the same keys in the same order, the same counts,
//! warnings and errors.

/// How many threads a load may use: the machine's cores (1 when it cannot tell), and 1 in a page.
pub fn cores() -> usize {
    #[cfg(target_arch = "wasm32")]
    {
        1
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
    }
}

/// The producer's end of [`handed_over`]: values go to the consumer in order, and used ones come back to be
/// filled again.
pub struct Handoff<'c, T, E> {
    #[cfg(not(target_arch = "wasm32"))]
    to: std::sync::mpsc::SyncSender<T>,
    #[cfg(not(target_arch = "wasm32"))]
    spares: std::sync::mpsc::Receiver<T>,
    #[cfg(target_arch = "wasm32")]
    consume: &'c mut (dyn FnMut(&mut T) -> Result<(), E> + Send),
    #[cfg(target_arch = "wasm32")]
    failed: Option<E>,
    #[cfg(target_arch = "wasm32")]
    spare: Option<T>,
    #[cfg(not(target_arch = "wasm32"))]
    _consumer: std::marker::PhantomData<&'c E>,
}

impl<T, E> Handoff<'_, T, E> {
    /// Hands `value` over; false when the consumer has stopped (it returned an error: the producer should
    /// stop too, and the error is [`handed_over`]'s).
    pub fn send(&mut self, value: T) -> bool {
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.to.send(value).is_ok()
        }
        #[cfg(target_arch = "wasm32")]
        {
            let mut value = value;
            if self.failed.is_some() {
                return false;
            }
            match (self.consume)(&mut value) {
                Ok(()) => {
                    self.spare = Some(value);
                    true
                }
                Err(e) => {
                    self.failed = Some(e);
                    false
                }
            }
        }
    }

    /// A value the consumer is done with, to fill again, if one is back.
    pub fn spare(&mut self) -> Option<T> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.spares.try_recv().ok()
        }
        #[cfg(target_arch = "wasm32")]
        {
            self.spare.take()
        }
    }
}

/// Runs `produce` on this thread while `consume` takes what it hands over, in order: on a second thread
/// (at most `depth` values waiting between them) on the desktop, inline in a page. Returns what `produce`
/// returned and how the consumer ended: `None` when its thread panicked.
pub fn handed_over<T: Send, E: Send, P>(
    depth: usize,
    consume: impl FnMut(&mut T) -> Result<(), E> + Send,
    produce: impl FnOnce(&mut Handoff<'_, T, E>) -> P,
) -> (P, Option<Result<(), E>>) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let mut consume = consume;
        std::thread::scope(|scope| {
            let (to, from) = std::sync::mpsc::sync_channel::<T>(depth);
            let (back, spares) = std::sync::mpsc::channel::<T>();
            let worker = scope.spawn(move || -> Result<(), E> {
                for mut value in from {
                    consume(&mut value)?;
                    let _ = back.send(value);
                }
                Ok(())
            });
            let produced = {
                let mut handoff = Handoff {
                    to,
                    spares,
                    _consumer: std::marker::PhantomData,
                };
                produce(&mut handoff)
            };
            (produced, worker.join().ok())
        })
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = depth;
        let mut consume = consume;
        let mut handoff = Handoff {
            consume: &mut consume,
            failed: None,
            spare: None,
        };
        let produced = produce(&mut handoff);
        let ended = handoff.failed.map_or(Ok(()), Err);
        (produced, Some(ended))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_arrive_in_order_and_an_error_stops_the_producer() {
        let mut seen = Vec::new();
        let (sent, ended) = handed_over(
            2,
            |v: &mut Vec<u32>| {
                if v.contains(&7) {
                    return Err(format!("bad batch {v:?}"));
                }
                seen.extend(v.iter().copied());
                Ok(())
            },
            |handoff| {
                let mut sent = 0;
                for k in 0..10 {
                    let mut batch = handoff.spare().unwrap_or_default();
                    batch.clear();
                    batch.push(k);
                    if !handoff.send(batch) {
                        break;
                    }
                    sent += 1;
                }
                sent
            },
        );
        assert_eq!(ended, Some(Err("bad batch [7]".to_owned())));
        assert_eq!(seen, (0..7).collect::<Vec<_>>());
        // The producer stops at most a channel's depth after the consumer did.
        assert!((7..=10).contains(&sent), "{sent}");
    }
}
