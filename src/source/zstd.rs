//! zstd decoding, the one place that says which decoder: zstd's C library on the desktop and in the CLI (the
//! fastest there is, and its `Decoder` reads concatenated frames one after the other), and in a page, where C
//! code cannot be built for wasm32, ruzstd (pure Rust) with the frames read in turn here, as zstd's own tool
//! does. Both undo the same `.zst` exports; a corrupt frame is an I/O error either way, which
//! [`super::read::Compression::corrupt`] words.

use std::io::{BufRead, Read};

/// `compressed`, decompressed: every frame in turn until the input ends.
#[cfg(not(target_arch = "wasm32"))]
pub fn decoder<'a, R: BufRead + Send + 'a>(
    compressed: R,
) -> std::io::Result<Box<dyn Read + Send + 'a>> {
    Ok(Box::new(::zstd::stream::read::Decoder::with_buffer(
        compressed,
    )?))
}

/// `compressed`, decompressed: every frame in turn until the input ends.
#[cfg(target_arch = "wasm32")]
pub fn decoder<'a, R: BufRead + Send + 'a>(
    compressed: R,
) -> std::io::Result<Box<dyn Read + Send + 'a>> {
    pure_rust_decoder(compressed)
}

/// The page's decoder (ruzstd), which the desktop's tests check against zstd's C library.
#[cfg(any(target_arch = "wasm32", test))]
fn pure_rust_decoder<'a, R: BufRead + Send + 'a>(
    compressed: R,
) -> std::io::Result<Box<dyn Read + Send + 'a>> {
    Ok(Box::new(Frames {
        frame: Some(new_frame(compressed)?),
    }))
}

#[cfg(any(target_arch = "wasm32", test))]
type Frame<R> = ruzstd::decoding::StreamingDecoder<R, ruzstd::decoding::FrameDecoder>;

#[cfg(any(target_arch = "wasm32", test))]
fn new_frame<R: BufRead>(compressed: R) -> std::io::Result<Frame<R>> {
    ruzstd::decoding::StreamingDecoder::new(compressed)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))
}

/// Concatenated frames, one decoder each (ruzstd's reads one frame).
#[cfg(any(target_arch = "wasm32", test))]
struct Frames<R: BufRead> {
    frame: Option<Frame<R>>,
}

#[cfg(any(target_arch = "wasm32", test))]
impl<R: BufRead> Read for Frames<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let Some(frame) = self.frame.as_mut() else {
                return Ok(0);
            };
            let n = frame.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            let Some(frame) = self.frame.take() else {
                return Ok(0);
            };
            let mut rest = frame.into_inner();
            if rest.fill_buf()?.is_empty() {
                return Ok(0);
            }
            self.frame = Some(new_frame(rest)?);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read as _;

    #[test]
    fn a_corrupt_frame_is_an_error_in_both() {
        let mut bad = ::zstd::encode_all(&b"some text that compresses"[..], 1).unwrap();
        let last = bad.len() - 3;
        bad[last] ^= 0xff;
        bad.truncate(bad.len() - 1);
        for decoder in [super::decoder, super::pure_rust_decoder] {
            let mut out = Vec::new();
            let read = decoder(&bad[..]).and_then(|mut d| d.read_to_end(&mut out));
            assert!(read.is_err(), "{out:?}");
        }
    }

    #[test]
    fn concatenated_frames_read_as_one_stream() {
        let mut two = ::zstd::encode_all(&b"first frame\n"[..], 1).unwrap();
        two.extend(::zstd::encode_all(&b"second frame\n"[..], 3).unwrap());
        for decoder in [super::decoder, super::pure_rust_decoder] {
            let mut out = String::new();
            decoder(&two[..]).unwrap().read_to_string(&mut out).unwrap();
            assert_eq!(out, "first frame\nsecond frame\n");
        }
    }
}
