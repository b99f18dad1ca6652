//! ISA-L's streaming gzip inflate (igzip) as a [`Read`]er, when the build found ISA-L (`build.rs`).
//!
//! Why this exists: see shardlens's `src/source/gzip.rs` (ISA-L inflates the S3 export bench's files about
//! 1.5x faster than zlib-rs). The C shim (`src/shim.c`) is compiled against the installed `igzip_lib.h`, so
//! Rust sees ISA-L's state only as an opaque pointer and never depends on its layout.

// This crate is where shardlens's FFI to ISA-L is unsafe (the workspace denies unsafe code elsewhere, and
// shardlens forbids it): every unsafe block says why it is sound, every unsafe function its `# Safety`.
#![allow(unsafe_code, reason = "the calls into ISA-L's C shim")]
#![warn(missing_docs)]

use std::io::{BufRead, Read};

/// Whether this build links ISA-L; without it [`GzDecoder::new`] always hands its reader back.
pub const AVAILABLE: bool = cfg!(shardlens_isal);

/// Concatenated gzip members inflated by ISA-L: each member's header is parsed and its CRC-32 and length
/// checked; a truncated stream, or bytes after a member that do not begin another one, are an error.
pub struct GzDecoder<R> {
    // Without ISA-L no decoder is ever made (`new` hands the reader back), so nothing reads it.
    #[cfg_attr(not(shardlens_isal), allow(dead_code))]
    inner: R,
    #[cfg(shardlens_isal)]
    state: std::ptr::NonNull<std::ffi::c_void>,
    /// The current member has ended (trailer checked): the next byte begins another member, or the input ends.
    #[cfg(shardlens_isal)]
    between: bool,
    /// An error ISA-L reported along with bytes it made before it: given at the next read, after those bytes.
    #[cfg(shardlens_isal)]
    failed: Option<std::ffi::c_int>,
}

impl<R: BufRead> GzDecoder<R> {
    /// A decoder over `inner`, or `inner` back when this build has no ISA-L (or its state could not be
    /// allocated).
    pub fn new(inner: R) -> Result<Self, R> {
        #[cfg(shardlens_isal)]
        {
            // SAFETY: returns a new initialised state, or null.
            match std::ptr::NonNull::new(unsafe { ffi::shardlens_isal_new() }) {
                Some(state) => Ok(GzDecoder {
                    inner,
                    state,
                    between: false,
                    failed: None,
                }),
                None => Err(inner),
            }
        }
        #[cfg(not(shardlens_isal))]
        Err(inner)
    }
}

#[cfg(shardlens_isal)]
mod ffi {
    use std::ffi::{c_int, c_void};

    unsafe extern "C" {
        pub fn shardlens_isal_new() -> *mut c_void;
        pub fn shardlens_isal_reset(s: *mut c_void);
        pub fn shardlens_isal_free(s: *mut c_void);
        #[allow(clippy::too_many_arguments)]
        pub fn shardlens_isal_inflate(
            s: *mut c_void,
            input: *const u8,
            in_len: u32,
            out: *mut u8,
            out_len: u32,
            used: *mut u32,
            made: *mut u32,
            finished: *mut c_int,
        ) -> c_int;
    }
}

// SAFETY: the state is owned by this decoder alone, and ISA-L keeps no thread-local or global state for it.
#[cfg(shardlens_isal)]
unsafe impl<R: Send> Send for GzDecoder<R> {}

#[cfg(shardlens_isal)]
impl<R> Drop for GzDecoder<R> {
    fn drop(&mut self) {
        // SAFETY: the state came from `shardlens_isal_new` and is freed once, here.
        unsafe { ffi::shardlens_isal_free(self.state.as_ptr()) }
    }
}

fn corrupt(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned())
}

/// ISA-L's inflate error codes (`igzip_lib.h`), in words.
#[cfg(shardlens_isal)]
fn error(rc: std::ffi::c_int) -> std::io::Error {
    corrupt(match rc {
        -1 => "invalid deflate block",
        -2 => "invalid deflate symbol",
        -3 => "invalid deflate distance",
        -4 => "invalid gzip header",
        -5 => "unsupported gzip compression method",
        -6 => "gzip checksum or length does not match",
        _ => "corrupt deflate stream",
    })
}

impl<R: BufRead> Read for GzDecoder<R> {
    #[cfg(not(shardlens_isal))]
    fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
        // Never built: `new` hands the reader back.
        Err(corrupt("ISA-L is not in this build"))
    }

    #[cfg(shardlens_isal)]
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        if let Some(rc) = self.failed {
            return Err(error(rc));
        }
        let out_len = u32::try_from(out.len()).unwrap_or(u32::MAX);
        loop {
            let input = self.inner.fill_buf()?;
            if self.between {
                if input.is_empty() {
                    return Ok(0);
                }
                // SAFETY: a live state.
                unsafe { ffi::shardlens_isal_reset(self.state.as_ptr()) };
                self.between = false;
            }
            let at_end = input.is_empty();
            let in_len = u32::try_from(input.len()).unwrap_or(u32::MAX);
            let (mut used, mut made, mut finished) = (0u32, 0u32, 0);
            // SAFETY: `input` holds `in_len` readable bytes and `out` `out_len` writable ones, both alive for the
            // call; ISA-L reads and writes only within them, and writes the three counters.
            let rc = unsafe {
                ffi::shardlens_isal_inflate(
                    self.state.as_ptr(),
                    input.as_ptr(),
                    in_len,
                    out.as_mut_ptr(),
                    out_len,
                    &raw mut used,
                    &raw mut made,
                    &raw mut finished,
                )
            };
            self.inner.consume(used as usize);
            if rc < 0 {
                // Every byte before the damage is given, however the reads are cut, then the error, for good.
                self.failed = Some(rc);
                return if made > 0 {
                    Ok(made as usize)
                } else {
                    Err(error(rc))
                };
            }
            if finished != 0 {
                self.between = true;
            }
            if made > 0 {
                return Ok(made as usize);
            }
            if finished == 0 && at_end {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "incomplete deflate stream",
                ));
            }
            if finished == 0 && used == 0 {
                // Input there, none taken, nothing made: ISA-L cannot go on.
                return Err(corrupt("corrupt deflate stream"));
            }
        }
    }
}
