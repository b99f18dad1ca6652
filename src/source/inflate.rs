//! Decompressing on a thread of its own: a gzip or zstd file (or standard input) read by one reader is
//! inflated on one core while the reader parses on another, through a short queue of blocks.
//!
//! One compressed file loaded alone (not an export's folder, whose files already load on every core) spent
//! half its time inflating and half parsing on one core. Measured (2,000,000 export lines gzipped, 1 file,
//! page cache warm, this 2-core machine): see `docs/performance.md`.

use std::io::{BufRead, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, SyncSender};

/// Bytes of decompressed input in one block.
const BLOCK_BYTES: usize = 256 << 10;
/// Blocks decompressed ahead of the reader.
const AHEAD: usize = 4;

/// A block of decompressed bytes, and the compressed bytes read so far when it was filled.
type Block = std::io::Result<(Vec<u8>, u64)>;

/// The reader's end: decompressed blocks in order, from the thread that decompresses.
pub struct Inflated<'a> {
    blocks: Receiver<Block>,
    /// Emptied blocks go back to the thread to be filled again.
    spare: Sender<Vec<u8>>,
    block: Vec<u8>,
    at: usize,
    /// The input's end (or an error) was passed on.
    done: bool,
    /// Compressed bytes read, counted for progress as the reader takes each block.
    count: &'a AtomicU64,
    counted: u64,
    /// The thread's count of them.
    read: Arc<AtomicU64>,
}

/// Counts the compressed bytes the decompressor reads.
pub struct Counted<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Starts decompressing `raw` (the compressed bytes, read from the start) with `decoder` on a thread of its own;
/// the compressed bytes read count into `count` as the decompressed ones are read. The thread ends when the
/// input does, at an error, or once the reader is dropped.
pub fn inflate_on_thread<'a, R, D>(
    raw: R,
    decoder: impl FnOnce(Counted<R>) -> std::io::Result<D> + Send + 'static,
    count: &'a AtomicU64,
) -> Inflated<'a>
where
    R: Read + Send + 'static,
    D: Read,
{
    let (tx, blocks) = std::sync::mpsc::sync_channel::<Block>(AHEAD);
    let (spare, spares) = std::sync::mpsc::channel::<Vec<u8>>();
    let read = Arc::new(AtomicU64::new(0));
    let counted = Counted {
        inner: raw,
        count: Arc::clone(&read),
    };
    let theirs = Arc::clone(&read);
    std::thread::spawn(move || match decoder(counted) {
        Ok(mut d) => fill_blocks(&mut d, &tx, &spares, &theirs),
        Err(e) => {
            let _ = tx.send(Err(e));
        }
    });
    Inflated {
        blocks,
        spare,
        block: Vec::new(),
        at: 0,
        done: false,
        count,
        counted: 0,
        read,
    }
}

/// The decompressing thread: fills blocks from `d` and sends them until the input ends, an error (sent too)
/// or the reader hangs up.
fn fill_blocks(
    d: &mut dyn Read,
    tx: &SyncSender<Block>,
    spares: &Receiver<Vec<u8>>,
    read: &AtomicU64,
) {
    loop {
        let mut block = spares.try_recv().unwrap_or_default();
        block.resize(BLOCK_BYTES, 0);
        let mut n = 0;
        let result = loop {
            match d.read(&mut block[n..]) {
                Ok(0) => break Ok(()),
                Ok(k) => {
                    n += k;
                    if n == block.len() {
                        break Ok(());
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        block.truncate(n);
        let last = n == 0 || result.is_err();
        if n > 0 && tx.send(Ok((block, read.load(Ordering::Relaxed)))).is_err() {
            return;
        }
        if let Err(e) = result {
            let _ = tx.send(Err(e));
            return;
        }
        if last {
            return;
        }
    }
}

impl Inflated<'_> {
    /// Counts for progress the compressed bytes up to `read`.
    fn count_to(&mut self, read: u64) {
        self.count
            .fetch_add(read.saturating_sub(self.counted), Ordering::Relaxed);
        self.counted = self.counted.max(read);
    }
}

impl Read for Inflated<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let have = self.fill_buf()?;
        let n = have.len().min(buf.len());
        buf[..n].copy_from_slice(&have[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Inflated<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        while self.at == self.block.len() && !self.done {
            match self.blocks.recv() {
                Ok(Ok((block, read))) => {
                    let used = std::mem::replace(&mut self.block, block);
                    let _ = self.spare.send(used);
                    self.at = 0;
                    self.count_to(read);
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                // The thread ended: the input did (its last compressed bytes are counted now).
                Err(_) => {
                    self.done = true;
                    self.count_to(self.read.load(Ordering::Relaxed));
                }
            }
        }
        Ok(&self.block[self.at..])
    }

    fn consume(&mut self, amt: usize) {
        self.at = (self.at + amt).min(self.block.len());
    }
}

#[cfg(test)]
mod tests {
    use crate::source::read::{Compression, open, open_apart};
    use std::io::{Read, Write};
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Bytes of `n` lines, varied enough not to compress to nothing.
    fn text(n: usize) -> Vec<u8> {
        let mut x = 7u64;
        let mut out = Vec::new();
        for i in 0..n {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            writeln!(
                out,
                "line {i} {:x} {}",
                x >> 20,
                "y".repeat((x % 50) as usize)
            )
            .unwrap();
        }
        out
    }

    fn gzip(parts: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for part in parts {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(part).unwrap();
            out.extend(gz.finish().unwrap());
        }
        out
    }

    /// Everything a reader gives up to its end or first error, the error's text, and the bytes counted.
    fn read_all(
        path: &std::path::Path,
        apart: bool,
    ) -> (Vec<u8>, Option<String>, u64, Compression) {
        let count = AtomicU64::new(0);
        let mut input = if apart {
            open_apart(path, &count)
        } else {
            open(path, &count)
        }
        .map_err(|e| e.to_string())
        .unwrap();
        let mut out = Vec::new();
        let mut buf = vec![0u8; 10_000];
        let error = loop {
            match input.reader.read(&mut buf) {
                Ok(0) => break None,
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => break Some(e.to_string()),
            }
        };
        let compression = input.compression;
        drop(input);
        (out, error, count.load(Ordering::Relaxed), compression)
    }

    fn file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("shardlens-inflate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn inflating_on_a_thread_reads_what_one_reader_reads() {
        let (a, b) = (text(40_000), text(3_000));
        let gz = gzip(&[&a, &b]);
        let zst = zstd::encode_all(&a[..], 1).unwrap();
        for (name, bytes, want, kind) in [
            (
                "two-members.gz",
                &gz,
                [a.clone(), b.clone()].concat(),
                Compression::Gzip,
            ),
            ("one-frame.zst", &zst, a.clone(), Compression::Zstd),
        ] {
            let path = file(name, bytes);
            let (got, error, counted, compression) = read_all(&path, true);
            assert_eq!(compression, kind, "{name}");
            assert_eq!(error, None, "{name}");
            assert!(got == want, "{name}: the same bytes");
            assert_eq!(
                counted,
                bytes.len() as u64,
                "{name}: every compressed byte counted"
            );
            assert_eq!(read_all(&path, false).0, got, "{name}");
        }
    }

    #[test]
    fn a_corrupt_stream_fails_where_one_reader_fails() {
        let gz = gzip(&[&text(40_000)]);
        let zst = zstd::encode_all(&text(40_000)[..], 1).unwrap();
        let mut flipped = gz.clone();
        let middle = flipped.len() / 2;
        flipped[middle] ^= 0xff;
        for (name, bytes) in [
            ("truncated.gz", &gz[..gz.len() / 2]),
            ("flipped.gz", &flipped[..]),
            ("truncated.zst", &zst[..zst.len() / 2]),
        ] {
            let path = file(name, bytes);
            let (got, error, ..) = read_all(&path, true);
            let (want, want_error, ..) = read_all(&path, false);
            assert!(error.is_some(), "{name}: an error");
            assert_eq!(error, want_error, "{name}");
            assert!(got == want, "{name}: the same bytes before the error");
        }
    }

    #[test]
    fn a_plain_file_and_a_reader_dropped_early_are_fine() {
        let plain = text(1_000);
        let path = file("plain.txt", &plain);
        let (got, error, counted, compression) = read_all(&path, true);
        assert_eq!((compression, error), (Compression::None, None));
        assert_eq!((got, counted), (plain.clone(), plain.len() as u64));
        // The thread stops once nobody reads: dropping after one read neither hangs nor panics.
        let path = file("early.gz", &gzip(&[&text(200_000)]));
        let count = AtomicU64::new(0);
        let mut input = open_apart(&path, &count)
            .map_err(|e| e.to_string())
            .unwrap();
        let mut buf = [0u8; 100];
        assert_eq!(input.reader.read(&mut buf).unwrap(), 100);
        drop(input);
    }
}
