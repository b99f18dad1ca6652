//! Gzip decompression for every reader: ISA-L's inflate (igzip) where the build found it, zlib-rs otherwise.
//!
//! Why ISA-L: inflating was half the CPU time of loading an S3 export (`perf`: zlib-rs's
//! `inflate_fast_help_avx2` 47 % of the 2 M-item bench's samples). One of that bench's 58 MB files inflates in
//! 54 ms with ISA-L 2.30 (Debian's `libisal2`, hand-written AVX2/AVX-512 assembly) against 80 ms with zlib-rs 0.6
//! and its AVX2 paths, the same 1 MB output buffer for both (docs/performance.md). No crate fills this role:
//! `isal-rs` builds ISA-L from source with autotools and nasm, or links a system ISA-L through bindings generated
//! for another ISA-L version; ours is a C shim compiled against the installed header, in a crate of its own
//! (`crates/shardlens-isal`, so that shardlens keeps `unsafe_code = "forbid"`), and Rust never depends on
//! the layout of ISA-L's state.
//!
//! [`gz_decoder`] picks the decompressor; `SHARDLENS_GZIP=zlib-rs` in the environment picks zlib-rs at run time
//! (to compare the two, or should ISA-L ever misread a file). Both read concatenated members one after the other,
//! check each member's CRC-32 and length, and fail on a truncated stream or bytes after a member that do not
//! begin another one.

use std::io::{BufRead, Read};

/// A gzip decompressor for `r`: ISA-L's when the build has it (and `SHARDLENS_GZIP` is not `zlib-rs`), else
/// zlib-rs's ([`flate2::bufread::MultiGzDecoder`]).
pub fn gz_decoder<'a, R: BufRead + Send + 'a>(r: R) -> Box<dyn Read + Send + 'a> {
    if !use_isal() {
        return Box::new(flate2::bufread::MultiGzDecoder::new(r));
    }
    match shardlens_isal::GzDecoder::new(r) {
        Ok(d) => Box::new(d),
        Err(r) => Box::new(flate2::bufread::MultiGzDecoder::new(r)),
    }
}

/// The version and the gzip decompressor the build has, so that a user can tell whether the build found ISA-L
/// (`shardlens --version` adds the JSON array kernel: [`crate::cli::long_version`]).
pub const LONG_VERSION: &str = if shardlens_isal::AVAILABLE {
    concat!(
        env!("CARGO_PKG_VERSION"),
        " (gzip: ISA-L; SHARDLENS_GZIP=zlib-rs picks zlib-rs)"
    )
} else {
    concat!(
        env!("CARGO_PKG_VERSION"),
        " (gzip: zlib-rs; built without ISA-L, see the README)"
    )
};

/// ISA-L is in the build and not turned off by `SHARDLENS_GZIP=zlib-rs`.
fn use_isal() -> bool {
    shardlens_isal::AVAILABLE && std::env::var_os("SHARDLENS_GZIP").is_none_or(|v| v != "zlib-rs")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(data: &[u8], level: u32) -> Vec<u8> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
        gz.write_all(data).expect("in memory");
        gz.finish().expect("in memory")
    }

    /// Text with repeats near and far, as JSON lines have, from a seed.
    fn text(seed: u64, len: usize) -> Vec<u8> {
        let mut x = seed | 1;
        let mut out = Vec::with_capacity(len);
        while out.len() < len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let line = format!(
                "{{\"Item\":{{\"pk\":{{\"S\":\"user#{}\"}},\"n\":{{\"N\":\"{}\"}}}}}}\n",
                x % 5000,
                x % 97
            );
            out.extend_from_slice(line.as_bytes());
        }
        out.truncate(len);
        out
    }

    fn read_all(r: &mut dyn Read, chunk: usize) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut buf = vec![0u8; chunk];
        loop {
            let n = r.read(&mut buf)?;
            if n == 0 {
                return Ok(out);
            }
            out.extend_from_slice(&buf[..n]);
        }
    }

    /// Whatever decompressor the build has gives back what was compressed: members of several sizes and levels,
    /// concatenated, read through small and large buffers on both sides.
    #[test]
    fn members_come_back_whole() {
        let parts = [text(1, 0), text(2, 1), text(3, 100_000), text(4, 3_000_000)];
        let mut gz = Vec::new();
        let mut want = Vec::new();
        for (i, p) in parts.iter().enumerate() {
            gz.extend(gzip(p, [1, 6, 9, 0][i]));
            want.extend_from_slice(p);
        }
        for (in_buf, out_buf) in [(1, 7), (17, 4096), (64 << 10, 1 << 20)] {
            let r = std::io::BufReader::with_capacity(in_buf, &gz[..]);
            let got = read_all(&mut *gz_decoder(r), out_buf).expect("valid gzip");
            assert!(
                got == want,
                "in {in_buf}, out {out_buf}: {} bytes of {}",
                got.len(),
                want.len()
            );
        }
    }

    /// A truncated stream, a flipped byte in the data or trailer, and garbage after a member all fail.
    #[test]
    fn damage_is_an_error() {
        let data = text(5, 200_000);
        let gz = gzip(&data, 6);
        let mut flipped_crc = gz.clone();
        let at = flipped_crc.len() - 6;
        flipped_crc[at] ^= 1;
        let mut flipped_len = gz.clone();
        let at = flipped_len.len() - 2;
        flipped_len[at] ^= 1;
        let mut garbage = gz.clone();
        garbage.extend_from_slice(b"not gzip");
        let mut flipped_data = gz.clone();
        let at = flipped_data.len() / 2;
        flipped_data[at] ^= 0x55;
        for (name, bad) in [
            ("truncated", &gz[..gz.len() / 2]),
            ("trailer cut", &gz[..gz.len() - 3]),
            ("crc", &flipped_crc[..]),
            ("length", &flipped_len[..]),
            ("garbage after", &garbage[..]),
            ("data", &flipped_data[..]),
        ] {
            let r = std::io::BufReader::with_capacity(4096, bad);
            assert!(
                read_all(&mut *gz_decoder(r), 65536).is_err(),
                "{name} was read as valid"
            );
        }
    }

    /// ISA-L (when the build has it) and zlib-rs agree byte for byte, and on which inputs fail.
    #[test]
    fn isal_agrees_with_zlib_rs() {
        if !shardlens_isal::AVAILABLE {
            // tests/run.sh sets this where it installed ISA-L: the build must then have found it.
            assert!(
                std::env::var_os("SHARDLENS_REQUIRE_ISAL").is_none(),
                "ISA-L is installed but not in this build (see crates/shardlens-isal/build.rs)"
            );
            eprintln!("ISA-L is not in this build: nothing to compare");
            return;
        }
        for seed in 0..8u64 {
            let data = text(seed, 10_000 + seed as usize * 77_777);
            let mut gz = gzip(&data, (seed % 10) as u32);
            if seed % 3 == 0 {
                gz.extend(gzip(&data[..data.len() / 3], 1));
            }
            let cut = &gz[..gz.len() - (seed as usize % 5)];
            let isal = read_all(
                &mut shardlens_isal::GzDecoder::new(std::io::BufReader::with_capacity(8192, cut))
                    .map_err(|_| "no ISA-L state")
                    .expect("allocated"),
                100_000,
            );
            let zlib = read_all(
                &mut flate2::bufread::MultiGzDecoder::new(std::io::BufReader::new(cut)),
                100_000,
            );
            match (isal, zlib) {
                (Ok(a), Ok(b)) => assert!(a == b, "seed {seed}: outputs differ"),
                (Err(_), Err(_)) => {}
                (a, b) => panic!(
                    "seed {seed}: ISA-L {:?} but zlib-rs {:?}",
                    a.map(|v| v.len()),
                    b.map(|v| v.len())
                ),
            }
        }
    }
}
